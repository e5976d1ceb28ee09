// Scenario files: read the YAML, check every field, and report every problem at once
// (FILE:LINE:COL: error: ...), as the brain loader does. The format is documented by
// schemas/scenario.schema.json; this file is what decides, the schema is what editors show.
#include "scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <set>
#include <sstream>
#include <utility>

#include "suggest.hpp"
#include "sweep.hpp"
#include "yaml_limits.hpp"
#include "yaml_scalar.hpp"

namespace thicket {
namespace {
namespace fs = std::filesystem;

// The most agents a scenario may spawn, over all its groups: a count is memory (a blackboard,
// a Lua agent table, a world entity each), and a typo of a few zeros must not exhaust it.
constexpr int64_t kMaxAgents = 100000;

const std::vector<std::string> kTopKeys = {"scenario", "seed", "ticks", "dt", "world", "teams", "groups", "metrics", "record", "sweep"};
const std::vector<std::string> kWorldKeys = {"size", "obstacles", "map", "cell", "origin", "terrain", "danger", "waypoints", "navmesh",
                                             "areas", "pickups"};
// The columns of --out's rows before the metrics (runtime/cli/run_results.cpp): no metric
// may take one of these names.
constexpr const char* kRunColumns[] = {"run",         "seed",   "ticks",           "agents_start", "agents_end",
                                       "agent_ticks", "wall_s", "agent_ticks_per_s", "script_errors"};
const std::vector<std::string> kGroupKeys = {"name", "team", "count", "brain", "spawn", "vehicle", "blackboard", "senses"};
const std::vector<std::string> kSensesKeys = {"sight", "hearing", "touch", "targets", "memory", "blackboard", "events"};
const std::vector<std::string> kPickupKeys = {"name", "kind", "at", "radius", "respawn", "teams", "gives"};
// Every cone is tested against every body near the agent, and a percept names its cone in a byte.
constexpr size_t kMaxCones = 16;
const std::vector<std::string> kSpawnKeys = {"centre", "radius", "box"};  // and `center`, silently
const std::vector<std::string> kVehicleKeys = {"mass", "max_speed", "max_force", "radius"};

// A key and its value in a mapping; both undefined when the key is absent. Never assigned:
// assigning a YAML::Node writes into the node it refers to.
struct Field {
  Field(YAML::Node k, YAML::Node v) : key(std::move(k)), value(std::move(v)) {}
  Field(const Field&) = default;
  Field& operator=(const Field&) = delete;
  YAML::Node key, value;
  explicit operator bool() const { return key.IsDefined(); }
};

Field field(const YAML::Node& map, const std::string& name) {
  if (map.IsMap())
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == name) return {it->first, it->second};
  return {YAML::Node(YAML::NodeType::Undefined), YAML::Node(YAML::NodeType::Undefined)};
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_text(const YAML::Node& node) {
  return node.IsScalar() && classify_scalar(node).kind == ScalarKind::String;
}

// What the file says, for "got ..." in messages: `0`, `true`, text 'calm', a list, nothing.
std::string shown(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (!node.IsScalar()) return describe_node(node);
  Scalar s = classify_scalar(node);
  if (s.kind == ScalarKind::Null) return "nothing";
  if (s.kind == ScalarKind::String) return "text '" + s.text + "'";
  return s.text;
}

// A short list of scalars as written ("[100]", "[0, x]"), or of such lists ("[[.nan, 1], [2,
// 3]]"), else as shown() says it.
std::string shown_list(const YAML::Node& node, int depth = 0) {
  if (!node.IsSequence() || node.size() > 4) return shown(node);
  std::string out = "[";
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (node[i].IsSequence() && depth == 0) {
      std::string inner = shown_list(node[i], 1);
      if (inner.empty() || inner[0] != '[') return shown(node);
      out += (i ? ", " : "") + inner;
      continue;
    }
    if (!node[i].IsScalar()) return shown(node);
    const std::string item = clipped(node[i].Scalar(), 20);
    const bool text = classify_scalar(node[i]).kind == ScalarKind::String;  // as written: [1, "2"], not [1, 2]
    out += (i ? ", " : "") + (text ? "\"" + item + "\"" : item);
  }
  return out + "]";
}

std::string point_text(world::Vec2 p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%g, %g)", p.x, p.y);
  return buf;
}

// A bound as a message writes it: 1000000, not 1e+06.
std::string number_text(double bound) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", bound);
  return buf;
}
constexpr double kNoBound = std::numeric_limits<double>::infinity();
// A world's side (metres): a million kilometres, past any game and far from where doubles
// lose the centimetre.
constexpr double kMaxWorldSide = 1e9;

std::string beside(const std::string& scenario_file, const std::string& path) {
  fs::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (fs::path(scenario_file).parent_path() / p).lexically_normal().string();
}

// Why `path` cannot be read as a map or brain file ("" when it can be): missing, a folder, or a
// device (which would never end), as the loaders themselves say it.
std::string not_a_file(const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::File: return "";
    case PathKind::Missing: return "not found";
    case PathKind::Folder: return "is a folder, not a file";
    case PathKind::Device: return "cannot be read: a device, not a file";
    case PathKind::Other: break;
  }
  return "is not a regular file";
}

class ScenarioReader {
 public:
  ScenarioReader(const std::string& path, std::vector<Diagnostic>& diags)
      : path_(path), diags_(diags), diags_at_start_(diags.size()) {}

  std::optional<YAML::Node> parse(const std::string& text) { return load_yaml_checked(text, path_, diags_); }

