// The sandbox against a hostile or careless mod (docs/guide.md 7.10): every escape route a
// leaf might try, and what one leaf file must not be able to do to another's leaves.
#include <doctest/doctest.h>

#include <string>

#include "lua_fixture.hpp"

using thicket::Status;
using thicket_test::LogLines;
using thicket_test::LuaRuntime;

namespace {

// Each probe logs "@name=<what happened>"; `try` reports whether the chunk raised.
const char* kProbes = R"LUA(
local thicket = require("thicket")
local L = {}
local function try(name, fn)
  local ok, err = pcall(fn)
  thicket.log("@" .. name .. "=" .. (ok and "ok" or ("error: " .. tostring(err):gsub("^[^:]*:%d+: ", ""))))
end
function L.Escape()
  try("binary chunk", function() return load("\27Lua") end)
  try("string.dump", function() return string.dump(function() end) end)
  try("io", function() return io.open("/etc/passwd") end)
  try("os.execute", function() return os.execute("true") end)
  try("debug", function() return debug.getregistry() end)
  try("package", function() return package.loadlib("libc.so.6", "system") end)
  try("require path", function() return require("../../etc/passwd") end)
  try("gc finalizer", function() return setmetatable({}, {__gc = function() while true do end end}) end)
  try("weak table", function() return setmetatable({}, {__mode = "k"}) end)
  try("deep recursion", function() local function f(n) return 1 + f(n + 1) end return f(1) end)
  try("gc stop", function() return collectgarbage("stop") end)
  try("gc mode", function() return collectgarbage("generational") end)
  try("gc collect", function() return collectgarbage() end)
  try("gc count", function() return collectgarbage("count") > 0 and collectgarbage("isrunning") end)
  try("string metatable", function() return getmetatable("").__index end)
  try("new thicket field", function() thicket.mine = 1 end)
  try("thicket metatable", function() return setmetatable(thicket, {}) end)
  try("unknown field", function() return thicket.SUCESS end)
  thicket.log("@has=" .. tostring(thicket.has("tick")) .. "," .. tostring(thicket.has("move_to")))
  local n = 0
  for k in pairs(thicket) do n = n + 1 end
  thicket.log("@pairs=" .. tostring(n > 5))
  return true
end
-- Tampering with what every leaf shares: each stays within this file.
function L.Tamper()
  -- The module may not change, even for this file's other leaves (issue 31): both refused.
  local ok1 = pcall(function() thicket.tick = function() return -1 end end)
  local ok2 = pcall(rawset, thicket, "SUCCESS", "failure")
  thicket.log("@module: " .. tostring(ok1) .. " " .. tostring(ok2) .. " " .. thicket.SUCCESS)
  string.upper = nil
  table.concat = nil
  print = nil
  math.floor = function() return 42 end
  _G.pairs = nil
  load("ipairs = nil")()
  return true
end
function L.AfterTamper()
  thicket.log("@same file: " .. tostring(string.upper) .. " " .. tostring(print) .. " " .. math.floor(1.5))
  return true
end
return L
)LUA";

const char* kVictim = R"LUA(
local thicket = require("thicket")
return {
  Victim = function()
    local parts = {}
    for _, w in ipairs({"a", "b"}) do parts[#parts + 1] = ("%s"):format(w):upper() end
    for k in pairs({x = 1}) do parts[#parts + 1] = k end
    thicket.log("@victim " .. table.concat(parts, ",") .. " " .. math.floor(1.5) .. " " .. type(print) .. " " ..
                thicket.tick())
    return thicket.SUCCESS
  end,
}
)LUA";

}  // namespace

