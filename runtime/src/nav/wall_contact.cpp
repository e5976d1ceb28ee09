// Agents among a grid map's walls: feelers that steer away from blocked cells, and a contact
// rule that keeps an entity's centre out of them (it slides along a wall).
#include <algorithm>
#include <cmath>

#include "thicket/nav.hpp"

namespace thicket::nav {

namespace {

// Distance along the ray from p (unit direction dir) to the first blocked cell within length,
// sampled every quarter cell; length when none.
double feeler_hit(const GridMap& map, Vec2 p, Vec2 dir, double length) {
  const double step = map.cell_size / 4;
  for (double d = step; d <= length; d += step) {
    Cell c = map.cell_at(p + dir * d);
    if (map.in_bounds(c) && !map.passable(c)) return d;
  }
  return length;
}

Vec2 rotated(Vec2 v, double angle) {
  double c = std::cos(angle), s = std::sin(angle);
  return {v.x * c - v.y * s, v.x * s + v.y * c};
}

}  // namespace

Vec2 avoid_walls(const world::Entity& self, const GridMap& map, const world::AvoidanceParams& params) {
  Vec2 ahead = self.heading.normalized();
  if (ahead.length_squared() == 0) ahead = {1, 0};
  const double length = params.min_length + params.look_ahead * self.speed();
  if (length <= 0) return {};
  const Vec2 left_dir = rotated(ahead, M_PI / 4), right_dir = rotated(ahead, -M_PI / 4);
  const double centre = feeler_hit(map, self.position, ahead, length);
  const double left = feeler_hit(map, self.position, left_dir, length / 2);
  const double right = feeler_hit(map, self.position, right_dir, length / 2);
  const Vec2 to_left = ahead.perpendicular();
  // Each feeler's urgency is the fraction of it that is free; the most urgent one decides.
  const double u_centre = centre < length ? 1.0 - centre / length : 0.0;
  const double u_left = left < length / 2 ? 1.0 - left / (length / 2) : 0.0;
  const double u_right = right < length / 2 ? 1.0 - right / (length / 2) : 0.0;
  if (u_centre == 0 && u_left == 0 && u_right == 0) return {};
  const double force = self.vehicle.max_force;
  if (u_centre >= u_left && u_centre >= u_right) return (left >= right ? to_left : -to_left) * (force * u_centre);
  if (u_left >= u_right) return -to_left * (force * u_left);
  return to_left * (force * u_right);
}

void keep_out_of_walls(world::Entity& entity, Vec2 before, const GridMap& map) {
  auto blocked = [&](Vec2 p) {
    Cell c = map.cell_at(p);
    return map.in_bounds(c) && !map.passable(c);
  };
  // A move is refused when it ends in a blocked cell or crosses one on the way: a fast entity
  // (or a long tick) moves more than a cell per step and would otherwise pass through a wall
  // thinner than its step. Moves from or to outside the map are left to the world's bounds,
  // and one from a blocked cell (which contact never leaves it in) only by where it ends.
  const bool from_free = map.in_bounds(map.cell_at(before)) && !blocked(before);
  auto refused = [&](Vec2 to) {
    if (blocked(to)) return true;
    Cell a = map.cell_at(before), b = map.cell_at(to);
    if (a == b || !from_free || !map.in_bounds(b)) return false;
    return !line_of_sight(map, before, to);
  };
  Vec2 now = entity.position;
  if (!refused(now)) return;
  // Slide: keep the move on one axis if that alone stays free, else stop where it was.
  if (!refused({now.x, before.y})) {
    entity.position = {now.x, before.y};
    entity.velocity.y = 0;
  } else if (!refused({before.x, now.y})) {
    entity.position = {before.x, now.y};
    entity.velocity.x = 0;
  } else {
    entity.position = before;
    entity.velocity = {0, 0};
  }
}

}  // namespace thicket::nav
