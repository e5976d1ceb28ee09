// The tick loop: SPEC 3.1's contract over a compiled node array, for one agent.
#pragma once
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "agent.hpp"
#include "program.hpp"
#include "string_table.hpp"
#include "thicket/status.hpp"

namespace thicket {

class RuntimeImpl;
class ScriptHost;
struct NativeLeaf;
struct CallSite;
class LeafContext;

// Why an abort fired (SPEC 3.5), for traces and --explain.
struct AbortEvent {
  uint32_t composite;  // the composite whose re-check fired
  uint32_t condition;  // the re-checked condition that changed
  Status from, to;     // its remembered and its new result
  uint32_t aborted;    // the running child that was aborted
};

// An fsm took a transition (SPEC 4, 4.1), entered its initial descent (from == kNoPos), or
// ended (`ended`: its top-level final state left).
struct TransitionEvent {
  uint32_t fsm;                 // the Fsm node
  uint16_t from, to;            // state indices (Program::fsm_states): the state whose transition it
                                // is, and its target (the initial descent: its first state)
  uint32_t cause;               // the reason leaf that named the transition, or the `when` entry's node
                                // (kNoNode for the initial descent, an event or an `after` entry)
  std::string_view transition;  // the event or reason name ("" for a `when` entry)
  bool by_event = false;        // `transition` is an event the state took
  const uint16_t* exited = nullptr;  // the states left, innermost first
  uint32_t exited_count = 0;
  const uint16_t* entered = nullptr;  // the states entered, outermost first
  uint32_t entered_count = 0;
  int32_t when_entry = -1;            // a `when` entry of `from`: its position (-1: none)
  bool reload = false;                // a hot reload removed from's active child: its descent again
  bool ended = false;                 // the brain ended: `from`, a top-level final state, was left
                                      // (to: kNoPos; nothing entered)
};

// An event taken off an agent's queue (SPEC 4.1): taken by a state, or dropped (kNoPos).
struct QueueEvent {
  std::string_view name;
  uint16_t taken_by;
  // Dropped (taken_by == kNoPos): why, for --explain. The first active state that maps it but
  // could not take it (kNoPos: none maps it), and how: its guard failed, or the entry was refused
  // (an enter_if on the way); stale: the state that sent it (done, success, failure) was left.
  uint16_t refused_by = kNoPos;
  bool guard_failed = false;
  bool stale = false;
};

// A behavior machine switched behaviors (SPEC 5), or picked its first (from == kNoPos).
struct SwitchEvent {
  uint32_t machine;   // the Machine node
  uint16_t from, to;  // behavior indices, in priority order
  uint32_t check;     // the check node that selected `to`
};

// Receives trace events; all optional. Set on the Engine; null costs nothing (the tick
// loop tests the pointer only where an abort, a transition or a switch happens).
struct TraceSink {
  virtual ~TraceSink() = default;
  virtual void on_abort(const Program&, const AgentInfo&, const AbortEvent&) {}
  virtual void on_transition(const Program&, const AgentInfo&, const TransitionEvent&) {}
  virtual void on_switch(const Program&, const AgentInfo&, const SwitchEvent&) {}
  virtual void on_event(const Program&, const AgentInfo&, const QueueEvent&) {}
};

// Aligned to a cache line: the engines of parallel jobs are written (trace) by their own threads.
class alignas(64) Engine {
 public:
  // Native leaves are called directly; every other leaf goes to `script` (may be null when
  // only native leaves are used). `rt` gives native leaves their LeafContext and logs.
  Engine(RuntimeImpl& rt, ScriptHost* script, const StringTable& strings)
      : rt_(rt), script_(script), strings_(strings) {}

  // Ticks the agent's root once at time agent.time; returns the root's status.
  Status tick(const Program& p, AgentInfo& agent, uint8_t* block);
  // Aborts every running node of the agent (despawn, reload, fsm state exit).
  void abort_all(const Program& p, AgentInfo& agent, uint8_t* block);
  // Aborts node `node` and its running descendants (post-order).
  void abort_node(const Program& p, AgentInfo& agent, uint8_t* block, uint32_t node);
  // Initialises a fresh agent block: statuses invalid, cooldowns never fired, blackboard defaults.
  static void init_block(const Program& p, uint8_t* block, const StringTable* strings = nullptr);
  // Fills p.ops from the nodes and p.hot (after the leaves or their hooks change); without
  // `fast`, every node takes the general path.
  static void prepare_ops(Program& p, bool fast = true);

  // The batched walk (tick_batch.cpp): ticks agents[0..n) of one brain whose
  // Program::batchable is set, together, node by node. Each agent gets the calls, the state
  // and the root status its own tick would give it; only the order of calls between agents
  // differs, which agent_local leaves promise nobody sees. The agents' clocks are already set;
  // none may have a resume_leaf. n <= kBatchMax.
  struct BatchAgent {
    AgentInfo* agent;
    uint8_t* block;
  };
  static constexpr uint32_t kBatchMax = 256;
  static constexpr uint32_t kBatchDepth = 64;
  // A leaf that throws ends its own agent's walk only: the others are walked to the end, then
  // the exception of the lowest of those agents is rethrown (batch_error_agent() names it).
  void tick_batch(const Program& p, const BatchAgent* agents, uint32_t n);
  const AgentInfo* batch_error_agent() const { return batch_error_agent_; }
  // Sizes the batched walk's lists for programs up to `composite_depth` composites deep (at
  // load: RuntimeImpl::refresh_layout), so tick_batch allocates nothing.
  void reserve_batches(uint16_t composite_depth);

