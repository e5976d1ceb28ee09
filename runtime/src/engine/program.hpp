// The compiled form of a brain: one contiguous array of fixed-size node records in
// depth-first order, children found by index (SPEC 11), with ids and source positions
// kept in side tables so the hot record stays small.
#pragma once
#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "expr.hpp"
#include "thicket/runtime.hpp"
#include "thicket/value.hpp"

namespace thicket {


enum class NodeKind : uint8_t {
#define NODE_KIND(e, name, shape, doc) e,
#include "node_kinds.def"
#undef NODE_KIND
};
enum class Shape : uint8_t { Composite, Decorator, Leaf, Root };
// The kinds of imported trees (BT.CPP: bt_*, always; behavior3: b3_*), after every native kind.
inline bool is_imported_kind(NodeKind k) { return k >= NodeKind::BtSequence; }
inline bool is_bt_kind(NodeKind k) {
  return (k >= NodeKind::BtSequence && k <= NodeKind::BtSleep) || k == NodeKind::BtTryCatch || k == NodeKind::BtScript;
}
inline bool is_b3_kind(NodeKind k) { return k >= NodeKind::B3Tree && k <= NodeKind::B3Wait; }

struct KindInfo {
  const char* name;
  Shape shape;
  const char* doc;
};
inline constexpr KindInfo kKindInfo[] = {
#define NODE_KIND(e, name, shape, doc) {name, Shape::shape, doc},
#include "node_kinds.def"
#undef NODE_KIND
};
inline constexpr size_t kKindCount = sizeof(kKindInfo) / sizeof(kKindInfo[0]);
inline const KindInfo& kind_info(NodeKind k) { return kKindInfo[static_cast<size_t>(k)]; }

enum class AbortMode : uint8_t { None = 0, Self = 1, LowerPriority = 2, Both = 3 };
inline bool aborts_self(AbortMode m) { return m == AbortMode::Self || m == AbortMode::Both; }
inline bool aborts_lower(AbortMode m) { return m == AbortMode::LowerPriority || m == AbortMode::Both; }
// The mode as a brain file writes it (`abort: lower_priority`), for dump, dot and node tables.
inline const char* abort_mode_name(AbortMode m) {
  switch (m) {
    case AbortMode::None: return "none";
    case AbortMode::Self: return "self";
    case AbortMode::LowerPriority: return "lower_priority";
    case AbortMode::Both: return "both";
  }
  return "none";
}

// Node flags (Node::flags).
inline constexpr uint8_t kAbortMask = 0x3;  // AbortMode
inline constexpr uint8_t kNegate = 0x4;     // condition / check: swap success and failure
inline constexpr uint8_t kRechecks = 0x8;   // composite: some earlier child may need a re-check
// Re-check eligibility (SPEC 3.5: only conditions evaluated since their holder last started):
// holders stamp their start and observed conditions their evaluation from one per-agent
// counter; the stamps sit at the end of the node's state (see stamp_offset).
inline constexpr uint8_t kHolder = 0x10;    // composite: a child whose observed conditions are re-checked
inline constexpr uint8_t kObserved = 0x20;  // condition: observed by some composite with an abort
// Passive nodes do nothing on a tick where their running child keeps running: no re-checks,
// no clock tests, no other children ticked. A running action under passive nodes only is
// resumed directly (tick.cpp), which keeps a resume's cost independent of the tree's size.
inline constexpr uint8_t kPassive = 0x40;
// Lowered (compile_imported.cpp, lower_imported): a BT.CPP Sequence, Fallback,
// ReactiveFallback, ReactiveSequence, Inverter, ForceSuccess, ForceFailure or SubTree whose
// subtree holds only leaves and nodes lowered likewise, compiled as the thicket kind that makes
// the same calls; `thicket dump`, export and Runtime::nodes name it by its bt_* kind
// (written_kind).
inline constexpr uint8_t kLowered = 0x80;
// The bt_* kind a lowered node was written as. (A ReactiveSequence runs as an active_selector
// whose a is 1: success and failure exchanged, Engine::tick_node and walk_plain.)
inline NodeKind lowered_from(NodeKind k, uint32_t a) {
  switch (k) {
    case NodeKind::Sequence: return NodeKind::BtSequence;
    case NodeKind::Selector: return NodeKind::BtFallback;
    case NodeKind::ActiveSelector: return a ? NodeKind::BtReactiveSequence : NodeKind::BtReactiveFallback;
    case NodeKind::Invert: return NodeKind::BtInverter;
    case NodeKind::ForceSuccess: return NodeKind::BtForceSuccess;
    case NodeKind::ForceFailure: return NodeKind::BtForceFailure;
    case NodeKind::Filter: return NodeKind::BtSubtree;  // a filter with one child passes its result on
    default: return k;
  }
}

inline constexpr uint16_t kNoPos = 0xFFFF;

// One node: 32 bytes. The meaning of a and b depends on the kind:
//   composites: a,b = start/count in Program::observed (abort != none), children in child_index
//   parallel/monitor: a = success threshold, b = failure threshold
//   random_*: a,b as composites; weights at Program::weights[children ...]
//   repeat/limit: a = times (0 = forever)
//   log: a = index in Program::messages
//   action/condition: a = index in Program::calls
//   check: a = index in Program::exprs
//   machine: children = (check, run) per behavior; seconds = check_every (< 0: every tick)
//   fsm: children = its top-level State nodes; a = the initial state's index (kNoPos: select)
//   state: children = its parts, then its child State nodes; a = index in Program::fsm_states
//   machine: b = index of its first behavior in Program::behaviors
struct Node {
  NodeKind kind;
  uint8_t flags;
  uint16_t count;     // number of children
  uint32_t end;       // one past the last node of this subtree
  uint32_t state;     // byte offset of this node's own state in the agent block (0 = none)
  uint32_t children;  // start of this node's children in Program::child_index
  uint32_t a;
  uint32_t b;
  double seconds;     // wait, timeout, cooldown
  AbortMode abort() const { return static_cast<AbortMode>(flags & kAbortMask); }
};
static_assert(sizeof(Node) == 32, "node records stay small and fixed-size");
// The kind a node's file wrote: a lowered node's bt_* kind, any other node's own.
inline NodeKind written_kind(const Node& n) { return n.flags & kLowered ? lowered_from(n.kind, n.a) : n.kind; }

// A leaf argument value built from YAML once at load (SPEC 7: args).
struct ArgValue {
  enum class Type : uint8_t { Nil, Bool, Integer, Number, String, List, Map } type = Type::Nil;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;
  std::vector<ArgValue> items;                            // List
  std::vector<std::pair<std::string, ArgValue>> entries;  // Map, in file order

