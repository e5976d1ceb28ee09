// Decorator nodes (SPEC 3.3): the short form (the child itself) and {child, times | seconds |
// message}.
#include <algorithm>
#include <cmath>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

uint32_t TreeCompiler::decorator(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
  const std::string kind_name = kind_info(kind).name;
  const std::vector<std::string>& kinds = all_kind_names();
  if (!v.IsMap()) {
    error(v, kind_name + " takes its child node (" + kind_name + ": {action: X}) or a mapping with 'child'; got " +
                 describe_node(v));
    return kNone;
  }
  if (!v["child"]) {
    bool has_kind = false;
    for (const auto& key : map_keys(v)) has_kind = has_kind || std::find(kinds.begin(), kinds.end(), key) != kinds.end();
    // Parameters beside the child's kind ({seconds: 2, action: Patrol}): a short form with
    // parameters, which thicket has not. Said at the child's kind (so the schema's "unknown
    // key" there is not said as well), then both halves are checked for their own errors.
    const std::vector<std::string> params = params_of(kind);
    auto is_param = [&](const std::string& key) {
      return key != "name" && key != "child" && std::find(params.begin(), params.end(), key) != params.end();
    };
    std::string given, child_kind;
    YAML::Node child_key;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (is_param(key) && given.empty())
        given = key + ": " + (it->second.IsScalar() && it->second.Scalar().size() <= 20 ? it->second.Scalar() : "...");
      if (child_kind.empty() && std::find(kinds.begin(), kinds.end(), key) != kinds.end()) {
        child_kind = key;
        child_key.reset(it->first);
      }
    }
    if (has_kind && !given.empty()) {
      error(child_key, kind_name + "'s child goes under 'child' when it has parameters: " + kind_name + ": {" + given +
                           ", child: {" + child_kind + ": ...}}");
      uint32_t index = emit(kind, v, path, read_name(v, prefix, path), kind_name);
      decorator_params(kind, v, index, kind_name);
      YAML::Node child(YAML::NodeType::Map);
      for (auto it = v.begin(); it != v.end(); ++it)
        if (!is_param(it->first.Scalar()) && it->first.Scalar() != "name") child.force_insert(it->first, it->second);
      uint32_t c = node(child, path + "/0", prefix);
      finish_children(index, c == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{c});
      return index;
    }
    if (has_kind) {
      // Short form: the mapping is the child node itself.
      if (kind == NodeKind::Limit || kind == NodeKind::Timeout || kind == NodeKind::Cooldown)
        error(v, kind_name + " needs parameters: " + kind_name +
                     (kind == NodeKind::Limit ? ": {times: 3, child: ...}" : ": {seconds: 2.0, child: ...}"));
      if (kind == NodeKind::BtRepeat || kind == NodeKind::BtRetry || kind == NodeKind::BtTimeout ||
          kind == NodeKind::BtDelay || kind == NodeKind::BtPrecondition || kind == NodeKind::B3MaxTime ||
          kind == NodeKind::B3Limiter)
        error(v, kind_name + " needs parameters: " + kind_name + ": {" + imported_params_of(kind)[2] + ": ..., child: ...}");
      uint32_t index = emit(kind, v, path, "", kind_name);
      if (kind == NodeKind::Log) p_.nodes[index].a = add_message("");
      if (is_imported_kind(kind)) imported_params(kind, YAML::Node(YAML::NodeType::Map), index);
      uint32_t c = node(v, path + "/0", prefix);
      finish_children(index, c == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{c});
      return index;
    }
    // Neither form: a parameter mapping without its child, or misspelt keys.
    std::vector<std::string> keys = params_of(kind), candidates = params_of(kind);
    candidates.insert(candidates.end(), kinds.begin(), kinds.end());
    bool reported = false;
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string key = it->first.Scalar();
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      error(it->first, "unknown key '" + key + "' in " + kind_name + did_you_mean(key, candidates) +
                           " (a decorator holds its child node, or {child: node" + [&] {
                             std::string others;  // its other parameters ('child' is said first)
                             for (const auto& k : keys)
                               if (k != "child") others += ", " + k;
                             return others;
                           }() + "})");
      reported = true;
    }
    if (!reported) error(v, kind_name + " needs 'child', the node it decorates");
    uint32_t index = emit(kind, v, path, read_name(v, prefix, path), kind_name);
    decorator_params(kind, v, index, kind_name);
    // A misspelt 'child' (said above): the node under it is checked all the same.
    const YAML::Node misspelt_child = misspelt_value(v, "child");
    const uint32_t c = misspelt_child ? node(misspelt_child, path + "/0", prefix) : kNone;
    finish_children(index, c == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{c});
    return index;
  }
  check_params(kind, v, kind_name);
  uint32_t index = emit(kind, v, path, read_name(v, prefix, path), kind_name);
  decorator_params(kind, v, index, kind_name);
  uint32_t c = node(v["child"], path + "/0", prefix);
  finish_children(index, c == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{c});
  return index;
}

uint32_t TreeCompiler::add_message(const std::string& m) {
  p_.messages.push_back(m);
  return static_cast<uint32_t>(p_.messages.size() - 1);
}

void TreeCompiler::decorator_params(NodeKind kind, const YAML::Node& v, uint32_t index, const std::string& kind_name) {
  Node& n = p_.nodes[index];
  if (is_imported_kind(kind)) {
    imported_params(kind, v, index);
    return;
  }
  if (kind == NodeKind::Repeat || kind == NodeKind::Limit) {
    if (v["times"]) {
      if (auto t = read_times(v["times"])) p_.nodes[index].a = *t;
    } else if (kind == NodeKind::Limit && !misspelt(v, "times")) {
      error(v, "limit needs 'times', the number of starts allowed");
    }
  }
  if (kind == NodeKind::Timeout || kind == NodeKind::Cooldown) {
    if (v["seconds"]) {
      if (auto s = read_seconds(v["seconds"], "'seconds'")) p_.nodes[index].seconds = *s;
    } else if (!misspelt(v, "seconds")) {
      error(v, kind_name + " needs 'seconds'");
    }
  }
  if (kind == NodeKind::Log) {
    std::string m;
    if (v["message"]) {
      if (!v["message"].IsScalar()) error(v["message"], std::string("'message' must be text, got ") + describe_node(v["message"]));
      else m = v["message"].Scalar();
    }
    p_.nodes[index].a = add_message(m);
  }
  (void)n;
}

std::optional<uint32_t> TreeCompiler::read_times(const YAML::Node& t) {
  auto v = yaml_integer(t);
  if (!v && too_large_integer(t)) {
    error(t, "'times' must be at most 2147483647, got " + t.Scalar());
    return std::nullopt;
  }
  if (!v) {
    // (1e12: a whole value past the count's 31 bits is said as too large, not "write 1000000000000".)
    if (const auto number = yaml_number(t); number && *number > 0x7FFFFFFF && *number == std::floor(*number)) {
      error(t, "'times' must be at most 2147483647, got " + t.Scalar());
      return std::nullopt;
    }
    const std::string hint = whole_number_hint(t);
    error(t, "'times' must be a whole number >= 1, got " + (hint.empty() ? describe_value(t) : describe_node(t) + hint));
    return std::nullopt;
  }
  if (*v < 1) {
    error(t, "'times' must be >= 1, got " + t.Scalar());
    return std::nullopt;
  }
  if (*v > 0x7FFFFFFF) {  // a count the node keeps in 31 bits (this said ">= 1" of 2147483648)
    error(t, "'times' must be at most 2147483647, got " + t.Scalar());
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

}  // namespace thicket
