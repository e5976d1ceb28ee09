// The tables searches derive from a grid map — bit rows, jump distances (grid_bits.hpp),
// connected components and landmark distances (grid_landmarks.hpp), and the blocked-cell
// counts line of sight reads (below) — built once per version of the map and shared,
// read-only, by every GridSearch on any thread: a 512 x 512 map's tables are ~25 MB and take
// ~0.3 s to build, too much to repeat per search object (a scenario keeps one search per
// worker and one per agent with a time-sliced search in progress).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "grid_bits.hpp"
#include "grid_landmarks.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

// Blocked cells counted over rectangles of 8 x 8 blocks (a summed-area table of blocks). A sight
// line's cell walk never leaves the box spanned by its two end cells, so when the blocks over
// that box hold no blocked cell the line is clear without walking it: on open ground, most sight
// lines (perception's, through Walls). Counting whole blocks keeps the table small enough to stay
// in the first-level cache (17 KB for 512 x 512 cells; cell by cell it was 1 MB, and its cache
// misses cost more on a walled map, where the test almost always fails, than the walks it saved).
class BlockedCounts {
 public:
  static constexpr int kShift = 3;  // blocks of 8 x 8 cells
  void build(const GridMap& map);
  bool built() const { return !sum_.empty(); }
  // True when some block has no blocked cell (else box_clear is always false).
  bool any_open() const { return any_open_; }
  // True when no cell in the blocks over [x0, x1] × [y0, y1] is blocked (so none in the box);
  // 0 <= x0 <= x1 < width, same for y.
  bool box_clear(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1) const {
    x0 >>= kShift, y0 >>= kShift, x1 >>= kShift, y1 >>= kShift;
    const std::uint32_t* above = sum_.data() + std::size_t(y0) * stride_;
    const std::uint32_t* below = sum_.data() + std::size_t(y1 + 1) * stride_;
    return below[x1 + 1] - below[x0] - above[x1 + 1] + above[x0] == 0;
  }
  std::size_t bytes() const { return sum_.capacity() * sizeof(std::uint32_t); }

 private:
  std::size_t stride_ = 0;          // blocks across + 1
  bool any_open_ = false;
  std::vector<std::uint32_t> sum_;  // [y * stride + x]: blocked cells in blocks [0, x) × [0, y)
};

// What a user of the tables needs beyond the bits and the blocked counts (always built).
struct TableNeeds {
  bool distances = false;   // the jump distances (jump point search)
  bool components = false;  // the connected components (every search: a goal out of the
                            // start's component is NoPath before anything is expanded)
  bool landmarks = false;   // the landmark distances (guided jump point search)
};

struct GridTables {
  std::uint64_t stamp = 0;  // the map version they were built from
  TableNeeds has;           // what of the above is built
  GridBits bits;
  GridComponents components;
  GridLandmarks marks;
  BlockedCounts blocked;    // always
};

// Held by a GridMap (and its copies): the latest tables, under a lock while they are built.
struct GridTableCache {
  std::mutex mutex;
  std::shared_ptr<const GridTables> latest;
};

// The tables of the map as it is now, with at least what is asked for: the cached ones when
// they fit, else built now (under the cache's lock: a second search of the same map waits for
// the first one's build rather than repeating it). A map without a cache (default-constructed)
// gets tables of its own.
std::shared_ptr<const GridTables> tables_for(const GridMap& map, TableNeeds needs);

}  // namespace thicket::nav
