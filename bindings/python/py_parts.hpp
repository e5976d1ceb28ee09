// The parts of the Python module, each in its own file.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket_py {

namespace py = pybind11;

// Runtime, Brain, Agent, Blackboard, Python leaves, LoadError (py_runtime.cpp).
void register_runtime(py::module_& m);
// run, sweep and read_record's C++ halves (py_batch.cpp, py_record.cpp).
void register_batch(py::module_& m);

// Raises thicket.LoadError(message) with `.diagnostics` (a list of Diagnostic) set.
[[noreturn]] void raise_load_error(const std::string& what, const std::vector<thicket::Diagnostic>& diagnostics);

}  // namespace thicket_py
