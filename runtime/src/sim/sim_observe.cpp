// What a run shows of its metrics while it goes on: gauge statistics over ticks, the
// --series samples, and --strict's question (has any script failed yet?).
#include "sim_internal.hpp"

namespace thicket {

// A gauge's per-tick value is the sum of the tick's reports, held while it is not reported
// (metric_totals already holds it so); its statistics count the ticks from its first report
// on, so a gauge reported from tick 50 is not dragged towards 0 by the ticks before.
void observe_metrics(Simulation::Impl& sim) {
  if (sim.gauge_stats.size() != sim.metric_totals.size()) sim.gauge_stats.resize(sim.metric_totals.size());
  for (size_t m = 0; m < sim.metric_totals.size(); ++m) {
    if (!sim.metric_is_gauge[m]) continue;
    GaugeStats& g = sim.gauge_stats[m];
    const double v = sim.metric_totals[m];
    if (g.ticks == 0 || v < g.min) g.min = v;
    if (g.ticks == 0 || v > g.max) g.max = v;
    g.mean += v;  // the sum until the run ends (Simulation::run divides)
    ++g.ticks;
  }
  if (sim.options.series) sim.options.series->sample(sim.tick, sim.metric_names, sim.metric_totals);
}

bool any_script_error(const Simulation::Impl& sim) {
  if (sim.errors.once_errors > 0) return true;  // the brains' errors said once (the workers' book)
  for (const auto& w : sim.workers)
    if (w->rt->script_errors() > 0) return true;
  return false;
}

}  // namespace thicket
