// Tests for the navigation keys of scenario files (issue 12): grid maps, terrain, danger zones,
// waypoints, navmeshes and polygon obstacles; and for their schema.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "scenario.hpp"
#include "scenario_fixture.hpp"
#include "schema.hpp"

namespace {

namespace fs = std::filesystem;
using thicket::Diagnostic;
using thicket::ScenarioSpec;
using thicket::world::ObstacleShape;
using thicket::world::Vec2;

// A directory with a brain file, a small map (scenario_fixture::kRoomMap) and a broken one.
const scenario_fixture::Dir& fixture() {
  static const scenario_fixture::Dir dir("thicket_test_scenario_nav",
                                         {{"brain.yaml", scenario_fixture::kIdleBrain},
                                          {"room.map", scenario_fixture::kRoomMap},
                                          {"bad.map", "type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n"}},
                                         "nav.yaml");
  return dir;
}
std::optional<ScenarioSpec> load(const std::string& text, std::vector<Diagnostic>& diags) { return fixture().load(text, diags); }
std::string errors_of(const std::string& text) { return fixture().errors_of(text); }

std::string scenario(const std::string& world, const std::string& spawn = "{centre: [1.5, 1.5], radius: 0.2}") {
  return "scenario: s\nworld: " + world + "\nteams: [a]\ngroups:\n  - {name: g, team: a, brain: brain.yaml, spawn: " + spawn + "}\n";
}

}  // namespace

