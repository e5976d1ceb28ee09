// Scenario files: read the YAML, check every field, and report every problem at once
// (FILE:LINE:COL: error: ...), as the brain loader does. The format is documented by
// schemas/scenario.schema.json; this file is what decides, the schema is what editors show.
// This file reads the top level, the world and its obstacles; scenario_reader.hpp names the
// files that read the rest.
#include "scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "plain_file.hpp"
#include "scenario_reader.hpp"
#include "suggest.hpp"
#include "sweep.hpp"

namespace thicket {
namespace scenario_read {
namespace {

const std::vector<std::string> kTopKeys = {"scenario", "seed", "ticks", "dt", "world", "teams", "groups", "metrics", "record", "sweep"};
const std::vector<std::string> kWorldKeys = {"size", "obstacles", "map", "cell", "origin", "terrain", "danger", "waypoints", "navmesh",
                                             "areas", "pickups"};

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

// A bound as a message writes it: 1000000, not 1e+06.
std::string number_text(double bound) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", bound);
  return buf;
}

}  // namespace

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

std::string shown(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (!node.IsScalar()) return describe_node(node);
  Scalar s = classify_scalar(node);
  if (s.kind == ScalarKind::Null) return "nothing";
  if (s.kind == ScalarKind::String) return "text '" + s.text + "'";
  return s.text;
}

std::string point_text(world::Vec2 p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%g, %g)", p.x, p.y);
  return buf;
}

std::string beside(const std::string& scenario_file, const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (fs::path(scenario_file).parent_path() / p).lexically_normal().string();
}

std::string not_a_file(const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::File: return "";
    case PathKind::Missing: return "not found";
    case PathKind::Folder: return "is a folder, not a file";
    case PathKind::Device: return "cannot be read: a device, not a file";
    case PathKind::Loop: return "cannot be read: a symbolic link that leads round in a loop";
    case PathKind::Other: break;
  }
  return "is not a regular file";
}

