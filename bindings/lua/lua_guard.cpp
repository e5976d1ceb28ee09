// The watchdog thread and the capped Lua allocator (see lua_guard.hpp).
#include "lua_guard.hpp"

#include "thicket/runtime.hpp"

#include <csignal>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace thicket {

thread_local constinit LuaGuard* tl_running_guard = nullptr;

namespace {

// SIGURG is ignored by default and rarely used by programs (Go's runtime preempts with it too).
constexpr int kGuardSignal = SIGURG;
constexpr auto kPollPeriod = std::chrono::milliseconds(5);

// The watchdog's signals carry this value (pthread_sigqueue), so the handler tells them from
// a SIGURG of the host's (out-of-band data on a socket), which it passes on; its own it keeps.
constexpr int kGuardSignalTag = 0x7468696b;  // "thik"
// A call signalled at this many looks (5 ms each) without the handler answering runs on a
// thread the signal does not reach: the handler was replaced, or the thread blocks it.
constexpr int kUnheardLooks = 4;
// Past this many looks unanswered (about a second), the watchdog hooks the call from its own
// thread: the last resort for a thread that blocked the signal after thicket readied it.
constexpr int kLastResortLooks = 200;

std::atomic<bool> g_stop{false};
// The handler that was there before thicket's (called for every SIGURG not thicket's). A
// pointer into a fixed pool, moved to a fresh slot when thicket's handler is put back in front
// of a host's (a handler may be reading the old slot; past the pool's end the last is reused).
constexpr int kPreviousSlots = 16;
struct sigaction g_previous_slots[kPreviousSlots];
int g_previous_used = 0;  // the watchdog's thread (and the first runtime's) only
std::atomic<const struct sigaction*> g_previous_action{nullptr};

// Runs on the thread executing Lua: hooks the running Lua thread if the call the watchdog
// marked is still the one in progress (otherwise the call ended meanwhile: nothing to do).
void on_guard_signal(int sig, siginfo_t* info, void* context) {
  LuaGuard* g = tl_running_guard;
  const bool ours = info != nullptr && info->si_code == SI_QUEUE && info->si_pid == getpid() &&
                    info->si_value.sival_int == kGuardSignalTag;
  if (g) {
    uint64_t want = g->interrupt_serial.load(std::memory_order_acquire);
    lua_State* running = g->running.load(std::memory_order_relaxed);
    if (ours) g->acked_serial.store(g->serial.load(std::memory_order_relaxed), std::memory_order_release);
    // Not again when the thread is hooked already (the hook stays until the call ends):
    // lua_sethook marks every frame of the thread's call stack, which for a runaway recursion
    // a million frames deep took longer than the watchdog's 5 ms between signals, so the
    // thread did nothing but handle signals.
    // A call in its grace past twice its limit is hooked again at count 1, which ends the grace.
    const bool grace_over = want == g->grace_over_serial.load(std::memory_order_relaxed);
    if (running && want != 0 && want == g->serial.load(std::memory_order_relaxed) &&
        !(lua_gethook(running) == g->hook && lua_gethookmask(running) == kStopMask &&
          (lua_gethookcount(running) == 1 || (lua_gethookcount(running) == kStopGraceInstructions && !grace_over))))
      lua_sethook(running, g->hook, kStopMask, 1);
  }
  // Someone else's SIGURG handler keeps working, and sees only the SIGURGs not thicket's.
  const struct sigaction* previous = g_previous_action.load(std::memory_order_acquire);
  if (ours || previous == nullptr) return;
  if (previous->sa_flags & SA_SIGINFO) {
    if (previous->sa_sigaction) previous->sa_sigaction(sig, info, context);
  } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != nullptr) {
    previous->sa_handler(sig);
  }
}

