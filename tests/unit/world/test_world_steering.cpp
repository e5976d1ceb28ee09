// The single-entity behaviours against hand-computed forces: seek, flee, arrive, pursuit,
// evade, wander, and the random stream wander draws from.
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

Entity mover(Vec2 position, Vec2 velocity, double max_speed, Vec2 heading = {1, 0}) {
  Entity e;
  e.position = position;
  e.velocity = velocity;
  e.heading = heading;
  e.vehicle.max_speed = max_speed;
  e.alive = true;
  return e;
}

}  // namespace

TEST_CASE("world: seek from (0,5) toward +x gives (5,-5), (1.414214,-1.414214) at max force 2") {
  Entity e = mover({0, 0}, {0, 5}, 5, {0, 1});
  Vec2 force = seek(e, {1000, 0});
  CHECK(force == Vec2{5, -5});  // desired (5, 0) minus velocity (0, 5)
  CHECK_VEC(force.truncated(2), 1.414214, -1.414214);
}

TEST_CASE("world: flee runs from the threat, only within the panic distance") {
  Entity e = mover({0, 0}, {1, 0}, 2);
  // away = (-3, -4) -> unit (-0.6, -0.8) * 2 = (-1.2, -1.6); minus velocity (1, 0).
  CHECK_VEC(flee(e, {3, 4}), -2.2, -1.6);
  CHECK_VEC(flee(e, {3, 4}, 5), -2.2, -1.6);  // the panic distance is inclusive
  CHECK(flee(e, {3, 4}, 4.99) == Vec2{});
  CHECK(flee(e, {0, 0}) == Vec2{-1, 0});      // on top of the threat: brake
}

TEST_CASE("world: arrive slows inside the slowing radius and stops on the target") {
  Entity e = mover({0, 0}, {0, 0}, 4);
  CHECK_VEC(arrive(e, {10, 0}, 8), 4, 0);     // outside: full speed, like seek
  CHECK_VEC(arrive(e, {2, 0}, 8), 1, 0);      // 4 · 2/8
  CHECK_VEC(arrive(e, {0, -4}, 8), 0, -2);    // 4 · 4/8
  Entity on_target = mover({3, 3}, {1, 1}, 4);
  CHECK(arrive(on_target, {3, 3}, 8) == Vec2{-1, -1});  // desired velocity zero: brake
}

TEST_CASE("world: pursuit seeks the quarry's predicted position") {
  Entity hunter = mover({0, 0}, {0, 0}, 3);
  Entity quarry = mover({10, 0}, {0, 2}, 5, {0, 1});
  // T = 10 / (3 + 2) = 2 s; the quarry will be at (10, 4); seek it at speed 3.
  double len = std::sqrt(116.0);
  CHECK_VEC(pursuit(hunter, quarry), 10 / len * 3, 4 / len * 3);
  CHECK_VEC(pursuit(hunter, quarry), 2.785430, 1.114172);
}

TEST_CASE("world: pursuit seeks a head-on quarry directly") {
  Entity hunter = mover({0, 0}, {0, 0}, 3, {1, 0});
  Entity quarry = mover({10, 1}, {-2, 0}, 5, {-1, 0});  // ahead, facing us
  double len = std::sqrt(101.0);
  CHECK_VEC(pursuit(hunter, quarry), 10 / len * 3, 1 / len * 3);

  // Same headings but the quarry is behind us: prediction again. T = sqrt(101)/5.
  Entity behind = mover({-10, 1}, {-2, 0}, 5, {-1, 0});
  double t = len / 5;
  Vec2 predicted{-10 - 2 * t, 1};
  Vec2 expected = predicted.normalized() * 3;
  CHECK_VEC(pursuit(hunter, behind), expected.x, expected.y);
}

TEST_CASE("world: evade flees the pursuer's predicted position within the panic distance") {
  Entity deer = mover({0, 0}, {0, 0}, 2);
  Entity wolf = mover({4, 3}, {0, -3}, 3, {0, -1});
  // distance 5, T = 5 / (2 + 3) = 1 s: the wolf will be at (4, 0); flee along -x at speed 2.
  CHECK_VEC(evade(deer, wolf), -2, 0);
  CHECK_VEC(evade(deer, wolf, 5), -2, 0);
  CHECK(evade(deer, wolf, 4.9) == Vec2{});  // measured to where the wolf is now
}

TEST_CASE("world: splitmix64 matches the published reference stream") {
  std::uint64_t state = 0;
  CHECK(splitmix64(state) == 0xE220A8397B1DCDAFull);
  CHECK(splitmix64(state) == 0x6E789E6AA1B965F4ull);
  CHECK(splitmix64(state) == 0x06C45D188009454Full);
  CHECK(state == 3 * 0x9E3779B97F4A7C15ull);

  std::uint64_t seeded = 42;
  CHECK(random_signed_unit(seeded) == 0.4831297575436466);  // (0xBDD7...>>11)·2^-53·2 − 1
  CHECK(random_signed_unit(seeded) == -0.6801792142461598);
}

TEST_CASE("world: random_signed_unit stays in [-1, 1)") {
  std::uint64_t state = 7;
  double lowest = 1, highest = -1;
  for (int i = 0; i < 10000; ++i) {
    double u = random_signed_unit(state);
    lowest = std::min(lowest, u);
    highest = std::max(highest, u);
  }
  CHECK(lowest >= -1.0);
  CHECK(highest < 1.0);
  CHECK(lowest < -0.99);
  CHECK(highest > 0.99);
}

TEST_CASE("world: wander without jitter seeks the point straight ahead on its circle") {
  Entity e = mover({1, 1}, {0, 0}, 2, {0, 1});
  WanderParams params{.distance = 2, .radius = 1, .jitter = 0};
  WanderState state;
  std::uint64_t rng = 0;
  // Circle centre (1, 3), target 1 m further ahead: (1, 4). Seek at speed 2: (0, 2).
  CHECK_VEC(wander(e, params, state, rng), 0, 2);
  CHECK(state.local_target == Vec2{1, 0});
  CHECK(rng == 2 * 0x9E3779B97F4A7C15ull);  // two draws per call, even without jitter
}

TEST_CASE("world: wander moves its target by the drawn jitter") {
  Entity e = mover({1, 1}, {0, 0}, 2, {0, 1});
  WanderParams params{.distance = 2, .radius = 1, .jitter = 0.5};
  WanderState state;
  std::uint64_t rng = 42;
  // Draws 0.48313 and -0.68018 (seed 42) times jitter 0.5 move the target from (1, 0) to
  // (1.241565, -0.340090); back on the unit circle: (0.964471, -0.264188) in the entity's frame.
  // Facing +y, frame (x, y) is world (-y, x): the point is (1, 3) + (0.264188, 0.964471).
  Vec2 force = wander(e, params, state, rng);
  CHECK_VEC(state.local_target, 0.9644711840979859, -0.2641880675667029);
  CHECK_VEC(force, 0.17753262781722656, 1.9921049585953823);
}

TEST_CASE("world: wander is reproducible from its seed") {
  auto run = [](std::uint64_t seed) {
    Entity e = mover({0, 0}, {0.5, 0}, 1.5);
    WanderState state;
    std::vector<Vec2> forces;
    for (int i = 0; i < 50; ++i) forces.push_back(wander(e, {}, state, seed));
    return forces;
  };
  CHECK(run(9) == run(9));
  CHECK(run(9) != run(10));
}
