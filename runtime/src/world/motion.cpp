// One tick of point-mass motion (the steering toolkit's Vehicle/AILocomotion), with the world's walls.
#include "thicket/world.hpp"

namespace thicket::world {

namespace {

// Clamps one coordinate into [low, high]; the velocity along that axis loses only its outward
// part, so an entity pushed into a wall slides along it and can still walk away from it.
void stay_within(double& coordinate, double& velocity, double low, double high) {
  if (coordinate < low) {
    coordinate = low;
    if (velocity < 0) velocity = 0;
  } else if (coordinate > high) {
    coordinate = high;
    if (velocity > 0) velocity = 0;
  }
}

}  // namespace

void move_entity(Entity& entity, Vec2 steering_force, double dt, const Bounds& bounds) {
  const Vehicle& vehicle = entity.vehicle;
  Vec2 acceleration = steering_force.truncated(vehicle.max_force) / vehicle.mass;
  entity.velocity = (entity.velocity + acceleration * dt).truncated(vehicle.max_speed);
  entity.position += entity.velocity * dt;

  stay_within(entity.position.x, entity.velocity.x, bounds.min.x, bounds.max.x);
  stay_within(entity.position.y, entity.velocity.y, bounds.min.y, bounds.max.y);

  // After the walls, so an entity sliding along one faces the way it actually moves.
  double speed_squared = entity.velocity.length_squared();
  if (speed_squared > kHeadingMinSpeed * kHeadingMinSpeed) {
    entity.heading = entity.velocity / std::sqrt(speed_squared);
  }
}

}  // namespace thicket::world
