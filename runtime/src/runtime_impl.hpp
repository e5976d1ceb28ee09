// The runtime's insides, shared by the runtime, the engine, the script host and the CLI.
#pragma once
#include <atomic>
#include <cmath>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent.hpp"
#include "c_locale.hpp"
#include "compiler.hpp"
#include "leaf_host.hpp"
#include "program.hpp"
#include "script_errors.hpp"
#include "string_table.hpp"
#include "thicket/runtime.hpp"
#include "tick.hpp"

namespace thicket {

struct Brain {
  std::string path;
  BrainKind kind = BrainKind::Tree;
  std::unique_ptr<Program> program;
  std::vector<uint8_t> storage;     // one block of program->block_size bytes per row
  std::vector<uint32_t> row_agent;  // agent index of each row (UINT32_MAX = free)
  std::vector<uint32_t> free_rows;
  int bb_meta = -2;                 // script host's metatable of this brain's blackboard objects
  std::vector<int> lane_bb_meta;    // the same in script lanes 1..
  bool from_text = false;           // loaded from a string: nothing to watch
  // Its agents need the script host when ticked (a script leaf, or an `any` blackboard key):
  // tick_all(dt, executor) ticks them in their script lane's job (refresh_brain).
  bool scripted = false;
  // A YAML reload that failed (SPEC 10): the brain keeps running its previous version, and
  // the reload is tried again whenever one of `files` (its YAML and leaf files, old and as
  // the failed version named them) changes.
  struct Stale {
    std::string why;                 // the first error
    std::string since;               // when it failed: "t=T tick K"
    std::vector<std::string> files;
  };
  std::optional<Stale> stale;
  uint8_t* block(uint32_t row) { return storage.data() + size_t(row) * program->block_size; }
  // A row for agent `index`: a freed one if any, else a new block at the end (spawn, restore).
  uint32_t take_row(uint32_t index) {
    uint32_t row;
    if (!free_rows.empty()) {
      row = free_rows.back();
      free_rows.pop_back();
    } else {
      row = static_cast<uint32_t>(row_agent.size());
      row_agent.push_back(index);
      storage.resize(storage.size() + program->block_size);
    }
    row_agent[row] = index;
    return row;
  }
};

// Events an agent takes off its queue in one tick (SPEC 4.1), taken or dropped, and the most
// its queue holds (a storm beyond that is dropped and reported).
inline constexpr size_t kEventsPerTick = 64;
inline constexpr size_t kMaxQueuedEvents = 4096;
// The agents' node state a run's scripts may spawn to, and a scenario may start with (each
// agent one block of its brain's size): a big brain times many agents is refused with its
// figures, where it took the host's memory (a 70,000-node brain is 545 KB an agent).
inline constexpr size_t kMaxAgentStateBytes = size_t(4) << 30;

// What a leaf asked for during tick_all that waits for its end (SPEC 8.2): applied in the order
// of the asking agents (caller: its index, UINT32_MAX when no leaf asked), then of the calls.
struct Deferred {
  enum class Kind : uint8_t { Spawn, Despawn, Send } kind = Kind::Send;
  uint32_t caller = UINT32_MAX;
  BrainHandle brain;                                   // Spawn
  uint32_t id = 0;                                     // Spawn: a chosen id (0: the next)
  std::vector<std::pair<std::string, Value>> bb;       // Spawn
  AgentHandle target;                                  // Despawn, Send
  uint32_t event = 0;                                  // Send: the name, interned
};

// An agent's slicing and event queue, beside its AgentInfo (kept out of the record the walk
// reads): tick_all looks here only while some agent is sliced or has events queued.
struct AgentExtra {
  // The call number of its next tick while sliced (one compare per call instead of two
  // divisions); a value not in [calls, calls + every) is worked out again at its next tick_all
  // (tick_in_job), so whoever changes `every` or the call count sets it to kDueUnknown.
  static constexpr uint64_t kDueUnknown = UINT64_MAX;
  uint64_t due = kDueUnknown;
  uint32_t every = 1;     // ticked by every k-th tick_all (SPEC 8.2)
  bool sliced = false;    // its clock is the call clock (while every > 1)
  bool ticked = false;    // ticked since it was sliced
  double born = 0;        // the call clock when it was spawned
  double last = 0;        // the call clock of its last tick
  std::vector<QueuedEvent> events;  // queued events (SPEC 4.1), oldest first
};

// One job of a tick_all: the agents it ticks in index order and, while jobs run on several
// threads, what their ticks produced (trace events, log and print lines) for the runtime to
// deliver in agent order after all jobs are done.
// Aligned to a cache line: jobs sit side by side and each writes its own on every agent.
struct alignas(64) TickJob {
  RuntimeImpl* rt = nullptr;
  Engine* engine = nullptr;
  uint32_t agent = UINT32_MAX;  // the agent being ticked
  bool buffered = false;        // output goes to `out` (parallel jobs)
  std::pair<const uint32_t*, size_t> span{nullptr, 0};  // the agents (parallel jobs), in index order
  std::vector<Deferred> deferred;
  struct Out {
    enum class Kind : uint8_t { Trace, Log, Print, ScriptError } kind;
    uint32_t agent;
    TraceEvent trace;
    std::string text;
    ScriptErrorBook::Entry error{};  // ScriptError
  };
  std::vector<Out> out;
  int64_t events_delta = 0;     // queued events taken (-) and sent to own agents (+)
  uint64_t ticked = 0;          // agent ticks done
  // The first exception a leaf threw (a native leaf may throw): that agent's tick ends there,
  // the others go on, and tick_all rethrows the one of the lowest agent index at its end.
  std::exception_ptr error;
  uint32_t error_agent = UINT32_MAX;
  // A send storm (send_or_defer): an agent's sends in one tick, and past kMaxQueuedEvents of
  // them, its sends per target (filled then from its entries in `deferred`).
  uint32_t storm_caller = UINT32_MAX;
  uint32_t storm_sends = 0;
  std::unordered_map<uint32_t, uint32_t> storm_targets;
  // Whether this tick's agent's deferred send to `target` is kept: all are, but for those to
  // one target past kMaxQueuedEvents + 1, which delivery would drop without a word (the queue
  // holds kMaxQueuedEvents; the one after them is kept, so that delivery logs the drop).
  bool keeps_send(uint32_t target);
};
// Whether a blackboard key of type `t` takes `v` (runtime.cpp; set, spawn).
bool value_fits(ValueType t, const Value& v);

// The job the calling thread is running (null outside tick_all).
TickJob*& current_job();
// Makes `job` the calling thread's job for its lifetime.
class JobScope {
 public:
  explicit JobScope(TickJob& job) : outer_(current_job()) { current_job() = &job; }
  ~JobScope() { current_job() = outer_; }
  JobScope(const JobScope&) = delete;
  JobScope& operator=(const JobScope&) = delete;

