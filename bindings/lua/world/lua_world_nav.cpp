// The world API's navigation, as Lua leaves see it: thicket.find_path, agent:path_to,
// agent:locate, and (in Lua) thicket.move_to and thicket.follow_path (lua_world.cpp installs them).
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "lua_host.hpp"
#include "lua_world.hpp"
#include "suggest.hpp"

namespace thicket::lua_world {

// The cells the danger zones' squares span on the map, counted zone by zone (as the grid
// search prices them), and the most one search may price (about 35 ms of work).
static constexpr uint64_t kMaxDangerCells = uint64_t(1) << 22;
static uint64_t danger_cells(const nav::GridMap& m, std::span<const nav::DangerZone> zones) {
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
static nav::PathOptions path_options(lua_State* L, int idx, SimWorker& worker, uint64_t* budget) {
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
    else {
      const char* got = luaL_tolstring(L, -1, nullptr);
      {
        const std::string near = a ? did_you_mean(a, {"auto", "astar", "jps"}) : std::string();
        lua_pushfstring(L, "path options: 'algorithm' is \"auto\", \"astar\" or \"jps\", got %s%s", got, near.c_str());
      }
      raise_top(L);
    }
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
static nav::SearchState search(lua_State* L, nav::PathRequest& request, uint64_t budget) {
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
static int push_path(lua_State* L, const nav::PathRequest& request) {
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
static bool same_search(const nav::PathOptions& a, const nav::PathOptions& b) {
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

extern const char* const kWorldLua = R"LUA(
local thicket, suggest = ...
local coyield, isyieldable, huge, type, tostring, tointeger = coroutine.yield, coroutine.isyieldable, math.huge, type,
  tostring, math.tointeger
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

-- move_to and follow_path walk over many ticks: a plain leaf, which answers in the tick it is
-- called, cannot call them (Lua's own words for the yield name neither the call nor the fix).
local function check_task(name, level)
  if not isyieldable() then
    error("thicket." .. name .. " can only be called inside a thicket.task (it walks over many ticks): make the leaf " ..
          "a task, leaves.X = thicket.task(function(agent, args) ... end)", level + 1)
  end
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
      -- (NaN by its name: tostring gives "-nan" or "nan" as the platform prints it)
      local shown = type(v) ~= "number" and type(v) or v ~= v and "nan" or tostring(v)
      error(name .. ": option '" .. k .. "' is a number > 0, got " .. shown, level + 1)
    end
  end
  return options
end

-- move_to's arguments: returns the agent id followed (or nil), x, y and the options (a table).
local function move_args(agent, x, y, options, level)
  check_agent("move_to", agent, level + 1)
  local follow
  if type(x) == "number" and type(y) == "number" then
    -- A nan or infinite goal is the caller's mistake (0/0 in its sums), said at its line: as a
    -- search's refusal it was a false the caller's loop could spin on.
    for _, v in ipairs({{"x", x}, {"y", y}}) do
      local n = v[2]
      if n ~= n or n == huge or n == -huge then
        error("move_to: " .. v[1] .. " must be a finite number, got " .. (n ~= n and "nan (not a number: 0/0?)" or tostring(n)), level + 1)
      end
    end
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
  check_task("move_to", 2)
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
  check_task("follow_path", 2)
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

}  // namespace thicket::lua_world
