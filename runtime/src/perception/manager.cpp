// The perception manager (issue 13): registration, the once-a-tick update of triggers, and the
// per-agent sensing of sight, hearing and touch with phases and memory. The sound index lives in
// sound_index.cpp, pickups in pickups.cpp.
//
// Thread model: begin_tick writes the manager's shared state on one thread; sense(agent) reads
// it and writes only that agent's SensorState, using thread_local scratch for hash query
// results, so concurrent sense() calls on distinct agents never share a written byte.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "perception/perception_internal.hpp"
#include "perception/sensor_store.hpp"
#include "perception/sight_index.hpp"
#include "world/cone_geometry.hpp"

namespace thicket::perception {

static_assert(sizeof(Percept) == 48 && sizeof(MemoryEntry) == 40, "perception records: see their declarations");

using world::Entity;
using world::QueryFilter;
using world::TeamFilter;

const char* sense_name(Sense sense) {
  switch (sense) {
    case Sense::Sight: return "sight";
    case Sense::Hearing: return "hearing";
    case Sense::Touch: return "touch";
  }
  return "?";
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Agent: return "agent";
    case Kind::Sound: return "sound";
    case Kind::Area: return "area";
    case Kind::Pickup: return "pickup";
  }
  return "?";
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::Enter: return "enter";
    case Phase::Stay: return "stay";
    case Phase::Exit: return "exit";
  }
  return "?";
}

double sound_strength(double loudness, double distance) {
  double d = std::max(1.0, distance);
  return loudness / (d * d);
}

namespace {

// Percepts of one sense are sorted by this key; equal keys are the same thing perceived.
bool key_less(const Percept& a, const Percept& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  if (a.id != b.id) return a.id < b.id;
  return a.sound < b.sound;
}
bool same_key(const Percept& a, const Percept& b) {
  return a.kind == b.kind && a.id == b.id && a.sound == b.sound;
}

TeamFilter team_filter(Targets targets, std::int32_t own_team) {
  switch (targets) {
    case Targets::Enemies: return TeamFilter::all_but(own_team);
    case Targets::Friends: return TeamFilter::only(own_team);
    case Targets::All: break;
  }
  return TeamFilter::any();
}

// Per-thread scratch for hash query results: sense() may run on many threads at once.
struct SightScratch {
  std::vector<world::SpatialHash::ViewCone> cones;
  std::vector<world::SpatialHash::Sighting> seen;
};
thread_local SightScratch tl_sight;
thread_local std::vector<EntityId> tl_bodies;

// Room for a busy tick's percepts inline (more go to its heap, kept for the thread's later
// ticks).
struct BuildingPercepts {
  Percept records[64];
  BuildingBuffer list{records};
};
thread_local BuildingPercepts tl_building;

}  // namespace

BuildingBuffer& percepts_being_built() { return tl_building.list; }

// Sorts now[start..] (this tick's percepts of one sense), gives each its phase against the
// previous tick's percepts of that sense in `before`, and appends an Exit for each of those no
// longer perceived (they come out sorted, as `before` is).
void assign_phases(BuildingBuffer& now, std::size_t start, const PerceptBuffer& before, Sense sense) {
  if (sense == Sense::Sight) {
    // sense_sight makes agents' percepts only, without a sound, each agent once: their keys
    // differ by id alone. A few a tick: sorted by insertion on that one field.
    Percept* first = now.begin() + start;
    Percept* last = now.end();
    for (Percept* i = first + (first != last); i < last; ++i) {
      if (!(i->id < (i - 1)->id)) continue;
      const Percept moved = *i;
      Percept* j = i;
      do {
        *j = *(j - 1);
        --j;
      } while (j > first && moved.id < (j - 1)->id);
      *j = moved;
    }
  } else {
    // (Through a lambda: given the function itself, std::sort called it through a pointer at
    // every comparison instead of inlining it.)
    std::sort(now.begin() + start, now.end(), [](const Percept& a, const Percept& b) { return key_less(a, b); });
  }
  // This sense's stretch of `before` (sorted by sense).
  const Percept* b_first = std::partition_point(before.begin(), before.end(), [sense](const Percept& p) { return p.sense < sense; });
  const Percept* b_last = std::partition_point(b_first, before.end(), [sense](const Percept& p) { return p.sense == sense; });
  const std::size_t b0 = std::size_t(b_first - before.begin()), b1 = std::size_t(b_last - before.begin());
  auto exit_from = [&](std::size_t j) {
    if (before[j].phase == Phase::Exit) return;  // gone already
    Percept gone = before[j];
    gone.phase = Phase::Exit;
    gone.taken = false;
    now.push_back(gone);
  };
  const std::size_t end = now.size();
  std::size_t j = b0;
  for (std::size_t i = start; i < end; ++i) {
    while (j < b1 && (before[j].phase == Phase::Exit || key_less(before[j], now[i]))) exit_from(j++);
    if (j < b1 && same_key(before[j], now[i])) {
      now[i].phase = Phase::Stay;
      ++j;
    } else {
      now[i].phase = Phase::Enter;
    }
  }
  while (j < b1) exit_from(j++);
}

