// bench_perception_scenario: what does perception add to a whole scenario run? (issue 13: "10,000
// agents with sight (two cones, line of sight against a map) and hearing ... beside the same
// scenario without perception; the saving from LOD; results identical at 1 and 2 threads")
//
// Scenarios, written to a temporary folder: the Moving AI map random512-20-0 (cell 1 m), 10,000
// agents in two teams of 5,000 spawned over the whole map. Each agent's brain is one Lua task:
// it wanders (agent:steer{wander, avoid}), flees from the enemy its senses report (the
// blackboard keys `seen`, `seen_x`, `seen_y`, written by perception before its tick) and now and
// then (2% of ticks) makes a noise. Three versions of the same scenario:
//   none   no `senses:` (the leaf never sees anything: the baseline);
//   senses two cones (8 m 160 deg, 30 m 50 deg) with line of sight against the map, hearing
//          (threshold 0.05, walls 0.5), memory 5 s, the keys bound;
//   lod    the same with `lod: {distance: 4, every: 4}` (at this density an enemy is nearly always
//          within 10 m: a 10 m LOD would skip nothing).
// Checks first (untimed): each runs on 1 and 2 threads with the record (positions, statuses and
// the percept events of every tick); results and records must be byte-identical.
// Timing: 3 reps, interleaved; ns per agent-tick = run() wall time / agent-ticks, medians [best].
// Perception's own share comes from the difference with `none` (the leaf does a little more
// work when it sees something, so this is an upper bound of perception's cost).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "sim_harness.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bench;

constexpr uint32_t kAgents = 10000;
constexpr uint64_t kTicks = 100;
constexpr double kDt = 0.1;
constexpr int kReps = 3;

const char* kLeafLua = R"LUA(
local thicket = require("thicket")
local leaves = {}

leaves.Roam = thicket.task(function(agent, args)
  while true do
    if agent.bb.seen then
      thicket.metric("fled")
      agent:steer{flee = {agent.bb.seen_x, agent.bb.seen_y}, avoid = 1}
    else
      agent:steer{wander = 1, avoid = 1}
    end
    if thicket.random() < 0.02 then
      local x, y = agent:position()
      thicket.noise(x, y, 5, 0.5)
    end
    coroutine.yield()
  end
end)

return leaves
)LUA";

const char* kBrain = R"(tree: roam
leaves: [roam.lua]
blackboard:
  seen: false
  seen_x: 0.0
  seen_y: 0.0
root:
  action: {leaf: Roam}
)";

std::string scenario_yaml(const std::string& name, const std::string& map, const std::string& senses) {
  std::ostringstream out;
  out << "scenario: " << name << "\nseed: 3\nticks: " << kTicks << "\ndt: " << kDt << "\nworld:\n  map: " << map
      << "\n  cell: 1\nteams: [red, blue]\ngroups:\n";
  for (const char* team : {"red", "blue"})
    out << "  - name: " << team << "\n    team: " << team << "\n    count: " << kAgents / 2
        << "\n    brain: roam.yaml\n    spawn: {box: [[0, 0], [512, 512]]}\n"
           "    vehicle: {mass: 1, max_speed: 2, max_force: 8, radius: 0.35}\n"
        << senses;
  out << "metrics: [fled]\n";
  return out.str();
}

const char* kSenses =
    "    senses:\n"
    "      sight:\n"
    "        cones: [{range: 8, angle: 160}, {range: 30, angle: 50}]\n"
    "%s"
    "      hearing: {threshold: 0.05, walls: 0.5}\n"
    "      memory: 5\n"
    "      blackboard: {seen: seen, seen_x: seen_x, seen_y: seen_y}\n";

SimRun simulate(const thicket::ScenarioSpec& spec, uint32_t threads, bool record) {
  thicket::SimOptions o;
  o.threads = threads;
  o.ticks = kTicks;
  o.dt = kDt;
  return bench::simulate(spec, o, record);
}

