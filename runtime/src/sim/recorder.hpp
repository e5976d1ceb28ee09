// The run's record (issue 14; docs/record-format.md is the contract): a header line with the
// world, teams, groups and their brains' node tables; a tick line per recorded tick with each
// agent's state and the events since the last line; an end line. Built on the simulation's
// thread after each tick from state that does not depend on the thread count, so the record
// is the same bytes at any --threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "record_sink.hpp"
#include "simulation.hpp"
#include "thicket/diagnostic.hpp"
#include "thicket/runtime.hpp"
#include "thicket/value.hpp"

namespace thicket {

// A record's metres and radians: 3 decimals, as to_chars(fixed, 3) writes them; "null" when
// not finite (recorder.cpp; tested against to_chars).
void put_fixed(std::string& out, double v);

struct SimWorker;
class SnapshotWriter;
class SnapshotReader;

class Recorder {
 public:
  // The keys the run records (--record-keys, else the scenario's `record: keys`), checked
  // against the groups' brains: a key no brain declares is an error at its place in the
  // scenario (or names --record-keys), with a suggestion. Every problem is reported.
  static std::vector<std::string> checked_keys(const ScenarioSpec& spec, const SimOptions& options,
                                               const SimWorker& worker, std::vector<Diagnostic>& diags);

  Recorder(Simulation::Impl& sim, std::vector<std::string> keys);
  // The header line.
  void header();
  // Events of the tick in progress, in the order they happened.
  void brain_event(const TraceEvent& e);  // abort, transition, switch
  void damage(uint32_t source, uint32_t target, double amount);
  void signal(uint32_t source, uint32_t target, const std::string& key);
  // Before the dead are despawned: their last state (listed once, alive 0) and death events.
  void deaths(std::vector<uint32_t> ids);
  // --watch, before a tick: what the reloads did (reload / reload_failed events of that tick),
  // and a brains line when a brain's nodes changed.
  void reloads(const std::vector<ReloadReport>& reports);
  // After the world moved: this tick's percepts and takes, then the tick line when due.
  void end_tick();
  // The end line.
  void finish(const RunResult& result);
  // Snapshots (recorder_snapshot.cpp): what waits for the next tick line (events, the dead),
  // so that a resumed run's tick lines are those of the run it continues. A run without
  // --record saves nothing pending (save_none); restore reads either (`tick`: the checkpoint's,
  // the last line's as far as the resumed record goes: its own line is not written again).
  void save(SnapshotWriter& out) const;
  static void save_none(SnapshotWriter& out);
  void restore(SnapshotReader& in, uint64_t tick);
  static void skip(SnapshotReader& in);

 private:
  void agent_entry(std::string& out, uint32_t id, bool alive);
  void flush_tick();
  void put_brains(std::string& out, std::vector<uint32_t>& brain_of_group) const;

  Simulation::Impl& sim_;
  std::vector<std::string> keys_;
  uint32_t every_ = 1;
  // Per group, per key: the brain's blackboard slot and its type (slot -1: not declared).
  struct KeySlot {
    int32_t slot = -1;
    ValueType type = ValueType::Number;
  };
  std::vector<std::vector<KeySlot>> key_slots_;
  void find_key_slots();
  std::string brain_events_, effect_events_;        // this tick's
  std::string events_;                               // since the last tick line
  std::vector<std::pair<uint32_t, std::string>> dead_;  // agents that died since: id, entry
  std::string line_;
  std::string brains_;  // the node tables last written (header or brains line)
  uint64_t last_written_ = 0;
  void keep_off_beat();
  uint64_t off_beat_tick_ = UINT64_MAX;  // recorder_snapshot.cpp: what a checkpoint of that tick
  std::string off_beat_events_;          // holds as pending
  std::vector<std::pair<uint32_t, std::string>> off_beat_dead_;
};

}  // namespace thicket
