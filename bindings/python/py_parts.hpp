// The parts of the Python module, each in its own file.
#pragma once
#include <pybind11/pybind11.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket_py {

namespace py = pybind11;

// Runtime, Brain, Agent, Blackboard, Python leaves, LoadError (py_runtime.cpp).
void register_runtime(py::module_& m);
// run, sweep and read_record's C++ halves (py_batch.cpp, py_record.cpp).
void register_batch(py::module_& m);

// Ctrl-C during a long call made with the GIL released (tick_all(times=N), run, sweep): Python's
// own handler only notes the signal for when bytecode runs again, which is after all the work.
// While a Ctrl-C scope lives (made with the GIL held, on the main thread, while SIGINT has
// Python's default handler), SIGINT raises `target`, the interrupt of the runtimes the call
// ticks (RuntimeOptions::interrupt, SimOptions::interrupt: their Lua calls in progress stop at
// once, other threads' runtimes go on), and `interrupted()` turns true, so the loop stops after
// the tick or run in progress; `finish()` (GIL held) puts Python's handler back and raises
// KeyboardInterrupt. A scope made inside another (a Python leaf's call) has its target raised
// too. A second Ctrl-C while it lasts ends the process, as the CLI's does.
// A Python leaf's call (or a trace callback's) in progress: a Ctrl-C then reaches the Python
// code as KeyboardInterrupt at once (PyErr_SetInterrupt), a time.sleep in it too; between such
// calls it only stops the runtime's work (Python's own handler would raise it in thicket's log
// or print callbacks and lose what they were saying).
class PythonCall {
 public:
  PythonCall();
  ~PythonCall();
  PythonCall(const PythonCall&) = delete;
  PythonCall& operator=(const PythonCall&) = delete;
};

class CtrlC {
 public:
  explicit CtrlC(std::atomic<bool>& target);
  ~CtrlC();
  bool interrupted() const;
  void finish();  // GIL held: raises KeyboardInterrupt if interrupted
  CtrlC(const CtrlC&) = delete;
  CtrlC& operator=(const CtrlC&) = delete;

 private:
  void release();
  std::atomic<bool>* target_;
  bool installed_ = false;  // the outermost scope: SIGINT's handler is ours
  bool nested_ = false;     // a scope inside it, at depth_
  int depth_ = 0;
  bool finished_ = false;
  struct Saved;
  Saved* saved_ = nullptr;
};

// The GIL, taken (GilTaken: a callback of the runtime on the thread that ticks) and given back
// around long calls (GilReleased), as pybind11's gil_scoped_acquire and gil_scoped_release do;
// but a thread that would take it once Python shuts down (a daemon thread still ticking when a
// script ends) waits for the process to end instead, where Python would end it with
// pthread_exit, an unwind through the tick loop's and Lua's frames that aborted the process,
// and a callback's Python work under way is let finish before the shutdown begins (py_gil.cpp).
// watch_python_exit() (at import) registers the atexit handler that does both.
class GilTaken {
 public:
  GilTaken();
  ~GilTaken();
  GilTaken(const GilTaken&) = delete;
  GilTaken& operator=(const GilTaken&) = delete;

 private:
  std::optional<py::gil_scoped_acquire> gil_;
  bool counted_ = false;
};
class GilReleased {
 public:
  GilReleased();
  ~GilReleased();
  GilReleased(const GilReleased&) = delete;
  GilReleased& operator=(const GilReleased&) = delete;

 private:
  std::optional<py::gil_scoped_release> released_;
};
void watch_python_exit();

// Raises thicket.LoadError(message) with `.diagnostics` (a list of Diagnostic) set.
[[noreturn]] void raise_load_error(const std::string& what, const std::vector<thicket::Diagnostic>& diagnostics);
// The warnings among a successful load's diagnostics as Python UserWarnings ("FILE:LINE:COL:
// warning: ..."), each text once, at the Python frame `stack_level` up (1: the caller of the C++
// function). GIL held. A warning filtered into an error ("error") is raised.
void warn_diagnostics(const std::vector<thicket::Diagnostic>& diagnostics, int stack_level);

}  // namespace thicket_py
