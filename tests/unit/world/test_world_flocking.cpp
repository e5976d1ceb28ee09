// Separation, alignment and cohesion over neighbour lists.
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

struct Flock {
  World world{{{-50, -50}, {50, 50}}};
  EntityId add(Vec2 position, Vec2 heading = {1, 0}) {
    return world.spawn(position, Vehicle{.max_speed = std::sqrt(2.0)}, 0, heading);
  }
  const Entity& get(EntityId id) const { return *world.entity(id); }
};

}  // namespace

TEST_CASE("world: separation sums r/|r|^2 away from each neighbour") {
  Flock f;
  EntityId me = f.add({0, 0});
  EntityId right = f.add({2, 0});
  EntityId below = f.add({0, -1});
  const EntityId near[] = {right, below};
  // (-2, 0)/4 + (0, 1)/1
  CHECK_VEC(separation(f.get(me), f.world, near), -0.5, 1);
}

TEST_CASE("world: separation skips itself, neighbours on top of it and stale ids") {
  Flock f;
  EntityId me = f.add({0, 0});
  EntityId twin = f.add({0, 0});
  EntityId gone = f.add({1, 0});
  EntityId right = f.add({2, 0});
  f.world.despawn(gone);
  const EntityId near[] = {me, twin, gone, right};
  CHECK_VEC(separation(f.get(me), f.world, near), -0.5, 0);
  CHECK(separation(f.get(me), f.world, {}) == Vec2{});
}

TEST_CASE("world: alignment is the neighbours' mean heading minus our own") {
  Flock f;
  EntityId me = f.add({0, 0}, {1, 0});
  EntityId a = f.add({1, 1}, {0, 1});
  EntityId b = f.add({-1, 1}, {1, 0});
  const EntityId near[] = {a, b};
  CHECK_VEC(alignment(f.get(me), f.world, near), -0.5, 0.5);
  CHECK(alignment(f.get(me), f.world, {}) == Vec2{});
}

TEST_CASE("world: cohesion seeks the neighbours' centre of mass") {
  Flock f;
  EntityId me = f.add({0, 0});
  EntityId a = f.add({2, 0});
  EntityId b = f.add({0, 2});
  const EntityId near[] = {me, a, b};  // self is skipped, so the centre is (1, 1)
  CHECK_VEC(cohesion(f.get(me), f.world, near), 1, 1);  // at rest, max speed sqrt(2)
  CHECK(cohesion(f.get(me), f.world, {}) == Vec2{});
}
