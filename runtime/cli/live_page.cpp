// The page `--serve` answers at `/`: the viewer (viewer_page.hpp) in live mode, which reads
// the record from /record as it comes.
#include "live_run.hpp"
#include "viewer_page.hpp"

namespace thicket::cli {

std::string live_page() { return viewer_page("", true); }

}  // namespace thicket::cli
