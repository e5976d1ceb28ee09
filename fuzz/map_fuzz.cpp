// Fuzz target: the Moving AI map reader and the grid searches (runtime/src/nav/). The input
// is the text of a .map file. A map that loads is searched between its first and its last
// passable cell with A* and with jump point search, in one go and time-sliced: the four must
// agree (found or not, and the length), every path must be a chain of legal moves, and the
// smoothed path must keep line of sight leg by leg. Any disagreement is a crash.
#include <cmath>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "thicket/nav.hpp"

namespace {

using namespace thicket::nav;

bool legal_chain(const GridMap& map, std::span<const Cell> path) {
  for (std::size_t i = 1; i < path.size(); ++i) {
    int dx = path[i].x - path[i - 1].x, dy = path[i].y - path[i - 1].y;
    if (std::abs(dx) > 1 || std::abs(dy) > 1 || (dx == 0 && dy == 0) || !map.passable(path[i])) return false;
    if (dx != 0 && dy != 0 && (!map.passable({path[i - 1].x + dx, path[i - 1].y}) || !map.passable({path[i - 1].x, path[i - 1].y + dy})))
      return false;  // a cut corner
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<thicket::Diagnostic> diags;
  std::optional<GridMap> map = parse_grid_map(text, "fuzz.map", diags);
  std::string messages;
  for (const auto& d : diags) messages += thicket::format_diagnostic(d);
  if (map && !diags.empty()) __builtin_trap();  // loaded despite an error
  if (!map && diags.empty()) __builtin_trap();  // refused without a word
  if (!map || std::int64_t(map->width()) * map->height() > 4096) return 0;

  std::vector<Cell> open;
  for (std::int32_t y = 0; y < map->height(); ++y)
    for (std::int32_t x = 0; x < map->width(); ++x)
      if (map->passable({x, y})) open.push_back({x, y});
  if (open.empty()) return 0;
  const Cell from = open.front(), to = open.back();

  static GridSearch search;  // reused across inputs, as a game reuses it
  double lengths[4];
  SearchState states[4];
  const Algorithm algorithms[2] = {Algorithm::AStar, Algorithm::Jps};
  for (int k = 0; k < 4; ++k) {
    SearchOptions options{.algorithm = algorithms[k % 2]};
    if (k < 2) {
      states[k] = search.find(*map, from, to, options);
    } else {
      states[k] = search.start(*map, from, to, options);
      while (states[k] == SearchState::Running) states[k] = search.step(3);
    }
    lengths[k] = states[k] == SearchState::Found ? search.length() : -1;
    if (states[k] == SearchState::Found) {
      if (search.path().front() != from || search.path().back() != to || !legal_chain(*map, search.path()))
        __builtin_trap();
      std::vector<thicket::world::Vec2> smooth;
      smooth_path(*map, search.path(), smooth);
      for (std::size_t i = 1; i < smooth.size(); ++i)
        if (!line_of_sight(*map, smooth[i - 1], smooth[i])) __builtin_trap();
    }
  }
  for (int k = 1; k < 4; ++k)
    if (states[k] != states[0] || std::abs(lengths[k] - lengths[0]) > 1e-9 * (1 + lengths[0])) __builtin_trap();
  return 0;
}
