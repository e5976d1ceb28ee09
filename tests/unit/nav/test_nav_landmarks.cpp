// JPS guided by landmarks (grid_landmarks.*, SearchOptions::landmarks): exact on every Moving
// AI scenario and on random maps with walled-off parts, NoPath at once between components
// (for every search: GridComponents), and the tables follow an edited map.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "nav/grid_bits.hpp"
#include "nav/grid_landmarks.hpp"
#include "nav_fixture.hpp"
#include "thicket/nav.hpp"

using namespace thicket;
using namespace thicket::nav;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

const SearchOptions kAStar{Algorithm::AStar, {}};
const SearchOptions kGuided{Algorithm::Jps, {}, true};
const SearchOptions kOctile{Algorithm::Jps, {}, false};

// A vertical wall at x = 20 of a 40 x 30 open map, with a gap at rows [gap, gap + 1] (none:
// gap < 0).
GridMap walled(int gap) {
  GridMap map(40, 30);
  for (int y = 0; y < 30; ++y)
    if (gap < 0 || y < gap || y > gap + 1) map.set_passable({20, y}, false);
  return map;
}

}  // namespace

TEST_CASE("nav landmarks: every Moving AI scenario at the published length, as octile JPS finds it") {
  // (A* itself is checked against the published lengths in test_nav_search.cpp; under the
  // sanitizers it is the slow part, so it is not run twice.)
  for (const char* name : {"arena", "AR0500SR", "random512-20-0", "maze512-2-5"}) {
    auto [map, scen] = nav_fixture::movingai(name);
    GridSearch guided, octile;
    std::uint64_t guided_expanded = 0, octile_expanded = 0;
    for (std::size_t i = 0; i < scen->size(); i += nav_fixture::scenario_stride()) {
      const ScenarioEntry& e = (*scen)[i];
      INFO(name, " line ", e.line);
      REQUIRE(guided.find(*map, e.start, e.goal, kGuided) == SearchState::Found);
      REQUIRE(octile.find(*map, e.start, e.goal, kOctile) == SearchState::Found);
      CHECK(guided.stats().landmarks == GridLandmarks::kCount);
      CHECK(octile.stats().landmarks == 0);
      CHECK(close(guided.length(), e.optimal_length, 1e-6));
      CHECK(close(guided.cost(), octile.cost(), 1e-9));
      CHECK(close(guided.cost(), guided.length(), 1e-9));
      guided_expanded += guided.stats().expanded;
      octile_expanded += octile.stats().expanded;
    }
    // A better heuristic never expands more in total (it may on one search, by tie-breaking).
    CHECK(guided_expanded <= octile_expanded);
  }
}

TEST_CASE("nav landmarks: equal to A* on random maps with walled-off parts (fixed seed)") {
  std::mt19937 rng(4242);
  GridSearch astar, guided;
  int found = 0, none = 0;
  for (int m = 0; m < 150; ++m) {
    const int w = 5 + int(rng() % 70), h = 5 + int(rng() % 70);
    GridMap map(w, h);
    const unsigned blocked = 20 + rng() % 25;  // up to 44%: many components
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (rng() % 100 < blocked) map.set_passable({x, y}, false);
    for (int q = 0; q < 8; ++q) {
      Cell a, b;
      do a = {int(rng() % unsigned(w)), int(rng() % unsigned(h))};
      while (!map.passable(a));
      do b = {int(rng() % unsigned(w)), int(rng() % unsigned(h))};
      while (!map.passable(b));
      INFO("map ", m, " query ", q);
      const SearchState sa = astar.find(map, a, b, kAStar);
      const SearchState sg = guided.find(map, a, b, kGuided);
      REQUIRE(sa == sg);
      if (sa != SearchState::Found) {
        ++none;
        CHECK(guided.stats().expanded == 0);  // answered by the components, before any search
        continue;
      }
      ++found;
      CHECK(close(guided.cost(), astar.cost(), 1e-9));
    }
  }
  CHECK(found > 500);
  CHECK(none > 20);
}

