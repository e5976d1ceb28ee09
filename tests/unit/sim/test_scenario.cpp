// Tests for runtime/src/sim/scenario.cpp (scenario files) and schemas/scenario.schema.json.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "scenario.hpp"
#include "scenario_fixture.hpp"
#include "schema.hpp"

#ifndef THICKET_SOURCE_DIR
#error "THICKET_SOURCE_DIR (the repository's root) must be defined; CMakeLists.txt does"
#endif

namespace {

namespace fs = std::filesystem;
using thicket::Diagnostic;
using thicket::ScenarioSpec;
using thicket::SpawnArea;
using thicket::Value;
using thicket::world::ObstacleShape;
using thicket::world::Vec2;

// A directory holding the scenario files' brain files (their content is not read here).
const scenario_fixture::Dir& fixture() {
  static const scenario_fixture::Dir dir("thicket_test_scenario",
                                         {{"minion_world.yaml", scenario_fixture::kIdleBrain},
                                          {"brains/player.yaml", scenario_fixture::kIdleBrain}},
                                         "guard_posts.yaml");
  return dir;
}
const fs::path& scenario_dir() { return fixture().path(); }
std::string scenario_path() { return fixture().scenario_path(); }
std::optional<ScenarioSpec> load(const std::string& text, std::vector<Diagnostic>& diags) { return fixture().load(text, diags); }
// The load's diagnostics as the CLI prints them, one a line, with the directory cut off.
std::string errors_of(const std::string& text) { return fixture().errors_of(text); }

// The smallest valid scenario: one group, whose keys are at column 5 of lines 5 to 8.
const std::string kSmall =
    "scenario: s\n"
    "world: {size: [100, 100]}\n"
    "teams: [a]\n"
    "groups:\n"
    "  - name: g\n"
    "    team: a\n"
    "    brain: minion_world.yaml\n"
    "    spawn: {centre: [50, 50], radius: 5}\n";

// `text` with the first `from` in it replaced by `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

std::string small_with(const std::string& from, const std::string& to) { return edited(kSmall, from, to); }

const char* kExample = R"(# yaml-language-server: $schema=../../../schemas/scenario.schema.json
scenario: guard_posts
seed: 7
ticks: 600
dt: 0.1
world:
  size: [120, 80]
  obstacles:
    - {circle: [60, 40], radius: 6}
    - {box: [[10, 10], [20, 14]]}
teams: [minions, players]
groups:
  - name: minions
    team: minions
    count: 50
    brain: minion_world.yaml
    spawn: {centre: [30, 40], radius: 8}
    vehicle: {mass: 1, max_speed: 4, max_force: 8, radius: 0.5}
    blackboard: {home_x: 30, mood: "calm", alert: false}
  - name: players
    team: players
    count: 5
    brain: brains/player.yaml
    spawn: {box: [[110, 70], [100, 60]]}
metrics: [kills, chases]
)";

}  // namespace

TEST_CASE("scenario: the documented example loads with every field") {
  std::vector<Diagnostic> diags;
  auto spec = load(kExample, diags);
  REQUIRE_MESSAGE(spec.has_value(), doctest::toString(diags.size()));
  CHECK(diags.empty());
  CHECK(spec->name == "guard_posts");
  CHECK(spec->path == scenario_path());
  CHECK(spec->seed == 7);
  CHECK(spec->ticks == 600);
  CHECK(spec->dt == 0.1);
  CHECK((spec->has_seed && spec->has_ticks && spec->has_dt));
  CHECK(spec->bounds.min == Vec2{0, 0});
  CHECK(spec->bounds.max == Vec2{120, 80});
  REQUIRE(spec->obstacles.size() == 2);
  CHECK(spec->obstacles[0].shape == ObstacleShape::Circle);
  CHECK(spec->obstacles[0].centre == Vec2{60, 40});
  CHECK(spec->obstacles[0].radius == 6);
  CHECK(spec->obstacles[1].shape == ObstacleShape::Box);
  CHECK(spec->obstacles[1].centre == Vec2{15, 12});
  CHECK(spec->obstacles[1].half_extents == Vec2{5, 2});
  CHECK(spec->teams == std::vector<std::string>{"minions", "players"});
  CHECK(spec->metrics == std::vector<std::string>{"kills", "chases"});
  REQUIRE(spec->groups.size() == 2);

  const thicket::AgentGroup& minions = spec->groups[0];
  CHECK(minions.name == "minions");
  CHECK(minions.team == "minions");
  CHECK(minions.count == 50);
  CHECK(minions.brain == (scenario_dir() / "minion_world.yaml").string());
  CHECK(minions.spawn.shape == SpawnArea::Shape::Disc);
  CHECK(minions.spawn.centre == Vec2{30, 40});
  CHECK(minions.spawn.radius == 8);
  CHECK(minions.vehicle.mass == 1);
  CHECK(minions.vehicle.max_speed == 4);
  CHECK(minions.vehicle.max_force == 8);
  CHECK(minions.vehicle.radius == 0.5);
  REQUIRE(minions.blackboard.size() == 3);
  CHECK(minions.blackboard[0] == std::pair<std::string, Value>{"home_x", int64_t{30}});
  CHECK(minions.blackboard[1] == std::pair<std::string, Value>{"mood", std::string("calm")});
  CHECK(minions.blackboard[2] == std::pair<std::string, Value>{"alert", false});

  const thicket::AgentGroup& players = spec->groups[1];
  CHECK(players.brain == (scenario_dir() / "brains" / "player.yaml").string());
  CHECK(players.spawn.shape == SpawnArea::Shape::Box);
  CHECK(players.spawn.min == Vec2{100, 60});  // corners in either order
  CHECK(players.spawn.max == Vec2{110, 70});
  CHECK(players.spawn.centre == Vec2{105, 65});
}

