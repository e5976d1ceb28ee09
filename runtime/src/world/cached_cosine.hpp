// std::cos(angle), remembered per thread for the last few angles: a sensor asks for the same
// cones every tick, and the call costs as much as examining a few entities. The same value as
// std::cos, so the spatial hash's cone queries and perception's sight index decide alike.
#pragma once
#include <cmath>

namespace thicket::world {

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

}  // namespace thicket::world
