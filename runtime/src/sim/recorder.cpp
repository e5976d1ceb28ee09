// The run's record: see recorder.hpp and docs/record-format.md. Lines are built in one reused
// string with std::to_chars (no locale, no stream state): at 10,000 agents a tick line is about
// a megabyte, written every tick.
#include "recorder.hpp"
#include "sim/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"
#include "thicket/nav_mesh.hpp"

namespace thicket {
namespace {

void put(std::string& out, std::string_view s) { out.append(s); }

void put_uint(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void put_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Other numbers (blackboard values, metrics, parameters): the shortest text that reads back
// as the same double.
void put_number(std::string& out, double v) {
  if (!std::isfinite(v)) return put(out, "null");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void put_string(std::string& out, std::string_view s) { append_json_string(out, s); }

void put_name_or_null(std::string& out, const std::string& s) {
  if (s.empty()) put(out, "null");
  else put_string(out, s);
}

void put_point(std::string& out, world::Vec2 p) {
  out.push_back('[');
  put_number(out, p.x);
  out.push_back(',');
  put_number(out, p.y);
  out.push_back(']');
}

// An obstacle or an area's shape, as the members of an object: "circle":[x,y,r], "box":[x0,y0,x1,y1]
// or "polygon":[[x,y],...].
void put_shape(std::string& out, const world::Obstacle& o) {
  switch (o.shape) {
    case world::ObstacleShape::Circle:
      put(out, "\"circle\":[");
      put_number(out, o.centre.x);
      out.push_back(',');
      put_number(out, o.centre.y);
      out.push_back(',');
      put_number(out, o.radius);
      out.push_back(']');
      break;
    case world::ObstacleShape::Box:
      put(out, "\"box\":[");
      put_number(out, o.centre.x - o.half_extents.x);
      out.push_back(',');
      put_number(out, o.centre.y - o.half_extents.y);
      out.push_back(',');
      put_number(out, o.centre.x + o.half_extents.x);
      out.push_back(',');
      put_number(out, o.centre.y + o.half_extents.y);
      out.push_back(']');
      break;
    default:
      put(out, "\"polygon\":[");
      for (size_t k = 0; k < o.vertices.size(); ++k) {
        if (k) out.push_back(',');
        put_point(out, o.vertices[k]);
      }
      out.push_back(']');
      break;
  }
}

void put_value(std::string& out, const Value& v) {
  if (const double* d = std::get_if<double>(&v)) put_number(out, *d);
  else if (const int64_t* i = std::get_if<int64_t>(&v)) put_int(out, *i);
  else if (const bool* b = std::get_if<bool>(&v)) put(out, *b ? "true" : "false");
  else if (const std::string* s = std::get_if<std::string>(&v)) put_string(out, *s);
  else put(out, "null");
}

void put_nodes(std::string& out, const std::vector<NodeInfo>& nodes) {
  out.push_back('[');
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& n = nodes[i];
    put(out, i ? ",{\"id\":" : "{\"id\":");
    put_string(out, n.id);
    put(out, ",\"kind\":");
    put_string(out, n.kind);
    put(out, ",\"label\":");
    put_string(out, n.label);
    put(out, ",\"parent\":");
    put_int(out, n.parent);
    if (!n.params.empty()) {
      put(out, ",\"params\":");
      put_string(out, n.params);
    }
    if (!n.links.empty()) {
      put(out, ",\"links\":[");
      for (size_t k = 0; k < n.links.size(); ++k) {
        put(out, k ? ",[" : "[");
        put_uint(out, n.links[k].first);
        out.push_back(',');
        put_string(out, n.links[k].second);
        out.push_back(']');
      }
      out.push_back(']');
    }
    out.push_back('}');
  }
  out.push_back(']');
}

// The start of an event: `,["name",tick`.
void begin_event(std::string& out, const char* name, uint64_t tick) {
  put(out, ",[\"");
  put(out, name);
  put(out, "\",");
  put_uint(out, tick);
}

}  // namespace

// Metres and radians: 3 decimals (a millimetre). Not finite: null (JSON has no NaN).
// Every agent entry has three of these, so the usual case goes through integers: thousandths
// rounded as to_chars rounds them (it takes 30 ns a number, this 8).
void put_fixed(std::string& out, double v) {
  if (!std::isfinite(v)) return put(out, "null");
  if (std::fabs(v) < 0.0005) v = 0;  // no "-0.000"
  char buf[64];
  const double m = std::nearbyint(v * 1000);
  // Near a tie the product's own rounding may decide it: to_chars, which reads v exactly.
  if (std::fabs(v) < 1e12 && std::fabs(std::fabs(v * 1000 - m) - 0.5) > 1e-6) {
    const uint64_t mag = static_cast<uint64_t>(std::fabs(m));
    char* p = buf;
    if (m < 0) *p++ = '-';
    p = std::to_chars(p, buf + sizeof buf, mag / 1000).ptr;
    const unsigned frac = static_cast<unsigned>(mag % 1000);
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    out.append(buf, p + 4);
    return;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  out.append(buf, r.ptr);
}

std::vector<std::string> Recorder::checked_keys(const ScenarioSpec& spec, const SimOptions& options, const SimWorker& worker,
                                                std::vector<Diagnostic>& diags) {
  const bool from_cli = !options.record_keys.empty();
  const std::vector<std::string>& keys = from_cli ? options.record_keys : spec.record.keys;
  std::vector<std::string> declared;  // every group's brain's keys, in group then file order
  const RuntimeImpl& rt = const_cast<Runtime&>(*worker.rt).impl();
  for (const BrainHandle& b : worker.brains)
    for (const BlackboardKey& k : rt.brains[b.index]->program->blackboard)
      if (std::find(declared.begin(), declared.end(), k.name) == declared.end()) declared.push_back(k.name);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (std::find(declared.begin(), declared.end(), keys[k]) != declared.end()) continue;
    Diagnostic d;
    d.file = spec.path;
    if (!from_cli && k < spec.record.key_places.size()) {
      d.line = spec.record.key_places[k].first;
      d.column = spec.record.key_places[k].second;
    }
    d.message = (from_cli ? options.record_keys_name + ": " : std::string()) + "key '" + keys[k] +
                "' is not declared by any group's brain, so it cannot be recorded" + did_you_mean(keys[k], declared) +
                (declared.empty() ? std::string(" (the brains declare no blackboard keys)")
                                  : " (keys: " + join_names(declared) + ")");
    diags.push_back(std::move(d));
  }
  return keys;
}

Recorder::Recorder(Simulation::Impl& sim, std::vector<std::string> keys) : sim_(sim), keys_(std::move(keys)) {
  every_ = sim.options.record_every ? sim.options.record_every : sim.spec.record.every;
  if (every_ == 0) every_ = 1;
  find_key_slots();
}

// Where each recorded key lies in each group's blackboard (-1: not declared: null), from the
// brains as they are now: at the start and after every reload (a new version may order its
// keys differently, or drop one).
void Recorder::find_key_slots() {
  const SimWorker& w = *sim_.workers[0];
  const RuntimeImpl& rt = w.rt->impl();
  key_slots_.assign(sim_.spec.groups.size(), {});
  for (size_t g = 0; g < sim_.spec.groups.size(); ++g) {
    const Program& p = *rt.brains[w.brains[g].index]->program;
    for (const std::string& key : keys_) {
      KeySlot ks;
      for (size_t k = 0; k < p.blackboard.size(); ++k)
        if (p.blackboard[k].name == key) {
          ks.slot = static_cast<int32_t>(k);
          ks.type = p.blackboard[k].type;
        }
      key_slots_[g].push_back(ks);
    }
  }
}

void Recorder::header() {
  const ScenarioSpec& spec = sim_.spec;
  std::string& out = line_;
  out.clear();
  put(out, "{\"format\":\"thicket-record\",\"version\":1,\"scenario\":");
  put_string(out, spec.name);
  put(out, ",\"file\":");
  put_string(out, spec.path);
  put(out, ",\"seed\":");
  put_uint(out, sim_.options.seed);
  put(out, ",\"dt\":");
  put_number(out, sim_.options.dt);
  put(out, ",\"ticks\":");  // null: until stopped (--watch or --serve with --ticks 0)
  if (sim_.options.ticks == kTicksUntilStopped) put(out, "null");
  else put_uint(out, sim_.options.ticks);
  put(out, ",\"every\":");
  put_uint(out, every_);
  // The world.
  put(out, ",\"world\":{\"bounds\":[");
  put_number(out, spec.bounds.min.x);
  out.push_back(',');
  put_number(out, spec.bounds.min.y);
  out.push_back(',');
  put_number(out, spec.bounds.max.x);
  out.push_back(',');
  put_number(out, spec.bounds.max.y);
  put(out, "],\"obstacles\":[");
  bool first = true;
  for (const world::Obstacle& o : sim_.world.obstacles()) {
    put(out, first ? "{" : ",{");
    put_shape(out, o);
    out.push_back('}');
    first = false;
  }
  put(out, "],\"map\":");
  if (const nav::GridMap* map = spec.nav.map.get()) {
    put(out, "{\"file\":");
    put_string(out, spec.nav.map_path);
    put(out, ",\"width\":");
    put_int(out, map->width());
    put(out, ",\"height\":");
    put_int(out, map->height());
    put(out, ",\"cell\":");
    put_number(out, map->cell_size);
    put(out, ",\"origin\":");
    put_point(out, map->origin);
    put(out, ",\"rows\":[");
    std::string row;
    for (int32_t y = 0; y < map->height(); ++y) {
      row.clear();
      for (int32_t x = 0; x < map->width(); ++x) row.push_back(map->symbol(nav::Cell{x, y}));
      if (y) out.push_back(',');
      put_string(out, row);
    }
    // What each symbol is here: its cost, or null for blocked. A scenario's `terrain:` makes
    // `T` passable at a cost, or `.` blocked: the page drew the Moving AI format's defaults,
    // walls where agents walked.
    put(out, "],\"symbols\":{");
    bool seen[256] = {};
    bool first_symbol = true;
    for (int32_t y = 0; y < map->height(); ++y)
      for (int32_t x = 0; x < map->width(); ++x) {
        const nav::Cell c{x, y};
        const auto symbol = static_cast<unsigned char>(map->symbol(c));
        if (seen[symbol]) continue;
        seen[symbol] = true;
        if (!first_symbol) out.push_back(',');
        first_symbol = false;
        put_string(out, std::string(1, static_cast<char>(symbol)));
        out.push_back(':');
        if (map->passable(c)) put_number(out, map->cost(c));
        else put(out, "null");
      }
    put(out, "}}");
  } else {
    put(out, "null");
  }
  put(out, ",\"waypoints\":");
  if (const nav::WaypointGraph* g = sim_.nav.waypoints.get()) {
    put(out, "{\"points\":[");
    auto points = g->points();
    for (size_t k = 0; k < points.size(); ++k) {
      if (k) out.push_back(',');
      put_point(out, points[k]);
    }
    put(out, "],\"edges\":[");
    first = true;
    for (uint32_t a = 0; a < points.size(); ++a)
      for (const auto& e : g->edges_of(a)) {
        if (e.to <= a) continue;  // edges go both ways: each once
        put(out, first ? "[" : ",[");
        put_uint(out, a);
        out.push_back(',');
        put_uint(out, e.to);
        out.push_back(']');
        first = false;
      }
    put(out, "]}");
  } else {
    put(out, "null");
  }
  put(out, ",\"navmesh\":");
  if (const nav::NavMesh* mesh = sim_.nav.navmesh.get()) {
    put(out, "{\"polygons\":[");
    for (size_t i = 0; i < mesh->outline_count(); ++i) {
      put(out, i ? ",[" : "[");
      auto poly = mesh->outline(i);
      for (size_t k = 0; k < poly.size(); ++k) {
        if (k) out.push_back(',');
        put_point(out, poly[k]);
      }
      out.push_back(']');
    }
    put(out, "]}");
  } else {
    put(out, "null");
  }
  put(out, ",\"areas\":[");
  for (size_t k = 0; k < spec.areas.size(); ++k) {
    put(out, k ? ",{\"name\":" : "{\"name\":");
    put_string(out, spec.areas[k].name);
    out.push_back(',');
    put_shape(out, spec.areas[k].shape);
    out.push_back('}');
  }
  put(out, "],\"pickups\":[");
  for (size_t k = 0; k < spec.pickups.size(); ++k) {
    const perception::PickupSpec& p = spec.pickups[k].spec;
    put(out, k ? ",{\"name\":" : "{\"name\":");
    put_string(out, p.name);
    put(out, ",\"kind\":");
    put_string(out, p.kind);
    put(out, ",\"x\":");
    put_number(out, p.position.x);
    put(out, ",\"y\":");
    put_number(out, p.position.y);
    put(out, ",\"radius\":");
    put_number(out, p.radius);
    // Ticks a taken pickup stays away (its respawn in ticks, at least 1): the page showed a
    // pickup taken once as taken for the rest of the run.
    put(out, ",\"respawn_ticks\":");
    put_int(out, static_cast<int64_t>(sim_.perception->ticks_for(p.respawn)));
    out.push_back('}');
  }
  put(out, "]},\"teams\":[");
  for (size_t k = 0; k < spec.teams.size(); ++k) {
    if (k) out.push_back(',');
    put_string(out, spec.teams[k]);
  }
  put(out, "],\"brains\":");
  std::vector<uint32_t> brain_of_group;
  brains_.clear();
  put_brains(brains_, brain_of_group);
  out.append(brains_);
  put(out, ",\"groups\":[");
  uint32_t first_id = 1;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const AgentGroup& group = spec.groups[g];
    put(out, g ? ",{\"name\":" : "{\"name\":");
    put_string(out, group.name);
    put(out, ",\"team\":");
    put_int(out, std::find(spec.teams.begin(), spec.teams.end(), group.team) - spec.teams.begin());
    put(out, ",\"brain\":");
    put_uint(out, brain_of_group[g]);
    put(out, ",\"count\":");
    put_uint(out, group.count);
    put(out, ",\"first\":");
    put_uint(out, first_id);
    put(out, ",\"radius\":");
    put_number(out, group.vehicle.radius);
    out.push_back('}');
    first_id += group.count;
  }
  put(out, "],\"keys\":[");
  for (size_t k = 0; k < keys_.size(); ++k) {
    if (k) out.push_back(',');
    put_string(out, keys_[k]);
  }
  put(out, "],\"metrics\":[");
  for (size_t k = 0; k < sim_.metric_names.size(); ++k) {
    if (k) out.push_back(',');
    put_string(out, sim_.metric_names[k]);
  }
  put(out, "]}");
  sim_.options.record->write(RecordSink::Kind::Header, out);
}

// Each distinct brain file once, as a JSON array; groups point at it (brain_of_group).
void Recorder::put_brains(std::string& out, std::vector<uint32_t>& brain_of_group) const {
  const ScenarioSpec& spec = sim_.spec;
  const SimWorker& w = *sim_.workers[0];
  std::vector<std::string> files;
  out.push_back('[');
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    auto it = std::find(files.begin(), files.end(), spec.groups[g].brain);
    brain_of_group.push_back(static_cast<uint32_t>(it - files.begin()));
    if (it != files.end()) continue;
    files.push_back(spec.groups[g].brain);
    const BrainHandle b = w.brains[g];
    put(out, files.size() > 1 ? ",{\"file\":" : "{\"file\":");
    put_string(out, spec.groups[g].brain);
    put(out, ",\"name\":");
    put_string(out, w.rt->impl().brains[b.index]->program->name);
    put(out, ",\"type\":");
    put_string(out, w.rt->brain_type(b));
    put(out, ",\"nodes\":");
    put_nodes(out, w.rt->nodes(b));
    out.push_back('}');
  }
  out.push_back(']');
}