TEST_CASE("scenario: optional fields take their defaults, and 'center' is 'centre'") {
  std::vector<Diagnostic> diags;
  auto spec = load(R"(
scenario: small
world: {size: [10, 10]}
teams: [a]
groups:
  - {name: g, team: a, brain: minion_world.yaml, spawn: {center: [5, 5], radius: 5}}
)", diags);
  REQUIRE(spec.has_value());
  CHECK(diags.empty());
  CHECK((!spec->has_seed && !spec->has_ticks && !spec->has_dt));
  CHECK((spec->seed == 1 && spec->ticks == 600 && spec->dt == 0.1));
  CHECK(spec->obstacles.empty());
  CHECK(spec->metrics.empty());
  const thicket::AgentGroup& g = spec->groups[0];
  CHECK(g.count == 1);
  CHECK(g.spawn.centre == Vec2{5, 5});  // the disc touches all four edges: still inside
  CHECK((g.vehicle.mass == 1 && g.vehicle.max_speed == 1 && g.vehicle.max_force == 1 && g.vehicle.radius == 0.5));
  CHECK(g.blackboard.empty());
}

TEST_CASE("scenario: blackboard values keep the type they are written in") {
  std::vector<Diagnostic> diags;
  auto spec = load(kSmall + std::string("    blackboard: {i: 3, n: 3.0, e: 1e3, hex: 0x10, t: true, s: '3', w: on, m: -2}\n"),
                   diags);
  REQUIRE(spec.has_value());
  const auto& bb = spec->groups[0].blackboard;
  REQUIRE(bb.size() == 8);
  CHECK(bb[0].second == Value{int64_t{3}});
  CHECK(bb[1].second == Value{3.0});
  CHECK(bb[2].second == Value{1000.0});
  CHECK(bb[3].second == Value{int64_t{16}});
  CHECK(bb[4].second == Value{true});
  CHECK(bb[5].second == Value{std::string("3")});
  CHECK(bb[6].second == Value{std::string("on")});  // YAML 1.2: `on` is text
  CHECK(bb[7].second == Value{int64_t{-2}});
}

