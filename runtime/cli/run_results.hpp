// thicket run SCENARIO: the per-run rows of --out and the lines of the end-of-run summary
// that are about metrics (run_results.cpp).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "run_plan.hpp"
#include "simulation.hpp"

namespace thicket::cli {

// One row (CSV) or object (JSONL) per run, in run order, numbered from 1. Columns: run, seed,
// ticks, agents_start, agents_end, agent_ticks, wall_s, agent_ticks_per_s, script_errors, the
// metrics in name order, then NAME_mean, NAME_min, NAME_max for every metric that was a gauge
// in any run (empty, or null, in a run where it was not). The CSV header comes first.
void write_run_rows(std::ostream& out, bool jsonl, const std::vector<RunResult>& results);
// The same for a sweep (issue 15): result i is run plan[i]; its parameter set's values follow
// `seed`, one column (JSONL: one field) per key of sets.names, named by the key. JSONL values
// are the numbers or true/false the runs used (.5 as 0.5, 007 as 7), else strings; CSV keeps
// the text as written.
void write_run_rows(std::ostream& out, bool jsonl, const std::vector<RunResult>& results, const ParamSets& sets,
                    const std::vector<RunSpec>& plan);

// "thicket: metric NAME: mean M, min L, max H" per metric over the runs' end values, and
// "thicket: gauge NAME per tick: mean M, min L, max H" per gauge over the ticks of every run.
std::string metrics_summary(const std::vector<RunResult>& results);

}  // namespace thicket::cli
