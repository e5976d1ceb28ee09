// Path requests over whatever a world has: navmesh, waypoints, grid map, or nothing.
#include "thicket/navigator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "thicket/nav_mesh.hpp"

namespace thicket::nav {

PathMethod method_of(const NavWorld& world) {
  if (world.navmesh) return PathMethod::NavMesh;
  if (world.waypoints) return PathMethod::Waypoints;
  if (world.map) return PathMethod::Grid;
  return PathMethod::Straight;
}

const char* method_name(PathMethod method) {
  switch (method) {
    case PathMethod::Straight: return "straight";
    case PathMethod::Grid: return "grid";
    case PathMethod::Waypoints: return "waypoints";
    case PathMethod::NavMesh: return "navmesh";
  }
  return "?";
}

namespace {

std::string at(Vec2 p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%g, %g)", p.x, p.y);
  return buf;
}

// The danger at p: the sum of the costs of the zones holding it.
double danger_at(std::span<const DangerZone> zones, Vec2 p) {
  double sum = 0;
  for (const DangerZone& z : zones)
    if (z.cost > 0 && distance(p, z.centre) <= z.radius) sum += z.cost;
  return sum;
}

// The zones that may hold a point of the segment a-b (its distance to their centre within their
// radius, with a margin for the rounding of the points sampled on it): a zone further off adds
// nothing at any sample, so a leg's samples need ask only these (each sample asked every zone:
// 200 zones made one smoothing take seconds). Appended to `out`, which is cleared first.
void zones_near(std::span<const DangerZone> zones, Vec2 a, Vec2 b, std::vector<DangerZone>& out) {
  out.clear();
  const Vec2 d = b - a;
  const double len2 = d.x * d.x + d.y * d.y;
  for (const DangerZone& z : zones) {
    if (!(z.cost > 0)) continue;
    const double t = len2 > 0 ? std::clamp(((z.centre.x - a.x) * d.x + (z.centre.y - a.y) * d.y) / len2, 0.0, 1.0) : 0.0;
    const Vec2 q = a + d * t;
    if (distance(q, z.centre) <= z.radius * (1 + 1e-9) + 1e-9) out.push_back(z);
  }
}

// Work units of smoothing around danger: one a zone looked at or a point sampled. Past the
// bound (about 30 ms on this project's machines) the rest of the path keeps the search's cells:
// a valid path, only less smoothed, found in bounded time whatever the zones (the search
// itself is bounded by `budget` and the leaf time limit; this pass, after it, was not).
constexpr std::uint64_t kSmoothWork = 20'000'000;

// Whether the straight leg a-b may replace the cells of a stretch whose dearest cell costs
// max_cost and whose most dangerous cell centre has max_danger: the grid sees it, and no point
// along it (every quarter cell) is dearer or more dangerous than that.
bool leg_allowed(const GridMap& map, std::span<const DangerZone> zones, Vec2 a, Vec2 b, double max_cost,
                 double max_danger, std::vector<DangerZone>& near, std::uint64_t& work) {
  if (!line_of_sight(map, a, b)) return false;
  zones_near(zones, a, b, near);
  const double step = map.cell_size / 4;
  const int samples = static_cast<int>(distance(a, b) / step) + 1;
  work += zones.size() + static_cast<std::uint64_t>(samples + 1) * (1 + near.size());
  for (int k = 0; k <= samples; ++k) {
    Vec2 p = a + (b - a) * (double(k) / samples);
    Cell c = map.cell_at(p);
    if (map.in_bounds(c) && map.cost(c) > max_cost) return false;
    if (!near.empty() && danger_at(near, p) > max_danger) return false;
  }
  return true;
}
bool leg_allowed(const GridMap& map, std::span<const DangerZone> zones, Vec2 a, Vec2 b, double max_cost,
                 double max_danger) {
  std::vector<DangerZone> near;
  std::uint64_t work = 0;
  return leg_allowed(map, zones, a, b, max_cost, max_danger, near, work);
}

// Line-of-sight smoothing when danger zones are priced: smooth_path sees walls and terrain
// only, so its shortcuts would cut across the zones the search went round. From each kept
// cell the path is extended while the leg stays allowed (leg_allowed); O(cells x leg length),
// bounded by kSmoothWork.
void smooth_around_danger(const GridMap& map, std::span<const Cell> cells, std::span<const DangerZone> zones,
                          std::vector<Vec2>& out) {
  out.clear();
  if (cells.empty()) return;
  std::vector<DangerZone> near;
  std::uint64_t work = 0;
  std::size_t k = 0;
  out.push_back(map.centre_of(cells[0]));
  while (k + 1 < cells.size()) {
    std::size_t j = k + 1;
    double max_cost = std::max(map.cost(cells[k]), map.cost(cells[j]));
    double max_danger = std::max(danger_at(zones, map.centre_of(cells[k])), danger_at(zones, map.centre_of(cells[j])));
    work += 2 * zones.size();
    while (j + 1 < cells.size() && work < kSmoothWork) {
      const double cost = std::max(max_cost, double(map.cost(cells[j + 1])));
      const double danger = std::max(max_danger, danger_at(zones, map.centre_of(cells[j + 1])));
      if (!leg_allowed(map, zones, map.centre_of(cells[k]), map.centre_of(cells[j + 1]), cost, danger, near, work)) break;
      ++j;
      max_cost = cost;
      max_danger = danger;
    }
    out.push_back(map.centre_of(cells[j]));
    k = j;
  }
}

// The most danger at any point along a-b, sampled as leg_allowed samples it.
double leg_danger(const GridMap& map, std::span<const DangerZone> zones, Vec2 a, Vec2 b) {
  std::vector<DangerZone> near;
  zones_near(zones, a, b, near);
  if (near.empty()) return 0;
  const double step = map.cell_size / 4;
  const int samples = static_cast<int>(distance(a, b) / step) + 1;
  double most = 0;
  for (int k = 0; k <= samples; ++k) most = std::max(most, danger_at(near, a + (b - a) * (double(k) / samples)));
  return most;
}

double polyline_length(std::span<const Vec2> points) {
  double total = 0;
  for (std::size_t i = 1; i < points.size(); ++i) total += distance(points[i - 1], points[i]);
  return total;
}

}  // namespace

