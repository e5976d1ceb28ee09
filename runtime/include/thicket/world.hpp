// The 2D world toolkit: vehicles that move under steering forces, the steering behaviours of
// the steering and perception toolkit (Reynolds/Buckland), and neighbour queries through a uniform spatial hash.
//
// Units everywhere: metres, seconds, kilograms, radians. A "force" is in newtons (kg·m/s²); the
// behaviours that steer toward a desired velocity return (desired velocity − current velocity),
// which the motion step reads as a force, as in the steering toolkit.
//
// Nothing here allocates on the tick path once buffers have grown to their working size, nothing
// throws, nothing reads a clock, and there is no global state: same inputs, bit-identical outputs.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "thicket/export.hpp"

namespace thicket::world {

// ---------------------------------------------------------------------------------------------
// Vectors

struct Vec2 {
  double x = 0.0;
  double y = 0.0;

  constexpr Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  constexpr Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
  constexpr Vec2 operator-() const { return {-x, -y}; }
  constexpr Vec2 operator*(double s) const { return {x * s, y * s}; }
  constexpr Vec2 operator/(double s) const { return {x / s, y / s}; }
  constexpr Vec2& operator+=(Vec2 o) { x += o.x; y += o.y; return *this; }
  constexpr Vec2& operator-=(Vec2 o) { x -= o.x; y -= o.y; return *this; }
  constexpr Vec2& operator*=(double s) { x *= s; y *= s; return *this; }
  constexpr Vec2& operator/=(double s) { x /= s; y /= s; return *this; }
  friend constexpr Vec2 operator*(double s, Vec2 v) { return v * s; }
  friend constexpr bool operator==(Vec2, Vec2) = default;

  constexpr double dot(Vec2 o) const { return x * o.x + y * o.y; }
  // The z of the 3-D cross product: > 0 when o is counter-clockwise of this vector.
  constexpr double cross(Vec2 o) const { return x * o.y - y * o.x; }
  constexpr double length_squared() const { return x * x + y * y; }
  // (Past ~1e154 a component's square overflows: hypot then, so that a huge force still has its
  // length and direction, and is truncated to max_force rather than to nothing.)
  double length() const {
    const double sq = length_squared();
    return sq <= std::numeric_limits<double>::max() ? std::sqrt(sq) : std::hypot(x, y);
  }
  // The vector turned a quarter turn counter-clockwise: "to the left" of a heading.
  constexpr Vec2 perpendicular() const { return {-y, x}; }
  // Unit vector in the same direction; the zero vector stays zero (it has no direction).
  Vec2 normalized() const {
    double len = length();
    return len > 0.0 ? Vec2{x / len, y / len} : Vec2{};
  }
  // The same vector shortened to max_length if it is longer. max_length: >= 0.
  Vec2 truncated(double max_length) const {
    if (length_squared() <= max_length * max_length) return *this;
    return *this * (max_length / length());
  }
};

inline double distance(Vec2 a, Vec2 b) { return (a - b).length(); }

// ---------------------------------------------------------------------------------------------
// The static world: bounds and obstacles

// An axis-aligned rectangle, min <= max on both axes. Metres.
struct Bounds {
  Vec2 min;
  Vec2 max;
  constexpr bool contains(Vec2 p) const {
    return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y;
  }
};

enum class ObstacleShape : std::uint8_t { Circle, Box, Polygon };

// A static obstacle: a circle, an axis-aligned box, or a simple polygon. Make them with
// circle(), box() and polygon().
struct THICKET_API Obstacle {
  ObstacleShape shape = ObstacleShape::Circle;
  Vec2 centre;         // metres; a polygon's: the centre of its bounding box
  double radius = 0;   // circles: metres, >= 0; polygons: the bounding circle around centre
  Vec2 half_extents;   // boxes and polygons (its bounding box); metres, >= 0 on both axes
  std::vector<Vec2> vertices;  // polygons only: >= 3 corners in order (either winding), simple

