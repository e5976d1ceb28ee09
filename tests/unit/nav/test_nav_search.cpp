// GridSearch (grid_search.cpp, grid_bits.*): A* and jump point search against the Moving AI
// published lengths, against each other on random maps, time slicing, tactical costs.
// Also the concave polygon obstacle of world.hpp, whose cells a grid map would mark blocked.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "nav/grid_bits.hpp"
#include "nav_fixture.hpp"
#include "thicket/nav.hpp"

using namespace thicket;
using namespace thicket::nav;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;

// Consecutive cells adjacent and passable, no corner cut, and the steps add up to length.
// Returns "" or what is wrong.
std::string check_path(const GridMap& map, std::span<const Cell> path, Cell from, Cell to, double length) {
  if (path.empty()) return "empty path";
  if (!(path.front() == from) || !(path.back() == to)) return "wrong ends";
  double sum = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (!map.passable(path[i])) return "blocked cell " + std::to_string(i);
    if (i == 0) continue;
    const int dx = path[i].x - path[i - 1].x, dy = path[i].y - path[i - 1].y;
    if (std::abs(dx) > 1 || std::abs(dy) > 1 || (dx == 0 && dy == 0)) return "not adjacent at " + std::to_string(i);
    if (dx && dy) {
      if (!map.passable({path[i - 1].x + dx, path[i - 1].y}) || !map.passable({path[i - 1].x, path[i - 1].y + dy}))
        return "corner cut at " + std::to_string(i);
      sum += kSqrt2;
    } else {
      sum += 1;
    }
  }
  if (std::abs(sum - length) > 1e-9 * std::max(1.0, length)) return "steps add to " + std::to_string(sum);
  return "";
}

struct Bench {
  GridMap map;
  std::vector<ScenarioEntry> scen;
};

Bench load(const std::string& name) {
  auto [map, scen] = nav_fixture::movingai(name);
  return {std::move(*map), std::move(*scen)};
}

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

GridMap random_map(std::mt19937& rng, int w, int h, unsigned blocked_percent) {
  GridMap map(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (rng() % 100 < blocked_percent) map.set_passable({x, y}, false);
  return map;
}

Cell random_free(std::mt19937& rng, const GridMap& map) {
  for (;;) {
    Cell c{int(rng() % unsigned(map.width())), int(rng() % unsigned(map.height()))};
    if (map.passable(c)) return c;
  }
}

}  // namespace

TEST_CASE("nav search: every Moving AI scenario, A* and JPS, at the published length") {
  for (const char* name : {"arena", "AR0500SR", "random512-20-0", "maze512-2-5"}) {
    Bench b = load(name);
    GridSearch astar, jps;
    int checked = 0;
    const std::size_t stride = nav_fixture::scenario_stride();
    for (std::size_t i = 0; i < b.scen.size(); i += stride) {
      const ScenarioEntry& e = b.scen[i];
      INFO(name, " line ", e.line);
      REQUIRE(astar.find(b.map, e.start, e.goal, {Algorithm::AStar, {}}) == SearchState::Found);
      REQUIRE(jps.find(b.map, e.start, e.goal, {Algorithm::Jps, {}}) == SearchState::Found);
      CHECK(astar.stats().used == Algorithm::AStar);
      CHECK(jps.stats().used == Algorithm::Jps);
      CHECK(close(astar.length(), e.optimal_length, 1e-6));
      CHECK(close(jps.length(), e.optimal_length, 1e-6));
      CHECK(close(astar.cost(), astar.length(), 1e-9));
      CHECK(close(jps.cost(), astar.cost(), 1e-9));
      CHECK(check_path(b.map, astar.path(), e.start, e.goal, astar.length()) == "");
      CHECK(check_path(b.map, jps.path(), e.start, e.goal, jps.length()) == "");
      ++checked;
    }
    CHECK(checked == int((b.scen.size() + stride - 1) / stride));
  }
}

