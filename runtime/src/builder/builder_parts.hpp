// The pieces the fluent builders share (builder.cpp, builder_fsm.cpp): the node tree a
// TreeBuilder chain makes, the YAML writers for it and for leaf calls and blackboard keys, and
// TreeBuilder's state, which FsmBuilder reads to take a tree inline or into `trees:`.
#pragma once
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "thicket/builder.hpp"

namespace thicket {
namespace builder {

enum class Form : uint8_t { Composite, Decorator, Leaf };

// One node of the tree being built; its fields mirror the YAML parameters of its kind.
struct BuiltNode {
  std::string kind;  // the YAML kind; a check is "check" here and `condition: {check: ...}` in YAML
  Form shape = Form::Leaf;
  std::string name;
  Abort abort = Abort::None;
  Threshold success = Policy::All, failure = Policy::One;
  std::vector<double> weights;
  std::optional<int64_t> times;
  std::optional<double> seconds;
  std::string text;  // leaf name, check expression, subtree name or log message
  Args args;
  bool negate = false;
  std::vector<BuiltNode> children;
  bool in_do = false;         // filter: children now go to `do:`
  size_t conditions = 0;      // filter: how many children are `conditions:` (set by Do())
  std::string call;           // the call that made it, for messages
};

struct BlackboardDecl {
  std::string key;
  std::optional<ValueType> type;  // empty: follows the default's C++ type
  Value default_value;
};

const char* abort_name(Abort a);
std::string quoted(const std::string& s);
// Text that the loader would read as a number, true/false or null is written quoted.
void write_text(YAML::Emitter& out, const std::string& s);
// A double keeps a fraction or exponent (10.0), so it stays a float.
std::string number_text(double v);
void write_value(YAML::Emitter& out, const Value& v);
// `args: {...}` inside an open mapping (nothing when empty).
void write_args(YAML::Emitter& out, const Args& args);
// A leaf as a state or a condition names it: `Name`, or `{leaf: Name, negate: true, args: {...}}`.
void write_leaf_call(YAML::Emitter& out, const std::string& leaf, const Args& args, bool negate = false);
void write_node(YAML::Emitter& out, const BuiltNode& n);
void write_blackboard(YAML::Emitter& out, const std::vector<BlackboardDecl>& keys);
// `key: [a, b]` inside an open mapping (nothing when empty).
void write_list(YAML::Emitter& out, const char* key, const std::vector<std::string>& items);

}  // namespace builder

struct TreeBuilder::State {
  using BuiltNode = builder::BuiltNode;
  using BlackboardDecl = builder::BlackboardDecl;
  using Form = builder::Form;
  std::string tree;
  std::vector<std::string> leaves, imports;
  std::vector<BlackboardDecl> blackboard;
  std::vector<std::pair<std::string, BuiltNode>> trees;  // Define()d subtrees, in order
  std::vector<BuiltNode> open;                           // open composites and childless decorators
  std::optional<BuiltNode> root;
  std::optional<std::string> pending_name;
  std::vector<std::string> errors;
  int calls = 0;
  std::string call;  // the current call, for messages
  bool ended = false;

  // Starts a call; false when it must be ignored (after End()).
  bool begin(std::string what, bool is_node = true) {
    ++calls;
    call = std::move(what);
    if (ended && is_node) {
      error("the tree is finished: End() was already called");
      return false;
    }
    return true;
  }

  void error(const std::string& message) {
    errors.push_back("call " + std::to_string(calls) + ", " + call + ": " + message);
  }

  // A node made by the current call: named from Named(), then opened or completed.
  void add(BuiltNode n) {
    n.call = call;
    if (pending_name) {
      n.name = *pending_name;
      pending_name.reset();
    }
    if (open.empty() && root) {
      error("the tree already has its root (" + root->call +
            "); to hold several nodes, open a composite such as Sequence() first");
      return;
    }
    if (n.shape == Form::Leaf) complete(std::move(n));
    else open.push_back(std::move(n));
  }

  // A finished node goes to the innermost open node; a decorator that receives its child is
  // finished in turn and goes one level up.
  void complete(BuiltNode n) {
    for (;;) {
      if (open.empty()) {
        root = std::move(n);
        return;
      }
      BuiltNode& parent = open.back();
      parent.children.push_back(std::move(n));
      if (parent.shape == Form::Composite) return;
      n = std::move(parent);
      open.pop_back();
    }
  }

  void close_composite() {
    BuiltNode n = std::move(open.back());
    open.pop_back();
    if (n.children.empty())
      error(n.call + " has no children" +
            (n.kind == "filter" ? " (a filter needs a node in its conditions or after Do())" : "; a composite needs at least one"));
    complete(std::move(n));
  }

  void finish() {
    if (pending_name) {
      error("Named(\"" + *pending_name + "\") has no node after it");
      pending_name.reset();
    }
    while (!open.empty()) {
      if (open.back().shape == Form::Decorator) {
        error(open.back().call + " has no child; a decorator takes the next node as its child");
        open.pop_back();
      } else {
        close_composite();
      }
    }
    if (!root) error("the tree is empty: add a root node before End()");
    ended = true;
  }

  // A copy closed as End() would close it; `by` names the call that implies End(), for messages.
  State finished(const std::string& by) const {
    State s = *this;
    if (!s.ended && s.begin("End() implied by " + by)) s.finish();
    return s;
  }

  std::string yaml() const;  // builder.cpp
};

}  // namespace thicket
