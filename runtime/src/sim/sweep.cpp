// Parameter sweeps: reading `sweep:` and --set, applying a parameter set (see sweep.hpp).
#include "sweep.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <cstdio>
#include <set>
#include <unordered_map>
#include <variant>

#include "sim/json_text.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

const char* const kSweepKeyForms =
    "seed, groups.NAME.count, groups.NAME.facing, groups.NAME.vehicle.{mass,max_speed,max_force,radius}, groups.NAME.blackboard.KEY, "
    "groups.NAME.senses.sight.cones.I.{range,angle}, groups.NAME.senses.sight.lod.distance, "
    "groups.NAME.senses.hearing.{threshold,walls}, "
    "groups.NAME.senses.touch.reach, groups.NAME.senses.memory";

namespace {

// As the scenario reader's limit (scenario_groups.cpp): a count is memory, a typo must not exhaust it.
constexpr uint64_t kMaxAgents = 100000;

// A whole number as YAML's core schema writes one, as the rest of the scenario file reads it:
// `16`, `+16`, `0x10`, `0o20` (a sweep refused `+3` and `0x10` that a group's keys took).
std::optional<uint64_t> whole(const std::string& text) {
  std::string_view t(text);
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'o')) {
    base = t[1] == 'x' ? 16 : 8;
    t.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

std::optional<double> number(const std::string& text) {
  std::string_view t(text);
  if (t.size() > 1 && t[0] == '+' && t[1] != '-') t.remove_prefix(1);  // `+3`, as YAML reads it
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'o'))
    if (auto w = whole(std::string(t))) return static_cast<double>(*w);
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