  TraceSink* trace = nullptr;

 private:
  struct Batch;
  struct Fuse;
  template <bool kCondition, bool kFused>
  void batch_leaf(Batch& b, uint32_t i, const uint16_t* in, uint32_t n, Fuse* f);
  void batch_visit(Batch& b, uint32_t i, const uint16_t* in, uint32_t n, uint16_t* scratch);
  std::vector<uint16_t> batch_scratch_;
  const AgentInfo* batch_error_agent_ = nullptr;
  // abort(): how deep it is, and the first exception a stop hook threw under the outermost.
  uint32_t abort_depth_ = 0;
  std::exception_ptr abort_error_;
  struct Ctx;
  Status tick_node(Ctx& c, uint32_t i);
  template <int kLevel>
  Status walk_plain(Ctx& c, uint32_t i, uint32_t depth);
  template <int kLevel>
  Status walk_child(Ctx& c, uint32_t i, uint32_t depth);
  Status walk_deep(Ctx& c, uint32_t i, uint32_t depth);
  Status finish_active_selector(Ctx& c, uint32_t i, Status result, uint16_t decided);
  Status tick_parallel(Ctx& c, uint32_t i, bool starting);
  bool decorator_enter(Ctx& c, uint32_t i, bool starting, Status& s);
  Status decorator_leave(Ctx& c, uint32_t i, Status s);
  const std::string& log_what(Ctx& c, uint32_t i);  // what a log decorator names
  Status tick_machine(Ctx& c, uint32_t i, bool starting);
  // The fsm and its hierarchical states (tick_fsm.cpp).
  struct Hsm;
  Status tick_fsm(Ctx& c, uint32_t i, bool starting);
  Status condition_at(Ctx& c, uint32_t i);
  Status tick_leaf(Ctx& c, uint32_t i, bool starting);
  Status tick_action(Ctx& c, uint32_t i, bool starting);
  Status evaluate_condition(Ctx& c, uint32_t i);
  uint16_t recheck(Ctx& c, uint32_t i, uint16_t running_pos);
  // The conditions [conds, conds + n) held by child `holder`, in the order its last run met them.
  const uint32_t* drawn_order(Ctx& c, uint32_t holder, const uint32_t* conds, uint32_t n);
  uint32_t passive_running_leaf(Ctx& c);
  void abort(Ctx& c, uint32_t i);
  void draw_order(Ctx& c, uint32_t i);
  // Imported trees' kinds (tick_imported.cpp): BT.CPP's (bt_*) and behavior3's (b3_*).
  Status tick_imported(Ctx& c, uint32_t i, Status& kept);  // kept: the status the node keeps
  Status tick_kind(Ctx& c, uint32_t i);
  Status bt_decorator(Ctx& c, uint32_t i);
  Status bt_child(Ctx& c, uint32_t child);  // BT.CPP's executeTick of a child
  void bt_reset(Ctx& c, uint32_t child);
  void bt_reset_children(Ctx& c, uint32_t i);
  void imported_halt(Ctx& c, uint32_t i);
  Status bt_guarded(Ctx& c, uint32_t i, Status own);
  void run_script(Ctx& c, uint32_t i, uint32_t script);  // node i's script (for its errors)
  [[gnu::cold, gnu::noinline]] static void bad_script_value(RuntimeImpl& rt, const Program& p, const AgentInfo& a, uint32_t i,
                                                            const Program::ScriptStep& step, double value);
  Status b3_tree(Ctx& c, uint32_t i);
  Status b3_execute(Ctx& c, uint32_t i);
  Status b3_tick(Ctx& c, uint32_t i);
  std::vector<uint32_t> b3_open_;  // behavior3's open list of the tick in progress
  std::vector<uint32_t> b3_kept_;  // Lua leaves closed in it, their mem kept for a second close
  // drawn_order's scratch: the walk (a node, where its children's shares of the conditions
  // start in drawn_shares_, its next child, whether in a drawn order), the conditions in order,
  // a random composite's children seen.
  struct DrawnStep {
    uint32_t node, shares;
    uint16_t next;
    bool drawn;
  };
  std::vector<DrawnStep> drawn_walk_;
  std::vector<std::pair<uint32_t, uint32_t>> drawn_shares_;
  std::vector<uint32_t> drawn_conds_;
  std::vector<uint8_t> drawn_seen_;
  // Leaf calls at node i: a native leaf directly, a scripted one through the script host.
  Status leaf_condition(Ctx& c, uint32_t i);
  Status leaf_start(Ctx& c, uint32_t i);
  Status leaf_tick(Ctx& c, uint32_t i);
  // false: the stop hook raised an error. keep_mem: ScriptHost::stop's (behavior3's closes).
  bool leaf_stop(Ctx& c, uint32_t i, Status s, bool keep_mem = false);
  void leaf_plain(Ctx& c, uint32_t i);
  bool leaf_reason(Ctx& c, uint32_t i, std::string_view& transition);
  void log_node(const CallSite& at, const std::string& what, const char* event);
  // A native leaf at node i answered `s`, which its kind does not give (an action: success,
  // failure or running; a condition: success or failure): reported as a Lua leaf's answer
  // would be (an error, counted with the script errors) and taken as failure (tick.cpp).
  [[gnu::cold, gnu::noinline]] static Status bad_native_status(RuntimeImpl& rt, const Program& p, const AgentInfo& a,
                                                              uint32_t i, Status s, bool condition);

  RuntimeImpl& rt_;
  ScriptHost* script_;
  const StringTable& strings_;
};

}  // namespace thicket
