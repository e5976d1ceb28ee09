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

// The parameter sets of a sweep: the keys in column order (e.g. "groups.minions.count"), and
// per set its values as text, one per key. No sweep = no names and one empty set, so a batch
// always has at least one parameter set. The seed is not a parameter but a replication: a
// swept `seed: [3, 17]` lands in `seeds` (the base seeds of every set; empty = the batch's
// first seed), so the summary pools the seeds of a set instead of splitting them.
struct ParamSets {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> values{{}};
  std::vector<uint64_t> seeds;
};

// The batch: every parameter set x every base seed x `runs` seeds, param set major, then base
// seed, then run: run i of base seed s has seed s + i. Without a sweep this is exactly the
// batch of today (seeds first_seed .. first_seed + runs - 1, indices 0 .. runs - 1).
inline std::vector<RunSpec> plan_runs(const ParamSets& sets, uint64_t first_seed, uint64_t runs) {
  const std::vector<uint64_t> own_seed{first_seed};
  const std::vector<uint64_t>& bases = sets.seeds.empty() ? own_seed : sets.seeds;
  const size_t n_sets = sets.values.empty() ? 1 : sets.values.size();
  std::vector<RunSpec> plan;
  plan.reserve(n_sets * bases.size() * runs);
  for (uint32_t p = 0; p < n_sets; ++p)
    for (uint64_t base : bases)
      for (uint64_t i = 0; i < runs; ++i) plan.push_back(RunSpec{plan.size(), base + i, p});
  return plan;
}

}  // namespace thicket::cli
