// The fsm brain (SPEC 4, 4.1): an Fsm root over its top-level State nodes; a State node holds
// its parts (enter, exit, reason, body, enter_if, guards, `when` conditions) and then its child
// State nodes, so the node array nests as the states do. Program::fsm_states lists the states
// depth-first with their place in the hierarchy, transitions and `when` entries.
#include <cctype>
#include <algorithm>
#include <functional>
#include <map>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

namespace {
const std::vector<std::string>& state_keys() {
  static const std::vector<std::string> keys = {"reason", "act",   "tree",    "machine",  "enter", "exit",   "transitions",
                                                "when",   "states", "initial", "history", "final", "enter_if"};
  return keys;
}
}  // namespace

namespace {
// A state's or a transition's name: text, not empty (`~` and "" are no name; nor is a list).
bool is_named(const YAML::Node& key) {
  return key.IsScalar() && !key.Scalar().empty() && classify_scalar(key).kind != ScalarKind::Null;
}
}  // namespace

// One pass over the nested `states:` mappings: every state gets its index (depth-first, file
// order), its parent and children, so targets anywhere in the brain resolve by name.
void TreeCompiler::fsm_outline(const YAML::Node& states, uint16_t parent, uint16_t depth,
                               std::map<std::string, YAML::Node>& where) {
  if (!states || !states.IsMap() || states.size() == 0) return;
  bool alias_said = false;  // these states are a YAML alias's copy: said once
  for (auto it = states.begin(); it != states.end(); ++it) {
    const std::string name = it->first.Scalar();
    if (!is_named(it->first)) {  // `~`, "" or a list: no name a transition or a trace could use
      error(it->first, std::string("a state's name must be text, got ") + (it->first.IsScalar() && name.empty() && classify_scalar(it->first).kind != ScalarKind::Null ? "empty text" : describe_node(it->first)));
      continue;
    }
    if (name == "root") {  // the fsm itself is node "root" (traces, running lists, reload matching)
      error(it->first, "a state may not be named 'root': that is the fsm's own node id; rename the state");
      continue;
    }
    auto [at, fresh] = where.emplace(name, it->first);
    bool duplicate = false;
    if (!fresh) {
      const YAML::Node& first = at->second;
      // Twice in this very mapping: the YAML loader has said so (a key given twice).
      bool same_map = false;
      for (auto k = states.begin(); k != it && !same_map; ++k) same_map = k->first.is(first);
      const std::string first_at = src_.files[file_].path + ":" + std::to_string(first.Mark().line + 1) + ":" +
                                   std::to_string(first.Mark().column + 1);
      if (same_map) {
        // Its body is still checked (below), as a state defined twice in two places is.
      } else if (it->first.is(first) && parent != kNoPos) {
        // The very same key, reached again through a YAML alias (`b: *a`): both places would be
        // the anchor's. Said once, at the state whose body is the copy (where the alias is).
        if (!alias_said)
          error(fsm_key_[parent], "state '" + name + "' is defined twice: state '" + p_.fsm_states[parent].name +
                                      "' repeats, through a YAML alias, the states defined at " + first_at +
                                      " (an alias copies them, names included); state names are unique in the whole brain");
        alias_said = true;
        continue;
      } else {
        error(it->first, "state '" + name + "' is defined twice: state names are unique in the whole brain (first at " +
                             first_at + ")");
      }
      // Its body is still checked, so that its own mistakes are said with this one (all of a
      // file's errors at once), though no transition can name it.
      duplicate = true;
    }
    if (depth >= kMaxStateDepth) {
      error(it->first, "states are nested deeper than " + std::to_string(kMaxStateDepth) + " levels here");
      return;
    }
    if (p_.fsm_states.size() >= kNoPos - 1) {
      error(it->first, "an fsm may have at most " + std::to_string(kNoPos - 1) + " states");
      return;
    }
    const auto index = static_cast<uint16_t>(p_.fsm_states.size());
    if (duplicate) fsm_duplicates_.insert(index);
    else fsm_index_.emplace(name, index);
    FsmState info;
    info.name = name;
    info.parent = parent;
    info.depth = depth;
    p_.fsm_states.push_back(std::move(info));
    fsm_yaml_.push_back(it->second);
    fsm_key_.push_back(it->first);
    if (parent == kNoPos) p_.fsm_top.push_back(index);
    else p_.fsm_states[parent].children.push_back(index);
    const YAML::Node st = it->second;
    if (st.IsMap() && st["states"]) fsm_outline(st["states"], index, static_cast<uint16_t>(depth + 1), where);
  }
}

