// The leaf adapter: the guarded call, leaf calls and tasks, and their error reports. Leaf
// functions are registry references resolved once at load (lua_leaf_files.cpp); a call pushes
// (function, agent, args[, mem]) and runs one protected call.
#include "lua_host.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lua_api.hpp"
#include "lua_call_scope.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"

namespace thicket {

namespace {

// Keeps the Lua frames of a traceback, indented, for error reports.
std::string lua_frames(const std::string& traceback) {
  std::istringstream in(traceback);
  std::string line, out;
  bool in_trace = false;
  while (std::getline(in, line)) {
    if (line == "stack traceback:") {
      in_trace = true;
      continue;
    }
    if (!in_trace) continue;
    size_t start = line.find_first_not_of(" \t");
    // C functions and the thicket module's own Lua code are not the modder's.
    if (start == std::string::npos || line.compare(start, 3, "[C]") == 0 ||
        line.compare(start, 9, "(thicket)") == 0)
      continue;
    out += "\n    " + line.substr(start);
  }
  return out;
}

}  // namespace

LuaHost::~LuaHost() {
  unwatch_lua(&guard_);
  if (L_) lua_close(L_);
}

std::string LuaHost::refused_at_prefix() const {
  std::string out = heap_.refused_at;  // "file.lua:LINE", or empty
  if (!out.empty()) out += ": ";
  return out;
}

void LuaHost::report(const CallSite& at, const LeafDef& leaf, const std::string& cut_message) {
  const std::string message = full_chunk_names(cut_message);
  // Ctrl-C stopped the call where it was: said where, but no error of the script's (a clean
  // run interrupted exits 0); the leaf's call fails and the run stops after this tick.
  if (lua_stop_requested(guard_) && message.find("stopped: the run was interrupted (Ctrl-C)") != std::string::npos) {
    // Said for the first call it stopped in a tick_all only: Ctrl-C stops every call of the
    // tick's rest, and a big run printed a block per agent (with "further ones are counted in
    // the summary's script errors", which they are not).
    if (interrupt_said_at_ == rt_.calls + 1) return;
    interrupt_said_at_ = rt_.calls + 1;
  } else {
    ++errors;
  }
  std::string first = message, frames;
  size_t cut = message.find("\nstack traceback:");
  if (cut != std::string::npos) first = message.substr(0, cut);
  // The frames, when the report is printed (or its words need them).
  auto read_frames = [&] {
    if (cut != std::string::npos && frames.empty()) frames = lua_frames(message.substr(cut + 1));
  };
  // A yield in a plain leaf: Lua's words have no hint (the headline's line is the leaf's).
  if (const size_t pos = LuaApi::position_length(first);
      std::string_view(first).substr(pos) == "attempt to yield from outside a coroutine") {
    const std::string where = first.substr(0, pos);
    first = where + "coroutine.yield outside a coroutine: a plain leaf answers in the tick it is called; to let ticks pass, "
                    "make it a task (leaves.X = thicket.task(function(agent, args) ... end))";
  }
  if (heap_.refused && first == "not enough memory") {
    heap_.refused = false;
    // One heap holds the leaves of every brain in this script state: with several brains, the
    // leaf that met the cap may be the victim of another brain's hoard (a modder blamed the
    // wrong mod), so the message says so.
    const bool shared = rt_.brains.size() > 1;
    first = refused_at_prefix() + "the Lua heap reached its cap of " + byte_size(heap_.cap) +
            (shared ? " (the heap is shared by the leaves of all " + std::to_string(rt_.brains.size()) +
                          " brains: a leaf that keeps growing a table or a string, here or in another brain?)"
                    : std::string(" (a leaf that keeps growing a table or a string?)")) +
            "; the allocation failed and the leaf stopped (--lua-memory sets the cap; lua_memory_limit when embedded)";
  }
  if (first.size() > kMaxShownMessage) first = clipped(first, kMaxShownMessage);
  first = without_controls(first);  // (after the clip: no escape cut in half)
  // Printed or only counted by the runtime, in agent order (the same log on any number of
  // threads); one it will not print is not even worded.
  if (rt_.script_error_silenced(*at.program, at.node, first)) return;
  read_frames();
  std::ostringstream out;
  out << "error: " << indented_lines(first, 7) << sandbox_hint(first) << "\n  in leaf '" << leaf.name << "' at node " << at.program->ids[at.node]
      << ", agent " << at.agent->id << ", tick " << at.agent->ticks;
  if (!frames.empty()) out << "\n  stack traceback:" << without_controls(frames);
  rt_.script_error(*at.program, at.node, std::move(first), out.str());
}

void LuaHost::warn(const CallSite& at, std::string_view leaf_name, const std::string& key, const std::string& message,
                   std::string_view once) {
  std::ostringstream out;
  out << "warning: " << indented_lines(without_controls(message), 9) << "\n  in leaf '" << leaf_name << "' at node " << at.program->ids[at.node] << ", agent "
      << at.agent->id << ", tick " << at.agent->ticks << " (said once for " << once << ")";
  rt_.script_error(*at.program, at.node, key, out.str(), true);
}

void LuaHost::event_typo(const AgentInfo& to, std::string_view name) {
  if (!current_) return;
  const Program& p = rt_.program_of(to);
  if (p.fsm_events.empty() || std::binary_search(p.fsm_events.begin(), p.fsm_events.end(), name)) return;
  if (&p != event_program_ || name != event_seen_) {
    event_program_ = &p;
    event_seen_.assign(name);
    event_near_ = closest_name(name, p.fsm_events);
    // Names that differ only in their digits ("wave2", "wave3") are each meant: no typo.
    auto letters = [](std::string_view s) {
      std::string out;
      for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) out += c;
      return out;
    };
    if (!event_near_.empty() && letters(name) == letters(event_near_)) event_near_.clear();
  }
  if (event_near_.empty()) return;
  const std::string key = "event " + shown_name(name, 80);
  if (rt_.script_warned(*current_->program, current_->node, key)) return;
  std::string where;
  lua_Debug ar;
  if (lua_getstack(L_, 1, &ar) && lua_getinfo(L_, "Sl", &ar) && ar.currentline > 0)  // the sending line
    where = std::string(ar.source[0] == '@' ? ar.source + 1 : ar.short_src) + ":" + std::to_string(ar.currentline) + ": ";
  const Program& from = *current_->program;
  const Node& n = from.nodes[current_->node];
  const bool leaf = n.kind == NodeKind::Action || n.kind == NodeKind::Condition;
  warn(*current_, leaf ? std::string_view(from.calls[n.a].leaf) : std::string_view("?"), key,
       where + "the event '" + shown_name(name, 80) + "' sent to agent " + std::to_string(to.id) +
           " is taken by no state of its brain " + shown_name(p.name, 80) + ", so it is dropped; a state takes '" +
           shown_name(event_near_, 80) + "': is one of the two misspelt?",
       "this node and event");
}

