// Leaf answers for tests that run the same random trees two ways and compare the calls
// (test_walk_shortcuts.cpp, test_tick_batch.cpp): each answer is a pure function of the node,
// the agent and the tick, so both runs get the same answers whatever order the calls come in.
#pragma once
#include <cstdint>

#include "thicket/runtime.hpp"

namespace rolled {

inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t roll(thicket::LeafContext& c) {
  uint64_t h = 1469598103934665603ULL;
  for (char ch : c.node_id()) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  return mix(h + c.tick() * 0x9e3779b97f4a7c15ULL + c.agent_id() * 0x632be59bd9b4e019ULL);
}
// A condition: succeeds 2 times in 3.
inline thicket::Status condition(thicket::LeafContext& c) {
  return roll(c) % 3 != 0 ? thicket::Status::Success : thicket::Status::Failure;
}
// An action: running 2 times in 5, success 2 in 5, failure 1 in 5.
inline thicket::Status action(thicket::LeafContext& c) {
  const uint64_t r = roll(c) % 5;
  return r < 2 ? thicket::Status::Running : r < 4 ? thicket::Status::Success : thicket::Status::Failure;
}

}  // namespace rolled
