// FNV-1a, 64 bits: content hashes of brains, programs and files (identity, not security: it
// catches change and damage, not forgery). For snapshots (snapshot.cpp) and checkpoints
// (sim/sim_snapshot.cpp).
#pragma once
#include <cstdint>
#include <string_view>

namespace thicket {

inline uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace thicket
