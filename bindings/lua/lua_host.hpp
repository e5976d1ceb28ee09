// The Lua side of the runtime: one sandboxed lua_State, the `thicket` module, leaf files,
// agent and blackboard objects, and the script host (leaf_host.hpp) the tick loop calls for
// Lua leaves. The core knows it only as a ScriptHost (made by make_script_host).
#pragma once
#include <lua.hpp>

#include <map>
#include <set>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent.hpp"
#include "compiler.hpp"
#include "leaf_host.hpp"
#include "lua_guard.hpp"
#include "thicket/diagnostic.hpp"
#include "thicket/status.hpp"

namespace thicket {

class RuntimeImpl;
struct Brain;

class LuaHost final : public ScriptHost {
 public:
  // For C functions that run long without returning to Lua (the pattern matcher): raises the
  // watchdog's error in the running call if it has been told to stop (its time limit, Ctrl-C).
  static void check_stop(lua_State* L);
  // Whether the call running on L has been told to stop (its time limit, Ctrl-C).
  static bool told_to_stop(lua_State* L);
  // lua_load of Lua text (luaL_loadbufferx's arguments) in pieces, asking check_stop between
  // two: Lua's compiler runs in C, where the count hook never fires, and some texts take it
  // quadratic time (an if/elseif chain thousands of branches long: each elseif walks the list
  // of jumps pending before it; 2.8 MB of one took 60 s). A compile past the running call's
  // time limit fails with the watchdog's error.
  static int load_text(lua_State* L, const char* text, size_t len, const char* chunkname, const char* mode);
  // Whether the yield co's resume just returned was the count hook stopping it (stop_from_hook;
  // its message in stop_yield_message()); taken once.
  bool take_stop_yield(lua_State* co);
  const std::string& stop_yield_message() const { return stop_yield_message_; }
  explicit LuaHost(RuntimeImpl& rt);
  ~LuaHost() override;
  LuaHost(const LuaHost&) = delete;
  LuaHost& operator=(const LuaHost&) = delete;

  lua_State* state() const { return L_; }

  // Script lanes (SPEC 8.2): lane 0 keeps its references in LeafDef::fn.., LeafCall::args_ref
  // and Brain::bb_meta; lane k > 0 in the k-1-th entry of their lane vectors.
  void set_lane(uint32_t lane) override { lane_ = lane; }
  uint32_t lane() const { return lane_; }
  LeafDef::Refs refs(const LeafDef& l) const {
    if (lane_ == 0) return {l.fn, l.start, l.tick, l.stop};
    return lane_ <= l.lane_refs.size() ? l.lane_refs[lane_ - 1] : LeafDef::Refs{};
  }
  int args_ref(const LeafCall& c) const { return lane_ == 0 ? c.args_ref : c.lane_args[lane_ - 1]; }
  int& args_slot(LeafCall& c) {
    if (lane_ == 0) return c.args_ref;
    if (c.lane_args.size() < lane_) c.lane_args.resize(lane_, -2);
    return c.lane_args[lane_ - 1];
  }
  int& bb_meta_slot(Brain& b);

  // ScriptHost (leaf_host.hpp): loading, agents, and the calls of Lua leaves.
  void set_loading_files(std::vector<std::string> files) override;
  std::map<std::string, std::set<std::string>> module_users() const override { return module_users_; }
  void forget_module(const std::string& path) override;
  void settle_module(const std::string& path) override;
  bool stage_leaf_file(const std::string& path, std::vector<LeafDef>& out, std::vector<Diagnostic>& diags) override;
  std::map<std::string, std::string> data_entries(const std::string& path) const override {
    auto it = data_entries_.find(path);
    return it == data_entries_.end() ? std::map<std::string, std::string>{} : it->second;
  }
  void release_leaf(LeafDef& def) override;
  void install_args(Program& p) override;
  void release_args(Program& p) override;
  void install_brain(Brain& b, uint32_t brain_index) override;
  void create_agent(AgentInfo& a) override;
  void destroy_agent(AgentInfo& a) override;

