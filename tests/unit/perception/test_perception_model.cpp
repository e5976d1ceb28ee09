// Perception against an independent reference model (issue 13): the rules of guide section 13
// and perception.hpp written out plainly (all pairs, no grids), driven beside the real Manager on
// many small random worlds and compared field by field, tick by tick. The model was written from
// the text alone; where the text leaves a point open, the reading chosen is said where it is used.
// Readings the engine confirmed: every distance / strength test is inclusive; Targets::All
// excludes the agent itself; LOD's "target within D" is a body of an accepted team by centre
// distance, in a cone or not, and a sighting standing between checks still refreshes the memory
// (position as then) but goes once its body is gone; touch reach counts for areas and pickups
// (taking does not use it); an exit repeats the last percept with taken = false; Percept::cone
// is 0-based (Lua and the trace add 1); memory() has no documented order (compared by kind, id).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "nav_fixture.hpp"
#include "thicket/nav.hpp"
#include "thicket/perception.hpp"
#include "thicket/world.hpp"

using namespace thicket;
using namespace thicket::perception;
using world::Vec2;

namespace {

constexpr double kTol = 1e-9;

// Decisions closer than this to their boundary are "fragile": the engine may round them either
// way (SpatialHash documents this for cone edges), so a world stops being compared from the tick
// one occurs (counted, and rare with continuous random positions).
constexpr double kFragile = 1e-9;

// ---------------------------------------------------------------------------------------------
// The model

struct ModelSound {
  Vec2 position;
  double loudness = 0;
  std::uint32_t source = 0;
  std::uint64_t last_tick = 0;
  std::uint32_t serial = 0;
  bool has_team = false;
  std::int32_t team = 0;
};

struct QueuedModelSound {
  Vec2 position;
  double loudness = 0;
  double seconds = 0;
  std::uint32_t source = 0;
  std::uint32_t order = 0;  // emission order over all queues (one source uses one queue)
};

struct ModelSensor {
  const Senses* senses = nullptr;
  std::vector<Percept> current;           // the last sense() call's percepts, exits excluded
  std::vector<Percept> percepts;          // the last sense() call's whole list
  std::vector<MemoryEntry> memory;
  bool checked_once = false;              // LOD: a cone check has happened
  std::vector<Percept> last_check;        // LOD: that check's sightings
};

struct Model {
  Model(const world::World& w, const std::vector<std::uint32_t>& slots, const nav::Walls* wl, double step)
      : world(w), agent_of_slot(slots), walls(wl), dt(step) {}
  const world::World& world;
  const std::vector<std::uint32_t>& agent_of_slot;
  const nav::Walls* walls;
  double dt;
  std::uint64_t tick = 0;
  bool fragile = false;
  std::uint64_t lod_stood = 0, damped = 0, bodiless = 0;  // how often those rules applied
  std::map<std::uint32_t, ModelSensor> sensors;
  std::vector<Area> areas;
  std::vector<PickupSpec> pickups;
  std::vector<PickupState> states;
  std::vector<std::uint8_t> touchable;
  std::vector<Take> takes;
  std::vector<ModelSound> sounds;
  std::vector<QueuedModelSound> queued;
  std::uint32_t next_serial = 1;
  std::uint32_t next_order = 0;

  std::uint64_t ticks_for(double seconds) const {
    return std::max<std::uint64_t>(1, std::uint64_t(std::llround(seconds / dt)));
  }
  void near_edge(double margin) {
    if (std::abs(margin) < kFragile) fragile = true;
  }
  // The live body of an agent, or null.
  const world::Entity* body(std::uint32_t agent) const {
    for (const world::Entity& e : world.entities())
      if (e.alive && e.id.index() < agent_of_slot.size() && agent_of_slot[e.id.index()] == agent) return &e;
    return nullptr;
  }
  std::uint32_t agent_of(const world::Entity& e) const {
    return e.id.index() < agent_of_slot.size() ? agent_of_slot[e.id.index()] : 0;
  }
  // Targets: enemies are other teams; friends the own team but not itself; all: all but itself.
  static bool accepts(Targets t, std::int32_t my_team, std::int32_t team) {
    if (t == Targets::Enemies) return team != my_team;
    if (t == Targets::Friends) return team == my_team;
    return true;
  }

  void emit(Vec2 p, double loudness, double seconds, std::uint32_t source) {
    queued.push_back({p, loudness, seconds, source, next_order++});
  }

