// The simulation's insides, shared by simulation.cpp and the Lua world API
// (bindings/lua/world/lua_world.cpp).
#pragma once
#include <cstdio>
#include <map>
#include <mutex>

#include "recorder.hpp"
#include "script_errors.hpp"
#include "simulation.hpp"
#include "thicket/navigator.hpp"
#include "thicket/perception.hpp"
#include "thicket/value.hpp"

namespace thicket {

struct SimAgent {
  uint32_t id = 0;          // agent id, 1-based; index id - 1 in Simulation::Impl::agents
  uint32_t worker = 0;
  uint32_t group = 0;
  AgentHandle handle;
  world::EntityId entity;
  bool alive = true;
  world::WanderState wander;
  uint64_t wander_rng = 0;  // the wander jitter's own stream, from the run seed and the id
  int32_t pending_path = -1;  // a time-sliced path search in progress: its slot in the worker's pool
  uint64_t pending_tick = 0;  // the tick it was last stepped in
  uint64_t noise_tick = 0;    // thicket.noise: the tick of the last sound made, and how many then
  uint32_t noises = 0;
  uint64_t effects_tick = 0;  // agent:damage and agent:signal: the tick of the last call, the calls
  uint32_t effects = 0;       // then and the bytes of their signals (kMaxEffectsPerTick, kMaxSignalBytesPerTick)
  size_t signal_bytes = 0;
  uint64_t query_tick = 0;    // world queries from its leaves (neighbours, nearest, steer's flocking):
  uint64_t query_entries = 0; // the tick of the last, and the entities they examined then
  uint8_t sensed = 0;         // perception events: what it sensed last tick (kSensed* bits)
};
inline constexpr uint8_t kSensedSight = 1, kSensedHearing = 2, kSensedTouch = 4, kSensedMemory = 8;

// Sounds one agent may make in one tick (thicket.noise): a leaf looping over thicket.noise would
// otherwise fill the sound queue (every sound is tested by every listener near it next tick).
inline constexpr uint32_t kMaxNoisesPerTick = 16;
// agent:damage and agent:signal calls one agent may make in one tick, and the bytes (keys and
// texts) its signals may carry: each call is kept outside the Lua heap until the tick ends, so a
// leaf looping over them took the host's memory past any --lua-memory (500 MB from 8 agents).
inline constexpr uint32_t kMaxEffectsPerTick = 4096;
inline constexpr size_t kMaxSignalBytesPerTick = size_t(1) << 20;
// Entities the world queries of one agent's leaves may examine in one tick: 400 million shared
// out over the run's agents, at least 4,000 each. A query's cost is C++ time the leaf's time limit
// cannot cut, so 50,000 agents each steering over the whole world (radius 1e6) took 174 s a
// tick; this bounds a tick's query work to seconds, whatever the scripts ask.
inline constexpr uint64_t kQueryEntriesPerTick = 400'000'000, kMinQueryEntriesPerAgent = 4'000;

// Something an agent did to another, applied after the tick in agent-id order.
struct Effect {
  uint32_t source = 0, seq = 0, target = 0;
  enum class Kind { Damage, Signal } kind = Kind::Damage;
  double amount = 0;
  std::string key;
  Value value;
  std::string where;  // "file:line: " of the call (a refused signal or damage is reported with it)
};

struct MetricSample {
  uint32_t agent = 0, seq = 0, metric = 0;
  double value = 0;
  bool gauge = false;  // thicket.gauge: summed per tick; the run reports the last tick's sum
};

struct SimWorker {
  Simulation::Impl* sim = nullptr;
  uint32_t index = 0;
  std::unique_ptr<Runtime> rt;
  std::vector<BrainHandle> brains;   // per group
  std::vector<uint32_t> agents;      // agent ids this worker ticks, ascending
  std::vector<Effect> effects;       // this tick's, in the order made
  std::vector<MetricSample> metrics;
  uint32_t seq = 0;
  uint64_t agent_ticks = 0;
  // While the workers tick at once, their log and print lines are held here with the agent
  // whose tick made them, and written after the phase in agent order: a run's log and output
  // are the same on any number of threads (SPEC 8.2), not the workers' lines interleaved as
  // they happened.
  uint32_t ticking_agent = 0;
  // While a reload runs (Simulation::reload_changed) a worker's lines are held too: those its
  // agents' stop hooks make with the agent (RuntimeImpl::reload_agent), each other line (a
  // notice, on_reload's, a leaf file's top level: the same in every worker) as a mark that
  // ends a segment, written by worker 0 alone.
  uint32_t reload_segment = 0;
  struct HeldLine {
    uint32_t agent = 0;
    uint32_t segment = 0;  // a reload's lines: written segment by segment, each in agent order
    std::string text;
    std::optional<ScriptErrorBook::Entry> error;  // a script error, judged when written (in agent order)
    bool print = false;                           // a Lua print line (standard output), not the log's
  };
  std::vector<HeldLine> held_log;
  std::vector<world::EntityId> scratch;  // query results, reused
  std::vector<std::pair<double, size_t>> by_distance;  // agent:nearest's candidates in sight order
  // Navigation: whole searches share one request; time-sliced ones (agent:path_to with a
  // budget) each hold a pooled request until they finish, so an agent's search carries over
  // ticks without depending on which worker ticks which agent.
  nav::PathRequest path;
  std::vector<std::unique_ptr<nav::PathRequest>> path_pool;
  std::vector<int32_t> free_paths;
  std::vector<nav::DangerZone> danger_scratch;
  // Perception (issue 13): per group, the blackboard slots its senses write; this worker's stats.
  struct SenseKey {
    SenseSlot slot;
    uint32_t bb = 0;                       // the brain's blackboard slot
    ValueType type = ValueType::Number;    // Boolean, Number or Integer (numbers rounded)
  };
  std::vector<std::vector<SenseKey>> sense_keys;
  std::vector<bool> sense_events;  // per group: its brain is an fsm, which takes perception events
  perception::Stats perception_stats;
  std::vector<TraceEvent> brain_events;  // this tick's (--record, --trace, --explain), in tick order
};

// The world's navigation structures, built once per run from the scenario (issue 12).
struct SimNav {
  std::shared_ptr<const nav::WaypointGraph> waypoints;
  std::shared_ptr<const nav::NavMesh> navmesh;
  nav::NavWorld world;  // points into the spec, the World's obstacles and the members above
};

struct Simulation::Impl {
  ScenarioSpec spec;
  SimOptions options;
  world::World world{world::Bounds{}};
  world::SpatialHash hash{4.0};
  SimNav nav;
  std::vector<SimAgent> agents;
  std::vector<uint32_t> agent_of_slot;      // entity slot index -> agent id (0: none)
  std::vector<world::Vec2> forces;          // steering this tick, by entity slot index
  // agent:face this tick, by entity slot index ({0, 0}: none): the unit vector its heading
  // takes after the tick's move. Written by the agent's own worker only, read as it moves.
  std::vector<world::Vec2> facing;
  std::vector<std::unique_ptr<SimWorker>> workers;
  std::vector<std::string> metric_names;    // declared, then built-in
  std::vector<double> metric_totals;
  std::vector<bool> metric_is_gauge;
  // A metric counted (thicket.metric) at least once: a name is a counter or a gauge, not both
  // (a gauge's report replaced the counter's total). Both are written between ticks only, so a
  // leaf reads them to refuse the other kind; a checkpoint's counted metrics are those with a
  // total that are not gauges.
  std::vector<bool> metric_counted;
  std::vector<bool> metric_kind_warned;  // a same-tick clash of kinds said once per metric
  uint32_t deaths_metric = 0, dealt_metric = 0;  // "deaths", "damage_dealt": looked up once
  // The tick's effects and samples in agent-id order (gather_effects), and scratch: kept, so a
  // tick allocates nothing once they have grown.
  std::vector<Effect> tick_effects, spare_effects;
  // A refused signal or damage is a script error said at its call, a few times per call and
  // key, then counted only (as a leaf's repeated error): 2 agents over 200 ticks said 800.
  std::map<std::string, uint32_t> effect_errors_said;
  static constexpr uint32_t kEffectErrorsShown = 5;
  void effect_error(const std::string& key, const std::string& line) {
    const uint32_t n = ++effect_errors_said[key];
    if (n < kEffectErrorsShown) log(line);
    else if (n == kEffectErrorsShown)
      log(line + "\n  said " + std::to_string(kEffectErrorsShown) + " times; further ones from this call are only counted");
  }
  std::vector<MetricSample> tick_samples, spare_samples;
  std::vector<uint8_t> gauge_reset;
  std::vector<uint32_t> dying;
  std::vector<GaugeStats> gauge_stats;      // per metric, once it is a gauge: mean holds the sum until the end
  bool reload_hold = false;                 // a reload runs: the workers' lines wait (SimWorker::reload_segment)
  ScriptErrorBook errors;                   // the workers' script errors, judged in agent order
  bool hold_logs = false;                   // the workers tick at once: their lines wait (SimWorker::held_log)
  bool workers_disagree = false;            // --watch: a reload worked in some workers only; the run stops
  // --watch: the scenario's own files (itself, its map), read once at the start: an edit is
  // said, not loaded (sim_reload.cpp). Shared: FileWatcher is complete in that file only.
  std::shared_ptr<class FileWatcher> scenario_watch;
  uint64_t tick = 0;
  uint64_t script_errors_before = 0;  // a resumed run's, from its checkpoint (sim_snapshot.cpp)
  std::unique_ptr<perception::Manager> perception;  // always made: thicket.noise works without listeners
  uint32_t pickups_metric = UINT32_MAX;              // "pickups_taken" when the world has pickups
  bool sensed_before_tick = false;  // --trace / --explain: all agents sensed on this thread, then told
  std::mutex log_mutex;
  std::unique_ptr<Recorder> recorder;  // --record