Value sweep_value(const std::string& text) {
  int64_t i = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return i;
  if (!text.empty() && (text[0] == '+' || text.rfind("0x", 0) == 0 || text.rfind("0o", 0) == 0))
    if (auto w = whole(text); w && *w <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<int64_t>(*w);  // `+3`, `0x10`: whole numbers, as YAML reads them
  if (auto d = number(text)) return *d;
  // YAML's infinities, as a group's `blackboard:` reads them (.nan stays text: no number).
  for (const char* inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
    if (text == inf) return std::numeric_limits<double>::infinity();
  for (const char* inf : {"-.inf", "-.Inf", "-.INF"})
    if (text == inf) return -std::numeric_limits<double>::infinity();
  if (text == "true" || text == "True" || text == "TRUE") return true;  // YAML's core schema's booleans
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return text;
}

Value swept_blackboard_value(const std::string& text, ValueType type) {
  return type == ValueType::String ? Value(text) : sweep_value(text);
}

namespace {

// What a key names, once resolved against a spec.
struct Target {
  enum class Kind { Seed, Count, Facing, Vehicle, Blackboard, ConeRange, ConeAngle, LodDistance, HearingThreshold, HearingWalls,
                    TouchReach, Memory } kind = Kind::Seed;
  size_t group = 0;
  size_t cone = 0;
  std::string field;  // vehicle field or blackboard key
};

// The group the key's `groups.NAME.` names: the longest group name that fits (names may hold dots).
std::optional<size_t> group_of(const ScenarioSpec& spec, const std::string& rest) {
  std::optional<size_t> best;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const std::string& name = spec.groups[g].name;
    if (rest.size() > name.size() && rest.compare(0, name.size(), name) == 0 && rest[name.size()] == '.' &&
        (!best || name.size() > spec.groups[*best].name.size()))
      best = g;
  }
  return best;
}

// The field paths a group offers, for "did you mean".
std::vector<std::string> group_fields(const AgentGroup& g) {
  std::vector<std::string> out = {"count", "facing", "vehicle.mass", "vehicle.max_speed", "vehicle.max_force", "vehicle.radius"};
  for (const auto& [key, v] : g.blackboard) out.push_back("blackboard." + key);
  for (size_t c = 0; c < g.senses.sight.cones.size(); ++c) {
    out.push_back("senses.sight.cones." + std::to_string(c) + ".range");
    out.push_back("senses.sight.cones." + std::to_string(c) + ".angle");
  }
  if (!g.senses.sight.cones.empty()) out.push_back("senses.sight.lod.distance");
  if (g.senses.hearing.enabled) out.push_back("senses.hearing.threshold"), out.push_back("senses.hearing.walls");
  if (g.senses.touch.enabled) out.push_back("senses.touch.reach");
  if (g.has_senses) out.push_back("senses.memory");
  return out;
}

std::optional<Target> resolve(const ScenarioSpec& spec, const std::string& key, std::string& why) {
  if (key == "seed") return Target{};
  const std::string prefix = "groups.";
  if (key.rfind(prefix, 0) != 0) {
    const std::string head = key.substr(0, key.find('.'));
    const std::string near = did_you_mean(head, {"seed", "groups"});
    why = "unknown sweep key '" + key + "'" + (near.empty() ? std::string(" (keys: ") + kSweepKeyForms + ")" : near);
    return std::nullopt;
  }
  const std::string rest = key.substr(prefix.size());
  std::vector<std::string> names;
  for (const AgentGroup& g : spec.groups) names.push_back(g.name);
  auto g = group_of(spec, rest);
  // A key that stops at the group ("groups.minions", "groups.minions."): the group is known, its
  // field is missing (it was blamed on an unknown group 'minions').
  const bool no_field = !g ? std::find(names.begin(), names.end(), rest) != names.end()
                           : rest.size() == spec.groups[*g].name.size() + 1;
  if (no_field) {
    const std::string name = g ? spec.groups[*g].name : rest;
    why = "sweep key '" + key + "' names group '" + name + "' but no field of it; did you mean 'groups." + name +
          ".count'? (keys: " + kSweepKeyForms + ")";
    return std::nullopt;
  }
  if (!g) {
    const std::string name = rest.substr(0, rest.find('.'));
    why = "sweep key '" + key + "': unknown group '" + name + "'" + did_you_mean(name, names) + " (groups: " +
          join_names(names) + ")";
    return std::nullopt;
  }
  const AgentGroup& group = spec.groups[*g];
  const std::string f = rest.substr(group.name.size() + 1);
  const std::string head = f.substr(0, f.find('.'));
  Target t;
  t.group = *g;
  auto unknown = [&](const std::string& hint) {
    // A part that has fields (`vehicle`, `senses.sight`): which fields (it said the group had no
    // 'vehicle', with no suggestion).
    std::vector<std::string> under;
    for (const std::string& field : group_fields(group))
      if (field.rfind(f + ".", 0) == 0) under.push_back(field);
    if (hint.empty() && !under.empty()) {
      why = "sweep key '" + key + "' names '" + f + "' of group '" + group.name + "' but none of its fields: one of " +
            join_names(under);
      return std::nullopt;
    }
    // The list of every key form only when there is no nearer help.
    const std::string near = hint.empty() ? did_you_mean(f, group_fields(group)) : hint;
    why = "sweep key '" + key + "': group '" + group.name + "' has no '" + f + "'" +
          (near.empty() ? std::string(" (keys: ") + kSweepKeyForms + ")" : near);
    return std::nullopt;
  };
  if (f == "count") {
    t.kind = Target::Kind::Count;
    return t;
  }
  if (f == "facing") {
    t.kind = Target::Kind::Facing;
    return t;
  }
  if (head == "name" || head == "team" || head == "brain" || head == "spawn") {
    why = "sweep key '" + key + "': a group's '" + head + "' cannot be swept (keys: " + kSweepKeyForms + ")";
    return std::nullopt;
  }
  if (head == "vehicle") {
    const std::string v = f.substr(head.size() + (f.size() > head.size() ? 1 : 0));
    if (v != "mass" && v != "max_speed" && v != "max_force" && v != "radius") return unknown("");
    t.kind = Target::Kind::Vehicle;
    t.field = v;
    return t;
  }
  if (head == "blackboard") {
    const std::string k = f.size() > head.size() ? f.substr(head.size() + 1) : "";
    if (!is_identifier(k)) {
      why = "sweep key '" + key + "': a blackboard key is a name (letters, digits, _; not starting with a digit), got '" +
            k + "'";
      return std::nullopt;
    }
    t.kind = Target::Kind::Blackboard;
    t.field = k;
    return t;
  }
  if (head != "senses") return unknown("");
  const perception::Senses& s = group.senses;
  if (f == "senses.memory" && group.has_senses) {
    t.kind = Target::Kind::Memory;
    return t;
  }
  if ((f == "senses.hearing.threshold" || f == "senses.hearing.walls") && s.hearing.enabled) {
    t.kind = f == "senses.hearing.walls" ? Target::Kind::HearingWalls : Target::Kind::HearingThreshold;
    return t;
  }
  if (f == "senses.touch.reach" && s.touch.enabled) {
    t.kind = Target::Kind::TouchReach;
    return t;
  }
  if (f == "senses.sight.lod.distance" && !s.sight.cones.empty()) {
    // Without `lod: {every: N > 1}` the distance changes nothing: every point would be one run.
    if (s.sight.lod_every <= 1)
      return unknown(": its sight has no lod (give the group lod: {distance: D, every: N}, N > 1, to sweep the distance)");
    t.kind = Target::Kind::LodDistance;
    return t;
  }
  const std::string cones = "senses.sight.cones.";
  if (f.rfind(cones, 0) == 0) {
    const std::string tail = f.substr(cones.size());
    const size_t dot = tail.find('.');
    auto i = whole(tail.substr(0, dot));
    const std::string what = dot == std::string::npos ? "" : tail.substr(dot + 1);
    if (i && (what == "range" || what == "angle")) {
      // One spelling per cone: cones.00 and cones.0 were two keys for one value (both runs of
      // --set ...cones.0.range=5,6 --set ...cones.00.range=7 used 7, and their rows said 5 and 6).
      if (tail.substr(0, dot) != std::to_string(*i))
        return unknown(": a cone's number is written as " + std::to_string(*i) + " (" + prefix + group.name +
                       ".senses.sight.cones." + std::to_string(*i) + "." + what + ")");
      if (*i >= s.sight.cones.size())
        return unknown(s.sight.cones.empty() ? std::string(": it has no sight")
                                             : ": its sight has " + std::to_string(s.sight.cones.size()) +
                                                   " cone(s), numbered from 0");
      t.kind = what == "range" ? Target::Kind::ConeRange : Target::Kind::ConeAngle;
      t.cone = static_cast<size_t>(*i);
      return t;
    }
  }
  if (f == "senses.sight.range" && !s.sight.cones.empty())
    return unknown("; a sight's range is per cone: did you mean '" + prefix + group.name + ".senses.sight.cones.0.range'?");
  // A sense the group lacks: say so rather than suggest a near key.
  const std::string sense = f.size() > 7 ? f.substr(7, f.find('.', 7) - 7) : "";
  if ((sense == "hearing" && !s.hearing.enabled) || (sense == "touch" && !s.touch.enabled) ||
      (sense == "sight" && s.sight.cones.empty()) || (f == "senses.memory" && !group.has_senses))
    return unknown(": it has no " + (f == "senses.memory" ? std::string("senses") : sense));
  return unknown("");
}

bool set_value(ScenarioSpec& spec, const Target& t, const std::string& key, const std::string& text, std::string& why) {
  auto bad = [&](const std::string& must) {
    why = "sweep key '" + key + "': the value must be " + must + ", got '" + text + "'";
    return false;
  };
  if (t.kind == Target::Kind::Seed) {
    // At most the scenario's own 'seed:' (2^63 - 1): run k's seed is the base + k - 1, and a base
    // near 2^64 wrapped, so that two runs of a batch had one seed.
    auto v = whole(text);
    if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return bad("a whole number from 0 to " + std::to_string(std::numeric_limits<int64_t>::max()));
    spec.seed = *v;
    spec.has_seed = true;
    return true;
  }
  AgentGroup& g = spec.groups[t.group];
  if (t.kind == Target::Kind::Count) {
    auto v = whole(text);
    if (!v || *v < 1 || *v > kMaxAgents) return bad("a whole number from 1 to " + std::to_string(kMaxAgents));
    g.count = static_cast<uint32_t>(*v);
    return true;
  }
  if (t.kind == Target::Kind::Blackboard) {  // ("" is text: a string key's empty value, `tag: [""]`)
    Value v = sweep_value(text);
    auto at = std::find_if(g.blackboard.begin(), g.blackboard.end(), [&](const auto& kv) { return kv.first == t.field; });
    if (at != g.blackboard.end()) at->second = std::move(v);
    else g.blackboard.emplace_back(t.field, std::move(v));
    auto swept = std::find_if(g.blackboard_swept.begin(), g.blackboard_swept.end(), [&](const auto& kv) { return kv.first == t.field; });
    if (swept != g.blackboard_swept.end()) swept->second = text;
    else g.blackboard_swept.emplace_back(t.field, text);
    return true;
  }
  auto v = number(text);
  perception::Senses& s = g.senses;
  switch (t.kind) {
    case Target::Kind::Facing:
      if (!v || *v < -360 || *v > 360) return bad("degrees from -360 to 360 (0 faces +x, 90 +y)");
      g.facing = *v;
      return true;
    case Target::Kind::Vehicle: {
      const bool mass = t.field == "mass";
      if (!v || !world::vehicle_field_fits(t.field, *v)) return bad(world::vehicle_field_range(t.field));
      double& slot = mass ? g.vehicle.mass
                          : t.field == "max_speed" ? g.vehicle.max_speed
                                                   : t.field == "max_force" ? g.vehicle.max_force : g.vehicle.radius;
      slot = *v;
      return true;
    }
    case Target::Kind::ConeRange:
      if (!v || *v <= 0) return bad("a number > 0 (metres)");
      s.sight.cones[t.cone].range = *v;
      return true;
    case Target::Kind::ConeAngle:
      if (!v || *v <= 0 || *v > 360) return bad("the cone's full width in degrees, > 0 and <= 360");
      s.sight.cones[t.cone].half_angle = *v / 2 * std::numbers::pi / 180;
      return true;
    case Target::Kind::LodDistance:
      if (!v || *v <= 0) return bad("a number > 0 (metres)");
      s.sight.lod_distance = *v;
      return true;
    case Target::Kind::HearingThreshold:
      if (!v || *v <= 0) return bad("a number > 0");
      s.hearing.threshold = *v;
      return true;
    case Target::Kind::HearingWalls:
      if (!v || *v < 0 || *v > 1) return bad("a number from 0 to 1");
      s.hearing.walls = *v;
      return true;
    case Target::Kind::TouchReach:
      if (!v || *v < 0) return bad("a number >= 0 (metres)");
      s.touch.reach = *v;
      return true;
    case Target::Kind::Memory:
      if (!v || *v < 0 || *v > kMaxSeconds) return bad("a number >= 0 and at most 1000000000 (seconds)");
      s.memory = *v;
      return true;
    default:
      return false;
  }
}

// A number as an identity: its shortest exact text (3, 3.0 and 3e0 are "n3"; -0 is 0).
std::string shortest_identity(double v) {
  if (v == 0) v = 0;  // -0 is 0
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string identity = "n";  // (appended: GCC 12's -Wrestrict misreads "n" + std::string)
  identity.append(buf, ec == std::errc() ? end : buf);
  return identity;
}

// A value as its key reads it, to find a value listed twice: 3, 3.0 and 3e0 of a number key,
// 1 and 01 of a whole number are one value and would repeat a parameter set. (The value was
// checked: it reads.) A blackboard value's identity depends on the key's declared type, which
// the brain gives (blackboard_value_identity, checked with the brains): here the text.
std::string value_identity(const Target& t, const std::string& text) {
  if (t.kind == Target::Kind::Seed || t.kind == Target::Kind::Count) return "n" + std::to_string(whole(text).value_or(0));
  if (t.kind != Target::Kind::Blackboard) return shortest_identity(number(text).value_or(0));
  return "t" + text;
}

// "" or why a key or value cannot be swept: the rows (JSONL) and thicket merge's part files
// carry text as UTF-8, so other bytes would come out changed.
std::string not_utf8(const std::string& key, const std::string& text, bool is_key) {
  const size_t at = first_invalid_utf8(text);
  if (at == std::string::npos) return {};
  const std::string byte = hex_byte(text[at]);
  return "sweep key '" + escaped_utf8(key) + "': " + (is_key ? std::string("the key") : "the value '" + escaped_utf8(text) + "'") +
         " is not UTF-8 text (byte " + byte + " at " + std::to_string(at + 1) +
         "): sweep keys and values are written to --out and to thicket merge's part files as UTF-8";
}

std::string listed_twice(const std::string& key, const std::string& first, const std::string& again) {
  return "sweep key '" + key + "' lists the value " + first + " twice" +
         (first == again ? std::string() : " (as " + first + " and " + again + ", the same value for this key)");
}

void add_error(std::vector<Diagnostic>& diags, const std::string& path, const YAML::Node& at, const std::string& message) {
  Diagnostic d;
  d.file = path;
  if (at.IsDefined() && !at.Mark().is_null()) {
    d.line = at.Mark().line + 1;
    d.column = at.Mark().column + 1;
  }
  d.message = message;
  diags.push_back(std::move(d));
}

}  // namespace

std::string blackboard_value_identity(const std::string& text, ValueType type) {
  if (type == ValueType::String) return "t" + text;
  const Value v = sweep_value(text);
  if (const auto* i = std::get_if<int64_t>(&v)) {  // the same number as a double, when one holds it exactly
    const double d = static_cast<double>(*i);
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && static_cast<int64_t>(d) == *i) return shortest_identity(d);
    return "i" + std::to_string(*i);
  }
  if (const auto* d = std::get_if<double>(&v)) return shortest_identity(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "btrue" : "bfalse";
  return "t" + text;
}

std::optional<std::pair<size_t, std::string>> blackboard_target(const ScenarioSpec& spec, const std::string& key) {
  std::string why;
  auto t = resolve(spec, key, why);
  if (!t || t->kind != Target::Kind::Blackboard) return std::nullopt;
  return std::pair(t->group, t->field);
}

bool apply_param(ScenarioSpec& spec, const std::string& key, const std::string& value, std::string& why) {
  auto t = resolve(spec, key, why);
  return t && set_value(spec, *t, key, value, why);
}

void read_sweep(const YAML::Node& key, const YAML::Node& value, ScenarioSpec& spec, const std::string& path,
                std::vector<Diagnostic>& diags) {
  if (!value.IsMap() || value.size() == 0) {
    add_error(diags, path, value.IsNull() || !value.IsDefined() ? key : value,
              "'sweep' must be a mapping of KEY: [V1, V2, ...] (e.g. {groups.minions.count: [40, 80], seed: [1, 2]}), got " +
                  std::string(value.IsMap() ? "an empty mapping" : describe_node(value)));
    return;
  }
  std::set<std::string> keys;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const YAML::Node k = it->first, v = it->second;  // handles: the iterator yields temporaries
    if (!k.IsScalar()) {
      add_error(diags, path, k, "a sweep key is a dotted path such as groups.minions.count, got " +
                                    std::string(describe_node(k)));
      continue;
    }
    SweepAxis axis;
    axis.key = k.Scalar();
    axis.line = k.Mark().line + 1;
    axis.column = k.Mark().column + 1;
    if (!keys.insert(axis.key).second) {
      add_error(diags, path, k, "sweep key '" + axis.key + "' is given twice");
      continue;
    }
    std::string why;
    if (std::string bad = not_utf8(axis.key, axis.key, true); !bad.empty()) {
      add_error(diags, path, k, bad);
      continue;
    }
    const auto target = resolve(spec, axis.key, why);
    if (!target) {
      add_error(diags, path, k, why);
      continue;
    }
    std::unordered_map<std::string, size_t> identities;  // of axis.values: the index of each (a set, not a list:
                                                         // a list of 32,000 values took 25 s to check)
    std::vector<YAML::Node> items;
    if (v.IsSequence())
      for (const YAML::Node& item : v) items.push_back(item);
    else
      items.push_back(v);
    if (items.empty()) {
      add_error(diags, path, v, "sweep key '" + axis.key + "' needs at least one value, got an empty list");
      continue;
    }
    for (const YAML::Node& item : items) {
      const YAML::Node place = item.IsDefined() && !item.Mark().is_null() && !item.IsNull() ? item : k;
      if (!item.IsScalar() || classify_scalar(item).kind == ScalarKind::Null) {
        add_error(diags, path, place, "a value of sweep key '" + axis.key + "' must be a number, true/false or text, got " +
                                          std::string(item.IsDefined() ? describe_node(item) : "nothing"));
        continue;
      }
      const std::string text = item.Scalar();
      ScenarioSpec scratch = spec;  // checked by applying it: one code path for the file and --set
      if (std::string bad = not_utf8(axis.key, text, false); !bad.empty()) {
        add_error(diags, path, place, bad);
        continue;
      }
      if (!apply_param(scratch, axis.key, text, why)) {
        add_error(diags, path, place, why);
        continue;
      }
      const std::string identity = value_identity(*target, text);
      if (auto [seen, fresh] = identities.emplace(identity, axis.values.size()); !fresh) {
        add_error(diags, path, place, listed_twice(axis.key, axis.values[seen->second], text));
        continue;
      }
      axis.values.push_back(text);
      axis.value_at.emplace_back(place.Mark().line + 1, place.Mark().column + 1);
    }
    if (axis.values.size() == items.size()) spec.sweep.push_back(std::move(axis));
  }
}

