// The record's shape as docs/record-format.md states it; unknown fields are ignored, as the
// format asks of readers, so a later version that only adds fields still reads.
#include "record_check.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "json_text.hpp"

namespace thicket::cli {

namespace {

using nlohmann::json;

std::string ordinal(std::size_t n) {
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

// How deep a record's line may nest (it nests a few levels) and how many values it may hold.
constexpr int kMaxNesting = 256;
constexpr std::size_t kMaxValues = std::size_t(1) << 24;  // a tick of 1M agents with a few keys fits

// "" or why a line is refused before it is parsed: too deep, or too many values.
std::string shape_refusal(std::string_view text, const char* what) {
  const JsonShape shape = json_shape(text, kMaxNesting);
  if (shape.deepest > kMaxNesting)
    return std::string(what) + " nests deeper than " + std::to_string(kMaxNesting) + " levels (a record's lines nest a few)";
  if (shape.values > kMaxValues)
    return std::string(what) + " holds more than " + std::to_string(kMaxValues) + " values (" +
           std::to_string(shape.values) + "): more than a record's line holds, and more than the replay page could show";
  return {};
}

// A short rendering of a JSON value for messages.
std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Where a line stops being JSON: the byte column of nlohmann's parse error, for the message.
class ErrorColumn : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    column = position;
    return false;
  }
  std::size_t column = 0;
};

// The column where `text` stops being JSON.
std::size_t json_break_column(std::string_view text) {
  ErrorColumn where;
  json::sax_parse(text, &where, json::input_format_t::json, false);
  return where.column;
}

std::string not_json(std::string_view text) {
  return "this line is not JSON (it breaks at column " + std::to_string(json_break_column(text)) + ")";
}

bool is_index(const json& v) { return v.is_number_integer() && v.get<std::int64_t>() >= 0; }

// What is wrong with one entry of a tick line's `agents`, or "". node_counts: per group, the
// length its node strings must have (empty: not known).
std::string agent_entry_error(const json& a, std::size_t groups, std::size_t keys,
                              const std::vector<std::size_t>& node_counts) {
  if (!a.is_array()) return "must be an array, got " + shown(a);
  if (a.size() < 9) return "has " + std::to_string(a.size()) + " fields, not 9 (id, x, y, heading, group, alive, status, nodes, keys)";
  // Ids are 1 .. 4294967294 (an id past 2^32 was read modulo 2^32: another agent's).
  if (!is_index(a[0]) || a[0].get<std::uint64_t>() < 1 || a[0].get<std::uint64_t>() > 4294967294u)
    return ": field 0 (id) must be an agent id from 1 to 4294967294, got " + shown(a[0]);
  static const char* kCoordinates[] = {"x", "y", "heading"};
  for (int k = 1; k <= 3; ++k)
    if (!a[k].is_number()) return ": field " + std::to_string(k) + " (" + kCoordinates[k - 1] + ") must be a number, got " + shown(a[k]);
  if (!is_index(a[4]) || a[4].get<std::uint64_t>() >= groups)
    return ": field 4 (group) must index the header's " + std::to_string(groups) + " group(s), got " + shown(a[4]);
  if (!(a[5] == 0 || a[5] == 1)) return ": field 5 (alive) must be 0 or 1, got " + shown(a[5]);
  if (!(a[6] == "running" || a[6] == "success" || a[6] == "failure" || a[6] == "invalid"))
    return ": field 6 (status) must be running, success, failure or invalid, got " + shown(a[6]);
  if (!a[7].is_string()) return ": field 7 (nodes) must be a string of R, S, F and ., got " + shown(a[7]);
  for (char c : a[7].get_ref<const std::string&>())
    if (c != 'R' && c != 'S' && c != 'F' && c != '.')
      return ": field 7 (nodes) holds '" + std::string(1, c) + "': only R, S, F and . are node statuses";
  if (const std::size_t group = a[4].get<std::size_t>(); group < node_counts.size()) {
    const std::size_t have = a[7].get_ref<const std::string&>().size(), want = node_counts[group];
    if (have != want)
      return ": field 7 (nodes) has " + std::to_string(have) + " node status(es); its group's brain has " +
             std::to_string(want) + " node(s)";
  }
  if (!a[8].is_array() && !a[8].is_null()) return ": field 8 (keys) must be an array, got " + shown(a[8]);
  if (a[8].is_array() && a[8].size() != keys)
    return ": field 8 (keys) has " + std::to_string(a[8].size()) + " value(s) for the header's " + std::to_string(keys) + " key(s)";
  return {};
}

bool finite_numbers(const json& a, std::size_t n) {
  if (!a.is_array() || a.size() != n) return false;
  for (const json& v : a)
    if (!v.is_number() || !std::isfinite(v.get<double>())) return false;
  return true;
}

// Whether `points` is a polygon: [[x, y], ...], 3 points or more.
bool polygon_ok(const json& points) {
  if (!points.is_array() || points.size() < 3) return false;
  for (const json& p : points)
    if (!finite_numbers(p, 2)) return false;
  return true;
}

// "" or why `shape` (an obstacle or an area) is not one the viewer draws: an object with a
// circle [x, y, r >= 0], a box [x0, y0, x1, y1] or a polygon [[x, y], ...].
std::string shape_error(const json& shape, const std::string& which) {
  if (shape.is_object()) {
    if (shape.contains("circle") && finite_numbers(shape["circle"], 3) && shape["circle"][2].get<double>() >= 0) return {};
    if (shape.contains("box") && finite_numbers(shape["box"], 4)) return {};
    if (shape.contains("polygon") && polygon_ok(shape["polygon"])) return {};
  }
  return which + " must be an object with a circle [x, y, radius >= 0], a box [x0, y0, x1, y1] or a polygon "
                 "[[x, y], ...], got " + shown(shape);
}

// "" or why the header's world holds what the viewer cannot draw (a negative radius, obstacles
// that are no list: the page failed there and drew nothing more of the world).
std::string world_error(const json& world) {
  for (const char* list : {"obstacles", "areas"}) {
    const json& shapes = world.value(list, json());
    if (shapes.is_null()) continue;
    if (!shapes.is_array()) return std::string("the header's world.") + list + " must be an array, got " + shown(shapes);
    for (std::size_t k = 0; k < shapes.size(); ++k)
      if (std::string why = shape_error(shapes[k], std::string("the header's ") + ordinal(k + 1) + " world." + list + " entry");
          !why.empty())
        return why;
  }
  const json& navmesh = world.value("navmesh", json());
  if (!navmesh.is_null()) {
    const json& polygons = navmesh.is_object() ? navmesh.value("polygons", json()) : json();
    if (!polygons.is_array()) return "the header's world.navmesh must be an object with a polygons array, got " + shown(navmesh);
    for (std::size_t k = 0; k < polygons.size(); ++k)
      if (!polygon_ok(polygons[k]))
        return "the header's world.navmesh's " + ordinal(k + 1) + " polygon must be [[x, y], ...] (3 points or more), got " +
               shown(polygons[k]);
  }
  return {};
}

}  // namespace