TEST_CASE("sandbox: escape routes are closed, each with an error the modder can read") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 10;  // the deep recursion takes a while to reach Lua's stack limit
  LuaRuntime t(o);
  t.write("probes.lua", kProbes);
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [probes.lua]\nroot: {action: Escape}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  LogLines got = t.marks();
  auto line = [&](const std::string& name) {
    for (const auto& l : got)
      if (l.rfind(name + "=", 0) == 0) return l.substr(name.size() + 1);
    return std::string("(missing)");
  };
  CHECK(line("binary chunk") == "ok");  // load() returns nil + message for binary text: no chunk
  CHECK(line("string.dump").find("error") == 0);
  CHECK(line("io").find("error") == 0);
  CHECK(line("os.execute").find("error") == 0);
  CHECK(line("debug").find("error") == 0);
  CHECK(line("package").find("error") == 0);
  CHECK(line("require path").find("modules are found only beside the brain's leaf files") != std::string::npos);
  CHECK(line("gc finalizer") == "error: __gc metamethods are not allowed in leaf scripts (they would run outside any "
                                "leaf call)");
  CHECK(line("weak table") == "error: weak tables (__mode) are not allowed in leaf scripts: what they keep depends on "
                              "when the collector runs, which other agents' leaves decide, so a run would differ with "
                              "--threads or --agents; keep a plain table and remove its entries yourself");
  CHECK(line("deep recursion").find("stack overflow") != std::string::npos);
  // The collector is shared by every mod: read, not steered (a stopped one made others' leaves
  // hit the heap cap).
  CHECK(line("gc stop") == "error: collectgarbage('stop') is not allowed in leaf scripts: the collector is shared by "
                           "every mod's leaves (allowed: 'count', 'isrunning')");
  CHECK(line("gc mode").find("error: collectgarbage('generational') is not allowed") == 0);
  CHECK(line("gc collect").find("error: collectgarbage('collect') is not allowed") == 0);
  CHECK(line("gc count") == "ok");
  CHECK(line("string metatable") == "ok");  // the placeholder text has no __index: nil, nothing reached
  CHECK(line("new thicket field").find("the thicket module is read-only (cannot set 'mine')") != std::string::npos);
  CHECK(line("thicket metatable") == "error: cannot change a protected metatable");
  CHECK(line("unknown field").find("the thicket module has no field 'SUCESS'; did you mean 'SUCCESS'?") !=
        std::string::npos);
  CHECK(line("has") == "true,false");
  CHECK(line("pairs") == "true");
}