std::optional<SweepAxis> parse_set_option(const std::string& arg, const ScenarioSpec& spec, std::string& why) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    why = "--set needs KEY=V1,V2,... (e.g. --set groups.minions.count=40,80), got '" + arg + "'";
    return std::nullopt;
  }
  const std::string list = arg.substr(eq + 1);
  if (list.empty()) {
    why = "--set " + arg.substr(0, eq) + " needs a value after '=' (--set KEY=V1,V2,...), got '" + arg + "'";
    return std::nullopt;
  }
  std::vector<std::string> values;
  for (size_t from = 0;;) {
    const size_t comma = list.find(',', from);
    values.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (values.back().empty()) {
      why = "--set " + arg.substr(0, eq) + ": an empty value in '" + list + "' (values are separated by commas)";
      return std::nullopt;
    }
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return sweep_axis(arg.substr(0, eq), values, spec, "--set", why);
}

std::optional<SweepAxis> sweep_axis(const std::string& key, const std::vector<std::string>& values, const ScenarioSpec& spec,
                                    const std::string& origin, std::string& why) {
  SweepAxis axis;
  axis.key = key;
  // "--set: why", "--set KEY: why" (keyed); a caller that names the key itself passes no origin.
  auto said = [&](const std::string& text, bool keyed) {
    return origin.empty() ? text : origin + (keyed ? " " + key : std::string()) + ": " + text;
  };
  // Bytes that are not UTF-8 first: the other messages echo the key as it is.
  if (std::string bad = not_utf8(axis.key, axis.key, true); !bad.empty()) {
    why = said(bad, false);
    return std::nullopt;
  }
  const auto target = resolve(spec, axis.key, why);
  if (!target) {
    why = said(why, false);
    return std::nullopt;
  }
  std::unordered_map<std::string, size_t> identities;  // of axis.values: the index of each
  for (const std::string& text : values) {
    ScenarioSpec scratch = spec;
    // (An empty text is a value: a string key's "" as the file's sweep: gives it; --set's
    // "a,,b" is refused before, by parse_set_option; a number key's "" by apply_param.)
    if (std::string bad = not_utf8(axis.key, text, false); !bad.empty()) {
      why = said(bad, false);
      return std::nullopt;
    }
    if (!apply_param(scratch, axis.key, text, why)) {
      why = said(why, false);
      return std::nullopt;
    }
    const std::string identity = value_identity(*target, text);
    if (auto [seen, fresh] = identities.emplace(identity, axis.values.size()); !fresh) {
      const std::string& first = axis.values[seen->second];
      why = said("the value " + first + " is listed twice" +
                     (first == text ? std::string() : " (as " + first + " and " + text + ", the same value for this key)"),
                 true);
      return std::nullopt;
    }
    axis.values.push_back(text);
  }
  return axis;
}

