// The end-of-run summary of a sweep (issue 15): the runs grouped by parameter set.
#pragma once
#include <string>
#include <vector>

#include "run_plan.hpp"
#include "simulation.hpp"

namespace thicket::cli {

// "thicket: set S (KEY=V ...): N run(s)", then per metric "thicket:   metric NAME: mean M, min L,
// max H, 95% CI [A, B]" over the set's runs' end values (the interval of the mean, from Student's
// t with n - 1 degrees of freedom; "n/a" for one run), then per gauge the same over the runs'
// per-tick means (min and max over every tick). Result i is run plan[i]; sets in set order.
std::string sweep_summary(const std::vector<RunResult>& results, const ParamSets& sets, const std::vector<RunSpec>& plan);

}  // namespace thicket::cli