TEST_CASE("sandbox: getmetatable on a string gives a placeholder, not the shared metatable") {
  LuaRuntime t;
  t.write("s.lua", R"LUA(
local thicket = require("thicket")
return { S = function()
  thicket.log("@" .. tostring(getmetatable("")))
  return ("ok"):upper() == "OK"
end }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [s.lua]\nroot: {action: S}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  CHECK(t.marks() == LogLines{"protected: the string metatable is shared by every script"});
}

TEST_CASE("sandbox: one leaf file tampering with globals and libraries does not break another file's leaves") {
  LuaRuntime t;
  t.write("probes.lua", kProbes);
  t.write("victim.lua", kVictim);
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [probes.lua, victim.lua]\nroot:\n  sequence:\n"
                             "    - action: Tamper\n    - action: AfterTamper\n    - action: Victim\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  CHECK(t.rt.script_errors() == 0);
  CHECK(t.marks() == LogLines{"module: false false success", "same file: nil nil 42", "victim A,B,x 1 function 1"});
}

TEST_CASE("sandbox: a leaf file required by another as a module does not reset the first one's globals") {
  LuaRuntime t;
  t.write("b.lua", "local thicket = require('thicket')\ncount = 0\n"
                   "return { CountB = function() count = count + 1; thicket.log('@b ' .. count); return true end }\n");
  t.write("a.lua", "local thicket = require('thicket')\n"
                   "return { Meddle = function() if thicket.tick() == 2 then thicket.log('@a ' .. type(require('b'))) end "
                   "return true end }\n");
  t.rt.spawn(t.load("tree: t\nleaves: [b.lua, a.lua]\nroot:\n  sequence: [{action: CountB}, {action: Meddle}]\n"));
  for (int k = 0; k < 4; ++k) t.rt.tick_all(0.1);
  CHECK(t.rt.script_errors() == 0);
  // (b.lua's top level ran again, as a module, in globals of its own: b's count went on.)
  CHECK(t.marks() == LogLines{"b 1", "b 2", "a table", "b 3", "b 4"});
}

TEST_CASE("sandbox: a leaf file's globals survive its hot reload (one environment per file)") {
  LuaRuntime t;
  auto leaf = t.write("g.lua", "count = count or 0\nreturn { G = function() count = count + 1; "
                               "require('thicket').log('@' .. count); return true end }\n");
  std::vector<thicket::Diagnostic> diags;
  auto brain = t.rt.load_file(t.write("g.yaml", "tree: t\nleaves: [g.lua]\nroot: {action: G}\n").string(), diags);
  REQUIRE(brain.has_value());
  auto a = t.rt.spawn(*brain);
  t.rt.tick(a, 0.1);
  t.write("g.lua", "count = count or 0\nreturn { G = function() count = count + 10; "
                   "require('thicket').log('@' .. count); return true end }\n");
  std::filesystem::last_write_time(leaf, std::filesystem::last_write_time(leaf) + std::chrono::seconds(2));
  t.rt.reload_changed();
  t.rt.tick(a, 0.1);
  CHECK(t.marks() == LogLines{"1", "11"});
}

TEST_CASE("sandbox: tracebacks show the modder's frames, not the module's own Lua code") {
  LuaRuntime t;
  t.write("w.lua", R"LUA(
local thicket = require("thicket")
local function helper() thicket.wait("soon") end
return { W = thicket.task(function() helper() end) }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [w.lua]\nroot: {action: W}\n"));
  t.rt.tick(a, 0.1);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("w.lua:3: bad argument #1 to 'wait' (number of seconds expected, got string)") != std::string::npos);
  CHECK(log.find("w.lua:3: in upvalue 'helper'") != std::string::npos);
  CHECK(log.find("[string") == std::string::npos);
  CHECK(log.find("(thicket)") == std::string::npos);
}

TEST_CASE("sandbox: trusted modules loaded by Lua's own require get a read-only thicket module too") {
  thicket::RuntimeOptions o;
  o.trusted = true;
  LuaRuntime t(o);
  t.write("helper.lua", R"LUA(
local thicket = require("thicket")
return {
  ok = function() return thicket.SUCCESS end,
  typo = function() return thicket.SUCESS end,
  write = function() thicket.tick = nil end,
}
)LUA");
  t.write("m.lua", R"LUA(
local helper = require("helper")
return {
  Ok = function() return helper.ok() end,
  Typo = function() return helper.typo() end,
  Write = function() helper.write() return true end,
}
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [m.lua]\nroot:\n  sequence:\n    - action: Ok\n"
                             "    - force_success: {action: Typo}\n    - force_success: {action: Write}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  CHECK(t.rt.script_errors() == 2);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("helper.lua:5: the thicket module has no field 'SUCESS'; did you mean 'SUCCESS'?") != std::string::npos);
  CHECK(log.find("helper.lua:6: the thicket module is read-only (cannot set 'tick')") != std::string::npos);
}

TEST_CASE("sandbox: a leaf file whose reload fails half-way leaves the running version's globals alone") {
  LuaRuntime t;
  auto leaf = t.write("g.lua", "mode = 'old'\nreturn { G = function() require('thicket').log('@' .. mode); return true end }\n");
  std::vector<thicket::Diagnostic> diags;
  auto brain = t.rt.load_file(t.write("g.yaml", "tree: t\nleaves: [g.lua]\nroot: {action: G}\n").string(), diags);
  REQUIRE(brain.has_value());
  auto a = t.rt.spawn(*brain);
  t.rt.tick(a, 0.1);
  t.write("g.lua", "mode = 'new'\nerror('half-way')\n");
  std::filesystem::last_write_time(leaf, std::filesystem::last_write_time(leaf) + std::chrono::seconds(2));
  t.rt.reload_changed();
  CHECK(t.joined_log().find("half-way") != std::string::npos);
  t.rt.tick(a, 0.1);
  CHECK(t.marks() == LogLines{"old", "old"});
}

TEST_CASE("sandbox: a runaway recursion is stopped tick after tick, with the first levels of its traceback") {
  // Lua lets a recursion reach about a million levels. Stopping one, and its traceback, used
  // to walk that whole call stack over and over: by the second tick the watchdog's signals
  // (each re-marking every frame) came faster than they were handled, and the host hung; with
  // no time limit each stack overflow's traceback took longer than the last (seconds).
  for (double timeout : {0.05, 0.0}) {
    CAPTURE(timeout);
    thicket::RuntimeOptions o;
    o.leaf_timeout = timeout;
    LuaRuntime t(o);
    t.write("deep.lua", R"LUA(
local L = {}
function L.Deep() local function f(n) return 1 + f(n + 1) end return f(1) end
return L
)LUA");
    auto a = t.rt.spawn(t.load("tree: t\nleaves: [deep.lua]\nroot: {action: Deep}\n"));
    for (int tick = 0; tick < 3; ++tick) CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    const std::string log = t.joined_log();
    // Each tick: the watchdog's stop, or Lua's stack overflow if the recursion gets there first.
    std::size_t stops = 0;
    for (const char* why : {"deep.lua:3: stopped after running", "deep.lua:3: stack overflow"})
      for (std::size_t at = 0; (at = log.find(why, at)) != std::string::npos; ++at) ++stops;
    CHECK(stops == 3);
    CHECK(log.find("(more than 1000 levels: a runaway recursion?)") != std::string::npos);
    CHECK(log.find("deep.lua:3: in upvalue 'f'") != std::string::npos);
  }
}

TEST_CASE("sandbox: setmetatable's errors name the leaf's line, with the library's messages") {
  // The sandbox wraps setmetatable (no __gc); its errors used to name the wrapper's line,
  // "(thicket):19:", not the leaf's.
  LuaRuntime t;
  t.write("mt.lua", R"LUA(local thicket = require("thicket")
local L = {}
local function at(ok, message) return (message:gsub("^.*/mt%.lua", "mt.lua")) end
function L.A(agent)
  thicket.log("@" .. at(pcall(function() setmetatable(agent.bb, {}) end)))
  thicket.log("@" .. at(pcall(function() setmetatable({}, 5) end)))
  thicket.log("@" .. at(pcall(function() setmetatable({}) end)))
  thicket.log("@" .. at(pcall(function() setmetatable(setmetatable({}, {__metatable = "locked"}), {}) end)))
  local plain = setmetatable({}, {__index = function() return 7 end})
  thicket.log("@" .. plain.x .. " " .. tostring(getmetatable(setmetatable(plain, nil))))
  return true
end
return L
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [mt.lua]\nroot: {action: A}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  // (Lua's own names a userdata by its metatable's __name.)
  CHECK(t.marks() == LogLines{"mt.lua:5: bad argument #1 to 'setmetatable' (table expected, got thicket.blackboard)",
                              "mt.lua:6: bad argument #2 to 'setmetatable' (nil or table expected, got number)",
                              "mt.lua:7: bad argument #2 to 'setmetatable' (nil or table expected, got no value)",
                              "mt.lua:8: cannot change a protected metatable", "7 nil"});
}

TEST_CASE("sandbox: the replaced library functions raise at the leaf's line, with the name it called them by") {
  // xpcall, coroutine.wrap and close, setmetatable, rawset, collectgarbage, load and require
  // were Lua functions of the sandbox, and thicket.defer one of the module: their errors named
  // their own lines ("(thicket):14:") and the C functions they called ('xpcall_raw', 'create',
  // 'base_require'), and a tail call to them took the leaf's frame away (no line at all). table.sort's argument errors, raised by the library's
  // sort called from thicket's, had no line and the name '?'; os.time through pcall was
  // '__os.time'.
  LuaRuntime t;
  t.write("args.lua", R"LUA(local thicket = require("thicket")
local L = {}
local function at(ok, message) return (tostring(message):gsub("^.*/args%.lua", "args.lua")) end
function L.A()
  -- Each is a tail call, in a function of its own.
  thicket.log("@" .. at(pcall(function() return xpcall(print) end)))
  thicket.log("@" .. at(pcall(function() return coroutine.wrap(5) end)))
  thicket.log("@" .. at(pcall(function() return coroutine.close(coroutine.running()) end)))
  thicket.log("@" .. at(pcall(function() return table.sort(5) end)))
  thicket.log("@" .. at(pcall(function() return table.sort({2, 1}, 5) end)))
  thicket.log("@" .. at(pcall(function() return thicket.defer(5) end)))
  local done = coroutine.wrap(function() end)
  done()
  thicket.log("@" .. at(pcall(function() return done() end)))
  local xp = xpcall
  thicket.log("@" .. at(pcall(function() return xp(print) end)))
  thicket.log("@" .. at(pcall(function() return setmetatable({}, {__gc = true}) end)))
  thicket.log("@" .. at(pcall(function() return rawset({}) end)))
  thicket.log("@" .. at(pcall(function() return collectgarbage("stop") end)))
  thicket.log("@" .. at(pcall(function() return load({}) end)))
  thicket.log("@" .. at(pcall(function() return require({}) end)))
  -- Called through pcall, with no name at the call: the library's name, as Lua gives it.
  thicket.log("@" .. at(pcall(os.time, 5)))
  thicket.log("@" .. at(pcall(coroutine.wrap, 5)))
  thicket.log("@" .. at(pcall(thicket.defer, 5)))
  thicket.log("@" .. at(pcall(rawset, 5, 1, 1)))  -- (a closure of the file's: it was '?')
  return true
end
function L.Tail()
  return xpcall(print)
end
return L
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [args.lua]\nroot: {action: A}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  CHECK(t.marks() == LogLines{"args.lua:6: bad argument #2 to 'xpcall' (function expected, got no value)",
                              "args.lua:7: bad argument #1 to 'wrap' (function expected, got number)",
                              "args.lua:8: cannot close a running coroutine",
                              "args.lua:9: bad argument #1 to 'sort' (table expected, got number)",
                              "args.lua:10: bad argument #2 to 'sort' (function expected, got number)",
                              "args.lua:11: bad argument #1 to 'defer' (function expected, got number)",
                              "args.lua:14: cannot resume dead coroutine",
                              "args.lua:16: bad argument #2 to 'xp' (function expected, got no value)",
                              "args.lua:17: __gc metamethods are not allowed in leaf scripts (they would run outside "
                              "any leaf call)",
                              "args.lua:18: bad argument #2 to 'rawset' (value expected)",
                              "args.lua:19: collectgarbage('stop') is not allowed in leaf scripts: the collector is "
                              "shared by every mod's leaves (allowed: 'count', 'isrunning')",
                              "args.lua:20: bad argument #1 to 'load' (function expected, got table)",
                              "args.lua:21: bad argument #1 to 'require' (string expected, got table)",
                              "bad argument #1 to 'os.time' (table expected, got number)",
                              "bad argument #1 to 'coroutine.wrap' (function expected, got number)",
                              "bad argument #1 to 'thicket.defer' (function expected, got number)",
                              "bad argument #1 to 'rawset' (table expected, got number)"});
  // The leaf's own frame is in the report's traceback.
  auto tail = t.rt.spawn(t.load("tree: t\nleaves: [args.lua]\nroot: {action: Tail}\n", "tail.yaml"));
  CHECK(t.rt.tick(tail, 0.1) == Status::Failure);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("/args.lua:30: bad argument #2 to 'xpcall' (function expected, got no value)\n") != std::string::npos);
  CHECK(log.find("/args.lua:30: in function <") != std::string::npos);
  CHECK(log.find("(thicket)") == std::string::npos);
}

TEST_CASE("sandbox: a loop stopped inside an xpcall handler, a coroutine or a __close is named at its own line") {
  // Stopped once, a call is stopped again at every instruction until it ends: each new stop
  // named the line that ran next, so the message read "(thicket):15:" (the sandbox's xpcall,
  // after the handler) or the line after a pcall, not the loop. A __close that looped while
  // coroutine.close closed its coroutine was never stopped (the watchdog hooked the leaf's
  // thread, not the coroutine's): the host hung.
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0.05;
  o.instruction_budget = 0;  // the time limit alone
  LuaRuntime t(o);
  t.write("stop.lua", R"LUA(local L = {}
function L.Handler()
  return xpcall(error, function(m)
    while true do end
  end, "x")
end
function L.Wrapped()
  local f = coroutine.wrap(function()
    while true do end
  end)
  local ok = pcall(f)
  return ok
end
function L.Closing()
  local co = coroutine.create(function()
    local x <close> = setmetatable({}, {__close = function() while true do end end})
    coroutine.yield()
  end)
  coroutine.resume(co)
  pcall(coroutine.close, co)
  return true
end
return L
)LUA");
  for (const char* leaf : {"Handler", "Wrapped", "Closing"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [stop.lua]\nroot: {action: ") + leaf + "}\n",
                               std::string(leaf) + ".yaml"));
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  }
  const std::string log = t.joined_log();
  INFO(log);
  for (const char* line : {"/stop.lua:4: stopped after running", "/stop.lua:9: stopped after running",
                           "/stop.lua:16: stopped after running"})
    CHECK_MESSAGE(log.find(line) != std::string::npos, line);
  CHECK(log.find("(thicket)") == std::string::npos);
  CHECK(t.rt.script_errors() == 3);
}

TEST_CASE("sandbox: a NaN a leaf returns or writes is said as nan, not Lua's '-nan'") {
  LuaRuntime t;
  t.write("nan.lua", "local L = {}\nfunction L.Ret() return 0/0 end\nfunction L.Bb(agent) agent.bb.n = 0/0 end\nreturn L\n");
  for (const char* leaf : {"Ret", "Bb"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [nan.lua]\nblackboard: {n: {type: integer, default: 0}}\nroot: {action: ") +
                                   leaf + "}\n",
                               std::string(leaf) + ".yaml"));
    t.rt.tick(a, 0.1);
  }
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("action 'Ret' returned nan (not a number: 0/0?); an action returns") != std::string::npos);
  CHECK(log.find("/nan.lua:3: blackboard key 'n' is declared integer; cannot set it to a number (nan, not a number: 0/0?)") !=
        std::string::npos);
  CHECK(log.find("-nan") == std::string::npos);
}

TEST_CASE("sandbox: a table or function written to a number key is said without its address, so repeats are one error") {
  LuaRuntime t;
  t.write("tab.lua", "local L = {}\nfunction L.W(agent) agent.bb.n = {} end\nfunction L.F(agent) agent.bb.n = print end\nreturn L\n");
  for (const char* leaf : {"W", "F"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [tab.lua]\nblackboard: {n: 0}\nroot: {action: ") + leaf + "}\n",
                               std::string(leaf) + ".yaml"));
    for (int k = 0; k < 20; ++k) t.rt.tick(a, 0.1);
  }
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("/tab.lua:2: blackboard key 'n' is declared number; cannot set it to a table (declared: n)") != std::string::npos);
  CHECK(log.find("/tab.lua:3: blackboard key 'n' is declared number; cannot set it to a function (declared: n)") !=
        std::string::npos);
  CHECK(log.find("0x") == std::string::npos);
  // Each leaf's repeats of one error are printed a few times, then only counted.
  size_t printed = 0;
  for (size_t at = log.find("cannot set it to a table"); at != std::string::npos; at = log.find("cannot set it to a table", at + 1))
    ++printed;
  CHECK(printed < 10);
}

