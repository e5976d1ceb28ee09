// The entity store: one contiguous array of slots, handles with generations, a free-slot stack.
#include <algorithm>

#include "thicket/world.hpp"

namespace thicket::world {

namespace {

bool is_finite_at_least(double value, double minimum) {
  return std::isfinite(value) && value >= minimum;
}

// Generations wrap within the handle's high bits.
constexpr std::uint32_t kGenerationCount = 1u << (32 - EntityId::kIndexBits);

}  // namespace

bool is_valid(const Vehicle& vehicle) {
  return std::isfinite(vehicle.mass) && vehicle.mass > 0.0 &&
         is_finite_at_least(vehicle.max_speed, 0.0) &&
         is_finite_at_least(vehicle.max_force, 0.0) && is_finite_at_least(vehicle.radius, 0.0);
}

double distance_to_obstacle(const Obstacle& obstacle, Vec2 p) {
  Vec2 offset = p - obstacle.centre;
  if (obstacle.shape == ObstacleShape::Circle) {
    return std::max(0.0, offset.length() - obstacle.radius);
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