bool LuaHost::repeat_silenced(const CallSite& at, std::string_view message) const {
  // report() words these two from the traceback and the heap: no shortcut for them, but for a
  // node that prints nothing more.
  std::string first(message);
  if (message.substr(LuaApi::position_length(message)) == "attempt to yield from outside a coroutine" ||
      message == "not enough memory")
    first.clear();
  else if (first.size() > kMaxShownMessage) first = clipped(first, kMaxShownMessage);
  return rt_.script_error_silenced(*at.program, at.node, first);
}

[[gnu::always_inline]] inline bool LuaHost::pcall(int nargs, int nresults, const CallSite& at, const LeafDef& leaf) {
  const CallSite* saved = current_;
  current_ = &at;
  int rc;
  {
    CallScope scope(*this, L_, leaves_budgeted_);
    rc = lua_pcall(L_, nargs, nresults, kHandlerSlot);  // the traceback handler lives at slot 1
  }
  current_ = saved;
  if (rc != LUA_OK) [[unlikely]] {
    call_failed(at, leaf);
    return false;
  }
  return true;
}

// The error of a failed call, on the top of the stack: reported and popped.
void LuaHost::call_failed(const CallSite& at, const LeafDef& leaf) {
  size_t len = 0;
  const char* msg = lua_tolstring(L_, -1, &len);
  report(at, leaf, msg ? std::string(msg, len) : std::string("(error object is not a string)"));
  lua_pop(L_, 1);
}

[[gnu::always_inline]] inline Status LuaHost::to_status(int idx, const CallSite& at, const LeafDef& leaf,
                                                        bool condition) {
  int t = lua_type(L_, idx);
  if (t == LUA_TBOOLEAN) return lua_toboolean(L_, idx) ? Status::Success : Status::Failure;
  if (t == LUA_TNIL) return Status::Failure;
  if (t == LUA_TSTRING) {
    const char* s = lua_tostring(L_, idx);
    // Short strings are interned: the constants compare by address.
    if (s == status_strings_[0]) return Status::Success;
    if (s == status_strings_[1]) return Status::Failure;
    if (s == status_strings_[2] && !condition) return Status::Running;
  }
  return complain_status(idx, at, leaf, condition);
}

// The leaf returned something that is not a status (the slow path: it reports).
Status LuaHost::complain_status(int idx, const CallSite& at, const LeafDef& leaf, bool condition) {
  static const std::vector<std::string> statuses = {"success", "failure", "running"};
  int t = lua_type(L_, idx);
  if (condition && t == LUA_TSTRING && lua_tostring(L_, idx) == status_strings_[2]) {
    report(at, leaf,
           defined_at(result_fn(leaf)) + "condition '" + leaf.name + "' returned running; a condition answers true or false in the tick it is called");
    return Status::Failure;
  }
  std::string hint;
  if (t == LUA_TSTRING) {
    // A near status name ("sucess") is a typo, said as a hint. Only a text of 5 to 10
    // characters can be one (closest_name allows a third of the length in edits: 5 to 40
    // bytes), and a leaf answering with the same text tick after tick (a condition returning
    // s:match(...), true by its truth) is looked at once, not on every call.
    size_t len = 0;
    const char* text = lua_tolstring(L_, idx, &len);
    const std::string_view said(text, len);
    if (len >= 5 && len <= 40) {
      if (said != status_text_seen_) {
        status_text_seen_.assign(said);
        const std::string near = closest_name(said, statuses);
        status_text_hint_ = near.empty() ? std::string() : " (did you mean '" + near + "'?)";
      }
      hint = status_text_hint_;
    }
  }
  // A condition answers with any value's truth (SPEC 3.4), a text included; a near-miss status
  // name ("SUCCESS", "sucess") is likely a typo, said once at the node.
  if (condition) {
    if (!hint.empty()) {
      // Keyed by the text: a condition that answers it on every call words its warning once,
      // not on every call (once said, script_warned holds).
      size_t len = 0;
      const char* text = lua_tolstring(L_, idx, &len);
      const std::string said = shown_name(std::string_view(text, len), 80), key = "status text " + said;
      if (!rt_.script_warned(*at.program, at.node, key))
        warn(at, leaf.name, key, defined_at(result_fn(leaf)) + "condition '" + leaf.name + "' returned the text '" + said + "'" + hint +
                                ": a text is true, so the condition succeeds; a condition returns true or false",
             "this node and text");
    }
    return lua_toboolean(L_, idx) ? Status::Success : Status::Failure;
  }
  std::string got;
  if (t == LUA_TSTRING) {
    size_t len = 0;
    const char* text = lua_tolstring(L_, idx, &len);
    got = "the text '" + shown_name(std::string_view(text, len), 80) + "'" + hint;
  }
  else if (t == LUA_TNUMBER && std::isnan(lua_tonumber(L_, idx))) got = "nan (not a number: 0/0?)";  // Lua prints "-nan"
  else if (t == LUA_TNUMBER) got = std::string("the number ") + lua_tostring(L_, idx);
  else got = std::string("a ") + luaL_typename(L_, idx);
  // (A task ends with success or failure: its `running` is a yield, and a returned RUNNING an error.)
  report(at, leaf, defined_at(result_fn(leaf)) + (leaf.shape == LeafShape::Task ? "task '" : "action '") + leaf.name + "' returned " + got +
                       (leaf.shape == LeafShape::Task
                            ? "; a task ends with return thicket.SUCCESS or thicket.FAILURE (or true/false), and yields to go on"
                            : "; an action returns thicket.SUCCESS, thicket.FAILURE or thicket.RUNNING (or true/false)"));
  return Status::Failure;
}

