// Obstacle avoidance: which obstacles the detection box sees, and the sideways push.
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

// Radius 1, max force 4. With min_length 2 and look_ahead 1 s, speed 2 makes the box 4 m long.
Entity runner(Vec2 heading, double speed, double radius = 1) {
  Entity e;
  e.heading = heading.normalized();
  e.velocity = e.heading * speed;
  e.vehicle = {.mass = 1, .max_speed = 5, .max_force = 4, .radius = radius};
  e.alive = true;
  return e;
}

const AvoidanceParams kParams{.min_length = 2, .look_ahead = 1};

}  // namespace

TEST_CASE("world: a circle in the box pushes sideways, harder the closer it is") {
  const Obstacle ahead_left[] = {Obstacle::circle({3, 0.5}, 1)};
  // Distance to the surface sqrt(9.25) − 1 = 2.041381; urgency 1 − 2.041381/4; to the right.
  CHECK_VEC(avoid_obstacles(runner({1, 0}, 2), ahead_left, kParams), 0, -1.9586187349);

  const Obstacle ahead_right[] = {Obstacle::circle({2, -0.5}, 1)};
  double d = std::sqrt(4.25) - 1;
  CHECK_VEC(avoid_obstacles(runner({1, 0}, 2), ahead_right, kParams), 0, 4 * (1 - d / 4));
}

TEST_CASE("world: obstacles outside the detection box are ignored") {
  Entity e = runner({1, 0}, 2);
  const Obstacle behind[] = {Obstacle::circle({-3, 0}, 1)};
  const Obstacle beside[] = {Obstacle::circle({2, 3}, 1)};        // 2 m from the box's edge
  const Obstacle grazing[] = {Obstacle::circle({2, 2}, 1)};       // touches the edge: no overlap
  const Obstacle too_far[] = {Obstacle::circle({5.5, 0}, 1)};     // 1.5 m past the box's end
  CHECK(avoid_obstacles(e, behind, kParams) == Vec2{});
  CHECK(avoid_obstacles(e, beside, kParams) == Vec2{});
  CHECK(avoid_obstacles(e, grazing, kParams) == Vec2{});
  CHECK(avoid_obstacles(e, too_far, kParams) == Vec2{});
  CHECK(avoid_obstacles(e, {}, kParams) == Vec2{});
}

TEST_CASE("world: the detection box grows with speed") {
  const Obstacle far_ahead[] = {Obstacle::circle({5.5, 0}, 1)};
  // At speed 3 the box is 5 m long and reaches the circle, 4.5 m away: urgency 1 − 4.5/5.
  // Dead ahead counts as on the left, so the push is to the right.
  CHECK_VEC(avoid_obstacles(runner({1, 0}, 3), far_ahead, kParams), 0, -4 * 0.1);
}

TEST_CASE("world: only the nearest intersecting obstacle counts") {
  const Obstacle two[] = {Obstacle::circle({3, 0.5}, 1), Obstacle::circle({2, -0.8}, 0.5)};
  double nearest = std::sqrt(4.64) - 0.5;  // the second, on the right: push left
  CHECK_VEC(avoid_obstacles(runner({1, 0}, 2), two, kParams), 0, 4 * (1 - nearest / 4));
}

TEST_CASE("world: boxes are tested against the turned detection box") {
  // Facing +x: box (3..5, -1..3) is 3 m ahead: urgency 1/4; its centre is left: push right.
  const Obstacle wall[] = {Obstacle::box({3, -1}, {5, 3})};
  CHECK_VEC(avoid_obstacles(runner({1, 0}, 2), wall, kParams), 0, -1);

  // Facing +y: the box spans x in [-1, 1], y in [0, 4].
  Entity up = runner({0, 1}, 2);
  const Obstacle left_clear[] = {Obstacle::box({-3, 2}, {-1.5, 3})};
  CHECK(avoid_obstacles(up, left_clear, kParams) == Vec2{});
  const Obstacle right_in[] = {Obstacle::box({0.5, 2}, {2, 3})};
  // Nearest point (0.5, 2), distance sqrt(4.25); the box lies right of the heading: push left
  // (-x when facing +y).
  CHECK_VEC(avoid_obstacles(up, right_in, kParams), -4 * (1 - std::sqrt(4.25) / 4), 0);
}

TEST_CASE("world: a box inside the diagonal box's bounding square but clear of it is ignored") {
  // Facing (1, 1), radius 0.5, 4 m long: the box's bounding square reaches (3.2, 3.2), but the
  // small box near (2.75, 0.25) is 1.41 m from the centre line: only the turned axes show it.
  Entity diagonal = runner({1, 1}, 2, 0.5);
  const Obstacle corner[] = {Obstacle::box({2.5, 0}, {3, 0.5})};
  CHECK(avoid_obstacles(diagonal, corner, kParams) == Vec2{});
  const Obstacle on_line[] = {Obstacle::box({2, 1.5}, {2.5, 2})};
  CHECK(avoid_obstacles(diagonal, on_line, kParams) != Vec2{});
}

TEST_CASE("world: touching an obstacle gives the full force") {
  const Obstacle hugging[] = {Obstacle::circle({0.8, 0.2}, 1)};  // overlaps the body
  Entity e = runner({1, 0}, 0);
  CHECK_VEC(avoid_obstacles(e, hugging, kParams), 0, -4);
}
