// Tests for the perception keys of scenario files (issue 13): `senses:` per group, `areas:` and
// `pickups:` in the world, read into the perception structs; every bad input with its message at
// FILE:LINE:COL; and the schema's view of the same keys.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <numbers>

#include "scenario.hpp"
#include "scenario_fixture.hpp"
#include "schema.hpp"

namespace {

namespace fs = std::filesystem;
using thicket::Diagnostic;
using thicket::ScenarioSpec;
using thicket::SenseSlot;
using thicket::Value;
using thicket::perception::Targets;
using thicket::world::ObstacleShape;
using thicket::world::Vec2;

// A directory with a brain file and a small map (scenario_fixture::kRoomMap: row 2 has walls at
// x = 2, 3; the T at (3, 1) is a tree, blocked).
const scenario_fixture::Dir& fixture() {
  static const scenario_fixture::Dir dir("thicket_test_scenario_perception",
                                         {{"brain.yaml", scenario_fixture::kIdleBrain},
                                          {"room.map", scenario_fixture::kRoomMap}},
                                         "perception.yaml");
  return dir;
}
std::optional<ScenarioSpec> load(const std::string& text, std::vector<Diagnostic>& diags) { return fixture().load(text, diags); }
std::string errors_of(const std::string& text) { return fixture().errors_of(text); }

// A scenario whose world is `{size: [100, 80]` + world_keys + `}` (line 2) and whose one group
// has `senses: ` + senses (line 5, the value at column 94); no senses key when senses is empty.
std::string scenario(const std::string& world_keys, const std::string& senses = "") {
  return "scenario: s\nworld: {size: [100, 80]" + world_keys + "}\nteams: [guards, intruders]\ngroups:\n"
         "  - {name: g, team: guards, brain: brain.yaml, spawn: {centre: [20, 40], radius: 5}" +
         (senses.empty() ? "" : ", senses: " + senses) + "}\n";
}

// The error of a group's senses alone (line 5).
std::string senses_error(const std::string& senses) { return errors_of(scenario("", senses)); }

const std::string kGood = R"(scenario: stealth
world:
  size: [100, 80]
  obstacles: [{box: [[40, 0], [42, 30]]}]
  areas:
    - {name: goal, box: [[90, 40], [100, 60]]}
    - {name: pond, circle: [20, 20], radius: 3}
  pickups:
    - {name: medkit_a, kind: health, at: [10, 5], radius: 0.75, respawn: 12, teams: [intruders, guards],
       gives: {health: 25, armed: true, speed: 1.5, mood: calm}}
    - {name: ammo, at: [60, 70]}
teams: [guards, intruders]
groups:
  - name: guard
    team: guards
    brain: brain.yaml
    spawn: {centre: [20, 40], radius: 5}
    senses:
      sight:
        cones: [{range: 8, angle: 160}, {range: 30, angle: 50}]
        walls: false
        lod: {distance: 25, every: 4}
      hearing: {threshold: 0.2, walls: 0.3}
      touch: {reach: 0.2}
      targets: all
      memory: 7.5
      blackboard: {seen: target_visible, seen_x: target_x, heard: heard_noise}
  - name: intruder
    team: intruders
    brain: brain.yaml
    spawn: {centre: [80, 40], radius: 5}
    senses: {hearing: true}
  - {name: sheep, team: intruders, brain: brain.yaml, spawn: {centre: [50, 50], radius: 1}}
)";

double radians(double degrees) { return degrees * std::numbers::pi / 180; }

}  // namespace