// Installs thicket's handler in front of whatever handles the signal now (which it then calls
// for every SIGURG not thicket's). False when the handler in place is thicket's already.
bool install_guard_handler() {
  struct sigaction now {};
  if (sigaction(kGuardSignal, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_guard_signal)
    return false;
  struct sigaction sa {};
  sa.sa_sigaction = on_guard_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction* previous = &g_previous_slots[g_previous_used < kPreviousSlots - 1 ? g_previous_used++ : kPreviousSlots - 1];
  sigaction(kGuardSignal, &sa, previous);
  g_previous_action.store(previous, std::memory_order_release);
  return true;
}

class Watchdog {
 public:
  Watchdog() {
    install_guard_handler();
    std::thread([this] { loop(); }).detach();
  }
  void add(LuaGuard* g) {
    std::lock_guard<std::mutex> lock(mutex_);
    guards_.push_back(g);
    wake_.notify_one();
  }
  void remove(LuaGuard* g) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < guards_.size(); ++i)
      if (guards_[i] == g) {
        guards_[i] = guards_.back();
        guards_.pop_back();
        return;
      }
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      // Sleeps while no Lua state exists; then looks every few milliseconds.
      wake_.wait(lock, [this] { return !guards_.empty(); });
      wake_.wait_for(lock, kPollPeriod);
      const auto now = std::chrono::steady_clock::now();
      const bool stop = g_stop.load(std::memory_order_relaxed);
      for (LuaGuard* g : guards_) check(*g, now, stop || (g->interrupt && g->interrupt->load(std::memory_order_relaxed)));
    }
  }
  // The CPU time the thread running the call has used, in seconds: a call is timed by the
  // work it does, so a loaded machine (the thread waiting for a core) does not stop a leaf that
  // would finish. The wall clock stands in where the thread's CPU clock cannot be read.
  static double thread_seconds(pthread_t thread, std::chrono::steady_clock::time_point now) {
    clockid_t clock;
    timespec ts;
    if (pthread_getcpuclockid(thread, &clock) == 0 && clock_gettime(clock, &ts) == 0)
      return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    return std::chrono::duration<double>(now.time_since_epoch()).count();
  }
  static void check(LuaGuard& g, std::chrono::steady_clock::time_point now, bool stop) {
    lua_State* running = g.running.load(std::memory_order_acquire);
    uint64_t serial = g.serial.load(std::memory_order_acquire);
    if (!running) {
      g.seen_serial = 0;
      return;
    }
    const pthread_t thread = g.os_thread.load(std::memory_order_relaxed);
    if (serial != g.seen_serial) {  // a call the watchdog has not seen yet: its clock starts
      g.seen_serial = serial;
      g.seen_cpu = thread_seconds(thread, now);
      if (!stop) return;
    }
    const double limit = g.limit();
    const double cpu = thread_seconds(thread, now);
    bool overdue = g.timeout > 0 && cpu - g.seen_cpu >= limit;
    if (!stop && !overdue) return;
    if (overdue && g.grace_serial.load(std::memory_order_acquire) == serial &&
        cpu - static_cast<double>(g.grace_start_ns.load(std::memory_order_relaxed)) * 1e-9 >= limit)
      g.grace_over_serial.store(serial, std::memory_order_release);
    // Marked, then signalled (again on every look while it still runs: a call that caught the
    // error with pcall, or moved into a coroutine of its own, is hooked again).
    g.interrupt_serial.store(serial, std::memory_order_release);
    sigval tag{};
    tag.sival_int = kGuardSignalTag;
    pthread_sigqueue(thread, kGuardSignal, tag);
    if (g.acked_serial.load(std::memory_order_acquire) != serial) unheard(g, serial, running);
  }
  // A call signalled and not answered. After a few looks: a host that put its own SIGURG
  // handler in after thicket's has thicket's put back in front of it (its own still gets every
  // SIGURG not thicket's). After about a second: the thread blocks the signal (it blocked it
  // after its first Lua call; guard_this_thread unblocks it before), and the watchdog hooks the
  // call from its own thread, once: lua_sethook is made to be called from a signal handler,
  // not from another thread while the call runs (it marks the call's frames as the thread
  // pushes and pops them), so it is the last resort, for a call that would otherwise hold its
  // thread for ever.
  static void unheard(LuaGuard& g, uint64_t serial, lua_State* running) {
    if (g.unheard_serial != serial) {
      g.unheard_serial = serial;
      g.unheard_looks = 0;
    }
    ++g.unheard_looks;
    if (g.unheard_looks == kUnheardLooks) install_guard_handler();
    if (g.unheard_looks == kLastResortLooks && g.running.load(std::memory_order_acquire) == running &&
        g.serial.load(std::memory_order_acquire) == serial)
      lua_sethook(running, g.hook, kStopMask, 1);
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<LuaGuard*> guards_;
};