void ScenarioReader::read(const YAML::Node& doc, ScenarioSpec& spec) {
  if (!doc.IsDefined() || doc.IsNull()) {
    diags_.push_back({Severity::Error, path_, 1, 1, "the file is empty; a scenario file starts with 'scenario: NAME'"});
    return;
  }
  if (!doc.IsMap()) {
    error(doc, "the top level must be a mapping starting with 'scenario: NAME', got " + shown(doc));
    return;
  }
  // A brain file given as a scenario (thicket.run, a group's mistake): said as such, once,
  // not as four errors about the keys a scenario has and it lacks.
  if (!doc["scenario"])
    for (auto it = doc.begin(); it != doc.end(); ++it)
      if (const std::string key = it->first.Scalar(); key == "tree" || key == "fsm" || key == "machine") {
        error(it->first, "this is a brain file (it has '" + key + ":'), not a scenario: a scenario file starts with "
                         "'scenario: NAME' and names its brains in its groups");
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
  {
    teams_known_ = read_names(teams, "team", spec.teams);
    teams_listed_ = teams.value.IsSequence();
    if (teams_listed_ && !teams_known_)
      for (const YAML::Node& item : teams.value)
        if (item.IsScalar() && std::find(spec.teams.begin(), spec.teams.end(), item.Scalar()) == spec.teams.end())
          bad_teams_.push_back(item.Scalar());
  }
  // Perception's world keys come after the teams, which pickups name (errors are sorted by
  // place in the file anyway).
  if (world && world.value.IsMap()) {
    if (Field areas = field(world.value, "areas")) read_areas(areas, spec);
    if (Field pickups = field(world.value, "pickups")) read_pickups(pickups, spec);
  }
  // The sweep names groups and their senses: read when they read well (sweep.cpp), whatever
  // else is wrong (a bad metric name made the sweep's mistakes come out in the schema's words).
  const size_t before_groups = diags_.size();
  bool groups_read = false;
  if (Field groups = required(doc, "groups", "a scenario needs 'groups:', a list of agent groups "
                                             "(each with name, team, brain and spawn)")) {
    read_groups(groups, spec);
    groups_read = true;
  }
  const bool groups_well = groups_read && teams_known_ &&
                           std::none_of(diags_.begin() + static_cast<std::ptrdiff_t>(before_groups), diags_.end(),
                                        [](const Diagnostic& d) { return d.severity == Severity::Error; });
  if (Field metrics = field(doc, "metrics")) read_names(metrics, "metric", spec.metrics, /*may_be_empty=*/true);
  if (Field record = field(doc, "record")) read_record(record, spec.record);
  if (Field sweep = field(doc, "sweep")) {
    if (groups_well) {
      read_sweep(sweep.key, sweep.value, spec, path_, diags_);
    } else if (groups_read && teams_known_) {
      // A group with an error of its own (a spawn outside the world) still has its name and the
      // fields read beside it: the sweep's mistakes are said too, in its words (they came out
      // only once the group was mended, or in the schema's). Read against a copy that holds
      // every group; only its errors are kept (the load fails anyway).
      ScenarioSpec every = spec;
      for (const AgentGroup& g : spec.groups_with_errors)
        if (g.name != "(unnamed)") every.groups.push_back(g);
      std::vector<Diagnostic> said;
      read_sweep(sweep.key, sweep.value, every, path_, said);
      // Except what such a group may lack only because of its error: its blackboard keys and
      // senses (count and vehicle fields are every group's).
      auto unsure = [&](const Diagnostic& d) {
        for (const AgentGroup& g : spec.groups_with_errors)
          for (const char* part : {".blackboard", ".senses"})
            if (d.message.rfind("sweep key 'groups." + g.name + part, 0) == 0) return true;
        return false;
      };
      for (Diagnostic& d : said)
        if (d.severity == Severity::Error && !unsure(d)) diags_.push_back(std::move(d));
    } else if (!sweep.value.IsMap() || sweep.value.size() == 0) {
      // Its shape is wrong whatever the groups are: said now, in its words (`run` said nothing
      // of it until the groups read well; `check` said it in the schema's words).
      ScenarioSpec none;
      read_sweep(sweep.key, sweep.value, none, path_, diags_);
    }
  }
}

void ScenarioReader::error(const YAML::Node& at, const std::string& message,
           const YAML::Node& fallback) {
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

void ScenarioReader::reject_unknown_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what,
                         const std::string& where, const std::vector<std::string>& aliases) {
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

Field ScenarioReader::required(const YAML::Node& map, const std::string& key, const std::string& message) {
  Field f = field(map, key);
  if (f) return f;
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && closest_name(it->first.Scalar(), {key}) == key) return f;
  error(map, message);
  return f;
}

std::optional<std::string> ScenarioReader::file_beside(const Field& f, const std::string& what, const std::string& noun,
                                                       const std::vector<std::string>& extensions) {
  if (!is_text(f.value) || f.value.Scalar().empty()) {
    error(f, "'" + f.key.Scalar() + "' must be the path of " + what + ", relative to this scenario, got " + shown(f.value));
    return std::nullopt;
  }
  std::string path = beside(path_, f.value.Scalar());
  if (std::string why = not_a_file(path); !why.empty()) {
    // Not the scenario itself (brain: watchr.yaml beside watch.yaml and watcher.yaml offered the
    // scenario, one letter off as the brain was).
    std::vector<std::string> near = files_beside(path, extensions);
    const std::string self = std::filesystem::path(path_).filename().string();
    if (std::filesystem::path(path).parent_path().lexically_normal() ==
        std::filesystem::path(path_).parent_path().lexically_normal())
      near.erase(std::remove(near.begin(), near.end(), self), near.end());
    error(f, noun + " '" + f.value.Scalar() + "' " + why + " (looked for " + path + ")" +
                 did_you_mean(std::filesystem::path(path).filename().string(), near));
    return std::nullopt;
  }
  return path;
}

std::optional<int64_t> ScenarioReader::whole_number(const Field& f, int64_t at_least, int64_t at_most) {
  Scalar s = classify_scalar(f.value);
  if (f.value.IsScalar() && s.kind == ScalarKind::Integer && s.integer >= at_least && s.integer <= at_most)
    return s.integer;
  // A number of digits past int64 reads as a float: it is too large, not "no whole number".
  const std::string& text = f.value.IsScalar() ? f.value.Scalar() : std::string();
  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  bool too_large = (s.kind == ScalarKind::Integer && s.integer > at_most) || (s.kind == ScalarKind::Float && digits);
  std::string limit = too_large ? " and <= " + std::to_string(at_most) : "";
  error(f, "'" + f.key.Scalar() + "' must be a whole number >= " + std::to_string(at_least) + limit + ", got " +
               shown(f.value) + (too_large ? std::string() : whole_number_hint(f.value)));  // (the limit is said)
  return std::nullopt;
}

std::optional<double> ScenarioReader::finite_number(const YAML::Node& node) {
  Scalar s = classify_scalar(node);
  bool numeric = s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float;
  if (node.IsScalar() && numeric && std::isfinite(s.number)) return s.number;
  return std::nullopt;
}

std::optional<double> ScenarioReader::measure(const Field& f, bool positive, double at_most) {
  auto v = finite_number(f.value);
  if (v && (positive ? *v > 0 : *v >= 0) && *v <= at_most) return v;
  std::string limit = at_most < kNoBound ? " and at most " + number_text(at_most) : "";
  // ".inf" is a number > 0 as YAML reads it: said "finite" when it is the trouble.
  const Scalar given = classify_scalar(f.value);
  const bool infinite = f.value.IsScalar() && given.kind == ScalarKind::Float && !std::isfinite(given.number);
  error(f, "'" + f.key.Scalar() + "' must be a " + (infinite ? "finite " : "") + "number " + (positive ? "> 0" : ">= 0") + limit +
               ", got " + shown(f.value));
  return std::nullopt;
}

void ScenarioReader::read_measure(const YAML::Node& map, const std::string& key, bool positive, double& out,
                  double at_most) {
  if (Field f = field(map, key))
    if (auto v = measure(f, positive, at_most)) out = *v;
}

std::optional<world::Vec2> ScenarioReader::as_point(const YAML::Node& node) {
  if (!node.IsSequence() || node.size() != 2) return std::nullopt;
  auto x = finite_number(node[0]), y = finite_number(node[1]);
  if (!x || !y) return std::nullopt;
  return world::Vec2{*x, *y};
}

std::optional<world::Vec2> ScenarioReader::point(const Field& f) {
  if (auto p = as_point(f.value)) return p;
  error(f, "'" + f.key.Scalar() + "' must be a point [x, y] of two finite numbers, got " + shown_list(f.value));
  return std::nullopt;
}

std::optional<std::pair<world::Vec2, world::Vec2>> ScenarioReader::corners(const Field& f) {
  if (f.value.IsSequence() && f.value.size() == 2) {
    auto a = as_point(f.value[0]), b = as_point(f.value[1]);
    if (a && b) return std::pair{*a, *b};
  }
  error(f, "'" + f.key.Scalar() + "' must be two corners [[x0, y0], [x1, y1]] of finite numbers, got " + shown_list(f.value));
  return std::nullopt;
}

void ScenarioReader::read_run_settings(const YAML::Node& doc, ScenarioSpec& spec) {
  constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
  if (Field f = field(doc, "seed")) keep(whole_number(f, 0, kNoLimit), spec.seed, spec.has_seed);
  if (Field f = field(doc, "ticks")) keep(whole_number(f, 0, kNoLimit), spec.ticks, spec.has_ticks);
  if (Field f = field(doc, "dt")) keep(measure(f, /*positive=*/true, kMaxDt), spec.dt, spec.has_dt);
}

void ScenarioReader::read_world(const Field& world, ScenarioSpec& spec) {
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
  // A grid search plans on the map's cells alone: its paths go through the obstacles (which
  // still hold agents, block sight and keep spawns out), so a world that plans says so.
  if (map && obstacles && !spec.obstacles.empty() && !waypoints && !spec.nav.navmesh) {
    error(obstacles.key, "paths on a grid map (thicket.find_path, move_to) are planned on its cells, which know "
                         "nothing of 'obstacles': they go through them; block their cells in the map file too (@), or "
                         "give 'waypoints' to plan around them");
    diags_.back().severity = Severity::Warning;
  }
  if (danger && !(map && !spec.nav.navmesh && !waypoints))
    error(danger.key, std::string("danger zones are priced by grid searches, and this world plans with ") +
                          (spec.nav.navmesh ? "its navmesh" : waypoints ? "its waypoints" : "straight lines (it has no 'map')"));
}

void ScenarioReader::read_obstacle(const YAML::Node& item, const YAML::Node& list_key, ScenarioSpec& spec) {
  const ShapeWords words{"obstacle", "an obstacle is {circle: [x, y], radius: R}, {box: [[x0, y0], [x1, y1]]} or {polygon: [[x, y], ...]}",
                         {}, /*polygon=*/true};
  if (!item.IsMap()) {
    error(item, words.shapes + ", got " + shown(item), list_key);
    return;
  }
  if (auto shape = read_shape(item, words)) {
    // Wholly outside the world it blocks nothing: a typo in its numbers ([[210, 10], ...] for 21).
    if (const std::string outside = wholly_outside(*shape); !outside.empty()) {
      error(item, "the obstacle" + outside + ": it blocks nothing");
      return;
    }
    spec.obstacles.push_back(std::move(*shape));
  }
}

std::string ScenarioReader::wholly_outside(const world::Obstacle& o) const {
  const world::Vec2 half = o.shape == world::ObstacleShape::Circle ? world::Vec2{o.radius, o.radius} : o.half_extents;
  const world::Vec2 lo = o.centre - half, hi = o.centre + half;
  if (!world_known_ || !(hi.x < known_bounds_.min.x || lo.x > known_bounds_.max.x || hi.y < known_bounds_.min.y ||
                         lo.y > known_bounds_.max.y))
    return {};
  return " spans " + point_text(lo) + ".." + point_text(hi) + ", wholly outside the world " + point_text(known_bounds_.min) +
         ".." + point_text(known_bounds_.max);
}

std::optional<world::Obstacle> ScenarioReader::read_shape(const YAML::Node& item, const ShapeWords& words) {
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
    if (auto shape = read_polygon(polygon)) return reachable(polygon, std::move(*shape));
    return std::nullopt;
  }
  if (box) {
    reject_unknown_keys(item, allowed({"box"}), "key", " in a box " + words.noun);
    if (auto c = corners(box)) return reachable(box, world::Obstacle::box(c->first, c->second));
    return std::nullopt;
  }
  reject_unknown_keys(item, allowed({"circle", "radius"}), "key", " in a circle " + words.noun);
  auto centre = point(circle);
  std::optional<double> radius;
  if (Field r = required(item, "radius", "a circle " + words.noun + " needs 'radius: R'")) radius = measure(r, /*positive=*/true);
  if (centre && radius) return reachable(circle, world::Obstacle::circle(*centre, *radius));
  return std::nullopt;
}

// A shape every number of which is within kMaxCoordinate of the origin: past ~1e154 the squares
// in its point-in-shape tests overflow, and a shape of 1e300 was no obstacle to the agents
// spawned inside it.
std::optional<world::Obstacle> ScenarioReader::reachable(const Field& f, world::Obstacle shape) {
  const world::Vec2 half = shape.shape == world::ObstacleShape::Circle ? world::Vec2{shape.radius, shape.radius} : shape.half_extents;
  for (double v : {shape.centre.x - half.x, shape.centre.y - half.y, shape.centre.x + half.x, shape.centre.y + half.y})
    if (!(std::abs(v) <= kMaxCoordinate)) {
      error(f, "the " + f.key.Scalar() + " reaches past 10000000000 m from (0, 0): no world goes so far (a side is at "
                   "most 1000000000 m)");
      return std::nullopt;
    }
  return shape;
}

std::optional<world::Obstacle> ScenarioReader::read_polygon(const Field& f) {
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

}  // namespace scenario_read

using scenario_read::ScenarioReader;

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
  SuggestBudget suggestions;  // did-you-means of the scenario and its brains: a bounded amount of work
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
