// Path following (as in the steering toolkit): seek each waypoint in turn, loop a closed path, arrive at the end
// of an open one.
#include "thicket/world.hpp"

namespace thicket::world {

namespace {

bool within_reach(const Entity& self, Vec2 waypoint, double waypoint_radius) {
  return (waypoint - self.position).length_squared() <= waypoint_radius * waypoint_radius;
}

}  // namespace

Vec2 follow_path(const Entity& self, std::span<const Vec2> waypoints, const PathParams& params,
                 PathProgress& progress) {
  if (waypoints.empty()) return {};
  const auto count = static_cast<std::uint32_t>(waypoints.size());
  std::uint32_t last = count - 1;
  // The caller may have swapped in a shorter path without resetting its progress.
  if (progress.waypoint >= count) progress.waypoint = params.closed ? progress.waypoint % count : last;

  // Skip every waypoint already in reach, but at most one lap, in case all of them are.
  for (std::uint32_t step = 0; step < count; ++step) {
    if (!within_reach(self, waypoints[progress.waypoint], params.waypoint_radius)) break;
    if (params.closed) {
      progress.waypoint = (progress.waypoint + 1) % count;
    } else if (progress.waypoint < last) {
      ++progress.waypoint;
    } else {
      progress.arrived = true;
      break;
    }
  }

  Vec2 target = waypoints[progress.waypoint];
  bool final_stop = !params.closed && progress.waypoint == last;
  return final_stop ? arrive(self, target, params.slowing_radius) : seek(self, target);
}

}  // namespace thicket::world
