// Scenario files (issue 7): a world, teams, groups of agents with brains, and run settings.
// Parsed and validated here; run by simulation.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/nav.hpp"
#include "thicket/perception.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace thicket {

// The longest duration (seconds) a scenario may give a memory or a pickup's respawn: about 32
// years, "for ever" in any game, and still a whole number of ticks at any usual dt.
inline constexpr double kMaxSeconds = 1e9;

// A percept written into a blackboard key each tick (issue 13): `senses: {blackboard: {SLOT: key}}`.
// Slots and the key's type the brain must declare:
//   seen (bool)          sight sees a target now          seen_id (number) the nearest one's agent id (0: none)
//   seen_x, seen_y (number)  its position                 seen_distance (number) m to it
//   heard (bool)         a sound at or above the threshold now (the loudest at the ear counts)
//   heard_x, heard_y (number)  where that sound is        heard_id (number) its source agent (0 anonymous)
//   touched (bool)       touching a target body, an area or an active pickup now
//   remembered (bool)    memory holds an agent (any sense) now
//   memory_x, memory_y (number) the most recently perceived remembered agent's last known position
//   memory_age (number)  seconds since it was perceived
//   memory_id (number)   its agent id (0: none)
// Numbers keep their last value when there is nothing to report (booleans go false).
enum class SenseSlot : uint8_t {
  Seen, SeenId, SeenX, SeenY, SeenDistance, Heard, HeardX, HeardY, HeardId, Touched,
  Remembered, MemoryX, MemoryY, MemoryAge, MemoryId
};
struct SenseBinding {
  SenseSlot slot;
  std::string key;        // the brain's blackboard key
  int line = 0, column = 0;  // of the key's value, for errors found when the run is made
};
// Perception events (SPEC 4.1), by default named as here, in pairs (gained, lost): any agent in
// sight, any sound heard, any touch, any agent remembered.
inline constexpr const char* kPerceptEventNames[] = {"seen", "lost_sight", "heard", "quiet",
                                                     "touched", "untouched", "remembered", "forgot"};

// The slot names as written in scenarios, in SenseSlot order.
inline constexpr const char* kSenseSlotNames[] = {
    "seen",  "seen_id",    "seen_x",   "seen_y",   "seen_distance", "heard",      "heard_x", "heard_y",
    "heard_id", "touched", "remembered", "memory_x", "memory_y", "memory_age", "memory_id"};

// A pickup as written in a scenario: the manager's PickupSpec plus what taking it gives.
struct PickupDecl {
  perception::PickupSpec spec;
  // `gives: {health: 25, armed: true}`: blackboard values for the taker (numbers are added to
  // the key's value, other types replace it); a key the taker's brain lacks is skipped.
  std::vector<std::pair<std::string, Value>> gives;
  std::vector<std::string> team_names;  // `teams:` as written (spec.teams resolved from them)
  int line = 0, column = 0;
  std::vector<std::pair<int, int>> gives_at;  // each given key's line and column, as `gives`
};

// Where a group's agents appear: uniformly at random (from the run seed) in a disc or a box.
struct SpawnArea {
  enum class Shape { Disc, Box } shape = Shape::Disc;
  world::Vec2 centre{0, 0};
  double radius = 0;                    // Disc
  world::Vec2 min{0, 0}, max{0, 0};     // Box
};

struct AgentGroup {
  std::string name;
  std::string team;                     // one of ScenarioSpec::teams
  uint32_t count = 1;
  std::string brain;                    // brain file path, resolved relative to the scenario file
  int brain_line = 0, brain_column = 0;  // where its `brain:` value is, for a brain that does not load
  SpawnArea spawn;
  int spawn_line = 0, spawn_column = 0;  // where `spawn:` is, for errors found when the run is made
  world::Vehicle vehicle;               // mass, max_speed, max_force, radius
  double facing = 0;                    // degrees: the way its agents face at the start (0: +x, 90: +y)
  std::vector<std::pair<std::string, Value>> blackboard;  // initial values (checked against the brain at load)
  std::vector<std::pair<int, int>> blackboard_at;         // line and column of each of those keys in the file
  // The values a sweep (`sweep:`, --set) wrote, by key, as their text: the brain's declaration
  // types them when the run is made (swept_blackboard_value), so a string key keeps "007" and
  // "true" as text, where the text alone read them as a number and a bool.
  std::vector<std::pair<std::string, std::string>> blackboard_swept;
  // `senses:` (issue 13): sight cones, hearing, touch, memory; none when the group has no key.
  bool has_senses = false;
  perception::Senses senses;
  std::vector<SenseBinding> sense_keys;  // `senses: {blackboard: {seen: target_visible, ...}}`
  // Perception events (SPEC 4.1): the event sent when a sense is gained or lost, in
  // kPerceptEventNames order; `senses: {events: {seen: saw_enemy, forgot: false}}` renames them
  // ("" : not sent). Sent to fsm brains only.
  std::vector<std::string> sense_events{std::begin(kPerceptEventNames), std::end(kPerceptEventNames)};
  // Where `events:` is (0: not given) and each name given in it (0: the default name), for the
  // checks against the brain when the run is made.
  std::pair<int, int> sense_events_at{0, 0};
  std::vector<std::pair<int, int>> sense_event_at = std::vector<std::pair<int, int>>(std::size(kPerceptEventNames));
};

