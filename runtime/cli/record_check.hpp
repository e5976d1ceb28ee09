// Checks a record (docs/record-format.md) line by line, as `thicket view` reads it: is it a
// record, of a version this thicket reads, is every line JSON of the right shape, and did it
// end (an end line, the last line whole)?
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace thicket::cli {

class RecordCheck {
 public:
  static constexpr int kVersion = 1;  // the newest record version this reader knows

  // One line, without its newline. Returns "" or what is wrong with it (then stop reading).
  // unterminated: the file ends inside this line (no newline after it).
  std::string line(std::string_view text, bool unterminated = false);
  // After the last line. Returns "" or why the record is incomplete.
  std::string finish() const;

  int lines() const { return lines_; }
  std::uint64_t ticks() const { return ticks_; }  // tick lines (the run's tick 0 too; with every N, one per N)
  // The run's ticks: the end line's `ticks`, else the last tick line's tick.
  std::uint64_t run_ticks() const { return run_ticks_ >= 0 ? static_cast<std::uint64_t>(run_ticks_) : last_tick_ >= 0 ? static_cast<std::uint64_t>(last_tick_) : 0; }
  std::uint64_t agent_ticks() const { return agent_ticks_; }
  std::uint64_t max_agents() const { return max_agents_; }

 private:
  std::string header(std::string_view text);
  std::string tick_line(const void* json);
  std::string read_brains(const void* brains, const char* where);

  int lines_ = 0;
  bool ended_ = false;
  std::size_t groups_ = 0, keys_ = 0, metrics_ = 0;
  // The brains' node counts (from the header, then each brains line) and each group's brain:
  // an agent's node string has one character per node of its group's brain.
  bool brains_known_ = false;
  std::vector<std::size_t> node_counts_;
  std::vector<std::size_t> group_brain_;
  std::vector<std::size_t> group_nodes_;  // per group: its brain's node count (set when brains change)
  std::int64_t last_tick_ = -1;
  std::int64_t run_ticks_ = -1;  // the end line's ticks
  std::uint64_t ticks_ = 0, agent_ticks_ = 0, max_agents_ = 0;
  std::vector<std::uint64_t> ids_;  // a tick line's agent ids and alive flags, for the once-a-tick check
};

}  // namespace thicket::cli