struct Scenario {
  std::string label;
  thicket::ScenarioSpec spec;
  thicket::RunResult reference;
  size_t percept_events = 0;
  std::vector<double> ns1, ns2;
  size_t heap = 0;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool check_only = argc > 1 && std::strcmp(argv[1], "check") == 0;
  const fs::path map = fs::path(THICKET_SOURCE_DIR) / "data" / "movingai" / "random512-20-0.map";
  TempDir dir("perception_scenario");
  dir.write("roam.lua", kLeafLua);
  dir.write("roam.yaml", kBrain);
  char senses[1024], lod[1024];
  std::snprintf(senses, sizeof senses, kSenses, "");
  std::snprintf(lod, sizeof lod, kSenses, "        lod: {distance: 4, every: 4}\n");
  std::vector<Scenario> scenarios;
  for (auto [label, text] : {std::pair{"none", ""}, std::pair{"senses", static_cast<const char*>(senses)},
                             std::pair{"lod", static_cast<const char*>(lod)}}) {
    Scenario s;
    s.label = label;
    std::vector<thicket::Diagnostic> diags;
    auto spec = thicket::load_scenario(dir.write(s.label + ".yaml", scenario_yaml(s.label, map.string(), text)), diags);
    if (!spec) fail_load(diags);
    s.spec = std::move(*spec);
    scenarios.push_back(std::move(s));
  }
  std::printf("bench_perception_scenario: %u agents (2 teams) wandering on random512-20-0 (cell 1 m), %llu ticks at dt\n"
              "%.1f s; load average at start: %s\n\n",
              kAgents, static_cast<unsigned long long>(kTicks), kDt, load_average().c_str());

  std::printf("results, 1 thread vs 2 threads (records with every tick's positions and percept events):\n");
  bool identical = true;
  for (Scenario& s : scenarios) {
    SimRun a = simulate(s.spec, 1, true), b = simulate(s.spec, 2, true);
    const bool same = same_result(a.result, b.result) && a.record == b.record && !a.record.empty();
    identical = identical && same;
    s.reference = a.result;
    s.percept_events = count(a.record, "\"enter\"") + count(a.record, "\"exit\"");
    std::printf("  %-7s agent-ticks %llu, fled %.0f, percept events (enter/exit) %zu, script errors %llu: %s\n",
                s.label.c_str(), u(a.result.agent_ticks), a.result.metrics["fled"], s.percept_events,
                u(a.result.script_errors), same ? "identical" : "MISMATCH between 1 and 2 threads");
  }
  if (check_only) return identical ? 0 : 1;

  bool timed_same = true;
  for (int r = 0; r < kReps; ++r)
    for (Scenario& s : scenarios)
      for (int k = 0; k < 2; ++k) {
        const uint32_t threads = (k + r) % 2 == 0 ? 1 : 2;
        SimRun run = simulate(s.spec, threads, false);
        timed_same = timed_same && same_result(run.result, s.reference);
        const double per = run.ns / static_cast<double>(run.result.agent_ticks);
        (threads == 1 ? s.ns1 : s.ns2).push_back(per);
        if (threads == 1 && r == 0) s.heap = run.heap_created - run.heap_before;
      }
  std::printf("\nns per agent-tick, median [best] of %d (run() wall time / agent-ticks; creation untimed):\n", kReps);
  std::printf("  %-8s %18s %18s %12s %12s\n", "version", "1 thread", "2 threads", "+ over none", "(2 threads)");
  const double none1 = median_of(scenarios[0].ns1), none2 = median_of(scenarios[0].ns2);
  for (const Scenario& s : scenarios) {
    Stat a = stat_of(s.ns1), b = stat_of(s.ns2);
    std::printf("  %-8s %9.0f [%6.0f] %9.0f [%6.0f] %+12.0f %+12.0f\n", s.label.c_str(), a.median, a.best, b.median, b.best,
                a.median - none1, b.median - none2);
  }
  const double full = median_of(scenarios[1].ns1) - none1, lodded = median_of(scenarios[2].ns1) - none1;
  std::printf("  LOD saves %.0f%% of what perception adds at 1 thread\n", full > 0 ? 100 * (full - lodded) / full : 0.0);
  std::printf("  (every timed run's results equal the checked ones: %s)\n", timed_same ? "yes" : "NO");
  std::printf("\nmemory grown by Simulation::create (1 thread): ");
  for (const Scenario& s : scenarios)
    std::printf("%s %.0f B/agent%s", s.label.c_str(), static_cast<double>(s.heap) / kAgents, &s == &scenarios.back() ? "\n" : ", ");
  std::printf("load average at end: %s\n%s\n", load_average().c_str(),
              identical && timed_same ? "identical" : "MISMATCH: results differ between thread counts (see above)");
  return identical && timed_same ? 0 : 1;
}
