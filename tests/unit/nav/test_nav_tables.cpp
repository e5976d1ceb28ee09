// The tables searches derive from a grid map (grid_tables.*) are built once per version of the
// map and shared by every GridSearch, on any thread: a scenario's sliced searches must not each
// pay ~25 MB and ~0.3 s for a 512 x 512 map.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "nav/grid_tables.hpp"
#include "nav_fixture.hpp"
#include "thicket/nav.hpp"

using namespace thicket;
using namespace thicket::nav;

TEST_CASE("nav tables: one set per map version, shared by searches, rebuilt after an edit") {
  GridMap map(64, 48);
  for (int y = 5; y < 40; ++y) map.set_passable({30, y}, false);
  const TableNeeds all{.distances = true, .components = true, .landmarks = true};
  auto first = tables_for(map, all);
  CHECK(tables_for(map, all) == first);
  CHECK(tables_for(map, {}) == first);  // less than it has: the same tables
  GridMap copy = map;
  CHECK(tables_for(copy, all) == first);  // a copy shares them while it is the same

  GridSearch a, b;
  REQUIRE(a.find(map, {1, 1}, {60, 46}) == SearchState::Found);
  REQUIRE(b.find(map, {2, 1}, {61, 46}) == SearchState::Found);
  CHECK(tables_for(map, all) == first);  // the searches built nothing of their own

  map.set_passable({30, 2}, false);
  auto second = tables_for(map, all);
  CHECK(second != first);
  CHECK(second->stamp == map.stamp());
  REQUIRE(a.find(map, {1, 1}, {60, 46}) == SearchState::Found);
  // The search read the edited map: its path keeps off the newly blocked cell and is as long
  // as a search finds on a map built with that cell blocked from the start.
  for (Cell c : a.path()) CHECK_FALSE(c == Cell{30, 2});
  GridMap fresh(64, 48);
  for (int y = 5; y < 40; ++y) fresh.set_passable({30, y}, false);
  fresh.set_passable({30, 2}, false);
  GridSearch b2;
  REQUIRE(b2.find(fresh, {1, 1}, {60, 46}) == SearchState::Found);
  CHECK(a.length() == doctest::Approx(b2.length()).epsilon(1e-12));
}

TEST_CASE("nav tables: more wanted of the same version builds the union; landmarks bring components") {
  GridMap map(10, 10);
  auto c = tables_for(map, {.components = true});
  CHECK(c->has.components);
  CHECK_FALSE(c->has.distances);
  auto d = tables_for(map, {.distances = true});
  CHECK(d != c);
  CHECK(d->has.distances);
  CHECK(d->has.components);  // kept: a search of either kind now fits
  CHECK(tables_for(map, {.components = true}) == d);
  CHECK(d->components.count() == 1);
  GridMap other(10, 10);
  auto l = tables_for(other, {.landmarks = true});
  CHECK(l->has.components);  // the landmarks are placed by component
  CHECK(l->components.count() == 1);
}

TEST_CASE("nav tables: a map without a cache still searches (with tables of its own)") {
  GridMap empty;
  auto t = tables_for(empty, {.distances = true, .components = true, .landmarks = true});
  CHECK(t != nullptr);
  CHECK(tables_for(empty, {.components = true}) != t);
}

TEST_CASE("nav tables: searches on two threads share one map and find what one thread finds") {
  auto [map, scen] = nav_fixture::movingai("AR0500SR");
  std::vector<double> alone;
  GridSearch one;
  for (const auto& e : *scen) {
    one.find(*map, e.start, e.goal);
    alone.push_back(one.length());
  }
  // A map loaded again has a cache of its own, empty: the two threads race to build its tables.
  auto fresh = nav_fixture::movingai("AR0500SR").map;
  std::vector<double> together[2];
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t, scenarios = scen] {  // a copy: clang 14 cannot capture a structured binding
      GridSearch s;  // its first search may build the tables, or wait for the other's build
      for (const auto& e : *scenarios) {
        s.find(*fresh, e.start, e.goal);
        together[t].push_back(s.length());
      }
    });
  for (auto& th : threads) th.join();
  CHECK(together[0] == alone);
  CHECK(together[1] == alone);
}

TEST_CASE("nav tables: blocked-cell counts answer a box as the blocks over it, against counting") {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    // Sizes that are not multiples of the block; sparse blocks, so that some blocks stay open.
    const std::int32_t w = 37 + std::int32_t(seed * 7), h = 29 + std::int32_t(seed * 5);
    GridMap map = nav_fixture::random_map(w, h, 1, seed);
    auto tables = tables_for(map, {});
    const BlockedCounts& counts = tables->blocked;
    REQUIRE(counts.built());
    std::mt19937 rng(seed);
    int open = 0;
    for (int i = 0; i < 2000; ++i) {
      std::int32_t x0 = std::int32_t(rng() % std::uint32_t(w)), x1 = std::int32_t(rng() % std::uint32_t(w));
      std::int32_t y0 = std::int32_t(rng() % std::uint32_t(h)), y1 = std::int32_t(rng() % std::uint32_t(h));
      if (i % 2) x1 = std::min(w - 1, x0 + std::int32_t(rng() % 9)), y1 = std::min(h - 1, y0 + std::int32_t(rng() % 9));
      if (x0 > x1) std::swap(x0, x1);
      if (y0 > y1) std::swap(y0, y1);
      // The blocks over the box: cells [x0 & ~7, (x1 | 7)] clipped to the map.
      bool any_blocked = false;
      for (std::int32_t y = y0 & ~7; y <= std::min(h - 1, y1 | 7); ++y)
        for (std::int32_t x = x0 & ~7; x <= std::min(w - 1, x1 | 7); ++x) any_blocked = any_blocked || !map.passable({x, y});
      CHECK(counts.box_clear(x0, y0, x1, y1) == !any_blocked);
      open += !any_blocked;
    }
    CHECK(open > 100);
  }
  GridMap walled = nav_fixture::random_map(64, 64, 30, 9);
  CHECK_FALSE(tables_for(walled, {})->blocked.any_open());
  GridMap open_map(64, 64);
  CHECK(tables_for(open_map, {})->blocked.any_open());
}
