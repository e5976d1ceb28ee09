// The world's moving part in a snapshot (issue 15): every entity slot, live or free. Bounds and
// obstacles are not saved: they come from the scenario, which the snapshot names and checks.
#pragma once
#include "thicket/snapshot.hpp"
#include "thicket/world.hpp"

namespace thicket::world {

// A point as two doubles (the world's and perception's snapshots).
inline void put_vec(SnapshotWriter& out, Vec2 v) {
  out.f64(v.x);
  out.f64(v.y);
}
inline Vec2 get_vec(SnapshotReader& in) {
  double x = in.f64();
  double y = in.f64();
  return {x, y};
}

void save_world(const World& world, SnapshotWriter& out);
// Into a world made from the same scenario (so with the same number of slots, all spawned):
// every slot takes the saved entity; the slots that were free are freed again. A slot count
// that differs, or a free slot saved as live in a world that cannot free it, fails the reader
// (world then half restored: callers restore into a fresh Simulation they drop on failure).
void restore_world(World& world, SnapshotReader& in);

}  // namespace thicket::world
