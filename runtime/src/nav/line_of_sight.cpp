// Line of sight on a grid map and the path smoothing built on it (seed 003).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "nav/grid_tables.hpp"
#include "nav/grid_walk.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

Vec2 grid_centre(Cell c) { return {c.x + 0.5, c.y + 0.5}; }

// A blocked cell as seen from a kept point p (grid units): the cone of directions between its
// two outermost corners, and its farthest corner's distance. A target whose direction lies
// strictly inside the cone and which lies beyond that distance is hidden: the segment crosses
// the cell's interior, so walk_segment would visit the cell and fail. Remembering the cells
// that stopped earlier tests skips most walks toward far path cells behind the same wall; the
// answers are the same as walking every time.
struct Occluder {
  Vec2 lo, hi;          // the cone's clockwise and counter-clockwise edges (from p)
  double far_sq = 0;    // the farthest corner's squared distance
};

Occluder occluder_of(Vec2 p, Cell c) {
  const Vec2 corners[4] = {{double(c.x), double(c.y)}, {c.x + 1.0, double(c.y)},
                           {c.x + 1.0, c.y + 1.0}, {double(c.x), c.y + 1.0}};
  Occluder o;
  o.lo = o.hi = corners[0] - p;
  for (const Vec2& corner : corners) {
    const Vec2 d = corner - p;
    // p is outside the cell, so the cell spans less than half a turn: the outermost corners
    // are the ones no other corner lies clockwise (lo) or counter-clockwise (hi) of.
    if (o.lo.cross(d) < 0) o.lo = d;
    if (o.hi.cross(d) > 0) o.hi = d;
    o.far_sq = std::max(o.far_sq, d.length_squared());
  }
  return o;
}

bool hides(const Occluder& o, Vec2 d) {
  return d.length_squared() > o.far_sq && o.lo.cross(d) > 0 && d.cross(o.hi) > 0;
}

// How long the segment p + t·d (t in [0, 1], grid units) runs inside cell c: the slab method
// on the cell's square. 0 for a cell it only touches (a corner the walk also hands over).
double length_in_cell(Vec2 p, Vec2 d, Cell c) {
  double t0 = 0, t1 = 1;
  const double lo[2] = {double(c.x), double(c.y)}, from[2] = {p.x, p.y}, dir[2] = {d.x, d.y};
  for (int axis = 0; axis < 2; ++axis) {
    if (dir[axis] == 0) {
      if (from[axis] < lo[axis] || from[axis] > lo[axis] + 1) return 0;
      continue;
    }
    double a = (lo[axis] - from[axis]) / dir[axis], b = (lo[axis] + 1 - from[axis]) / dir[axis];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  return t1 > t0 ? (t1 - t0) * d.length() : 0;
}

// The smoothing's scratch, one per thread (smooth_path may run on many threads): the dearest
// cell of each stretch, and the remembered occluders. No allocation once grown.
struct SmoothScratch {
  std::vector<float> dearest;  // dearest[j - kept]: the dearest cell of kept..j
  std::vector<double> cost;    // cost[j - kept]: what the path's moves from kept to j cost
  static constexpr int kOccluders = 16;
  Occluder occluders[kOccluders];
  int occluder_count = 0, next_occluder = 0;
  void forget() { occluder_count = next_occluder = 0; }
  void remember(const Occluder& o) {
    occluders[next_occluder] = o;
    next_occluder = (next_occluder + 1) % kOccluders;
    occluder_count = std::min(occluder_count + 1, kOccluders);
  }
  // Newest first: the targets come in path order, so the wall that hid the last one most
  // likely hides this one too.
  bool hidden(Vec2 d) const {
    for (int k = 1; k <= occluder_count; ++k)
      if (hides(occluders[(next_occluder - k + kOccluders) % kOccluders], d)) return true;
    return false;
  }
};

}  // namespace