  static constexpr Obstacle circle(Vec2 centre, double radius) {
    return {ObstacleShape::Circle, centre, radius, {}, {}};
  }
  // corner_a and corner_b are opposite corners, in either order.
  static Obstacle box(Vec2 corner_a, Vec2 corner_b) {
    Vec2 half{std::abs(corner_b.x - corner_a.x) / 2, std::abs(corner_b.y - corner_a.y) / 2};
    return {ObstacleShape::Box, (corner_a + corner_b) / 2, 0.0, half, {}};
  }
  // corners: >= 3 points in order around a simple (not self-crossing) polygon.
  static Obstacle polygon(std::vector<Vec2> corners);
};

// True when p is inside the obstacle or on its edge.
THICKET_API bool obstacle_contains(const Obstacle& obstacle, Vec2 p);

// Distance in metres from p to the obstacle's surface; 0 when p is inside it.
THICKET_API double distance_to_obstacle(const Obstacle& obstacle, Vec2 p);

// ---------------------------------------------------------------------------------------------
// Entities

// A vehicle's physical limits (the steering toolkit's Vehicle: a point mass with a body radius).
struct Vehicle {
  double mass = 1.0;       // kg, [kMinMass, kMaxMass]
  double max_speed = 1.0;  // m/s, [0, kMaxSpeed]
  double max_force = 1.0;  // N, [0, kMaxForce]; the steering force is truncated to it every tick
  double radius = 0.5;     // m, [0, kMaxRadius]; the body, used by obstacle avoidance
  // The bounds keep a tick's motion finite (force / mass, speed * dt): a mass of 1e-310 made
  // the acceleration infinite and the position NaN, a speed of 1e308 the position infinite.
  static constexpr double kMinMass = 1e-6, kMaxMass = 1e12;
  static constexpr double kMaxSpeed = 1e6, kMaxForce = 1e15, kMaxRadius = 1e6;
};

// True when every limit above holds (and none is NaN).
THICKET_API bool is_valid(const Vehicle& vehicle);
// What a vehicle field ("mass", "max_speed", "max_force" or "radius") takes, for messages:
// "a number from 1e-06 to 1e+12", ...; and whether v is such a number.
THICKET_API const char* vehicle_field_range(std::string_view field);
THICKET_API bool vehicle_field_fits(std::string_view field, double v);

// A stable handle to an entity (Recast-style): the slot index in the low 22 bits, the slot's
// generation in the high 10 bits. A handle kept past its entity's despawn no longer resolves,
// even after the slot is reused, until the generation wraps (1024 reuses of one slot). While no
// slot has been reused, ids are simply 0, 1, 2, ... in spawn order. Handles order by their bits;
// every query result is in that order.
struct EntityId {
  static constexpr int kIndexBits = 22;
  static constexpr std::uint32_t kIndexMask = (1u << kIndexBits) - 1;
  static constexpr std::uint32_t kMaxSlots = kIndexMask;  // index kIndexMask is none()'s

  std::uint32_t bits = 0xFFFFFFFFu;

  static constexpr EntityId none() { return {}; }
  static constexpr EntityId from(std::uint32_t index, std::uint32_t generation) {
    return {(generation << kIndexBits) | (index & kIndexMask)};
  }
  constexpr std::uint32_t index() const { return bits & kIndexMask; }
  constexpr std::uint32_t generation() const { return bits >> kIndexBits; }
  constexpr bool is_none() const { return bits == 0xFFFFFFFFu; }
  friend constexpr auto operator<=>(EntityId, EntityId) = default;
};

struct Entity {
  EntityId id;
  Vec2 position;        // m
  Vec2 velocity;        // m/s
  Vec2 heading{1, 0};   // unit vector; follows the velocity while the entity moves
  Vehicle vehicle;
  std::int32_t team = 0;
  bool alive = false;   // false for a free slot

  double radius() const { return vehicle.radius; }
  double speed() const { return velocity.length(); }
};

// The world: bounds, static obstacles, and entities in one contiguous array of slots. A
// despawned entity's slot is reused by a later spawn (last freed, first reused) under a new
// generation, so the array does not grow with churn.
class THICKET_API World {
 public:
  // bounds: the playable area; corners in either order.
  explicit World(Bounds bounds);

