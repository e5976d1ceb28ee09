// A run's outcome as bytes and back (issue 15): what MPI ranks send to rank 0 and what a
// `--shard I/K` part file holds, so that rank 0 (or `thicket merge`) writes the rows and the
// summary of a batch from exactly the results a single process would have had.
//
// The encoding is one JSON object per line. Every double is written so that it reads back to
// the same bits (nlohmann prints the shortest text that round-trips; an infinity or a NaN, which
// JSON cannot hold, is the string "inf", "-inf" or "nan"), so rows written from decoded results
// are the bytes a single process writes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "run_plan.hpp"
#include "simulation.hpp"

namespace thicket::cli {

// One run of a batch as it ended on the process that ran it.
struct RunOutcome {
  uint64_t index = 0;        // in the batch order (run_plan.hpp): the row is run index + 1
  RunResult result;          // unused when load_failed
  bool load_failed = false;  // Simulation::create refused it: a single process stops there (exit 2)
  std::string diagnostics;   // what it printed before running (FILE:LINE:COL: lines), under MPI
  std::string log;           // its log lines (script errors, --explain), under MPI
  std::string series;        // its --series lines (run 1's with the CSV header), under MPI
};

// What the rows and the summary of a batch need besides its runs: the first line of a part file.
struct BatchInfo {
  std::string scenario;  // the scenario's name (`scenario:`)
  // The bytes of the files the batch reads (the scenario, its map, brains, leaf files), hashed
  // (batch_fingerprint): parts made from edited files do not merge. Empty: not checked.
  std::string fingerprint;
  // The run options that change results (--strict, --budget, --series-every, ...), as written
  // on the command line: parts run with others do not merge.
  std::string options;
  uint64_t ticks = 0, first_seed = 0, runs = 0, plan_size = 0;
  double dt = 0;
  std::string series;    // "csv" or "jsonl": the runs carry --series lines in that format; "": none
  uint32_t threads = 1;  // of the process that wrote it (the summary says it; results do not depend on it)
  ParamSets sets;
  uint32_t shard = 1, shards = 1;  // --shard I/K (1/1: not sharded)
};

std::string encode_outcome(const RunOutcome& outcome);  // one line, without its newline
bool decode_outcome(const std::string& line, RunOutcome& outcome, std::string& why);
// A part's end line, {"end":true,"outcomes":N}, read as JSON (any spacing; a CR before the
// newline): 1 when `line` is one (N in `outcomes`), 0 when it is no end line (no "end" key),
// -1 when it has an "end" key but is not such a line (why set).
int decode_end_line(const std::string& line, uint64_t& outcomes, std::string& why);
std::string encode_batch_info(const BatchInfo& info);
bool decode_batch_info(const std::string& line, BatchInfo& info, std::string& why);
// Whether two parts describe the same batch (all but threads and the shard number); why not.
bool same_batch(const BatchInfo& a, const BatchInfo& b, std::string& why);
// FNV-1a (64 bits, hex) over the files' bytes in order; a file that cannot be read counts as
// its name alone.
std::string batch_fingerprint(const std::vector<std::string>& files);
// BatchInfo::options: the run options that change what a run gives, as the command line writes
// them (series_every 0: no --series).
std::string batch_run_options(const SimOptions& options, uint64_t series_every, uint64_t lua_memory_mb);

// What a single process would have kept of these outcomes (any order, distinct indices): sorted
// by index, runs 0, 1, 2 ... while consecutive, up to and including a run stopped by --strict,
// or up to the first that failed to load, which is kept last (load_failed) so that its
// diagnostics can be printed. Runs past those a single process would never have started.
void keep_batch_prefix(std::vector<RunOutcome>& outcomes);

}  // namespace thicket::cli
