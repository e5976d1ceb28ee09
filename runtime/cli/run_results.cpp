// --out rows and the metrics' summary of a scenario run: see run_results.hpp.
#include "run_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <variant>

#include "numbers.hpp"       // summary_number
#include "series.hpp"        // append_number
#include "sweep.hpp"         // sweep_value
#include "trace_format.hpp"  // json_escape

namespace thicket::cli {

namespace {

// A metric or gauge statistic as --series writes it (series.hpp): every digit, where a
// stream's default 6 would print 1234567 as 1.23457e+06. (wall_s and agent_ticks_per_s are
// wall-clock figures and keep 6 digits.)
std::string num(double v, bool jsonl) {
  std::string out;
  append_number(out, v, jsonl ? SeriesFormat::Jsonl : SeriesFormat::Csv);
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The metrics that were a gauge in any run, in name order.
std::set<std::string> gauge_names(const std::vector<RunResult>& results) {
  std::set<std::string> names;
  for (const auto& r : results)
    for (const auto& [name, g] : r.gauges) names.insert(name);
  return names;
}

// A parameter's value as JSON: the value the run used (sweep_value, as a blackboard reads it;
// a count or a vehicle's number reads the same), so a number is written as the number it is
// (.5 as 0.5, 007 as 7, 1e2 as 100, in append_number's shortest form) and true/false as they
// are; anything else, and every value of a key the brain takes as text, as text. (CSV keeps the
// text as written.)
std::string json_param(const std::string& text, bool as_text) {
  if (as_text) return '"' + json_escape(text) + '"';
  const Value v = sweep_value(text);
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d)) return num(*d, true);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return '"' + json_escape(text) + '"';  // text, and .inf / -.inf as written (JSON has no infinity)
}

}  // namespace

void write_run_rows(std::ostream& out, bool jsonl, const std::vector<RunResult>& results) {
  write_run_rows(out, jsonl, results, ParamSets{}, {});
}

void write_run_rows(std::ostream& out, bool jsonl, const std::vector<RunResult>& results, const ParamSets& sets,
                    const std::vector<RunSpec>& plan) {
  if (results.empty()) return;
  // The parameter values of result r (none without a sweep).
  auto params = [&](size_t r) -> const std::vector<std::string>* {
    if (sets.names.empty() || r >= plan.size() || plan[r].param_set >= sets.values.size()) return nullptr;
    return &sets.values[plan[r].param_set];
  };
  const std::set<std::string> gauges = gauge_names(results);
  static const char* const kStats[] = {"_mean", "_min", "_max"};
  auto stat = [](const GaugeStats& g, int k) { return k == 0 ? g.mean : k == 1 ? g.min : g.max; };
  if (!jsonl) {
    out << "run,seed";
    for (const auto& name : sets.names) out << "," << csv_escape(name);
    out << ",ticks,agents_start,agents_end,agent_ticks,wall_s,agent_ticks_per_s,script_errors";
    for (const auto& [name, v] : results.front().metrics) out << "," << csv_escape(name);
    for (const auto& name : gauges)
      for (const char* s : kStats) out << "," << csv_escape(name + s);
    out << "\n";
  }
  for (size_t r = 0; r < results.size(); ++r) {
    const RunResult& res = results[r];
    double rate = res.wall_seconds > 0 ? static_cast<double>(res.agent_ticks) / res.wall_seconds : 0;
    if (jsonl) {
      out << "{\"run\":" << r + 1 << ",\"seed\":" << res.seed;
      if (const auto* p = params(r))
        for (size_t k = 0; k < sets.names.size() && k < p->size(); ++k)
          out << ",\"" << json_escape(sets.names[k]) << "\":" << json_param((*p)[k], std::find(sets.text_keys.begin(), sets.text_keys.end(), sets.names[k]) != sets.text_keys.end());
      out << ",\"ticks\":" << res.ticks << ",\"agents_start\":"
          << res.agents_at_start << ",\"agents_end\":" << res.agents_at_end << ",\"agent_ticks\":" << res.agent_ticks
          << ",\"wall_s\":" << res.wall_seconds << ",\"agent_ticks_per_s\":" << rate << ",\"script_errors\":"
          << res.script_errors << ",\"metrics\":{";
      bool first = true;
      for (const auto& [name, v] : res.metrics) {
        out << (first ? "" : ",") << '"' << json_escape(name) << "\":" << num(v, true);
        first = false;
      }
      for (const auto& name : gauges) {
        auto g = res.gauges.find(name);
        for (int k = 0; k < 3; ++k) {
          out << (first ? "" : ",") << '"' << json_escape(name + kStats[k]) << "\":";
          if (g == res.gauges.end()) out << "null";
          else out << num(stat(g->second, k), true);
          first = false;
        }
      }
      out << "},\"statuses\":{";
      first = true;
      for (const auto& [name, n] : res.statuses) {
        out << (first ? "" : ",") << '"' << name << "\":" << n;
        first = false;
      }
      out << "}}\n";
    } else {
      out << r + 1 << "," << res.seed;
      if (const auto* p = params(r))
        for (size_t k = 0; k < sets.names.size() && k < p->size(); ++k) out << "," << csv_escape((*p)[k]);
      out << "," << res.ticks << "," << res.agents_at_start << "," << res.agents_at_end << ","
          << res.agent_ticks << "," << res.wall_seconds << "," << rate << "," << res.script_errors;
      for (const auto& [name, v] : res.metrics) out << "," << num(v, false);
      for (const auto& name : gauges) {
        auto g = res.gauges.find(name);
        for (int k = 0; k < 3; ++k) {
          out << ",";
          if (g != res.gauges.end()) out << num(stat(g->second, k), false);
        }
      }
      out << "\n";
    }
  }
}

std::string metrics_summary(const std::vector<RunResult>& results) {
  std::ostringstream sum;
  sum.setf(std::ios::fixed);
  sum.precision(2);
  if (results.empty()) return {};
  for (const auto& [name, v0] : results.front().metrics) {
    double lo = v0, hi = v0, mean = 0;
    size_t k = 0;
    for (const auto& res : results) {
      double v = res.metrics.at(name);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      mean += (v - mean) / static_cast<double>(++k);  // a running mean: a sum of 1e308s would be inf
    }
    sum << "thicket: metric " << name << ": mean " << summary_number(mean)
        << ", min " << summary_number(lo) << ", max " << summary_number(hi) << "\n";
  }
  // A gauge's value over the ticks: the mean of the runs' means (each run weighs the same),
  // the lowest and highest value of any tick of any run in which it was a gauge.
  for (const auto& name : gauge_names(results)) {
    double lo = 0, hi = 0, means = 0;
    size_t runs = 0;
    for (const auto& res : results) {
      auto g = res.gauges.find(name);
      if (g == res.gauges.end()) continue;
      lo = runs == 0 ? g->second.min : std::min(lo, g->second.min);
      hi = runs == 0 ? g->second.max : std::max(hi, g->second.max);
      means += (g->second.mean - means) / static_cast<double>(++runs);  // a running mean, as the metrics'
    }
    sum << "thicket: gauge " << name << " per tick: mean " << summary_number(means) << ", min "
        << summary_number(lo) << ", max " << summary_number(hi) << "\n";
  }
  return sum.str();
}

}  // namespace thicket::cli