  Status condition(const CallSite& at) override;
  Status start(const CallSite& at) override;
  Status tick(const CallSite& at) override;
  bool stop(const CallSite& at, Status s, bool keep_mem) override;
  void drop_mem(const CallSite& at) override;
  void call_plain(const CallSite& at) override;
  bool reason(const CallSite& at, std::string_view& transition) override;
  void unmapped_transition(const CallSite& at, const std::string& state, std::string_view transition) override;

  void remap_mem(AgentInfo& a, const std::vector<uint32_t>& to_new) override;
  void call_on_reload(const LeafDef& hook, const std::string& file) override;
  void release_ref(const AgentInfo& a, int ref) override;

  Value any_value(const AgentInfo& a, int ref) override;
  int set_any_value(const AgentInfo& a, int old_ref, const Value& v) override;
  uint64_t script_errors() const override { return errors; }

  // Snapshots (lua_snapshot.cpp).
  void save_agent(const AgentInfo& a, SnapshotWriter& out, SnapshotDrops& drops) override;
  void save_any(const AgentInfo& a, int ref, SnapshotWriter& out, SnapshotDrops& drops) override;
  size_t plain_budget(SnapshotDrops& drops) const;  // (lua_snapshot.cpp)
  void restore_agent(AgentInfo& a, const ScriptAgentState& s) override;
  int any_from_plain(const AgentInfo& a, const PlainValue& v) override;
  void save_task(const AgentInfo& a, const Program& p, uint32_t node, SnapshotWriter& out, SnapshotDrops& drops);
  // What a restored task's mem slot holds until its next tick starts it again.
  static void* restored_task_mark() {
    static char mark;
    return &mark;
  }
  // Whether the task run at this call site began by restarting after a restore.
  bool task_restored(const CallSite& at);
  void mark_restored(lua_State* co);  // adds a task run's coroutine to the restarted set

  // Task journals (RuntimeOptions::journal_tasks; guide 8.6, 11.6): with journaling on, every
  // world call a task's coroutine makes (a host function that observes or changes anything
  // outside the coroutine) passes a gate that appends its results to the task run's journal;
  // a restored task is rebuilt by replaying its coroutine to the saved resume count, the gates
  // answering from the journal without doing anything. Off, no gate is installed.
  struct TaskJournal {
    SnapshotWriter bytes;    // per call: u32 function id, u8 kind (0 results, 1 error), u32 n, n values
    uint32_t entries = 0;
    uint32_t resumes = 0;    // resumes of the coroutine so far
    bool restarted = false;  // the run restarted after a restore (thicket.restored() true in it)
    std::string unsaveable;  // why this run cannot be saved exactly ("": it can)
  };
  static constexpr uint32_t kJournalMaxEntries = 100000;
  static constexpr size_t kJournalMaxBytes = size_t(16) << 20;
  static constexpr uint32_t kJournalMaxResumes = 100000;
  bool journaling() const { return journal_; }
  // Puts a gate in front of the C functions `names` of the table at idx (every C function in
  // it when names is empty); `prefix` + name is how errors name them. Nothing when off.
  void journal_wrap(int idx, const char* prefix, std::initializer_list<const char*> names = {});

  // A metatable given to every agent table created from now on (simulations put the world
  // methods in its __index); and a pointer for the world API to find its simulation.
  void set_agent_metatable(int ref);
  void push_module() { lua_rawgeti(L_, LUA_REGISTRYINDEX, thicket_ref_); }
  void* world = nullptr;

  // Where require() may look: the folders of the loaded leaf files.
  void allow_module_dir(const std::string& dir);

  // The call in progress (for thicket.time() and friends); null between calls.
  const CallSite* current() const { return current_; }

  // Pushes the interned text `id` on L (a thread of this state). A text past Lua's short
  // strings (40 bytes), which Lua would make anew on every push, comes from a small cache of
  // the long texts pushed last: a leaf reading the same long text tick after tick allocates
  // nothing.
  void push_text(lua_State* L, uint32_t id);

