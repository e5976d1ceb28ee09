// Perception in a scenario run (issue 13): the run's perception::Manager, the groups' sensors,
// the world's areas and pickups, the blackboard keys percepts are written into, what pickups
// give, and percept events in the record, the trace and --explain.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"

namespace thicket {
namespace {

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

// What a `gives:` value can go into: a number into a number key (added) or an integer key (a
// whole number, added); true/false into a boolean key; text into a text key; anything into an
// `any` key (replaced).
bool gift_fits(const Value& v, ValueType key) {
  if (key == ValueType::Any) return true;
  if (const double* d = std::get_if<double>(&v))
    return key == ValueType::Number || (key == ValueType::Integer && std::floor(*d) == *d && std::abs(*d) < 9.0e15);
  if (std::holds_alternative<int64_t>(v)) return key == ValueType::Number || key == ValueType::Integer;
  if (std::holds_alternative<bool>(v)) return key == ValueType::Boolean;
  if (std::holds_alternative<std::string>(v)) return key == ValueType::String;
  return false;
}

const char* gift_words(const Value& v) {
  if (std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v)) return "a number";
  if (std::holds_alternative<bool>(v)) return "true/false";
  if (std::holds_alternative<std::string>(v)) return "text";
  return "nothing";
}

// Each key a pickup gives must be declared, with a fitting type, by the brain of every group
// that may take it and declares it, and by at least one of them (else it is a typo).
void check_gifts(const Simulation::Impl& sim, std::vector<Diagnostic>& diags) {
  const ScenarioSpec& spec = sim.spec;
  const SimWorker& worker = *sim.workers[0];
  for (const PickupDecl& p : spec.pickups)
    for (size_t k = 0; k < p.gives.size(); ++k) {
      const auto& [key, value] = p.gives[k];
      // Said at the given key's place (at the pickup's when unknown).
      const auto [line, column] = k < p.gives_at.size() ? p.gives_at[k] : std::pair<int, int>{p.line, p.column};
      bool declared_somewhere = false;
      std::vector<std::string> known;
      for (uint32_t g = 0; g < spec.groups.size(); ++g) {
        const int32_t team = static_cast<int32_t>(
            std::find(spec.teams.begin(), spec.teams.end(), spec.groups[g].team) - spec.teams.begin());
        if (!p.spec.teams.empty() && std::find(p.spec.teams.begin(), p.spec.teams.end(), team) == p.spec.teams.end()) continue;
        const Program& program = *worker.rt->impl().brains[worker.brains[g].index]->program;
        const BlackboardKey* found = nullptr;
        for (const BlackboardKey& k : program.blackboard) {
          known.push_back(k.name);
          if (k.name == key) found = &k;
        }
        if (!found) continue;
        declared_somewhere = true;
        if (!gift_fits(value, found->type))
          diags.push_back({Severity::Error, spec.path, line, column,
                           "pickup '" + p.spec.name + "' gives '" + key + "' " + gift_words(value) + ", but the brain " +
                               spec.groups[g].brain + " of group '" + spec.groups[g].name + "' declares it as " +
                               std::string(value_type_name(found->type))});
      }
      if (!declared_somewhere)
        diags.push_back({Severity::Error, spec.path, line, column,
                         "pickup '" + p.spec.name + "' gives '" + key +
                             "', which no brain of a group that may take it declares" + did_you_mean(key, known)});
    }
}

}  // namespace