 private:
  TickJob* outer_;
};

class RuntimeImpl {
 public:
  explicit RuntimeImpl(RuntimeOptions options);
  ~RuntimeImpl();

  std::optional<BrainHandle> load(const std::optional<std::string>& text, const std::string& path,
                                  std::vector<Diagnostic>& diags);
  // Parses, stages leaves and compiles; nothing is installed. nullptr on any error.
  // `read` (optional) gets the YAML and leaf files the source named, even when it fails.
  std::unique_ptr<Program> build(const std::optional<std::string>& text, const std::string& path,
                                 std::vector<Diagnostic>& diags, std::vector<LeafDef>& staged, BrainKind& kind,
                                 std::vector<std::string>* read = nullptr);
  // Installs staged leaves by name; returns their names.
  std::vector<std::string> commit_leaves(std::vector<LeafDef>& staged);
  // Marks which call sites need start/stop and points native call sites at their leaf, for
  // one brain (refresh_brain: loaded or reloaded) or for the brains that call any of `ids`
  // (leaves replaced by name); then sizes the batched walk's buffers (refresh_layout). A load
  // refreshes its own brain only: loading the n-th brain costs the same as loading the first.
  void refresh_brain(Brain& b);
  void refresh_callers(const std::vector<uint32_t>& ids);
  void refresh_layout();
  void register_native(LeafDef def);  // Runtime::register_leaf, both forms
  // Hot reload (SPEC 10): reload.cpp.
  void watch_brain(const Brain& b);
  size_t reload_changed();
  // Every file the loaded brains read: their YAML and leaf files, the modules those require,
  // and the files a version whose reload failed names (reload.cpp). What --watch watches, and
  // what no output of a run may be.
  std::vector<std::string> files_read() const;
  // Of those, the Lua files: the brains' leaf files and the modules they require (a checkpoint
  // keeps their content hashes, so a resume can say which were edited since).
  std::vector<std::string> lua_files_read() const;
  // The reload of these files (changed: new content; touched: same content, retries failed brains).
  size_t reload_paths(const std::vector<std::string>& changed, std::vector<std::string> touched);
  std::vector<ReloadReport>* reload_reports = nullptr;  // while a reload runs: where its outcomes go
  void report_reload(const std::string& file, bool ok, const std::vector<Diagnostic>& diags);
  bool reload_lua_file(const std::string& path);
  bool reload_brain(Brain& b, const std::string& changed);
  // "t=T tick K": the sim time and tick from which a reload done now takes effect.
  std::string reload_clock() const;
  std::optional<BrainHandle> load_checked(const std::optional<std::string>& text, const std::string& path,
                                          std::vector<Diagnostic>& diags);
  AgentHandle spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb);
  void despawn(AgentHandle agent);
  Status tick(uint32_t agent, double dt);
  void tick_all(double dt);  // every live agent, in index order
  void tick_all_in(TickJob& job, double dt);  // its body, in call_job
  void tick_all(double dt, const Executor& executor);  // the same on the game's threads
  // tick_all's pieces (tick_all.cpp): the call clock, one agent's tick in a job, the end.
  // begin_call: a new step size restarts the count of steps; returns the call's time, with
  // `extras` as long as `agents` (tick_in_job reads them). begin_step: the step size only (the
  // plain path, which reads neither).
  double begin_call(double dt);
  // The largest agent id: ids run from 1, and the id after the last one given must fit.
  static constexpr uint32_t kMaxAgentId = 0xFFFFFFFEu;
  // True (with an error in diagnostics, else in the log) when a tick is in progress: `what`
  // (load, restore, reload, register_leaf) would change what the tick walks.
  // Inline: tick_all asks it on every call, and at one agent its test is a measurable share.
  bool refuse_mid_tick(const char* what, std::string_view file, std::vector<Diagnostic>* diagnostics) {
    if (!ticking.load(std::memory_order_acquire)) [[likely]]
      return false;
    say_mid_tick(what, file, diagnostics);
    return true;
  }
  void say_mid_tick(const char* what, std::string_view file, std::vector<Diagnostic>* diagnostics);
  void begin_step(double dt) {
    if (dt != call_dt) {  // a new step size: count steps from the current call time
      call_epoch = call_time();
      call_steps = 0;
      call_dt = dt;
    }
  }
  // Ticks agent `index` in `job` if it is due (always when forced: Runtime::tick); returns its
  // root's status (Invalid when not ticked).
  Status tick_in_job(TickJob& job, uint32_t index, double dt, double now, bool forced = false);
  // Whether a sliced agent sits this tick_all out, its next call known and later (tested
  // before tick_in_job, which works out the rest: a sliced loop visits every agent).
  bool sits_out(uint32_t index) const {
    const AgentExtra& x = extras[index];
    return x.sliced && x.due > calls && x.due - calls < x.every;
  }
  void tick_plain(TickJob& job, double dt);
  void defer(Deferred d);
  // Script lanes (SPEC 8.2): the script states agents are spread over, and the engine of a
  // parallel job (job k < lanes runs lane k's agents with lane k's host).
  size_t script_lanes() const { return lane_hosts.size(); }
  uint32_t lane_of(const AgentInfo& a) const { return a.lane; }
  // Runs of kLaneRun ids share a lane, so that neighbouring agent records (and their blocks) are
  // written by one thread, not two (no false sharing between lanes' jobs).
  static constexpr uint32_t kLaneRun = 16;
  uint8_t lane_for(uint32_t id) const { return static_cast<uint8_t>((id / kLaneRun) % lane_hosts.size()); }
  Engine* lane_engine(size_t job);
  void finish_call(TickJob* const* jobs, size_t n);
  void run_deferred(std::vector<Deferred>& deferred);  // in their order (spawn, despawn, send)
  // After a HookScope: the calls its hooks deferred, and those theirs defer, until none is left.
  void run_hook_calls();
  void end_call(TickJob& job);  // after a call on one job: its counts, or finish_call when it has more
  // Gives the agent in slot `index` fresh slicing (its brain's tick_every) and an empty queue.
  void reset_extra(uint32_t index, const Program& p);
  double call_time() const { return call_epoch + static_cast<double>(call_steps) * call_dt; }