TEST_CASE("nav search: JPS equals A* on 300 random maps (fixed seed)") {
  std::mt19937 rng(12345);
  GridSearch astar, jps;
  int found = 0, none = 0;
  for (int m = 0; m < 300; ++m) {
    const int w = 5 + int(rng() % 60), h = 5 + int(rng() % 60);  // widths across the 64-cell word edge
    GridMap map = random_map(rng, w, h, 10 + rng() % 35);
    for (int q = 0; q < 5; ++q) {
      const Cell a = random_free(rng, map), b = random_free(rng, map);
      const SearchState sa = astar.find(map, a, b, {Algorithm::AStar, {}});
      const SearchState sj = jps.find(map, a, b, {Algorithm::Auto, {}});
      INFO("map ", m, " query ", q);
      REQUIRE(sa == sj);
      CHECK(jps.stats().used == Algorithm::Jps);
      if (sa != SearchState::Found) {
        ++none;
        continue;
      }
      ++found;
      CHECK(close(jps.cost(), astar.cost(), 1e-9));
      CHECK(close(jps.length(), astar.length(), 1e-9));
      CHECK(check_path(map, jps.path(), a, b, jps.length()) == "");
      CHECK(check_path(map, astar.path(), a, b, astar.length()) == "");
    }
  }
  CHECK(found > 500);
  CHECK(none > 10);  // dense maps leave some goals walled off: NoPath is exercised too
}

TEST_CASE("nav bits: jump distances (JPS+) give what the word-at-a-time scan gives") {
  std::mt19937 rng(7);
  for (int m = 0; m < 40; ++m) {
    const int w = 1 + int(rng() % 300), h = 1 + int(rng() % 300);  // runs past a byte (127)
    GridMap map = random_map(rng, w, h, rng() % 40);
    GridBits table, scan;
    scan.max_table_cells = 0;
    table.build(map);
    scan.build(map);
    CHECK(table.bytes() > scan.bytes());
    // One check per map (a million assertions would be slow), naming the first difference.
    std::string first;
    int differ = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (!map.passable({x, y})) continue;
        const int gx = int(rng() % unsigned(w)), gy = int(rng() % unsigned(h));
        for (int d : {-1, 1})
          for (int goal : {0, 1}) {
            const bool same = table.jump_x(x, y, d, goal ? gx : -1) == scan.jump_x(x, y, d, goal ? gx : -1) &&
                              table.jump_y(x, y, d, goal ? gy : -1) == scan.jump_y(x, y, d, goal ? gy : -1);
            if (!same && differ++ == 0)
              first = "cell " + std::to_string(x) + "," + std::to_string(y) + " dir " + std::to_string(d);
          }
      }
    INFO("map ", m, ": ", first);
    CHECK(differ == 0);
  }
}

TEST_CASE("nav search: JPS on wide open and long maps (many words per row)") {
  std::mt19937 rng(99);
  GridSearch astar, jps;
  for (int m = 0; m < 20; ++m) {
    // Drawn in statements (gcc's order of the arguments it used to be): as arguments of one
    // call their order was the compiler's, and clang tested other maps.
    const auto blocked_percent = rng() % 8;
    const int h = 3 + int(rng() % 200);
    const int w = 200 + int(rng() % 300);
    GridMap map = random_map(rng, w, h, blocked_percent);
    for (int q = 0; q < 5; ++q) {
      const Cell a = random_free(rng, map), b = random_free(rng, map);
      REQUIRE(astar.find(map, a, b, {Algorithm::AStar, {}}) == jps.find(map, a, b, {Algorithm::Jps, {}}));
      if (astar.state() == SearchState::Found) CHECK(close(jps.cost(), astar.cost(), 1e-9));
    }
  }
}

TEST_CASE("nav search: time slicing gives the one-shot result") {
  Bench b = load("maze512-2-5");
  const std::size_t every = 20 * nav_fixture::scenario_stride();  // every 20th (140th under ASan)
  for (Algorithm algo : {Algorithm::AStar, Algorithm::Jps}) {
    GridSearch once, sliced;
    for (std::size_t k = 0; k < b.scen.size(); k += every) {
      const ScenarioEntry& e = b.scen[k];
      REQUIRE(once.find(b.map, e.start, e.goal, {algo, {}}) == SearchState::Found);
      REQUIRE(sliced.start(b.map, e.start, e.goal, {algo, {}}) == SearchState::Running);
      int slices = 0;
      while (sliced.step(7) == SearchState::Running) ++slices;
      REQUIRE(sliced.state() == SearchState::Found);
      CHECK(slices > 0);
      CHECK(sliced.cost() == once.cost());
      CHECK(sliced.stats().expanded == once.stats().expanded);
      REQUIRE(sliced.path().size() == once.path().size());
      CHECK(std::equal(sliced.path().begin(), sliced.path().end(), once.path().begin()));
    }
  }
}

