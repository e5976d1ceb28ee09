// Composite nodes (SPEC 3.2): their children, abort modes, parallel/monitor thresholds and
// random composites' weights.
#include <algorithm>
#include <cmath>
#include <set>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

uint32_t TreeCompiler::composite(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
  const std::string kind_name = kind_info(kind).name;
  const bool has_params = v.IsMap();
  const YAML::Node params = v;
  if (kind == NodeKind::Filter && !v.IsMap()) {
    error(v, "filter takes a mapping: filter: {conditions: [...], do: [...]}; got " + std::string(describe_node(v)));
    return kNone;
  }
  if (!v.IsMap() && !v.IsSequence()) {
    error(v, kind_name + " takes a list of children (" + kind_name + ": [...]) or a mapping with 'children'; got " +
                 describe_node(v));
    return kNone;
  }
  // sequence: {action: A, action: B}: the children written as the mapping's keys, without '- '.
  if (v.IsMap() && kind != NodeKind::Filter && !params["children"]) {
    for (auto it = params.begin(); it != params.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
      if (std::none_of(std::begin(kKindInfo), std::end(kKindInfo), [&](const KindInfo& k) { return key == k.name; }))
        continue;
      error(it->first, kind_name + "'s children are a list, each item after '- ' (- " + key + ": ...); written without "
                           "it, '" + key + "' is read as a parameter of " + kind_name + " (its parameters: " +
                           join_names(params_of(kind)) + ")");
      return kNone;
    }
  }
  if (has_params) check_params(kind, params, kind_name);
  std::string name = has_params ? read_name(params, prefix, path) : "";
  uint32_t index = emit(kind, v, path, name, kind_name);
  AbortMode abort = has_params && takes_abort(kind) ? read_abort(params) : AbortMode::None;
  p_.nodes[index].flags = static_cast<uint8_t>(abort);
  if (abort != AbortMode::None) aborts_.push_back({index, file_, params["abort"]});
  std::vector<uint32_t> children;
  if (kind == NodeKind::Filter) {
    size_t n_conditions = 0;
    // (A misspelt 'conditions', said as an unknown parameter: its nodes are checked all the same.)
    const YAML::Node conditions = params["conditions"] ? params["conditions"] : misspelt_value(params, "conditions");
    if (conditions) {
      children_of(conditions, path, prefix, children, "'conditions'", 0);
      n_conditions = conditions.IsSequence() ? conditions.size() : 0;
    }
    if (params["do"]) children_of(params["do"], path, prefix, children, "'do'", n_conditions);
    if (!params["conditions"] && !params["do"]) error(v, "filter needs 'conditions' and 'do' lists");
  } else if (v.IsSequence()) {
    children_of(v, path, prefix, children, kind_name, 0);
  } else if (!params["children"]) {
    // (chidren: said as an unknown parameter, with the right name; its nodes are checked too.)
    if (const YAML::Node misspelt_children = misspelt_value(params, "children"))
      children_of(misspelt_children, path, prefix, children, "'children'", 0);
    else
      error(v, kind_name + " needs 'children', a list of nodes" + (params.size() ? "" : "; got an empty mapping"));
  } else {
    children_of(params["children"], path, prefix, children, "'children'", 0);
  }
  const YAML::Node& list = v.IsSequence() ? v : params["children"];
  // (No list at all: "needs 'children'" above has said it, or the misspelt key's error; a
  // mapping or a value that is no list: children_of said "must be a list of nodes".)
  if (list && children.empty() && list.IsSequence() && list.size() == 0 && kind != NodeKind::Filter)
    error(list, kind_name + " needs at least one child");
  if (kind == NodeKind::Filter && children.empty() && (params["conditions"] || params["do"]) &&
      (!params["do"] || (params["do"].IsSequence() && params["do"].size() == 0)) &&
      (!params["conditions"] || (params["conditions"].IsSequence() && params["conditions"].size() == 0)))
    error(v, "filter needs at least one node in 'conditions' or 'do'");
  finish_children(index, children);
  if (kind == NodeKind::Parallel || kind == NodeKind::Monitor) {
    Node& n = p_.nodes[index];
    n.a = static_cast<uint32_t>(children.size());  // success: all
    n.b = 1;                                       // failure: one
    if (has_params) {
      if (params["success"]) n.a = threshold(params["success"], "success", children.size(), n.a);
      if (params["failure"]) n.b = threshold(params["failure"], "failure", children.size(), n.b);
    }
  }
  if (is_imported_kind(kind)) imported_params(kind, has_params ? params : YAML::Node(YAML::NodeType::Map), index);
  if (kind == NodeKind::RandomSelector || kind == NodeKind::RandomSequence)
    read_weights(has_params ? params["weights"] : YAML::Node(YAML::NodeType::Undefined), children.size());
  p_.nodes[index].end = static_cast<uint32_t>(p_.nodes.size());
  return index;
}

AbortMode TreeCompiler::read_abort(const YAML::Node& params) {
  const YAML::Node a = params["abort"];
  if (!a) return AbortMode::None;
  static const std::vector<std::string> modes = {"none", "self", "lower_priority", "both"};
  std::string v = a.IsScalar() ? a.Scalar() : "";
  auto found = std::find(modes.begin(), modes.end(), v);
  if (found == modes.end()) {
    error(a, "'abort' must be one of none, self, lower_priority, both; got " +
                 (a.IsScalar() ? "'" + v + "'" : std::string(describe_node(a))) + did_you_mean(v, modes));
    return AbortMode::None;
  }
  return static_cast<AbortMode>(found - modes.begin());
}

