// What a run of a batch is: the shared vocabulary of parameter sweeps (sweep.cpp, --set) and of
// distributing a batch (MPI ranks, --shard I/K, thicket merge). A run is fully described by its
// 0-based index in the batch order; rows and the summary are produced on one process from the
// runs' results in index order, so ranks and shards only move results, never decide them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace thicket::cli {

// One run of a batch: its 0-based index in the batch order, its seed, its parameter set (an
// index into ParamSets::values; 0 when the batch has no sweep).
struct RunSpec {
    uint64_t index = 0;
    uint64_t seed = 0;
    uint32_t param_set = 0;
};

// The parameter sets of a sweep: the keys in column order (e.g. "groups.minions.count",
// "seed"), and per set its values as text, one per key. No sweep = no names and one empty set,
// so a batch always has at least one parameter set.
struct ParamSets {
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> values{{}};
};

// The batch: every parameter set x `runs` seeds, param set major, then seed. Run i of set p
// has index p * runs + i and seed first_seed + i, unless the set itself names a "seed" (then
// that seed + i): so without a sweep this is exactly today's batch (seeds first_seed ..
// first_seed + runs - 1).
inline std::vector<RunSpec> plan_runs(const ParamSets& sets, uint64_t first_seed, uint64_t runs) {
    std::vector<RunSpec> plan;
    uint32_t seed_key = UINT32_MAX;
    for (uint32_t k = 0; k < sets.names.size(); ++k)
        if (sets.names[k] == "seed") seed_key = k;
    const size_t n_sets = sets.values.empty() ? 1 : sets.values.size();
    plan.reserve(n_sets * runs);
    for (uint32_t p = 0; p < n_sets; ++p) {
        uint64_t base = first_seed;
        // The value was validated as an unsigned integer when the sweep was read.
        if (seed_key != UINT32_MAX && p < sets.values.size() && seed_key < sets.values[p].size())
            base = std::stoull(sets.values[p][seed_key]);
        for (uint64_t i = 0; i < runs; ++i)
            plan.push_back(RunSpec{plan.size(), base + i, p});
    }
    return plan;
}

}  // namespace thicket::cli