TEST_CASE("scenario nav: a grid map sets the world's bounds, placed by cell and origin") {
  std::vector<Diagnostic> diags;
  auto spec = load(scenario("{map: room.map, cell: 2, origin: [10, 20]}", "{centre: [13, 23], radius: 0.5}"), diags);
  REQUIRE_MESSAGE(spec.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  REQUIRE(spec->nav.map);
  CHECK(spec->nav.map->width() == 6);
  CHECK(spec->nav.map->height() == 5);
  CHECK(spec->bounds.min == Vec2{10, 20});
  CHECK(spec->bounds.max == Vec2{22, 30});
  CHECK(spec->nav.map->cell_at({13, 23}) == thicket::nav::Cell{1, 1});
}

TEST_CASE("scenario nav: terrain makes symbols dear, passable or blocked") {
  std::vector<Diagnostic> diags;
  auto spec = load(scenario("{map: room.map, terrain: {T: 4, '.': 1, '@': blocked}}"), diags);
  REQUIRE(spec.has_value());
  const auto& map = *spec->nav.map;
  CHECK(map.passable({3, 1}));  // the tree
  CHECK(map.cost({3, 1}) == 4.0f);
  CHECK_FALSE(map.uniform_cost());
  auto blocked = load(scenario("{map: room.map, terrain: {'.': blocked}}"), diags);
  CHECK_FALSE(blocked.has_value());  // the spawn area has no free cell left
}

TEST_CASE("scenario nav: errors in the map file are reported in the map file") {
  std::string out = errors_of(scenario("{map: bad.map}"));
  CHECK(out.find("bad.map:6:2: error:") != std::string::npos);
  CHECK(out.find("nav.yaml:2:14: error: the map 'bad.map' has errors (above)") != std::string::npos);
}

TEST_CASE("scenario nav: map mistakes") {
  CHECK(errors_of(scenario("{map: nowhere.map}")).find("nav.yaml:2:14: error: map file 'nowhere.map' not found") == 0);
  CHECK(errors_of(scenario("{map: room.map, size: [5, 5]}")) ==
        "nav.yaml:2:24: error: 'size' comes from the map (its width and height times 'cell'); give one of 'size' and 'map'\n");
  CHECK(errors_of(scenario("{size: [5, 5], cell: 2}")) ==
        "nav.yaml:2:23: error: 'cell' places a grid map: it needs 'map: FILE.map' beside it\n");
  CHECK(errors_of(scenario("{map: room.map, terrain: {X: 2}}")) ==
        "nav.yaml:2:34: error: a terrain key is one map symbol (. G S @ O T W), got text 'X'\n");
  CHECK(errors_of(scenario("{map: room.map, terrain: {T: 0}}")) ==
        "nav.yaml:2:37: error: the terrain cost of 'T' must be a number > 0 and at most 1000000 (a multiplier of the "
        "move's length) or 'blocked', got 0\n");
  CHECK(errors_of(scenario("{map: room.map, terrain: {T: blockd}}")) ==
        "nav.yaml:2:37: error: the terrain cost of 'T' must be a number > 0 and at most 1000000 (a multiplier of the "
        "move's length) or 'blocked', got text 'blockd'; did you mean 'blocked'?\n");
  CHECK(errors_of(scenario("{map: room.map}", "{centre: [3, 2.5], radius: 0.4}")) ==
        "nav.yaml:5:50: error: the spawn area of group 'g' has no free cell of the map: every cell in (2.6, 2.1)..(3.4, 2.9) "
        "is blocked, and agents never spawn inside a wall\n");
  CHECK(errors_of("scenario: s\nworld: {}\nteams: [a]\ngroups:\n  - {name: g, team: a, brain: brain.yaml, spawn: {centre: [1, 1], radius: 1}}\n") ==
        "nav.yaml:2:8: error: 'world' needs 'size: [width, height]' (or 'map: FILE.map')\n");
}

TEST_CASE("scenario nav: danger zones, waypoints and navmesh settings") {
  std::vector<Diagnostic> diags;
  auto zones = load(scenario("{map: room.map, danger: [{centre: [2, 2], radius: 2}, {center: [4, 3], radius: 1, cost: 10}]}"),
                    diags);
  REQUIRE_MESSAGE(zones.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  REQUIRE(zones->nav.danger.size() == 2);
  CHECK(zones->nav.danger[0].cost == 50);
  CHECK(zones->nav.danger[1].cost == 10);
  CHECK(zones->nav.danger[1].centre == Vec2{4, 3});
  auto spec = load(scenario("{size: [50, 50], waypoints: {points: [[1, 1], [10, 1], [10, 10]], edges: [[0, 1], [1, 2]]}, "
                            "navmesh: {cell: 0.3, agent_radius: 0.4}}"),
                   diags);
  REQUIRE_MESSAGE(spec.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  CHECK(spec->nav.waypoints.size() == 3);
  CHECK(spec->nav.waypoint_edges.size() == 2);
  CHECK(spec->nav.navmesh);
  CHECK(spec->nav.navmesh_cell == 0.3);
  CHECK(spec->nav.navmesh_agent_radius == 0.4);

  auto list = load(scenario("{size: [50, 50], waypoints: [[1, 1], [2, 2]], navmesh: false}"), diags);
  REQUIRE(list.has_value());
  CHECK(list->nav.has_waypoints);
  CHECK(list->nav.waypoint_edges.empty());
  CHECK_FALSE(list->nav.navmesh);

  CHECK(errors_of(scenario("{size: [50, 50], waypoints: {points: [[1, 1]], edges: [[0, 3]]}}")) ==
        "nav.yaml:2:63: error: edge 0-3 names a waypoint that does not exist (there are 1, numbered from 0)\n");
  CHECK(errors_of(scenario("{size: [50, 50], waypoints: [[1, 1], [70, 1]]}")) ==
        "nav.yaml:2:45: error: waypoint 1 at (70, 1) is outside the world\n");
  // A malformed waypoint keeps its number: the ones after it and the count are the list's
  // (it said "there are 2" of three, and named the next one waypoint 1).
  CHECK(errors_of(scenario("{size: [50, 50], waypoints: {points: [[1, 1], [.nan, 2], [70, 1]], edges: [[0, 3]]}}")) ==
        "nav.yaml:2:54: error: waypoint 1 must be a point [x, y] of two finite numbers, got a list\n"
        "nav.yaml:2:65: error: waypoint 2 at (70, 1) is outside the world\n"
        "nav.yaml:2:83: error: edge 0-3 names a waypoint that does not exist (there are 3, numbered from 0)\n");
  // A waypoint no route can use, listed twice, or an edge that is no link.
  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{circle: [20, 20], radius: 3}], waypoints: [[1, 1], [21, 20], [1, 1]]}")) ==
        "nav.yaml:2:89: error: waypoint 1 at (21, 20) is inside an obstacle: no route could reach it\n"
        "nav.yaml:2:99: error: waypoint 2 at (1, 1) is where waypoint 0 is: list each place once\n");
  CHECK(errors_of(scenario("{map: room.map, waypoints: [[1.5, 1.5], [2.5, 2.5]]}")) ==
        "nav.yaml:2:48: error: waypoint 1 at (2.5, 2.5) is in a blocked cell of the map: no route could reach it\n");
  CHECK(errors_of(scenario("{size: [50, 50], waypoints: {points: [[1, 1], [9, 9]], edges: [[1, 1], [0, 1], [1, 0]]}}")) ==
        "nav.yaml:2:71: error: edge 1-1 joins waypoint 1 to itself\n"
        "nav.yaml:2:87: error: edge 1-0 is listed twice (an edge goes both ways: 0-1 and 1-0 are one edge)\n");
  CHECK(errors_of(scenario("{map: room.map, danger: [{centre: [1, 1]}]}")) ==
        "nav.yaml:2:33: error: a danger zone needs 'radius: R'\n");
  CHECK(errors_of(scenario("{size: [50, 50], navmesh: yes please}")) ==
        "nav.yaml:2:34: error: 'navmesh' must be true/false or {cell: 0.2, agent_radius: 0.5}, got text 'yes please'\n");
}

