// Stage two of loading a tree: every node validated and emitted into the flat array.
//
// node      := { KIND: short-form } | { KIND: { params } }
// composite := [node, ...] | {children: [node, ...], name, abort | success/failure | weights}
// decorator := node | {child: node, name, times | seconds | message}
// leaf      := Name | {leaf: Name, args, name, negate} | {check: "expr", negate, name} | seconds
//
// This file is the driver: node dispatch, emit, the readers every node family uses, the passes
// after emission and the entry points. Each family is compiled in compiler/compile_*.cpp
// (see compiler/tree_compiler.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "compiler/tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {
namespace {

// Deepest tree (subtrees count at the depth they are used) and most nodes a brain may have:
// the compiler recurses once per level, and subtrees are copied at each use.
constexpr int kMaxTreeDepth = 256;  // deep enough for any real brain; ASan builds have 8 MB of stack for it
constexpr uint32_t kMaxNodes = 100000;

// Kinds a tree may name as a node (check is written `condition: {check: ...}`).
bool is_yaml_kind(NodeKind k) { return k != NodeKind::Check && kind_info(k).shape != Shape::Root; }

std::optional<NodeKind> kind_from_name(const std::string& name) {
  for (size_t i = 0; i < kKindCount; ++i)
    if (name == kKindInfo[i].name && is_yaml_kind(static_cast<NodeKind>(i))) return static_cast<NodeKind>(i);
  if (name == "subtree") return std::nullopt;
  return std::nullopt;
}

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Other tools' names for thicket's kinds (BehaviorTree.CPP, behavior3, Unreal, the usual
// vocabulary), in any case: a modder who writes one is told thicket's name, not the nearest
// spelling ('fallback' and BT.CPP's 'Fallback' were answered with 'bt_fallback', the imported
// node with BT.CPP's semantics).
const char* thicket_name_for(const std::string& name) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"fallback", "selector"},       {"priority", "selector"}, {"inverter", "invert"},
      {"succeeder", "force_success"}, {"repeater", "repeat"},   {"sleep", "wait"}};
  const std::string lower = lower_case(name);
  for (const auto& [other, ours] : kAliases)
    if (lower == other) return ours;
  return nullptr;
}

// The kind a short form abbreviates (`seq`), too far from it for a "did you mean" by spelling.
const char* abbreviated_kind(const std::string& name) {
  static const std::pair<const char*, const char*> kShort[] = {
      {"seq", "sequence"}, {"sel", "selector"}, {"cond", "condition"}, {"act", "action"}};
  const std::string lower = lower_case(name);
  for (const auto& [short_form, kind] : kShort)
    if (lower == short_form) return kind;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& all_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (size_t i = 0; i < kKindCount; ++i)
      if (is_yaml_kind(static_cast<NodeKind>(i))) out.push_back(kKindInfo[i].name);
    out.push_back("subtree");
    return out;
  }();
  return names;
}

bool takes_abort(NodeKind k) {
  return k == NodeKind::Sequence || k == NodeKind::Selector || k == NodeKind::Filter ||
         k == NodeKind::RandomSelector || k == NodeKind::RandomSequence;
}

// Parameters each kind accepts in its parameter mapping.
std::vector<std::string> params_of(NodeKind k) {
  if (is_imported_kind(k)) return imported_params_of(k);
  switch (k) {
    case NodeKind::Sequence:
    case NodeKind::Selector: return {"children", "name", "abort"};
    case NodeKind::ActiveSelector:
    case NodeKind::Monitor: return {"children", "name"};
    case NodeKind::Parallel: return {"children", "name", "success", "failure"};
    case NodeKind::Filter: return {"conditions", "do", "name", "abort"};
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence: return {"children", "name", "abort", "weights"};
    case NodeKind::Repeat:
    case NodeKind::Limit: return {"child", "name", "times"};
    case NodeKind::Timeout:
    case NodeKind::Cooldown: return {"child", "name", "seconds"};
    case NodeKind::Log: return {"child", "name", "message"};
    case NodeKind::Action: return {"leaf", "args", "name"};
    case NodeKind::Condition: return {"leaf", "check", "args", "negate", "name"};
    case NodeKind::Wait: return {"seconds", "name"};
    default: return {"child", "name"};
  }
}

