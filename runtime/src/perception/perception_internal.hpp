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
  // The last cone check's sightings (Enter/Stay only): what stands on ticks LOD skips. Kept
  // only with LOD on (lod_skips); without it every tick is a check, and a snapshot takes them
  // from `now` (the same percepts), so nothing is copied per tick that nothing reads.
  std::vector<Percept> sightings;
  std::vector<MemoryEntry> memory;  // sorted by (kind, id)
  // No entry of memory is forgotten before this tick (a lower bound: refreshing an entry only
  // moves its forget tick later), so update_memory looks for expired entries only from then on.
  // 0 after anything that replaces memory wholesale (registration, a snapshot).
  std::uint64_t next_forget = 0;
};

// True when a sensor's sight may skip cone checks (level of detail), so it keeps its sightings.
inline bool lod_skips(const SightSpec& sight) { return sight.lod_distance > 0 && sight.lod_every > 1; }

// Sorts now[start..] (this tick's percepts of one sense, appended by its sense_*), gives each
// its phase against the previous tick's percepts of that sense in `before`, and appends an Exit
// for each of those no longer perceived.
void assign_phases(std::vector<Percept>& now, std::size_t start, const std::vector<Percept>& before,
                   Sense sense);

}  // namespace thicket::perception
