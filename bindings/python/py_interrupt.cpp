// Ctrl-C in long calls from Python (py_parts.hpp: CtrlC).
#include <signal.h>

#include <atomic>

#include "py_parts.hpp"
#include "thicket/runtime.hpp"

namespace thicket_py {

namespace {
std::atomic<int> g_sigints{0};  // Ctrl-Cs seen while a scope is installed
std::atomic<int> g_scopes{0};   // scopes installed (nested calls share the first's handler)

extern "C" void on_sigint(int) {
  if (g_sigints.fetch_add(1) > 0) {  // a second Ctrl-C: end the process, as the CLI does
    ::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
    return;
  }
  thicket::interrupt_scripts();  // async-signal-safe
}
}  // namespace

struct CtrlC::Saved {
  struct sigaction old;
};

CtrlC::CtrlC() {
  // Only where Python would raise KeyboardInterrupt itself: its main thread, default handler.
  py::module_ threading = py::module_::import("threading");
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
  py::module_ signal_mod = py::module_::import("signal");
  if (!signal_mod.attr("getsignal")(signal_mod.attr("SIGINT")).is(signal_mod.attr("default_int_handler"))) return;
  if (g_scopes.fetch_add(1) > 0) {  // a nested call (a leaf's): the outer scope handles it
    g_scopes.fetch_sub(1);
    return;
  }
  saved_ = new Saved;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGINT, &sa, &saved_->old) != 0) {
    delete saved_;
    saved_ = nullptr;
    g_scopes.fetch_sub(1);
    return;
  }
  g_sigints.store(0);
  installed_ = true;
}

bool CtrlC::interrupted() const { return installed_ && g_sigints.load(std::memory_order_relaxed) > 0; }

void CtrlC::finish() {
  if (!installed_ || finished_) return;
  finished_ = true;
  const bool hit = interrupted();
  sigaction(SIGINT, &saved_->old, nullptr);
  delete saved_;
  saved_ = nullptr;
  g_scopes.fetch_sub(1);
  if (hit) {
    thicket::resume_scripts();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

CtrlC::~CtrlC() {
  if (!installed_ || finished_) return;  // left by an exception: put the handler back
  sigaction(SIGINT, &saved_->old, nullptr);
  delete saved_;
  g_scopes.fetch_sub(1);
  if (g_sigints.load() > 0) thicket::resume_scripts();
}

}  // namespace thicket_py
