// The fluent fsm builder (SPEC 8, 4, 4.1): a chain of State()...End() calls becomes a tree of
// built states, the states become an `fsm:` brain's YAML, and the YAML goes through the
// ordinary loader, as TreeBuilder's trees do (builder.cpp).
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "builder_parts.hpp"
#include "thicket/builder.hpp"

namespace thicket {
using namespace builder;

// Named, not anonymous: FsmBuilder::Impl holds these, and in a unity build gcc warns of a field
// whose type has internal linkage (-Wsubobject-linkage).
namespace fsm_builder {

struct StateLeafCall {
  std::string leaf;
  Args args;
  bool negate = false;
};

// A transition guard, an enter_if or what a `when` entry tests: a check expression or a
// condition leaf; neither means none.
struct Guard {
  std::string check;
  std::optional<StateLeafCall> condition;
  bool empty() const { return check.empty() && !condition; }
};

struct Transition {
  std::string event, target;
  Guard guard;
  std::string call;
};

struct WhenEntry {
  std::optional<double> after;
  Guard guard;
  std::string target;
};

struct BuiltMachine {
  std::vector<MachineBehavior> behaviors;
  std::optional<double> check_every;
};

// One state being built; its fields mirror the keys of a state in the YAML.
struct BuiltState {
  std::string name;
  std::string call;  // the State() call that opened it, for messages
  std::string initial, initial_call;
  bool history = false, final = false;
  std::optional<Guard> enter_if;
  std::string enter_if_call;
  std::optional<StateLeafCall> enter, exit, reason;
  std::string enter_call, exit_call, reason_call;
  // The body: the call that gave it ("" = none), and one of these.
  std::string body_call;
  std::optional<StateLeafCall> act;
  std::optional<std::string> tree_name, machine_name;
  std::optional<BuiltNode> tree;
  std::optional<BuiltMachine> machine;
  std::vector<Transition> transitions;
  std::vector<WhenEntry> when;
  std::vector<BuiltState> children;
};

// ---- YAML text ----

void write_guard_keys(YAML::Emitter& out, const Guard& g) {
  if (!g.check.empty()) {
    out << YAML::Key << "check" << YAML::Value << YAML::DoubleQuoted << g.check;
  } else if (g.condition) {
    out << YAML::Key << "condition" << YAML::Value;
    write_leaf_call(out, g.condition->leaf, g.condition->args, g.condition->negate);
  }
}

void write_machine(YAML::Emitter& out, const BuiltMachine& m) {
  out << YAML::BeginMap;
  if (m.check_every) out << YAML::Key << "check_every" << YAML::Value << number_text(*m.check_every);
  out << YAML::Key << "behaviors" << YAML::Value << YAML::BeginSeq;
  for (const MachineBehavior& b : m.behaviors) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value;
    write_text(out, b.name);
    out << YAML::Key << "check" << YAML::Value;
    if (!b.check_expr.empty())
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "check" << YAML::Value << YAML::DoubleQuoted << b.check_expr
          << YAML::EndMap;
    else write_leaf_call(out, b.check, b.check_args);
    if (!b.tree.empty()) {
      out << YAML::Key << "tree" << YAML::Value;
      write_text(out, b.tree);
    } else {
      out << YAML::Key << "run" << YAML::Value;
      write_leaf_call(out, b.run, b.run_args);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

void write_state(YAML::Emitter& out, const BuiltState& s);

void write_states(YAML::Emitter& out, const std::vector<BuiltState>& states) {
  out << YAML::Key << "states" << YAML::Value << YAML::BeginMap;
  for (const BuiltState& s : states) {
    out << YAML::Key;
    write_text(out, s.name);
    out << YAML::Value;
    write_state(out, s);
  }
  out << YAML::EndMap;
}

// Keys in a fixed order: how the state is entered, its leaves, its body, where it goes, and
// its children last, so a composite reads top-down as the chain that built it.
void write_state(YAML::Emitter& out, const BuiltState& s) {
  const bool small = s.initial.empty() && !s.enter_if && !s.enter && !s.exit && !s.reason && !s.tree && !s.machine &&
                     s.transitions.empty() && s.when.empty() && s.children.empty();
  if (small) out << YAML::Flow;  // `fled: {final: true}`, `patrol: {act: Patrol}`, `idle: {}`
  out << YAML::BeginMap;
  if (!s.initial.empty()) {
    out << YAML::Key << "initial" << YAML::Value;
    write_text(out, s.initial);
  }
  if (s.history) out << YAML::Key << "history" << YAML::Value << "true";
  if (s.final) out << YAML::Key << "final" << YAML::Value << "true";
  if (s.enter_if) {
    out << YAML::Key << "enter_if" << YAML::Value << YAML::Flow << YAML::BeginMap;
    write_guard_keys(out, *s.enter_if);
    out << YAML::EndMap;
  }
  auto leaf_key = [&](const char* key, const std::optional<StateLeafCall>& c) {
    if (!c) return;
    out << YAML::Key << key << YAML::Value;
    write_leaf_call(out, c->leaf, c->args);
  };
  leaf_key("enter", s.enter);
  leaf_key("exit", s.exit);
  leaf_key("reason", s.reason);
  leaf_key("act", s.act);
  if (s.tree_name) {
    out << YAML::Key << "tree" << YAML::Value;
    write_text(out, *s.tree_name);
  } else if (s.tree) {
    out << YAML::Key << "tree" << YAML::Value;
    write_node(out, *s.tree);
  }
  if (s.machine_name) {
    out << YAML::Key << "machine" << YAML::Value;
    write_text(out, *s.machine_name);
  } else if (s.machine) {
    out << YAML::Key << "machine" << YAML::Value;
    write_machine(out, *s.machine);
  }
  if (!s.transitions.empty()) {
    out << YAML::Key << "transitions" << YAML::Value << YAML::BeginMap;
    for (const Transition& t : s.transitions) {
      out << YAML::Key;
      write_text(out, t.event);
      out << YAML::Value;
      if (t.guard.empty()) {
        write_text(out, t.target);
        continue;
      }
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "go" << YAML::Value;
      write_text(out, t.target);
      write_guard_keys(out, t.guard);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (!s.when.empty()) {
    out << YAML::Key << "when" << YAML::Value << YAML::BeginSeq;
    for (const WhenEntry& w : s.when) {
      out << YAML::Flow << YAML::BeginMap;
      if (w.after) out << YAML::Key << "after" << YAML::Value << number_text(*w.after);
      write_guard_keys(out, w.guard);
      out << YAML::Key << "go" << YAML::Value;
      write_text(out, w.target);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!s.children.empty()) write_states(out, s.children);
  out << YAML::EndMap;
}

std::string leaf_call_text(const char* method, const std::string& leaf) { return std::string(method) + "(" + quoted(leaf) + ")"; }

}  // namespace fsm_builder
using namespace fsm_builder;

struct FsmBuilder::Impl {
  std::string fsm;
  std::vector<std::string> leaves, imports;
  std::vector<BlackboardDecl> blackboard;
  std::string initial, initial_call;
  std::vector<std::pair<std::string, BuiltNode>> trees;       // Define()d trees, in order
  std::vector<std::pair<std::string, BuiltMachine>> machines;  // DefineMachine()d, in order
  std::vector<BuiltState> states;  // closed top-level states
  std::vector<BuiltState> open;    // open states, outermost first
  std::vector<std::string> names;  // every state name used, for uniqueness
  std::vector<std::string> errors;
  int calls = 0;
  std::string call;  // the current call, for messages

  void begin(std::string what) {
    ++calls;
    call = std::move(what);
  }

  void error(const std::string& message) {
    errors.push_back("call " + std::to_string(calls) + ", " + call + ": " + message);
  }

  // The innermost open state, or null (with an error) when none is open.
  BuiltState* state() {
    if (open.empty()) {
      error("no state is open; open one with State(name) first");
      return nullptr;
    }
    return &open.back();
  }

  void close() {
    BuiltState s = std::move(open.back());
    open.pop_back();
    (open.empty() ? states : open.back().children).push_back(std::move(s));
  }

  // A part a state has at most one of: `call` is the call that set it ("" = not yet).
  bool first(const BuiltState& s, const std::string& what, std::string& call_slot) {
    if (!call_slot.empty()) {
      error("state '" + s.name + "' already has " + what + " (" + call_slot + ")");
      return false;
    }
    call_slot = call;
    return true;
  }

  // A YAML mapping holds each key once: a state maps an event to one transition.
  void transition(BuiltState& s, const std::string& event, const std::string& target, Guard guard) {
    for (const Transition& t : s.transitions)
      if (t.event == event) {
        error("state '" + s.name + "' already maps '" + event + "' (" + t.call + ")");
        return;
      }
    s.transitions.push_back({event, target, std::move(guard), call});
  }

  bool body(BuiltState& s) {
    if (!s.body_call.empty()) {
      error("state '" + s.name + "' already has a body (" + s.body_call + "); a state runs one act, tree or machine");
      return false;
    }
    s.body_call = call;
    return true;
  }

  // A TreeBuilder's finished copy: its errors carried over, its Define()d trees into `trees:`.
  std::optional<BuiltNode> take_tree(const TreeBuilder& tree, const std::string& by) {
    TreeBuilder::State sub = tree.s_->finished(by);
    for (const auto& e : sub.errors) errors.push_back("in tree '" + sub.tree + "': " + e);
    for (auto& t : sub.trees) trees.push_back(std::move(t));
    return std::move(sub.root);
  }

  bool valid(const std::vector<MachineBehavior>& behaviors) {
    bool ok = true;
    if (behaviors.empty()) {
      error("a machine needs at least one behavior");
      ok = false;
    }
    for (size_t k = 0; k < behaviors.size(); ++k) {
      const MachineBehavior& b = behaviors[k];
      const std::string which = "behavior " + std::to_string(k) + (b.name.empty() ? "" : " ('" + b.name + "')");
      if (b.check.empty() == b.check_expr.empty()) {
        error(which + " needs one of check (a condition leaf) and check_expr (an expression)");
        ok = false;
      }
      if (b.run.empty() == b.tree.empty()) {
        error(which + " needs one of run (a leaf) and tree");
        ok = false;
      }
    }
    return ok;
  }

  // Every error Load() reports: the recorded misuse, then what leaves the brain unfinished.
  std::vector<std::string> load_errors() const {
    std::vector<std::string> out = errors;
    for (auto s = open.rbegin(); s != open.rend(); ++s)
      out.push_back("state '" + s->name + "' (" + s->call + ") is still open: close it with End() before Load()");
    if (states.empty() && open.empty()) out.push_back("the fsm has no states: add one with State(name)");
    return out;
  }

  std::string yaml() const {
    Impl closed = *this;
    while (!closed.open.empty()) closed.close();
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "fsm" << YAML::Value;
    write_text(out, fsm);
    write_list(out, "leaves", leaves);
    write_list(out, "import", imports);
    write_blackboard(out, blackboard);
    if (!initial.empty()) {
      out << YAML::Key << "initial" << YAML::Value;
      write_text(out, initial);
    }
    if (!closed.states.empty()) write_states(out, closed.states);
    if (!trees.empty()) {
      out << YAML::Key << "trees" << YAML::Value << YAML::BeginMap;
      for (const auto& [name, node] : trees) {
        out << YAML::Key;
        write_text(out, name);
        out << YAML::Value;
        write_node(out, node);
      }
      out << YAML::EndMap;
    }
    if (!machines.empty()) {
      out << YAML::Key << "machines" << YAML::Value << YAML::BeginMap;
      for (const auto& [name, m] : machines) {
        out << YAML::Key;
        write_text(out, name);
        out << YAML::Value;
        write_machine(out, m);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
  }
};

FsmBuilder::FsmBuilder(std::string fsm_name) : s_(std::make_unique<Impl>()) { s_->fsm = std::move(fsm_name); }
FsmBuilder::~FsmBuilder() = default;
FsmBuilder::FsmBuilder(const FsmBuilder& other) : s_(std::make_unique<Impl>(*other.s_)) {}
FsmBuilder& FsmBuilder::operator=(const FsmBuilder& other) {
  if (this != &other) s_ = std::make_unique<Impl>(*other.s_);
  return *this;
}
FsmBuilder::FsmBuilder(FsmBuilder&&) noexcept = default;
FsmBuilder& FsmBuilder::operator=(FsmBuilder&&) noexcept = default;

// ---- Settings ----

FsmBuilder& FsmBuilder::Leaves(const std::vector<std::string>& files) {
  s_->begin("Leaves()");
  s_->leaves.insert(s_->leaves.end(), files.begin(), files.end());
  return *this;
}

FsmBuilder& FsmBuilder::Import(const std::vector<std::string>& files) {
  s_->begin("Import()");
  s_->imports.insert(s_->imports.end(), files.begin(), files.end());
  return *this;
}

FsmBuilder& FsmBuilder::Blackboard(const std::string& key, const Value& default_value) {
  s_->begin("Blackboard(" + quoted(key) + ")");
  for (const auto& d : s_->blackboard)
    if (d.key == key) {
      s_->error("blackboard key '" + key + "' is declared twice");
      return *this;
    }
  s_->blackboard.push_back({key, std::nullopt, default_value});
  return *this;
}

FsmBuilder& FsmBuilder::Blackboard(const std::string& key, ValueType type, const Value& default_value) {
  s_->begin("Blackboard(" + quoted(key) + ")");
  for (const auto& d : s_->blackboard)
    if (d.key == key) {
      s_->error("blackboard key '" + key + "' is declared twice");
      return *this;
    }
  s_->blackboard.push_back({key, type, default_value});
  return *this;
}

FsmBuilder& FsmBuilder::Define(const TreeBuilder& tree) {
  s_->begin("Define(" + quoted(tree.s_->tree) + ")");
  const size_t at = s_->trees.size();  // the root first, then the trees it defines, as TreeBuilder::Define
  if (auto root = s_->take_tree(tree, "Define()"))
    s_->trees.emplace(s_->trees.begin() + static_cast<std::ptrdiff_t>(at), tree.s_->tree, std::move(*root));
  return *this;
}

FsmBuilder& FsmBuilder::DefineMachine(const std::string& name, const std::vector<MachineBehavior>& behaviors,
                                      std::optional<double> check_every) {
  s_->begin("DefineMachine(" + quoted(name) + ")");
  for (const auto& [defined, m] : s_->machines)
    if (defined == name) {
      s_->error("machine '" + name + "' is defined twice");
      return *this;
    }
  if (s_->valid(behaviors)) s_->machines.emplace_back(name, BuiltMachine{behaviors, check_every});
  return *this;
}

// ---- States ----

FsmBuilder* FsmBuilder::State(const std::string& name) {
  s_->begin("State(" + quoted(name) + ")");
  if (name.empty()) s_->error("a state needs a name");
  else if (std::find(s_->names.begin(), s_->names.end(), name) != s_->names.end())
    s_->error("state '" + name + "' is already defined: state names are unique in the whole brain");
  else s_->names.push_back(name);
  // Opened even after an error, so the End() that closes it pairs up and adds no error of its own.
  BuiltState s;
  s.name = name;
  s.call = s_->call;
  s_->open.push_back(std::move(s));
  return this;
}

FsmBuilder* FsmBuilder::End() {
  s_->begin("End()");
  if (s_->open.empty()) s_->error("no state is open");
  else s_->close();
  return this;
}

FsmBuilder* FsmBuilder::Initial(const std::string& state) {
  s_->begin("Initial(" + quoted(state) + ")");
  if (s_->open.empty()) {
    if (!s_->initial_call.empty()) s_->error("the brain already has an initial state (" + s_->initial_call + ")");
    else {
      s_->initial = state;
      s_->initial_call = s_->call;
    }
    return this;
  }
  BuiltState& s = s_->open.back();
  if (s_->first(s, "an initial child", s.initial_call)) s.initial = state;
  return this;
}

FsmBuilder* FsmBuilder::History(bool on) {
  s_->begin(on ? "History()" : "History(false)");
  if (BuiltState* s = s_->state()) s->history = on;
  return this;
}

FsmBuilder* FsmBuilder::Final(bool on) {
  s_->begin(on ? "Final()" : "Final(false)");
  if (BuiltState* s = s_->state()) s->final = on;
  return this;
}

FsmBuilder* FsmBuilder::EnterIf(const std::string& check) {
  s_->begin("EnterIf(" + quoted(check) + ")");
  BuiltState* s = s_->state();
  if (s && s_->first(*s, "an enter_if", s->enter_if_call)) s->enter_if = Guard{check, std::nullopt};
  return this;
}

FsmBuilder* FsmBuilder::EnterIfCondition(const std::string& leaf, const Args& args, bool negate) {
  s_->begin(leaf_call_text("EnterIfCondition", leaf));
  BuiltState* s = s_->state();
  if (s && s_->first(*s, "an enter_if", s->enter_if_call)) s->enter_if = Guard{"", StateLeafCall{leaf, args, negate}};
  return this;
}

// ---- Leaves and the body ----

FsmBuilder* FsmBuilder::Enter(const std::string& leaf, const Args& args) {
  s_->begin(leaf_call_text("Enter", leaf));
  BuiltState* s = s_->state();
  if (s && s_->first(*s, "an enter leaf", s->enter_call)) s->enter = StateLeafCall{leaf, args};
  return this;
}

FsmBuilder* FsmBuilder::Exit(const std::string& leaf, const Args& args) {
  s_->begin(leaf_call_text("Exit", leaf));
  BuiltState* s = s_->state();
  if (s && s_->first(*s, "an exit leaf", s->exit_call)) s->exit = StateLeafCall{leaf, args};
  return this;
}

FsmBuilder* FsmBuilder::Reason(const std::string& leaf, const Args& args) {
  s_->begin(leaf_call_text("Reason", leaf));
  BuiltState* s = s_->state();
  if (s && s_->first(*s, "a reason leaf", s->reason_call)) s->reason = StateLeafCall{leaf, args};
  return this;
}

FsmBuilder* FsmBuilder::Act(const std::string& leaf, const Args& args) {
  s_->begin(leaf_call_text("Act", leaf));
  BuiltState* s = s_->state();
  if (s && s_->body(*s)) s->act = StateLeafCall{leaf, args};
  return this;
}

FsmBuilder* FsmBuilder::Tree(const std::string& tree) {
  s_->begin("Tree(" + quoted(tree) + ")");
  BuiltState* s = s_->state();
  if (s && s_->body(*s)) s->tree_name = tree;
  return this;
}

FsmBuilder* FsmBuilder::Tree(const TreeBuilder& tree) {
  s_->begin("Tree(TreeBuilder " + quoted(tree.s_->tree) + ")");
  if (s_->open.empty()) {
    s_->error("no state is open; open one with State(name) first");
    return this;
  }
  // take_tree may add to `trees`, never to `open`: the state stays where it is.
  std::optional<BuiltNode> root = s_->take_tree(tree, s_->call);
  BuiltState& s = s_->open.back();
  if (s_->body(s) && root) s.tree = std::move(*root);
  return this;
}

FsmBuilder* FsmBuilder::Machine(const std::string& machine) {
  s_->begin("Machine(" + quoted(machine) + ")");
  BuiltState* s = s_->state();
  if (s && s_->body(*s)) s->machine_name = machine;
  return this;
}

FsmBuilder* FsmBuilder::Machine(const std::vector<MachineBehavior>& behaviors, std::optional<double> check_every) {
  s_->begin("Machine(" + std::to_string(behaviors.size()) + " behaviors)");
  BuiltState* s = s_->state();
  if (s && s_->valid(behaviors) && s_->body(*s)) s->machine = BuiltMachine{behaviors, check_every};
  return this;
}

// ---- Transitions ----

FsmBuilder* FsmBuilder::On(const std::string& event, const std::string& target, const std::string& check) {
  s_->begin("On(" + quoted(event) + ", " + quoted(target) + (check.empty() ? "" : ", " + quoted(check)) + ")");
  if (BuiltState* s = s_->state()) s_->transition(*s, event, target, Guard{check, std::nullopt});
  return this;
}

FsmBuilder* FsmBuilder::OnCondition(const std::string& event, const std::string& target, const std::string& leaf,
                                    const Args& args, bool negate) {
  s_->begin("OnCondition(" + quoted(event) + ", " + quoted(target) + ", " + quoted(leaf) + ")");
  if (BuiltState* s = s_->state()) s_->transition(*s, event, target, Guard{"", StateLeafCall{leaf, args, negate}});
  return this;
}

FsmBuilder* FsmBuilder::When(const std::string& check, const std::string& target) {
  s_->begin("When(" + quoted(check) + ", " + quoted(target) + ")");
  if (BuiltState* s = s_->state()) s->when.push_back({std::nullopt, Guard{check, std::nullopt}, target});
  return this;
}

FsmBuilder* FsmBuilder::WhenCondition(const std::string& leaf, const std::string& target, const Args& args, bool negate) {
  s_->begin("WhenCondition(" + quoted(leaf) + ", " + quoted(target) + ")");
  if (BuiltState* s = s_->state()) s->when.push_back({std::nullopt, Guard{"", StateLeafCall{leaf, args, negate}}, target});
  return this;
}

FsmBuilder* FsmBuilder::After(double seconds, const std::string& target, const std::string& check) {
  s_->begin("After(" + number_text(seconds) + ", " + quoted(target) + (check.empty() ? "" : ", " + quoted(check)) + ")");
  if (BuiltState* s = s_->state()) s->when.push_back({seconds, Guard{check, std::nullopt}, target});
  return this;
}

FsmBuilder* FsmBuilder::AfterCondition(double seconds, const std::string& target, const std::string& leaf,
                                       const Args& args, bool negate) {
  s_->begin("AfterCondition(" + number_text(seconds) + ", " + quoted(target) + ", " + quoted(leaf) + ")");
  if (BuiltState* s = s_->state()) s->when.push_back({seconds, Guard{"", StateLeafCall{leaf, args, negate}}, target});
  return this;
}

// ---- Results ----

std::string FsmBuilder::Yaml() const { return s_->yaml(); }

const std::vector<std::string>& FsmBuilder::Errors() const { return s_->errors; }

std::optional<BrainHandle> FsmBuilder::Load(Runtime& rt, std::vector<Diagnostic>& diagnostics, const std::string& name) const {
  const std::string file = name.empty() ? s_->fsm + ".yaml" : name;
  const std::vector<std::string> errors = s_->load_errors();
  if (!errors.empty()) {
    for (const auto& e : errors) diagnostics.push_back({Severity::Error, file, 0, 0, "builder: " + e});
    return std::nullopt;
  }
  return rt.load_string(s_->yaml(), file, diagnostics);
}

}  // namespace thicket
