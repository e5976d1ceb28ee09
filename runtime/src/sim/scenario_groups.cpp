// Scenario files, their agents (scenario_reader.hpp): teams, groups and what each group is
// made of (brain, spawn area, vehicle, blackboard), metrics and the record.

#include "scenario_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <unordered_set>

#include "suggest.hpp"

namespace thicket::scenario_read {

namespace {

// The most agents a scenario may spawn, over all its groups: a count is memory (a blackboard,
// a Lua agent table, a world entity each), and a typo of a few zeros must not exhaust it.
constexpr int64_t kMaxAgents = 100000;
// The columns of --out's rows before the metrics (runtime/cli/run_results.cpp): no metric
// may take one of these names.
constexpr const char* kRunColumns[] = {"run",         "seed",   "ticks",           "agents_start", "agents_end",
                                       "agent_ticks", "wall_s", "agent_ticks_per_s", "script_errors"};
const std::vector<std::string> kGroupKeys = {"name", "team", "count", "brain", "spawn", "facing", "vehicle", "blackboard", "senses"};
const std::vector<std::string> kSpawnKeys = {"centre", "radius", "box"};  // and `center`, silently
const std::vector<std::string> kVehicleKeys = {"mass", "max_speed", "max_force", "radius"};

}  // namespace

bool ScenarioReader::read_names(const Field& list, const std::string& what, std::vector<std::string>& out, bool may_be_empty) {
  const std::string key = list.key.Scalar();
  if (!list.value.IsSequence() || (!may_be_empty && list.value.size() == 0)) {
    error(list, "'" + key + "' must be a " + (may_be_empty ? "" : "non-empty ") + "list of " + what + " names, got " +
                    (list.value.IsSequence() ? "an empty list" : shown(list.value)));
    return false;
  }
  bool good = true;
  std::unordered_set<std::string> listed(out.begin(), out.end());  // (a scan of `out` per name: 100,000 took 20 s)
  for (const YAML::Node& item : list.value) {
    if (!is_text(item) || !is_identifier(item.Scalar())) {
      error(item, "a " + what + " name must be a name (letters, digits, _; not starting with a digit), got " +
                      shown(item), list.key);
      good = false;
    } else if (listed.count(item.Scalar())) {
      error(item, what + " '" + item.Scalar() + "' is listed twice in '" + key + "'");
    } else if (what == "metric" && std::find(std::begin(kRunColumns), std::end(kRunColumns), item.Scalar()) != std::end(kRunColumns)) {
      // It would be a second column of that name in --out's rows (pandas renamed it run.1).
      error(item, "metric '" + item.Scalar() + "' has the name of a column every run's row has already (" +
                      "run, seed, ticks, agents_start, agents_end, agent_ticks, wall_s, agent_ticks_per_s, script_errors): "
                      "give it another name");
      good = false;
    } else if (what == "metric" && (item.Scalar() == "deaths" || item.Scalar() == "damage_dealt" || item.Scalar() == "pickups_taken")) {
      // Declared, a leaf's thicket.metric could add to what the run counts itself.
      error(item, "metric '" + item.Scalar() + "' is built in (the run counts deaths, damage_dealt and, in a world "
                      "with pickups, pickups_taken itself): give yours another name");
      good = false;
    } else {
      out.push_back(item.Scalar());
      listed.insert(item.Scalar());
    }
  }
  return good;
}

void ScenarioReader::read_record(const Field& record, RecordSpec& out) {
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
          out.key_places.push_back(place(item));
        }
      }
    }
  }
  if (Field every = field(record.value, "every")) keep(whole_number(every, 1, 1'000'000), out.every, out.has_every);
}

void ScenarioReader::read_groups(const Field& groups, ScenarioSpec& spec) {
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
    if (read_group(item, group, spec)) {
      spec.groups.push_back(std::move(group));
    } else {
      spec.groups_complete = false;
      // Its messages still name it: by the name it gave (read_group keeps none that is taken twice).
      if (group.name.empty())
        group.name = item.IsMap() && item["name"] && item["name"].IsScalar() && !item["name"].Scalar().empty()
                         ? item["name"].Scalar()
                         : "(unnamed)";
      spec.groups_with_errors.push_back(std::move(group));
    }
  }
}

