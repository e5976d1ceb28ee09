// What a run of a batch is: the shared vocabulary of parameter sweeps (sweep.cpp, --set) and of
// distributing a batch (MPI ranks, --shard I/K, thicket merge). A run is fully described by its
// 0-based index in the batch order; rows and the summary are produced on one process from the
// runs' results in index order, so ranks and shards only move results, never decide them.
#pragma once
#include <cstdint>
#include <cstdio>
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
  // Keys whose values are text as written (a blackboard key its brain declares as a string):
  // JSON rows write them as strings ("007", not 7).
  std::vector<std::string> text_keys;
};

// The most runs one batch may have (parameter sets x base seeds x runs): the plan, and the
// results of the runs a process makes, are kept in memory (about 1 kB a run). --runs alone
// goes to 1,000,000 and a sweep to 100,000 sets; their product aborted for want of memory.
inline constexpr uint64_t kMaxBatchRuns = 1'000'000;
// How many runs plan_runs would plan (at most kMaxBatchRuns + 1: past the bound it stops
// counting), and the sentence a refusal says: "the batch has 2000000 runs (20 parameter set(s) x
// 1 seed(s) x 100000 run(s)); at most 1000000 in one batch".
inline uint64_t planned_runs(const ParamSets& sets, uint64_t runs) {
  const uint64_t n_sets = sets.values.empty() ? 1 : sets.values.size();
  const uint64_t bases = sets.seeds.empty() ? 1 : sets.seeds.size();
  if (runs > kMaxBatchRuns || n_sets > kMaxBatchRuns || bases > kMaxBatchRuns) return kMaxBatchRuns + 1;
  const uint64_t n = n_sets * bases * runs;  // each factor <= 10^6: no overflow below 10^18
  return n > kMaxBatchRuns ? kMaxBatchRuns + 1 : n;
}
inline std::string too_many_runs(const ParamSets& sets, uint64_t runs) {
  const uint64_t n_sets = sets.values.empty() ? 1 : sets.values.size();
  const uint64_t bases = sets.seeds.empty() ? 1 : sets.seeds.size();
  const long double all = static_cast<long double>(n_sets) * bases * runs;
  char total[64];
  std::snprintf(total, sizeof total, all < 1e18L ? "%.0Lf" : "%.3Lg", all);
  return "the batch has " + std::string(total) + " runs (" + std::to_string(n_sets) + " parameter set(s) x " +
         std::to_string(bases) + " seed(s) x " + std::to_string(runs) + " run(s)); at most " +
         std::to_string(kMaxBatchRuns) + " in one batch";
}

// The largest seed a run may have: the scenario's `seed:` and --seed take 0 .. 2^63 - 1.
inline constexpr uint64_t kMaxSeed = 9223372036854775807ULL;
// "" or why `runs` seeds from a base seed would pass kMaxSeed (the rows carried seeds that
// neither --seed nor `seed:` takes, so such a run could not be made again).
inline std::string seeds_past_max(const ParamSets& sets, uint64_t first_seed, uint64_t runs) {
  const std::vector<uint64_t> own_seed{first_seed};
  for (uint64_t base : sets.seeds.empty() ? own_seed : sets.seeds)
    if (runs > 0 && base > kMaxSeed - (runs - 1))
      return std::to_string(runs) + " run(s) from seed " + std::to_string(base) + " would take seeds past " +
             std::to_string(kMaxSeed) + ", the largest: a smaller seed or fewer runs";
  return {};
}

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

// Whether a batch's runs go to the threads whole (each run on one thread, several at once)
// rather than one run at a time with its agents over the threads: many runs, or runs of fewer
// agents than kSpreadAgents. `thicket run SCENARIO` and Python's thicket.run / sweep choose
// alike; either way every run is the same (SPEC 8.2).
inline constexpr uint64_t kSpreadAgents = 1000;
inline bool spread_runs(uint64_t planned, uint32_t threads, uint64_t agents_per_run) {
  return planned > 1 && threads > 1 && (agents_per_run < kSpreadAgents || planned >= 4 * uint64_t(threads));
}

}  // namespace thicket::cli
