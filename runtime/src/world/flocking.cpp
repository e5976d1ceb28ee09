// The group behaviours of the steering toolkit: separation, alignment, cohesion over a neighbour list.
#include "thicket/world.hpp"

namespace thicket::world {

namespace {

// Calls visit(neighbour) for each id that still names a live entity other than self.
template <class Visit>
void for_each_neighbour(const Entity& self, const World& world,
                        std::span<const EntityId> neighbours, Visit&& visit) {
  for (EntityId id : neighbours) {
    if (id == self.id) continue;
    if (const Entity* other = world.entity(id)) visit(*other);
  }
}

}  // namespace

Vec2 separation(const Entity& self, const World& world, std::span<const EntityId> neighbours) {
  Vec2 push;
  for_each_neighbour(self, world, neighbours, [&](const Entity& other) {
    Vec2 away = self.position - other.position;
    double distance_squared = away.length_squared();
    if (distance_squared > 0) push += away / distance_squared;  // r/|r|^2: unit r over |r|
  });
  return push;
}

Vec2 alignment(const Entity& self, const World& world, std::span<const EntityId> neighbours) {
  Vec2 heading_sum;
  int count = 0;
  for_each_neighbour(self, world, neighbours, [&](const Entity& other) {
    heading_sum += other.heading;
    ++count;
  });
  if (count == 0) return {};
  return heading_sum / count - self.heading;
}

Vec2 cohesion(const Entity& self, const World& world, std::span<const EntityId> neighbours) {
  Vec2 position_sum;
  int count = 0;
  for_each_neighbour(self, world, neighbours, [&](const Entity& other) {
    position_sum += other.position;
    ++count;
  });
  if (count == 0) return {};
  return seek(self, position_sum / count);
}

}  // namespace thicket::world
