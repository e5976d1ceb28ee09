// Two parts of a scenario tick outside the brains (simulation.cpp runs them): every worker
// moving its own agents, and the workers' effects and metric samples put in agent-id order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"
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
    // agent:face: the heading after the move is the one asked for (a moving agent's next move
    // turns it to its velocity again).
    if (const world::Vec2 f = s.facing[a.entity.index()]; f.x != 0 || f.y != 0) e.heading = f;
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

std::string describe(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) return "nil";
  if (auto d = std::get_if<double>(&v)) {
    char text[40];
    std::snprintf(text, sizeof text, "%.14g", *d);
    return std::string("a number (") + text + ")";
  }
  if (auto i = std::get_if<int64_t>(&v)) return "an integer (" + std::to_string(*i) + ")";
  if (auto b = std::get_if<bool>(&v)) return std::string("a boolean (") + (*b ? "true" : "false") + ")";
  return "a string ('" + clipped(std::get<std::string>(v)) + "')";
}

// A signal meets its target's blackboard here, on the main thread once every worker has ticked
// (the target may be another worker's, so agent:signal cannot look). A whole float goes to an
// integer key as a blackboard write takes it (agent.bb.k = 5.0); a key the target's brain does
// not declare, or a value of another type, is a script error of the sender, reported at its
// call and counted with the script errors (the exit status, --strict), and the signal is lost.
void check_signals(Simulation::Impl& s) {
  std::erase_if(s.tick_effects, [&](Effect& e) {
    if (e.kind != Effect::Kind::Signal) return false;
    SimAgent* target = s.agent(e.target);
    if (!target || !target->alive) return false;  // no one to tell: dropped as it is applied
    Runtime& rt = *s.workers[target->worker]->rt;
    const BrainHandle brain = rt.brain_of(target->handle);
    const std::optional<ValueType> type = rt.blackboard_type(brain, e.key);
    if (type == ValueType::Integer)
      if (const double* d = std::get_if<double>(&e.value); d && *d == std::floor(*d) && *d >= -0x1p63 && *d < 0x1p63)
        e.value = static_cast<int64_t>(*d);
    if (type && value_fits(*type, e.value)) return false;
    std::string msg = "error: " + e.where + "agent " + std::to_string(e.source) + " signalled '" + clipped(e.key) +
                      "' to agent " + std::to_string(e.target) + " (tick " + std::to_string(s.tick) + "): its blackboard ";
    if (type) {
      msg += "key '" + clipped(e.key) + "' is declared " + std::string(value_type_name(*type)) + "; cannot set it to " +
             describe(e.value);
    } else {
      msg += "has no key '" + clipped(e.key) + "'";
      const std::string hint = did_you_mean(e.key, rt.blackboard_keys(brain));  // "; did you mean 'x'?"
      if (!hint.empty()) msg += " (" + hint.substr(2) + ")";
    }
    s.effect_error("signal " + e.where + e.key + (type ? " typed" : " undeclared"), msg + "; the signal is lost");
    SimAgent* source = s.agent(e.source);
    ++s.workers[source ? source->worker : target->worker]->rt->impl().brain_errors;
    return true;
  });
}

}  // namespace

void gather_effects(Simulation::Impl& s) {
  merge_runs(s.workers, &SimWorker::effects, s.tick_effects, s.spare_effects,
             [](const Effect& x, const Effect& y) { return x.source != y.source ? x.source < y.source : x.seq < y.seq; });
  check_signals(s);
  gather_metrics(s);
  for (auto& w : s.workers) w->seq = 0;
}

void gather_metrics(Simulation::Impl& s) {
  merge_runs(s.workers, &SimWorker::metrics, s.tick_samples, s.spare_samples, [](const MetricSample& x, const MetricSample& y) {
    return x.agent != y.agent ? x.agent < y.agent : x.seq < y.seq;
  });
}

}  // namespace thicket