void Recorder::reloads(const std::vector<ReloadReport>& reports) {
  const uint64_t tick = sim_.tick + 1;  // the first tick that runs what was reloaded
  find_key_slots();
  for (const ReloadReport& r : reports) {
    begin_event(events_, r.ok ? "reload" : "reload_failed", tick);
    events_.push_back(',');
    put_string(events_, r.file);
    if (!r.ok) {
      events_.push_back(',');
      put_string(events_, r.first_error);
    }
    events_.push_back(']');
  }
  // A brains line only when some brain's node table changed (a leaf file's reload changes none).
  std::string brains;
  std::vector<uint32_t> brain_of_group;
  put_brains(brains, brain_of_group);
  if (brains == brains_) return;
  brains_ = std::move(brains);
  line_.clear();
  put(line_, "{\"brains_at\":");
  put_uint(line_, tick);
  put(line_, ",\"brains\":");
  line_.append(brains_);
  line_.push_back('}');
  sim_.options.record->write(RecordSink::Kind::Brains, line_);
}

void Recorder::brain_event(const TraceEvent& e) {
  std::string& out = brain_events_;
  switch (e.type) {
    case TraceEvent::Type::Abort:
      begin_event(out, "abort", sim_.tick);
      out.push_back(',');
      put_uint(out, e.agent);
      out.push_back(',');
      put_string(out, e.composite);
      out.push_back(',');
      put_string(out, e.condition);
      out.push_back(',');
      put_string(out, e.aborted);
      out.push_back(',');
      put_string(out, status_name(e.from));
      out.push_back(',');
      put_string(out, status_name(e.to));
      out.push_back(']');
      break;
    case TraceEvent::Type::Transition:  // an fsm changed state
    case TraceEvent::Type::Switch: {    // a behavior machine changed behavior
      const bool transition = e.type == TraceEvent::Type::Transition;
      // An fsm's end (its top-level final state left) is not in the record (docs/record-format.md):
      // the transition into that state is, and the root's status of the tick.
      if (e.ended) break;
      begin_event(out, transition ? "transition" : "switch", sim_.tick);
      out.push_back(',');
      put_uint(out, e.agent);
      out.push_back(',');
      put_string(out, e.brain);
      out.push_back(',');
      put_name_or_null(out, e.from_name);
      out.push_back(',');
      put_string(out, e.to_name);
      if (transition) {  // and the transition's name, or what caused it
        out.push_back(',');
        put_name_or_null(out, e.transition.empty() ? e.cause : e.transition);
      }
      out.push_back(']');
      break;
    }
    case TraceEvent::Type::Tick: break;
    // Events an HSM takes or drops are not in the record (docs/record-format.md): what they
    // caused is, as the transitions.
    case TraceEvent::Type::Event: break;
  }
}

