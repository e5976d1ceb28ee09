// Walls: segments (thickened or not) and points against obstacles and a grid map's blocks.
#include <doctest/doctest.h>

#include "nav_fixture.hpp"

using namespace thicket::nav;
using thicket::world::Obstacle;
using nav_fixture::draw;

TEST_SUITE("nav_walls") {

TEST_CASE("no obstacles and no map: everything is clear") {
  Walls walls;
  CHECK(walls.clear({0, 0}, {100, 100}, 5));
  CHECK_FALSE(walls.blocked({3, 3}));
}

TEST_CASE("a circle blocks a segment that passes within the radius") {
  const Obstacle obstacles[] = {Obstacle::circle({5, 0}, 1)};
  Walls walls(obstacles, nullptr);
  CHECK_FALSE(walls.clear({0, 0}, {10, 0}));
  CHECK(walls.clear({0, 2}, {10, 2}));
  CHECK(walls.clear({0, 1.5}, {10, 1.5}, 0.4));
  CHECK_FALSE(walls.clear({0, 1.5}, {10, 1.5}, 0.6));
  CHECK(walls.clear({0, 0}, {3.9, 0}));  // stops short
  CHECK_FALSE(walls.clear({0, 1}, {10, 1}));  // grazing the edge is touching
  CHECK(walls.blocked({5, 0.5}));
  CHECK_FALSE(walls.blocked({5, 1.5}));
}

TEST_CASE("a box: crossing, passing beside it, and a segment inside it") {
  const Obstacle obstacles[] = {Obstacle::box({2, -1}, {4, 1})};
  Walls walls(obstacles, nullptr);
  CHECK_FALSE(walls.clear({0, 0}, {10, 0}));
  CHECK_FALSE(walls.clear({3, 0}, {3, 0.5}));  // wholly inside
  CHECK(walls.clear({0, 1.5}, {10, 1.5}));
  CHECK_FALSE(walls.clear({0, 1.5}, {10, 1.5}, 0.6));
  CHECK(walls.clear({0, 1.5}, {10, 1.5}, 0.4));
  // Passing a corner diagonally: the nearest point is the corner (4, 1), sqrt(0.5) away.
  CHECK(walls.clear({3, 3}, {6, 0}, 0.7));
  CHECK_FALSE(walls.clear({3, 3}, {6, 0}, 0.71));
  CHECK(walls.blocked({2, 0}));  // the edge is inside
}

TEST_CASE("a concave polygon: the notch is open, the arms are not") {
  // A U opening upwards: arms at x 0..1 and 3..4, base y 0..1, notch x 1..3, y 1..4.
  const Obstacle obstacles[] = {Obstacle::polygon({{0, 0}, {4, 0}, {4, 4}, {3, 4}, {3, 1}, {1, 1}, {1, 4}, {0, 4}})};
  Walls walls(obstacles, nullptr);
  CHECK(walls.clear({2, 5}, {2, 1.5}));  // down into the notch
  CHECK_FALSE(walls.clear({2, 5}, {2, 0.5}));  // on into the base
  CHECK_FALSE(walls.clear({-1, 2}, {5, 2}));  // across both arms
  CHECK(walls.clear({2, 2}, {2, 3}, 0.9));
  CHECK_FALSE(walls.clear({2, 2}, {2, 3}, 1.1));
  CHECK(walls.blocked({0.5, 3}));
  CHECK_FALSE(walls.blocked({2, 3}));
}

TEST_CASE("a polygon of fewer than 3 corners blocks nothing") {
  const Obstacle obstacles[] = {Obstacle::polygon({{0, 0}, {4, 4}})};
  Walls walls(obstacles, nullptr);
  CHECK(walls.clear({0, 4}, {4, 0}, 1));
  CHECK_FALSE(walls.blocked({2, 2}));
  CHECK_FALSE(walls.blocked({9, 9}));
}

TEST_CASE("with a map: radius 0 is line of sight; a radius must fit between blocked cells") {
  GridMap map = draw({"@@@@@@",
                      "......",
                      "@@@@@@"});
  Walls walls({}, &map);
  CHECK(walls.clear({0.5, 1.5}, {5.5, 1.5}));
  CHECK(walls.clear({0.5, 1.5}, {5.5, 1.5}, 0.5));  // exactly fits the corridor
  CHECK_FALSE(walls.clear({0.5, 1.5}, {5.5, 1.5}, 0.51));
  CHECK_FALSE(walls.clear({0.5, 1.2}, {5.5, 1.2}, 0.3));
  CHECK(walls.blocked({1, 0.5}));
  CHECK_FALSE(walls.blocked({1, 1.5}));
  CHECK(walls.blocked({-1, 1.5}));  // outside the map
  CHECK(walls.blocked({6.01, 1.5}));
  // On the east or south edge: in the last column or row, as an agent pushed there is (guide
  // 12.2); the edge was outside, so a spawn area on it was "covered by obstacles".
  CHECK_FALSE(walls.blocked({6, 1.5}));
  CHECK(walls.blocked({3.5, 3}));  // the south edge of a blocked last row
  CHECK(walls.blocked({6, 3.01}));
}

TEST_CASE("with a map and a radius: a block beside the line, corners, and the map's edge") {
  GridMap map = draw({"......",
                      "......",
                      "...@..",
                      "......",
                      "......"});
  Walls walls({}, &map);
  // The line y = 1.5 passes 0.5 above the block (its top at y = 2).
  CHECK(walls.clear({0.5, 1.5}, {5.5, 1.5}, 0.49));
  CHECK_FALSE(walls.clear({0.5, 1.5}, {5.5, 1.5}, 0.51));
  // The block's corner (3, 2) is sqrt(0.5) from (2.5, 1.5): the end disc counts.
  CHECK(walls.clear({1.5, 1.5}, {2.5, 1.5}, 0.7));
  CHECK_FALSE(walls.clear({1.5, 1.5}, {2.5, 1.5}, 0.71));
  // The map's edge is a wall for a thick body.
  CHECK(walls.clear({0.5, 0.5}, {0.5, 4.5}, 0.5));
  CHECK_FALSE(walls.clear({0.5, 0.5}, {0.5, 4.5}, 0.6));
}

TEST_CASE("obstacles and a map together, placed in the world") {
  GridMap map(10, 10);
  map.origin = {-5, -5};
  const Obstacle obstacles[] = {Obstacle::circle({0, 0}, 1)};
  Walls walls(obstacles, &map);
  CHECK_FALSE(walls.clear({-4, 0}, {4, 0}));
  CHECK(walls.clear({-4, 3}, {4, 3}));
  CHECK_FALSE(walls.clear({-4, 3}, {6, 3}));  // leaves the map
  CHECK(walls.blocked({0, 0}));
  CHECK(walls.blocked({5.5, 0}));
}

}  // TEST_SUITE

