// Vec2 arithmetic, bounds and obstacle geometry of the world toolkit.
#include <doctest/doctest.h>

#include "thicket/world.hpp"

using namespace thicket::world;

TEST_CASE("world: Vec2 arithmetic") {
  Vec2 a{3, 4}, b{1, -2};
  CHECK(a + b == Vec2{4, 2});
  CHECK(a - b == Vec2{2, 6});
  CHECK(-a == Vec2{-3, -4});
  CHECK(a * 2 == Vec2{6, 8});
  CHECK(2 * a == Vec2{6, 8});
  CHECK(a / 2 == Vec2{1.5, 2});
  CHECK(a.dot(b) == -5);
  CHECK(a.length_squared() == 25);
  CHECK(a.length() == 5);
  CHECK(a.perpendicular() == Vec2{-4, 3});
  CHECK(distance(a, b) == doctest::Approx(std::sqrt(40.0)));

  Vec2 c = a;
  c += b;
  c -= Vec2{1, 1};
  c *= 2;
  c /= 4;
  CHECK(c == Vec2{1.5, 0.5});
}

TEST_CASE("world: normalized and truncated") {
  CHECK(Vec2{3, 4}.normalized() == Vec2{0.6, 0.8});
  CHECK(Vec2{}.normalized() == Vec2{});  // no direction: stays zero

  CHECK(Vec2{3, 4}.truncated(10) == Vec2{3, 4});  // short enough: untouched
  CHECK(Vec2{3, 4}.truncated(5) == Vec2{3, 4});   // exactly at the limit: untouched
  Vec2 cut = Vec2{3, 4}.truncated(2.5);
  CHECK(cut.x == doctest::Approx(1.5));
  CHECK(cut.y == doctest::Approx(2.0));
  CHECK(Vec2{3, 4}.truncated(0) == Vec2{});
}

TEST_CASE("world: bounds contain their edges") {
  Bounds b{{0, 0}, {10, 5}};
  CHECK(b.contains({0, 0}));
  CHECK(b.contains({10, 5}));
  CHECK(b.contains({3, 2}));
  CHECK_FALSE(b.contains({10.5, 2}));
  CHECK_FALSE(b.contains({3, -0.1}));
}

TEST_CASE("world: obstacle shapes and distances") {
  Obstacle box = Obstacle::box({5, 3}, {1, -1});  // corners in either order
  CHECK(box.shape == ObstacleShape::Box);
  CHECK(box.centre == Vec2{3, 1});
  CHECK(box.half_extents == Vec2{2, 2});
  CHECK(distance_to_obstacle(box, {3, 1}) == 0);   // inside
  CHECK(distance_to_obstacle(box, {8, 1}) == 3);   // beside a face
  CHECK(distance_to_obstacle(box, {8, 7}) == 5);   // off a corner: (3, 4) away

  Obstacle circle = Obstacle::circle({0, 0}, 2);
  CHECK(circle.shape == ObstacleShape::Circle);
  CHECK(distance_to_obstacle(circle, {0, 5}) == 3);
  CHECK(distance_to_obstacle(circle, {1, 1}) == 0);
}
