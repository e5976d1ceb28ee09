// Records into numpy arrays (py_record.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

namespace thicket_py {
namespace py = pybind11;

// The record's text as arrays: header (the JSON text of line 1), end (the end line's, or ""),
// ticks (T), ids (A, ascending), x, y, heading (T x A, NaN where the agent is not in the tick
// line), status (T x A int8: -1 absent, 0 invalid, 1 running, 2 success, 3 failure), alive
// (T x A), group (A), metrics (T x M, in the header's metric order). Raises RuntimeError at
// the line of a malformed tick line.
py::dict parse_record(std::string_view text, const std::string& name);
py::dict read_record_file(const std::string& path);  // plain or gzip

}  // namespace thicket_py
