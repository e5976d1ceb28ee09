// thicket's embedding face (SPEC 8): load brains, register native leaves, spawn agents,
// tick them, read their state, receive trace events, reload changed files.
//
// Units: time in seconds of sim time; dt > 0. Limits: up to 65,534 children per composite,
// 100,000 nodes and 256 levels of nesting per brain loaded from YAML, 2^32 agents.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/export.hpp"
#include "thicket/value.hpp"
#include "thicket/snapshot.hpp"
#include "thicket/status.hpp"

namespace thicket {

// The longest tick, in seconds: tick and tick_all refuse a longer dt (a step near DBL_MAX made
// every agent's clock inf after two ticks), and so do a scenario's `dt` and `thicket run --dt`.
inline constexpr double kMaxDt = 1e6;

class RuntimeImpl;

// A loaded brain. Index handles (STYLE: Recast/Detour): cheap to copy, checked on use.
struct BrainHandle {
  uint32_t index = UINT32_MAX;
  bool valid() const { return index != UINT32_MAX; }
};
struct AgentHandle {
  uint32_t index = UINT32_MAX;
  uint32_t generation = 0;
  bool valid() const { return index != UINT32_MAX; }
};

// A blackboard value as C++ sees it. std::monostate is nil (for `any` keys).
using Value = std::variant<std::monostate, double, int64_t, bool, std::string>;
// Whether Runtime::set takes v for a key declared with type t: a number key takes an integer
// too; an `any` key takes every value.
THICKET_API bool value_fits(ValueType t, const Value& v);

// The agent's clock and id as a leaf reads them: the first fields of the runtime's agent
// record, so LeafContext's accessors below are plain loads, inlined into the leaf.
struct AgentCore {
  double time = 0;     // sim time of the tick in progress / the next tick (seconds)
  double dt = 0;       // dt of the tick in progress
  uint32_t ticks = 0;  // ticks done so far; during tick k it is k
  uint32_t id = 0;
};

// What a native leaf sees of the agent it runs for.
class THICKET_API LeafContext {
 public:
  uint32_t agent_id() const { return agent_->id; }
  double time() const { return agent_->time; }  // sim time of this tick, seconds
  double dt() const { return agent_->dt; }
  uint64_t tick() const { return agent_->ticks; }  // 1 for the agent's first tick
  // The agent's handle, as Runtime::spawn returned it (two loads, no lookup), e.g. for a C
  // leaf that names its agent by handle (thicket.h).
  AgentHandle handle() const;
  const std::string& node_id() const;
  // Blackboard access by key; false when the key is undeclared or the type is wrong.
  bool get(const std::string& key, Value& out) const;
  bool set(const std::string& key, const Value& v);
  // Fast access: a key's slot index (from Runtime::blackboard_slot), number keys only. A slot
  // past the brain's keys or of a key of another type reads NaN and takes nothing (set_number:
  // false), as Runtime::get_number/set_number; set_number refuses a NaN too. (A reload may
  // move keys to other slots: ask blackboard_slot again after one.)
  double get_number(uint32_t slot) const;
  bool set_number(uint32_t slot, double v);
  double random();  // [0, 1) from the agent's own stream

