// The scenario file's reader: one class that checks every field of a scenario file and reports
// every problem at once (FILE:LINE:COL: error: ...). Private to its files: scenario.cpp (the
// top level, reporting, numbers and points, the world and its shapes), scenario_nav.cpp (grid
// maps, terrain, danger zones, waypoints, navmeshes), scenario_groups.cpp (teams, groups,
// spawns, vehicles, blackboards, metrics, record) and scenario_senses.cpp (senses, areas,
// pickups).
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "suggest.hpp"  // utf8_characters
#include "scenario.hpp"
#include "yaml_limits.hpp"
#include "yaml_scalar.hpp"

namespace thicket::scenario_read {

constexpr double kNoBound = std::numeric_limits<double>::infinity();
// A world's side (metres): a million kilometres, past any game and far from where doubles
// lose the centimetre. A map's origin is at most that far from (0, 0), so every point of a
// world, and of its shapes, is within kMaxCoordinate.
constexpr double kMaxWorldSide = 1e9;
constexpr double kMaxCoordinate = 1e10;


// A key and its value in a mapping; both undefined when the key is absent. Never assigned:
// assigning a YAML::Node writes into the node it refers to.
struct Field {
  Field(YAML::Node k, YAML::Node v) : key(std::move(k)), value(std::move(v)) {}
  Field(const Field&) = default;
  Field& operator=(const Field&) = delete;
  YAML::Node key, value;
  explicit operator bool() const { return key.IsDefined(); }
};

Field field(const YAML::Node& map, const std::string& name);
bool is_identifier(const std::string& s);
bool is_text(const YAML::Node& node);
// What the file says, for "got ..." in messages: `0`, `true`, text 'calm', a list, nothing.
std::string shown(const YAML::Node& node);
std::string point_text(world::Vec2 p);
// `path` as seen from the scenario file's folder (absolute paths as they are).
std::string beside(const std::string& scenario_file, const std::string& path);
// Why `path` cannot be read as a map or brain file ("" when it can be): missing, a folder, or a
// device (which would never end), as the loaders themselves say it.
std::string not_a_file(const std::string& path);

class ScenarioReader {
 public:
  ScenarioReader(const std::string& path, std::vector<Diagnostic>& diags)
      : path_(path), diags_(diags) {}

  std::optional<YAML::Node> parse(const std::string& text) {
    text_ = &text;
    return load_yaml_checked(text, path_, diags_);
  }

  void read(const YAML::Node& doc, ScenarioSpec& spec);

 private:
  // A node's place as messages give it, line and column from 1, the column in characters (as
  // editors count, and as columns_in_characters makes the reader's own errors): a place kept
  // in the spec for an error found later (a brain that fails, a covered spawn area, a
  // blackboard value) was in bytes, past an 'é' on its line.
  std::pair<int, int> place(const YAML::Node& node) const {
    const YAML::Mark m = node.Mark();
    const int line = m.line + 1;
    int column = m.column + 1;
    if (text_ && m.pos >= m.column && static_cast<size_t>(m.pos) <= text_->size()) {
      const size_t line_start = static_cast<size_t>(m.pos - m.column);
      // (yaml-cpp's columns on the first line do not count a byte order mark)
      const size_t from = line_start == 0 && text_->compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : line_start;
      if (static_cast<size_t>(m.pos) >= from)
        column = static_cast<int>(utf8_characters(std::string_view(*text_).substr(from, static_cast<size_t>(m.pos) - from))) + 1;
    }
    return {line, column};
  }
  const std::string* text_ = nullptr;  // (set by parse, alive while the spec is read)

  // ------------------------------------------------------------------ reporting

  void error(const YAML::Node& at, const std::string& message,
             const YAML::Node& fallback = YAML::Node(YAML::NodeType::Undefined));

  // At the value, or at its key where the value is empty.
  void error(const Field& at, const std::string& message) { error(at.value, message, at.key); }

  void reject_unknown_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what,
                           const std::string& where, const std::vector<std::string>& aliases = {});

  // The field, or an error at the mapping when it is absent. A near-miss key (`scenaro:`) has
  // its own "did you mean" error already, so it does not also count as missing.
  Field required(const YAML::Node& map, const std::string& key, const std::string& message);