TEST_SUITE("nav_walls") {

TEST_CASE("thick segments on random maps agree with sampling the capsule") {
  // Samples: points along the segment, and around each at distances below the radius.
  int blocked_seen = 0, clear_seen = 0;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    GridMap map = nav_fixture::random_map(20, 16, 12, seed);
    Walls walls({}, &map);
    std::mt19937 rng(seed * 31u);
    for (int i = 0; i < 60; ++i) {
      Vec2 a{(rng() % 2000) / 100.0, (rng() % 1600) / 100.0};
      Vec2 b{a.x + (double(rng() % 600) - 300) / 100.0, a.y + (double(rng() % 600) - 300) / 100.0};
      double r = (rng() % 80) / 100.0;
      bool clear = walls.clear(a, b, r);
      if (r == 0) CHECK(clear == line_of_sight(map, a, b));
      // Is any sample within 0.98 r of the segment in a blocked cell (or outside the map)?
      bool hit = false;
      for (int s = 0; s <= 200 && !hit; ++s) {
        Vec2 p = a + (b - a) * (s / 200.0);
        for (int k = 0; k < 16 && !hit; ++k)
          for (double f : {0.0, 0.5, 0.98}) {
            double angle = k * 3.14159265358979 / 8;
            Vec2 q{p.x + std::cos(angle) * r * f, p.y + std::sin(angle) * r * f};
            if (walls.blocked(q)) hit = true;
          }
      }
      if (hit) CHECK_FALSE(clear);
      blocked_seen += !clear;
      clear_seen += clear;
    }
  }
  CHECK(blocked_seen > 50);
  CHECK(clear_seen > 50);
}