// An action, a hook table's tick or a task that ended without a return: that counts as
// failure (SPEC 3.4: nil is failure), but a leaf with no return at all is most often a
// forgotten one, and a silent failure is hard to find: said once at the node, with where the
// function is defined. (A condition's falling off its end is its false: not said.)
Status LuaHost::returned_nothing(const CallSite& at, const LeafDef& leaf, int fn_ref, const char* what) {
  if (rt_.script_warned(*at.program, at.node, "returned nothing")) return Status::Failure;
  const std::string where = defined_at(fn_ref);
  const bool task = std::string_view(what) == "task";
  warn(at, leaf.name, "returned nothing",
       where + what + " '" + leaf.name + "' returned nothing, which counts as failure: end it with 'return thicket.SUCCESS'" +
           (task ? "" : " (or thicket.RUNNING to run on)") + ", or 'return thicket.FAILURE' (or false) to fail on purpose");
  return Status::Failure;
}

std::string LuaHost::defined_at(int fn_ref) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, fn_ref);
  lua_Debug ar;
  if (!lua_isfunction(L_, -1)) {
    lua_pop(L_, 1);
    return {};
  }
  if (lua_getinfo(L_, ">S", &ar) && ar.linedefined > 0)  // ">" pops the function
    return std::string(ar.source[0] == '@' ? ar.source + 1 : ar.short_src) + ":" + std::to_string(ar.linedefined) + ": ";
  return {};
}

[[gnu::always_inline]] inline void LuaHost::push_args(const CallSite& at) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, args_ref(at.program->calls[at.program->nodes[at.node].a]));
}

void LuaHost::push_mem_table(const CallSite& at) { push_mem(*at.agent); }
// An agent's table of per-node mem and coroutines is made on first use: agents whose leaves
// are plain functions never need one (issue 16: Lua heap per agent).
void LuaHost::push_mem(AgentInfo& a) {
  if (a.lua_mem == LUA_NOREF) {
    lua_newtable(L_);
    lua_pushvalue(L_, -1);
    a.lua_mem = luaL_ref(L_, LUA_REGISTRYINDEX);
    return;
  }
  lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_mem);
}

[[gnu::always_inline]] inline static const LeafDef& leaf_of(RuntimeImpl& rt, const CallSite& at) {
  return rt.leaves[at.program->calls[at.program->nodes[at.node].a].leaf_id];
}

Status LuaHost::condition(const CallSite& at) {
  const LeafDef& leaf = leaf_of(rt_, at);
  if (leaf.shape == LeafShape::Native) return Status::Invalid;  // not reached: the engine calls native leaves
  lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).fn);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
  push_args(at);
  if (!pcall(2, 1, at, leaf)) return Status::Invalid;
  uint64_t errors_before = errors;
  Status s = to_status(-1, at, leaf, true);
  lua_pop(L_, 1);
  return errors != errors_before ? Status::Invalid : s;
}

Status LuaHost::start(const CallSite& at) {
  const LeafDef& leaf = leaf_of(rt_, at);
  switch (leaf.shape) {
    case LeafShape::Native:  // the engine calls native leaves itself
    case LeafShape::Function: return Status::Running;
    case LeafShape::Hooks: {
      // A fresh mem table for this run, kept in the agent's mem table under the node.
      push_mem_table(at);
      lua_newtable(L_);
      lua_pushvalue(L_, -1);
      lua_rawseti(L_, -3, at.node + 1);
      if (refs(leaf).start == LUA_NOREF) {
        lua_pop(L_, 2);
        return Status::Running;
      }
      lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).start);
      lua_insert(L_, -2);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
      lua_insert(L_, -2);
      push_args(at);
      lua_insert(L_, -2);  // start, agent, args, mem
      bool ok = pcall(3, 0, at, leaf);
      lua_pop(L_, 1);  // the agent's mem table
      return ok ? Status::Running : Status::Failure;
    }
    case LeafShape::Task: new_task_thread(at, leaf); return Status::Running;
  }
  return Status::Failure;
}

