// What main.cpp shares with scenario_command.cpp (`thicket run SCENARIO`): the parsed command
// line, the exit statuses, Ctrl-C's flag and the helpers both call.
#pragma once
#include <csignal>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "live_run.hpp"  // LiveOptions
#include "thicket/diagnostic.hpp"

namespace thicket::run_command {

constexpr int kExitOk = 0, kExitScriptErrors = 1, kExitLoad = 2, kExitUsage = 64;

// The command line of run, check, dot and dump, as parse_args (main.cpp) reads it.
struct Options {
  std::string command;
  std::vector<std::string> files;
  uint64_t agents = 1, ticks = 10, seed = 1, budget = 10'000'000, threads = 0, runs = 1, lua_memory_mb = 512,
           max_agents = 100'000;
  double leaf_timeout = 0.05;
  bool ticks_set = false, dt_set = false, seed_set = false, agents_set = false, max_agents_set = false;
  std::string out, record, series;
  uint64_t series_every = 1;
  uint64_t record_every = 0;          // --record-every (0: the scenario's)
  std::vector<std::string> record_keys;  // --record-keys
  std::vector<std::string> sets;         // --set KEY=V1,V2,... (a sweep: sweep_plan.hpp)
  uint32_t shard = 0, shards = 0;        // --shard I/K (batch_runs.hpp); shards 0: not sharded
  bool record_keys_set = false;
  double dt = 0.1;
  bool watch = false, strict = false, quiet = false, trusted = false, explain = false, budget_all = false;
  std::string trace, log;
  cli::LiveOptions live;  // --serve, --speed, --serve-exit
  std::string checkpoint, resume;  // --checkpoint FILE --every T, --resume FILE (checkpoint.hpp)
  uint64_t checkpoint_every = 0;
};

// Set by Ctrl-C (on_sigint): the run stops after the current tick, with its summary.
extern volatile std::sig_atomic_t g_interrupted;
// Set while a run saves checkpoints: Ctrl-C (SIGTERM) then lets the tick under way finish
// whole, its Lua calls not stopped, so that the tick the checkpoint saves is the one the
// uninterrupted run had (a stopped call failed its leaf, and the resume went another way).
// A second signal still ends the process at once.
extern volatile std::sig_atomic_t g_whole_ticks;
void on_sigint(int sig);

// "thicket: MESSAGE" and the usage on stderr; kExitUsage. A message about an option (it
// starts with "--") gets option_error's one line instead.
int usage_error(const std::string& message);
// "thicket: MESSAGE" and "(thicket --help lists the options)": an option's value refused,
// where the usage would push the message off the screen; kExitUsage.
int option_error(const std::string& message);
void print_diagnostics(const std::vector<Diagnostic>& diags);
// False, said on stderr, when an output file could not be written in full (a full disk).
bool written_in_full(std::ofstream& f, const std::string& path, const char* what);
// "" or why an output is given a file the run reads (it would be emptied).
std::string output_over_input(const Options& o, const std::vector<std::string>& inputs);

// thicket run SCENARIO: one run or a batch (runs, sweeps, shards, MPI ranks), with its outputs,
// checkpoints and live page (scenario_command.cpp).
int cmd_scenario(const Options& o);

}  // namespace thicket::run_command
