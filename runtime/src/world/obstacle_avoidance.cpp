// Obstacle avoidance (as in the steering toolkit, after Buckland): a detection box ahead of the entity, and a
// sideways push from the nearest obstacle inside it.
#include <algorithm>

#include "local_frame.hpp"
#include "thicket/world.hpp"

namespace thicket::world {

namespace {

// The box in the entity's frame: x in [0, length], y in [-half_width, half_width].
struct DetectionBox {
  Vec2 origin;   // the entity's position
  Vec2 heading;  // unit
  double length;
  double half_width;
};

bool circle_overlaps(const DetectionBox& box, const Obstacle& circle) {
  Vec2 centre = to_local(circle.centre - box.origin, box.heading);
  Vec2 closest{std::clamp(centre.x, 0.0, box.length),
               std::clamp(centre.y, -box.half_width, box.half_width)};
  return (centre - closest).length_squared() < circle.radius * circle.radius;
}

// Separating-axis test of the oriented detection box against an axis-aligned box: two convex
// rectangles overlap unless their shadows are apart on one of the four edge normals.
bool box_overlaps(const DetectionBox& box, const Obstacle& aabb) {
  Vec2 side = box.heading.perpendicular();
  Vec2 half_along = box.heading * (box.length / 2);
  Vec2 half_across = side * box.half_width;
  Vec2 between = aabb.centre - (box.origin + half_along);
  const Vec2 axes[] = {{1, 0}, {0, 1}, box.heading, side};
  for (Vec2 axis : axes) {
    double detection_reach = std::abs(half_along.dot(axis)) + std::abs(half_across.dot(axis));
    double obstacle_reach =
        aabb.half_extents.x * std::abs(axis.x) + aabb.half_extents.y * std::abs(axis.y);
    if (std::abs(between.dot(axis)) >= detection_reach + obstacle_reach) return false;
  }
  return true;
}

bool overlaps(const DetectionBox& box, const Obstacle& obstacle) {
  return obstacle.shape == ObstacleShape::Circle ? circle_overlaps(box, obstacle)
                                                 : box_overlaps(box, obstacle);
}

}  // namespace

Vec2 avoid_obstacles(const Entity& self, std::span<const Obstacle> obstacles,
                     const AvoidanceParams& params) {
  DetectionBox box{self.position, facing(self),
                   params.min_length + params.look_ahead * self.speed(), self.radius()};

  const Obstacle* nearest = nullptr;
  double nearest_distance = 0;
  for (const Obstacle& obstacle : obstacles) {
    if (!overlaps(box, obstacle)) continue;
    double d = distance_to_obstacle(obstacle, self.position);
    if (nearest == nullptr || d < nearest_distance) {  // ties: the earlier obstacle
      nearest = &obstacle;
      nearest_distance = d;
    }
  }
  if (nearest == nullptr) return {};

  double urgency = box.length > 0 ? std::clamp(1.0 - nearest_distance / box.length, 0.0, 1.0)
                                  : 1.0;
  double obstacle_side = to_local(nearest->centre - self.position, box.heading).y;
  Vec2 left = box.heading.perpendicular();
  Vec2 away = obstacle_side >= 0 ? -left : left;  // dead ahead counts as left: turn right
  return away * (self.vehicle.max_force * urgency);
}

}  // namespace thicket::world
