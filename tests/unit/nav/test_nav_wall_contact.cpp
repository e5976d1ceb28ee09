// keep_out_of_walls: an entity's centre never ends a step inside a blocked cell, nor passes
// through a wall thinner than its step; it slides along walls on the free axis.
#include <doctest/doctest.h>

#include "nav_fixture.hpp"
#include "thicket/world.hpp"

using nav_fixture::draw;
using thicket::nav::keep_out_of_walls;
using thicket::nav::Vec2;
using thicket::world::Entity;

namespace {

// A wall one cell thick at x 5..6 with a door at row 4.
const auto kMap = draw({
    "...........",  // 0
    ".....@.....",  // 1
    ".....@.....",  // 2
    ".....@.....",  // 3
    "...........",  // 4
    ".....@.....",  // 5
});

Entity moved(Vec2 before, Vec2 now, Vec2 velocity) {
  Entity e;
  e.position = now;
  e.velocity = velocity;
  keep_out_of_walls(e, before, kMap);
  return e;
}

}  // namespace

TEST_CASE("wall contact: free moves are left alone, even long ones through the door") {
  Entity e = moved({1.5, 2.5}, {2.5, 3.5}, {10, 10});
  CHECK(e.position == Vec2{1.5 + 1, 2.5 + 1});
  CHECK(e.velocity == Vec2{10, 10});
  e = moved({3.5, 4.5}, {7.5, 4.5}, {40, 0});  // four cells in one step, along the door's row
  CHECK(e.position == Vec2{7.5, 4.5});
}

TEST_CASE("wall contact: a step into a wall slides along it") {
  Entity e = moved({4.8, 2.5}, {5.2, 2.9}, {4, 4});
  CHECK(e.position == Vec2{4.8, 2.9});
  CHECK(e.velocity == Vec2{0, 4});
}

TEST_CASE("wall contact: a step longer than the wall is thick does not pass through it") {
  // Ends beyond the wall in a free cell: the step crossed the wall, so it is refused.
  Entity e = moved({4.5, 2.5}, {6.5, 2.5}, {20, 0});
  CHECK(e.position == Vec2{4.5, 2.5});
  CHECK(e.velocity == Vec2{0, 0});
  // Diagonal: the x part crosses the wall, the y part alone is free: it slides on y.
  e = moved({4.5, 1.5}, {6.5, 2.8}, {20, 13});
  CHECK(e.position == Vec2{4.5, 2.8});
  CHECK(e.velocity == Vec2{0, 13});
}

TEST_CASE("wall contact: moves from or to outside the map are left to the world's bounds") {
  Entity e = moved({4.5, 1.5}, {4.5, -1.5}, {0, -30});
  CHECK(e.position == Vec2{4.5, -1.5});
  e = moved({-0.5, 2.5}, {0.5, 2.5}, {10, 0});
  CHECK(e.position == Vec2{0.5, 2.5});
}