  uint64_t errors = 0;
  uint64_t interrupt_said_at_ = 0;  // 1 + the tick_all (RuntimeImpl::calls) a call Ctrl-C stopped was said in

  // The message of the last unknown name a leaf asked for (a blackboard key, a module field),
  // with what it was asked of: a leaf asking every tick builds its did-you-mean once. Cleared
  // whenever a brain's program is installed (a program may take a freed one's address).
  std::string missing_key_, missing_msg_;
  // Where a leaf's require found each module (brain, name -> the module's file), so that a
  // require inside a leaf does not search the folders again on every call (with the module in
  // a brain's second leaf folder, each call tested for a file in the first: a stat a call).
  // Cleared whenever a program is installed (install_args).
  std::map<std::pair<const Program*, std::string>, std::string> require_found_;

  // The Lua heap of this state (bytes in use, the cap) and its watchdog guard.
  const LuaHeap& heap() const { return heap_; }

  // The environment of a leaf file or module: its own globals (copies of the sandbox's
  // functions and libraries), kept per file across reloads; pushed on the stack.
  void push_file_env(lua_State* L, const std::string& path);
  // A fresh environment for `path`, carrying the globals of the file's last good run when
  // from_previous (a reload); keep_file_env makes the one on top of the stack the file's.
  void push_new_env(lua_State* L, const std::string& path, bool from_previous);
  void keep_file_env(const std::string& path);
  // The global `name` of the first leaf file that has one, or nil (benchmarks and tests read
  // counters that leaf files keep).
  void push_leaf_global(const char* name);
  // What the standard require("thicket") gives trusted modules: a read-only face of the module
  // table (leaf files get a copy of their own, see push_file_env).
  void push_module_face();

 private:
  class CallScope;
  void open_sandbox();
  // A hint for Lua's words about a name the sandbox leaves out ("attempt to index a nil value
  // (global 'io')"): what the sandbox has and how to lift it. "" for any other message, and
  // under --trusted.
  std::string sandbox_hint(std::string_view message) const;
  void open_thicket_module();
  bool pcall(int nargs, int nresults, const CallSite& at, const LeafDef& leaf);
  void call_failed(const CallSite& at, const LeafDef& leaf);
  Status task_resume(const CallSite& at, const LeafDef& leaf, bool first);
  // A coroutine for a new run of the task at `at` (from the pool when one is idle), stored
  // in the agent's mem under the node, with the task's function on its stack.
  lua_State* new_task_thread(const CallSite& at, const LeafDef& leaf);
  // Rebuilds the restored task run at `at` (its mem slot holds a journal record) by replaying
  // a fresh coroutine; the coroutine, now in the slot, or null when the replay diverged (then
  // the slot is empty and a warning was logged).
  lua_State* replay_task(const CallSite& at, const LeafDef& leaf);
  bool is_journal_record(int idx);
  int resume_guarded(lua_State* co, int nargs, int* nres);  // lua_resume under the watchdog
  // A fresh run's arguments (agent, args), pushed on co above its body; the count for lua_resume.
  int push_task_start(lua_State* co, const CallSite& at);
  // How many of a script's xpcall frames suspended co runs inside (task_release); 64 past
  // 64 levels, which it does not walk.
  static int xpcalls_in(lua_State* co);
  // xpcall frames begun and not ended (LuaApi::xpcall): when none is, no thread is suspended
  // inside one and task_release need not look. One dropped with its coroutine (closed while
  // suspended inside it, or collected) is never ended: this then only overcounts.
  int64_t xpcalls_open_ = 0;
  static int journal_gate(lua_State* L);
  // A gate's upvalues: the gated function's own first (it may run on the gate's frame), then these.
  static constexpr int kGateOwnUpvalues = 2;
  static constexpr int kGateName = kGateOwnUpvalues + 1, kGateId = kGateOwnUpvalues + 2,
                       kGateFunction = kGateOwnUpvalues + 3, kGateDirect = kGateOwnUpvalues + 4;
  int replay_call(lua_State* L);
  void journal_results(lua_State* L, TaskJournal& j, bool ok);
  std::string task_label(const AgentInfo& a, const Program& p, uint32_t node) const;
  void task_release(const CallSite& at, bool cancel);
  void report(const CallSite& at, const LeafDef& leaf, const std::string& message);
  // A warning at a leaf call: said the first time `key` comes at its node, not counted as an
  // error (RuntimeImpl::script_error's warnings).
  // `once`: what the warning is said once for ("this node"; "this node and event" where each
  // name is said once).
  void warn(const CallSite& at, std::string_view leaf_name, const std::string& key, const std::string& message,
            std::string_view once = "this node");
  // A read of thicket's status constants as globals (`return SUCCESS`, the `thicket.` left
  // out): nil, which an action takes as failure without a word. Warned once at its node in a
  // leaf call; at a leaf file's load, kept for stage_leaf_file's warnings.
  void status_global_read(lua_State* L, const char* name);
  // A leaf sends `name` to `to`: when no state of its brain takes it and a name one takes is a
  // letter or two away (a typo: the event would be dropped without a word), a warning, said
  // once for the sending node.
  void event_typo(const AgentInfo& to, std::string_view name);
  struct GlobalRead {
    std::string file;
    int line = 0;
    std::string name;
  };
  std::vector<GlobalRead> status_globals_read_;  // while a leaf file loads
  static std::string status_global_words(const std::string& name);
  // Whether the runtime would only count `message` (an error without its traceback) at `at`
  // (RuntimeImpl::script_error_silenced): the message handler then makes no traceback, the
  // costliest part of a failing leaf call (luaL_traceback searches the loaded libraries for the
  // name of every frame's function).
  bool repeat_silenced(const CallSite& at, std::string_view message) const;
  // "file.lua:LINE: " where the heap's cap was met in the last refused call, or "".
  std::string refused_at_prefix() const;
  Status to_status(int idx, const CallSite& at, const LeafDef& leaf, bool condition);
  void push_args(const CallSite& at);
  void push_mem_table(const CallSite& at);
  void push_mem(AgentInfo& a);  // the agent's mem table, made on first use

