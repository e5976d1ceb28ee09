// Perception (issue 13, after seed 003): triggers, sensors and an event manager.
//
// Triggers are stimuli: every live body in the world (an agent, found through the spatial hash:
// spawning registers it, despawning removes it), sounds (a loudness at a point, for a lifetime),
// touch areas and pickups (areas that go inactive for a time once taken, then come back).
// Sensors belong to agents: sight (one or more cones, line of sight against obstacles and map
// walls), hearing (a threshold) and touch (contact with bodies, areas and pickups). The Manager
// keeps both lists, updates and expires triggers once per tick (begin_tick, at one fixed point of
// the tick), tests each sensor against the triggers near it (spatial hash for bodies, a bucket
// grid for sounds; never all pairs) and keeps, per agent, this tick's percepts and a sense memory.
//
// Determinism: begin_tick runs on one thread; sense(agent) reads only the world as begun and
// writes only that agent's own state, so any number of threads may sense distinct agents at once
// and the results do not depend on which thread senses whom. Sounds emitted during a tick are
// queued and become audible at the next begin_tick, in the order (source agent id, emission
// order) whatever thread emitted them.
//
// Units: metres, radians, ticks (the caller gives dt in seconds to convert lifetimes).
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "thicket/export.hpp"
#include "thicket/nav.hpp"
#include "thicket/world.hpp"

namespace thicket {
class SnapshotWriter;
class SnapshotReader;
}  // namespace thicket

