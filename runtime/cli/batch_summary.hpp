// The end-of-batch summary of `thicket run SCENARIO` on standard error, from the runs' results
// in batch order: written by the single process, by MPI rank 0 after gathering, and by
// `thicket merge` from the parts, so all three say the same.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "run_plan.hpp"
#include "simulation.hpp"

namespace thicket::cli {

struct BatchFacts {
  std::string scenario;  // its name
  uint64_t ticks = 0;    // per run
  double dt = 0;
  uint32_t threads = 1;
  uint32_t threads_max = 0;  // merged parts run on different thread counts: threads to threads_max
  bool interrupted = false;  // Ctrl-C
  // The real time the batch's runs ticked, when they ran at once (runs spread over threads):
  // the union of their ticking spans. Negative: the runs ran one after another (or in other
  // processes, merged), and the summary's wall is the sum of their times.
  double wall = -1;
};

// The length of the union of the spans [first, second] (seconds): how long at least one of
// them was going on.
double union_seconds(std::vector<std::pair<double, double>> spans);

// "thicket: scenario NAME: N run(s) of T tick(s) ...", the metric (or per parameter set) lines,
// "thicket: agents alive at the end: ...; script errors: E"; without a final newline. Needs at
// least one result.
std::string batch_summary(const BatchFacts& facts, const std::vector<RunResult>& results, const ParamSets& sets,
                          const std::vector<RunSpec>& plan);

// The exit status of a batch that ran: 1 with script errors or a failed reload, else 0.
int batch_exit_status(const std::vector<RunResult>& results);

}  // namespace thicket::cli
