// The Python module `thicket` (issue 33): its C++ part, `thicket._thicket`. The package
// (bindings/python/thicket/__init__.py) wraps it: DataFrames are made there from the arrays and
// CSV text made here.
#include <pybind11/pybind11.h>

#include "py_parts.hpp"
#include "thicket/version.hpp"

PYBIND11_MODULE(_thicket, m) {
  m.doc() = "thicket: data-driven AI brains (behavior trees, state machines, behavior machines) with Lua leaves";
  m.attr("__version__") = THICKET_VERSION_STRING;
  thicket_py::register_runtime(m);
  thicket_py::register_batch(m);
  thicket_py::watch_python_exit();
}