  // One count hook for both guards: the instruction budget (every budget/8 instructions) and
  // the watchdog's stop (count 1, installed asynchronously; then kStopGraceInstructions).
  static void guard_hook(lua_State* L, lua_Debug* ar);
  static int raise_stop(lua_State* L, int level = 0);  // level: luaL_where's, of the position shown
  static void push_stop(lua_State* L, int level = 0);  // raise_stop's message, pushed
  // luaL_loadfilex(L, path, "t") from a file read once, within bounds (read_limited): a plain
  // file of at most 64 MB, whatever it is swapped for while it is read.
  // `text`: the file's text, when given.
  static int load_lua_file(lua_State* L, const std::string& path, std::string* text = nullptr);
  // Lua cuts a chunk name longer than LUA_IDSIZE - 1 characters to "..." and its last ones in
  // messages and tracebacks: load_lua_file remembers the files it loads under such paths, and
  // full_chunk_names puts their cut names back whole in a text thicket prints (so that an editor
  // can jump to FILE:LINE). A cut name two files share stays cut.
  static std::string full_chunk_names(std::string text);
  static void stop_from_hook(LuaHost* h, lua_State* L, bool may_yield);
  static void push_budget_stop(LuaHost* h, lua_State* L);
  // The call in progress has run past its instruction budget.
  bool over_budget() const { return hook_serial_ == call_serial_ && hook_count_ > kBudgetSlices; }
  int stopped_task(lua_State* co, int rc, int* nres);
  static uint64_t marked_call(const LuaHost& h);
  void restore_hook(lua_State* L);
  Status complain_status(int idx, const CallSite& at, const LeafDef& leaf, bool condition);
  Status returned_nothing(const CallSite& at, const LeafDef& leaf, int fn_ref, const char* what);
  // "FILE:LINE: " where the function of fn_ref is defined ("" when unknown): where a leaf's
  // wrong result is said, as a Lua error is.
  std::string defined_at(int fn_ref);
  // The function a leaf's result comes from: its tick hook, else its function.
  int result_fn(const LeafDef& leaf) { return leaf.shape == LeafShape::Hooks ? refs(leaf).tick : refs(leaf).fn; }
  static constexpr uint64_t kBudgetSlices = 8;
  static constexpr uint32_t kLoadLimitScale = 20;  // running a leaf file may take 20 call limits
  static constexpr int kHandlerSlot = 1;  // the message handler stays at this stack slot

