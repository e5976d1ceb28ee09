// Who runs which runs of a batch, and where their outcomes go: see batch_runs.hpp.
#include "batch_runs.hpp"

#include <iostream>
#include <sstream>

#include "batch_summary.hpp"

namespace thicket::cli {

bool parse_shard(const std::string& text, uint32_t& shard, uint32_t& shards, std::string& why) {
  why = "--shard needs I/K, this process's share of K shards (1 <= I <= K <= 1000000), e.g. 2/8; got '" + text + "'";
  size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  std::string i = text.substr(0, slash), k = text.substr(slash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 7 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(i) || !digits(k)) return false;
  shard = static_cast<uint32_t>(std::stoul(i));
  shards = static_cast<uint32_t>(std::stoul(k));
  if (shards == 0 || shards > 1'000'000 || shard == 0 || shard > shards) return false;
  why.clear();
  return true;
}

BatchRuns::BatchRuns(uint32_t shard, uint32_t shards, const MpiWorld& world) {
  if (shards > 0) {
    sharded_ = true;
    slot_ = shard - 1;
    count_ = shards;
  } else if (world.built && world.size > 1) {
    mpi_ = true;
    rank_ = world.rank;
    slot_ = world.rank;
    count_ = world.size;
  }
}

void BatchRuns::begin(uint64_t index) {
  if (!collects()) return;
  outcomes_.push_back(RunOutcome{});
  outcomes_.back().index = index;
}

std::string unseen_warnings(const std::string& text, std::set<std::string>& seen) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string line = text.substr(at, end - at);
    if (line.find(": warning: ") == std::string::npos || seen.insert(line).second) out += line;
    at = end;
  }
  return out;
}

void BatchRuns::diagnostics(const std::vector<Diagnostic>& diags) {
  std::string text;
  for (const auto& d : diags) text += format_diagnostic(d) + "\n";
  if (!capturing()) std::cerr << unseen_warnings(text, warned_);
  // A shard keeps them too: a load failure's are what `thicket merge` prints for it.
  if (collects()) outcomes_.back().diagnostics = std::move(text);
}

void BatchRuns::log(const std::string& line) {
  if (capturing() && !outcomes_.empty()) outcomes_.back().log += line + "\n";
}

void BatchRuns::load_failed() {
  if (collects()) outcomes_.back().load_failed = true;
}

void BatchRuns::done(const RunResult& result) {
  if (collects()) outcomes_.back().result = result;
}

void BatchRuns::series(const std::string& text) {
  if (collects()) outcomes_.back().series += text;
}

void BatchRuns::interrupted(uint64_t ticks) {
  if (!collects() || outcomes_.empty()) return;
  if (sharded_) cut_.emplace(outcomes_.back().index, ticks);
  outcomes_.pop_back();  // (MPI: a run stopped as it loaded has no outcome to send)
}

BatchRuns::End BatchRuns::finish(const BatchInfo& info, std::ostream* out, std::ostream& err, std::ostream& log,
                                 std::ostream* series) {
  End end;
  if (sharded_) {
    std::vector<RunResult> mine;
    std::ostringstream runs;
    // The runs listed up to 10; past them, the first 10 and how many more, up to the last (a
    // shard of a million-run batch printed a line of 125,000 numbers).
    constexpr size_t kListed = 10;
    for (size_t k = 0; k < outcomes_.size(); ++k) {
      const auto& o = outcomes_[k];
      if (o.load_failed) end.load_failed = true;
      else mine.push_back(o.result);
      if (k < kListed || outcomes_.size() <= kListed + 1) runs << (k > 0 ? ", " : "") << o.index + 1;
      else if (k + 1 == outcomes_.size()) runs << ", ... (" << outcomes_.size() - kListed - 1 << " more), " << o.index + 1;
    }
    if (out) {
      *out << encode_batch_info(info) << "\n";
      for (const auto& o : outcomes_) *out << encode_outcome(o) << "\n";
      // The end line: a part cut short (a job killed while writing) is told from a whole one.
      *out << "{\"end\":true,\"outcomes\":" << outcomes_.size() << "}\n";
      out->flush();
    }
    double wall = 0;
    uint64_t errors = 0;
    for (const auto& r : mine) wall += r.wall_seconds, errors += r.script_errors;
    std::ostringstream line;
    line.setf(std::ios::fixed);
    line.precision(3);
    line << "thicket: shard " << info.shard << "/" << info.shards << " of scenario " << info.scenario << ": ";
    if (outcomes_.empty()) line << "no run of the batch's " << info.plan_size;
    else line << outcomes_.size() << " of the batch's " << info.plan_size << " run(s) (run " << runs.str() << ")";
    line << ", wall " << wall << " s, script errors: " << errors;
    if (!outcomes_.empty() && outcomes_.back().load_failed)
      line << "; run " << outcomes_.back().index + 1 << " failed to load, which ends the batch";
    if (cut_)
      line << "; interrupted: run " << cut_->first + 1 << " was stopped at tick " << cut_->second
           << " and is not in the part (nor the runs after it): run this shard again";
    else
      line << "; join the parts with: thicket merge OUT.csv|OUT.jsonl PART...";
    if (out && !*out) {
      err << "thicket: error: the part file could not be written in full (disk full?)\n";
      end.status = 2;
      return end;
    }
    err << line.str() << "\n";
    // Interrupted, the shard ends as any interrupted run does (SPEC 9's statuses: 0 when its whole
    // runs ran cleanly); its part lacks the cut run, which the merge names.
    end.status = end.load_failed ? 2 : batch_exit_status(mine);
    return end;
  }
  if (!mpi_) return end;
  std::string bytes;
  if (rank_ > 0) {
    for (const auto& o : outcomes_) bytes += encode_outcome(o) + "\n";
    mpi_send_to_root(bytes);
    return end;
  }
  std::vector<RunOutcome> all = std::move(outcomes_);
  uint32_t from = 1;
  for (const std::string& received : mpi_receive_from_ranks()) {
    std::istringstream lines(received);
    for (std::string line; std::getline(lines, line);) {
      RunOutcome o;
      std::string why;
      if (!decode_outcome(line, o, why))  // a bug, not a user's error: said, and the run counts as missing
        err << "thicket: internal error: rank " << from << " sent a result that does not decode (" << why << ")\n";
      else all.push_back(std::move(o));
    }
    ++from;
  }
  keep_batch_prefix(all);
  end.goes_on = true;
  for (const auto& o : all) {
    err << o.diagnostics;
    log << o.log;
    if (series) *series << o.series;
    if (o.load_failed) end.load_failed = true;
    else end.results.push_back(o.result);
  }
  (void)info;
  return end;
}

}  // namespace thicket::cli
