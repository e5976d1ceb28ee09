// Test helpers for navigation: the Moving AI maps of data/movingai, grid maps drawn as text, a
// reference path finder, and an independent (sampling) check of segments against blocked cells.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "thicket/nav.hpp"

namespace nav_fixture {

// The Moving AI scenario tests take every k-th scenario, k = THICKET_NAV_STRIDE (default 1:
// all). The sanitizer build sets 7 (CMakeLists.txt): there the searches are what is slow, and
// the Release build checks every scenario.
inline std::size_t scenario_stride() {
  const char* env = std::getenv("THICKET_NAV_STRIDE");
  const long k = env ? std::strtol(env, nullptr, 10) : 1;
  return k > 1 ? static_cast<std::size_t>(k) : 1;
}

using thicket::nav::Cell;
using thicket::nav::GridMap;
using thicket::nav::Vec2;

// The length of a path given as its points.
inline double polyline_length(std::span<const Vec2> points) {
  double total = 0;
  for (std::size_t i = 1; i < points.size(); ++i) total += thicket::world::distance(points[i - 1], points[i]);
  return total;
}

// A map of data/movingai ("arena", "AR0500SR", "random512-20-0", "maze512-2-5") and its
// scenarios with their published optimal lengths; both REQUIREd to load.
struct MovingAi {
  std::optional<GridMap> map;
  std::optional<std::vector<thicket::nav::ScenarioEntry>> scen;
};
inline MovingAi movingai(const std::string& name) {
  const std::string base = std::string(THICKET_SOURCE_DIR).append("/data/movingai/").append(name).append(".map");  // (appends: GCC 12's false -Warray-bounds)
  std::vector<thicket::Diagnostic> diags;
  MovingAi m;
  m.map = thicket::nav::load_grid_map(base, diags);
  REQUIRE(m.map.has_value());
  m.scen = thicket::nav::load_scen(base + ".scen", &*m.map, diags);
  REQUIRE(m.scen.has_value());
  return m;
}

// Rows of '.' (ground), '@' (blocked) and digits '2'..'9' (ground of that terrain cost).
inline GridMap draw(const std::vector<std::string>& rows) {
  GridMap map(std::int32_t(rows[0].size()), std::int32_t(rows.size()));
  for (std::int32_t y = 0; y < map.height(); ++y)
    for (std::int32_t x = 0; x < map.width(); ++x) {
      char c = rows[std::size_t(y)][std::size_t(x)];
      if (c == '@') map.set_passable({x, y}, false);
      if (c >= '2' && c <= '9') map.set_cost({x, y}, float(c - '0'));
    }
  return map;
}

// A map of the given size with about `percent` % of its cells blocked, from a fixed seed (raw
// mt19937 draws: the same on every standard library).
inline GridMap random_map(std::int32_t w, std::int32_t h, unsigned percent, unsigned seed) {
  GridMap map(w, h);
  std::mt19937 rng(seed);
  for (std::int32_t y = 0; y < h; ++y)
    for (std::int32_t x = 0; x < w; ++x)
      if (rng() % 100 < percent) map.set_passable({x, y}, false);
  return map;
}

// Breadth-first search under the Moving AI move rules (8 neighbours, no corner cutting): a
// valid path of fewest steps (not always the shortest in length), start and goal included;
// empty when there is none. Independent of GridSearch on purpose.
inline std::vector<Cell> bfs_path(const GridMap& map, Cell from, Cell to) {
  const std::size_t n = std::size_t(map.width()) * std::size_t(map.height());
  std::vector<std::int64_t> parent(n, -1);
  std::deque<Cell> queue{from};
  parent[map.index(from)] = std::int64_t(map.index(from));
  while (!queue.empty()) {
    Cell c = queue.front();
    queue.pop_front();
    if (c == to) break;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        Cell d{c.x + dx, c.y + dy};
        if ((dx == 0 && dy == 0) || !map.passable(d)) continue;
        if (dx != 0 && dy != 0 && (!map.passable({c.x + dx, c.y}) || !map.passable({c.x, c.y + dy})))
          continue;
        if (parent[map.index(d)] != -1) continue;
        parent[map.index(d)] = std::int64_t(map.index(c));
        queue.push_back(d);
      }
  }
  std::vector<Cell> path;
  if (parent[map.index(to)] == -1) return path;
  for (std::size_t i = map.index(to);; i = std::size_t(parent[i])) {
    path.push_back({std::int32_t(i % std::size_t(map.width())), std::int32_t(i / std::size_t(map.width()))});
    if (i == map.index(from)) break;
  }
  return {path.rbegin(), path.rend()};
}

// Seed 003's smoothing written the plain way, for uniform maps: from each kept cell, try every
// later cell from the last backwards and keep the first one in sight. smooth_path must agree.
inline std::vector<Vec2> reference_smooth(const GridMap& map, const std::vector<Cell>& cells) {
  std::vector<Vec2> out;
  if (cells.empty()) return out;
  out.push_back(map.centre_of(cells[0]));
  std::size_t kept = 0;
  while (kept + 1 < cells.size()) {
    std::size_t next = kept + 1;
    for (std::size_t j = cells.size() - 1; j > kept + 1; --j)
      if (thicket::nav::line_of_sight(map, map.centre_of(cells[kept]), map.centre_of(cells[j]))) {
        next = j;
        break;
      }
    out.push_back(map.centre_of(cells[next]));
    kept = next;
  }
  return out;
}

inline double grid_length(const std::vector<Cell>& cells) {
  double total = 0;
  for (std::size_t i = 1; i < cells.size(); ++i)
    total += std::hypot(double(cells[i].x - cells[i - 1].x), double(cells[i].y - cells[i - 1].y));
  return total;
}

// True when some sample of the segment a→b (world coordinates, `per_cell` samples per cell of
// length) lies in a blocked cell or outside the map. Sampling cannot see a line that only grazes a
// corner, so it checks "never crosses a wall", not the corner rule.
inline bool sampled_hits_wall(const GridMap& map, Vec2 a, Vec2 b, int per_cell = 1000) {
  double cells = std::hypot(b.x - a.x, b.y - a.y) / map.cell_size;
  int samples = int(cells * per_cell) + 2;
  for (int i = 0; i <= samples; ++i) {
    double t = double(i) / samples;
    Vec2 p{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
    if (!map.passable(map.cell_at(p))) return true;
  }
  return false;
}

}  // namespace nav_fixture