  // The path of the file `f` names beside the scenario (`what`: "a brain file"), or nullopt with
  // an error: not text, or no such file (`noun` 'x' not found, with a did-you-mean of `extensions`).
  std::optional<std::string> file_beside(const Field& f, const std::string& what, const std::string& noun,
                                         const std::vector<std::string>& extensions);

  // ------------------------------------------------------------------ scalars and points

  std::optional<int64_t> whole_number(const Field& f, int64_t at_least, int64_t at_most);

  static std::optional<double> finite_number(const YAML::Node& node);

  // A finite number; above zero when `positive`, else zero or above; at most `at_most`.
  std::optional<double> measure(const Field& f, bool positive, double at_most = kNoBound);
  std::optional<world::Obstacle> reachable(const Field& f, world::Obstacle shape);

  // An optional measure: `out` keeps its default when the key is absent or wrong.
  void read_measure(const YAML::Node& map, const std::string& key, bool positive, double& out,
                    double at_most = kNoBound);

  static std::optional<world::Vec2> as_point(const YAML::Node& node);

  std::optional<world::Vec2> point(const Field& f);

  // `box: [[x0, y0], [x1, y1]]`, two opposite corners in either order.
  std::optional<std::pair<world::Vec2, world::Vec2>> corners(const Field& f);

  // ------------------------------------------------------------------ sections

  void read_run_settings(const YAML::Node& doc, ScenarioSpec& spec);

  template <class T, class Read>
  static void keep(const std::optional<Read>& value, T& out, bool& written) {
    if (!value) return;
    out = static_cast<T>(*value);
    written = true;
  }

  void read_world(const Field& world, ScenarioSpec& spec);

  // `map: FILE.map` with `cell: C` (metres per cell), `origin: [x, y]` and `terrain: {SYMBOL: cost | blocked}`.
  void read_map(const YAML::Node& world, const Field& map, ScenarioSpec& spec);

  // `terrain: {T: 3, W: blocked, G: 0.5}`: a cost multiplier for every cell with that symbol
  // (blocked symbols given a cost become passable), or `blocked`.
  void read_terrain(const Field& terrain, nav::GridMap& grid);

  // `danger: [{centre: [x, y], radius: R, cost: 50}, ...]`
  void read_danger(const Field& list, NavSpec& nav);

  // `waypoints: [[x, y], ...]` (edges between points that see each other), or
  // `waypoints: {points: [...], max_length: L}` or `{points: [...], edges: [[0, 1], ...]}`.
  void read_waypoints(const Field& wp, const std::vector<world::Obstacle>& obstacles, NavSpec& nav);

  // "inside an obstacle" or "in a blocked cell of the map" when p is, else "".
  static std::string inside_wall(world::Vec2 p, const std::vector<world::Obstacle>& obstacles, const NavSpec& nav);

  // `navmesh: true` or `navmesh: {cell: 0.2, agent_radius: 0.5}`.
  void read_navmesh(const Field& f, ScenarioSpec& spec);

  bool world_bounds_contains(world::Vec2 p) const { return known_bounds_.contains(p); }
  // " spans LO..HI, wholly outside the world MIN..MAX" when the world's size is known and the
  // shape's bounding box misses it; "" otherwise.
  std::string wholly_outside(const world::Obstacle& o) const;

  void read_obstacle(const YAML::Node& item, const YAML::Node& list_key, ScenarioSpec& spec);

  // What a shape is called in messages, the other keys its mapping may have (an area's name),
  // and whether polygons are allowed.
  struct ShapeWords {
    std::string noun;    // "obstacle": "a box obstacle", "unknown key 'x' in an obstacle"
    std::string shapes;  // the forms it may take, a whole phrase
    std::vector<std::string> other_keys;
    bool polygon = false;
  };

  // A circle, a box or (when allowed) a polygon, from a mapping; the other keys are the caller's.
  std::optional<world::Obstacle> read_shape(const YAML::Node& item, const ShapeWords& words);

  // `polygon: [[x, y], ...]`: >= 3 corners in order, a simple polygon with an area.
  std::optional<world::Obstacle> read_polygon(const Field& f);

  // teams and metrics: a list of unique identifiers. Returns whether the list is usable (a
  // name listed twice leaves it usable; a name that is not a name may have been meant for one).
  bool read_names(const Field& list, const std::string& what, std::vector<std::string>& out, bool may_be_empty = false);

  // `record: {keys: [...], every: N}`: the keys are names only here; whether some brain
  // declares them is known when the run is made (simulation, recorder.cpp).
  void read_record(const Field& record, RecordSpec& out);