TEST_CASE("nav landmarks: cells in different components are NoPath from start(), at once") {
  GridMap map = walled(-1);
  GridSearch s;
  CHECK(s.start(map, {2, 5}, {35, 20}) == SearchState::NoPath);
  CHECK(s.state() == SearchState::NoPath);
  CHECK(s.stats().expanded == 0);
  CHECK(s.stats().pushed == 0);
  CHECK(s.path().empty());
  // Both in the smaller (right) part: the landmarks are all in the left one, and the search
  // falls back on the octile distance there.
  REQUIRE(s.find(map, {22, 0}, {39, 29}) == SearchState::Found);
  CHECK(s.cost() == doctest::Approx(12 + 17 * kSqrt2));
  // Without landmarks, and with A*, the components answer the same, at once: the search does
  // not exhaust the start's part to learn it.
  for (const SearchOptions& o : {kOctile, kAStar}) {
    CHECK(s.start(map, {2, 5}, {35, 20}, o) == SearchState::NoPath);
    CHECK(s.stats().expanded == 0);
    CHECK(s.stats().pushed == 0);
  }
  // A* over costs, and around danger zones: costs and dangers never wall a cell off.
  GridMap costly = walled(-1);
  costly.set_cost({3, 5}, 4.0f);
  const DangerZone zones[] = {{{5.5, 5.5}, 3.0, 10.0}};
  CHECK(s.start(costly, {2, 5}, {35, 20}) == SearchState::NoPath);
  CHECK(s.stats().used == Algorithm::AStar);
  CHECK(s.start(map, {2, 5}, {35, 20}, {Algorithm::Auto, zones}) == SearchState::NoPath);
  CHECK(s.stats().expanded == 0);
  REQUIRE(s.find(costly, {2, 5}, {19, 29}) == SearchState::Found);
  REQUIRE(s.find(map, {2, 5}, {19, 29}, {Algorithm::Auto, zones}) == SearchState::Found);
}

TEST_CASE("nav components: the labels are a flood fill's, numbered by first cell, on random maps") {
  int maps = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const std::int32_t w = 1 + std::int32_t(seed * 7 % 53), h = 1 + std::int32_t(seed * 11 % 47);
    GridMap map = nav_fixture::random_map(w, h, seed % 8 * 8, seed);  // 0-56% blocked
    GridBits bits;
    bits.build(map);
    GridComponents components;
    components.build(bits, w, h);
    // The reference: a breadth-first fill from each unlabelled free cell, row by row.
    std::vector<std::uint32_t> want(std::size_t(w) * std::size_t(h), GridComponents::kNone);
    std::uint32_t next = 0;
    for (std::int32_t y = 0; y < h; ++y)
      for (std::int32_t x = 0; x < w; ++x) {
        if (!map.passable({x, y}) || want[map.index({x, y})] != GridComponents::kNone) continue;
        std::vector<Cell> queue{{x, y}};
        want[map.index({x, y})] = next;
        for (std::size_t q = 0; q < queue.size(); ++q)
          for (Cell d : {Cell{1, 0}, Cell{-1, 0}, Cell{0, 1}, Cell{0, -1}}) {
            const Cell n{queue[q].x + d.x, queue[q].y + d.y};
            if (n.x < 0 || n.y < 0 || n.x >= w || n.y >= h || !map.passable(n) || want[map.index(n)] != GridComponents::kNone)
              continue;
            want[map.index(n)] = next;
            queue.push_back(n);
          }
        ++next;
      }
    INFO("seed ", seed, ", ", w, " x ", h);
    CHECK(components.count() == next);
    bool same = true;
    for (std::size_t i = 0; i < want.size(); ++i) same = same && components.of(i) == want[i];
    CHECK(same);
    maps += next > 3;
  }
  CHECK(maps > 10);  // many maps with several components
}

TEST_CASE("nav components: a map too large for landmarks still knows a walled-off goal at once") {
  // 1100 x 1000 cells, over GridLandmarks::max_cells: no landmark table, but components.
  GridMap map(1100, 1000);
  for (int y = 0; y < 1000; ++y) map.set_passable({700, y}, false);
  GridSearch s;
  for (const SearchOptions& o : {kGuided, kOctile, kAStar}) {
    CHECK(s.start(map, {3, 500}, {1000, 20}, o) == SearchState::NoPath);
    CHECK(s.stats().expanded == 0);
    CHECK(s.stats().landmarks == 0);
  }
  map.set_passable({700, 999}, true);  // a gap: one component again, and a path through it
  REQUIRE(s.find(map, {3, 500}, {1000, 20}, kAStar) == SearchState::Found);
  GridSearch jps;
  REQUIRE(jps.find(map, {3, 500}, {1000, 20}, kGuided) == SearchState::Found);
  CHECK(jps.cost() == doctest::Approx(s.cost()));
}