TEST_SUITE("scenario perception") {

TEST_CASE("scenario perception: a full file is read into the perception structs") {
  std::vector<Diagnostic> diags;
  auto spec = load(kGood, diags);
  REQUIRE_MESSAGE(spec.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  CHECK(diags.empty());
  REQUIRE(spec->groups.size() == 3);

  const auto& guard = spec->groups[0];
  CHECK(guard.has_senses);
  const auto& s = guard.senses;
  REQUIRE(s.sight.cones.size() == 2);
  CHECK(s.sight.cones[0].range == 8);
  CHECK(s.sight.cones[0].half_angle == doctest::Approx(radians(80)));  // angle is the full width
  CHECK(s.sight.cones[1].range == 30);
  CHECK(s.sight.cones[1].half_angle == doctest::Approx(radians(25)));
  CHECK_FALSE(s.sight.walls);
  CHECK(s.sight.lod_distance == 25);
  CHECK(s.sight.lod_every == 4);
  CHECK(s.hearing.enabled);
  CHECK(s.hearing.threshold == 0.2);
  CHECK(s.hearing.walls == 0.3);
  CHECK(s.touch.enabled);
  CHECK(s.touch.reach == 0.2);
  CHECK(s.targets == Targets::All);
  CHECK(s.memory == 7.5);
  CHECK(s.any());
  REQUIRE(guard.sense_keys.size() == 3);
  CHECK(guard.sense_keys[0].slot == SenseSlot::Seen);
  CHECK(guard.sense_keys[0].key == "target_visible");
  CHECK(guard.sense_keys[0].line == 27);
  CHECK(guard.sense_keys[0].column == 26);
  CHECK(guard.sense_keys[1].slot == SenseSlot::SeenX);
  CHECK(guard.sense_keys[1].key == "target_x");
  CHECK(guard.sense_keys[1].column == 50);
  CHECK(guard.sense_keys[2].slot == SenseSlot::Heard);
  CHECK(guard.sense_keys[2].key == "heard_noise");
  CHECK(guard.sense_keys[2].column == 67);

  // `hearing: true` takes the defaults; everything else keeps its own.
  const auto& intruder = spec->groups[1];
  CHECK(intruder.has_senses);
  CHECK(intruder.senses.sight.cones.empty());
  CHECK(intruder.senses.sight.walls);
  CHECK(intruder.senses.sight.lod_distance == 0);
  CHECK(intruder.senses.sight.lod_every == 1);
  CHECK(intruder.senses.hearing.enabled);
  CHECK(intruder.senses.hearing.threshold == 0.1);
  CHECK(intruder.senses.hearing.walls == 1.0);
  CHECK_FALSE(intruder.senses.touch.enabled);
  CHECK(intruder.senses.targets == Targets::Enemies);
  CHECK(intruder.senses.memory == 5.0);
  CHECK(intruder.sense_keys.empty());

  CHECK_FALSE(spec->groups[2].has_senses);
  CHECK_FALSE(spec->groups[2].senses.any());

  REQUIRE(spec->areas.size() == 2);
  CHECK(spec->areas[0].name == "goal");
  CHECK(spec->areas[0].shape.shape == ObstacleShape::Box);
  CHECK(spec->areas[0].shape.centre == Vec2{95, 50});
  CHECK(spec->areas[0].shape.half_extents == Vec2{5, 10});
  CHECK(spec->areas[1].name == "pond");
  CHECK(spec->areas[1].shape.shape == ObstacleShape::Circle);
  CHECK(spec->areas[1].shape.centre == Vec2{20, 20});
  CHECK(spec->areas[1].shape.radius == 3);
  CHECK(spec->obstacles.size() == 1);  // areas are not obstacles

  REQUIRE(spec->pickups.size() == 2);
  const auto& medkit = spec->pickups[0];
  CHECK(medkit.spec.name == "medkit_a");
  CHECK(medkit.spec.kind == "health");
  CHECK(medkit.spec.position == Vec2{10, 5});
  CHECK(medkit.spec.radius == 0.75);
  CHECK(medkit.spec.respawn == 12);
  CHECK(medkit.spec.teams == std::vector<std::int32_t>{1, 0});
  CHECK(medkit.team_names == std::vector<std::string>{"intruders", "guards"});
  CHECK(medkit.line == 9);
  CHECK(medkit.column == 7);
  REQUIRE(medkit.gives.size() == 4);
  CHECK(medkit.gives[0] == std::pair<std::string, Value>{"health", std::int64_t{25}});
  CHECK(medkit.gives[1] == std::pair<std::string, Value>{"armed", true});
  CHECK(medkit.gives[2] == std::pair<std::string, Value>{"speed", 1.5});
  CHECK(medkit.gives[3] == std::pair<std::string, Value>{"mood", std::string("calm")});
  const auto& ammo = spec->pickups[1];  // the defaults
  CHECK(ammo.spec.name == "ammo");
  CHECK(ammo.spec.kind == "ammo");
  CHECK(ammo.spec.position == Vec2{60, 70});
  CHECK(ammo.spec.radius == 0.5);
  CHECK(ammo.spec.respawn == 10);
  CHECK(ammo.spec.teams.empty());
  CHECK(ammo.team_names.empty());
  CHECK(ammo.gives.empty());
  CHECK(ammo.line == 11);
}

TEST_CASE("scenario perception: the edges of the ranges are accepted") {
  std::vector<Diagnostic> diags;
  auto spec = load(scenario(", areas: [], pickups: [{name: p, at: [0, 80], respawn: 0, gives: {}}]",
                            "{sight: {cones: [{range: 0.5, angle: 360}], walls: true}, hearing: {walls: 0}, "
                            "touch: {}, memory: 0, targets: friends, blackboard: {}}"),
                   diags);
  REQUIRE_MESSAGE(spec.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  const auto& s = spec->groups[0].senses;
  CHECK(s.sight.cones[0].half_angle == doctest::Approx(std::numbers::pi));  // sees all round
  CHECK(s.sight.walls);
  CHECK(s.hearing.enabled);
  CHECK(s.hearing.walls == 0);
  CHECK(s.touch.enabled);  // `touch: {}` is touch with the defaults
  CHECK(s.touch.reach == 0);
  CHECK(s.memory == 0);
  CHECK(s.targets == Targets::Friends);
  CHECK(spec->areas.empty());
  REQUIRE(spec->pickups.size() == 1);
  CHECK(spec->pickups[0].spec.respawn == 0);  // on the world's edge is inside it

  // On a map: a pickup in a free cell is fine.
  diags.clear();
  spec = load("scenario: s\nworld: {map: room.map, pickups: [{name: p, at: [1.5, 3.5]}]}\nteams: [a]\ngroups:\n"
              "  - {name: g, team: a, brain: brain.yaml, spawn: {centre: [1.5, 1.5], radius: 0.2}, senses: {touch: true}}\n",
              diags);
  REQUIRE_MESSAGE(spec.has_value(), (diags.empty() ? "" : thicket::format_diagnostic(diags[0])));
  CHECK(spec->pickups[0].spec.position == Vec2{1.5, 3.5});
  CHECK(spec->groups[0].senses.touch.enabled);
  CHECK(spec->groups[0].senses.touch.reach == 0);
}

TEST_CASE("scenario perception: bad sight") {
  CHECK(senses_error("{sight: {cones: [{range: 8, angle: 0}]}}") ==
        "perception.yaml:5:129: error: 'angle' is the cone's full width in degrees, > 0 and <= 360, got 0\n");
  CHECK(senses_error("{sight: {cones: [{range: 8, angle: 400}]}}") ==
        "perception.yaml:5:129: error: 'angle' is the cone's full width in degrees, > 0 and <= 360, got 400\n");
  CHECK(senses_error("{sight: {cones: [{range: 0, angle: 90}]}}") ==
        "perception.yaml:5:119: error: 'range' must be a number > 0, got 0\n");
  CHECK(senses_error("{sight: {cones: [{range: 8}]}}") == "perception.yaml:5:111: error: a cone needs 'angle: DEGREES', its full width (360: all round)\n");
  CHECK(senses_error("{sight: {cones: [{rang: 8, angle: 90}]}}") ==
        "perception.yaml:5:112: error: unknown key 'rang' in a cone; did you mean 'range'? (allowed: range, angle)\n");  // not also "needs 'range'"
  CHECK(senses_error("{sight: {cones: []}}") ==
        "perception.yaml:5:110: error: 'cones' must be a non-empty list of cones {range: R, angle: DEGREES}, got an empty list\n");
  CHECK(senses_error("{sight: {cones: [8, 90]}}") ==
        "perception.yaml:5:111: error: a cone is {range: R, angle: DEGREES}, got 8\n"
        "perception.yaml:5:114: error: a cone is {range: R, angle: DEGREES}, got 90\n");
  CHECK(senses_error("{sight: {walls: false}}") == "perception.yaml:5:102: error: 'sight' needs 'cones: [{range: R, angle: DEGREES}, ...]'\n");
  CHECK(senses_error("{sight: {cones: [{range: 8, angle: 90}], walls: 1}}") ==
        "perception.yaml:5:142: error: 'walls' must be true or false, got 1\n");
  CHECK(senses_error("{sight: {cones: [{range: 8, angle: 90}], lod: {distance: 0, every: 0}}}") ==
        "perception.yaml:5:151: error: 'distance' must be a number > 0, got 0\n"
        "perception.yaml:5:161: error: 'every' must be a whole number >= 1, got 0\n");
  CHECK(senses_error("{sight: {cones: [{range: 8, angle: 90}], lod: {every: 2.5}}}") ==
        "perception.yaml:5:140: error: 'lod' needs 'distance: D', metres beyond which nothing is of interest\n"
        "perception.yaml:5:148: error: 'every' must be a whole number >= 1, got 2.5\n");
  CHECK(senses_error("{sight: 8}") ==
        "perception.yaml:5:102: error: 'sight' must be a mapping {cones: [{range: R, angle: DEGREES}, ...], walls: true, "
        "lod: {distance: D, every: N}}, got 8\n");
  std::string many = "{sight: {cones: [";
  for (int i = 0; i < 17; ++i) many += std::string(i ? ", " : "") + "{range: 1, angle: 10}";
  CHECK(senses_error(many + "]}}") ==
        "perception.yaml:5:110: error: 'cones' lists 17 cones; a sight has at most 16 (every cone is tested against "
        "every body near it)\n");
}

TEST_CASE("scenario perception: bad hearing, touch, targets and memory") {
  CHECK(senses_error("{hearing: {threshold: 0}}") == "perception.yaml:5:116: error: 'threshold' must be a number > 0, got 0\n");
  CHECK(senses_error("{hearing: {walls: 1.5}}") ==
        "perception.yaml:5:112: error: 'walls' of 'hearing' is the share of a sound's strength that passes walls, a number "
        "from 0 to 1, got 1.5\n");
  CHECK(senses_error("{hearing: {walls: true}}") ==
        "perception.yaml:5:112: error: 'walls' of 'hearing' is the share of a sound's strength that passes walls, a number "
        "from 0 to 1, got true\n");
  CHECK(senses_error("{hearing: {treshold: 0.5}}") ==
        "perception.yaml:5:105: error: unknown key 'treshold' in 'hearing'; did you mean 'threshold'? (allowed: threshold, walls)\n");
  CHECK(senses_error("{hearing: loud}") ==
        "perception.yaml:5:104: error: 'hearing' must be true/false or {threshold: T, walls: W}, got text 'loud'\n");
  CHECK(senses_error("{touch: {reach: -0.2}}") == "perception.yaml:5:110: error: 'reach' must be a number >= 0, got -0.2\n");
  CHECK(senses_error("{touch: 1}") == "perception.yaml:5:102: error: 'touch' must be true/false or {reach: R}, got 1\n");
  CHECK(senses_error("{touch: true, targets: enemys}") ==
        "perception.yaml:5:117: error: unknown targets 'enemys'; did you mean 'enemies'? (allowed: enemies, friends, all)\n");
  CHECK(senses_error("{touch: true, targets: [enemies]}") ==
        "perception.yaml:5:117: error: 'targets' must be one of enemies, friends, all, got a list\n");
  CHECK(senses_error("{touch: true, memory: -1}") == "perception.yaml:5:116: error: 'memory' must be a number >= 0 and at most 1000000000, got -1\n");
  CHECK(senses_error("{touch: true, memory: 1e300}") ==
        "perception.yaml:5:116: error: 'memory' must be a number >= 0 and at most 1000000000, got 1e300\n");
  CHECK(senses_error("{touch: true, memory: soon}") ==
        "perception.yaml:5:116: error: 'memory' must be a number >= 0 and at most 1000000000, got text 'soon'\n");
  CHECK(senses_error("{touch: true, smell: true}") ==
        "perception.yaml:5:108: error: unknown key 'smell' in 'senses' (allowed: sight, hearing, touch, targets, memory, "
        "blackboard, events)\n");
}

TEST_CASE("scenario perception: senses that sense nothing") {
  CHECK(senses_error("{}") == "perception.yaml:5:94: error: senses need at least one of sight, hearing, touch\n");
  CHECK(senses_error("{memory: 3}") == "perception.yaml:5:94: error: senses need at least one of sight, hearing, touch\n");
  CHECK(errors_of(scenario("", " ")) == "perception.yaml:5:86: error: senses need at least one of sight, hearing, touch\n");
  CHECK(senses_error("{hearing: false, touch: false}") ==
        "perception.yaml:5:94: error: senses need at least one of sight, hearing, touch (this group's are all switched off)\n");
  // A typo is one error, not two.
  CHECK(senses_error("{hearng: true}") ==
        "perception.yaml:5:95: error: unknown key 'hearng' in 'senses'; did you mean 'hearing'? (allowed: sight, hearing, "
        "touch, targets, memory, blackboard, events)\n");
  CHECK(senses_error("[sight]") ==
        "perception.yaml:5:94: error: 'senses' must be a mapping {sight, hearing, touch, targets, memory, blackboard}, got a list\n");
}

TEST_CASE("scenario perception: blackboard slots") {
  CHECK(senses_error("{touch: true, blackboard: {sen: target_visible}}") ==
        "perception.yaml:5:121: error: unknown sense slot 'sen' in 'blackboard' of 'senses'; did you mean 'seen'? (allowed: "
        "seen, seen_id, seen_x, seen_y, seen_distance, heard, heard_x, heard_y, heard_id, touched, remembered, memory_x, "
        "memory_y, memory_age, memory_id)\n");
  CHECK(senses_error("{touch: true, blackboard: {touched: a, touched: b}}") ==
        "perception.yaml:5:133: error: key 'touched' is given twice in this mapping (first at line 5, column 121); a "
        "mapping's keys must be unique (YAML would keep one of them, silently)\n");
  CHECK(senses_error("{touch: true, blackboard: {seen: 3x}}") ==
        "perception.yaml:5:127: error: slot 'seen' is written into a blackboard key, which must be a name (letters, digits, _; "
        "not starting with a digit), got text '3x'\n");
  CHECK(senses_error("{touch: true, blackboard: {seen: }}") ==
        "perception.yaml:5:121: error: slot 'seen' is written into a blackboard key, which must be a name (letters, digits, _; "
        "not starting with a digit), got nothing\n");
  CHECK(senses_error("{touch: true, hearing: true, blackboard: {heard: noise, touched: noise}}") ==
        "perception.yaml:5:159: error: slots 'heard' and 'touched' both write blackboard key 'noise'; give each its own key\n");
  // A slot of a sense the group lacks would never change; memory slots go with any sense.
  CHECK(senses_error("{touch: true, blackboard: {seen: a, heard_x: b, touched: c, remembered: d}}") ==
        "perception.yaml:5:127: error: slot 'seen' is written by sight, and this group has no sight\n"
        "perception.yaml:5:139: error: slot 'heard_x' is written by hearing, and this group has no hearing\n");
  CHECK(senses_error("{sight: {cones: [{range: 1, angle: 90}]}, touch: false, blackboard: {touched: c}}") ==
        "perception.yaml:5:172: error: slot 'touched' is written by touch, and this group has no touch\n");
  CHECK(senses_error("{touch: true, blackboard: [seen]}") ==
        "perception.yaml:5:120: error: 'blackboard' of 'senses' must be a mapping {SLOT: key, ...} (e.g. {seen: "
        "target_visible}), got a list\n");
}

TEST_CASE("scenario perception: bad areas") {
  // Wholly outside the world it could never be touched; reaching out of it is fine.
  CHECK(errors_of(scenario(", areas: [{name: door, box: [[120, 1], [130, 2]]}, {name: pond, circle: [-3, 5], radius: 2}]")) ==
        "perception.yaml:2:34: error: area 'door' spans (120, 1)..(130, 2), wholly outside the world (0, 0)..(100, 80): it "
        "could never be touched\n"
        "perception.yaml:2:75: error: area 'pond' spans (-5, 3)..(-1, 7), wholly outside the world (0, 0)..(100, 80): it "
        "could never be touched\n");
  std::vector<Diagnostic> diags;
  CHECK(load(scenario(", areas: [{name: door, box: [[90, 1], [130, 2]]}, {name: pond, circle: [-1, 5], radius: 2}]"), diags));
  CHECK(diags.empty());
  CHECK(errors_of(scenario(", areas: [{name: goal, box: [[1, 1], [2, 2]]}, {name: goal, circle: [5, 5], radius: 1}]")) ==
        "perception.yaml:2:78: error: an area named 'goal' is defined twice\n");
  CHECK(errors_of(scenario(", areas: [{name: pond, circle: [5, 5]}]")) ==
        "perception.yaml:2:34: error: a circle area needs 'radius: R'\n");
  CHECK(errors_of(scenario(", areas: [{name: pond, circle: [5, 5], radius: 0}]")) ==
        "perception.yaml:2:71: error: 'radius' must be a number > 0, got 0\n");
  CHECK(errors_of(scenario(", areas: [{name: 3x, polygon: [[0, 0], [1, 0], [1, 1]]}]")) ==
        "perception.yaml:2:41: error: an area name must be a name (letters, digits, _; not starting with a digit), got text '3x'\n"
        "perception.yaml:2:45: error: unknown key 'polygon' in an area (allowed: name, circle, radius, box)\n");
  CHECK(errors_of(scenario(", areas: [{box: [[1, 1], [2, 2]], radius: 1}]")) ==
        "perception.yaml:2:34: error: an area needs 'name: NAME'\n"
        "perception.yaml:2:58: error: unknown key 'radius' in a box area (allowed: name, box)\n");
  CHECK(errors_of(scenario(", areas: [{name: a, box: [[1, 1], [2, 2]], circle: [1, 1]}]")) ==
        "perception.yaml:2:44: error: an area is {name: NAME, box: [[x0, y0], [x1, y1]]} or {name: NAME, circle: [x, y], "
        "radius: R}; this one has both 'circle' and 'box'\n");
  CHECK(errors_of(scenario(", areas: [goal]")) ==
        "perception.yaml:2:34: error: an area is {name: NAME, box: [[x0, y0], [x1, y1]]} or {name: NAME, circle: [x, y], "
        "radius: R}, got text 'goal'\n");
  CHECK(errors_of(scenario(", areas: {goal: 1}")) ==
        "perception.yaml:2:33: error: 'areas' must be a list of touch areas: {name: NAME, box: [[x0, y0], [x1, y1]]} or "
        "{name: NAME, circle: [x, y], radius: R}, got a mapping\n");
}

TEST_CASE("scenario perception: bad pickups") {
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1]}, {name: kit, at: [2, 2]}]")) ==
        "perception.yaml:2:68: error: a pickup named 'kit' is defined twice\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], teams: [gards]}]")) ==
        "perception.yaml:2:68: error: unknown team 'gards'; did you mean 'guards'? (teams: guards, intruders)\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], teams: [guards, guards]}]")) ==
        "perception.yaml:2:76: error: team 'guards' is listed twice in 'teams'\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], teams: []}]")) ==
        "perception.yaml:2:67: error: 'teams' must be a non-empty list of the teams that may take the pickup (leave it out "
        "for any team), got an empty list\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [120, 5]}]")) ==
        "perception.yaml:2:52: error: pickup 'kit' at (120, 5) is outside the world (0, 0)..(100, 80): it could never be taken\n");
  CHECK(errors_of(scenario(", obstacles: [{circle: [30, 30], radius: 2}], pickups: [{name: kit, at: [30, 31]}]")) ==
        "perception.yaml:2:96: error: pickup 'kit' at (30, 31) is inside an obstacle: it could never be taken\n");
  CHECK(errors_of("scenario: s\nworld: {map: room.map, pickups: [{name: kit, at: [2.5, 2.5]}]}\nteams: [a]\ngroups:\n"
                  "  - {name: g, team: a, brain: brain.yaml, spawn: {centre: [1.5, 1.5], radius: 0.2}}\n") ==
        "perception.yaml:2:50: error: pickup 'kit' at (2.5, 2.5) is in a blocked cell of the map: it could never be taken\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], radius: 0, respawn: -1, kind: 3}]")) ==
        "perception.yaml:2:68: error: 'radius' must be a number > 0, got 0\n"
        "perception.yaml:2:80: error: 'respawn' must be a number >= 0 and at most 1000000000, got -1\n"
        "perception.yaml:2:90: error: 'kind' must be text (what brains are told it is: health, ammo, ...), got 3\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], gives: {hp: [1]}, give: {}}]")) ==
        "perception.yaml:2:72: error: the given value of 'hp' must be a number, true/false or text, got a list\n"
        "perception.yaml:2:78: error: unknown key 'give' in a pickup; did you mean 'gives'? (allowed: name, kind, at, radius, "
        "respawn, teams, gives)\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit, at: [1, 1], gives: 25}]")) ==
        "perception.yaml:2:67: error: 'gives' must be a mapping of key: given value, got 25\n");
  CHECK(errors_of(scenario(", pickups: [{at: here}]")) ==
        "perception.yaml:2:36: error: a pickup needs 'name: NAME'\n"
        "perception.yaml:2:41: error: 'at' must be a point [x, y] of two finite numbers, got text 'here'\n");
  CHECK(errors_of(scenario(", pickups: [{name: kit}]")) == "perception.yaml:2:36: error: a pickup needs 'at: [x, y]', where it lies\n");
  CHECK(errors_of(scenario(", pickups: [kit]")) ==
        "perception.yaml:2:36: error: a pickup is {name: NAME, at: [x, y], kind: K, radius: R, respawn: SECONDS, teams: "
        "[...], gives: {key: value}}, got text 'kit'\n");
}