std::string RecordCheck::header(std::string_view text) {
  if (std::string why = shape_refusal(text, "its first line"); !why.empty()) return "not a thicket record: " + why;
  json h = json::parse(text, nullptr, false);
  // (A first line that is no JSON at all, a lone surrogate or a NUL in it, said where it breaks.)
  if (h.is_discarded())
    return "not a thicket record: its first line is not JSON (it breaks at column " +
           std::to_string(json_break_column(text)) + ")";
  if (!h.is_object() || h.value("format", json()) != "thicket-record")
    return "not a thicket record: its first line is not a header with \"format\":\"thicket-record\"";
  const json& v = h.value("version", json());
  if (!is_index(v)) return "the header's version must be a whole number, got " + shown(v);
  if (v.get<std::int64_t>() > kVersion)
    return "the record is version " + std::to_string(v.get<std::int64_t>()) + "; this thicket reads version " +
           std::to_string(kVersion) + " and older (a newer thicket wrote it: update thicket)";
  // The run's clock, which the viewer's time line is drawn from: dt seconds a tick, a tick line
  // every `every` ticks, `ticks` in the run.
  if (const json& dt = h.value("dt", json(1)); !dt.is_number() || !(dt.get<double>() > 0) || !std::isfinite(dt.get<double>()))
    return "the header's dt must be a positive number of seconds, got " + shown(dt);
  if (const json& every = h.value("every", json(1)); !is_index(every) || every.get<std::int64_t>() < 1)
    return "the header's every must be a whole number of ticks, 1 or more, got " + shown(every);
  if (const json& ticks = h.value("ticks", json(0)); !is_index(ticks) && !ticks.is_null())  // null: until stopped
    return "the header's ticks must be a whole number, 0 or more (or null), got " + shown(ticks);
  if (const json& seed = h.value("seed", json(0)); !seed.is_number_integer())
    return "the header's seed must be a whole number, got " + shown(seed);
  for (const char* list : {"teams", "brains", "groups", "keys", "metrics"})
    if (h.contains(list) && !h[list].is_array()) return std::string("the header's ") + list + " must be an array, got " + shown(h[list]);
  for (const char* list : {"keys", "metrics"})  // names: a reader keys its columns by them
    if (h.contains(list))
      for (const json& name : h[list])
        if (!name.is_string()) return std::string("the header's ") + list + " must be names (text), got " + shown(name);
  if (h.contains("world") && !h["world"].is_object()) return "the header's world must be an object, got " + shown(h["world"]);
  if (h.contains("world"))
    if (std::string why = world_error(h["world"]); !why.empty()) return why;
  groups_ = h.value("groups", json::array()).size();
  keys_ = h.value("keys", json::array()).size();
  metrics_ = h.value("metrics", json::array()).size();
  const std::size_t teams = h.value("teams", json::array()).size();
  if (h.contains("brains")) {
    if (std::string why = read_brains(&h["brains"], "the header's"); !why.empty()) return why;
    brains_known_ = true;
  }
  // Each group indexes a team and a brain (the viewer draws its agents with them).
  const json groups = h.value("groups", json::array());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const json& group = groups[g];
    const std::string which = "the header's " + ordinal(g + 1) + " group";
    if (!group.is_object()) return which + " must be an object, got " + shown(group);
    if (h.contains("teams") && (!is_index(group.value("team", json())) || group["team"].get<std::size_t>() >= teams))
      return which + "'s team must index the header's " + std::to_string(teams) + " team(s), got " + shown(group.value("team", json()));
    if (brains_known_) {
      const json& brain = group.value("brain", json());
      if (!is_index(brain) || brain.get<std::size_t>() >= node_counts_.size())
        return which + "'s brain must index the header's " + std::to_string(node_counts_.size()) + " brain(s), got " + shown(brain);
      group_brain_.push_back(brain.get<std::size_t>());
      group_nodes_.push_back(node_counts_[group_brain_.back()]);
    }
  }
  return {};
}

