// The world API for Lua leaves, shared by its files: lua_world.cpp (the agent's body, queries,
// steering, effects, metrics; it installs everything), lua_world_senses.cpp (perception) and
// lua_world_nav.cpp (paths and movement). Private to them.
#pragma once
#include <lua.hpp>

#include <cstdint>

#include "sim_internal.hpp"

namespace thicket::lua_world {

// The running leaf's agent in the world: its worker, its sim agent and its body.
struct Self {
  SimWorker* worker;
  SimAgent* agent;
  const world::Entity* entity;
};

// The running leaf's agent; raises a Lua error outside a leaf call (no C++ objects live).
Self self(lua_State* L);
// A number as a message quotes it ("nan", not the platform's "-nan").
const char* number_text(double v, char (&buf)[40]);
// An agent id argument at `index`; 0 (no agent) for one outside 1 .. 2^32 - 2.
uint32_t agent_id_at(lua_State* L, int index);
// Raises the message on top of the stack at the caller's line (build it in a block of its own).
int raise_top(lua_State* L);

// Perception (lua_world_senses.cpp).
int sees(lua_State* L);      // agent:sees(id)
int percepts(lua_State* L);  // agent:percepts([sense])
int memory(lua_State* L);    // agent:memory()
int noise(lua_State* L);     // thicket.noise(x, y, loudness [, seconds])
int pickups(lua_State* L);   // thicket.pickups()
int areas(lua_State* L);     // thicket.areas()

// Navigation (lua_world_nav.cpp).
int find_path(lua_State* L);  // thicket.find_path(x0, y0, x1, y1 [, options])
int path_to(lua_State* L);    // agent:path_to(x, y [, options])
int locate(lua_State* L);     // agent:locate(id)
int suggest(lua_State* L);    // the did-you-mean of kWorldLua's option checks
// thicket.move_to and thicket.follow_path, in Lua: called with (thicket, suggest).
extern const char* const kWorldLua;

}  // namespace thicket::lua_world
