// Leaf scripts' string.find, match, gmatch and gsub (bindings/lua/lua_patterns.cpp) against
// Lua 5.4's own, on random patterns and subjects from a fixed seed: the same results, the
// same errors. And the reason they exist: a pattern that backtracks for ever stops at the
// leaf's time limit.
#include <doctest/doctest.h>

#include <lua.hpp>

#include <string>

#include "lua_fixture.hpp"
#include "lua_patterns.hpp"

using thicket::Status;
using thicket_test::LuaRuntime;

namespace {

// Runs in a plain Lua state holding both libraries: `lua` (the original functions) and `ours`.
const char* kCompare = R"LUA(
local lua, ours, seed, cases = ...
local rng = seed
local function rand(n)  -- 1..n, a small LCG: the same cases everywhere
  rng = (rng * 1103515245 + 12345) % 2147483648
  return rng % n + 1
end
local function pick(t) return t[rand(#t)] end
local atoms = { "a", "b", "c", ".", "%a", "%d", "%s", "%w", "%A", "%p", "%x", "%%", "%.", "[ab]", "[^a]", "[a-c]",
  "[%d_]", "[]a]", "[^]]", "(", ")", "()", "%b()", "%f[%w]", "%f[%W]", "%1", "%2", "$", "^", " ", "1", "_", "-" }
local quants = { "", "", "", "*", "+", "-", "?" }
local broken = { "%", "[a", "(", ")", "%b", "%f", "%fa", "[%", "%9" }
local function pattern()
  local p = {}
  if rand(4) == 1 then p[#p + 1] = "^" end
  for _ = 1, rand(6) - 1 do
    local a = pick(atoms)
    p[#p + 1] = a
    if #a == 1 or a:sub(1, 1) == "[" or (a:sub(1, 1) == "%" and #a == 2 and not a:match("%%%d")) then
      p[#p + 1] = pick(quants)
    end
  end
  if rand(5) == 1 then p[#p + 1] = "$" end
  if rand(25) == 1 then p[#p + 1] = pick(broken) end
  return table.concat(p)
end
local letters = { "a", "a", "b", "c", "(", ")", " ", "1", "_", "-", "%", "]", "\0" }
local function subject()
  local s = {}
  for _ = 1, rand(13) - 1 do s[#s + 1] = pick(letters) end
  return table.concat(s)
end
-- Every result of a call, as text: values with their types, or the error.
local function shown(ok, ...)
  if not ok then return "error: " .. tostring((...)) end
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    out[#out + 1] = type(v) .. ":" .. tostring(v)
  end
  return table.concat(out, ",")
end
local function all_of(gmatch, s, p, init)
  local ok, err = pcall(function()
    local out, n = {}, 0
    for a, b in gmatch(s, p, init) do
      n = n + 1
      out[#out + 1] = tostring(a) .. "|" .. tostring(b)
      if n > 100 then break end
    end
    return table.concat(out, ";")
  end)
  return (ok and "" or "error: ") .. tostring(err)
end
local replacements = { "<%0>", "%1", "[%1%2]", "%%", "x", "%", "%z", 7 }
local tables = { a = "A", b = false, ["1"] = "one", ab = 3 }
local function fn(a, b) if a == "a" then return nil end if b then return b .. a end return a:upper() end
local function differs(what, a, b, s, p)
  return string.format("%s differs on subject %q, pattern %q: Lua %s, ours %s", what, s, p, a, b)
end
local checked = 0
for _ = 1, cases do
  local s, p = subject(), pattern()
  local init = rand(9) - 4
  local plain = rand(6) == 1
  local calls = {
    { "find", function(lib) return shown(pcall(lib.find, s, p)) end },
    { "find init", function(lib) return shown(pcall(lib.find, s, p, init, plain)) end },
    { "match", function(lib) return shown(pcall(lib.match, s, p)) end },
    { "match init", function(lib) return shown(pcall(lib.match, s, p, init)) end },
    { "gmatch", function(lib) return all_of(lib.gmatch, s, p) end },
    { "gmatch init", function(lib) return all_of(lib.gmatch, s, p, init) end },
    { "gsub text", function(lib) return shown(pcall(lib.gsub, s, p, replacements[rand(#replacements)])) end },
    { "gsub table", function(lib) return shown(pcall(lib.gsub, s, p, tables)) end },
    { "gsub function", function(lib) return shown(pcall(lib.gsub, s, p, fn)) end },
    { "gsub max", function(lib) return shown(pcall(lib.gsub, s, p, "#", rand(3) - 1)) end },
  }
  for _, call in ipairs(calls) do
    local saved = rng
    local a = call[2](lua)
    rng = saved  -- both sides draw the same replacement
    local b = call[2](ours)
    checked = checked + 1
    if a ~= b then return checked, differs(call[1], a, b, s, p) end
  end
end
return checked, nil
)LUA";

}  // namespace

TEST_CASE("patterns: find, match, gmatch and gsub answer as Lua 5.4's own on random patterns") {
  lua_State* L = luaL_newstate();
  *static_cast<void**>(lua_getextraspace(L)) = nullptr;  // no host: nothing to poll
  luaL_openlibs(L);
  // `lua`: the library's own functions; `ours`: after install_watched_patterns.
  lua_newtable(L);
  lua_getglobal(L, "string");
  for (const char* name : {"find", "match", "gmatch", "gsub"}) {
    lua_getfield(L, -1, name);
    lua_setfield(L, -3, name);
  }
  lua_pop(L, 1);
  lua_setglobal(L, "lua_strings");
  thicket::install_watched_patterns(L);
  REQUIRE(luaL_loadstring(L, kCompare) == LUA_OK);
  lua_getglobal(L, "lua_strings");
  lua_getglobal(L, "string");
  lua_pushinteger(L, 20261129);
  lua_pushinteger(L, 6000);
  const int rc = lua_pcall(L, 4, 2, 0);
  REQUIRE_MESSAGE(rc == LUA_OK, lua_tostring(L, -1));
  const lua_Integer checked = lua_tointeger(L, -2);
  const std::string differs = lua_isnil(L, -1) ? "" : lua_tostring(L, -1);
  CHECK_MESSAGE(differs.empty(), differs);
  CHECK(checked >= 60000);
  lua_close(L);
}

TEST_CASE("patterns: a pattern that backtracks for ever stops at the leaf's time limit, with its position") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0.05;
  LuaRuntime t(o);
  t.write("slow.lua", R"LUA(
return { X = function()
  return string.find(string.rep("a", 28), string.rep("a*", 28) .. "b")
end, Y = function()
  return ("x"):rep(30):gsub(("x?"):rep(30) .. ("x"):rep(30) .. "y", "")
end }
)LUA");
  for (const char* leaf : {"X", "Y"}) {
    // Without the poll each call would run for hours (the test's time limit would end it).
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [slow.lua]\nroot: {action: ") + leaf + "}\n"));
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  }
  const std::string log = t.joined_log();
  CHECK(log.find("slow.lua:3: stopped after running for more than 50 ms") != std::string::npos);
  CHECK(log.find("slow.lua:5: stopped after running for more than 50 ms") != std::string::npos);
}

TEST_CASE("patterns: plain find is linear: a long needle missing from a long subject answers within the time limit") {
  // The first-character-then-memcmp search compared ~2.5e11 bytes here (~20 s in C, past the
  // limit: the loop after it was stopped and the leaf failed); the search must finish well
  // inside it, with "not found".
  thicket::RuntimeOptions o;
  o.leaf_timeout = 2;
  LuaRuntime t(o);
  t.write("find.lua", R"LUA(
return { Missing = function()
  local subject, needle = string.rep("a", 1000000), string.rep("a", 500000) .. "b"
  local plain = string.find(subject, needle, 1, true)
  local text = string.find(subject, needle)  -- no specials: plain text too
  local found = string.find(subject .. "b", needle, 1, true)
  for _ = 1, 100000 do end  -- Lua code, where the count hook sees a passed limit
  if plain == nil and text == nil and found == 500001 then return "success" end
  return "failure"
end }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [find.lua]\nroot: {action: Missing}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  CHECK(t.joined_log().empty());
}