// ---------------------------------------------------------------------------------------------
// Registration

Manager::Manager(const world::World& world, const world::SpatialHash& hash, const nav::Walls* walls,
                 const std::vector<std::uint32_t>& agent_of_slot, double dt)
    : world_(&world), hash_(&hash), walls_(walls), agent_of_slot_(&agent_of_slot),
      dt_(dt > 0 && std::isfinite(dt) ? dt : 1.0),
      sensor_store_(std::make_unique<SlabStore>(sizeof(SensorState), alignof(SensorState))),
      sight_index_(std::make_unique<SightIndex>()) {
  queues_.resize(1);
}

Manager::~Manager() {
  for (SensorState* s : sensor_of_)
    if (s != nullptr) s->~SensorState();  // (their store's slabs go with it)
}

void Manager::add_sensor(std::uint32_t agent, const Senses& senses) {
  if (agent == 0) return;
  if (sensor_of_.size() < agent) sensor_of_.resize(agent, nullptr);
  SensorState*& owned = sensor_of_[agent - 1];
  if (owned == nullptr) {
    owned = new (sensor_store_->take()) SensorState();
    owned->sightings.reserve(4);
  }
  // A new registration starts afresh (its buffers are kept).
  owned->senses = &senses;
  owned->percepts.clear();
  owned->sightings.clear();
  owned->memory.clear();
  owned->next_forget = 0;
}

void Manager::remove_sensor(std::uint32_t agent) {
  if (agent == 0 || agent > sensor_of_.size() || sensor_of_[agent - 1] == nullptr) return;
  sensor_of_[agent - 1]->~SensorState();
  sensor_store_->give_back(sensor_of_[agent - 1]);
  sensor_of_[agent - 1] = nullptr;
}

void Manager::add_area(Area area) { areas_.push_back(std::move(area)); }

void Manager::add_pickup(PickupSpec pickup) {
  pickups_.push_back(std::move(pickup));
  pickup_states_.push_back({});
  pickup_touchable_.push_back(1);
}

std::uint64_t Manager::ticks_for(double seconds) const {
  double ticks = std::round(seconds / dt_);
  if (!(ticks >= 1)) return 1;  // also NaN
  if (ticks > 1e15) return std::uint64_t(1e15);
  return std::uint64_t(ticks);
}

bool Manager::has_sensor(std::uint32_t agent) const {
  return agent != 0 && agent <= sensor_of_.size() && sensor_of_[agent - 1] != nullptr;
}

// ---------------------------------------------------------------------------------------------
// The tick's fixed point

std::uint32_t Manager::agent_of(EntityId id) const {
  std::uint32_t slot = id.index();
  return slot < agent_of_slot_->size() ? (*agent_of_slot_)[slot] : 0;
}

const Entity* Manager::entity_of_agent(std::uint32_t agent) const {
  if (agent == 0 || agent > slot_of_agent_.size()) return nullptr;
  std::uint32_t slot = slot_of_agent_[agent - 1];
  if (slot == kNoSlot) return nullptr;
  return &world_->entities()[slot];
}

