// Line of sight on a grid map and the path smoothing built on it (seed 003).
#include <algorithm>

#include "nav/grid_walk.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

Vec2 grid_centre(Cell c) { return {c.x + 0.5, c.y + 0.5}; }

Vec2 world_centre(const GridMap& map, Cell c) {
  return {map.origin.x + (c.x + 0.5) * map.cell_size, map.origin.y + (c.y + 0.5) * map.cell_size};
}

// A shortcut between two path cells (grid units): every crossed cell passable and no dearer
// than `max_cost` (the dearest cell of the stretch of path the shortcut replaces).
bool shortcut_ok(const GridMap& map, Cell from, Cell to, float max_cost) {
  const bool uniform = map.uniform_cost();
  return detail::walk_segment(grid_centre(from), grid_centre(to), [&](Cell c) {
    return map.passable(c) && (uniform || map.cost(c) <= max_cost);
  });
}

}  // namespace

bool line_of_sight(const GridMap& map, Vec2 a, Vec2 b) {
  if (!(map.cell_size > 0)) return false;
  Vec2 ga = detail::to_grid(map, a), gb = detail::to_grid(map, b);
  if (!detail::inside_grid(map, ga) || !detail::inside_grid(map, gb)) return false;
  return detail::walk_segment(ga, gb, [&](Cell c) { return map.passable(c); });
}

void smooth_path(const GridMap& map, std::span<const Cell> cells, std::vector<Vec2>& out) {
  out.clear();
  if (cells.empty()) return;
  out.push_back(world_centre(map, cells.front()));
  const bool uniform = map.uniform_cost();
  std::size_t kept = 0;
  const std::size_t last = cells.size() - 1;
  while (kept < last) {
    // The farthest visible cell first: scanning backwards stops at the first success. On a
    // map with terrain costs the dearest cell of kept..j is recomputed for each j (a maximum
    // does not shrink incrementally as j falls, and a buffer would allocate per call).
    std::size_t next = kept + 1;  // the next path cell is always reachable: the path moved there
    for (std::size_t j = last; j > kept + 1; --j) {
      float max_cost = 1.0f;
      if (!uniform) {
        max_cost = 0.0f;
        for (std::size_t k = kept; k <= j; ++k) max_cost = std::max(max_cost, map.cost(cells[k]));
      }
      if (shortcut_ok(map, cells[kept], cells[j], max_cost)) {
        next = j;
        break;
      }
    }
    out.push_back(world_centre(map, cells[next]));
    kept = next;
  }
}

}  // namespace thicket::nav
