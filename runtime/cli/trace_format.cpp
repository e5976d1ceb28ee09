// --trace lines and --explain sentences of the brains' trace events (see trace_format.hpp).
#include "trace_format.hpp"

#include <cstdio>
#include <sstream>

#include "sim/json_text.hpp"
#include "suggest.hpp"  // clipped

namespace thicket::cli {

std::string json_escape(const std::string& s) {
  std::string out;
  append_json_escaped(out, s);
  return out;
}

namespace {
std::string quoted(const std::string& s) { return s.empty() ? std::string("null") : '"' + json_escape(s) + '"'; }
}  // namespace

void write_trace_event(std::ostream& trace, const TraceEvent& e) {
  switch (e.type) {
    case TraceEvent::Type::Tick:
      trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << ",\"status\":\"" << status_name(e.status)
            << "\",\"running\":[";
      for (size_t k = 0; k < e.running.size(); ++k) trace << (k ? "," : "") << '"' << json_escape(e.running[k]) << '"';
      trace << "]}\n";
      break;
    case TraceEvent::Type::Transition:
    case TraceEvent::Type::Switch: {
      // An fsm changed state, or a machine changed behavior: one line of its own.
      const bool fsm = e.type == TraceEvent::Type::Transition;
      trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << (fsm ? ",\"transition\":{\"fsm\":" : ",\"switch\":{\"machine\":")
            << quoted(e.brain) << ",\"from\":" << quoted(e.from_name) << ",\"to\":" << quoted(e.to_name);
      if (!fsm) trace << ",\"check\":" << quoted(e.cause);
      else if (!e.event.empty()) trace << ",\"by\":" << quoted(e.transition) << ",\"event\":" << quoted(e.event);
      else if (!e.transition.empty()) trace << ",\"by\":" << quoted(e.transition) << ",\"reason\":" << quoted(e.cause);
      else if (e.reload) trace << ",\"reload\":true";
      else if (e.ended) trace << ",\"ended\":true";  // to is null: the brain left its final state
      else if (!e.from_name.empty()) trace << ",\"when\":" << quoted(e.cause);
      if (fsm) {  // SPEC 4.1: the states left (innermost first) and entered (outermost first)
        auto list = [&](const char* key, const std::vector<std::string>& names) {
          trace << ",\"" << key << "\":[";
          for (size_t k = 0; k < names.size(); ++k) trace << (k ? "," : "") << '"' << json_escape(names[k]) << '"';
          trace << "]";
        };
        list("exited", e.exited);
        list("entered", e.entered);
      }
      trace << "}}\n";
      break;
    }
    case TraceEvent::Type::Event:  // SPEC 4.1: taken_by is null when no state took it
      trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << ",\"event\":{\"name\":" << quoted(e.event)
            << ",\"taken_by\":" << quoted(e.taken_by) << (e.reload ? ",\"reload\":true" : "") << "}}\n";
      break;
    case TraceEvent::Type::Abort:
      trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << ",\"abort\":{\"at\":\"" << json_escape(e.composite)
            << "\",\"condition\":\"" << json_escape(e.condition) << "\",\"from\":\"" << status_name(e.from)
            << "\",\"to\":\"" << status_name(e.to) << "\",\"interrupted\":\"" << json_escape(e.aborted) << "\"}}\n";
      break;
  }
}

std::string explain_event(const TraceEvent& e) {
  // An event name of a megabyte (a script's) is shown by its start and size in the explanation,
  // a line for a reader; the trace keeps it whole.
  const std::string event = shown_name(e.event, 200);  // (a line break in it would split the line)
  std::ostringstream why;
  switch (e.type) {
    case TraceEvent::Type::Tick: return {};
    case TraceEvent::Type::Transition:
    case TraceEvent::Type::Switch: {
      const bool fsm = e.type == TraceEvent::Type::Transition;
      why << "tick " << e.tick << " agent " << e.agent << ": " << (fsm ? "fsm " : "machine ") << e.brain;
      if (e.from_name.empty()) why << (fsm ? " starts in " : " starts with ") << e.to_name;
      else if (fsm && e.reload) why << " enters " << e.from_name << "'s descent again";
      else if (fsm && e.ended) why << " ends in " << e.from_name;
      else why << (fsm ? " went from " : " switched from ") << e.from_name << " to " << e.to_name;
      if (fsm && e.from_name.empty()) why << " (its initial state" << (e.entered.size() > 1 ? "s" : "") << ")";
      else if (fsm && e.reload) why << " (a hot reload removed its active child state, moved it under another parent, or gave a leaf state children)";
      else if (fsm && e.ended) why << " (a top-level final state: it is left, and the next tick starts the brain again)";
      else if (fsm && !e.event.empty()) why << " (event " << event << ", taken by " << e.from_name << ")";
      else if (fsm && !e.transition.empty()) why << " (transition " << e.transition << ", by reason " << e.cause_label << ")";
      else why << " (" << (fsm ? "when " : "") << e.cause_label << " passed)";
      if (fsm && (e.entered.size() > 1 || e.exited.size() > 1)) {  // a hierarchical transition: say what moved
        auto names = [&](const std::vector<std::string>& v) {
          std::string out;
          for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + v[k];
          return out.empty() ? std::string("none") : out;
        };
        why << "; left " << names(e.exited) << "; entered " << names(e.entered);
      }
      break;
    }
    case TraceEvent::Type::Event:
      why << "tick " << e.tick << " agent " << e.agent << ": event " << event;
      if (!e.taken_by.empty())
        why << " taken by " << e.taken_by;
      else if (e.brain.empty())
        why << " dropped (only fsm brains take events)";
      else if (e.queue_full)
        why << " dropped (its event queue was full)";
      else if (e.stale && e.reload)
        why << " dropped (a reload removed " << e.from_name << ", the state that sent it)";
      else if (e.stale)
        why << " dropped (the state that sent it was left before it was taken)";
      else if (!e.refused_by.empty())
        why << " dropped (state " << e.refused_by << " maps it, but "
            << (e.guard_failed ? "its guard failed)" : "the states it leads to refused the entry)");
      else
        why << " dropped (no active state takes it)";
      break;
    case TraceEvent::Type::Abort:
      why << "tick " << e.tick << " agent " << e.agent << ": " << e.composite << " aborted " << e.aborted << " ("
          << e.aborted_label << "): " << e.condition << " (" << e.condition_label << ") changed from "
          << status_name(e.from) << " to " << status_name(e.to);
      break;
  }
  return why.str();
}

}  // namespace thicket::cli
