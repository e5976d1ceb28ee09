// The brains' trace events in a run (issue 14): aborts, fsm transitions and machine switches
// (and per-agent Tick records for --trace). Each worker's runtime collects its own agents'
// events while the workers tick in parallel; after the tick they are merged in agent-id order
// (each worker ticks its agents in ascending id order, so a stable sort by agent keeps each
// agent's events in the order they happened) and handed on, on the run's thread: the record
// and the trace are then the same at any thread count.
#include <algorithm>

#include "sim_internal.hpp"

namespace thicket {

void collect_brain_events(Simulation::Impl& sim) {
  if (!sim.recorder && !sim.options.brain_events) return;
  const bool ticks = sim.options.brain_events && sim.options.brain_event_ticks;
  for (auto& w : sim.workers) {
    SimWorker* worker = w.get();
    worker->rt->on_trace([worker](const TraceEvent& e) { worker->brain_events.push_back(e); }, ticks);
  }
}

void deliver_brain_events(Simulation::Impl& sim) {
  if (!sim.recorder && !sim.options.brain_events) return;
  std::vector<TraceEvent>* only = nullptr;  // one worker with events: no merge needed
  size_t with_events = 0;
  for (auto& w : sim.workers)
    if (!w->brain_events.empty()) {
      only = &w->brain_events;
      ++with_events;
    }
  if (with_events == 0) return;
  std::vector<TraceEvent> merged;
  if (with_events > 1) {
    for (auto& w : sim.workers) {
      std::move(w->brain_events.begin(), w->brain_events.end(), std::back_inserter(merged));
      w->brain_events.clear();
    }
    std::stable_sort(merged.begin(), merged.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.agent < b.agent; });
    only = &merged;
  }
  for (const TraceEvent& e : *only) {
    if (sim.recorder && e.type != TraceEvent::Type::Tick) sim.recorder->brain_event(e);
    if (sim.options.brain_events) sim.options.brain_events(e);
  }
  only->clear();
}

}  // namespace thicket
