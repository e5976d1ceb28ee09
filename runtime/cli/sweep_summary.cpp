// The summary of a sweep: see sweep_summary.hpp.
#include "sweep_summary.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "numbers.hpp"
#include "sample_stats.hpp"
#include "suggest.hpp"  // shown_name
#include "sweep_plan.hpp"

namespace thicket::cli {

namespace {

void write_stats(std::ostream& out, const SampleStats& s, double lo, double hi) {
  out << "mean " << summary_number(s.mean) << ", min " << summary_number(lo) << ", max " << summary_number(hi) << ", 95% CI ";
  if (s.n < 2) out << "n/a (1 run)";
  else out << "[" << summary_number(s.mean - s.half_width) << ", " << summary_number(s.mean + s.half_width) << "]";
  out << "\n";
}

}  // namespace

std::string sweep_summary(const std::vector<RunResult>& results, const ParamSets& sets, const std::vector<RunSpec>& plan) {
  std::ostringstream sum;
  sum.setf(std::ios::fixed);
  sum.precision(2);
  const size_t n_sets = std::max<size_t>(sets.values.size(), 1);
  const size_t seeds = std::max<size_t>(sets.seeds.size(), 1);
  sum << "thicket: sweep of " << n_sets << " parameter set(s) x " << seeds << " base seed(s) x "
      << (n_sets * seeds > 0 ? plan.size() / (n_sets * seeds) : 0) << " run(s) = " << plan.size()
      << " run(s); 95% CI: the interval of the mean, Student's t\n";
  for (uint32_t p = 0; p < n_sets; ++p) {
    std::vector<const RunResult*> runs;
    for (size_t r = 0; r < results.size() && r < plan.size(); ++r)
      if (plan[r].param_set == p) runs.push_back(&results[r]);
    // (A swept text's line break written \n: it split the line.)
    const std::string params = shown_name(param_set_text(sets, p), 1000);
    sum << "thicket: set " << p + 1 << " (" << (params.empty() ? "all runs" : params) << "): " << runs.size()
        << " run(s)\n";
    if (runs.empty()) continue;  // interrupted or stopped before this set
    std::vector<double> values;
    for (const auto& [name, v0] : runs.front()->metrics) {
      values.clear();
      for (const RunResult* res : runs) {
        auto at = res->metrics.find(name);
        values.push_back(at == res->metrics.end() ? 0.0 : at->second);
      }
      SampleStats s = sample_stats(values);
      sum << "thicket:   metric " << name << ": ";
      write_stats(sum, s, s.min, s.max);
    }
    std::set<std::string> gauges;
    for (const RunResult* res : runs)
      for (const auto& [name, g] : res->gauges) gauges.insert(name);
    for (const std::string& name : gauges) {
      values.clear();
      double lo = 0, hi = 0;
      for (const RunResult* res : runs) {
        auto g = res->gauges.find(name);
        if (g == res->gauges.end()) continue;
        lo = values.empty() ? g->second.min : std::min(lo, g->second.min);
        hi = values.empty() ? g->second.max : std::max(hi, g->second.max);
        values.push_back(g->second.mean);
      }
      sum << "thicket:   gauge " << name << " per tick: ";
      write_stats(sum, sample_stats(values), lo, hi);
    }
  }
  return sum.str();
}

}  // namespace thicket::cli
