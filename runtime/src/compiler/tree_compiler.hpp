// The tree compiler's inside, shared by the files that define it: one class, its member
// functions defined across
//   compiler.cpp             the driver: node dispatch, emit, the readers every family uses,
//                            the passes after emission and the compile_* entry points;
//   compile_composites.cpp   sequence, selector, parallel, monitor, filter, random_*;
//   compile_decorators.cpp   invert, repeat, limit, timeout, cooldown, log, ...;
//   compile_leaves.cpp       action, condition, wait and check expressions;
//   compile_subtree.cpp      subtree references;
//   compile_imported.cpp     the bt_* and b3_* kinds of imported trees;
//   compile_fsm.cpp          an fsm brain's states;
//   compile_machine.cpp      a machine brain's behaviors.
// Not part of the stage's interface: that is compiler.hpp.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler.hpp"

namespace thicket {

constexpr uint32_t kNone = 0xFFFFFFFF;

// Names a tree may use as a node's kind, "subtree" included (made once: every node's
// compile looks its keys up here).
const std::vector<std::string>& all_kind_names();
// Whether `k` takes an `abort` parameter (sequence, selector, filter and random_*).
bool takes_abort(NodeKind k);
// Parameters each kind accepts in its parameter mapping.
std::vector<std::string> params_of(NodeKind k);
// The same for the bt_* and b3_* kinds (compile_imported.cpp); empty for the others.
std::vector<std::string> imported_params_of(NodeKind k);
// Structure rules of imported kinds across nodes (b3_* only under b3_tree, child counts).
void check_imported(Program& p, const std::vector<std::string>& files, std::vector<Diagnostic>& diags);
// Compiles BT.CPP's Sequence, Fallback (neither async), ReactiveFallback, ReactiveSequence,
// Inverter, ForceSuccess, ForceFailure and SubTree, with a child or more, whose children are all
// leaves (action, condition, check, always success or failure, Script) or nodes lowered
// likewise, as thicket's sequence, selector, active_selector, active_selector with success and
// failure exchanged (a = 1), invert, force_success, force_failure and a one-child filter,
// flagged kLowered: in such a subtree the two make the same leaf calls, halts and results, and
// thicket's kinds take the engine's fast walks.
void lower_imported(Program& p);

class TreeCompiler {
 public:
  // The leaves' and trees' names, for did-you-means: made once per brain and shared by the
  // compilers of its unused trees (each made its own copy: a file of 20,000 unused trees copied
  // 20,000 names 20,000 times).
  struct Names {
    std::vector<std::string> leaves, trees;
  };
  TreeCompiler(const BrainSource& src, const LeafNames& leaves, StringTable& strings,
               std::vector<Diagnostic>& diags, Program& p, std::shared_ptr<const Names> names = nullptr)
      : src_(src), leaves_(leaves), strings_(strings), diags_(diags), p_(p),
        names_(names ? std::move(names) : make_names(src, leaves)) {
    for (const auto& key : src.blackboard) expr_keys_.push_back({key.name, key.type, static_cast<uint32_t>(expr_keys_.size()), key.broken});
  }
  TreeCompiler(const TreeCompiler&) = delete;  // leaf_names_ and tree_names_ refer into names_
  TreeCompiler& operator=(const TreeCompiler&) = delete;
  const std::shared_ptr<const Names>& names() const { return names_; }
  // What one load may compile in all, shared by the brain's compiler and those of its unused
  // trees and machines (each of which compiles its subtrees once per use again): nodes, and the
  // bytes of leaf args and check expressions, each use of a subtree counting its own copy.
  // Apart, 300,000 unused trees each using a 512-node subtree would have compiled for days,
  // and a 1 MB arg in a subtree used 1,024 times took 2 GB.
  struct Budget {
    static constexpr uint64_t kMaxNodes = 200000;
    // Args are copied (cheap); checks are compiled, ~30 ns a byte and ten times that for a
    // check of 100 KB (a brain file holds at most 16 MB of them without subtrees).
    static constexpr size_t kMaxArgBytes = size_t(64) << 20, kMaxCheckBytes = size_t(16) << 20;
    uint64_t nodes = 0;
    size_t arg_bytes = 0, check_bytes = 0;
    bool nodes_passed = false, bytes_passed = false;
  };
  void share_budget(Budget& budget) { budget_ = &budget; }

