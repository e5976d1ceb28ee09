// Fluent builders (SPEC 8): TreeBuilder for behavior trees and FsmBuilder (below) for state
// machines, flat or hierarchical.
//
// A fluent builder for behavior trees (SPEC 8), in the style of the guard tree's BehaviorTreeBuilder design:
//
//   thicket::TreeBuilder b("guard");
//   b.Blackboard("health", 100.0);
//   b.ActiveSelector()
//      ->Sequence(thicket::Abort::LowerPriority)->Condition("SeesEnemy")->Action("Attack", {{"damage", 12}})->Back()
//      ->Action("Patrol")
//    ->End();
//   auto brain = b.Load(rt, diagnostics, "guard.yaml");
//
// The builder writes the brain as YAML (Yaml()) and Load() hands that text to the ordinary
// loader, so a built tree compiles to exactly the node array of the equivalent YAML file: one
// compiler, one set of checks, the same `thicket dump`.
//
// Shape of a chain:
//   - a composite (Sequence, Selector, ...) opens: the nodes that follow are its children until
//     Back() closes it;
//   - a decorator (Invert, Repeat, ...) takes the next node as its child and closes itself once
//     that child is complete (a leaf at once; a composite at its Back());
//   - a leaf (Action, Condition, Check, Wait, Subtree) is complete at once;
//   - End() closes every composite still open and finishes the tree.
// The first complete node is the root; a second top-level node is a misuse.
//
// Node methods return `this` so they chain with `->` as in the seed; settings (Leaves,
// Blackboard, Import, Define) return `*this`.
//
// Misuse (Back() with nothing open, a decorator without a child at End(), End() twice, a node
// after the root is complete, Do() outside a filter, Named() with no node after it, an empty
// composite) is never thrown: the builder records an error naming the call ("call 7, Back(): ...")
// and Load() returns the errors as diagnostics (file = the name given to Load, no line) without
// loading anything. Errors in values (an unknown leaf, a bad check expression, negative seconds,
// times < 1, an undeclared blackboard key, a subtree cycle) are the loader's: Load() returns them
// as it would for a file, with line:col pointing into Yaml().
//
// Units: seconds of sim time. Limits: those of the loader (runtime.hpp): up to 65,534 children
// per composite, 100,000 nodes per brain, and the 250,000 YAML nodes of a file (each leaf a
// few: a built tree passes that first, near 80,000 leaves). Leaf arguments are scalars (a number, an
// integer, true/false, text, or nil); list and map arguments need a YAML file.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/export.hpp"
#include "thicket/runtime.hpp"
#include "thicket/value.hpp"

namespace thicket {

// Conditional aborts of sequence, selector, filter and random composites (SPEC 3.5).
enum class Abort : uint8_t { None, Self, LowerPriority, Both };

// A parallel's success or failure threshold: Policy::One, Policy::All or a number N of children
// (1 <= N <= the number of children; checked by the loader).
enum class Policy : uint8_t { One, All };
struct Threshold {
  constexpr Threshold(Policy p) : policy(p) {}               // NOLINT: implicit on purpose
  constexpr Threshold(int n) : count(n) {}                   // NOLINT: implicit on purpose
  std::optional<Policy> policy;  // set for one / all
  int64_t count = 0;             // N when policy is empty
};

// A leaf's arguments: name -> scalar, in order. {{"damage", 12}} passes the integer 12,
// {{"radius", 10.0}} the number 10.0, {{"mode", "calm"}} text, {{"loud", true}} a boolean.
using Args = std::vector<std::pair<std::string, Value>>;

class THICKET_API TreeBuilder {
 public:
  // `tree_name` is the brain's name (`tree: NAME`) and, when this builder is passed to another's
  // Define(), the name its Subtree() calls use.
  explicit TreeBuilder(std::string tree_name);
  ~TreeBuilder();
  TreeBuilder(const TreeBuilder& other);
  TreeBuilder& operator=(const TreeBuilder& other);
  TreeBuilder(TreeBuilder&&) noexcept;
  TreeBuilder& operator=(TreeBuilder&&) noexcept;