  // Adds an entity at rest. heading: any non-zero vector (normalized here; zero means +x).
  // Returns EntityId::none() when the vehicle is invalid or all kMaxSlots slots are taken.
  EntityId spawn(Vec2 position, const Vehicle& vehicle, std::int32_t team = 0,
                 Vec2 heading = {1, 0});
  // Frees the entity's slot. Returns false for a stale or unknown id.
  bool despawn(EntityId id);
  // The live entity with this id, or nullptr when the id is stale, unknown or none().
  Entity* entity(EntityId id);
  const Entity* entity(EntityId id) const;

  // Every slot, live or free (check Entity::alive); slot i holds an id whose index() is i.
  std::span<Entity> entities() { return entities_; }
  std::span<const Entity> entities() const { return entities_; }
  std::size_t live_count() const { return entities_.size() - free_slots_.size(); }

  const Bounds& bounds() const { return bounds_; }
  std::span<const Obstacle> obstacles() const { return obstacles_; }
  void add_obstacle(const Obstacle& obstacle) { obstacles_.push_back(obstacle); }

  // One motion step for every live entity: slot i is pushed by force_by_slot[i] (slots past the
  // span's end get no force). dt: seconds, >= 0.
  void move_entities(std::span<const Vec2> force_by_slot, double dt);

