// Combining behaviours: weighted truncated sum and prioritised accumulation.
#include <doctest/doctest.h>

#include "thicket/world.hpp"

using namespace thicket::world;

#define CHECK_VEC(actual, ex, ey)                  \
  do {                                             \
    Vec2 v_ = (actual);                            \
    CHECK(v_.x == doctest::Approx(ex));            \
    CHECK(v_.y == doctest::Approx(ey));            \
  } while (0)

TEST_CASE("world: weighted truncated sum") {
  const WeightedForce forces[] = {{{1, 0}, 2}, {{0, 3}, 1}};
  CHECK(weighted_truncated_sum(forces, 10) == Vec2{2, 3});
  CHECK_VEC(weighted_truncated_sum(forces, 1), 2 / std::sqrt(13.0), 3 / std::sqrt(13.0));
  CHECK(weighted_truncated_sum({}, 5) == Vec2{});
  // A weight so large that the sum's squared length overflows (1e160²) is still cut to
  // max_force in its direction: it was cut to nothing, and the agent stood still.
  const WeightedForce huge[] = {{{0.6, 0.8}, 1e160}};
  CHECK_VEC(weighted_truncated_sum(huge, 5), 3, 4);
  CHECK_VEC(prioritised_sum(huge, 5), 3, 4);
  CHECK(Vec2{3e200, 4e200}.length() == doctest::Approx(5e200));
  CHECK_VEC((Vec2{3e200, 4e200}.normalized()), 0.6, 0.8);
}

TEST_CASE("world: prioritised sum scales the first force that does not fit and drops the rest") {
  // (3, 0) leaves room 2 under max 5; (0, 4) does not fit and is scaled to (0, 2); (7, 7) is
  // never looked at.
  const WeightedForce forces[] = {{{3, 0}, 1}, {{0, 4}, 1}, {{7, 7}, 1}};
  CHECK_VEC(prioritised_sum(forces, 5), 3, 2);
}

TEST_CASE("world: prioritised sum budgets by the running total's magnitude") {
  // (3, 0) + (-1, 0) = (2, 0) leaves room 3, so (0, 2) still fits whole.
  const WeightedForce forces[] = {{{3, 0}, 1}, {{-1, 0}, 1}, {{0, 1}, 2}};
  CHECK(prioritised_sum(forces, 5) == Vec2{2, 2});
  // Weights apply before the budget: 2·(4, 0) = (8, 0) is cut to max 5 and ends the sum.
  const WeightedForce heavy[] = {{{4, 0}, 2}, {{0, 1}, 1}};
  CHECK_VEC(prioritised_sum(heavy, 5), 5, 0);
  CHECK(prioritised_sum(heavy, 0) == Vec2{});
  CHECK(prioritised_sum({}, 5) == Vec2{});
}