void Manager::begin_tick(std::uint64_t tick) {
  tick_ = tick;
  // Who is where this tick: agent id -> slot, and the widest body (touch and pickups reach
  // this far beyond their own radius through the hash). Only sensors, sounds being made and
  // pickups read them: a run without any (a flock) skips this pass over every body, which on
  // several threads reads the bodies other cores have just moved.
  bool any_sensor = false;
  for (const SensorState* s : sensor_of_)
    if (s != nullptr) {
      any_sensor = true;
      break;
    }
  bool any_queued = false;
  for (const auto& q : queues_) any_queued = any_queued || !q.empty();
  std::span<const Entity> slots = world_->entities();
  std::fill(slot_of_agent_.begin(), slot_of_agent_.end(), kNoSlot);
  max_body_radius_ = 0;
  if (!any_sensor && !any_queued && pickups_.empty()) slots = {};
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (!slots[s].alive) continue;
    max_body_radius_ = std::max(max_body_radius_, slots[s].radius());
    std::uint32_t agent = s < agent_of_slot_->size() ? (*agent_of_slot_)[s] : 0;
    if (agent == 0) continue;
    if (slot_of_agent_.size() < agent) slot_of_agent_.resize(agent, kNoSlot);
    slot_of_agent_[agent - 1] = std::uint32_t(s);
  }

  // Sounds: forget the ones whose time is up, then make the queued ones audible.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < sounds_.size(); ++i) {
    if (sounds_[i].last_tick < tick) continue;
    sounds_[kept] = sounds_[i];
    sound_meta_[kept] = sound_meta_[i];
    ++kept;
  }
  sounds_.resize(kept);
  sound_meta_.resize(kept);
  merge_queued_sounds();

  min_threshold_ = std::numeric_limits<double>::infinity();
  bool sight = false;
  for (const SensorState* s : sensor_of_) {
    if (s == nullptr) continue;
    if (s->senses->hearing.enabled) min_threshold_ = std::min(min_threshold_, s->senses->hearing.threshold);
    sight = sight || !s->senses->sight.cones.empty();
  }
  build_sound_index();
  if (sight) sight_index_->rebuild(*hash_, world_->bounds(), *agent_of_slot_);

  take_pickups();
}

// ---------------------------------------------------------------------------------------------
// Sensing one agent

namespace {

// Asks for the first lines of a buffer ahead of use (a hint: no effect on results), into the
// cache level that Locality names as __builtin_prefetch's does (3: the first, 1: the second).
template <int Locality, class Vector>
void prefetch_lines(const Vector& v, std::size_t max_lines) {
  const char* p = reinterpret_cast<const char*>(v.data());
  const std::size_t bytes = std::min(v.size() * sizeof(v[0]), max_lines * 64);
  for (std::size_t at = 0; at < bytes; at += 64) __builtin_prefetch(p + at, 0, Locality);
}

}  // namespace

void Manager::sense(std::uint32_t agent, Stats* stats) {
  if (!has_sensor(agent)) return;
  SensorState& s = *sensor_of_[agent - 1];
  // Agents are mostly sensed in id order (each worker its own agents, ascending), each one's
  // state one block (its lists inline; see InlineBuffer). While this one is sensed: the first
  // lines of the agent three on's, the lists of the one two on into the second-level cache,
  // and the next one's from there into the first (the hardware follows on from a list's
  // start). Fetching all of the next one's ~30 lines from memory at once filled the
  // first-level cache's miss buffers and stalled on the prefetches themselves; in two steps
  // the open map of bench_perception ran ~10% faster.
  if (agent + 2 < sensor_of_.size() && sensor_of_[agent + 2] != nullptr) {
    // Its lines up to the records (not offsetof: SensorState is not standard-layout).
    const SensorState& later = *sensor_of_[agent + 2];
    const char* const records = reinterpret_cast<const char*>(later.percept_records);
    for (const char* line = reinterpret_cast<const char*>(&later); line < records; line += 64) __builtin_prefetch(line);
  }
  if (agent + 1 < sensor_of_.size() && sensor_of_[agent + 1] != nullptr) {
    const SensorState& after = *sensor_of_[agent + 1];
    prefetch_lines<1>(after.percepts, 16);
    prefetch_lines<1>(after.memory, 32);
  }
  if (agent < sensor_of_.size() && sensor_of_[agent] != nullptr) {
    const SensorState& next = *sensor_of_[agent];
    prefetch_lines<3>(next.percepts, 16);
    prefetch_lines<3>(next.memory, 32);
  }
  s.agent = agent;
  // This tick's percepts are built apart (phased against s.percepts, the last tick's), then
  // copied over the last tick's: the agent's state keeps one list, its lines written where
  // they were just read.
  BuildingBuffer& now = percepts_being_built();
  now.clear();
  if (stats != nullptr) ++stats->sensed;
  const Entity* self = entity_of_agent(agent);
  if (self != nullptr) {
    QueryFilter filter{self->id, team_filter(s.senses->targets, self->team)};
    sense_sight(s, *self, filter, stats);
    sense_hearing(s, *self, stats);
    sense_touch(s, *self, filter);
  } else {
    // Not in the world (yet, or any more): everything perceived before exits.
    for (Sense sense : {Sense::Sight, Sense::Hearing, Sense::Touch}) assign_phases(now, now.size(), s.percepts, sense);
  }
  s.percepts.assign(now.begin(), now.end());
  update_memory(s);
}