// A state named at `at` (kNoPos after an error).
uint16_t TreeCompiler::fsm_target(const YAML::Node& at, const std::string& what) {
  if (!at.IsScalar() || classify_scalar(at).kind == ScalarKind::Null) {
    error(at, what + " must name a state, got " + describe_node(at));
    fsm_guesses_.push_back({fsm_current_, kNoPos, false});
    return kNoPos;
  }
  if (auto it = fsm_index_.find(at.Scalar()); it != fsm_index_.end()) return it->second;
  // The names are gathered once (a file of 20,000 states naming unknown ones copied them all for
  // each error: quadratic).
  std::vector<std::string>& names = fsm_names_;
  if (fsm_names_of_ != p_.fsm_states.size()) {
    fsm_names_of_ = p_.fsm_states.size();
    names.clear();
    std::set<std::string> seen;  // a state defined twice (an error of its own) is listed once
    for (const auto& s : p_.fsm_states)
      if (seen.insert(s.name).second) names.push_back(s.name);
  }
  // A big brain's list of states would drown the message: name at most 20.
  std::string listed = names.size() <= 20 ? " (states: " + join_names(names) + ")" : " (" + std::to_string(names.size()) + " states)";
  // calm.rest, calm/patrol: a path, where state names are flat (unique in the whole brain).
  std::string near = did_you_mean(at.Scalar(), names);
  std::string guess = closest_name(at.Scalar(), names);
  if (const size_t cut = at.Scalar().find_last_of("./"); near.empty() && cut != std::string::npos &&
                                                          fsm_index_.count(at.Scalar().substr(cut + 1))) {
    guess = at.Scalar().substr(cut + 1);
    near = "; did you mean '" + guess + "'? (a state is named alone, wherever it sits: names are "
           "unique in the whole brain)";
  }
  const auto guessed = guess.empty() ? fsm_index_.end() : fsm_index_.find(guess);
  fsm_guesses_.push_back({fsm_current_, guessed == fsm_index_.end() ? kNoPos : guessed->second, false});
  error(at, "unknown state '" + at.Scalar() + "'" + near + listed);
  return kNoPos;
}

// `initial:` of the brain (parent kNoPos) or of a composite state: one of its children.
uint16_t TreeCompiler::fsm_initial(const YAML::Node& at, uint16_t parent) {
  const std::vector<uint16_t>& kids = parent == kNoPos ? p_.fsm_top : p_.fsm_states[parent].children;
  std::vector<std::string> names;
  for (uint16_t k : kids)  // (a state defined twice, an error of its own, listed once)
    if (std::find(names.begin(), names.end(), p_.fsm_states[k].name) == names.end()) names.push_back(p_.fsm_states[k].name);
  const std::string owner = parent == kNoPos ? "the brain's 'initial'" : "'initial' of state '" + p_.fsm_states[parent].name + "'";
  if (!at.IsScalar() || classify_scalar(at).kind == ScalarKind::Null) {
    error(at, owner + " must name one of its states, got " + describe_node(at));
    fsm_guesses_.push_back({parent, kNoPos, true});
    return kNoPos;
  }
  for (uint16_t k : kids)
    if (p_.fsm_states[k].name == at.Scalar()) return k;
  if (kids.empty()) return kNoPos;  // no states were read: the error of 'states' says why
  std::string where;
  for (const auto& s : p_.fsm_states)
    if (s.name == at.Scalar()) where = ": '" + s.name + "' is not " + (parent == kNoPos ? "a top-level state" : "a child of '" + p_.fsm_states[parent].name + "'");
  const std::string guess = closest_name(at.Scalar(), names);
  uint16_t guessed = kNoPos;
  for (uint16_t k : kids)
    if (!guess.empty() && p_.fsm_states[k].name == guess) guessed = k;
  fsm_guesses_.push_back({parent, guessed, true});
  error(at, owner + " names '" + at.Scalar() + "'" + (where.empty() ? ", which is not a state" : where) +
                did_you_mean(at.Scalar(), names) + " (" + (parent == kNoPos ? "top-level states" : "its states") + ": " +
                join_names(names) + ")");
  return kNoPos;
}

