// The fsm brain (SPEC 4): an Fsm root over one State node per state, its hooks, body,
// transitions and `when` conditions.
#include <algorithm>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

// fsm := {initial: state, states: {name: {reason, act | tree, enter, exit, transitions, when}}}
void TreeCompiler::fsm(const YAML::Node& doc, const std::string& fsm_name) {
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

}  // namespace thicket