TEST_CASE("nav search: start == goal, blocked, outside, unreachable, idle") {
  GridMap map(6, 4);
  for (int y = 0; y < 4; ++y) map.set_passable({3, y}, false);  // a wall splits the map
  GridSearch s;
  CHECK(s.state() == SearchState::Idle);
  CHECK(s.step() == SearchState::Idle);
  CHECK(s.path().empty());

  for (Algorithm algo : {Algorithm::AStar, Algorithm::Jps}) {
    REQUIRE(s.find(map, {1, 1}, {1, 1}, {algo, {}}) == SearchState::Found);
    REQUIRE(s.path().size() == 1);
    CHECK(s.path()[0] == Cell{1, 1});
    CHECK(s.cost() == 0);
    CHECK(s.length() == 0);

    CHECK(s.find(map, {3, 1}, {1, 1}, {algo, {}}) == SearchState::Invalid);  // blocked start
    CHECK(s.path().empty());
    CHECK(s.find(map, {1, 1}, {3, 2}, {algo, {}}) == SearchState::Invalid);  // blocked goal
    CHECK(s.find(map, {-1, 1}, {1, 1}, {algo, {}}) == SearchState::Invalid);
    CHECK(s.find(map, {1, 1}, {6, 0}, {algo, {}}) == SearchState::Invalid);
    CHECK(s.find(map, {1, 1}, {1, 4}, {algo, {}}) == SearchState::Invalid);
    CHECK(s.find(map, {0, 0}, {5, 3}, {algo, {}}) == SearchState::NoPath);
    CHECK(s.path().empty());
    CHECK(s.step(3) == SearchState::NoPath);  // stepping a finished search changes nothing
  }
  GridMap empty;
  CHECK(s.find(empty, {0, 0}, {0, 0}) == SearchState::Invalid);
}

TEST_CASE("nav search: no corner cutting around a single block") {
  // From (0,0) to (1,1) with (1,0) blocked: the diagonal would cut its corner; the way is down
  // then right, 2 long.
  GridMap map(3, 3);
  map.set_passable({1, 0}, false);
  GridSearch s;
  for (Algorithm algo : {Algorithm::AStar, Algorithm::Jps}) {
    REQUIRE(s.find(map, {0, 0}, {1, 1}, {algo, {}}) == SearchState::Found);
    CHECK(s.length() == doctest::Approx(2.0));
    CHECK(s.path().size() == 3);
  }
}

TEST_CASE("nav search: terrain costs: a cheap detour beats a dear straight line") {
  GridMap map(5, 3);
  for (int x = 1; x <= 3; ++x) map.set_cost({x, 1}, 10.0f);
  GridSearch s;
  REQUIRE(s.find(map, {0, 1}, {4, 1}) == SearchState::Found);
  CHECK(s.stats().used == Algorithm::AStar);  // Auto: costs are not uniform
  CHECK(s.cost() == doctest::Approx(2 + 2 * kSqrt2));
  CHECK(s.length() == doctest::Approx(2 + 2 * kSqrt2));
  for (Cell c : s.path()) CHECK(map.cost(c) == 1.0f);
  // Jps asked for falls back to A* on such a map.
  REQUIRE(s.find(map, {0, 1}, {4, 1}, {Algorithm::Jps, {}}) == SearchState::Found);
  CHECK(s.stats().used == Algorithm::AStar);

  // Costs below 1 scale the heuristic down (it stays admissible): a cheap straight road wins.
  GridMap road(7, 3);
  for (int x = 0; x < 7; ++x) road.set_cost({x, 2}, 0.25f);
  REQUIRE(s.find(road, {0, 0}, {6, 0}) == SearchState::Found);
  // Down 2 (1×(1+1)/2 + 1×(1+0.25)/2), along 6×0.25, up 2 again: 1 + 0.625 + 1.5 + 0.625 + 1.
  CHECK(s.cost() == doctest::Approx(4.75));
}

