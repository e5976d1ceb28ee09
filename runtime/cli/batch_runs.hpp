// Who runs which runs of a batch, and where their outcomes go (issue 15). A batch is its runs
// in index order (run_plan.hpp); a process runs the indices i with i % K == slot:
//   - one process (no --shard, no MPI, or mpirun -n 1): every run, as always;
//   - `--shard I/K`: slot I - 1 of K; its outcomes go to a part file (--out) for `thicket merge`;
//   - MPI with K ranks: slot = rank; ranks > 0 send their outcomes to rank 0, which writes the
//     rows and the summary as one process would.
// Round robin rather than blocks: a sweep's parameter sets (set major in the plan) and the
// slower runs spread over every process.
#pragma once
#include <cstdint>
#include <ostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "batch_result.hpp"
#include "mpi_runs.hpp"
#include "simulation.hpp"
#include "thicket/diagnostic.hpp"

namespace thicket::cli {

// The lines of `text` (formatted diagnostics) less the warnings already in `seen`, which takes
// the new ones: every run of a batch loads the same brains, and a brain's warning (its
// tick_every, which a scenario ignores, say) is said once, not once per run. Errors all stay.
std::string unseen_warnings(const std::string& text, std::set<std::string>& seen);

// "I/K" with 1 <= I <= K <= 1000000; false with why.
bool parse_shard(const std::string& text, uint32_t& shard, uint32_t& shards, std::string& why);

class BatchRuns {
 public:
  // shards = 0: not sharded.
  BatchRuns(uint32_t shard, uint32_t shards, const MpiWorld& world);

  bool mine(uint64_t index) const { return index % count_ == slot_; }
  // This process writes --out, --log, --record, --trace, --series and prints (not MPI ranks > 0).
  bool prints() const { return !mpi_ || rank_ == 0; }
  // The outcomes are kept: for rank 0 (MPI) or for a part file (--shard).
  bool collects() const { return mpi_ || sharded_; }
  bool sharded() const { return sharded_; }
  bool distributed() const { return mpi_; }
  // Under MPI a run's diagnostics and log lines are kept with it, and rank 0 prints them all in
  // run order, so its standard error (and --log) reads as a single process's.
  bool capturing() const { return mpi_; }

  // The run's life on this process, in order: begin, diagnostics, then load_failed or
  // (log lines while it runs) done, series.
  void begin(uint64_t index);
  void diagnostics(const std::vector<Diagnostic>& diags);  // printed now unless capturing (warnings once)
  void log(const std::string& line);                      // capturing only
  void load_failed();
  void done(const RunResult& result);
  void series(const std::string& text);
  // --shard: the run begun last was stopped (Ctrl-C, SIGTERM) after `ticks` of its ticks: it is
  // left out of the part, so that a merge cannot take a cut-short run for a whole one. (Under MPI
  // only for a run stopped as it loaded, which has no outcome.)
  void interrupted(uint64_t ticks);

  struct End {
    bool goes_on = false;         // rank 0 (MPI): write rows and the summary from `results`
    int status = 0;               // otherwise: this process's exit status
    bool load_failed = false;     // rank 0: the batch ended at a run that failed to load
    std::vector<RunResult> results;  // rank 0: the runs a single process would have, in order
  };
  // After the loop. --shard: writes the part file to `out` (header, outcomes, an end line) and
  // says so on `err`. MPI rank > 0: sends its outcomes. MPI rank 0: gathers, keeps what one
  // process would have kept (keep_batch_prefix) and prints the kept runs' diagnostics to
  // `err`, their log lines to `log` and their series to `series` (if given), in run order.
  End finish(const BatchInfo& info, std::ostream* out, std::ostream& err, std::ostream& log, std::ostream* series);

 private:
  uint64_t slot_ = 0, count_ = 1;
  uint32_t rank_ = 0;
  bool mpi_ = false, sharded_ = false;
  std::vector<RunOutcome> outcomes_;
  std::optional<std::pair<uint64_t, uint64_t>> cut_;  // interrupted: the run left out, at its tick
  std::set<std::string> warned_;  // warnings printed (diagnostics)
};

}  // namespace thicket::cli