  void read(const YAML::Node& doc, ScenarioSpec& spec) {
    if (!doc.IsDefined() || doc.IsNull()) {
      diags_.push_back({Severity::Error, path_, 1, 1, "the file is empty; a scenario file starts with 'scenario: NAME'"});
      return;
    }
    if (!doc.IsMap()) {
      error(doc, "the top level must be a mapping starting with 'scenario: NAME', got " + shown(doc));
      return;
    }
    reject_unknown_keys(doc, kTopKeys, "top-level key", "");
    if (Field name = required(doc, "scenario", "a scenario file needs 'scenario: NAME' at the top level")) {
      if (is_text(name.value) && !name.value.Scalar().empty()) spec.name = name.value.Scalar();
      else error(name, "'scenario' names the scenario and must be text, got " + shown(name.value));
    }
    read_run_settings(doc, spec);
    Field world = required(doc, "world", "a scenario needs 'world: {size: [width, height]}'");
    if (world) read_world(world, spec);
    if (Field teams = required(doc, "teams", "a scenario needs 'teams: [NAME, ...]', the sides its agents are on"))
      teams_known_ = read_names(teams, "team", spec.teams);
    // Perception's world keys come after the teams, which pickups name (errors are sorted by
    // place in the file anyway).
    if (world && world.value.IsMap()) {
      if (Field areas = field(world.value, "areas")) read_areas(areas, spec);
      if (Field pickups = field(world.value, "pickups")) read_pickups(pickups, spec);
    }
    if (Field groups = required(doc, "groups", "a scenario needs 'groups:', a list of agent groups "
                                               "(each with name, team, brain and spawn)"))
      read_groups(groups, spec);
    if (Field metrics = field(doc, "metrics")) read_names(metrics, "metric", spec.metrics, /*may_be_empty=*/true);
    if (Field record = field(doc, "record")) read_record(record, spec.record);
    // The sweep names groups and their senses: read once they read well (sweep.cpp).
    if (Field sweep = field(doc, "sweep"))
      if (std::none_of(diags_.begin() + static_cast<std::ptrdiff_t>(diags_at_start_), diags_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; }))
        read_sweep(sweep.key, sweep.value, spec, path_, diags_);
  }

 private:
  // ------------------------------------------------------------------ reporting

  void error(const YAML::Node& at, const std::string& message,
             const YAML::Node& fallback = YAML::Node(YAML::NodeType::Undefined)) {
    Diagnostic d;
    d.file = path_;
    // An empty value's mark is wherever the parser went next (often the next line), so a null
    // is placed at its key or list when there is one.
    bool at_has_place = at.IsDefined() && !at.Mark().is_null() && !(at.IsNull() && fallback.IsDefined());
    const YAML::Node& place = at_has_place ? at : fallback;
    if (place.IsDefined() && !place.Mark().is_null()) {
      d.line = place.Mark().line + 1;
      d.column = place.Mark().column + 1;
    }
    d.message = message;
    diags_.push_back(std::move(d));
  }

  // At the value, or at its key where the value is empty.
  void error(const Field& at, const std::string& message) { error(at.value, message, at.key); }

  void reject_unknown_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what,
                           const std::string& where, const std::vector<std::string>& aliases = {}) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) {
        error(it->first, "a key must be a name, got " + shown(it->first) + " as a key" + where);
        continue;
      }
      const std::string key = it->first.Scalar();
      bool known = std::find(allowed.begin(), allowed.end(), key) != allowed.end() ||
                   std::find(aliases.begin(), aliases.end(), key) != aliases.end();
      if (!known)
        error(it->first, "unknown " + what + " '" + key + "'" + where + did_you_mean(key, allowed) +
                             " (allowed: " + join_names(allowed) + ")");
      // (A key given twice: the YAML loader reports it, yaml_limits.cpp.)
    }
  }

  // The field, or an error at the mapping when it is absent. A near-miss key (`scenaro:`) has
  // its own "did you mean" error already, so it does not also count as missing.
  Field required(const YAML::Node& map, const std::string& key, const std::string& message) {
    Field f = field(map, key);
    if (f) return f;
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && closest_name(it->first.Scalar(), {key}) == key) return f;
    error(map, message);
    return f;
  }

  // ------------------------------------------------------------------ scalars and points

  std::optional<int64_t> whole_number(const Field& f, int64_t at_least, int64_t at_most) {
    Scalar s = classify_scalar(f.value);
    if (f.value.IsScalar() && s.kind == ScalarKind::Integer && s.integer >= at_least && s.integer <= at_most)
      return s.integer;
    // A number of digits past int64 reads as a float: it is too large, not "no whole number".
    const std::string& text = f.value.IsScalar() ? f.value.Scalar() : std::string();
    bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    bool too_large = (s.kind == ScalarKind::Integer && s.integer > at_most) || (s.kind == ScalarKind::Float && digits);
    std::string limit = too_large ? " and <= " + std::to_string(at_most) : "";
    error(f, "'" + f.key.Scalar() + "' must be a whole number >= " + std::to_string(at_least) + limit + ", got " +
                 shown(f.value) + whole_number_hint(f.value));
    return std::nullopt;
  }

  static std::optional<double> finite_number(const YAML::Node& node) {
    Scalar s = classify_scalar(node);
    bool numeric = s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float;
    if (node.IsScalar() && numeric && std::isfinite(s.number)) return s.number;
    return std::nullopt;
  }

  // A finite number; above zero when `positive`, else zero or above; at most `at_most`.
  std::optional<double> measure(const Field& f, bool positive, double at_most = kNoBound) {
    auto v = finite_number(f.value);
    if (v && (positive ? *v > 0 : *v >= 0) && *v <= at_most) return v;
    std::string limit = at_most < kNoBound ? " and at most " + number_text(at_most) : "";
    error(f, "'" + f.key.Scalar() + "' must be a number " + (positive ? "> 0" : ">= 0") + limit + ", got " + shown(f.value));
    return std::nullopt;
  }

  // An optional measure: `out` keeps its default when the key is absent or wrong.
  void read_measure(const YAML::Node& map, const std::string& key, bool positive, double& out,
                    double at_most = kNoBound) {
    if (Field f = field(map, key))
      if (auto v = measure(f, positive, at_most)) out = *v;
  }

  static std::optional<world::Vec2> as_point(const YAML::Node& node) {
    if (!node.IsSequence() || node.size() != 2) return std::nullopt;
    auto x = finite_number(node[0]), y = finite_number(node[1]);
    if (!x || !y) return std::nullopt;
    return world::Vec2{*x, *y};
  }

  std::optional<world::Vec2> point(const Field& f) {
    if (auto p = as_point(f.value)) return p;
    error(f, "'" + f.key.Scalar() + "' must be a point [x, y] of two finite numbers, got " + shown_list(f.value));
    return std::nullopt;
  }

  // `box: [[x0, y0], [x1, y1]]`, two opposite corners in either order.
  std::optional<std::pair<world::Vec2, world::Vec2>> corners(const Field& f) {
    if (f.value.IsSequence() && f.value.size() == 2) {
      auto a = as_point(f.value[0]), b = as_point(f.value[1]);
      if (a && b) return std::pair{*a, *b};
    }
    error(f, "'" + f.key.Scalar() + "' must be two corners [[x0, y0], [x1, y1]] of finite numbers, got " + shown_list(f.value));
    return std::nullopt;
  }

  // ------------------------------------------------------------------ sections

  void read_run_settings(const YAML::Node& doc, ScenarioSpec& spec) {
    constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
    if (Field f = field(doc, "seed")) keep(whole_number(f, 0, kNoLimit), spec.seed, spec.has_seed);
    if (Field f = field(doc, "ticks")) keep(whole_number(f, 0, kNoLimit), spec.ticks, spec.has_ticks);
    if (Field f = field(doc, "dt")) keep(measure(f, /*positive=*/true, kMaxDt), spec.dt, spec.has_dt);
  }

  template <class T, class Read>
  static void keep(const std::optional<Read>& value, T& out, bool& written) {
    if (!value) return;
    out = static_cast<T>(*value);
    written = true;
  }

  void read_world(const Field& world, ScenarioSpec& spec) {
    if (!world.value.IsMap()) {
      error(world, "'world' must be a mapping {size: [width, height], obstacles: [...]} or {map: FILE.map, cell: 1}, got " +
                       shown(world.value));
      return;
    }
    reject_unknown_keys(world.value, kWorldKeys, "key", " in 'world'");
    Field map = field(world.value, "map");
    if (map) {
      read_map(world.value, map, spec);
    } else {
      for (const char* key : {"cell", "origin", "terrain"})
        if (Field f = field(world.value, key)) error(f.key, std::string("'") + key + "' places a grid map: it needs 'map: FILE.map' beside it");
    }
    Field size = field(world.value, "size");
    if (map && size) {
      error(size.key, "'size' comes from the map (its width and height times 'cell'); give one of 'size' and 'map'");
    } else if (!map) {
      if (Field given = required(world.value, "size", "'world' needs 'size: [width, height]' (or 'map: FILE.map')")) {
        auto wh = as_point(given.value);
        if (wh && wh->x > 0 && wh->y > 0 && wh->x <= kMaxWorldSide && wh->y <= kMaxWorldSide) {
          spec.bounds = {{0, 0}, *wh};
          known_bounds_ = spec.bounds;
          world_known_ = true;
        } else {
          error(given, "'size' must be [width, height], both numbers > 0 and at most 1000000000 (metres), got " +
                           (wh ? "[" + point_text(*wh).substr(1, point_text(*wh).size() - 2) + "]" : shown_list(given.value)));
        }
      }
    }
    Field obstacles = field(world.value, "obstacles");
    if (obstacles && !obstacles.value.IsNull()) {
      if (!obstacles.value.IsSequence())
        error(obstacles, "'obstacles' must be a list of {circle: [x, y], radius: R}, {box: [[x0, y0], [x1, y1]]} and "
                         "{polygon: [[x, y], ...]}, got " + shown(obstacles.value));
      else
        for (const YAML::Node& item : obstacles.value) read_obstacle(item, obstacles.key, spec);
    }
    Field danger = field(world.value, "danger"), waypoints = field(world.value, "waypoints"),
          navmesh = field(world.value, "navmesh");
    if (danger) read_danger(danger, spec.nav);
    if (waypoints) read_waypoints(waypoints, spec.obstacles, spec.nav);
    if (navmesh) read_navmesh(navmesh, spec);
    // What plans is the navmesh, else the waypoints, else the map: a key the planner would
    // ignore is an error, not a silent no-op.
    if (map && spec.nav.navmesh)
      error(navmesh.key, "a navmesh is built from the world's shapes, not from a map's cells; a world with 'map' "
                         "plans on the map: give one of 'map' and 'navmesh'");
    if (danger && !(map && !spec.nav.navmesh && !waypoints))
      error(danger.key, std::string("danger zones are priced by grid searches, and this world plans with ") +
                            (spec.nav.navmesh ? "its navmesh" : waypoints ? "its waypoints" : "straight lines (it has no 'map')"));
  }

  // `map: FILE.map` with `cell: C` (metres per cell), `origin: [x, y]` and `terrain: {SYMBOL: cost | blocked}`.
  void read_map(const YAML::Node& world, const Field& map, ScenarioSpec& spec) {
    double cell = 1.0;
    world::Vec2 origin{0, 0};
    read_measure(world, "cell", /*positive=*/true, cell);
    if (Field o = field(world, "origin"))
      if (auto p = point(o)) origin = *p;
    if (!is_text(map.value) || map.value.Scalar().empty()) {
      error(map, "'map' must be the path of a Moving AI .map file, relative to this scenario, got " + shown(map.value));
      return;
    }
    std::string path = beside(path_, map.value.Scalar());
    if (std::string why = not_a_file(path); !why.empty()) {
      error(map, "map file '" + map.value.Scalar() + "' " + why + " (looked for " + path + ")" +
                     did_you_mean(std::filesystem::path(path).filename().string(), files_beside(path, {".map"})));
      return;
    }
    size_t before = diags_.size();
    std::optional<nav::GridMap> grid = nav::load_grid_map(path, diags_);
    if (!grid) {
      if (diags_.size() == before) error(map, "map file '" + map.value.Scalar() + "' could not be read");
      error(map, "the map '" + map.value.Scalar() + "' has errors (above)");
      return;
    }
    grid->cell_size = cell;
    grid->origin = origin;
    if (Field terrain = field(world, "terrain")) read_terrain(terrain, *grid);
    spec.bounds = grid->world_bounds();
    spec.nav.map_path = path;
    spec.nav.map = std::make_shared<const nav::GridMap>(std::move(*grid));
    known_bounds_ = spec.bounds;
    world_known_ = true;
  }

  // `terrain: {T: 3, W: blocked, G: 0.5}`: a cost multiplier for every cell with that symbol
  // (blocked symbols given a cost become passable), or `blocked`.
  void read_terrain(const Field& terrain, nav::GridMap& grid) {
    if (!terrain.value.IsMap()) {
      error(terrain, "'terrain' must be a mapping {SYMBOL: cost, ...}, e.g. {T: 3, W: blocked}, got " + shown(terrain.value));
      return;
    }
    std::vector<std::pair<char, float>> rules;  // cost < 0: blocked
    for (auto it = terrain.value.begin(); it != terrain.value.end(); ++it) {
      const std::string sym = it->first.IsScalar() ? it->first.Scalar() : "";
      if (sym.size() != 1 || !nav::is_known_symbol(sym[0])) {
        error(it->first, "a terrain key is one map symbol (. G S @ O T W), got " + shown(it->first));
        continue;
      }
      if (it->second.IsScalar() && it->second.Scalar() == "blocked") {
        rules.emplace_back(sym[0], -1.0f);
        continue;
      }
      auto v = finite_number(it->second);
      if (!v || *v <= 0 || *v > 1e6) {
        error(it->second, "the terrain cost of '" + sym + "' must be a number > 0 and at most 1000000 (a multiplier of "
                          "the move's length) or 'blocked', got " + shown(it->second), it->first);
        continue;
      }
      rules.emplace_back(sym[0], static_cast<float>(*v));
    }
    for (int32_t y = 0; y < grid.height(); ++y)
      for (int32_t x = 0; x < grid.width(); ++x) {
        nav::Cell c{x, y};
        for (auto [sym, cost] : rules)
          if (grid.symbol(c) == sym) {
            grid.set_passable(c, cost > 0);
            if (cost > 0) grid.set_cost(c, cost);
          }
      }
  }

  // `danger: [{centre: [x, y], radius: R, cost: 50}, ...]`
  void read_danger(const Field& list, NavSpec& nav) {
    if (!list.value.IsSequence()) {
      error(list, "'danger' must be a list of zones {centre: [x, y], radius: R, cost: 50}, got " + shown(list.value));
      return;
    }
    for (const YAML::Node& item : list.value) {
      if (!item.IsMap()) {
        error(item, "a danger zone is {centre: [x, y], radius: R, cost: 50}, got " + shown(item), list.key);
        continue;
      }
      reject_unknown_keys(item, {"centre", "radius", "cost"}, "key", " in a danger zone", {"center"});
      nav::DangerZone zone;
      Field centre = field(item, "centre") ? field(item, "centre") : field(item, "center");
      bool good = true;
      if (!centre) {
        error(item, "a danger zone needs 'centre: [x, y]'");
        good = false;
      } else if (auto p = point(centre)) {
        zone.centre = *p;
      } else {
        good = false;
      }
      if (Field r = required(item, "radius", "a danger zone needs 'radius: R'")) {
        if (auto v = measure(r, /*positive=*/true)) zone.radius = *v; else good = false;
      } else {
        good = false;
      }
      read_measure(item, "cost", /*positive=*/false, zone.cost);
      if (good) nav.danger.push_back(zone);
    }
  }

  // `waypoints: [[x, y], ...]` (edges between points that see each other), or
  // `waypoints: {points: [...], max_length: L}` or `{points: [...], edges: [[0, 1], ...]}`.
  void read_waypoints(const Field& wp, const std::vector<world::Obstacle>& obstacles, NavSpec& nav) {
    const YAML::Node* points = nullptr;
    Field points_field = field(wp.value, "points");
    if (wp.value.IsSequence()) {
      points = &wp.value;
    } else if (wp.value.IsMap()) {
      reject_unknown_keys(wp.value, {"points", "max_length", "edges"}, "key", " in 'waypoints'");
      if (!points_field) {
        error(wp, "'waypoints' needs 'points: [[x, y], ...]'");
        return;
      }
      points = &points_field.value;
      read_measure(wp.value, "max_length", /*positive=*/false, nav.waypoint_max_length);
    } else {
      error(wp, "'waypoints' must be a list of points [[x, y], ...] or {points: [...], max_length: L, edges: [[i, j], ...]}, got " +
                    shown(wp.value));
      return;
    }
    if (!points->IsSequence() || points->size() == 0) {
      error(points_field ? points_field.value : wp.value, "the waypoints must be a non-empty list of points [[x, y], ...]", wp.key);
      return;
    }
    for (const YAML::Node& item : *points) {
      auto p = as_point(item);
      if (!p) {
        error(item, "a waypoint must be a point [x, y], got " + shown(item), wp.key);
        continue;
      }
      const std::string which = "waypoint " + std::to_string(nav.waypoints.size()) + " at " + point_text(*p);
      auto same = std::find(nav.waypoints.begin(), nav.waypoints.end(), *p);
      if (world_known_ && !world_bounds_contains(*p))
        error(item, which + " is outside the world");
      else if (same != nav.waypoints.end())
        error(item, which + " is where waypoint " + std::to_string(same - nav.waypoints.begin()) + " is: list each place once");
      else if (std::string in = inside_wall(*p, obstacles, nav); !in.empty())
        error(item, which + " is " + in + ": no route could reach it");
      nav.waypoints.push_back(*p);
    }
    nav.has_waypoints = true;
    Field edges = field(wp.value, "edges");
    if (!edges) return;
    if (field(wp.value, "max_length")) error(edges.key, "'edges' lists the links by hand; 'max_length' only limits automatic ones: give one of them");
    if (!edges.value.IsSequence()) {
      error(edges, "'edges' must be a list of pairs of waypoint indices [[0, 1], ...], got " + shown(edges.value));
      return;
    }
    for (const YAML::Node& item : edges.value) {
      bool good = item.IsSequence() && item.size() == 2;
      int64_t ends[2] = {-1, -1};
      for (size_t k = 0; good && k < 2; ++k) {
        Scalar sc = classify_scalar(item[k]);
        if (!item[k].IsScalar() || sc.kind != ScalarKind::Integer) good = false;
        else ends[k] = sc.integer;
      }
      if (!good) {
        error(item, "an edge is a pair of waypoint indices [i, j] (0-based), got " + shown(item), edges.key);
        continue;
      }
      bool in_range = true;
      for (int64_t e : ends)
        if (e < 0 || e >= static_cast<int64_t>(nav.waypoints.size())) in_range = false;
      if (!in_range) {
        error(item, "edge " + shown(item[0]) + "-" + shown(item[1]) + " names a waypoint that does not exist (there are " +
                        std::to_string(nav.waypoints.size()) + ", numbered from 0)");
        continue;
      }
      const std::string name = "edge " + std::to_string(ends[0]) + "-" + std::to_string(ends[1]);
      const std::pair<uint32_t, uint32_t> edge{static_cast<uint32_t>(std::min(ends[0], ends[1])),
                                               static_cast<uint32_t>(std::max(ends[0], ends[1]))};
      if (ends[0] == ends[1]) {
        error(item, name + " joins waypoint " + std::to_string(ends[0]) + " to itself");
        continue;
      }
      if (std::find(nav.waypoint_edges.begin(), nav.waypoint_edges.end(), edge) != nav.waypoint_edges.end()) {
        error(item, name + " is listed twice (an edge goes both ways: " + std::to_string(edge.first) + "-" +
                        std::to_string(edge.second) + " and " + std::to_string(edge.second) + "-" +
                        std::to_string(edge.first) + " are one edge)");
        continue;
      }
      nav.waypoint_edges.push_back(edge);
    }
  }

  // "inside an obstacle" or "in a blocked cell of the map" when p is, else "".
  static std::string inside_wall(world::Vec2 p, const std::vector<world::Obstacle>& obstacles, const NavSpec& nav) {
    for (const world::Obstacle& o : obstacles)
      if (world::obstacle_contains(o, p)) return "inside an obstacle";
    if (nav.map && !nav.map->passable(nav.map->cell_at(p))) return "in a blocked cell of the map";
    return "";
  }

  // `navmesh: true` or `navmesh: {cell: 0.2, agent_radius: 0.5}`.
  void read_navmesh(const Field& f, ScenarioSpec& spec) {
    spec.nav.navmesh_line = f.key.Mark().line + 1;
    spec.nav.navmesh_column = f.key.Mark().column + 1;
    Scalar sc = classify_scalar(f.value);
    if (f.value.IsScalar() && sc.kind == ScalarKind::Bool) {
      spec.nav.navmesh = sc.boolean;
    } else if (f.value.IsMap()) {
      reject_unknown_keys(f.value, {"cell", "agent_radius"}, "key", " in 'navmesh'");
      read_measure(f.value, "cell", /*positive=*/true, spec.nav.navmesh_cell);
      read_measure(f.value, "agent_radius", /*positive=*/false, spec.nav.navmesh_agent_radius);
      spec.nav.navmesh = true;
    } else {
      error(f, "'navmesh' must be true/false or {cell: 0.2, agent_radius: 0.5}, got " + shown(f.value));
      return;
    }
    if (spec.nav.navmesh && field(f.value, "cell") && spec.nav.navmesh_cell < 0.01)
      error(field(f.value, "cell").value, "'cell' of a navmesh must be >= 0.01 m (a finer voxel grid is huge)");
  }

  bool world_bounds_contains(world::Vec2 p) const { return known_bounds_.contains(p); }

  void read_obstacle(const YAML::Node& item, const YAML::Node& list_key, ScenarioSpec& spec) {
    const ShapeWords words{"obstacle", "an obstacle is {circle: [x, y], radius: R}, {box: [[x0, y0], [x1, y1]]} or {polygon: [[x, y], ...]}",
                           {}, /*polygon=*/true};
    if (!item.IsMap()) {
      error(item, words.shapes + ", got " + shown(item), list_key);
      return;
    }
    if (auto shape = read_shape(item, words)) spec.obstacles.push_back(std::move(*shape));
  }

  // What a shape is called in messages, the other keys its mapping may have (an area's name),
  // and whether polygons are allowed.
  struct ShapeWords {
    std::string noun;    // "obstacle": "a box obstacle", "unknown key 'x' in an obstacle"
    std::string shapes;  // the forms it may take, a whole phrase
    std::vector<std::string> other_keys;
    bool polygon = false;
  };

  // A circle, a box or (when allowed) a polygon, from a mapping; the other keys are the caller's.
  std::optional<world::Obstacle> read_shape(const YAML::Node& item, const ShapeWords& words) {
    Field circle = field(item, "circle"), box = field(item, "box"), polygon = field(item, "polygon");
    std::vector<const Field*> given;
    for (const Field* f : {&circle, &box, &polygon})
      if (*f && (words.polygon || f != &polygon)) given.push_back(f);
    const size_t kinds = given.size();
    auto allowed = [&](std::vector<std::string> keys) {
      keys.insert(keys.begin(), words.other_keys.begin(), words.other_keys.end());
      return keys;
    };
    const std::string article = words.noun.find_first_of("aeiou") == 0 ? "an " : "a ";
    if (kinds > 1) {
      error(given[1]->key, words.shapes + "; this one has both '" + given[0]->key.Scalar() + "' and '" + given[1]->key.Scalar() + "'");
      return std::nullopt;
    }
    if (kinds == 0) {
      size_t errors_before = diags_.size();
      reject_unknown_keys(item, allowed(words.polygon ? std::vector<std::string>{"circle", "radius", "box", "polygon"}
                                                      : std::vector<std::string>{"circle", "radius", "box"}),
                          "key", " in " + article + words.noun);
      if (diags_.size() == errors_before) error(item, words.shapes);
      return std::nullopt;
    }
    if (polygon && words.polygon) {
      reject_unknown_keys(item, allowed({"polygon"}), "key", " in a polygon " + words.noun);
      return read_polygon(polygon);
    }
    if (box) {
      reject_unknown_keys(item, allowed({"box"}), "key", " in a box " + words.noun);
      if (auto c = corners(box)) return world::Obstacle::box(c->first, c->second);
      return std::nullopt;
    }
    reject_unknown_keys(item, allowed({"circle", "radius"}), "key", " in a circle " + words.noun);
    auto centre = point(circle);
    std::optional<double> radius;
    if (Field r = required(item, "radius", "a circle " + words.noun + " needs 'radius: R'")) radius = measure(r, /*positive=*/true);
    if (centre && radius) return world::Obstacle::circle(*centre, *radius);
    return std::nullopt;
  }

  // `polygon: [[x, y], ...]`: >= 3 corners in order, a simple polygon with an area.
  std::optional<world::Obstacle> read_polygon(const Field& f) {
    std::vector<world::Vec2> corners;
    bool good = f.value.IsSequence() && f.value.size() >= 3;
    if (good)
      for (const YAML::Node& item : f.value) {
        auto p = as_point(item);
        if (!p) {
          good = false;
          break;
        }
        corners.push_back(*p);
      }
    if (!good) {
      error(f, "'polygon' must be a list of at least 3 corners [[x, y], ...] in order around it, got " + shown(f.value));
      return std::nullopt;
    }
    // Simple: no two edges that do not share a corner cross (checked before the area: a
    // symmetric bow-tie has none, and its crossing is the mistake to name).
    auto cross = [](world::Vec2 o, world::Vec2 a, world::Vec2 b) { return (a - o).x * (b - o).y - (a - o).y * (b - o).x; };
    const size_t n = corners.size();
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        if (j == i + 1 || (i == 0 && j == n - 1)) continue;
        world::Vec2 a = corners[i], b = corners[(i + 1) % n], c = corners[j], d = corners[(j + 1) % n];
        double d1 = cross(a, b, c), d2 = cross(a, b, d), d3 = cross(c, d, a), d4 = cross(c, d, b);
        if (((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 && d4 != 0) {
          error(f, "the polygon crosses itself (edges " + std::to_string(i + 1) + " and " + std::to_string(j + 1) +
                       "); list its corners in order around it");
          return std::nullopt;
        }
      }
    // After the crossing test: a symmetric bow-tie's signed area is 0 too, but what is wrong
    // with it is the crossing.
    double twice_area = 0;
    for (size_t i = 0, j = corners.size() - 1; i < corners.size(); j = i++)
      twice_area += corners[j].x * corners[i].y - corners[i].x * corners[j].y;
    if (std::abs(twice_area) < 1e-9) {
      error(f, "the polygon has no area (its corners are on one line)");
      return std::nullopt;
    }
    return world::Obstacle::polygon(std::move(corners));
  }

  // teams and metrics: a list of unique identifiers. Returns whether the list is usable (a
  // name listed twice leaves it usable; a name that is not a name may have been meant for one).
  bool read_names(const Field& list, const std::string& what, std::vector<std::string>& out, bool may_be_empty = false) {
    const std::string key = list.key.Scalar();
    if (!list.value.IsSequence() || (!may_be_empty && list.value.size() == 0)) {
      error(list, "'" + key + "' must be a " + (may_be_empty ? "" : "non-empty ") + "list of " + what + " names, got " +
                      (list.value.IsSequence() ? "an empty list" : shown(list.value)));
      return false;
    }
    bool good = true;
    for (const YAML::Node& item : list.value) {
      if (!is_text(item) || !is_identifier(item.Scalar())) {
        error(item, "a " + what + " name must be a name (letters, digits, _; not starting with a digit), got " +
                        shown(item), list.key);
        good = false;
      } else if (std::find(out.begin(), out.end(), item.Scalar()) != out.end()) {
        error(item, what + " '" + item.Scalar() + "' is listed twice in '" + key + "'");
      } else if (what == "metric" && std::find(std::begin(kRunColumns), std::end(kRunColumns), item.Scalar()) != std::end(kRunColumns)) {
        // It would be a second column of that name in --out's rows (pandas renamed it run.1).
        error(item, "metric '" + item.Scalar() + "' has the name of a column every run's row has already (" +
                        "run, seed, ticks, agents_start, agents_end, agent_ticks, wall_s, agent_ticks_per_s, script_errors): "
                        "give it another name");
        good = false;
      } else {
        out.push_back(item.Scalar());
      }
    }
    return good;
  }

  // `record: {keys: [...], every: N}`: the keys are names only here; whether some brain
  // declares them is known when the run is made (simulation, recorder.cpp).
  void read_record(const Field& record, RecordSpec& out) {
    if (!record.value.IsMap()) {
      error(record, "'record' must be a mapping {keys: [KEY, ...], every: N}, got " + shown(record.value));
      return;
    }
    reject_unknown_keys(record.value, {"keys", "every"}, "key", " in 'record'");
    if (Field keys = field(record.value, "keys")) {
      if (!keys.value.IsSequence()) {
        error(keys, "'keys' must be a list of blackboard key names, e.g. [health, target], got " + shown(keys.value));
      } else {
        for (const YAML::Node& item : keys.value) {
          if (!is_text(item) || item.Scalar().empty()) {
            error(item, "a recorded key is a blackboard key name, got " + shown(item), keys.key);
          } else if (std::find(out.keys.begin(), out.keys.end(), item.Scalar()) != out.keys.end()) {
            error(item, "key '" + item.Scalar() + "' is listed twice in 'keys'");
          } else {
            out.keys.push_back(item.Scalar());
            out.key_places.emplace_back(item.Mark().line + 1, item.Mark().column + 1);
          }
        }
      }
    }
    if (Field every = field(record.value, "every")) keep(whole_number(every, 1, 1'000'000), out.every, out.has_every);
  }

  void read_groups(const Field& groups, ScenarioSpec& spec) {
    if (!groups.value.IsSequence() || groups.value.size() == 0) {
      error(groups, "'groups' must be a non-empty list of agent groups, got " +
                        (groups.value.IsSequence() ? std::string("an empty list") : shown(groups.value)));
      return;
    }
    spec.groups_complete = true;
    for (const YAML::Node& item : groups.value) {
      if (!item.IsMap()) {
        error(item, "a group is a mapping {name, team, brain, spawn, ...}, got " + shown(item), groups.key);
        spec.groups_complete = false;
        continue;
      }
      AgentGroup group;
      if (read_group(item, group, spec)) spec.groups.push_back(std::move(group));
      else spec.groups_complete = false;
    }
  }

  // Reads one group; false when it had errors (they are reported).
  bool read_group(const YAML::Node& map, AgentGroup& group, const ScenarioSpec& spec) {
    size_t errors_before = diags_.size();
    reject_unknown_keys(map, kGroupKeys, "key", " in a group");
    if (Field name = required(map, "name", "a group needs 'name: NAME'")) {
      if (!is_text(name.value) || name.value.Scalar().empty())
        error(name, "'name' must be text, got " + shown(name.value));
      else if (!group_names_.insert(name.value.Scalar()).second)
        error(name, "a group named '" + name.value.Scalar() + "' is defined twice");
      else
        group.name = name.value.Scalar();
    }
    const std::string where = group.name.empty() ? "" : " of group '" + group.name + "'";
    if (Field team = required(map, "team", "a group needs 'team: TEAM', one of 'teams'")) read_team(team, group, spec);
    if (Field count = field(map, "count")) {
      Scalar n = classify_scalar(count.value);
      if (count.value.IsScalar() && n.kind == ScalarKind::Integer && n.integer > kMaxAgents)
        error(count, "'count' is " + count.value.Scalar() + " agents; a scenario may have at most " +
                         std::to_string(kMaxAgents) + " agents in all");
      else if (auto whole = whole_number(count, 1, kMaxAgents))
        group.count = static_cast<uint32_t>(*whole);
      total_agents_ += group.count;
      if (total_agents_ > kMaxAgents && total_agents_ - group.count <= kMaxAgents)
        error(count, "this group takes the scenario to " + std::to_string(total_agents_) +
                         " agents; a scenario may have at most " + std::to_string(kMaxAgents) + " agents in all");
    }
    if (Field brain = required(map, "brain", "a group needs 'brain: FILE', its agents' brain file")) read_brain(brain, group);
    if (Field spawn = required(map, "spawn", "a group needs 'spawn: {centre: [x, y], radius: R}' or "
                                             "'spawn: {box: [[x0, y0], [x1, y1]]}'")) {
      group.spawn_line = spawn.key.Mark().line + 1;
      group.spawn_column = spawn.key.Mark().column + 1;
      read_spawn(spawn, group.spawn, spec, where);
    }
    if (Field vehicle = field(map, "vehicle")) read_vehicle(vehicle, group.vehicle);
    if (Field blackboard = field(map, "blackboard")) read_blackboard(blackboard, group.blackboard, "initial value", &group.blackboard_at);
    if (Field senses = field(map, "senses")) read_senses(senses, group);
    return diags_.size() == errors_before;
  }

  void read_team(const Field& team, AgentGroup& group, const ScenarioSpec& spec) {
    if (!is_text(team.value)) {
      error(team, "'team' must be a team name, got " + shown(team.value));
      return;
    }
    const std::string& name = team.value.Scalar();
    if (std::find(spec.teams.begin(), spec.teams.end(), name) != spec.teams.end())
      group.team = name;
    else if (teams_known_)  // with a broken 'teams' list, that list's errors say it all
      error(team, "unknown team '" + name + "'" + did_you_mean(name, spec.teams) + " (teams: " +
                      join_names(spec.teams) + ")");
  }

  void read_brain(const Field& brain, AgentGroup& group) {
    if (!is_text(brain.value) || brain.value.Scalar().empty()) {
      error(brain, "'brain' must be the path of a brain file, relative to this scenario, got " + shown(brain.value));
      return;
    }
    std::string path = beside(path_, brain.value.Scalar());
    if (std::string why = not_a_file(path); !why.empty()) {
      error(brain, "brain file '" + brain.value.Scalar() + "' " + why + " (looked for " + path + ")" +
                       did_you_mean(std::filesystem::path(path).filename().string(), files_beside(path, {".yaml", ".yml"})));
      return;
    }
    group.brain = path;
  }

  void read_spawn(const Field& spawn, SpawnArea& area, const ScenarioSpec& spec, const std::string& where) {
    const YAML::Node& map = spawn.value;
    const std::string shapes = "'spawn' is {centre: [x, y], radius: R} or {box: [[x0, y0], [x1, y1]]}";
    if (!map.IsMap()) {
      error(spawn, shapes + ", got " + shown(map));
      return;
    }
    Field box = field(map, "box");
    Field centre = field(map, "centre") ? field(map, "centre") : field(map, "center");
    if (box && centre) {
      error(box.key, shapes + "; this one has both '" + centre.key.Scalar() + "' and 'box'");
      return;
    }
    if (!box && !centre) {
      size_t errors_before = diags_.size();
      reject_unknown_keys(map, kSpawnKeys, "key", " in 'spawn'", {"center"});
      if (diags_.size() == errors_before) error(spawn, shapes);
      return;
    }
    if (field(map, "centre") && field(map, "center"))
      error(field(map, "center").key, "'center' is 'centre' spelt differently; give one of them");
    if (box) {
      reject_unknown_keys(map, {"box"}, "key", " in a box spawn area");
      auto c = corners(box);
      if (!c) return;
      area.shape = SpawnArea::Shape::Box;
      area.min = {std::min(c->first.x, c->second.x), std::min(c->first.y, c->second.y)};
      area.max = {std::max(c->first.x, c->second.x), std::max(c->first.y, c->second.y)};
      area.centre = (area.min + area.max) / 2;
    } else {
      reject_unknown_keys(map, {"centre", "radius"}, "key", " in a disc spawn area", {"center"});
      auto at = point(centre);
      std::optional<double> radius;
      if (Field r = required(map, "radius", "a disc spawn area needs 'radius: R'")) radius = measure(r, /*positive=*/false);
      if (!at || !radius) return;
      area.shape = SpawnArea::Shape::Disc;
      area.centre = *at;
      area.radius = *radius;
      area.min = *at - world::Vec2{*radius, *radius};
      area.max = *at + world::Vec2{*radius, *radius};
    }
    if (world_known_ && !(spec.bounds.contains(area.min) && spec.bounds.contains(area.max)))
      error(spawn, "the spawn area" + where + " reaches outside the world: it spans " + point_text(area.min) + ".." +
                       point_text(area.max) + ", the world " + point_text(spec.bounds.min) + ".." +
                       point_text(spec.bounds.max));
    else if (world_known_ && spec.nav.map && !has_free_cell(*spec.nav.map, area))
      error(spawn, "the spawn area" + where + " has no free cell of the map: every cell in " +
                       point_text(area.min) + ".." + point_text(area.max) + " is blocked, and agents never spawn inside a wall");
  }

  // Whether some passable cell of the map overlaps the area.
  static bool has_free_cell(const nav::GridMap& map, const SpawnArea& area) {
    nav::Cell lo = map.cell_at(area.min), hi = map.cell_at(area.max);
    const double half = map.cell_size / 2;
    for (int32_t y = std::max(lo.y, 0); y <= std::min(hi.y, map.height() - 1); ++y)
      for (int32_t x = std::max(lo.x, 0); x <= std::min(hi.x, map.width() - 1); ++x) {
        nav::Cell c{x, y};
        if (!map.passable(c)) continue;
        if (area.shape == SpawnArea::Shape::Box) return true;  // the cell range is the box's
        world::Vec2 p = map.centre_of(c), d = area.centre - p;
        world::Vec2 outside{std::max(0.0, std::abs(d.x) - half), std::max(0.0, std::abs(d.y) - half)};
        if (outside.length() <= area.radius) return true;
      }
    return false;
  }

  void read_vehicle(const Field& vehicle, world::Vehicle& out) {
    if (!vehicle.value.IsMap()) {
      error(vehicle, "'vehicle' must be a mapping {mass, max_speed, max_force, radius}, got " + shown(vehicle.value));
      return;
    }
    reject_unknown_keys(vehicle.value, kVehicleKeys, "key", " in 'vehicle'");
    for (auto [key, slot] : {std::pair{"mass", &out.mass}, {"max_speed", &out.max_speed}, {"max_force", &out.max_force},
                             {"radius", &out.radius}})
      if (Field f = field(vehicle.value, key)) {
        auto v = finite_number(f.value);
        if (v && world::vehicle_field_fits(key, *v)) *slot = *v;
        else error(f, std::string("'") + key + "' must be " + world::vehicle_field_range(key) + ", got " + shown(f.value));
      }
  }

  // A group's initial `blackboard:` values, or what a pickup `gives:` (what_value: "initial
  // value", "given value"): key: number, true/false or text.
  void read_blackboard(const Field& blackboard, std::vector<std::pair<std::string, Value>>& out,
                       const std::string& what_value = "initial value", std::vector<std::pair<int, int>>* at = nullptr) {
    if (!blackboard.value.IsMap()) {
      error(blackboard, "'" + blackboard.key.Scalar() + "' must be a mapping of key: " + what_value + ", got " + shown(blackboard.value));
      return;
    }
    std::set<std::string> seen;
    for (auto it = blackboard.value.begin(); it != blackboard.value.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      if (!is_identifier(key)) {
        error(it->first, "a blackboard key must be a name (letters, digits, _; not starting with a digit), got " +
                             (it->first.IsScalar() ? "'" + key + "'" : shown(it->first)));
        continue;
      }
      if (!seen.insert(key).second) continue;  // given twice: the YAML loader reports it
      Scalar s = classify_scalar(it->second);
      Value value;
      switch (it->second.IsScalar() ? s.kind : ScalarKind::Null) {
        case ScalarKind::Integer: value = s.integer; break;
        case ScalarKind::Float: value = s.number; break;
        case ScalarKind::Bool: value = s.boolean; break;
        case ScalarKind::String: value = s.text; break;
        case ScalarKind::Null:
          error(it->second, "the " + what_value + " of '" + key + "' must be a number, true/false or text, got " +
                                shown(it->second), it->first);
          continue;
      }
      out.emplace_back(key, std::move(value));
      if (at) at->emplace_back(it->first.Mark().line + 1, it->first.Mark().column + 1);
    }
  }

  // ------------------------------------------------------------------ perception (issue 13)

  std::optional<bool> boolean(const Field& f) {
    Scalar s = classify_scalar(f.value);
    if (f.value.IsScalar() && s.kind == ScalarKind::Bool) return s.boolean;
    error(f, "'" + f.key.Scalar() + "' must be true or false, got " + shown(f.value) + yaml11_boolean_hint(f.value));
    return std::nullopt;
  }

  // `senses: {sight: {cones: [...], walls, lod}, hearing, touch, targets, memory, blackboard}`.
  void read_senses(const Field& f, AgentGroup& group) {
    const YAML::Node& map = f.value;
    if (!map.IsMap() && !map.IsNull()) {
      error(f, "'senses' must be a mapping {sight, hearing, touch, targets, memory, blackboard}, got " + shown(map));
      return;
    }
    perception::Senses& senses = group.senses;
    Field sight = field(map, "sight"), hearing = field(map, "hearing"), touch = field(map, "touch");
    if (!sight && !hearing && !touch) {
      // A near-miss (`sigth:`) has its own did-you-mean error; an empty mapping has nothing else.
      size_t errors_before = diags_.size();
      if (map.IsMap()) reject_unknown_keys(map, kSensesKeys, "key", " in 'senses'");
      if (diags_.size() == errors_before) error(f, "senses need at least one of sight, hearing, touch");
      return;
    }
    // Counted before the key check: a misspelt `sigth:` must not also make every sight slot an
    // error ("this group has no sight").
    size_t errors_before = diags_.size();
    reject_unknown_keys(map, kSensesKeys, "key", " in 'senses'");
    if (sight) read_sight(sight, senses.sight);
    if (hearing) read_switch_or_map(hearing, senses.hearing.enabled, "{threshold: T, walls: W}", [&](const YAML::Node& m) {
        reject_unknown_keys(m, {"threshold", "walls"}, "key", " in 'hearing'");
        read_measure(m, "threshold", /*positive=*/true, senses.hearing.threshold);
        if (Field w = field(m, "walls")) {
          auto v = finite_number(w.value);
          if (v && *v >= 0 && *v <= 1) senses.hearing.walls = *v;
          else error(w, "'walls' of 'hearing' is the share of a sound's strength that passes walls, a number from 0 to 1, got " +
                            shown(w.value));
        }
      });
    if (touch) read_switch_or_map(touch, senses.touch.enabled, "{reach: R}", [&](const YAML::Node& m) {
        reject_unknown_keys(m, {"reach"}, "key", " in 'touch'");
        read_measure(m, "reach", /*positive=*/false, senses.touch.reach);
      });
    // `hearing: false` alone senses nothing either (only when the keys read well, to say one thing at a time).
    if (diags_.size() == errors_before && !senses.any())
      error(f, "senses need at least one of sight, hearing, touch (this group's are all switched off)");
    if (Field t = field(map, "targets")) {
      const std::vector<std::string> names = {"enemies", "friends", "all"};
      const std::string word = is_text(t.value) ? t.value.Scalar() : "";
      auto at = std::find(names.begin(), names.end(), word);
      if (at != names.end())
        senses.targets = static_cast<perception::Targets>(at - names.begin());
      else if (is_text(t.value))
        error(t, "unknown targets '" + word + "'" + did_you_mean(word, names) + " (allowed: " + join_names(names) + ")");
      else
        error(t, "'targets' must be one of enemies, friends, all, got " + shown(t.value));
    }
    read_measure(map, "memory", /*positive=*/false, senses.memory, kMaxSeconds);
    const bool senses_read_well = diags_.size() == errors_before;
    if (Field bb = field(map, "blackboard")) {
      read_sense_keys(bb, group.sense_keys);
      // A slot of a sense the group lacks would stay false (or 0) all run: a mistake, not a choice.
      if (senses_read_well)
        for (const SenseBinding& b : group.sense_keys) {
          const char* needs = nullptr;
          if (b.slot <= SenseSlot::SeenDistance && senses.sight.cones.empty()) needs = "sight";
          else if (b.slot >= SenseSlot::Heard && b.slot <= SenseSlot::HeardId && !senses.hearing.enabled) needs = "hearing";
          else if (b.slot == SenseSlot::Touched && !senses.touch.enabled) needs = "touch";
          if (needs)
            diags_.push_back({Severity::Error, path_, b.line, b.column,
                              "slot '" + std::string(kSenseSlotNames[static_cast<size_t>(b.slot)]) + "' is written by " +
                                  needs + ", and this group has no " + needs});
        }
    }
    if (Field ev = field(map, "events")) {
      group.sense_events_at = {ev.key.Mark().line + 1, ev.key.Mark().column + 1};
      read_sense_events(ev, group.sense_events, group.sense_event_at);
    }
    group.has_senses = true;
  }

  // `events: {seen: saw_enemy, lost_sight: lost_enemy, heard: noise, forgot: false}`: the event
  // each percept change sends (SPEC 4.1); false: none.
  void read_sense_events(const Field& f, std::vector<std::string>& names, std::vector<std::pair<int, int>>& places) {
    static const std::vector<std::string> kinds(std::begin(kPerceptEventNames), std::end(kPerceptEventNames));
    if (!f.value.IsMap()) {
      error(f, "'events' of 'senses' renames the perception events, a mapping {EVENT: name or false} (events: " +
                   join_names(kinds) + "), got " + shown(f.value));
      return;
    }
    reject_unknown_keys(f.value, kinds, "perception event", " in 'events' of 'senses'");
    for (auto it = f.value.begin(); it != f.value.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      auto kind = std::find(kinds.begin(), kinds.end(), it->first.Scalar());
      if (kind == kinds.end()) continue;
      const YAML::Node value = it->second;
      Scalar s = classify_scalar(value);
      if (value.IsScalar() && s.kind == ScalarKind::Bool && !s.boolean) {
        names[kind - kinds.begin()].clear();
      } else if (is_text(value) && !value.Scalar().empty()) {
        names[kind - kinds.begin()] = value.Scalar();
        places[kind - kinds.begin()] = {value.Mark().line + 1, value.Mark().column + 1};
      } else {
        error(value, "perception event '" + *kind + "' is renamed to an event name, or switched off with false, got " + shown(value),
              it->first);
      }
    }
  }

  // `hearing: true` / `touch: false`, or a mapping of settings (which switches the sense on).
  template <class ReadMap>
  void read_switch_or_map(const Field& f, bool& enabled, const std::string& form, ReadMap read_map) {
    Scalar s = classify_scalar(f.value);
    if (f.value.IsScalar() && s.kind == ScalarKind::Bool) {
      enabled = s.boolean;
    } else if (f.value.IsMap()) {
      enabled = true;
      read_map(f.value);
    } else {
      error(f, "'" + f.key.Scalar() + "' must be true/false or " + form + ", got " + shown(f.value));
    }
  }

  // `sight: {cones: [{range: 8, angle: 160}, ...], walls: true, lod: {distance: 25, every: 4}}`.
  void read_sight(const Field& f, perception::SightSpec& sight) {
    if (!f.value.IsMap()) {
      error(f, "'sight' must be a mapping {cones: [{range: R, angle: DEGREES}, ...], walls: true, "
               "lod: {distance: D, every: N}}, got " + shown(f.value));
      return;
    }
    reject_unknown_keys(f.value, {"cones", "walls", "lod"}, "key", " in 'sight'");
    if (Field cones = required(f.value, "cones", "'sight' needs 'cones: [{range: R, angle: DEGREES}, ...]'")) {
      if (!cones.value.IsSequence() || cones.value.size() == 0) {
        error(cones, "'cones' must be a non-empty list of cones {range: R, angle: DEGREES}, got " +
                         (cones.value.IsSequence() ? std::string("an empty list") : shown(cones.value)));
      } else if (cones.value.size() > kMaxCones) {
        error(cones, "'cones' lists " + std::to_string(cones.value.size()) + " cones; a sight has at most " +
                         std::to_string(kMaxCones) + " (every cone is tested against every body near it)");
      } else {
        for (const YAML::Node& item : cones.value)
          if (auto cone = read_cone(item, cones.key)) sight.cones.push_back(*cone);
      }
    }
    if (Field walls = field(f.value, "walls"))
      if (auto b = boolean(walls)) sight.walls = *b;
    if (Field lod = field(f.value, "lod")) {
      if (!lod.value.IsMap()) {
        error(lod, "'lod' must be a mapping {distance: D, every: N}: with nothing of interest within D metres, the cones "
                   "are checked every N ticks, got " + shown(lod.value));
        return;
      }
      reject_unknown_keys(lod.value, {"distance", "every"}, "key", " in 'lod'");
      if (Field d = required(lod.value, "distance", "'lod' needs 'distance: D', metres beyond which nothing is of interest"))
        if (auto v = measure(d, /*positive=*/true)) sight.lod_distance = *v;
      if (Field e = required(lod.value, "every", "'lod' needs 'every: N', a check every N ticks when nothing is near"))
        if (auto v = whole_number(e, 1, std::numeric_limits<uint32_t>::max())) sight.lod_every = static_cast<uint32_t>(*v);
    }
  }

  // `{range: 8, angle: 160}`: angle is the cone's full angle in degrees, the spec keeps half of it in radians.
  std::optional<perception::SightCone> read_cone(const YAML::Node& item, const YAML::Node& list_key) {
    if (!item.IsMap()) {
      error(item, "a cone is {range: R, angle: DEGREES}, got " + shown(item), list_key);
      return std::nullopt;
    }
    reject_unknown_keys(item, {"range", "angle"}, "key", " in a cone");
    std::optional<double> range, angle;
    if (Field r = required(item, "range", "a cone needs 'range: R', how far it sees in metres")) range = measure(r, /*positive=*/true);
    if (Field a = required(item, "angle", "a cone needs 'angle: DEGREES', its full width (360: all round)")) {
      auto v = finite_number(a.value);
      if (v && *v > 0 && *v <= 360) angle = *v;
      else error(a, "'angle' is the cone's full width in degrees, > 0 and <= 360, got " + shown(a.value));
    }
    if (!range || !angle) return std::nullopt;
    return perception::SightCone{*range, *angle / 2 * std::numbers::pi / 180};
  }

  // `blackboard: {seen: target_visible, heard_x: noise_x}`: a percept slot -> the brain's key.
  void read_sense_keys(const Field& f, std::vector<SenseBinding>& out) {
    if (!f.value.IsMap()) {
      error(f, "'blackboard' of 'senses' must be a mapping {SLOT: key, ...} (e.g. {seen: target_visible}), got " + shown(f.value));
      return;
    }
    static const std::vector<std::string> slots(std::begin(kSenseSlotNames), std::end(kSenseSlotNames));
    reject_unknown_keys(f.value, slots, "sense slot", " in 'blackboard' of 'senses'");
    std::set<std::string> slots_seen;
    for (auto it = f.value.begin(); it != f.value.end(); ++it) {
      if (!it->first.IsScalar()) continue;  // reported above, as are unknown and repeated slots
      auto slot = std::find(slots.begin(), slots.end(), it->first.Scalar());
      if (slot == slots.end() || !slots_seen.insert(*slot).second) continue;
      const YAML::Node value = it->second;  // a copy: it-> points into a temporary pair
      if (!is_text(value) || !is_identifier(value.Scalar())) {
        error(value, "slot '" + *slot + "' is written into a blackboard key, which must be a name (letters, digits, _; "
                     "not starting with a digit), got " + shown(value), it->first);
        continue;
      }
      // Two slots in one key would overwrite each other every tick.
      auto same = std::find_if(out.begin(), out.end(), [&](const SenseBinding& b) { return b.key == value.Scalar(); });
      if (same != out.end()) {
        error(value, "slots '" + std::string(kSenseSlotNames[static_cast<size_t>(same->slot)]) + "' and '" + *slot +
                         "' both write blackboard key '" + value.Scalar() + "'; give each its own key");
        continue;
      }
      out.push_back({static_cast<SenseSlot>(slot - slots.begin()), value.Scalar(), value.Mark().line + 1, value.Mark().column + 1});
    }
  }

  // `areas: [{name: goal, box: [[x0, y0], [x1, y1]]}, {name: pond, circle: [x, y], radius: R}]`.
  void read_areas(const Field& list, ScenarioSpec& spec) {
    if (list.value.IsNull()) return;
    const ShapeWords words{"area", "an area is {name: NAME, box: [[x0, y0], [x1, y1]]} or {name: NAME, circle: [x, y], radius: R}",
                           {"name"}, /*polygon=*/false};
    if (!list.value.IsSequence()) {
      error(list, "'areas' must be a list of touch areas: " + words.shapes.substr(std::string("an area is ").size()) +
                      ", got " + shown(list.value));
      return;
    }
    std::set<std::string> names;
    for (const YAML::Node& item : list.value) {
      if (!item.IsMap()) {
        error(item, words.shapes + ", got " + shown(item), list.key);
        continue;
      }
      perception::Area area;
      bool good = read_unique_name(item, "area", names, area.name);
      auto shape = read_shape(item, words);
      if (good && shape) {
        // An area wholly outside the world could never be touched (one that reaches out of it
        // is touched where it overlaps).
        const world::Obstacle& o = *shape;
        const world::Vec2 half = o.shape == world::ObstacleShape::Circle ? world::Vec2{o.radius, o.radius} : o.half_extents;
        const world::Vec2 lo = o.centre - half, hi = o.centre + half;
        if (world_known_ && (hi.x < known_bounds_.min.x || lo.x > known_bounds_.max.x || hi.y < known_bounds_.min.y ||
                             lo.y > known_bounds_.max.y)) {
          error(item, "area '" + area.name + "' spans " + point_text(lo) + ".." + point_text(hi) + ", wholly outside the world " +
                          point_text(known_bounds_.min) + ".." + point_text(known_bounds_.max) + ": it could never be touched");
          continue;
        }
        area.shape = std::move(*shape);
        spec.areas.push_back(std::move(area));
      }
    }
  }

  // An area's or a pickup's `name:`: a name not used before by another of its kind.
  bool read_unique_name(const YAML::Node& item, const std::string& what, std::set<std::string>& names, std::string& out) {
    const std::string article = what == "area" ? "an " : "a ";
    Field name = required(item, "name", article + what + " needs 'name: NAME'");
    if (!name) return false;
    if (!is_text(name.value) || !is_identifier(name.value.Scalar())) {
      error(name, article + what + " name must be a name (letters, digits, _; not starting with a digit), got " + shown(name.value));
      return false;
    }
    out = name.value.Scalar();  // named in its other errors even when taken
    if (!names.insert(out).second) {
      error(name, article + what + " named '" + out + "' is defined twice");
      return false;
    }
    return true;
  }

  // `pickups: [{name, kind, at, radius, respawn, teams, gives}]`. Read after the teams, which
  // `teams:` names, and after the obstacles and the map, which `at` must stay clear of.
  void read_pickups(const Field& list, ScenarioSpec& spec) {
    if (list.value.IsNull()) return;
    const std::string form = "{name: NAME, at: [x, y], kind: K, radius: R, respawn: SECONDS, teams: [...], gives: {key: value}}";
    if (!list.value.IsSequence()) {
      error(list, "'pickups' must be a list of " + form + ", got " + shown(list.value));
      return;
    }
    std::set<std::string> names;
    for (const YAML::Node& item : list.value) {
      if (!item.IsMap()) {
        error(item, "a pickup is " + form + ", got " + shown(item), list.key);
        continue;
      }
      size_t errors_before = diags_.size();
      PickupDecl decl;
      decl.line = item.Mark().line + 1;
      decl.column = item.Mark().column + 1;
      perception::PickupSpec& p = decl.spec;
      reject_unknown_keys(item, kPickupKeys, "key", " in a pickup");
      read_unique_name(item, "pickup", names, p.name);
      p.kind = p.name;
      if (Field kind = field(item, "kind")) {
        if (is_text(kind.value) && !kind.value.Scalar().empty()) p.kind = kind.value.Scalar();
        else error(kind, "'kind' must be text (what brains are told it is: health, ammo, ...), got " + shown(kind.value));
      }
      if (Field at = required(item, "at", "a pickup needs 'at: [x, y]', where it lies"))
        if (auto where = point(at)) {
          p.position = *where;
          check_reachable(at, p.name, *where, spec);
        }
      read_measure(item, "radius", /*positive=*/true, p.radius);
      read_measure(item, "respawn", /*positive=*/false, p.respawn, kMaxSeconds);
      if (Field teams = field(item, "teams")) read_pickup_teams(teams, decl, spec);
      if (Field gives = field(item, "gives")) read_blackboard(gives, decl.gives, "given value");
      if (diags_.size() == errors_before) spec.pickups.push_back(std::move(decl));
    }
  }

  // A pickup whose centre is outside the world or inside a wall could never be taken.
  void check_reachable(const Field& at, const std::string& name, world::Vec2 p, const ScenarioSpec& spec) {
    const std::string which = name.empty() ? "the pickup" : "pickup '" + name + "'";
    if (world_known_ && !world_bounds_contains(p)) {
      error(at, which + " at " + point_text(p) + " is outside the world " + point_text(known_bounds_.min) + ".." +
                    point_text(known_bounds_.max) + ": it could never be taken");
      return;
    }
    if (std::string in = inside_wall(p, spec.obstacles, spec.nav); !in.empty())
      error(at, which + " at " + point_text(p) + " is " + in + ": it could never be taken");
  }

  // `teams: [guards]`: the teams that may take it, by name, resolved to their ids.
  void read_pickup_teams(const Field& teams, PickupDecl& decl, const ScenarioSpec& spec) {
    if (!teams.value.IsSequence() || teams.value.size() == 0) {
      // An empty list would read as "no team", yet the manager takes an empty list for "any".
      error(teams, "'teams' must be a non-empty list of the teams that may take the pickup (leave it out for any team), got " +
                       (teams.value.IsSequence() ? std::string("an empty list") : shown(teams.value)));
      return;
    }
    for (const YAML::Node& item : teams.value) {
      if (!is_text(item)) {
        error(item, "a team in 'teams' must be a team name, got " + shown(item), teams.key);
        continue;
      }
      const std::string& name = item.Scalar();
      auto at = std::find(spec.teams.begin(), spec.teams.end(), name);
      if (std::find(decl.team_names.begin(), decl.team_names.end(), name) != decl.team_names.end()) {
        error(item, "team '" + name + "' is listed twice in 'teams'");
      } else if (at != spec.teams.end()) {
        decl.team_names.push_back(name);
        decl.spec.teams.push_back(static_cast<int32_t>(at - spec.teams.begin()));
      } else if (teams_known_) {  // with a broken 'teams' list, that list's errors say it all
        error(item, "unknown team '" + name + "'" + did_you_mean(name, spec.teams) + " (teams: " + join_names(spec.teams) + ")");
      }
    }
  }

  std::string path_;
  std::vector<Diagnostic>& diags_;
  size_t diags_at_start_;
  bool world_known_ = false;  // the world's size read well, so spawn areas can be checked against it
  world::Bounds known_bounds_{};
  bool teams_known_ = false;  // the teams list read well, so an unknown team is the group's fault
  std::set<std::string> group_names_;
  int64_t total_agents_ = 0;  // counts of the groups read so far
};

}  // namespace