TEST_CASE("nav search: danger zones add cost at both ends (+cost) or one end (+cost/2)") {
  // A corridor 1 cell high: the path must cross the zones.
  GridMap map(5, 1);
  const DangerZone zones[] = {
      {{2.5, 0.5}, 1.2, 50},  // centres of cells 1, 2, 3 inside
      {{0.5, 0.5}, 0.3, 10},  // cell 0 only
  };
  GridSearch s;
  REQUIRE(s.find(map, {0, 0}, {4, 0}, {Algorithm::Auto, zones}) == SearchState::Found);
  CHECK(s.stats().used == Algorithm::AStar);
  // Edges 0-1: +25 (zone 1, one end) +5 (zone 2, one end); 1-2, 2-3: +50; 3-4: +25.
  CHECK(s.cost() == doctest::Approx(4 + 25 + 5 + 50 + 50 + 25));
  CHECK(s.length() == doctest::Approx(4));

  // A way round: the zone is avoided when a detour is cheaper, and placement follows the map's
  // origin and cell size.
  GridMap open(7, 5);
  open.origin = {100, 100};
  open.cell_size = 2;
  const DangerZone middle[] = {{open.centre_of({3, 2}), 2.5, 50}};  // cells (3,1..3), (2..4,2)
  REQUIRE(s.find(open, {0, 2}, {6, 2}, {Algorithm::Jps, middle}) == SearchState::Found);
  CHECK(s.stats().used == Algorithm::AStar);
  CHECK(s.cost() == doctest::Approx(s.length()));  // no zone cell touched
  for (Cell c : s.path()) CHECK(world::distance(open.centre_of(c), middle[0].centre) > 2.5);

  // The zones of one search do not linger into the next.
  REQUIRE(s.find(map, {0, 0}, {4, 0}, {Algorithm::AStar, {}}) == SearchState::Found);
  CHECK(s.cost() == doctest::Approx(4));
}

TEST_CASE("nav search: buffers do not grow on a second search of the same map") {
  Bench b = load("random512-20-0");
  for (Algorithm algo : {Algorithm::AStar, Algorithm::Jps}) {
    GridSearch s;
    const ScenarioEntry& e = b.scen.back();
    REQUIRE(s.find(b.map, e.start, e.goal, {algo, {}}) == SearchState::Found);
    const std::size_t bytes = s.stats().buffer_bytes;
    CHECK(bytes >= std::size_t(512 * 512) * 16);
    REQUIRE(s.find(b.map, e.start, e.goal, {algo, {}}) == SearchState::Found);
    CHECK(s.stats().buffer_bytes == bytes);
    // A smaller map reuses the same buffers.
    GridMap small(10, 10);
    REQUIRE(s.find(small, {0, 0}, {9, 9}, {algo, {}}) == SearchState::Found);
    CHECK(s.stats().buffer_bytes <= bytes + 4096);
  }
}

TEST_CASE("nav search: an edited map is seen by the next search (the JPS cache follows it)") {
  GridMap map(70, 3);
  GridSearch s;
  REQUIRE(s.find(map, {0, 1}, {69, 1}) == SearchState::Found);
  CHECK(s.length() == doctest::Approx(69));
  map.set_passable({40, 0}, false);
  map.set_passable({40, 1}, false);
  REQUIRE(s.find(map, {0, 1}, {69, 1}) == SearchState::Found);
  CHECK(s.length() == doctest::Approx(67 + 2 * kSqrt2));
  map.set_passable({40, 2}, false);
  CHECK(s.find(map, {0, 1}, {69, 1}) == SearchState::NoPath);
}

TEST_CASE("world: a concave polygon obstacle (a U) contains and measures like its shape") {
  using world::Obstacle;
  using world::Vec2;
  const Obstacle u = Obstacle::polygon({{0, 0}, {6, 0}, {6, 6}, {4, 6}, {4, 2}, {2, 2}, {2, 6}, {0, 6}});
  CHECK(u.shape == world::ObstacleShape::Polygon);
  CHECK(u.centre == Vec2{3, 3});
  CHECK(u.half_extents == Vec2{3, 3});
  CHECK(u.radius == doctest::Approx(std::sqrt(18.0)));
  // The arms and the base are inside; the notch between the arms is not.
  CHECK(world::obstacle_contains(u, {1, 4}));
  CHECK(world::obstacle_contains(u, {5, 5}));
  CHECK(world::obstacle_contains(u, {3, 1}));
  CHECK_FALSE(world::obstacle_contains(u, {3, 4}));
  CHECK_FALSE(world::obstacle_contains(u, {3, 5.9}));
  CHECK(world::obstacle_contains(u, {4, 4}));  // on an edge
  CHECK_FALSE(world::obstacle_contains(u, {7, 3}));
  CHECK(world::distance_to_obstacle(u, {1, 4}) == 0);
  CHECK(world::distance_to_obstacle(u, {3, 4}) == doctest::Approx(1.0));   // to either arm
  CHECK(world::distance_to_obstacle(u, {3, 2.5}) == doctest::Approx(0.5));  // to the notch floor
  CHECK(world::distance_to_obstacle(u, {3, 7}) == doctest::Approx(std::sqrt(2.0)));  // to an arm's tip
  CHECK(world::distance_to_obstacle(u, {-2, 3}) == doctest::Approx(2.0));
}
