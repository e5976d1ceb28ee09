// Two parts of a scenario tick outside the brains (simulation.cpp runs them): every worker
// moving its own agents, and the workers' effects and metric samples put in agent-id order.
#include <algorithm>
#include <iterator>

#include "sim_internal.hpp"
#include "thicket/nav.hpp"

namespace thicket {

// Each agent's move reads only its own entity and force (move_entity, keep_out_of_walls), so
// workers move theirs side by side and the world ends the same whichever worker moved whom.
void move_worker(SimWorker& w, double dt) {
  Simulation::Impl& s = *w.sim;
  const nav::GridMap* map = s.nav.world.map;
  const world::Bounds& bounds = s.world.bounds();
  std::span<world::Entity> entities = s.world.entities();
  for (uint32_t id : w.agents) {
    const SimAgent& a = s.agents[id - 1];
    if (!a.alive) continue;
    world::Entity& e = entities[a.entity.index()];
    const world::Vec2 before = e.position;
    world::move_entity(e, s.forces[a.entity.index()], dt, bounds);
    if (map) nav::keep_out_of_walls(e, before, *map);
  }
}

namespace {

// A worker ticks its agents in ascending id order, so its list is already in (agent, seq)
// order, and the tick's lists only need merging, not sorting. Not always: a leaf aborted when
// its agent dies (after the lists were taken) may add to its worker's next list out of order;
// then that tick sorts. Keys are unique (seq counts per worker, an agent is on one worker), so
// merge and sort give the same order.
template <class T, class Less>
void merge_runs(std::vector<std::unique_ptr<SimWorker>>& workers, std::vector<T> SimWorker::*list,
                std::vector<T>& out, std::vector<T>& spare, Less less) {
  out.clear();
  bool sorted = true;
  for (auto& w : workers) {
    std::vector<T>& run = (*w).*list;
    sorted = sorted && std::is_sorted(run.begin(), run.end(), less);
    if (!sorted || out.empty()) {
      out.insert(out.end(), std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()));
    } else if (!run.empty()) {  // into the spare buffer, which becomes out: no allocation once warm
      spare.clear();
      std::merge(std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()),
                 std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()),
                 std::back_inserter(spare), less);
      out.swap(spare);
    }
    run.clear();
  }
  if (!sorted) std::sort(out.begin(), out.end(), less);
}

}  // namespace

void gather_effects(Simulation::Impl& s) {
  merge_runs(s.workers, &SimWorker::effects, s.tick_effects, s.spare_effects,
             [](const Effect& x, const Effect& y) { return x.source != y.source ? x.source < y.source : x.seq < y.seq; });
  merge_runs(s.workers, &SimWorker::metrics, s.tick_samples, s.spare_samples, [](const MetricSample& x, const MetricSample& y) {
    return x.agent != y.agent ? x.agent < y.agent : x.seq < y.seq;
  });
  for (auto& w : s.workers) w->seq = 0;
}

}  // namespace thicket
