// pairs and next in a fixed order (lua_order.cpp): on random tables, pairs walks the keys in the
// guide's order (numbers ascending, strings in byte order, false, true) as a sort written in
// Lua finds it, next walks them the same way, and a walk that sets keys to nil or adds keys
// passes over the removed ones and never sees the added ones. Arrays without holes take a
// shorter way through pairs (no keys kept), so the tables are arrays, arrays with holes, and
// arrays with other keys beside them.
#include <doctest/doctest.h>

#include <lua.hpp>

#include <string>

#include "lua_order.hpp"

namespace {

const char kCompareOrder[] = R"LUA(
local onext, seed, rounds = ...
local rng = seed
local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n end
-- The guide's order, written apart from lua_order.cpp.
local function group(k)
  local t = type(k)
  return t == "number" and 0 or t == "string" and 1 or t == "boolean" and 2 or 3
end
local function less(a, b)
  local ga, gb = group(a), group(b)
  if ga ~= gb then return ga < gb end
  if ga == 2 then return a == false and b == true end
  return a < b
end
local function key()
  local k = rand(10)
  if k == 0 then return rand(7) - 3 end                    -- 0 and below
  if k == 1 then return rand(40) + 0.5 end                 -- a float
  if k == 2 then return "k" .. rand(30) end
  if k == 3 then return ("abcdefghij"):sub(1, rand(11)) end  -- prefixes of one another
  if k == 4 then return rand(2) == 0 end
  if k == 5 then return math.maxinteger - rand(3) end
  return rand(40) + 1
end
local function show(list)
  local parts = {}
  for i, k in ipairs(list) do parts[i] = tostring(k) end
  return table.concat(parts, " ")
end
local arrays, checked = 0, 0
for round = 1, rounds do
  local t = {}
  local n, shape = rand(20), rand(4)
  for i = 1, n do t[i] = i end                       -- shape 0: an array
  if shape == 1 and n > 0 then t[rand(n) + 1] = nil end  -- a hole (or the last one gone)
  if shape >= 2 then for _ = 1, rand(25) do t[key()] = true end end
  local expected = {}
  for k in next, t do expected[#expected + 1] = k end  -- the library's own next: every key
  table.sort(expected, less)
  local got = {}
  for k in pairs(t) do got[#got + 1] = k end
  local walked, k = {}, onext(t)
  while k ~= nil do walked[#walked + 1] = k; k = onext(t, k) end
  if show(got) ~= show(expected) then error("round " .. round .. ": pairs gave " .. show(got) .. ", not " .. show(expected)) end
  if show(walked) ~= show(expected) then error("round " .. round .. ": next gave " .. show(walked) .. ", not " .. show(expected)) end
  -- Which way pairs took: an array without holes keeps no keys (its iterator holds the table and n).
  local is_array = true
  for j, k2 in ipairs(expected) do is_array = is_array and math.type(k2) == "integer" and k2 == j end
  local ups = debug.getinfo((pairs(t))).nups
  if ups ~= (is_array and 2 or 3) then error("round " .. round .. ": pairs' iterator has " .. ups .. " upvalues") end
  if is_array then arrays = arrays + 1 end
  -- A walk that removes keys ahead of it and adds new ones: the removed are passed over,
  -- the added never seen.
  local place = {}
  for j, k2 in ipairs(expected) do place[k2] = j end
  local gone, seen, i = {}, {}, 0
  for k2 in pairs(t) do
    i = i + 1
    seen[#seen + 1] = k2
    if gone[k2] then error("round " .. round .. ": " .. tostring(k2) .. " was removed before the walk came to it") end
    local ahead = expected[place[k2] + 1 + rand(3)]
    if ahead ~= nil and rand(2) == 0 then t[ahead] = nil; gone[ahead] = true end
    t[#expected + 100 + i] = true  -- past every key: never in the walk
    t["added" .. i] = true
  end
  local left = {}
  for _, k2 in ipairs(expected) do if not gone[k2] then left[#left + 1] = k2 end end
  if show(seen) ~= show(left) then error("round " .. round .. ": a changing walk gave " .. show(seen) .. ", not " .. show(left)) end
  checked = checked + 1
end
return checked, arrays
)LUA";

}  // namespace

TEST_CASE("lua order: pairs and next walk random tables in the guide's order, removed keys passed over, added ones unseen") {
  lua_State* L = luaL_newstate();
  *static_cast<void**>(lua_getextraspace(L)) = nullptr;  // no host: nothing to ask
  luaL_openlibs(L);
  lua_pushcfunction(L, thicket::ordered_pairs);
  lua_setglobal(L, "pairs");
  REQUIRE(luaL_loadbuffer(L, kCompareOrder, sizeof kCompareOrder - 1, "=order") == LUA_OK);
  lua_pushcfunction(L, thicket::ordered_next);
  lua_pushinteger(L, 12345);
  lua_pushinteger(L, 3000);
  const int status = lua_pcall(L, 3, 2, 0);
  INFO(std::string(status == LUA_OK ? "" : lua_tostring(L, -1)));
  REQUIRE(status == LUA_OK);
  CHECK(lua_tointeger(L, -2) == 3000);
  CHECK(lua_tointeger(L, -1) > 500);  // arrays without holes among them
  lua_close(L);
}

TEST_CASE("lua order: an array's pairs and its iterator called by hand") {
  lua_State* L = luaL_newstate();
  *static_cast<void**>(lua_getextraspace(L)) = nullptr;  // no host: nothing to ask
  luaL_openlibs(L);
  lua_pushcfunction(L, thicket::ordered_pairs);
  lua_setglobal(L, "pairs");
  const char* script = R"LUA(
    local out = {}
    local t = {"a", "b", "c"}
    local f, s, c = pairs(t)
    out[#out + 1] = tostring(s == t) .. " " .. tostring(c)
    out[#out + 1] = table.concat({f(t, nil)}, "=")       -- the first
    out[#out + 1] = table.concat({f(t, 2)}, "=")         -- after 2
    out[#out + 1] = tostring(f(t, 3))                    -- after the last: nil
    out[#out + 1] = tostring(f(t, 1.5))                  -- not a key of it: nil, no error
    out[#out + 1] = tostring(f(t, "x"))
    out[#out + 1] = tostring(f())                        -- by hand, no arguments: the first
    out[#out + 1] = tostring(f("not a table", math.maxinteger))
    out[#out + 1] = tostring(f(nil, math.mininteger))
    local e = 0
    for _ in pairs({}) do e = e + 1 end
    out[#out + 1] = tostring(e)
    local s1 = {}
    for k, v in pairs({[1] = "x", ["1"] = "y"}) do s1[#s1 + 1] = type(k) .. ":" .. v end  -- "1" is no number
    out[#out + 1] = table.concat(s1, ",")
    return table.concat(out, "|")
  )LUA";
  REQUIRE(luaL_dostring(L, script) == LUA_OK);
  CHECK(std::string(lua_tostring(L, -1)) == "true nil|1=a|3=c|nil|nil|nil|1|nil|nil|0|number:x,string:y");
  lua_close(L);
}

TEST_CASE("lua order: integers and floats near 2^63 are ordered exactly, and next walks them to the end") {
  // Through a double, math.maxinteger and 2^63 compared equal: ordered by their places in the
  // table instead, against the integers around them, and next went round them for ever.
  lua_State* L = luaL_newstate();
  *static_cast<void**>(lua_getextraspace(L)) = nullptr;  // no host: nothing to ask
  luaL_openlibs(L);
  lua_pushcfunction(L, thicket::ordered_pairs);
  lua_setglobal(L, "pairs");
  lua_pushcfunction(L, thicket::ordered_next);
  lua_setglobal(L, "onext");
  const char* script = R"LUA(
    local t = {[math.maxinteger] = "a", [math.maxinteger - 1] = "b", [2^63] = "c", [-2^63 - 2^11] = "d",
               [math.mininteger] = "e", [math.mininteger + 1] = "f", [1.5] = "g", [1] = "h"}
    local walked, paired = {}, {}
    local k = onext(t)
    while k ~= nil and #walked < 20 do walked[#walked + 1] = t[k]; k = onext(t, k) end
    for _, v in pairs(t) do paired[#paired + 1] = v end
    return table.concat(walked) .. " " .. table.concat(paired)
  )LUA";
  REQUIRE(luaL_dostring(L, script) == LUA_OK);
  CHECK(std::string(lua_tostring(L, -1)) == "defhgbac defhgbac");
  lua_close(L);
}
