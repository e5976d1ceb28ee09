// The simulation loop. Per tick: rebuild the neighbour index from the world as it is; every
// worker ticks its agents (in parallel, each in its own Lua state), which read that world and
// leave steering forces and effects; then effects and metrics are applied in agent-id order,
// and every worker moves its own agents (each move reads only its own entity and force).
// Nothing a worker does depends on how agents are split over workers.
#include "simulation.hpp"

#include <malloc.h>

#include <algorithm>
#include <set>
#include <chrono>
#include <filesystem>
#include <optional>
#include <cmath>
#include <numbers>
#include <thread>

#include "agent.hpp"
#include "leaf_host.hpp"
#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "spin_barrier.hpp"
#include "suggest.hpp"
#include "sweep.hpp"
#include "thicket/nav_mesh.hpp"

namespace thicket {

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Simulation::~Simulation() {
  impl_.reset();
  // A run can leave hundreds of MB of small freed blocks (Lua tables, paths) in the allocator's
  // per-thread arenas. glibc consolidates them lazily, inside whichever allocation first needs a
  // large block: in a later run of the same process that is a leaf call, which then spends
  // ~100 ms of CPU in malloc and is stopped by --leaf-timeout (seen in bench_nav_scenario: one
  // agent's leaf, on 2 threads only). Consolidate here, between runs, where no limit applies.
  malloc_trim(0);
}

void release_path(SimWorker& worker, SimAgent& agent) {
  if (agent.pending_path < 0) return;
  worker.free_paths.push_back(agent.pending_path);
  agent.pending_path = -1;
}

namespace {

bool build_navmesh(Simulation::Impl& sim, std::vector<Diagnostic>& diags) {
  const NavSpec& spec = sim.spec.nav;
  if (!spec.navmesh) return true;
  nav::NavMeshParams params;
  params.cell_size = spec.navmesh_cell;
  params.agent_radius = spec.navmesh_agent_radius;
  std::string error;
  std::shared_ptr<const nav::NavMesh> mesh = nav::NavMesh::build(sim.world.bounds(), sim.world.obstacles(), params, error);
  if (!mesh) {
    diags.push_back({Severity::Error, sim.spec.path, spec.navmesh_line, spec.navmesh_column,
                     "the navmesh could not be built: " + error + " (navmesh: {cell: ...} in the scenario)"});
    return false;
  }
  if (mesh->stats().polygons == 0) {
    // Every path on it would fail; say why at the scenario's line, not at each agent's query.
    const world::Bounds& b = sim.world.bounds();
    char text[320];
    std::snprintf(text, sizeof text, "the navmesh has nothing walkable: cells of %g m over a %g x %g m world, less its "
                  "obstacles and the agents' radius (%g m), leave no polygon; use a smaller 'cell', or leave the agents some open ground",
                  params.cell_size, b.max.x - b.min.x, b.max.y - b.min.y, params.agent_radius);
    diags.push_back({Severity::Error, sim.spec.path, spec.navmesh_line, spec.navmesh_column, text});
    return false;
  }
  sim.nav.navmesh = mesh;
  sim.nav.world.navmesh = mesh.get();
  return true;
}

world::Vec2 draw_point(const SpawnArea& area, Rng& rng) {
  if (area.shape == SpawnArea::Shape::Box)
    return {area.min.x + (area.max.x - area.min.x) * rng.uniform(), area.min.y + (area.max.y - area.min.y) * rng.uniform()};
  // Uniform over the disc.
  double r = area.radius * std::sqrt(rng.uniform()), a = 2 * M_PI * rng.uniform();
  return {area.centre.x + r * std::cos(a), area.centre.y + r * std::sin(a)};
}

// Agents never spawn inside a wall (a blocked map cell or an obstacle): points are drawn again
// until one is free. The loader made sure a map's spawn area has a free cell; an area that is
// all obstacle, or nearly, gives up after kSpawnTries draws.
constexpr int kSpawnTries = 10000;
std::optional<world::Vec2> spawn_point(const SpawnArea& area, const nav::Walls& walls, Rng& rng) {
  for (int k = 0; k < kSpawnTries; ++k) {
    world::Vec2 p = draw_point(area, rng);
    if (!walls.blocked(p)) return p;
  }
  return std::nullopt;
}

// The run's navigation: the scenario's map, waypoints and navmesh, and the walls they see.
bool build_nav(Simulation::Impl& sim, std::vector<Diagnostic>& diags) {
  const NavSpec& spec = sim.spec.nav;
  nav::NavWorld& w = sim.nav.world;
  w.map = spec.map.get();
  // Search tables are built here, not by the first leaf that plans: that leaf would pay ~0.2 s
  // on a 512 x 512 map (past its time limit), and which leaf it is depends on the threads.
  if (w.map) nav::prepare_search_tables(*w.map);
  w.walls = nav::Walls(sim.world.obstacles(), w.map);
  w.danger = spec.danger;
  w.bounds = &sim.world.bounds();
  if (spec.has_waypoints) {
    auto graph = std::make_shared<nav::WaypointGraph>(spec.waypoints);
    if (spec.waypoint_edges.empty()) graph->connect(w.walls, spec.waypoint_max_length);
    for (auto [a, b] : spec.waypoint_edges) graph->add_edge(a, b);
    sim.nav.waypoints = graph;
    w.waypoints = graph.get();
  }
  return build_navmesh(sim, diags);
}

}  // namespace

void check_groups_of_failed_load(const ScenarioSpec& partial, std::vector<Diagnostic>& diags) {
  // Each group alone, one agent on an empty world of one team (only its brain and its
  // blackboard values can fail), so that a broken brain does not hide another group's values.
  // A group whose brain file was not found is said so already; a brain two groups share says
  // its errors once.
  SimOptions options;
  options.threads = 1;
  options.ticks = 0;
  options.log = [](const std::string&) {};
  options.print = [](const std::string&) {};  // (a leaf file's prints as it loads)
  auto same = [](const Diagnostic& a, const Diagnostic& b) {
    return a.file == b.file && a.line == b.line && a.column == b.column && a.message == b.message;
  };
  auto brain_file = [](const AgentGroup& g) {
    std::error_code ec;
    return !g.brain.empty() && std::filesystem::is_regular_file(g.brain, ec);
  };
  auto probe = [&] {  // a scenario of one team on an empty world
    ScenarioSpec s;
    s.path = partial.path;
    s.teams = {"t"};
    return s;
  };
  auto add_one_agent = [](ScenarioSpec& s, const AgentGroup& g) -> AgentGroup& {
    AgentGroup& copy = s.groups.emplace_back();
    copy.name = g.name;
    copy.team = "t";
    copy.brain = g.brain;
    copy.brain_line = g.brain_line;  // (a brain that does not load is said at its group's line)
    copy.brain_column = g.brain_column;
    copy.spawn.centre = (s.bounds.min + s.bounds.max) * 0.5;
    return copy;
  };
  auto report = [&](const ScenarioSpec& s) {
    std::vector<Diagnostic> found;
    Simulation::create(s, options, found);
    for (const Diagnostic& d : found)
      if (std::none_of(diags.begin(), diags.end(), [&](const Diagnostic& e) { return same(d, e); })) diags.push_back(d);
  };
  std::vector<const AgentGroup*> groups;  // (what they find is sorted by place below)
  for (const AgentGroup& g : partial.groups) groups.push_back(&g);
  for (const AgentGroup& g : partial.groups_with_errors) groups.push_back(&g);
  for (const AgentGroup* group : groups) {
    const AgentGroup& g = *group;
    if (!brain_file(g)) continue;
    ScenarioSpec s = probe();
    AgentGroup& copy = add_one_agent(s, g);
    copy.blackboard = g.blackboard;
    copy.blackboard_at = g.blackboard_at;
    copy.blackboard_swept = g.blackboard_swept;
    // Where its senses write on the blackboard, and the events they send: checked against its
    // brain too (they were said only once the file's other errors were mended).
    copy.has_senses = g.has_senses;
    copy.senses = g.senses;
    // (Not a binding already said wrong, a slot of a sense the group lacks: one error there.)
    for (const SenseBinding& b : g.sense_keys)
      if (std::none_of(diags.begin(), diags.end(), [&](const Diagnostic& d) {
            return d.severity == Severity::Error && d.file == partial.path && d.line == b.line && d.column == b.column;
          }))
        copy.sense_keys.push_back(b);
    copy.sense_events = g.sense_events;
    copy.sense_events_at = g.sense_events_at;
    copy.sense_event_at = g.sense_event_at;
    report(s);
  }
  // The recorded keys, against every group's brain at once (a key need be declared by one):
  // only when every group was read and every brain loads, else a key of a brain not seen
  // would be called undeclared.
  if (partial.groups_complete && !partial.record.keys.empty() &&
      std::all_of(partial.groups.begin(), partial.groups.end(), brain_file)) {
    ScenarioSpec s = probe();
    s.record = partial.record;
    for (const AgentGroup& g : partial.groups) add_one_agent(s, g);
    report(s);
  }
  // The keys pickups give, against the brains of the groups that may take them (a `gives:` key
  // with a typo came one round of fixes later): the file's teams and each group in its own,
  // the pickups (those read without an error) at the middle of an empty world.
  // (Only when the teams were read: without them a pickup's `teams:` is dropped, and it would
  // seem open to every group.)
  const bool teams_read = !partial.teams.empty() && std::all_of(partial.groups.begin(), partial.groups.end(), [&](const AgentGroup& g) {
    return std::find(partial.teams.begin(), partial.teams.end(), g.team) != partial.teams.end();
  });
  if (partial.groups_complete && !partial.pickups.empty() && teams_read &&
      std::all_of(partial.groups.begin(), partial.groups.end(), brain_file)) {
    ScenarioSpec s = probe();
    s.teams = partial.teams;
    for (const AgentGroup& g : partial.groups) add_one_agent(s, g).team = g.team;
    for (PickupDecl p : partial.pickups) {
      p.spec.position = (s.bounds.min + s.bounds.max) * 0.5;
      s.pickups.push_back(std::move(p));
    }
    report(s);
  }
  // The sweep's blackboard values against the brains (said only once the rest was right: a
  // value that does not fit, a key with a typo, came one round of fixes later).
  if (partial.groups_complete && !partial.sweep.empty()) {
    std::vector<Diagnostic> found;
    check_sweep_blackboard(partial, partial.sweep, false, found);
    for (const Diagnostic& d : found)
      if (std::none_of(diags.begin(), diags.end(), [&](const Diagnostic& e) { return same(d, e); })) diags.push_back(d);
  }
  sort_scenario_diagnostics(partial.path, diags, 0);
}

std::unique_ptr<Simulation> Simulation::create(const ScenarioSpec& spec, const SimOptions& options,
                                               std::vector<Diagnostic>& diags) {
  const size_t diags_from = diags.size();
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->options = options;
  impl->world = world::World(spec.bounds);
  for (const auto& o : spec.obstacles) impl->world.add_obstacle(o);
  if (!build_nav(*impl, diags)) return nullptr;
  impl->metric_names = spec.metrics;
  for (const char* builtin : {"deaths", "damage_dealt"})
    if (std::find(impl->metric_names.begin(), impl->metric_names.end(), builtin) == impl->metric_names.end())
      impl->metric_names.push_back(builtin);
  auto metric_index = [&](const char* name) {
    return static_cast<uint32_t>(std::find(impl->metric_names.begin(), impl->metric_names.end(), name) - impl->metric_names.begin());
  };
  impl->deaths_metric = metric_index("deaths");
  impl->dealt_metric = metric_index("damage_dealt");
  impl->metric_totals.assign(impl->metric_names.size(), 0.0);
  impl->metric_is_gauge.assign(impl->metric_names.size(), false);
  impl->metric_counted.assign(impl->metric_names.size(), false);
  impl->metric_kind_warned.assign(impl->metric_names.size(), false);
  const uint32_t threads = std::max<uint32_t>(1, options.threads);
  for (uint32_t w = 0; w < threads; ++w) {
    auto worker = std::make_unique<SimWorker>();
    worker->sim = impl.get();
    worker->index = w;
    RuntimeOptions ro;
    ro.seed = options.seed;
    ro.trusted = options.trusted;
    ro.instruction_budget = options.instruction_budget;
    ro.budget_all_leaves = options.budget_all_leaves;
    ro.leaf_timeout = options.leaf_timeout;
    ro.lua_memory_limit = options.lua_memory_limit;
    ro.journal_tasks = options.journal_tasks;
    ro.interrupt = options.interrupt;
    Impl* sim = impl.get();
    ro.log = [sim, w](const std::string& line) {
      if (w != 0 && w >= sim->workers.size()) return;  // worker w loads the files worker 0 loaded and said
      if (sim->reload_hold && w < sim->workers.size()) return hold_reload_line(*sim, w, {0, 0, line, std::nullopt});
      if (sim->hold_logs && w < sim->workers.size()) {  // set only while the workers tick at once
        SimWorker& me = *sim->workers[w];
        me.held_log.push_back({me.ticking_agent, 0, line, std::nullopt});
        return;
      }
      sim->log(line);
    };
    worker->rt = std::make_unique<Runtime>(ro);
    // One book for the workers' script errors, so that which are printed does not depend on
    // how the agents are spread over the threads.
    worker->rt->impl().errors = &sim->errors;
    worker->rt->impl().error_sink = [sim, w](ScriptErrorBook::Entry e) {
      if (w != 0 && w >= sim->workers.size()) return;
      if (sim->reload_hold && w < sim->workers.size()) return hold_reload_line(*sim, w, {0, 0, {}, std::move(e)});
      if (sim->hold_logs && w < sim->workers.size()) {
        SimWorker& me = *sim->workers[w];
        me.held_log.push_back({me.ticking_agent, 0, {}, std::move(e)});
        return;
      }
      if (auto said = sim->errors.say(std::move(e))) sim->log(*said);
    };
    worker->rt->on_print([sim, w](const std::string& line) {
      // A leaf file's top-level prints as worker w loads it: worker 0 printed them (they were
      // printed once per thread).
      if (w != 0 && w >= sim->workers.size()) return;
      if (sim->reload_hold && w < sim->workers.size()) return hold_reload_line(*sim, w, {0, 0, line, std::nullopt, true});
      if (sim->hold_logs && w < sim->workers.size()) {  // held as the log's lines are
        SimWorker& me = *sim->workers[w];
        me.held_log.push_back({me.ticking_agent, 0, line, std::nullopt, true});
        return;
      }
      sim->print(line);
    });
    if (script_binding().install_world) script_binding().install_world(*worker);
    // Every group's brain is loaded before a failure stops the run, so that every broken brain
    // is said at once (the first one alone was: the next showed once it was fixed); a file two
    // groups share is loaded, and its errors said, once.
    std::set<std::string> failed_brains;
    for (const auto& group : spec.groups) {
      const bool known_bad = failed_brains.count(group.brain) > 0;
      std::vector<Diagnostic> brain_diags;
      auto brain = known_bad ? std::nullopt : worker->rt->load_file(group.brain, brain_diags);
      if (w == 0) diags.insert(diags.end(), brain_diags.begin(), brain_diags.end());
      if (!brain) {
        if (w == 0)  // at the group's `brain:` (0:0 for a spec built in code)
          diags.push_back({Severity::Error, spec.path, group.brain_line, group.brain_column,
                           "group '" + group.name + "': its brain " + group.brain + " failed to load"});
        failed_brains.insert(group.brain);
        continue;
      }
      worker->brains.push_back(*brain);
      // A scenario ticks every agent every tick (guide 10.2): a brain's slicing would be ignored
      // without a word. Said once per brain file.
      const Program& program = *worker->rt->impl().brains[brain->index]->program;
      if (w == 0 && program.tick_every > 1 &&
          std::none_of(spec.groups.begin(), spec.groups.begin() + (&group - spec.groups.data()),
                       [&](const AgentGroup& earlier) { return earlier.brain == group.brain; }))
        diags.push_back({Severity::Warning,
                         program.tick_every_pos.line > 0 ? program.files[program.tick_every_pos.file] : group.brain,
                         program.tick_every_pos.line, program.tick_every_pos.column,
                         "tick_every: " + std::to_string(program.tick_every) +
                             " has no effect in a scenario: the scenario ticks every agent every tick"});
    }
    if (!failed_brains.empty()) return nullptr;
    impl->workers.push_back(std::move(worker));
  }
  // Agents: ids 1..N in group order; positions from the run seed; each worker takes
  // contiguous ranges of ids, so the per-agent data it writes shares few cache lines with
  // another worker's.
  Rng placement = Rng::seeded(options.seed, 0x5eed5eedULL);
  uint32_t id = 0;
  // Each group's initial blackboard, the values a sweep wrote typed by its brain's declarations
  // (every worker loaded the same brains: the first one's say).
  std::vector<std::vector<std::pair<std::string, Value>>> initial(spec.groups.size());
  for (uint32_t g = 0; g < spec.groups.size(); ++g) {
    initial[g] = spec.groups[g].blackboard;
    const SimWorker& first = *impl->workers[0];
    const Program& program = *first.rt->impl().brains[first.brains[g].index]->program;
    for (const auto& swept : spec.groups[g].blackboard_swept) {
      const std::string& key = swept.first;  // (not a structured binding: the lambdas below take it)
      const std::string& text = swept.second;
      auto declared = std::find_if(program.blackboard.begin(), program.blackboard.end(),
                                   [&](const BlackboardKey& k) { return k.name == key; });
      auto value = std::find_if(initial[g].begin(), initial[g].end(), [&](const auto& kv) { return kv.first == key; });
      if (declared != program.blackboard.end() && value != initial[g].end())
        value->second = swept_blackboard_value(text, declared->type);
    }
  }
  // The agents' node state (each agent one block of its brain's size), before any is made: a
  // 70,000-node brain times 100,000 agents took 17 GB and aborted, under `thicket check` too.
  {
    const SimWorker& first = *impl->workers[0];
    std::vector<size_t> bytes(spec.groups.size());
    size_t total = 0;
    for (uint32_t g = 0; g < spec.groups.size(); ++g) {
      bytes[g] = size_t(spec.groups[g].count) * first.rt->impl().brains[first.brains[g].index]->program->block_size;
      total += bytes[g];
    }
    if (total > kMaxAgentStateBytes) {
      const size_t g = static_cast<size_t>(std::max_element(bytes.begin(), bytes.end()) - bytes.begin());
      const AgentGroup& group = spec.groups[g];
      const Program& program = *first.rt->impl().brains[first.brains[g].index]->program;
      auto mib = [](size_t b) { return std::to_string((b + (size_t(1) << 20) - 1) >> 20) + " MiB"; };
      diags.push_back({Severity::Error, spec.path, group.brain_line, group.brain_column,
                       "group '" + group.name + "': " + std::to_string(group.count) + " agents of brain " + program.name +
                           " (" + std::to_string(program.nodes.size()) + " nodes, " +
                           std::to_string((program.block_size + 1023) >> 10) + " KiB of node state each) take " +
                           mib(bytes[g]) + ", and the run's agents " + mib(total) + " in all, past the " +
                           std::to_string(kMaxAgentStateBytes >> 30) +
                           " GiB a run allows; fewer agents, or a smaller brain (a subtree is copied wherever it is used)"});
      return nullptr;
    }
  }
  bool spawned = true;  // every agent has its place (what the senses' and pickups' checks need)
  for (uint32_t g = 0; g < spec.groups.size(); ++g) {
    const AgentGroup& group = spec.groups[g];
    int32_t team = static_cast<int32_t>(std::find(spec.teams.begin(), spec.teams.end(), group.team) - spec.teams.begin());
    for (uint32_t k = 0; k < group.count; ++k) {
      SimAgent a;
      a.id = ++id;
      a.group = g;
      // Each worker takes an equal contiguous share of every group: groups differ in cost
      // (a minion's brain is dearer than a player's), so splitting by id alone unbalances.
      a.worker = static_cast<uint32_t>((uint64_t(k) * threads) / group.count);
      std::optional<world::Vec2> at = spawn_point(group.spawn, impl->nav.world.walls, placement);
      if (!at) {
        // (The loader refuses an area with no free cell of the map at all: here the free
        // ground is too small a part of it for random points to find.)
        const bool map = impl->nav.world.map != nullptr, obstacles = !impl->world.obstacles().empty();
        const std::string cover = map && obstacles ? "the map's blocked cells and the obstacles"
                                  : map           ? "the map's blocked cells"
                                                  : "obstacles";
        diags.push_back({Severity::Error, spec.path, group.spawn_line, group.spawn_column,
                         "group '" + group.name + "': no free place found in its spawn area in " + std::to_string(kSpawnTries) +
                             " random tries: " + cover + " cover all or nearly all of it (make the area smaller, around "
                             "the free ground)"});
        spawned = false;
        break;  // the other groups' are said too; the errors stop the run below
      }
      const double facing = group.facing * std::numbers::pi / 180;
      a.entity = impl->world.spawn(*at, group.vehicle, team, world::Vec2{std::cos(facing), std::sin(facing)});
      a.wander_rng = Rng::seeded(options.seed ^ 0x77616e646572ULL, a.id).state;
      SimWorker& worker = *impl->workers[a.worker];
      a.handle = worker.rt->spawn(worker.brains[g], initial[g], a.id);
      if (!a.handle.valid()) {
        diags.push_back({Severity::Error, spec.path, 0, 0, "group '" + group.name + "': could not spawn an agent"});
        return nullptr;
      }
      worker.agents.push_back(a.id);
      if (impl->agent_of_slot.size() <= a.entity.index()) impl->agent_of_slot.resize(a.entity.index() + 1, 0);
      impl->agent_of_slot[a.entity.index()] = a.id;
      impl->agents.push_back(a);
    }
  }
  // Initial blackboard values that do not fit the brain are load errors.
  // Each at its key's place in the file (a swept key added by a sweep set has none: 0:0).
  for (uint32_t g = 0; g < spec.groups.size(); ++g) {
    const AgentGroup& group = spec.groups[g];
    for (size_t k = 0; k < initial[g].size(); ++k) {
      const auto& [key, value] = initial[g][k];
      const auto [line, column] = k < group.blackboard_at.size() ? group.blackboard_at[k] : std::pair<int, int>{0, 0};
      for (const SimAgent& a : impl->agents)
        if (a.group == g) {
          SimWorker& worker = *impl->workers[a.worker];
          Runtime& rt = *worker.rt;
          if (!rt.get(a.handle, key)) {
            const std::vector<std::string> declared = rt.blackboard_keys(worker.brains[g]);
            diags.push_back({Severity::Error, spec.path, line, column,
                             "group '" + group.name + "': blackboard key '" + key + "' is not declared by its brain " +
                                 group.brain + did_you_mean(key, declared) +
                                 (declared.empty() ? " (it declares no keys)" : " (declared: " + join_names(declared) + ")")});
          } else if (!rt.set(a.handle, key, value)) {
            auto kind = [](const Value& v) -> std::string {
              switch (v.index()) {
                case 1: return "a number";
                case 2: return "an integer";
                case 3: return "true/false";
                case 4: return "text";
                default: return "nothing";
              }
            };
            diags.push_back({Severity::Error, spec.path, line, column,
                             "group '" + group.name + "': blackboard key '" + key + "' must be " +
                                 kind(*rt.get(a.handle, key)) + " (as its brain " + group.brain + " declares it), got " +
                                 kind(value)});
          }
          break;
        }
    }
  }
  // Every error at once: the senses', the pickups' and the record keys' checks run beside the
  // blackboard values' errors above (each of them held the next back, a check per fix), and
  // the scenario's are then said by line. Only agents without a place stop them here.
  auto failed = [&] {
    sort_scenario_diagnostics(spec.path, diags, diags_from);
    return nullptr;
  };
  if (!spawned) return failed();
  impl->forces.assign(impl->world.entities().size(), world::Vec2{0, 0});
  impl->facing.assign(impl->world.entities().size(), world::Vec2{0, 0});
  double cell = 4.0;
  for (const auto& g : spec.groups) cell = std::max(cell, 4 * g.vehicle.radius);
  impl->hash = world::SpatialHash(cell);
  const bool perceived = setup_perception(*impl, diags);
  std::vector<std::string> record_keys = Recorder::checked_keys(spec, options, *impl->workers[0], diags);
  if (!perceived || has_errors(diags)) return failed();
  if (options.record) impl->recorder = std::make_unique<Recorder>(*impl, std::move(record_keys));
  collect_brain_events(*impl);
  impl->sensed_before_tick = options.trace || options.explain;
  return std::unique_ptr<Simulation>(new Simulation(std::move(impl)));
}

// The lines the workers held while they ticked at once, in agent order (an agent's own lines
// in the order it made them: an agent is on one worker), as one thread would have written them;
// a reload's, segment by segment (worker 0's own lines, agent UINT32_MAX, end each).
void write_held_logs(Simulation::Impl& s) {
  std::vector<SimWorker::HeldLine> lines;
  for (auto& w : s.workers) {
    for (auto& line : w->held_log) lines.push_back(std::move(line));
    w->held_log.clear();
  }
  if (lines.empty()) return;
  std::stable_sort(lines.begin(), lines.end(), [](const auto& x, const auto& y) {
    return x.segment != y.segment ? x.segment < y.segment : x.agent < y.agent;
  });
  for (auto& line : lines) {
    if (line.print) s.print(line.text);
    else if (!line.error) s.log(line.text);
    else if (auto said = s.errors.say(std::move(*line.error))) s.log(*said);
  }
}

void hold_reload_line(Simulation::Impl& s, uint32_t w, SimWorker::HeldLine line) {
  SimWorker& me = *s.workers[w];
  line.segment = me.reload_segment;
  if (const uint32_t agent = me.rt->impl().reload_agent) {
    line.agent = agent;
    me.held_log.push_back(std::move(line));
    return;
  }
  ++me.reload_segment;
  if (w != 0) return;  // the same line as worker 0's
  line.agent = UINT32_MAX;
  me.held_log.push_back(std::move(line));
}

namespace {

void tick_worker(SimWorker& w, double dt) {
  for (uint32_t id : w.agents) {
    SimAgent& a = w.sim->agents[id - 1];
    if (!a.alive) continue;
    w.ticking_agent = id;
    if (!w.sim->sensed_before_tick) sense_agent(w, a);  // this tick's percepts, into its blackboard keys, before it decides
    w.rt->tick(a.handle, dt);
    ++w.agent_ticks;
  }
}

}  // namespace

size_t Simulation::path_searches_held() const {
  size_t held = 0;
  for (const auto& w : impl_->workers) held += w->path_pool.size() - w->free_paths.size();
  return held;
}

void Simulation::live_agents(std::vector<AgentRef>& out) const {
  out.clear();
  for (const SimAgent& a : impl_->agents)
    if (a.alive) out.push_back({a.id, impl_->workers[a.worker]->rt.get(), a.handle});
}

uint64_t Simulation::ticks_done() const { return impl_->tick; }

RunResult Simulation::run(const std::function<void(uint64_t, uint64_t)>& progress, const std::function<bool()>& stop) {
  Impl& s = *impl_;
  RunResult result;
  result.seed = s.options.seed;
  result.agents_at_start = static_cast<uint32_t>(s.agents.size());
  auto started = std::chrono::steady_clock::now();
  const double dt = s.options.dt;
  if (s.recorder) s.recorder->header();
  if (s.options.series) s.options.series->set_names(s.metric_names);  // a header even if no tick is sampled
  // A pool of K-1 threads, kept for the whole run, meets this thread at four barriers a tick:
  // all tick their agents; this thread applies the effects; all move their agents. The barrier
  // spins briefly before it sleeps: at 1,000 agents a phase is a fraction of a millisecond.
  const auto parties = static_cast<uint32_t>(s.workers.size());
  SpinBarrier start(parties), done(parties);
  bool quit = false;
  std::vector<std::thread> pool;
  for (size_t w = 1; w < s.workers.size(); ++w)
    pool.emplace_back([&, w] {
      for (;;) {
        start.arrive_and_wait();
        if (quit) return;
        tick_worker(*s.workers[w], dt);
        done.arrive_and_wait();
        start.arrive_and_wait();  // the effects are applied
        move_worker(*s.workers[w], dt);
        done.arrive_and_wait();
      }
    });
  struct StopPool {  // however the loop ends, the pool is released and joined
    SpinBarrier& start;
    bool& quit;
    std::vector<std::thread>& pool;
    ~StopPool() {
      if (pool.empty()) return;
      quit = true;
      start.arrive_and_wait();
      for (auto& th : pool) th.join();
    }
  } stop_pool{start, quit, pool};
  result.ticks = s.tick;  // a resumed run (sim_snapshot.cpp) goes on from its checkpoint's tick
  for (uint64_t t = s.tick; t < s.options.ticks; ++t) {
    if (stop && stop()) break;
    if (s.options.watch) reload_and_report();
    if (s.workers_disagree) {  // --watch, or a reload asked for between ticks (reload_and_report)
      result.stopped_reload = true;
      break;
    }
    s.tick = t + 1;
    s.hash.rebuild(s.world);  // brains read the world as it is at the start of the tick
    // Perception's fixed point: sounds and pickups are updated on this thread, then each worker
    // senses its own agents from the world as it is now.
    s.perception->begin_tick(s.tick);
    apply_takes(s);
    if (s.sensed_before_tick) {  // --trace / --explain: percepts first, told before the brains act
      for (SimAgent& a : s.agents)
        if (a.alive) sense_agent(*s.workers[a.worker], a);
      trace_percepts(s);
    }
    std::fill(s.forces.begin(), s.forces.end(), world::Vec2{0, 0});
    std::fill(s.facing.begin(), s.facing.end(), world::Vec2{0, 0});
    if (s.workers.size() == 1) {
      tick_worker(*s.workers[0], dt);
    } else {
      s.hold_logs = true;  // (the barrier publishes it to the pool)
      start.arrive_and_wait();  // the pool's workers tick theirs while this thread ticks worker 0
      tick_worker(*s.workers[0], dt);
      done.arrive_and_wait();
      s.hold_logs = false;
      write_held_logs(s);
    }
    deliver_brain_events(s);
    // Effects and metrics in agent-id order (then in the order each agent made them).
    gather_effects(s);
    const std::vector<Effect>& effects = s.tick_effects;
    // Counters add up; a gauge is the sum of the latest tick in which it was reported.
    std::vector<uint8_t>& reset = s.gauge_reset;
    reset.assign(s.metric_totals.size(), 0);
    auto count_samples = [&] {
      for (const auto& m : s.tick_samples) {
        // A name first used in this tick as both kinds (the leaves refuse the other kind from
        // the next tick on): the samples of the kind used first, in agent order, count.
        if (m.gauge ? s.metric_counted[m.metric] : s.metric_is_gauge[m.metric]) {
          if (!s.metric_kind_warned[m.metric]) {
            s.metric_kind_warned[m.metric] = true;
            s.log("warning: metric '" + s.metric_names[m.metric] + "' was reported as a " + (m.gauge ? "gauge" : "counter") +
                  " by agent " + std::to_string(m.agent) + " at tick " + std::to_string(s.tick) + ", in the tick it became a " +
                  (m.gauge ? "counter" : "gauge") + ": those reports are dropped (a name is a counter, thicket.metric, or a "
                  "gauge, thicket.gauge, not both)");
          }
          continue;
        }
        if (m.gauge) s.metric_is_gauge[m.metric] = true;
        else s.metric_counted[m.metric] = true;
        if (s.metric_is_gauge[m.metric] && !reset[m.metric]) {
          reset[m.metric] = 1;
          s.metric_totals[m.metric] = 0;
        }
        s.metric_totals[m.metric] += m.value;
      }
    };
    count_samples();
    std::vector<uint32_t>& dying = s.dying;
    dying.clear();
    const uint32_t deaths = s.deaths_metric, dealt = s.dealt_metric;
    for (const Effect& e : effects) {
      SimAgent* target = s.agent(e.target);
      if (!target || !target->alive) continue;
      Runtime& rt = *s.workers[target->worker]->rt;
      if (e.kind == Effect::Kind::Damage) {
        auto shield = rt.get(target->handle, "invincible");  // a brain's own invincibility flag
        if (shield && std::holds_alternative<bool>(*shield) && std::get<bool>(*shield)) continue;
        auto health = rt.get(target->handle, "health");
        if (!health || !std::holds_alternative<double>(*health)) {
          // A script error of the sender, as a signal's (check_signals): counted, so the exit
          // status and --strict see it.
          s.effect_error("damage " + e.where + (health ? " typed" : " undeclared"),
                "error: " + e.where + "agent " + std::to_string(e.source) + " damaged agent " + std::to_string(e.target) + " (tick " +
                std::to_string(s.tick) + "), whose brain " +
                (health ? "declares 'health' as " + std::string(value_type_name(rt.blackboard_type(rt.brain_of(target->handle), "health").value_or(ValueType::Any))) +
                              ": damage needs a number (health: 100.0, or {type: number, default: 100})"
                        : std::string("declares no 'health' (a number: health: 100.0)")) +
                "; the damage is lost");
          SimAgent* source = s.agent(e.source);
          ++s.workers[source ? source->worker : target->worker]->rt->impl().brain_errors;
          continue;
        }
        double h = std::get<double>(*health) - e.amount;
        rt.set(target->handle, "health", h);
        if (s.recorder) s.recorder->damage(e.source, e.target, e.amount);
        s.metric_totals[dealt] += e.amount;
        if (h <= 0 && std::find(dying.begin(), dying.end(), e.target) == dying.end()) dying.push_back(e.target);
      } else if (!rt.set(target->handle, e.key, e.value)) {
        s.log("error: agent " + std::to_string(e.source) + " signalled '" + e.key + "' to agent " + std::to_string(e.target) +
              ", whose brain does not declare it with that type; the signal is lost");
      } else if (s.recorder) {
        s.recorder->signal(e.source, e.target, e.key);
      }
    }
    // In id order (guide 11.1): the order in which the effects killed them is the order of their
    // damage's sources, and the stop hooks ran in it (agent 1 killing 4 before 2 killed 3: 4, 3).
    std::sort(dying.begin(), dying.end());
    if (s.recorder && !dying.empty()) s.recorder->deaths(dying);  // their last state, before they go
    // The dead leave the world: first their running leaves stop (aborted), all of them while
    // every one of this tick's dead still stands in the world (a stop hook's world calls, e.g.
    // nearest or neighbours, find the others; once one had left, the next one's found an entity
    // the spatial hash still listed and the world no longer held), then they go.
    for (uint32_t id : dying) {
      SimAgent& a = s.agents[id - 1];
      release_path(*s.workers[a.worker], a);
      s.workers[a.worker]->rt->despawn(a.handle);
    }
    for (uint32_t id : dying) {
      SimAgent& a = s.agents[id - 1];
      s.world.despawn(a.entity);
      a.alive = false;
      s.metric_totals[deaths] += 1;
    }
    // What their stop hooks counted counts in this tick (guide 11.1: a metric counts at once; it
    // waited for the next tick's, so the last tick's dead were never counted and a checkpoint
    // lost them). Their damage and signals land after the next tick, with its effects; a
    // checkpoint keeps them (sim_snapshot.cpp).
    if (!dying.empty()) {
      gather_metrics(s);
      count_samples();
    }
    if (s.workers.size() == 1) {  // each worker moves its own agents
      move_worker(*s.workers[0], dt);
    } else {
      start.arrive_and_wait();
      move_worker(*s.workers[0], dt);
      done.arrive_and_wait();
    }
    if (s.recorder) s.recorder->end_tick();
    // The dead leave perception only now, so that the record keeps what they perceived this tick.
    for (uint32_t id : dying) s.perception->remove_sensor(id);

    observe_metrics(s);

    result.ticks = s.tick;
    if (progress) progress(s.tick, s.options.ticks);
    if (s.options.strict && any_script_error(s)) {  // the tick is finished for every agent first
      result.stopped_strict = true;
      break;
    }
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (auto& w : s.workers) {
    result.agent_ticks += w->agent_ticks;
    result.script_errors += w->rt->script_errors();
  }
  result.script_errors += s.script_errors_before + s.errors.once_errors;  // (the workers share the book)
  if (s.recorder) s.recorder->finish(result);
  for (const SimAgent& a : s.agents) {
    if (!a.alive) continue;
    ++result.agents_at_end;
    ++result.statuses[std::string(status_name(s.workers[a.worker]->rt->status(a.handle)))];
  }
  for (size_t m = 0; m < s.metric_names.size(); ++m) {
    result.metrics[s.metric_names[m]] = s.metric_totals[m];
    if (m < s.gauge_stats.size() && s.gauge_stats[m].ticks > 0) {
      GaugeStats g = s.gauge_stats[m];
      g.mean /= static_cast<double>(g.ticks);
      g.last = s.metric_totals[m];
      result.gauges[s.metric_names[m]] = g;
    }
  }
  return result;
}

}  // namespace thicket