TEST_CASE("scenario perception: every error of a file at once, in file order") {
  const std::string text = R"(scenario: s
world:
  size: [100, 80]
  areas: [{name: goal, box: [[1, 1], [2, 2]]}, {name: goal, box: [[3, 3], [4, 4]]}]
  pickups: [{name: kit, at: [200, 1], teams: [gaurds]}]
teams: [guards, intruders]
groups:
  - name: g
    team: guards
    brain: brain.yaml
    spawn: {centre: [20, 40], radius: 5}
    senses:
      sight: {cones: [{range: 8, angle: 0}]}
      hearing: {threshold: 0}
      touch: {reach: -1}
      targets: foes
      blackboard: {sen: x}
  - {name: h, team: intruders, brain: brain.yaml, spawn: {centre: [20, 40], radius: 5}, senses: {}}
)";
  CHECK(errors_of(text) ==
        "perception.yaml:4:55: error: an area named 'goal' is defined twice\n"
        "perception.yaml:5:29: error: pickup 'kit' at (200, 1) is outside the world (0, 0)..(100, 80): it could never be taken\n"
        "perception.yaml:5:47: error: unknown team 'gaurds'; did you mean 'guards'? (teams: guards, intruders)\n"
        "perception.yaml:13:41: error: 'angle' is the cone's full width in degrees, > 0 and <= 360, got 0\n"
        "perception.yaml:14:28: error: 'threshold' must be a number > 0, got 0\n"
        "perception.yaml:15:22: error: 'reach' must be a number >= 0, got -1\n"
        "perception.yaml:16:16: error: unknown targets 'foes' (allowed: enemies, friends, all)\n"
        "perception.yaml:17:20: error: unknown sense slot 'sen' in 'blackboard' of 'senses'; did you mean 'seen'? (allowed: "
        "seen, seen_id, seen_x, seen_y, seen_distance, heard, heard_x, heard_y, heard_id, touched, remembered, memory_x, "
        "memory_y, memory_age, memory_id)\n"
        "perception.yaml:18:97: error: senses need at least one of sight, hearing, touch\n");
}

