// Scenario runs for the benches that time whole simulations (bench_nav_scenario,
// bench_perception_scenario): one run with its wall time, heap growth, record and first log
// lines, and the comparison of two runs' results.
#pragma once
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "sim/record_file.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace bench {

struct SimRun {
  thicket::RunResult result;
  double ns = 0;                  // run() wall time (creation untimed)
  std::string record;             // with record: every tick's line
  std::vector<std::string> log;   // the run's first log lines (errors)
  size_t heap_before = 0, heap_created = 0, heap_after_run = 0;  // heap_in_use() around create and run
};

// Runs spec with `options` (threads, ticks, dt, limits as the caller sets them; the seed is the
// scenario's, the log and the record are the bench's).
inline SimRun simulate(const thicket::ScenarioSpec& spec, thicket::SimOptions options, bool record) {
  SimRun run;
  thicket::RecordString rec;
  options.seed = spec.seed;
  options.log = [&run](const std::string& line) {  // called under the simulation's lock
    if (run.log.size() < 3) run.log.push_back(line);
  };
  if (record) options.record = &rec;  // else the caller's sink (or none)
  std::vector<thicket::Diagnostic> diags;
  run.heap_before = heap_in_use();
  auto sim = thicket::Simulation::create(spec, options, diags);
  if (!sim) fail_load(diags);
  run.heap_created = heap_in_use();
  run.ns = time_ns([&] { run.result = sim->run(); });
  run.heap_after_run = heap_in_use();
  if (record) run.record = rec.text;
  return run;
}

// The scenario's group counts scaled so they add up to `total` (largest remainder, so the sum
// is exact): the benches' "arena at 10,000 agents".
inline void scale_groups(thicket::ScenarioSpec& spec, uint32_t total) {
  uint64_t sum = 0;
  for (const auto& g : spec.groups) sum += g.count;
  std::vector<std::pair<double, size_t>> remainders;
  uint32_t given = 0;
  for (size_t k = 0; k < spec.groups.size(); ++k) {
    double exact = double(spec.groups[k].count) * total / double(sum);
    spec.groups[k].count = static_cast<uint32_t>(exact);
    given += spec.groups[k].count;
    remainders.push_back({exact - spec.groups[k].count, k});
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (size_t k = 0; given < total; ++k, ++given) ++spec.groups[remainders[k % remainders.size()].second].count;
}

// Everything a run decides (not its wall time).
inline bool same_result(const thicket::RunResult& a, const thicket::RunResult& b) {
  return a.ticks == b.ticks && a.agent_ticks == b.agent_ticks && a.metrics == b.metrics && a.statuses == b.statuses &&
         a.agents_at_start == b.agents_at_start && a.agents_at_end == b.agents_at_end && a.script_errors == b.script_errors;
}

}  // namespace bench
