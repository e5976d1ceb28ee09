// Waypoint graphs (points of visibility): building the links, and A* over them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

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
    parent.assign(n, kNone);
    closed.assign(n, 0);
    heap.clear();
    route.clear();
  }
};

// The heap's order: lowest f first; ties by point index so results never depend on history.
bool after(const Scratch::Open& a, const Scratch::Open& b) {
  return a.f != b.f ? a.f > b.f : a.point > b.point;
}

// The waypoint nearest to p that p sees (walls.clear), or kNone.
std::uint32_t nearest_visible(std::span<const Vec2> points, const Walls& walls, Vec2 p) {
  std::uint32_t best = kNone;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::uint32_t i = 0; i < points.size(); ++i) {
    double d = distance(p, points[i]);
    // The distance test first: clear() is the expensive part.
    if (d < best_distance && walls.clear(p, points[i])) {
      best = i;
      best_distance = d;
    }
  }
  return best;
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
  const std::uint32_t start = nearest_visible(points_, walls, from);
  const std::uint32_t goal = start == kNone ? kNone : nearest_visible(points_, walls, to);
  if (goal == kNone) return false;

  thread_local Scratch s;
  s.reset(points_.size());
  const Vec2 goal_point = points_[goal];
  s.g[start] = 0;
  s.heap.push_back({distance(points_[start], goal_point), start});
  bool found = false;
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), after);
    std::uint32_t p = s.heap.back().point;
    s.heap.pop_back();
    if (s.closed[p]) continue;  // a stale entry: p was reached more cheaply since
    s.closed[p] = 1;
    if (p == goal) {
      found = true;
      break;
    }
    for (const Edge& e : edges_[p]) {
      double g = s.g[p] + e.length;
      if (s.closed[e.to] || g >= s.g[e.to]) continue;
      s.g[e.to] = g;
      s.parent[e.to] = p;
      // Straight-line distance never overestimates: every edge is a straight segment.
      s.heap.push_back({g + distance(points_[e.to], goal_point), e.to});
      std::push_heap(s.heap.begin(), s.heap.end(), after);
    }
  }
  if (!found) return false;

  for (std::uint32_t p = goal; p != kNone; p = s.parent[p]) s.route.push_back(p);
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