void Manager::sense_sight(SensorState& s, const Entity& self, const QueryFilter& filter,
                          Stats* stats) {
  const SightSpec& sight = s.senses->sight;
  BuildingBuffer& now = percepts_being_built();
  const std::size_t start = now.size();
  if (sight.cones.empty()) return;

  // Level of detail: off-tick and nothing of interest near, the last check's sightings stand.
  auto anything_near = [&] {
    bool found = false;
    if (sight_index_->any_within(self.position, sight.lod_distance, filter, found)) return found;
    // The hash also holds bodies that are no agents (never perceived: they do not count).
    std::vector<EntityId>& near = tl_bodies;
    hash_->within_radius(self.position, sight.lod_distance, near, filter);
    return std::any_of(near.begin(), near.end(), [&](EntityId id) { return agent_of(id) != 0; });
  };
  const bool lod = lod_skips(sight);
  if (lod && (tick_ + s.agent) % sight.lod_every != 0 &&
      !anything_near()) {
    if (stats != nullptr) ++stats->lod_skips;
    // ... except those that left the world since (a dead agent is not seen, LOD or not).
    for (const Percept& p : s.sightings)
      if (entity_of_agent(p.id) != nullptr) now.push_back(p);
    assign_phases(now, start, s.percepts, Sense::Sight);
    return;
  }
  if (stats != nullptr) ++stats->sight_checks;

  // Every cone in one walk of the sight index (or of the hash, for what the index does not
  // take); each body comes with the first cone that sees it, in no particular order:
  // assign_phases sorts the percepts.
  SightScratch& t = tl_sight;
  world::QueryCost cost;
  const std::size_t cone_count = std::min<std::size_t>(sight.cones.size(), 256);
  t.cones.resize(cone_count);
  for (std::size_t c = 0; c < cone_count; ++c)
    t.cones[c] = {sight.cones[c].range, sight.cones[c].half_angle};
  if (!sight_index_->in_cones(self.position, self.heading, t.cones, t.seen, filter, &cost))
    hash_->in_cones(self.position, self.heading, t.cones, t.seen, filter, &cost);

  const bool asks_walls = sight.walls && walls_ != nullptr;
  bool walls = asks_walls;  // each line still to be tested on its own
  std::uint64_t los_tests = 0;
  if (walls && !t.seen.empty() && walls_->may_have_clear_regions()) {
    // Over open ground every sight line is clear: one question for the box of the eye and all
    // it may see answers them all (the same answers as asking each).
    world::Vec2 lo = self.position, hi = self.position;
    for (const world::SpatialHash::Sighting& seen : t.seen) {
      lo = {std::min(lo.x, seen.position.x), std::min(lo.y, seen.position.y)};
      hi = {std::max(hi.x, seen.position.x), std::max(hi.y, seen.position.y)};
    }
    if (walls_->region_clear(lo, hi)) walls = false;
  }
  // What the strength loop below compares with, once per call (the same values each time).
  double cosines[256];
  for (std::size_t c = 1; c < cone_count; ++c) cosines[c] = world::cached_cosine(sight.cones[c].half_angle);
  const double heading_length = self.heading.length();
  for (const world::SpatialHash::Sighting& seen : t.seen) {
    std::uint32_t target = agent_of(seen.id);
    if (target == 0) continue;  // a body that is no agent has no id to report
    los_tests += asks_walls;      // (answered at once or one by one)
    if (walls && !walls_->clear(self.position, seen.position)) continue;
    Percept& p = now.emplace_back();
    p.sense = Sense::Sight;
    p.kind = Kind::Agent;
    p.cone = std::uint8_t(seen.cone);
    p.id = target;
    p.position = seen.position;
    p.distance = world::distance(self.position, seen.position);
    // The strongest view of it: a far narrow cone may hold it closer to its centre of range
    // than the near wide cone that saw it first.
    p.strength = 1.0 - p.distance / sight.cones[seen.cone].range;
    for (std::size_t c = seen.cone + 1; c < cone_count; ++c) {
      const SightCone& cone = sight.cones[c];
      if (p.distance > cone.range) continue;
      if (cone.half_angle < M_PI &&
          self.heading.dot(seen.position - self.position) < cosines[c] * p.distance * heading_length)
        continue;
      p.strength = std::max(p.strength, 1.0 - p.distance / cone.range);
    }
  }
  if (stats != nullptr) {
    stats->candidates += cost.entries;
    stats->los_tests += los_tests;
  }
  assign_phases(now, start, s.percepts, Sense::Sight);
  // What stands on the ticks LOD skips: this check's sightings (their phase is reassigned then).
  if (!lod) return;
  s.sightings.clear();
  for (std::size_t i = start; i < now.size(); ++i)
    if (now[i].phase != Phase::Exit) s.sightings.push_back(now[i]);
}

