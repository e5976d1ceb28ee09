// Perception's sight index answers as SpatialHash::in_cones (and any_within), bit for bit: random crowds (some
// bodies outside the world's bounds, on 3 teams or 5), random eyes and cones, every filter.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "perception/sight_index.hpp"
#include "thicket/world.hpp"

using namespace thicket::world;
using thicket::perception::SightIndex;

namespace {

double uniform(std::uint64_t& rng, double low, double high) {
  return low + (random_signed_unit(rng) + 1) / 2 * (high - low);
}

}  // namespace

TEST_SUITE("perception") {

TEST_CASE("sight index: the same sightings as the hash's in_cones") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const double side = seed % 3 == 0 ? 2000.0 : 120.0;  // the wide world has wider cells
    World world({{0, 0}, {side, side}});
    std::uint64_t rng = seed * 977;
    const int teams = seed % 4 == 0 ? 5 : 3;  // 5: more than the index takes, the hash answers
    for (int i = 0; i < 3000; ++i) {
      // A few outside the bounds (the index keeps them apart), some on cell edges.
      Vec2 p{uniform(rng, -10, side + 10), uniform(rng, -10, side + 10)};
      if (i % 7 == 0) p = {std::floor(p.x / 8) * 8, std::floor(p.y)};
      world.spawn(p, Vehicle{}, std::int32_t(splitmix64(rng) % teams));
    }
    SpatialHash hash(seed % 2 == 0 ? 4.0 : 8.0);
    hash.rebuild(world);
    SightIndex index;
    const std::vector<std::uint32_t> agent_of_slot(world.entities().size(), 1);  // every body an agent
    index.rebuild(hash, world.bounds(), agent_of_slot);
    std::vector<SpatialHash::Sighting> a, b;
    int answered = 0;
    for (int q = 0; q < 400; ++q) {
      const Entity& self = world.entities()[splitmix64(rng) % world.entities().size()];
      const double angle = uniform(rng, -std::numbers::pi, std::numbers::pi);
      Vec2 heading{std::cos(angle), std::sin(angle)};
      if (q % 50 == 0) heading = {1, 0};  // axis-aligned: the arc's bulge decides the box
      std::vector<SpatialHash::ViewCone> cones;
      const int count = 1 + int(splitmix64(rng) % 3);
      for (int c = 0; c < count; ++c)
        cones.push_back({uniform(rng, 0, 40), uniform(rng, 0.01, q % 10 == 0 ? 3.2 : 1.5)});
      if (q % 4 == 1) {
        // Knife edge: another body exactly on the first cone's edge (as near as rounding
        // allows), where the index's square-root-free test must defer to the hash's own.
        const Entity& other = world.entities()[splitmix64(rng) % world.entities().size()];
        const Vec2 to = other.position - self.position;
        const double edge = std::atan2(to.y, to.x) + (q % 8 == 1 ? 1 : -1) * cones[0].half_angle;
        heading = {std::cos(edge), std::sin(edge)};
        cones[0].range = std::max(cones[0].range, std::sqrt(to.length_squared()) + 1);
      }
      QueryFilter filter{self.id, q % 3 == 0   ? TeamFilter::all_but(self.team)
                                  : q % 3 == 1 ? TeamFilter::only(self.team)
                                               : TeamFilter::any()};
      const double radius = q % 5 == 0 ? 0.0 : uniform(rng, 0, 30);
      bool found = false;
      if (index.any_within(self.position, radius, filter, found))
        CHECK(found == hash.any_within(self.position, radius, filter));
      hash.in_cones(self.position, heading, cones, a, filter);
      if (!index.in_cones(self.position, heading, cones, b, filter, nullptr)) continue;
      ++answered;
      std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].id == b[i].id);
        CHECK(a[i].cone == b[i].cone);
        CHECK(a[i].position == b[i].position);
      }
    }
    if (teams == 5) CHECK(answered == 0);
    else CHECK(answered > 100);
  }
}

}  // TEST_SUITE