// A brains array (the header's, or a brains line's): each brain an object whose nodes are
// listed depth-first, each node's parent -1 (the root) or an earlier node. Keeps the counts.
std::string RecordCheck::read_brains(const void* p, const char* where) {
  const json& brains = *static_cast<const json*>(p);
  if (!brains.is_array()) return std::string(where) + " brains must be an array, got " + shown(brains);
  std::vector<std::size_t> counts;
  for (std::size_t b = 0; b < brains.size(); ++b) {
    const json& brain = brains[b];
    const std::string which = std::string(where) + " " + ordinal(b + 1) + " brain";
    if (!brain.is_object() || !brain.value("nodes", json()).is_array())
      return which + " must be an object with a nodes array, got " + shown(brain);
    const json& nodes = brain["nodes"];
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const json parent = nodes[n].is_object() ? nodes[n].value("parent", json()) : json();
      const bool ok = parent.is_number_integer() &&
                      (n == 0 ? parent.get<std::int64_t>() == -1
                              : parent.get<std::int64_t>() >= 0 && parent.get<std::uint64_t>() < n);
      if (!ok)
        return which + "'s node " + std::to_string(n) + " must be an object whose parent is " +
               (n == 0 ? std::string("-1 (the root)") : "an earlier node (0.." + std::to_string(n - 1) + ")") +
               ", got " + shown(nodes[n]);
      // Extra edges [target, label], drawn beside the tree's (a number here broke the drawing).
      const json& links = nodes[n].value("links", json());
      if (links.is_null()) continue;
      bool links_ok = links.is_array();
      for (std::size_t k = 0; links_ok && k < links.size(); ++k)
        links_ok = links[k].is_array() && links[k].size() == 2 && is_index(links[k][0]) &&
                   links[k][0].get<std::size_t>() < nodes.size() && links[k][1].is_string();
      if (!links_ok)
        return which + "'s node " + std::to_string(n) + "'s links must be [[target node, label], ...] within its " +
               std::to_string(nodes.size()) + " node(s), got " + shown(links);
    }
    counts.push_back(nodes.size());
  }
  if (brains_known_ && counts.size() != node_counts_.size())
    return std::string(where) + " brains are " + std::to_string(counts.size()) + " where the header has " +
           std::to_string(node_counts_.size()) + " (a hot reload changes brains, not how many there are)";
  node_counts_ = std::move(counts);
  for (std::size_t g = 0; g < group_brain_.size(); ++g) group_nodes_[g] = node_counts_[group_brain_[g]];
  return {};
}

