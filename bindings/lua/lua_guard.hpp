// Keeps a modder's script from hanging or starving the host: a watchdog thread that stops a
// Lua call running past its time limit (or every call, once the run is interrupted), and a
// capped allocator per Lua state.
//
// How a call is stopped: the watchdog sees the same call in progress for longer than the
// limit (in CPU time of the thread running it, so a busy machine does not stop a leaf), marks
// it, and sends a signal to the OS thread running it; the signal handler, on that thread,
// installs a count hook on the running Lua thread with lua_sethook (the one Lua function that
// may be called asynchronously). The hook gives the call a grace of kStopGraceInstructions,
// then raises an error in it. Between calls nothing is hooked, so the guard costs a few plain
// stores per call.
#pragma once
#include <lua.hpp>
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace thicket {

// A call past its time limit may run this many more Lua instructions (about 0.1 ms) before it is
// stopped: a call whose thread was charged CPU time it did not use (interrupts and page faults
// are charged to the thread they land on, and on a busy machine they add up to tens of ms) has
// returned by then, while an endless loop is stopped a moment later. The instruction budget's
// hook interval is never this count (LuaHost moves it one up), so the hook tells them apart.
constexpr int kStopGraceInstructions = 10007;
// The hook that stops a call fires on every function call too (C functions' included): a leaf
// made only of C calls (`__index = pcall`, `__call = table.unpack`, each calling the next) runs
// no Lua instruction for a count hook to fire at. The grace counts those calls as instructions.
constexpr int kStopMask = LUA_MASKCOUNT | LUA_MASKCALL;
// The time limit of a call the instruction budget counts is at least this much CPU time for
// each instruction of the budget (1 s for the default 10 million): Lua's instructions took
// 3 ns (an empty loop) to 23 ns (a loop of tostring and ..) each on the 2-vCPU VM, so the
// budget, not the clock, stops a task that spins on plain Lua (LuaGuard::budget_seconds).
constexpr double kBudgetLimitNs = 100;

// What the watchdog sees of one Lua state; one per LuaHost, registered while it lives.
struct LuaGuard {
  // Written by the thread running Lua, read by the watchdog and the signal handler.
  std::atomic<lua_State*> running{nullptr};   // the Lua thread running now; null between calls
  std::atomic<uint64_t> serial{0};            // the call in progress (bumped by every call)
  std::atomic<uint64_t> interrupt_serial{0};  // the call asked to stop (0: none)
  // A call's grace (kStopGraceInstructions) started at grace_start_ns of its thread's CPU time
  // (grace_serial: that call); once the grace has used the limit again, of instructions that each
  // take long (a loop of string.upper on megabytes), it is over (grace_over_serial: that call).
  std::atomic<uint64_t> grace_serial{0};
  std::atomic<int64_t> grace_start_ns{0};
  std::atomic<uint64_t> grace_over_serial{0};
  std::atomic<pthread_t> os_thread{};         // the OS thread of the outermost call
  std::atomic<uint32_t> limit_scale{1};       // loading a file may take this many limits
  double timeout = 0.05;                      // CPU seconds a call may run; 0: no limit (Ctrl-C still stops)
  // A call the instruction budget counts (a task's resume or cleanup; every call with
  // --budget-all) is stopped by the budget, at the same instruction on any machine: its time
  // limit, left for the work the budget cannot count (a long stay in a C function), is at least
  // budget_seconds, kBudgetLimitNs for each instruction of the budget. At the plain limit a
  // task spinning on string.format (~21 ns an instruction here) met the 50 ms limit before its
  // 10 million instructions, a plain loop (~3 ns) the budget: which stopped a task, and where,
  // hung on the machine's speed.
  std::atomic<bool> budgeted{false};          // the call in progress is one the budget counts
  double budget_seconds = 0;
  // The time limit of the call in progress, in CPU seconds.
  double limit() const {
    const double plain = timeout * limit_scale.load(std::memory_order_relaxed);
    return budgeted.load(std::memory_order_relaxed) && budget_seconds > plain ? budget_seconds : plain;
  }
  lua_Hook hook = nullptr;                    // installed with count 1 to stop the call
  const std::atomic<bool>* interrupt = nullptr;  // RuntimeOptions::interrupt: a stop of this state's runtime only
  // The call the signal handler last ran for: a call signalled but never acknowledged runs on
  // a thread the signal does not reach (see Watchdog::unheard).
  std::atomic<uint64_t> acked_serial{0};
  // The watchdog's own bookkeeping.
  uint64_t seen_serial = 0;
  double seen_cpu = 0;  // the running thread's CPU seconds when the call was first seen
  uint64_t unheard_serial = 0;  // the call signalled without an answer, for unheard_looks looks
  int unheard_looks = 0;
};

// The guard of the call running on this OS thread (the signal handler reads it).
// constinit: no dynamic initialisation, so a use in another file is a plain TLS access (no
// wrapper call on every Lua call).
extern thread_local constinit LuaGuard* tl_running_guard;

// Once per OS thread, before its first Lua call: the watchdog's signal must reach the thread,
// so a thread that blocks it (a job system's workers, made with every signal blocked) has it
// unblocked (guide 8.11).
void guard_this_thread();

// Registers a guard with the watchdog (starting it on first use) / removes it.
void watch_lua(LuaGuard* guard);
void unwatch_lua(LuaGuard* guard);

// Ctrl-C: every Lua call in progress or to come is stopped until cleared. Safe to call from a
// signal handler.
void request_lua_stop();
void clear_lua_stop();
bool lua_stop_requested();
// The same, or this guard's runtime's own interrupt (RuntimeOptions::interrupt).
inline bool lua_stop_requested(const LuaGuard& g) {
  return lua_stop_requested() || (g.interrupt != nullptr && g.interrupt->load(std::memory_order_relaxed));
}

// A Lua allocator with a cap: past `cap` bytes an allocation made while a guarded call runs
// fails (Lua raises "not enough memory" in the call); the engine's own allocations between
// calls always succeed, so Lua never panics outside a protected call.
struct LuaHeap {
  size_t used = 0;
  size_t cap = 0;  // 0: no cap
  bool closing = false;  // a task's cleanups run (task_release): they get room past the cap
  // The allocation refused last, which Lua's emergency collection asks for again once.
  bool retry_armed = false;
  const void* retry_ptr = nullptr;
  size_t retry_size = 0;
  // The room past the cap that a call's code gets once an allocation of it was refused, and a
  // task's cleanups: the cleanups that the error's unwinding runs (to-be-closed variables,
  // thicket.defer) would otherwise fail at their first allocation, silently (Lua's one "not
  // enough memory" is the same error as the run's), since what the run grew is still held by
  // the stack they unwind. An eighth of the cap, at least 1 MiB.
  size_t grace() const { return cap / 8 > (size_t(1) << 20) ? cap / 8 : size_t(1) << 20; }
  size_t peak = 0;
  uint64_t reallocs = 0;  // blocks made, grown or shrunk (for tests: what a warm tick allocates)
  bool refused = false;  // an allocation was refused since the last check
  uint64_t refused_call = 0;  // in this call (LuaGuard::serial)
  const LuaGuard* guard = nullptr;
  // "file.lua:LINE" of the innermost Lua function running when the call's first allocation was
  // refused ("" if none, or where this Lua cannot tell it safely): Lua's "not enough memory"
  // carries no position, and the stack is unwound by the time the caller sees it.
  char refused_at[LUA_IDSIZE + 16] = "";
};
void* lua_heap_alloc(void* ud, void* ptr, size_t osize, size_t nsize);

}  // namespace thicket
