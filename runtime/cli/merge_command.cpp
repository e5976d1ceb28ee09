// thicket merge: see merge_command.hpp. The parts are checked whole before OUT is opened, so a
// bad merge never leaves a half-written or overwritten OUT behind.
#include "merge_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "batch_result.hpp"
#include "batch_summary.hpp"
#include "cli_args.hpp"
#include "output_target.hpp"
#include "run_results.hpp"
#include "plain_file.hpp"  // not_plain_file
#include "suggest.hpp"  // did_you_mean

namespace thicket::cli {

namespace {

constexpr int kExitLoad = 2, kExitUsage = 64;

struct Part {
  std::string path;
  BatchInfo info;
  std::vector<RunOutcome> outcomes;
  std::vector<size_t> lines;  // of each outcome, for messages
};

int part_error(const std::string& path, size_t line, const std::string& message) {
  std::cerr << path << ":" << line << ":1: error: " << message << "\n";
  return kExitLoad;
}

// Reads and checks one part on its own; 0 or the exit status (the error printed).
int read_part(const std::string& path, Part& part) {
  if (path.empty()) {
    std::cerr << "thicket: error: merge: a part file named '' (an empty path)\n";
    return kExitLoad;
  }
  if (const char* problem = not_plain_file(path, /*missing_ok=*/true); *problem) {
    std::cerr << path << ": error: cannot read this part file: " << problem << "\n";
    return kExitLoad;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {  // the file as a whole: no line to name (it said ':0:0:' and no reason)
    const int why = errno;
    std::cerr << path << ": error: cannot read this part file" << (why ? std::string(": ") + std::strerror(why) : "") << "\n";
    return kExitLoad;
  }
  part.path = path;
  std::string line, why;
  // A last line without its newline that does not read: the shard stopped while it wrote it.
  const std::string cut = "the part is cut short (its last line stops mid-way): was its shard stopped while it wrote?";
  if (!std::getline(in, line)) return part_error(path, 1, "the part is empty: did its shard fail before it ran?");
  if (!decode_batch_info(line, part.info, why)) return part_error(path, 1, in.eof() && !line.empty() && line[0] == '{' ? cut : why);
  size_t n = 1;
  bool ended = false;
  std::map<uint64_t, size_t> seen;  // run index -> line
  while (std::getline(in, line)) {
    ++n;
    if (ended) return part_error(path, n, "a line after the part's end line");
    uint64_t counted = 0;
    if (const int end = decode_end_line(line, counted, why); end != 0) {
      if (end < 0) return part_error(path, n, why);
      if (counted != part.outcomes.size())
        return part_error(path, n, "the end line counts " + std::to_string(counted) + " run(s), not the " +
                                       std::to_string(part.outcomes.size()) + " above it");
      ended = true;
      continue;
    }
    RunOutcome o;
    if (!decode_outcome(line, o, why)) return part_error(path, n, in.eof() ? cut : "not a run of a part: " + why);
    const uint32_t k = part.info.shards, i = part.info.shard;
    if (o.index >= part.info.plan_size)
      return part_error(path, n, "run " + std::to_string(o.index + 1) + " is past the batch's " +
                                     std::to_string(part.info.plan_size) + " run(s)");
    if (o.index % k != i - 1)
      return part_error(path, n, "run " + std::to_string(o.index + 1) + " is not one of shard " + std::to_string(i) +
                                     "/" + std::to_string(k) + "'s runs (run numbers r with (r - 1) % " +
                                     std::to_string(k) + " = " + std::to_string(i - 1) + ")");
    if (auto [at, fresh] = seen.emplace(o.index, n); !fresh)
      return part_error(path, n, "run " + std::to_string(o.index + 1) + " again (also on line " + std::to_string(at->second) + ")");
    part.outcomes.push_back(std::move(o));
    part.lines.push_back(n);
  }
  if (!ended)
    return part_error(path, n, "the part is cut short (no end line): was its shard stopped while it ran or wrote?");
  return 0;
}

}  // namespace

int merge_command(int argc, char** argv, const char* usage) {
  // The message and merge's own line of the usage (the whole of it, every command's 37 lines,
  // buried the message), as thicket run's option errors point to --help.
  auto usage_error = [&](const std::string& message) {
    std::string line;
    if (const char* at = std::strstr(usage, "thicket merge ")) {
      const char* end = std::strchr(at, '\n');
      line = std::string(at, end ? end : at + std::strlen(at));
    }
    std::cerr << "thicket: " << message << "\n" << (line.empty() ? "" : "usage: " + line + "\n")
              << "(thicket --help lists the options)\n";
    return kExitUsage;
  };
  // OUT, the parts, and --series FILE anywhere after the command.
  std::vector<std::string> args;
  std::string series_path;
  for (int a = 2; a < argc; ++a) {
    std::optional<std::string> joined;
    const std::string arg = option_name(argv[a], joined);
    if (arg == "--series") {
      const std::optional<std::string> value = option_value(joined, a, argc, argv);
      if (!value) return usage_error("--series needs FILE.csv or FILE.jsonl");
      series_path = *value;
    } else if (arg.size() > 1 && arg[0] == '-') {  // (-o was read as a part file)
      return usage_error("unknown option '" + arg + "' of thicket merge" + did_you_mean(arg, {"--series"}) +
                         " (it has --series FILE; OUT is the first file)");
    } else {
      args.push_back(arg);
    }
  }
  if (args.size() < 2) return usage_error("thicket merge needs OUT.csv or OUT.jsonl, then the part files of every shard");
  const std::string out_path = args[0];
  const bool jsonl = named_with_extension(out_path, ".jsonl");
  if (!jsonl && !named_with_extension(out_path, ".csv") && out_path.rfind("/dev/", 0) != 0)
    return usage_error("thicket merge writes CSV or JSON lines as OUT's extension says: it needs OUT.csv or OUT.jsonl, got '" + out_path + "'");
  const std::string series_kind = series_path.empty() ? ""
                                  : named_with_extension(series_path, ".jsonl") ? "jsonl"
                                  : named_with_extension(series_path, ".csv") || series_path.rfind("/dev/", 0) == 0 ? "csv" : "?";
  if (series_kind == "?")
    return usage_error("--series writes CSV or JSON lines as its extension says: it needs FILE.csv or FILE.jsonl, got '" + series_path + "'");
  if (!series_path.empty() && same_file(out_path, series_path))
    return usage_error("OUT and --series are given the same file '" + out_path + "'" +
                       (out_path == series_path ? "" : " (as '" + series_path + "')") + ": each would overwrite the other");
  std::vector<Part> parts(args.size() - 1);
  for (size_t a = 1; a < args.size(); ++a) {
    if (same_file(args[a], out_path) || (!series_path.empty() && same_file(args[a], series_path)))
      return usage_error("'" + args[a] + "' is given as a part and as an output: it would be overwritten");
    if (int status = read_part(args[a], parts[a - 1]); status != 0) return status;
  }
  // One batch, every shard once.
  const BatchInfo& first = parts.front().info;
  std::vector<const Part*> by_shard(first.shards, nullptr);
  for (const Part& p : parts) {
    std::string why;
    if (!same_batch(first, p.info, why))
      return part_error(p.path, 1, "not a part of the same batch as " + parts.front().path + ": " + why);
    const Part*& slot = by_shard[p.info.shard - 1];
    if (slot)
      return part_error(p.path, 1, "shard " + std::to_string(p.info.shard) + "/" + std::to_string(p.info.shards) +
                                       " again (also " + slot->path + ")");
    slot = &p;
  }
  // Every run has the metrics of the first (a scenario's runs all have the same): a part that
  // was edited would shift the rows' columns. (Checked after the headers, so that a part of
  // another batch is said as such, not by the metrics its runs lack.)
  const Part* model = nullptr;
  size_t model_k = 0;
  for (const Part& p : parts)
    for (size_t k = 0; k < p.outcomes.size(); ++k) {
      if (p.outcomes[k].load_failed) continue;
      if (!model) {
        model = &p;
        model_k = k;
        continue;
      }
      const auto& want = model->outcomes[model_k].result.metrics;
      const auto& got = p.outcomes[k].result.metrics;
      if (want.size() == got.size() &&
          std::equal(want.begin(), want.end(), got.begin(), [](const auto& x, const auto& y) { return x.first == y.first; }))
        continue;
      const std::string where = "run " + std::to_string(model->outcomes[model_k].index + 1) + " (" + model->path + ":" +
                                std::to_string(model->lines[model_k]) + ")";
      std::string extra, lacking;
      for (const auto& [name, v] : got)
        if (!want.count(name)) extra = name;
      for (const auto& [name, v] : want)
        if (!got.count(name)) lacking = name;
      const std::string run = "run " + std::to_string(p.outcomes[k].index + 1);
      return part_error(p.path, p.lines[k],
                        !extra.empty() ? run + " has a metric '" + extra + "' that " + where + " lacks: an edited part?"
                                       : run + " lacks the metric '" + lacking + "' of " + where + ": an edited part?");
    }
  std::string missing;
  uint32_t missing_count = 0;
  for (uint32_t s = 0; s < first.shards; ++s)
    if (!by_shard[s] && ++missing_count <= 10)  // (the first ten named, then how many in all)
      missing += (missing.empty() ? "" : ", ") + std::to_string(s + 1) + "/" + std::to_string(first.shards);
  if (missing_count > 0) {
    std::cerr << "thicket: error: merge: the part" << (missing_count > 1 ? "s" : "") << " of shard " << missing
              << (missing_count > 10 ? ", ... (" + std::to_string(missing_count) + " in all)" : "") << " "
              << (missing_count > 1 ? "are" : "is") << " missing; nothing written\n";
    return kExitLoad;
  }
  if (!series_path.empty() && first.series != series_kind) {
    std::cerr << "thicket: error: merge: --series " << series_path << " wants " << series_kind << " lines, but the shards "
              << (first.series.empty() ? "ran without --series" : "kept " + first.series + " lines (run them with --series FILE." + series_kind + ")")
              << "; nothing written\n";
    return kExitLoad;
  }
  // The runs as one process would have kept them, each where the plan says it is.
  if (planned_runs(first.sets, first.runs) > kMaxBatchRuns)
    return part_error(parts.front().path, 1, too_many_runs(first.sets, first.runs) + ": no thicket batch is that big");
  const std::vector<RunSpec> plan = plan_runs(first.sets, first.first_seed, first.runs);
  if (plan.size() != first.plan_size)
    return part_error(parts.front().path, 1, "its batch plans " + std::to_string(plan.size()) + " run(s), not " +
                                                 std::to_string(first.plan_size) + " (a part of another thicket version?)");
  std::vector<RunOutcome> all;
  for (const Part& p : parts)
    for (size_t k = 0; k < p.outcomes.size(); ++k) {
      const RunOutcome& o = p.outcomes[k];
      if (!o.load_failed && o.result.seed != plan[o.index].seed)
        return part_error(p.path, p.lines[k], "run " + std::to_string(o.index + 1) + " has seed " +
                                                  std::to_string(o.result.seed) + "; the batch gives it seed " +
                                                  std::to_string(plan[o.index].seed));
      all.push_back(o);
    }
  keep_batch_prefix(all);
  const bool stopped = !all.empty() && (all.back().load_failed || all.back().result.stopped_strict ||
                                        all.back().result.stopped_reload);
  if (!stopped && all.size() < plan.size()) {
    const uint64_t gap = all.size();
    std::cerr << "thicket: error: merge: run " << gap + 1 << " is in no part (shard " << gap % first.shards + 1 << "/"
              << first.shards << "'s part " << by_shard[gap % first.shards]->path
              << " lacks it: was that shard interrupted?); nothing written\n";
    return kExitLoad;
  }
  std::vector<RunResult> results;
  bool load_failed = false;
  for (const RunOutcome& o : all) {
    if (o.load_failed) {
      std::cerr << o.diagnostics;  // as the single process printed them, before stopping
      load_failed = true;
    } else {
      results.push_back(o.result);
    }
  }
  // The batch's first run failed to load: one process stops before it opens its outputs.
  if (load_failed && results.empty()) return kExitLoad;
  // Both outputs are checked before either is opened (which empties it): one that cannot be
  // written leaves the other as it was.
  std::vector<std::string> outputs{out_path};
  if (!series_path.empty()) outputs.push_back(series_path);
  if (size_t bad = first_unwritable(outputs); bad < outputs.size())
    return bad == 0 ? cannot_write("output", out_path) : cannot_write("series", series_path);
  std::ofstream out(out_path, std::ios::binary);
  if (!out) return cannot_write("output", out_path);
  if (!series_path.empty()) {  // every kept run's samples, in run order (run 1's has the CSV header)
    std::ofstream series(series_path, std::ios::binary);
    if (!series) return cannot_write("series", series_path);
    for (const RunOutcome& o : all) series << o.series;
  }
  write_run_rows(out, jsonl, results, first.sets, plan);
  out.flush();
  if (!out) {
    std::cerr << "thicket: error: " << out_path << " could not be written in full\n";
    return kExitLoad;
  }
  if (load_failed || results.empty()) return kExitLoad;
  // The parts may have run on different thread counts (the results do not depend on them).
  BatchFacts facts{.scenario = first.scenario, .ticks = first.ticks, .dt = first.dt, .threads = first.threads, .threads_max = first.threads};
  for (const Part& p : parts) {
    facts.threads = std::min(facts.threads, p.info.threads);
    facts.threads_max = std::max(facts.threads_max, p.info.threads);
  }
  std::cerr << batch_summary(facts, results, first.sets, plan) << "\n";
  return batch_exit_status(results);
}

}  // namespace thicket::cli