  SimAgent* agent(uint32_t id) { return id >= 1 && id <= agents.size() ? &agents[id - 1] : nullptr; }
  void log(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex);
    if (options.log) options.log(line);
  }
  // A Lua print line: to options.print, or standard output (as Runtime's own print).
  void print(const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mutex);
    if (options.print) {
      options.print(line);
      return;
    }
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
};

// Installs the world API (agent:position(), agent:steer{...}, ...) into a worker's script
// host: defined by the Lua binding (bindings/lua/world/lua_world.cpp).
void install_lua_world(SimWorker& worker);  // bindings/lua/world: registered as ScriptBinding::install_world

// Perception in a run (sim_perception.cpp): the manager, its sensors, areas and pickups, and
// the blackboard bindings (checked against the brains: errors at the binding's line).
bool setup_perception(Simulation::Impl& sim, std::vector<Diagnostic>& diags);
// The agent's percepts of this tick, then its bound blackboard keys (on the agent's worker).
void sense_agent(SimWorker& worker, SimAgent& agent);
// After begin_tick: what the tick's pickups give their takers (in pickup order).
void apply_takes(Simulation::Impl& sim);
// Percept events (enter / exit) and takes of the tick: into the trace (JSONL) and, with
// explain, the log (the record takes them in recorder.cpp).
void trace_percepts(Simulation::Impl& sim);

