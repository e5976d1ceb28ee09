// Headless simulations (issue 7): a scenario's agents move in a 2D world and decide with
// their brains. Agents are split over K workers, each with its own Runtime and Lua state;
// the world is read as it was at the start of the tick, steering and effects are applied
// after every brain has ticked, in agent-id order, so a run is the same for any K.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "record_sink.hpp"
#include "scenario.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace thicket {

struct SimOptions {
  uint32_t threads = 1;                      // workers (each its own Lua state)
  uint64_t seed = 1;                         // the run seed
  uint64_t ticks = 600;
  double dt = 0.1;
  bool trusted = false;
  uint64_t instruction_budget = 10'000'000;
  bool budget_all_leaves = false;
  double leaf_timeout = 0.05;                // RuntimeOptions::leaf_timeout of every worker
  size_t lua_memory_limit = size_t(512) << 20;  // per worker's Lua state
  std::function<void(const std::string&)> log;  // the run's log (thread-safe: called under a lock)
  // --record (issue 14; docs/record-format.md): where the record's lines go, a tick line every
  // record_every ticks (0: the scenario's `record: every`), the blackboard keys each agent's
  // entry carries (empty: the scenario's `record: keys`).
  RecordSink* record = nullptr;
  uint32_t record_every = 0;
  std::vector<std::string> record_keys;
  std::ostream* trace = nullptr;             // --trace: percept events, JSONL (issue 13)
  bool explain = false;                      // --explain: percept events in words, to the log
  // --trace / --explain: the brains' trace events (aborts, transitions, switches; with
  // brain_event_ticks also each agent tick's Tick record), called on the run's thread after
  // each tick, in agent-id order, so what it writes is the same at any thread count.
  std::function<void(const TraceEvent&)> brain_events;
  bool brain_event_ticks = false;
};

struct RunResult {
  uint64_t seed = 0;
  uint64_t ticks = 0;
  uint64_t agent_ticks = 0;
  double wall_seconds = 0;
  uint64_t script_errors = 0;
  uint32_t agents_at_start = 0, agents_at_end = 0;
  std::map<std::string, double> metrics;     // declared metrics (0 if never reported) + built-ins
  std::map<std::string, uint64_t> statuses;  // root status of the agents alive at the end
};

class Simulation {
 public:
  // Loads every group's brain into every worker and spawns the agents; nullptr with the
  // diagnostics if anything fails to load.
  static std::unique_ptr<Simulation> create(const ScenarioSpec& spec, const SimOptions& options,
                                            std::vector<Diagnostic>& diags);
  ~Simulation();
  // Runs the ticks; `progress(done, total)` after each tick; stops early when `stop()` says so.
  RunResult run(const std::function<void(uint64_t, uint64_t)>& progress = {},
                const std::function<bool()>& stop = {});
  // Time-sliced path searches (agent:path_to with a budget) held now, over all workers: an
  // agent holds one until it finishes, asks for another goal, or dies (tests check the last).
  size_t path_searches_held() const;

  struct Impl;

 private:
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace thicket