namespace {

// A group's `events:` against its brain: only an fsm takes events, and a name given there
// that no state's transition takes is dropped every time it is sent (a typo, most often).
void check_sense_events(const ScenarioSpec& spec, const AgentGroup& group, const Program& program,
                        std::vector<Diagnostic>& diags) {
  if (group.sense_events_at.first == 0) return;
  const std::string which = "senses of group '" + group.name + "': ";
  if (program.nodes.empty() || program.nodes[0].kind != NodeKind::Fsm) {
    diags.push_back({Severity::Error, spec.path, group.sense_events_at.first, group.sense_events_at.second,
                     which + "'events' names the perception events its brain " + group.brain +
                         " is sent, but that brain is not an fsm, and only fsm brains take events"});
    return;
  }
  std::vector<std::string> taken;  // the transitions' names, in file order
  for (const FsmState& st : program.fsm_states)
    for (const FsmTransition& t : st.transitions)
      if (std::find(taken.begin(), taken.end(), t.name) == taken.end()) taken.push_back(t.name);
  for (size_t k = 0; k < group.sense_events.size(); ++k) {
    const std::string& name = group.sense_events[k];
    const auto [line, column] = group.sense_event_at[k];
    if (line == 0 || name.empty() || std::find(taken.begin(), taken.end(), name) != taken.end()) continue;
    diags.push_back({Severity::Error, spec.path, line, column,
                     which + "perception event '" + kPerceptEventNames[k] + "' is sent as '" + name +
                         "', which no state of its brain " + group.brain + " takes" + did_you_mean(name, taken) +
                         (taken.empty() ? " (it has no transitions)" : " (its transitions: " + join_names(taken) + ")") +
                         "; switch it off with false if it is not wanted"});
  }
}

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
  // Bindings: each key declared by the group's brain with the slot's type (a number slot may
  // go into an integer key: it is rounded). The type is the brain's declaration, the same on
  // every worker.
  const size_t before = diags.size();
  for (auto& worker : sim.workers) {
    worker->sense_keys.assign(spec.groups.size(), {});
    worker->sense_events.assign(spec.groups.size(), false);
    for (uint32_t g = 0; g < spec.groups.size(); ++g) {
      const AgentGroup& group = spec.groups[g];
      const Program& program = *worker->rt->impl().brains[worker->brains[g].index]->program;
      worker->sense_events[g] = group.has_senses && program.nodes[0].kind == NodeKind::Fsm;
      if (worker->index == 0) check_sense_events(spec, group, program, diags);
      for (const SenseBinding& b : group.sense_keys) {
        const bool boolean = slot_is_boolean(b.slot);
        const char* slot_name = kSenseSlotNames[static_cast<int>(b.slot)];
        std::optional<uint32_t> bb = worker->rt->blackboard_slot(worker->brains[g], b.key);
        const ValueType type = bb ? program.blackboard[*bb].type : ValueType::Any;
        const bool good = bb && (boolean ? type == ValueType::Boolean : type == ValueType::Number || type == ValueType::Integer);
        if (good) {
          worker->sense_keys[g].push_back({b.slot, *bb, type});
        } else if (worker->index == 0) {
          std::string want = boolean ? "a boolean" : "a number";
          // A close name of a key that could take it (seenx: seen_x, the number, not seen, a boolean).
          std::vector<std::string> declared;
          for (const BlackboardKey& k : program.blackboard)
            if (boolean ? k.type == ValueType::Boolean : k.type == ValueType::Number || k.type == ValueType::Integer)
              declared.push_back(k.name);
          diags.push_back({Severity::Error, spec.path, b.line, b.column,
                           "senses of group '" + group.name + "': '" + slot_name + "' is written into blackboard key '" + b.key +
                               "', which its brain " + group.brain +
                               (bb ? " declares as " + std::string(value_type_name(type)) + " (it must be " + want +
                                         (boolean ? "" : " or an integer") + ")"
                                   : " does not declare (declare it as " + want + ")" + did_you_mean(b.key, declared))});
        }
      }
    }
  }
  check_gifts(sim, diags);
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
  const bool events = worker.sense_events[agent.group];
  if (keys.empty() && !events) return;
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
  if (events) {  // SPEC 4.1: a sense gained or lost is an event, handled in this tick's event phase
    const uint8_t now = (seen ? kSensedSight : 0) | (heard ? kSensedHearing : 0) | (touched ? kSensedTouch : 0) |
                        (recent ? kSensedMemory : 0);
    const auto& names = worker.sim->spec.groups[agent.group].sense_events;
    for (int k = 0; k < 4; ++k) {
      const uint8_t bit = static_cast<uint8_t>(1u << k);
      if ((now & bit) == (agent.sensed & bit)) continue;
      const std::string& name = names[2 * k + ((now & bit) ? 0 : 1)];
      if (!name.empty()) rt.send(agent.handle, name);
    }
    agent.sensed = now;
  }
  for (const auto& k : keys) {
    if (k.type == ValueType::Boolean) {
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
    if (k.type == ValueType::Integer) rt.set_integer(agent.handle, k.bb, std::llround(v));
    else rt.set_number(agent.handle, k.bb, v);
  }
}

void apply_takes(Simulation::Impl& sim) {
  for (const perception::Take& t : sim.perception->takes()) {
    const PickupDecl& decl = sim.spec.pickups[t.pickup];
    sim.metric_totals[sim.pickups_metric] += 1;
    SimAgent* a = sim.agent(t.agent);
    if (!a || !a->alive) continue;
    SimWorker& worker = *sim.workers[a->worker];
    Runtime& rt = *worker.rt;
    const Program& program = *rt.impl().brains[worker.brains[a->group].index]->program;
    for (const auto& [key, value] : decl.gives) {
      std::optional<uint32_t> slot = rt.blackboard_slot(worker.brains[a->group], key);
      if (!slot) continue;  // documented: a key the taker's brain lacks is skipped
      const ValueType type = program.blackboard[*slot].type;
      // Numbers add up (YAML's 25 arrives as an integer, 2.5 as a double); the rest replaces.
      const double* add = std::get_if<double>(&value);
      const int64_t* add_int = std::get_if<int64_t>(&value);
      bool done = false;
      if (type == ValueType::Number && (add || add_int))
        done = rt.set_number(a->handle, *slot, rt.get_number(a->handle, *slot) + (add ? *add : static_cast<double>(*add_int)));
      else if (type == ValueType::Integer && (add || add_int))  // wraps around, as Lua's integer + does
        done = rt.set(a->handle, key,
                      static_cast<int64_t>(static_cast<uint64_t>(std::get<int64_t>(*rt.get(a->handle, key))) +
                                           static_cast<uint64_t>(add ? std::llround(*add) : *add_int)));
      else
        done = rt.set(a->handle, key, value);
      if (!done)  // the load check makes this unreachable; say so rather than lose it quietly
        sim.log("error: pickup '" + decl.spec.name + "' could not give '" + key + "' to agent " + std::to_string(t.agent));
    }
  }
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
      // (A pickup taken again by an agent still on it is a stay: its "takes" line below says
      // it; "touches" here said it came into touch, which it had not.)
      if (sim.options.explain && p.phase != perception::Phase::Stay) {
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
              " (back in " + fixed(static_cast<double>(m.pickup_states()[t.pickup].back_tick - sim.tick) * sim.options.dt, 1) +
              " s)");
  }
}

}  // namespace thicket
