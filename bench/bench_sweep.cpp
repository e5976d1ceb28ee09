// bench_sweep: what does a parameter sweep cost beside its runs (issue 15, guide 10.4)? The
// work a sweep adds is planning (every parameter set built and checked once, sweep_sets) and,
// per run, a modified copy of the scenario (apply_param_set); the runs themselves are the
// runs of any batch. This prints both beside the creation and run of one arena run, so the
// sweep's share of a batch can be read off.
//
// Scenario: scripts/examples/arena (640 agents), threads 1. Sweep: two axes of 30 values
// (west_post's count x its blackboard home_x) = 900 parameter sets. Rows (median of reps, best
// in brackets):
//   plan       sweep_sets over the 900 sets, us per set
//   apply      apply_param_set of one set (two keys), us per run
//   create     Simulation::create of the arena, us per run (loading brains, spawning agents)
//   tick       one tick of the arena run, us
// argv[1]: reps (default 7).
#include <cstdio>
#include <string>
#include <vector>

#include "../runtime/cli/run_plan.hpp"
#include "harness.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"
#include "sim/sweep.hpp"

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  std::vector<thicket::Diagnostic> diags;
  auto spec = thicket::load_scenario(THICKET_SOURCE_DIR "/scripts/examples/arena/arena.yaml", diags);
  if (!spec) {
    for (const auto& d : diags) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
    return 2;
  }
  thicket::SweepAxis counts{"groups.west_post.count", {}, 1, 1, {}}, homes{"groups.west_post.blackboard.home_x", {}, 1, 1, {}};
  for (int i = 1; i <= 30; ++i) counts.values.push_back(std::to_string(100 + i)), homes.values.push_back(std::to_string(30 + i));
  const std::vector<thicket::SweepAxis> axes = {counts, homes};
  std::string why;
  std::vector<double> plan_us, apply_us, create_us, tick_us;
  size_t sets = 0;
  uint64_t agent_ticks = 0;
  for (int r = 0; r < reps; ++r) {
    std::optional<thicket::SweepSets> planned;
    plan_us.push_back(bench::time_ns([&] { planned = thicket::sweep_sets(*spec, axes, why); }) / 1e3);
    if (!planned) {
      std::fprintf(stderr, "bench_sweep: %s\n", why.c_str());
      return 2;
    }
    sets = planned->values.size();
    plan_us.back() /= static_cast<double>(sets);
    thicket::cli::ParamSets ps;
    ps.names = planned->names;
    ps.values = planned->values;
    const auto plan = thicket::cli::plan_runs(ps, 7, 1);
    std::optional<thicket::ScenarioSpec> applied;
    const auto& set = ps.values[plan[r % plan.size()].param_set];
    apply_us.push_back(bench::time_ns([&] { applied = thicket::apply_param_set(*spec, ps.names, set, why); }) / 1e3);
    thicket::SimOptions so;
    so.threads = 1;
    so.ticks = 1;
    so.seed = 7;
    so.log = [](const std::string&) {};
    std::unique_ptr<thicket::Simulation> sim;
    std::vector<thicket::Diagnostic> sim_diags;
    create_us.push_back(bench::time_ns([&] { sim = thicket::Simulation::create(*applied, so, sim_diags); }) / 1e3);
    if (!sim) return 2;
    thicket::RunResult res;
    tick_us.push_back(bench::time_ns([&] { res = sim->run(); }) / 1e3);
    agent_ticks += res.agent_ticks;
  }
  std::printf("bench_sweep: arena, a sweep of %zu parameter sets (2 axes x 30 values), %d reps, load %s\n", sets, reps,
              bench::load_average().c_str());
  std::printf("  row      median us  [best]\n");
  bench::print_row("plan/set", bench::stat_of(plan_us), "sweep_sets, per parameter set (built and checked once)", 9, 2);
  bench::print_row("apply", bench::stat_of(apply_us), "apply_param_set, per run", 9, 2);
  bench::print_row("create", bench::stat_of(create_us), "Simulation::create, per run", 9, 0);
  bench::print_row("tick", bench::stat_of(tick_us), "one tick of the run", 9, 0);
  const double share = bench::stat_of(apply_us).median / (bench::stat_of(create_us).median + bench::stat_of(tick_us).median);
  std::printf("apply / (create + 1 tick): %.4f%%\n", 100 * share);
  return bench::consistency(agent_ticks > 0, "every run ticked", "A RUN DID NOT TICK") ? 0 : 1;
}