lua_State* LuaHost::new_task_thread(const CallSite& at, const LeafDef& leaf) {
  // A coroutine for this run: reused from the pool when one is idle.
  push_mem_table(at);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, thread_pool_ref_);
  lua_State* co;
  if (thread_pool_size_ > 0) {
    lua_rawgeti(L_, -1, thread_pool_size_);
    lua_pushnil(L_);
    lua_rawseti(L_, -3, thread_pool_size_--);
    co = lua_tothread(L_, -1);
  } else {
    co = lua_newthread(L_);
    // Tasks always run under the instruction budget (the hook stays with the pooled thread).
    if (budget_slice_ > 0) lua_sethook(co, guard_hook, LUA_MASKCOUNT, budget_slice_);
    // A task's coroutine is the runtime's: scripts may not resume or close it (co_resume).
    lua_rawgeti(L_, LUA_REGISTRYINDEX, task_threads_ref_);
    lua_pushvalue(L_, -2);
    lua_pushboolean(L_, 1);
    lua_rawset(L_, -3);
    lua_pop(L_, 1);
  }
  lua_rawseti(L_, -3, at.node + 1);
  lua_pop(L_, 2);
  lua_pushcfunction(co, LuaApi::task_base);  // the run's body under its base pcall
  lua_rawgeti(co, LUA_REGISTRYINDEX, refs(leaf).fn);
  if (journal_) journals_[co] = TaskJournal{};  // this run's journal starts empty
  return co;
}

bool LuaHost::runs_old_task(const CallSite& at) {
  if (at.agent->lua_mem == LUA_NOREF) return false;
  push_mem_table(at);
  const bool task = lua_rawgeti(L_, -1, at.node + 1) == LUA_TTHREAD;
  lua_pop(L_, 2);
  return task;
}

Status LuaHost::tick(const CallSite& at) {
  const LeafDef& leaf = leaf_of(rt_, at);
  // A task that was running when its leaf became a plain function or a hook table (a Lua
  // reload), or when its node was given another leaf (a YAML reload), finishes on the old code
  // (SPEC 10); the new form runs from the node's next run.
  if (forms_may_change_ && leaf.shape != LeafShape::Task && leaf.shape != LeafShape::Native && runs_old_task(at)) {
    const Status s = task_resume(at, leaf, false);
    // The engine stops hooked leaves only (a hook table's stop() releases the old run); a plain
    // function's node is not stopped, so its old run is released here when it ends. (It was
    // not: its slot kept the dead coroutine, every later run resumed it, "cannot resume dead
    // coroutine", and the unbalanced stack brought the process down.)
    if (s != Status::Running && leaf.shape == LeafShape::Function) task_release(at, false);
    return s;
  }
  switch (leaf.shape) {
    case LeafShape::Native: return Status::Failure;  // the engine calls native leaves itself
    case LeafShape::Function: {
      const int base = lua_gettop(L_);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).fn);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
      push_args(at);
      if (!pcall(2, LUA_MULTRET, at, leaf)) return Status::Failure;
      if (lua_gettop(L_) != base + 1) [[unlikely]] {
        if (lua_gettop(L_) == base) return returned_nothing(at, leaf, refs(leaf).fn, "action");
        lua_settop(L_, base + 1);  // `return false, "why"`: the first result is the status
      }
      Status s = to_status(-1, at, leaf, false);
      lua_pop(L_, 1);
      return s;
    }
    case LeafShape::Hooks: {
      lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).tick);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
      push_args(at);
      push_mem_table(at);
      if (lua_rawgeti(L_, -1, at.node + 1) != LUA_TTABLE || is_journal_record(-1)) {
        // A run started under an older definition (a plain function's has no slot; a task's
        // holds its coroutine, or a restored task's mark) starts now: `start` with a fresh
        // mem table, then this tick (the slot holds that table then: no second round).
        lua_pop(L_, 5);
        if (start(at) != Status::Running) return Status::Failure;
        return tick(at);
      }
      lua_remove(L_, -2);
      const int base = lua_gettop(L_) - 4;
      if (!pcall(3, LUA_MULTRET, at, leaf)) return Status::Failure;
      if (lua_gettop(L_) != base + 1) [[unlikely]] {
        if (lua_gettop(L_) == base) return returned_nothing(at, leaf, refs(leaf).tick, "the tick hook of action");
        lua_settop(L_, base + 1);
      }
      Status s = to_status(-1, at, leaf, false);
      lua_pop(L_, 1);
      return s;
    }
    case LeafShape::Task: return task_resume(at, leaf, false);
  }
  return Status::Failure;
}

bool LuaHost::stop(const CallSite& at, Status s, bool keep_mem) {
  const LeafDef& leaf = leaf_of(rt_, at);
  if (forms_may_change_ && leaf.shape != LeafShape::Task && leaf.shape != LeafShape::Native && runs_old_task(at)) {
    task_release(at, s == Status::Aborted);  // the old task's run ends (cancelled: closed, its cleanups run)
    return true;
  }
  bool ok = true;
  switch (leaf.shape) {
    case LeafShape::Native:  // the engine calls native leaves itself
    case LeafShape::Function: return true;
    case LeafShape::Hooks: {
      push_mem_table(at);
      if (refs(leaf).stop != LUA_NOREF) {
        lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).stop);
        lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
        push_args(at);
        if (lua_rawgeti(L_, -4, at.node + 1) != LUA_TTABLE || is_journal_record(-1)) {  // started under an older definition
          lua_pop(L_, 1);
          lua_newtable(L_);
        }
        lua_pushstring(L_, std::string(status_name(s)).c_str());
        ok = pcall(4, 0, at, leaf);
      }
      if (!keep_mem) {
        lua_pushnil(L_);
        lua_rawseti(L_, -2, at.node + 1);
      }
      lua_pop(L_, 1);
      return ok;
    }
    case LeafShape::Task: task_release(at, s == Status::Aborted); return true;
  }
  return true;
}

void LuaHost::drop_mem(const CallSite& at) {
  if (leaf_of(rt_, at).shape != LeafShape::Hooks || at.agent->lua_mem == LUA_NOREF) return;
  push_mem_table(at);
  lua_pushnil(L_);
  lua_rawseti(L_, -2, at.node + 1);
  lua_pop(L_, 1);
}

