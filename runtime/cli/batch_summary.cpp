// The end-of-batch summary: see batch_summary.hpp.
#include "batch_summary.hpp"

#include <algorithm>
#include <sstream>

#include "run_results.hpp"
#include "sweep_plan.hpp"
#include "sweep_summary.hpp"

namespace thicket::cli {

namespace {

// The end line lists each run's agents alive up to this many runs; past it, their mean, min, max.
constexpr size_t kListedRuns = 10;

// "640", or "540 to 560" when a sweep's counts differ between runs.

std::string agents_text(const std::vector<RunResult>& results) {
  uint32_t lo = results.front().agents_at_start, hi = lo;
  for (const RunResult& r : results) lo = std::min(lo, r.agents_at_start), hi = std::max(hi, r.agents_at_start);
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
}

}  // namespace

double union_seconds(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0, from = 0, to = 0;
  bool open = false;
  for (const auto& [a, b] : spans) {
    if (open && a <= to) {
      to = std::max(to, b);
      continue;
    }
    if (open) total += to - from;
    from = a, to = b, open = true;
  }
  return open ? total + (to - from) : total;
}

std::string batch_summary(const BatchFacts& facts, const std::vector<RunResult>& results, const ParamSets& sets,
                          const std::vector<RunSpec>& plan) {
  // Per run figures, then mean / min / max of each metric over the runs.
  uint64_t errors = 0, agent_ticks = 0;
  double wall = 0;
  for (const auto& res : results) {
    errors += res.script_errors;
    agent_ticks += res.agent_ticks;
    wall += res.wall_seconds;
  }
  if (facts.wall >= 0) wall = facts.wall;  // runs at once: their sum would count the overlaps twice
  std::ostringstream sum;
  sum.setf(std::ios::fixed);
  sum.precision(3);
  // Runs cut short (Ctrl-C, --strict) say how far they got: "of 20 tick(s)" read as 20 ticks run.
  uint64_t shortest = facts.ticks, cut = 0;
  for (const auto& res : results)
    if (res.ticks < facts.ticks) {
      shortest = std::min<uint64_t>(shortest, res.ticks);
      ++cut;
    }
  sum << "thicket: scenario " << facts.scenario << ": " << results.size() << " run(s) of " << facts.ticks << " tick(s)";
  if (cut == 1 && results.size() == 1) sum << " (stopped after " << shortest << ")";
  else if (cut > 0) sum << " (" << cut << " cut short, the shortest after " << shortest << ")";
  sum << " at dt " << facts.dt << " s on " << facts.threads
      << (facts.threads_max > facts.threads ? " to " + std::to_string(facts.threads_max) : std::string()) << " thread(s); "
      << agents_text(results)
      << " agents; wall " << wall << " s, ";
  sum.precision(0);
  sum << (wall > 0 ? static_cast<double>(agent_ticks) / wall : 0.0) << " agent-ticks/s\n";
  sum << (is_sweep(sets) ? sweep_summary(results, sets, plan) : metrics_summary(results));
  sum << "thicket: agents alive at the end:";
  if (results.size() <= kListedRuns) {
    for (const auto& res : results) sum << " " << res.agents_at_end;
  } else {  // a number per run made a line of a million numbers for a big sweep
    uint64_t total = 0;
    uint32_t lo = results.front().agents_at_end, hi = lo;
    for (const auto& res : results) {
      total += res.agents_at_end;
      lo = std::min(lo, res.agents_at_end);
      hi = std::max(hi, res.agents_at_end);
    }
    sum.precision(1);
    sum << " mean " << static_cast<double>(total) / static_cast<double>(results.size()) << ", min " << lo << ", max "
        << hi << " over the " << results.size() << " runs";
  }
  sum << "; root status (last run):";
  for (const auto& [name, n] : results.back().statuses) sum << " " << name << "=" << n;
  sum << "; script errors: " << errors;
  if (results.back().stopped_strict) sum << " (stopped: --strict)";
  if (results.back().stopped_reload) sum << " (stopped: the workers could not agree on a reloaded version)";
  if (facts.interrupted) sum << " (interrupted)";
  return sum.str();
}

int batch_exit_status(const std::vector<RunResult>& results) {
  uint64_t errors = 0;
  for (const auto& res : results) errors += res.script_errors;
  if (!results.empty() && results.back().stopped_reload) return 1;
  return errors > 0 ? 1 : 0;
}

}  // namespace thicket::cli