struct PathRequest::Impl {
  const NavWorld* world = nullptr;
  PathMethod method = PathMethod::Straight;
  SearchState state = SearchState::Idle;
  Vec2 from, to;
  bool smooth = true;
  Algorithm algorithm = Algorithm::Auto;
  std::vector<DangerZone> danger;  // the world's and the request's
  std::size_t own_danger = 0;      // where the request's own zones begin in danger
  GridSearch search;
  std::vector<Vec2> points;
  std::vector<Vec2> smoothed;
  double length = 0;
  std::string reason;
  const NavMesh* query_mesh = nullptr;
  std::unique_ptr<NavMeshQuery> query;

  SearchState fail(SearchState s, std::string why) {
    state = s;
    reason = std::move(why);
    points.clear();
    length = 0;
    return s;
  }

  SearchState found() {
    state = SearchState::Found;
    reason.clear();
    length = polyline_length(points);
    return state;
  }

  // The grid search is over: turn its cells into world points.
  SearchState finish_grid(SearchState s) {
    if (s == SearchState::Running) return state = s;
    if (s == SearchState::NoPath) return fail(s, "unreachable: no way through the map from " + at(from) + " to " + at(to));
    if (s != SearchState::Found) return fail(SearchState::Invalid, "the grid search could not start");
    const GridMap& map = *world->map;
    std::span<const Cell> cells = search.path();
    smoothed.clear();
    if (smooth && danger.empty()) {
      smooth_path(map, cells, smoothed);
    } else if (smooth) {
      smooth_around_danger(map, cells, danger, smoothed);
    } else {
      for (Cell c : cells) smoothed.push_back(map.centre_of(c));
    }
    // The exact ends replace the first and last cell centres where the path still sees past them
    // (and, with danger zones, goes into no more danger than the two legs it replaces: a bound
    // of its ends' danger alone kept the centre of the start's cell whenever the first leg
    // crossed a zone, and the path walked back to that centre, and past the goal to its own).
    auto end_droppable = [&](Vec2 a, Vec2 via, Vec2 b) {
      if (danger.empty()) return line_of_sight(map, a, b);
      return leg_allowed(map, danger, a, b, std::numeric_limits<double>::infinity(),
                         std::max(leg_danger(map, danger, a, via), leg_danger(map, danger, via, b)));
    };
    points.clear();
    points.push_back(from);
    const std::size_t n = smoothed.size();
    for (std::size_t i = 0; i < n; ++i) {
      Vec2 next = i + 1 < n ? smoothed[i + 1] : to;
      if ((i == 0 || i + 1 == n) && end_droppable(points.back(), smoothed[i], next)) continue;
      if (smoothed[i] == points.back()) continue;  // a start at a cell centre: no step of length 0
      points.push_back(smoothed[i]);
    }
    if (!(points.back() == to) || points.size() == 1) points.push_back(to);
    return found();
  }
};

PathRequest::PathRequest() : impl_(std::make_unique<Impl>()) {}
PathRequest::~PathRequest() = default;
PathRequest::PathRequest(PathRequest&&) noexcept = default;
PathRequest& PathRequest::operator=(PathRequest&&) noexcept = default;

