// The entity store: one contiguous array of slots, handles with generations, a free-slot stack.
#include <algorithm>

#include "thicket/world.hpp"

namespace thicket::world {

namespace {

// Generations wrap within the handle's high bits.
constexpr std::uint32_t kGenerationCount = 1u << (32 - EntityId::kIndexBits);

}  // namespace

bool vehicle_field_fits(std::string_view field, double v) {
  if (!std::isfinite(v)) return false;
  if (field == "mass") return v >= Vehicle::kMinMass && v <= Vehicle::kMaxMass;
  if (field == "max_speed") return v >= 0 && v <= Vehicle::kMaxSpeed;
  if (field == "max_force") return v >= 0 && v <= Vehicle::kMaxForce;
  if (field == "radius") return v >= 0 && v <= Vehicle::kMaxRadius;
  return false;
}

const char* vehicle_field_range(std::string_view field) {
  if (field == "mass") return "a number from 0.000001 to 1e12 (kg)";
  if (field == "max_speed") return "a number from 0 to 1e6 (m/s)";
  if (field == "max_force") return "a number from 0 to 1e15 (N)";
  if (field == "radius") return "a number from 0 to 1e6 (m)";
  return "?";
}

bool is_valid(const Vehicle& vehicle) {
  return vehicle_field_fits("mass", vehicle.mass) && vehicle_field_fits("max_speed", vehicle.max_speed) &&
         vehicle_field_fits("max_force", vehicle.max_force) && vehicle_field_fits("radius", vehicle.radius);
}

namespace {

// Distance from p to the segment a-b.
double segment_distance(Vec2 p, Vec2 a, Vec2 b) {
  Vec2 ab = b - a;
  double len_sq = ab.length_squared();
  double t = len_sq > 0 ? std::clamp((p - a).dot(ab) / len_sq, 0.0, 1.0) : 0.0;
  return (p - (a + ab * t)).length();
}

// Even-odd rule: a ray from p towards +x crosses the polygon's edges an odd number of times.
bool polygon_contains(std::span<const Vec2> v, Vec2 p) {
  bool inside = false;
  for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) {
    if ((v[i].y > p.y) != (v[j].y > p.y)) {
      double x = v[j].x + (p.y - v[j].y) * (v[i].x - v[j].x) / (v[i].y - v[j].y);
      if (p.x < x) inside = !inside;
    }
  }
  return inside;
}

}  // namespace

Obstacle Obstacle::polygon(std::vector<Vec2> corners) {
  Obstacle o;
  o.shape = ObstacleShape::Polygon;
  if (corners.empty()) return o;
  Vec2 lo = corners[0], hi = corners[0];
  for (Vec2 c : corners) {
    lo = {std::min(lo.x, c.x), std::min(lo.y, c.y)};
    hi = {std::max(hi.x, c.x), std::max(hi.y, c.y)};
  }
  o.centre = (lo + hi) / 2;
  o.half_extents = (hi - lo) / 2;
  for (Vec2 c : corners) o.radius = std::max(o.radius, distance(c, o.centre));
  o.vertices = std::move(corners);
  return o;
}

bool obstacle_contains(const Obstacle& obstacle, Vec2 p) { return distance_to_obstacle(obstacle, p) <= 0.0; }

double distance_to_obstacle(const Obstacle& obstacle, Vec2 p) {
  Vec2 offset = p - obstacle.centre;
  if (obstacle.shape == ObstacleShape::Circle) {
    return std::max(0.0, offset.length() - obstacle.radius);
  }
  if (obstacle.shape == ObstacleShape::Polygon) {
    const auto& v = obstacle.vertices;
    if (v.size() < 3 || polygon_contains(v, p)) return 0.0;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) best = std::min(best, segment_distance(p, v[j], v[i]));
    return best;
  }
  // How far p sticks out of the box on each axis (0 when within its extent on that axis).
  Vec2 outside{std::max(0.0, std::abs(offset.x) - obstacle.half_extents.x),
               std::max(0.0, std::abs(offset.y) - obstacle.half_extents.y)};
  return outside.length();
}

World::World(Bounds bounds)
    : bounds_{{std::min(bounds.min.x, bounds.max.x), std::min(bounds.min.y, bounds.max.y)},
              {std::max(bounds.min.x, bounds.max.x), std::max(bounds.min.y, bounds.max.y)}} {}

EntityId World::spawn(Vec2 position, const Vehicle& vehicle, std::int32_t team, Vec2 heading) {
  if (!is_valid(vehicle)) return EntityId::none();
  std::uint32_t slot;
  std::uint32_t generation = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    generation = (entities_[slot].id.generation() + 1) % kGenerationCount;
  } else {
    if (entities_.size() >= EntityId::kMaxSlots) return EntityId::none();
    slot = static_cast<std::uint32_t>(entities_.size());
    entities_.emplace_back();
  }
  Vec2 unit_heading = heading.normalized();
  Entity& e = entities_[slot];
  e = Entity{};
  e.id = EntityId::from(slot, generation);
  e.position = position;
  e.heading = unit_heading == Vec2{} ? Vec2{1, 0} : unit_heading;
  e.vehicle = vehicle;
  e.team = team;
  e.alive = true;
  return e.id;
}

bool World::despawn(EntityId id) {
  Entity* e = entity(id);
  if (e == nullptr) return false;
  e->alive = false;  // the id stays, so the next spawn here knows which generation comes next
  free_slots_.push_back(id.index());
  return true;
}

Entity* World::entity(EntityId id) {
  return const_cast<Entity*>(static_cast<const World*>(this)->entity(id));
}

const Entity* World::entity(EntityId id) const {
  if (id.is_none() || id.index() >= entities_.size()) return nullptr;
  const Entity& e = entities_[id.index()];
  return e.alive && e.id == id ? &e : nullptr;
}

void World::move_entities(std::span<const Vec2> force_by_slot, double dt) {
  for (std::size_t slot = 0; slot < entities_.size(); ++slot) {
    Entity& e = entities_[slot];
    if (!e.alive) continue;
    Vec2 force = slot < force_by_slot.size() ? force_by_slot[slot] : Vec2{};
    move_entity(e, force, dt, bounds_);
  }
}

}  // namespace thicket::world
