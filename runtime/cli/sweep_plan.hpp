// The parameter sets of `thicket run SCENARIO`: the scenario's `sweep:` with the command line's
// `--set KEY=V1,V2,...` (sweep.hpp says what keys there are), as the batch's ParamSets.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "run_plan.hpp"
#include "scenario.hpp"

namespace thicket::cli {

// nullopt on a bad --set (usage = true, why: exit 64) or a bad sweep in the file (usage =
// false, the errors in diags: exit 2). Swept blackboard values are checked against the brains
// (loaded with `trusted`). No sweep and no --set: no names, one empty set, no seeds.
std::optional<ParamSets> sweep_param_sets(const ScenarioSpec& spec, const std::vector<std::string>& set_args, bool trusted,
                                          std::string& why, bool& usage, std::vector<Diagnostic>& diags);

// Whether the batch is a sweep (keys or a seed list): its rows carry parameters and its summary
// groups by parameter set. Otherwise output is as before sweeps existed.
inline bool is_sweep(const ParamSets& sets) { return !sets.names.empty() || !sets.seeds.empty(); }

// "groups.minions.count=40 groups.minions.vehicle.max_speed=5" (empty without parameters).
std::string param_set_text(const ParamSets& sets, uint32_t set);

}  // namespace thicket::cli
