// Headless simulations (issue 7): a scenario's agents move in a 2D world and decide with
// their brains. Agents are split over K workers, each with its own Runtime and Lua state;
// the world is read as it was at the start of the tick, steering and effects are applied
// after every brain has ticked, in agent-id order, so a run is the same for any K.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "record_sink.hpp"
#include "scenario.hpp"
#include "series.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace thicket {

// SimOptions::ticks of a run that goes on until it is stopped (--watch or --serve with
// --ticks 0): a record's header says `"ticks":null`.
inline constexpr uint64_t kTicksUntilStopped = UINT64_MAX;

struct SimOptions {
  uint32_t threads = 1;                      // workers (each its own Lua state)
  uint64_t seed = 1;                         // the run seed
  uint64_t ticks = 600;                      // kTicksUntilStopped: until stopped
  double dt = 0.1;
  bool trusted = false;
  uint64_t instruction_budget = 10'000'000;
  bool budget_all_leaves = false;
  double leaf_timeout = 0.05;                // RuntimeOptions::leaf_timeout of every worker
  size_t lua_memory_limit = size_t(512) << 20;  // per worker's Lua state
  std::function<void(const std::string&)> log;  // the run's log (thread-safe: called under a lock)
  // RuntimeOptions::interrupt of every worker's runtime: while true, their Lua calls are stopped
  // (a Ctrl-C for this run alone; the caller also stops the run, through run()'s `stop`).
  const std::atomic<bool>* interrupt = nullptr;
  // Lua `print` lines of a one-worker run (Runtime::on_print); empty: standard output. The CLI
  // sets it when it runs several runs at once, so each run's lines are written in run order.
  std::function<void(const std::string&)> print;
  // --record (issue 14; docs/record-format.md): where the record's lines go, a tick line every
  // record_every ticks (0: the scenario's `record: every`), the blackboard keys each agent's
  // entry carries (empty: the scenario's `record: keys`).
  RecordSink* record = nullptr;
  uint32_t record_every = 0;
  std::vector<std::string> record_keys;
  std::string record_keys_name = "--record-keys";  // how record_keys' errors name it (Python: record_keys)
  std::ostream* trace = nullptr;             // --trace: percept events, JSONL (issue 13)
  bool explain = false;                      // --explain: percept events in words, to the log
  SeriesBuffer* series = nullptr;            // --series: every metric at every N-th tick (series.hpp)
  bool strict = false;                       // --strict: stop after the first tick with a script error
  // --watch: before each tick, reload the brain and leaf files that changed, in every worker
  // (sim_reload.cpp); `on_reload` hears what each reload did (e.g. for the record).
  bool watch = false;
  std::function<void(const std::vector<ReloadReport>&)> on_reload;
  // --trace / --explain: the brains' trace events (aborts, transitions, switches; with
  // brain_event_ticks also each agent tick's Tick record), called on the run's thread after
  // each tick, in agent-id order, so what it writes is the same at any thread count.
  std::function<void(const TraceEvent&)> brain_events;
  bool brain_event_ticks = false;
  // RuntimeOptions::journal_tasks of every worker: running Lua tasks are journaled so that a
  // checkpoint keeps them exactly (the CLI sets it with --checkpoint and --resume).
  bool journal_tasks = false;
};

// A gauge's value over the ticks of a run, from the tick of its first report on (it is held
// at its last sum in the ticks it is not reported).
struct GaugeStats {
  double last = 0, mean = 0, min = 0, max = 0;
  uint64_t ticks = 0;
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
  std::map<std::string, GaugeStats> gauges;  // the metrics reported with thicket.gauge in this run
  bool stopped_strict = false;               // --strict stopped it (a script error)
  bool stopped_reload = false;               // --watch: workers could not agree on a version
};

// What a checkpoint's header says (Simulation::read_header; sim_snapshot.cpp has the format).
struct SnapshotInfo {
  uint32_t format = 0;
  std::string thicket_version;  // of the thicket that wrote it
  std::string scenario;         // the scenario file as the saving run named it
  uint64_t scenario_hash = 0;   // of its content
  uint64_t seed = 0;
  double dt = 0;
  uint64_t tick = 0;            // the ticks done when it was made
  uint32_t threads = 0, agents = 0;
  std::vector<std::pair<std::string, uint64_t>> brains;  // per group: brain file, content hash
  // From format 8: the map's content hash (0: no map), and the content hashes of the Lua files
  // the brains read (leaf files, required modules), sorted.
  uint64_t map_hash = 0;
  std::vector<uint64_t> lua_hashes;
  size_t body_offset = 0;       // where the state after the header starts
};

class SnapshotWriter;
class SnapshotReader;

// After a scenario file that did not load (load_scenario's `partial`): the checks a run makes
// of the groups that were read, so that a file's errors come at once rather than one stage
// after another: each group's brain loads (its own errors and warnings), and the group's
// blackboard values fit it. What the file's other errors would make follow (the world, spawns,
// senses) is left out. Adds to diags (the failed load's) and puts them in the scenario's order.
void check_groups_of_failed_load(const ScenarioSpec& partial, std::vector<Diagnostic>& diags);

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
  // --watch, between ticks on the calling thread (workers parked): reloads the changed brain
  // and leaf files in every worker, so that all run the same version (sim_reload.cpp); what
  // worker 0's reloads did, plus a failed report for a file the workers could not agree on.
  std::vector<ReloadReport> reload_changed();
  // The same as --watch does it before a tick (reload_changed, then the record's reload line
  // and on_reload), for a reload asked for between ticks (a served run's debugger: POST
  // /api/reload). When the workers could not agree on a version, the run stops before its
  // next tick (RunResult::stopped_reload).
  std::vector<ReloadReport> reload_and_report();
  // Every file the run reads: the scenario, its map, its brains' YAML and leaf files and the
  // modules those require (a run's outputs must not be one of them).
  std::vector<std::string> files_read() const;

  // For a debugger of the run (cli/live_debug.cpp), between ticks on the run's thread (or
  // after run() returned): the live agents in id order (the order effects apply in), each with
  // the runtime of its worker; the ticks done.
  struct AgentRef {
    uint32_t id = 0;
    Runtime* runtime = nullptr;
    AgentHandle handle;
  };
  void live_agents(std::vector<AgentRef>& out) const;
  uint64_t ticks_done() const;

  // Checkpoints (issue 15; sim_snapshot.cpp), between ticks (e.g. from run's `progress`) or
  // before run(). save appends the run's whole state to `bytes`. restore, into a Simulation
  // just created from the same scenario, seed and dt (any thread count), takes the
  // checkpoint's state, so that run() goes on from its tick as the saved run would have; on
  // failure it returns false with diagnostics (on `name`) and the Simulation must be dropped.
  std::string save(std::string& bytes) const;  // "" or why it cannot be saved exactly (nothing appended)
  bool restore(std::string_view bytes, const std::string& name, std::vector<Diagnostic>& diags);
  // The header, after checking magic, format version, length and checksum: nullopt and why.
  static std::optional<SnapshotInfo> read_header(std::string_view bytes, std::string& error);
  // "" when a checkpoint with this header can be restored into a run of this scenario with
  // these options (same scenario content, seed, dt, agents; its tick within --ticks), else why.
  static std::string mismatch(const SnapshotInfo& info, const ScenarioSpec& spec, const SimOptions& options);

  struct Impl;

 private:
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::string save_brains(SnapshotWriter& out) const;  // "" or why a runtime refused
  bool restore_brains(SnapshotReader& in, const std::string& name, std::vector<Diagnostic>& diags);
  std::unique_ptr<Impl> impl_;
};

}  // namespace thicket