// 90 x 70 cells of open ground with a wall across and 12 scattered blocked cells, drawn from rng;
// cell size 1 or 0.5 and an origin at 0 or off it, by seed.
GridMap open_ground_map(unsigned seed, std::mt19937& rng) {
  GridMap map(90, 70);
  for (int k = 0; k < 12; ++k) map.set_passable({std::int32_t(rng() % 90), std::int32_t(rng() % 70)}, false);
  const std::int32_t wall_x = 20 + std::int32_t(rng() % 50);
  for (std::int32_t y = 10; y < 60; ++y) map.set_passable({wall_x, y}, false);
  map.cell_size = seed % 2 ? 1.0 : 0.5;
  map.origin = {seed % 3 ? 0.0 : -3.25, 2.0};
  return map;
}

TEST_CASE("sight lines over open ground: Walls agrees with line_of_sight, open blocks or not") {
  // Rooms of open ground with a few walls and scattered blocks: many sight lines span only open
  // 8 x 8 blocks (Walls answers them from its blocked-cell counts), many cross a wall or a
  // block, some end exactly on cell edges and corners. Cell sizes 1 and 0.5, an origin off 0.
  int open_seen = 0, blocked_seen = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    GridMap map = open_ground_map(seed, rng);
    Walls walls({}, &map);
    for (int i = 0; i < 3000; ++i) {
      auto coordinate = [&](double extent, double origin) {
        double g = (rng() % 3 == 0) ? double(rng() % std::uint32_t(extent * 2)) / 2 : (rng() % 100000) / 100000.0 * extent;
        return origin + g * map.cell_size;
      };
      Vec2 a{coordinate(90, map.origin.x), coordinate(70, map.origin.y)};
      Vec2 b = rng() % 2 ? Vec2{coordinate(90, map.origin.x), coordinate(70, map.origin.y)}
                         : Vec2{a.x + double(rng() % 21) * map.cell_size - 10 * map.cell_size, a.y};
      const bool sight = line_of_sight(map, a, b);
      CHECK(walls.clear(a, b) == sight);
      (sight ? open_seen : blocked_seen) += 1;
    }
  }
  CHECK(open_seen > 2000);
  CHECK(blocked_seen > 2000);
}

TEST_CASE("region_clear: a box over open ground answers for every sight line in it") {
  // Maps as above (rooms, a wall, scattered blocks; cell sizes 1 and 0.5, an origin off 0);
  // random boxes, some reaching or passing the map's edges. Wherever region_clear says yes,
  // clear() holds between random points of the box, its corners and edges included.
  int yes = 0, no = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    GridMap map = open_ground_map(seed, rng);
    Walls walls({}, &map);
    CHECK(walls.may_have_clear_regions());
    auto unit = [&] { return (rng() % 100001) / 100000.0; };
    for (int i = 0; i < 2000; ++i) {
      // Corners in cells, from a little off the map to a little past its far edges (exactly on
      // them a quarter of the time).
      auto corner = [&](double extent) { return rng() % 4 == 0 ? extent : -2 + unit() * (extent + 4); };
      double x0 = corner(90), x1 = x0 + unit() * 25, y0 = corner(70), y1 = y0 + unit() * 25;
      if (rng() % 8 == 0) x1 = 90;
      const Vec2 lo{map.origin.x + x0 * map.cell_size, map.origin.y + y0 * map.cell_size};
      const Vec2 hi{map.origin.x + std::max(x0, x1) * map.cell_size, map.origin.y + std::max(y0, y1) * map.cell_size};
      if (!walls.region_clear(lo, hi)) {
        ++no;
        continue;
      }
      ++yes;
      auto inside = [&] {
        const std::uint32_t pick = rng() % 5;  // corners and edges too
        const double x = pick == 0 ? lo.x : pick == 1 ? hi.x : lo.x + unit() * (hi.x - lo.x);
        const double y = pick == 2 ? lo.y : pick == 3 ? hi.y : lo.y + unit() * (hi.y - lo.y);
        return Vec2{std::min(x, hi.x), std::min(y, hi.y)};
      };
      for (int k = 0; k < 20; ++k) {
        const Vec2 a = inside(), b = inside();
        REQUIRE(walls.clear(a, b));
        REQUIRE(line_of_sight(map, a, b));
      }
      CHECK(walls.clear(lo, hi));
      CHECK(walls.clear({lo.x, hi.y}, {hi.x, lo.y}));
    }
  }
  CHECK(yes > 1000);
  CHECK(no > 1000);
}