// In file order, as a reader goes through the file (the reader checks in a different order);
// errors in other files (a map, a brain) first, each file's in its own order, since the
// scenario's error at `map:` points at them "above".
void sort_scenario_diagnostics(const std::string& path, std::vector<Diagnostic>& diags, size_t from) {
  std::stable_sort(diags.begin() + static_cast<std::ptrdiff_t>(from), diags.end(),
                   [&path](const Diagnostic& a, const Diagnostic& b) {
                     bool a_here = a.file == path, b_here = b.file == path;
                     if (a_here != b_here) return b_here;
                     if (a.file != b.file) return false;
                     return std::pair(a.line, a.column) < std::pair(b.line, b.column);
                   });
}

std::optional<ScenarioSpec> load_scenario_text(const std::string& text, const std::string& path,
                                               std::vector<Diagnostic>& diags, ScenarioSpec* partial) {
  const size_t diags_before = diags.size();
  ScenarioSpec spec;
  spec.path = path;
  ScenarioReader reader(path, diags);
  try {
    std::optional<YAML::Node> doc = reader.parse(text);
    if (!doc) {
      columns_in_characters(text, path, diags, diags_before);
      return std::nullopt;
    }
    reader.read(*doc, spec);
  } catch (const std::exception& e) {  // yaml-cpp throws on node misuse; a load never does
    diags.push_back({Severity::Error, path, 0, 0, std::string("internal error reading the scenario: ") + e.what()});
  }
  sort_scenario_diagnostics(path, diags, diags_before);
  columns_in_characters(text, path, diags, diags_before);
  for (size_t i = diags_before; i < diags.size(); ++i)
    if (diags[i].severity == Severity::Error) {
      if (partial) *partial = std::move(spec);
      return std::nullopt;
    }
  return spec;
}

std::optional<ScenarioSpec> load_scenario(const std::string& path, std::vector<Diagnostic>& diags,
                                          ScenarioSpec* partial) {
  std::string text, why;
  if (!read_limited(path, kMaxYamlBytes, text, why)) {
    diags.push_back({Severity::Error, path, 0, 0, "cannot open file: " + why});
    return std::nullopt;
  }
  return load_scenario_text(text, path, diags, partial);
}

}  // namespace thicket
