// The world API's perception (issue 13), as Lua leaves see it: agent:sees, agent:percepts,
// agent:memory, thicket.noise, thicket.pickups, thicket.areas (lua_world.cpp installs them).
#include <lua.hpp>

#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "lua_host.hpp"
#include "lua_world.hpp"
#include "suggest.hpp"

namespace thicket::lua_world {

// agent:sees(id): the agent's sight reports agent id this tick (its cones, line of sight).
int sees(lua_State* L) {
  Self s = self(L);
  const lua_Integer id = luaL_checkinteger(L, 2);
  lua_pushboolean(L, id > 0 && id <= UINT32_MAX && s.worker->sim->perception->sees(s.agent->id, static_cast<uint32_t>(id)));
  return 1;
}

// Which sense a Lua string names; -1 for nil (all senses); raises on anything else.
static int sense_arg(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return -1;
  static const char* const kNames[] = {"sight", "hearing", "touch", nullptr};
  if (!lua_isstring(L, idx)) return luaL_checkoption(L, idx, nullptr, kNames);  // (its "string expected, got table")
  size_t n = 0;
  const char* text = lua_tolstring(L, idx, &n);
  for (int i = 0; kNames[i] != nullptr; ++i)
    if (std::string_view(text, n) == kNames[i]) return i;
  {
    const std::string name(text, n);
    const std::vector<std::string> names(std::begin(kNames), std::end(kNames) - 1);
    const std::string msg = "percepts: unknown sense '" + clipped(name) + "'" + did_you_mean(name, names) +
                            " (senses: " + join_names(names) + ")";
    lua_pushlstring(L, msg.data(), msg.size());
  }
  return raise_top(L);
}

static void set_number(lua_State* L, const char* key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}
static void set_string(lua_State* L, const char* key, const char* v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, key);
}

