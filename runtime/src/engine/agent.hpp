// What an agent is besides its state block: its clock, its random stream, its Lua side.
#pragma once
#include <cstdint>

#include "thicket/runtime.hpp"

namespace thicket {

// The agent's own random stream (splitmix64): seeded from the run seed and the agent id,
// so a run is reproducible whatever order agents are ticked in.
struct Rng {
  uint64_t state = 0;
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  static Rng seeded(uint64_t run_seed, uint64_t agent_id) {
    return Rng{mix(run_seed * 0x9e3779b97f4a7c15ULL + mix(agent_id + 0x632be59bd9b4e019ULL))};
  }
  uint64_t next() { return mix(state += 0x9e3779b97f4a7c15ULL); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // A whole number in [lo, hi]; hi >= lo.
  int64_t range(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    if (span == 0) return static_cast<int64_t>(next());  // the whole 64-bit range
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;      // reject the biased tail
    uint64_t x;
    do x = next(); while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }
};

// 72 bytes, ordered so nothing pads: doubles first, then 32-bit fields.
// AgentCore (thicket/runtime.hpp: time, dt, ticks, id) comes first, so a leaf's LeafContext
// reads them with plain loads.
struct AgentInfo : AgentCore {
  // The clock: time = epoch + steps * dt while dt stays the same, so a constant dt gives
  // tick k exactly (k-1)*dt (SPEC 3.1) with no drift from repeated addition.
  double epoch = 0;
  Rng rng;
  uint32_t steps = 0;
  uint32_t row = 0;        // its block in the brain's agent storage
  // The running action to resume directly next tick when every node above it is passive
  // (tick.cpp: the event-driven fast path); kNoResume when the tree must be walked.
  uint32_t resume_leaf = 0xFFFFFFFF;
  uint32_t generation = 0; // bumped on despawn, so stale handles are caught
  uint32_t stamp = 0;      // re-check eligibility counter (tick.cpp); wraps safely
  int32_t lua_agent = -2;  // registry reference of the agent table (LUA_NOREF)
  int32_t lua_mem = -2;    // registry reference of the table of per-node mem / coroutines
  uint16_t brain = 0;      // index of its brain in the runtime
  bool alive = false;
  uint8_t lane = 0;        // its script lane (SPEC 8.2: agent id mod RuntimeOptions::script_states)
};

// An event on an agent's queue (SPEC 4.1): its name (an id in the runtime's string table) and,
// for the events the runtime sends itself (success, failure, done), the state it is offered to
// first and that state's entry number when it was sent (origin 0xFFFF: none, offered to the
// innermost active state).
struct QueuedEvent {
  uint32_t name = 0;
  uint16_t origin = 0xFFFF;
  uint32_t serial = 0;
};

}  // namespace thicket