 private:
  Bounds bounds_;
  std::vector<Entity> entities_;
  std::vector<std::uint32_t> free_slots_;  // a stack: deterministic reuse order
  std::vector<Obstacle> obstacles_;
};

// ---------------------------------------------------------------------------------------------
// Motion

// Below this speed (m/s) an entity keeps its heading: the direction of a near-zero velocity is
// noise, and a standing agent should keep facing where it faced.
inline constexpr double kHeadingMinSpeed = 1e-6;

// One tick of motion: the force is truncated to max_force, a = F / mass, the velocity gains a·dt
// and is truncated to max_speed, the position gains v·dt. The position (the entity's centre) is
// then clamped into bounds and the velocity component pointing out of them is zeroed, so an
// entity slides along a wall instead of pressing into it. Finally the heading takes the
// velocity's direction if the speed exceeds kHeadingMinSpeed. dt: seconds, >= 0.
THICKET_API void move_entity(Entity& entity, Vec2 steering_force, double dt, const Bounds& bounds);

// ---------------------------------------------------------------------------------------------
// Random stream for behaviours that draw (wander). The caller owns the state, one per agent, so
// a run is reproducible whatever the scheduling.

// splitmix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the output is the
// state mixed by two xor-shift-multiply rounds and a final xor-shift.
THICKET_API std::uint64_t splitmix64(std::uint64_t& state);
// A uniform draw in [-1, 1): the top 53 bits of splitmix64 scaled to [0, 1), then 2u − 1.
THICKET_API double random_signed_unit(std::uint64_t& state);

// ---------------------------------------------------------------------------------------------
// Steering behaviours. Each returns a force that is not yet truncated; combine them below.

// Toward target at full speed: normalized(target − position)·max_speed − velocity.
THICKET_API Vec2 seek(const Entity& self, Vec2 target);

// Away from threat at full speed, but only while the threat is within panic_distance (m, >= 0,
// inclusive); farther than that the force is zero. On top of the threat there is no "away": the force
// brakes (−velocity).
THICKET_API Vec2 flee(const Entity& self, Vec2 threat,
          double panic_distance = std::numeric_limits<double>::infinity());

// Seek that slows down: inside slowing_radius (m, > 0) the desired speed is
// max_speed·distance/slowing_radius, so the entity comes to rest on the target (a radius <= 0
// never slows: it is seek, except that on the target itself it brakes).
THICKET_API Vec2 arrive(const Entity& self, Vec2 target, double slowing_radius);

// Facing-each-other test of pursuit: the quarry is ahead of us and its heading makes a dot
// product below this with ours (about 18° from head-on); then pursuit seeks it directly.
inline constexpr double kHeadOnCosine = -0.95;

// Seeks where quarry will be: its position + its velocity·T, T = distance /
// (own max_speed + quarry's speed) seconds (0 if both are 0): the time to meet if both ran
// straight at each other. When the quarry is ahead and coming head-on (kHeadOnCosine), seeks its
// current position, since a prediction there only overshoots (as in the steering toolkit).
THICKET_API Vec2 pursuit(const Entity& self, const Entity& quarry);

// Flees where pursuer will be, predicted as in pursuit. panic_distance (m, >= 0, inclusive) is
// measured to the pursuer's current position: farther than that, the force is zero.
THICKET_API Vec2 evade(const Entity& self, const Entity& pursuer,
           double panic_distance = std::numeric_limits<double>::infinity());

// Wander (Reynolds): a target slides randomly on a circle projected ahead of the entity and the
// entity seeks it, so it turns smoothly instead of twitching.
struct WanderParams {
  double distance = 2.0;  // m, centre of the circle ahead of the entity, >= 0
  double radius = 1.0;    // m, the circle, >= 0
  double jitter = 0.3;    // m, the most the target moves along each axis per call (per tick), >= 0
};
// The caller keeps one per agent between ticks.
struct WanderState {
  // The target on the circle in the entity's frame (x ahead, y to the left), metres relative to
  // the circle's centre. Starts straight ahead.
  Vec2 local_target{1.0, 0.0};
};
// Each call draws the x jitter, then the y jitter, from rng (two splitmix64 steps), moves the
// target by them, puts it back on the circle, and seeks it.
THICKET_API Vec2 wander(const Entity& self, const WanderParams& params, WanderState& state,
            std::uint64_t& rng);

// Path following: seek each waypoint in turn; a waypoint counts as reached within
// waypoint_radius. A closed path loops forever; an open one arrives at its last waypoint.
struct PathParams {
  bool closed = false;
  double waypoint_radius = 1.0;  // m, >= 0
  double slowing_radius = 3.0;   // m, > 0; open paths arrive at the last waypoint with it
};
// The caller keeps one per agent and path; reset it (= {}) to start over.
struct PathProgress {
  std::uint32_t waypoint = 0;  // index of the waypoint being sought
  bool arrived = false;        // open paths: within waypoint_radius of the last waypoint
};
// Advances progress past every waypoint already within reach (at most one lap per call), then
// seeks the current waypoint, or arrives at it when it is an open path's last. No waypoints: no
// force.
THICKET_API Vec2 follow_path(const Entity& self, std::span<const Vec2> waypoints, const PathParams& params,
                 PathProgress& progress);

// Obstacle avoidance: a detection box runs ahead of the entity along its heading, as wide as
// its body (radius on each side) and min_length + look_ahead·speed long. Of the obstacles that
// intersect the box, the one nearest the entity (distance_to_obstacle) pushes it sideways, away
// from the obstacle's centre (dead ahead: to the right), with max_force·(1 − distance/length):
// full force at contact, fading to none at the far end of the box.
struct AvoidanceParams {
  double min_length = 2.0;  // m, the box's length at rest, >= 0
  double look_ahead = 1.0;  // s, the box grows by speed·look_ahead, >= 0
};
// obstacles: scanned in full, so keep the list short (or pre-filter it near the entity).
THICKET_API Vec2 avoid_obstacles(const Entity& self, std::span<const Obstacle> obstacles,
                     const AvoidanceParams& params);

// The group behaviours take neighbours as ids (a query result); ids that no longer resolve and
// the entity's own id are skipped. No usable neighbour: no force.

// Σ r/|r|² over neighbours, r = own position − neighbour's: a push away from each neighbour
// that grows as it gets closer. A neighbour exactly on top of us has no direction and adds
// nothing. Units: 1/m; give it a weight.
THICKET_API Vec2 separation(const Entity& self, const World& world, std::span<const EntityId> neighbours);
// The neighbours' mean heading minus our own heading (dimensionless; give it a weight).
THICKET_API Vec2 alignment(const Entity& self, const World& world, std::span<const EntityId> neighbours);
// Seeks the neighbours' centre of mass (the mean of their positions).
THICKET_API Vec2 cohesion(const Entity& self, const World& world, std::span<const EntityId> neighbours);

// ---------------------------------------------------------------------------------------------
// Combining forces

struct WeightedForce {
  Vec2 force;
  double weight = 1.0;
};

// Σ weight·force, truncated to max_force (N, >= 0).
THICKET_API Vec2 weighted_truncated_sum(std::span<const WeightedForce> forces, double max_force);

// Prioritised accumulation (Buckland): forces in priority order, most important first. Each
// weight·force is added while |running total| leaves room under max_force; the first one that
// does not fit is scaled to fill what remains and the rest are dropped. So avoidance listed
// first is never drowned out by a strong separation listed later.
THICKET_API Vec2 prioritised_sum(std::span<const WeightedForce> forces_by_priority, double max_force);

// ---------------------------------------------------------------------------------------------
// Neighbour queries

// Which teams a query accepts.
struct TeamFilter {
  enum class Mode : std::uint8_t { Any, Only, AllBut };
  Mode mode = Mode::Any;
  std::int32_t team = 0;