// After a tick's effects: gauge statistics, the --series sample (series.hpp).
void observe_metrics(Simulation::Impl& sim);
// --strict: whether any worker has had a script error.
bool any_script_error(const Simulation::Impl& sim);
// After a reload: perception's blackboard bindings point at the slots of the new version.
void rebind_senses(Simulation::Impl& sim);
// The lines the workers held (SimWorker::held_log), written in agent order, as one thread
// would have written them (simulation.cpp).
void write_held_logs(Simulation::Impl& sim);
// A line a worker's runtime made while a reload runs, held (reload_hold; simulation.cpp).
void hold_reload_line(Simulation::Impl& sim, uint32_t worker, SimWorker::HeldLine line);
// A sense slot written as a boolean (seen, heard, touched, remembered); the others are numbers.
inline bool slot_is_boolean(SenseSlot slot) {
  return slot == SenseSlot::Seen || slot == SenseSlot::Heard || slot == SenseSlot::Touched || slot == SenseSlot::Remembered;
}
// The brains' trace events (sim_brain_events.cpp): each worker's runtime collects its agents'
// during the tick; after it, they go to the recorder and options.brain_events in agent-id order.
void collect_brain_events(Simulation::Impl& sim);
void deliver_brain_events(Simulation::Impl& sim);

// The parts of a tick outside the brains (sim_phases.cpp): a worker moves its own agents by
// their forces (the world's walls and bounds); the workers' effects and metric samples, taken
// from them into tick_effects and tick_samples in agent-id order.
void move_worker(SimWorker& worker, double dt);
// (gather_effects also checks the signals against their targets' blackboards: check_signals.)
void gather_effects(Simulation::Impl& sim);
// The workers' metric samples only, into tick_samples (the stop hooks of a tick's dead: their
// metrics count in that tick; their effects wait for the next tick's gather_effects).
void gather_metrics(Simulation::Impl& sim);

// Gives back the agent's time-sliced path search, if it holds one (simulation.cpp).
void release_path(SimWorker& worker, SimAgent& agent);

}  // namespace thicket