  void compile(const YAML::Node& root, uint32_t file, const std::string& tree_name);
  void machine(const YAML::Node& doc, const std::string& machine_name);  // compile_machine.cpp
  void fsm(const YAML::Node& doc, const std::string& fsm_name);          // compile_fsm.cpp
  // An fsm's machine under `machines:` that no state uses, compiled for its errors only.
  void unused_machine(const YAML::Node& body, const std::string& machine_name);  // compile_fsm.cpp
  // "a number", "text", ... : how messages name a declared arg type (call_args_errors too).
  static std::string arg_type_phrase(const std::string& type);
  static std::string unknown_arg_message(const std::string& leaf, const std::string& key, const std::vector<std::string>& names);
  static std::string missing_arg_message(const std::string& leaf, const LeafArgSpec& spec);
  static std::string wrong_arg_message(const std::string& leaf, const LeafArgSpec& spec, const std::string& got);

 private:
  SourceRef ref() const { return SourceRef{src_, file_, diags_}; }
  void error(const YAML::Node& at, const std::string& msg) { ref().error(at, msg); }
  void warning(const YAML::Node& at, const std::string& msg) { ref().warning(at, msg); }

  // compiler.cpp
  uint32_t node(const YAML::Node& n, const std::string& path, const std::string& name_prefix);
  uint32_t node_at_depth(const YAML::Node& n, const std::string& path, const std::string& name_prefix);
  uint32_t emit(NodeKind kind, const YAML::Node& at, const std::string& path, const std::string& name,
                const std::string& label);
  void check_params(NodeKind kind, const YAML::Node& params, const std::string& kind_name);
  // Whether the mapping has a key that is a misspelling of `wanted` (the unknown-parameter error
  // says "did you mean 'wanted'?"): "needs 'wanted'" would say the same mistake twice.
  static bool misspelt(const YAML::Node& params, const std::string& wanted);
  // The value under the key that misspells `wanted` (undefined when none does): the nodes under
  // a misspelt 'children' or 'child' are compiled for their errors too (the load fails anyway),
  // so that all of a file's errors are said at once.
  static YAML::Node misspelt_value(const YAML::Node& params, const std::string& wanted);
  // A node's `name:` (with the subtree's prefix), or "" for none; path: its id without a name.
  std::string read_name(const YAML::Node& params, const std::string& prefix, const std::string& path);
  std::optional<double> read_seconds(const YAML::Node& s, const std::string& what);
  void children_of(const YAML::Node& list, const std::string& path, const std::string& prefix,
                   std::vector<uint32_t>& out, const std::string& what, size_t index_base);
  void finish_children(uint32_t index, const std::vector<uint32_t>& children);

  // compile_composites.cpp
  uint32_t composite(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix);
  AbortMode read_abort(const YAML::Node& params);
  uint32_t threshold(const YAML::Node& t, const std::string& what, size_t count, uint32_t fallback);
  void read_weights(const YAML::Node& w, size_t count);

  // compile_decorators.cpp
  uint32_t decorator(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix);
  uint32_t add_message(const std::string& m);
  void decorator_params(NodeKind kind, const YAML::Node& v, uint32_t index, const std::string& kind_name);
  std::optional<uint32_t> read_times(const YAML::Node& t);

  // compile_leaves.cpp
  bool resolve_leaf(const YAML::Node& at, const std::string& name, bool is_condition);
  uint32_t leaf(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix);
  // What leaf()'s messages call the node when it is not written as one (an fsm state's
  // 'enter', 'exit', 'reason'): set around the call; "" names the node by its kind.
  std::string leaf_shown_as_;
  void check_args(const std::string& leaf_name, const YAML::Node& at, const YAML::Node& args);
  static size_t arg_bytes(const ArgValue& v);
  void args_keys(const YAML::Node& value);  // keys of mappings in args that have no text: errors
  static bool arg_fits(const YAML::Node& v, const std::string& type);
  static std::string shown_arg(const YAML::Node& v);
  // `what`: what messages call it ("'check'", or the key it stands for, e.g. "'enter_if'").
  uint32_t check(const YAML::Node& e, const std::string& path, const std::string& name, bool negate,
                 const std::string& what = "'check'");
  // A check expression into Program::exprs (or, with `want`, an expression of that type; with
  // begin/size, the part of the scalar that holds it: its errors point into the scalar).
  uint32_t expr_of(const YAML::Node& e, const std::string& what, ValueType want = ValueType::Boolean, size_t begin = 0,
                   size_t size = std::string::npos);
  // A bt_script's code (`key = expression; ...`) into Program::scripts; kNoNode after an error.
  uint32_t script_of(const YAML::Node& e, const std::string& what);
  void error_in_scalar(const YAML::Node& e, size_t column, const std::string& msg);

