// The GIL taken and given back by the module's C++ (py_parts.hpp: GilTaken, GilReleased), and
// what happens to a thread that wants it while Python shuts down.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "py_parts.hpp"

namespace thicket_py {

namespace {
std::atomic<bool> g_exiting{false};  // set by the atexit handler: Python is shutting down
std::atomic<int> g_inside{0};        // threads in a GilTaken (counted before they look), or taking it back

// A thread that would take the GIL once Python shuts down waits here for the process to end:
// Python would end it with pthread_exit, an unwind through C++ frames (the tick loop's, Lua's)
// whose cleanups (Python objects let go without the GIL) break the shutdown under way (Python
// 3.14 itself parks such threads the same way).
[[noreturn]] void park() {
  for (;;) ::pause();
}

// Before taking the GIL from a thread that does not hold it: counted, then told whether Python
// is shutting down (then it parks).
void enter() {
  g_inside.fetch_add(1);
  if (g_exiting.load()) {
    g_inside.fetch_sub(1);
    park();
  }
}
}  // namespace

GilTaken::GilTaken() {
  if (PyGILState_Check()) {  // held already (a nested call): its outer section counts
    gil_.emplace();
    return;
  }
  enter();
  counted_ = true;
  gil_.emplace();
}

GilTaken::~GilTaken() {
  gil_.reset();  // lets the GIL go
  if (counted_) g_inside.fetch_sub(1);
}

GilReleased::GilReleased() { released_.emplace(); }

GilReleased::~GilReleased() {
  enter();
  released_.reset();  // takes the GIL back
  g_inside.fetch_sub(1);
}

// The atexit handler (Python runs it before it shuts down, while other threads may still take
// the GIL): no thread starts a section from now on, and the ones in a section finish it, with
// the GIL given to them (a Python leaf's call, a print's write, which Python would otherwise end
// halfway once its shutdown begins). A section still running after 5 s is left to Python.
void watch_python_exit() {
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    g_exiting.store(true);
    if (g_inside.load() == 0) return;
    py::gil_scoped_release release;
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (g_inside.load() > 0 && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }));
}

}  // namespace thicket_py