TEST_CASE("sandbox: a module that is not found is reported at the line of its require") {
  // The per-file require is a wrapper in the sandbox's own Lua: the position named its line,
  // "(thicket):87:", not the script's.
  LuaRuntime t;
  t.write("needs.lua", "local L = {}\nfunction L.A()\n  local m = require(\"nosuch\")\n  return true\nend\nreturn L\n");
  t.write("top.lua", "local m = require(\"nosuch\")\nreturn {}\n");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [needs.lua]\nroot: {action: A}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  CHECK(t.joined_log().find("needs.lua:3: module 'nosuch' not found") != std::string::npos);
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: u\nleaves: [top.lua]\nroot: {action: A}\n", d, "top.yaml"));
  bool at_line = false;
  for (const auto& x : d) at_line = at_line || (x.line == 1 && x.message.find("module 'nosuch' not found") == 0);
  CHECK(at_line);
  // Lua's own libraries: open as globals already, or left out of the sandbox (--trusted).
  t.write("std.lua", "local s = require(\"string\")\nreturn {}\n");
  CHECK_FALSE(t.try_load("tree: s\nleaves: [std.lua]\nroot: {action: A}\n", d, "std.yaml"));
  std::string all;
  for (const auto& x : d) all += x.message + "\n";
  CHECK(all.find("module 'string' not found; 'string' is Lua's standard library, open in leaf files as the global "
                 "`string`: use it without require") != std::string::npos);
  t.write("std.lua", "local s = require(\"io\")\nreturn {}\n");
  CHECK_FALSE(t.try_load("tree: s\nleaves: [std.lua]\nroot: {action: A}\n", d, "io.yaml"));
  all.clear();
  for (const auto& x : d) all += x.message + "\n";
  CHECK(all.find("module 'io' not found; 'io' is Lua's standard library, which leaf scripts' sandbox leaves out: "
                 "--trusted opens Lua's whole standard library") != std::string::npos);
}