TEST_CASE("scenario perception: the schema knows the perception keys") {
  std::string why;
  auto set = thicket::SchemaSet::load(THICKET_SOURCE_DIR "/schemas", why);
  REQUIRE_MESSAGE(set.has_value(), why);
  auto schema_errors = [&](const std::string& yaml) {
    std::vector<thicket::SchemaError> errors;
    set->validate(YAML::Load(yaml), "scenario.schema.json", errors);
    std::string out;
    for (const auto& e : errors) out += std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message + "\n";
    return out;
  };
  CHECK(schema_errors(kGood) == "");
  CHECK(schema_errors(scenario(", areas: [], pickups: [{name: p, at: [0, 80], respawn: 0, gives: {}}]",
                               "{sight: {cones: [{range: 0.5, angle: 360}], walls: true}, hearing: {walls: 0}, "
                               "touch: {}, memory: 0, targets: friends, blackboard: {}}")) == "");
  CHECK(schema_errors(scenario("", "{hearing: true, touch: false}")) == "");

  // Each bad key of the senses.
  for (const char* senses : {
           "{}", "{memory: 3}", "{smell: true}", "{sight: {walls: true}}", "{sight: {cones: []}}",
           "{sight: {cones: [{range: 8, angle: 0}]}}", "{sight: {cones: [{range: 8, angle: 400}]}}",
           "{sight: {cones: [{range: 0, angle: 90}]}}", "{sight: {cones: [{range: 8}]}}",
           "{sight: {cones: [{rang: 8, angle: 90}]}}", "{sight: {cones: [{range: 8, angle: 90}], walls: 1}}",
           "{sight: {cones: [{range: 8, angle: 90}], lod: {distance: 0, every: 1}}}",
           "{sight: {cones: [{range: 8, angle: 90}], lod: {distance: 5, every: 0}}}",
           "{sight: {cones: [{range: 8, angle: 90}], lod: {distance: 5}}}", "{hearing: {threshold: 0}}",
           "{hearing: {walls: 1.5}}", "{hearing: loud}", "{touch: {reach: -0.2}}", "{touch: 1}",
           "{touch: true, targets: enemys}", "{touch: true, memory: -1}", "{touch: true, blackboard: {sen: x}}",
           "{touch: true, blackboard: {seen: 3x}}", "[sight]"}) {
    INFO(senses);
    CHECK(schema_errors(scenario("", senses)) != "");
  }
  // Each bad key of the areas and pickups.
  for (const char* world : {
           ", areas: [{name: pond, circle: [5, 5]}]", ", areas: [{name: pond, circle: [5, 5], radius: 0}]",
           ", areas: [{name: 3x, box: [[1, 1], [2, 2]]}]", ", areas: [{box: [[1, 1], [2, 2]]}]",
           ", areas: [{name: a, box: [[1, 1], [2, 2]], circle: [1, 1], radius: 1}]",
           ", areas: [{name: a, polygon: [[0, 0], [1, 0], [1, 1]]}]", ", areas: {goal: 1}",
           ", pickups: [{name: kit}]", ", pickups: [{at: [1, 1]}]", ", pickups: [{name: kit, at: [1, 1], teams: []}]",
           ", pickups: [{name: kit, at: [1, 1], radius: 0}]",
           ", pickups: [{name: kit, at: [1, 1], respawn: -1}]", ", pickups: [{name: kit, at: [1, 1], kind: 3}]",
           ", pickups: [{name: kit, at: [1, 1], gives: {hp: [1]}}]", ", pickups: [{name: kit, at: [1, 1], give: {}}]",
           ", pickups: [kit]"}) {
    INFO(world);
    CHECK(schema_errors(scenario(world)) != "");
  }
}

}  // TEST_SUITE