  void begin(std::uint64_t t) {
    tick = t;
    std::erase_if(sounds, [&](const ModelSound& s) { return s.last_tick < t; });
    // Sounds merged by (source, emission order); anonymous ones (source 0, first) by content.
    std::stable_sort(queued.begin(), queued.end(), [](const QueuedModelSound& a, const QueuedModelSound& b) {
      if (a.source != b.source) return a.source < b.source;
      if (a.source == 0)
        return std::tie(a.position.x, a.position.y, a.loudness, a.seconds) <
               std::tie(b.position.x, b.position.y, b.loudness, b.seconds);
      return a.order < b.order;
    });
    for (const QueuedModelSound& q : queued) {
      ModelSound s;
      s.position = q.position;
      s.loudness = q.loudness;
      s.source = q.source;
      s.last_tick = t + ticks_for(q.seconds) - 1;
      s.serial = next_serial++;
      if (q.source != 0)
        if (const world::Entity* b = body(q.source)) {
          s.has_team = true;
          s.team = b->team;
        }
      sounds.push_back(s);
    }
    queued.clear();
    // Pickups: back on the exact tick, then each active one goes to the lowest overlapping agent
    // id of an allowed team (any agent, sensor or not).
    takes.clear();
    touchable.assign(pickups.size(), 0);
    for (std::size_t i = 0; i < pickups.size(); ++i) {
      PickupState& st = states[i];
      if (!st.active && st.back_tick <= t) st.active = true;
      touchable[i] = st.active;
      if (!st.active) continue;
      std::uint32_t best = 0;
      for (const world::Entity& e : world.entities()) {
        std::uint32_t a = e.alive ? agent_of(e) : 0;
        if (a == 0) continue;
        const auto& teams = pickups[i].teams;
        if (!teams.empty() && std::find(teams.begin(), teams.end(), e.team) == teams.end()) continue;
        double margin = world::distance(e.position, pickups[i].position) - (e.radius() + pickups[i].radius);
        near_edge(margin);
        if (margin <= 0 && (best == 0 || a < best)) best = a;
      }
      if (best != 0) {
        st.active = false;
        st.back_tick = t + ticks_for(pickups[i].respawn);
        st.taken_by = best;
        takes.push_back({std::uint32_t(i), best});
      }
    }
  }

  std::vector<Percept> sight(std::uint32_t agent, ModelSensor& s, const world::Entity& self) {
    const SightSpec& spec = s.senses->sight;
    std::vector<Percept> out;
    if (spec.cones.empty()) return out;
    // LOD: a check every tick while some target body (by the targets filter, centre distance, in
    // a cone or not) is within lod_distance; otherwise only on ticks (tick + id) % every == 0.
    bool check = true;
    if (spec.lod_distance > 0 && spec.lod_every > 1) {
      bool near = false;
      for (const world::Entity& e : world.entities()) {
        std::uint32_t a = e.alive ? agent_of(e) : 0;
        if (a == 0 || a == agent || !accepts(s.senses->targets, self.team, e.team)) continue;
        double margin = world::distance(self.position, e.position) - spec.lod_distance;
        near_edge(margin);
        if (margin <= 0) near = true;
      }
      check = near || (tick + agent) % spec.lod_every == 0;
    }
    if (!check) {
      // Between checks the last check's sightings stand, except those whose body is gone (the
      // text does not say; the engine drops them with an exit, which is the sensible reading).
      if (s.checked_once)
        for (const Percept& p : s.last_check)
          if (body(p.id)) out.push_back(p);
      lod_stood += out.size();
      return out;
    }
    for (const world::Entity& e : world.entities()) {
      std::uint32_t a = e.alive ? agent_of(e) : 0;
      if (a == 0 || a == agent || !accepts(s.senses->targets, self.team, e.team)) continue;
      Vec2 v = e.position - self.position;
      double d = v.length();
      double angle = std::atan2(std::abs(self.heading.x * v.y - self.heading.y * v.x), self.heading.dot(v));
      int first = -1;
      double best = -1;
      for (std::size_t c = 0; c < spec.cones.size(); ++c) {
        const SightCone& cone = spec.cones[c];
        near_edge(d - cone.range);
        bool in = d <= cone.range;
        if (in && cone.half_angle < std::numbers::pi && d > 0) {
          near_edge(angle - cone.half_angle);
          in = angle <= cone.half_angle;
        }
        if (!in) continue;
        if (first < 0) first = int(c);
        best = std::max(best, 1 - d / cone.range);
      }
      if (first < 0) continue;
      if (spec.walls && walls && !walls->clear(self.position, e.position)) continue;
      Percept p;
      p.sense = Sense::Sight;
      p.kind = Kind::Agent;
      p.cone = std::uint8_t(first);  // 0-based in C++ (Lua and the trace add 1)
      p.id = a;
      p.position = e.position;
      p.distance = d;
      p.strength = best;
      out.push_back(p);
    }
    std::sort(out.begin(), out.end(), [](const Percept& x, const Percept& y) { return x.id < y.id; });
    s.checked_once = true;
    s.last_check = out;
    return out;
  }