TEST_CASE("sandbox: a require cycle is reported at the require that closes it, with the cycle") {
  // Each module required the other again and again until Lua's C stack overflowed: "C stack
  // overflow", with no line and no module named.
  LuaRuntime t;
  t.write("mod_a.lua", "local b = require(\"mod_b\")\nreturn {a = 1}\n");
  t.write("mod_b.lua", "local x = 1\nlocal a = require(\"mod_a\")\nreturn {b = 2}\n");
  t.write("uses.lua", "local a = require(\"mod_a\")\nreturn {A = function() return true end}\n");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [uses.lua]\nroot: {action: A}\n", d));
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  INFO(all);
  // Said at the module's line (the error is in it), with the leaf file's require.
  CHECK(all.find("mod_b.lua:2: error: module 'mod_a' is required while it is still loading (a require cycle: mod_a -> mod_b -> mod_a)") !=
        std::string::npos);
  CHECK(all.find("(required by " + (t.dir.path() / "uses.lua").string() + ":1)") != std::string::npos);
  CHECK(all.find("stack overflow") == std::string::npos);
  // The same modules load once the cycle is broken; a module required twice in a row is fine.
  t.write("mod_b.lua", "local x = 1\nreturn {b = 2}\n");
  t.write("uses.lua", "local a = require(\"mod_a\")\nlocal b = require(\"mod_b\")\nreturn {A = function() return a.a + b.b == 3 end}\n");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [uses.lua]\nroot: {action: A}\n", "again.yaml"));
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
}