  RuntimeImpl& rt_;
  uint32_t lane_ = 0;
  LuaHeap heap_;
  LuaGuard guard_;
  lua_State* L_ = nullptr;
  int budget_slice_ = 0;      // count-hook interval (0: no budget)
  bool leaves_budgeted_ = false;  // the budget counts the main thread's calls too (--budget-all)
  uint64_t call_serial_ = 0;  // bumped by every leaf call and resume
  uint64_t hook_serial_ = 0;  // the call the budget hook last fired in
  uint64_t hook_count_ = 0;   // how often it fired in that call
  uint64_t stopping_serial_ = 0;    // the call stopped at its time limit (past its grace)
  uint64_t grace_calls_ = 0;        // function calls made during the grace (kStopMask's calls)
  std::string stop_message_;        // that stop's message, raised again as it is while the call runs
  uint64_t stop_message_serial_ = 0;
  uint64_t loop_grace_serial_ = 0;
  std::string budget_message_;  // the budget's stop of the call budget_message_serial_, raised again as it is
  uint64_t budget_message_serial_ = 0;  // the call a C loop's poll found past its time limit
  // The task run task_resume is resuming: its message handler (LuaApi::task_handler) reports
  // the run's error where it was raised, before the unwinding runs its cleanups, and marks the
  // coroutine it reported (null: not yet).
  const CallSite* task_resuming_ = nullptr;
  const LeafDef* task_leaf_ = nullptr;
  lua_State* task_reported_ = nullptr;
  // A stop lifted while a coroutine's cleanups run as its error unwinds (LuaApi::co_handler):
  // the call it stopped, raised on again by LuaApi::based_k.
  uint64_t unwind_stop_serial_ = 0;
  // The coroutine whose error is unwinding it: a thicket.defer cleanup runs to its end there,
  // as a cancelled task's does (LuaApi::cleanup_may_yield).
  lua_State* unwinding_ = nullptr;
  // The lifted stop back in force, once the cleanups ran (after a resume or a close ends).
  uint64_t unwind_budget_serial_ = 0;  // the same for a stop by the instruction budget
  void end_unwind() {
    unwinding_ = nullptr;
    if (unwind_budget_serial_ != 0) {
      if (unwind_budget_serial_ == call_serial_ && hook_serial_ == call_serial_ && hook_count_ <= kBudgetSlices)
        hook_count_ = kBudgetSlices + 1;
      unwind_budget_serial_ = 0;
    }
    if (unwind_stop_serial_ == 0) return;
    if (unwind_stop_serial_ == marked_call(*this)) stopping_serial_ = unwind_stop_serial_;
    unwind_stop_serial_ = 0;
  }
  // The coroutine the count hook stopped by a yield (stop_from_hook), and the stop's message:
  // its resumer takes it (take_stop_yield) and raises the stop or reports it.
  lua_State* stop_yielded_ = nullptr;
  std::string stop_yield_message_;
  std::string stop_yield_traceback_;
  const CallSite* current_ = nullptr;
  int traceback_ref_ = -2;
  int thicket_ref_ = -2;
  int task_meta_ref_ = -2;
  int thread_pool_ref_ = -2;  // a Lua array of idle coroutines, reused across task runs
  static constexpr uint32_t kTextCache = 256;
  int text_cache_ref_ = -2;                   // push_text's Lua strings, slot id % kTextCache + 1
  uint32_t text_cache_ids_[kTextCache] = {};  // the text id in each slot (0, the empty text: none)
  int thread_pool_size_ = 0;
  // Whether a leaf's form may have changed under a running node: set by the first reload (a
  // leaf file staged again, a brain's program installed again). From then on a plain function
  // or hook table leaf whose node holds a task's coroutine resumes that task, which finishes on
  // the old code (SPEC 10); before, the tick path does not look.
  bool forms_may_change_ = false;
  std::set<std::string> staged_files_, installed_programs_;
  // Whether the node's slot in the agent's mem table holds a task's coroutine (of an older form).
  bool runs_old_task(const CallSite& at);
  int task_threads_ref_ = -2; // weak-keyed set of every task run's coroutine (no script resumes or closes one)
  int restored_ref_ = -2;     // weak-keyed set of the coroutines of task runs restarted by a restore
  int record_meta_ref_ = -2;  // metatable of a restored task's journal record {bytes, resumes, restarted}
  bool journal_ = false;      // RuntimeOptions::journal_tasks (read once: the gates are installed at start)
  TaskJournal* live_journal_ = nullptr;  // the journal of the task run being resumed
  int gate_depth_ = 0;                   // world calls in progress inside a journaled one
  struct Replay {
    SnapshotReader in;
    uint32_t used = 0;
    const char* diverged = nullptr;  // why the replay left its journal
  };
  Replay* replay_ = nullptr;             // the replay in progress
  std::unordered_map<const lua_State*, TaskJournal> journals_;  // per running task coroutine
  int loaded_ref_ = -2;                 // require()'s cache of modules
  int envs_ref_ = -2;                   // path -> that file's environment
  int env_maker_ref_ = -2;              // Lua function: base globals -> a fresh environment
  int module_meta_ref_ = -2;            // metatable of a file's copy of the thicket module
  int agent_methods_ref_ = -2;          // LUA_NOREF: plain agent tables
  int agent_of_ref_ = -2;               // agent table -> (generation << 32 | index), weak keys: agent:send's target
  std::vector<std::string> module_dirs_;   // --trusted: package.path gets these
 public:
  // The leaf files of the brain being loaded (require() looks beside them at load time).
  std::vector<std::string> loading_files_;
  std::string staging_file_;  // the leaf file stage_leaf_file runs now ("" between)
  std::map<std::string, std::map<std::string, std::string>> data_entries_;  // leaf file -> data_entries()
  std::vector<std::string> modules_loading_;  // require: the modules being loaded, outermost first
  std::map<std::string, std::set<std::string>> module_users_;  // module file -> leaf files that required it
  std::map<std::string, int> forgotten_modules_;               // module file -> registry ref of its old copy
 private:
  Rng load_rng_;                        // math.random while files load (no agent yet)
  const char* status_strings_[3] = {};  // interned "success", "failure", "running"
  // A message of megabytes (error(string.rep("x", 5e6))) is shown by its start and its size:
  // a log line a reader can take in, and a bounded key for the repeat count.
  static constexpr size_t kMaxShownMessage = 2000;
  std::string status_text_seen_, status_text_hint_;  // complain_status: the last text and its hint
  // What each agent of this host's leaves printed and logged (bytes) and sent (events) in its
  // current tick, by agent index: an agent printing or sending in a loop held gigabytes until a
  // parallel tick's end (LuaApi::count_output, LuaApi::send).
  struct TickBudget {
    uint64_t ticks = 0;
    uint32_t generation = 0;
    uint32_t sends = 0;
    size_t bytes = 0;
  };
  std::vector<TickBudget> tick_budget_;
  TickBudget& tick_budget(const AgentInfo& a);
  // event_typo: the last name no state took, the brain it went to, and the near name ("": none),
  // so that a brain sent a name it ignores tick after tick is looked at once.
  std::string event_seen_, event_near_;
  const Program* event_program_ = nullptr;

  friend struct LuaApi;
};

// The Lua host of a runtime (tests, benchmarks and the world API reach the lua_State so).
LuaHost& lua_host(RuntimeImpl& rt);

}  // namespace thicket