TEST_CASE("region_clear: says yes only where it knows") {
  GridMap map(64, 64);
  Walls walls({}, &map);
  CHECK(walls.region_clear({1, 1}, {60, 60}));
  CHECK(walls.region_clear({0, 0}, {64, 64}));  // edges included, as clear()'s
  CHECK(walls.region_clear({3, 3}, {3, 3}));
  CHECK_FALSE(walls.region_clear({-0.5, 1}, {10, 10}));   // off the map
  CHECK_FALSE(walls.region_clear({1, 1}, {64.01, 10}));
  CHECK_FALSE(walls.region_clear({10, 10}, {1, 1}));      // not ordered
  CHECK_FALSE(walls.region_clear({1, 1}, {NAN, 10}));
  map.set_passable({40, 40}, false);
  CHECK_FALSE(walls.region_clear({1, 1}, {60, 60}));  // an edited map: its counts are stale
  CHECK_FALSE(walls.region_clear({1, 1}, {10, 10}));
  Walls edited({}, &map);
  CHECK(edited.region_clear({1, 1}, {10, 10}));
  CHECK_FALSE(edited.region_clear({1, 1}, {60, 60}));  // the wall's block
  CHECK_FALSE(edited.region_clear({44, 44}, {46, 46}));  // beside it, in its 8 x 8 block
  CHECK(edited.region_clear({38, 38}, {39.9, 39.9}));    // beside it, in the next block
  CHECK(edited.region_clear({48, 1}, {60, 60}));

  const Obstacle posts[] = {Obstacle::circle({100, 100}, 1)};  // far away, but any obstacle: no
  Walls with_obstacle(posts, &map);
  CHECK_FALSE(with_obstacle.may_have_clear_regions());
  CHECK_FALSE(with_obstacle.region_clear({1, 1}, {10, 10}));

  Walls nothing;  // no map, no obstacle: everything is clear
  CHECK(nothing.may_have_clear_regions());
  CHECK(nothing.region_clear({-1e6, -5}, {1e6, 5}));

  GridMap walled(64, 64);
  for (std::int32_t y = 0; y < 64; y += 4)
    for (std::int32_t x = 0; x < 64; x += 4) walled.set_passable({x, y}, false);
  Walls no_open_block({}, &walled);  // every block has a wall
  CHECK_FALSE(no_open_block.may_have_clear_regions());
  CHECK_FALSE(no_open_block.region_clear({1, 1}, {2, 2}));
}

TEST_CASE("a map edited after its Walls were made: sight lines see the new wall") {
  GridMap map(64, 64);
  Walls walls({}, &map);
  CHECK(walls.clear({1.5, 1.5}, {60.5, 1.5}));
  CHECK(walls.clear({1.5, 1.5}, {60.5, 40.5}));
  map.set_passable({30, 1}, false);
  CHECK_FALSE(walls.clear({1.5, 1.5}, {60.5, 1.5}));
  CHECK(walls.clear({1.5, 1.5}, {60.5, 40.5}) == line_of_sight(map, {1.5, 1.5}, {60.5, 40.5}));
  map.set_passable({30, 1}, true);
  CHECK(walls.clear({1.5, 1.5}, {60.5, 1.5}));
}

}  // TEST_SUITE