TEST_CASE("sandbox: messages a first-time modder can act on: a yield in a plain leaf, an error object, a nil blackboard write") {
  // Lua said "attempt to yield from outside a coroutine" (no line), "(error object is a table
  // value)" (no line), and "cannot set it to a nil (nil)".
  LuaRuntime t;
  t.write("first.lua", R"LUA(local L = {}
function L.Yield()
  coroutine.yield()
end
function L.Table() error({code = 1}) end
function L.Nil(agent) agent.bb.hp = nil end
function L.Said() error(setmetatable({}, {__tostring = function() return "out of arrows" end})) end
function L.Module() return thicket.SUCCESS end
return L
)LUA");
  for (const char* leaf : {"Yield", "Table", "Nil", "Said", "Module"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: t\nleaves: [first.lua]\nblackboard: {hp: 3}\nroot: {action: ") + leaf + "}\n",
                               std::string(leaf) + ".yaml"));
    t.rt.tick(a, 0.1);
  }
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("/first.lua:3: coroutine.yield outside a coroutine: a plain leaf answers in the tick it is called; to let "
                 "ticks pass, make it a task") != std::string::npos);
  CHECK(log.find("/first.lua:5: (error object is a table value)") != std::string::npos);
  CHECK(log.find("/first.lua:6: blackboard key 'hp' is declared number; cannot set it to nil (a declared key always holds "
                 "a value: set its default instead; declared: hp)") != std::string::npos);
  // An error object's __tostring says what it is, as in Lua's own interpreter.
  CHECK(log.find("/first.lua:7: out of arrows") != std::string::npos);
  // The module used without its require: Lua's "nil value (global 'thicket')", and the fix.
  CHECK(log.find("/first.lua:8: attempt to index a nil value (global 'thicket') (thicket is a module, not a global: put "
                 "`local thicket = require(\"thicket\")` at the top of the leaf file)") != std::string::npos);
  CHECK(t.rt.script_errors() == 5);
}