int LuaHost::xpcalls_in(lua_State* co) {
  lua_Debug ar;
  int level = 0, found = 0;
  for (; level < 64 && lua_getstack(co, level, &ar); ++level) {
    if (!lua_checkstack(co, 1) || !lua_getinfo(co, "f", &ar)) return 64;
    found += lua_tocfunction(co, -1) == LuaApi::xpcall;
    lua_pop(co, 1);
  }
  return level == 64 ? 64 : found;  // deeper: not walked further (a runaway recursion), taken as inside one
}

int LuaHost::push_task_start(lua_State* co, const CallSite& at) {
  lua_rawgeti(co, LUA_REGISTRYINDEX, at.agent->lua_agent);
  lua_rawgeti(co, LUA_REGISTRYINDEX, args_ref(at.program->calls[at.program->nodes[at.node].a]));
  return 3;  // the body and its two arguments, for the base
}

int LuaHost::resume_guarded(lua_State* co, int nargs, int* nres) {
  int rc;
  {
    CallScope scope(*this, co, budget_slice_ > 0);
    rc = lua_resume(co, L_, nargs, nres);
  }
  end_unwind();
  return stopped_task(co, rc, nres);
}

// A task's resume that the count hook ended by a yield (stop_from_hook) is a failed run: its
// stop's message on its stack, as a run that raised an error keeps its error (task_release
// tells the two kinds of failed run apart by their status).
int LuaHost::stopped_task(lua_State* co, int rc, int* nres) {
  if (rc != LUA_YIELD || !take_stop_yield(co)) return rc;
  lua_pop(co, *nres);
  *nres = 0;
  lua_pushlstring(co, stop_yield_message_.data(), stop_yield_message_.size());
  return LUA_ERRRUN;
}

// Resumes the run's coroutine once: a yield is `running`, a return gives the status.
Status LuaHost::task_resume(const CallSite& at, const LeafDef& leaf, bool) {
  push_mem_table(at);
  lua_rawgeti(L_, -1, at.node + 1);
  lua_State* co = lua_tothread(L_, -1);
  bool restarted = !co && lua_touserdata(L_, -1) == restored_task_mark();
  const bool replay = !co && !restarted && is_journal_record(-1);
  lua_pop(L_, 2);
  if (replay) {  // restored with its journal: rebuilt by replaying it (lua_journal.cpp)
    co = replay_task(at, leaf);
    restarted = !co;
  }
  if (restarted) {  // running when a snapshot was taken: this run starts it again (snapshot docs)
    co = new_task_thread(at, leaf);
    if (journal_) journals_[co].restarted = true;
    mark_restored(co);
  }
  // Started under an older definition (a plain function, a hook table): the task starts now.
  if (!co) co = new_task_thread(at, leaf);
  // A fresh run has only its base and its function on the stack: pass (agent, args) on the first resume.
  const int nargs = lua_status(co) == LUA_OK && lua_gettop(co) == 2 ? push_task_start(co, at) : 0;
  const CallSite* saved = current_;
  current_ = &at;
  TaskJournal* saved_journal = live_journal_;
  if (journal_) {  // the world calls of this resume are journaled (lua_journal.cpp)
    auto found = journals_.find(co);
    live_journal_ = found == journals_.end() ? nullptr : &found->second;
    if (live_journal_ && ++live_journal_->resumes > kJournalMaxResumes && live_journal_->unsaveable.empty()) {
      live_journal_->unsaveable = "it has run for more than " + std::to_string(kJournalMaxResumes) +
                                  " resumes, past the journal's cap (a task that runs for ever: end it now and then)";
      live_journal_->bytes = SnapshotWriter();
    }
  }
  int nres = 0;
  int rc;
  task_resuming_ = &at;
  task_leaf_ = &leaf;
  task_reported_ = nullptr;
  {
    CallScope scope(*this, co, budget_slice_ > 0);
    rc = lua_resume(co, L_, nargs, &nres);
  }
  task_resuming_ = nullptr;
  end_unwind();
  const bool stopped = rc == LUA_YIELD && stop_yielded_ == co;
  rc = stopped_task(co, rc, &nres);
  current_ = saved;
  live_journal_ = saved_journal;
  if (rc == LUA_YIELD && task_reported_ == co) {
    // A cleanup yielded as the run's error unwound it (a `__close` of its own: thicket.defer's
    // cannot): a failed run ends in the tick it failed, and its closing runs the rest.
    lua_pop(co, nres);
    report(at, leaf, "while closing the failed task: a cleanup yielded (coroutine.yield); the cleanups of a failed "
                     "task run to their end at once");
    return Status::Failure;
  }
  if (rc == LUA_YIELD) {
    if (nres > 0 && lua_type(co, -nres) == LUA_TSTRING) [[unlikely]] {
      // coroutine.yield(thicket.SUCCESS) taken for the task's end: the task runs on.
      const char* said = lua_tostring(co, -nres);
      if ((said == status_strings_[0] || said == status_strings_[1]) &&
          !rt_.script_warned(*at.program, at.node, "yielded status")) {
        const std::string name = said == status_strings_[0] ? "SUCCESS" : "FAILURE";
        std::string where;  // the yield's line
        lua_Debug ar;
        for (int level = 0; where.empty() && level < 8 && lua_getstack(co, level, &ar); ++level)
          if (lua_getinfo(co, "Sl", &ar) && ar.currentline > 0)
            where = std::string(ar.short_src) + ":" + std::to_string(ar.currentline) + ": ";
        warn(at, leaf.name, "yielded status",
             where + "task '" + leaf.name + "' yielded thicket." + name + ", and runs on: a yield is one running tick " +
                 "whatever it passes; a task ends by returning (return thicket." + name + ")");
      }
    }
    lua_pop(co, nres);
    return Status::Running;
  }
  if (rc == LUA_OK) {
    Status s = Status::Failure;
    if (nres == 0) {
      lua_settop(co, 0);
      return returned_nothing(at, leaf, refs(leaf).fn, "task");
    }
    if (nres > 0) {
      // The first of its results, as for an action's `return false, "why"` (the top one was
      // taken, the last: `return "failure", true` succeeded).
      lua_pop(co, nres - 1);
      lua_xmove(co, L_, 1);
      s = to_status(-1, at, leaf, false);
      lua_pop(L_, 1);
    }
    lua_settop(co, 0);
    if (s == Status::Running) {  // the coroutine has ended: it cannot run on
      report(at, leaf, defined_at(refs(leaf).fn) + "task '" + leaf.name + "' returned running; a task keeps running by yielding "
                       "(coroutine.yield() or thicket.wait()), and its return ends it");
      s = Status::Failure;
    }
    return s;
  }
  if (task_reported_ == co) {  // reported where it was raised (LuaApi::task_handler)
    // A cleanup the unwinding ran, stopped in its turn past the grace it had.
    if (stopped) report(at, leaf, "while closing the failed task: " + stop_yield_message_);
    return Status::Failure;
  }
  // An error the handler did not see (the heap's cap: Lua calls no handler for it).
  std::string msg;
  const bool number = lua_type(co, -1) == LUA_TNUMBER;
  if (const char* text = number ? nullptr : lua_tostring(co, -1)) {
    msg = text;
  } else {  // error(42) or error({...}) carries no position: the line that raised it (past `error`)
    msg = number ? std::string(lua_tostring(co, -1)) : std::string("(error object is a ") + luaL_typename(co, -1) + " value)";
    lua_Debug ar;
    for (int level = 0; level < 16 && lua_getstack(co, level, &ar); ++level)
      if (lua_getinfo(co, "Sl", &ar) && ar.currentline > 0) {
        msg = std::string(ar.short_src) + ":" + std::to_string(ar.currentline) + ": " + msg;
        break;
      }
  }
  if (repeat_silenced(at, msg)) {  // counted, not printed: no traceback to make
    report(at, leaf, msg);
    return Status::Failure;
  }
  if (stopped) {  // its traceback made where it was stopped (stop_from_hook)
    report(at, leaf, stop_yield_traceback_);
    return Status::Failure;
  }
  luaL_traceback(L_, co, msg.c_str(), 0);
  report(at, leaf, lua_tostring(L_, -1));
  lua_pop(L_, 1);
  return Status::Failure;
}

