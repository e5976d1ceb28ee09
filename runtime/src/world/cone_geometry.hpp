// Cone geometry shared by the spatial hash's cone queries and perception's sight index, so that
// both decide alike.
#pragma once
#include <algorithm>
#include <cmath>

#include "thicket/world.hpp"

namespace thicket::world {

// std::cos(angle), remembered per thread for the last few angles: a sensor asks for the same
// cones every tick, and the call costs as much as examining a few entities. The same value as
// std::cos.
inline double cached_cosine(double angle) {
  constexpr int kSlots = 8;
  thread_local double angles[kSlots] = {}, cosines[kSlots] = {1, 1, 1, 1, 1, 1, 1, 1};
  thread_local int next = 0;
  for (int i = 0; i < kSlots; ++i)
    if (angles[i] == angle) return cosines[i];
  angles[next] = angle;
  cosines[next] = std::cos(angle);
  const double c = cosines[next];
  next = (next + 1) % kSlots;
  return c;
}

// A narrow cone (half angle below pi/2, cosine c) seen as a wedge for culling cells: calls
// extend(point) with the points its bounding box must hold (the ends of both edges, and the
// farthest point along each axis the cone faces), and returns the outward normals of its right
// and left edges.
struct ConeWedge {
  Vec2 right_out, left_out;
};
template <class Extend>
ConeWedge cone_wedge(Vec2 eye, Vec2 forward, double c, double range, Extend&& extend) {
  const double s = std::sqrt(std::max(0.0, 1 - c * c));
  const Vec2 right{forward.x * c + forward.y * s, forward.y * c - forward.x * s};
  const Vec2 left{forward.x * c - forward.y * s, forward.y * c + forward.x * s};
  extend(eye + right * range);
  extend(eye + left * range);
  for (Vec2 axis : {Vec2{1, 0}, Vec2{-1, 0}, Vec2{0, 1}, Vec2{0, -1}})
    if (forward.dot(axis) >= c) extend(eye + axis * range);
  return {{right.y, -right.x}, {-left.y, left.x}};
}

}  // namespace thicket::world