TEST_CASE("sandbox: an agent table kept after its agent was despawned reaches no blackboard") {
  // Kept in a file's globals and used from on_reload (no leaf call runs then), agent 1's old
  // table reached the agent that took its slot, and writing an `any` key released registry
  // references a second time: another agent's leaf was then called with a number, or the host
  // crashed.
  LuaRuntime t;
  const char* kLeaves = "keep = keep or {}\nreturn { G = function(agent) keep[agent.id] = agent; return true end%s }\n";
  char text[512];
  std::snprintf(text, sizeof text, kLeaves, "");
  auto leaf = t.write("k.lua", text);
  std::vector<thicket::Diagnostic> diags;
  auto brain = t.rt.load_file(
      t.write("k.yaml", "tree: t\nleaves: [k.lua]\nblackboard: {x: 0, stash: {type: any}}\nroot: {action: G}\n").string(), diags);
  REQUIRE(brain.has_value());
  auto first = t.rt.spawn(*brain, {{"x", thicket::Value(1.0)}});
  t.rt.tick(first, 0.1);
  t.rt.despawn(first);
  auto next = t.rt.spawn(*brain, {{"x", thicket::Value(44.0)}});  // takes agent 1's slot
  REQUIRE(next.index == first.index);
  t.rt.tick(next, 0.1);
  std::snprintf(text, sizeof text, kLeaves,
                ",\n  on_reload = function()\n    thicket_read = pcall(function() return keep[1].bb.x end)\n"
                "    keep[1].bb.x = 1001\n  end");
  t.write("k.lua", text);
  std::filesystem::last_write_time(leaf, std::filesystem::last_write_time(leaf) + std::chrono::seconds(2));
  t.rt.reload_changed();
  const std::string log = t.joined_log();
  CHECK_MESSAGE(log.find("k.lua:5: the blackboard of an agent that has been despawned") != std::string::npos, log);
  CHECK(std::get<double>(*t.rt.get(next, "x")) == 44.0);  // the agent in the slot now: untouched
  CHECK(t.rt.tick(next, 0.1) == Status::Success);
}

