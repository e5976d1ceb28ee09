// Scenario files, perception (scenario_reader.hpp): a group's senses, and the world's areas
// and pickups that perception and the world API name.

#include "scenario_reader.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "suggest.hpp"

namespace thicket::scenario_read {

namespace {

const std::vector<std::string> kSensesKeys = {"sight", "hearing", "touch", "targets", "memory", "blackboard", "events"};
const std::vector<std::string> kPickupKeys = {"name", "kind", "at", "radius", "respawn", "teams", "gives"};
// Every cone is tested against every body near the agent, and a percept names its cone in a byte.
constexpr size_t kMaxCones = 16;

}  // namespace

std::optional<bool> ScenarioReader::boolean(const Field& f) {
  Scalar s = classify_scalar(f.value);
  if (f.value.IsScalar() && s.kind == ScalarKind::Bool) return s.boolean;
  error(f, "'" + f.key.Scalar() + "' must be true or false, got " + shown(f.value) + yaml11_boolean_hint(f.value));
  return std::nullopt;
}

void ScenarioReader::read_senses(const Field& f, AgentGroup& group) {
  const YAML::Node& map = f.value;
  if (!map.IsMap() && !map.IsNull()) {
    error(f, "'senses' must be a mapping {sight, hearing, touch, targets, memory, blackboard}, got " + shown(map));
    return;
  }
  perception::Senses& senses = group.senses;
  Field sight = field(map, "sight"), hearing = field(map, "hearing"), touch = field(map, "touch");
  // Counted before the key check: a misspelt `sigth:` must not also make every sight slot an
  // error ("this group has no sight").
  size_t errors_before = diags_.size();
  if (map.IsMap()) reject_unknown_keys(map, kSensesKeys, "key", " in 'senses'");
  const bool none = !sight && !hearing && !touch;
  if (none) {
    // A near-miss (`sigth:`) has its own did-you-mean error. The rest of the mapping is still
    // read (its errors were said one at a time: a bad memory only once a sense was given).
    if (diags_.size() == errors_before) error(f, "senses need at least one of sight, hearing, touch");
  } else {
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
  }
  // Whether the senses themselves read well (then a slot of a sense the group lacks is said);
  // a mistake in targets or memory below has nothing to do with it (it hid those errors).
  const bool senses_read_well = !none && diags_.size() == errors_before;
  if (Field t = field(map, "targets")) {
    const std::vector<std::string> names = {"enemies", "friends", "all"};
    const std::string word = is_text(t.value) ? t.value.Scalar() : "";
    auto at = std::find(names.begin(), names.end(), word);
    if (at != names.end())
      senses.targets = static_cast<perception::Targets>(at - names.begin());
    else if (is_text(t.value)) {
      std::string near = did_you_mean(word, names);
      for (const std::string& n : names)  // a singular (enemy, friend) is too far for the edit distance
        if (near.empty() && (n == word + "s" || (word.size() > 1 && word.back() == 'y' && n == word.substr(0, word.size() - 1) + "ies")))
          near = "; did you mean '" + n + "'?";
      error(t, "unknown targets '" + word + "'" + near + " (allowed: " + join_names(names) + ")");
    }
    else
      error(t, "'targets' must be one of enemies, friends, all, got " + shown(t.value));
  }
  read_measure(map, "memory", /*positive=*/false, senses.memory, kMaxSeconds);
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
    group.sense_events_at = place(ev.key);
    read_sense_events(ev, group.sense_events, group.sense_event_at);
    // An event renamed for a sense the group lacks would never be sent, as such a slot would
    // never be written (false, which switches one off, is fine).
    if (senses_read_well)
      for (size_t k = 0; k < group.sense_event_at.size(); ++k) {
        if (group.sense_event_at[k].first == 0 || group.sense_events[k].empty()) continue;
        const char* needs = k <= 1 && senses.sight.cones.empty() ? "sight"
                            : (k == 2 || k == 3) && !senses.hearing.enabled ? "hearing"
                            : (k == 4 || k == 5) && !senses.touch.enabled ? "touch"
                                                                          : nullptr;
        if (needs)
          diags_.push_back({Severity::Error, path_, group.sense_event_at[k].first, group.sense_event_at[k].second,
                            "perception event '" + std::string(kPerceptEventNames[k]) + "' is sent by " + needs +
                                ", and this group has no " + needs + " (false switches it off)"});
      }
  }
  group.has_senses = true;
}

void ScenarioReader::read_sense_events(const Field& f, std::vector<std::string>& names, std::vector<std::pair<int, int>>& places) {
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
      places[kind - kinds.begin()] = place(value);
    } else {
      error(value, "perception event '" + *kind + "' is renamed to an event name, or switched off with false, got " + shown(value),
            it->first);
    }
  }
}

template <class ReadMap>
void ScenarioReader::read_switch_or_map(const Field& f, bool& enabled, const std::string& form, ReadMap read_map) {
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

void ScenarioReader::read_sight(const Field& f, perception::SightSpec& sight) {
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

std::optional<perception::SightCone> ScenarioReader::read_cone(const YAML::Node& item, const YAML::Node& list_key) {
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

void ScenarioReader::read_sense_keys(const Field& f, std::vector<SenseBinding>& out) {
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
    out.push_back({static_cast<SenseSlot>(slot - slots.begin()), value.Scalar(), place(value).first, place(value).second});
  }
}

void ScenarioReader::read_areas(const Field& list, ScenarioSpec& spec) {
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
      if (const std::string outside = wholly_outside(*shape); !outside.empty()) {
        error(item, "area '" + area.name + "'" + outside + ": it could never be touched");
        continue;
      }
      area.shape = std::move(*shape);
      spec.areas.push_back(std::move(area));
    }
  }
}

bool ScenarioReader::read_unique_name(const YAML::Node& item, const std::string& what, std::set<std::string>& names, std::string& out) {
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

void ScenarioReader::read_pickups(const Field& list, ScenarioSpec& spec) {
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
    std::tie(decl.line, decl.column) = place(item);
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
    if (Field gives = field(item, "gives")) read_blackboard(gives, decl.gives, "given value", &decl.gives_at);
    if (diags_.size() == errors_before) spec.pickups.push_back(std::move(decl));
  }
}

void ScenarioReader::check_reachable(const Field& at, const std::string& name, world::Vec2 p, const ScenarioSpec& spec) {
  const std::string which = name.empty() ? "the pickup" : "pickup '" + name + "'";
  if (world_known_ && !world_bounds_contains(p)) {
    error(at, which + " at " + point_text(p) + " is outside the world " + point_text(known_bounds_.min) + ".." +
                  point_text(known_bounds_.max) + ": it could never be taken");
    return;
  }
  if (std::string in = inside_wall(p, spec.obstacles, spec.nav); !in.empty())
    error(at, which + " at " + point_text(p) + " is " + in + ": it could never be taken");
}

void ScenarioReader::read_pickup_teams(const Field& teams, PickupDecl& decl, const ScenarioSpec& spec) {
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
    } else if (team_unknown_said(name)) {  // a name a bad entry of 'teams' holds: said there
      error(item, "unknown team '" + name + "'" + did_you_mean(name, spec.teams) + " (teams: " + join_names(spec.teams) + ")");
    }
  }
}

}  // namespace thicket::scenario_read
