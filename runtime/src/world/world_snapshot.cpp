// World entities in a snapshot: one fixed-size record per slot.
#include "world/world_snapshot.hpp"

#include <cmath>

namespace thicket::world {

void save_world(const World& world, SnapshotWriter& out) {
  std::span<const Entity> slots = world.entities();
  out.u32(static_cast<std::uint32_t>(slots.size()));
  for (const Entity& e : slots) {
    out.u32(e.id.bits);
    out.u8(e.alive ? 1 : 0);
    put_vec(out, e.position);
    put_vec(out, e.velocity);
    put_vec(out, e.heading);
    out.f64(e.vehicle.mass);
    out.f64(e.vehicle.max_speed);
    out.f64(e.vehicle.max_force);
    out.f64(e.vehicle.radius);
    out.i64(e.team);
  }
}

void restore_world(World& world, SnapshotReader& in) {
  std::span<Entity> slots = world.entities();
  const std::uint32_t count = in.u32();
  if (!in.ok()) return;
  if (count != slots.size()) {
    in.fail("the world has " + std::to_string(slots.size()) + " entity slots, the snapshot " + std::to_string(count));
    return;
  }
  // World::despawn keeps the free slots as a stack; slots freed here go on it in slot order.
  // The order only matters to a later spawn, and a scenario run spawns only at its start.
  std::vector<EntityId> freed;
  for (Entity& e : slots) {
    Entity saved;
    saved.id.bits = in.u32();
    const std::uint8_t alive = in.u8();
    saved.position = get_vec(in);
    saved.velocity = get_vec(in);
    saved.heading = get_vec(in);
    saved.vehicle.mass = in.f64();
    saved.vehicle.max_speed = in.f64();
    saved.vehicle.max_force = in.f64();
    saved.vehicle.radius = in.f64();
    saved.team = static_cast<std::int32_t>(in.i64());
    if (!in.ok()) return;
    // Checked, not trusted: a NaN position would reach the spatial hash's cell arithmetic.
    const bool finite = std::isfinite(saved.position.x) && std::isfinite(saved.position.y) && std::isfinite(saved.velocity.x) &&
                        std::isfinite(saved.velocity.y) && std::isfinite(saved.heading.x) && std::isfinite(saved.heading.y);
    if (alive > 1 || !finite || saved.id.index() != static_cast<std::uint32_t>(&e - slots.data()) || !is_valid(saved.vehicle)) {
      in.fail("entity slot " + std::to_string(&e - slots.data()) + " is not a valid entity");
      return;
    }
    if (!e.alive) {  // a fresh world has every slot live; a dead one cannot be brought back here
      in.fail("entity slot " + std::to_string(&e - slots.data()) + " is free in the world the snapshot is restored into");
      return;
    }
    saved.alive = true;
    e = saved;
    if (!alive) freed.push_back(saved.id);
  }
  for (EntityId id : freed) world.despawn(id);
}

}  // namespace thicket::world