void Manager::sense_touch(SensorState& s, const Entity& self, const QueryFilter& filter) {
  const TouchSpec& touch = s.senses->touch;
  BuildingBuffer& now = percepts_being_built();
  const std::size_t start = now.size();
  if (!touch.enabled) return;
  const double reach = std::max(0.0, touch.reach);
  const double r = self.radius();

  std::vector<EntityId>& bodies = tl_bodies;
  hash_->within_radius(self.position, r + max_body_radius_ + reach, bodies, filter);
  std::span<const Entity> slots = world_->entities();
  for (EntityId id : bodies) {
    std::uint32_t target = agent_of(id);
    if (target == 0) continue;
    const Entity& body = slots[id.index()];
    double d = world::distance(self.position, body.position);
    if (!(d <= r + body.radius() + reach)) continue;
    Percept& p = now.emplace_back();
    p.sense = Sense::Touch;
    p.kind = Kind::Agent;
    p.id = target;
    p.position = body.position;
    p.distance = d;
    p.strength = 1;
  }
  for (std::size_t a = 0; a < areas_.size(); ++a) {
    const Area& area = areas_[a];
    if (!(world::distance_to_obstacle(area.shape, self.position) <= r + reach)) continue;
    Percept& p = now.emplace_back();
    p.sense = Sense::Touch;
    p.kind = Kind::Area;
    p.id = std::uint32_t(a + 1);
    p.position = area.shape.centre;
    p.distance = world::distance(self.position, area.shape.centre);
    p.strength = 1;
  }
  for (std::size_t k = 0; k < pickups_.size(); ++k) {
    if (!pickup_touchable_[k]) continue;
    const PickupSpec& pickup = pickups_[k];
    double d = world::distance(self.position, pickup.position);
    if (!(d <= r + pickup.radius + reach)) continue;
    Percept& p = now.emplace_back();
    p.sense = Sense::Touch;
    p.kind = Kind::Pickup;
    p.id = std::uint32_t(k + 1);
    p.position = pickup.position;
    p.distance = d;
    p.strength = 1;
    for (const Take& take : takes_)
      if (take.pickup == k && take.agent == s.agent) p.taken = true;
  }
  assign_phases(now, start, s.percepts, Sense::Touch);
}

