// The perception manager in a snapshot (issue 15): the state one tick hands to the next.
// What begin_tick rebuilds (slot map, sight and sound indexes, takes, touchable pickups) is not
// saved. Queued sounds are saved merged in one list and restored into queue 0: begin_tick
// orders them by (source, emission order) whatever queue holds them, so a snapshot taken with
// K threads resumes the same with any other count.
#include <cmath>
#include <span>
#include <string>

#include "perception_internal.hpp"
#include "thicket/snapshot.hpp"
#include "world/world_snapshot.hpp"  // put_vec, get_vec

namespace thicket::perception {

using world::get_vec;
using world::put_vec;

namespace {

// Enum values are checked on the way in: a snapshot is never misread into a bad enum.
template <class E>
E get_enum(SnapshotReader& in, std::uint8_t count, const char* what) {
  std::uint8_t v = in.u8();
  if (v >= count) {
    in.fail(std::string("a bad ") + what + " (" + std::to_string(v) + ")");
    return E{};
  }
  return static_cast<E>(v);
}

void put_percepts(SnapshotWriter& out, std::span<const Percept> list) {
  out.u32(static_cast<std::uint32_t>(list.size()));
  for (const Percept& p : list) {
    out.u8(static_cast<std::uint8_t>(p.sense));
    out.u8(static_cast<std::uint8_t>(p.kind));
    out.u8(static_cast<std::uint8_t>(p.phase));
    out.u8(p.cone);
    out.u32(p.id);
    out.u32(p.sound);
    put_vec(out, p.position);
    out.f64(p.distance);
    out.f64(p.strength);
    out.u8(p.taken ? 1 : 0);
  }
}

// Every count is checked against what is left to read, so a corrupt count cannot make it
// reserve gigabytes.
bool count_fits(SnapshotReader& in, std::uint32_t n, std::size_t bytes_each, std::size_t left) {
  if (std::uint64_t(n) * bytes_each > left) {
    in.fail("a list of " + std::to_string(n) + " entries runs past the end");
    return false;
  }
  return true;
}

template <class List>  // std::vector<Percept> or PerceptBuffer
void get_percepts(SnapshotReader& in, std::size_t total, List& list) {
  std::uint32_t n = in.u32();
  list.clear();
  if (!in.ok() || !count_fits(in, n, 45, total - in.offset())) return;
  for (std::uint32_t k = 0; k < n && in.ok(); ++k) {
    Percept p;
    p.sense = get_enum<Sense>(in, 3, "sense");
    p.kind = get_enum<Kind>(in, 4, "percept kind");
    p.phase = get_enum<Phase>(in, 3, "phase");
    p.cone = in.u8();
    p.id = in.u32();
    p.sound = in.u32();
    p.position = get_vec(in);
    p.distance = in.f64();
    p.strength = in.f64();
    p.taken = in.u8() != 0;
    list.push_back(p);
  }
}

void put_memory(SnapshotWriter& out, const MemoryBuffer& list) {
  out.u32(static_cast<std::uint32_t>(list.size()));
  for (const MemoryEntry& m : list) {
    out.u8(static_cast<std::uint8_t>(m.kind));
    out.u32(m.id);
    out.u8(static_cast<std::uint8_t>(m.sense));
    put_vec(out, m.position);
    out.u64(m.last_tick);
    out.u64(m.forget_tick);
  }
}

void get_memory(SnapshotReader& in, std::size_t total, MemoryBuffer& list) {
  std::uint32_t n = in.u32();
  list.clear();
  if (!in.ok() || !count_fits(in, n, 38, total - in.offset())) return;
  for (std::uint32_t k = 0; k < n && in.ok(); ++k) {
    MemoryEntry m;
    m.kind = get_enum<Kind>(in, 4, "memory kind");
    m.id = in.u32();
    m.sense = get_enum<Sense>(in, 3, "sense");
    m.position = get_vec(in);
    m.last_tick = in.u64();
    m.forget_tick = in.u64();
    list.push_back(m);
  }
}

void put_sound(SnapshotWriter& out, const Sound& s) {
  put_vec(out, s.position);
  out.f64(s.loudness);
  out.u32(s.source);
  out.u64(s.last_tick);
}

Sound get_sound(SnapshotReader& in) {
  Sound s;
  s.position = get_vec(in);
  s.loudness = in.f64();
  s.source = in.u32();
  s.last_tick = in.u64();
  return s;
}

}  // namespace

void Manager::save(SnapshotWriter& out) const {
  out.u64(tick_);
  out.u32(static_cast<std::uint32_t>(sensor_of_.size()));
  for (const SensorState* s : sensor_of_) {
    out.u8(s ? 1 : 0);
    if (!s) continue;
    put_percepts(out, s->percepts);
    if (lod_skips(s->senses->sight)) {
      put_percepts(out, s->sightings);
    } else {  // not kept without LOD: they are this tick's sight percepts but the exits
      std::vector<Percept> sightings;
      for (const Percept& p : s->percepts)
        if (p.sense == Sense::Sight && p.phase != Phase::Exit) sightings.push_back(p);
      put_percepts(out, sightings);
    }
    put_memory(out, s->memory);
  }
  out.u32(static_cast<std::uint32_t>(sounds_.size()));
  for (std::size_t i = 0; i < sounds_.size(); ++i) {
    put_sound(out, sounds_[i]);
    out.u32(sound_meta_[i].serial);
    out.i64(sound_meta_[i].team);
    out.u8(sound_meta_[i].has_team ? 1 : 0);
  }
  out.u32(next_sound_serial_);
  std::uint32_t queued = 0;
  for (const auto& q : queues_) queued += static_cast<std::uint32_t>(q.size());
  out.u32(queued);
  for (const auto& q : queues_)
    for (const QueuedSound& s : q) {
      put_sound(out, s.sound);
      out.u32(s.order);
    }
  out.u32(static_cast<std::uint32_t>(pickup_states_.size()));
  for (const PickupState& p : pickup_states_) {
    out.u8(p.active ? 1 : 0);
    out.u64(p.back_tick);
    out.u32(p.taken_by);
  }
}

void Manager::restore(SnapshotReader& in) {
  const std::size_t total = in.offset() + in.remaining();
  const std::uint64_t tick = in.u64();
  const std::uint32_t sensors = in.u32();
  if (!in.ok()) return;
  if (sensors != sensor_of_.size()) {
    in.fail("the snapshot has sensors for " + std::to_string(sensors) + " agents, the scenario for " +
            std::to_string(sensor_of_.size()));
    return;
  }
  for (std::uint32_t a = 0; a < sensors && in.ok(); ++a) {
    const bool present = in.u8() != 0;
    SensorState* s = sensor_of_[a];
    if (!present) {
      if (s) remove_sensor(a + 1);  // its agent had died
      continue;
    }
    if (!s) {
      in.fail("agent " + std::to_string(a + 1) + " has a sensor in the snapshot but none in the scenario");
      return;
    }
    s->agent = a + 1;
    get_percepts(in, total, s->percepts);
    get_percepts(in, total, s->sightings);
    get_memory(in, total, s->memory);
    s->next_forget = 0;
    // Area and pickup percepts name them by index (readers index areas() and pickups() with it),
    // a sighting its cone; each sense perceives its own kinds only (sight agents, hearing sounds,
    // touch anything but sounds: sight's phases sort by id alone on that premise); positions
    // must be numbers.
    for (std::span<const Percept> list : {std::span<const Percept>(s->percepts.data(), s->percepts.size()), std::span<const Percept>(s->sightings)})
      for (const Percept& p : list) {
        const bool bad_id = (p.kind == Kind::Area && (p.id == 0 || p.id > areas_.size())) ||
                            (p.kind == Kind::Pickup && (p.id == 0 || p.id > pickups_.size()));
        const bool bad_cone = p.sense == Sense::Sight && p.cone >= s->senses->sight.cones.size();
        const bool bad_kind = (p.sense == Sense::Sight && p.kind != Kind::Agent) ||
                              (p.sense == Sense::Hearing && p.kind != Kind::Sound) ||
                              (p.sense == Sense::Touch && p.kind == Kind::Sound);
        if (bad_id || bad_cone || bad_kind || !std::isfinite(p.position.x) || !std::isfinite(p.position.y))
          in.fail("agent " + std::to_string(a + 1) + " has a percept of something the scenario does not have");
      }
    for (const MemoryEntry& m : s->memory)
      if ((m.kind != Kind::Agent && m.kind != Kind::Sound) || !std::isfinite(m.position.x) || !std::isfinite(m.position.y))
        in.fail("agent " + std::to_string(a + 1) + " remembers something the scenario cannot have");
  }
  std::uint32_t n = in.u32();
  if (!in.ok() || !count_fits(in, n, 49, total - in.offset())) return;
  sounds_.clear();
  sound_meta_.clear();
  for (std::uint32_t k = 0; k < n && in.ok(); ++k) {
    sounds_.push_back(get_sound(in));
    if (!std::isfinite(sounds_.back().position.x) || !std::isfinite(sounds_.back().position.y) ||
        !std::isfinite(sounds_.back().loudness))
      in.fail("a sound is not at a place");
    SoundMeta meta;
    meta.serial = in.u32();
    meta.team = static_cast<std::int32_t>(in.i64());
    meta.has_team = in.u8() != 0;
    sound_meta_.push_back(meta);
  }
  next_sound_serial_ = in.u32();
  n = in.u32();
  if (!in.ok() || !count_fits(in, n, 36, total - in.offset())) return;
  for (auto& q : queues_) q.clear();
  for (std::uint32_t k = 0; k < n && in.ok(); ++k) {
    QueuedSound s;
    s.sound = get_sound(in);
    s.order = in.u32();
    if (!std::isfinite(s.sound.position.x) || !std::isfinite(s.sound.position.y) || !std::isfinite(s.sound.loudness) ||
        s.sound.last_tick == 0 || s.sound.last_tick > (std::uint64_t(1) << 50))
      in.fail("a queued sound is not at a place");
    queues_[0].push_back(s);
  }
  n = in.u32();
  if (!in.ok()) return;
  if (n != pickup_states_.size()) {
    in.fail("the snapshot has " + std::to_string(n) + " pickups, the scenario " + std::to_string(pickup_states_.size()));
    return;
  }
  for (PickupState& p : pickup_states_) {
    p.active = in.u8() != 0;
    p.back_tick = in.u64();
    p.taken_by = in.u32();
  }
  tick_ = tick;
}

}  // namespace thicket::perception
