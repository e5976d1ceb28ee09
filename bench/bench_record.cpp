// bench_record: what does --record cost (issue 14, docs/record-format.md)? Bytes per agent-tick
// plain and gzip, and milliseconds per tick spent recording, beside a run without a record
// measured in the same process.
//
// Scenario: scripts/examples/arena with every group's count scaled so the total is 10,000 agents
// (largest remainder), ticks 600 (argv[1] overrides the ticks, argv[2] the thread count, default
// 1: recording runs on the simulation's thread after each tick, so one thread shows its cost
// most plainly). Keys recorded: health and invincible (a number and a boolean; players have no
// `invincible`, so their entries carry a null). World, seed and dt stay the example's.
//
// Rows, each a fresh Simulation (creation untimed), run() wall time:
//   none       no record: the baseline
//   build      the record's lines built and handed to a sink that only counts bytes: the cost of
//              gathering and formatting, without any file
//   plain      .jsonl written to a temporary file
//   gz1/gz3/gz6  .jsonl.gz at deflate levels 1, 3 and 6
// Recording cost per tick = (row - none) / ticks, of wall time and of the process's CPU time
// (less disturbed by other work on the machine). Every run must give the same result (agent-
// ticks, metrics, agents alive) as the baseline: recording must not change the run. Sizes are of
// the files as written; bytes per agent-tick divides by the agent entries written (agent-ticks
// plus, once, each agent that died).
//
// The reps of all rows are interleaved (bench::Rows), so a burst of other work on the machine
// spoils one rep of every row rather than one row.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "harness.hpp"
#include "sim_harness.hpp"
#include "sim/record_file.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace {

constexpr uint32_t kAgents = 10000;

class CountingSink : public thicket::RecordSink {
 public:
  void write(Kind, std::string_view line) override { bytes += line.size() + 1; }
  size_t bytes = 0;
};

struct Row {
  const char* name;
  std::string file;  // "" for none / build
  int level = 6;
  std::vector<double> ms, cpu_ms;
  size_t bytes = 0;
  thicket::RunResult result;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t ticks = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 600;
  const uint32_t threads = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 1;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  std::vector<thicket::Diagnostic> diags;
  auto spec = thicket::load_scenario(THICKET_SOURCE_DIR "/scripts/examples/arena/arena.yaml", diags);
  if (!spec) bench::fail_load(diags);
  bench::scale_groups(*spec, kAgents);
  bench::TempDir tmp("record");
  std::vector<Row> rows = {{"none", "", 0, {}, {}, 0, {}},
                           {"build", "", 0, {}, {}, 0, {}},
                           {"plain", tmp / "r.jsonl", 0, {}, {}, 0, {}},
                           {"gz1", tmp / "r1.jsonl.gz", 1, {}, {}, 0, {}},
                           {"gz3", tmp / "r3.jsonl.gz", 3, {}, {}, 0, {}},
                           {"gz6", tmp / "r6.jsonl.gz", 6, {}, {}, 0, {}}};
  std::printf("bench_record: arena scaled to %u agents, %llu ticks, %u thread(s), %d reps; load average %s\n", kAgents,
              static_cast<unsigned long long>(ticks), threads, reps, bench::load_average().c_str());
  bool same = true;
  for (int rep = 0; rep < reps; ++rep)
    for (Row& row : rows) {
      thicket::SimOptions o;
      o.threads = threads;
      o.seed = spec->seed;
      o.ticks = ticks;
      o.dt = spec->dt;
      o.record_keys = {"health", "invincible"};
      o.log = [](const std::string&) {};
      CountingSink counter;
      std::unique_ptr<thicket::RecordFile> file;
      if (row.name != std::string("none")) {
        if (row.file.empty()) {
          o.record = &counter;
        } else {
          std::string why;
          file = thicket::RecordFile::open(row.file, why, row.level);
          if (!file) {
            std::fprintf(stderr, "bench_record: %s\n", why.c_str());
            return 1;
          }
          o.record = file.get();
        }
      }
      auto sim = thicket::Simulation::create(*spec, o, diags);
      if (!sim) bench::fail_load(diags);
      thicket::RunResult result;
      const bench::CpuClock cpu0 = bench::CpuClock::now();
      row.ms.push_back(bench::time_ms([&] {
        result = sim->run();
        if (file) {  // the file's last block is part of the cost
          std::string why;
          file->close(why);
        }
      }));
      row.cpu_ms.push_back((bench::CpuClock::now().self - cpu0.self) * 1e3);
      row.bytes = row.file.empty() ? counter.bytes : std::filesystem::file_size(row.file);
      if (&row != &rows[0])
        same = same && result.agent_ticks == rows[0].result.agent_ticks && result.metrics == rows[0].result.metrics &&
               result.agents_at_end == rows[0].result.agents_at_end;
      row.result = result;
    }
  const Row& none = rows[0];
  // Agent entries: every agent-tick, and each dead agent once more (alive 0, on its last line).
  const double entries = double(none.result.agent_ticks);
  std::printf("  %llu agent-ticks (%u agents at start, %u at the end)\n\n", static_cast<unsigned long long>(none.result.agent_ticks),
              none.result.agents_at_start, none.result.agents_at_end);
  std::printf("  %-6s %10s %10s %10s %12s %12s %8s %14s\n", "row", "wall ms", "best ms", "CPU ms", "rec wall", "rec CPU", "MB",
              "bytes/agent-tick");
  std::printf("  %-6s %10s %10s %10s %12s %12s %8s %14s\n", "", "(median)", "", "(median)", "ms/tick", "ms/tick", "", "");
  const bench::Stat base = bench::stat_of(none.ms), base_cpu = bench::stat_of(none.cpu_ms);
  for (const Row& row : rows) {
    bench::Stat s = bench::stat_of(row.ms), c = bench::stat_of(row.cpu_ms);
    if (&row == &none) {
      std::printf("  %-6s %10.1f %10.1f %10.1f %12s %12s %8s %14s\n", row.name, s.median, s.best, c.median, "-", "-", "-", "-");
      continue;
    }
    std::printf("  %-6s %10.1f %10.1f %10.1f %12.2f %12.2f %8.1f %14.2f\n", row.name, s.median, s.best, c.median,
                (s.median - base.median) / double(ticks), (c.median - base_cpu.median) / double(ticks), row.bytes / 1e6,
                double(row.bytes) / entries);
  }
  std::printf("\n");
  return bench::consistency(same, "every recorded run gives the baseline's result", "A RECORD CHANGED THE RUN") ? 0 : 1;
}