// Ends the run's coroutine: a cancelled one is closed so its to-be-closed variables run.
void LuaHost::task_release(const CallSite& at, bool cancel) {
  push_mem_table(at);
  lua_rawgeti(L_, -1, at.node + 1);
  if (lua_type(L_, -1) == LUA_TTABLE && is_journal_record(-1)) {  // restored and stopped before it ran again: rebuilt, then closed
    lua_pop(L_, 2);
    replay_task(at, leaf_of(rt_, at));
    push_mem_table(at);
    lua_rawgeti(L_, -1, at.node + 1);
  }
  lua_State* co = lua_tothread(L_, -1);
  if (co) {
    if (journal_) journals_.erase(co);
    lua_rawgeti(L_, LUA_REGISTRYINDEX, restored_ref_);  // the run ends: so does its restored mark
    lua_pushvalue(L_, -2);
    lua_pushnil(L_);
    lua_rawset(L_, -3);
    lua_pop(L_, 1);
    const CallSite* saved = current_;
    current_ = &at;
    // The thread goes back to the pool once reset below (its base pcall turned its hooks back
    // on after an error the count hook raised): reusing it spares a new coroutine per failing
    // or cancelled run (~5,400 instructions of ~11,500 a run). Before Lua 5.4.7 the reset of a
    // thread closed while suspended keeps the message handler of the pcall it was suspended in,
    // which an error outside any pcall on it calls: its base's is in the same stack slot on the
    // next run (LuaApi::based_k sees to it), but a script's xpcall's would be whatever then lies
    // in its slot, so a thread suspended inside an xpcall is not reused.
    const int ended = lua_status(co);
    // A run the count hook stopped yielded, with the stop's message left on its stack
    // (stopped_task); a suspended run has nothing there (its yields' values are taken).
    const bool stopped = ended == LUA_YIELD && lua_gettop(co) > 0;
    const bool failed = (ended != LUA_OK && ended != LUA_YIELD) || stopped;
    // Before Lua 5.4.7 its reset keeps the message handler of the pcall it was suspended in.
    const int xpcalls = ended == LUA_YIELD && xpcalls_open_ > 0 ? xpcalls_in(co) : 0;
    const bool stale_handler = xpcalls > 0 && LUA_VERSION_RELEASE_NUM < 50407;
    // A run that failed keeps its error on its stack (reported already): closing its
    // to-be-closed variables may raise another, which is reported if it is not the same one.
    if (failed && lua_gettop(co) > 0) {
      lua_pushvalue(co, -1);
      lua_xmove(co, L_, 1);
    } else if (failed) {
      lua_pushnil(L_);
    }
    // A run that returned (or never started) has nothing left to close: its frames are gone
    // and their to-be-closed variables ran as they returned. Closing it anyway would shrink its
    // stack, which the next run on it grows again: one or two reallocations a run.
    int rc = LUA_OK;
    if (ended != LUA_OK) {
      CallScope scope(*this, co, budget_slice_ > 0);  // closing runs the task's to-be-closed variables
      // Its cleanups get room past the heap's cap (LuaHeap::grace): a task cancelled at the
      // cap still holds what it grew, on the stack being closed.
      heap_.closing = true;
#if LUA_VERSION_RELEASE_NUM >= 50406
      rc = lua_closethread(co, L_);
#else
      rc = lua_resetthread(co);
#endif
      heap_.closing = false;
    }
    end_unwind();
    if (xpcalls < 64) xpcalls_open_ -= xpcalls;  // (its frames dropped by the closing)
    current_ = saved;
    if (rc != LUA_OK && (cancel || failed)) {
      bool same = false;  // the run's own error, passed on by the closing
      if (failed && lua_gettop(co) > 0) {
        lua_pushvalue(co, -1);
        lua_xmove(co, L_, 1);
        same = lua_rawequal(L_, -1, -2);
        lua_pop(L_, 1);
      }
      if (!same) {
        // An error object that is no text is named by its type, as Lua's own messages name it
        // (the closing has unwound the handler's frame: no line to give).
        const char* msg = lua_type(co, -1) == LUA_TSTRING || lua_type(co, -1) == LUA_TNUMBER ? lua_tostring(co, -1) : nullptr;
        report(at, leaf_of(rt_, at),
               std::string(failed ? "while closing the failed task: " : "while closing the cancelled task: ") +
                   (msg ? std::string(msg) : std::string("(error object is a ") + luaL_typename(co, -1) + " value)"));
      }
    }
    if (failed) lua_pop(L_, 1);  // the run's error
    lua_settop(co, 0);
    // Back to the pool for the next run: reset (a failed run's reset answers its error, or
    // the closing's, and leaves the thread ready all the same).
    if ((rc == LUA_OK || failed) && !stale_handler) {
      restore_hook(co);
      lua_rawgeti(L_, LUA_REGISTRYINDEX, thread_pool_ref_);
      lua_pushvalue(L_, -2);
      lua_rawseti(L_, -2, ++thread_pool_size_);
      lua_pop(L_, 1);
    }
  }
  lua_pop(L_, 1);
  lua_pushnil(L_);
  lua_rawseti(L_, -2, at.node + 1);
  lua_pop(L_, 1);
}