// Navigation in a scenario's world (issue 12): a grid map, waypoints, a navmesh, danger zones.
struct NavSpec {
  std::shared_ptr<const nav::GridMap> map;   // `map:` loaded, placed (cell, origin), terrain applied
  std::string map_path;                      // as resolved beside the scenario
  std::vector<nav::DangerZone> danger;       // `danger:`: in every plan of the run
  bool has_waypoints = false;
  std::vector<world::Vec2> waypoints;
  std::vector<std::pair<uint32_t, uint32_t>> waypoint_edges;  // hand-made; empty: automatic
  double waypoint_max_length = 0;            // automatic edges: 0 = any length
  bool navmesh = false;
  double navmesh_cell = 0.2;                 // Recast's voxel size, m
  double navmesh_agent_radius = 0.5;         // the mesh keeps this far from walls, m
  int navmesh_line = 0, navmesh_column = 0;  // where `navmesh:` is, for a build that fails
};

// `record: {keys: [health, target], every: 5}` (issue 14): what `--record` keeps. The keys are
// checked against the groups' brains when the run is made (errors at each key's place).
struct RecordSpec {
  std::vector<std::string> keys;
  std::vector<std::pair<int, int>> key_places;  // line, column of each key
  uint32_t every = 1;                           // a tick line every N ticks
  bool has_every = false;
};

// `sweep:` (issue 15, sweep.hpp): one swept key and the values it takes, as text.
struct SweepAxis {
  std::string key;                 // e.g. groups.minions.count, seed
  std::vector<std::string> values;
  int line = 0, column = 0;        // of the key in the scenario; 0 for --set
  std::vector<std::pair<int, int>> value_at;  // line and column of each value in the file (empty for --set)
};

struct ScenarioSpec {
  std::string name;
  std::string path;                     // the scenario file as named
  uint64_t ticks = 600;                 // default when the file says nothing and the CLI neither
  double dt = 0.1;
  uint64_t seed = 1;
  bool has_ticks = false, has_dt = false, has_seed = false;  // written in the file
  world::Bounds bounds{{0, 0}, {100, 100}};
  std::vector<world::Obstacle> obstacles;
  NavSpec nav;
  std::vector<std::string> teams;       // team names; a team's index is its id in the world
  std::vector<AgentGroup> groups;
  std::vector<std::string> metrics;     // metric names the run reports (others are errors at run time)
  // Perception (issue 13): touch areas and pickups in the world (`world: {areas: [...], pickups: [...]}`).
  std::vector<perception::Area> areas;
  std::vector<PickupDecl> pickups;
  RecordSpec record;
  std::vector<SweepAxis> sweep;         // `sweep:` in file order; empty without one
  // Every group of the file was read, so `groups` names every brain (of a partial spec: see
  // load_scenario).
  bool groups_complete = false;
  // Groups read with errors of their own (a bad count, a blackboard value of nan): not in
  // `groups`, but what of them did read (their brain, their other blackboard values) is still
  // checked against the brains when the file fails to load (check_groups_of_failed_load).
  std::vector<AgentGroup> groups_with_errors;
};

// Reads and validates a scenario file; nullopt with every diagnostic on error.
// Puts diags[from..] in a scenario's order: other files' (a map, a brain) first, each in its
// own order, then the scenario's by line and column.
void sort_scenario_diagnostics(const std::string& path, std::vector<Diagnostic>& diags, size_t from);

// partial: when the file has errors but reads as YAML, what was read of it (for
// check_groups_of_failed_load in simulation.hpp); untouched otherwise.
std::optional<ScenarioSpec> load_scenario(const std::string& path, std::vector<Diagnostic>& diags,
                                          ScenarioSpec* partial = nullptr);
std::optional<ScenarioSpec> load_scenario_text(const std::string& text, const std::string& path,
                                               std::vector<Diagnostic>& diags, ScenarioSpec* partial = nullptr);

}  // namespace thicket