  // Spawn, despawn and send as the public API does them: queued while a tick_all runs.
  // leaf_agent: the index of the agent whose leaf asked for it in a tick (run_deferred), whose
  // refused spawn of an id in use (or past the largest) is a script error; UINT32_MAX: the game's.
  AgentHandle spawn_or_defer(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb, uint32_t id,
                             uint32_t leaf_agent = UINT32_MAX);
  void despawn_or_defer(AgentHandle agent);
  bool send_or_defer(AgentHandle agent, std::string_view event);
  // Queues the event at once; false (with a trace event and a log line) when the queue is full.
  // The name is interned only when it is queued; a deferred send holds it interned.
  bool queue_event(uint32_t index, std::string_view event);
  bool queue_event(uint32_t index, uint32_t interned);
  void drop_event(uint32_t index, std::string_view event);  // queue_event's full queue
  // The event queue of an agent (an element of `agents`) and the bookkeeping of what its own
  // tick puts on it and takes off it (pending_events, through the running job when there is one).
  // (An AgentInfo outside `agents`, as engine tests tick, gets a queue of its own.)
  std::vector<QueuedEvent>& queue_of(const AgentInfo& a) {
    const auto at = reinterpret_cast<uintptr_t>(&a), first = reinterpret_cast<uintptr_t>(agents.data());
    const size_t i = at >= first ? (at - first) / sizeof(AgentInfo) : SIZE_MAX;
    return i < agents.size() && i < extras.size() && &agents[i] == &a ? extras[i].events : loose_events;
  }
  std::vector<QueuedEvent> loose_events;
  void count_events(int64_t delta);
  // Fsm brains take their events in their own tick (tick_fsm.cpp); pending_events counts only
  // the events of other brains' agents, which tick_all must drop (and which keep it off its
  // fast path while any is queued).
  static bool takes_events(const Program& p) { return !p.nodes.empty() && p.nodes[0].kind == NodeKind::Fsm; }
  // Says `message` once per brain and key (the event storm, a failed initial descent), through
  // the error book: judged in agent order, and once for a simulation's workers together, which
  // share the book; `counted`: a script error, counted when said.
  void report_once(const Program& p, const std::string& key, std::string message, bool counted = false);
  // Whether report_once(p, key, ...) has spoken: a caller that would build its message on
  // every call (a flood of drops, a storm every tick) asks first. (Within a tick whose lines
  // wait for agent order, it may be built again until they are judged.)
  bool reported_before(const Program& p, const std::string& key) const {
    return errors->warned_before(p.name, ScriptErrorBook::kBrainNode, key);
  }
  // Errors the brains made at run time outside any leaf (an fsm's initial descent that cannot
  // be selected): counted with the script errors (Runtime::script_errors), so --strict stops.
  std::atomic<uint64_t> brain_errors{0};
  // Events the runtime sends (SPEC 4.1), interned once.
  uint32_t ev_success = 0, ev_failure = 0, ev_done = 0;
  // Trace events, log and print lines go straight out, or into the running job's buffer.
  void emit_trace(const TraceEvent& ev);
  void print(const std::string& line);
  void note_error(TickJob& job, uint32_t index);  // keeps the exception being handled
  std::vector<std::string> running_nodes(uint32_t agent) const;