void LuaHost::push_text(lua_State* L, uint32_t id) {
  const std::string_view s = rt_.strings.get(id);
  constexpr size_t kShortString = 40;  // Lua 5.4's LUAI_MAXSHORTLEN: shorter ones Lua interns itself
  if (s.size() <= kShortString) {
    lua_pushlstring(L, s.data(), s.size());
    return;
  }
  const uint32_t k = id % kTextCache;
  lua_rawgeti(L, LUA_REGISTRYINDEX, text_cache_ref_);
  if (text_cache_ids_[k] == id) {
    lua_rawgeti(L, -1, k + 1);
  } else {
    lua_pushlstring(L, s.data(), s.size());
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, k + 1);
    text_cache_ids_[k] = id;
  }
  lua_remove(L, -2);
}

// Puts a task run's coroutine in the set of runs restarted by a restore (thicket.restored()).
void LuaHost::mark_restored(lua_State* co) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, restored_ref_);
  lua_pushthread(co);
  lua_xmove(co, L_, 1);
  lua_pushboolean(L_, 1);
  lua_rawset(L_, -3);
  lua_pop(L_, 1);
}

bool LuaHost::task_restored(const CallSite& at) {
  push_mem_table(at);
  lua_rawgeti(L_, -1, at.node + 1);
  bool restored = false;
  if (lua_type(L_, -1) == LUA_TTHREAD) {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, restored_ref_);
    lua_pushvalue(L_, -2);
    restored = lua_rawget(L_, -2) != LUA_TNIL;
    lua_pop(L_, 2);
  }
  lua_pop(L_, 2);
  return restored;
}

void LuaHost::remap_mem(AgentInfo& a, const std::vector<uint32_t>& to_new) {
  if (a.lua_mem == LUA_NOREF) return;  // no per-node state to move
  lua_rawgeti(L_, LUA_REGISTRYINDEX, a.lua_mem);
  lua_newtable(L_);
  lua_pushnil(L_);
  while (lua_next(L_, -3)) {  // old mem: node index + 1 -> mem table or coroutine
    lua_Integer old = lua_tointeger(L_, -2) - 1;
    if (old >= 0 && static_cast<size_t>(old) < to_new.size() && to_new[old] != 0xFFFFFFFF) {
      lua_pushvalue(L_, -1);
      lua_rawseti(L_, -4, static_cast<lua_Integer>(to_new[old]) + 1);
    }
    lua_pop(L_, 1);
  }
  luaL_unref(L_, LUA_REGISTRYINDEX, a.lua_mem);
  a.lua_mem = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_pop(L_, 1);
}

void LuaHost::call_on_reload(const LeafDef& hook, const std::string& file) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, traceback_ref_);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(hook).fn);
  int rc;
  {
    CallScope scope(*this, L_, leaves_budgeted_);
    rc = lua_pcall(L_, 0, 0, -2);
  }
  if (rc != LUA_OK) {
    ++errors;
    // As a leaf's error reads: FILE:LINE: message first, then where, then the Lua frames.
    const std::string message = full_chunk_names(lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "?");
    std::string first = message, frames;
    if (const size_t cut = message.find("\nstack traceback:"); cut != std::string::npos) {
      first = message.substr(0, cut);
      frames = lua_frames(message.substr(cut + 1));
    }
    rt_.log("error: " + indented_lines(without_controls(first), 7) + "\n  in on_reload of " + file +
            (frames.empty() ? "" : "\n  stack traceback:" + without_controls(frames)));
    lua_pop(L_, 1);
  }
  lua_pop(L_, 1);
}

void LuaHost::release_ref(const AgentInfo&, int ref) {
  if (ref != LUA_NOREF && ref != LUA_REFNIL) luaL_unref(L_, LUA_REGISTRYINDEX, ref);
}

void LuaHost::call_plain(const CallSite& at) {
  const LeafDef& leaf = leaf_of(rt_, at);
  if (leaf.shape == LeafShape::Native) return;  // not reached: the engine calls native leaves
  lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).fn);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
  push_args(at);
  pcall(2, 0, at, leaf);
}

