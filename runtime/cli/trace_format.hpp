// The brains' trace events as `--trace` JSON lines and `--explain` sentences: one format for
// `thicket run BRAIN` and `thicket run SCENARIO`, so tools read both alike.
#pragma once
#include <ostream>
#include <string>

#include "thicket/runtime.hpp"

namespace thicket::cli {

// s with JSON's escapes (quotes, backslashes, control characters), without the quotes.
std::string json_escape(const std::string& s);

// One --trace line (with its newline): a Tick record, an abort, a transition or a switch.
void write_trace_event(std::ostream& out, const TraceEvent& e);

// The --explain sentence of an abort, a transition or a switch; "" for a Tick record.
std::string explain_event(const TraceEvent& e);

}  // namespace thicket::cli
