// One tick of motion: truncations, integration, heading, walls.
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

const Bounds kArena{{-100, -100}, {100, 100}};

Entity vehicle_at(Vec2 position, Vec2 velocity, Vehicle vehicle) {
  Entity e;
  e.position = position;
  e.velocity = velocity;
  e.vehicle = vehicle;
  e.alive = true;
  return e;
}

}  // namespace

TEST_CASE("world: motion truncates the force, divides by mass, integrates") {
  // |(6, 8)| = 10 is cut to max_force 4: (2.4, 3.2); a = F/2 = (1.2, 1.6); v = a·0.5.
  Entity e = vehicle_at({1, 1}, {0, 0}, {.mass = 2, .max_speed = 10, .max_force = 4});
  move_entity(e, {6, 8}, 0.5, kArena);
  CHECK_VEC(e.velocity, 0.6, 0.8);
  CHECK_VEC(e.position, 1.3, 1.4);
  CHECK_VEC(e.heading, 0.6, 0.8);
}

TEST_CASE("world: motion truncates the velocity to max speed") {
  Entity e = vehicle_at({0, 0}, {0, 0}, {.mass = 1, .max_speed = 1, .max_force = 100});
  move_entity(e, {100, 0}, 1, kArena);
  CHECK(e.velocity == Vec2{1, 0});
  CHECK(e.position == Vec2{1, 0});
}

TEST_CASE("world: the heading stays put while the entity stands still") {
  Entity e = vehicle_at({0, 0}, {0, 0}, {});
  e.heading = {0, 1};
  move_entity(e, {}, 0.1, kArena);
  CHECK(e.heading == Vec2{0, 1});

  e.velocity = {1e-9, 0};  // below kHeadingMinSpeed: its direction is noise
  move_entity(e, {}, 0.1, kArena);
  CHECK(e.heading == Vec2{0, 1});

  e.velocity = {0, -0.5};  // braking to rest keeps the last heading
  move_entity(e, {0, 0.5}, 1, kArena);
  CHECK(e.velocity == Vec2{0, 0});
  CHECK(e.heading == Vec2{0, 1});
}

TEST_CASE("world: walls clamp the position and stop only the outward velocity") {
  Bounds room{{0, 0}, {10, 10}};
  Entity e = vehicle_at({9.5, 5}, {2, 1}, {.max_speed = 10});
  move_entity(e, {}, 1, room);
  CHECK(e.position == Vec2{10, 6});
  CHECK(e.velocity == Vec2{0, 1});   // slides along the wall
  CHECK(e.heading == Vec2{0, 1});    // facing the way it actually moves

  Entity corner = vehicle_at({1, 1}, {-3, -4}, {.max_speed = 10});
  move_entity(corner, {}, 1, room);
  CHECK(corner.position == Vec2{0, 0});
  CHECK(corner.velocity == Vec2{0, 0});
  CHECK(corner.heading == Vec2{1, 0});  // stopped dead: heading unchanged

  // Spawned outside and walking in: clamped, but the inward velocity is kept.
  Entity outside = vehicle_at({-1, 5}, {1, 0}, {.max_speed = 10});
  move_entity(outside, {}, 0.5, room);
  CHECK(outside.position == Vec2{0, 5});
  CHECK(outside.velocity == Vec2{1, 0});
}

TEST_CASE("world: move_entities pushes each slot by its own force and skips free slots") {
  World world(kArena);
  Vehicle v{.mass = 1, .max_speed = 10, .max_force = 10};
  EntityId a = world.spawn({0, 0}, v);
  EntityId b = world.spawn({0, 0}, v);
  EntityId c = world.spawn({5, 5}, v);
  world.despawn(b);
  Vec2 forces[] = {{1, 0}, {0, 1}};  // c's slot lies past the end: no force
  world.move_entities(forces, 1);
  CHECK(world.entity(a)->position == Vec2{1, 0});
  CHECK(world.entities()[1].position == Vec2{0, 0});  // free slot untouched
  CHECK(world.entity(c)->position == Vec2{5, 5});
}

TEST_CASE("world: motion is bit-for-bit reproducible") {
  auto run = [] {
    World world(kArena);
    Vehicle v{.mass = 1.7, .max_speed = 3.3, .max_force = 2.1};
    for (int i = 0; i < 20; ++i) world.spawn({i * 0.37, -i * 0.11}, v, i % 3);
    std::vector<Vec2> forces(20);
    for (int tick = 0; tick < 200; ++tick) {
      for (const Entity& e : world.entities()) {
        forces[e.id.index()] = seek(e, {std::sin(tick * 0.1) * 50, std::cos(tick * 0.07) * 50});
      }
      world.move_entities(forces, 0.1);
    }
    std::vector<Vec2> state;
    for (const Entity& e : world.entities()) {
      state.push_back(e.position);
      state.push_back(e.velocity);
      state.push_back(e.heading);
    }
    return state;
  };
  CHECK(run() == run());
}
