// Waypoint graphs (points of visibility): building the links, and A* over them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

constexpr std::uint32_t kNoWaypoint = std::numeric_limits<std::uint32_t>::max();

// A search's scratch, one per thread: find_path is const and may run on many threads at once,
// and once these have grown to the graph's size a search allocates nothing.
struct Scratch {
  struct Open {
    double f;
    std::uint32_t point;
  };
  std::vector<double> g;
  std::vector<std::uint32_t> parent;
  std::vector<std::uint8_t> closed;
  std::vector<Open> heap;
  std::vector<std::uint32_t> route;

  void reset(std::size_t n) {
    g.assign(n, std::numeric_limits<double>::infinity());
    parent.assign(n, kNoWaypoint);
    closed.assign(n, 0);
    heap.clear();
    route.clear();
  }
};

// The heap's order: lowest f first; ties by point index so results never depend on history.
bool after(const Scratch::Open& a, const Scratch::Open& b) {
  return a.f != b.f ? a.f > b.f : a.point > b.point;
}

}  // namespace

WaypointGraph::WaypointGraph(std::vector<Vec2> points)
    : points_(std::move(points)), edges_(points_.size()) {}

void WaypointGraph::connect(const Walls& walls, double max_length) {
  for (std::uint32_t a = 0; a < points_.size(); ++a)
    for (std::uint32_t b = a + 1; b < points_.size(); ++b) {
      double length = distance(points_[a], points_[b]);
      if (max_length > 0 && length > max_length) continue;
      if (walls.clear(points_[a], points_[b])) add_edge(a, b);
    }
}

void WaypointGraph::add_edge(std::uint32_t a, std::uint32_t b) {
  if (a >= points_.size() || b >= points_.size() || a == b) return;
  for (const Edge& e : edges_[a])
    if (e.to == b) return;  // already linked (connect after hand-made edges)
  double length = distance(points_[a], points_[b]);
  edges_[a].push_back({b, length});
  edges_[b].push_back({a, length});
}

bool WaypointGraph::find_path(const Walls& walls, Vec2 from, Vec2 to, std::vector<Vec2>& out,
                              double* length) const {
  out.clear();
  if (walls.clear(from, to)) {
    out.push_back(from);
    out.push_back(to);
    if (length) *length = distance(from, to);
    return true;
  }
  // The start and the goal join the graph at every waypoint they see, not at the nearest one
  // alone: the nearest may be a dead end (a waypoint with no link on the way), and a route
  // that leaves the graph early is shorter. The goal is node n, reached from the waypoints it
  // sees; the straight-line distance to it never overestimates (every leg is a straight
  // segment, the last one too), and along a leg it drops by at most the leg's length, so the
  // first time node n is closed its route is the shortest.
  const auto n = static_cast<std::uint32_t>(points_.size());
  thread_local Scratch s;
  s.reset(n + 1);
  thread_local std::vector<double> to_goal;  // per waypoint: the leg to the goal, or infinity
  to_goal.assign(n, std::numeric_limits<double>::infinity());
  bool goal_seen = false;
  for (std::uint32_t i = 0; i < n; ++i)
    if (walls.clear(points_[i], to)) {
      to_goal[i] = distance(points_[i], to);
      goal_seen = true;
    }
  if (!goal_seen) return false;
  for (std::uint32_t i = 0; i < n; ++i)
    if (walls.clear(from, points_[i])) {
      s.g[i] = distance(from, points_[i]);
      s.heap.push_back({s.g[i] + distance(points_[i], to), i});
    }
  std::make_heap(s.heap.begin(), s.heap.end(), after);
  auto offer = [&](std::uint32_t next, double g, std::uint32_t parent, Vec2 at) {
    if (s.closed[next] || g >= s.g[next]) return;
    s.g[next] = g;
    s.parent[next] = parent;
    s.heap.push_back({g + distance(at, to), next});
    std::push_heap(s.heap.begin(), s.heap.end(), after);
  };
  bool found = false;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), after);
    std::uint32_t p = s.heap.back().point;
    s.heap.pop_back();
    if (s.closed[p]) continue;  // a stale entry: p was reached more cheaply since
    s.closed[p] = 1;
    if (p == n) {
      found = true;
      break;
    }
    if (to_goal[p] < std::numeric_limits<double>::infinity()) offer(n, s.g[p] + to_goal[p], p, to);
    for (const Edge& e : edges_[p]) offer(e.to, s.g[p] + e.length, p, points_[e.to]);
  }
  if (!found) return false;

  for (std::uint32_t p = s.parent[n]; p != kNoWaypoint; p = s.parent[p]) s.route.push_back(p);
  out.push_back(from);
  for (auto it = s.route.rbegin(); it != s.route.rend(); ++it)
    if (!(points_[*it] == out.back())) out.push_back(points_[*it]);
  if (!(to == out.back()) || out.size() == 1) out.push_back(to);
  if (length) {
    double total = 0;
    for (std::size_t i = 1; i < out.size(); ++i) total += distance(out[i - 1], out[i]);
    *length = total;
  }
  return true;
}

}  // namespace thicket::nav