void Recorder::damage(uint32_t source, uint32_t target, double amount) {
  begin_event(effect_events_, "damage", sim_.tick);
  effect_events_.push_back(',');
  put_uint(effect_events_, source);
  effect_events_.push_back(',');
  put_uint(effect_events_, target);
  effect_events_.push_back(',');
  put_number(effect_events_, amount);
  effect_events_.push_back(']');
}

void Recorder::signal(uint32_t source, uint32_t target, const std::string& key) {
  begin_event(effect_events_, "signal", sim_.tick);
  effect_events_.push_back(',');
  put_uint(effect_events_, source);
  effect_events_.push_back(',');
  put_uint(effect_events_, target);
  effect_events_.push_back(',');
  put_string(effect_events_, key);
  effect_events_.push_back(']');
}

void Recorder::agent_entry(std::string& out, uint32_t id, bool alive) {
  const SimAgent& a = sim_.agents[id - 1];
  const world::Entity* e = sim_.world.entity(a.entity);
  Runtime& rt = *sim_.workers[a.worker]->rt;
  out.push_back('[');
  put_uint(out, id);
  out.push_back(',');
  put_fixed(out, e ? e->position.x : 0.0);
  out.push_back(',');
  put_fixed(out, e ? e->position.y : 0.0);
  out.push_back(',');
  put_fixed(out, e ? std::atan2(e->heading.y, e->heading.x) : 0.0);
  out.push_back(',');
  put_uint(out, a.group);
  put(out, alive ? ",1,\"" : ",0,\"");
  put(out, status_name(rt.status(a.handle)));
  put(out, "\",\"");
  rt.node_statuses(a.handle, out);
  put(out, "\",[");
  const std::vector<KeySlot>& slots = key_slots_[a.group];
  RuntimeImpl& impl = rt.impl();
  const AgentInfo* info = impl.agent_ptr(a.handle);
  for (size_t k = 0; k < slots.size(); ++k) {
    if (k) out.push_back(',');
    if (slots[k].slot < 0 || !info) {
      put(out, "null");
      continue;
    }
    const Slot& v = impl.slots_of(*info)[slots[k].slot];
    switch (slots[k].type) {
      case ValueType::Number: put_number(out, v.num); break;
      case ValueType::Integer: put_int(out, v.i); break;
      case ValueType::Boolean: put(out, v.i ? "true" : "false"); break;
      case ValueType::String: put_string(out, impl.strings.get(v.str)); break;
      case ValueType::Any: {  // held by the script host: through the slow path
        std::optional<Value> any = rt.get(a.handle, keys_[k]);
        put_value(out, any ? *any : Value{});
        break;
      }
    }
  }
  put(out, "]]");
}