namespace thicket::perception {

using world::EntityId;
using world::Vec2;

enum class Sense : std::uint8_t { Sight, Hearing, Touch };
THICKET_API const char* sense_name(Sense sense);  // "sight", "hearing", "touch"

// What a percept is about.
enum class Kind : std::uint8_t { Agent, Sound, Area, Pickup };
THICKET_API const char* kind_name(Kind kind);  // "agent", "sound", "area", "pickup"

// Enter: perceived this tick and not the tick before (by this sense); Stay: both; Exit: the tick
// before but not this one (the percept carries where it was last perceived).
enum class Phase : std::uint8_t { Enter, Stay, Exit };
THICKET_API const char* phase_name(Phase phase);  // "enter", "stay", "exit"

// Whose bodies and sounds a sensor reports (relative to the sensing agent's team).
enum class Targets : std::uint8_t { Enemies, Friends, All };

// ---------------------------------------------------------------------------------------------
// Sensor settings (per group in a scenario)

struct SightCone {
  double range = 20.0;       // m, > 0
  double half_angle = 1.0;   // radians from the heading, (0, pi]; pi sees all round
};

struct SightSpec {
  std::vector<SightCone> cones;  // none: blind. E.g. a near wide cone and a far narrow one
  bool walls = true;             // line of sight against obstacles and map walls (else: x-ray)
  // Level of detail (seed 003): when no target is within lod_distance (m, 0 = LOD off), the
  // cones are checked only on ticks where (tick + agent id) % lod_every == 0; between checks the
  // last check's sightings stand (phase Stay, positions as then).
  double lod_distance = 0.0;
  std::uint32_t lod_every = 1;
};

struct HearingSpec {
  bool enabled = false;
  double threshold = 0.1;  // heard when the sound's strength at the ear is >= this (> 0)
  double walls = 1.0;      // strength factor when walls lie between sound and ear, [0, 1]
};

struct TouchSpec {
  bool enabled = false;
  double reach = 0.0;  // m beyond the body's radius that still counts as contact, >= 0
};

struct Senses {
  SightSpec sight;
  HearingSpec hearing;
  TouchSpec touch;
  Targets targets = Targets::Enemies;  // whose bodies and sounds count (anonymous sounds always)
  double memory = 5.0;                 // seconds an agent or sound stays remembered, >= 0
  bool any() const { return !sight.cones.empty() || hearing.enabled || touch.enabled; }
};

// Strength of a sound of `loudness` (its strength at 1 m) at distance d metres: inverse square,
// loudness / max(1, d)^2, so a sound never grows louder than its loudness near its source.
THICKET_API double sound_strength(double loudness, double distance);

// ---------------------------------------------------------------------------------------------
// Triggers

// A touch area (e.g. a goal zone): a circle or box obstacle shape, never solid.
struct Area {
  std::string name;
  world::Obstacle shape;
};

struct PickupSpec {
  std::string name;           // unique among pickups
  std::string kind;           // free text for brains: "health", "ammo", ...
  Vec2 position;
  double radius = 0.5;        // m, > 0: taken by a body that overlaps this circle
  double respawn = 10.0;      // s inactive after being taken, >= 0 (0: back the next tick)
  std::vector<std::int32_t> teams;  // teams that may take it; empty: any
};

struct PickupState {
  bool active = true;
  std::uint64_t back_tick = 0;  // inactive: the tick whose begin_tick makes it active again
  std::uint32_t taken_by = 0;   // the last taker's agent id (0: never taken)
};

struct Take {
  std::uint32_t pickup = 0;  // index into pickups()
  std::uint32_t agent = 0;   // agent id
};

struct Sound {
  Vec2 position;
  double loudness = 1.0;        // strength at 1 m
  std::uint32_t source = 0;     // the agent that made it; 0: anonymous
  std::uint64_t last_tick = 0;  // audible up to and including this tick
};

// ---------------------------------------------------------------------------------------------
// Percepts and memory

struct Percept {
  Sense sense = Sense::Sight;
  Kind kind = Kind::Agent;
  Phase phase = Phase::Enter;
  std::uint8_t cone = 0;     // sight: the first cone (in declaration order) that sees it, 0-based
                             // (Lua, the trace and --explain count from 1)
  std::uint32_t id = 0;      // Agent: agent id; Sound: source agent id (0 anonymous);
                             // Area / Pickup: index + 1 in areas() / pickups()
  std::uint32_t sound = 0;   // Sound: its serial (1, 2, ... in emission order over the run)
  bool taken = false;        // Pickup: this agent took it this tick
  Vec2 position;             // where it is (Exit: where it was last perceived)
  double distance = 0;       // m from the sensing agent's centre
  // sight: 1 - distance / range, the most over the cones that hold it; hearing: the strength at the ear;
  // touch: 1.
  double strength = 0;
};
// (Fields ordered so that a Percept is 48 bytes: perception reads and writes tens of them per
// agent and tick, and at 10k agents that traffic is a good part of its cost.)

// Percepts are listed in a fixed order: sense (sight, hearing, touch), then kind, then id, then
// sound serial; exits after the current percepts of the same sense.

struct MemoryEntry {            // 40 bytes
  Kind kind = Kind::Agent;       // Agent (seen, heard or touched) or Sound (anonymous)
  Sense sense = Sense::Sight;    // the sense that perceived it last
  std::uint32_t id = 0;          // agent id, or the sound's serial
  Vec2 position;                 // where it was last perceived
  std::uint64_t last_tick = 0;   // when
  // The entry is forgotten at the begin of tick last_tick + memory_ticks (memory_ticks =
  // round(memory / dt), at least 1): perceived last at tick 5 with 10 memory ticks, it is in
  // memory during ticks 5..14 and gone from tick 15.
  std::uint64_t forget_tick = 0;
};

// What the manager did, for benchmarks and tests (adds up; reset it yourself).
struct Stats {
  std::uint64_t sensed = 0;           // sense() calls on agents with senses
  std::uint64_t sight_checks = 0;     // agents whose cones were checked (not skipped by LOD)
  std::uint64_t lod_skips = 0;        // agents whose cone check LOD skipped
  std::uint64_t candidates = 0;       // bodies examined by sight queries
  std::uint64_t los_tests = 0;        // sight lines asked about (over open ground, all of an
                                      // agent's at once: Walls::region_clear)
  std::uint64_t sound_candidates = 0; // sounds examined by hearing
};

// ---------------------------------------------------------------------------------------------
// The event manager
//
// Decisions the text above leaves open (runtime/src/perception/*.cpp):
// - Bodies are agents: a live entity that agent_of_slot maps to 0 is never perceived (a
//   percept needs an agent id).
// - Sight: one walk for all cones (SpatialHash::in_cones, or the manager's own sight index
//   built from the hash at begin_tick, which gives the same answers); line of sight from the
//   agent's centre to the target's. LOD from a sensor's first tick: until its first check tick
//   it sees nothing.
// - Hearing: a sound's team is its source's team when the sound becomes audible (begin_tick);
//   a source no longer alive then makes it count as anonymous for Targets (it keeps its id).
//   Walls between sound and ear are tested only when hearing.walls < 1. Queued sounds of one
//   source keep their emission order; anonymous sounds queued in one tick are ordered by
//   content (position, loudness, length), whatever thread queued them.
// - Touch: a pickup taken at this tick's begin is still touched during this tick (the taker's
//   percept has taken = true), and exits the next. Area and pickup percepts carry the shape's
//   centre; distance is to that centre.
// - Phases compare with the agent's previous sense() call; an agent whose body is gone has only
//   exits. Memory: when several senses perceive one thing in a tick, the first in percept order
//   (sight, hearing, touch) gives the entry its sense and position. Areas and pickups are not
//   remembered.

class SightIndex;  // private to the implementation (runtime/src/perception/sight_index.hpp)
class SlabStore;   // likewise (runtime/src/perception/sensor_store.hpp)

class THICKET_API Manager {
 public:
  // The world, its hash (rebuilt by the caller each tick before begin_tick), the walls that
  // block sight and damp sound (may be null: none), agent_of_slot (entity slot index -> agent
  // id, 0 for none; it must outlive the manager and stay current), dt in seconds (> 0).
  Manager(const world::World& world, const world::SpatialHash& hash, const nav::Walls* walls,
          const std::vector<std::uint32_t>& agent_of_slot, double dt);
  ~Manager();  // out of line: SensorState is private to the implementation
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Registration. Agent ids are 1-based and dense (1..N). A sensor's Senses must outlive it.
  void add_sensor(std::uint32_t agent, const Senses& senses);
  void remove_sensor(std::uint32_t agent);  // on death: its percepts and memory go too
  void add_area(Area area);
  void add_pickup(PickupSpec pickup);

