// Line of sight on grid maps and path smoothing (seed 003).
#include <doctest/doctest.h>

#include "nav/grid_walk.hpp"
#include "nav_fixture.hpp"

using namespace thicket::nav;
using namespace nav_fixture;

namespace {

Vec2 centre(Cell c) { return {c.x + 0.5, c.y + 0.5}; }

}  // namespace

TEST_SUITE("nav_line_of_sight") {

TEST_CASE("an open map sees; a wall between blocks; points outside the map see nothing") {
  GridMap map = draw({"......",
                      "..@...",
                      "......"});
  CHECK(line_of_sight(map, {0.5, 0.5}, {5.5, 2.5}) == false);  // through (2,1)
  CHECK(line_of_sight(map, {0.5, 0.5}, {5.5, 0.5}));
  CHECK(line_of_sight(map, {0.5, 2.5}, {5.5, 2.5}));
  CHECK(line_of_sight(map, {3.2, 1.7}, {3.2, 1.7}));  // a point sees itself
  CHECK(line_of_sight(map, {2.5, 1.5}, {2.5, 1.5}) == false);  // inside the block
  CHECK(line_of_sight(map, {-0.5, 0.5}, {3.5, 0.5}) == false);
  // x = width is on the east edge, where the world keeps an agent pushed against it: in the map
  // (the last cell); past it is outside. Likewise y = height.
  CHECK(line_of_sight(map, {0.5, 0.5}, {6.0, 0.5}));
  CHECK(line_of_sight(map, {0.5, 2.5}, {6.0, 3.0}));
  CHECK(line_of_sight(map, {0.5, 0.5}, {6.001, 0.5}) == false);
  CHECK(line_of_sight(map, {0.5, 0.5}, {0.5, 3.001}) == false);
  CHECK(line_of_sight(map, {0.5, 0.5}, {5.999, 0.5}));
  CHECK(map.cell_at({6.0, 3.0}).x == 5);
  CHECK(map.cell_at({6.0, 3.0}).y == 2);
  CHECK(map.cell_at({6.001, 0.5}).x == 6);  // outside
  CHECK(line_of_sight(map, {0.5, 0.5}, {NAN, 0.5}) == false);
}

TEST_CASE("a line through a cell corner is blocked when either cell beside the corner is") {
  // The diagonal from (0,0) to (1,1) passes exactly through the corner at (1,1).
  GridMap both = draw({".@",
                       "@."});
  CHECK(line_of_sight(both, {0.5, 0.5}, {1.5, 1.5}) == false);
  GridMap one = draw({".@",
                      ".."});
  CHECK(line_of_sight(one, {0.5, 0.5}, {1.5, 1.5}) == false);
  GridMap other = draw({"..",
                        "@."});
  CHECK(line_of_sight(other, {1.5, 1.5}, {0.5, 0.5}) == false);  // either direction
  GridMap none = draw({"..",
                       ".."});
  CHECK(line_of_sight(none, {0.5, 0.5}, {1.5, 1.5}));
  GridMap anti = draw({"...",
                       ".@.",
                       "..."});
  CHECK(line_of_sight(anti, {2.5, 0.5}, {0.5, 2.5}) == false);  // through the block's centre
  // A corner in the middle of a line: (0.5,0.5)→(3.5,3.5) passes the corner (2,2) between
  // cells (1,1) and (2,2), beside which lie (2,1) and (1,2).
  GridMap corner = draw({"....",
                         "..@.",
                         "....",
                         "...."});
  CHECK(line_of_sight(corner, {0.5, 0.5}, {3.5, 3.5}) == false);
  CHECK(line_of_sight(corner, {3.5, 3.5}, {0.5, 0.5}) == false);
  CHECK(line_of_sight(corner, {0.5, 0.5}, {3.5, 0.5}));
}

TEST_CASE("a point exactly on the last corner: the line may end on a boundary") {
  GridMap map = draw({"...",
                      "...",
                      "..."});
  CHECK(line_of_sight(map, {0.5, 0.5}, {2.0, 2.0}));
  CHECK(line_of_sight(map, {2.0, 0.5}, {0.5, 0.5}));
  CHECK(line_of_sight(map, {1.0, 1.0}, {1.0, 2.5}));  // along a grid line
}

TEST_CASE("world placement: origin and cell size") {
  GridMap map = draw({"...",
                      ".@.",
                      "..."});
  map.origin = {10, 20};
  map.cell_size = 2;
  CHECK(line_of_sight(map, {11, 21}, {15, 21}));
  CHECK(line_of_sight(map, {11, 21}, {15, 25}) == false);
  CHECK(line_of_sight(map, {1, 1}, {2, 2}) == false);  // outside the placed map
}

TEST_CASE("agrees with fine sampling on random maps, and is symmetric") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    GridMap map = random_map(24, 18, 25, seed);
    std::mt19937 rng(seed * 7919u);
    for (int i = 0; i < 200; ++i) {
      Vec2 a{(rng() % 2400) / 100.0, (rng() % 1800) / 100.0};
      Vec2 b{(rng() % 2400) / 100.0, (rng() % 1800) / 100.0};
      bool sees = line_of_sight(map, a, b);
      // Sampling finds a blocked cell => no sight. (Sight can also fail at corners, which
      // sampling does not see.)
      if (sampled_hits_wall(map, a, b)) CHECK_FALSE(sees);
      CHECK(sees == line_of_sight(map, b, a));
    }
  }
}