Watchdog& watchdog() {
  static Watchdog* dog = new Watchdog();  // never destroyed: its thread may outlive main's statics
  return *dog;
}

}  // namespace

void guard_this_thread() {
  sigset_t blocked;
  if (pthread_sigmask(SIG_BLOCK, nullptr, &blocked) == 0 && sigismember(&blocked, kGuardSignal) == 1) {
    sigset_t guard_signal;
    sigemptyset(&guard_signal);
    sigaddset(&guard_signal, kGuardSignal);
    pthread_sigmask(SIG_UNBLOCK, &guard_signal, nullptr);
  }
}

void watch_lua(LuaGuard* guard) { watchdog().add(guard); }
void unwatch_lua(LuaGuard* guard) { watchdog().remove(guard); }

void interrupt_scripts() { request_lua_stop(); }
void resume_scripts() { clear_lua_stop(); }

void request_lua_stop() { g_stop.store(true, std::memory_order_relaxed); }
void clear_lua_stop() { g_stop.store(false, std::memory_order_relaxed); }
bool lua_stop_requested() { return g_stop.load(std::memory_order_relaxed); }

namespace {
// Fills heap.refused_at from the running Lua thread's stack, from inside the allocator. Safe in
// Lua up to 5.4.4: a growing stack is copied into a new block (the old one stays valid and
// every pointer into it with it) and the call infos are linked before or after their
// allocation, never during; from 5.4.5 on, the stack's pointers are offsets while it is
// reallocated, so reading the stack then is not safe, and the position is left out.
void note_refused_at(LuaHeap& heap) {
  heap.refused_at[0] = '\0';
#if LUA_VERSION_RELEASE_NUM <= 50404
  lua_State* L = heap.guard->running.load(std::memory_order_relaxed);
  if (L == nullptr) return;
  lua_Debug ar;
  // The innermost Lua function (string.rep and the like are C functions: their caller).
  for (int level = 0; level < 32 && lua_getstack(L, level, &ar); ++level) {
    if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) continue;
    std::snprintf(heap.refused_at, sizeof heap.refused_at, "%s:%d", ar.short_src, ar.currentline);
    return;
  }
#endif
}
}  // namespace

void* lua_heap_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* heap = static_cast<LuaHeap*>(ud);
  const size_t old = ptr ? osize : 0;  // without a block, osize tells the kind of object
  if (nsize == 0) {
    std::free(ptr);
    heap->used -= old;
    return nullptr;
  }
  if (nsize > old && heap->cap != 0 && heap->guard && heap->guard->running.load(std::memory_order_relaxed)) {
    // Past the cap, the call's allocation fails. Lua then collects garbage and tries the same
    // allocation again, once: that retry fails too. Once the error is raised, the call's later
    // allocations (the error's unwinding, its cleanups) get the grace past the cap, and fail
    // at once past that: no full collection per allocation of a heap held at its cap. (Without
    // the grace a cleanup failed at its first allocation, silently.)
    const uint64_t call = heap->guard->serial.load(std::memory_order_relaxed);
    const bool refused_now = heap->refused && heap->refused_call == call;
    const bool retry = refused_now && heap->retry_armed && ptr == heap->retry_ptr && nsize == heap->retry_size;
    const size_t room = !retry && (refused_now || heap->closing) ? heap->grace() : 0;
    if (retry || heap->used - old + nsize > heap->cap + room) {
      if (!refused_now) note_refused_at(*heap);
      heap->retry_armed = !retry;  // (Lua's emergency collection retries this allocation once)
      heap->retry_ptr = ptr;
      heap->retry_size = nsize;
      heap->refused = true;
      heap->refused_call = call;
      return nullptr;
    }
  }
  void* block = std::realloc(ptr, nsize);
  if (!block) return nullptr;
  ++heap->reallocs;
  heap->used = heap->used - old + nsize;
  if (heap->used > heap->peak) heap->peak = heap->used;
  return block;
}

}  // namespace thicket
