// An entity's own frame: x along its heading, y to its left. Wander keeps its target in it and
// obstacle avoidance tests its detection box in it.
#pragma once
#include "thicket/world.hpp"

namespace thicket::world {

// The entity's heading as a unit vector; +x if someone stored a zero heading, so the frame is
// never degenerate.
inline Vec2 facing(const Entity& entity) {
  Vec2 unit = entity.heading.normalized();
  return unit == Vec2{} ? Vec2{1, 0} : unit;
}

// A world-space offset expressed in the frame of a unit heading.
inline Vec2 to_local(Vec2 offset, Vec2 heading) {
  return {offset.dot(heading), offset.dot(heading.perpendicular())};
}

// A frame-space offset expressed in world space.
inline Vec2 to_world(Vec2 local, Vec2 heading) {
  return heading * local.x + heading.perpendicular() * local.y;
}

}  // namespace thicket::world