void Recorder::deaths(std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  for (uint32_t id : ids) {
    std::string entry;
    agent_entry(entry, id, /*alive=*/false);
    dead_.emplace_back(id, std::move(entry));
    begin_event(effect_events_, "death", sim_.tick);
    effect_events_.push_back(',');
    put_uint(effect_events_, id);
    effect_events_.push_back(']');
  }
}

void Recorder::end_tick() {
  // In the order things happened: percepts and takes (sensed before the brains ticked), the
  // brains' events, then effects and deaths.
  const perception::Manager& m = *sim_.perception;
  for (const SimAgent& a : sim_.agents) {
    if (!m.has_sensor(a.id)) continue;  // also an agent that died this tick: what it perceived
    for (const perception::Percept& p : m.percepts(a.id)) {
      if (p.phase == perception::Phase::Stay) continue;
      begin_event(events_, "percept", sim_.tick);
      events_.push_back(',');
      put_uint(events_, a.id);
      put(events_, ",\"");
      put(events_, perception::sense_name(p.sense));
      put(events_, "\",\"");
      put(events_, perception::phase_name(p.phase));
      put(events_, "\",\"");
      put(events_, perception::kind_name(p.kind));
      put(events_, "\",");
      if (p.kind == perception::Kind::Area) put_string(events_, m.areas()[p.id - 1].name);
      else if (p.kind == perception::Kind::Pickup) put_string(events_, m.pickups()[p.id - 1].name);
      else put_uint(events_, p.id);
      events_.push_back(']');
    }
  }
  for (const perception::Take& t : m.takes()) {
    begin_event(events_, "take", sim_.tick);
    events_.push_back(',');
    put_string(events_, m.pickups()[t.pickup].name);
    events_.push_back(',');
    put_uint(events_, t.agent);
    events_.push_back(']');
  }
  events_.append(brain_events_);
  events_.append(effect_events_);
  brain_events_.clear();
  effect_events_.clear();
  if (sim_.tick % every_ == 0 || sim_.tick == sim_.options.ticks) flush_tick();
}