TEST_CASE("sandbox: a leaf file is read once, as Lua reads one: a byte order mark and a #! line kept out, lines counted the same") {
  // Leaf files and modules are read into memory (within bounds, whatever the file is swapped
  // for while it is read) and loaded from there, as luaL_loadfilex would load them.
  LuaRuntime t;
  t.write("bom.lua", "\xEF\xBB\xBF#!/usr/bin/env lua\nlocal leaves = {}\nfunction leaves.B() error('third line') end\nreturn leaves\n");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [bom.lua]\nroot: {action: B}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  const std::string log = t.joined_log();
  CHECK_MESSAGE(log.find("bom.lua:3: third line") != std::string::npos, log);
  std::vector<thicket::Diagnostic> d;
  t.write("bin.lua", "\x1bLua binary?");
  CHECK_FALSE(t.try_load("tree: t\nleaves: [bin.lua]\nroot: {action: X}\n", d).has_value());
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  CHECK_MESSAGE(all.find("attempt to load a binary chunk") != std::string::npos, all);
}

TEST_CASE("sandbox: a script's control characters in an error report are written as escapes") {
  LuaRuntime t;
  t.write("esc.lua", "return { T = function() error('\\27[2J\\27[31mFAKE\\r\\n  in leaf \\'Other\\'') end }\n");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [esc.lua]\nroot: {action: T}\n"));
  t.rt.tick(a, 0.1);
  const std::string log = t.joined_log();
  CHECK(log.find('\x1b') == std::string::npos);
  CHECK(log.find('\r') == std::string::npos);
  // Its faked second line is indented under the message: it cannot pass for the report's own.
  CHECK(log.find("esc.lua:1: \\x1B[2J\\x1B[31mFAKE\\x0D\n         in leaf 'Other'\n  in leaf 'T' at node root") !=
        std::string::npos);
}

TEST_CASE("sandbox: control characters in a leaf file's load errors and in a module's name are written as escapes") {
  LuaRuntime t;
  t.write("boom.lua", "error('\\27[31mLOADFAIL\\r')\nreturn {}\n");
  t.write("req.lua", "local m = require('\\27[2Jmod')\nreturn {}\n");
  for (const char* file : {"boom.lua", "req.lua"}) {
    CAPTURE(file);
    std::vector<thicket::Diagnostic> diags;
    t.rt.load_string(std::string("tree: t\nleaves: [") + file + "]\nroot: {action: X}\n",
                     (t.dir.path() / "b.yaml").string(), diags);
    std::string all;
    for (const auto& d : diags) all += d.message + "\n";
    CHECK(all.find('\x1b') == std::string::npos);
    CHECK(all.find('\r') == std::string::npos);
    CHECK(all.find("\\x1B[") != std::string::npos);
  }
}