  static constexpr TeamFilter any() { return {}; }
  static constexpr TeamFilter only(std::int32_t team) { return {Mode::Only, team}; }
  static constexpr TeamFilter all_but(std::int32_t team) { return {Mode::AllBut, team}; }
  constexpr bool accepts(std::int32_t t) const {
    return mode == Mode::Any || (mode == Mode::Only) == (t == team);
  }
};

// Who a query may return, e.g. {.excluded = me.id, .teams = TeamFilter::all_but(me.team)}.
struct QueryFilter {
  EntityId excluded = EntityId::none();
  TeamFilter teams = TeamFilter::any();
};

// What queries visited, for tests and benchmarks: queries add to it, never reset it.
struct QueryCost {
  std::uint64_t cells = 0;    // grid cells looked up
  std::uint64_t entries = 0;  // entities examined (including hash neighbours of other cells)
  // Once `entries` passes it, no more entities are examined: the answer is cut short, and the
  // caller, seeing entries > limit, does not use it (a script's share of a tick's queries).
  std::uint64_t limit = UINT64_MAX;
};

// A uniform grid of square cells over the infinite plane, hashed into a table sized to the
// population, so memory and rebuild time are O(live entities) whatever the world's extent.
// Rebuild it once per tick; between rebuilds it answers from the positions it was built with
// (the world as it was at the start of the tick). Queries are const and keep no scratch state,
// so any number of threads may query one hash at once. With at most 8 teams present, each
// cell's entries are grouped by team, so a query filtered to one team (or to all but one) reads
// only the accepted teams' entries: a minion's nearest enemy among crowds of its own team.
class THICKET_API SpatialHash {
 public:
  // cell_size: metres, > 0; about the usual query radius is a good choice.
  explicit SpatialHash(double cell_size);

  // O(live entities); reuses its storage, so it stops allocating once the population peaks.
  void rebuild(const World& world);

  double cell_size() const { return cell_size_; }
  std::size_t size() const { return entries_.size(); }

  // Entities whose centre is within radius (m, inclusive) of centre. out is cleared, then
  // filled in ascending id order; it allocates only while growing past its capacity. A negative
  // or NaN radius finds nothing.
  void within_radius(Vec2 centre, double radius, std::vector<EntityId>& out,
                     const QueryFilter& filter = {}, QueryCost* cost = nullptr) const;

  // The radar of the perception toolkit: entities within range (m) of eye whose direction from eye lies within
  // half_angle (radians; >= pi sees all round) of heading (any non-zero vector). An entity at the
  // eye itself counts as seen; one exactly on the cone's edge may fall either way by rounding.
  // A negative or NaN range sees nothing. Same output contract as within_radius.
  void in_field_of_view(Vec2 eye, Vec2 heading, double range, double half_angle,
                        std::vector<EntityId>& out, const QueryFilter& filter = {},
                        QueryCost* cost = nullptr) const;