void TreeCompiler::warn_idle_aborts(const std::vector<bool>& idle) {
  if (aborts_.empty()) return;
  std::vector<uint32_t> parent(p_.nodes.size(), kNone);
  for (uint32_t i = 0; i < p_.nodes.size(); ++i)
    for (uint32_t pos = 0; pos < p_.nodes[i].count; ++pos) parent[p_.child(p_.nodes[i], pos)] = i;
  std::set<std::string> said;  // a subtree compiled in twice: its warnings once
  for (const AbortSite& site : aborts_) {
    const Node& n = p_.nodes[site.node];
    const std::string mode = abort_mode_name(n.abort());
    const std::string kind = kind_info(n.kind).name;
    std::string why;
    bool none = true;  // the whole abort does nothing (else only its lower_priority part)
    if (idle[site.node]) {
      why = "this " + kind + " observes no condition. A composite observes only its direct condition (or check) "
            "children, and the observed conditions of child composites that have an abort of their own; a condition "
            "deeper down, or under a decorator, is never re-checked. Put the abort on the composite whose children "
            "are the conditions";
    } else if (aborts_lower(n.abort())) {
      const uint32_t up = parent[site.node];
      none = n.abort() == AbortMode::LowerPriority;
      if (up == kNone) {
        why = "lower_priority aborts the later siblings of this " + kind + ", and it has none: it is the root of its tree";
      } else if (!takes_abort(p_.nodes[up].kind)) {
        const std::string up_kind = kind_info(written_kind(p_.nodes[up])).name;
        why = "lower_priority acts only among the children of a sequence, selector, filter or random composite, "
              "and this " + kind + "'s parent is " + (std::string("aeiou").find(up_kind[0]) != std::string::npos ? "an " : "a ") +
              up_kind;
      } else if (p_.nodes[up].kind != NodeKind::RandomSelector && p_.nodes[up].kind != NodeKind::RandomSequence &&
                 p_.child(p_.nodes[up], p_.nodes[up].count - 1) == site.node) {  // (a random order may draw it first)
        why = "lower_priority aborts the later siblings of this " + kind + ", and it has none: it is its " +
              kind_info(p_.nodes[up].kind).name + "'s last child";
      }
    }
    if (why.empty()) continue;
    const std::string message =
        "abort: " + mode + (none ? " has no effect here: " : " only works as abort: self here: ") + why;
    const YAML::Mark at = site.at.Mark();
    if (!said.insert(std::to_string(site.file) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column)).second)
      continue;
    SourceRef{src_, site.file, diags_}.warning(site.at, message);
  }
}

uint32_t TreeCompiler::threshold(const YAML::Node& t, const std::string& what, size_t count, uint32_t fallback) {
  if (t.IsScalar() && t.Scalar() == "one") return 1;
  if (t.IsScalar() && t.Scalar() == "all") return static_cast<uint32_t>(count);
  auto v = yaml_integer(t);
  if (!v) {
    error(t, "'" + what + "' must be one, all or a number of children, got " +
                 (t.IsScalar() ? "'" + t.Scalar() + "'" : std::string(describe_node(t))) +
                 did_you_mean(t.IsScalar() ? t.Scalar() : "", {"one", "all"}));
    return fallback;
  }
  if (*v < 1 || static_cast<size_t>(*v) > count) {
    error(t, "'" + what + "' must be between 1 and the number of children (" + std::to_string(count) + "), got " + t.Scalar());
    return fallback;
  }
  return static_cast<uint32_t>(*v);
}

void TreeCompiler::read_weights(const YAML::Node& w, size_t count) {
  p_.weights.resize(p_.child_index.size(), 1.0);
  if (!w.IsDefined()) return;
  if (!w.IsSequence()) {
    error(w, std::string("'weights' must be a list of numbers, one per child, got ") + describe_node(w));
    return;
  }
  const bool counted = w.size() == count;
  if (!counted) {
    auto many = [](size_t n, const char* one, const char* more) { return std::to_string(n) + " " + (n == 1 ? one : more); };
    error(w, "'weights' has " + many(w.size(), "entry", "entries") + " but there " + (count == 1 ? "is " : "are ") +
                 many(count, "child", "children"));
  }
  // Each entry is checked either way, so a wrong weight is said with a wrong count (it came out
  // only once the count was mended).
  size_t base = p_.child_index.size() - count, i = 0;
  bool all = counted;
  double sum = 0;
  for (const auto& item : w) {
    auto v = yaml_number(item);
    if (!v || !(*v > 0) || std::isinf(*v)) {
      // ("1" in quotes is text; .inf is > 0 but no share of a draw.)
      error(item, "a weight must be a finite number > 0, got " + describe_value(item));
      all = false;
    } else if (counted) {
      p_.weights[base + i] = *v;
      sum += *v;
    }
    ++i;
  }
  // The draw takes a share of the sum: a sum past the largest double (inf) would draw the
  // same order every time, silently.
  if (all && std::isinf(sum))
    error(w, "the weights add up to more than the largest number (about 1.8e308); only their ratios count: "
             "divide them all by the same number");
}

}  // namespace thicket