  // ---- Settings (the top level of the brain file) ----
  // Lua leaf files (`leaves:`); relative paths resolve against the folder of Load's `name`.
  TreeBuilder& Leaves(const std::vector<std::string>& files);
  // Brain files whose trees become subtrees (`import:`); paths resolve as for Leaves.
  TreeBuilder& Import(const std::vector<std::string>& files);
  // Declares a blackboard key (SPEC 6) whose type follows the default's C++ type:
  // double -> number, int64_t (any integer literal) -> integer, bool -> boolean,
  // text -> string, Value{} (nil) -> any. Write 100.0, not 100, for a number key.
  // Keys are kept in declaration order; declaring a key twice is a misuse.
  TreeBuilder& Blackboard(const std::string& key, const Value& default_value);
  // Declares a key with an explicit type; the default, if given, must fit it (checked by the loader).
  TreeBuilder& Blackboard(const std::string& key, ValueType type, const Value& default_value = {});
  // Adds `tree`'s root (and the trees it defines) to this brain's `trees:`, so Subtree(tree's name)
  // can use it. Only the root travels: declare leaves and blackboard keys on this builder.
  // `tree`'s misuse errors are carried over.
  TreeBuilder& Define(const TreeBuilder& tree);

  // ---- Naming ----
  // Names the next node (its id in traces, running_nodes and hot reload; SPEC 3).
  TreeBuilder* Named(const std::string& name);

  // ---- Composites (open until Back() or End()) ----
  TreeBuilder* Sequence(Abort abort = Abort::None);
  TreeBuilder* Selector(Abort abort = Abort::None);
  TreeBuilder* ActiveSelector();
  // success: all and failure: one by default, as in the loader.
  TreeBuilder* Parallel(Threshold success = Policy::All, Threshold failure = Policy::One);
  TreeBuilder* Monitor();
  // The nodes that follow go to `conditions:` until Do(), then to `do:`.
  TreeBuilder* Filter(Abort abort = Abort::None);
  TreeBuilder* Do();
  // `weights`: one number > 0 per child, in child order; empty = equal weights.
  TreeBuilder* RandomSelector(const std::vector<double>& weights = {}, Abort abort = Abort::None);
  TreeBuilder* RandomSequence(const std::vector<double>& weights = {}, Abort abort = Abort::None);
  // Closes the innermost open composite (and any decorators waiting on it).
  TreeBuilder* Back();

  // ---- Decorators (the next node is the child) ----
  TreeBuilder* Invert();
  TreeBuilder* ForceSuccess();
  TreeBuilder* ForceFailure();
  TreeBuilder* Repeat();               // forever
  TreeBuilder* Repeat(int64_t times);  // times >= 1
  TreeBuilder* UntilFail();
  TreeBuilder* UntilSuccess();
  TreeBuilder* Limit(int64_t times);   // starts over the agent's life, >= 1
  TreeBuilder* Timeout(double seconds);   // >= 0
  TreeBuilder* Cooldown(double seconds);  // >= 0
  TreeBuilder* Log(const std::string& message = "");

  // ---- Leaves ----
  TreeBuilder* Action(const std::string& leaf, const Args& args = {});
  TreeBuilder* Condition(const std::string& leaf, const Args& args = {}, bool negate = false);
  TreeBuilder* Condition(const std::string& leaf, bool negate);
  // A native expression over declared blackboard keys, e.g. Check("health < 30 and not alert").
  TreeBuilder* Check(const std::string& expression, bool negate = false);
  TreeBuilder* Wait(double seconds);  // >= 0
  // Inlines a tree of this brain's `trees:` (see Define) or of an imported file.
  TreeBuilder* Subtree(const std::string& tree);

  // Closes every open composite and finishes the tree. Returns *this, so a chain can end in
  // `->End().Load(rt, diagnostics)`.
  TreeBuilder& End();

  // ---- Results ----
  // The brain as YAML text. Before End(), the YAML of the tree as End() would leave it.
  std::string Yaml() const;
  // Misuse recorded so far, one message each ("call 7, Back(): no composite is open").
  const std::vector<std::string>& Errors() const;
  // Loads the brain: rt.load_string(Yaml(), name, diagnostics) when the builder has no errors
  // and End() was called; otherwise returns nullopt and appends the builder's errors
  // (file = name). `name` stands for the file in messages and anchors relative paths; empty
  // means "TREE_NAME.yaml" in the current directory. No file is read for the brain itself and
  // none is watched for hot reload (leaf files are read as usual).
  std::optional<BrainHandle> Load(Runtime& rt, std::vector<Diagnostic>& diagnostics,
                                  const std::string& name = "") const;