  // Several cones sharing one eye and heading (a near wide cone for peripheral vision and a far
  // narrow one, say) in one walk of the cells: each entity inside any cone (as in_field_of_view
  // decides it, cone by cone) once, with the first cone in `cones` order that holds it and its
  // position as the hash was built with. out is cleared, then filled in ascending id order.
  struct ViewCone {
    double range = 0;       // m; a negative or NaN range sees nothing
    double half_angle = 0;  // radians from the heading; >= pi sees all round
  };
  struct Sighting {
    EntityId id;
    std::uint32_t cone = 0;  // index into cones
    Vec2 position;
  };
  void in_cones(Vec2 eye, Vec2 heading, std::span<const ViewCone> cones, std::vector<Sighting>& out,
                const QueryFilter& filter = {}, QueryCost* cost = nullptr) const;

  // True when some accepted entity lies within radius (m, inclusive) of point: nearest() !=
  // none(), but it stops at the first one found, starting with point's own cell.
  bool any_within(Vec2 point, double radius, const QueryFilter& filter = {},
                  QueryCost* cost = nullptr) const;

  // The nearest accepted entity within radius (m, inclusive) of point, or none(). Equal
  // distances go to the lower id.
  EntityId nearest(Vec2 point, double radius, const QueryFilter& filter = {},
                   QueryCost* cost = nullptr) const;

  // Calls visit(position, id, team) for every entry as the last rebuild stored it, in the
  // hash's own order: for callers that keep an index of their own (perception's sight index)
  // built from exactly the hash's view of the world.
  template <class Visit>
  void for_each_entry(Visit&& visit) const {
    for (const Entry& e : entries_) visit(e.position, e.id, e.team);
  }

 private:
  struct Entry {
    Vec2 position;
    EntityId id;
    std::int32_t team;
    std::int32_t cell_x;
    std::int32_t cell_y;
  };
  // Up to this many distinct teams, each bucket's entries are grouped by team (see rebuild).
  static constexpr std::uint32_t kMaxTeamGroups = 8;
  std::int32_t cell_of(double coordinate) const;
  std::uint32_t bucket_of(std::int32_t cell_x, std::int32_t cell_y) const;
  std::uint32_t team_rank(std::int32_t team) const;  // team_count_ when no entry has that team
  // Calls range(begin, end) for the stretches of entries_ in buckets b0..b1 (consecutive) that
  // may hold a team the filter accepts: all of them, or only the accepted teams' groups.
  template <class Range>
  void for_each_range(std::uint32_t b0, std::uint32_t b1, const TeamFilter& teams, QueryCost* cost,
                      Range&& range) const;
  // Calls visit(entry) for every entry whose cell overlaps the square around centre (and whose
  // team group the filter may accept: visit still tests the filter).
  template <class Visit>
  void for_each_entry_near(Vec2 centre, double reach, const TeamFilter& teams, QueryCost* cost,
                           Visit&& visit) const;
  // Calls visit(entry) for every entry whose cell overlaps the box lo..hi and for which
  // keep_cell(cell's centre) holds (a conservative test: false only for cells that cannot hold
  // a wanted entity).
  template <class Visit, class KeepCell>
  void for_each_entry_in(Vec2 lo, Vec2 hi, const TeamFilter& teams, QueryCost* cost, KeepCell&& keep_cell,
                         Visit&& visit) const;

  double cell_size_;
  double inverse_cell_size_;
  std::uint32_t bucket_mask_ = 0;
  // Teams present at the last rebuild, ascending (team_count_ of them), when there are at most
  // kMaxTeamGroups; else team_count_ = 1 and buckets are not grouped by team.
  std::uint32_t team_count_ = 1;
  std::int32_t teams_[kMaxTeamGroups] = {};
  // Bucket b, team rank r: entries [start[b * team_count_ + r], start[b * team_count_ + r + 1]).
  std::vector<std::uint32_t> bucket_start_;
  std::vector<Entry> entries_;                // by bucket, then team rank, ascending slot within one
  std::vector<std::uint32_t> bucket_scratch_; // rebuild only: each live slot's key (bucket, team)
};

}  // namespace thicket::world