  AgentInfo* agent_ptr(AgentHandle h) {
    if (h.index >= agents.size() || !agents[h.index].alive || agents[h.index].generation != h.generation) return nullptr;
    return &agents[h.index];
  }
  const AgentInfo* agent_ptr(AgentHandle h) const { return const_cast<RuntimeImpl*>(this)->agent_ptr(h); }
  uint8_t* block_of(const AgentInfo& a) { return brains[a.brain]->block(a.row); }
  Slot* slots_of(const AgentInfo& a) {
    Brain& b = *brains[a.brain];
    return reinterpret_cast<Slot*>(b.block(a.row) + b.program->bb_offset);
  }
  const Program& program_of(const AgentInfo& a) const { return *brains[a.brain]->program; }

  // Blackboard access from C++ (Value) with type checks.
  bool get_value(const AgentInfo& a, const std::string& key, Value& out);
  bool set_value(const AgentInfo& a, const std::string& key, const Value& v);

  void log(const std::string& line) const;
  // A reload notice: logged once per reload_paths pass, however many brains of the file say it
  // (two groups of a scenario load one brain file as two brains).
  void reload_log(const std::string& line) {
    if (reload_said && !reload_said->insert(line).second) return;
    log(line);
  }
  std::set<std::string>* reload_said = nullptr;  // set during reload_paths
  // Running nodes reloads aborted, by brain index, since the embedder last cleared it; and
  // those the same brains' reload aborted in other runtimes (a scenario's other workers, which
  // reload first and quietly), added to the notice's count so that it says the run's total.
  std::map<uint32_t, uint64_t> reload_aborted, reload_aborted_elsewhere;
  // The id of the agent whose stop hooks a reload is running (0: none): what they print and log
  // is that agent's, which a scenario's workers merge in agent order (sim_reload.cpp).
  uint32_t reload_agent = 0;
  std::function<void(const std::string&)> print_sink;  // Lua print (null: standard output)
  std::function<std::string(const ReloadCandidate&)> reload_check;  // Runtime::on_reload_check