TEST_CASE("scenario: every problem of the file is reported at once, each at its line and column") {
  std::string errors = errors_of(R"(scenario: bad
seed: -1
tick: 10
dt: 0
world:
  size: [120, 0]
  obstacles:
    - {circle: [60, 40], radius: 0}
    - {box: [[10, 10]]}
    - {square: [1, 2]}
teams: [minions, players, minions]
groups:
  - name: minions
    team: minion
    count: 0
    brain: missing.yaml
    spawn: {centre: [30, 40], radius: -1}
    vehicle: {mass: 0, max_sped: 4}
    blackboard: {home: [1, 2], 2x: 1}
  - name: minions
    team: players
    brain: minion_world.yaml
    spawn: {box: [[0, 0], [500, 10]]}
metrics: [kills, kills, wall_s]
)");
  CHECK(errors ==
        "guard_posts.yaml:2:7: error: 'seed' must be a whole number >= 0, got -1\n"
        "guard_posts.yaml:3:1: error: unknown top-level key 'tick'; did you mean 'ticks'? "
        "(allowed: scenario, seed, ticks, dt, world, teams, groups, metrics, record, sweep)\n"
        "guard_posts.yaml:4:5: error: 'dt' must be a number > 0 and at most 1000000, got 0\n"
        "guard_posts.yaml:6:9: error: 'size' must be [width, height], both numbers > 0 and at most 1000000000 (metres), got [120, 0]\n"
        "guard_posts.yaml:8:34: error: 'radius' must be a number > 0, got 0\n"
        "guard_posts.yaml:9:13: error: 'box' must be two corners [[x0, y0], [x1, y1]] of finite numbers, got [[10, 10]]\n"
        "guard_posts.yaml:10:8: error: unknown key 'square' in an obstacle (allowed: circle, radius, box, polygon)\n"
        "guard_posts.yaml:11:27: error: team 'minions' is listed twice in 'teams'\n"
        "guard_posts.yaml:14:11: error: unknown team 'minion'; did you mean 'minions'? (teams: minions, players)\n"
        "guard_posts.yaml:15:12: error: 'count' must be a whole number >= 1, got 0\n"
        "guard_posts.yaml:16:12: error: brain file 'missing.yaml' not found (looked for missing.yaml)\n"
        "guard_posts.yaml:17:39: error: 'radius' must be a number >= 0, got -1\n"
        "guard_posts.yaml:18:21: error: 'mass' must be a number from 0.000001 to 1e12 (kg), got 0\n"
        "guard_posts.yaml:18:24: error: unknown key 'max_sped' in 'vehicle'; did you mean 'max_speed'? "
        "(allowed: mass, max_speed, max_force, radius)\n"
        "guard_posts.yaml:19:24: error: the initial value of 'home' must be a number, true/false or text, got a list\n"
        "guard_posts.yaml:19:32: error: a blackboard key must be a name (letters, digits, _; not starting with a "
        "digit), got '2x'\n"
        "guard_posts.yaml:20:11: error: a group named 'minions' is defined twice (first at line 13)\n"
        "guard_posts.yaml:24:18: error: metric 'kills' is listed twice in 'metrics'\n"
        "guard_posts.yaml:24:25: error: metric 'wall_s' has the name of a column every run's row has already (run, "
        "seed, ticks, agents_start, agents_end, agent_ticks, wall_s, agent_ticks_per_s, script_errors): give it another "
        "name\n");
}

TEST_CASE("scenario: a built-in metric declared under metrics: is an error (leaves could then add to it)") {
  for (const char* name : {"deaths", "damage_dealt", "pickups_taken"}) {
    const std::string errors = errors_of(std::string("scenario: s\nworld: {size: [10, 10]}\nmetrics: [kills, ") + name + "]\n");
    INFO(errors);
    CHECK(errors.find(std::string("3:18: error: metric '") + name + "' is built in (the run counts deaths, damage_dealt and, in a world "
                      "with pickups, pickups_taken itself): give yours another name\n") != std::string::npos);
  }
}

TEST_CASE("scenario: a group's blackboard value or a pickup's given value of nan is an error") {
  const std::string errors = errors_of(kSmall + "    blackboard: {health: .nan}\n");
  INFO(errors);
  CHECK(errors.find("error: the initial value of 'health' is nan, which is no number to compare or count with: give it a number") !=
        std::string::npos);
  const std::string given = errors_of(edited(kSmall, "world: {size: [100, 100]}",
                                             "world: {size: [100, 100], pickups: [{name: p, at: [5, 5], gives: {health: .nan}}]}"));
  INFO(given);
  CHECK(given.find("error: the given value of 'health' is nan, which is no number to compare or count with: give it a number") !=
        std::string::npos);
}

TEST_CASE("scenario: shapes past 1e10 m, a map origin past 1e9 m and cells out of range are errors") {
  // Past ~1e154 the shapes' point tests overflowed (agents spawned inside a 1e300 polygon), and
  // an origin of 1e300 gave a world with no width (1e300 + 4 == 1e300).
  for (const auto& [shape, key] : std::vector<std::pair<std::string, std::string>>{
           {"{box: [[0, 0], [1e300, 5]]}", "box"},
           {"{circle: [1e200, 3], radius: 1e200}", "circle"},
           {"{polygon: [[1e300, 1e300], [-1e300, 1e300], [0, -1e300]]}", "polygon"},
           {"{box: [[0, 0], [2e10, 5]]}", "box"}}) {
    const std::string errors = errors_of(edited(kSmall, "world: {size: [100, 100]}", "world: {size: [100, 100], obstacles: [" + shape + "]}"));
    INFO(errors);
    CHECK(errors.find("error: the " + key + " reaches past 10000000000 m from (0, 0): no world goes so far") != std::string::npos);
  }
  std::vector<Diagnostic> diags;
  CHECK(load(edited(kSmall, "world: {size: [100, 100]}", "world: {size: [100, 100], obstacles: [{box: [[90, 90], [9e9, 95]]}]}"), diags));
}

