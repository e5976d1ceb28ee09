// The tables searches derive from a grid map — bit rows, jump distances (grid_bits.hpp) and
// landmark distances (grid_landmarks.hpp) — built once per version of the map and shared,
// read-only, by every GridSearch on any thread: a 512 x 512 map's tables are ~25 MB and take
// ~0.3 s to build, too much to repeat per search object (a scenario keeps one search per
// worker and one per agent with a time-sliced search in progress).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>

#include "grid_bits.hpp"
#include "grid_landmarks.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

struct GridTables {
  std::uint64_t stamp = 0;  // the map version they were built from
  bool distances = false;   // bits has the jump distances
  bool landmarks = false;   // marks is built
  GridBits bits;
  GridLandmarks marks;
};

// Held by a GridMap (and its copies): the latest tables, under a lock while they are built.
struct GridTableCache {
  std::mutex mutex;
  std::shared_ptr<const GridTables> latest;
};

// The tables of the map as it is now, with at least what is asked for: the cached ones when
// they fit, else built now (under the cache's lock: a second search of the same map waits for
// the first one's build rather than repeating it). A map without a cache (default-constructed)
// gets tables of its own.
std::shared_ptr<const GridTables> tables_for(const GridMap& map, bool distances, bool landmarks);

}  // namespace thicket::nav