 private:
  friend class Engine;
  friend class RuntimeImpl;
  const AgentCore* agent_ = nullptr;
  RuntimeImpl* rt_ = nullptr;
  const void* site_ = nullptr;
};

// A native leaf as plain function pointers, the form the tick loop calls (no std::function,
// no capture: `user` comes back unchanged, e.g. a pointer to the leaf's own data). `tick` is
// required (an action returns success, failure or running; a condition success or failure:
// any other answer fails, and is logged as an error and counted by script_errors, as a Lua
// leaf's would be); `start` and `stop` are optional hooks, as for Lua hook tables.
struct NativeLeafFn {
  Status (*tick)(LeafContext&, void* user) = nullptr;
  void (*start)(LeafContext&, void* user) = nullptr;
  void (*stop)(LeafContext&, Status, void* user) = nullptr;
  void* user = nullptr;
  // A promise that the leaf is private to its agent during tick_all: it reads and writes only
  // its own agent (its LeafContext: clock, id, blackboard, random stream) and data no leaf
  // changes during the tick, nothing it writes is read by another agent's leaves in the same
  // tick, and it spawns and despawns no agent. Then the order of different agents' calls
  // cannot be seen, and tick_all may tick the agents of a brain made only of such leaves (and
  // plain composites) together, node by node (the batched walk, tick_batch.cpp): the same
  // calls per agent, in the same order for each agent, interleaved between agents. Leave it
  // false when unsure.
  bool agent_local = false;
};

// A native leaf as C++ callables: the convenient form (lambdas with captures). The runtime
// calls them through NativeLeafFn thunks, one indirect call more than NativeLeafFn.
// (Each member has its initializer, so `NativeLeaf{.tick = ...}` compiles without a warning
// under gcc's -Wextra, as NativeLeafFn{.tick = ...} does.)
struct NativeLeaf {
  std::function<Status(LeafContext&)> tick = nullptr;
  std::function<void(LeafContext&)> start = nullptr;
  std::function<void(LeafContext&, Status)> stop = nullptr;
  bool agent_local = false;  // as NativeLeafFn::agent_local
};

struct RuntimeOptions {
  uint64_t seed = 1;                  // run seed: agents' random streams derive from it
  bool trusted = false;               // open io, os, debug and C modules to scripts
  // Lua instructions a task may run per resume before it fails (0 = no limit), so a task that
  // never yields cannot hang the run. Lua's count hook makes every Lua instruction slower
  // (~60% more work), so plain function leaves, loading and on_reload are only guarded when
  // budget_all_leaves is set (`thicket run --budget-all`); tasks always are.
  uint64_t instruction_budget = 10'000'000;
  bool budget_all_leaves = false;
  // Seconds one Lua call (a leaf, a task resume, on_reload) may run before a watchdog thread
  // stops it with an error (0 = no limit). Costs nothing per Lua instruction. Loading a leaf
  // file may take 20 times as long; a call that instruction_budget counts (a task's resume), at
  // least 100 ns per instruction of the budget, so that the budget stops it first (guide 8.6). The watchdog signals the thread with SIGURG, which thicket
  // unblocks in a thread at its first Lua call (guide 8.11).
  double leaf_timeout = 0.05;
  // Bytes the Lua heap of each script state may hold (0 = no cap): past it, the allocation in
  // a leaf fails with an error and the run goes on.
  size_t lua_memory_limit = size_t(512) << 20;
  // Agents that scripts may bring the runtime to (0 = no cap): `thicket.spawn` fails with an
  // error once the live agents plus the spawns already queued in this tick reach it, so a leaf
  // that spawns in a loop cannot use up the host's memory. Runtime::spawn (the game's own
  // spawns) is never refused. With tick_all on several threads, jobs that spawn at the same
  // moment may pass it by at most one agent each.
  size_t max_script_agents = 100'000;
  // The agents' node state, in bytes, that scripts' spawns may bring the runtime to (each agent
  // is one block of its brain's size; 0 = no cap): `thicket.spawn` fails with an error past it,
  // so a leaf spawning a big brain in a loop (a 70,000-node brain is 545 KB an agent) cannot
  // use up the host's memory before the agent cap. Runtime::spawn is never refused.
  size_t max_script_state_bytes = size_t(4) << 30;
  // Where the run's log goes (log decorators, thicket.log, script errors, reloads).
  std::function<void(const std::string&)> log;
  // Lua states the agents are spread over (SPEC 8.2): an agent lives in one of them for its
  // whole life (agent id modulo this), every state loads every leaf file, and
  // tick_all(dt, executor) ticks the agents of different states on different threads. 1 (the
  // default) keeps Lua brains on one thread at a time; native leaves are never limited by it.
  // 1 to kMaxScriptStates; a value outside is brought into that range, with a warning in the log.
  static constexpr uint32_t kMaxScriptStates = 64;
  uint32_t script_states = 1;
  // Journals running Lua tasks so that save() keeps them exactly (guide 11.6): every world
  // call a task makes (the thicket module, the agent's methods, agent.bb, print) records its
  // results, and a restored task is rebuilt by replaying its coroutine with them. Set it
  // before creating the runtime, in the runtime that saves and in the one that restores, when
  // you save agents whose tasks may be running; `thicket run --checkpoint/--resume` does. Off
  // (the default) it costs nothing, and a running task is saved as today: it starts again
  // after a restore, with thicket.restored() true. On, save() is refused (with the reason)
  // when a running task cannot be kept exactly.
  bool journal_tasks = false;
  // While it reads true, this runtime's Lua calls are stopped as interrupt_scripts() stops every
  // runtime's ("stopped: the run was interrupted"): a Ctrl-C meant for one runtime, not the
  // others of the process (the Python module's, each call its own). Set from any thread or a
  // signal handler; it must outlive the runtime. Null (the default): none.
  const std::atomic<bool>* interrupt = nullptr;
};

// The game's job system (SPEC 8.2): runs job(i) once for every i < n, in any order, on any
// threads, and returns when all have returned. The jobs are independent of each other.
using Executor = std::function<void(size_t n, const std::function<void(size_t)>& job)>;

// Stops every Lua call in progress or to come, in every runtime of the process, with an
// error ("stopped: the run was interrupted"); for Ctrl-C (async-signal-safe). Lasts until
// resume_scripts().
THICKET_API void interrupt_scripts();
THICKET_API void resume_scripts();

// One trace record per agent tick (SPEC 9 --trace), and the events of the tick, delivered
// before its Tick record: conditional aborts, fsm transitions and machine switches (--explain).
struct TraceEvent {
  enum class Type { Tick, Abort, Transition, Switch, Event } type = Type::Tick;
  uint64_t tick = 0;
  uint32_t agent = 0;
  Status status = Status::Invalid;        // Tick: the root's status
  std::vector<std::string> running;       // Tick: ids of running nodes, depth-first
  std::string composite, condition, aborted;  // Abort: node ids: where, which condition, what it interrupted
  std::string condition_label, aborted_label; // Abort: what those nodes are, e.g. "condition SeesEnemy"
  Status from = Status::Invalid, to = Status::Invalid;  // Abort: the condition's old and new result
  // Transition (an fsm changed state) and Switch (a behavior machine changed behavior):
  std::string brain;                    // the fsm's or machine's name
  std::string from_name, to_name;       // states or behaviors; from_name is "" for the initial
                                        // state's entry and a machine's first pick
  std::string transition;               // Transition: the name its reason returned ("" when a `when` check moved it)
  std::string cause, cause_label;       // node id and label of that reason leaf, `when` check or behavior check
                                        // (e.g. "b/when/0", "check n >= 1"); "" for the initial state, an
                                        // event (then `event` names it) and an `after` entry
  // Transition (SPEC 4.1): the states left, innermost first, and entered, outermost first;
  // `reload`: a hot reload removed from_name's active child (or moved it under another parent:
  // its path is gone all the same), and its descent is entered again;
  // `ended`: the brain ended, its top-level final state from_name left (to_name "", nothing
  // entered; the next tick enters the initial state again, as the brain's first).
  std::vector<std::string> exited, entered;
  bool reload = false, ended = false;
  // Event: an event (SPEC 4.1) taken off the agent's queue: its name, and the state that took
  // it ("" when no state took it and it was dropped). Transition: the event that caused it ("" if none).
  std::string event, taken_by;
  // Event, dropped: the first active state that maps it but could not take it ("" when none
  // maps it), and whether its guard failed (else the entry was refused: an enter_if on the
  // way); stale: the state that sent it was left before it was taken (with `reload`: a hot
  // reload removed that state, from_name, and dropped it then, at the agent's last tick);
  // queue_full: it never joined the queue, which held its most events already (it is reported
  // as it is sent).
  std::string refused_by;
  bool guard_failed = false, stale = false, queue_full = false;
};

// A brain's new version as a hot reload has compiled it, before it replaces the running one
// (Runtime::on_reload_check): what an embedder needs to decide whether it can drive it.
struct ReloadCandidate {
  std::string path;  // the brain's file (brain_path)
  std::string name;  // its name (`tree: NAME`)
  std::vector<std::pair<std::string, ValueType>> blackboard;  // its declared keys and types, in slot order
};

// What one reload did (SPEC 10), for tools that show reloads (a record, a live monitor).
struct ReloadReport {
  std::string file;         // the brain's YAML file or the Lua leaf file reloaded
  // false too for a watched file deleted or moved away (its error says so; the running
  // version stays): its next good reload, once it is back, is a report with ok.
  bool ok = false;
  std::string first_error;  // when !ok: the first error, "FILE:LINE:COL: message"
  std::vector<Diagnostic> diagnostics;  // every error and warning of the reload, in order
};

// One node of a loaded brain, for viewers (the record's header, thicket view): listed
// depth-first, as `thicket dump` numbers them.
struct NodeInfo {
  std::string id;      // the node id used in traces
  std::string kind;    // sequence, cooldown, action, fsm, state, machine, ...
  std::string label;   // a short text for drawing, e.g. "condition SeesEnemy"
  std::string params;  // e.g. "seconds: 2", "times: 3", "abort: self", a leaf's args, a check's expression; "" when none
  int32_t parent = -1; // index of the parent node; -1 for the root
  // Edges that are not parent/child: an fsm state's transitions (label: the transition's name,
  // or "when") to other states, a machine's check to the run node of its behavior.
  std::vector<std::pair<uint32_t, std::string>> links;
  // Where the node was written (the YAML value the compiler read for it), e.g. for an editor
  // that maps nodes to their text: the file (the brain's own or an imported one) and the
  // 1-based line and column; "" and 0 when unknown.
  std::string file;
  int line = 0, column = 0;
};

// A leaf the runtime knows (Runtime::leaves): its name and the script file that defined it
// ("" for a native leaf registered by the game).
struct LeafInfo {
  std::string name;
  std::string file;
};

class THICKET_API Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  // The agents go as they are: no stop hooks, no task cleanups (despawn them first when those
  // release resources of the game's).
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Loads a brain file with its imports and leaf files. On any error returns nullopt, fills
  // `diagnostics` with every problem found (each file's in the order of its lines, as `thicket
  // check` prints them), and leaves the runtime as it was. Loading,
  // restore, restore_agent, reload_changed, reload_files and register_leaf change what a tick
  // walks: called from a leaf during a tick they are refused with an error (in `diagnostics`,
  // or in the log) and change nothing.
  std::optional<BrainHandle> load_file(const std::string& path, std::vector<Diagnostic>& diagnostics);
  // The same from YAML text; `name` stands for the file in messages; relative leaf paths
  // resolve against name's folder.
  std::optional<BrainHandle> load_string(const std::string& yaml, const std::string& name,
                                         std::vector<Diagnostic>& diagnostics);
  // Registers (or replaces) a native leaf. Register before loading brains that use it. A leaf
  // with no name or no `tick` is refused (an error in the log) and nothing is registered.
  void register_leaf(const std::string& name, NativeLeaf leaf);
  void register_leaf(const std::string& name, NativeLeafFn leaf);