TEST_CASE("scenario: an obstacle wholly outside the world and a navmesh radius past Recast's 127 cells are errors") {
  // Outside, it blocked nothing without a word ([[210, 10], ...] for 21); reaching out is fine.
  auto world = [](const std::string& rest) { return edited(kSmall, "world: {size: [100, 100]}", "world: {size: [100, 100]" + rest + "}"); };
  CHECK(errors_of(world(", obstacles: [{box: [[210, 10], [220, 12]]}, {circle: [-50, 10], radius: 2}, {box: [[90, 1], [130, 2]]}]")) ==
        "guard_posts.yaml:2:39: error: the obstacle spans (210, 10)..(220, 12), wholly outside the world (0, 0)..(100, 100): "
        "it blocks nothing\n"
        "guard_posts.yaml:2:70: error: the obstacle spans (-52, 8)..(-48, 12), wholly outside the world (0, 0)..(100, 100): "
        "it blocks nothing\n");
  // Past 127 cells Recast's erosion wrapped: the mesh reached past the world and through walls.
  CHECK(errors_of(world(", navmesh: {cell: 0.05, agent_radius: 7}")) ==
        "guard_posts.yaml:2:63: error: 'agent_radius' 7 m is 140 cells of 0.05 m; the navmesh erodes at most 127 cells: "
        "give a larger 'cell' or a smaller 'agent_radius'\n");
  std::vector<Diagnostic> diags;
  CHECK(load(world(", navmesh: {cell: 0.05, agent_radius: 6.3}"), diags));
}

TEST_CASE("scenario: the sweep's mistakes are said in its own words whatever else is wrong") {
  const std::string errors = errors_of(kSmall + "metrics: [m1, \"a b\"]\nsweep: {seed: [1, 1], groups.g.count: [0], ticks: [5]}\n");
  INFO(errors);
  CHECK(errors.find("error: a metric name must be a name") != std::string::npos);
  CHECK(errors.find("sweep key 'seed' lists the value 1 twice") != std::string::npos);
  CHECK(errors.find("unknown sweep key 'ticks'") != std::string::npos);
  // A group with an error of its own: the sweep's mistakes are said beside it, but not that
  // the group lacks a blackboard key or a sense, which its error may be why.
  const std::string broken_group =
      errors_of(edited(kSmall, "    team: a\n", "    team: a\n    count: 0\n") +
                "sweep: {seed: [1, 1], groups.g.cont: [1], groups.g.blackboard.nothere: [1], groups.g.senses.memory: [2]}\n");
  INFO(broken_group);
  CHECK(broken_group.find("'count' must be a whole number >= 1") != std::string::npos);
  CHECK(broken_group.find("sweep key 'seed' lists the value 1 twice") != std::string::npos);
  CHECK(broken_group.find("sweep key 'groups.g.cont': group 'g' has no 'cont'; did you mean 'count'?") != std::string::npos);
  CHECK(broken_group.find("nothere") == std::string::npos);
  CHECK(broken_group.find("senses.memory") == std::string::npos);
}

TEST_CASE("scenario: a world size of the wrong length is quoted as written") {
  for (const auto& [size, shown] : std::vector<std::pair<std::string, std::string>>{
           {"[100]", "[100]"}, {"[1, 2, 3]", "[1, 2, 3]"}, {"[x, 2]", "[\"x\", 2]"}, {"[1, \"2\"]", "[1, \"2\"]"},
           {"[1, 2, \"\"]", "[1, 2, \"\"]"}, {"[[1, 2]]", "[[1, 2]]"}, {"[[1, [2]]]", "a list"}, {"[1e300, 5]", "[1e+300, 5]"}}) {
    const std::string errors = errors_of("scenario: s\nworld: {size: " + size + "}\n");
    INFO(errors);
    CHECK(errors.find("'size' must be [width, height], both numbers > 0 and at most 1000000000 (metres), got " + shown + "\n") != std::string::npos);
  }
}