  // Queues a sound; it is audible from the next begin_tick for `seconds` (at least one tick:
  // ticks = max(1, round(seconds / dt))). Thread-safe: each thread passes its own queue index
  // (0 .. queues-1; see set_queues), and queues are merged in (source, order) order.
  void set_queues(std::uint32_t queues);
  void emit_sound(std::uint32_t queue, Vec2 position, double loudness, double seconds,
                  std::uint32_t source);

  // Once per tick, on one thread, after the hash is rebuilt: forgets expired sounds, makes
  // queued sounds audible, brings back pickups whose respawn time is up, gives active pickups
  // to the lowest agent id that overlaps each (and is of an allowed team), and builds the sound
  // index. tick: the tick now beginning (1, 2, ...).
  void begin_tick(std::uint64_t tick);

  // This tick's percepts and memory update for one agent (no-op for agents without a sensor).
  // Call after begin_tick; distinct agents may be sensed concurrently (stats: pass one per
  // thread and add them up).
  void sense(std::uint32_t agent, Stats* stats = nullptr);

  // Reads (valid until the agent's next sense()).
  std::span<const Percept> percepts(std::uint32_t agent) const;
  std::span<const MemoryEntry> memory(std::uint32_t agent) const;  // by (kind, id)
  bool sees(std::uint32_t agent, std::uint32_t target) const;  // a current sight percept
  bool has_sensor(std::uint32_t agent) const;