  std::vector<Percept> hearing(std::uint32_t agent, const ModelSensor& s, const world::Entity& self) {
    const HearingSpec& spec = s.senses->hearing;
    std::vector<Percept> out;
    if (!spec.enabled) return out;
    for (const ModelSound& snd : sounds) {
      if (snd.source == agent) continue;  // its own sounds
      if (snd.has_team && !accepts(s.senses->targets, self.team, snd.team)) continue;
      double d = world::distance(snd.position, self.position);
      double strength = snd.loudness / (std::max(1.0, d) * std::max(1.0, d));
      if (walls && !walls->clear(snd.position, self.position)) {
        strength *= spec.walls;
        ++damped;
      }
      near_edge((strength - spec.threshold) / spec.threshold);
      if (strength < spec.threshold) continue;
      Percept p;
      p.sense = Sense::Hearing;
      p.kind = Kind::Sound;
      p.id = snd.source;
      p.sound = snd.serial;
      p.position = snd.position;
      p.distance = d;
      p.strength = strength;
      out.push_back(p);
    }
    std::sort(out.begin(), out.end(),
              [](const Percept& x, const Percept& y) { return std::tie(x.id, x.sound) < std::tie(y.id, y.sound); });
    return out;
  }

  std::vector<Percept> touch(std::uint32_t agent, const ModelSensor& s, const world::Entity& self) {
    const TouchSpec& spec = s.senses->touch;
    std::vector<Percept> out;
    if (!spec.enabled) return out;
    Percept base;
    base.sense = Sense::Touch;
    base.strength = 1;
    for (const world::Entity& e : world.entities()) {
      std::uint32_t a = e.alive ? agent_of(e) : 0;
      if (a == 0 || a == agent || !accepts(s.senses->targets, self.team, e.team)) continue;
      double d = world::distance(self.position, e.position);
      double margin = d - (self.radius() + e.radius() + spec.reach);
      near_edge(margin);
      if (margin > 0) continue;
      Percept p = base;
      p.kind = Kind::Agent;
      p.id = a;
      p.position = e.position;
      p.distance = d;
      out.push_back(p);
    }
    std::sort(out.begin(), out.end(), [](const Percept& x, const Percept& y) { return x.id < y.id; });
    for (std::size_t i = 0; i < areas.size(); ++i) {
      double margin = world::distance_to_obstacle(areas[i].shape, self.position) - (self.radius() + spec.reach);
      near_edge(margin);
      if (margin > 0) continue;
      Percept p = base;
      p.kind = Kind::Area;
      p.id = std::uint32_t(i + 1);
      p.position = areas[i].shape.centre;
      p.distance = world::distance(self.position, p.position);
      out.push_back(p);
    }
    // Pickups: active at the tick's start (taken at this begin or not); reach counts as for bodies.
    for (std::size_t i = 0; i < pickups.size(); ++i) {
      if (!touchable[i]) continue;
      double d = world::distance(self.position, pickups[i].position);
      double margin = d - (self.radius() + pickups[i].radius + spec.reach);
      near_edge(margin);
      if (margin > 0) continue;
      Percept p = base;
      p.kind = Kind::Pickup;
      p.id = std::uint32_t(i + 1);
      p.position = pickups[i].position;
      p.distance = d;
      for (const Take& tk : takes) p.taken |= tk.pickup == i && tk.agent == agent;
      out.push_back(p);
    }
    return out;
  }

  static auto key(const Percept& p) { return std::make_tuple(int(p.kind), p.id, p.sound); }