  RuntimeOptions options;
  StringTable strings;
  // A deque: brains' hot calls point at its elements (NativeLeaf), which a push_back leaves
  // where they are.
  std::deque<LeafDef> leaves;
  std::map<std::string, uint32_t> leaf_ids;
  std::vector<std::unique_ptr<Brain>> brains;
  std::vector<AgentInfo> agents;
  std::vector<AgentExtra> extras;  // parallel to agents
  std::unordered_map<uint32_t, uint32_t> by_id;  // live agents: id -> index
  std::optional<uint32_t> find_index(uint32_t id) const {
    auto it = by_id.find(id);
    if (it == by_id.end()) return std::nullopt;
    return it->second;
  }
  std::vector<TickJob> parallel_jobs;  // tick_all(dt, executor)'s jobs: one per lane, then chunks
  // tick_all(dt, executor)'s list of this call's jobs and their started flags, kept between
  // calls: a call allocates nothing once they are as large as it needs (SPEC 11).
  std::vector<TickJob*> parallel_list;
  std::unique_ptr<std::atomic<bool>[]> parallel_started;
  size_t parallel_started_size = 0;
  std::vector<Deferred> deferred_spare;  // finish_call's list of deferred calls, kept likewise
  size_t sliced_agents = 0;        // agents with AgentExtra::sliced (they take the general path)
  // Agents set back to tick_every 1 after a sliced tick not at the last call: they stay sliced
  // (every call, dt since their last tick) for one more tick, so that the sim time between their
  // last sliced tick and now is not lost, and go back to their own clock at the next call's start.
  std::vector<uint32_t> unslicing;
  double last_call_now = -1;  // the call clock of the last tick_all that looked at sliced agents
  void unslice_ready();
  void unslice(uint32_t index);  // ticked by every call again, on its own clock from the call clock's time
  bool refuse_native(const std::string& name, bool has_tick);
  // True (and logged) unless 0 < dt <= kMaxDt (runtime.hpp; NaN and inf fail). Inline: every
  // tick_all asks.
  bool refuse_dt(const char* what, double dt) {
    if (dt > 0 && dt <= kMaxDt) [[likely]]
      return false;
    log_bad_dt(what, dt);
    return true;
  }
  void log_bad_dt(const char* what, double dt);
  bool is_sliced(uint32_t index) const { return index < extras.size() && extras[index].sliced; }
  int64_t pending_events = 0;      // events queued over the agents of brains other than fsm ones
  // The call clock (SPEC 8.2): tick_all calls so far, and their sim time, drift-free as an
  // agent's clock is (epoch + steps * dt while dt stays the same).
  uint64_t calls = 0;
  double call_epoch = 0, call_dt = 0;
  uint64_t call_steps = 0;
  // A tick_all is running, or leaves' hooks outside one (HookScope): spawn/despawn/send are
  // deferred, and load, restore, reload, tick and register_leaf refused.
  std::atomic<bool> ticking{false};
  bool running_hook_calls = false;  // run_hook_calls is at work (a nested one leaves it the rest)
  uint64_t agent_ticks = 0;        // agent ticks done by tick_all and tick (Runtime::agent_ticks)
  TickJob outside_job;             // deferred calls from threads not running a job
  TickJob call_job;                // tick_all(dt)'s one job, kept from call to call (nothing built per call)
  std::mutex outside_mutex;
  std::atomic<bool> outside_pending{false};
  // Spawns queued during this tick_all, not yet made: thicket.spawn counts them against
  // RuntimeOptions::max_script_agents (finish_call sets it back to 0).
  std::atomic<size_t> queued_spawns{0};
  std::vector<std::unique_ptr<Engine>> job_engines;  // engines of parallel jobs (made on demand)
  // tick_all(dt, executor)'s split of the agents, kept while no agent, brain or leaf changes:
  // the agents of scripted brains per lane, then the others, each list in index order.
  uint64_t layout_version = 0;     // bumped by spawn, despawn, restore, refresh_layout
  uint64_t split_version = UINT64_MAX;
  std::vector<std::vector<uint32_t>> split_lanes;
  std::vector<uint32_t> split_native;
  std::vector<uint32_t> free_agents;
  uint32_t next_agent_id = 1;
  // A leaf's error report (a script host's): printed or only counted, in agent order, so that
  // the log is the same on any number of threads. The same error at a node (thousands of
  // agents running one broken leaf) is printed kPrintedRepeats + 1 times, and a node prints
  // kPrintedPerNode reports whatever they say (an agent id or the tick in each message); the
  // rest are counted in the summary's script errors only.
  // A warning (`warning`): printed the first time its key is said at the node, in the same
  // order, and not counted as an error (--strict does not stop for it).
  void script_error(const Program& program, uint32_t node, std::string key, std::string text, bool warning = false,
                    bool counted = false);
  // Whether script_error would not print this one (key "": only whether the node prints no
  // more). A true answer holds for good (the counts only grow), so a host may skip wording the
  // error. Read by workers during a parallel tick_all; written only between, at delivery.
  bool script_error_silenced(const Program& program, uint32_t node, const std::string& key) const;
  // Whether script_error would not print the warning `key` (said before): a host skips wording it.
  bool script_warned(const Program& program, uint32_t node, const std::string& key) const {
    return errors->warned_before(program.name, node, key);
  }
  ScriptErrorBook own_errors;
  ScriptErrorBook* errors = &own_errors;  // a simulation's workers share theirs
  // Set by a simulation whose workers (a runtime each) tick at once: it holds their errors
  // with their lines and has the shared book judge them in agent order.
  std::function<void(ScriptErrorBook::Entry)> error_sink;
  // Spawns refused for an id in use, said this often, then refused without a word (a leaf that
  // "makes sure its companion exists" by spawning its id every tick wrote a line a tick).
  static constexpr uint32_t kInUseSaid = 6;
  uint32_t in_use_said = 0;
  // A snapshot's brain paths and the loaded brains' paths they stand for, when they are spelt
  // differently: a scenario's checkpoint names its groups' brains as the saving run did
  // (relative to its working folder), and a resume from another folder loads them under other
  // paths (Simulation::restore fills it for the length of a restore).
  std::map<std::string, std::string> restore_paths;
  // Brain paths resolved as one file (weakly_canonical) by restores, keyed by the working folder
  // and the path: a scenario resumed on another thread count restores its agents one by one,
  // and each restore resolved every loaded brain's path again (syscalls for every folder on the
  // way: 4x the restore of 10,000 arena agents).
  std::map<std::string, std::string> path_keys;
  bool reusing_ids = false;    // next_agent_id passed kMaxAgentId: ids no live agent has are given
  uint32_t reuse_cursor = 1;   // the lowest id that may be free then
  size_t live_agents = 0;
  std::unique_ptr<ScriptHost> script;  // Lua leaves (bindings/lua); made before the engine
  // A leaf file has been loaded (commit_leaves): the calls that may run a script then run it in
  // the "C" locale (CLocaleScope; c_locale.hpp). Never false again once true.
  bool scripts_loaded = false;
  // The script lanes (script_lanes.cpp): one host per RuntimeOptions::script_states; with
  // more than one, `script` fans loading out to all and sends an agent's calls to its lane's.
  std::vector<ScriptHost*> lane_hosts;
  std::unique_ptr<Engine> engine;
  std::function<void(const TraceEvent&)> trace_sink;
  bool trace_ticks = true;  // deliver a Tick record per agent tick (false: events only)
  // A sink set (or cleared) by Runtime::on_trace while the sink is being called: it takes the
  // sink's place when that call returns (replacing a std::function destroys the one running).
  int trace_calls = 0;
  std::optional<std::pair<std::function<void(const TraceEvent&)>, bool>> trace_next;
  void call_trace_sink(const TraceEvent& ev);
  // A sink that throws during a tick_all or tick (SinkErrors, tick_all.cpp): its first exception
  // is kept, the sink is not called again in that call, the call goes on to its end (every
  // agent ticked, the deferred calls carried out) and then throws it (a leaf's comes first).
  // It threw through the tick: the agents after it went unticked, the queued spawns and
  // despawns were lost, and the call's ticks were counted in a later one.
  bool collect_sink_errors = false;
  std::exception_ptr sink_error;
  struct SinkErrors {
    RuntimeImpl& rt;
    bool outer;
    explicit SinkErrors(RuntimeImpl& r) : rt(r), outer(!r.collect_sink_errors) {
      if (outer) rt.collect_sink_errors = true, rt.sink_error = nullptr;
    }
    ~SinkErrors() {
      if (outer) rt.collect_sink_errors = false, rt.sink_error = nullptr;
    }
    void rethrow() {
      if (outer && rt.sink_error) std::rethrow_exception(std::exchange(rt.sink_error, nullptr));
    }
    SinkErrors(const SinkErrors&) = delete;
    SinkErrors& operator=(const SinkErrors&) = delete;
  };
  // The walk's shortcuts for common nodes (Program::ops); false sends every node through the
  // general path, which tests compare the shortcuts with.
  bool fast_ops = true;
  // tick_all ticks the agents of a batchable brain (Program::batchable) together
  // (Engine::tick_batch) when the brain has at least this many live agents, in batches of up to
  // Engine::kBatchMax; a last batch smaller than this goes one by one. Below ~24 agents the
  // batched walk is slower than one agent at a time on T31. 0: never batch (tests compare the
  // two walks).
  uint32_t batch_min = 32;
  struct BrainBatch {
    bool on = false;  // this tick_all batches the brain's agents
    uint32_t size = 0;
    Engine::BatchAgent agents[Engine::kBatchMax];
  };
  std::vector<BrainBatch> batches;  // tick_all's batch per brain
  bool any_batchable = false;       // some brain's program is batchable (refresh_layout)
  std::unique_ptr<TraceSink> abort_tracer;
  std::unique_ptr<class FileWatcher> watcher;
  bool snapshot_drops_reported = false;  // a save left script values out, and said so (snapshot.cpp)
};

