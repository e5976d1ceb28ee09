// Combining steering forces under the vehicle's force limit (as in the steering toolkit): a weighted truncated
// sum, and Buckland's prioritised accumulation.
#include "thicket/world.hpp"

namespace thicket::world {

Vec2 weighted_truncated_sum(std::span<const WeightedForce> forces, double max_force) {
  Vec2 total;
  for (const WeightedForce& f : forces) total += f.force * f.weight;
  return total.truncated(max_force);
}

Vec2 prioritised_sum(std::span<const WeightedForce> forces_by_priority, double max_force) {
  Vec2 total;
  for (const WeightedForce& f : forces_by_priority) {
    double room = max_force - total.length();
    if (room <= 0) break;
    Vec2 contribution = f.force * f.weight;
    if (contribution.length_squared() <= room * room) {
      total += contribution;
    } else {
      total += contribution.normalized() * room;
      break;  // this one filled the budget; everything after it is less important
    }
  }
  return total;
}

}  // namespace thicket::world