  void sense(std::uint32_t agent) {
    auto it = sensors.find(agent);
    if (it == sensors.end()) return;
    ModelSensor& s = it->second;
    std::vector<Percept> now[3];
    if (const world::Entity* self = body(agent)) {
      now[0] = sight(agent, s, *self);
      now[1] = hearing(agent, s, *self);
      now[2] = touch(agent, s, *self);
    } else {
      ++bodiless;
    }
    std::vector<Percept> list, current;
    for (int sense = 0; sense < 3; ++sense) {
      for (Percept p : now[sense]) {
        p.phase = Phase::Enter;
        for (const Percept& q : s.current)
          if (int(q.sense) == sense && key(q) == key(p)) p.phase = Phase::Stay;
        list.push_back(p);
        current.push_back(p);
      }
      for (const Percept& q : s.current) {  // exits after the current ones, by kind, id, serial
        if (int(q.sense) != sense) continue;
        bool still = false;
        for (const Percept& p : now[sense]) still |= key(p) == key(q);
        if (still) continue;
        Percept e = q;
        e.phase = Phase::Exit;
        e.taken = false;
        list.push_back(e);
      }
    }
    s.current = current;
    s.percepts = list;
    // Memory: agents (by sight, their sounds, touch) and anonymous sounds; the first percept of
    // the tick in list order gives sense and position.
    std::uint64_t memory_ticks = ticks_for(s.senses->memory);
    std::vector<std::pair<Kind, std::uint32_t>> done;
    for (const Percept& p : current) {
      if (p.kind == Kind::Area || p.kind == Kind::Pickup) continue;
      std::pair<Kind, std::uint32_t> k =
          p.kind == Kind::Sound && p.id == 0 ? std::pair{Kind::Sound, p.sound} : std::pair{Kind::Agent, p.id};
      if (std::find(done.begin(), done.end(), k) != done.end()) continue;
      done.push_back(k);
      MemoryEntry* m = nullptr;
      for (MemoryEntry& e : s.memory)
        if (e.kind == k.first && e.id == k.second) m = &e;
      if (!m) {
        s.memory.push_back({});
        m = &s.memory.back();
        m->kind = k.first;
        m->id = k.second;
      }
      m->sense = p.sense;
      m->position = p.position;
      m->last_tick = tick;
      m->forget_tick = tick + memory_ticks;
    }
    std::erase_if(s.memory, [&](const MemoryEntry& e) { return e.forget_tick <= tick; });
  }
};

// ---------------------------------------------------------------------------------------------
// Comparison

std::string describe(const Percept& p) {
  std::ostringstream o;
  o.precision(12);
  o << sense_name(p.sense) << ' ' << phase_name(p.phase) << ' ' << kind_name(p.kind) << " id " << p.id
    << " sound " << p.sound << " cone " << int(p.cone) << " at (" << p.position.x << ", " << p.position.y
    << ") d " << p.distance << " s " << p.strength << (p.taken ? " taken" : "");
  return o.str();
}

bool close(double a, double b) { return std::abs(a - b) <= kTol * std::max(1.0, std::abs(b)); }

bool same(const Percept& a, const Percept& b) {
  return a.sense == b.sense && a.kind == b.kind && a.phase == b.phase && a.cone == b.cone && a.id == b.id &&
         a.sound == b.sound && close(a.position.x, b.position.x) && close(a.position.y, b.position.y) &&
         close(a.distance, b.distance) && close(a.strength, b.strength) && a.taken == b.taken;
}

std::string describe(const MemoryEntry& m) {
  std::ostringstream o;
  o << kind_name(m.kind) << ' ' << m.id << " by " << sense_name(m.sense) << " at (" << m.position.x << ", "
    << m.position.y << ") last " << m.last_tick << " forget " << m.forget_tick;
  return o.str();
}

bool same(const MemoryEntry& a, const MemoryEntry& b) {
  return a.kind == b.kind && a.id == b.id && a.sense == b.sense && close(a.position.x, b.position.x) &&
         close(a.position.y, b.position.y) && a.last_tick == b.last_tick && a.forget_tick == b.forget_tick;
}

// The memory's order is not documented: compared by (kind, id).
std::vector<MemoryEntry> sorted(std::span<const MemoryEntry> m) {
  std::vector<MemoryEntry> v(m.begin(), m.end());
  std::sort(v.begin(), v.end(), [](const MemoryEntry& a, const MemoryEntry& b) {
    return std::make_pair(int(a.kind), a.id) < std::make_pair(int(b.kind), b.id);
  });
  return v;
}

template <class T>
std::string list_diff(std::span<const T> engine, const std::vector<T>& model) {
  std::ostringstream o;
  o << "engine (" << engine.size() << "):\n";
  for (const T& x : engine) o << "  " << describe(x) << '\n';
  o << "model (" << model.size() << "):\n";
  for (const T& x : model) o << "  " << describe(x) << '\n';
  return o.str();
}

// ---------------------------------------------------------------------------------------------
// Random worlds

struct Totals {
  std::uint64_t worlds = 0, ticks = 0, percepts = 0, memory = 0, takes = 0, sounds = 0, fragile = 0;
  std::uint64_t mismatched_worlds = 0;
  std::uint64_t by[3][4][3] = {};  // percepts by sense, kind, phase: every combination should occur
  std::uint64_t taken = 0, lod_stood = 0, damped = 0, bodiless = 0;
};

struct Agent {
  world::EntityId entity;
  bool sensor = false;
  bool dead = false;
  std::uint64_t remove_at = 0;  // despawned, sensor removed at this tick (0: with the despawn)
};

double uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
bool chance(std::mt19937_64& rng, double p) { return uniform(rng, 0, 1) < p; }
int pick(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// Runs one random world; returns an empty string or the first disagreement.
std::string run_world(std::uint64_t seed, int ticks, Totals& totals) {
  std::mt19937_64 rng(seed);
  // Mostly small and crowded; some wider and fuller, so that sight's and hearing's grids have
  // several cells; some let bodies stray up to 2 m outside the bounds (spawn does not forbid it).
  const bool wide = chance(rng, 0.2);
  const double size = wide ? uniform(rng, 24, 70) : uniform(rng, 10, 24);
  const double stray = chance(rng, 0.2) ? 2.0 : 0.0;
  world::World w(world::Bounds{{0, 0}, {size, size}});
  const double dts[] = {0.1, 0.05, 0.25};
  const double dt = dts[pick(rng, 0, 2)];
  for (int i = pick(rng, 0, 3); i > 0; --i) {
    Vec2 c{uniform(rng, 0, size), uniform(rng, 0, size)};
    if (chance(rng, 0.5))
      w.add_obstacle(world::Obstacle::circle(c, uniform(rng, 0.3, 2)));
    else
      w.add_obstacle(world::Obstacle::box(c, c + Vec2{uniform(rng, 0.3, 3), uniform(rng, 0.3, 3)}));
  }
  std::optional<nav::GridMap> map;
  if (chance(rng, 0.3)) {
    std::int32_t cells = std::int32_t(std::ceil(size));
    map = nav_fixture::random_map(cells, cells, unsigned(pick(rng, 3, 15)), unsigned(rng()));
  }
  std::optional<nav::Walls> walls;
  if (chance(rng, 0.9)) walls.emplace(w.obstacles(), map ? &*map : nullptr);

  // Agents (a few entities are bodies without an agent id: never perceived, never take).
  const int n = wide ? pick(rng, 8, 30) : pick(rng, 2, 9);
  const int teams = pick(rng, 2, 3);
  std::vector<std::uint32_t> agent_of_slot;
  std::vector<Agent> agents;
  std::vector<std::unique_ptr<Senses>> senses;
  // Sometimes one body without an agent id: never perceived, and no reason for LOD to look.
  const bool anonymous_body = chance(rng, 0.2);
  for (int i = 0; i < n + (anonymous_body ? 1 : 0); ++i) {
    world::Vehicle v;
    v.radius = uniform(rng, 0.2, 0.8);
    double a = uniform(rng, -std::numbers::pi, std::numbers::pi);
    world::EntityId id = w.spawn({uniform(rng, 0, size), uniform(rng, 0, size)}, v, pick(rng, 0, teams - 1),
                                 {std::cos(a), std::sin(a)});
    REQUIRE_FALSE(id.is_none());
    agent_of_slot.resize(id.index() + 1, 0);
    if (i >= n) continue;  // an anonymous body
    agents.push_back({id});
    agent_of_slot[id.index()] = std::uint32_t(agents.size());
  }
  world::SpatialHash hash(uniform(rng, 1, 6));
  Manager manager(w, hash, walls ? &*walls : nullptr, agent_of_slot, dt);
  const std::uint32_t queues = std::uint32_t(pick(rng, 1, 3));
  manager.set_queues(queues);
  Model model(w, agent_of_slot, walls ? &*walls : nullptr, dt);

  auto add_sensor = [&](std::uint32_t a) {
    auto s = std::make_unique<Senses>();
    if (chance(rng, 0.8))
      for (int c = chance(rng, 0.1) ? pick(rng, 4, 16) : pick(rng, 1, 3); c > 0; --c) {
        double half = chance(rng, 0.15) ? std::numbers::pi : uniform(rng, 0.1, std::numbers::pi);
        s->sight.cones.push_back({uniform(rng, 1.5, 15), half});
      }
    s->sight.walls = chance(rng, 0.8);
    if (chance(rng, 0.35)) {
      s->sight.lod_distance = uniform(rng, 0.5, 6);
      s->sight.lod_every = std::uint32_t(pick(rng, 1, 4));
    }
    if (chance(rng, 0.6)) {
      s->hearing.enabled = true;
      s->hearing.threshold = uniform(rng, 0.05, 0.8);
      s->hearing.walls = chance(rng, 0.3) ? 1.0 : uniform(rng, 0, 1);
    }
    if (chance(rng, 0.5)) {
      s->touch.enabled = true;
      s->touch.reach = chance(rng, 0.4) ? 0.0 : uniform(rng, 0, 1.2);
    }
    s->targets = Targets(pick(rng, 0, 2));
    s->memory = chance(rng, 0.2) ? 0.0 : uniform(rng, 0, 2);
    if (!s->any()) s->touch.enabled = true;
    manager.add_sensor(a, *s);
    model.sensors[a].senses = s.get();
    agents[a - 1].sensor = true;
    senses.push_back(std::move(s));
  };
  for (std::uint32_t a = 1; a <= agents.size(); ++a)
    if (chance(rng, 0.85)) add_sensor(a);  // else none, for now
  for (int i = pick(rng, 0, 2); i > 0; --i) {
    Vec2 c{uniform(rng, 0, size), uniform(rng, 0, size)};
    Area area{"area" + std::to_string(i),
              chance(rng, 0.5) ? world::Obstacle::circle(c, uniform(rng, 0.3, 2.5))
                               : world::Obstacle::box(c, c + Vec2{uniform(rng, 0.3, 4), uniform(rng, 0.3, 4)})};
    manager.add_area(area);
    model.areas.push_back(area);
  }
  for (int i = pick(rng, 0, 3); i > 0; --i) {
    PickupSpec p;
    p.name = "pickup" + std::to_string(i);
    p.kind = "kind";
    p.position = {uniform(rng, 0, size), uniform(rng, 0, size)};
    p.radius = uniform(rng, 0.3, 1.5);
    p.respawn = chance(rng, 0.2) ? 0.0 : uniform(rng, 0, 1.5);
    if (chance(rng, 0.4)) p.teams.push_back(pick(rng, 0, teams - 1));
    manager.add_pickup(p);
    model.pickups.push_back(p);
    model.states.push_back({});
  }

  // A disagreement, with what it takes to read it without rerunning: who is dead, where every
  // body is, and every sensor's settings.
  auto fail = [&](std::uint64_t t, const std::string& what) {
    std::ostringstream o;
    o << "world seed " << seed << ", tick " << t << ": " << what << "dead agents:";
    for (std::uint32_t a = 1; a <= agents.size(); ++a)
      if (agents[a - 1].dead) o << ' ' << a;
    for (std::uint32_t a = 1; a <= agents.size(); ++a)
      if (const world::Entity* b = model.body(a))
        o << "\n agent " << a << " at (" << b->position.x << ", " << b->position.y << ") team " << b->team
          << " r " << b->radius();
    for (const auto& [a, ms] : model.sensors) {
      const SightSpec& sp = ms.senses->sight;
      o << "\n sensor " << a << " targets " << int(ms.senses->targets) << " lod " << sp.lod_distance << " every "
        << sp.lod_every << " cones";
      for (const SightCone& c : sp.cones) o << " [" << c.range << ' ' << c.half_angle << ']';
    }
    return o.str();
  };

  struct Tally {  // the model's rule counters into the totals, however the world ends
    Totals& totals;
    Model& model;
    ~Tally() {
      totals.lod_stood += model.lod_stood;
      totals.damped += model.damped;
      totals.bodiless += model.bodiless;
    }
  } tally{totals, model};
  for (std::uint64_t t = 1; t <= std::uint64_t(ticks); ++t) {
    hash.rebuild(w);
    model.fragile = false;
    manager.begin_tick(t);
    model.begin(t);
    for (std::uint32_t a = 1; a <= agents.size(); ++a) {
      manager.sense(a);
      model.sense(a);
    }
    if (model.fragile) {  // a decision on its boundary: the engine may round it either way
      ++totals.fragile;
      return {};
    }
    ++totals.ticks;
    // Compare.
    if (manager.takes().size() != model.takes.size())
      return fail(t, "takes: engine " + std::to_string(manager.takes().size()) + ", model " +
                         std::to_string(model.takes.size()));
    for (std::size_t i = 0; i < model.takes.size(); ++i)
      if (manager.takes()[i].pickup != model.takes[i].pickup || manager.takes()[i].agent != model.takes[i].agent)
        return fail(t, "take " + std::to_string(i) + ": engine pickup " + std::to_string(manager.takes()[i].pickup) +
                           " agent " + std::to_string(manager.takes()[i].agent) + ", model pickup " +
                           std::to_string(model.takes[i].pickup) + " agent " + std::to_string(model.takes[i].agent));
    totals.takes += model.takes.size();
    for (std::size_t i = 0; i < model.states.size(); ++i) {
      const PickupState& e = manager.pickup_states()[i];
      const PickupState& m = model.states[i];
      if (e.active != m.active || (!m.active && e.back_tick != m.back_tick) || e.taken_by != m.taken_by)
        return fail(t, "pickup state " + std::to_string(i));
    }
    if (manager.sounds().size() != model.sounds.size())
      return fail(t, "audible sounds: engine " + std::to_string(manager.sounds().size()) + ", model " +
                         std::to_string(model.sounds.size()));
    for (std::size_t i = 0; i < model.sounds.size(); ++i) {
      const Sound& e = manager.sounds()[i];
      const ModelSound& m = model.sounds[i];
      if (e.position != m.position || e.loudness != m.loudness || e.source != m.source || e.last_tick != m.last_tick)
        return fail(t, "audible sound " + std::to_string(i));
    }
    totals.sounds += model.sounds.size();
    for (std::uint32_t a = 1; a <= agents.size(); ++a) {
      bool has = model.sensors.count(a) != 0;
      if (manager.has_sensor(a) != has) return fail(t, "has_sensor of agent " + std::to_string(a));
      if (!has) {
        if (!manager.percepts(a).empty() || !manager.memory(a).empty() || manager.sees(a, 1))
          return fail(t, "percepts or memory of agent " + std::to_string(a) + ", which has no sensor");
        continue;
      }
      const ModelSensor& s = model.sensors[a];
      std::span<const Percept> got = manager.percepts(a);
      bool ok = got.size() == s.percepts.size();
      for (std::size_t i = 0; ok && i < got.size(); ++i) ok = same(got[i], s.percepts[i]);
      if (!ok) return fail(t, "percepts of agent " + std::to_string(a) + "\n" + list_diff(got, s.percepts));
      totals.percepts += got.size();
      for (const Percept& p : got) {
        ++totals.by[int(p.sense)][int(p.kind)][int(p.phase)];
        totals.taken += p.taken;
      }
      for (std::uint32_t b = 1; b <= agents.size(); ++b) {
        bool sees = false;
        for (const Percept& p : s.current) sees |= p.sense == Sense::Sight && p.id == b;
        if (manager.sees(a, b) != sees) return fail(t, "sees(" + std::to_string(a) + ", " + std::to_string(b) + ")");
      }
      std::vector<MemoryEntry> em = sorted(manager.memory(a)), mm = sorted(s.memory);
      ok = em.size() == mm.size();
      for (std::size_t i = 0; ok && i < em.size(); ++i) ok = same(em[i], mm[i]);
      if (!ok)
        return fail(t, "memory of agent " + std::to_string(a) + "\n" +
                           list_diff(std::span<const MemoryEntry>(em), mm));
      totals.memory += mm.size();
    }

    // The tick's brains: sounds (each source through one queue), then deaths, then motion.
    for (std::uint32_t a = 1; a <= agents.size(); ++a) {
      if (agents[a - 1].dead || !chance(rng, 0.25)) continue;
      const world::Entity* b = w.entity(agents[a - 1].entity);
      for (int k = pick(rng, 1, 2); k > 0; --k) {
        Vec2 p = b->position + Vec2{uniform(rng, -1, 1), uniform(rng, -1, 1)};
        double loud = chance(rng, 0.1) ? uniform(rng, 30, 400) : uniform(rng, 0.3, 30);
        double secs = chance(rng, 0.3) ? 0.0 : uniform(rng, 0, 0.6);
        manager.emit_sound(a % queues, p, loud, secs, a);
        model.emit(p, loud, secs, a);
      }
    }
    for (int k = chance(rng, 0.2) ? pick(rng, 1, 3) : 0; k > 0; --k) {  // sounds from nobody
      Vec2 p{uniform(rng, -1, size + 1), uniform(rng, -1, size + 1)};
      double loud = uniform(rng, 0.3, 30), secs = uniform(rng, 0, 0.6);
      manager.emit_sound(std::uint32_t(pick(rng, 0, int(queues) - 1)), p, loud, secs, 0);
      model.emit(p, loud, secs, 0);
    }
    for (std::uint32_t a = 1; a <= agents.size(); ++a)  // a sensor added mid-run
      if (!agents[a - 1].sensor && !agents[a - 1].dead && chance(rng, 0.05)) add_sensor(a);
    for (std::uint32_t a = 1; a <= agents.size(); ++a) {
      Agent& ag = agents[a - 1];
      if (ag.dead && ag.remove_at == t) {
        manager.remove_sensor(a);
        model.sensors.erase(a);
      }
      if (ag.dead || !chance(rng, 0.01)) continue;
      ag.dead = true;
      w.despawn(ag.entity);
      if (ag.sensor && chance(rng, 0.5)) {
        ag.remove_at = t + std::uint64_t(pick(rng, 1, 3));  // sensed bodiless for a while first
      } else if (ag.sensor) {
        manager.remove_sensor(a);
        model.sensors.erase(a);
      }
    }
    for (world::Entity& e : w.entities()) {
      if (!e.alive) continue;
      double turn = uniform(rng, -0.6, 0.6);
      Vec2 h{e.heading.x * std::cos(turn) - e.heading.y * std::sin(turn),
             e.heading.x * std::sin(turn) + e.heading.y * std::cos(turn)};
      e.heading = h.normalized();
      e.position += e.heading * uniform(rng, 0, 0.5);
      e.position.x = std::clamp(e.position.x, -stray, size + stray);
      e.position.y = std::clamp(e.position.y, -stray, size + stray);
    }
  }
  return {};
}

}  // namespace

TEST_SUITE("perception model") {

TEST_CASE("the manager agrees with a plain all-pairs model on random worlds") {
  Totals totals;
  std::mt19937_64 seeds(20261124);
  int reported = 0;
  // 600 worlds; the first 150 under a sanitizer (ten times slower there: 16 s of the ASan tree's
  // unit tests), where the same seeds come first.
#if defined(THICKET_UNDER_SANITIZER)
  constexpr int kWorlds = 150;
#else
  constexpr int kWorlds = 600;
#endif
  for (int i = 0; i < kWorlds; ++i) {
    std::uint64_t seed = seeds();
    ++totals.worlds;
    std::string diff = run_world(seed, 40, totals);
    if (diff.empty()) continue;
    ++totals.mismatched_worlds;
    if (reported++ < 3) FAIL_CHECK(diff);
  }
  MESSAGE("worlds " << totals.worlds << ", ticks compared " << totals.ticks << ", percepts " << totals.percepts
                    << ", memory entries " << totals.memory << ", takes " << totals.takes << ", sounds "
                    << totals.sounds << ", worlds cut short by a boundary case " << totals.fragile
                    << ", worlds that disagree " << totals.mismatched_worlds);
  std::ostringstream cover;
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 4; ++k)
      for (int ph = 0; ph < 3; ++ph)
        if (totals.by[s][k][ph])
          cover << sense_name(Sense(s)) << '/' << kind_name(Kind(k)) << '/' << phase_name(Phase(ph)) << ' '
                << totals.by[s][k][ph] << "; ";
  MESSAGE("coverage: " << cover.str() << "taken " << totals.taken << "; LOD sightings that stood "
                       << totals.lod_stood << "; sounds damped by walls " << totals.damped
                       << "; senses of bodiless sensors " << totals.bodiless);
  CHECK(totals.mismatched_worlds == 0);
  CHECK(totals.percepts > 10000);
}

// The model's readings of the edges, on exact numbers (the random worlds never land on one).
TEST_CASE("every distance and strength rule is inclusive at its boundary") {
  struct Scene {
    world::World w{world::Bounds{{0, 0}, {50, 50}}};
    std::vector<std::uint32_t> agent_of_slot;
    world::SpatialHash hash{4};
    std::unique_ptr<Manager> m;
    void add(Vec2 p, std::int32_t team) {
      world::Vehicle v;
      v.radius = 0.5;
      w.spawn(p, v, team, {1, 0});
      agent_of_slot.push_back(std::uint32_t(agent_of_slot.size() + 1));
    }
    void start() { m = std::make_unique<Manager>(w, hash, nullptr, agent_of_slot, 0.1); }
    void tick(std::uint64_t t) {
      hash.rebuild(w);
      m->begin_tick(t);
      for (std::uint32_t a = 1; a <= agent_of_slot.size(); ++a) m->sense(a);
    }
  };
  Senses sight;
  sight.sight.cones = {{4, 1.0}};
  Senses touch;
  touch.touch.enabled = true;
  Senses reach = touch;
  reach.touch.reach = 0.5;
  Senses hearing;
  hearing.hearing.enabled = true;  // threshold 0.1: loudness 10 carries exactly 10 m
  {
    Scene sc;  // a body at exactly the cone's range is seen
    sc.add({10, 10}, 0);
    sc.add({14, 10}, 1);
    sc.start();
    sc.m->add_sensor(1, sight);
    sc.tick(1);
    CHECK(sc.m->sees(1, 2));
  }
  {
    Scene sc;  // bodies at exactly r + r touch; an area at exactly r is touched
    sc.add({10, 10}, 0);
    sc.add({11, 10}, 1);
    sc.start();
    sc.m->add_area({"a", world::Obstacle::box({10.5, 20}, {12, 0})});
    sc.m->add_sensor(1, touch);
    sc.tick(1);
    CHECK(sc.m->percepts(1).size() == 2);
  }
  {
    Scene sc;  // a pickup at exactly r + its radius is touched and taken
    sc.add({10, 10}, 0);
    sc.start();
    sc.m->add_pickup({"p", "p", {11, 10}, 0.5, 10, {}});
    sc.m->add_sensor(1, touch);
    sc.tick(1);
    CHECK(sc.m->percepts(1).size() == 1);
    CHECK(sc.m->takes().size() == 1);
  }
  {
    Scene sc;  // reach lets touch find a pickup the body does not overlap, but not take it
    sc.add({10, 10}, 0);
    sc.start();
    sc.m->add_pickup({"p", "p", {11.25, 10}, 0.5, 10, {}});
    sc.m->add_sensor(1, reach);
    sc.tick(1);
    CHECK(sc.m->percepts(1).size() == 1);
    CHECK(sc.m->takes().empty());
  }
  {
    Scene sc;  // a sound exactly at the threshold is heard
    sc.add({10, 10}, 0);
    sc.add({0, 0}, 1);
    sc.start();
    sc.m->add_sensor(1, hearing);
    sc.m->emit_sound(0, {20, 10}, 10, 0, 2);
    sc.tick(1);
    sc.tick(2);
    CHECK(sc.m->percepts(1).size() == 1);
  }
}

// Found by this model (fixed): a body that is no agent (agent_of_slot 0) is "never perceived"
// (perception.hpp, Decisions), so it is no target, yet within lod_distance it used to make a
// LOD sensor check its cones every tick (the sightings between checks then carried current
// positions instead of the last check's). LOD's "anything near?" now counts agents only.
TEST_CASE("LOD: a body that is no agent does not count as a near target") {
  world::World w(world::Bounds{{0, 0}, {50, 50}});
  world::Vehicle v;
  v.radius = 0.5;
  w.spawn({10, 10}, v, 0, {1, 0});  // agent 1, the sensor
  w.spawn({20, 10}, v, 1, {1, 0});  // agent 2, an enemy 10 m ahead, beyond lod_distance
  w.spawn({11, 12}, v, 1, {1, 0});  // no agent, 2.2 m away
  std::vector<std::uint32_t> agent_of_slot{1, 2, 0};
  world::SpatialHash hash(4);
  Manager m(w, hash, nullptr, agent_of_slot, 0.1);
  Senses s;
  s.sight.cones = {{20, 1.0}};
  s.sight.lod_distance = 4;
  s.sight.lod_every = 3;
  m.add_sensor(1, s);
  for (std::uint64_t t = 1; t <= 6; ++t) {
    hash.rebuild(w);
    m.begin_tick(t);
    Stats stats;
    m.sense(1, &stats);
    CAPTURE(t);
    CHECK(stats.sight_checks == ((t + 1) % 3 == 0 ? 1u : 0u));  // checks at ticks 2 and 5 only
    // Between checks the sighting stands with its position as then (the enemy walks on: y is
    // 10 + t - 1 during tick t, so 11 from the check at tick 2, 14 from the one at tick 5).
    const Percept* seen = m.percepts(1).empty() ? nullptr : &m.percepts(1)[0];
    if (t >= 2) {
      REQUIRE(seen != nullptr);
      CHECK(seen->position.y == (t < 5 ? 11.0 : 14.0));
    }
    w.entity(world::EntityId::from(1, 0))->position.y = 10.0 + double(t);
  }
}

}  // TEST_SUITE