TEST_CASE("the fast walk gives the generic walk's answer: random points, cell centres, corners") {
  // line_of_sight walks diagonal segments with its directions fixed at compile time; it must
  // answer exactly as detail::walk_segment does, knife edges (corners, boundaries) included.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    GridMap map = random_map(24, 18, 20, seed);
    std::mt19937 rng(seed * 104729u);
    auto point = [&](int kind) -> Vec2 {
      switch (kind) {
        case 0: return {(rng() % 24000) / 1000.0, (rng() % 18000) / 1000.0};  // anywhere
        case 1: return {rng() % 24 + 0.5, rng() % 18 + 0.5};                   // cell centres
        default: return {double(rng() % 24), double(rng() % 18)};              // corners
      }
    };
    for (int i = 0; i < 600; ++i) {
      Vec2 a = point(i % 3), b = point((i / 3) % 3);
      bool generic = detail::walk_segment(a, b, [&](Cell c) { return map.passable(c); });
      CHECK(line_of_sight(map, a, b) == generic);
    }
  }
}

TEST_CASE("smoothing a straight corridor leaves its two ends") {
  GridMap map = draw({"@@@@@@@@",
                      "........",
                      "@@@@@@@@"});
  std::vector<Cell> cells;
  for (int x = 0; x < 8; ++x) cells.push_back({x, 1});
  std::vector<Vec2> out;
  smooth_path(map, cells, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0] == Vec2{0.5, 1.5});
  CHECK(out[1] == Vec2{7.5, 1.5});
}

TEST_CASE("an L-shaped room keeps its corner") {
  GridMap map = draw({"....@",
                      "@@@.@",
                      "@@@.@",
                      "@@@..",
                      "@@@@@"});
  std::vector<Cell> cells = bfs_path(map, {0, 0}, {4, 3});
  REQUIRE_FALSE(cells.empty());
  std::vector<Vec2> out;
  smooth_path(map, cells, out);
  REQUIRE(out.size() == 4);
  CHECK(out[0] == Vec2{0.5, 0.5});
  CHECK(out[1] == Vec2{3.5, 0.5});
  CHECK(out[2] == Vec2{3.5, 3.5});
  CHECK(out[3] == Vec2{4.5, 3.5});
}

TEST_CASE("short paths: empty, one cell, two cells") {
  GridMap map = draw({"..", ".."});
  std::vector<Vec2> out{{9, 9}};
  smooth_path(map, {}, out);
  CHECK(out.empty());
  std::vector<Cell> one{{1, 1}};
  smooth_path(map, one, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0] == Vec2{1.5, 1.5});
  std::vector<Cell> two{{0, 0}, {1, 1}};
  smooth_path(map, two, out);
  CHECK(out.size() == 2);
}

TEST_CASE("a path that is not a path (cells off the map, blocked, far apart) does not crash") {
  GridMap map = draw({"..2..",
                      ".@@@.",
                      "....."});
  std::vector<Cell> cells{{0, 0}, {-5, 7}, {4, 2}, {2, 1}, {1000000, -1000000}, {4, 0}};
  std::vector<Vec2> out;
  smooth_path(map, cells, out);
  CHECK(out.front() == Vec2{0.5, 0.5});
  CHECK(out.back() == Vec2{4.5, 0.5});
  CHECK(out.size() <= cells.size());
}

TEST_CASE("a shortcut never crosses terrain dearer than the stretch it replaces") {
  // The path runs along the cheap rim; cutting the corner crosses the swamp (cost 5).
  GridMap map = draw({".....",
                      "5555.",
                      "5555.",
                      "5555.",
                      "5555."});
  std::vector<Cell> cells;
  for (int x = 0; x <= 4; ++x) cells.push_back({x, 0});
  for (int y = 1; y <= 4; ++y) cells.push_back({4, y});
  std::vector<Vec2> out;
  smooth_path(map, cells, out);
  REQUIRE(out.size() == 3);
  CHECK(out[1] == Vec2{4.5, 0.5});
  // Without the swamp the corner is cut.
  GridMap plain(5, 5);
  smooth_path(plain, cells, out);
  CHECK(out.size() == 2);
  // A stretch that itself crosses swamp may be replaced by a line through equally dear swamp.
  std::vector<Cell> wading{{0, 1}, {1, 1}, {2, 1}, {3, 1}};
  smooth_path(map, wading, out);
  CHECK(out.size() == 2);
}

