// string.rep, table.insert, table.remove, table.move and table.sort for leaf scripts (lua_loops.cpp): the
// same results and errors as Lua 5.4's own on random arguments, and a leaf's time limit stops
// the calls that used to loop in C for hours.
#include <doctest/doctest.h>

#include <lua.hpp>

#include <string>
#include <utility>

#include "lua_fixture.hpp"
#include "lua_loops.hpp"

using thicket::Status;
using thicket_test::LuaRuntime;

namespace {

// Runs the same random calls on the library's functions (`lua`) and ours (`ours`), on fresh
// tables built alike, and compares what they return, raise and leave in the tables.
const char kCompareLoops[] = R"LUA(
local lua, ours, seed, rounds = ...
local rng = seed
local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n end
local function dump(v)
  if type(v) ~= "table" then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. tostring(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end
local function outcome(ok, ...)
  local parts = {tostring(ok)}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    -- Called through pcall, a function has no name of its own, and how Lua names it (or
    -- counts its arguments) in an argument error depends on where it finds it: compare the
    -- reason only (the leaf test below checks the whole message of a call from Lua code).
    if type(v) == "string" then v = v:gsub("^bad argument #%d+ to '[^']*' ", "bad argument ") end
    parts[#parts + 1] = dump(v)
  end
  return table.concat(parts, " ")
end
local function list(n, holes)
  local t = {}
  for i = 1, n do if not holes or rand(4) > 0 then t[i] = i * 10 end end
  return t
end
local function int() local k = rand(8); if k == 0 then return rand(9) - 4 elseif k == 1 then return math.maxinteger elseif k == 2 then return math.mininteger else return rand(30) - 5 end end
local checked = 0
for round = 1, rounds do
  local kind = rand(4)
  local n, holes = rand(12), rand(3) == 0
  local args_seed = rng
  local results = {}
  for side, lib in ipairs({lua, ours}) do
    rng = args_seed
    local a, b = list(n, holes), list(n, holes)
    local r
    if kind == 0 then
      local s = ({"", "x", "ab", "hello"})[rand(4) + 1]
      local sep = ({nil, "", "-", "::"})[rand(4) + 1]
      local count = rand(10) == 0 and ({math.maxinteger, 1 << 31, -1})[rand(3) + 1] or rand(6) - 1
      if sep == nil then r = outcome(pcall(lib.rep, s, count)) else r = outcome(pcall(lib.rep, s, count, sep)) end
    elseif kind == 1 then
      local form = rand(5)
      if form == 0 then r = outcome(pcall(lib.insert, a, "v"))
      elseif form == 1 then r = outcome(pcall(lib.insert, a))
      elseif form == 2 then r = outcome(pcall(lib.insert, 7, 1, 2))
      else r = outcome(pcall(lib.insert, a, int(), "v")) end
    elseif kind == 2 then
      local form = rand(4)
      if form == 0 then r = outcome(pcall(lib.remove, a))
      elseif form == 1 then r = outcome(pcall(lib.remove, "s", 1))
      else r = outcome(pcall(lib.remove, a, int())) end
    else
      local f, e, t = int(), int(), int()
      if rand(3) == 0 then r = outcome(pcall(lib.move, a, f, e, t, b)) else r = outcome(pcall(lib.move, a, f, e, t)) end
    end
    results[side] = r .. " | " .. dump(a) .. " | " .. dump(b)
  end
  checked = checked + 1
  if results[1] ~= results[2] then return checked, "round " .. round .. " kind " .. kind .. ":\n  lua:  " .. results[1] .. "\n  ours: " .. results[2] end
end
-- Long moves (ours in stretches), both directions in one table, and into another table.
for _, case in ipairs({{1, 10000, 3}, {3, 10002, 1}, {1, 10000, 5000}, {5000, 15000, 1}}) do
  local results = {}
  for side, lib in ipairs({lua, ours}) do
    local a, b = list(16000), {}
    lib.move(a, case[1], case[2], case[3])
    lib.move(a, case[1], case[2], case[3] + 7, b)
    results[side] = dump(a) .. dump(b)
  end
  checked = checked + 1
  if results[1] ~= results[2] then return checked, "long move " .. table.concat(case, ",") .. " differs" end
end
-- table.concat: lists with holes and values of every kind, separators, stretches (ours asks
-- the watchdog as it goes; the results and errors must be the library's).
for round = 1, 3000 do
  local n = rand(10)
  local args_seed = rng
  local results = {}
  for side, lib in ipairs({lua, ours}) do
    rng = args_seed
    local t = {}
    for i = 1, n do
      local k = rand(12)
      t[i] = k == 0 and {} or k == 1 and true or k == 2 and 2.5 or k == 3 and nil or (k < 8 and i or "s" .. i)
    end
    local sep = ({nil, "", "-", "::"})[rand(4) + 1]
    local form = rand(4)
    local r
    if form == 0 then r = outcome(pcall(lib.concat, t))
    elseif form == 1 then r = outcome(pcall(lib.concat, t, sep))
    elseif form == 2 then r = outcome(pcall(lib.concat, t, sep or "", int()))
    else r = outcome(pcall(lib.concat, rand(5) == 0 and 7 or t, sep or "", int(), int())) end
    results[side] = r
  end
  checked = checked + 1
  if results[1] ~= results[2] then return checked, "concat round " .. round .. ":\n  lua:  " .. results[1] .. "\n  ours: " .. results[2] end
end
-- Sorts long enough that ours compares through its watched comparison (65,536 elements or more; shorter ones are the
-- library's own, as are those given a comparison): the same order, and the same error for
-- values that do not compare.
for _, n in ipairs({65535, 65536, 70000}) do
  for _, form in ipairs({"numbers", "strings", "mixed"}) do
    local results = {}
    for side, lib in ipairs({lua, ours}) do
      rng = seed + n
      local t = {}
      for i = 1, n do
        local v = rand(100000)
        if form == "numbers" then t[i] = rand(2) == 0 and v or v + 0.5
        elseif form == "strings" then t[i] = tostring(v)
        else t[i] = i == n // 2 and "x" or v end
      end
      local r = outcome(pcall(lib.sort, t))
      results[side] = r .. " | " .. (form == "mixed" and "" or table.concat(t, ","))
    end
    checked = checked + 1
    if results[1] ~= results[2] then return checked, "sort of " .. n .. " " .. form .. " differs:\n  lua:  " .. results[1]:sub(1, 200) .. "\n  ours: " .. results[2]:sub(1, 200) end
  end
end
-- Argument errors, checked before any comparison: a list too long (its __len says 2^40, or a
-- negative length), not a table, a comparison that is not a function (looked at only for a list of two or more).
local huge, negative = setmetatable({}, {__len = function() return 2^40 end}), setmetatable({}, {__len = function() return -5 end})
for k, args in ipairs({{huge}, {negative}, {huge, 5}, {7}, {{3, 1}, 5}, {{}, 5}, {{1}, "x"}, {nil}, {"x"}, {{2, 1}, nil}}) do
  local results = {}
  for side, lib in ipairs({lua, ours}) do results[side] = outcome(pcall(lib.sort, table.unpack(args, 1, 2))) end
  checked = checked + 1
  if results[1] ~= results[2] then return checked, "sort's arguments " .. k .. " differ:\n  lua:  " .. results[1] .. "\n  ours: " .. results[2] end
end
return checked, nil
)LUA";

}  // namespace

TEST_CASE("library loops: rep, concat, insert, remove, move and sort answer as Lua 5.4's own on random arguments") {
  lua_State* L = luaL_newstate();
  *static_cast<void**>(lua_getextraspace(L)) = nullptr;  // no host: nothing to poll
  luaL_openlibs(L);
  // The six functions as the state has them now, in one table as the comparison wants.
  auto collect = [&](const char* global) {
    lua_newtable(L);
    for (auto [library, name] :
         {std::pair{"string", "rep"}, {"table", "insert"}, {"table", "remove"}, {"table", "move"}, {"table", "sort"},
          {"table", "concat"}}) {
      lua_getglobal(L, library);
      lua_getfield(L, -1, name);
      lua_setfield(L, -3, name);
      lua_pop(L, 1);
    }
    lua_setglobal(L, global);
  };
  collect("lua_library");
  thicket::install_watched_loops(L);
  collect("our_library");
  REQUIRE(luaL_loadstring(L, kCompareLoops) == LUA_OK);
  lua_getglobal(L, "lua_library");
  lua_getglobal(L, "our_library");
  lua_pushinteger(L, 20261129);
  lua_pushinteger(L, 20000);
  const int rc = lua_pcall(L, 4, 2, 0);
  REQUIRE_MESSAGE(rc == LUA_OK, lua_tostring(L, -1));
  const lua_Integer checked = lua_tointeger(L, -2);
  const std::string differs = lua_isnil(L, -1) ? "" : lua_tostring(L, -1);
  CHECK_MESSAGE(differs.empty(), differs);
  CHECK(checked >= 23013);
  lua_close(L);
}

TEST_CASE("library loops: calls that looped in C for hours stop at the leaf's time limit, with their position") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0.05;
  o.lua_memory_limit = 0;  // no cap: only the time limit stops them
  LuaRuntime t(o);
  t.write("loops.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Empty() return #string.rep("", math.maxinteger) == 0 and #("")
  :rep(1 << 40, "") == 0 end
function L.Move() table.move({}, 1, 1e15, 2) return true end
function L.Insert() table.insert(setmetatable({}, {__len = function() return 1 << 50 end}), 1, "x") return true end
function L.Remove() table.remove(setmetatable({}, {__len = function() return 1 << 50 end}), 1) return true end
function L.Rep() return #string.rep("ab", 1e9, "") > 0 end
function L.Concat() return #table.concat(setmetatable({}, {__index = table.concat}), "", 1, math.maxinteger) > 0 end
local big = {}  -- (built at load, which may take 20 limits)
for i = 1, 2000000 do big[i] = (i * 7919) % 1000003 + 0.5 end
function L.Sort() table.sort(big) return true end
function L.Sorted()  -- stopped inside the sort, not after it: the list is left half sorted
  local sorted = true
  for i = 2, #big do if big[i - 1] > big[i] then sorted = false break end end
  thicket.log("@sorted " .. tostring(sorted))
  return true
end
function L.Errors()
  local t = {1, 2, 3}
  thicket.log(select(2, pcall(function() table.remove(t, 9) end)))
  thicket.log(select(2, pcall(function() table.insert(t, 9, 1) end)))
  thicket.log(select(2, pcall(function() table.insert(t) end)))
  thicket.log(select(2, pcall(function() table.insert(7, 1) end)))
  thicket.log(select(2, pcall(function() table.move(t, 1, math.maxinteger, 2) end)))
  thicket.log(select(2, pcall(function() return string.rep("ab", 1 << 40) end)))
  return true
end
function L.Load() return load(os.clock) ~= nil end  -- a C reader: its pieces come until the heap's cap
return L
)LUA");
  // Nothing to copy: done at once.
  auto empty = t.rt.spawn(t.load("tree: t\nleaves: [loops.lua]\nroot: {action: Empty}\n"));
  CHECK(t.rt.tick(empty, 0.1) == Status::Success);
  // Without the polls each of these ran for hours (the test's time limit would end it).
  for (const char* leaf : {"Move", "Insert", "Remove", "Rep", "Concat", "Load"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [loops.lua]\nroot: {action: ") + leaf + "}\n"));
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  }
  // The library's messages, naming the function and argument as Lua code calls them.
  auto errors = t.rt.spawn(t.load("tree: t\nleaves: [loops.lua]\nroot: {action: Errors}\n"));
  CHECK(t.rt.tick(errors, 0.1) == Status::Success);
  const std::string log = t.joined_log();
  for (const char* message : {"loops.lua:22: bad argument #2 to 'remove' (position out of bounds)",
                              "loops.lua:23: bad argument #2 to 'insert' (position out of bounds)",
                              "loops.lua:24: wrong number of arguments to 'insert'",
                              "loops.lua:25: bad argument #1 to 'insert' (table expected, got number)",
                              "loops.lua:26: bad argument #4 to 'move' (destination wrap around)",
                              "loops.lua:27: resulting string too large"})
    {
    const std::string why = std::string(message) + " in:\n" + log;
    CHECK_MESSAGE(log.find(message) != std::string::npos, why);
  }
  // Sort: 2 million numbers compared in C took ~0.5 s past the 50 ms limit, and the stop came
  // after the sort, the list sorted. Stopped inside it, the list is left unsorted (Sorted, the
  // next leaf of the selector, looks in the same file's list).
  auto sorter = t.rt.spawn(t.load("tree: t\nleaves: [loops.lua]\nroot: {selector: [{action: Sort}, {action: Sorted}]}\n",
                                  "sorter.yaml"));
  CHECK(t.rt.tick(sorter, 0.1) == Status::Success);
  const std::string all = t.joined_log();  // (marks() takes the marks out of the log)
  CHECK(t.marks() == thicket_test::LogLines{"sorted false"});
  for (const char* line : {"loops.lua:6:", "loops.lua:7:", "loops.lua:8:", "loops.lua:9:", "loops.lua:10:", "loops.lua:13:", "loops.lua:30:"})
    CHECK_MESSAGE(all.find(std::string(line) + " stopped after running for more than 50 ms") != std::string::npos, line);
}

TEST_CASE("library loops: Lua's compiler, quadratic on a long elseif chain, stops at the time limit (load() and leaf files)") {
  // Each elseif walks the list of jumps pending before it: 60,000 of them compiled for seconds
  // in C (a leaf's load() returned a function, and the leaf succeeded; a leaf file loaded).
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0.02;  // a leaf file's load: 20 times that
  LuaRuntime t(o);
  t.write("compile.lua", R"LUA(
local L = {}
local chain = "local x if x then " .. string.rep("elseif x then ", 60000) .. "end"
function L.Compile()
  local f = load(chain)
  return f ~= nil
end
return L
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [compile.lua]\nroot: {action: Compile}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  CHECK(t.joined_log().find("compile.lua:5: stopped after running for more than 20 ms") != std::string::npos);
  // The same chain as a leaf file's own text.
  t.write("chain.lua", "local x if x then " + [] {
    std::string s;
    for (int i = 0; i < 60000; ++i) s += "elseif x then ";
    return s;
  }() + "end\nreturn {}\n");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: c\nleaves: [chain.lua]\nroot: {action: Compile}\n", d));
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].file.find("chain.lua") != std::string::npos);
  CHECK(d[0].message.find("compiling the file took more than 400 ms, and it was stopped") != std::string::npos);
  // An ordinary file still loads, and its leaves run (the watchdog's stop did not stay set).
  t.write("fine.lua", "return { Fine = function() return true end }\n");
  auto fine = t.rt.spawn(t.load("tree: f\nleaves: [fine.lua]\nroot: {action: Fine}\n"));
  CHECK(t.rt.tick(fine, 0.1) == Status::Success);
}