// A guard or enter_if: {check: "expr"} or {condition: Leaf} (a bare string: a check).
uint32_t TreeCompiler::fsm_guard(const YAML::Node& g, const std::string& path, const std::string& what) {
  if (g.IsScalar()) return check(g, path, "", false, what);  // the expression itself: named by its key
  if (!g.IsMap()) {
    error(g, what + " is {check: \"expression\"} or {condition: Leaf}, got " + describe_node(g));
    return kNone;
  }
  bool unknown = false;
  for (auto e = g.begin(); e != g.end(); ++e) {
    std::string key = e->first.Scalar();
    if (key != "check" && key != "condition") {
      unknown = true;
      error(e->first, "unknown key '" + key + "' in " + what + did_you_mean(key, {"check", "condition"}) + " (allowed: check, condition)");
    }
  }
  if (g["check"] && g["condition"]) {
    error(g, what + " has both 'check' and 'condition'; give one");
    return kNone;
  }
  if (!g["check"] && !g["condition"]) {
    if (!unknown) error(g, what + " is {check: \"expression\"} or {condition: Leaf}; this mapping has neither");
    return kNone;
  }
  return g["check"] ? check(g["check"], path, "", false) : leaf(NodeKind::Condition, g["condition"], path, "");
}

void TreeCompiler::fsm_state(uint16_t index) {
  const std::string name = p_.fsm_states[index].name;
  fsm_current_ = index;  // (its own targets are all read before its child states)
  const YAML::Node st = fsm_yaml_[index];
  // A state named as one before (said in fsm_outline): its nodes' ids repeat the first's, which
  // is that error again, not one more.
  quiet_ids_ = fsm_duplicates_.count(index) != 0;
  uint32_t state_node = emit(NodeKind::State, fsm_key_[index], name, "", "state " + name);
  p_.nodes[state_node].a = index;
  p_.fsm_states[index].node = state_node;
  std::vector<uint32_t> parts;
  auto info = [&]() -> FsmState& { return p_.fsm_states[index]; };  // fsm_states does not grow here
  if (!st.IsMap() && !st.IsNull()) {
    error(st, "state '" + name + "' must be a mapping {reason, act, transitions, ...}, got " + describe_node(st));
  } else if (st.IsMap()) {
    for (auto k = st.begin(); k != st.end(); ++k) {
      std::string key = k->first.Scalar();
      if (std::find(state_keys().begin(), state_keys().end(), key) == state_keys().end())
        error(k->first, "unknown key '" + key + "' in state '" + name + "'" + did_you_mean(key, state_keys()) +
                            " (allowed: " + join_names(state_keys()) + ")");
    }
    const bool composite = !info().children.empty();
    auto flag = [&](const char* key) {
      if (!st[key]) return false;
      Scalar s = classify_scalar(st[key]);
      if (!st[key].IsScalar() || s.kind != ScalarKind::Bool) {
        error(st[key], std::string("'") + key + "' is true or false, got " + describe_node(st[key]) + yaml11_boolean_hint(st[key]));
        return false;
      }
      return s.boolean;
    };
    info().final = flag("final");
    info().history = flag("history");
    if (st["states"] && (!st["states"].IsMap() || st["states"].size() == 0))
      error(st["states"], std::string("'states' of state '" + name + "' must be a non-empty mapping of state name to state, got ") +
                              (st["states"].IsMap() ? "an empty mapping" : describe_node(st["states"])));
    // (A state whose `states` are all in error, e.g. an alias's copy of names already taken, has
    // been reported; its `initial` is not then said to be misplaced.)
    if (st["history"] && !composite && !st["states"])
      error(st["history"], "'history' applies to a composite state (one with 'states'); state '" + name + "' has none");
    if (st["initial"] && !composite && !st["states"])
      error(st["initial"], "'initial' applies to a composite state (one with 'states'); state '" + name + "' has none");
    if (info().final) {
      for (const char* key : {"states", "reason", "act", "tree", "machine", "transitions", "when", "history", "initial"})
        if (st[key])
          error(st[key], std::string("a final state has no '") + key + "': entering state '" + name +
                             "' finishes its parent (or, at the top level, the brain)");
    }
    if (st["initial"] && composite) info().initial = fsm_initial(st["initial"], index);
    auto part = [&](const char* key, NodeKind kind, uint32_t& slot) {
      if (!st[key]) return;
      leaf_shown_as_ = std::string("'") + key + "'";
      slot = leaf(kind, st[key], name + "/" + key, "");
      leaf_shown_as_.clear();
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
    if (st["enter_if"]) {
      uint32_t g = fsm_guard(st["enter_if"], name + "/enter_if", "'enter_if'");
      if (g != kNone) {
        info().enter_if = g;
        parts.push_back(g);
      }
    }
    part("enter", NodeKind::Action, info().enter);
    part("exit", NodeKind::Action, info().exit);
    part("reason", NodeKind::Action, info().reason);
    int bodies = (st["act"] ? 1 : 0) + (st["tree"] ? 1 : 0) + (st["machine"] ? 1 : 0);
    if (bodies > 1)
      error(st["machine"] ? st["machine"] : st["tree"], "state '" + name + "' has more than one of 'act', 'tree' and 'machine'; give one");
    // Each body given is compiled: with more than one (an error already), the others' errors
    // are reported too; the first is the body.
    uint32_t body = kNoNode;
    if (st["act"]) {
      part("act", NodeKind::Action, body);
      info().body = body;
    }
    if (st["tree"]) {
      uint32_t b = st["tree"].IsScalar() ? subtree(st["tree"], name + "/tree", "") : node(st["tree"], name + "/tree", name + "/");
      if (b != kNone && bodies == 1) {
        parts.push_back(b);
        info().body = b;
      }
    }
    if (st["machine"]) {
      uint32_t b = fsm_machine(st["machine"], name);
      if (b != kNone && bodies == 1) {
        parts.push_back(b);
        info().body = b;
      }
    }
    // A transition or `when` entry dropped for a mistake still leads where it was meant to, for
    // the unreachable-state warnings (fsm()): its 'go' (or a misspelt key's value) when that names
    // a state, else any state.
    auto dropped = [&](const YAML::Node& entry) {
      const YAML::Node go = entry.IsMap() ? (entry["go"] ? entry["go"] : misspelt_value(entry, "go")) : entry;
      const auto it = go && go.IsScalar() ? fsm_index_.find(go.Scalar()) : fsm_index_.end();
      fsm_guesses_.push_back({index, it != fsm_index_.end() ? it->second : kNoPos, false});
    };
    if (st["transitions"]) {
      const YAML::Node tr = st["transitions"];
      if (!tr.IsMap()) {
        error(tr, std::string("'transitions' maps an event or reason name to a state, e.g. {saw_player: chase}; got ") + describe_node(tr));
        fsm_guesses_.push_back({index, kNoPos, false});  // its targets could be any state
      } else {
        std::map<std::string, std::string> folded;  // the names in lower case: 'Hit' beside 'hit'
        for (auto t = tr.begin(); t != tr.end(); ++t) {
          const std::string ev = t->first.Scalar();
          if (is_named(t->first)) {
            std::string lower = ev;
            for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (auto [first, fresh] = folded.emplace(lower, ev); !fresh && first->second != ev)
              warning(t->first, "transition '" + ev + "' differs only in case from transition '" + first->second +
                                    "' of the same state: names are case-sensitive, so an event or reason takes one "
                                    "of them, never both; if one is meant, remove the other");
          }
          const YAML::Node v = t->second;
          if (!is_named(t->first)) {  // no event or reason is named so: it could never be taken
            error(t->first, std::string("a transition's event or reason name must be text, got ") +
                                (t->first.IsScalar() && ev.empty() && classify_scalar(t->first).kind != ScalarKind::Null ? "empty text" : describe_node(t->first)));
            dropped(v);
            continue;
          }
          // A name a letter or two from one of the runtime's own events (success, failure, done)
          // is most likely that event misspelt: it would wait for an event nothing sends. So is
          // one near a perception event's name (lost_sigth), which a scenario's senses (and the
          // game) send under those names unless the scenario renames them: the long ones only,
          // since a short name's neighbours are words of their own ('quit' beside 'quiet').
          static const std::vector<std::string> runtime_events = {"success", "failure", "done"};
          static const std::vector<std::string> percept_events = {"lost_sight", "touched", "untouched", "remembered",
                                                                  "forgot"};
          static const std::vector<std::string> short_percepts = {"seen", "heard", "quiet"};
          const auto known = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), ev) != v.end(); };
          if (!known(runtime_events) && !known(percept_events) && !known(short_percepts)) {
            if (const std::string near = did_you_mean(ev, runtime_events); !near.empty())
              warning(t->first, "transition '" + ev + "' is no event the runtime sends" + near +
                                    " (the runtime sends success and failure when a state's act, tree or machine "
                                    "ends, and done when a final state is entered; other names come from agent:send or reasons)");
            else if (const std::string near_percept = did_you_mean(ev, percept_events); !near_percept.empty())
              warning(t->first, "transition '" + ev + "' is no perception event" + near_percept +
                                    " (a scenario's senses send seen, lost_sight, heard, quiet, touched, untouched, "
                                    "remembered and forgot, unless its 'events:' renames them; other names come from "
                                    "agent:send or reasons)");
          }
          FsmTransition rec;
          rec.name = ev;
          YAML::Node go;
          go.reset(v);
          if (v.IsMap()) {
            for (auto e = v.begin(); e != v.end(); ++e) {
              std::string key = e->first.Scalar();
              if (key != "go" && key != "check" && key != "condition")
                error(e->first, "unknown key '" + key + "' in transition '" + ev + "'" + did_you_mean(key, {"go", "check", "condition"}) +
                                    " (allowed: go, check, condition)");
            }
            if (!v["go"]) {
              error(v, "transition '" + ev + "' needs 'go', the state it leads to: {go: state, check: \"...\"}");
              dropped(v);
              continue;
            }
            go.reset(v["go"]);
            if (v["check"] && v["condition"]) error(v, "transition '" + ev + "' has both 'check' and 'condition'; give one");
            else if (v["check"]) rec.guard = check(v["check"], name + "/transitions/" + ev, "", false);
            else if (v["condition"]) rec.guard = leaf(NodeKind::Condition, v["condition"], name + "/transitions/" + ev, "");
            if (rec.guard == kNone) rec.guard = kNoNode;
            if (rec.guard != kNoNode) parts.push_back(rec.guard);
          }
          uint16_t target = fsm_target(go, "transition '" + ev + "'");
          if (target == kNoPos) continue;
          rec.target = target;
          info().transitions.push_back(std::move(rec));
        }
      }
    }
    if (st["when"]) {
      const YAML::Node when = st["when"];
      if (!when.IsSequence()) {
        error(when, std::string("'when' is a list of {check: \"...\", go: state} (or condition:, after: seconds), got ") + describe_node(when));
        fsm_guesses_.push_back({index, kNoPos, false});  // its targets could be any state
      } else {
        size_t k = 0;
        for (const auto& w : when) {
          std::string path = name + "/when/" + std::to_string(k++);
          // Unknown keys first, each named (a typo, `chek:` or `goto:`, is why a key is missing);
          // the entry's shape is said only when no key was unknown.
          bool unknown = false;
          if (w.IsMap()) {
            for (auto e = w.begin(); e != w.end(); ++e) {
              std::string key = e->first.Scalar();
              if (key != "check" && key != "condition" && key != "go" && key != "after") {
                error(e->first, "unknown key '" + key + "' in a 'when' entry" + did_you_mean(key, {"check", "condition", "go", "after"}) +
                                    " (allowed: check, condition, after, go)");
                unknown = true;
              }
            }
          }
          const bool has_go = w.IsMap() && w["go"];
          const bool has_test = w.IsMap() && (w["check"] || w["condition"] || w["after"]);
          if (w.IsMap() && !has_go && has_test && !unknown)
            error(w, "a 'when' entry needs 'go', the state it leads to: {..., go: state}");
          else if ((!has_go || !has_test) && !unknown)
            error(w, "an entry of 'when' is {check: \"expression\", go: state}, {condition: Leaf, go: state} or {after: seconds, go: state}");
          // An entry without one of its parts is dropped; one with an unknown key (`aftr:`,
          // `goto:`) has what it holds besides checked first, so that all its mistakes are said
          // at once (its state named `diging`, its `after: -1`).
          if (!w.IsMap() || (!unknown && (!has_go || !has_test))) {
            dropped(w);
            continue;
          }
          if (w["check"] && w["condition"]) error(w, "a 'when' entry has both 'check' and 'condition'; give one");
          FsmWhen rec;
          bool ok = has_go && has_test;
          if (w["after"]) {
            if (auto s = read_seconds(w["after"], "'after'")) rec.after = *s;
            else ok = false;
          }
          if (w["check"] || w["condition"]) {
            rec.cond = w["check"] ? check(w["check"], path, "", false) : leaf(NodeKind::Condition, w["condition"], path, "");
            if (rec.cond == kNone) {
              rec.cond = kNoNode;
              ok = false;
            }
          }
          if (rec.cond != kNoNode) parts.push_back(rec.cond);
          if (!has_go) {  // (an unknown key, `goto:`, named above)
            dropped(w);
            continue;
          }
          uint16_t target = fsm_target(w["go"], "'go'");
          // (An entry dropped for another mistake still leads to its target, for the warnings.)
          if (!ok && target != kNoPos) fsm_guesses_.push_back({index, target, false});
          if (!ok || target == kNoPos) continue;
          rec.target = target;
          info().when.push_back(rec);
        }
      }
    }
  }
  // Child states follow the parts, in file order.
  quiet_ids_ = false;
  for (uint16_t child : std::vector<uint16_t>(info().children)) {
    fsm_state(child);
    parts.push_back(p_.fsm_states[child].node);
  }
  finish_children(state_node, parts);
}

