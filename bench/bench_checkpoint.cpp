// bench_checkpoint: what does a checkpoint cost (issue 15)? Milliseconds and bytes of
// Simulation::save, and milliseconds of Simulation::restore, for 10,000 agents, beside one
// tick's cost measured in the same run. Goal: a checkpoint of 10,000 agents in <= 20 ms and
// <= 1 KB per agent.
//
// Scenario: scripts/examples/arena with every group's count scaled so the total is 10,000 agents
// (largest remainder, as bench_record), seed and dt the example's. argv[1]: the tick at which
// checkpoints are taken (default 100: fights have started, brains have running nodes and
// memory), argv[2]: ticks run after it (default 20), argv[3]: threads (default 1), argv[4]:
// reps (default 5).
//
// One run to tick W + A: at tick W (inside run's progress callback, workers parked, as the
// CLI's --checkpoint does) the state is saved `reps` times (timed, into a reused string; the
// file write is timed apart: the CLI's write_checkpoint, FILE.tmp + fsync + rename, into a
// temporary directory, which is the disk's cost more than thicket's); the ticks after W are
// timed one by one (the save excluded). Then `reps` fresh Simulations are each restored from those bytes
// (timed; creating them is not) and saved again: the bytes must be the checkpoint's, or the
// bench says so and fails. (The restored run does not go on as the uninterrupted one here: the
// arena's brains are Lua tasks, which restart after a restore; tests/e2e/checkpoint_test.sh
// and tests/unit/sim/test_sim_snapshot.cpp check exactness on task-free brains.)
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "harness.hpp"
#include "sim_harness.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace {

constexpr uint32_t kAgents = 10000;

}  // namespace

int main(int argc, char** argv) {
  const uint64_t at = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100;
  const uint64_t after = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20;
  const uint32_t threads = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 1;
  const int reps = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  std::vector<thicket::Diagnostic> diags;
  auto spec = thicket::load_scenario(THICKET_SOURCE_DIR "/scripts/examples/arena/arena.yaml", diags);
  if (!spec) bench::fail_load(diags);
  bench::scale_groups(*spec, kAgents);
  std::printf("bench_checkpoint: arena scaled to %u agents, checkpoint at tick %llu, %llu ticks after, %u thread(s), %d reps; "
              "load average %s\n",
              kAgents, bench::u(at), bench::u(after), threads, reps, bench::load_average().c_str());
  thicket::SimOptions o;
  o.threads = threads;
  o.seed = spec->seed;
  o.ticks = at + after;
  o.dt = spec->dt;
  o.log = [](const std::string&) {};
  auto sim = thicket::Simulation::create(*spec, o, diags);
  if (!sim) bench::fail_load(diags);
  std::string bytes;
  std::vector<double> save_ms, tick_ms;
  uint32_t agents = 0;
  auto last = bench::Clock::now();
  const thicket::RunResult full = sim->run([&](uint64_t done, uint64_t) {
    auto now = bench::Clock::now();
    if (done > at) tick_ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
    if (done == at) {
      for (int r = 0; r < reps; ++r)
        save_ms.push_back(bench::time_ms([&] {
          bytes.clear();
          sim->save(bytes);
        }));
      std::vector<thicket::Diagnostic> none;
      std::string error;
      auto info = thicket::Simulation::read_header(bytes, error);
      agents = info ? info->agents : 0;
    }
    last = bench::Clock::now();
  });
  std::vector<double> write_ms;
  bench::TempDir tmp("checkpoint");
  for (int r = 0; r < reps; ++r) {
    std::string why;
    write_ms.push_back(bench::time_ms([&] { why = thicket::cli::write_checkpoint(tmp / "run.snap", bytes); }));
    if (!why.empty()) {
      std::fprintf(stderr, "bench_checkpoint: %s\n", why.c_str());
      return 1;
    }
  }
  std::vector<double> restore_ms;
  bool same = true;
  for (int r = 0; r < reps; ++r) {
    auto fresh = thicket::Simulation::create(*spec, o, diags);
    if (!fresh) bench::fail_load(diags);
    std::vector<thicket::Diagnostic> found;
    bool ok = false;
    restore_ms.push_back(bench::time_ms([&] { ok = fresh->restore(bytes, "bench", found); }));
    if (!ok) {
      for (const auto& d : found) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
      return 1;
    }
    std::string again;
    fresh->save(again);
    same = same && again == bytes;
  }
  // Resumed on another thread count (1 <-> 2): agents are handed over one by one.
  std::vector<double> other_ms;
  thicket::SimOptions other = o;
  other.threads = threads == 1 ? 2 : 1;
  for (int r = 0; r < std::min(reps, 2); ++r) {
    auto fresh = thicket::Simulation::create(*spec, other, diags);
    if (!fresh) bench::fail_load(diags);
    std::vector<thicket::Diagnostic> found;
    bool ok = false;
    other_ms.push_back(bench::time_ms([&] { ok = fresh->restore(bytes, "bench", found); }));
    same = same && ok;
  }
  const bench::Stat write = bench::stat_of(write_ms), other_stat = bench::stat_of(other_ms);
  const bench::Stat save = bench::stat_of(save_ms), restore = bench::stat_of(restore_ms), tick = bench::stat_of(tick_ms);
  std::printf("  %u agents, %u alive at the end\n\n", agents, full.agents_at_end);
  std::printf("  %-22s %10s %10s\n", "", "median", "best");
  std::printf("  %-22s %10.2f %10.2f\n", "one tick, ms", tick.median, tick.best);
  std::printf("  %-22s %10.2f %10.2f   (%.2f ticks)\n", "save, ms", save.median, save.best, save.median / tick.median);
  std::printf("  %-22s %10.2f %10.2f   (write + fsync + rename)\n", "file write, ms", write.median, write.best);
  std::printf("  %-22s %10.2f %10.2f   (%.2f ticks)\n", "restore, ms", restore.median, restore.best, restore.median / tick.median);
  std::printf("  %-22s %10.2f %10.2f   (on %u thread(s))\n", "restore elsewhere, ms", other_stat.median, other_stat.best, other.threads);
  std::printf("  %-22s %10.2f\n", "checkpoint, MB", bytes.size() / 1e6);
  std::printf("  %-22s %10.1f   (goal: <= 1024 bytes and <= 20 ms per 10,000 agents)\n\n", "bytes per agent", double(bytes.size()) / kAgents);
  return bench::consistency(same, "every restored run saves the checkpoint's bytes again", "A RESTORED RUN DIFFERS") ? 0 : 1;
}