TEST_CASE("nav landmarks: the tables are rebuilt after an edit of the map") {
  GridMap map = walled(0);  // the gap at the top
  GridSearch s, astar;
  REQUIRE(s.find(map, {10, 28}, {30, 28}, kGuided) == SearchState::Found);
  const double detour = s.cost();
  REQUIRE(astar.find(map, {10, 28}, {30, 28}, kAStar) == SearchState::Found);
  CHECK(detour == doctest::Approx(astar.cost()));
  // A gap at the bottom: far shorter. A stale table would overestimate (its distances go round
  // by the top) and miss it.
  map.set_passable({20, 27}, true);
  map.set_passable({20, 28}, true);
  REQUIRE(s.find(map, {10, 28}, {30, 28}, kGuided) == SearchState::Found);
  CHECK(s.cost() == doctest::Approx(20));
  // Closing every gap splits the map: stale components would still say Running.
  for (int y = 0; y < 30; ++y) map.set_passable({20, y}, false);
  CHECK(s.start(map, {10, 28}, {30, 28}, kGuided) == SearchState::NoPath);
  // And opening one joins it again.
  map.set_passable({20, 15}, true);
  REQUIRE(s.find(map, {10, 28}, {30, 28}, kGuided) == SearchState::Found);
  REQUIRE(astar.find(map, {10, 28}, {30, 28}, kAStar) == SearchState::Found);
  CHECK(s.cost() == doctest::Approx(astar.cost()));
}

TEST_CASE("nav landmarks: the bound is a lower bound of every distance, and exact at a landmark") {
  std::mt19937 rng(99);
  GridMap map(60, 45);
  for (int y = 0; y < 45; ++y)
    for (int x = 0; x < 60; ++x)
      if (rng() % 100 < 25) map.set_passable({x, y}, false);
  GridBits bits;
  bits.build(map);
  GridComponents components;
  components.build(bits, map.width(), map.height());
  GridLandmarks marks;
  marks.build(map, bits, components);
  REQUIRE(marks.count() == GridLandmarks::kCount);
  GridSearch astar;
  for (int q = 0; q < 200; ++q) {
    Cell a, b;
    do a = {int(rng() % 60u), int(rng() % 45u)};
    while (!map.passable(a));
    // Every fourth goal a landmark: there the bound is the distance itself.
    const std::uint32_t lm = marks.landmarks()[std::size_t(q) % marks.landmarks().size()];
    if (q % 4 == 0) {
      b = {int(lm % 60u), int(lm / 60u)};
    } else {
      do b = {int(rng() % 60u), int(rng() % 45u)};
      while (!map.passable(b));
    }
    INFO("query ", q);
    const bool same = components.of(map.index(a)) == components.of(map.index(b));
    const SearchState sa = astar.find(map, a, b, kAStar);
    CHECK((sa == SearchState::Found) == same);
    if (!same) continue;
    GridLandmarks::Goal goal;
    marks.set_goal(map.index(b), goal);
    const double bound = marks.bound(map.index(a), goal);
    CHECK(bound <= astar.cost() + 1e-9);
    if (q % 4 == 0) CHECK(bound == doctest::Approx(astar.cost()));
  }
}

TEST_CASE("nav landmarks: maps over max_cells get no tables, and search as before") {
  GridMap map(30, 20);
  for (int y = 0; y < 20; ++y) map.set_passable({15, y}, false);
  GridBits bits;
  bits.build(map);
  GridComponents components;
  components.build(bits, map.width(), map.height());
  CHECK(components.count() == 2);
  CHECK(components.of(map.index({0, 0})) == 0);
  CHECK(components.of(map.index({15, 0})) == GridComponents::kNone);
  CHECK(components.of(map.index({29, 0})) == 1);
  GridLandmarks marks;
  marks.max_cells = 599;
  marks.build(map, bits, components);
  CHECK(marks.count() == 0);
  GridLandmarks::Goal goal;
  CHECK_FALSE(marks.set_goal(map.index({29, 0}), goal));
  CHECK(marks.bytes() < 4096);
  // Through GridSearch: a map of more than 2^20 cells.
  GridMap big(1100, 1000);
  big.set_passable({500, 500}, false);
  GridSearch s;
  REQUIRE(s.find(big, {0, 0}, {1099, 999}) == SearchState::Found);
  CHECK(s.stats().used == Algorithm::Jps);
  CHECK(s.stats().landmarks == 0);
  CHECK(s.cost() == doctest::Approx(100 + 999 * kSqrt2));
  CHECK(s.stats().buffer_bytes < std::size_t(1100 * 1000) * 40);
}