std::vector<SweepAxis> merge_axes(const std::vector<SweepAxis>& file, const std::vector<SweepAxis>& command_line) {
  std::vector<SweepAxis> out = file;
  for (const SweepAxis& a : command_line) {
    auto at = std::find_if(out.begin(), out.end(), [&](const SweepAxis& b) { return b.key == a.key; });
    if (at != out.end()) *at = a;
    else out.push_back(a);
  }
  return out;
}

std::optional<ScenarioSpec> apply_param_set(const ScenarioSpec& spec, const std::vector<std::string>& names,
                                            const std::vector<std::string>& values, std::string& why) {
  ScenarioSpec out = spec;
  for (size_t k = 0; k < names.size() && k < values.size(); ++k)
    if (!apply_param(out, names[k], values[k], why)) return std::nullopt;
  uint64_t agents = 0;
  for (const AgentGroup& g : out.groups) agents += g.count;
  if (agents > kMaxAgents) {
    why = "it gives " + std::to_string(agents) + " agents; a scenario may have at most " +
          std::to_string(kMaxAgents) + " agents in all";
    return std::nullopt;
  }
  return out;
}

std::optional<SweepSets> sweep_sets(const ScenarioSpec& spec, const std::vector<SweepAxis>& axes, std::string& why) {
  SweepSets sets;
  std::vector<const SweepAxis*> params;
  size_t n = 1;
  for (const SweepAxis& a : axes) {
    if (a.key == "seed") {
      for (const std::string& v : a.values) sets.seeds.push_back(whole(v).value_or(0));
      continue;
    }
    params.push_back(&a);
    sets.names.push_back(a.key);
    if (a.values.empty() || n > kMaxParamSets / a.values.size()) {
      std::string product;  // the sizes of the axes, each key's values (seeds are runs, not sets)
      for (const SweepAxis& b : axes)
        if (b.key != "seed") product += (product.empty() ? "" : " x ") + std::to_string(b.values.size());
      why = "the sweep has more than " + std::to_string(kMaxParamSets) + " parameter sets (" + product +
            " values of its keys); at most " + std::to_string(kMaxParamSets) + ": fewer values to sweep";
      return std::nullopt;
    }
    n *= a.values.size();
  }
  // Each set is checked on a copy of the spec: one without its sweep (copied with every set,
  // a sweep of 32,000 values took 20 s to plan).
  ScenarioSpec base = spec;
  base.sweep.clear();
  // Nested loops, the first axis outermost: set i's value of axis k is digit k of i written in
  // the mixed radix of the axes' sizes.
  sets.values.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> set(params.size());
    size_t rest = i;
    for (size_t k = params.size(); k-- > 0;) {
      set[k] = params[k]->values[rest % params[k]->values.size()];
      rest /= params[k]->values.size();
    }
    if (!apply_param_set(base, sets.names, set, why)) {
      std::string which;
      for (size_t k = 0; k < set.size(); ++k) which += (k ? " " : "") + sets.names[k] + "=" + set[k];
      why = "parameter set " + std::to_string(i + 1) + " (" + which + "): " + why;
      return std::nullopt;
    }
    sets.values.push_back(std::move(set));
  }
  return sets;
}

}  // namespace thicket