  void read_groups(const Field& groups, ScenarioSpec& spec);

  // Reads one group; false when it had errors (they are reported).
  bool read_group(const YAML::Node& map, AgentGroup& group, const ScenarioSpec& spec);

  void read_team(const Field& team, AgentGroup& group, const ScenarioSpec& spec);

  void read_brain(const Field& brain, AgentGroup& group);

  void read_spawn(const Field& spawn, SpawnArea& area, const ScenarioSpec& spec, const std::string& where);

  // Whether some passable cell of the map overlaps the area.
  static bool has_free_cell(const nav::GridMap& map, const SpawnArea& area);

  void read_vehicle(const Field& vehicle, world::Vehicle& out);

  // A group's initial `blackboard:` values, or what a pickup `gives:` (what_value: "initial
  // value", "given value"): key: number, true/false or text.
  void read_blackboard(const Field& blackboard, std::vector<std::pair<std::string, Value>>& out,
                       const std::string& what_value = "initial value", std::vector<std::pair<int, int>>* at = nullptr);

  // ------------------------------------------------------------------ perception (issue 13)

  std::optional<bool> boolean(const Field& f);

  // `senses: {sight: {cones: [...], walls, lod}, hearing, touch, targets, memory, blackboard}`.
  void read_senses(const Field& f, AgentGroup& group);

  // `events: {seen: saw_enemy, lost_sight: lost_enemy, heard: noise, forgot: false}`: the event
  // each percept change sends (SPEC 4.1); false: none.
  void read_sense_events(const Field& f, std::vector<std::string>& names, std::vector<std::pair<int, int>>& places);

  // `hearing: true` / `touch: false`, or a mapping of settings (which switches the sense on).
  template <class ReadMap>
  void read_switch_or_map(const Field& f, bool& enabled, const std::string& form, ReadMap read_map);

  // `sight: {cones: [{range: 8, angle: 160}, ...], walls: true, lod: {distance: 25, every: 4}}`.
  void read_sight(const Field& f, perception::SightSpec& sight);

  // `{range: 8, angle: 160}`: angle is the cone's full angle in degrees, the spec keeps half of it in radians.
  std::optional<perception::SightCone> read_cone(const YAML::Node& item, const YAML::Node& list_key);

  // `blackboard: {seen: target_visible, heard_x: noise_x}`: a percept slot -> the brain's key.
  void read_sense_keys(const Field& f, std::vector<SenseBinding>& out);

  // `areas: [{name: goal, box: [[x0, y0], [x1, y1]]}, {name: pond, circle: [x, y], radius: R}]`.
  void read_areas(const Field& list, ScenarioSpec& spec);

  // An area's or a pickup's `name:`: a name not used before by another of its kind.
  bool read_unique_name(const YAML::Node& item, const std::string& what, std::set<std::string>& names, std::string& out);

  // `pickups: [{name, kind, at, radius, respawn, teams, gives}]`. Read after the teams, which
  // `teams:` names, and after the obstacles and the map, which `at` must stay clear of.
  void read_pickups(const Field& list, ScenarioSpec& spec);

  // A pickup whose centre is outside the world or inside a wall could never be taken.
  void check_reachable(const Field& at, const std::string& name, world::Vec2 p, const ScenarioSpec& spec);

  // `teams: [guards]`: the teams that may take it, by name, resolved to their ids.
  void read_pickup_teams(const Field& teams, PickupDecl& decl, const ScenarioSpec& spec);

  std::string path_;
  std::vector<Diagnostic>& diags_;
  bool world_known_ = false;  // the world's size read well, so spawn areas can be checked against it
  world::Bounds known_bounds_{};
  bool teams_known_ = false;  // the teams list read well, so an unknown team is the group's fault
  // A teams list with bad entries: a name that is one of them is that entry's fault (said
  // there); any other unknown name is still the group's (one bad entry hid them all).
  bool teams_listed_ = false;
  std::vector<std::string> bad_teams_;
  bool team_unknown_said(const std::string& name) const {
    return teams_known_ || (teams_listed_ && std::find(bad_teams_.begin(), bad_teams_.end(), name) == bad_teams_.end());
  }
  std::map<std::string, int> group_names_;  // -> the line its first group names it at
  int64_t total_agents_ = 0;  // counts of the groups read so far
};

}  // namespace thicket::scenario_read