void TreeCompiler::compile(const YAML::Node& root, uint32_t file, const std::string& tree_name) {
  file_ = file;
  used_trees_.insert(tree_name);  // a file's own root is listed among its trees by its name
  subtrees_.push_back(tree_name);
  node(root, "root", "");
  subtrees_.pop_back();
}

// Compiles one node at path `path`; returns its index, or kNone when nothing was emitted.
uint32_t TreeCompiler::node(const YAML::Node& n, const std::string& path, const std::string& name_prefix) {
  if (too_many_nodes_ || budget_->nodes_passed) return kNone;
  if (depth_ >= kMaxTreeDepth) {
    if (!too_deep_) {
      std::string via;
      if (subtrees_.size() > 1) via = " (through subtrees " + subtrees_.front() + " -> ... -> " + subtrees_.back() + ")";
      error(n, "the tree is nested deeper than " + std::to_string(kMaxTreeDepth) + " levels here" + via +
                   "; a tree may be at most " + std::to_string(kMaxTreeDepth) + " levels deep");
    }
    too_deep_ = true;
    return kNone;
  }
  ++depth_;
  uint32_t index = node_at_depth(n, path, name_prefix);
  --depth_;
  return index;
}

uint32_t TreeCompiler::node_at_depth(const YAML::Node& n, const std::string& path, const std::string& name_prefix) {
  if (!n.IsMap()) {
    // `action:Patrol`: text to YAML, for which ':' starts a value only when a space follows.
    const std::string hint = n.IsScalar() ? colon_hint(n.Scalar()) : std::string();
    error(n, std::string("expected a node (a mapping with one kind, such as 'action: Patrol'), got ") + describe_node(n) + hint);
    return kNone;
  }
  if (n.size() == 0) {
    error(n, "empty node: a node is a mapping with one kind, such as 'action: Patrol' or 'sequence: [...]'");
    return kNone;
  }
  const std::vector<std::string>& kinds = all_kind_names();
  YAML::Node kind_key, value;  // yaml-cpp: rebind with reset(); `=` would write into the node
  bool found_kind = false;
  std::string kind_name;
  std::vector<std::pair<std::string, YAML::Node>> other_kinds;  // compiled for their errors only
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key = it->first.Scalar();
    bool is_kind = std::find(kinds.begin(), kinds.end(), key) != kinds.end();
    if (is_kind && !found_kind) {
      found_kind = true;
      kind_key.reset(it->first);
      value.reset(it->second);
      kind_name = key;
    } else if (is_kind && key != kind_name) {  // the same kind twice: the YAML loader said so
      error(it->first, "a node has exactly one kind; found '" + kind_name + "' and '" + key +
                           "' (put several nodes in a list under a composite such as 'sequence')");
      YAML::Node other;
      other.reset(it->second);
      other_kinds.emplace_back(key, other);
    }
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key = it->first.Scalar();
    if (found_kind && key == kind_name) continue;
    if (std::find(kinds.begin(), kinds.end(), key) != kinds.end()) continue;
    if (!it->first.IsScalar())  // `[action]: X`, `~: X`, `? {a: 1} : X`
      error(it->first, std::string("a node's kind is a name such as 'sequence' or 'action', got ") + describe_node(it->first) +
                           " as a key");
    else if (found_kind)
      error(it->first, "unexpected key '" + key + "' beside the kind '" + kind_name +
                           "'; a node's parameters go inside it, e.g. " + kind_name + ": {" + key + ": ...}");
    else if (const char* ours = thicket_name_for(key))
      error(it->first, "unknown node kind '" + key + "'; thicket calls it '" + ours + "' (docs/guide.md lists the node kinds)");
    else if (const char* kind = abbreviated_kind(key))
      error(it->first, "unknown node kind '" + key + "'; did you mean '" + kind + "'?");
    else if (key == "check")  // (the condition's parameter, written as a kind)
      error(it->first, "unknown node kind 'check': a check is a condition's, written condition: {check: \"...\"}");
    else
      error(it->first, "unknown node kind '" + key + "'" + did_you_mean(key, kinds));
  }
  if (!found_kind && n.size() == 1) {
    // A misspelt kind: check the node as the kind it most likely means, so the errors
    // inside it are reported now too (the load fails anyway).
    const char* ours = thicket_name_for(n.begin()->first.Scalar());
    if (!ours) ours = abbreviated_kind(n.begin()->first.Scalar());
    std::string guess = ours ? std::string(ours) : closest_name(n.begin()->first.Scalar(), kinds);
    if (guess.empty()) return kNone;
    found_kind = true;
    kind_name = guess;
    value.reset(n.begin()->second);
  }
  if (!found_kind) return kNone;
  auto compile_kind = [&](const std::string& name, const YAML::Node& v, const std::string& at_path) -> uint32_t {
    if (name == "subtree") return subtree(v, at_path, name_prefix);
    NodeKind kind = *kind_from_name(name);
    switch (kind_info(kind).shape) {
      case Shape::Composite: return composite(kind, v, at_path, name_prefix);
      case Shape::Decorator: return decorator(kind, v, at_path, name_prefix);
      case Shape::Leaf: return is_imported_kind(kind) ? imported_leaf(kind, v, at_path, name_prefix)
                                                      : leaf(kind, v, at_path, name_prefix);
      case Shape::Root: break;
    }
    return kNone;
  };
  const uint32_t index = compile_kind(kind_name, value, path);
  // A node given more than one kind (an error already): the others' contents are checked too,
  // so all of the file's errors come at once (the load fails, what they emit is dropped).
  for (const auto& [name, v] : other_kinds) compile_kind(name, v, path + "#" + name);
  return index;
}