 private:
  friend class FsmBuilder;  // takes a tree inline (FsmBuilder::Tree) or into `trees:` (Define)
  struct State;
  std::unique_ptr<State> s_;
};

// One behavior of a behavior machine (SPEC 5) that a state hosts (FsmBuilder::DefineMachine,
// FsmBuilder::Machine): selected when its check passes, checks tried in list order; while
// selected it runs a leaf (usually a `thicket.task`) or a tree. Give one of check and
// check_expr, and one of run and tree:
//   {.name = "shoot", .check = "HasAmmo", .run = "Shoot", .run_args = {{"burst", 3}}}
//   {.name = "hide", .check_expr = "health < 30", .tree = "hide"}
struct MachineBehavior {
  std::string name = {};
  std::string check = {};       // a condition leaf ...
  Args check_args = {};         //   ... with these arguments,
  std::string check_expr = {};  // or an expression over declared blackboard keys
  std::string run = {};         // the leaf run while selected ...
  Args run_args = {};           //   ... with these arguments,
  std::string tree = {};        // or a tree of the brain's `trees:` (see FsmBuilder::Define) or an import
};

// A fluent builder for `fsm:` brains, flat or hierarchical (SPEC 4, 4.1). Like TreeBuilder it
// writes the brain as YAML (Yaml()) and Load() hands that text to the ordinary loader, so a built
// machine compiles to the node array of the equivalent file. SPEC 4.1's guard:
//
//   thicket::TreeBuilder search("search");
//   search.Sequence()->Action("LookAround")->Wait(2.0)->End();
//   thicket::FsmBuilder b("guard");
//   b.Leaves({"guard.lua"}).Blackboard("ammo", 6.0).Define(search);
//   b.DefineMachine("fight", {{.name = "aim", .check = "HasTarget", .run = "Aim"}});
//   b.Initial("calm")
//    ->State("calm")->Initial("patrol")->On("noise", "alert")->On("saw_enemy", "combat")
//        ->State("patrol")->Act("Patrol")->On("tired", "rest")->End()
//        ->State("rest")->Act("Rest")->After(5.0, "patrol")->End()
//    ->End()
//    ->State("alert")->Tree("search")->On("success", "calm")->On("saw_enemy", "combat", "ammo > 0")->End()
//    ->State("combat")->Machine("fight")->History()->Initial("engage")
//        ->On("enemy_dead", "calm")->On("wounded", "fled")
//        ->State("engage")->Act("Shoot")->On("out_of_ammo", "reload")->End()
//        ->State("reload")->Act("Reload")->On("success", "engage")->End()
//    ->End()
//    ->State("fled")->Final()->End();
//   auto brain = b.Load(rt, diagnostics, "guard.yaml");
//
// Shape of a chain: State(name) opens a state; the calls that follow describe the innermost
// open state until End() closes it. A State() inside an open state is its child, which makes
// the open one a composite state. A flat fsm is a list of State()...End(). Initial() names the
// brain's initial state when no state is open, and an open state's initial child otherwise.
// States appear in the YAML in call order (the order the loader tries children without
// `initial`), as do each state's On() and When()/After() entries.
//
// Node methods return `this`, so they chain with `->` as TreeBuilder's do; settings (Leaves,
// Import, Blackboard, Define, DefineMachine) return `*this`.
//
// Misuse is never thrown: the builder records an error naming the call ("call 7, End(): no
// state is open") and Load() returns the errors as diagnostics without loading: a state call
// with no state open, End() with no state open, a state name used twice in the brain, a second
// body (Act, Tree or Machine) or a second Enter/Exit/Reason/EnterIf/Initial in one state, an
// event mapped twice by one state, a blackboard key declared twice, a machine behavior without
// exactly one check and one of run/tree, an empty state name, misuse inside a TreeBuilder given
// to Define() or Tree(); and at Load(), a state left open or a brain without states. Errors in
// values (an unknown state, leaf or tree, a bad check expression, negative seconds, `history` on
// a state without children, parts of a final state) are the loader's, with line:col into Yaml().
//
// Units: seconds of sim time. Limits: the loader's (kMaxStateDepth levels of nested states).
// Leaf arguments are scalars, as for TreeBuilder.
class THICKET_API FsmBuilder {
 public:
  // `fsm_name` is the brain's name (`fsm: NAME`).
  explicit FsmBuilder(std::string fsm_name);
  ~FsmBuilder();
  FsmBuilder(const FsmBuilder& other);
  FsmBuilder& operator=(const FsmBuilder& other);
  FsmBuilder(FsmBuilder&&) noexcept;
  FsmBuilder& operator=(FsmBuilder&&) noexcept;

