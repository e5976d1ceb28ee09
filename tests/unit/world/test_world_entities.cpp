// The world's entity store: stable handles, generations, slot reuse.
#include <doctest/doctest.h>

#include "thicket/world.hpp"

using namespace thicket::world;

namespace {
const Bounds kArena{{0, 0}, {100, 100}};
}

TEST_CASE("world: spawned entities get ids 0, 1, 2 and can be found") {
  World world(kArena);
  Vehicle v{.mass = 2, .max_speed = 3, .max_force = 4, .radius = 0.5};
  EntityId a = world.spawn({1, 2}, v, 7);
  EntityId b = world.spawn({3, 4}, v);
  EntityId c = world.spawn({5, 6}, v);
  CHECK(a.bits == 0);
  CHECK(b.bits == 1);
  CHECK(c.bits == 2);
  CHECK(world.live_count() == 3);
  REQUIRE(world.entity(a) != nullptr);
  const Entity& e = *world.entity(a);
  CHECK(e.id == a);
  CHECK(e.position == Vec2{1, 2});
  CHECK(e.velocity == Vec2{});
  CHECK(e.heading == Vec2{1, 0});
  CHECK(e.team == 7);
  CHECK(e.alive);
  CHECK(e.radius() == 0.5);
  CHECK(e.vehicle.max_force == 4);
  CHECK(world.entities().size() == 3);
  CHECK(world.entities()[2].id == c);
}

TEST_CASE("world: a despawned id goes stale, and its slot comes back under a new generation") {
  World world(kArena);
  Vehicle v;
  EntityId a = world.spawn({0, 0}, v);
  EntityId b = world.spawn({1, 0}, v);
  CHECK(world.despawn(a));
  CHECK_FALSE(world.despawn(a));  // already gone
  CHECK(world.entity(a) == nullptr);
  CHECK(world.live_count() == 1);
  CHECK_FALSE(world.entities()[0].alive);

  EntityId reused = world.spawn({9, 9}, v);
  CHECK(reused.index() == 0);
  CHECK(reused.generation() == 1);
  CHECK(reused.bits == (1u << EntityId::kIndexBits));
  CHECK(world.entity(a) == nullptr);  // the old handle does not reach the new occupant
  REQUIRE(world.entity(reused) != nullptr);
  CHECK(world.entity(reused)->position == Vec2{9, 9});
  CHECK(world.entity(b) != nullptr);
  CHECK(world.entities().size() == 2);  // no growth from churn
  CHECK(b < reused);                    // the newer generation sorts after
}

TEST_CASE("world: free slots are reused last freed, first reused") {
  World world(kArena);
  Vehicle v;
  for (int i = 0; i < 4; ++i) world.spawn({0, 0}, v);
  world.despawn(EntityId::from(1, 0));
  world.despawn(EntityId::from(3, 0));
  CHECK(world.spawn({0, 0}, v).index() == 3);
  CHECK(world.spawn({0, 0}, v).index() == 1);
  CHECK(world.spawn({0, 0}, v).index() == 4);
}

TEST_CASE("world: generations wrap after 1024 reuses of one slot") {
  World world(kArena);
  Vehicle v;
  EntityId id = world.spawn({0, 0}, v);
  for (int i = 0; i < 1023; ++i) {
    world.despawn(id);
    id = world.spawn({0, 0}, v);
  }
  CHECK(id.generation() == 1023);
  world.despawn(id);
  id = world.spawn({0, 0}, v);
  CHECK(id.generation() == 0);
  CHECK(id.bits == 0);
  CHECK_FALSE(id.is_none());
}

TEST_CASE("world: invalid vehicles are refused and unknown ids resolve to nothing") {
  World world(kArena);
  CHECK(world.spawn({0, 0}, Vehicle{.mass = 0}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.mass = -1}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.max_speed = -1}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.max_force = std::nan("")}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.radius = -0.1}).is_none());
  // Limits that keep a tick's motion finite: force / mass, speed * dt.
  CHECK(world.spawn({0, 0}, Vehicle{.mass = 1e-310}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.mass = 2e12}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.max_speed = 1e308}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.max_force = 1e300}).is_none());
  CHECK(world.spawn({0, 0}, Vehicle{.radius = 2e6}).is_none());
  CHECK(world.live_count() == 0);
  CHECK(is_valid(Vehicle{.mass = Vehicle::kMinMass, .max_speed = Vehicle::kMaxSpeed, .max_force = Vehicle::kMaxForce,
                         .radius = Vehicle::kMaxRadius}));
  // At the limits, with the largest force for the smallest mass, motion stays finite.
  {
    World w(kArena);
    const EntityId id = w.spawn({0, 0}, Vehicle{.mass = Vehicle::kMinMass, .max_speed = Vehicle::kMaxSpeed,
                                                .max_force = Vehicle::kMaxForce, .radius = 0.5});
    std::vector<Vec2> forces(1, Vec2{1e300, -1e300});
    for (int k = 0; k < 3; ++k) w.move_entities(forces, 1e6);
    CHECK(std::isfinite(w.entity(id)->position.x));
    CHECK(std::isfinite(w.entity(id)->velocity.y));
  }
  CHECK(world.entity(EntityId::none()) == nullptr);
  CHECK(world.entity(EntityId::from(5, 0)) == nullptr);
  CHECK_FALSE(world.despawn(EntityId::none()));
  CHECK(is_valid(Vehicle{}));
}

TEST_CASE("world: spawn normalizes the heading and the bounds") {
  World world({{10, 10}, {-10, -10}});
  CHECK(world.bounds().min == Vec2{-10, -10});
  CHECK(world.bounds().max == Vec2{10, 10});
  EntityId a = world.spawn({0, 0}, Vehicle{}, 0, {0, 5});
  EntityId b = world.spawn({0, 0}, Vehicle{}, 0, {0, 0});
  CHECK(world.entity(a)->heading == Vec2{0, 1});
  CHECK(world.entity(b)->heading == Vec2{1, 0});
}

TEST_CASE("world: obstacles are kept in the order they were added") {
  World world(kArena);
  world.add_obstacle(Obstacle::circle({5, 5}, 1));
  world.add_obstacle(Obstacle::box({0, 0}, {2, 2}));
  REQUIRE(world.obstacles().size() == 2);
  CHECK(world.obstacles()[0].shape == ObstacleShape::Circle);
  CHECK(world.obstacles()[1].shape == ObstacleShape::Box);
}
