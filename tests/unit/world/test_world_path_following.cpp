// Path following: advancing through waypoints, looping closed paths, arriving on open ones.
#include <doctest/doctest.h>

#include "thicket/world.hpp"

using namespace thicket::world;

#define CHECK_VEC(actual, ex, ey)                  \
  do {                                             \
    Vec2 v_ = (actual);                            \
    CHECK(v_.x == doctest::Approx(ex));            \
    CHECK(v_.y == doctest::Approx(ey));            \
  } while (0)

namespace {

const Vec2 kPath[] = {{0, 0}, {10, 0}, {10, 10}};

Entity walker(Vec2 position) {
  Entity e;
  e.position = position;
  e.vehicle.max_speed = 2;
  e.alive = true;
  return e;
}

}  // namespace

TEST_CASE("world: path following seeks the current waypoint and moves on within reach") {
  PathParams params{.closed = false, .waypoint_radius = 1, .slowing_radius = 3};
  PathProgress progress;
  CHECK_VEC(follow_path(walker({-4, 0}), kPath, params, progress), 2, 0);
  CHECK(progress.waypoint == 0);

  // Within 1 m of waypoint 0: on to (10, 0).
  CHECK_VEC(follow_path(walker({0.5, 0}), kPath, params, progress), 2, 0);
  CHECK(progress.waypoint == 1);
  CHECK_FALSE(progress.arrived);

  CHECK_VEC(follow_path(walker({10, -0.9}), kPath, params, progress), 0, 2);
  CHECK(progress.waypoint == 2);
}

TEST_CASE("world: an open path arrives at its last waypoint") {
  PathParams params{.closed = false, .waypoint_radius = 1, .slowing_radius = 3};
  PathProgress progress{.waypoint = 2};
  // 2 m short of the end: arrive, desired speed 2 · 2/3, not yet arrived.
  CHECK_VEC(follow_path(walker({10, 8}), kPath, params, progress), 0, 4.0 / 3);
  CHECK_FALSE(progress.arrived);
  // Within reach: arrived, and it keeps braking onto the point.
  CHECK_VEC(follow_path(walker({10, 9.5}), kPath, params, progress), 0, 2 * 0.5 / 3);
  CHECK(progress.arrived);
  CHECK(progress.waypoint == 2);
}

TEST_CASE("world: a closed path loops back to its first waypoint") {
  PathParams params{.closed = true, .waypoint_radius = 1};
  PathProgress progress{.waypoint = 2};
  Vec2 home = Vec2{-10, -9.5}.normalized() * 2;  // from (10, 9.5) back to (0, 0)
  CHECK_VEC(follow_path(walker({10, 9.5}), kPath, params, progress), home.x, home.y);
  CHECK(progress.waypoint == 0);
  CHECK_FALSE(progress.arrived);
}

TEST_CASE("world: path following skips several reached waypoints but never loops forever") {
  const Vec2 huddle[] = {{0, 0}, {0.1, 0}, {0.2, 0}, {5, 0}};
  PathParams open{.waypoint_radius = 1};
  PathProgress progress;
  follow_path(walker({0, 0}), huddle, open, progress);
  CHECK(progress.waypoint == 3);

  const Vec2 dot[] = {{0, 0}, {0.5, 0}};
  PathParams closed{.closed = true, .waypoint_radius = 1};
  PathProgress loop;
  follow_path(walker({0, 0}), dot, closed, loop);  // everything in reach: one lap, then stop
  CHECK(loop.waypoint == 0);
}

TEST_CASE("world: path following copes with empty paths and stale progress") {
  PathProgress progress{.waypoint = 7};
  CHECK(follow_path(walker({0, 0}), std::span<const Vec2>{}, {}, progress) == Vec2{});
  CHECK(progress.waypoint == 7);

  follow_path(walker({-5, 0}), kPath, {.closed = false}, progress);
  CHECK(progress.waypoint == 2);  // clamped to the last waypoint
  PathProgress wrapped{.waypoint = 7};
  follow_path(walker({-5, 5}), kPath, {.closed = true}, wrapped);
  CHECK(wrapped.waypoint == 1);   // 7 mod 3
}
