// The world as Lua leaves see it in a scenario run (issue 7). Every method acts for the agent
// whose leaf is running: it reads the world as it was at the start of the tick, and what it
// changes (steering, damage, signals, metrics) takes effect after the tick.
//
//   local x, y = agent:position()        agent:velocity()   agent:heading()   agent:team()
//   for _, n in ipairs(agent:neighbours(8, {enemies = true})) do ... n.id, n.x, n.y, n.team, n.distance
//   local e = agent:nearest(10, {enemies = true})      -- or {team = "players"}; nil if none
//   agent:steer{seek = {x, y}, separation = 1.5, avoid = 2, wander = 0.5}
//     (avoid: obstacles and map walls; walls = W weighs the map walls' feelers apart, 0 = off)
//   agent:damage(e.id, 10)    agent:signal(e.id, "alert", true)    thicket.metric("kills", 1)
//   thicket.gauge("alive", 1)   -- summed over agents per tick; the run reports the latest sum
//   thicket.move_to(agent, x, y [, options])  -- a task: plans a path (navmesh, waypoints or map), walks it
//   thicket.move_to(agent, id [, options])    -- follows another agent, re-planning as it moves
//   thicket.follow_path(agent, {{x, y}, ...} [, {loop = true, radius = ...}])  -- move_to each point
//   local points, length = thicket.find_path(x0, y0, x1, y1 [, options])  -- or nil, reason
//   local points, length = agent:path_to(x, y, {budget = 2000})  -- false while still planning
//   local x, y = agent:locate(id)            -- another agent's position; nil when gone
//   agent:sees(id)   agent:percepts(["sight"|"hearing"|"touch"])   agent:memory()   (issue 13)
//   thicket.noise(x, y, loudness [, seconds])   thicket.pickups()   thicket.areas()
#include <cstring>
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent.hpp"
#include "leaf_host.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"

