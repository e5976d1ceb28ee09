// Perception in a scenario run (issue 13): the run's perception::Manager, the groups' sensors,
// the world's areas and pickups, the blackboard keys percepts are written into, what pickups
// give, and percept events in the record, the trace and --explain.
#include <cstdio>
#include <sstream>

#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"

namespace thicket {
namespace {

bool slot_is_boolean(SenseSlot slot) {
  return slot == SenseSlot::Seen || slot == SenseSlot::Heard || slot == SenseSlot::Touched || slot == SenseSlot::Remembered;
}

std::string agent_words(const Simulation::Impl& sim, uint32_t id) {
  const SimAgent* a = id >= 1 && id <= sim.agents.size() ? &sim.agents[id - 1] : nullptr;
  if (!a) return "agent " + std::to_string(id);
  return "agent " + std::to_string(id) + " (" + sim.spec.groups[a->group].name + ")";
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// What the percept is about, for people: "agent 41 (intruders)", "a sound of agent 41
// (intruders)", "area goal", "pickup medkit_a".
std::string subject_words(const Simulation::Impl& sim, const perception::Percept& p) {
  const auto& m = *sim.perception;
  switch (p.kind) {
    case perception::Kind::Agent: return agent_words(sim, p.id);
    case perception::Kind::Sound: return p.id ? "a sound made by " + agent_words(sim, p.id) : "a sound";
    case perception::Kind::Area: return "area " + m.areas()[p.id - 1].name;
    case perception::Kind::Pickup: return "pickup " + m.pickups()[p.id - 1].name;
  }
  return "?";
}

std::string subject_json(const Simulation::Impl& sim, const perception::Percept& p) {
  const auto& m = *sim.perception;
  if (p.kind == perception::Kind::Area) return '"' + m.areas()[p.id - 1].name + '"';
  if (p.kind == perception::Kind::Pickup) return '"' + m.pickups()[p.id - 1].name + '"';
  return std::to_string(p.id);
}

const char* verb(const perception::Percept& p) {
  const bool in = p.phase != perception::Phase::Exit;
  switch (p.sense) {
    case perception::Sense::Sight: return in ? "sees" : "loses sight of";
    case perception::Sense::Hearing: return in ? "hears" : "no longer hears";
    case perception::Sense::Touch: return in ? "touches" : "stops touching";
  }
  return "?";
}

bool is_event(const perception::Percept& p) { return p.phase != perception::Phase::Stay || p.taken; }

}  // namespace

bool setup_perception(Simulation::Impl& sim, std::vector<Diagnostic>& diags) {
  const ScenarioSpec& spec = sim.spec;
  sim.perception = std::make_unique<perception::Manager>(sim.world, sim.hash, &sim.nav.world.walls, sim.agent_of_slot,
                                                         sim.options.dt);
  sim.perception->set_queues(static_cast<uint32_t>(sim.workers.size()));
  for (const perception::Area& area : spec.areas) sim.perception->add_area(area);
  for (const PickupDecl& p : spec.pickups) sim.perception->add_pickup(p.spec);
  for (const SimAgent& a : sim.agents)
    if (spec.groups[a.group].has_senses) sim.perception->add_sensor(a.id, spec.groups[a.group].senses);
  // Bindings: each key declared by the group's brain with the slot's type.
  const size_t before = diags.size();
  for (auto& worker : sim.workers) {
    worker->sense_keys.assign(spec.groups.size(), {});
    for (uint32_t g = 0; g < spec.groups.size(); ++g) {
      const AgentGroup& group = spec.groups[g];
      for (const SenseBinding& b : group.sense_keys) {
        const bool boolean = slot_is_boolean(b.slot);
        const char* slot_name = kSenseSlotNames[static_cast<int>(b.slot)];
        std::optional<uint32_t> bb = worker->rt->blackboard_slot(worker->brains[g], b.key);
        // The type: read it from an agent of the group when there is one (the slot's value).
        std::optional<Value> value;
        for (const SimAgent& a : sim.agents)
          if (a.group == g) {
            value = worker->rt->get(a.handle, b.key);
            if (value || a.worker == worker->index) break;
          }
        bool good = bb.has_value();
        if (good && value) good = boolean ? std::holds_alternative<bool>(*value) : std::holds_alternative<double>(*value);
        if (!good && worker->index == 0) {
          std::string want = boolean ? "a boolean" : "a number";
          std::vector<std::string> declared;
          for (const BlackboardKey& k : worker->rt->impl().brains[worker->brains[g].index]->program->blackboard)
            declared.push_back(k.name);
          diags.push_back({Severity::Error, spec.path, b.line, b.column,
                           "senses of group '" + group.name + "': '" + slot_name + "' is written into blackboard key '" + b.key +
                               "', which its brain " + group.brain +
                               (bb ? " declares with another type (it must be " + want + ")"
                                   : " does not declare (declare it as " + want + ")" + did_you_mean(b.key, declared))});
        }
        if (good) worker->sense_keys[g].push_back({b.slot, *bb, boolean});
      }
    }
  }
  if (!spec.pickups.empty()) {
    sim.pickups_metric = static_cast<uint32_t>(
        std::find(sim.metric_names.begin(), sim.metric_names.end(), "pickups_taken") - sim.metric_names.begin());
    if (sim.pickups_metric == sim.metric_names.size()) {
      sim.metric_names.push_back("pickups_taken");
      sim.metric_totals.push_back(0);
      sim.metric_is_gauge.push_back(false);
    }
  }
  return diags.size() == before;
}

void sense_agent(SimWorker& worker, SimAgent& agent) {
  perception::Manager& m = *worker.sim->perception;
  if (!m.has_sensor(agent.id)) return;
  m.sense(agent.id, &worker.perception_stats);
  const auto& keys = worker.sense_keys[agent.group];
  if (keys.empty()) return;
  // The nearest sighting, the loudest sound, any touch: ties to the lower id / earlier sound.
  const perception::Percept* seen = nullptr;
  const perception::Percept* heard = nullptr;
  bool touched = false;
  for (const perception::Percept& p : m.percepts(agent.id)) {
    if (p.phase == perception::Phase::Exit) continue;
    if (p.sense == perception::Sense::Sight) {
      if (!seen || p.distance < seen->distance) seen = &p;
    } else if (p.sense == perception::Sense::Hearing) {
      if (!heard || p.strength > heard->strength) heard = &p;
    } else {
      touched = true;
    }
  }
  const perception::MemoryEntry* recent = nullptr;
  for (const perception::MemoryEntry& e : m.memory(agent.id))
    if (e.kind == perception::Kind::Agent && (!recent || e.last_tick > recent->last_tick)) recent = &e;
  Runtime& rt = *worker.rt;
  for (const auto& k : keys) {
    if (k.boolean) {
      bool v = k.slot == SenseSlot::Seen ? seen != nullptr
               : k.slot == SenseSlot::Heard ? heard != nullptr
               : k.slot == SenseSlot::Touched ? touched
                                              : recent != nullptr;
      rt.set_bool(agent.handle, k.bb, v);
      continue;
    }
    double v = 0;
    switch (k.slot) {
      case SenseSlot::SeenId: v = seen ? seen->id : 0; break;
      case SenseSlot::SeenX: if (!seen) continue; v = seen->position.x; break;
      case SenseSlot::SeenY: if (!seen) continue; v = seen->position.y; break;
      case SenseSlot::SeenDistance: if (!seen) continue; v = seen->distance; break;
      case SenseSlot::HeardX: if (!heard) continue; v = heard->position.x; break;
      case SenseSlot::HeardY: if (!heard) continue; v = heard->position.y; break;
      case SenseSlot::HeardId: v = heard ? heard->id : 0; break;
      case SenseSlot::MemoryX: if (!recent) continue; v = recent->position.x; break;
      case SenseSlot::MemoryY: if (!recent) continue; v = recent->position.y; break;
      case SenseSlot::MemoryAge:
        if (!recent) continue;
        v = static_cast<double>(m.tick() - recent->last_tick) * worker.sim->options.dt;
        break;
      case SenseSlot::MemoryId: v = recent ? recent->id : 0; break;
      default: continue;
    }
    rt.set_number(agent.handle, k.bb, v);
  }
}

void apply_takes(Simulation::Impl& sim) {
  for (const perception::Take& t : sim.perception->takes()) {
    const PickupDecl& decl = sim.spec.pickups[t.pickup];
    sim.metric_totals[sim.pickups_metric] += 1;
    SimAgent* a = sim.agent(t.agent);
    if (!a || !a->alive) continue;
    Runtime& rt = *sim.workers[a->worker]->rt;
    for (const auto& [key, value] : decl.gives) {
      std::optional<Value> now = rt.get(a->handle, key);
      if (!now) continue;  // documented: a key the taker's brain lacks is skipped
      // A number adds to a number key (YAML's 25 arrives as an integer, 2.5 as a double).
      const double* add = std::get_if<double>(&value);
      const int64_t* add_int = std::get_if<int64_t>(&value);
      if (std::holds_alternative<double>(*now) && (add || add_int))
        rt.set(a->handle, key, std::get<double>(*now) + (add ? *add : static_cast<double>(*add_int)));
      else if (std::holds_alternative<int64_t>(*now) && add_int)
        rt.set(a->handle, key, std::get<int64_t>(*now) + *add_int);
      else
        rt.set(a->handle, key, value);
    }
  }
}

void record_percepts(Simulation::Impl& sim, std::ostream& out) {
  const perception::Manager& m = *sim.perception;
  bool first = true;
  for (const SimAgent& a : sim.agents) {
    if (!a.alive || !m.has_sensor(a.id)) continue;
    for (const perception::Percept& p : m.percepts(a.id)) {
      if (!is_event(p)) continue;
      out << (first ? ",\"percepts\":[" : ",") << '[' << a.id << ",\"" << perception::sense_name(p.sense) << "\",\""
          << (p.taken ? "take" : perception::phase_name(p.phase)) << "\",\"" << perception::kind_name(p.kind) << "\","
          << subject_json(sim, p) << ']';
      first = false;
    }
  }
  if (!first) out << ']';
  first = true;
  for (const perception::Take& t : m.takes()) {
    out << (first ? ",\"takes\":[" : ",") << "[\"" << m.pickups()[t.pickup].name << "\"," << t.agent << ']';
    first = false;
  }
  if (!first) out << ']';
}

void trace_percepts(Simulation::Impl& sim) {
  const perception::Manager& m = *sim.perception;
  std::ostream* trace = sim.options.trace;
  for (const SimAgent& a : sim.agents) {
    if (!a.alive || !m.has_sensor(a.id)) continue;
    for (const perception::Percept& p : m.percepts(a.id)) {
      if (!is_event(p)) continue;
      if (trace) {
        *trace << "{\"tick\":" << sim.tick << ",\"agent\":" << a.id << ",\"percept\":{\"sense\":\""
               << perception::sense_name(p.sense) << "\",\"phase\":\"" << perception::phase_name(p.phase) << "\",\"kind\":\""
               << perception::kind_name(p.kind) << "\",\"id\":" << subject_json(sim, p) << ",\"x\":" << fixed(p.position.x, 4)
               << ",\"y\":" << fixed(p.position.y, 4) << ",\"distance\":" << fixed(p.distance, 4)
               << ",\"strength\":" << fixed(p.strength, 4);
        if (p.sense == perception::Sense::Sight) *trace << ",\"cone\":" << int(p.cone) + 1;
        if (p.taken) *trace << ",\"taken\":true";
        *trace << "}}\n";
      }
      if (sim.options.explain) {
        std::ostringstream why;
        why << "tick " << sim.tick << ": " << agent_words(sim, a.id) << ' ' << verb(p) << ' ' << subject_words(sim, p);
        if (p.phase == perception::Phase::Exit) why << " (last at " << fixed(p.position.x, 1) << ", " << fixed(p.position.y, 1) << ")";
        else why << " at " << fixed(p.position.x, 1) << ", " << fixed(p.position.y, 1) << ", " << fixed(p.distance, 1) << " m";
        if (p.phase != perception::Phase::Exit && p.sense == perception::Sense::Sight) why << ", cone " << int(p.cone) + 1;
        if (p.phase != perception::Phase::Exit && p.sense == perception::Sense::Hearing)
          why << ", strength " << fixed(p.strength, 3);
        sim.log(why.str());
      }
    }
  }
  for (const perception::Take& t : m.takes()) {
    if (trace)
      *trace << "{\"tick\":" << sim.tick << ",\"agent\":" << t.agent << ",\"take\":{\"pickup\":\"" << m.pickups()[t.pickup].name
             << "\"}}\n";
    if (sim.options.explain)
      sim.log("tick " + std::to_string(sim.tick) + ": " + agent_words(sim, t.agent) + " takes pickup " + m.pickups()[t.pickup].name +
              " (back in " + fixed(m.pickups()[t.pickup].respawn, 1) + " s)");
  }
}

}  // namespace thicket