TEST_CASE("a shortcut never costs more than the stretch it replaces: a road cheaper than the ground") {
  // Grass (cost 1) with a road (cost 0.2) along the top row and down the east column; the path
  // steps from grass onto the road and follows it. The diagonal crosses no cell dearer than
  // the start's grass, but costs 8 sqrt(2) ~ 11.3 against the road's 3.6: it is not taken.
  GridMap map(9, 9);
  for (int i = 1; i <= 8; ++i) map.set_cost({i, 0}, 0.2f), map.set_cost({8, i}, 0.2f);
  std::vector<Cell> cells;
  for (int x = 0; x <= 8; ++x) cells.push_back({x, 0});
  for (int y = 1; y <= 8; ++y) cells.push_back({8, y});
  std::vector<Vec2> out;
  smooth_path(map, cells, out);
  REQUIRE(out.size() == 3);
  CHECK(out[1] == Vec2{8.5, 0.5});
  CHECK(out[2] == Vec2{8.5, 8.5});
  // All ground at 1: the corner is cut.
  GridMap plain(9, 9);
  smooth_path(plain, cells, out);
  CHECK(out.size() == 2);
}

TEST_CASE("smoothed paths on random maps: no wall crossed, ends kept, never longer") {
  int smoothed = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    GridMap map = random_map(40, 30, 30, seed);
    std::mt19937 rng(seed);
    for (int i = 0; i < 20; ++i) {
      Cell from{std::int32_t(rng() % 40), std::int32_t(rng() % 30)};
      Cell to{std::int32_t(rng() % 40), std::int32_t(rng() % 30)};
      if (!map.passable(from) || !map.passable(to)) continue;
      std::vector<Cell> cells = bfs_path(map, from, to);
      if (cells.empty()) continue;
      std::vector<Vec2> out;
      smooth_path(map, cells, out);
      REQUIRE_FALSE(out.empty());
      CHECK(out.front() == centre(from));
      CHECK(out.back() == centre(to));
      CHECK(polyline_length(out) <= grid_length(cells) + 1e-9);
      CHECK(out == reference_smooth(map, cells));
      for (std::size_t k = 1; k < out.size(); ++k) {
        CHECK_FALSE(sampled_hits_wall(map, out[k - 1], out[k]));
        CHECK(line_of_sight(map, out[k - 1], out[k]));
      }
      smoothed += out.size() < cells.size();
    }
  }
  CHECK(smoothed > 50);  // the test saw real shortcuts, not only trivial paths
}

}  // TEST_SUITE

TEST_SUITE("nav_line_of_sight") {

TEST_CASE("smoothing the searched paths of the Moving AI scenarios") {
  // Every scenario of each map: the optimal grid path, smoothed, keeps its ends, never gets
  // longer, and each leg sees and samples clear. Only project files are read.
  for (const char* name : {"arena", "AR0500SR", "maze512-2-5", "random512-20-0"}) {
    CAPTURE(name);
    auto [map, scen] = nav_fixture::movingai(name);
    GridSearch search;
    std::vector<Vec2> out;
    std::size_t legs = 0, cells = 0;
    for (std::size_t i = 0; i < scen->size(); i += 4 * nav_fixture::scenario_stride()) {
      const ScenarioEntry& e = (*scen)[i];
      REQUIRE(search.find(*map, e.start, e.goal) == SearchState::Found);
      std::vector<Cell> path(search.path().begin(), search.path().end());
      smooth_path(*map, path, out);
      REQUIRE(out.size() >= 2);
      CHECK(out == reference_smooth(*map, path));
      CHECK(out.front() == map->centre_of(e.start));
      CHECK(out.back() == map->centre_of(e.goal));
      CHECK(polyline_length(out) <= search.length() + 1e-9);
      for (std::size_t k = 1; k < out.size(); ++k) {
        CHECK(line_of_sight(*map, out[k - 1], out[k]));
        CHECK_FALSE(sampled_hits_wall(*map, out[k - 1], out[k], 100));
      }
      legs += out.size() - 1;
      cells += path.size();
    }
    CHECK(legs * 3 < cells);  // smoothing removed most of the turns
  }
}

}  // TEST_SUITE
