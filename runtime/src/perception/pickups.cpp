// Respawning pickups (issue 13, seed 003's TriggerRespawning): at each begin_tick, pickups whose
// time is up come back, then every active pickup goes to the lowest agent id whose body
// overlaps it (centre distance <= body radius + pickup radius; no touch sense needed) and whose
// team may take it. A taken pickup is inactive until tick + ticks_for(respawn), so one with
// respawn 0 is back the next tick.
#include <algorithm>

#include "perception/perception_internal.hpp"

namespace thicket::perception {

void Manager::take_pickups() {
  takes_.clear();
  std::span<const world::Entity> slots = world_->entities();
  for (std::size_t k = 0; k < pickups_.size(); ++k) {
    PickupState& state = pickup_states_[k];
    if (!state.active && state.back_tick <= tick_) state.active = true;
    // Touch sees this tick every pickup that was there at its start, the one taken included.
    pickup_touchable_[k] = state.active ? 1 : 0;
    if (!state.active) continue;
    const PickupSpec& pickup = pickups_[k];
    hash_->within_radius(pickup.position, pickup.radius + max_body_radius_, pickup_scratch_);
    std::uint32_t taker = 0;
    for (EntityId id : pickup_scratch_) {
      std::uint32_t agent = agent_of(id);
      if (agent == 0 || (taker != 0 && agent >= taker)) continue;
      const world::Entity& body = slots[id.index()];
      if (!(world::distance(body.position, pickup.position) <= body.radius() + pickup.radius)) continue;
      if (!pickup.teams.empty() &&
          std::find(pickup.teams.begin(), pickup.teams.end(), body.team) == pickup.teams.end())
        continue;
      taker = agent;
    }
    if (taker == 0) continue;
    takes_.push_back({std::uint32_t(k), taker});
    state.active = false;
    state.back_tick = tick_ + ticks_for(pickup.respawn);
    state.taken_by = taker;
  }
}

}  // namespace thicket::perception
