// LuaHost::CallScope, the mark of a Lua call in progress, for the files that make guarded calls
// (lua_host.cpp: leaf calls and tasks; lua_leaf_files.cpp: a leaf file's chunk). Private to them.
#pragma once
#include <pthread.h>

#include <atomic>

#include "lua_host.hpp"

namespace thicket {

// Marks a Lua call in progress: the watchdog times it, the allocator caps it. Nested calls
// (a leaf whose code makes the engine call Lua again) keep the outer call's clock.
class LuaHost::CallScope {
 public:
  // Only the outermost call sets the serial (a nested call keeps the outer call's clock and
  // leaves the serial alone, so nothing is saved for it).
  // `budgeted`: the instruction budget counts the call (LuaGuard::budgeted; the outermost
  // call's says for the nested ones).
  CallScope(LuaHost& h, lua_State* running, bool budgeted)
      : h_(h), saved_running_(h.guard_.running.load(std::memory_order_relaxed)) {
    ++h.call_serial_;
    if (!saved_running_) {
      h.guard_.budgeted.store(budgeted, std::memory_order_relaxed);
      h.guard_.serial.store(h.call_serial_, std::memory_order_relaxed);
      h.guard_.os_thread.store(this_thread(), std::memory_order_relaxed);
      tl_running_guard = &h.guard_;
    }
    h.guard_.running.store(running, std::memory_order_release);
  }
  ~CallScope() {
    h_.guard_.running.store(saved_running_, std::memory_order_release);
    if (!saved_running_) tl_running_guard = nullptr;
  }
  // pthread_self() once per thread (a plain load after that), when the thread is readied for
  // the watchdog's signal (guard_this_thread).
  static pthread_t this_thread() {
    static thread_local pthread_t self = 0;
    if (__builtin_expect(self == 0, 0)) {
      guard_this_thread();
      self = pthread_self();
    }
    return self;
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  LuaHost& h_;
  lua_State* saved_running_;
};

}  // namespace thicket
