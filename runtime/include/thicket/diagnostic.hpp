// Load errors are values: a list of diagnostics, each pointing into a file.
#pragma once
#include <string>
#include <vector>

#include "thicket/export.hpp"

namespace thicket {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;  // as the user named it (relative paths stay relative)
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown (Lua errors carry a line only)
  std::string message;
};

// "FILE:LINE:COL: error: MESSAGE" (LINE and COL left out where unknown; "error: MESSAGE" without
// a file, e.g. for a snapshot's bytes).
THICKET_API std::string format_diagnostic(const Diagnostic& d);

// In the order `thicket check` lists them: each file's by line and column (a loader that
// reports in passes, schema, names, types, gave 9:33 before 9:26), another file's where they
// came up (a leaf file's error after the line that names it). Reload failures are logged so too.
THICKET_API void sort_diagnostics(std::vector<Diagnostic>& diags);

inline bool has_errors(const std::vector<Diagnostic>& ds) {
  for (const auto& d : ds)
    if (d.severity == Severity::Error) return true;
  return false;
}

}  // namespace thicket