// agent:percepts([sense]): this tick's percepts, in the manager's order, each
// {sense, kind, phase, id, x, y, distance, strength [, cone] [, name] [, sound] [, taken]}.
int percepts(lua_State* L) {
  Self s = self(L);
  const int only = sense_arg(L, 2);
  const perception::Manager& m = *s.worker->sim->perception;
  std::span<const perception::Percept> list = m.percepts(s.agent->id);
  lua_createtable(L, static_cast<int>(list.size()), 0);
  lua_Integer n = 0;
  for (const perception::Percept& p : list) {
    if (only >= 0 && static_cast<int>(p.sense) != only) continue;
    lua_createtable(L, 0, 10);
    set_string(L, "sense", perception::sense_name(p.sense));
    set_string(L, "kind", perception::kind_name(p.kind));
    set_string(L, "phase", perception::phase_name(p.phase));
    lua_pushinteger(L, p.id);
    lua_setfield(L, -2, "id");
    set_number(L, "x", p.position.x);
    set_number(L, "y", p.position.y);
    set_number(L, "distance", p.distance);
    set_number(L, "strength", p.strength);
    if (p.sense == perception::Sense::Sight) {
      lua_pushinteger(L, p.cone + 1);
      lua_setfield(L, -2, "cone");
    }
    if (p.kind == perception::Kind::Sound) {
      lua_pushinteger(L, p.sound);
      lua_setfield(L, -2, "sound");
    }
    if (p.kind == perception::Kind::Area) set_string(L, "name", m.areas()[p.id - 1].name.c_str());
    if (p.kind == perception::Kind::Pickup) {
      set_string(L, "name", m.pickups()[p.id - 1].name.c_str());
      set_string(L, "pickup", m.pickups()[p.id - 1].kind.c_str());
      lua_pushboolean(L, p.taken);
      lua_setfield(L, -2, "taken");
    }
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

// agent:memory(): what the agent remembers, each {kind, id, sense, x, y, age, forget_in}
// (seconds since last perceived; seconds until forgotten).
int memory(lua_State* L) {
  Self s = self(L);
  const perception::Manager& m = *s.worker->sim->perception;
  const double dt = s.worker->sim->options.dt;
  std::span<const perception::MemoryEntry> list = m.memory(s.agent->id);
  lua_createtable(L, static_cast<int>(list.size()), 0);
  lua_Integer n = 0;
  for (const perception::MemoryEntry& e : list) {
    lua_createtable(L, 0, 7);
    set_string(L, "kind", perception::kind_name(e.kind));
    lua_pushinteger(L, e.id);
    lua_setfield(L, -2, "id");
    set_string(L, "sense", perception::sense_name(e.sense));
    set_number(L, "x", e.position.x);
    set_number(L, "y", e.position.y);
    set_number(L, "age", static_cast<double>(m.tick() - e.last_tick) * dt);
    set_number(L, "forget_in", static_cast<double>(e.forget_tick - m.tick()) * dt);
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

// thicket.noise(x, y, loudness [, seconds]): a sound made by the running agent, heard from the
// next tick on for `seconds` (default one tick) by listeners whose threshold it reaches.
int noise(lua_State* L) {
  Self s = self(L);
  const double x = luaL_checknumber(L, 1), y = luaL_checknumber(L, 2), loudness = luaL_checknumber(L, 3);
  const double seconds = luaL_optnumber(L, 4, s.worker->sim->options.dt);
  if (!std::isfinite(x) || !std::isfinite(y)) return luaL_error(L, "thicket.noise: the point must be finite numbers");
  // (Lua prints a nan as "-nan" or "nan" by its sign bit: said as what it is.)
  if (!(loudness > 0) || !std::isfinite(loudness)) {
    if (std::isnan(loudness)) return luaL_error(L, "thicket.noise: loudness must be a finite number > 0 (its strength at 1 m), got nan (not a number: 0/0?)");
    return luaL_error(L, "thicket.noise: loudness must be a finite number > 0 (its strength at 1 m), got %f", loudness);
  }
  if (!(seconds >= 0) || !std::isfinite(seconds)) {
    if (std::isnan(seconds)) return luaL_error(L, "thicket.noise: seconds must be a finite number >= 0, got nan (not a number: 0/0?)");
    return luaL_error(L, "thicket.noise: seconds must be a finite number >= 0, got %f", seconds);
  }
  SimAgent& a = *s.agent;
  const uint64_t tick = s.worker->sim->tick;
  if (a.noise_tick != tick) a.noise_tick = tick, a.noises = 0;
  if (++a.noises > kMaxNoisesPerTick)
    return luaL_error(L, "thicket.noise: agent %d made more than %d sounds this tick (a runaway loop?)",
                      static_cast<int>(a.id), static_cast<int>(kMaxNoisesPerTick));
  s.worker->sim->perception->emit_sound(s.worker->index, {x, y}, loudness, seconds, s.agent->id);
  return 0;
}

// thicket.pickups(): every pickup of the world, {id, name, kind, x, y, radius, active, back_in}
// (back_in: seconds until an inactive one returns, 0 when active).
int pickups(lua_State* L) {
  Self s = self(L);
  const perception::Manager& m = *s.worker->sim->perception;
  const double dt = s.worker->sim->options.dt;
  lua_createtable(L, static_cast<int>(m.pickups().size()), 0);
  for (size_t k = 0; k < m.pickups().size(); ++k) {
    const perception::PickupSpec& p = m.pickups()[k];
    const perception::PickupState& st = m.pickup_states()[k];
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, static_cast<lua_Integer>(k + 1));
    lua_setfield(L, -2, "id");
    set_string(L, "name", p.name.c_str());
    set_string(L, "kind", p.kind.c_str());
    set_number(L, "x", p.position.x);
    set_number(L, "y", p.position.y);
    set_number(L, "radius", p.radius);
    lua_pushboolean(L, st.active);
    lua_setfield(L, -2, "active");
    set_number(L, "back_in", st.active ? 0.0 : static_cast<double>(st.back_tick - m.tick()) * dt);
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  return 1;
}

// thicket.areas(): the world's touch areas, {id, name, x, y} (x, y: the shape's centre).
int areas(lua_State* L) {
  Self s = self(L);
  const perception::Manager& m = *s.worker->sim->perception;
  lua_createtable(L, static_cast<int>(m.areas().size()), 0);
  for (size_t k = 0; k < m.areas().size(); ++k) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, static_cast<lua_Integer>(k + 1));
    lua_setfield(L, -2, "id");
    set_string(L, "name", m.areas()[k].name.c_str());
    set_number(L, "x", m.areas()[k].shape.centre.x);
    set_number(L, "y", m.areas()[k].shape.centre.y);
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  return 1;
}

}  // namespace thicket::lua_world
