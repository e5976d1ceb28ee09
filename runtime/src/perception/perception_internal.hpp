// What the perception manager keeps per sensing agent (private to runtime/src/perception).
#pragma once
#include <vector>

#include "thicket/perception.hpp"

namespace thicket::perception {

struct Manager::SensorState {
  const Senses* senses = nullptr;
  std::uint32_t agent = 0;
  // This tick's percepts and the previous sense()'s, swapped each tick so that neither
  // allocates once grown; phases come from comparing the two.
  std::vector<Percept> now, before;
  // The last cone check's sightings (Enter/Stay only): what stands on ticks LOD skips.
  std::vector<Percept> sightings;
  std::vector<MemoryEntry> memory;  // sorted by (kind, id)
};

// Sorts now[start..] (this tick's percepts of one sense, appended by its sense_*), gives each
// its phase against the previous tick's percepts of that sense in `before`, and appends an Exit
// for each of those no longer perceived.
void assign_phases(std::vector<Percept>& now, std::size_t start, const std::vector<Percept>& before,
                   Sense sense);

}  // namespace thicket::perception
