// How a running Lua call is stopped (guide 8.11): the count hook, which serves the instruction
// budget and the watchdog's time limit (and Ctrl-C), the stop's message, and how it is raised:
// by an error on the main thread, by a yield on a coroutine where it may yield (an error
// elsewhere, which the coroutine's base pcall catches); C loops ask through check_stop.
#include <algorithm>
#include <cstring>
#include <ctime>

#include "lua_host.hpp"
#include "runtime_impl.hpp"

namespace thicket {

// The count hook. Installed with count 1 by the watchdog's signal when a call has used its time
// limit of CPU time: the call gets a grace of kStopGraceInstructions more (the hook re-set with
// that count); if it is still running Lua when they are done, it is stopped (and again at every
// instruction while that call runs, so a pcall inside the leaf cannot swallow it). A call whose
// thread was only charged time it did not use (an interrupt, a page fault on a busy machine)
// returns within the grace and is not stopped. When the call it was meant for has ended, the
// hook gives the thread its usual one back. Otherwise it is the instruction budget: set on a
// thread once, it fires every budget/8 instructions; a call that sees more than eight firings
// has run past its budget (no lua_sethook per call).
void LuaHost::guard_hook(lua_State* L, lua_Debug* ar) {
  LuaHost* h = *static_cast<LuaHost**>(lua_getextraspace(L));
  // A function call (the stop's hook has kStopMask): counted as an instruction of the grace. A
  // call hook may not yield: it stops a coroutine by an error (stop_from_hook).
  const bool call = ar->event == LUA_HOOKCALL || ar->event == LUA_HOOKTAILCALL;
  if (lua_stop_requested(h->guard_)) {
    push_stop(L);
    stop_from_hook(h, L, !call);
    return;
  }
  const int count = lua_gethookcount(L);
  // Past its budget once, the call is stopped again at every instruction and call, as a call
  // past its time limit is: a pcall around a table.sort comparison that loops (the stop raised
  // inside it, as an error) caught the budget's stop a slice at a time, for ever.
  if (count == 1 && h->over_budget()) {
    push_budget_stop(h, L);
    stop_from_hook(h, L, !call);
    return;
  }
  if (count == 1 || count == kStopGraceInstructions) {
    const uint64_t marked = marked_call(*h);
    // The grace ends after its instructions (and calls), or once it has used the limit again
    // (the watchdog says so: each of its instructions may take long).
    const bool grace_over =
        (count == kStopGraceInstructions && (!call || ++h->grace_calls_ >= static_cast<uint64_t>(kStopGraceInstructions))) ||
        (marked != 0 && h->guard_.grace_over_serial.load(std::memory_order_acquire) == marked);
    if (marked != 0 && (grace_over || h->stopping_serial_ == marked)) {
      push_stop(L);  // ran on past its grace, or was stopped once already
      stop_from_hook(h, L, !call);
      return;
    }
    if (marked != 0 && count == 1) {  // the grace, timed from now by the thread's CPU clock
      h->grace_calls_ = 0;
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      h->guard_.grace_start_ns.store(static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec, std::memory_order_relaxed);
      h->guard_.grace_serial.store(marked, std::memory_order_release);
      lua_sethook(L, guard_hook, kStopMask, kStopGraceInstructions);
    } else if (marked == 0) {
      h->restore_hook(L);
    }
    return;
  }
  if (call) return;  // (a budget hook never has calls in its mask)
  if (h->hook_serial_ != h->call_serial_) {
    h->hook_serial_ = h->call_serial_;
    h->hook_count_ = 0;
  }
  if (++h->hook_count_ > kBudgetSlices) {
    push_budget_stop(h, L);
    stop_from_hook(h, L, true);
  }
}

// The budget's stop message, on top of L's stack: made where the call first ran past its
// budget, the same again after; the hook then fires at every instruction and call of L.
void LuaHost::push_budget_stop(LuaHost* h, lua_State* L) {
  if (!(lua_gethook(L) == guard_hook && lua_gethookmask(L) == kStopMask && lua_gethookcount(L) == 1))
    lua_sethook(L, guard_hook, kStopMask, 1);
  if (h->budget_message_serial_ == h->call_serial_) {
    lua_pushlstring(L, h->budget_message_.data(), h->budget_message_.size());
    return;
  }
  // Where it was (level 0 in a hook: the Lua function running), and what ran: a leaf, or a
  // leaf file's own code while it loads (its calls may take the load's scale of the limit).
  luaL_where(L, 0);
  const bool loading = h->guard_.limit_scale.load(std::memory_order_relaxed) > 1;
  lua_pushfstring(L, "%s ran past its instruction budget (%I instructions) without returning%s",
                  loading ? "the file, while it loads," : "the leaf",
                  // The budget it keeps: eighths of at least 1,000 (a budget of 1 said "1 instructions"
                  // of a stop after ~8,000).
                  static_cast<lua_Integer>(std::max<uint64_t>(h->rt_.options.instruction_budget,
                                                              uint64_t(h->budget_slice_) * kBudgetSlices)),
                  // (a task's advice is for a leaf: a file's top level cannot yield)
                  loading ? " (an endless loop, or more work than a load should do?)"
                          : " or yielding (an endless loop? a task lets time pass with coroutine.yield() or thicket.wait())");
  lua_concat(L, 2);
  size_t len = 0;
  const char* text = lua_tolstring(L, -1, &len);
  h->budget_message_.assign(text, len);
  h->budget_message_serial_ = h->call_serial_;
}

// Stops the code running on L with the message on top of L's stack, from the count hook. On
// a coroutine that can yield here (a task's, or one a leaf made, resumed by thicket's resume)
// the hook yields, which a count hook may: the coroutine stays suspended where it was stopped,
// and the resumer (task_resume, resume_watched) raises the stop from there; closing it later
// runs its cleanups. Elsewhere (the main thread; a coroutine inside a C call, such as a
// table.sort comparison; a call hook, which may not yield) it raises the stop as an error.
// Lua turns a thread's hooks off while a hook runs and back on only when the hook returns or
// where a pcall on that thread catches an error: the main thread's leaf call is one, and so is
// every coroutine's base (LuaApi::co_base, task_base), so no thread is left unguarded.
void LuaHost::stop_from_hook(LuaHost* h, lua_State* L, bool may_yield) {
  if (may_yield && L != h->L_ && lua_isyieldable(L)) {
    size_t len = 0;
    const char* text = lua_tolstring(L, -1, &len);
    h->stop_yield_message_.assign(text != nullptr ? text : "stopped", text != nullptr ? len : 7);
    // Its traceback now: once it has yielded, Lua gives a hook-stopped function's line as
    // that of the instruction before (the one it stopped at is to run again on a resume).
    luaL_traceback(L, L, h->stop_yield_message_.c_str(), 0);
    h->stop_yield_traceback_ = lua_tostring(L, -1);
    lua_pop(L, 2);
    h->stop_yielded_ = L;
    lua_yield(L, 0);
    return;
  }
  lua_error(L);
}

bool LuaHost::take_stop_yield(lua_State* co) {
  if (stop_yielded_ != co || co == nullptr) return false;
  stop_yielded_ = nullptr;
  return true;
}

bool LuaHost::told_to_stop(lua_State* L) {
  LuaHost* h = *static_cast<LuaHost**>(lua_getextraspace(L));
  if (h == nullptr) return lua_stop_requested();
  if (lua_stop_requested(h->guard_)) return true;
  // Past its instruction budget (the hook raises again at every instruction from then on).
  if (h->over_budget()) return true;
  // Stopped at its time limit once already (past the grace), and still running.
  return h->stopping_serial_ != 0 && h->stopping_serial_ == marked_call(*h);
}

// The call the watchdog marked as past its time limit, if that call is the one running; else 0.
uint64_t LuaHost::marked_call(const LuaHost& h) {
  const uint64_t want = h.guard_.interrupt_serial.load(std::memory_order_acquire);
  const bool marked = want != 0 && want == h.guard_.serial.load(std::memory_order_relaxed) &&
                      h.guard_.running.load(std::memory_order_relaxed) != nullptr;
  return marked ? want : 0;
}

void LuaHost::check_stop(lua_State* L) {
  // Level 1: the position of the Lua code that called the C function.
  if (told_to_stop(L)) raise_stop(L, 1);
  // A call past its time limit has the grace of one more poll of its loop (as a count hook's
  // grace: a call charged time it did not use has returned by then).
  LuaHost* h = *static_cast<LuaHost**>(lua_getextraspace(L));
  const uint64_t marked = h ? marked_call(*h) : 0;
  if (marked == 0) return;
  if (h->loop_grace_serial_ == marked) raise_stop(L, 1);
  h->loop_grace_serial_ = marked;
}

namespace {
struct TextPieces {
  const char* at;
  size_t left;
  bool first;
};
// 4 KB: between two looks at the watchdog the worst text known (an elseif chain) compiles for
// tens of milliseconds, not seconds; an ordinary file is compiled as fast as in one piece.
constexpr size_t kTextPiece = 4096;
const char* text_piece(lua_State* L, void* data, size_t* size) {
  auto& t = *static_cast<TextPieces*>(data);
  if (!t.first) LuaHost::check_stop(L);  // (no C++ object lives in this frame)
  t.first = false;
  *size = std::min(t.left, kTextPiece);
  const char* piece = t.at;
  t.at += *size;
  t.left -= *size;
  return *size > 0 ? piece : nullptr;
}
}  // namespace

int LuaHost::load_text(lua_State* L, const char* text, size_t len, const char* chunkname, const char* mode) {
  TextPieces pieces{text, len, true};
  return lua_load(L, text_piece, &pieces, chunkname, mode);
}

// Raises the watchdog's error where the code was stopped (no C++ object lives in this frame).
int LuaHost::raise_stop(lua_State* L, int level) {
  push_stop(L, level);
  return lua_error(L);
}

// The watchdog's error message, on top of L's stack.
void LuaHost::push_stop(lua_State* L, int level) {
  LuaHost* h = *static_cast<LuaHost**>(lua_getextraspace(L));
  // From now on the hook raises the stop at every instruction of the call (set once: each
  // lua_sethook walks the thread's whole call stack).
  if (!(lua_gethook(L) == guard_hook && lua_gethookmask(L) == kStopMask && lua_gethookcount(L) == 1))
    lua_sethook(L, guard_hook, kStopMask, 1);
  const uint64_t serial = h->guard_.serial.load(std::memory_order_relaxed);
  // Raised again (after a pcall, through a message handler, out of a coroutine), the stop keeps
  // the line it was first raised at, the script's loop: raised anew, it named the line that
  // ran next (the pcall's caller, or the sandbox's own Lua: "(thicket):15:").
  const bool interrupted = lua_stop_requested(h->guard_);
  if (!interrupted && h->stopping_serial_ == serial && h->stop_message_serial_ == serial) {
    lua_pushlstring(L, h->stop_message_.data(), h->stop_message_.size());
    return;
  }
  // The first script line from `level` out: past C functions (table.sort's comparison is
  // called by one) and the sandbox's own Lua, which is not the modder's.
  lua_Debug ar;
  while (level < 256 && lua_getstack(L, level, &ar) && lua_getinfo(L, "Sl", &ar) &&
         (ar.currentline <= 0 || std::strcmp(ar.source, "=(thicket)") == 0))
    ++level;
  luaL_where(L, level);
  if (interrupted)
    lua_pushliteral(L, "stopped: the run was interrupted (Ctrl-C)");
  else if (!h->current_ && !h->staging_file_.empty()) {  // a leaf file's top level, at load
    h->stopping_serial_ = serial;
    lua_pushfstring(L, "stopped: the file's top level ran for more than %d ms at load without ending (an endless "
                       "loop, or more work than a load should do? a load may take %d times --leaf-timeout)",
                    static_cast<int>(h->guard_.timeout * 1000 * h->guard_.limit_scale.load() + 0.5),
                    static_cast<int>(h->guard_.limit_scale.load()));
  } else {
    h->stopping_serial_ = serial;
    // A call the budget counts may have the longer limit of its budget (LuaGuard::limit).
    static_assert(kBudgetLimitNs == 100, "the message says 100 ns");
    const double limit = h->guard_.limit();
    lua_pushfstring(L, "stopped after running for more than %d ms without returning or yielding (an endless loop? "
                       "a task lets time pass with coroutine.yield() or thicket.wait(); %s)",
                    static_cast<int>(limit * 1000 + 0.5),
                    limit > h->guard_.timeout * h->guard_.limit_scale.load()
                        ? "a call that the instruction budget counts may run 100 ns an instruction of its --budget, when "
                          "that is longer than --leaf-timeout"
                        : "--leaf-timeout sets the limit");
  }
  lua_concat(L, 2);
  if (!interrupted) {
    size_t len = 0;
    const char* text = lua_tolstring(L, -1, &len);
    h->stop_message_.assign(text, len);
    h->stop_message_serial_ = serial;
  }
}

// A thread's usual hook: the instruction budget on task threads (and on the main thread with
// --budget-all), none otherwise.
void LuaHost::restore_hook(lua_State* L) {
  bool budget = budget_slice_ > 0 && (L != L_ || rt_.options.budget_all_leaves);
  if (budget) lua_sethook(L, guard_hook, LUA_MASKCOUNT, budget_slice_);
  else lua_sethook(L, nullptr, 0, 0);
}

}  // namespace thicket
