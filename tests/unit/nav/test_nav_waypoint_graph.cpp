// Waypoint graphs: automatic and hand-made links, and paths over them.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "nav_fixture.hpp"
#include "thicket/nav.hpp"

using namespace thicket::nav;
using thicket::world::Obstacle;

namespace {

bool has_edge(const WaypointGraph& g, std::uint32_t a, std::uint32_t b) {
  for (const auto& e : g.edges_of(a))
    if (e.to == b) return true;
  return false;
}

// Two rooms side by side, split by a thin wall at x = 5 with a door at 4 < y < 6.
std::vector<Obstacle> two_rooms() {
  return {Obstacle::box({4.9, 0}, {5.1, 4}), Obstacle::box({4.9, 6}, {5.1, 10})};
}

}  // namespace

TEST_SUITE("nav_waypoint_graph") {

TEST_CASE("two rooms and a door: the path goes through the door") {
  auto obstacles = two_rooms();
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{2, 2}, {2, 8}, {5, 5}, {8, 2}, {8, 8}});
  graph.connect(walls);
  CHECK(has_edge(graph, 0, 2));
  CHECK(has_edge(graph, 2, 3));
  CHECK(has_edge(graph, 0, 1));
  CHECK_FALSE(has_edge(graph, 0, 3));  // through the wall
  CHECK_FALSE(has_edge(graph, 1, 4));
  CHECK(has_edge(graph, 3, 0) == has_edge(graph, 0, 3));  // both directions

  std::vector<Vec2> out;
  double length = 0;
  // The start sees the door's waypoint through the door, and so does the goal: the graph is
  // joined there, not at the nearest waypoints (2, 2) and (8, 2).
  REQUIRE(graph.find_path(walls, {1, 2}, {9, 3}, out, &length));
  REQUIRE(out.size() == 3);
  CHECK(out[0] == Vec2{1, 2});
  CHECK(out[1] == Vec2{5, 5});
  CHECK(out[2] == Vec2{9, 3});
  CHECK(length == doctest::Approx(5 + std::sqrt(20.0)));
  for (std::size_t i = 1; i < out.size(); ++i) CHECK(walls.clear(out[i - 1], out[i]));
}

TEST_CASE("a start that sees the goal goes straight there") {
  auto obstacles = two_rooms();
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{2, 2}, {5, 5}});
  graph.connect(walls);
  std::vector<Vec2> out;
  double length = 0;
  REQUIRE(graph.find_path(walls, {1, 1}, {3, 9}, out, &length));
  REQUIRE(out.size() == 2);
  CHECK(out[1] == Vec2{3, 9});
  CHECK(length == doctest::Approx(std::sqrt(68.0)));
}

TEST_CASE("hand-made edges are taken as given, in both directions") {
  // A wall between x 4 and 6 from y -2 to 8; waypoints at the corners of a 10 m square.
  const Obstacle obstacles[] = {Obstacle::box({4, -2}, {6, 8})};
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{0, 0}, {10, 0}, {10, 10}, {0, 10}});
  graph.add_edge(0, 3);
  graph.add_edge(2, 3);
  graph.add_edge(1, 2);
  graph.add_edge(2, 1);  // a repeat links nothing new
  CHECK(graph.edges_of(1).size() == 1);
  std::vector<Vec2> out;
  double length = 0;
  // Round the wall: the start sees (0, 10) as well as (0, 0), and the goal sees (10, 10).
  REQUIRE(graph.find_path(walls, {1, 0}, {9, 0}, out, &length));
  CHECK(out.size() == 4);
  CHECK(length == doctest::Approx(2 * std::sqrt(101.0) + 10));
  // A hand-made link is trusted even through the wall: the designer knows of a door.
  graph.add_edge(0, 1);
  REQUIRE(graph.find_path(walls, {1, 0}, {9, 0}, out, &length));
  CHECK(out.size() == 4);
  CHECK(length == doctest::Approx(12));
}

