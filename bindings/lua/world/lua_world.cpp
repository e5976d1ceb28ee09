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
#include "lua_world.hpp"
#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "suggest.hpp"

namespace thicket {
namespace lua_world {

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

// A number as a message quotes it ("nan", not the platform's "-nan").
const char* number_text(double v, char (&buf)[40]) {
  if (std::isnan(v)) return "nan";
  std::snprintf(buf, sizeof buf, "%.14g", v);
  return buf;
}

// An agent id argument: an integer (a float with a whole value too, as agent.bb.seen_id is), and
// 0 (no agent) for one outside 1 .. 2^32 - 2 (a cast wrapped 2^32 + 3 round to agent 3).
uint32_t agent_id_at(lua_State* L, int index) {
  const lua_Integer id = luaL_checkinteger(L, index);
  return id >= 1 && id < static_cast<lua_Integer>(UINT32_MAX) ? static_cast<uint32_t>(id) : 0;
}

// Raises the message on top of the stack at the caller's line. The callers build it in a block
// of their own: no C++ object is left alive when lua_error jumps out.
int raise_top(lua_State* L) {
  luaL_where(L, 1);
  lua_insert(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

namespace {

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
// agent:face(x, y): after this tick's move the agent faces the point (its sight cones look
// there); a later call in the tick replaces an earlier one, and a point where it stands asks
// nothing. Moving on later ticks turns it to its velocity again, so it is a stationary or slow
// agent's way to look around. Taken with the tick's other effects: a leaf's call changes no
// heading another agent reads in the same tick.
int face(lua_State* L) {
  Self s = self(L);
  const double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
  char bx[40], by[40];
  if (!std::isfinite(x) || !std::isfinite(y))
    return luaL_error(L, "face: the point must be two finite numbers, got %s, %s", number_text(x, bx), number_text(y, by));
  const world::Vec2 to = world::Vec2{x, y} - s.entity->position;
  const double length = std::sqrt(to.length_squared());
  if (length > 1e-9) s.worker->sim->facing[s.agent->entity.index()] = to / length;
  return 0;
}
int team(lua_State* L) {
  Self s = self(L);
  lua_pushstring(L, s.worker->sim->spec.teams[s.entity->team].c_str());
  return 1;
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
  const bool enemies = flag("enemies"), friends = flag("friends");
  // Which agents: one of the three ({enemies = true, friends = true} took friends, silently).
  lua_getfield(L, 3, "team");
  const bool team_given = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (enemies + friends + team_given > 1)
    luaL_error(L, "%s: the filter takes one of enemies = true, friends = true and team = \"name\", got %s", what,
               enemies && friends ? (team_given ? "all three" : "enemies and friends") : enemies ? "enemies and team" : "friends and team");
  if (enemies) q.f.teams = world::TeamFilter::all_but(s.entity->team);
  if (friends) q.f.teams = world::TeamFilter::only(s.entity->team);
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

// A world query's cost, bounded by what is left of the running agent's share of the tick
// (kQueryEntriesPerTick over the run's agents): the query stops examining entities past it.
uint64_t query_share(const Self& s) {
  const SimWorker& w = *s.worker;
  const uint64_t agents = std::max<uint64_t>(1, w.sim->agents.size());
  return std::max(kMinQueryEntriesPerAgent, kQueryEntriesPerTick / agents);
}
world::QueryCost query_cost(const Self& s) {
  SimAgent& a = *s.agent;
  if (a.query_tick != s.worker->sim->tick) a.query_tick = s.worker->sim->tick, a.query_entries = 0;
  world::QueryCost cost;
  const uint64_t share = query_share(s);
  cost.limit = a.query_entries < share ? share - a.query_entries : 0;
  return cost;
}

// Counts the entities the query examined; raises once the share is spent, the query then cut
// short (no C++ object lives in the callers' frames yet: called between the query and what it
// builds).
void count_query(lua_State* L, const Self& s, const char* what, const world::QueryCost& cost) {
  SimAgent& a = *s.agent;
  const uint64_t share = query_share(s);
  const uint64_t agents = std::max<uint64_t>(1, s.worker->sim->agents.size());
  a.query_entries += cost.entries;
  if (a.query_entries > share)
    luaL_error(L, "%s: agent %d's world queries examined more than %I agents this tick (its share of the tick's "
                  "%I over %I agents: a radius as wide as the world, asked by many agents?)",
               what, static_cast<int>(a.id), static_cast<lua_Integer>(share), static_cast<lua_Integer>(kQueryEntriesPerTick),
               static_cast<lua_Integer>(agents));
}

int neighbours(lua_State* L) {
  Self s = self(L);
  const Query q = query_from(L, s, "neighbours");
  auto& out = s.worker->scratch;
  world::QueryCost cost = query_cost(s);
  if (q.has_fov) s.worker->sim->hash.in_field_of_view(s.entity->position, s.entity->heading, q.radius, q.half, out, q.f, &cost);
  else s.worker->sim->hash.within_radius(s.entity->position, q.radius, out, q.f, &cost);
  count_query(L, s, "neighbours", cost);
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
    world::QueryCost cost = query_cost(s);
    if (q.has_fov) sim.hash.in_field_of_view(s.entity->position, s.entity->heading, q.radius, q.half, out, q.f, &cost);
    else sim.hash.within_radius(s.entity->position, q.radius, out, q.f, &cost);
    count_query(L, s, "nearest", cost);
    if (q.sight) {
      // Nearest first (then in id order, as out is), and the first one in sight is the answer:
      // a line of sight per candidate made "the nearest enemy I can see within 30 m" cost a
      // wall walk for each of the dozens within 30 m.
      auto& order = s.worker->by_distance;
      order.clear();
      for (size_t k = 0; k < out.size(); ++k)
        order.emplace_back((sim.world.entity(out[k])->position - s.entity->position).length_squared(), k);
      std::sort(order.begin(), order.end());
      for (const auto& [d, k] : order)
        if (sim.nav.world.walls.clear(s.entity->position, sim.world.entity(out[k])->position)) {
          id = out[k];
          break;
        }
    } else {
      double best = 0;
      for (world::EntityId c : out) {
        double d = (sim.world.entity(c)->position - s.entity->position).length_squared();
        if (id.is_none() || d < best) {
          id = c;
          best = d;
        }
      }
    }
  } else {
    world::QueryCost cost = query_cost(s);
    id = s.worker->sim->hash.nearest(s.entity->position, q.radius, q.f, &cost);
    count_query(L, s, "nearest", cost);
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
    world::QueryCost cost = query_cost(s);
    sim.hash.within_radius(me.position, radius, out, f, &cost);
    count_query(L, s, "steer", cost);
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

// Counts one agent:damage or agent:signal call of the running agent (with its signal's bytes);
// raises (no C++ object lives in the callers' frames yet) for a call past kMaxEffectsPerTick
// calls, or a signal past kMaxSignalBytesPerTick bytes, in one tick.
void count_effect(lua_State* L, const Self& s, const char* what, size_t bytes) {
  SimAgent& a = *s.agent;
  const uint64_t tick = s.worker->sim->tick;
  if (a.effects_tick != tick) a.effects_tick = tick, a.effects = 0, a.signal_bytes = 0;
  // (A call refused here is not counted: what the agent made before stands, and so may what it
  // makes after within the bounds.)
  if (a.effects >= kMaxEffectsPerTick)
    luaL_error(L, "%s: agent %d made more than %d damage and signal calls this tick (a runaway loop?)", what,
               static_cast<int>(a.id), static_cast<int>(kMaxEffectsPerTick));
  if (bytes > kMaxSignalBytesPerTick - a.signal_bytes)
    luaL_error(L, "%s: agent %d's signals this tick carry more than %d MB of keys and texts (a runaway loop? a "
                  "whole file sent as a value?)",
               what, static_cast<int>(a.id), static_cast<int>(kMaxSignalBytesPerTick >> 20));
  ++a.effects;
  a.signal_bytes += bytes;
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
  // A negative amount healed, and counted against the run's damage_dealt.
  luaL_argcheck(L, amount >= 0, 3, "damage must be >= 0 (to heal, signal the new health: agent:signal(id, 'health', h))");
  count_effect(L, s, "damage", 0);
  luaL_where(L, 1);  // for its report, when the target takes no damage (simulation.cpp)
  size_t where_len = 0;
  const char* where = lua_tolstring(L, -1, &where_len);
  Effect e = make_effect(s, target);
  e.kind = Effect::Kind::Damage;
  e.amount = amount;
  e.where.assign(where, where_len);
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
  count_effect(L, s, "signal", key_len + (t == LUA_TSTRING ? lua_rawlen(L, 4) : 0));
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
      // A gauge NAME has the columns NAME_mean, NAME_min and NAME_max in the rows: a declared
      // metric of one of those names was a second column of that name (pandas renamed it .1).
      // (Compared in place: building names[m] + stat allocated three strings a call.)
      auto declared_as = [&](std::string_view stat) {
        const std::string& base = names[m];
        return std::any_of(declared.begin(), declared.end(), [&](const std::string& d) {
          return d.size() == base.size() + stat.size() && d.compare(0, base.size(), base) == 0 &&
                 d.compare(base.size(), stat.size(), stat) == 0;
        });
      };
      if (gauge)
        for (const char* stat : {"_mean", "_min", "_max"})
          if (declared_as(stat))
            return luaL_error(L, "gauge '%s' has the columns %s_mean, %s_min and %s_max in the rows, and '%s%s' is a "
                                 "metric of the scenario too: rename one of them",
                              name, name, name, name, name, stat);
      // A name is a counter or a gauge, not both: a gauge's report replaced the counter's total.
      if (gauge ? s.worker->sim->metric_counted[m] : s.worker->sim->metric_is_gauge[m])
        return luaL_error(L, "metric '%s' is a %s (thicket.%s reported it before), so thicket.%s cannot report it: a name "
                             "is a counter or a gauge, not both (declare another name under 'metrics:')",
                          name, gauge ? "counter" : "gauge", gauge ? "metric" : "gauge", gauge ? "gauge" : "metric");
      s.worker->metrics.push_back({s.agent->id, s.worker->seq++, m, value, gauge});
      return 0;
    }
  {  // a near name of a declared one, or the declared ones (the string is gone before lua_error jumps)
    std::string near = did_you_mean(name, declared);
    if (near.empty()) near = declared.empty() ? " (none are declared)" : " (declared: " + join_names(declared) + ")";
    luaL_where(L, 1);
    lua_pushfstring(L, "unknown metric '%s'%s: declare it under 'metrics:' in the scenario", name, near.c_str());
    lua_concat(L, 2);
  }
  return lua_error(L);
}
int metric(lua_State* L) { return record_metric(L, false); }
int gauge(lua_State* L) { return record_metric(L, true); }

}  // namespace
}  // namespace lua_world

void install_lua_world(SimWorker& worker) {
  using namespace lua_world;
  LuaHost& host = lua_host(worker.rt->impl());
  host.world = &worker;
  lua_State* L = host.state();
  lua_newtable(L);  // the agent metatable
  lua_newtable(L);  // its __index: the methods
  const luaL_Reg methods[] = {{"position", position}, {"velocity", velocity}, {"heading", heading},
                              {"team", team},         {"neighbours", neighbours}, {"nearest", nearest},
                              {"steer", steer},       {"face", face},         {"damage", damage},     {"signal", signal},
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