  AgentHandle spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& blackboard = {});
  // The same with a chosen agent id (> 0, unused): simulations split over several runtimes
  // keep one id space, and an agent's random stream depends on its id alone.
  AgentHandle spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& blackboard, uint32_t id);
  void despawn(AgentHandle agent);
  // true while spawn, despawn and send are queued rather than made: during a tick_all (from
  // its leaves), and while stop hooks run for a despawn, a hot reload or a restore. A spawn
  // then returns an invalid handle (see tick_all).
  bool defers_spawns() const;
  size_t agent_count() const;
  // Every live agent, in the order tick_all ticks them; and the live agent with this id.
  // After a restore, handles from before it are stale: find the agents again with these.
  std::vector<AgentHandle> agents() const;
  std::optional<AgentHandle> find_agent(uint32_t id) const;

  // Ticks one agent, or every live agent in slot order (agents()' order), by dt seconds. A
  // spawned agent takes the slot of the agent despawned most recently whose slot is still free,
  // else a new slot after all the others (a restore keeps the saved slots): without despawns,
  // that is spawn order. A dt that is not a positive number of seconds up to kMaxDt (0,
  // negative, NaN, infinite, or so large the clocks would overflow) ticks nothing and logs an
  // error (tick returns Status::Invalid).
  Status tick(AgentHandle agent, double dt);
  void tick_all(double dt);
  // The same on the game's threads (SPEC 8.2): the agents are split into independent jobs that
  // `executor` runs; the results are those of tick_all(dt), byte for byte, whatever the
  // executor does (traces and log lines are delivered after the jobs, in agent order). Native
  // leaves are called concurrently for different agents: a leaf may touch only its own agent
  // (LeafContext) and what no leaf changes during the tick. Lua leaves run on as many threads
  // at once as RuntimeOptions::script_states allows.
  //
  // During either tick_all, spawn, despawn and send called by leaves (from any job) are queued
  // and take effect when the tick_all ends, in agent order, then in call order: an agent
  // despawned during a tick finishes that tick and is never ticked again; an agent spawned
  // during a tick is first ticked by the next tick_all (spawn then returns an invalid handle:
  // choose the id with the id form of spawn to find it afterwards). Stop hooks that despawn,
  // a hot reload or restore run between ticks are treated the same: their calls are queued until
  // that call is done, and load, restore, reload, tick and register_leaf are refused.
  void tick_all(double dt, const Executor& executor);
  // Time slicing (SPEC 8.2): the agent is ticked only by every k-th tick_all (k >= 1; the
  // brain's `tick_every`, or 1, at spawn), on the calls where (call number mod k) equals
  // (agent id mod k), and then receives the sim time passed since its last tick as its dt.
  // false for a stale handle or k == 0.
  bool set_tick_every(AgentHandle agent, uint32_t every);
  uint32_t tick_every(AgentHandle agent) const;  // 0 for a stale handle

  // Events (SPEC 4.1): queues `event` for the agent; false for a stale handle or an empty
  // name, and when the agent's queue is full (4,096 events: the event is dropped, with a trace
  // Event whose queue_full is set and a log line once per brain). From outside a tick the event
  // joins the agent's queue at once; from a leaf during tick_all it joins at the end of the
  // tick_all (a leaf's send to its own agent: at once), and such a deferred send returns true
  // (a full queue drops it then). A trace or log callback reached from here is a stop hook to
  // the runtime: its spawn, despawn and send wait until send returns, its loads are refused.
  // The agent's next tick takes queued events off in order (at most 64 a tick); a brain with no
  // state machine that takes events drops them, with a trace Event whose taken_by is "".
  bool send(AgentHandle agent, const std::string& event);

  Status status(AgentHandle agent) const;
  // The brain the agent runs (an invalid handle for a stale agent).
  BrainHandle brain_of(AgentHandle agent) const;
  uint32_t agent_id(AgentHandle agent) const;
  std::vector<std::string> running_nodes(AgentHandle agent) const;
  std::optional<Value> get(AgentHandle agent, const std::string& key) const;
  bool set(AgentHandle agent, const std::string& key, const Value& v);
  std::optional<uint32_t> blackboard_slot(BrainHandle brain, const std::string& key) const;
  // The brain's declared blackboard keys in slot order (slot i is keys[i]), e.g. for a debugger
  // that lists an agent's blackboard; empty for a bad handle. A reload may change them.
  std::vector<std::string> blackboard_keys(BrainHandle brain) const;
  // A declared key's type; nullopt for a bad handle or an undeclared key.
  std::optional<ValueType> blackboard_type(BrainHandle brain, const std::string& key) const;
  // Fast access for game loops: a number key by its slot (from blackboard_slot), no string
  // lookup. false / NaN when the agent is stale or the slot is not a number key (set_number:
  // false for a NaN too, which a number key takes from nowhere; set() refuses it likewise).
  bool set_number(AgentHandle agent, uint32_t slot, double value);
  double get_number(AgentHandle agent, uint32_t slot) const;
  // The same for a boolean key (false when the agent is stale or the slot is not a boolean).
  bool set_bool(AgentHandle agent, uint32_t slot, bool value);
  // ... and for an integer key.
  bool set_integer(AgentHandle agent, uint32_t slot, int64_t value);

  // Trace events: every agent tick (Tick), every conditional abort (Abort), fsm transition
  // (Transition) and machine switch (Switch). Without a sink, none is made; with ticks false,
  // only the events are (no per-agent Tick record is built, e.g. for --explain alone). Called
  // from inside the sink, the new sink (or none) takes its place when that call returns. The
  // sink is called inside the tick (tick_all, tick and loads are refused from it); one that
  // throws in a tick_all or tick is not called again in it, which goes on to its end and then
  // throws the sink's exception (after a leaf's).
  void on_trace(std::function<void(const TraceEvent&)> sink, bool ticks = true);

  // Checks loaded files for changes and reloads them (SPEC 10); returns how many reloaded.
  size_t reload_changed();
  // The same, appending what each reload did to `reports` (when given).
  size_t reload_changed(std::vector<ReloadReport>* reports);
  // Reloads these files as if they had changed (a brain's YAML, or a Lua leaf file a running
  // brain uses), whatever the watcher says: simulations use it to bring a worker whose reload
  // failed level with the others (sim_reload.cpp).
  size_t reload_files(const std::vector<std::string>& files, std::vector<ReloadReport>* reports = nullptr);

  // Text forms of a loaded brain (SPEC 9: thicket dump / dot).
  std::string dump(BrainHandle brain) const;
  std::string dot(BrainHandle brain) const;
  // The node table of a loaded brain (empty for a bad handle), and its type: "tree", "fsm" or
  // "machine".
  std::vector<NodeInfo> nodes(BrainHandle brain) const;
  // Every leaf known to the runtime (registered natives and those of loaded leaf files), by name.
  std::vector<LeafInfo> leaves() const;
  std::string brain_type(BrainHandle brain) const;
  // The loaded brains: handles are 0 .. brain_count()-1. The name is the one after the kind
  // key (`tree: guard` -> "guard"); the path the file it was loaded from (the name given to
  // load_string). "" for a bad handle.
  size_t brain_count() const;
  std::string brain_name(BrainHandle brain) const;
  std::string brain_path(BrainHandle brain) const;
  // Appends one character per node of the agent's brain (nodes() order): R running, S success,
  // F failure, '.' not ticked yet (or aborted since): the status each node returned the last
  // time it ran. Appends nothing for a stale handle.
  void node_statuses(AgentHandle agent, std::string& out) const;
  // Bytes of state kept per agent of this brain (node state + blackboard + bookkeeping).
  size_t bytes_per_agent(BrainHandle brain) const;

  uint64_t script_errors() const;
  // Replaces where the run's log goes (RuntimeOptions::log); an empty function: stderr.
  void on_log(std::function<void(const std::string&)> sink);
  // The embedder's say on a hot reload of a brain's YAML (reload_changed, reload_files): called
  // once the new version has compiled with no error, before it replaces the running one. ""
  // takes it; any other text refuses it as a failed reload: the text is its error (in the
  // ReloadReport and the log, at the brain's file), the old version keeps running, and the
  // brain is retried when its files change. E.g. a game that writes blackboard keys by slot
  // refuses a version that no longer declares one (thicket-game does). Not called on load:
  // check a first load's keys with blackboard_type. An empty function: every version taken.
  // It runs inside the reload, on the thread that called it: it reads its argument and must
  // not call this runtime (a load, reload or tick from it is refused, as from a leaf).
  void on_reload_check(std::function<std::string(const ReloadCandidate&)> check);
  // Where Lua `print` lines go (one call per line, without its newline); an empty function:
  // standard output. Lines printed by jobs on several threads arrive in agent order.
  void on_print(std::function<void(const std::string&)> sink);
  // Agent ticks done so far by tick_all and tick (a time-sliced agent counts when ticked).
  uint64_t agent_ticks() const;

  // Snapshots (issue 15; guide "Snapshots", runtime/src/snapshot*.cpp). A snapshot names every
  // loaded brain (file path + a hash of its compiled content) and holds every live agent: id,
  // brain, node state (statuses, counters, timers, cooldowns, random composites' orders, fsm
  // states, machine behaviors), blackboard, clock, random stream, the plain-data values of
  // its Lua hook tables' `mem`. Running Lua tasks: with RuntimeOptions::journal_tasks, their
  // journals, so that after a restore they go on exactly where they were (replayed); without
  // it they start again from their beginning, with `thicket.restored()` true in that run.
  // Saved as well: each agent's time slicing (set_tick_every) and its queued events.
  void save(SnapshotWriter& out) const;
  void save(AgentHandle agent, SnapshotWriter& out) const;  // one agent (nothing for a stale handle)
  // The same, but refused when something cannot be saved exactly (a running task whose
  // journal holds a value that is not plain data or passed its cap, or that started before
  // journaling), or asked for by a leaf during a tick (the agents would be saved half ticked):
  // false, `out` untouched, a Diagnostic with the reason (also for a stale agent handle). The
  // two above write nothing and log the reason then (nothing for a stale handle).
  bool save(SnapshotWriter& out, std::vector<Diagnostic>& diagnostics) const;
  bool save(AgentHandle agent, SnapshotWriter& out, std::vector<Diagnostic>& diagnostics) const;
  // Replaces every agent with the snapshot's (same ids, same tick order), each with a brain of
  // this runtime loaded from the same file (load the brains first; restore loads nothing).
  // The agents it replaces are dropped as they are (no stop hooks, no task cleanups). A brain
  // whose compiled content changed since the save is remapped by node id as a hot reload
  // would (a note says so; a running node the edit removed is dropped without its stop hook,
  // one that cannot resume is stopped once every agent is in, and a stop hook that throws
  // there comes out at the end, the restore done). On any error returns false, fills `diagnostics` (no file name:
  // the caller knows where the bytes came from) and leaves the runtime exactly as it was.
  // `in` fails too when the bytes themselves are bad; otherwise it is left just past the
  // snapshot (a snapshot can sit inside a bigger file). A saved brain no agent uses need not
  // be loaded.
  bool restore(SnapshotReader& in, std::vector<Diagnostic>& diagnostics);
  // Adds the one agent of a save(agent, ...) snapshot (its id must be free); nullopt on error,
  // the runtime untouched.
  std::optional<AgentHandle> restore_agent(SnapshotReader& in, std::vector<Diagnostic>& diagnostics);
  // The same bytes through streams (false when the stream fails).
  bool save(std::ostream& out) const;
  bool restore(std::istream& in, std::vector<Diagnostic>& diagnostics);

  RuntimeImpl& impl() { return *impl_; }

 private:
  std::unique_ptr<RuntimeImpl> impl_;
};

}  // namespace thicket