uint32_t TreeCompiler::emit(NodeKind kind, const YAML::Node& at, const std::string& path, const std::string& name,
                            const std::string& label) {
  auto index = static_cast<uint32_t>(p_.nodes.size());
  if (index + 1 == kMaxNodes) {  // stop here: subtrees used many times over can multiply without end
    error(at, "the brain passes " + std::to_string(kMaxNodes) + " nodes here (subtrees count once per use)");
    too_many_nodes_ = true;
  } else if (++budget_->nodes > Budget::kMaxNodes && !budget_->nodes_passed) {
    error(at, "the file's trees pass " + std::to_string(Budget::kMaxNodes) +
                  " nodes in all here (its unused trees are compiled for their errors too, and subtrees count once per"
                  " use)");
    budget_->nodes_passed = true;
    too_many_nodes_ = true;
  }
  Node rec{};
  rec.kind = kind;
  p_.nodes.push_back(rec);
  std::string id = name.empty() ? path : name;
  auto [it, inserted] = ids_.emplace(id, index);
  if (!inserted && !quiet_ids_) {
    // The other node: where it is, and whether its id is a name or its place in the tree.
    const auto& other = p_.positions[it->second];
    const std::string there = (other.file != file_ && other.file < src_.files.size() ? src_.files[other.file].path + ":" : "") +
                              std::to_string(other.line) + ":" + std::to_string(other.column);
    const bool other_named = it->second < p_.named.size() && p_.named[it->second];
    if (name.empty() && other_named)
      error(at, "node id '" + id + "' is used twice: this node's id is its place in the tree, and the node at " + there +
                    " is named '" + id + "'; give that node a name that is not a place (names and places share one list)");
    else if (!name.empty() && !other_named)
      error(at, "node name '" + id + "' is already the id of the node at " + there +
                    " (its place in the tree); give this node a name that is not a place (names and places share one list)");
    else if (other.file == file_ && other.line == at.Mark().line + 1 && other.column == at.Mark().column + 1)
      // The same node twice: a YAML alias (*a) or merge (<<: *a) copies the anchored node, name
      // and all, and carries the anchor's place (it said "also at" its own place).
      error(at, "node id '" + id + "' is used twice: this named node is used again through a YAML alias (*anchor) or "
                    "merge (<<), which copies its name; give each use a node of its own with its own name "
                    "(names must be unique within a tree: they match nodes across hot reloads)");
    else
      error(at, "node id '" + id + "' is used twice (also at " + there +
                    "); names must be unique within a tree (they match nodes across hot reloads)");
  }
  p_.ids.push_back(id);
  p_.named.push_back(!name.empty());
  p_.labels.push_back(label);
  p_.positions.push_back({file_, at.Mark().line + 1, at.Mark().column + 1});
  return index;
}