namespace {

// detail::walk_segment over passable cells for a segment that moves on both axes, with the
// directions fixed at compile time: the same cells in the same order, decided by the very same
// arithmetic (so the same answer bit for bit), without re-deciding the signs at every step.
// Perception runs this several times per agent and tick. a, b: grid units, inside the map, so
// every cell walked is on the map (the walk stays within the two end cells' box): cells are
// read straight from the rows (passable: the map's cell bytes, width: its row length), and
// floor is a truncation (the coordinates are >= 0).
template <int SX, int SY>
bool walk_passable(const std::uint8_t* passable, std::int64_t width, Vec2 a, Vec2 b) {
  Cell c{std::int32_t(a.x), std::int32_t(a.y)};
  const Cell end{std::int32_t(b.x), std::int32_t(b.y)};
  std::int64_t at = std::int64_t(c.y) * width + c.x;
  if (!passable[at]) return false;
  const double adx = std::abs(b.x - a.x), ady = std::abs(b.y - a.y);
  std::int64_t steps_left = std::int64_t(std::abs(std::int64_t(end.x) - c.x)) +
                            std::abs(std::int64_t(end.y) - c.y);
  // The next boundaries ahead, as doubles: the integers c.x + 1 (or c.x) exactly, so the
  // distances below are walk_segment's to the bit, without an int-to-double conversion a step.
  double bx = SX > 0 ? double(c.x) + 1 : double(c.x), by = SY > 0 ? double(c.y) + 1 : double(c.y);
  while (!(c == end) && steps_left-- > 0) {
    const double to_x = SX > 0 ? bx - a.x : a.x - bx;
    const double to_y = SY > 0 ? by - a.y : a.y - by;
    const double tx = to_x * ady, ty = to_y * adx;
    const bool cross_x = tx <= ty && c.x != end.x;
    const bool cross_y = ty <= tx && c.y != end.y;
    if (cross_x && cross_y) {
      if (!passable[at + SX] || !passable[at + SY * width]) return false;
      c = {c.x + SX, c.y + SY};
      bx += SX;
      by += SY;
      at += SX + SY * width;
      if (steps_left > 0) --steps_left;
    } else if (cross_x) {
      c.x += SX;
      bx += SX;
      at += SX;
    } else if (cross_y) {
      c.y += SY;
      by += SY;
      at += SY * width;
    } else {
      break;
    }
    if (!passable[at]) return false;
  }
  return true;
}

}  // namespace

// The coordinates are taken axis by axis: as Vec2 arithmetic, GCC's straight-line vectorizer
// packed each point's two coordinates (which arrive in two registers) into one through the
// stack, and the 16-byte reload of two 8-byte stores stalled on store forwarding at every call
// (perception on a walled map ~8% slower), so that vectorizer is off for this function.
#if defined(__GNUC__) && !defined(__clang__)
[[gnu::optimize("no-tree-slp-vectorize")]]
#endif
bool detail::sight_line(const GridMap& map, const BlockedCounts* open_blocks, Vec2 a, Vec2 b) {
  const double cell = map.cell_size;
  if (!(cell > 0)) return false;
  // (x - origin) / 1 is x - origin exactly: 1 m cells skip the divisions.
  double ax = a.x - map.origin.x, ay = a.y - map.origin.y, bx = b.x - map.origin.x, by = b.y - map.origin.y;
  if (cell != 1) ax /= cell, ay /= cell, bx /= cell, by /= cell;
  const double w = map.width_, h = map.height_;
  // Both ends inside the map (false for NaN too), the east and south edges included (as
  // GridMap::cell_at: an agent pushed against them stands exactly there); an end on an edge is
  // taken a hair inside, in the last cell.
  const double we = w + GridMap::kEdgeSlack, he = h + GridMap::kEdgeSlack;
  if (!(ax >= 0 && ax <= we && ay >= 0 && ay <= he && bx >= 0 && bx <= we && by >= 0 && by <= he)) return false;
  if (ax >= w || bx >= w) {
    const double last = std::nextafter(w, 0.0);
    ax = std::min(ax, last);
    bx = std::min(bx, last);
  }
  if (ay >= h || by >= h) {
    const double last = std::nextafter(h, 0.0);
    ay = std::min(ay, last);
    by = std::min(by, last);
  }
  if (open_blocks != nullptr) {
    // The walk visits only cells of the box the end cells span. Inside the map the
    // coordinates are >= 0: truncation is the floor.
    const auto cax = std::int32_t(ax), cay = std::int32_t(ay), cbx = std::int32_t(bx), cby = std::int32_t(by);
    if (open_blocks->box_clear(std::min(cax, cbx), std::min(cay, cby), std::max(cax, cbx), std::max(cay, cby)))
      return true;
  }
  const Vec2 ga{ax, ay}, gb{bx, by};
  const std::uint8_t* cells = map.passable_.data();
  const std::int64_t width = map.width_;
  if (bx > ax && by > ay) return walk_passable<1, 1>(cells, width, ga, gb);
  if (bx > ax && by < ay) return walk_passable<1, -1>(cells, width, ga, gb);
  if (bx < ax && by > ay) return walk_passable<-1, 1>(cells, width, ga, gb);
  if (bx < ax && by < ay) return walk_passable<-1, -1>(cells, width, ga, gb);
  return detail::walk_segment(ga, gb, [&](Cell c) { return map.passable(c); });
}