bool LuaHost::reason(const CallSite& at, std::string_view& transition) {
  const LeafDef& leaf = leaf_of(rt_, at);
  if (leaf.shape == LeafShape::Native) return false;  // not reached: the engine asks native leaves itself
  lua_rawgeti(L_, LUA_REGISTRYINDEX, refs(leaf).fn);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, at.agent->lua_agent);
  push_args(at);
  if (!pcall(2, 1, at, leaf)) return false;
  bool named = false;
  if (lua_type(L_, -1) == LUA_TSTRING) {
    size_t len;
    const char* s = lua_tolstring(L_, -1, &len);
    transition = std::string_view(s, len);  // stays valid: the string is interned in the state
    named = true;
  } else if (!lua_isnil(L_, -1) && !(lua_isboolean(L_, -1) && !lua_toboolean(L_, -1))) {
    // (false stays, as nil does: `return near and "saw_player"` is how Lua says "maybe")
    report(at, leaf, defined_at(refs(leaf).fn) + "reason '" + leaf.name + "' returned " +
                         (lua_isboolean(L_, -1) ? std::string("true") : std::string("a ") + luaL_typename(L_, -1)) +
                         "; a reason returns a transition name (text), or nil or false to stay");
  }
  lua_pop(L_, 1);
  return named;
}

namespace {
// thicket.RUNNING (or SUCCESS, FAILURE) from a reason, meant as "stay": nil is. So is "".
std::string status_returned(std::string_view transition) {
  const char* constant = transition == "running"   ? "RUNNING"
                         : transition == "success" ? "SUCCESS"
                         : transition == "failure" ? "FAILURE"
                                                   : nullptr;
  if (transition.empty()) return "; the reason returned an empty text: it returns nil to stay, or a transition's name";
  if (!constant) return {};
  return "; '" + std::string(transition) + "' is thicket." + constant +
         ", a status: a reason returns nil to stay, or a transition's name";
}
}  // namespace

void LuaHost::unmapped_transition(const CallSite& at, const std::string& state, std::string_view transition) {
  const std::string shown = shown_name(transition, 80);  // a script's text: maybe huge, maybe with a NUL or a line break
  // Once per state and transition, for the run (a simulation's workers share the book).
  const std::string key = "unmapped " + state + "/" + shown;
  if (rt_.reported_before(*at.program, key)) return;
  std::vector<std::string> known;
  std::string to_state;  // the reason returned a state's name: the transition that goes there
  const auto& states = at.program->fsm_states;
  for (const auto& st : states)
    if (st.name == state)
      for (const auto& t : st.transitions) {
        known.push_back(t.name);
        if (t.target < states.size() && states[t.target].name == transition && to_state.empty())
          to_state = "; '" + shown + "' is a state: the transition to it is '" + t.name + "'";
      }
  const SourcePos& pos = at.program->positions[at.node];
  std::ostringstream out;
  out << at.program->files[pos.file] << ":" << pos.line << ":" << pos.column << ": error: state '" << state
      << "' has no transition '" << shown << "'" << (to_state.empty() ? did_you_mean(transition, known) : to_state)
      << (known.empty() ? " (it has no transitions)" : " (transitions: " + join_names(known) + ")")
      << "; ignored (the state's 'when' list is not tried; an outer state's may be)"
      << status_returned(transition)
      << "\n  reported once; first by agent " << at.agent->id << " at tick " << at.agent->ticks;
  rt_.report_once(*at.program, key, out.str(), true);
}

Value LuaHost::any_value(const AgentInfo&, int ref) {
  Value out;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);
  if (lua_isinteger(L_, -1)) out = static_cast<int64_t>(lua_tointeger(L_, -1));
  else if (lua_type(L_, -1) == LUA_TNUMBER) out = lua_tonumber(L_, -1);
  else if (lua_type(L_, -1) == LUA_TBOOLEAN) out = static_cast<bool>(lua_toboolean(L_, -1));
  else if (lua_type(L_, -1) == LUA_TSTRING) {  // by its length: text may hold NUL bytes (a string key's does)
    size_t n = 0;
    const char* s = lua_tolstring(L_, -1, &n);
    out = std::string(s, n);
  } else out = std::monostate{};
  lua_pop(L_, 1);
  return out;
}

int LuaHost::set_any_value(const AgentInfo&, int old_ref, const Value& v) {
  lua_State* L = L_;
  std::visit([L](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, std::monostate>) lua_pushnil(L);
    else if constexpr (std::is_same_v<T, double>) lua_pushnumber(L, x);
    else if constexpr (std::is_same_v<T, int64_t>) lua_pushinteger(L, x);
    else if constexpr (std::is_same_v<T, bool>) lua_pushboolean(L, x);
    else lua_pushlstring(L, x.data(), x.size());
  }, v);
  if (old_ref != LUA_NOREF && old_ref != LUA_REFNIL) luaL_unref(L, LUA_REGISTRYINDEX, old_ref);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

LuaHost& lua_host(RuntimeImpl& rt) { return static_cast<LuaHost&>(*rt.lane_hosts[0]); }

// The binding's registration with the core (leaf_host.hpp): every runtime of a program that
// links thicket_lua gets a Lua host, and scenario workers the Lua world API.
void install_lua_world(SimWorker& worker);
namespace {
const bool kRegistered = [] {
  ScriptBinding binding;
  binding.make_host = [](RuntimeImpl& rt) -> std::unique_ptr<ScriptHost> { return std::make_unique<LuaHost>(rt); };
  binding.install_world = install_lua_world;
  register_script_binding(binding);
  return true;
}();
}  // namespace

}  // namespace thicket