// Checks that every key of a parameter mapping is one `kind` accepts.
void TreeCompiler::check_params(NodeKind kind, const YAML::Node& params, const std::string& kind_name) {
  std::vector<std::string> allowed = params_of(kind);
  for (auto it = params.begin(); it != params.end(); ++it) {
    std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (!scalar_key(it->first)) {
      error(it->first, "a parameter of " + kind_name + " is a name, got " + describe_node(it->first) + " as a key (allowed: " +
                           join_names(allowed) + ")");
      continue;
    }
    std::string extra;
    if (key == "abort" && !takes_abort(kind))
      extra = " ('abort' works on sequence, selector, filter and random_* composites)";
    else if (std::find(allowed.begin(), allowed.end(), "args") != allowed.end() && did_you_mean(key, allowed).empty() &&
             !key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                 std::string::npos)
      extra = " (the leaf's own values go under args: {" + clipped(key, 40) + ": ...})";
    if (it->second.IsNull()) extra += colon_hint(key);  // {leaf:Attack}: the key 'leaf:Attack', no value
    error(it->first, "unknown parameter '" + key + "' for " + kind_name + did_you_mean(key, allowed) + extra +
                         " (allowed: " + join_names(allowed) + ")");
  }
}

bool TreeCompiler::misspelt(const YAML::Node& params, const std::string& wanted) {
  if (!params.IsMap()) return false;
  for (auto it = params.begin(); it != params.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() != wanted && closest_name(it->first.Scalar(), {wanted}) == wanted)
      return true;
  return false;
}

