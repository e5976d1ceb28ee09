// Neighbour queries: every query against brute force on thousands of random entities, the
// output contract (ascending ids, reused buffers), and cost that does not grow with population.
#include <doctest/doctest.h>

#include <limits>

#include <algorithm>
#include <numbers>

#include "thicket/world.hpp"
#include "sanitizer_sample.hpp"

using namespace thicket::world;

namespace {

// Uniform in [low, high) from the toolkit's own reproducible stream.
double uniform(std::uint64_t& rng, double low, double high) {
  return low + (random_signed_unit(rng) + 1) / 2 * (high - low);
}

// A world of `count` entities scattered over a square of side `side`, on four teams, with some
// despawned and respawned so handles carry generations and free slots sit among live ones.
World scattered_world(int count, double side, std::uint64_t seed) {
  World world({{0, 0}, {side, side}});
  std::uint64_t rng = seed;
  auto random_point = [&] { return Vec2{uniform(rng, 0, side), uniform(rng, 0, side)}; };
  for (int i = 0; i < count; ++i) {
    // The team is drawn before the point, in statements: as arguments of one call, the order of
    // the draws was the compiler's (gcc took the last argument first, clang the first), and the
    // two compilers tested different worlds.
    const auto team = static_cast<std::int32_t>(splitmix64(rng) % 4);
    const Vec2 point = random_point();
    world.spawn(point, Vehicle{}, team);
  }
  for (int i = 0; i < count / 10; ++i) world.despawn(EntityId::from(i * 7 % count, 0));
  for (int i = 0; i < count / 20; ++i) world.spawn(random_point(), Vehicle{}, i % 4);
  return world;
}

bool accepted(const QueryFilter& filter, const Entity& e) {
  return e.alive && e.id != filter.excluded && filter.teams.accepts(e.team);
}

std::vector<EntityId> brute_within(const World& world, Vec2 centre, double radius,
                                   const QueryFilter& filter) {
  std::vector<EntityId> ids;
  for (const Entity& e : world.entities()) {
    if (accepted(filter, e) && (e.position - centre).length_squared() <= radius * radius) {
      ids.push_back(e.id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<EntityId> brute_in_view(const World& world, Vec2 eye, Vec2 heading, double range,
                                    double half_angle, const QueryFilter& filter) {
  std::vector<EntityId> ids;
  if (!(range >= 0)) return ids;  // a negative range sees nothing (squared, it would see |range|)
  Vec2 forward = heading.normalized();
  for (const Entity& e : world.entities()) {
    if (!accepted(filter, e)) continue;
    Vec2 offset = e.position - eye;
    if (offset.length_squared() > range * range) continue;
    bool all_round = half_angle >= std::numbers::pi;
    if (!all_round && forward.dot(offset) < offset.length() * std::cos(half_angle)) continue;
    ids.push_back(e.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

EntityId brute_nearest(const World& world, Vec2 point, double radius, const QueryFilter& filter) {
  EntityId best = EntityId::none();
  double best_d = radius * radius;
  for (const Entity& e : world.entities()) {  // ascending slots: ties keep the lower id...
    if (!accepted(filter, e)) continue;
    double d = (e.position - point).length_squared();
    if (d < best_d || (d == best_d && e.id < best)) {  // ...except across generations
      best = e.id;
      best_d = d;
    }
  }
  return best;
}

QueryFilter random_filter(std::uint64_t& rng, const World& world) {
  QueryFilter filter;
  std::uint64_t pick = splitmix64(rng);
  if (pick % 3 == 1) filter.teams = TeamFilter::only(static_cast<std::int32_t>(pick / 3 % 4));
  if (pick % 3 == 2) filter.teams = TeamFilter::all_but(static_cast<std::int32_t>(pick / 3 % 4));
  if (pick / 12 % 2 == 0) filter.excluded = world.entities()[pick / 24 % world.entities().size()].id;
  return filter;
}

}  // namespace

TEST_CASE("world: radius queries match brute force on 3000 random entities") {
  World world = scattered_world(3000, 300, 1);
  SpatialHash hash(8);
  hash.rebuild(world);
  CHECK(hash.size() == world.live_count());
  std::uint64_t rng = 11;
  std::vector<EntityId> found;
  std::size_t total_found = 0;
  for (int q = 0; q < 400; ++q) {
    Vec2 centre{uniform(rng, -20, 320), uniform(rng, -20, 320)};
    double radius = uniform(rng, 0, 40);
    QueryFilter filter = random_filter(rng, world);
    hash.within_radius(centre, radius, found, filter);
    REQUIRE(found == brute_within(world, centre, radius, filter));
    total_found += found.size();
  }
  CHECK(total_found > 5000);  // the queries were not all empty
}

TEST_CASE("world: field-of-view queries match brute force on 3000 random entities") {
  World world = scattered_world(3000, 300, 2);
  std::uint64_t rng = 12;
  std::vector<EntityId> seen;
  std::size_t total_seen = 0;
  // Small cells too: narrow cones then skip most of the cells around the eye.
  for (int q = 0; q < 600; ++q) {
    SpatialHash hash(q < 400 ? 10 : 1.5);
    hash.rebuild(world);
    Vec2 eye{uniform(rng, 0, 300), uniform(rng, 0, 300)};
    Vec2 heading{uniform(rng, -1, 1), uniform(rng, -1, 1)};
    double range = uniform(rng, 0, 40);
    double half_angle = uniform(rng, 0, std::numbers::pi + 0.5);
    QueryFilter filter = random_filter(rng, world);
    hash.in_field_of_view(eye, heading, range, half_angle, seen, filter);
    REQUIRE(seen == brute_in_view(world, eye, heading, range, half_angle, filter));
    total_seen += seen.size();
  }
  CHECK(total_seen > 2000);
}

TEST_CASE("world: several cones in one walk match brute force, first cone first") {
  World world = scattered_world(3000, 300, 5);
  std::uint64_t rng = 21;
  std::size_t total_seen = 0;
  for (double cell : {1.0, 3.0, 10.0, 40.0}) {
    SpatialHash hash(cell);
    hash.rebuild(world);
    std::vector<SpatialHash::Sighting> seen;
    for (int q = 0; q < 150; ++q) {
      Vec2 eye{uniform(rng, -20, 320), uniform(rng, -20, 320)};
      Vec2 heading{uniform(rng, -1, 1), uniform(rng, -1, 1)};
      std::vector<SpatialHash::ViewCone> cones;
      int count = 1 + int(splitmix64(rng) % 3);
      for (int c = 0; c < count; ++c)  // narrow and far, wide and near, all round, nothing
        cones.push_back({uniform(rng, -2, 45), uniform(rng, -0.3, std::numbers::pi + 0.3)});
      QueryFilter filter = random_filter(rng, world);
      hash.in_cones(eye, heading, cones, seen, filter);
      // Expected: each cone's brute-force view, the first cone that holds an entity kept.
      std::vector<std::pair<EntityId, std::uint32_t>> expected;
      for (std::uint32_t c = 0; c < cones.size(); ++c)
        for (EntityId id : brute_in_view(world, eye, heading, cones[c].range, cones[c].half_angle, filter))
          if (std::none_of(expected.begin(), expected.end(), [&](auto& e) { return e.first == id; }))
            expected.push_back({id, c});
      std::sort(expected.begin(), expected.end());
      REQUIRE(seen.size() == expected.size());
      for (std::size_t i = 0; i < seen.size(); ++i) {
        CHECK(seen[i].id == expected[i].first);
        CHECK(seen[i].cone == expected[i].second);
        CHECK(seen[i].position == world.entity(seen[i].id)->position);
      }
      total_seen += seen.size();
    }
  }
  CHECK(total_seen > 2000);
}

TEST_CASE("world: nearest-of-team queries match brute force on 3000 random entities") {
  World world = scattered_world(3000, 300, 3);
  SpatialHash hash(6);
  hash.rebuild(world);
  std::uint64_t rng = 13;
  int hits = 0;
  for (int q = 0; q < 600; ++q) {
    Vec2 point{uniform(rng, -10, 310), uniform(rng, -10, 310)};
    double radius = uniform(rng, 0, 30);
    QueryFilter filter = random_filter(rng, world);
    EntityId got = hash.nearest(point, radius, filter);
    REQUIRE(got.bits == brute_nearest(world, point, radius, filter).bits);
    hits += got.is_none() ? 0 : 1;
  }
  CHECK(hits > 300);
  CHECK(hits < 600);  // and some found nothing in range
}

TEST_CASE("world: nearest with a wide radius matches brute force, read ring by ring, not the whole box") {
  // A wide radius is searched ring by ring out from the point's cell and stops once a ring
  // lies farther than the nearest found (the whole box read 2,601 cells for "within 100 m"
  // with the answer 3 m away); past as many cells as entries it reads every entry. Points
  // inside and outside the world, radii from a few cells to 1e6 and infinity, teams rare
  // and common, ties: the answer is brute force's every time.
  for (const int count : {40, 3000}) {
    CAPTURE(count);
    World world = scattered_world(count, 300, 21);
    // Ties: four at one distance from (150, 150), and the point itself among the queries.
    for (const Vec2 at : {Vec2{153, 150}, Vec2{147, 150}, Vec2{150, 153}, Vec2{150, 147}}) world.spawn(at, Vehicle{}, 2);
    world.spawn({150, 150}, Vehicle{}, 7);  // a team of one
    SpatialHash hash(4);
    hash.rebuild(world);
    std::uint64_t rng = 31;
    int found = 0;
    for (int q = 0; q < 1500; ++q) {
      Vec2 point = q % 10 == 0 ? Vec2{150, 150} : Vec2{uniform(rng, -60, 360), uniform(rng, -60, 360)};
      const double radii[] = {uniform(rng, 8, 40), uniform(rng, 40, 200), 1e6, std::numeric_limits<double>::infinity()};
      const double radius = radii[q % 4];
      QueryFilter filter = random_filter(rng, world);
      if (q % 7 == 3) filter.teams = TeamFilter::only(7);  // one entity to find, maybe far
      const EntityId got = hash.nearest(point, radius, filter);
      REQUIRE(got.bits == brute_nearest(world, point, radius, filter).bits);
      found += got.is_none() ? 0 : 1;
    }
    CHECK(found > 1000);
  }
  // Read ring by ring: the answer one cell away costs a few rings, whatever the radius.
  World world = scattered_world(20000, 700, 5);
  SpatialHash hash(4);
  hash.rebuild(world);
  for (const double radius : {100.0, 1e6}) {
    QueryCost cost;
    std::uint64_t rng = 8;
    for (int q = 0; q < 200; ++q) hash.nearest({uniform(rng, 100, 600), uniform(rng, 100, 600)}, radius, {}, &cost);
    CAPTURE(radius);
    CHECK(cost.cells / 200.0 < 60);     // was 2,601 cells a query at 100 m
    CHECK(cost.entries / 200.0 < 300);  // was every entry (20,000) at 1e6
  }
}

TEST_CASE("world: the field of view is a cone around the heading") {
  World world({{-10, -10}, {10, 10}});
  EntityId ahead = world.spawn({3, 0}, Vehicle{});
  EntityId at_40 = world.spawn({3 * std::cos(0.7), 3 * std::sin(0.7)}, Vehicle{});
  EntityId beside = world.spawn({0, 3}, Vehicle{});
  EntityId behind = world.spawn({-3, 0}, Vehicle{});
  EntityId on_eye = world.spawn({0, 0}, Vehicle{});
  world.spawn({9, 0}, Vehicle{});  // out of range
  SpatialHash hash(2);
  hash.rebuild(world);
  std::vector<EntityId> seen;
  hash.in_field_of_view({0, 0}, {2, 0}, 5, 0.75, seen);
  CHECK(seen == std::vector<EntityId>{ahead, at_40, on_eye});
  hash.in_field_of_view({0, 0}, {1, 0}, 5, std::numbers::pi / 2 + 0.01, seen);
  CHECK(seen == std::vector<EntityId>{ahead, at_40, beside, on_eye});
  hash.in_field_of_view({0, 0}, {1, 0}, 5, std::numbers::pi, seen);
  CHECK(seen == std::vector<EntityId>{ahead, at_40, beside, behind, on_eye});
  hash.in_field_of_view({0, 0}, {1, 0}, 5, 0.75, seen, {.excluded = on_eye});
  CHECK(seen == std::vector<EntityId>{ahead, at_40});
}

TEST_CASE("world: any_within says whether nearest finds something") {
  World world = scattered_world(3000, 300, 4);
  std::uint64_t rng = 31;
  int found = 0;
  for (double cell : {2.0, 8.0}) {
    SpatialHash hash(cell);
    hash.rebuild(world);
    for (int q = 0; q < 400; ++q) {
      Vec2 point{uniform(rng, -10, 310), uniform(rng, -10, 310)};
      double radius = uniform(rng, -1, 12);
      QueryFilter filter = random_filter(rng, world);
      bool any = hash.any_within(point, radius, filter);
      REQUIRE(any == !hash.nearest(point, radius, filter).is_none());
      found += any;
    }
  }
  CHECK(found > 100);
  CHECK(found < 700);
}

TEST_CASE("world: nearest breaks ties by the lower id and honours the team filter") {
  World world({{-10, -10}, {10, 10}});
  EntityId me = world.spawn({0, 0}, Vehicle{}, 0);
  EntityId friend_near = world.spawn({1, 0}, Vehicle{}, 0);
  EntityId enemy_west = world.spawn({-2, 0}, Vehicle{}, 1);
  EntityId enemy_east = world.spawn({2, 0}, Vehicle{}, 2);
  SpatialHash hash(1.5);
  hash.rebuild(world);
  CHECK(hash.nearest({0, 0}, 5) == me);
  CHECK(hash.nearest({0, 0}, 5, {.excluded = me}) == friend_near);
  QueryFilter enemies{.excluded = me, .teams = TeamFilter::all_but(0)};
  CHECK(hash.nearest({0, 0}, 5, enemies) == enemy_west);  // same distance: lower id
  CHECK(hash.nearest({0, 0}, 5, {.teams = TeamFilter::only(2)}) == enemy_east);
  CHECK(hash.nearest({0, 0}, 2, enemies) == enemy_west);      // the radius is inclusive
  CHECK(hash.nearest({0, 0}, 1.99, enemies).is_none());
  CHECK(hash.nearest({0, 0}, -1).is_none());
}

TEST_CASE("world: queries answer from the last rebuild, and an empty hash finds nothing") {
  World world({{0, 0}, {100, 100}});
  SpatialHash hash(5);
  std::vector<EntityId> found{EntityId::from(3, 0)};
  hash.within_radius({0, 0}, 10, found);  // never rebuilt
  CHECK(found.empty());
  hash.rebuild(world);                    // empty world
  CHECK(hash.nearest({0, 0}, 1e9).is_none());

  EntityId a = world.spawn({10, 10}, Vehicle{});
  hash.rebuild(world);
  world.entity(a)->position = {90, 90};   // moves after the rebuild: the hash still sees (10, 10)
  hash.within_radius({10, 10}, 1, found);
  CHECK(found == std::vector<EntityId>{a});
  hash.rebuild(world);
  hash.within_radius({10, 10}, 1, found);
  CHECK(found.empty());
}

TEST_CASE("world: far-off positions and huge or odd radii stay correct") {
  World world({{0, 0}, {10, 10}});
  EntityId far = world.spawn({1e12, -1e12}, Vehicle{});  // spawned outside the bounds
  EntityId home = world.spawn({5, 5}, Vehicle{});
  SpatialHash hash(1);
  hash.rebuild(world);
  std::vector<EntityId> found;
  hash.within_radius({1e12, -1e12}, 1, found);
  CHECK(found == std::vector<EntityId>{far});
  hash.within_radius({0, 0}, std::numeric_limits<double>::infinity(), found);
  CHECK(found == std::vector<EntityId>{far, home});
  hash.within_radius({0, 0}, std::nan(""), found);
  CHECK(found.empty());
  hash.within_radius({5, 5}, 0, found);  // radius 0 still finds what sits exactly there
  CHECK(found == std::vector<EntityId>{home});
}

TEST_CASE("world: a query wider than the population scans each entity once") {
  World world = scattered_world(500, 100, 4);
  SpatialHash hash(1);
  hash.rebuild(world);
  QueryCost cost;
  std::vector<EntityId> found;
  hash.within_radius({50, 50}, 1000, found, {}, &cost);
  CHECK(found.size() == world.live_count());
  CHECK(cost.cells == 0);
  CHECK(cost.entries == world.live_count());
}

TEST_CASE("world: result buffers are reused, not reallocated, in steady state") {
  World world = scattered_world(2000, 200, 5);
  SpatialHash hash(8);
  hash.rebuild(world);
  std::vector<EntityId> found;
  found.reserve(4096);
  const EntityId* storage = found.data();
  std::uint64_t rng = 77;
  for (int q = 0; q < 100; ++q) {
    hash.within_radius({uniform(rng, 0, 200), uniform(rng, 0, 200)}, 20, found);
    hash.in_field_of_view({uniform(rng, 0, 200), uniform(rng, 0, 200)}, {1, 1}, 20, 1, found);
  }
  CHECK(found.data() == storage);
  CHECK(found.capacity() == 4096);
}

TEST_CASE("world: the cost of a query does not grow with the population at fixed density") {
  // One entity per 4 m², cell 4 m, query radius 4 m, at 1k, 4k and 16k entities.
  double per_query_entries[3];
  double per_query_cells[3];
  const int populations[] = {1000, 4000, 16000};
  for (int p = 0; p < 3; ++p) {
    int count = populations[p];
    double side = std::sqrt(count * 4.0);
    World world = scattered_world(count, side, 100 + p);
    SpatialHash hash(4);
    hash.rebuild(world);
    QueryCost cost;
    std::vector<EntityId> found;
    std::uint64_t rng = 200;
    const int queries = 500;
    for (int q = 0; q < queries; ++q) {
      Vec2 point{uniform(rng, 0, side), uniform(rng, 0, side)};
      hash.within_radius(point, 4, found, {}, &cost);
      hash.in_field_of_view(point, {1, 0}, 4, 1, found, {}, &cost);
      hash.nearest(point, 4, {}, &cost);
    }
    per_query_entries[p] = static_cast<double>(cost.entries) / (3 * queries);
    per_query_cells[p] = static_cast<double>(cost.cells) / (3 * queries);
  }
  for (int p = 0; p < 3; ++p) {
    INFO("population " << populations[p] << ": " << per_query_entries[p] << " entries, "
                       << per_query_cells[p] << " cells per query");
    CHECK(per_query_cells[p] <= 9);         // a 4 m radius spans at most 3 × 3 cells of 4 m
    CHECK(per_query_entries[p] < 60);       // ~ the entities in 9 cells, not the population
    CHECK(per_query_entries[p] < 1.25 * per_query_entries[0]);
  }
}

TEST_CASE("world: rebuilding the same world gives the same answers") {
  World world = scattered_world(1500, 150, 6);
  SpatialHash first(5), second(5);
  first.rebuild(world);
  second.rebuild(world);
  second.rebuild(world);  // rebuilding reuses storage and changes nothing
  std::vector<EntityId> a, b;
  std::uint64_t rng = 3;
  for (int q = 0; q < 100; ++q) {
    Vec2 point{uniform(rng, 0, 150), uniform(rng, 0, 150)};
    first.within_radius(point, 12, a);
    second.within_radius(point, 12, b);
    REQUIRE(a == b);
    REQUIRE(std::is_sorted(a.begin(), a.end()));
    REQUIRE(first.nearest(point, 12).bits == second.nearest(point, 12).bits);
  }
}

// Per-team cells: with up to 8 teams, a bucket's entries are grouped by team, and a query for
// one team (or all but one) reads only the accepted groups. Answers stay brute force's; the
// cost shows which entries were read.
TEST_CASE("world: team-filtered queries read only the accepted teams' entries, answers unchanged") {
  for (std::int32_t team_kinds : {1, 2, 3, 8, 9}) {
    CAPTURE(team_kinds);
    // Odd team values (negative, far apart) and one crowded team, as minions at their posts.
    auto team_value = [&](std::uint64_t k) { return static_cast<std::int32_t>(k % std::uint64_t(team_kinds)) * 37 - 40; };
    World world({{0, 0}, {200, 200}});
    std::uint64_t rng = 100 + std::uint64_t(team_kinds);
    for (int i = 0; i < 2500; ++i) {
      const std::uint64_t pick = splitmix64(rng);
      const bool crowd = pick % 2 == 0;  // half of them in a 20 m square, all of team 0
      Vec2 p = crowd ? Vec2{uniform(rng, 90, 110), uniform(rng, 90, 110)} : Vec2{uniform(rng, 0, 200), uniform(rng, 0, 200)};
      world.spawn(p, Vehicle{}, crowd ? team_value(0) : team_value(pick / 2));
    }
    for (int i = 0; i < 200; ++i) world.despawn(EntityId::from(std::uint32_t(i * 11), 0));
    SpatialHash hash(4);
    hash.rebuild(world);
    std::vector<EntityId> found;
    std::vector<SpatialHash::Sighting> seen;
    const SpatialHash::ViewCone cones[] = {{9, 0.6}, {4, 2.0}};
    for (int q = 0; q < sanitizer_sample(300); ++q) {
      Vec2 point{uniform(rng, 60, 140), uniform(rng, 60, 140)};
      Vec2 heading{uniform(rng, -1, 1), uniform(rng, -1, 1)};
      double radius = uniform(rng, 0, 12);
      const std::int32_t team = q % 7 == 6 ? 999 : team_value(splitmix64(rng));  // 999: nobody's
      QueryCost any_cost, only_cost, but_cost;
      for (TeamFilter teams : {TeamFilter::any(), TeamFilter::only(team), TeamFilter::all_but(team)}) {
        QueryFilter filter{.excluded = EntityId::none(), .teams = teams};
        QueryCost& cost = teams.mode == TeamFilter::Mode::Any ? any_cost : teams.mode == TeamFilter::Mode::Only ? only_cost : but_cost;
        hash.within_radius(point, radius, found, filter, &cost);
        REQUIRE(found == brute_within(world, point, radius, filter));
        // (nearest stops at the ring past the nearest it found, which depends on the filter:
        // its cells are not among those compared below.)
        REQUIRE(hash.nearest(point, radius, filter).bits == brute_nearest(world, point, radius, filter).bits);
        REQUIRE(hash.any_within(point, radius, filter) == !brute_within(world, point, radius, filter).empty());
        hash.in_field_of_view(point, heading, radius, 0.7, found, filter, &cost);
        REQUIRE(found == brute_in_view(world, point, heading, radius, 0.7, filter));
        hash.in_cones(point, heading, cones, seen, filter, &cost);
        std::vector<EntityId> expected = brute_in_view(world, point, heading, 9, 0.6, filter);
        for (EntityId id : brute_in_view(world, point, heading, 4, 2.0, filter)) expected.push_back(id);
        std::sort(expected.begin(), expected.end());
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        REQUIRE(seen.size() == expected.size());
        for (std::size_t i = 0; i < seen.size(); ++i) REQUIRE(seen[i].id == expected[i]);
      }
      CHECK(only_cost.cells == any_cost.cells);
      CHECK(but_cost.cells == any_cost.cells);
      if (team_kinds >= 2 && team_kinds <= 8) {
        // Grouped: one team's entries and the others' split what an unfiltered query reads.
        CHECK(only_cost.entries + but_cost.entries == any_cost.entries);
        if (team == 999) CHECK(only_cost.entries == 0);
      } else {  // one team, or too many to group: every filter reads every entry of its cells
        CHECK(only_cost.entries == any_cost.entries);
        CHECK(but_cost.entries == any_cost.entries);
      }
    }
  }
}