namespace thicket {
namespace {

struct Self {
  SimWorker* worker;
  SimAgent* agent;
  const world::Entity* entity;
};

// The running leaf's agent; raises a Lua error outside a leaf call (no C++ objects live).
Self self(lua_State* L) {
  auto* host = static_cast<LuaHost*>(lua_touserdata(L, lua_upvalueindex(1)));
  auto* worker = static_cast<SimWorker*>(host->world);
  const CallSite* at = host->current();
  if (!at) luaL_error(L, "world methods work inside a leaf call, for the agent whose leaf is running");
  // Called on another agent's table (kept from its own call): refused, not answered for the
  // running agent as if it were that one.
  if (lua_type(L, 1) == LUA_TTABLE) {
    lua_pushliteral(L, "id");
    const bool has_id = lua_rawget(L, 1) == LUA_TNUMBER && lua_isinteger(L, -1);
    const lua_Integer id = has_id ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    if (has_id && id != static_cast<lua_Integer>(at->agent->id))
      luaL_error(L, "agent %I's method, called from agent %I's leaf (its table kept in a shared table or an upvalue): "
                    "world methods work for the agent whose leaf is running",
                 id, static_cast<lua_Integer>(at->agent->id));
  }
  SimAgent* a = worker->sim->agent(at->agent->id);
  if (!a || !a->alive) luaL_error(L, "this agent is not in the world");
  return {worker, a, worker->sim->world.entity(a->entity)};
}

int position(lua_State* L) {
  Self s = self(L);
  lua_pushnumber(L, s.entity->position.x);
  lua_pushnumber(L, s.entity->position.y);
  return 2;
}
int velocity(lua_State* L) {
  Self s = self(L);
  lua_pushnumber(L, s.entity->velocity.x);
  lua_pushnumber(L, s.entity->velocity.y);
  return 2;
}
int heading(lua_State* L) {
  Self s = self(L);
  lua_pushnumber(L, s.entity->heading.x);
  lua_pushnumber(L, s.entity->heading.y);
  return 2;
}
int team(lua_State* L) {
  Self s = self(L);
  lua_pushstring(L, s.worker->sim->spec.teams[s.entity->team].c_str());
  return 1;
}

// A number as a message quotes it ("nan", not the platform's "-nan").
const char* number_text(double v, char (&buf)[40]) {
  if (std::isnan(v)) return "nan";
  std::snprintf(buf, sizeof buf, "%.14g", v);
  return buf;
}

// Raises the message on top of the stack at the caller's line. The callers build it in a block
// of their own: no C++ object is left alive when lua_error jumps out.
int raise_top(lua_State* L) {
  luaL_where(L, 1);
  lua_insert(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

// What agent:neighbours(r [, filter]) and agent:nearest(r [, filter]) look for: the radius and
// the filter {enemies = true} | {friends = true} | {team = "name"}, with fov = degrees and
// sight = true; excluding oneself. A wrong type, an unknown key or a radius that is NaN or
// negative is an error naming it (they all read as "everyone" before).
struct Query {
  world::QueryFilter f;
  double radius = 0;
  bool sight = false, has_fov = false;
  double half = 0;  // half the fov, in radians
};
const char* const kFilterKeys[] = {"enemies", "friends", "team", "fov", "sight"};

Query query_from(lua_State* L, const Self& s, const char* what) {
  Query q;
  q.f.excluded = s.agent->entity;
  q.radius = luaL_checknumber(L, 2);
  char buf[40];
  if (!(q.radius >= 0)) luaL_error(L, "%s: the radius is a number >= 0, got %s", what, number_text(q.radius, buf));
  const int t = lua_type(L, 3);
  if (t == LUA_TNONE || t == LUA_TNIL) return q;
  if (t != LUA_TTABLE)
    luaL_error(L, "%s: the filter is a table: {enemies = true}, {friends = true} or {team = \"name\"}, "
                  "with fov = degrees and sight = true if need be; got %s", what, luaL_typename(L, 3));
  lua_pushnil(L);
  while (lua_next(L, 3) != 0) {
    lua_pop(L, 1);
    const char* key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
    bool known = false;
    for (const char* k : kFilterKeys) known = known || (key && std::strcmp(k, key) == 0);
    if (!known) {
      {
        // (A table or other key with a metatable is named by its type: luaL_tolstring could run
        // a __tostring that raises, skipping this block's destructors.)
        const int type = lua_type(L, -1);
        const std::string name = key ? key
                                 : type == LUA_TNUMBER || type == LUA_TBOOLEAN ? luaL_tolstring(L, -1, nullptr)
                                                                             : std::string("(a ") + luaL_typename(L, -1) + " key)";
        const std::vector<std::string> keys(std::begin(kFilterKeys), std::end(kFilterKeys));
        const std::string msg = std::string(what) + ": unknown filter key '" + clipped(name) + "'" +
                                did_you_mean(name, keys) + " (keys: " + join_names(keys) + ")";
        lua_pushlstring(L, msg.data(), msg.size());
      }
      raise_top(L);
    }
  }
  auto flag = [&](const char* key) {
    const int type = lua_getfield(L, 3, key);
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
      luaL_error(L, "%s: filter key '%s' is true or false, got %s", what, key, luaL_typename(L, -1));
    const bool on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
  };
  if (flag("enemies")) q.f.teams = world::TeamFilter::all_but(s.entity->team);
  if (flag("friends")) q.f.teams = world::TeamFilter::only(s.entity->team);
  q.sight = flag("sight");
  if (const int type = lua_getfield(L, 3, "team"); type == LUA_TSTRING) {
    const char* name = lua_tostring(L, -1);
    const auto& teams = s.worker->sim->spec.teams;
    int32_t team = -1;
    for (size_t k = 0; k < teams.size(); ++k)
      if (teams[k] == name) team = static_cast<int32_t>(k);
    if (team < 0) {
      {
        const std::string msg = std::string(what) + ": unknown team '" + clipped(name) + "'" + did_you_mean(name, teams) +
                                " (teams: " + join_names(teams) + ")";
        lua_pushlstring(L, msg.data(), msg.size());
      }
      raise_top(L);
    }
    q.f.teams = world::TeamFilter::only(team);
  } else if (type != LUA_TNIL) {
    luaL_error(L, "%s: filter key 'team' is a team's name (a string), got %s", what, luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  if (const int type = lua_getfield(L, 3, "fov"); type != LUA_TNIL) {
    const double fov = lua_tonumber(L, -1);
    if (type != LUA_TNUMBER || !(fov >= 0 && fov <= 360))
      luaL_error(L, "%s: filter key 'fov' is the cone's whole angle in degrees, 0 to 360, got %s", what,
                 type == LUA_TNUMBER ? number_text(fov, buf) : luaL_typename(L, -1));
    q.has_fov = true;
    q.half = fov * M_PI / 360.0;
  }
  lua_pop(L, 1);
  return q;
}

void push_entity(lua_State* L, const Self& s, world::EntityId id) {
  const auto& sim = *s.worker->sim;
  const world::Entity* e = sim.world.entity(id);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, sim.agent_of_slot[id.index()]);
  lua_setfield(L, -2, "id");
  lua_pushnumber(L, e->position.x);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, e->position.y);
  lua_setfield(L, -2, "y");
  lua_pushstring(L, sim.spec.teams[e->team].c_str());
  lua_setfield(L, -2, "team");
  lua_pushnumber(L, world::distance(e->position, s.entity->position));
  lua_setfield(L, -2, "distance");
}

// sight = true: only those the agent sees (no obstacle or wall cell between the centres).
void keep_visible(const Self& s, std::vector<world::EntityId>& ids) {
  const auto& sim = *s.worker->sim;
  std::erase_if(ids, [&](world::EntityId id) {
    return !sim.nav.world.walls.clear(s.entity->position, sim.world.entity(id)->position);
  });
}

int neighbours(lua_State* L) {
  Self s = self(L);
  const Query q = query_from(L, s, "neighbours");
  auto& out = s.worker->scratch;
  if (q.has_fov) s.worker->sim->hash.in_field_of_view(s.entity->position, s.entity->heading, q.radius, q.half, out, q.f);
  else s.worker->sim->hash.within_radius(s.entity->position, q.radius, out, q.f);
  if (q.sight) keep_visible(s, out);
  lua_createtable(L, static_cast<int>(out.size()), 0);
  for (size_t k = 0; k < out.size(); ++k) {
    push_entity(L, s, out[k]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  return 1;
}

int nearest(lua_State* L) {
  Self s = self(L);
  const Query q = query_from(L, s, "nearest");
  world::EntityId id = world::EntityId::none();
  if (q.sight || q.has_fov) {
    // The nearest one in view: the candidates by distance (then id, as nearest() breaks ties).
    auto& out = s.worker->scratch;
    const auto& sim = *s.worker->sim;
    if (q.has_fov) sim.hash.in_field_of_view(s.entity->position, s.entity->heading, q.radius, q.half, out, q.f);
    else sim.hash.within_radius(s.entity->position, q.radius, out, q.f);
    if (q.sight) keep_visible(s, out);
    double best = 0;
    for (world::EntityId c : out) {
      double d = (sim.world.entity(c)->position - s.entity->position).length_squared();
      if (id.is_none() || d < best) {
        id = c;
        best = d;
      }
    }
  } else {
    id = s.worker->sim->hash.nearest(s.entity->position, q.radius, q.f);
  }
  if (id.is_none()) {
    lua_pushnil(L);
    return 1;
  }
  push_entity(L, s, id);
  return 1;
}

// Reads {x, y} (or {x = .., y = ..}) at idx.
bool read_point(lua_State* L, int idx, world::Vec2& p) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  lua_rawgeti(L, idx, 1);
  lua_rawgeti(L, idx, 2);
  bool ok = lua_isnumber(L, -2) && lua_isnumber(L, -1);
  if (ok) p = {lua_tonumber(L, -2), lua_tonumber(L, -1)};
  lua_pop(L, 2);
  return ok;
}
double field_number(lua_State* L, int idx, const char* key, double fallback) {
  idx = lua_absindex(L, idx);
  double v = fallback;
  if (lua_type(L, idx) == LUA_TTABLE && lua_getfield(L, idx, key) == LUA_TNUMBER) v = lua_tonumber(L, -1);
  if (lua_type(L, idx) == LUA_TTABLE) lua_pop(L, 1);
  return v;
}

// agent:steer{...}: behaviours with weights, combined by weighted truncated sum; several
// calls in one tick add up.
// An agent id argument: an integer (a float with a whole value too, as agent.bb.seen_id is), and
// 0 (no agent) for one outside 1 .. 2^32 - 2 (a cast wrapped 2^32 + 3 round to agent 3).
uint32_t agent_id_at(lua_State* L, int index) {
  const lua_Integer id = luaL_checkinteger(L, index);
  return id >= 1 && id < static_cast<lua_Integer>(UINT32_MAX) ? static_cast<uint32_t>(id) : 0;
}

// The keys agent:steer takes, in the order of the value slots steer reads them from; any other
// key is an error (a misspelt behaviour did nothing).
enum SteerKey { kSeek, kFlee, kArrive, kPursue, kEvade, kWander, kAvoid, kWalls, kSeparation, kAlignment, kCohesion,
                kRadius, kSteerKeyCount };
constexpr std::string_view kSteerKeys[kSteerKeyCount] = {"seek",   "flee",  "arrive", "pursue",     "evade",     "wander",
                                                         "avoid",  "walls", "separation", "alignment", "cohesion", "radius"};

// A number that must be finite, and > 0 when positive, at stack index `at` (nil: `fallback`).
// An error names the key, and the behaviour it belongs to (`of`).
double steer_number(lua_State* L, int at, const char* key, const char* of, double fallback, bool positive) {
  const int t = lua_type(L, at);
  if (t == LUA_TNIL || t == LUA_TNONE) return fallback;
  const double v = lua_tonumber(L, at);
  if (t != LUA_TNUMBER || !std::isfinite(v) || (positive && !(v > 0))) {
    char buf[40];
    luaL_error(L, "steer: %s%s%s'%s' is %s, got %s", of ? "'" : "", of ? of : "", of ? "': " : "", key,
               positive ? "a distance (a finite number > 0)" : "a weight (a finite number; 0: off)",
               t == LUA_TNUMBER ? number_text(v, buf) : luaL_typename(L, at));
  }
  return v;
}
// The same for field `key` of the table at stack index `table` (a point's weight, arrive's slow).
double steer_field(lua_State* L, int table, const char* key, const char* of, double fallback, bool positive) {
  if (lua_type(L, table) != LUA_TTABLE) return fallback;
  lua_getfield(L, table, key);
  const double v = steer_number(L, -1, key, of, fallback, positive);
  lua_pop(L, 1);
  return v;
}

int steer(lua_State* L) {
  Self s = self(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  // One pass over the table: each value goes to its key's slot (stack 3 .. 14), and a key that
  // is none of steer's is an error. (Cheaper than a lookup of every key steer knows: a boid's
  // table has a few of the twelve.)
  constexpr int kSlots = 3;
  // The slots, lua_next's key and value, and what the checks below push on top (a point's two
  // numbers, a field, an error's message and place): past the 20 a C function is sure of.
  luaL_checkstack(L, kSteerKeyCount + 10, "steer");
  lua_settop(L, kSlots - 1 + kSteerKeyCount);
  lua_pushnil(L);
  while (lua_next(L, 2) != 0) {
    int key = -1;
    if (lua_type(L, -2) == LUA_TSTRING) {
      size_t n = 0;
      const char* text = lua_tolstring(L, -2, &n);
      for (int k = 0; k < kSteerKeyCount && key < 0; ++k)
        if (kSteerKeys[k] == std::string_view(text, n)) key = k;
    }
    if (key >= 0) {
      lua_replace(L, kSlots + key);  // the value, popped into its slot
      continue;
    }
    {  // the message is on the Lua stack before lua_error: no C++ string is left to destroy
      const std::string name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : luaL_tolstring(L, -2, nullptr);
      const std::vector<std::string> names(std::begin(kSteerKeys), std::end(kSteerKeys));
      const std::string msg = "steer: unknown behaviour '" + clipped(name) + "'" + did_you_mean(name, names) + " (" +
                              join_names(names) + ")";
      lua_pushlstring(L, msg.data(), msg.size());
    }
    return raise_top(L);
  }
  auto slot = [](SteerKey k) { return kSlots + static_cast<int>(k); };
  auto& sim = *s.worker->sim;
  // A fixed array, not a vector: luaL_error below must not skip a destructor.
  world::WeightedForce part_store[13];
  size_t count = 0;
  struct Parts {
    world::WeightedForce* store;
    size_t& n;
    void push_back(world::WeightedForce f) { store[n++] = f; }
  } parts{part_store, count};
  world::Vec2 p;
  const world::Entity& me = *s.entity;
  // A point {x, y} of finite numbers (a nan point steered nowhere, without a word).
  auto point_of = [&](SteerKey k, const char* form) {
    const char* key = kSteerKeys[k].data();
    if (!read_point(L, slot(k), p)) luaL_error(L, "steer: '%s' needs a point %s", key, form);
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      char bx[40], by[40];
      luaL_error(L, "steer: '%s' needs a point of finite numbers, got {%s, %s}", key, number_text(p.x, bx), number_text(p.y, by));
    }
  };
  auto target_of = [&](SteerKey k, double& weight) {
    if (lua_isnil(L, slot(k))) return false;
    point_of(k, "{x, y}");
    weight = steer_field(L, slot(k), "weight", kSteerKeys[k].data(), 1.0, false);
    return true;
  };
  double w;
  if (target_of(kSeek, w)) parts.push_back({world::seek(me, p), w});
  if (target_of(kFlee, w)) parts.push_back({world::flee(me, p), w});
  if (!lua_isnil(L, slot(kArrive))) {
    point_of(kArrive, "{x, y, slow = radius}");
    const double slow = steer_field(L, slot(kArrive), "slow", "arrive", 3.0, true);
    parts.push_back({world::arrive(me, p, slow), steer_field(L, slot(kArrive), "weight", "arrive", 1.0, false)});
  }
  for (SteerKey k : {kPursue, kEvade}) {
    const int at = slot(k);
    if (lua_isnil(L, at)) continue;
    const char* key = kSteerKeys[k].data();
    // An id (a whole float too: agent.bb.seen_id is a number key), or a table with `id`.
    int whole = 0;
    lua_Integer id = lua_tointegerx(L, at, &whole);
    if (!whole) id = lua_istable(L, at) ? static_cast<lua_Integer>(field_number(L, at, "id", 0)) : 0;
    if (!whole && !lua_istable(L, at)) luaL_error(L, "steer: '%s' takes an agent id (a whole number) or {id = ...}", key);
    const double weight = steer_field(L, at, "weight", key, 1.0, false);
    SimAgent* other = id >= 1 && id < static_cast<lua_Integer>(UINT32_MAX) ? sim.agent(static_cast<uint32_t>(id)) : nullptr;
    if (other && other->alive) {
      const world::Entity& e = *sim.world.entity(other->entity);
      parts.push_back({k == kPursue ? world::pursuit(me, e) : world::evade(me, e), weight});
    }
  }
  auto weight_of = [&](SteerKey k) { return steer_number(L, slot(k), kSteerKeys[k].data(), nullptr, 0.0, false); };
  if (double ww = weight_of(kWander); ww > 0) parts.push_back({world::wander(me, {}, s.agent->wander, s.agent->wander_rng), ww});
  const double wa = weight_of(kAvoid);
  if (wa > 0) parts.push_back({world::avoid_obstacles(me, sim.world.obstacles(), {}), wa});
  // The map walls' feelers weigh `walls` when given, else as much as `avoid`.
  const double ww = steer_number(L, slot(kWalls), "walls", nullptr, wa, false);
  if (ww > 0 && sim.nav.world.map) parts.push_back({nav::avoid_walls(me, *sim.nav.world.map, {}), ww});
  double ws = weight_of(kSeparation), wl = weight_of(kAlignment), wc = weight_of(kCohesion);
  if (ws > 0 || wl > 0 || wc > 0) {
    const double radius = steer_number(L, slot(kRadius), "radius", nullptr, 5.0, true);
    auto& out = s.worker->scratch;
    world::QueryFilter f;
    f.excluded = s.agent->entity;
    f.teams = world::TeamFilter::only(me.team);
    sim.hash.within_radius(me.position, radius, out, f);
    if (ws > 0) parts.push_back({world::separation(me, sim.world, out), ws});
    if (wl > 0) parts.push_back({world::alignment(me, sim.world, out), wl});
    if (wc > 0) parts.push_back({world::cohesion(me, sim.world, out), wc});
  }
  world::Vec2 force = world::weighted_truncated_sum(std::span<const world::WeightedForce>(part_store, count), me.vehicle.max_force);
  // A point, weight or radius that is inf or nan would make the agent's position NaN for the
  // rest of the run (out of sight, hearing and paths, without a word): an error here instead.
  if (!std::isfinite(force.x) || !std::isfinite(force.y))
    luaL_error(L, "steer: the force is not a finite number: a point, weight or radius given is inf or nan (or too large)");
  sim.forces[s.agent->entity.index()] += force;
  return 0;
}

// The arguments are read before the Effect exists: a Lua error (a longjmp, Lua being C) must
// not skip its destructor.
Effect make_effect(const Self& s, uint32_t target) {
  Effect e;
  e.source = s.agent->id;
  e.seq = s.worker->seq++;
  e.target = target;
  return e;
}

int damage(lua_State* L) {
  Self s = self(L);
  const uint32_t target = agent_id_at(L, 2);
  const double amount = luaL_checknumber(L, 3);
  // NaN health could never reach 0, and NaN or infinite damage would spoil the run's totals.
  luaL_argcheck(L, std::isfinite(amount), 3, "damage must be a finite number");
  Effect e = make_effect(s, target);
  e.kind = Effect::Kind::Damage;
  e.amount = amount;
  s.worker->effects.push_back(std::move(e));
  return 0;
}

// agent:signal(id, key, value): the value crosses to the target's blackboard after the tick,
// perhaps to another worker's Lua state: nil, a boolean, a number or a string. Whether the
// target declares the key with that type is known only then (check_signals, sim_phases.cpp):
// the call's "file:line: " goes with it for the report.
int signal(lua_State* L) {
  Self s = self(L);
  const uint32_t target = agent_id_at(L, 2);
  size_t key_len = 0;
  const char* key = luaL_checklstring(L, 3, &key_len);
  const int t = lua_type(L, 4);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TNUMBER && t != LUA_TSTRING)
    return luaL_error(L, "signal: the value is nil, a boolean, a number or a string (it goes to the target's "
                         "blackboard after the tick, from this Lua state to the target's), got %s", luaL_typename(L, 4));
  // As damage refuses it: a health of nan never reaches 0 (the target could not die).
  if (t == LUA_TNUMBER && !lua_isinteger(L, 4) && std::isnan(lua_tonumber(L, 4)))
    return luaL_error(L, "signal: the value is nan (not a number): a key of nan compares false with everything "
                         "(a health of nan never reaches 0)");
  luaL_where(L, 1);
  size_t where_len = 0;
  const char* where = lua_tolstring(L, -1, &where_len);
  Effect e = make_effect(s, target);
  e.kind = Effect::Kind::Signal;
  e.key.assign(key, key_len);
  e.where.assign(where, where_len);
  switch (t) {
    case LUA_TBOOLEAN: e.value = static_cast<bool>(lua_toboolean(L, 4)); break;
    case LUA_TNUMBER:
      if (lua_isinteger(L, 4)) e.value = static_cast<int64_t>(lua_tointeger(L, 4));
      else e.value = lua_tonumber(L, 4);
      break;
    case LUA_TSTRING: {
      size_t len = 0;
      const char* text = lua_tolstring(L, 4, &len);
      e.value = std::string(text, len);
      break;
    }
    default: e.value = std::monostate{};
  }
  s.worker->effects.push_back(std::move(e));
  lua_pop(L, 1);
  return 0;
}

// thicket.metric(name [, value = 1]): adds to a declared counter of the run.
// thicket.gauge(name, value): the agents' values are summed per tick; the run reports the sum
// of the latest tick in which any agent reported it (e.g. each living minion adds 1 when it
// checks: how many were left at the end).
int record_metric(lua_State* L, bool gauge) {
  Self s = self(L);
  const char* name = luaL_checkstring(L, 1);
  // A counter's value defaults to 1 (thicket.metric("hits")); a gauge reports a level and has
  // no default (gauge("alive") without one added 1 to a sum the run reports as a level).
  double value = gauge ? luaL_checknumber(L, 2) : luaL_optnumber(L, 2, 1.0);
  luaL_argcheck(L, std::isfinite(value), 2, "a metric's value must be a finite number");  // NaN spoils its totals
  const auto& names = s.worker->sim->metric_names;
  const auto& declared = s.worker->sim->spec.metrics;
  for (uint32_t m = 0; m < names.size(); ++m)
    if (names[m] == name) {
      // The simulation's own counts (deaths, damage_dealt, pickups_taken) are not the scripts'
      // to change: only what the scenario declares under `metrics:`.
      if (std::find(declared.begin(), declared.end(), names[m]) == declared.end())
        return luaL_error(L, "metric '%s' is counted by the simulation itself; scripts add only to the metrics "
                             "declared under 'metrics:' in the scenario", name);
      s.worker->metrics.push_back({s.agent->id, s.worker->seq++, m, value, gauge});
      return 0;
    }
  return luaL_error(L, "unknown metric '%s': declare it under 'metrics:' in the scenario", name);
}
int metric(lua_State* L) { return record_metric(L, false); }
int gauge(lua_State* L) { return record_metric(L, true); }

// ------------------------------------------------------------------ perception (issue 13)

// agent:sees(id): the agent's sight reports agent id this tick (its cones, line of sight).
int sees(lua_State* L) {
  Self s = self(L);
  const lua_Integer id = luaL_checkinteger(L, 2);
  lua_pushboolean(L, id > 0 && id <= UINT32_MAX && s.worker->sim->perception->sees(s.agent->id, static_cast<uint32_t>(id)));
  return 1;
}

// Which sense a Lua string names; -1 for nil (all senses); raises on anything else.
int sense_arg(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return -1;
  static const char* const kNames[] = {"sight", "hearing", "touch", nullptr};
  return luaL_checkoption(L, idx, nullptr, kNames);
}

void set_number(lua_State* L, const char* key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}
void set_string(lua_State* L, const char* key, const char* v) {
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
  if (!(loudness > 0) || !std::isfinite(loudness))
    return luaL_error(L, "thicket.noise: loudness must be a number > 0 (its strength at 1 m), got %f", loudness);
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return luaL_error(L, "thicket.noise: seconds must be a number >= 0, got %f", seconds);
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

// ------------------------------------------------------------------ navigation

// The cells the danger zones' squares span on the map, counted zone by zone (as the grid
// search prices them), and the most one search may price (about 35 ms of work).
constexpr uint64_t kMaxDangerCells = uint64_t(1) << 22;
uint64_t danger_cells(const nav::GridMap& m, std::span<const nav::DangerZone> zones) {
  uint64_t cells = 0;
  for (const nav::DangerZone& z : zones) {
    const nav::Cell lo = m.cell_at({z.centre.x - z.radius, z.centre.y - z.radius});
    const nav::Cell hi = m.cell_at({z.centre.x + z.radius, z.centre.y + z.radius});
    const int64_t x0 = std::max(lo.x, 0), y0 = std::max(lo.y, 0);
    const int64_t x1 = std::min(hi.x, m.width() - 1), y1 = std::min(hi.y, m.height() - 1);
    if (x1 >= x0 && y1 >= y0) cells += uint64_t(x1 - x0 + 1) * uint64_t(y1 - y0 + 1);
  }
  return cells;
}

// Path options from a Lua table: {algorithm = "auto"|"astar"|"jps", smooth = bool,
// danger = {{x, y, radius [, cost]}, ...}, budget = nodes per call}. The danger zones go into
// the worker's scratch (no C++ object of this frame outlives a Lua error).
nav::PathOptions path_options(lua_State* L, int idx, SimWorker& worker, uint64_t* budget) {
  nav::PathOptions o;
  worker.danger_scratch.clear();
  if (budget) *budget = 0;
  if (lua_isnoneornil(L, idx)) return o;
  if (!lua_istable(L, idx)) luaL_error(L, "path options: the options are a table, got %s", luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  // A misspelt option is an error, not a silent default. radius, replan and stuck are
  // thicket.move_to's own (it passes its options on).
  static const std::vector<std::string> kKnown = {"algorithm", "smooth", "budget", "danger", "radius", "replan", "stuck"};
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    const char* key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
    if (!key || std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
      {  // the message is on the Lua stack before lua_error: no C++ string is left to destroy
        std::string name = key ? key : luaL_tolstring(L, -1, nullptr);
        std::string msg = "path options: unknown option '" + clipped(name) + "'" + did_you_mean(name, kKnown) +
                          " (options: algorithm, smooth, budget, danger, radius, replan, stuck)";
        lua_pushlstring(L, msg.data(), msg.size());
      }
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
      return lua_error(L), o;
    }
  }
  if (lua_getfield(L, idx, "algorithm") != LUA_TNIL) {
    const char* a = lua_tostring(L, -1);
    if (a && std::strcmp(a, "astar") == 0) o.algorithm = nav::Algorithm::AStar;
    else if (a && std::strcmp(a, "jps") == 0) o.algorithm = nav::Algorithm::Jps;
    else if (a && std::strcmp(a, "auto") == 0) o.algorithm = nav::Algorithm::Auto;
    else luaL_error(L, "path options: 'algorithm' is \"auto\", \"astar\" or \"jps\", got %s", luaL_tolstring(L, -1, nullptr));
  }
  lua_pop(L, 1);
  if (int t = lua_getfield(L, idx, "smooth"); t != LUA_TNIL) {
    if (t != LUA_TBOOLEAN) luaL_error(L, "path options: 'smooth' is true or false, got %s", luaL_typename(L, -1));
    o.smooth = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "budget") != LUA_TNIL) {
    if (!budget)
      luaL_error(L, "path options: thicket.find_path is a whole search and takes no 'budget' "
                    "(agent:path_to spreads a search over ticks)");
    int whole = 0;  // 2.0 too (a whole float, as a blackboard integer write takes it)
    const lua_Integer n = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &whole) : 0;
    if (!whole || n < 0) luaL_error(L, "path options: 'budget' is a whole number of search nodes per tick (0: no limit)");
    if (budget) *budget = static_cast<uint64_t>(n);
  }
  lua_pop(L, 1);
  // thicket.move_to's own options, which it passes on: checked here too (path_to took any).
  for (const char* key : {"radius", "replan", "stuck"}) {
    if (const int t = lua_getfield(L, idx, key); t != LUA_TNIL) {
      char buf[40];
      if (t != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0))
        luaL_error(L, "path options: '%s' (thicket.move_to's) is a number > 0, got %s", key,
                   t == LUA_TNUMBER ? number_text(lua_tonumber(L, -1), buf) : luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  if (lua_getfield(L, idx, "danger") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_error(L, "path options: 'danger' is a list of zones {x, y, radius [, cost]}");
    const nav::PathMethod method = nav::method_of(worker.sim->nav.world);
    if (method != nav::PathMethod::Grid)
      luaL_error(L, "path options: danger zones are priced by grid searches, and this world plans with %s",
                 method == nav::PathMethod::Straight ? "straight lines (it has no map)" : nav::method_name(method));
    const lua_Integer n = luaL_len(L, -1);
    for (lua_Integer k = 1; k <= n; ++k) {
      lua_rawgeti(L, -1, k);
      bool ok = lua_istable(L, -1);
      const char* cost_type = nullptr;  // a cost that is not a number: its type
      double v[4] = {0, 0, 0, 50};
      for (int f = 0; f < 4 && ok; ++f) {
        lua_rawgeti(L, -1, f + 1);
        if (lua_isnumber(L, -1)) v[f] = lua_tonumber(L, -1);
        else if (f < 3) ok = false;
        else if (!lua_isnil(L, -1)) cost_type = luaL_typename(L, -1);
        lua_pop(L, 1);
      }
      const int zone = static_cast<int>(k);
      char buf[40];
      if (!ok || !(v[2] > 0))
        luaL_error(L, "path options: danger zone %d must be {x, y, radius [, cost]}, radius > 0", zone);
      if (cost_type) luaL_error(L, "path options: danger zone %d: its cost must be a finite number >= 0, got %s", zone, cost_type);
      // Each part on its own: which is wrong is said (NaN and infinities were taken).
      if (!std::isfinite(v[0]) || !std::isfinite(v[1]))
        luaL_error(L, "path options: danger zone %d: its centre x, y must be finite numbers", zone);
      if (!std::isfinite(v[2]))
        luaL_error(L, "path options: danger zone %d: its radius must be a finite number > 0, got %s", zone, number_text(v[2], buf));
      if (!std::isfinite(v[3]) || v[3] < 0)
        luaL_error(L, "path options: danger zone %d: its cost must be a finite number >= 0, got %s", zone, number_text(v[3], buf));
      lua_pop(L, 1);
      worker.danger_scratch.push_back({{v[0], v[1]}, v[2], v[3]});
    }
    // Each zone prices the cells of its square before the search starts, all in one go (the
    // time limit cannot stop it): 300,000 zones over a small map took 10 s of one leaf call.
    const nav::GridMap& map = *worker.sim->nav.world.map;
    const uint64_t cells = danger_cells(map, worker.danger_scratch) + danger_cells(map, worker.sim->nav.world.danger);
    if (cells > kMaxDangerCells)
      luaL_error(L, "path options: the danger zones span %I cells of the map in all (each zone's square, zone by zone); "
                    "one search prices at most %I: fewer or smaller zones",
                 static_cast<lua_Integer>(cells), static_cast<lua_Integer>(kMaxDangerCells));
  }
  lua_pop(L, 1);
  o.danger = worker.danger_scratch;
  return o;
}

// Up to `budget` grid nodes of a search (0: to its end), in stretches with a look at the time
// limit between them: a search over a big map is a long C loop, which the watchdog's hook
// cannot stop (it runs between Lua instructions). Stretches add up to the same search (a
// search's state depends only on the nodes expanded in all). No C++ object of this frame
// outlives a stop (a Lua error).
nav::SearchState search(lua_State* L, nav::PathRequest& request, uint64_t budget) {
  constexpr uint64_t kStretch = 1 << 14;  // grid nodes expanded between two looks
  const bool whole = budget == 0;
  for (;;) {
    const uint64_t n = whole ? kStretch : std::min(budget, kStretch);
    const nav::SearchState state = request.step(n);
    if (!whole) budget -= n;
    if (state != nav::SearchState::Running || (!whole && budget == 0)) return state;
    LuaHost::check_stop(L);
  }
}

// Pushes points, length, method (Found) or nil, reason.
int push_path(lua_State* L, const nav::PathRequest& request) {
  if (request.state() != nav::SearchState::Found) {
    lua_pushnil(L);
    lua_pushstring(L, request.reason().c_str());
    return 2;
  }
  auto points = request.points();
  lua_createtable(L, static_cast<int>(points.size()), 0);
  for (size_t k = 0; k < points.size(); ++k) {
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, points[k].x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, points[k].y);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
  }
  lua_pushnumber(L, request.length());
  lua_pushstring(L, nav::method_name(request.method()));
  return 3;
}

// thicket.find_path(x0, y0, x1, y1 [, options]): a whole search now.
int find_path(lua_State* L) {
  Self s = self(L);
  world::Vec2 a{luaL_checknumber(L, 1), luaL_checknumber(L, 2)}, b{luaL_checknumber(L, 3), luaL_checknumber(L, 4)};
  nav::PathOptions o = path_options(L, 5, *s.worker, nullptr);
  s.worker->path.start(s.worker->sim->nav.world, a, b, o);
  search(L, s.worker->path, 0);
  return push_path(L, s.worker->path);
}

// Whether a search in progress asks what these options ask: the same algorithm and smoothing.
// (Not the danger zones: zones drawn round moving guards change every tick, and a search
// started over each tick might never finish; it keeps the zones of the call that started it.)
bool same_search(const nav::PathOptions& a, const nav::PathOptions& b) {
  return a.algorithm == b.algorithm && a.smooth == b.smooth;
}

// agent:path_to(x, y [, options]): from the agent's position. With a budget, the search runs
// that many nodes per call and returns false until it is done; the agent keeps its search
// between calls (a call for another goal, algorithm or smoothing starts over, and so does one
// after a tick without a call: the search was left behind, by an aborted task say, and the
// agent has moved since).
int path_to(lua_State* L) {
  Self s = self(L);
  world::Vec2 goal{luaL_checknumber(L, 2), luaL_checknumber(L, 3)};
  uint64_t budget = 0;
  nav::PathOptions o = path_options(L, 4, *s.worker, &budget);
  SimWorker& w = *s.worker;
  const nav::NavWorld& nw = w.sim->nav.world;
  SimAgent& a = *s.agent;
  if (budget == 0) {
    release_path(w, a);
    w.path.start(nw, s.entity->position, goal, o);
    search(L, w.path, 0);
    return push_path(L, w.path);
  }
  nav::PathRequest* request = nullptr;
  const uint64_t tick = w.sim->tick;
  if (a.pending_path >= 0) {
    request = w.path_pool[a.pending_path].get();
    if (!(request->to() == goal) || !same_search(request->options(), o) || tick > a.pending_tick + 1)
      request = nullptr, release_path(w, a);
  }
  a.pending_tick = tick;
  if (!request) {
    if (w.free_paths.empty()) {
      w.free_paths.push_back(static_cast<int32_t>(w.path_pool.size()));
      w.path_pool.push_back(std::make_unique<nav::PathRequest>());
    }
    a.pending_path = w.free_paths.back();
    w.free_paths.pop_back();
    request = w.path_pool[a.pending_path].get();
    request->start(nw, s.entity->position, goal, o);
  }
  if (search(L, *request, budget) == nav::SearchState::Running) {
    lua_pushboolean(L, 0);
    return 1;
  }
  int n = push_path(L, *request);
  release_path(w, a);
  return n;
}

// agent:locate(id): another agent's position, or nil when it is not in the world.
int locate(lua_State* L) {
  Self s = self(L);
  const uint32_t id = agent_id_at(L, 2);
  SimAgent* other = id != 0 ? s.worker->sim->agent(id) : nullptr;
  if (!other || !other->alive) return 0;
  const world::Entity* e = s.worker->sim->world.entity(other->entity);
  lua_pushnumber(L, e->position.x);
  lua_pushnumber(L, e->position.y);
  return 2;
}

// suggest(word, {names...}): "; did you mean 'x'?" or "", for the option checks of kWorldLua.
int suggest(lua_State* L) {
  size_t n = 0;
  const char* word = luaL_checklstring(L, 1, &n);
  luaL_checktype(L, 2, LUA_TTABLE);
  const lua_Integer count = luaL_len(L, 2);
  {  // (nothing below raises a Lua error while these live, but for want of memory)
    std::vector<std::string> names;
    for (lua_Integer k = 1; k <= count; ++k) {
      if (lua_rawgeti(L, 2, k) == LUA_TSTRING) names.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    const std::string hint = did_you_mean(std::string_view(word, n), names);
    lua_pushlstring(L, hint.data(), hint.size());
  }
  return 1;
}

const char* kWorldLua = R"LUA(
local thicket, suggest = ...
local coyield, huge, type, tostring, tointeger = coroutine.yield, math.huge, type, tostring, math.tointeger
local error, pcall, ipairs, pairs, concat = error, pcall, ipairs, pairs, table.concat

-- Every pause of move_to and follow_path is counted: a lap of a looping follow_path that made
-- none (the agent stood on every point) gives the tick back, or it would loop until the
-- watchdog stops it. (A coroutine that does not yield lets no other one run in between.)
local pauses = 0
local function yield()
  pauses = pauses + 1
  coyield()
end

-- A value as a message quotes it.
local function describe(v)
  if type(v) == "number" or type(v) == "boolean" then return tostring(v) end
  if type(v) == "string" then return "'" .. (#v > 40 and v:sub(1, 40) .. "..." or v) .. "'" end
  return type(v)
end

-- The helpers below raise at `level` as their caller would call error(message, level): 2 is
-- the line that called thicket.move_to or thicket.follow_path, never a line of this chunk.
local function check_agent(name, agent, level)
  if type(agent) ~= "table" or type(agent.path_to) ~= "function" then
    error(name .. ": argument #1 is the agent (the table the leaf is given), got " ..
          (type(agent) == "table" and "a table that is not an agent" or describe(agent)), level + 1)
  end
end

local function check_move_options(name, options, level)
  if options == nil then return {} end
  if type(options) ~= "table" then
    error(name .. ": the options are a table" .. (name == "move_to" and " (or, after x and y, a number: the radius)" or "") ..
          ", got " .. describe(options), level + 1)
  end
  for _, k in ipairs({"radius", "replan", "stuck"}) do
    local v = options[k]
    if v ~= nil and (type(v) ~= "number" or not (v > 0)) then
      error(name .. ": option '" .. k .. "' is a number > 0, got " .. (type(v) == "number" and tostring(v) or type(v)), level + 1)
    end
  end
  return options
end

-- move_to's arguments: returns the agent id followed (or nil), x, y and the options (a table).
local function move_args(agent, x, y, options, level)
  check_agent("move_to", agent, level + 1)
  local follow
  if type(x) == "number" and type(y) == "number" then
    if type(options) == "number" then options = {radius = options} end
  elseif type(x) == "number" and (y == nil or type(y) == "table") then
    if options ~= nil then
      error("move_to: argument #3 (y) is nil: move_to(agent, x, y [, options]) or move_to(agent, id [, options])", level + 1)
    end
    follow = tointeger(x)
    if not follow then error("move_to: an agent id is a whole number, got " .. describe(x), level + 1) end
    options = y
  elseif type(x) == "number" then
    error("move_to: argument #3 is y (a number) or, after an agent id, the options (a table); got " .. describe(y), level + 1)
  else
    error("move_to: argument #2 is x (a number) or the id of an agent to follow, got " .. describe(x), level + 1)
  end
  return follow, x, y, check_move_options("move_to", options, level + 1)
end

-- Walks to (x, y), or after agent `follow`: see thicket.move_to. Its arguments are checked.
local function walk(agent, follow, x, y, options, level)
  local radius = options.radius or 0.5
  local replan = options.replan or 2
  local stuck_after = options.stuck or 2
  local function goal()
    if follow then return agent:locate(follow) end
    return x, y
  end
  local gx, gy = goal()
  if not gx then return false, "agent " .. follow .. " is not in the world" end
  local replans = 0
  while true do
    local points, why, method
    repeat
      -- A mistake in the options is reported at the caller's line, not inside this chunk.
      local ok
      ok, points, why, method = pcall(agent.path_to, agent, gx, gy, options)
      if not ok then error((tostring(points):gsub("^%(thicket%):%d+: ", "")), level + 1) end
      if points == false then yield() end
    until points ~= false
    if not points then return false, why end
    -- A straight line has nothing to re-plan: the steering's avoidance is all there is.
    local straight = method == "straight"
    -- A grid path's legs already keep out of the map's walls (line of sight); the walls'
    -- feelers would only push the agent off a door one cell wide (the jambs are in reach),
    -- so it would never pass one. Obstacles, which the grid does not know, are still avoided.
    -- Its corners are passed within half a metre at most: passed early, the agent cuts the
    -- corner and presses into the wall it turns around (the next leg is clear only from the
    -- corner). Navmesh corners keep the agent's clearance already; they are passed at radius.
    local grid = method == "grid"
    local walls = grid and 0 or 1
    local corner = (grid and radius > 0.5) and 0.5 or radius
    local i, best, since = 2, huge, 0
    -- One steering request per path, its point updated in place: no new tables per tick.
    local point = {0, 0}
    local ask = {avoid = 1, walls = walls}
    local dt = thicket.dt()
    dt = dt > 0 and dt or 0.1
    while true do
      local px, py = agent:position()
      local tx, ty = goal()
      if not tx then return false, "the agent followed is gone" end
      if (px - tx) ^ 2 + (py - ty) ^ 2 <= radius * radius then return true end
      if follow and (tx - gx) ^ 2 + (ty - gy) ^ 2 > replan * replan then
        gx, gy, replans = tx, ty, 0
        break
      end
      local wp = points[i]
      -- Waypoints already within reach are passed (the last one only on arrival, above).
      while i < #points and (px - wp[1]) ^ 2 + (py - wp[2]) ^ 2 <= corner * corner do
        i = i + 1
        wp = points[i]
        best = huge
      end
      point[1], point[2] = wp[1], wp[2]
      if i == #points then
        ask.seek, ask.arrive = nil, point
      else
        ask.seek, ask.arrive = point, nil
      end
      agent:steer(ask)
      local d = (px - wp[1]) ^ 2 + (py - wp[2]) ^ 2
      if d < best - 1e-4 then best, since = d, 0 else since = since + dt end
      if since > stuck_after and not straight then
        replans = replans + 1
        if replans > 3 then return false, "stuck" end
        break
      end
      yield()
    end
  end
end

-- thicket.move_to(agent, x, y [, options]) or (agent, id [, options]): plan a path with what the
-- world has (navmesh, waypoints, grid map; else a straight line), walk it with the steering
-- (seek, arrive on the last point, avoid), re-plan when stuck or when a followed agent has
-- moved more than options.replan metres from where the path ends. true on arrival (within
-- options.radius); false, why when the goal is unreachable, the followed agent is not in the
-- world or has gone, or the agent stays stuck after re-planning. options: radius (0.5), replan
-- (2), stuck (seconds without progress before re-planning, 2), budget/danger/algorithm/smooth
-- (as agent:path_to). A wrong argument is an error at the caller's line.
function thicket.move_to(agent, x, y, options)
  local follow
  follow, x, y, options = move_args(agent, x, y, options, 2)
  local ok, why = walk(agent, follow, x, y, options, 2)  -- not a tail call: the levels count this frame
  return ok, why
end

-- thicket.follow_path(agent, {{x, y}, ...} [, options]): move_to each point in turn; with
-- loop = true, round and round. true at the end; false, why, k when point k fails (as
-- move_to). The other options are move_to's, for every point.
local follow_keys = {"loop", "radius", "replan", "stuck", "algorithm", "smooth", "budget", "danger"}
local follow_known = {}
for _, k in ipairs(follow_keys) do follow_known[k] = true end
function thicket.follow_path(agent, points, options)
  check_agent("follow_path", agent, 2)
  if type(points) ~= "table" then
    error("follow_path: argument #2 is a list of points {{x, y}, ...}, got " .. describe(points), 2)
  end
  for k, p in ipairs(points) do
    if type(p) ~= "table" or type(p[1]) ~= "number" or type(p[2]) ~= "number" then
      error("follow_path: point " .. k .. " is not {x, y}, got " .. describe(p), 2)
    end
  end
  local loop, pass = false, nil
  if options ~= nil then
    if type(options) ~= "table" then error("follow_path: the options are a table, got " .. describe(options), 2) end
    pass = {}
    for k, v in pairs(options) do
      if type(k) ~= "string" or not follow_known[k] then
        local name = type(k) == "string" and k or tostring(k)
        error("follow_path: unknown option " .. describe(k) .. suggest(name, follow_keys) ..
              " (options: " .. concat(follow_keys, ", ") .. ")", 2)
      elseif k == "loop" then
        if type(v) ~= "boolean" then error("follow_path: option 'loop' is true or false, got " .. describe(v), 2) end
        loop = v
      else
        pass[k] = v
      end
    end
  end
  pass = check_move_options("follow_path", pass, 2)
  repeat
    local before = pauses
    for k, p in ipairs(points) do
      local ok, why = walk(agent, nil, p[1], p[2], pass, 2)
      if not ok then return false, why, k end
    end
    if loop and pauses == before then yield() end
  until not loop
  return true
end
)LUA";

}  // namespace

void install_lua_world(SimWorker& worker) {
  LuaHost& host = lua_host(worker.rt->impl());
  host.world = &worker;
  lua_State* L = host.state();
  lua_newtable(L);  // the agent metatable
  lua_newtable(L);  // its __index: the methods
  const luaL_Reg methods[] = {{"position", position}, {"velocity", velocity}, {"heading", heading},
                              {"team", team},         {"neighbours", neighbours}, {"nearest", nearest},
                              {"steer", steer},       {"damage", damage},     {"signal", signal},
                              {"path_to", path_to},   {"locate", locate},     {"sees", sees},
                              {"percepts", percepts}, {"memory", memory},     {nullptr, nullptr}};
  lua_pushlightuserdata(L, &host);
  luaL_setfuncs(L, methods, 1);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "protected: the agent methods are shared by every agent");
  lua_setfield(L, -2, "__metatable");
  host.set_agent_metatable(luaL_ref(L, LUA_REGISTRYINDEX));
  // thicket.metric, move_to, follow_path
  host.push_module();
  lua_pushlightuserdata(L, &host);
  lua_pushcclosure(L, metric, 1);
  lua_setfield(L, -2, "metric");
  lua_pushlightuserdata(L, &host);
  lua_pushcclosure(L, gauge, 1);
  lua_setfield(L, -2, "gauge");
  lua_pushlightuserdata(L, &host);
  lua_pushcclosure(L, find_path, 1);
  lua_setfield(L, -2, "find_path");
  const luaL_Reg perceiving[] = {{"noise", noise}, {"pickups", pickups}, {"areas", areas}};
  for (const luaL_Reg& r : perceiving) {
    lua_pushlightuserdata(L, &host);
    lua_pushcclosure(L, r.func, 1);
    lua_setfield(L, -2, r.name);
  }
  host.journal_wrap(-1, "thicket.", {"metric", "gauge", "find_path", "noise", "pickups", "areas"});
  luaL_loadbuffer(L, kWorldLua, std::strlen(kWorldLua), "=(thicket)");
  lua_pushvalue(L, -2);
  lua_pushcfunction(L, suggest);
  lua_call(L, 2, 0);
  lua_pop(L, 1);
}

}  // namespace thicket