// A state's `machine:` body: a name under the brain's `machines:`, or a machine inline.
uint32_t TreeCompiler::fsm_machine(const YAML::Node& v, const std::string& state) {
  YAML::Node doc;
  doc.reset(v);
  std::string label = "machine";
  if (v.IsScalar()) {
    const YAML::Node all = src_.files[0].doc["machines"];
    std::vector<std::string> names;
    if (all && all.IsMap())
      for (auto it = all.begin(); it != all.end(); ++it) names.push_back(it->first.Scalar());
    if (!all || !all.IsMap() || !all[v.Scalar()]) {
      error(v, "unknown machine '" + v.Scalar() + "'" + did_you_mean(v.Scalar(), names) +
                   (names.empty() ? " (no machines are defined: add them under 'machines:', or write the machine inline)"
                                  : " (machines: " + join_names(names) + ")"));
      return kNone;
    }
    doc.reset(all[v.Scalar()]);
    label = "machine " + v.Scalar();
    used_machines_.insert(v.Scalar());
  } else if (!v.IsMap()) {
    error(v, std::string("'machine' is the name of a machine under 'machines:' or a machine {check_every, behaviors}, got ") + describe_node(v));
    return kNone;
  }
  machine_keys(doc);
  return machine_node(doc, v, state + "/machine", state + "/machine/", label);
}

