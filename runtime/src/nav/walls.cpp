// Walls: whether a (thickened) segment or a point meets an obstacle or a blocked grid cell.
//
// A segment thickened by `radius` is a capsule: the points within radius of the segment. It is
// tested exactly (up to rounding) against every obstacle by the distance between the segment
// and the obstacle's outline, and against the grid map cell by cell: every cell within radius
// of the segment is visited, row by row, and must be passable. Touching counts as blocked for
// radius 0 (a sight line grazing an obstacle's edge is stopped, as obstacle_contains says the
// edge is inside); with radius > 0 a body that exactly fits (distance == radius) passes, so an
// agent of radius 0.5 cells walks down the middle of a one-cell corridor.
#include <algorithm>
#include <array>
#include <cmath>

#include "nav/grid_tables.hpp"
#include "nav/grid_walk.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

using world::Obstacle;
using world::ObstacleShape;

double point_segment_distance(Vec2 p, Vec2 a, Vec2 b) {
  Vec2 ab = b - a;
  double len_sq = ab.length_squared();
  double t = len_sq > 0 ? std::clamp((p - a).dot(ab) / len_sq, 0.0, 1.0) : 0.0;
  return (p - (a + ab * t)).length();
}

// True when the closed segments p1-p2 and q1-q2 share a point.
bool segments_meet(Vec2 p1, Vec2 p2, Vec2 q1, Vec2 q2) {
  double d1 = (q2 - q1).cross(p1 - q1), d2 = (q2 - q1).cross(p2 - q1);
  double d3 = (p2 - p1).cross(q1 - p1), d4 = (p2 - p1).cross(q2 - p1);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
    return true;
  // Touching or collinear cases: an end lies on the other segment.
  return point_segment_distance(p1, q1, q2) == 0 || point_segment_distance(p2, q1, q2) == 0 ||
         point_segment_distance(q1, p1, p2) == 0 || point_segment_distance(q2, p1, p2) == 0;
}

// Distance between two segments: 0 when they meet, else the nearest of the four end-to-segment
// distances (two disjoint segments are nearest at an end of one of them).
double segment_segment_distance(Vec2 p1, Vec2 p2, Vec2 q1, Vec2 q2) {
  if (segments_meet(p1, p2, q1, q2)) return 0;
  return std::min({point_segment_distance(p1, q1, q2), point_segment_distance(p2, q1, q2),
                   point_segment_distance(q1, p1, p2), point_segment_distance(q2, p1, p2)});
}

// Distance from the segment a-b to a closed polygon (its outline and inside): 0 when an end is
// inside or the segment crosses an edge; else the nearest edge.
template <class Corners>
double segment_polygon_distance(Vec2 a, Vec2 b, const Obstacle& shape, const Corners& v) {
  if (world::obstacle_contains(shape, a) || world::obstacle_contains(shape, b)) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++)
    best = std::min(best, segment_segment_distance(a, b, v[j], v[i]));
  return best;
}

double segment_obstacle_distance(Vec2 a, Vec2 b, const Obstacle& o) {
  switch (o.shape) {
    case ObstacleShape::Circle:
      return std::max(0.0, point_segment_distance(o.centre, a, b) - o.radius);
    case ObstacleShape::Box: {
      Vec2 lo = o.centre - o.half_extents, hi = o.centre + o.half_extents;
      std::array<Vec2, 4> corners{lo, Vec2{hi.x, lo.y}, hi, Vec2{lo.x, hi.y}};
      return segment_polygon_distance(a, b, o, corners);
    }
    case ObstacleShape::Polygon:
      if (o.vertices.size() < 3) return std::numeric_limits<double>::infinity();
      return segment_polygon_distance(a, b, o, o.vertices);
  }
  return std::numeric_limits<double>::infinity();
}

// A cheap bound before the exact test: every point of the obstacle is within this of its centre.
double bounding_radius(const Obstacle& o) {
  return o.shape == ObstacleShape::Box ? o.half_extents.length() : o.radius;
}

bool meets(double distance, double radius) { return distance <= 0 || distance < radius; }

// Distance from the segment a-b (grid units) to cell c's square.
double segment_cell_distance(Vec2 a, Vec2 b, Cell c) {
  Vec2 lo{double(c.x), double(c.y)}, hi{c.x + 1.0, c.y + 1.0};
  Obstacle square = Obstacle::box(lo, hi);
  std::array<Vec2, 4> corners{lo, Vec2{hi.x, lo.y}, hi, Vec2{lo.x, hi.y}};
  return segment_polygon_distance(a, b, square, corners);
}