std::string RecordCheck::tick_line(const void* p) {
  const json& t = *static_cast<const json*>(p);
  if (!is_index(t["tick"])) return "a tick line's tick must be a whole number >= 0, got " + shown(t["tick"]);
  const std::int64_t tick = t["tick"].get<std::int64_t>();
  if (tick <= last_tick_)
    return "tick " + std::to_string(tick) + " comes after tick " + std::to_string(last_tick_) + ": ticks must ascend";
  last_tick_ = tick;
  const json& agents = t.value("agents", json());
  if (!agents.is_array()) return "tick " + std::to_string(tick) + ": agents must be an array, got " + shown(agents);
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (std::string why = agent_entry_error(agents[i], groups_, keys_, group_nodes_); !why.empty())
      return "tick " + std::to_string(tick) + ": the " + ordinal(i + 1) + " entry of agents" + (why[0] == ':' ? "" : " ") + why;
  // An agent once a tick (a second entry of one id took the first one's place). Once alive and
  // once dead is not twice: an agent that died since the last line, and a new one a script
  // spawned with its id.
  ids_.clear();
  for (const json& a : agents) ids_.push_back(a[0].get<std::uint64_t>() * 2 + (a[5] == 1 ? 1 : 0));
  std::sort(ids_.begin(), ids_.end());
  if (auto twice = std::adjacent_find(ids_.begin(), ids_.end()); twice != ids_.end())
    return "tick " + std::to_string(tick) + ": agent " + std::to_string(*twice / 2) + " is listed twice";
  const json& events = t.value("events", json::array());
  if (!events.is_array()) return "tick " + std::to_string(tick) + ": events must be an array, got " + shown(events);
  for (std::size_t i = 0; i < events.size(); ++i)
    if (!events[i].is_array() || events[i].size() < 2 || !events[i][0].is_string())
      return "tick " + std::to_string(tick) + ": the " + ordinal(i + 1) + " event must be [name, tick, ...], got " + shown(events[i]);
  const json& metrics = t.value("metrics", json::array());
  if (!metrics.is_array() || metrics.size() != metrics_)
    return "tick " + std::to_string(tick) + ": metrics must be an array of the header's " + std::to_string(metrics_) +
           " metric value(s), got " + shown(metrics);
  ++ticks_;
  agent_ticks_ += agents.size();
  if (agents.size() > max_agents_) max_agents_ = agents.size();
  return {};
}

std::string RecordCheck::line(std::string_view text, bool unterminated) {
  ++lines_;
  if (lines_ == 1) return header(text);
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) return {};  // a blank line says nothing
  if (ended_) return "a line after the end line";
  if (std::string why = shape_refusal(text, "the line"); !why.empty()) return why;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return unterminated ? "the last line is cut short: the run was cut short (killed, or the disk filled)"
                        : not_json(text);
  if (!j.is_object()) return "a record line must be a JSON object, got " + shown(j);
  if (j.contains("tick")) return tick_line(&j);
  if (j.contains("brains_at")) {
    if (!is_index(j["brains_at"])) return "a brains line's brains_at must be a tick, got " + shown(j["brains_at"]);
    if (!j.value("brains", json()).is_array()) return "a brains line needs a brains array";
    if (brains_known_) return read_brains(&j["brains"], "a brains line's");
    return {};
  }
  if (j.contains("end")) {
    if (j["end"] != true) return "an end line's end must be true, got " + shown(j["end"]);
    // The gauges: the metrics whose plots show mean, min and max (a number broke every plot).
    const json& gauges = j.value("gauges", json::array());
    bool gauges_ok = gauges.is_array();
    for (std::size_t k = 0; gauges_ok && k < gauges.size(); ++k) gauges_ok = gauges[k].is_string();
    if (!gauges_ok) return "an end line's gauges must be an array of metric names, got " + shown(gauges);
    if (j.contains("ticks") && j["ticks"].is_number_unsigned())
      run_ticks_ = static_cast<std::int64_t>(std::min<std::uint64_t>(j["ticks"].get<std::uint64_t>(), INT64_MAX));
    ended_ = true;
    return {};
  }
  return "a line that is neither a tick, a brains nor an end line (its keys: " + shown(j) + ")";
}

std::string RecordCheck::finish() const {
  if (lines_ == 0) return "empty file: not a thicket record";
  if (!ended_) return "the record stops without its end line: the run was cut short (killed, or the disk filled)";
  return {};
}

}  // namespace thicket::cli