TEST_SUITE("perception") {

// The index's first pass drops bodies clearly outside every cone before the cone tests; it must
// never drop one the hash would report. Bodies on every cone's edges (as near as rounding
// allows, either side), within a hair of the eye (distances whose squares are subnormal or
// zero), at the range's end, for near-flat cones (half angles a hair under pi/2, cosines
// ~1e-16) and narrow ones: the same sightings as the hash, bit for bit.
TEST_CASE("sight index: the first pass drops nothing the cone tests would keep") {
  std::uint64_t rng = 20261130;
  int reported = 0, compared = 0, seen = 0;
  for (int round = 0; round < 60; ++round) {
    // Every other eye at the origin, where a body a hair away is a hair away (elsewhere its
    // position rounds to the eye's).
    World world({{-100, -100}, {100, 100}});
    const Vec2 eye = round % 2 == 0 ? Vec2{0, 0} : Vec2{uniform(rng, -40, 40), uniform(rng, -40, 40)};
    world.spawn(eye, Vehicle{}, 0);
    const double angle = uniform(rng, -std::numbers::pi, std::numbers::pi);
    const Vec2 heading{std::cos(angle), std::sin(angle)};
    std::vector<SpatialHash::ViewCone> cones;
    const int count = 1 + round % 3;
    for (int c = 0; c < count; ++c) {
      double half = round % 5 == 0 ? std::nextafter(std::numbers::pi / 2, 0.0) - c * 1e-15 : uniform(rng, 0.05, 1.5);
      cones.push_back({uniform(rng, 5, 50), half});
    }
    // Bodies on both edges of each cone, at random distances and at its range's end, nudged by a
    // few units in the last place; bodies a hair from the eye; bodies just past each range.
    for (const SpatialHash::ViewCone& cone : cones) {
      for (int side : {-1, 1}) {
        for (int k = 0; k < 12; ++k) {
          const double a = angle + side * cone.half_angle;
          const double d = k == 0 ? cone.range : uniform(rng, 0.001, cone.range);
          Vec2 p{eye.x + d * std::cos(a), eye.y + d * std::sin(a)};
          for (int nudge = 0; nudge < k % 4; ++nudge) p.x = std::nextafter(p.x, side > 0 ? 1e9 : -1e9);
          world.spawn(p, Vehicle{}, 1);
        }
      }
      // Near the edges and so near the eye that the squares are subnormal, where a product keeps
      // a few digits only (the first pass must leave these to the cone tests).
      if (eye == Vec2{0, 0})
        for (int k = 0; k < 300; ++k) {
          const double a = angle + (k % 2 ? 1 : -1) * cone.half_angle * (1 + uniform(rng, -1e-6, 1e-6));
          const double d = std::ldexp(uniform(rng, 1, 2), -520 - int(splitmix64(rng) % 16));
          world.spawn({d * std::cos(a), d * std::sin(a)}, Vehicle{}, 1);
        }
      const double past = std::nextafter(cone.range, 1e9);
      world.spawn({eye.x + past * heading.x, eye.y + past * heading.y}, Vehicle{}, 1);
      world.spawn({eye.x + cone.range * heading.x, eye.y + cone.range * heading.y}, Vehicle{}, 1);
    }
    for (double tiny : {0.0, 1e-320, 1e-200, 1e-160, 1e-110, 1e-101, 1e-99})
      for (int dir = 0; dir < 4; ++dir) {
        const double a = angle + dir * std::numbers::pi / 2 + 0.1;
        world.spawn({eye.x + tiny * std::cos(a), eye.y + tiny * std::sin(a)}, Vehicle{}, 1);
      }
    SpatialHash hash(8.0);
    hash.rebuild(world);
    SightIndex index;
    const std::vector<std::uint32_t> agent_of_slot(world.entities().size(), 1);
    index.rebuild(hash, world.bounds(), agent_of_slot);
    const QueryFilter filter{world.entities()[0].id, TeamFilter::any()};
    std::vector<SpatialHash::Sighting> a, b;
    hash.in_cones(eye, heading, cones, a, filter);
    if (!index.in_cones(eye, heading, cones, b, filter, nullptr)) continue;
    ++compared;
    seen += int(a.size());
    std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
    bool same = a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i)
      same = a[i].id == b[i].id && a[i].cone == b[i].cone && a[i].position == b[i].position;
    if (!same && reported++ < 3) FAIL_CHECK("round " << round << ": hash " << a.size() << " sightings, index " << b.size());
  }
  CHECK(reported == 0);
  CHECK(compared >= 50);
  CHECK(seen > 1000);
}

}  // TEST_SUITE
