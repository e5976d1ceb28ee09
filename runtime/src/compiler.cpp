// Stage two of loading a tree: every node validated and emitted into the flat array.
//
// node      := { KIND: short-form } | { KIND: { params } }
// composite := [node, ...] | {children: [node, ...], name, abort | success/failure | weights}
// decorator := node | {child: node, name, times | seconds | message}
// leaf      := Name | {leaf: Name, args, name, negate} | {check: "expr", negate, name} | seconds
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFF;
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

std::vector<std::string> all_kind_names() {
  std::vector<std::string> out;
  for (size_t i = 0; i < kKindCount; ++i)
    if (is_yaml_kind(static_cast<NodeKind>(i))) out.push_back(kKindInfo[i].name);
  out.push_back("subtree");
  return out;
}

bool takes_abort(NodeKind k) {
  return k == NodeKind::Sequence || k == NodeKind::Selector || k == NodeKind::Filter ||
         k == NodeKind::RandomSelector || k == NodeKind::RandomSequence;
}

// Parameters each kind accepts in its parameter mapping.
std::vector<std::string> params_of(NodeKind k) {
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

class TreeCompiler {
 public:
  TreeCompiler(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
               std::vector<Diagnostic>& diags, Program& p)
      : src_(src), leaves_(leaves), strings_(strings), diags_(diags), p_(p) {
    for (const auto& [name, shape] : leaves) leaf_names_.push_back(name);
    for (const auto& [name, t] : src.trees) tree_names_.push_back(name);
    for (const auto& key : src.blackboard) expr_keys_.push_back({key.name, key.type, static_cast<uint32_t>(expr_keys_.size())});
  }

  void compile(const YAML::Node& root, uint32_t file, const std::string& tree_name) {
    file_ = file;
    subtrees_.push_back(tree_name);
    node(root, "root", "");
    subtrees_.pop_back();
  }

  // machine := {check_every: seconds, behaviors: [{name, check, run | tree}, ...]} (SPEC 5)
  void machine(const YAML::Node& doc, const std::string& machine_name) {
    file_ = 0;
    subtrees_.push_back(machine_name);
    uint32_t root = emit(NodeKind::Machine, doc, "root", "", "machine " + machine_name);
    p_.nodes[root].seconds = -1;  // every tick
    if (doc["check_every"]) {
      if (auto s = read_seconds(doc["check_every"], "'check_every'")) p_.nodes[root].seconds = *s;
    }
    std::vector<uint32_t> children;
    const YAML::Node behaviors = doc["behaviors"];
    if (!behaviors) {
      error(doc, "a machine needs 'behaviors', a list of {name, check, run} in priority order");
    } else if (!behaviors.IsSequence() || behaviors.size() == 0) {
      error(behaviors, std::string("'behaviors' must be a non-empty list of {name, check, run}, got ") +
                           (behaviors.IsSequence() ? "an empty list" : describe_node(behaviors)));
    } else {
      static const std::vector<std::string> keys = {"name", "check", "run", "tree"};
      std::set<std::string> names;
      size_t index = 0;
      for (const auto& b : behaviors) {
        std::string fallback = "behavior " + std::to_string(index++);
        if (!b.IsMap()) {
          error(b, std::string("a behavior is a mapping {name, check, run}, got ") + describe_node(b));
          continue;
        }
        for (auto it = b.begin(); it != b.end(); ++it) {
          std::string key = it->first.Scalar();
          if (std::find(keys.begin(), keys.end(), key) == keys.end())
            error(it->first, "unknown key '" + key + "' in a behavior" + did_you_mean(key, keys) + " (allowed: name, check, run, tree)");
        }
        std::string name = fallback;
        if (!b["name"] || !b["name"].IsScalar()) error(b, "a behavior needs 'name' (text)");
        else name = b["name"].Scalar();
        if (!names.insert(name).second) error(b["name"], "two behaviors are named '" + name + "'");
        if (!b["check"]) {
          error(b, "behavior '" + name + "' needs 'check', the condition that selects it");
          continue;
        }
        uint32_t check = leaf(NodeKind::Condition, b["check"], name + "/check", "");
        uint32_t run = kNone;
        if (b["run"] && b["tree"]) error(b["tree"], "behavior '" + name + "' has both 'run' and 'tree'; give one");
        if (b["run"]) run = leaf(NodeKind::Action, b["run"], name, "");
        else if (b["tree"] && b["tree"].IsScalar()) run = subtree(b["tree"], name, "");
        else if (b["tree"]) run = node(b["tree"], name, name + "/");
        else error(b, "behavior '" + name + "' needs 'run' (a task leaf) or 'tree' (a tree to run)");
        if (check != kNone && run != kNone) {
          children.push_back(check);
          children.push_back(run);
          p_.behaviors.push_back(name);
        }
      }
    }
    finish_children(root, children);
    subtrees_.pop_back();
  }

  // fsm := {initial: state, states: {name: {reason, act | tree, enter, exit, transitions, when}}}
  void fsm(const YAML::Node& doc, const std::string& fsm_name) {
    file_ = 0;
    subtrees_.push_back(fsm_name);
    uint32_t root = emit(NodeKind::Fsm, doc, "root", "", "fsm " + fsm_name);
    const YAML::Node states = doc["states"];
    std::vector<std::string> state_names;
    if (states && states.IsMap())
      for (auto it = states.begin(); it != states.end(); ++it) state_names.push_back(it->first.Scalar());
    auto state_index = [&](const YAML::Node& at, const std::string& what) -> std::optional<uint16_t> {
      if (!at.IsScalar()) {
        error(at, what + " must name a state, got " + describe_node(at));
        return std::nullopt;
      }
      auto found = std::find(state_names.begin(), state_names.end(), at.Scalar());
      if (found == state_names.end()) {
        error(at, "unknown state '" + at.Scalar() + "'" + did_you_mean(at.Scalar(), state_names) +
                      " (states: " + join_names(state_names) + ")");
        return std::nullopt;
      }
      return static_cast<uint16_t>(found - state_names.begin());
    };
    if (!doc["initial"]) error(doc, "an fsm needs 'initial', the state it starts in");
    else if (auto initial = state_index(doc["initial"], "'initial'")) p_.nodes[root].a = *initial;
    std::vector<uint32_t> children;
    std::vector<bool> reachable(state_names.size(), false);
    if (doc["initial"] && doc["initial"].IsScalar()) {
      auto found = std::find(state_names.begin(), state_names.end(), doc["initial"].Scalar());
      if (found != state_names.end()) reachable[found - state_names.begin()] = true;
    }
    if (!states) {
      error(doc, "an fsm needs 'states', a mapping of state name to {reason, act, transitions, ...}");
    } else if (!states.IsMap() || states.size() == 0) {
      error(states, std::string("'states' must be a non-empty mapping of state name to state, got ") +
                        (states.IsMap() ? "an empty mapping" : describe_node(states)));
    } else {
      static const std::vector<std::string> keys = {"reason", "act", "tree", "enter", "exit", "transitions", "when"};
      for (auto it = states.begin(); it != states.end(); ++it) {
        const std::string name = it->first.Scalar();
        const YAML::Node st = it->second;
        FsmState info;
        info.name = name;
        uint32_t state_node = emit(NodeKind::State, it->first, name, "", "state " + name);
        p_.nodes[state_node].a = static_cast<uint32_t>(p_.fsm_states.size());
        std::vector<uint32_t> parts;
        if (!st.IsMap() && !st.IsNull()) {
          error(st, "state '" + name + "' must be a mapping {reason, act, transitions, ...}, got " + describe_node(st));
        } else if (st.IsMap()) {
          for (auto k = st.begin(); k != st.end(); ++k) {
            std::string key = k->first.Scalar();
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
              error(k->first, "unknown key '" + key + "' in state '" + name + "'" + did_you_mean(key, keys) +
                                  " (allowed: " + join_names(keys) + ")");
          }
          auto part = [&](const char* key, NodeKind kind, uint32_t& slot) {
            if (!st[key]) return;
            slot = leaf(kind, st[key], name + "/" + key, "");
            if (slot == kNone) {
              slot = kNoNode;
              return;
            }
            parts.push_back(slot);
            auto shape = leaves_.find(p_.calls[p_.nodes[slot].a].leaf);
            if (std::string(key) != "act" && shape != leaves_.end() &&
                (shape->second == LeafShape::Hooks || shape->second == LeafShape::Task))
              error(st[key], std::string("'") + key + "' calls a plain function (agent, args); leaf '" + shape->first +
                                 "' is " + (shape->second == LeafShape::Task ? "a task" : "a table of hooks"));
          };
          part("enter", NodeKind::Action, info.enter);
          part("exit", NodeKind::Action, info.exit);
          part("reason", NodeKind::Action, info.reason);
          if (st["act"] && st["tree"]) error(st["tree"], "state '" + name + "' has both 'act' and 'tree'; give one");
          if (st["act"]) {
            part("act", NodeKind::Action, info.body);
          } else if (st["tree"]) {
            info.body = st["tree"].IsScalar() ? subtree(st["tree"], name + "/tree", "") : node(st["tree"], name + "/tree", name + "/");
            if (info.body != kNone) parts.push_back(info.body);
            else info.body = kNoNode;
          }
          if (st["transitions"]) {
            const YAML::Node tr = st["transitions"];
            if (!tr.IsMap()) {
              error(tr, std::string("'transitions' maps a transition name to a state, e.g. {saw_player: chase}; got ") + describe_node(tr));
            } else {
              for (auto t = tr.begin(); t != tr.end(); ++t)
                if (auto target = state_index(t->second, "transition '" + t->first.Scalar() + "'")) {
                  info.transitions.emplace_back(t->first.Scalar(), *target);
                  reachable[*target] = true;
                }
            }
          }
          if (st["when"]) {
            const YAML::Node when = st["when"];
            if (!when.IsSequence()) {
              error(when, std::string("'when' is a list of {check: \"...\", go: state}, got ") + describe_node(when));
            } else {
              size_t k = 0;
              for (const auto& w : when) {
                std::string path = name + "/when/" + std::to_string(k++);
                if (!w.IsMap() || !w["go"] || (!w["check"] && !w["condition"])) {
                  error(w, "an entry of 'when' is {check: \"expression\", go: state} or {condition: Leaf, go: state}");
                  continue;
                }
                for (auto e = w.begin(); e != w.end(); ++e) {
                  std::string key = e->first.Scalar();
                  if (key != "check" && key != "condition" && key != "go")
                    error(e->first, "unknown key '" + key + "' in a 'when' entry" + did_you_mean(key, {"check", "condition", "go"}) +
                                        " (allowed: check, condition, go)");
                }
                uint32_t cond = w["check"] ? check(w["check"], path, "", false) : leaf(NodeKind::Condition, w["condition"], path, "");
                auto target = state_index(w["go"], "'go'");
                if (cond == kNone || !target) continue;
                parts.push_back(cond);
                info.when.emplace_back(cond, *target);
                reachable[*target] = true;
              }
            }
          }
        }
        finish_children(state_node, parts);
        p_.fsm_states.push_back(std::move(info));
        children.push_back(state_node);
      }
      size_t k = 0;
      for (auto it = states.begin(); it != states.end(); ++it, ++k)
        if (!reachable[k]) ref().warning(it->first, "state '" + it->first.Scalar() + "' is unreachable: no transition or 'when' leads to it and it is not the initial state");
    }
    finish_children(root, children);
    subtrees_.pop_back();
  }

 private:
  SourceRef ref() const { return SourceRef{src_, file_, diags_}; }
  void error(const YAML::Node& at, const std::string& msg) { ref().error(at, msg); }

  // Compiles one node at path `path`; returns its index, or kNone when nothing was emitted.
  uint32_t node(const YAML::Node& n, const std::string& path, const std::string& name_prefix) {
    if (too_many_nodes_) return kNone;
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

  uint32_t node_at_depth(const YAML::Node& n, const std::string& path, const std::string& name_prefix) {
    if (!n.IsMap()) {
      error(n, std::string("expected a node (a mapping with one kind, such as 'action: Patrol'), got ") + describe_node(n));
      return kNone;
    }
    if (n.size() == 0) {
      error(n, "empty node: a node is a mapping with one kind, such as 'action: Patrol' or 'sequence: [...]'");
      return kNone;
    }
    std::vector<std::string> kinds = all_kind_names();
    YAML::Node kind_key, value;  // yaml-cpp: rebind with reset(); `=` would write into the node
    bool found_kind = false;
    std::string kind_name;
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = it->first.Scalar();
      bool is_kind = std::find(kinds.begin(), kinds.end(), key) != kinds.end();
      if (is_kind && !found_kind) {
        found_kind = true;
        kind_key.reset(it->first);
        value.reset(it->second);
        kind_name = key;
      } else if (is_kind) {
        error(it->first, "a node has exactly one kind; found '" + kind_name + "' and '" + key +
                             "' (put several nodes in a list under a composite such as 'sequence')");
      }
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = it->first.Scalar();
      if (found_kind && key == kind_name) continue;
      if (std::find(kinds.begin(), kinds.end(), key) != kinds.end()) continue;
      if (found_kind)
        error(it->first, "unexpected key '" + key + "' beside the kind '" + kind_name +
                             "'; a node's parameters go inside it, e.g. " + kind_name + ": {" + key + ": ...}");
      else
        error(it->first, "unknown node kind '" + key + "'" + did_you_mean(key, kinds));
    }
    if (!found_kind && n.size() == 1) {
      // A misspelt kind: check the node as the kind it most likely means, so the errors
      // inside it are reported now too (the load fails anyway).
      std::string guess = closest_name(n.begin()->first.Scalar(), kinds);
      if (guess.empty()) return kNone;
      found_kind = true;
      kind_name = guess;
      value.reset(n.begin()->second);
    }
    if (!found_kind) return kNone;
    if (kind_name == "subtree") return subtree(value, path, name_prefix);
    NodeKind kind = *kind_from_name(kind_name);
    switch (kind_info(kind).shape) {
      case Shape::Composite: return composite(kind, value, path, name_prefix);
      case Shape::Decorator: return decorator(kind, value, path, name_prefix);
      case Shape::Leaf: return leaf(kind, value, path, name_prefix);
      case Shape::Root: break;
    }
    return kNone;
  }

  uint32_t emit(NodeKind kind, const YAML::Node& at, const std::string& path, const std::string& name,
                const std::string& label) {
    auto index = static_cast<uint32_t>(p_.nodes.size());
    if (index + 1 == kMaxNodes) {  // stop here: subtrees used many times over can multiply without end
      error(at, "the brain passes " + std::to_string(kMaxNodes) + " nodes here (subtrees count once per use)");
      too_many_nodes_ = true;
    }
    Node rec{};
    rec.kind = kind;
    p_.nodes.push_back(rec);
    std::string id = name.empty() ? path : name;
    auto [it, inserted] = ids_.emplace(id, index);
    if (!inserted) error(at, "node id '" + id + "' is used twice; names must be unique within a tree (they match nodes across hot reloads)");
    p_.ids.push_back(id);
    p_.labels.push_back(label);
    p_.positions.push_back({file_, at.Mark().line + 1, at.Mark().column + 1});
    return index;
  }

  // Checks that every key of a parameter mapping is one `kind` accepts.
  void check_params(NodeKind kind, const YAML::Node& params, const std::string& kind_name) {
    std::vector<std::string> allowed = params_of(kind);
    for (auto it = params.begin(); it != params.end(); ++it) {
      std::string key = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string extra;
      if (key == "abort" && !takes_abort(kind))
        extra = " ('abort' works on sequence, selector, filter and random_* composites)";
      error(it->first, "unknown parameter '" + key + "' for " + kind_name + did_you_mean(key, allowed) + extra +
                           " (allowed: " + join_names(allowed) + ")");
    }
  }

  std::string read_name(const YAML::Node& params, const std::string& prefix) {
    const YAML::Node name = params["name"];
    if (!name) return {};
    if (!name.IsScalar() || classify_scalar(name).kind == ScalarKind::Null) {
      error(name, std::string("'name' must be text, got ") + describe_node(name));
      return {};
    }
    return prefix + name.Scalar();
  }

  AbortMode read_abort(const YAML::Node& params) {
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

  std::optional<double> read_seconds(const YAML::Node& s, const std::string& what) {
    auto v = yaml_number(s);
    if (!v || std::isnan(*v)) {
      error(s, what + " must be a number of seconds, got " + describe_node(s));
      return std::nullopt;
    }
    if (*v < 0) {
      error(s, what + " must not be negative, got " + s.Scalar());
      return std::nullopt;
    }
    return v;
  }

  std::optional<uint32_t> read_times(const YAML::Node& t) {
    auto v = yaml_integer(t);
    if (!v) {
      error(t, std::string("'times' must be a whole number >= 1, got ") + describe_node(t));
      return std::nullopt;
    }
    if (*v < 1 || *v > 0x7FFFFFFF) {
      error(t, "'times' must be >= 1, got " + t.Scalar());
      return std::nullopt;
    }
    return static_cast<uint32_t>(*v);
  }

  void children_of(const YAML::Node& list, const std::string& path, const std::string& prefix,
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

  void finish_children(uint32_t index, const std::vector<uint32_t>& children) {
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

  uint32_t composite(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
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
    if (has_params) check_params(kind, params, kind_name);
    std::string name = has_params ? read_name(params, prefix) : "";
    uint32_t index = emit(kind, v, path, name, kind_name);
    AbortMode abort = has_params && takes_abort(kind) ? read_abort(params) : AbortMode::None;
    p_.nodes[index].flags = static_cast<uint8_t>(abort);
    std::vector<uint32_t> children;
    if (kind == NodeKind::Filter) {
      size_t n_conditions = 0;
      if (params["conditions"]) {
        children_of(params["conditions"], path, prefix, children, "'conditions'", 0);
        n_conditions = params["conditions"].IsSequence() ? params["conditions"].size() : 0;
      }
      if (params["do"]) children_of(params["do"], path, prefix, children, "'do'", n_conditions);
      if (!params["conditions"] && !params["do"]) error(v, "filter needs 'conditions' and 'do' lists");
    } else if (v.IsSequence()) {
      children_of(v, path, prefix, children, kind_name, 0);
    } else if (!params["children"]) {
      error(v, kind_name + " needs 'children', a list of nodes" + (params.size() ? "" : "; got an empty mapping"));
    } else {
      children_of(params["children"], path, prefix, children, "'children'", 0);
    }
    const YAML::Node& list = v.IsSequence() ? v : params["children"];
    if (children.empty() && (!list || !list.IsSequence() || list.size() == 0) && kind != NodeKind::Filter)
      error(list ? list : v, kind_name + " needs at least one child");
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
    if (kind == NodeKind::RandomSelector || kind == NodeKind::RandomSequence)
      read_weights(has_params ? params["weights"] : YAML::Node(YAML::NodeType::Undefined), children.size());
    p_.nodes[index].end = static_cast<uint32_t>(p_.nodes.size());
    return index;
  }

  uint32_t threshold(const YAML::Node& t, const std::string& what, size_t count, uint32_t fallback) {
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

  void read_weights(const YAML::Node& w, size_t count) {
    p_.weights.resize(p_.child_index.size(), 1.0);
    if (!w.IsDefined()) return;
    if (!w.IsSequence()) {
      error(w, std::string("'weights' must be a list of numbers, one per child, got ") + describe_node(w));
      return;
    }
    if (w.size() != count) {
      error(w, "'weights' has " + std::to_string(w.size()) + " entries but there are " + std::to_string(count) + " children");
      return;
    }
    size_t base = p_.child_index.size() - count, i = 0;
    for (const auto& item : w) {
      auto v = yaml_number(item);
      if (!v || !(*v > 0) || std::isinf(*v))
        error(item, std::string("a weight must be a number > 0, got ") + (item.IsScalar() ? item.Scalar() : describe_node(item)));
      else
        p_.weights[base + i] = *v;
      ++i;
    }
  }

  uint32_t decorator(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
    const std::string kind_name = kind_info(kind).name;
    std::vector<std::string> kinds = all_kind_names();
    if (!v.IsMap()) {
      error(v, kind_name + " takes its child node (" + kind_name + ": {action: X}) or a mapping with 'child'; got " +
                   describe_node(v));
      return kNone;
    }
    if (!v["child"]) {
      bool has_kind = false;
      for (const auto& key : map_keys(v)) has_kind = has_kind || std::find(kinds.begin(), kinds.end(), key) != kinds.end();
      if (has_kind) {
        // Short form: the mapping is the child node itself.
        if (kind == NodeKind::Limit || kind == NodeKind::Timeout || kind == NodeKind::Cooldown)
          error(v, kind_name + " needs parameters: " + kind_name +
                       (kind == NodeKind::Limit ? ": {times: 3, child: ...}" : ": {seconds: 2.0, child: ...}"));
        uint32_t index = emit(kind, v, path, "", kind_name);
        if (kind == NodeKind::Log) p_.nodes[index].a = add_message("");
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
                             " (a decorator holds its child node, or {child: node, " + join_names(keys) + "})");
        reported = true;
      }
      if (!reported) error(v, kind_name + " needs 'child', the node it decorates");
      uint32_t index = emit(kind, v, path, read_name(v, prefix), kind_name);
      decorator_params(kind, v, index, kind_name);
      finish_children(index, {});
      return index;
    }
    check_params(kind, v, kind_name);
    uint32_t index = emit(kind, v, path, read_name(v, prefix), kind_name);
    decorator_params(kind, v, index, kind_name);
    uint32_t c = node(v["child"], path + "/0", prefix);
    finish_children(index, c == kNone ? std::vector<uint32_t>{} : std::vector<uint32_t>{c});
    return index;
  }

  uint32_t add_message(const std::string& m) {
    p_.messages.push_back(m);
    return static_cast<uint32_t>(p_.messages.size() - 1);
  }

  void decorator_params(NodeKind kind, const YAML::Node& v, uint32_t index, const std::string& kind_name) {
    Node& n = p_.nodes[index];
    if (kind == NodeKind::Repeat || kind == NodeKind::Limit) {
      if (v["times"]) {
        if (auto t = read_times(v["times"])) p_.nodes[index].a = *t;
      } else if (kind == NodeKind::Limit) {
        error(v, "limit needs 'times', the number of starts allowed");
      }
    }
    if (kind == NodeKind::Timeout || kind == NodeKind::Cooldown) {
      if (v["seconds"]) {
        if (auto s = read_seconds(v["seconds"], "'seconds'")) p_.nodes[index].seconds = *s;
      } else {
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

  // Resolves a leaf name, reporting unknown names with a suggestion.
  bool resolve_leaf(const YAML::Node& at, const std::string& name, bool is_condition) {
    auto it = leaves_.find(name);
    if (it == leaves_.end()) {
      std::string msg = "unknown leaf '" + name + "'" + did_you_mean(name, leaf_names_);
      if (!src_.failed_leaf_files.empty())
      {
        const auto& files = src_.failed_leaf_files;
        std::string in = files.back();
        if (files.size() > 1)
          in = join_names(std::vector<std::string>(files.begin(), files.end() - 1)) + " or " + in;
        msg += " (it may be in " + in + ", which failed to load: see the error" + (files.size() > 1 ? "s" : "") +
               " there)";
      }
      else if (src_.leaf_files_failed)
        msg += " (a leaf file failed to load; see its errors)";
      else if (leaf_names_.empty())
        msg += " (no leaves are defined: list Lua files under 'leaves:' at the top of the brain file)";
      else if (did_you_mean(name, leaf_names_).empty())
        msg += " (defined: " + join_names(leaf_names_) + ")";
      error(at, msg);
      return false;
    }
    if (is_condition && (it->second == LeafShape::Hooks || it->second == LeafShape::Task)) {
      error(at, "leaf '" + name + "' is " + (it->second == LeafShape::Task ? "a task" : "a table of start/tick/stop hooks") +
                    "; a condition needs a plain function returning true or false");
      return false;
    }
    return true;
  }

  uint32_t leaf(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
    const std::string kind_name = kind_info(kind).name;
    if (kind == NodeKind::Wait) {
      if (v.IsMap()) {
        check_params(kind, v, kind_name);
        uint32_t index = emit(kind, v, path, read_name(v, prefix), "wait");
        if (!v["seconds"]) error(v, "wait needs 'seconds'");
        else if (auto s = read_seconds(v["seconds"], "'seconds'")) p_.nodes[index].seconds = *s;
        p_.nodes[index].end = index + 1;
        return index;
      }
      uint32_t index = emit(kind, v, path, "", "wait");
      if (auto s = read_seconds(v, "wait")) p_.nodes[index].seconds = *s;
      p_.nodes[index].end = index + 1;
      return index;
    }
    const bool is_condition = kind == NodeKind::Condition;
    std::string leaf_name, name;
    YAML::Node leaf_at = v, args;
    bool negate = false;
    if (v.IsScalar() && classify_scalar(v).kind == ScalarKind::String && !v.Scalar().empty()) {
      leaf_name = v.Scalar();
    } else if (v.IsMap()) {
      check_params(kind, v, kind_name);
      name = read_name(v, prefix);
      if (is_condition && v["negate"]) {
        Scalar s = classify_scalar(v["negate"]);
        if (s.kind != ScalarKind::Bool) error(v["negate"], std::string("'negate' must be true or false, got ") + describe_node(v["negate"]));
        negate = s.boolean;
      }
      if (is_condition && v["check"]) {
        if (v["leaf"]) error(v["leaf"], "a condition has either 'leaf' or 'check', not both");
        if (v["args"]) error(v["args"], "'args' goes with 'leaf'; a check expression reads the blackboard");
        return check(v["check"], path, name, negate);
      }
      if (!v["leaf"]) {
        error(v, kind_name + " needs 'leaf', the name of the leaf to call" +
                     std::string(is_condition ? " (or 'check', an expression)" : ""));
      } else if (!v["leaf"].IsScalar() || v["leaf"].Scalar().empty()) {  // `leaf: ""`, `leaf: !tag`
        error(v["leaf"], std::string("'leaf' must be a leaf name, got ") + describe_node(v["leaf"]));
      } else {
        leaf_name = v["leaf"].Scalar();
        leaf_at.reset(v["leaf"]);
      }
      if (v["args"]) args.reset(v["args"]);
      if (args && !args.IsMap() && !args.IsNull())
        error(args, std::string("'args' must be a mapping (args: {radius: 10}), got ") + describe_node(args));
    } else {
      error(v, kind_name + " takes a leaf name (" + kind_name + ": Name) or a mapping {leaf: Name, args: {...}}; got " +
                   describe_node(v));
      return kNone;
    }
    uint32_t index = emit(kind, v, path, name, kind_name + " " + leaf_name);
    p_.nodes[index].end = index + 1;
    if (negate) p_.nodes[index].flags |= kNegate;
    if (!leaf_name.empty() && resolve_leaf(leaf_at, leaf_name, is_condition)) check_args(leaf_name, v, args);
    LeafCall call;
    call.leaf = leaf_name;
    call.args = args ? yaml_to_arg(args) : ArgValue{};
    if (call.args.type == ArgValue::Type::Nil) call.args.type = ArgValue::Type::Map;
    p_.nodes[index].a = static_cast<uint32_t>(p_.calls.size());
    p_.calls.push_back(std::move(call));
    return index;
  }

  // The args of a call against the types its leaf declares (when it declares them).
  void check_args(const std::string& leaf_name, const YAML::Node& at, const YAML::Node& args) {
    auto declared = src_.leaf_args.find(leaf_name);
    if (declared == src_.leaf_args.end()) return;
    std::vector<std::string> names;
    for (const auto& spec : declared->second) names.push_back(spec.name);
    const bool have = args && args.IsMap();
    if (have)
      for (auto it = args.begin(); it != args.end(); ++it) {
        std::string key = it->first.Scalar();
        if (std::find(names.begin(), names.end(), key) == names.end())
          error(it->first, "leaf '" + leaf_name + "' has no arg '" + key + "'" + did_you_mean(key, names) +
                               (names.empty() ? " (it takes no args)" : " (args: " + join_names(names) + ")"));
      }
    for (const auto& spec : declared->second) {
      const YAML::Node value = have ? args[spec.name] : YAML::Node(YAML::NodeType::Undefined);
      bool misspelt = false;  // then the unknown-arg error above says what was meant
      if (have)
        for (auto it = args.begin(); it != args.end(); ++it)
          misspelt = misspelt || (!args[it->first.Scalar()].IsNull() && it->first.Scalar() != spec.name &&
                                  closest_name(it->first.Scalar(), names) == spec.name);
      if (!value || value.IsNull()) {
        if (!spec.optional && !misspelt)
          error(have ? args : at, "leaf '" + leaf_name + "' needs arg '" + spec.name + "' (" + arg_type_phrase(spec.type) +
                                      "): args: {" + spec.name + ": ...}");
        continue;
      }
      if (!arg_fits(value, spec.type))
        error(value, "arg '" + spec.name + "' of leaf '" + leaf_name + "' must be " + arg_type_phrase(spec.type) +
                         ", got " + shown_arg(value));
    }
  }

  static std::string arg_type_phrase(const std::string& type) {
    if (type == "number") return "a number";
    if (type == "integer") return "a whole number";
    if (type == "string") return "text";
    if (type == "boolean") return "true or false";
    return "a table (a list or a mapping)";
  }

  static bool arg_fits(const YAML::Node& v, const std::string& type) {
    if (type == "table") return v.IsMap() || v.IsSequence();
    if (!v.IsScalar()) return false;
    Scalar s = classify_scalar(v);
    if (type == "number") return s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float;
    if (type == "integer") return s.kind == ScalarKind::Integer;
    if (type == "string") return s.kind == ScalarKind::String;
    if (type == "boolean") return s.kind == ScalarKind::Bool;
    return false;
  }

  static std::string shown_arg(const YAML::Node& v) {
    if (!v.IsScalar()) return describe_node(v);
    Scalar s = classify_scalar(v);
    switch (s.kind) {
      case ScalarKind::String: return "the text '" + s.text + "'";
      case ScalarKind::Integer:
      case ScalarKind::Float: return "the number " + v.Scalar();
      case ScalarKind::Bool: return v.Scalar();
      case ScalarKind::Null: return "nothing";
    }
    return describe_node(v);
  }

  uint32_t check(const YAML::Node& e, const std::string& path, const std::string& name, bool negate) {
    uint32_t index = emit(NodeKind::Check, e, path, name, "check " + (e.IsScalar() ? e.Scalar() : std::string()));
    p_.nodes[index].end = index + 1;
    if (negate) p_.nodes[index].flags |= kNegate;
    if (!e.IsScalar() || classify_scalar(e).kind != ScalarKind::String) {
      error(e, std::string("'check' must be an expression in quotes, e.g. check: \"health < 30\"; got ") + describe_node(e));
      return index;
    }
    std::vector<ExprError> errors;
    auto compiled = compile_expr(e.Scalar(), expr_keys_, strings_, errors);
    int quote = e.Tag() == "!" ? 1 : 0;  // a quoted scalar's mark is at its opening quote
    // A key whose default was written `no` (text in YAML 1.2) and is used here as true/false:
    // the mistake is at the declaration, so the error goes there, and this one points to it.
    std::string because;
    if (!errors.empty())
      for (const auto& yb : src_.yaml11_bools) {
        if (!mentions(e.Scalar(), yb.key)) continue;
        std::string decl = src_.files[yb.pos.file].path + ":" + std::to_string(yb.pos.line) + ":" + std::to_string(yb.pos.column);
        because += " ('" + yb.key + "' is text: its default `" + yb.text + "` at " + decl + " is the text '" + yb.text +
                   "' in YAML 1.2)";
        if (yaml11_misused_.insert(yb.key).second)
          diags_.push_back({Severity::Error, src_.files[yb.pos.file].path, yb.pos.line, yb.pos.column,
                            "`" + yb.text + "` is the text '" + yb.text + "' in YAML 1.2, not a boolean; write " +
                                yaml11_meaning(yb.text) + " ('" + yb.key + "' is used as true/false at " +
                                src_.files[file_].path + ":" + std::to_string(e.Mark().line + 1) + ":" +
                                std::to_string(e.Mark().column + 1) + ")"});
      }
    for (const auto& err : errors) {
      Diagnostic d;
      d.file = src_.files[file_].path;
      d.line = e.Mark().line + 1;
      d.column = e.Mark().column + 1 + quote + static_cast<int>(err.column);
      d.message = "in check expression: " + err.message + because;
      diags_.push_back(std::move(d));
    }
    p_.nodes[index].a = static_cast<uint32_t>(p_.exprs.size());
    if (compiled) p_.exprs.push_back(std::move(*compiled));
    else p_.exprs.emplace_back();
    return index;
  }

  uint32_t subtree(const YAML::Node& v, const std::string& path, const std::string& prefix) {
    std::string target, name;
    YAML::Node at = v;
    if (v.IsScalar()) {
      target = v.Scalar();
    } else if (v.IsMap()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::string key = it->first.Scalar();
        if (key != "tree" && key != "name")
          error(it->first, "unknown parameter '" + key + "' for subtree" + did_you_mean(key, {"tree", "name"}) + " (allowed: tree, name)");
      }
      if (!v["tree"] || !v["tree"].IsScalar()) {
        error(v, "subtree needs 'tree', the name of the tree to insert");
        return kNone;
      }
      target = v["tree"].Scalar();
      at.reset(v["tree"]);
      name = read_name(v, prefix);
    } else {
      error(v, std::string("subtree takes a tree name, got ") + describe_node(v));
      return kNone;
    }
    auto it = src_.trees.find(target);
    if (it == src_.trees.end()) {
      std::string known = tree_names_.empty() ? " (no trees are defined: add them under 'trees:' or list files under 'import:')"
                                              : did_you_mean(target, tree_names_).empty() ? " (trees: " + join_names(tree_names_) + ")" : "";
      error(at, "unknown tree '" + target + "'" + did_you_mean(target, tree_names_) + known);
      return kNone;
    }
    if (std::find(subtrees_.begin(), subtrees_.end(), target) != subtrees_.end()) {
      std::string cycle;
      for (const auto& s : subtrees_) cycle += s + " -> ";
      error(at, "subtree cycle: " + cycle + target);
      return kNone;
    }
    // The subtree's root takes this node's place (and its name, if it has one); names inside
    // are prefixed with this node's id so two uses of one tree keep distinct ids.
    uint32_t saved_file = file_;
    file_ = it->second.file;
    subtrees_.push_back(target);
    size_t first = p_.nodes.size();
    uint32_t index = node(it->second.root, path, (name.empty() ? path : name) + "/");
    subtrees_.pop_back();
    file_ = saved_file;
    if (index != kNone && !name.empty() && index == first) {
      ids_.erase(p_.ids[index]);
      p_.ids[index] = name;
      if (!ids_.emplace(name, index).second) error(v, "node id '" + name + "' is used twice");
    }
    return index;
  }

  const BrainSource& src_;
  const LeafNames& leaves_;
  StringTable& strings_;
  std::vector<Diagnostic>& diags_;
  Program& p_;
  uint32_t file_ = 0;
  std::vector<std::string> subtrees_;
  std::vector<std::string> leaf_names_, tree_names_;
  std::vector<ExprKey> expr_keys_;
  std::map<std::string, uint32_t> ids_;
  int depth_ = 0;
  bool too_deep_ = false, too_many_nodes_ = false;

 public:
  std::set<std::string> yaml11_misused_;  // keys with a yes/no default that a check used as true/false

 private:
  // Whether `expr` has `name` as a whole word outside quotes.
  static bool mentions(const std::string& expr, const std::string& name) {
    char quote = 0;
    for (size_t i = 0; i < expr.size(); ++i) {
      char c = expr[i];
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        continue;
      }
      if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') continue;
      size_t j = i;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
      if (expr.compare(i, j - i, name) == 0 && j - i == name.size()) return true;
      i = j - 1;
    }
    return false;
  }

  static std::string yaml11_meaning(const std::string& text) {
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower == "yes" || lower == "on" || lower == "y" ? "true" : "false";
  }
};

// Observed conditions (SPEC 3.5) of every composite with an abort, children first.
void compute_observed(Program& p) {
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
    p.recheck_ranges[e] = {static_cast<uint32_t>(p.recheck_conds.size()), static_cast<uint32_t>(rechecked[e].size())};
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
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (observed[i].empty()) continue;
    p.nodes[i].a = static_cast<uint32_t>(p.observed.size());
    p.nodes[i].b = static_cast<uint32_t>(observed[i].size());
    p.observed.insert(p.observed.end(), observed[i].begin(), observed[i].end());
  }
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
  auto p = std::make_unique<Program>();
  p->name = name;
  for (const auto& f : src.files) {
    p->files.push_back(f.path);
    p->yaml_files.push_back(f.path);
  }
  p->leaf_files = src.leaf_files;
  p->blackboard = src.blackboard;
  size_t errors_before = diags.size();
  TreeCompiler tc(src, leaves, strings, diags, *p);
  emit(tc);
  // yes/no defaults no check used as true/false: text as YAML 1.2 says, but likely a mistake.
  for (const auto& yb : src.yaml11_bools)
    if (!tc.yaml11_misused_.count(yb.key))
      diags.push_back({Severity::Warning, src.files[yb.pos.file].path, yb.pos.line, yb.pos.column,
                       "`" + yb.text + "` is the text '" + yb.text + "' in YAML 1.2, so '" + yb.key +
                           "' is a text key; for a boolean write true or false (quote it, \"" + yb.text +
                           "\", to keep the text and silence this)"});
  bool failed = p->nodes.empty();
  for (size_t i = errors_before; i < diags.size(); ++i) failed = failed || diags[i].severity == Severity::Error;
  if (failed) return nullptr;
  compute_observed(*p);
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