// Memory holds agents (perceived by any sense; a sound with a source is its source heard) and
// anonymous sounds, sorted by (kind, id). When one thing is perceived by several senses in a
// tick, the first in percept order (sight, hearing, touch) gives the entry its sense and place.
void Manager::update_memory(SensorState& s) {
  MemoryBuffer& memory = s.memory;
  if (s.next_forget <= tick_) {
    // Forget what is due, and learn when the next entry is (entries refreshed below only move
    // later, entries added below lower it).
    std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < memory.size(); ++i) {
      if (memory[i].forget_tick <= tick_) continue;
      next = std::min(next, memory[i].forget_tick);
      if (kept != i) memory[kept] = memory[i];
      ++kept;
    }
    memory.resize(kept);
    s.next_forget = next;
  }
  // round(memory / dt) once per value, not per agent and tick (most agents share one value).
  thread_local struct {
    const Manager* manager = nullptr;
    double seconds = -1;
    std::uint64_t ticks = 0;
  } memory_cache;
  if (memory_cache.manager != this || memory_cache.seconds != s.senses->memory)
    memory_cache = {this, s.senses->memory, ticks_for(s.senses->memory)};
  const std::uint64_t memory_ticks = memory_cache.ticks;
  struct Key {
    Kind kind;
    std::uint32_t id;
  };
  // (kind, id) as one number: one comparison, no branch on the kind.
  auto below = [](const MemoryEntry& m, Key k) {
    return ((std::uint64_t(m.kind) << 32) | m.id) < ((std::uint64_t(k.kind) << 32) | k.id);
  };
  // Percepts of one sense come sorted by (kind, id), and so mostly do their memory keys: each
  // search starts where the last one ended when the key is not below that entry's.
  std::size_t hint = 0;
  for (const Percept& p : s.percepts) {
    if (p.phase == Phase::Exit) continue;
    Key key;
    if (p.kind == Kind::Agent || (p.kind == Kind::Sound && p.id != 0)) {
      key = {Kind::Agent, p.id};
    } else if (p.kind == Kind::Sound) {
      key = {Kind::Sound, p.sound};
    } else {
      continue;  // areas and pickups are places, not things to remember
    }
    std::size_t at;
    if (hint > memory.size() || (hint > 0 && !below(memory[hint - 1], key))) {  // not past the last one
      at = std::size_t(std::lower_bound(memory.begin(), memory.end(), key, below) - memory.begin());
    } else {  // a few steps on from the last one, else a binary search of the rest
      at = hint;
      for (std::size_t steps = 0; steps < 8 && at < memory.size() && below(memory[at], key); ++steps) ++at;
      if (at < memory.size() && below(memory[at], key))
        at = std::size_t(std::lower_bound(memory.begin() + at, memory.end(), key, below) - memory.begin());
    }
    // The entry is written in place, field by field (not built apart and copied in).
    MemoryEntry* entry = nullptr;
    if (at < memory.size() && memory[at].kind == key.kind && memory[at].id == key.id) {
      if (memory[at].last_tick != tick_) entry = &memory[at];  // first sense this tick wins
    } else {
      entry = memory.insert(memory.begin() + at, MemoryEntry{});
      entry->kind = key.kind;
      entry->id = key.id;
      s.next_forget = std::min(s.next_forget, tick_ + memory_ticks);
    }
    if (entry != nullptr) {
      entry->sense = p.sense;
      entry->position = p.position;
      entry->last_tick = tick_;
      entry->forget_tick = tick_ + memory_ticks;
    }
    hint = at + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

std::span<const Percept> Manager::percepts(std::uint32_t agent) const {
  if (!has_sensor(agent)) return {};
  const PerceptBuffer& list = sensor_of_[agent - 1]->percepts;
  return {list.data(), list.size()};
}

std::span<const MemoryEntry> Manager::memory(std::uint32_t agent) const {
  if (!has_sensor(agent)) return {};
  return {sensor_of_[agent - 1]->memory.data(), sensor_of_[agent - 1]->memory.size()};
}

bool Manager::sees(std::uint32_t agent, std::uint32_t target) const {
  for (const Percept& p : percepts(agent)) {
    if (p.sense != Sense::Sight) break;  // sight comes first
    if (p.id == target && p.phase != Phase::Exit) return true;
  }
  return false;
}

std::size_t Manager::bytes_per_sensor() const {
  std::size_t total = 0, count = 0;
  for (const SensorState* owned : sensor_of_) {
    if (owned == nullptr) continue;
    ++count;
    total += sizeof(SensorState) + sizeof(SensorState*) + sizeof(std::uint32_t) +  // slot_of_agent_
             owned->percepts.heap_bytes() +
             owned->sightings.capacity() * sizeof(Percept) + owned->memory.heap_bytes();
  }
  return count == 0 ? 0 : total / count;
}

}  // namespace thicket::perception