  // compile_imported.cpp: the kinds of BT.CPP and behavior3 trees (SPEC 13)
  void imported_params(NodeKind kind, const YAML::Node& params, uint32_t index);
  uint32_t imported_leaf(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix);
  std::optional<int64_t> read_int(const YAML::Node& v, const char* what, int64_t lo, int64_t hi);

  // compile_machine.cpp
  uint32_t machine_node(const YAML::Node& doc, const YAML::Node& at, const std::string& path, const std::string& prefix,
                        const std::string& label);

  // compile_fsm.cpp
  void machine_keys(const YAML::Node& body);
  void fsm_outline(const YAML::Node& states, uint16_t parent, uint16_t depth, std::map<std::string, YAML::Node>& where);
  uint16_t fsm_target(const YAML::Node& at, const std::string& what);
  uint16_t fsm_initial(const YAML::Node& at, uint16_t parent);
  uint32_t fsm_guard(const YAML::Node& g, const std::string& path, const std::string& what);
  void fsm_state(uint16_t index);
  uint32_t fsm_machine(const YAML::Node& v, const std::string& state);
  std::vector<YAML::Node> fsm_yaml_, fsm_key_;  // each state's mapping and its name, by state index
  std::map<std::string, uint16_t> fsm_index_;   // state name -> index
  std::set<uint16_t> fsm_duplicates_;           // states named as one before (an error): checked, never a target
  bool quiet_ids_ = false;                      // compiling such a state: its node ids repeat the first's
  std::vector<std::string> fsm_names_;          // the states' names, for did-you-means (fsm_target)
  // Targets and initials that named no state (errors): the state they were written in (kNoPos:
  // the brain's `initial`) and the state their did-you-mean names (kNoPos: none, so any state may
  // have been meant; an `initial` naming a state that is not a child: each child). The
  // unreachable-state warnings reach these, so that they do not follow from a misspelt name.
  struct FsmGuess {
    uint16_t from, guess;
    bool initial;
  };
  std::vector<FsmGuess> fsm_guesses_;
  uint16_t fsm_current_ = 0xFFFF;  // the state fsm_state is reading (kNoPos: none)
  size_t fsm_names_of_ = static_cast<size_t>(-1);  // the number of states fsm_names_ was made of

  // compile_subtree.cpp
  uint32_t subtree(const YAML::Node& v, const std::string& path, const std::string& prefix);

  const BrainSource& src_;
  const LeafNames& leaves_;
  StringTable& strings_;
  std::vector<Diagnostic>& diags_;
  Program& p_;
  uint32_t file_ = 0;
  std::vector<std::string> subtrees_;
  std::shared_ptr<const Names> names_;
  const std::vector<std::string>& leaf_names_ = names_->leaves;
  const std::vector<std::string>& tree_names_ = names_->trees;
  static std::shared_ptr<const Names> make_names(const BrainSource& src, const LeafNames& leaves) {
    auto names = std::make_shared<Names>();
    // (on_reload is a leaf file's hook for hot reload, not a leaf to suggest or list.)
    for (const auto& [name, shape] : leaves)
      if (name != "on_reload") names->leaves.push_back(name);
    for (const auto& [name, t] : src.trees) names->trees.push_back(name);
    return names;
  }
  std::vector<ExprKey> expr_keys_;
  std::map<std::string, uint32_t> ids_;
  int depth_ = 0;
  bool too_deep_ = false, too_many_nodes_ = false;
  Budget own_budget_;
  Budget* budget_ = &own_budget_;
  // Adds bytes of args (check: false) or of a check at `at` to the budget: false once either
  // has passed (said once).
  bool within_bytes(const YAML::Node& at, size_t bytes, bool check);

 public:
  std::set<std::string> used_trees_;     // trees a subtree node compiled in (found or cycling)
  std::set<std::string> used_machines_;  // an fsm's machines under `machines:` that a state named
  std::set<std::string> yaml11_misused_;  // keys with a yes/no default that a check used as true/false
  // Each composite that has an `abort`: its node, file and the `abort` value (said again by
  // warn_idle_aborts once the program is whole).
  struct AbortSite {
    uint32_t node, file;
    YAML::Node at;
  };
  std::vector<AbortSite> aborts_;
  // Warns of each abort that can do nothing (SPEC 3.5): a composite that observes no condition,
  // or a lower_priority that has no later sibling under a sequence, selector, filter or random
  // composite to abort. `idle`: the composites compute_observed found observing nothing.
  void warn_idle_aborts(const std::vector<bool>& idle);

 private:
  // compile_leaves.cpp
  static bool mentions(const std::string& expr, const std::string& name);
  static std::string yaml11_meaning(const std::string& text);
};

}  // namespace thicket