SearchState PathRequest::start(const NavWorld& world, Vec2 from, Vec2 to, const PathOptions& options) {
  Impl& m = *impl_;
  m.world = &world;
  m.method = method_of(world);
  m.from = from;
  m.to = to;
  m.smooth = options.smooth;
  m.algorithm = options.algorithm;
  m.danger.clear();
  m.own_danger = 0;
  m.points.clear();
  m.reason.clear();
  if (!std::isfinite(from.x) || !std::isfinite(from.y) || !std::isfinite(to.x) || !std::isfinite(to.y)) {
    // Which one, as move_to's errors name x or y.
    const char* which = !std::isfinite(from.x) ? "the start's x" : !std::isfinite(from.y) ? "the start's y"
                        : !std::isfinite(to.x) ? "the goal's x" : "the goal's y";
    const double v = !std::isfinite(from.x) ? from.x : !std::isfinite(from.y) ? from.y : !std::isfinite(to.x) ? to.x : to.y;
    return m.fail(SearchState::Invalid, std::string("the start and goal must be finite numbers; ") + which + " is " +
                                            (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
  }
  // A goal inside an obstacle is refused on a navmesh or waypoint graph as on a grid (a navmesh
  // moved it to the nearest point of the mesh within reach, so a goal in a thin wall got a path
  // to the wall's side, and move_to walked there and then reported "stuck"). The start is not:
  // an agent pushed against an obstacle plans from the nearest point of the mesh.
  if (world.bounds && !world.bounds->contains(to) && m.method != PathMethod::Grid) {  // (a grid says "the map")
    char size[96];
    std::snprintf(size, sizeof size, "%g..%g x %g..%g", world.bounds->min.x, world.bounds->max.x, world.bounds->min.y,
                  world.bounds->max.y);
    return m.fail(SearchState::Invalid, "the goal " + at(to) + " is outside the world (" + size + ")");
  }
  if ((m.method == PathMethod::NavMesh || m.method == PathMethod::Waypoints) && world.walls.blocked(to))
    return m.fail(SearchState::Invalid, "the goal " + at(to) + " is inside an obstacle");
  switch (m.method) {
    case PathMethod::Straight:
      m.points = {from, to};
      return m.found();
    case PathMethod::Waypoints:
      if (!world.waypoints->find_path(world.walls, from, to, m.points))
        return m.fail(SearchState::NoPath, "unreachable: no waypoint route from " + at(from) + " to " + at(to));
      return m.found();
    case PathMethod::NavMesh: {
      if (!m.query || m.query_mesh != world.navmesh) {
        m.query = std::make_unique<NavMeshQuery>(*world.navmesh);
        m.query_mesh = world.navmesh;
      }
      std::string why;
      if (!m.query->find_path(from, to, m.points, nullptr, &why)) {
        // "unreachable: ...", as a grid and a waypoint graph say it (a script matching it
        // missed the navmesh's bare "unreachable").
        if (why == "unreachable") why = "unreachable: no way over the navmesh from " + at(from) + " to " + at(to);
        return m.fail(SearchState::NoPath, why);
      }
      return m.found();
    }
    case PathMethod::Grid: {
      const GridMap& map = *world.map;
      Cell a = map.cell_at(from), b = map.cell_at(to);
      if (!map.in_bounds(a)) return m.fail(SearchState::Invalid, "the start " + at(from) + " is outside the map");
      if (!map.in_bounds(b)) return m.fail(SearchState::Invalid, "the goal " + at(to) + " is outside the map");
      if (!map.passable(a)) return m.fail(SearchState::Invalid, "the start " + at(from) + " is inside a wall");
      if (!map.passable(b)) return m.fail(SearchState::Invalid, "the goal " + at(to) + " is inside a wall");
      m.danger.assign(world.danger.begin(), world.danger.end());
      m.own_danger = m.danger.size();
      m.danger.insert(m.danger.end(), options.danger.begin(), options.danger.end());
      SearchOptions so;
      so.algorithm = options.algorithm;
      so.danger = m.danger;
      return m.finish_grid(m.search.start(map, a, b, so));
    }
  }
  return m.fail(SearchState::Invalid, "unknown path method");
}

SearchState PathRequest::step(std::uint64_t max_expansions) {
  Impl& m = *impl_;
  if (m.state != SearchState::Running) return m.state;
  return m.finish_grid(m.search.step(max_expansions));
}

SearchState PathRequest::find(const NavWorld& world, Vec2 from, Vec2 to, const PathOptions& options) {
  SearchState s = start(world, from, to, options);
  return s == SearchState::Running ? step(0) : s;
}

SearchState PathRequest::state() const { return impl_->state; }
PathMethod PathRequest::method() const { return impl_->method; }
std::span<const Vec2> PathRequest::points() const { return impl_->points; }
double PathRequest::length() const { return impl_->length; }
const std::string& PathRequest::reason() const { return impl_->reason; }
std::uint64_t PathRequest::expanded() const {
  return impl_->method == PathMethod::Grid ? impl_->search.stats().expanded : 0;
}
Vec2 PathRequest::from() const { return impl_->from; }
Vec2 PathRequest::to() const { return impl_->to; }
PathOptions PathRequest::options() const {
  const Impl& m = *impl_;
  PathOptions o;
  o.algorithm = m.algorithm;
  o.smooth = m.smooth;
  o.danger = std::span<const DangerZone>(m.danger).subspan(std::min(m.own_danger, m.danger.size()));
  return o;
}

}  // namespace thicket::nav
