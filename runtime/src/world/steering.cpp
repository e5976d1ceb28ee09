// The single-entity steering behaviours of the steering toolkit: seek, flee, arrive, pursuit, evade, wander.
// Each asks for a desired velocity and returns the change needed to get there.
#include "local_frame.hpp"
#include "thicket/world.hpp"

namespace thicket::world {

namespace {

Vec2 steer_toward_velocity(const Entity& self, Vec2 desired_velocity) {
  return desired_velocity - self.velocity;
}

// Seconds until self and other would meet running straight at each other: the look-ahead of
// pursuit and evade. Grows with distance, shrinks as either is faster.
double meeting_time(const Entity& self, const Entity& other, double distance_between) {
  double closing_speed = self.vehicle.max_speed + other.speed();
  return closing_speed > 0 ? distance_between / closing_speed : 0.0;
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double random_signed_unit(std::uint64_t& state) {
  constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;
  double unit = static_cast<double>(splitmix64(state) >> 11) * kTwoToMinus53;  // [0, 1)
  return 2.0 * unit - 1.0;
}

Vec2 seek(const Entity& self, Vec2 target) {
  Vec2 desired = (target - self.position).normalized() * self.vehicle.max_speed;
  return steer_toward_velocity(self, desired);
}

Vec2 flee(const Entity& self, Vec2 threat, double panic_distance) {
  Vec2 away = self.position - threat;
  if (away.length_squared() > panic_distance * panic_distance) return {};
  return steer_toward_velocity(self, away.normalized() * self.vehicle.max_speed);
}

Vec2 arrive(const Entity& self, Vec2 target, double slowing_radius) {
  Vec2 to_target = target - self.position;
  double distance_left = to_target.length();
  if (distance_left == 0) return steer_toward_velocity(self, {});
  double speed = self.vehicle.max_speed;
  if (distance_left < slowing_radius) speed *= distance_left / slowing_radius;
  return steer_toward_velocity(self, to_target * (speed / distance_left));
}

Vec2 pursuit(const Entity& self, const Entity& quarry) {
  Vec2 to_quarry = quarry.position - self.position;
  Vec2 my_heading = facing(self);
  bool quarry_ahead = to_quarry.dot(my_heading) > 0;
  bool coming_head_on = my_heading.dot(facing(quarry)) < kHeadOnCosine;
  if (quarry_ahead && coming_head_on) return seek(self, quarry.position);
  double look_ahead = meeting_time(self, quarry, to_quarry.length());
  return seek(self, quarry.position + quarry.velocity * look_ahead);
}

Vec2 evade(const Entity& self, const Entity& pursuer, double panic_distance) {
  Vec2 from_pursuer = self.position - pursuer.position;
  if (from_pursuer.length_squared() > panic_distance * panic_distance) return {};
  double look_ahead = meeting_time(self, pursuer, from_pursuer.length());
  return flee(self, pursuer.position + pursuer.velocity * look_ahead);
}

Vec2 wander(const Entity& self, const WanderParams& params, WanderState& state,
            std::uint64_t& rng) {
  double jitter_x = random_signed_unit(rng) * params.jitter;
  double jitter_y = random_signed_unit(rng) * params.jitter;
  state.local_target =
      (state.local_target + Vec2{jitter_x, jitter_y}).normalized() * params.radius;
  Vec2 heading = facing(self);
  Vec2 circle_centre = self.position + heading * params.distance;
  return seek(self, circle_centre + to_world(state.local_target, heading));
}

}  // namespace thicket::world