// A machine's own keys (inline, or under `machines:`).
void TreeCompiler::machine_keys(const YAML::Node& body) {
  if (!body.IsMap()) return;  // machine_node says what it should be
  for (auto it = body.begin(); it != body.end(); ++it) {
    std::string key = it->first.Scalar();
    if (key != "check_every" && key != "behaviors")
      error(it->first, "unknown key '" + key + "' in a machine" + did_you_mean(key, {"check_every", "behaviors"}) +
                           " (allowed: check_every, behaviors)");
  }
}

void TreeCompiler::unused_machine(const YAML::Node& body, const std::string& machine_name) {
  file_ = 0;
  subtrees_.push_back(machine_name);
  machine_keys(body);
  machine_node(body, body, "machines/" + machine_name, "machines/" + machine_name + "/", "machine " + machine_name);
  subtrees_.pop_back();
}

// fsm := {initial: state, states: {name: {reason, act | tree | machine, enter, exit, enter_if,
//          transitions, when, states, initial, history, final}}, machines: {...}}
void TreeCompiler::fsm(const YAML::Node& doc, const std::string& fsm_name) {
  file_ = 0;
  subtrees_.push_back(fsm_name);
  uint32_t root = emit(NodeKind::Fsm, doc, "root", "", "fsm " + fsm_name);
  p_.nodes[root].a = kNoPos;
  const YAML::Node states = doc["states"];
  std::map<std::string, YAML::Node> where;
  if (!states) {
    error(doc, "an fsm needs 'states', a mapping of state name to {reason, act, transitions, ...}");
  } else if (!states.IsMap() || states.size() == 0) {
    error(states, std::string("'states' must be a non-empty mapping of state name to state, got ") +
                      (states.IsMap() ? "an empty mapping" : describe_node(states)));
  } else {
    fsm_outline(states, kNoPos, 0, where);
    // Two states whose names differ only in case are two states (names are case-sensitive), but
    // most likely one meant as the other: a transition to 'Combat' that should reach 'combat'.
    std::map<std::string, uint16_t> folded;
    for (size_t k = 0; k < p_.fsm_states.size(); ++k) {
      if (fsm_duplicates_.count(static_cast<uint16_t>(k))) continue;
      std::string lower = p_.fsm_states[k].name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto [first, fresh] = folded.emplace(lower, static_cast<uint16_t>(k));
      if (fresh) continue;
      const YAML::Mark m = fsm_key_[first->second].Mark();
      warning(fsm_key_[k], "state '" + p_.fsm_states[k].name + "' differs only in case from state '" +
                               p_.fsm_states[first->second].name + "' (" + src_.files[file_].path + ":" +
                               std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                               "): names are case-sensitive, so these are two states; if one is meant, rename the other");
    }
  }
  if (doc["machines"] && !doc["machines"].IsMap())
    error(doc["machines"], std::string("'machines' is a mapping of name: {check_every, behaviors}, got ") + describe_node(doc["machines"]));
  if (doc["initial"]) p_.nodes[root].a = fsm_initial(doc["initial"], kNoPos);
  std::vector<uint32_t> children;
  for (uint16_t top : std::vector<uint16_t>(p_.fsm_top)) {
    fsm_state(top);
    children.push_back(p_.fsm_states[top].node);
  }
  finish_children(root, children);
  // A descent that enters a final state at once: a composite whose initial state (named, or its
  // first child when that one is taken without a test) is final finishes as soon as it is
  // entered (its `done`, mapped back to it, loops to the event cap each tick); the brain's, ends
  // the brain on every tick.
  auto first_entered = [&](uint16_t initial, const std::vector<uint16_t>& kids) -> uint16_t {
    if (initial != kNoPos) return initial;
    return !kids.empty() && p_.fsm_states[kids[0]].enter_if == kNoNode ? kids[0] : kNoPos;
  };
  for (size_t k = 0; k < p_.fsm_states.size(); ++k) {
    const FsmState& st = p_.fsm_states[k];
    if (st.children.empty() || fsm_duplicates_.count(static_cast<uint16_t>(k))) continue;
    const uint16_t first = first_entered(st.initial, st.children);
    if (first == kNoPos || !p_.fsm_states[first].final) continue;
    const YAML::Node said = fsm_yaml_[k].IsMap() && fsm_yaml_[k]["initial"] ? fsm_yaml_[k]["initial"] : fsm_key_[first];
    warning(said, "state '" + st.name + "' finishes as soon as it is entered: its initial state '" +
                      p_.fsm_states[first].name + "' is final, so each entry sends done at once; start it in another state");
  }
  if (const uint16_t first = first_entered(static_cast<uint16_t>(p_.nodes[root].a), p_.fsm_top);
      first != kNoPos && p_.fsm_states[first].final)
    warning(doc["initial"] ? doc["initial"] : fsm_key_[first],
            "the brain's initial state '" + p_.fsm_states[first].name +
                "' is final: the brain ends as soon as it starts, on every tick; start it in another state");
  // Reachability: the initial descent, and from each reached state the targets of its
  // transitions and `when` entries (with their ancestors: a state is active while a child of
  // it is) and, of a composite, its `initial` child or the children it may select by enter_if.
  // A transition of a state that is never entered leads nowhere.
  const size_t n = p_.fsm_states.size();
  std::vector<bool> reached(n, false);
  std::vector<uint16_t> work;
  auto reach = [&](uint16_t s) {
    for (uint16_t k = s; k != kNoPos && !reached[k]; k = p_.fsm_states[k].parent) {
      reached[k] = true;
      work.push_back(k);
    }
  };
  // Selecting by enter_if takes the first child, in order, whose enter_if passes and whose
  // descent can be entered: a state without enter_if whose descent always can be is always
  // taken, so none after it is ever selected (a flat fsm without `initial` enters its first
  // state). Such a descent: a leaf state's; a composite's whose `initial` child's always can,
  // or, without `initial`, one of whose children's always can (a composite first had stopped
  // nothing: the states after it were not called unreachable).
  std::function<bool(uint16_t)> always_entered = [&](uint16_t c) {
    const FsmState& st = p_.fsm_states[c];
    if (st.enter_if != kNoNode) return false;
    if (st.children.empty()) return true;
    if (st.initial != kNoPos) return always_entered(st.initial);
    return std::any_of(st.children.begin(), st.children.end(), always_entered);
  };
  auto reach_selected = [&](const std::vector<uint16_t>& kids) {
    for (uint16_t c : kids) {
      reach(c);
      if (always_entered(c)) break;
    }
  };
  // (An `initial` that names no state is an error of its own; the states are then looked at
  // as without it, so that the warnings do not call every state unreachable.)
  // A target or initial that named no state (an error) reaches the state its did-you-mean names,
  // an initial with none each child, so the warnings below do not follow from the misspelling;
  // a target with no guess could have meant any state, and then no state is called unreachable.
  bool guessing = false;
  auto reach_guesses = [&](uint16_t from, bool initial) {
    for (const FsmGuess& g : fsm_guesses_) {
      if (g.from != from || g.initial != initial) continue;
      if (g.guess != kNoPos) reach(g.guess);
      else if (!initial) guessing = true;
      else
        for (uint16_t k : from == kNoPos ? p_.fsm_top : p_.fsm_states[from].children) reach(k);
    }
  };
  if (p_.nodes[root].a != kNoPos) reach(static_cast<uint16_t>(p_.nodes[root].a));
  else reach_selected(p_.fsm_top);
  reach_guesses(kNoPos, true);
  while (!work.empty()) {
    uint16_t s = work.back();
    work.pop_back();
    const FsmState& st = p_.fsm_states[s];
    for (const auto& t : st.transitions) reach(t.target);
    for (const auto& w : st.when) reach(w.target);
    reach_guesses(s, false);
    if (st.children.empty()) continue;
    if (st.initial != kNoPos) reach(st.initial);
    else reach_selected(st.children);
    reach_guesses(s, true);
  }
  for (size_t k = 0; k < n && !guessing; ++k)
    if (!reached[k] && !fsm_duplicates_.count(static_cast<uint16_t>(k)))
      ref().warning(fsm_key_[k], "state '" + p_.fsm_states[k].name +
                                     "' is unreachable: no transition or 'when' of a state that is entered leads to it, and no "
                                     "initial descent enters it");
  // The names the brain's states take, for the warning of an event sent with a misspelt name.
  for (const FsmState& st : p_.fsm_states)
    for (const FsmTransition& t : st.transitions) p_.fsm_events.push_back(t.name);
  std::sort(p_.fsm_events.begin(), p_.fsm_events.end());
  p_.fsm_events.erase(std::unique(p_.fsm_events.begin(), p_.fsm_events.end()), p_.fsm_events.end());
  subtrees_.pop_back();
}

}  // namespace thicket