// Every cell within r of the segment a-b (grid units) passable (cells outside the map are not).
// Row by row: a cell of row y within r of the segment is within r of the part of the segment
// whose y lies in [y - r, y + 1 + r], so its column lies within that part's x-range widened by r.
bool capsule_clear(const GridMap& map, Vec2 a, Vec2 b, double r) {
  // Far outside any map (and keeps the conversions to integers below defined).
  constexpr double kFar = 1e9;
  if (std::abs(a.x) > kFar || std::abs(a.y) > kFar || std::abs(b.x) > kFar || std::abs(b.y) > kFar || r > kFar)
    return false;
  // Rows -1 and height (like columns -1 and width below) stand for everything outside the map.
  const std::int64_t y_first = std::max<std::int64_t>(-1, std::int64_t(std::floor(std::min(a.y, b.y) - r)));
  const std::int64_t y_last = std::min<std::int64_t>(map.height(), std::int64_t(std::floor(std::max(a.y, b.y) + r)));
  for (std::int64_t y = y_first; y <= y_last; ++y) {
    double lo_y = double(y) - r, hi_y = double(y) + 1 + r;
    // The segment's part within lo_y <= y <= hi_y, by its parameter t in [0, 1].
    double t0 = 0, t1 = 1;
    double dy = b.y - a.y;
    if (dy != 0) {
      double ta = (lo_y - a.y) / dy, tb = (hi_y - a.y) / dy;
      t0 = std::max(t0, std::min(ta, tb));
      t1 = std::min(t1, std::max(ta, tb));
      if (t0 > t1) continue;
    }
    double xa = a.x + (b.x - a.x) * t0, xb = a.x + (b.x - a.x) * t1;
    std::int64_t x_first = std::max<std::int64_t>(-1, std::int64_t(std::floor(std::min(xa, xb) - r)));
    std::int64_t x_last = std::min<std::int64_t>(map.width(), std::int64_t(std::floor(std::max(xa, xb) + r)));
    for (std::int64_t x = x_first; x <= x_last; ++x) {
      Cell c{std::int32_t(x), std::int32_t(y)};
      if (map.passable(c)) continue;
      if (meets(segment_cell_distance(a, b, c), r)) return false;
    }
  }
  return true;
}

}  // namespace

Walls::Walls(std::span<const world::Obstacle> obstacles, const GridMap* map)
    : obstacles_(obstacles), map_(map), tables_(map != nullptr ? tables_for(*map, {}) : nullptr) {
  if (tables_ && tables_->blocked.any_open()) open_blocks_ = &tables_->blocked;
}

namespace {

// The obstacle part of Walls::clear, out of line: kept inside clear(), its large stack frame
// made the compiler spill the arguments and reload them with wider loads than it stored (a
// store-forwarding stall on every call, a sizeable part of perception's line-of-sight cost).
[[gnu::noinline]] bool obstacles_clear(std::span<const Obstacle> obstacles, Vec2 a, Vec2 b,
                                       double radius) {
  for (const Obstacle& o : obstacles) {
    if (point_segment_distance(o.centre, a, b) > bounding_radius(o) + radius) continue;
    if (meets(segment_obstacle_distance(a, b, o), radius)) return false;
  }
  return true;
}

}  // namespace

bool Walls::clear(Vec2 a, Vec2 b, double radius) const {
  if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(b.x) || !std::isfinite(b.y) ||
      !(radius >= 0) || !std::isfinite(radius))
    return false;
  if (!obstacles_.empty() && !obstacles_clear(obstacles_, a, b, radius)) return false;
  if (map_ == nullptr) return true;
  if (radius == 0)  // the blocked-cell counts only while the map is as they were built from
    return detail::sight_line(*map_, open_blocks_ != nullptr && tables_->stamp == map_->stamp() ? open_blocks_ : nullptr, a, b);
  if (!(map_->cell_size > 0)) return false;
  return capsule_clear(*map_, detail::to_grid(*map_, a), detail::to_grid(*map_, b),
                       radius / map_->cell_size);
}

bool Walls::region_clear(Vec2 lo, Vec2 hi) const {
  if (!std::isfinite(lo.x) || !std::isfinite(lo.y) || !std::isfinite(hi.x) || !std::isfinite(hi.y) ||
      !(lo.x <= hi.x && lo.y <= hi.y) || !obstacles_.empty())
    return false;
  if (map_ == nullptr) return true;
  if (open_blocks_ == nullptr || tables_->stamp != map_->stamp()) return false;
  return detail::sight_region(*map_, *open_blocks_, lo, hi);
}

namespace {

// A polygon with fewer than 3 corners encloses nothing; obstacle_contains would call every
// point inside it (its distance is 0 everywhere), so it is skipped here as in clear().
bool degenerate(const Obstacle& o) { return o.shape == ObstacleShape::Polygon && o.vertices.size() < 3; }

}  // namespace

bool Walls::blocked(Vec2 p) const {
  for (const Obstacle& o : obstacles_)
    if (!degenerate(o) && world::obstacle_contains(o, p)) return true;
  if (map_ == nullptr) return false;
  if (!(map_->cell_size > 0)) return true;
  // cell_at: a point on the east or south edge is in the last column or row, as the agents
  // pushed there are (it was outside the grid: a spawn area on that edge was "covered by
  // obstacles"); far or non-finite points land outside.
  const Cell c = map_->cell_at(p);
  return !map_->in_bounds(c) || !map_->passable(c);
}

}  // namespace thicket::nav