// Why it holds: sight_line maps each end to the grid by subtraction, division by the cell size,
// a clamp to the last cell and truncation, each monotone (IEEE operations round monotonically),
// so an end between lo and hi lands between lo's and hi's results, inside the map when both
// are; its walk stays in the box of the two end cells, inside lo..hi's, whose blocks hold no
// blocked cell, so its own box test passes.
bool detail::sight_region(const GridMap& map, const BlockedCounts& open_blocks, Vec2 lo, Vec2 hi) {
  const double cell = map.cell_size;
  if (!(cell > 0)) return false;
  double x0 = lo.x - map.origin.x, y0 = lo.y - map.origin.y, x1 = hi.x - map.origin.x, y1 = hi.y - map.origin.y;
  if (cell != 1) x0 /= cell, y0 /= cell, x1 /= cell, y1 /= cell;
  const double w = map.width(), h = map.height();
  if (!(x0 >= 0 && y0 >= 0 && x1 <= w + GridMap::kEdgeSlack && y1 <= h + GridMap::kEdgeSlack && x0 <= x1 && y0 <= y1))
    return false;
  if (x1 >= w) x1 = std::nextafter(w, 0.0);  // as sight_line: an end on the edge is in the last cell
  if (y1 >= h) y1 = std::nextafter(h, 0.0);
  x0 = std::min(x0, x1);
  y0 = std::min(y0, y1);
  return open_blocks.box_clear(std::int32_t(x0), std::int32_t(y0), std::int32_t(x1), std::int32_t(y1));
}

bool line_of_sight(const GridMap& map, Vec2 a, Vec2 b) { return detail::sight_line(map, nullptr, a, b); }

void smooth_path(const GridMap& map, std::span<const Cell> cells, std::vector<Vec2>& out) {
  out.clear();
  if (cells.empty()) return;
  out.push_back(map.centre_of(cells.front()));
  const bool uniform = map.uniform_cost();
  thread_local SmoothScratch s;
  std::size_t kept = 0;
  const std::size_t last = cells.size() - 1;
  while (kept < last) {
    if (!uniform) {
      s.dearest.resize(last - kept + 1);
      s.cost.resize(last - kept + 1);
      float dearest = 0.0f;
      double cost = 0;
      for (std::size_t k = kept; k <= last; ++k) {
        // A cell off the map (a caller's mistake) has no cost; walks through it fail anyway.
        const bool on_map = map.in_bounds(cells[k]);
        s.dearest[k - kept] = dearest = on_map ? std::max(dearest, map.cost(cells[k])) : dearest;
        // A move costs its length x the mean of its two cells' costs (grid units), as A*'s.
        if (k > kept && on_map && map.in_bounds(cells[k - 1]))
          cost += distance(grid_centre(cells[k - 1]), grid_centre(cells[k])) *
                  (double(map.cost(cells[k - 1])) + map.cost(cells[k])) / 2;
        s.cost[k - kept] = cost;
      }
    }
    s.forget();  // occluders are seen from one kept point
    const Vec2 p = grid_centre(cells[kept]);
    // The farthest visible cell first: scanning backwards stops at the first success.
    std::size_t next = kept + 1;  // the next path cell is always reachable: the path moved there
    for (std::size_t j = last; j > kept + 1; --j) {
      const Vec2 target = grid_centre(cells[j]);
      if (s.hidden(target - p)) continue;
      const float max_cost = uniform ? 1.0f : s.dearest[j - kept];
      Cell stopped_at{};
      // With terrain the line's own cost is summed too (each cell's cost x the length inside
      // it): a line that crosses no dearer cell can still cost more than the stretch, when
      // the stretch follows ground cheaper than the line's (a road the search kept to).
      double line_cost = 0;
      const Vec2 d = target - p;
      const bool ok = detail::walk_segment(p, target, [&](Cell c) {
        stopped_at = c;
        if (!map.passable(c)) return false;
        if (uniform) return true;
        if (map.cost(c) > max_cost) return false;
        line_cost += map.cost(c) * length_in_cell(p, d, c);
        return true;
      }) && (uniform || line_cost <= s.cost[j - kept] * (1 + 1e-9));
      if (ok) {
        next = j;
        break;
      }
      // Only a blocked cell hides things for every later target; a dear one may not.
      if (!map.passable(stopped_at)) s.remember(occluder_of(p, stopped_at));
    }
    out.push_back(map.centre_of(cells[next]));
    kept = next;
  }
}

}  // namespace thicket::nav