TEST_CASE("no way: a split graph, a start inside an obstacle, no waypoint in sight") {
  const Obstacle obstacles[] = {Obstacle::box({4, -2}, {6, 8})};
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{0, 0}, {10, 0}, {10, 10}, {0, 10}});
  graph.add_edge(0, 3);  // the right side is not linked to the left
  std::vector<Vec2> out{{1, 2}};
  CHECK_FALSE(graph.find_path(walls, {1, 0}, {9, 0}, out));
  CHECK(out.empty());
  graph.add_edge(3, 2);
  graph.add_edge(2, 1);
  CHECK(graph.find_path(walls, {1, 0}, {9, 0}, out));
  CHECK_FALSE(graph.find_path(walls, {5, 0}, {9, 0}, out));  // starts inside the wall
  WaypointGraph empty;
  CHECK_FALSE(empty.find_path(walls, {1, 0}, {9, 0}, out));
}

TEST_CASE("connect with a maximum length links only the near pairs") {
  Walls walls;
  WaypointGraph graph({{0, 0}, {3, 0}, {6, 0}, {20, 0}});
  graph.connect(walls, 5);
  CHECK(has_edge(graph, 0, 1));
  CHECK(has_edge(graph, 1, 2));
  CHECK_FALSE(has_edge(graph, 0, 2));
  CHECK(graph.edges_of(3).empty());
  WaypointGraph all({{0, 0}, {3, 0}, {6, 0}, {20, 0}});
  all.connect(walls);
  for (std::uint32_t i = 0; i < 4; ++i) CHECK(all.edges_of(i).size() == 3);
}

TEST_CASE("start and goal joining at the same waypoint") {
  const Obstacle obstacles[] = {Obstacle::box({-1, 1}, {1, 3})};
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{3, 2}});
  std::vector<Vec2> out;
  double length = 0;
  REQUIRE(graph.find_path(walls, {0, 0}, {0, 4}, out, &length));
  REQUIRE(out.size() == 3);
  CHECK(out[1] == Vec2{3, 2});
  CHECK(length == doctest::Approx(2 * std::sqrt(13.0)));
}

TEST_CASE("start and goal join the graph at every waypoint they see, not the nearest alone") {
  // Guide 12.4's world with two walls: the goal's nearest waypoint (3) has no link, and the
  // start's nearest (0) is the long way round to the goal below.
  const Obstacle obstacles[] = {Obstacle::box({20, 0}, {22, 30}), Obstacle::box({40, 10}, {42, 40})};
  Walls walls(obstacles, nullptr);
  WaypointGraph graph({{10, 35}, {30, 35}, {50, 5}, {55, 38}});
  graph.add_edge(0, 1);
  graph.add_edge(1, 2);
  std::vector<Vec2> out;
  double length = 0;
  REQUIRE(graph.find_path(walls, {5, 5}, {55, 30}, out, &length));  // waypoint 3 alone said "no way"
  REQUIRE(out.size() == 5);
  CHECK(out[3] == Vec2{50, 5});
  // (30, 35) sees (30, 5): leaving the graph there beats going on to (50, 5).
  REQUIRE(graph.find_path(walls, {5, 5}, {30, 5}, out, &length));
  REQUIRE(out.size() == 4);
  CHECK(out[2] == Vec2{30, 35});
  CHECK(length == doctest::Approx(std::hypot(5.0, 30.0) + 20 + 30));
}

}  // TEST_SUITE

TEST_SUITE("nav_waypoint_graph") {

TEST_CASE("a waypoint graph over a Moving AI map: every leg clear, never shorter than the crow flies") {
  auto [map, scen] = nav_fixture::movingai("arena");
  // A lattice of waypoints on the free cells, every 4 cells, linked up to 12 cells apart.
  std::vector<Vec2> points;
  for (int y = 1; y < map->height(); y += 4)
    for (int x = 1; x < map->width(); x += 4)
      if (map->passable({x, y})) points.push_back(map->centre_of({x, y}));
  Walls walls({}, &*map);
  WaypointGraph graph(points);
  graph.connect(walls, 12);
  int found = 0;
  std::vector<Vec2> out;
  for (const ScenarioEntry& e : *scen) {
    Vec2 from = map->centre_of(e.start), to = map->centre_of(e.goal);
    double length = 0;
    if (!graph.find_path(walls, from, to, out, &length)) continue;
    ++found;
    CHECK(out.front() == from);
    CHECK(out.back() == to);
    CHECK(length >= distance(from, to) - 1e-9);
    for (std::size_t i = 1; i < out.size(); ++i) CHECK(walls.clear(out[i - 1], out[i]));
  }
  CHECK(found * 10 >= int(scen->size()) * 9);  // the lattice reaches nearly everywhere
}

}  // TEST_SUITE