TEST_CASE("scenario: the whole file's problems: empty, not a mapping, YAML syntax, missing file") {
  CHECK(errors_of("") == "guard_posts.yaml:1:1: error: the file is empty; a scenario file starts with 'scenario: NAME'\n");
  CHECK(errors_of("# only a comment\n") ==
        "guard_posts.yaml:1:1: error: the file is empty; a scenario file starts with 'scenario: NAME'\n");
  CHECK(errors_of("- scenario: s\n") ==
        "guard_posts.yaml:1:1: error: the top level must be a mapping starting with 'scenario: NAME', got a list\n");
  CHECK(errors_of("just words\n") ==
        "guard_posts.yaml:1:1: error: the top level must be a mapping starting with 'scenario: NAME', got text 'just words'\n");
  CHECK(errors_of("scenario: s\nworld: {size: [1, 2]\n").find("guard_posts.yaml:3:1: error: YAML syntax: ") == 0);
  CHECK(errors_of("scenario: [unclosed\n").find("error: YAML syntax: ") != std::string::npos);

  std::vector<Diagnostic> diags;
  CHECK_FALSE(thicket::load_scenario((scenario_dir() / "no_such.yaml").string(), diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(thicket::format_diagnostic(diags[0]) == (scenario_dir() / "no_such.yaml").string() + ": error: cannot open file: no such file");
  diags.clear();
  CHECK_FALSE(thicket::load_scenario(scenario_dir().string(), diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == "cannot open file: a folder, not a file");
}

TEST_CASE("scenario: load_scenario reads a file and resolves brains beside it") {
  const fs::path file = scenario_dir() / "from_disk.yaml";
  std::ofstream(file) << kExample;
  std::vector<Diagnostic> diags;
  auto spec = thicket::load_scenario(file.string(), diags);
  REQUIRE(spec.has_value());
  CHECK(diags.empty());
  CHECK(spec->path == file.string());
  CHECK(spec->groups[1].brain == (scenario_dir() / "brains" / "player.yaml").string());
}

TEST_CASE("scenario: required keys are asked for where they belong") {
  CHECK(errors_of("seed: 1\n") ==
        "guard_posts.yaml:1:1: error: a scenario file needs 'scenario: NAME' at the top level\n"
        "guard_posts.yaml:1:1: error: a scenario needs 'world: {size: [width, height]}'\n"
        "guard_posts.yaml:1:1: error: a scenario needs 'teams: [NAME, ...]', the sides its agents are on\n"
        "guard_posts.yaml:1:1: error: a scenario needs 'groups:', a list of agent groups "
        "(each with name, team, brain and spawn)\n");
  // A misspelt key is reported once, as a misspelling, not also as missing.
  CHECK(errors_of(small_with("scenario:", "scenaro:")) ==
        "guard_posts.yaml:1:1: error: unknown top-level key 'scenaro'; did you mean 'scenario'? "
        "(allowed: scenario, seed, ticks, dt, world, teams, groups, metrics, record, sweep)\n");
  CHECK(errors_of("scenario: s\nworld: {}\nteams: [a]\ngroups:\n  - {name: g}\n") ==
        "guard_posts.yaml:2:8: error: 'world' needs 'size: [width, height]' (or 'map: FILE.map')\n"
        "guard_posts.yaml:5:5: error: a group needs 'team: TEAM', one of 'teams'\n"
        "guard_posts.yaml:5:5: error: a group needs 'brain: FILE', its agents' brain file\n"
        "guard_posts.yaml:5:5: error: a group needs 'spawn: {centre: [x, y], radius: R}' or "
        "'spawn: {box: [[x0, y0], [x1, y1]]}'\n");
  CHECK(errors_of("scenario: s\nworld: {size: [9, 9]}\nteams: []\ngroups: []\n") ==
        "guard_posts.yaml:3:8: error: 'teams' must be a non-empty list of team names, got an empty list\n"
        "guard_posts.yaml:4:9: error: 'groups' must be a non-empty list of agent groups, got an empty list\n");
}

TEST_CASE("scenario: wrong types say what was expected and what the file has") {
  CHECK(errors_of(kSmall + "    count: 0\n") == "guard_posts.yaml:9:12: error: 'count' must be a whole number >= 1, got 0\n");
  CHECK(errors_of(kSmall + "    count: 2.5\n") ==
        "guard_posts.yaml:9:12: error: 'count' must be a whole number >= 1, got 2.5\n");
  CHECK(errors_of(kSmall + "    count: \"5\"\n") ==
        "guard_posts.yaml:9:12: error: 'count' must be a whole number >= 1, got text '5'\n");
  CHECK(errors_of(kSmall + "    count: 5000000000\n") ==
        "guard_posts.yaml:9:12: error: 'count' is 5000000000 agents; a scenario may have at most 100000 agents in all\n");
  // An empty value has no position of its own: the error points at its key, or at its list.
  CHECK(errors_of(kSmall + "    count:\n") ==
        "guard_posts.yaml:9:5: error: 'count' must be a whole number >= 1, got nothing\n");
  CHECK(errors_of(kSmall + "    blackboard:\n      mood:\n") ==
        "guard_posts.yaml:10:7: error: the initial value of 'mood' must be a number, true/false or text, got nothing\n");
  CHECK(errors_of(kSmall + "metrics:\n  -\n  - kills\n") ==
        "guard_posts.yaml:9:1: error: a metric name must be a name (letters, digits, _; not starting with a digit), "
        "got nothing\n");
  CHECK(errors_of(small_with("scenario: s\n", "scenario: 12\nticks: lots\ndt: .inf\n")) ==
        "guard_posts.yaml:1:11: error: 'scenario' names the scenario and must be text, got 12\n"
        "guard_posts.yaml:2:8: error: 'ticks' must be a whole number >= 0, got text 'lots'\n"
        "guard_posts.yaml:3:5: error: 'dt' must be a finite number > 0 and at most 1000000, got .inf\n");
  // A whole number written as a float, one past int64, a dt past the CLI's own bound, a
  // corner that is no finite number: each message names that problem.
  CHECK(errors_of(small_with("scenario: s\n", "scenario: s\nticks: 1e3\nseed: 100000000000000000000\ndt: 1e300\n")) ==
        "guard_posts.yaml:2:8: error: 'ticks' must be a whole number >= 0, got 1e3 (1e3 is written as a number with a "
        "fraction or an exponent, which YAML reads as no whole number: write 1000)\n"
        "guard_posts.yaml:3:7: error: 'seed' must be a whole number >= 0 and <= 9223372036854775807, got "
        "100000000000000000000\n"
        "guard_posts.yaml:4:5: error: 'dt' must be a number > 0 and at most 1000000, got 1e300\n");
  CHECK(errors_of(kSmall + "    vehicle: fast\n    blackboard: [1]\n") ==
        "guard_posts.yaml:9:14: error: 'vehicle' must be a mapping {mass, max_speed, max_force, radius}, "
        "got text 'fast'\n"
        "guard_posts.yaml:10:17: error: 'blackboard' must be a mapping of key: initial value, got a list\n");
  CHECK(errors_of(kSmall + "    team: a\n") ==
        "guard_posts.yaml:9:5: error: key 'team' is given twice in this mapping (first at line 6, column 5); a mapping's keys "
        "must be unique (YAML would keep one of them, silently); if it starts the next list item, put '- ' before it\n");
  CHECK(errors_of(kSmall + "    blackboard: {? [k] : 1}\n    [x]: 1\n") ==
        "guard_posts.yaml:9:20: error: a blackboard key must be a name (letters, digits, _; not starting with a "
        "digit), got a list\n"
        "guard_posts.yaml:10:5: error: a key must be a name, got a list as a key in a group\n");
  CHECK(errors_of(small_with("world: {size: [100, 100]}",
                             "world: {size: [100, 100], obstacles: [{circle: [1, 1]}, {circle: [1, 1], box: [[0, 0], [1, 1]]}, 7]}")) ==
        "guard_posts.yaml:2:39: error: a circle obstacle needs 'radius: R'\n"
        "guard_posts.yaml:2:74: error: an obstacle is {circle: [x, y], radius: R}, {box: [[x0, y0], [x1, y1]]} or "
        "{polygon: [[x, y], ...]}; this one has both 'circle' and 'box'\n"
        "guard_posts.yaml:2:98: error: an obstacle is {circle: [x, y], radius: R}, {box: [[x0, y0], [x1, y1]]} or "
        "{polygon: [[x, y], ...]}, got 7\n");
}

TEST_CASE("scenario: teams and groups refer to each other by name") {
  CHECK(errors_of(small_with("teams: [a]", "teams: [a, 2b, a]")) ==
        "guard_posts.yaml:3:12: error: a team name must be a name (letters, digits, _; not starting with a digit), "
        "got text '2b'\n"
        "guard_posts.yaml:3:16: error: team 'a' is listed twice in 'teams'\n");
  CHECK(errors_of(small_with("team: a", "team: zed")) == "guard_posts.yaml:6:11: error: unknown team 'zed' (teams: a)\n");
  CHECK(errors_of(edited(small_with("teams: [a]", "teams: [minions]"), "team: a", "team: minion")) ==
        "guard_posts.yaml:6:11: error: unknown team 'minion'; did you mean 'minions'? (teams: minions)\n");
  // With a broken teams list, only that list is blamed.
  CHECK(errors_of(small_with("teams: [a]", "teams: a")) ==
        "guard_posts.yaml:3:8: error: 'teams' must be a non-empty list of team names, got text 'a'\n");
  CHECK(errors_of(kSmall + "  - {name: g, team: a, brain: minion_world.yaml, spawn: {box: [[0, 0], [1, 1]]}}\n") ==
        "guard_posts.yaml:9:12: error: a group named 'g' is defined twice (first at line 5)\n");
}

TEST_CASE("scenario: brains must exist and spawn areas must lie inside the world") {
  CHECK(errors_of(small_with("minion_world.yaml", "brains/nope.yaml")) ==
        "guard_posts.yaml:7:12: error: brain file 'brains/nope.yaml' not found (looked for brains/nope.yaml)\n");
  CHECK(errors_of(small_with("minion_world.yaml", "brains")) ==  // the example's folder of brains
        "guard_posts.yaml:7:12: error: brain file 'brains' is a folder, not a file (looked for brains)\n");
  auto spawning = [](const std::string& spawn) {
    return errors_of(small_with("spawn: {centre: [50, 50], radius: 5}", spawn));
  };
  CHECK(spawning("spawn: {centre: [97, 50], radius: 5}") ==
        "guard_posts.yaml:8:12: error: the spawn area of group 'g' reaches outside the world: it spans "
        "(92, 45)..(102, 55), the world (0, 0)..(100, 100)\n");
  CHECK(spawning("spawn: {box: [[-1, 0], [10, 10]]}") ==
        "guard_posts.yaml:8:12: error: the spawn area of group 'g' reaches outside the world: it spans "
        "(-1, 0)..(10, 10), the world (0, 0)..(100, 100)\n");
  CHECK(spawning("spawn: {centre: [5, 5], box: [[0, 0], [1, 1]]}") ==
        "guard_posts.yaml:8:29: error: 'spawn' is {centre: [x, y], radius: R} or {box: [[x0, y0], [x1, y1]]}; "
        "this one has both 'centre' and 'box'\n");
  CHECK(spawning("spawn: {centr: [5, 5], radius: 1}") ==
        "guard_posts.yaml:8:13: error: unknown key 'centr' in 'spawn'; did you mean 'centre'? "
        "(allowed: centre, radius, box)\n");
  CHECK(spawning("spawn: {radius: 1}") ==
        "guard_posts.yaml:8:12: error: 'spawn' is {centre: [x, y], radius: R} or {box: [[x0, y0], [x1, y1]]}\n");
  CHECK(spawning("spawn: {centre: [5, 5]}") == "guard_posts.yaml:8:12: error: a disc spawn area needs 'radius: R'\n");
  CHECK(spawning("spawn: {centre: [5, 5], center: [5, 5], radius: 1}") ==
        "guard_posts.yaml:8:29: error: 'center' is 'centre' spelt differently; give one of them\n");
  CHECK(spawning("spawn: {box: [[1, 1], [2, 2]], radius: 1}") ==
        "guard_posts.yaml:8:36: error: unknown key 'radius' in a box spawn area (allowed: box)\n");
  CHECK(spawning("spawn: here") ==
        "guard_posts.yaml:8:12: error: 'spawn' is {centre: [x, y], radius: R} or {box: [[x0, y0], [x1, y1]]}, "
        "got text 'here'\n");
  CHECK(spawning("spawn: {center: [1, x], radius: 1}") ==
        "guard_posts.yaml:8:21: error: 'center' must be a point [x, y] of two finite numbers, got [1, \"x\"]\n");
  CHECK(spawning("spawn: {box: [[.nan, 1], [2, 2]]}") ==
        "guard_posts.yaml:8:18: error: 'box' must be two corners [[x0, y0], [x1, y1]] of finite numbers, got [[.nan, 1], [2, 2]]\n");
}

TEST_CASE("scenario: odd YAML is reported, never thrown") {
  CHECK(errors_of("? [a, b]\n: 1\n").find("1:3: error: a key must be a name, got a list as a key") != std::string::npos);
  CHECK(errors_of("scenario: s\nworld: *nowhere\n").find("error: YAML syntax: ") != std::string::npos);
  CHECK_NOTHROW(errors_of("{[[[[: }: ]]]\n"));
  // Anchors, aliases and explicit tags are fine.
  const std::string good = "scenario: s\nworld: &w {size: [100, 100]}\nteams: [a]\ngroups:\n"
                           "  - &g {name: g, team: a, brain: minion_world.yaml, spawn: {centre: [50, 50], radius: 5}}\n"
                           "metrics: !!seq [m]\n";
  std::vector<Diagnostic> diags;
  auto spec = load(good, diags);
  CHECK(spec.has_value());
  CHECK(diags.empty());
  // A second document would not be read: an error where it starts (it was dropped silently).
  CHECK(errors_of(good + "---\nnot: read\n").find("8:1: error: a second YAML document starts here") != std::string::npos);
}

TEST_CASE("scenario: the schema accepts good scenarios and rejects bad ones") {
  std::string why;
  auto set = thicket::SchemaSet::load(THICKET_SOURCE_DIR "/schemas", why);
  REQUIRE_MESSAGE(set.has_value(), why);
  REQUIRE(set->has("scenario.schema.json"));
  auto schema_errors = [&](const std::string& yaml) {
    std::vector<thicket::SchemaError> errors;
    set->validate(YAML::Load(yaml), "scenario.schema.json", errors);
    std::string out;
    for (const auto& e : errors) out += std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message + "\n";
    return out;
  };
  CHECK(schema_errors(kExample) == "");
  CHECK(schema_errors(kSmall) == "");
  CHECK(schema_errors(small_with("centre", "center")) == "");
  CHECK(schema_errors(small_with("spawn: {centre: [50, 50], radius: 5}", "spawn: {box: [[0, 0], [1, 1]]}\n"
                                 "    blackboard: {x: 1, y: 2.5, z: on, w: \"text\"}")) == "");

  CHECK(schema_errors("") != "");
  CHECK(schema_errors("scenario: s\n") != "");  // no world, teams or groups
  CHECK(schema_errors(small_with("scenario:", "scenaro:")) != "");
  CHECK(schema_errors(kSmall + "dt: 0\n") != "");
  CHECK(schema_errors(kSmall + "seed: -1\n") != "");
  CHECK(schema_errors(kSmall + "metrics: [2x]\n") != "");
  CHECK(schema_errors(kSmall + "    count: 0\n") != "");
  CHECK(schema_errors(kSmall + "    colour: red\n") != "");
  CHECK(schema_errors(kSmall + "    vehicle: {mass: 0}\n") != "");
  CHECK(schema_errors(kSmall + "    vehicle: {max_sped: 1}\n") != "");
  CHECK(schema_errors(kSmall + "    blackboard: {home: [1, 2]}\n") != "");
  CHECK(schema_errors(small_with("teams: [a]", "teams: []")) != "");
  CHECK(schema_errors(small_with("[100, 100]", "[0, 100]")) != "");
  CHECK(schema_errors(small_with("[100, 100]}", "[100, 100], obstacles: [{circle: [1, 1]}]}")) != "");
  CHECK(schema_errors(small_with("[100, 100]}", "[100, 100], obstacles: [{box: [[1, 1]]}]}")) != "");
  CHECK(schema_errors(small_with("radius: 5", "radius: -1")) != "");
  CHECK(schema_errors(small_with("{centre", "{box: [[0, 0], [1, 1]], centre")) != "");
  CHECK(schema_errors(small_with("    brain: minion_world.yaml\n", "")) != "");
}

TEST_CASE("scenario: every example scenario loads and validates against the schema") {
  std::string why;
  auto set = thicket::SchemaSet::load(THICKET_SOURCE_DIR "/schemas", why);
  REQUIRE_MESSAGE(set.has_value(), why);
  int scenarios = 0;
  for (const auto& entry : fs::recursive_directory_iterator(THICKET_SOURCE_DIR "/scripts/examples")) {
    if (entry.path().extension() != ".yaml") continue;
    YAML::Node doc = YAML::LoadFile(entry.path().string());
    if (!doc.IsMap() || !doc["scenario"]) continue;
    INFO(entry.path().string());
    std::vector<Diagnostic> diags;
    CHECK(thicket::load_scenario(entry.path().string(), diags).has_value());
    for (const Diagnostic& d : diags) FAIL_CHECK(thicket::format_diagnostic(d));
    std::vector<thicket::SchemaError> errors;
    set->validate(doc, "scenario.schema.json", errors);
    for (const auto& e : errors) FAIL_CHECK(e.line << ":" << e.column << ": " << e.message);
    ++scenarios;
  }
  CHECK(scenarios >= 2);  // the arena and the flock
}

TEST_CASE("scenario: huge counts are refused at load, before anything is allocated") {
  CHECK(errors_of(kSmall + "    count: 1000000000\n") ==
        "guard_posts.yaml:9:12: error: 'count' is 1000000000 agents; a scenario may have at most 100000 agents in all\n");
  std::vector<Diagnostic> diags;
  CHECK(load(kSmall + "    count: 100000\n", diags).has_value());
  // Two groups of 60,000: the second passes the limit over all groups.
  std::string two = kSmall + "    count: 60000\n" +
                    "  - {name: more, team: a, brain: minion_world.yaml, spawn: {centre: [5, 5], radius: 1}, "
                    "count: 60000}\n";
  std::string errors = errors_of(two);
  CHECK(errors.find("error: this group takes the scenario to 120000 agents; a scenario may have at most 100000 agents in all") !=
        std::string::npos);
}