  std::span<const Area> areas() const { return areas_; }
  std::span<const PickupSpec> pickups() const { return pickups_; }
  std::span<const PickupState> pickup_states() const { return pickup_states_; }
  std::span<const Take> takes() const { return takes_; }  // this tick's, by pickup index
  std::span<const Sound> sounds() const { return sounds_; }  // audible this tick
  std::uint64_t tick() const { return tick_; }
  std::uint64_t ticks_for(double seconds) const;  // max(1, round(seconds / dt))

  // Bytes held per sensing agent (its state and buffers' capacity), for the benchmark.
  std::size_t bytes_per_sensor() const;

  // Snapshots (issue 15; manager_snapshot.cpp), between ticks: what carries from one tick to the
  // next (each sensor's last percepts, LOD sightings and memory; audible and queued sounds; the
  // pickups). restore: into a manager set up from the same scenario (same sensors, areas and
  // pickups); sensors the snapshot does not have are removed (their agents had died).
  void save(SnapshotWriter& out) const;
  void restore(SnapshotReader& in);

 private:
  struct SensorState;
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;
  struct QueuedSound {
    Sound sound;              // last_tick holds the sound's length in ticks until it is merged
    std::uint32_t order = 0;  // emission order within its queue
  };
  // What begin_tick learns about an audible sound, beside sounds_.
  struct SoundMeta {
    std::uint32_t serial = 0;
    std::int32_t team = 0;
    bool has_team = false;  // false: anonymous, or its source was no longer alive
  };
  void merge_queued_sounds();
  void build_sound_index();
  void take_pickups();
  std::uint32_t agent_of(EntityId id) const;
  const world::Entity* entity_of_agent(std::uint32_t agent) const;
  void sense_sight(SensorState& s, const world::Entity& self, const world::QueryFilter& filter,
                   Stats* stats);
  void sense_hearing(SensorState& s, const world::Entity& self, Stats* stats);
  void sense_touch(SensorState& s, const world::Entity& self, const world::QueryFilter& filter);
  void update_memory(SensorState& s);

  const world::World* world_;
  const world::SpatialHash* hash_;
  const nav::Walls* walls_;
  const std::vector<std::uint32_t>* agent_of_slot_;
  double dt_;
  std::uint64_t tick_ = 0;
  std::vector<SensorState*> sensor_of_;  // by agent id - 1 (null: none)
  std::unique_ptr<SlabStore> sensor_store_;  // where sensor_of_'s states live (the manager owns them)
  std::vector<std::uint32_t> slot_of_agent_;  // by agent id - 1, this tick (kNoSlot: none)
  double max_body_radius_ = 0;                // over live entities, this tick
  // Bodies for sight, rebuilt from the hash at begin_tick when some sensor has cones: answers
  // the hash's in_cones exactly, faster (see sight_index.hpp).
  std::unique_ptr<SightIndex> sight_index_;
  std::vector<Area> areas_;
  std::vector<PickupSpec> pickups_;
  std::vector<PickupState> pickup_states_;
  std::vector<std::uint8_t> pickup_touchable_;  // active at this tick's start (taken or not)
  std::vector<Take> takes_;
  std::vector<EntityId> pickup_scratch_;        // begin_tick only
  std::vector<Sound> sounds_;
  std::vector<SoundMeta> sound_meta_;           // beside sounds_
  std::uint32_t next_sound_serial_ = 1;
  std::vector<std::vector<QueuedSound>> queues_;
  std::vector<QueuedSound> merge_scratch_;
  // Sound index: a bucket grid over the world's bounds; each audible sound is listed in every
  // cell its disc (where some registered listener could hear it) overlaps.
  double sound_cell_ = 16.0;
  Vec2 sound_origin_;
  std::int32_t sound_columns_ = 1, sound_rows_ = 1;
  std::vector<std::uint32_t> sound_bucket_start_, sound_bucket_items_;
  std::vector<std::uint32_t> loud_sounds_;  // discs too wide for the grid: heard-checked by all
  double min_threshold_ = std::numeric_limits<double>::infinity();
};

}  // namespace thicket::perception
