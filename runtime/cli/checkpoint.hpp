// thicket run SCENARIO --checkpoint FILE --every T / --resume FILE (issue 15): checkpoint files
// on disk. The state inside is Simulation::save / restore's (runtime/src/sim/sim_snapshot.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "simulation.hpp"

namespace thicket::cli {

// A checkpoint read whole and its header checked (magic, version, length, checksum) and
// matched to the run (Simulation::mismatch), before any output file is opened: a bad file
// costs nothing. nullopt and `error` (without the file name) when it cannot be resumed.
struct ResumePoint {
  std::string bytes;
  SnapshotInfo info;
};
std::optional<ResumePoint> read_checkpoint(const std::string& file, std::string& error);
// --resume FILE: read_checkpoint, then Simulation::mismatch against the run's scenario and
// options (without --seed, options.seed is taken to be the checkpoint's); on failure prints
// "thicket: FILE: error: ..." and returns nullopt (exit 2).
std::optional<ResumePoint> open_resume(const std::string& file, const ScenarioSpec& spec, SimOptions options, bool seed_given);
// Restores the new run's Simulation from it, printing notes (a changed brain, dropped path
// searches) and errors as "thicket: FILE: note|error: ...". false: the run cannot go on.
bool resume(Simulation& sim, const ResumePoint& point, const std::string& file);

// Replaces `file` with `bytes` atomically: FILE.tmp is written and fsync'd, renamed over
// FILE, and the directory fsync'd, so FILE is always a whole checkpoint (the old or the new)
// even if the process or the machine stops in between. "" or why it failed (FILE.tmp removed).
std::string write_checkpoint(const std::string& file, const std::string& bytes);

// --checkpoint FILE --every T: after every T-th tick of the run (counted from the run's start,
// also when resumed), from Simulation::run's progress callback.
class Checkpointer {
 public:
  Checkpointer(std::string file, uint64_t every) : file_(std::move(file)), every_(every) {}
  // After tick `done`: saves when due. Returns "" or the first failure's message (then it
  // stops trying: the run goes on without checkpoints).
  std::string after_tick(const Simulation& sim, uint64_t done);
  // The run was interrupted (Ctrl-C) after tick `done`: saves there, unless that tick is saved
  // already, so that --resume loses nothing of what ran.
  std::string at_stop(const Simulation& sim, uint64_t done);
  uint64_t written() const { return written_; }

 private:
  std::string write(const Simulation& sim, uint64_t done);
  std::string file_;
  uint64_t every_;
  uint64_t written_ = 0;
  uint64_t last_tick_ = 0;  // of the last checkpoint written
  bool failed_ = false;
  std::string bytes_;  // reused: a checkpoint of 10,000 agents is megabytes
};

}  // namespace thicket::cli
