// Ctrl-C in long calls from Python (py_parts.hpp: CtrlC).
#include <signal.h>

#include <atomic>

#include "py_parts.hpp"

namespace thicket_py {

namespace {
constexpr int kMaxScopes = 16;
std::atomic<int> g_sigints{0};  // Ctrl-Cs seen while a scope is installed
std::atomic<int> g_scopes{0};   // scopes installed (nested calls share the first's handler)
// The flags the handler raises: the runtimes of the calls in progress on the main thread (a
// call and the calls its Python leaves make), each its own (RuntimeOptions::interrupt), so a
// Ctrl-C stops their Lua calls and not those of other threads' runtimes.
std::atomic<std::atomic<bool>*> g_targets[kMaxScopes];
std::atomic<int> g_python_calls{0};  // PythonCall scopes open (any thread)

extern "C" void on_sigint(int) {
  if (g_sigints.fetch_add(1) > 0) {  // a second Ctrl-C: end the process, as the CLI does
    ::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
    return;
  }
  const int n = g_scopes.load();
  for (int k = 0; k < n && k < kMaxScopes; ++k)
    if (std::atomic<bool>* f = g_targets[k].load()) f->store(true);  // async-signal-safe (lock-free)
  // And Python's own, when a Python leaf (or trace callback) runs: it gets its KeyboardInterrupt
  // at once, a time.sleep in it too (it held the tick until it returned, and only a second
  // Ctrl-C, which ends the process, got out). Made for signal handlers; finish() takes it if
  // the call returned before Python looked.
  if (g_python_calls.load() > 0) PyErr_SetInterrupt();
}
}  // namespace

PythonCall::PythonCall() { g_python_calls.fetch_add(1); }
PythonCall::~PythonCall() { g_python_calls.fetch_sub(1); }

struct CtrlC::Saved {
  struct sigaction old;
};

CtrlC::CtrlC(std::atomic<bool>& target) : target_(&target) {
  // Only where Python would raise KeyboardInterrupt itself: its main thread, default handler.
  py::module_ threading = py::module_::import("threading");
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
  py::module_ signal_mod = py::module_::import("signal");
  if (!signal_mod.attr("getsignal")(signal_mod.attr("SIGINT")).is(signal_mod.attr("default_int_handler"))) return;
  const int depth = g_scopes.load();
  if (depth > 0) {  // a nested call (a leaf's): the outer scope's handler raises its flag too
    if (depth >= kMaxScopes) return;
    target.store(g_sigints.load() > 0);
    g_targets[depth].store(&target);
    g_scopes.fetch_add(1);
    depth_ = depth;
    nested_ = true;
    return;
  }
  saved_ = new Saved;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  target.store(false);
  g_targets[0].store(&target);
  g_sigints.store(0);
  if (sigaction(SIGINT, &sa, &saved_->old) != 0) {
    delete saved_;
    saved_ = nullptr;
    g_targets[0].store(nullptr);
    return;
  }
  g_scopes.store(1);
  installed_ = true;
}

bool CtrlC::interrupted() const { return (installed_ || nested_) && target_->load(std::memory_order_relaxed); }

void CtrlC::release() {
  if (nested_) {
    g_scopes.fetch_sub(1);
    g_targets[depth_].store(nullptr);
    target_->store(false);
    return;
  }
  g_scopes.store(0);
  g_targets[0].store(nullptr);
  sigaction(SIGINT, &saved_->old, nullptr);
  delete saved_;
  saved_ = nullptr;
  target_->store(false);  // its runtime's Lua calls run again
}

void CtrlC::finish() {
  if (!(installed_ || nested_) || finished_) return;
  finished_ = true;
  const bool hit = interrupted() || (installed_ && g_sigints.load() > 0);
  release();
  if (hit) {
    // The SIGINT on_sigint passed to Python, taken here if no Python code took it (one
    // KeyboardInterrupt, not a second one at the caller's next line).
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

CtrlC::~CtrlC() {
  if (!(installed_ || nested_) || finished_) return;  // left by an exception: put the handler back
  release();
}

}  // namespace thicket_py