YAML::Node TreeCompiler::misspelt_value(const YAML::Node& params, const std::string& wanted) {
  if (params.IsMap())
    for (auto it = params.begin(); it != params.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() != wanted && closest_name(it->first.Scalar(), {wanted}) == wanted)
        return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string TreeCompiler::read_name(const YAML::Node& params, const std::string& prefix, const std::string& path) {
  const YAML::Node name = params["name"];
  if (!name) return {};
  if (!name.IsScalar() || classify_scalar(name).kind == ScalarKind::Null) {
    error(name, std::string("'name' must be text, got ") + describe_node(name));
    return {};
  }
  if (name.Scalar().empty()) {  // (it was dropped without a word: the node kept its path as id)
    error(name, "'name' must not be empty: leave it out for the node's place as its id (" + path + ")");
    return {};
  }
  // A name is an id in traces, dumps, dot and the log: no NUL (a "\0" escape put one in dot's
  // output) and no line break (it split a log line in two).
  if (name.Scalar().find_first_of(std::string("\0\n\r", 3)) != std::string::npos) {
    error(name, "'name' must not hold a NUL character or a line break");
    return {};
  }
  return prefix + name.Scalar();
}

std::optional<double> TreeCompiler::read_seconds(const YAML::Node& s, const std::string& what) {
  auto v = yaml_number(s);
  if (!v) {
    // "2s", "500ms", "5" in quotes: a number written as text, said with the number to write.
    std::string hint;
    if (s.IsScalar()) {
      const std::string& text = s.Scalar();
      char* end = nullptr;
      const double number = c_strtod(text.c_str(), &end);
      std::string unit = end ? std::string(end) : std::string();
      unit.erase(0, std::min(unit.find_first_not_of(' '), unit.size()));
      const double scale = unit.empty() ? 1 : (unit == "s" || unit == "sec" || unit == "secs" || unit == "second" ||
                                               unit == "seconds")
                                                  ? 1
                                              : unit == "ms" ? 0.001
                                                             : 0;
      if (end != text.c_str() && scale > 0 && std::isfinite(number)) {
        std::ostringstream n;
        n << number * scale;
        hint = " ('" + clipped(text, 40) + "' is text: write the seconds as a number, " + n.str() + ")";
      }
    }
    error(s, what + " must be a number of seconds, got " + describe_node(s) + hint);
    return std::nullopt;
  }
  if (std::isnan(*v)) {
    error(s, what + " must be a number of seconds, got " + s.Scalar() + " (not a number)");
    return std::nullopt;
  }
  if (*v < 0) {
    error(s, what + " must not be negative, got " + s.Scalar());
    return std::nullopt;
  }
  return v;
}

void TreeCompiler::children_of(const YAML::Node& list, const std::string& path, const std::string& prefix,
                               std::vector<uint32_t>& out, const std::string& what, size_t index_base) {
  if (!list.IsSequence()) {
    error(list, what + " must be a list of nodes, got " + describe_node(list));
    return;
  }
  size_t i = index_base;
  for (const auto& child : list) {
    uint32_t c = node(child, path + "/" + std::to_string(i++), prefix);
    if (c != kNone) out.push_back(c);
  }
}

void TreeCompiler::finish_children(uint32_t index, const std::vector<uint32_t>& children) {
  if (children.size() >= kNoPos) {  // a child position is 16 bits, kNoPos meaning none
    const SourcePos& at = p_.positions[index];
    diags_.push_back({Severity::Error, src_.files[at.file].path, static_cast<int>(at.line), static_cast<int>(at.column),
                      "this node has " + std::to_string(children.size()) + " children; a node may have at most " +
                          std::to_string(kNoPos - 1)});
  }
  Node& n = p_.nodes[index];
  n.children = static_cast<uint32_t>(p_.child_index.size());
  n.count = static_cast<uint16_t>(children.size());
  p_.child_index.insert(p_.child_index.end(), children.begin(), children.end());
  p_.nodes[index].end = static_cast<uint32_t>(p_.nodes.size());
}

namespace {

// Observed conditions (SPEC 3.5) of every composite with an abort, children first. Returns, by
// node, whether it has an abort and observes no condition (an abort that can do nothing).
std::vector<bool> compute_observed(Program& p) {
  std::vector<std::vector<uint32_t>> observed(p.nodes.size());
  std::vector<std::vector<uint32_t>> rechecked(p.child_index.size());  // by child_index entry
  for (size_t i = p.nodes.size(); i-- > 0;) {
    Node& n = p.nodes[i];
    if (!takes_abort(n.kind)) continue;
    bool rechecks = aborts_self(n.abort());
    for (uint32_t pos = 0; pos < n.count; ++pos) {
      const Node& c = p.nodes[p.child(n, pos)];
      if (takes_abort(c.kind) && aborts_lower(c.abort())) rechecks = true;
      if (n.abort() == AbortMode::None) continue;
      if (c.kind == NodeKind::Condition || c.kind == NodeKind::Check) {
        observed[i].push_back(p.child(n, pos));
      } else if (takes_abort(c.kind) && c.abort() != AbortMode::None) {
        const auto& inner = observed[p.child(n, pos)];
        observed[i].insert(observed[i].end(), inner.begin(), inner.end());
      }
    }
    if (rechecks) n.flags |= kRechecks;
    // Which children hold observed conditions this composite re-checks, and those conditions.
    for (uint32_t pos = 0; pos < n.count && rechecks; ++pos) {
      Node& c = p.nodes[p.child(n, pos)];
      if (c.kind == NodeKind::Condition || c.kind == NodeKind::Check) {
        if (aborts_self(n.abort())) {
          c.flags |= kObserved;
          rechecked[n.children + pos].push_back(p.child(n, pos));
        }
      } else if (takes_abort(c.kind) && c.abort() != AbortMode::None && (aborts_self(n.abort()) || aborts_lower(c.abort()))) {
        c.flags |= kHolder;
        for (uint32_t cond : observed[p.child(n, pos)]) p.nodes[cond].flags |= kObserved;
        rechecked[n.children + pos] = observed[p.child(n, pos)];
      }
    }
  }
  p.recheck_ranges.resize(p.child_index.size());
  for (size_t e = 0; e < rechecked.size(); ++e) {
    // Whether a random composite holds some of them (the child, or one on the way down).
    bool drawn = false;
    for (uint32_t cond : rechecked[e])
      for (uint32_t x = p.child_index[e]; x != cond && !drawn;) {
        const Node& xn = p.nodes[x];
        drawn = xn.kind == NodeKind::RandomSelector || xn.kind == NodeKind::RandomSequence;
        const uint32_t from = x;
        for (uint32_t pos = 0; pos < xn.count; ++pos)
          if (const uint32_t y = p.child(xn, pos); y <= cond && cond < p.nodes[y].end) {
            x = y;
            break;
          }
        if (x == from) break;  // (not reached: an observed condition lies under its holder)
      }
    p.recheck_ranges[e] = {static_cast<uint32_t>(p.recheck_conds.size()), static_cast<uint32_t>(rechecked[e].size()), drawn};
    p.recheck_conds.insert(p.recheck_conds.end(), rechecked[e].begin(), rechecked[e].end());
  }
  for (Node& n : p.nodes) {
    switch (n.kind) {
      case NodeKind::Sequence:
      case NodeKind::Selector:
      case NodeKind::Filter:
      case NodeKind::RandomSelector:
      case NodeKind::RandomSequence:
        if (!(n.flags & kRechecks)) n.flags |= kPassive;
        break;
      case NodeKind::Invert:
      case NodeKind::ForceSuccess:
      case NodeKind::ForceFailure:
      case NodeKind::Repeat:
      case NodeKind::UntilFail:
      case NodeKind::UntilSuccess:
      case NodeKind::Limit:
      case NodeKind::Log:
      case NodeKind::Action: n.flags |= kPassive; break;
      default: break;
    }
  }
  std::vector<bool> idle(p.nodes.size(), false);
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (observed[i].empty()) {
      idle[i] = takes_abort(p.nodes[i].kind) && p.nodes[i].abort() != AbortMode::None;
      continue;
    }
    p.nodes[i].a = static_cast<uint32_t>(p.observed.size());
    p.nodes[i].b = static_cast<uint32_t>(observed[i].size());
    p.observed.insert(p.observed.end(), observed[i].begin(), observed[i].end());
  }
  return idle;
}

uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

std::unique_ptr<Program> compile_root(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                      std::vector<Diagnostic>& diags, bool fsm);

// Lays out the per-agent block: statuses, then 8-, 4- and 2-byte node state, then the
// blackboard slots.
void layout_state(Program& p) {
  uint32_t offset = align_up(static_cast<uint32_t>(p.nodes.size()), 8);
  for (uint32_t size : {8u, 4u, 2u}) {
    for (Node& n : p.nodes) {
      uint32_t bytes = node_state_bytes(n);
      uint32_t align = bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : 2;
      bool this_class = bytes != 0 && align == size;
      if (!this_class) continue;
      n.state = offset;
      offset += bytes;
    }
  }
  p.state_size = offset;
  p.bb_offset = align_up(offset, 8);
  p.block_size = p.bb_offset + 8 * static_cast<uint32_t>(p.blackboard.size());
}

std::unique_ptr<Program> compile_fsm(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                     std::vector<Diagnostic>& diags) {
  return compile_root(src, leaves, strings, diags, /*fsm=*/true);
}

std::unique_ptr<Program> compile_machine(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                         std::vector<Diagnostic>& diags) {
  return compile_root(src, leaves, strings, diags, /*fsm=*/false);
}

namespace {
// Compiles with `emit` (which drives a TreeCompiler) into a fresh program of the brain; null
// when any error was reported.
template <class Emit>
std::unique_ptr<Program> compile_with(const BrainSource& src, const std::string& name, const LeafNames& leaves,
                                      StringTable& strings, std::vector<Diagnostic>& diags, Emit emit) {
  auto fresh = [&](const std::string& program_name) {
    auto p = std::make_unique<Program>();
    p->name = program_name;
    p->tick_every = src.tick_every;
    p->tick_every_pos = src.tick_every_pos;
    for (const auto& f : src.files) {
      p->files.push_back(f.path);
      p->yaml_files.push_back(f.path);
    }
    p->leaf_files = src.leaf_files;
    p->blackboard = src.blackboard;
    return p;
  };
  auto p = fresh(name);
  size_t errors_before = diags.size();
  TreeCompiler tc(src, leaves, strings, diags, *p);
  TreeCompiler::Budget budget;
  tc.share_budget(budget);
  emit(tc);
  // The trees of the brain's own file that nothing above used, each compiled on its own for
  // its errors and dropped (all errors of a file are reported, a subtree cycle among unused
  // trees too). An imported library's unused trees are its own file's business.
  for (const auto& [tree_name, tree] : src.trees) {
    if (tree.file != 0 || tc.used_trees_.count(tree_name)) continue;
    auto scratch = fresh(tree_name);
    TreeCompiler unused(src, leaves, strings, diags, *scratch, tc.names());
    unused.share_budget(budget);
    unused.compile(tree.root, tree.file, tree_name);
    tc.used_trees_.insert(tree_name);
    tc.used_trees_.insert(unused.used_trees_.begin(), unused.used_trees_.end());
    tc.yaml11_misused_.insert(unused.yaml11_misused_.begin(), unused.yaml11_misused_.end());
  }
  // The same for an fsm's machines under `machines:` that no state names.
  const YAML::Node machines = src.kind == BrainKind::Fsm ? src.files[0].doc["machines"] : YAML::Node();
  if (machines && machines.IsMap())
    for (auto it = machines.begin(); it != machines.end(); ++it) {
      const std::string machine_name = it->first.Scalar();
      if (tc.used_machines_.count(machine_name)) continue;
      auto scratch = fresh(machine_name);
      TreeCompiler unused(src, leaves, strings, diags, *scratch, tc.names());
      unused.share_budget(budget);
      unused.unused_machine(it->second, machine_name);
      tc.yaml11_misused_.insert(unused.yaml11_misused_.begin(), unused.yaml11_misused_.end());
    }
  // yes/no defaults no check used as true/false: text as YAML 1.2 says, but likely a mistake.
  for (const auto& yb : src.yaml11_bools)
    if (!tc.yaml11_misused_.count(yb.key))
      diags.push_back({Severity::Warning, src.files[yb.pos.file].path, yb.pos.line, yb.pos.column,
                       "`" + yb.text + "` is the text '" + yb.text + "' in YAML 1.2, so '" + yb.key +
                           "' is a text key; for a boolean write true or false (quote it, \"" + yb.text +
                           "\", to keep the text and silence this)"});
  bool failed = p->nodes.empty();
  for (size_t i = errors_before; i < diags.size(); ++i) failed = failed || diags[i].severity == Severity::Error;
  if (!p->nodes.empty()) {  // the rules across nodes, beside the errors above (all errors at once)
    size_t before = diags.size();
    check_imported(*p, p->files, diags);
    failed = failed || diags.size() != before;
  }
  if (failed) return nullptr;
  lower_imported(*p);
  tc.warn_idle_aborts(compute_observed(*p));
  layout_state(*p);
  return p;
}
}  // namespace

std::unique_ptr<Program> compile_root(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
                                      std::vector<Diagnostic>& diags, bool fsm) {
  return compile_with(src, src.name, leaves, strings, diags, [&](TreeCompiler& tc) {
    if (fsm) tc.fsm(src.files[0].doc, src.name);
    else tc.machine(src.files[0].doc, src.name);
  });
}

std::unique_ptr<Program> compile_tree(const BrainSource& src, const YAML::Node& root, uint32_t file,
                                      const std::string& tree_name, const LeafNames& leaves,
                                      StringTable& strings, std::vector<Diagnostic>& diags) {
  return compile_with(src, tree_name, leaves, strings, diags,
                      [&](TreeCompiler& tc) { tc.compile(root, file, tree_name); });
}

}  // namespace thicket