  // Defaulted after the class: clang (with libstdc++) rejects the implicit constructor,
  // which needs pair<string, ArgValue> complete while ArgValue is still being defined.
  ArgValue();
};
inline ArgValue::ArgValue() = default;
// A leaf's args as `thicket dump` prints them (dump.cpp), e.g. {range: 5, tag: "x"}.
void write_arg(std::ostream& out, const ArgValue& v);

// A call site of a leaf: which leaf (by name, resolved to an id when installed) with
// which args.
struct LeafCall {
  std::string leaf;
  ArgValue args;
  uint32_t leaf_id = 0;   // index in the runtime's leaf table, set when installed
  int args_ref = -2;      // Lua registry reference of the args table (LUA_NOREF until installed)
  std::vector<int> lane_args;  // the same in script lanes 1.. (ScriptHost::set_lane)
};

// What the tick loop needs of a call site, in one small record (Program::hot, parallel to
// calls): the native leaf's functions, called directly, or none (a script leaf, called through
// the script host), and whether the leaf has start/stop work. Set whenever the runtime's leaves
// change (RuntimeImpl::refresh_brain).
struct HotCall {
  NativeLeafFn native;  // native.tick == nullptr: a script leaf
  bool hooked = true;   // the leaf has start/stop work (hooks, tasks); false: the tick loop skips them
};

// What the tree walk does at a node (Program::ops, parallel to nodes): the node's kind folded
// with its flags and its leaf's form, fixed whenever the runtime's leaves change
// (RuntimeImpl::refresh_brain), so a visit to a common node does only its own work and reads
// one record. Nodes with aborts, stamps, random order, hooks or script leaves take the general
// path (tick.cpp), which handles every kind.
enum class Op : uint8_t {
  General,       // the general switch on the node's kind
  Sequence,      // sequence or filter: not random, no re-checks, no re-check stamp
  Selector,      // selector: likewise
  Active,        // active_selector
  ActiveSeq,     // a lowered BT.CPP ReactiveSequence: an active_selector, success and failure exchanged
  NativeCond,    // condition with a native leaf, neither negated nor observed
  NativeAction,  // action with a native leaf that has no start/stop work
  Cond,          // any other condition, or a check
  Action,        // any other action
};
struct NodeOp {
  Op op = Op::General;
  uint16_t count = 0;     // Node::count
  uint32_t state = 0;     // Node::state
  uint32_t children = 0;  // Node::children
  Status (*tick)(LeafContext&, void*) = nullptr;  // NativeCond, NativeAction: the leaf
  void* user = nullptr;
};

struct SourcePos {
  uint32_t file = 0;  // index in Program::files
  int line = 0, column = 0;
};

// One declared blackboard key (SPEC 6).
struct BlackboardKey {
  std::string name;
  ValueType type = ValueType::Number;
  Slot initial{};           // default value (strings: id in the runtime's string table)
  std::string text_default; // a string default as written, interned when installed
  SourcePos pos;
  bool broken = false;      // its declaration has an error (reported; the brain does not load):
                            // its uses add no errors of their own
};

// One state of an fsm brain (SPEC 4, 4.1): node indices of its parts (kNoNode when absent),
// its place in the hierarchy (state indices, kNoPos when none) and what leaves it.
inline constexpr uint32_t kNoNode = 0xFFFFFFFF;
inline constexpr uint32_t kMaxStateDepth = 64;  // states nested at most this deep (the compiler says so)
struct FsmTransition {
  std::string name;        // the event or reason name
  uint16_t target = 0;     // state index
  uint32_t guard = kNoNode;  // a check or condition node that must pass (kNoNode: none)
};
struct FsmWhen {
  uint32_t cond = kNoNode;  // a check or condition node (kNoNode: `after` alone)
  double after = -1;        // seconds the state must have been active (< 0: no clock)
  uint16_t target = 0;
};
struct FsmState {
  std::string name;
  uint32_t node = kNoNode;  // its State node
  uint32_t enter = kNoNode, exit = kNoNode, reason = kNoNode, body = kNoNode;
  uint32_t enter_if = kNoNode;       // a check or condition node tested before entering
  uint16_t parent = 0xFFFF;          // its parent state (kNoPos: a top-level state)
  uint16_t depth = 0;                // 0 for top-level states
  uint16_t initial = 0xFFFF;         // composite: its `initial` child (kNoPos: select by enter_if)
  bool history = false;              // composite: re-enter the child it was left with
  bool final = false;                // entering it sends `done` (top level: ends the brain)
  std::vector<uint16_t> children;    // its child states, in file order (empty: a leaf state)
  std::vector<FsmTransition> transitions;
  std::vector<FsmWhen> when;
};
// Per-agent state of an fsm root and of each State node (offsets in the node's state).
struct FsmRootState {
  uint16_t active;     // the active top-level state (kNoPos: none)
  // A cache of the innermost active state, trusted only while it names an active leaf state
  // (there is one at most), so a reload or a restore that moves states cannot mislead it.
  uint16_t innermost;
  uint32_t serial;     // entries so far: each state entry takes the next number
  uint8_t entered;     // 1: the initial descent has been entered; 2: a reload asks for a descent;
                       // 3: a reload made the active top-level state final: the brain ends
  uint8_t pad[3];
};
struct FsmStateState {
  double entered_at;  // when it was last entered (its `after` clock)
  uint32_t serial;    // the number of its last entry (events sent by it carry it)
  uint16_t active;    // composite: its active child (kNoPos: none)
  uint16_t history;   // composite with history: the child it was last left with (kNoPos: none)
};
static_assert(sizeof(FsmRootState) == 12 && sizeof(FsmStateState) == 16, "fsm state records stay small");

// Bytes of state a node of this kind keeps per agent, beside its status byte.
inline uint32_t base_state_bytes(const Node& n) {
  switch (n.kind) {
    case NodeKind::Sequence:
    case NodeKind::Selector:
    case NodeKind::ActiveSelector:
    case NodeKind::Filter: return 2;                         // current / last running child position
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence: return 2 + 2u * n.count;  // position + drawn order
    case NodeKind::Repeat:
    case NodeKind::Limit: return 4;                          // count
    case NodeKind::Timeout:
    case NodeKind::Cooldown:
    case NodeKind::Wait: return 8;                           // a time in seconds
    case NodeKind::Machine: return 16;                       // last check time, current behavior, active
    case NodeKind::Fsm: return sizeof(FsmRootState);         // active top-level state, entered, serial
    case NodeKind::State: return sizeof(FsmStateState);      // entry time and number, active child, history
    case NodeKind::BtSequence:
    case NodeKind::BtFallback:
    case NodeKind::BtSequenceMemory: return 4;              // current child, skipped count
    case NodeKind::BtTryCatch: return 6;                    // current try child, skipped count, in the catch
    case NodeKind::BtIfThenElse:
    case NodeKind::BtSwitch:
    case NodeKind::BtRunOnce:
    case NodeKind::BtPrecondition:
    case NodeKind::B3MemSequence:
    case NodeKind::B3MemPriority: return 2;                  // a child position, or flags
    case NodeKind::BtRepeat:
    case NodeKind::BtRetry:
    case NodeKind::B3Limiter:
    case NodeKind::B3Repeater:
    case NodeKind::B3RepeatUntilFailure:
    case NodeKind::B3RepeatUntilSuccess: return 4;           // a count
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay: return 16;                       // start time, flags
    case NodeKind::BtSleep:
    case NodeKind::B3MaxTime:
    case NodeKind::B3Wait: return 8;                         // start time
    case NodeKind::B3Tree: return 4 + 4 * n.a;               // last tick's open nodes: a count, then up to a (its subtree's size)
    default: return 0;
  }
}
// Where a holder's or observed condition's stamp sits: after its own state, 4-aligned.
inline uint32_t stamp_offset(const Node& n) { return n.state + ((base_state_bytes(n) + 3) & ~3u); }
// An abort where no node has work to do when aborted (no leaf with a stop hook, no log
// decorator): marks aborted the running nodes that Engine::abort reaches from node i (it
// descends only into running nodes), in one pass over the subtree's span of the depth-first
// array, skipping the subtrees of nodes that are not running.
inline void abort_span(const Node* nodes, Status* statuses, uint32_t i) {
  const uint32_t end = nodes[i].end;
  while (i < end) {
    if (statuses[i] == Status::Running) {
      statuses[i] = Status::Aborted;
      ++i;  // into its children
    } else {
      i = nodes[i].end;  // past its subtree
    }
  }
}

inline uint32_t node_state_bytes(const Node& n) {
  uint32_t base = base_state_bytes(n);
  return (n.flags & (kHolder | kObserved)) ? ((base + 3) & ~3u) + 4 : base;
}

struct Program {
  std::string name;                    // the tree's name
  uint32_t tick_every = 1;             // the brain's `tick_every` (SPEC 8.2): its agents' slicing at spawn
  SourcePos tick_every_pos;            // where the brain file says it (line 0: it does not)
  std::vector<Node> nodes;             // depth-first; nodes[0] is the root
  std::vector<uint32_t> child_index;   // children of composites and decorators
  std::vector<uint32_t> observed;      // observed conditions of composites with aborts
  // The re-check plan, made at load: for each entry of child_index, the conditions its parent
  // re-checks when that child lies before the running one (a range of recheck_conds; a
  // condition equal to the child itself is a direct one).
  struct Range {
    uint32_t begin = 0, count = 0;
    // A random composite lies between the child and some of its conditions (the child itself
    // included): they are re-checked in the order it drew (Engine::drawn_order), not the list's.
    bool drawn = false;
  };
  std::vector<Range> recheck_ranges;   // parallel to child_index
  std::vector<uint32_t> recheck_conds;
  std::vector<double> weights;         // random composites, parallel to child_index
  std::vector<LeafCall> calls;         // action / condition call sites
  std::vector<HotCall> hot;            // parallel to calls: what the tick loop calls
  std::vector<NodeOp> ops;             // parallel to nodes: what the walk does at each
  // The batched walk (tick_batch.cpp) can tick this brain: every node is a plain sequence,
  // filter, selector or active_selector or a native leaf on the shortcuts (NodeOp) whose
  // leaf is agent_local, nested at most kBatchDepth composites deep. Set by prepare_ops.
  bool batchable = false;
  // Engine::tick starts with the plain walk (walk_plain: recursion over plain composites) rather
  // than the general one: no leaf needs the general path's leaf handling (Op::Cond, Op::Action,
  // e.g. a script leaf), which the general walk does in place. Set by prepare_ops.
  bool plain_walk = false;
  // An abort only marks nodes aborted (no stop hook, no log node): the plain walk aborts a
  // subtree with abort_span. Set by prepare_ops, with plain_walk.
  bool span_abort = false;
  uint16_t composite_depth = 0;        // composites on the longest root-to-leaf path (batchable only)
  uint32_t prepared = 0;               // times prepare_ops ran on it (a load, a reload, a caller's leaf replaced)
  std::vector<CompiledExpr> exprs;     // check conditions
  std::vector<std::string> messages;   // log decorators; bt_switch: its variable, cases, then
                                       // a '1' per case ('0': a null case, never matching)
  // bt_guard: the check expressions (Program::exprs, kNoNode when absent) of _failureIf,
  // _successIf, _skipIf and _while, in BT.CPP's order of evaluation; then the scripts
  // (Program::scripts, kNoNode when absent) of _onSuccess, _onFailure, _post and _onHalted.
  std::vector<std::array<uint32_t, 8>> guards;
  // bt_script's code and bt_guard's after-scripts: each script a range of script_steps, run in
  // order, each step writing its key's slot with its expression's value (of the key's type).
  struct ScriptStep {
    uint32_t slot;   // the blackboard key written
    ValueType type;  // its declared type (number, integer, boolean or string)
    uint32_t expr;   // Program::exprs: the value, compiled to that type
  };
  std::vector<ScriptStep> script_steps;
  std::vector<Range> scripts;
  std::vector<FsmState> fsm_states;    // fsm brains: the states, depth-first in file order
  std::vector<uint16_t> fsm_top;       // fsm brains: the top-level states, in file order
  std::vector<std::string> fsm_events; // fsm brains: the names some state's transitions take, sorted
  std::vector<std::string> behaviors;  // machine brains: the behaviors' names, in priority order
  std::vector<std::string> ids;        // node id: name, or path from the root
  std::vector<bool> named;             // by node: its id is a name (`name:`), not its place in the tree
  std::vector<std::string> labels;     // a short label for traces and dumps
  std::vector<SourcePos> positions;    // where each node was written
  std::vector<std::string> files;      // file names for positions
  std::vector<BlackboardKey> blackboard;
  std::vector<std::string> leaf_files; // Lua files the brain's leaves come from, in load order
  std::vector<std::string> yaml_files; // the brain file and its imports
  uint32_t state_size = 0;             // bytes of per-agent node state (statuses first)
  uint32_t bb_offset = 0;              // byte offset of the blackboard slots in the agent block
  uint32_t block_size = 0;             // whole per-agent block, a multiple of 8
  // The hash a snapshot names this compiled form by (snapshot.cpp), made on first use: a
  // reload makes a new Program, so it never outlives what it hashes.
  mutable uint64_t snapshot_hash = 0;

  uint32_t child(const Node& n, uint32_t pos) const { return child_index[n.children + pos]; }
};

}  // namespace thicket