  // ---- Settings (the top level of the brain file) ----
  // As TreeBuilder's: Lua leaf files, brain files whose trees are used, blackboard keys.
  FsmBuilder& Leaves(const std::vector<std::string>& files);
  FsmBuilder& Import(const std::vector<std::string>& files);
  FsmBuilder& Blackboard(const std::string& key, const Value& default_value);
  FsmBuilder& Blackboard(const std::string& key, ValueType type, const Value& default_value = {});
  // Adds `tree`'s root (and the trees it defines) to the brain's `trees:` under its name, for
  // Tree(name) and for subtrees. Only the root travels, as for TreeBuilder::Define.
  FsmBuilder& Define(const TreeBuilder& tree);
  // Adds a behavior machine to the brain's `machines:`, for Machine(name). `check_every`:
  // seconds of sim time between check ticks (>= 0); omitted, every tick.
  FsmBuilder& DefineMachine(const std::string& name, const std::vector<MachineBehavior>& behaviors,
                            std::optional<double> check_every = std::nullopt);

  // ---- States ----
  // Opens a state (a child of the innermost open state, or a top-level state). Names are
  // unique in the whole brain; any state may be a target.
  FsmBuilder* State(const std::string& name);
  // Closes the innermost open state.
  FsmBuilder* End();
  // No state open: the brain's initial state (default: the first top-level state whose
  // enter_if passes). In a state: its initial child (default: the first child whose enter_if
  // passes).
  FsmBuilder* Initial(const std::string& state);
  // Composite: re-enter the child the state was left with (without testing its enter_if).
  FsmBuilder* History(bool on = true);
  // Entering the state sends `done` to its parent; a top-level final state ends the brain.
  FsmBuilder* Final(bool on = true);
  // Tested before the state is entered: an expression over declared blackboard keys ...
  FsmBuilder* EnterIf(const std::string& check);
  // ... or a condition leaf.
  FsmBuilder* EnterIfCondition(const std::string& leaf, const Args& args = {}, bool negate = false);

  // ---- A state's leaves and its body (one of Act, Tree, Machine) ----
  FsmBuilder* Enter(const std::string& leaf, const Args& args = {});   // on entry, result ignored
  FsmBuilder* Exit(const std::string& leaf, const Args& args = {});    // on leaving, result ignored
  FsmBuilder* Reason(const std::string& leaf, const Args& args = {});  // returns a transition name or nil
  FsmBuilder* Act(const std::string& leaf, const Args& args = {});     // ticked while active
  FsmBuilder* Tree(const std::string& tree);  // a tree of `trees:` (Define) or an import
  FsmBuilder* Tree(const TreeBuilder& tree);  // inline: `tree`'s root (its Define()d trees go to `trees:`)
  FsmBuilder* Machine(const std::string& machine);  // a machine of `machines:` (DefineMachine)
  FsmBuilder* Machine(const std::vector<MachineBehavior>& behaviors, std::optional<double> check_every = std::nullopt);

  // ---- Transitions (tried in call order) ----
  // The event or reason name `event` leads to `target`; with a guard (a check expression, or
  // a condition leaf) the transition is taken only when it passes.
  FsmBuilder* On(const std::string& event, const std::string& target, const std::string& check = "");
  FsmBuilder* OnCondition(const std::string& event, const std::string& target, const std::string& leaf,
                          const Args& args = {}, bool negate = false);
  // `when:` entries: go to `target` once the check expression (or condition leaf) passes ...
  FsmBuilder* When(const std::string& check, const std::string& target);
  FsmBuilder* WhenCondition(const std::string& leaf, const std::string& target, const Args& args = {},
                            bool negate = false);
  // ... or once the state has been active `seconds` of sim time (>= 0), and the check, if
  // given, passes too.
  FsmBuilder* After(double seconds, const std::string& target, const std::string& check = "");
  FsmBuilder* AfterCondition(double seconds, const std::string& target, const std::string& leaf,
                             const Args& args = {}, bool negate = false);

  // ---- Results ----
  // The brain as YAML text; states still open appear as End() would close them.
  std::string Yaml() const;
  // Misuse recorded so far, one message each ("call 7, End(): no state is open").
  const std::vector<std::string>& Errors() const;
  // Loads the brain: rt.load_string(Yaml(), name, diagnostics) when the builder has no errors,
  // every state is closed and there is one at least; otherwise returns nullopt and appends the
  // builder's errors (file = name). `name` as for TreeBuilder::Load ("FSM_NAME.yaml" when empty).
  std::optional<BrainHandle> Load(Runtime& rt, std::vector<Diagnostic>& diagnostics,
                                  const std::string& name = "") const;

 private:
  struct Impl;  // not `State`: State() is a method
  std::unique_ptr<Impl> s_;
};

}  // namespace thicket