// A line written off the --record-every beat (the run's last tick, or a stop) takes events a
// run going on from this tick (a checkpoint's resume) would write in its next line: kept.
void Recorder::keep_off_beat() {
  if (sim_.tick % every_ == 0) return;
  off_beat_tick_ = sim_.tick;
  off_beat_events_ = events_;
  off_beat_dead_ = dead_;
}

void Recorder::flush_tick() {
  keep_off_beat();
  std::string& out = line_;
  out.clear();
  put(out, "{\"tick\":");
  put_uint(out, sim_.tick);
  put(out, ",\"agents\":[");
  // The living in id order, with the dead since the last line (listed once) in their places.
  std::sort(dead_.begin(), dead_.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  size_t d = 0;
  bool first = true;
  for (const SimAgent& a : sim_.agents) {
    for (; d < dead_.size() && dead_[d].first <= a.id; ++d) {
      if (!first) out.push_back(',');
      out.append(dead_[d].second);
      first = false;
    }
    if (!a.alive) continue;
    if (!first) out.push_back(',');
    agent_entry(out, a.id, true);
    first = false;
  }
  for (; d < dead_.size(); ++d) {
    if (!first) out.push_back(',');
    out.append(dead_[d].second);
    first = false;
  }
  dead_.clear();
  put(out, "],\"events\":[");
  if (!events_.empty()) out.append(events_, 1);  // each event starts with a comma
  events_.clear();
  put(out, "],\"metrics\":[");
  for (size_t k = 0; k < sim_.metric_totals.size(); ++k) {
    if (k) out.push_back(',');
    put_number(out, sim_.metric_totals[k]);
  }
  put(out, "]}");
  sim_.options.record->write(RecordSink::Kind::Tick, out);
  last_written_ = sim_.tick;
}

void Recorder::finish(const RunResult& result) {
  // A run stopped early (Ctrl-C) still writes what it gathered since the last line.
  if (last_written_ != sim_.tick && sim_.tick > 0) flush_tick();
  std::string& out = line_;
  out.clear();
  put(out, "{\"end\":true,\"ticks\":");
  put_uint(out, result.ticks);
  put(out, ",\"gauges\":[");
  bool first = true;
  for (size_t k = 0; k < sim_.metric_names.size(); ++k) {
    if (!sim_.metric_is_gauge[k]) continue;
    if (!first) out.push_back(',');
    put_string(out, sim_.metric_names[k]);
    first = false;
  }
  put(out, "],\"script_errors\":");
  put_uint(out, result.script_errors);
  out.push_back('}');
  sim_.options.record->write(RecordSink::Kind::End, out);
}

}  // namespace thicket