// An agent's clock before and after its tick (SPEC 3.1: tick k at exactly (k-1)*dt while dt
// stays the same).
inline void clock_before(AgentInfo& a, double dt) {
  ++a.ticks;
  if (dt != a.dt) {  // a new step size: count steps from the current time
    a.epoch = a.time;
    a.steps = 0;
    a.dt = dt;
  }
}
inline void clock_after(AgentInfo& a, double dt) { a.time = a.epoch + static_cast<double>(++a.steps) * dt; }

// `ticking` for a tick's scope, put back however the scope ends: a trace sink that threw left
// the runtime "in a tick" for good (every later tick_all, load and reload refused).
struct TickingFlag {
  std::atomic<bool>& flag;
  explicit TickingFlag(std::atomic<bool>& f) : flag(f) { flag.store(true, std::memory_order_release); }
  ~TickingFlag() { flag.store(false, std::memory_order_release); }
  TickingFlag(const TickingFlag&) = delete;
  TickingFlag& operator=(const TickingFlag&) = delete;
};

// Leaves' hooks that run between ticks (a despawn's stop hooks, a reload's for its removed
// nodes, a restore's for the nodes it restarts) are a tick's leaves to the runtime: their
// spawn, despawn and send wait until the hooks are done, and load, restore, reload, tick and
// register_leaf are refused. The caller holds pointers into the agent and brain arrays across
// the hooks: a stop hook's spawn grew them under it, and a despawn of its own agent despawned
// it again from inside. The outermost scope's owner calls RuntimeImpl::run_hook_calls after it.
class HookScope {
 public:
  explicit HookScope(std::atomic<bool>& ticking)
      : flag_(ticking), outer_(!ticking.load(std::memory_order_acquire)) {
    if (outer_) flag_.store(true, std::memory_order_release);
  }
  ~HookScope() {
    if (outer_) flag_.store(false, std::memory_order_release);
  }
  bool outer() const { return outer_; }
  // Ends the scope before its end of block (read outer() first: it is false after).
  void end() {
    if (outer_) flag_.store(false, std::memory_order_release);
    outer_ = false;
  }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

 private:
  std::atomic<bool>& flag_;
  bool outer_;
};

// While the running nodes of an agent are stopped between its ticks (a despawn, a hot reload),
// its clock shows its last tick, as thicket.tick() does: after a tick the clock already holds
// the next tick's time (a time-sliced agent's does not move on). Put back when done.
struct LastTickClock {
  AgentInfo& a;
  double next;
  LastTickClock(AgentInfo& agent, bool sliced) : a(agent), next(agent.time) {
    if (!sliced && a.steps > 0) a.time = a.epoch + static_cast<double>(a.steps - 1) * a.dt;
  }
  ~LastTickClock() { a.time = next; }
  LastTickClock(const LastTickClock&) = delete;
  LastTickClock& operator=(const LastTickClock&) = delete;
};

}  // namespace thicket
