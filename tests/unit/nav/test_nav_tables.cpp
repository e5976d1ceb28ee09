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
  auto first = tables_for(map, /*distances=*/true, /*landmarks=*/true);
  CHECK(tables_for(map, true, true) == first);
  CHECK(tables_for(map, false, false) == first);  // less than it has: the same tables
  GridMap copy = map;
  CHECK(tables_for(copy, true, true) == first);  // a copy shares them while it is the same

  GridSearch a, b;
  REQUIRE(a.find(map, {1, 1}, {60, 46}) == SearchState::Found);
  REQUIRE(b.find(map, {2, 1}, {61, 46}) == SearchState::Found);
  CHECK(tables_for(map, true, true) == first);  // the searches built nothing of their own

  map.set_passable({30, 2}, false);
  auto second = tables_for(map, true, true);
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

TEST_CASE("nav tables: a map without a cache still searches (with tables of its own)") {
  GridMap empty;
  auto t = tables_for(empty, true, true);
  CHECK(t != nullptr);
  CHECK(tables_for(empty, true, true) != t);
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