bool ScenarioReader::read_group(const YAML::Node& map, AgentGroup& group, const ScenarioSpec& spec) {
  size_t errors_before = diags_.size();
  reject_unknown_keys(map, kGroupKeys, "key", " in a group");
  if (Field name = required(map, "name", "a group needs 'name: NAME'")) {
    if (!is_text(name.value))
      error(name, "'name' must be text, got " + shown(name.value));
    else if (name.value.Scalar().find_first_not_of(" \t") == std::string::npos)
      error(name, "'name' must name the group, got " +
                      std::string(name.value.Scalar().empty() ? "an empty text" : "only spaces ('" + name.value.Scalar() + "')"));
    else if (name.value.Scalar().find('.') != std::string::npos)
      // A sweep key names a group's value as groups.NAME.KEY: with groups 'a' and 'a.vehicle',
      // groups.a.vehicle.mass could not say which it meant.
      error(name, "a group's name may not hold '.', which separates the parts of a sweep key (groups." +
                      shown_name(name.value.Scalar(), 60) + ".count could not be read), got '" + shown_name(name.value.Scalar(), 80) + "'");
    else if (auto [first, fresh] = group_names_.emplace(name.value.Scalar(), name.value.Mark().line + 1); !fresh)
      error(name, "a group named '" + name.value.Scalar() + "' is defined twice (first at line " +
                      std::to_string(first->second) + ")");
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
    std::tie(group.spawn_line, group.spawn_column) = place(spawn.key);
    read_spawn(spawn, group.spawn, spec, where);
  }
  if (Field vehicle = field(map, "vehicle")) read_vehicle(vehicle, group.vehicle);
  // The way its agents face when they appear (their heading then follows their velocity): a
  // sentry that never moves looks this way for the whole run (it could face only +x).
  if (Field facing = field(map, "facing")) {
    const std::optional<double> degrees = finite_number(facing.value);
    if (!degrees || *degrees < -360 || *degrees > 360)
      error(facing, "'facing' must be the way the agents face at the start, in degrees from -360 to 360 (0 faces +x, 90 +y), got " +
                        shown(facing.value));
    else
      group.facing = *degrees;
  }
  if (Field blackboard = field(map, "blackboard")) read_blackboard(blackboard, group.blackboard, "initial value", &group.blackboard_at);
  if (Field senses = field(map, "senses")) read_senses(senses, group);
  return diags_.size() == errors_before;
}

void ScenarioReader::read_team(const Field& team, AgentGroup& group, const ScenarioSpec& spec) {
  if (!is_text(team.value)) {
    error(team, "'team' must be a team name, got " + shown(team.value));
    return;
  }
  const std::string& name = team.value.Scalar();
  if (std::find(spec.teams.begin(), spec.teams.end(), name) != spec.teams.end())
    group.team = name;
  else if (team_unknown_said(name))  // a name a bad entry of 'teams' holds: said there
    error(team, "unknown team '" + name + "'" + did_you_mean(name, spec.teams) + " (teams: " +
                    join_names(spec.teams) + ")");
}

void ScenarioReader::read_brain(const Field& brain, AgentGroup& group) {
  // A leaf file named for the brain: read as YAML it said "the top level must be a mapping".
  if (is_text(brain.value) && std::filesystem::path(brain.value.Scalar()).extension() == ".lua") {
    error(brain, "'" + brain.value.Scalar() + "' is a Lua file: 'brain' is the group's brain file (.yaml), which lists "
                 "its Lua leaf files under 'leaves:'");
    return;
  }
  if (auto path = file_beside(brain, "a brain file", "brain file", {".yaml", ".yml"})) {
    group.brain = *path;
    std::tie(group.brain_line, group.brain_column) = place(brain.value);
  }
}

void ScenarioReader::read_spawn(const Field& spawn, SpawnArea& area, const ScenarioSpec& spec, const std::string& where) {
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

bool ScenarioReader::has_free_cell(const nav::GridMap& map, const SpawnArea& area) {
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

void ScenarioReader::read_vehicle(const Field& vehicle, world::Vehicle& out) {
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

void ScenarioReader::read_blackboard(const Field& blackboard, std::vector<std::pair<std::string, Value>>& out,
                     const std::string& what_value, std::vector<std::pair<int, int>>* at) {
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
      case ScalarKind::Float:
        if (std::isnan(s.number)) {  // (as agent:signal refuses it: a health of nan never reaches 0)
          error(it->second, "the " + what_value + " of '" + key + "' is nan, which is no number to compare or count with: give it a number",
                it->first);
          continue;
        }
        value = s.number;
        break;
      case ScalarKind::Bool: value = s.boolean; break;
      case ScalarKind::String: value = s.text; break;
      case ScalarKind::Null:
        error(it->second, "the " + what_value + " of '" + key + "' must be a number, true/false or text, got " +
                              shown(it->second), it->first);
        continue;
    }
    out.emplace_back(key, std::move(value));
    if (at) at->push_back(place(it->first));
  }
}

}  // namespace thicket::scenario_read