TEST_CASE("scenario nav: keys the planner would ignore are errors") {
  // What plans is the navmesh, else the waypoints, else the map.
  CHECK(errors_of(scenario("{map: room.map, navmesh: true}")) ==
        "nav.yaml:2:24: error: a navmesh is built from the world's shapes, not from a map's cells; a world with 'map' "
        "plans on the map: give one of 'map' and 'navmesh'\n");
  CHECK(errors_of(scenario("{size: [9, 9], danger: [{centre: [1, 1], radius: 1}]}")) ==
        "nav.yaml:2:23: error: danger zones are priced by grid searches, and this world plans with straight lines (it "
        "has no 'map')\n");
  CHECK(errors_of(scenario("{map: room.map, waypoints: [[1.5, 1.5]], danger: [{centre: [1, 1], radius: 1}]}")) ==
        "nav.yaml:2:49: error: danger zones are priced by grid searches, and this world plans with its waypoints\n");
  CHECK(errors_of(scenario("{size: [9, 9], navmesh: true, danger: [{centre: [1, 1], radius: 1}]}")) ==
        "nav.yaml:2:38: error: danger zones are priced by grid searches, and this world plans with its navmesh\n");
}

TEST_CASE("scenario nav: polygon obstacles") {
  std::vector<Diagnostic> diags;
  auto spec = load(scenario("{size: [50, 50], obstacles: [{polygon: [[10, 10], [20, 10], [20, 20], [15, 12], [10, 20]]}]}"), diags);
  REQUIRE(spec.has_value());
  REQUIRE(spec->obstacles.size() == 1);
  CHECK(spec->obstacles[0].shape == ObstacleShape::Polygon);
  CHECK(spec->obstacles[0].vertices.size() == 5);
  CHECK(thicket::world::obstacle_contains(spec->obstacles[0], {11, 18}));
  CHECK_FALSE(thicket::world::obstacle_contains(spec->obstacles[0], {15, 18}));  // in the notch

  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{polygon: [[1, 1], [2, 2]]}]}")) ==
        "nav.yaml:2:47: error: 'polygon' must be a list of at least 3 corners [[x, y], ...] in order around it, got a list\n");
  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{polygon: [[1, 1], [2, 2], [3, 3]]}]}")) ==
        "nav.yaml:2:47: error: the polygon has no area (its corners are on one line)\n");
  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{polygon: [[0, 0], [6, 4], [6, 0], [0, 2]]}]}")) ==
        "nav.yaml:2:47: error: the polygon crosses itself (edges 1 and 3); list its corners in order around it\n");
  // A symmetric bow-tie: no area either, but the crossing is the mistake (it said "on one line").
  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{polygon: [[0, 0], [4, 4], [4, 0], [0, 4]]}]}")) ==
        "nav.yaml:2:47: error: the polygon crosses itself (edges 1 and 3); list its corners in order around it\n");
  CHECK(errors_of(scenario("{size: [50, 50], obstacles: [{polygon: [[0, 0], [4, 4], [4, 0]], radius: 1}]}")) ==
        "nav.yaml:2:73: error: unknown key 'radius' in a polygon obstacle (allowed: polygon)\n");
}

TEST_CASE("scenario nav: the schema knows the navigation keys") {
  std::string why;
  auto set = thicket::SchemaSet::load(THICKET_SOURCE_DIR "/schemas", why);
  REQUIRE_MESSAGE(set.has_value(), why);
  auto schema_errors = [&](const std::string& yaml) {
    std::vector<thicket::SchemaError> errors;
    set->validate(YAML::Load(yaml), "scenario.schema.json", errors);
    return errors.size();
  };
  CHECK(schema_errors(scenario("{map: room.map, cell: 2, origin: [1, 1], terrain: {T: 4, W: blocked}, "
                               "danger: [{centre: [1, 1], radius: 2, cost: 5}]}")) == 0);
  CHECK(schema_errors(scenario("{map: room.map, waypoints: [[1, 1]]}")) == 0);
  CHECK(schema_errors(scenario("{map: room.map, navmesh: true}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], origin: [1, 1]}")) != 0);
  CHECK(schema_errors(scenario("{map: room.map, terrain: {T: 2000000}}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], waypoints: {points: [[1, 1]], edges: [], max_length: 3}}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], obstacles: [{polygon: [[0, 0], [1, 0], [1, 1]]}], "
                               "waypoints: {points: [[1, 1], [2, 2]], edges: [[0, 1]]}, navmesh: {cell: 0.3}}")) == 0);
  CHECK(schema_errors(scenario("{map: room.map, size: [9, 9]}")) != 0);
  CHECK(schema_errors(scenario("{cell: 2}")) != 0);
  CHECK(schema_errors(scenario("{map: room.map, terrain: {X: 2}}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], danger: [{centre: [1, 1]}]}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], obstacles: [{polygon: [[0, 0], [1, 0]]}]}")) != 0);
  CHECK(schema_errors(scenario("{size: [9, 9], navmesh: {cell: 0}}")) != 0);
}
