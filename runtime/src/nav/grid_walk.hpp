// The cells a segment crosses on a grid map, in order (Amanatides & Woo's traversal), shared by
// line of sight, path smoothing and walls. Internal to the core.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "thicket/nav.hpp"

namespace thicket::nav::detail {

// A world point in grid units: cell (x, y) is [x, x+1) × [y, y+1).
inline Vec2 to_grid(const GridMap& map, Vec2 p) {
  return {(p.x - map.origin.x) / map.cell_size, (p.y - map.origin.y) / map.cell_size};
}

inline Cell floor_cell(Vec2 g) {
  return {static_cast<std::int32_t>(std::floor(g.x)), static_cast<std::int32_t>(std::floor(g.y))};
}

// True when g (grid units) is finite and inside the map's rectangle.
inline bool inside_grid(const GridMap& map, Vec2 g) {
  return std::isfinite(g.x) && std::isfinite(g.y) && g.x >= 0 && g.y >= 0 && g.x < map.width() &&
         g.y < map.height();
}

// Calls enter(cell) for every cell the segment a→b (grid units, both inside the map) crosses,
// the first and last included, stopping as soon as enter returns false; returns false then.
// Where the segment passes exactly through a cell corner it moves diagonally, and both cells
// beside the corner on the way are also given to enter (the no-corner-cutting rule: a sight
// line squeezing between two diagonal blocks is blocked, as the diagonal move would be).
//
// Which boundary comes next is decided from the boundary positions and the segment's ends
// each step (a cross-multiplication, not an accumulated t), so cell-centre segments, whose
// numbers are exact halves, meet corners exactly and never drift.
template <class Enter>
bool walk_segment(Vec2 a, Vec2 b, Enter&& enter) {
  Cell c = floor_cell(a);
  const Cell end = floor_cell(b);
  if (!enter(c)) return false;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const int sx = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
  const int sy = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
  const double adx = std::abs(dx), ady = std::abs(dy);
  // Each step moves at least one cell closer to end on some axis, so this bounds the walk even
  // if rounding made it miss end.
  std::int64_t steps_left = std::int64_t(std::abs(std::int64_t(end.x) - c.x)) +
                            std::abs(std::int64_t(end.y) - c.y);
  while (!(c == end) && steps_left-- > 0) {
    // Distances (along each axis) to the next vertical and horizontal boundary.
    double to_x = sx > 0 ? (c.x + 1) - a.x : a.x - c.x;
    double to_y = sy > 0 ? (c.y + 1) - a.y : a.y - c.y;
    // Compare to_x/adx with to_y/ady without dividing; an axis with no motion never crosses.
    double tx = sx != 0 ? to_x * ady : 0, ty = sy != 0 ? to_y * adx : 0;
    bool cross_x, cross_y;
    if (sx == 0) cross_x = false, cross_y = true;
    else if (sy == 0) cross_x = true, cross_y = false;
    else cross_x = tx <= ty, cross_y = ty <= tx;
    // Don't step past the end cell on an axis (a segment ending on a boundary).
    if (cross_x && c.x == end.x) cross_x = false;
    if (cross_y && c.y == end.y) cross_y = false;
    if (!cross_x && !cross_y) break;
    if (cross_x && cross_y) {
      if (!enter(Cell{c.x + sx, c.y}) || !enter(Cell{c.x, c.y + sy})) return false;
      c = {c.x + sx, c.y + sy};
      if (steps_left > 0) --steps_left;
    } else if (cross_x) {
      c.x += sx;
    } else {
      c.y += sy;
    }
    if (!enter(c)) return false;
  }
  return true;
}

}  // namespace thicket::nav::detail
