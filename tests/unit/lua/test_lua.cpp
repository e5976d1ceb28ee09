// The Lua adapter and its sandbox (SPEC 7), with real leaf files written to a temporary folder:
// leaf shapes (plain functions, hook tables with `mem`), status values, `args` conversion, the
// `thicket` module (clock, log, random), `print`, script errors, the sandbox, `require`, and the
// load diagnostics of leaf files. Leaves report through thicket.log("@..."), which reaches
// RuntimeOptions::log; the tests keep each log line from its '@' on.
#include <doctest/doctest.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <lua.hpp>

#include "comma_locale.hpp"
#include "lua_fixture.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"

namespace fs = std::filesystem;

// How often `what` occurs in `text`.
static size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
using thicket::Status;

namespace {

using TempDir = thicket_test::ScratchDir;
using Lines = thicket_test::LogLines;

// A runtime whose log is kept; leaves and brains live in a scratch folder.
class LuaRt : public thicket_test::LuaRuntime {
 public:
  explicit LuaRt(uint64_t seed = 1, bool trusted = false) : LuaRuntime(options(seed, trusted)) {}

 private:
  static thicket::RuntimeOptions options(uint64_t seed, bool trusted) {
    thicket::RuntimeOptions o;
    o.seed = seed;
    o.trusted = trusted;
    return o;
  }
};

// Captures what is written to file descriptor 1 (Lua's print goes through C stdio's stdout).
class StdoutCapture {
 public:
  StdoutCapture() {
    std::fflush(stdout);
    std::cout.flush();
    file_ = fs::temp_directory_path() / ("thicket_test_stdout_" + std::to_string(::getpid()));
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    saved_ = ::dup(1);
    ::dup2(fd_, 1);
  }
  std::string finish() {
    if (saved_ < 0) return text_;
    std::fflush(stdout);
    std::cout.flush();
    ::dup2(saved_, 1);
    ::close(saved_);
    ::close(fd_);
    saved_ = -1;
    std::ifstream in(file_);
    std::stringstream ss;
    ss << in.rdbuf();
    text_ = ss.str();
    fs::remove(file_);
    return text_;
  }
  ~StdoutCapture() { finish(); }

 private:
  fs::path file_;
  int fd_ = -1, saved_ = -1;
  std::string text_;
};

// True when `line` holds the number n as a whole token (not part of a longer number).
bool has_number(const std::string& line, uint64_t n) {
  std::string s = std::to_string(n);
  for (size_t p = line.find(s); p != std::string::npos; p = line.find(s, p + 1)) {
    bool left = p == 0 || !std::isdigit(static_cast<unsigned char>(line[p - 1]));
    bool right = p + s.size() >= line.size() || !std::isdigit(static_cast<unsigned char>(line[p + s.size()]));
    if (left && right) return true;
  }
  return false;
}

const char* kStatusLeaves = R"LUA(
local thicket = require("thicket")
local L = {}
function L.RetS() return thicket.SUCCESS end
function L.RetF() return thicket.FAILURE end
function L.RetR() return thicket.RUNNING end
function L.StrS() return "success" end
function L.StrF() return "failure" end
function L.StrR() return "running" end
function L.RetTrue() return true end
function L.RetFalse() return false end
function L.RetNil() end
function L.CondOne() return 1 end
function L.CondZero() return 0 end
function L.CondText() return "yes" end
function L.CondFalse() return false end
function L.CondNil() return nil end
function L.CondS() return thicket.SUCCESS end
function L.CondF() return thicket.FAILURE end
function L.CondRunning() return thicket.RUNNING end
function L.CondRunningText() return "running" end
return L
)LUA";

}  // namespace

TEST_CASE("lua: plain action functions: status constants, their strings, true / false / nil") {
  LuaRt t;
  t.write("status.lua", kStatusLeaves);
  struct Case {
    const char* leaf;
    Status expected;
  };
  for (Case c : {Case{"RetS", Status::Success}, Case{"RetF", Status::Failure}, Case{"RetR", Status::Running},
                 Case{"StrS", Status::Success}, Case{"StrF", Status::Failure}, Case{"StrR", Status::Running},
                 Case{"RetTrue", Status::Success}, Case{"RetFalse", Status::Failure}, Case{"RetNil", Status::Failure}}) {
    INFO("leaf ", c.leaf);
    auto b = t.load(std::string("tree: s\nleaves: [status.lua]\nroot:\n  action: ") + c.leaf + "\n");
    auto a = t.rt.spawn(b);
    CHECK(t.rt.tick(a, 0.5) == c.expected);
  }
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("lua: a load that fails replaces no leaf, and does not say it does") {
  LuaRt t;
  t.rt.register_leaf("Native", thicket::NativeLeaf{[](thicket::LeafContext&) { return Status::Failure; }, {}, {}});
  t.write("c.lua", "return { Native = function() return true end }");
  std::vector<thicket::Diagnostic> d;
  CHECK(!t.try_load("tree: c\nleaves: [c.lua]\nroot:\n  sequence: [{action: Native}, {action: Typo}]\n", d, "c.yaml"));
  std::string all;
  for (const auto& x : d) all += x.message + "\n";
  CHECK(all.find("unknown leaf 'Typo'") != std::string::npos);
  CHECK(all.find("replaces") == std::string::npos);  // it said the game's leaf was replaced
  auto b = t.load("tree: n\nroot: {action: Native}\n");
  CHECK(t.rt.tick(t.rt.spawn(b), 0.1) == Status::Failure);  // still the game's
}

TEST_CASE("lua: a leaf name shared by a native leaf and a Lua leaf, or two Lua files, is replaced with a warning") {
  LuaRt t;
  t.rt.register_leaf("Native", thicket::NativeLeaf{[](thicket::LeafContext&) { return Status::Failure; }, {}, {}});
  t.write("a.lua", "return { Native = function() return true end, Shared = function() return true end }");
  t.write("b.lua", "return { Shared = function() return false end }");
  std::vector<thicket::Diagnostic> d;
  auto a = t.try_load("tree: a\nleaves: [a.lua]\nroot: {action: Native}\n", d, "a.yaml");
  REQUIRE(a);
  REQUIRE(d.size() == 1);  // it replaced the game's leaf without a word
  CHECK(d[0].severity == thicket::Severity::Warning);
  CHECK(d[0].message == "leaf 'Native' replaces the native leaf the game registered, for every brain of this runtime "
                        "(leaf names are shared: rename one of them)");
  CHECK((d[0].line == 1 && d[0].column == 10));  // where a.lua names it
  CHECK(t.rt.tick(t.rt.spawn(*a), 0.1) == Status::Success);
  d.clear();
  REQUIRE(t.try_load("tree: b\nleaves: [b.lua]\nroot: {action: Shared}\n", d, "b.yaml"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("leaf 'Shared' replaces the one from ") == 0);
  CHECK((d[0].line == 1 && d[0].column == 10));
  // And the other way: the game's register_leaf over a Lua leaf's name says so in the log.
  t.log.clear();
  t.rt.register_leaf("Shared", thicket::NativeLeaf{[](thicket::LeafContext&) { return Status::Success; }, {}, {}});
  REQUIRE(t.log.size() == 1);
  CHECK(t.log[0].find("warning: register_leaf: 'Shared' replaces the Lua leaf from ") == 0);
}

TEST_CASE("lua: conditions: truthy success, falsy failure; status values count as such; running is an error") {
  LuaRt t;
  t.write("status.lua", kStatusLeaves);
  struct Case {
    const char* leaf;
    Status expected;
  };
  for (Case c : {Case{"CondOne", Status::Success}, Case{"CondZero", Status::Success},  // 0 is truthy in Lua
                 Case{"CondText", Status::Success}, Case{"CondFalse", Status::Failure},
                 Case{"CondNil", Status::Failure}, Case{"CondS", Status::Success}, Case{"CondF", Status::Failure}}) {
    INFO("leaf ", c.leaf);
    auto b = t.load(std::string("tree: s\nleaves: [status.lua]\nroot:\n  condition: ") + c.leaf + "\n");
    CHECK(t.rt.tick(t.rt.spawn(b), 0.5) == c.expected);
  }
  CHECK(t.rt.script_errors() == 0);

  for (const char* leaf : {"CondRunning", "CondRunningText"}) {
    INFO("leaf ", leaf);
    uint64_t before = t.rt.script_errors();
    t.log.clear();
    auto b = t.load(std::string("tree: s\nleaves: [status.lua]\nroot:\n  condition: ") + leaf + "\n");
    auto a = t.rt.spawn(b);
    CHECK(t.rt.tick(a, 0.5) == Status::Failure);  // an error makes the leaf fail for that tick
    CHECK(t.rt.script_errors() == before + 1);
    CHECK(t.joined_log().find(leaf) != std::string::npos);
    CHECK(t.rt.tick(a, 0.5) == Status::Failure);  // the run goes on
    CHECK(t.rt.script_errors() == before + 2);
  }
}

TEST_CASE("lua: hook tables get a fresh mem per (agent, node) run; stop gets the status as a string; plain functions get no mem") {
  LuaRt t;
  t.write("hooks.lua", R"LUA(
local thicket = require("thicket")
local L = {}
L.Counter = {
  start = function(agent, args, mem)
    thicket.log(string.format("@%d start %s n=%s", agent.id, args.tag, tostring(mem.n)))
    mem.n = 0
  end,
  tick = function(agent, args, mem)
    mem.n = mem.n + 1
    thicket.log(string.format("@%d tick %s n=%d", agent.id, args.tag, mem.n))
    if mem.n >= args.len then return thicket.SUCCESS end
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status)
    thicket.log(string.format("@%d stop %s n=%d %s %s", agent.id, args.tag, mem.n, type(status), status))
  end,
}
L.TickOnly = {
  tick = function(agent, args, mem)
    thicket.log(string.format("@%d tickonly %s k=%s", agent.id, type(mem), tostring(mem.k)))
    mem.k = (mem.k or 0) + 1
    if mem.k >= 2 then return thicket.FAILURE end
    return thicket.RUNNING
  end,
}
function L.Plain(agent, args, mem)
  thicket.log(string.format("@%d plain mem=%s", agent.id, tostring(mem)))
  return true
end
return L
)LUA");
  auto b = t.load(R"(
tree: hooks
leaves: [hooks.lua]
root:
  parallel:
    - action: {leaf: Counter, args: {tag: x, len: 2}}
    - action: {leaf: Counter, args: {tag: y, len: 3}}
    - action: Plain
    - action: TickOnly
)");
  auto a1 = t.rt.spawn(b);
  auto a2 = t.rt.spawn(b);
  REQUIRE(t.rt.agent_id(a1) == 1);
  REQUIRE(t.rt.agent_id(a2) == 2);
  CHECK(t.rt.tick(a1, 0.5) == Status::Running);
  CHECK(t.marks() == Lines{"1 start x n=nil", "1 tick x n=1", "1 start y n=nil", "1 tick y n=1", "1 plain mem=nil",
                           "1 tickonly table k=nil"});
  CHECK(t.rt.tick(a2, 0.5) == Status::Running);  // another agent: its own mem
  CHECK(t.marks() == Lines{"2 start x n=nil", "2 tick x n=1", "2 start y n=nil", "2 tick y n=1", "2 plain mem=nil",
                           "2 tickonly table k=nil"});
  // TickOnly fails on its second tick: the parallel (failure one) fails and aborts y.
  CHECK(t.rt.tick(a1, 0.5) == Status::Failure);
  CHECK(t.marks() == Lines{"1 tick x n=2", "1 stop x n=2 string success", "1 tick y n=2", "1 tickonly table k=1",
                           "1 stop y n=2 string aborted"});
  // A new run: every mem is fresh.
  CHECK(t.rt.tick(a1, 0.5) == Status::Running);
  CHECK(t.marks() == Lines{"1 start x n=nil", "1 tick x n=1", "1 start y n=nil", "1 tick y n=1", "1 plain mem=nil",
                           "1 tickonly table k=nil"});
  CHECK(t.rt.script_errors() == 0);
}

// An agent's table of per-node mem and coroutines is made when a hook leaf or task first needs
// it: agents whose leaves are plain functions never carry one (the Lua heap per agent, issue 16).
TEST_CASE("lua: the per-agent mem table is made on first use, not at spawn") {
  LuaRt t;
  t.write("leaves.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Plain(agent) return thicket.RUNNING end
L.Hooked = {
  start = function(agent, args, mem) mem.n = 0 end,
  tick = function(agent, args, mem) mem.n = mem.n + 1 thicket.log("@n=" .. mem.n) return thicket.RUNNING end,
}
return L
)LUA");
  auto plain = t.load("tree: p\nleaves: [leaves.lua]\nroot: {action: Plain}\n", "plain.yaml");
  auto hooked = t.load("tree: h\nleaves: [leaves.lua]\nroot: {action: Hooked}\n", "hooked.yaml");
  auto a = t.rt.spawn(plain);
  auto b = t.rt.spawn(hooked);
  auto mem_ref = [&](thicket::AgentHandle h) { return t.rt.impl().agents[h.index].lua_mem; };
  CHECK(mem_ref(a) == LUA_NOREF);
  CHECK(mem_ref(b) == LUA_NOREF);
  for (int k = 0; k < 3; ++k) t.rt.tick_all(0.5);
  CHECK(mem_ref(a) == LUA_NOREF);  // plain functions: never
  CHECK(mem_ref(b) != LUA_NOREF);  // the hook table's mem lives in it
  CHECK(t.marks() == Lines{"n=1", "n=2", "n=3"});
  t.rt.despawn(a);
  t.rt.despawn(b);
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("lua: args: mappings become tables, lists 1-based arrays, integers integers, floats floats; on/yes stay strings") {
  LuaRt t;
  t.write("args.lua", R"LUA(
local thicket = require("thicket")
local L = {}
local function d(v)
  if type(v) == "number" then return math.type(v) .. ":" .. tostring(v) end
  if type(v) == "table" then return "table#" .. #v end
  return type(v) .. ":" .. tostring(v)
end
function L.Args(agent, args)
  local out = {
    "map=" .. d(args.map), "map.x=" .. d(args.map.x), "map.y=" .. d(args.map.y),
    "map.inner.z=" .. d(args.map.inner.z), "map.inner.z[2]=" .. d(args.map.inner.z[2]),
    "list=" .. d(args.list), "list[0]=" .. d(args.list[0]), "list[1]=" .. d(args.list[1]),
    "list[2]=" .. d(args.list[2]), "list[3]=" .. d(args.list[3]), "list[4]=" .. d(args.list[4]),
    "int=" .. d(args.int), "neg=" .. d(args.neg), "hex=" .. d(args.hex), "float=" .. d(args.float),
    "exp=" .. d(args.exp), "on=" .. d(args.on), "yes=" .. d(args.yes), "off=" .. d(args.off),
    "b=" .. d(args.b), "B=" .. d(args.B), "s=" .. d(args.s), "q=" .. d(args.q), "n=" .. d(args.n),
    "missing=" .. d(args.missing),
  }
  thicket.log("@" .. table.concat(out, " "))
  return true
end
function L.NoArgs(agent, args)
  thicket.log("@noargs " .. type(args))
  return true
end
return L
)LUA");
  auto b = t.load(R"(
tree: args
leaves: [args.lua]
root:
  sequence:
    - action:
        leaf: Args
        args:
          map: {x: 1, y: 2.5, inner: {z: [1, 2]}}
          list: [10, 20.5, s, true]
          int: 3
          neg: -7
          hex: 0x1F
          float: 3.0
          exp: 1e3
          on: on
          yes: yes
          off: Off
          b: true
          B: True
          s: hello
          q: "123"
          n: null
    - action: NoArgs
)");
  CHECK(t.rt.tick(t.rt.spawn(b), 0.5) == Status::Success);
  CHECK(t.marks() == Lines{
                         "map=table#0 map.x=integer:1 map.y=float:2.5 map.inner.z=table#2 map.inner.z[2]=integer:2 "
                         "list=table#4 list[0]=nil:nil list[1]=integer:10 list[2]=float:20.5 list[3]=string:s "
                         "list[4]=boolean:true int=integer:3 neg=integer:-7 hex=integer:31 float=float:3.0 "
                         "exp=float:1000.0 on=string:on yes=string:yes off=string:Off b=boolean:true B=boolean:true "
                         "s=string:hello q=string:123 n=nil:nil missing=nil:nil",
                         "noargs table"});
}

TEST_CASE("lua: thicket.time, dt and tick give the sim clock; thicket.log writes to the run's log") {
  LuaRt t;
  t.write("clock.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Clock(agent, args)
  thicket.log(string.format("@%d %.17g %.17g", thicket.tick(), thicket.time(), thicket.dt()))
  return thicket.RUNNING
end
function L.Log(agent, args)
  thicket.log("@several", 1, true, nil)
  return true
end
return L
)LUA");
  auto b = t.load("tree: c\nleaves: [clock.lua]\nroot:\n  action: Clock\n");
  auto a = t.rt.spawn(b);
  for (int i = 0; i < 5; ++i) t.rt.tick(a, 0.25);
  CHECK(t.marks() == Lines{"1 0 0.25", "2 0.25 0.25", "3 0.5 0.25", "4 0.75 0.25", "5 1 0.25"});

  auto l = t.load("tree: l\nleaves: [clock.lua]\nroot:\n  action: Log\n");
  StdoutCapture out;
  t.rt.tick(t.rt.spawn(l), 0.5);
  CHECK(out.finish() == "");  // the log is not standard output
  auto m = t.marks();
  REQUIRE(m.size() == 1);
  CHECK(m[0].find("several") == 0);
  CHECK(m[0].find("1") != std::string::npos);
  CHECK(m[0].find("true") != std::string::npos);
}

namespace {
const char* kRandomLeaves = R"LUA(
local thicket = require("thicket")
local L = {}
function L.Draw(agent, args)
  local a = thicket.random()
  local b = thicket.random(6)
  local c = thicket.random(10, 12)
  local d = math.random()
  local e = math.random(3)
  local f = math.random(-2, 2)
  assert(a >= 0 and a < 1 and d >= 0 and d < 1, "random() in [0, 1)")
  assert(math.type(b) == "integer" and b >= 1 and b <= 6, "random(6)")
  assert(math.type(c) == "integer" and c >= 10 and c <= 12, "random(10, 12)")
  assert(math.type(e) == "integer" and e >= 1 and e <= 3, "math.random(3)")
  assert(f >= -2 and f <= 2, "math.random(-2, 2)")
  thicket.log(string.format("@%d %.17g %d %d %.17g %d %d", agent.id, a, b, c, d, e, f))
  return true
end
function L.TwoThicket(agent, args)
  thicket.log(string.format("@%.17g %.17g %d", thicket.random(), thicket.random(), thicket.random(1000000)))
  return true
end
function L.TwoMath(agent, args)
  thicket.log(string.format("@%.17g %.17g %d", thicket.random(), math.random(), math.random(1000000)))
  return true
end
return L
)LUA";

// Each agent's draws over `ticks` ticks, agents ticked in `order` (indices into the spawned list).
std::vector<Lines> draws(uint64_t seed, int agents, int ticks, bool reverse) {
  LuaRt t(seed);
  t.write("rnd.lua", kRandomLeaves);
  auto b = t.load("tree: r\nleaves: [rnd.lua]\nroot:\n  action: Draw\n");
  std::vector<thicket::AgentHandle> hs;
  for (int i = 0; i < agents; ++i) hs.push_back(t.rt.spawn(b));
  std::vector<Lines> out(agents);
  for (int k = 0; k < ticks; ++k)
    for (int j = 0; j < agents; ++j) {
      int i = reverse ? agents - 1 - j : j;
      t.rt.tick(hs[i], 0.5);
      for (auto& m : t.marks()) out[i].push_back(m);
    }
  CHECK(t.rt.script_errors() == 0);
  return out;
}
}  // namespace

TEST_CASE("lua: thicket.random and math.random draw from the agent's own stream, seeded from the run seed and agent id") {
  auto a = draws(7, 3, 4, false);
  auto b = draws(7, 3, 4, true);  // other scheduling, same draws
  auto c = draws(8, 3, 4, false);
  REQUIRE(a.size() == 3);
  for (const auto& lines : a) CHECK(lines.size() == 4);
  CHECK(a == b);
  CHECK(a != c);
  // Different agents draw differently (drop the agent id in front).
  auto tail = [](const std::string& s) { return s.substr(s.find(' ')); };
  CHECK(tail(a[0][0]) != tail(a[1][0]));
  CHECK(tail(a[1][0]) != tail(a[2][0]));
  // Successive ticks draw on.
  CHECK(tail(a[0][0]) != tail(a[0][1]));
}

TEST_CASE("lua: math.random continues the same stream as thicket.random") {
  auto run = [](const char* leaf) {
    LuaRt t(11);
    t.write("rnd.lua", kRandomLeaves);
    auto b = t.load(std::string("tree: r\nleaves: [rnd.lua]\nroot:\n  action: ") + leaf + "\n");
    auto a = t.rt.spawn(b);
    t.rt.tick(a, 0.5);
    t.rt.tick(a, 0.5);
    return t.marks();
  };
  auto x = run("TwoThicket"), y = run("TwoMath");
  REQUIRE(x.size() == 2);
  CHECK(x == y);
}

TEST_CASE("lua: math.random and thicket.random refuse a third argument, as Lua 5.4 does") {
  // (It was ignored: math.random(1, 2, 3) drew from 1..2 without a word.)
  LuaRt t;
  t.write("r3.lua", "local thicket = require('thicket')\nlocal L = {}\nfunction L.M() return math.random(1, 2, 3) end\nfunction L.T() return thicket.random(1, 2, 3) end\nreturn L\n");
  for (const char* leaf : {"M", "T"}) {
    auto a = t.rt.spawn(t.load(std::string("tree: r\nleaves: [r3.lua]\nroot: {action: ") + leaf + "}\n", std::string(leaf) + ".yaml"));
    t.rt.tick(a, 0.5);
  }
  CHECK(t.rt.script_errors() == 2);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("r3.lua:3: wrong number of arguments") != std::string::npos);
  CHECK(log.find("r3.lua:4: wrong number of arguments to 'random' (0, 1 or 2") != std::string::npos);  // (named, as its other errors)
}

TEST_CASE("lua: print writes to standard output") {
  LuaRt t;
  t.write("p.lua", R"LUA(
local L = {}
function L.Say(agent, args)
  print("hello", 42, args.who)
  print(string.format("%d %s", agent.id, "bye"))
  return true
end
return L
)LUA");
  auto b = t.load("tree: p\nleaves: [p.lua]\nroot:\n  action: {leaf: Say, args: {who: world}}\n");
  auto a = t.rt.spawn(b);
  StdoutCapture out;
  t.rt.tick(a, 0.5);
  CHECK(out.finish() == "hello\t42\tworld\n1 bye\n");
  CHECK(t.log.empty());  // print is not the log
}

TEST_CASE("lua: errors in a file whose path is longer than Lua's 59-character chunk names give the whole path") {
  // Lua cuts such a name to "..." and its end: an editor could not jump to it, and a syntax
  // error in the leaf file read as one in another file "required by" it.
  LuaRt t;
  const std::string deep = "mods/a_modder_with_a_long_name/brains/the_guard_of_the_north_gate/";
  const std::string leaves = t.write(deep + "leaves.lua", "local L = {}\nfunction L.Boom(agent)\n  local target\n  return target.x\nend\nreturn L\n").string();
  REQUIRE(leaves.size() > 59);
  auto a = t.rt.spawn(t.load("tree: g\nleaves: [leaves.lua]\nroot: {action: Boom}\n", deep + "brain.yaml"));
  t.rt.tick(a, 0.5);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("error: " + leaves + ":4: attempt to index a nil value (local 'target')") != std::string::npos);
  CHECK(log.find("    " + leaves + ":4: in function <" + leaves + ":2>") != std::string::npos);
  CHECK(log.find("...") == std::string::npos);
  const std::string broken = t.write(deep + "broken.lua", "local L = {}\nfunction L.A(\nreturn L\n").string();
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: b\nleaves: [broken.lua]\nroot: {action: A}\n", d, deep + "b.yaml"));
  REQUIRE(!d.empty());
  CHECK(thicket::format_diagnostic(d[0]) == broken + ":3: error: <name> or '...' expected near 'return'");
}

TEST_CASE("lua: a printed or logged line past 1 MiB is cut there (whole characters) and says how much more there was") {
  // Printing 64 MiB took a second or more inside one call, past any time limit. (No time limit
  // here: printing a MiB under a sanitizer can take longer than the default's 50 ms.)
  thicket::RuntimeOptions options;
  options.leaf_timeout = 0;
  thicket_test::LuaRuntime t(options);
  t.write("big.lua", R"LUA(
local thicket = require("thicket")
local L = {}
local big = string.rep("\u{e9}", 600000)  -- 1,200,000 bytes
function L.Say(agent) print("x", big, 42) thicket.log(big) print(string.rep("a", 1048576)) return true end
return L
)LUA");
  auto a = t.rt.spawn(t.load("tree: big\nleaves: [big.lua]\nroot: {action: Say}\n"));
  StdoutCapture out;
  t.rt.tick(a, 0.5);
  const std::string printed = out.finish();
  // "x", a tab, then as many whole 2-byte characters as fit in the 1,048,574 bytes left.
  std::string first = "x\t";
  for (int k = 0; k < 524287; ++k) first += "\xc3\xa9";
  const std::string said = " ... (151429 more bytes: a line shows its first 1048576)\n";
  CHECK(printed.substr(0, first.size()) == first);
  CHECK(printed.substr(first.size(), said.size()) == said);
  // Exactly the cap is printed whole.
  CHECK(printed.size() == first.size() + said.size() + 1048577);
  CHECK(printed.substr(first.size() + said.size()) == std::string(1048576, 'a') + "\n");
  const std::string log = t.joined_log();
  CHECK(log.find(" ... (151424 more bytes: a line shows its first 1048576)") != std::string::npos);
}

TEST_CASE("lua: a runtime error fails the leaf for that tick, is logged with file:line, agent id and node id; the run goes on") {
  const std::string boom =
      "local thicket = require(\"thicket\")\n"    // 1
      "local L = {}\n"                             // 2
      "function L.Boom(agent, args)\n"             // 3
      "  local t = nil\n"                          // 4
      "  return t.field\n"                         // 5
      "end\n"                                      // 6
      "function L.Ok(agent, args)\n"               // 7
      "  thicket.log('@ok ' .. thicket.tick())\n"  // 8
      "  return true\n"                            // 9
      "end\n"                                      // 10
      "L.HookBoom = {\n"                           // 11
      "  tick = function(agent, args, mem)\n"      // 12
      "    error('hook failed')\n"                 // 13
      "  end,\n"                                   // 14
      "  stop = function(agent, args, mem, status) thicket.log('@stop ' .. status) end,\n"  // 15
      "}\n"                                        // 16
      "function L.CondBoom(agent, args)\n"         // 17
      "  error('cond failed')\n"                   // 18
      "end\n"
      "return L\n";
  LuaRt t;
  t.write("boom.lua", boom);
  auto b = t.load(R"(
tree: boom
leaves: [boom.lua]
root:
  selector:
    - action: {leaf: Boom, name: boomer}
    - action: Ok
)");
  std::vector<thicket::AgentHandle> hs;
  for (int i = 0; i < 5; ++i) hs.push_back(t.rt.spawn(b));
  auto a = hs[4];
  uint32_t id = t.rt.agent_id(a);
  REQUIRE(id == 5);
  CHECK(t.rt.tick(a, 0.5) == Status::Success);  // Boom failed, the selector went on to Ok
  std::string log = t.joined_log();
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.rt.script_errors() == 2);
  CHECK(t.marks() == Lines{"ok 1", "ok 2"});
  INFO(log);
  CHECK(log.find("boom.lua:5") != std::string::npos);
  CHECK(log.find("boomer") != std::string::npos);
  CHECK(log.find("agent") != std::string::npos);
  CHECK(has_number(log.substr(0, log.find("ok")), id));

  // A failing tick hook: the leaf fails, so it stops with failure.
  LuaRt h;
  h.write("boom.lua", boom);
  auto hb = h.load("tree: h\nleaves: [boom.lua]\nroot:\n  sequence: [ {action: HookBoom} ]\n");
  auto ha = h.rt.spawn(hb);
  CHECK(h.rt.tick(ha, 0.5) == Status::Failure);
  std::string hlog = h.joined_log();
  CHECK(hlog.find("boom.lua:13") != std::string::npos);
  CHECK(hlog.find("hook failed") != std::string::npos);
  CHECK(hlog.find("root/0") != std::string::npos);  // the node's path id
  CHECK(h.marks() == Lines{"stop failure"});
  CHECK(h.rt.script_errors() == 1);

  // A failing condition is false for that tick.
  auto cb = h.load("tree: c\nleaves: [boom.lua]\nroot:\n  selector: [ {condition: CondBoom}, {action: Ok} ]\n");
  auto ca = h.rt.spawn(cb);
  CHECK(h.rt.tick(ca, 0.5) == Status::Success);
  CHECK(h.joined_log().find("boom.lua:18") != std::string::npos);
  CHECK(h.rt.script_errors() == 2);
}

namespace {
const char* kProbeLeaves = R"LUA(
local thicket = require("thicket")
local L = {}
local function has(path)
  local v = _G
  for part in string.gmatch(path, "[^.]+") do
    if type(v) ~= "table" then return "absent" end
    v = v[part]
  end
  return v ~= nil and "present" or "absent"
end
function L.Probe(agent, args)
  local out = {}
  for _, name in ipairs({"os.execute", "os.getenv", "os.remove", "io", "io.open", "debug", "dofile", "loadfile",
                         "package.loadlib", "os.clock", "os.time", "string.format", "table.concat", "math.floor",
                         "utf8.char", "coroutine.wrap", "require", "print", "pcall", "setmetatable"}) do
    out[#out + 1] = name .. "=" .. has(name)
  end
  thicket.log("@" .. table.concat(out, " "))
  return true
end
return L
)LUA";
}  // namespace

TEST_CASE("lua: the sandbox keeps io, os (but its clocks), debug, dofile, loadfile and C modules from untrusted scripts") {
  LuaRt t;
  t.write("probe.lua", kProbeLeaves);
  auto b = t.load("tree: p\nleaves: [probe.lua]\nroot:\n  action: Probe\n");
  t.rt.tick(t.rt.spawn(b), 0.5);
  CHECK(t.marks() == Lines{"os.execute=absent os.getenv=absent os.remove=absent io=absent io.open=absent "
                           "debug=absent dofile=absent loadfile=absent package.loadlib=absent os.clock=present "
                           "os.time=present string.format=present table.concat=present math.floor=present "
                           "utf8.char=present coroutine.wrap=present require=present print=present pcall=present "
                           "setmetatable=present"});
}

TEST_CASE("lua: trusted scripts get io, os, debug, dofile and loadfile") {
  LuaRt t(1, /*trusted=*/true);
  t.write("probe.lua", kProbeLeaves);
  auto b = t.load("tree: p\nleaves: [probe.lua]\nroot:\n  action: Probe\n");
  t.rt.tick(t.rt.spawn(b), 0.5);
  CHECK(t.marks() == Lines{"os.execute=present os.getenv=present os.remove=present io=present io.open=present "
                           "debug=present dofile=present loadfile=present package.loadlib=present os.clock=present "
                           "os.time=present string.format=present table.concat=present math.floor=present "
                           "utf8.char=present coroutine.wrap=present require=present print=present pcall=present "
                           "setmetatable=present"});
}

TEST_CASE("lua: a brain calls the leaves of its own leaf files and the game's, not another brain's, whatever the load order") {
  // Loaded after the brain whose file defines it, a brain that named another file's leaf
  // loaded; before it, it did not; and a hot reload took what a fresh run refused.
  LuaRt t;
  t.write("minion.lua", "local L = {}\nfunction L.EnemyNear() return true end\nreturn L\n");
  t.write("player.lua", "local L = {}\nfunction L.MinionNear() return true end\nreturn L\n");
  t.rt.register_leaf("Native", thicket::NativeLeaf{[](thicket::LeafContext&) { return thicket::Status::Success; }});
  t.load("tree: player\nleaves: [player.lua]\nroot: {condition: MinionNear}\n", "player.yaml");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: minion\nleaves: [minion.lua]\nroot:\n  sequence: [{condition: MinionNear}, {action: Native}]\n", d,
                         "minion.yaml"));
  REQUIRE(!d.empty());
  CHECK(d[0].line == 4);
  CHECK(d[0].message == "unknown leaf 'MinionNear' (defined: EnemyNear, Native)");
  d.clear();
  const fs::path minion = t.write("minion.yaml", "tree: minion\nleaves: [minion.lua]\nroot:\n  sequence: [{condition: EnemyNear}, {action: Native}]\n");
  REQUIRE(t.rt.load_file(minion.string(), d));
  t.dir.rewrite("minion.yaml", "tree: minion\nleaves: [minion.lua]\nroot:\n  sequence: [{condition: MinionNear}, {action: Native}]\n");
  std::vector<thicket::ReloadReport> reports;
  CHECK(t.rt.reload_changed(&reports) == 0);
  REQUIRE(reports.size() == 1);
  CHECK_FALSE(reports[0].ok);
}

TEST_CASE("lua: the guarded coroutine.resume and wrap answer as the standard ones (a coroutine resuming itself, a dead one, an error)") {
  LuaRt t;
  t.write("co.lua", R"LUA(local thicket = require("thicket")
local L = {}
local function add(out, ...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = tostring(t[i]) end
  out[#out + 1] = table.concat(t, ",")
end
function L.Co()
  local out = {}
  local co
  co = coroutine.create(function() add(out, coroutine.resume(co)) end)
  coroutine.resume(co)
  local f
  f = coroutine.wrap(function() add(out, pcall(f)) return "done" end)
  add(out, f())
  local closed = false
  local g = coroutine.wrap(function()
    local x <close> = setmetatable({}, {__close = function() closed = true end})
    error("boom", 0)
  end)
  add(out, pcall(g))
  add(out, closed)
  local h = coroutine.wrap(function() return 1 end)
  h()
  add(out, pcall(h))
  thicket.log("@" .. table.concat(out, " | "))
  return true
end
return L
)LUA");
  auto b = t.load("tree: c\nleaves: [co.lua]\nroot:\n  action: Co\n");
  CHECK(t.rt.tick(t.rt.spawn(b), 0.5) == thicket::Status::Success);
  CHECK(t.marks() == Lines{"false,cannot resume non-suspended coroutine | false,cannot resume non-suspended coroutine | done | "
                           "false,boom | true | false,cannot resume dead coroutine"});
}

TEST_CASE("lua: require finds a module beside the leaf file and nothing else") {
  TempDir elsewhere;
  elsewhere.write("far.lua", "return { answer = 'far' }\n");
  elsewhere.write("lpath_mod.lua", "return { answer = 'lpath' }\n");
  // A module on LUA_PATH must not be found by an untrusted script either.
  std::string lua_path = (elsewhere.path() / "?.lua").string() + ";;";
  const char* old54 = std::getenv("LUA_PATH_5_4");
  const char* old = std::getenv("LUA_PATH");
  std::string saved54 = old54 ? old54 : "", saved = old ? old : "";
  ::setenv("LUA_PATH_5_4", lua_path.c_str(), 1);
  ::setenv("LUA_PATH", lua_path.c_str(), 1);
  {
    LuaRt t;
    t.write("leaves/helper.lua", "return { answer = 42 }\n");
    t.write("parentmod.lua", "return { answer = 'parent' }\n");
    t.write("leaves/req.lua", R"LUA(
local thicket = require("thicket")
local helper = require("helper")
local L = {}
function L.Req(agent, args)
  local ok1 = pcall(require, "far")
  local ok2 = pcall(require, "parentmod")
  local ok3 = pcall(require, "lpath_mod")
  local ok4, again = pcall(require, "helper")
  thicket.log(string.format("@helper=%s far=%s parent=%s lpath=%s again=%s", tostring(helper.answer), tostring(ok1),
                            tostring(ok2), tostring(ok3), tostring(ok4 and again.answer)))
  return true
end
return L
)LUA");
    auto b = t.load("tree: r\nleaves: [leaves/req.lua]\nroot:\n  action: Req\n");
    t.rt.tick(t.rt.spawn(b), 0.5);
    CHECK(t.marks() == Lines{"helper=42 far=false parent=false lpath=false again=42"});
  }
  if (old54) ::setenv("LUA_PATH_5_4", saved54.c_str(), 1);
  else ::unsetenv("LUA_PATH_5_4");
  if (old) ::setenv("LUA_PATH", saved.c_str(), 1);
  else ::unsetenv("LUA_PATH");
}

TEST_CASE("lua: a leaf file's syntax error is a load diagnostic with the Lua file and line; nothing loads") {
  LuaRt t;
  fs::path bad = t.write("bad.lua",
                         "local L = {}\n"
                         "function L.X(agent, args)\n"
                         "  local x = = 1\n"
                         "  return true\n"
                         "end\n"
                         "return L\n");
  std::vector<thicket::Diagnostic> d;
  auto b = t.try_load("tree: b\nleaves: [bad.lua]\nroot:\n  action: X\n", d);
  CHECK_FALSE(b.has_value());
  bool found = false;
  std::string all;
  for (const auto& x : d) {
    all += thicket::format_diagnostic(x) + "\n";
    if (x.severity == thicket::Severity::Error && fs::path(x.file).filename() == "bad.lua" && x.line == 3) found = true;
  }
  INFO(all);
  CHECK(found);
  CHECK(all.find("bad.lua:3") != std::string::npos);
}

TEST_CASE("lua: an unknown leaf name is a load error at its YAML position with a did-you-mean") {
  LuaRt t;
  t.write("guard.lua", R"LUA(
local L = {}
function L.Patrol(agent, args) return "running" end
function L.SeesEnemy(agent, args) return false end
return L
)LUA");
  std::vector<thicket::Diagnostic> d;
  auto b = t.try_load(R"(tree: g
leaves: [guard.lua]
root:
  selector:
    - condition: SeesEnemy
    - action: Patorl
)",
                      d);
  CHECK_FALSE(b.has_value());
  std::string all;
  bool found = false;
  for (const auto& x : d) {
    all += thicket::format_diagnostic(x) + "\n";
    if (x.severity == thicket::Severity::Error && x.message.find("Patorl") != std::string::npos &&
        x.message.find("did you mean") != std::string::npos && x.message.find("Patrol") != std::string::npos) {
      found = true;
      CHECK(fs::path(x.file).filename() == "brain.yaml");
      CHECK(x.line == 6);
      CHECK(x.column > 0);
    }
  }
  INFO(all);
  CHECK(found);
}

TEST_CASE("lua: the agent table is kept for the agent's life, with id, bb and the leaf's own fields") {
  LuaRt t;
  t.write("agent.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Remember(agent, args)
  agent.visits = (agent.visits or 0) + 1
  thicket.log(string.format("@%s %d %d", math.type(agent.id), agent.id, agent.visits))
  return true
end
return L
)LUA");
  auto b = t.load("tree: a\nleaves: [agent.lua]\nroot:\n  sequence: [ {action: Remember}, {action: Remember} ]\n");
  auto a1 = t.rt.spawn(b);
  auto a2 = t.rt.spawn(b);
  t.rt.tick(a1, 0.5);
  t.rt.tick(a2, 0.5);
  t.rt.tick(a1, 0.5);
  CHECK(t.marks() == Lines{"integer 1 1", "integer 1 2", "integer 2 1", "integer 2 2", "integer 1 3", "integer 1 4"});
}

TEST_CASE("lua: args: keys are strings, big integers stay exact, YAML 1.2 core scalars") {
  LuaRt t;
  t.write("args2.lua", R"LUA(
local thicket = require("thicket")
local L = {}
local function d(v)
  if type(v) == "number" then return math.type(v) .. ":" .. tostring(v) end
  return type(v) .. ":" .. tostring(v)
end
function L.A(agent, args)
  local nonstring = 0
  for k in pairs(args) do if type(k) ~= "string" then nonstring = nonstring + 1 end end
  thicket.log("@" .. table.concat({
    "big=" .. d(args.big), "oct=" .. d(args.oct), "inf=" .. d(args.inf), "nexp=" .. d(args.nexp),
    "plus=" .. d(args.plus), "k1=" .. d(args["1"]), "k1int=" .. d(args[1]), "ktrue=" .. d(args["true"]),
    "tilde=" .. d(args.tilde), "Yes=" .. d(args.Yes), "y=" .. d(args.y), "NO=" .. d(args.NO),
    "tagged=" .. d(args.tagged), "nonstring=" .. nonstring}, " "))
  return true
end
return L
)LUA");
  auto b = t.load(R"(
tree: a
leaves: [args2.lua]
root:
  action:
    leaf: A
    args: {big: 9007199254740993, oct: 0o17, inf: .inf, nexp: -1.5e-3, plus: +5, 1: one, true: t, tilde: ~,
           Yes: Yes, y: y, NO: NO, tagged: !!str 5}
)");
  CHECK(t.rt.tick(t.rt.spawn(b), 0.5) == Status::Success);
  CHECK(t.marks() == Lines{"big=integer:9007199254740993 oct=integer:15 inf=float:inf nexp=float:-0.0015 "
                           "plus=integer:5 k1=string:one k1int=nil:nil ktrue=string:t tilde=nil:nil Yes=string:Yes "
                           "y=string:y NO=string:NO tagged=string:5 nonstring=0"});
}

TEST_CASE("lua: task leaves: each yield is one running tick; an abort closes the coroutine so <close> runs once") {
  LuaRt t;
  t.write("task.lua", R"LUA(
local thicket = require("thicket")
local L = {}
L.Job = thicket.task(function(agent, args)
  local guard <close> = thicket.defer(function() thicket.log("@" .. thicket.tick() .. " cleanup " .. args.id) end)
  for i = 1, args.steps do
    thicket.log("@" .. thicket.tick() .. " step " .. args.id .. " " .. i)
    coroutine.yield()
  end
  thicket.log("@" .. thicket.tick() .. " done " .. args.id)
  return thicket.SUCCESS
end)
L.Waiter = thicket.task(function(agent, args)
  thicket.wait(1.0)
  thicket.log("@" .. thicket.tick() .. " waited")
  return true
end)
function L.At(agent, args)
  for _, k in ipairs(args.at) do if k == thicket.tick() then return true end end
  return false
end
return L
)LUA");
  auto b = t.load(R"(
tree: task
leaves: [task.lua]
root:
  active_selector:
    - condition: {leaf: At, args: {at: [3]}}
    - action: {leaf: Job, args: {id: j, steps: 2}}
)");
  auto a = t.rt.spawn(b);
  std::vector<Status> st;
  for (int i = 0; i < 7; ++i) st.push_back(t.rt.tick(a, 0.5));
  CHECK(st == std::vector<Status>{Status::Running, Status::Running, Status::Success, Status::Running, Status::Running,
                                  Status::Success, Status::Running});
  CHECK(t.marks() == Lines{"1 step j 1", "2 step j 2", "3 cleanup j", "4 step j 1", "5 step j 2", "6 done j",
                           "6 cleanup j", "7 step j 1"});

  auto w = t.load("tree: w\nleaves: [task.lua]\nroot:\n  action: Waiter\n");
  auto wa = t.rt.spawn(w);
  CHECK(t.rt.tick(wa, 0.5) == Status::Running);
  CHECK(t.rt.tick(wa, 0.5) == Status::Running);
  CHECK(t.rt.tick(wa, 0.5) == Status::Success);  // 1.0 s at dt 0.5: the third tick
  CHECK(t.marks() == Lines{"3 waited"});
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("lua: a task run that returns leaves its coroutine as it is: the next run allocates nothing") {
  // Closing a returned run's coroutine would shrink its stack, and the next run on it would
  // grow it again when it needs more: one or two reallocations a run, for a coroutine with
  // nothing left to close.
  LuaRt t;
  t.write("once.lua", R"LUA(
local thicket = require("thicket")
local L = {}
L.Once = thicket.task(function(agent, args)
  local a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
  return thicket.SUCCESS
end)
return L
)LUA");
  auto b = t.load("tree: once\nleaves: [once.lua]\nroot:\n  action: Once\n");
  for (int i = 0; i < 10; ++i) t.rt.spawn(b);
  for (int i = 0; i < 20; ++i) t.rt.tick_all(0.1);  // warm: pooled coroutines, memory tables
  const uint64_t before = thicket::lua_host(t.rt.impl()).heap().reallocs;
  for (int i = 0; i < 50; ++i) t.rt.tick_all(0.1);
  CHECK(thicket::lua_host(t.rt.impl()).heap().reallocs - before == 0);  // 500 runs
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("lua: a blackboard text past Lua's short strings, read every tick, allocates nothing once read") {
  // Lua makes a string over 40 bytes anew on every push: the host keeps the long texts it
  // pushed last, so a leaf reading the same one tick after tick costs no allocation.
  LuaRt t;
  t.write("read.lua", R"LUA(
local thicket = require("thicket")
return {
  Read = function(agent, args)
    local text = agent.bb.orders
    if #text ~= 62 or text:sub(1, 6) ~= "patrol" then error("read " .. text) end
    if agent.bb.short ~= "calm" then error("read " .. agent.bb.short) end
    return thicket.RUNNING
  end,
}
)LUA");
  auto b = t.load(R"(
tree: reader
leaves: [read.lua]
blackboard:
  orders: "patrol the eastern gate and the courtyard until the bell rings"
  short: calm
root:
  action: Read
)");
  for (int i = 0; i < 10; ++i) t.rt.spawn(b);
  for (int i = 0; i < 5; ++i) t.rt.tick_all(0.1);
  const uint64_t before = thicket::lua_host(t.rt.impl()).heap().reallocs;
  for (int i = 0; i < 50; ++i) t.rt.tick_all(0.1);
  CHECK(thicket::lua_host(t.rt.impl()).heap().reallocs - before == 0);  // 500 reads
  CHECK(t.rt.script_errors() == 0);

  // A text written from Lua reads back as written; many distinct long texts go through the
  // cache's slots and each reads back as itself.
  t.write("many.lua", R"LUA(
local thicket = require("thicket")
return {
  Many = function(agent, args)
    for i = 1, 600 do
      local text = string.rep("x", 41) .. i
      agent.bb.note = text
      if agent.bb.note ~= text then error("read " .. agent.bb.note .. " for " .. text) end
    end
    for i = 600, 1, -1 do
      local text = string.rep("x", 41) .. i
      agent.bb.note = text
      if agent.bb.note ~= text then error("read " .. agent.bb.note .. " for " .. text) end
    end
    return thicket.SUCCESS
  end,
}
)LUA");
  auto m = t.load("tree: many\nleaves: [many.lua]\nblackboard: {note: \"\"}\nroot:\n  action: Many\n");
  auto ma = t.rt.spawn(m);
  CHECK(t.rt.tick(ma, 0.1) == Status::Success);
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("lua: a leaf failing again where its error was printed enough makes no traceback (plain leaves and tasks)") {
  // The traceback is the costliest part of a failing call (luaL_traceback searches the loaded
  // libraries for the name of every frame's function): thousands of agents running one broken
  // leaf ran ~100x slower for it, tracebacks nobody reads once the repeats are only counted.
  // Counted here by the Lua heap's reallocations: the error message's strings are left.
  LuaRt t;
  t.write("broken.lua", R"LUA(
local thicket = require("thicket")
local function deeper(n) error("the door is jammed") end
local function deep(n) deeper(n) end
local L = {}
function L.Broken(agent, args) deep(agent.id) return thicket.SUCCESS end
L.BrokenTask = thicket.task(function(agent, args) deep(agent.id) return thicket.SUCCESS end)
return L
)LUA");
  for (const char* leaf : {"Broken", "BrokenTask"}) {
    CAPTURE(leaf);
    auto b = t.load(std::string("tree: broken_") + leaf + "\nleaves: [broken.lua]\nroot:\n  action: " + leaf + "\n");
    std::vector<thicket::AgentHandle> agents;
    for (int i = 0; i < 10; ++i) agents.push_back(t.rt.spawn(b));
    const uint64_t errors0 = t.rt.script_errors();
    for (int i = 0; i < 5; ++i) t.rt.tick_all(0.1);  // 50 errors: 6 printed, the rest counted
    const uint64_t before = thicket::lua_host(t.rt.impl()).heap().reallocs;
    for (int i = 0; i < 50; ++i) t.rt.tick_all(0.1);
    const uint64_t per_call = (thicket::lua_host(t.rt.impl()).heap().reallocs - before) / 500;
    // Lua 5.4.4: 3 and 6 (a failed task's coroutine is reset and reused, a new one each run
    // made it 8; its base pcall frees call frames as the error unwinds, which the next run
    // makes again); with the traceback, 8 and 13.
    CHECK(per_call <= (std::string(leaf) == "Broken" ? 4u : 6u));
    CHECK(t.rt.script_errors() - errors0 == 550);  // every one still counted
    for (auto a : agents) t.rt.despawn(a);
  }
  // The printed ones keep their traceback, and the sixth says that the rest are counted.
  const std::string log = t.joined_log();
  auto count = [&](const std::string& what) { return occurrences(log, what); };
  CHECK(count("error: ") == 12);
  CHECK(count("stack traceback:") == 12);
  CHECK(count("in upvalue 'deeper'") == 12);
  CHECK(count("this error has now happened 6 times at this node") == 2);
}

TEST_CASE("lua: errors whose texts differ every time are printed 20 times at a node, then only counted") {
  // An agent id or the tick in the message made every error new to the repeat count: each was
  // printed with its traceback, for ever (and past 10,000 texts, every error was).
  LuaRt t;
  t.write("varied.lua", R"LUA(
local thicket = require("thicket")
return {
  Lost = function(agent, args) error("agent " .. agent.id .. " lost its target at tick " .. thicket.tick()) end,
  Fine = function(agent, args) return thicket.SUCCESS end,
}
)LUA");
  auto b = t.load(R"(
tree: varied
leaves: [varied.lua]
root:
  sequence:
    - action: Fine
    - action: Lost
)");
  for (int i = 0; i < 10; ++i) t.rt.spawn(b);
  for (int i = 0; i < 3; ++i) t.rt.tick_all(0.1);  // 30 errors, all different
  const uint64_t before = thicket::lua_host(t.rt.impl()).heap().reallocs;
  for (int i = 0; i < 20; ++i) t.rt.tick_all(0.1);
  // Counted, not printed: no traceback is made (the message's strings are left: 4 reallocations
  // a call with Lua 5.4.4, 6 with the traceback).
  CHECK((thicket::lua_host(t.rt.impl()).heap().reallocs - before) / 200 <= 5);
  CHECK(t.rt.script_errors() == 230);
  const std::string log = t.joined_log();
  auto count = [&](const std::string& what) { return occurrences(log, what); };
  CHECK(count("error: ") == 20);
  CHECK(count("stack traceback:") == 20);
  CHECK(count("20 errors at this node have now been printed; further ones, whatever they say, are counted") == 1);
  CHECK(log.find("agent 10 lost its target at tick 2") != std::string::npos);  // the 20th
  CHECK(log.find("agent 1 lost its target at tick 3") == std::string::npos);
}

TEST_CASE("lua: a condition's text answers by its truth (SPEC 3.4); a near status name is warned of once, whatever came before") {
  // The hint for a near status name is looked for once per text in a row, not on every call:
  // texts in turn must still each get their own answer. Every text is true: the condition
  // succeeds, and a near status name ("sucess") is a warning, said once at the node.
  LuaRt t;
  t.write("texts.lua", R"LUA(
local thicket = require("thicket")
local said = { "sucess", "banana", "sucess", "failur", "failur", string.rep("orc ", 15), "sucess", "failure", "SUCCESS" }
return { Says = function(agent, args) return said[thicket.tick()] end }
)LUA");
  auto b = t.load("tree: texts\nleaves: [texts.lua]\nroot:\n  condition: Says\n");
  auto a = t.rt.spawn(b);
  std::vector<Status> got;
  for (int i = 0; i < 9; ++i) got.push_back(t.rt.tick(a, 0.1));
  CHECK(got == std::vector<Status>{Status::Success, Status::Success, Status::Success, Status::Success, Status::Success,
                                   Status::Success, Status::Success, Status::Failure, Status::Success});
  const std::string log = t.joined_log();
  auto count = [&](const std::string& what) { return occurrences(log, what); };
  // Said at the line where the leaf's function is defined, as a Lua error would be.
  CHECK(count("/texts.lua:4: condition 'Says' returned the text 'sucess' (did you mean 'success'?): a text is true, so the "
              "condition succeeds") == 1);
  CHECK(count("returned the text 'failur' (did you mean 'failure'?)") == 1);
  CHECK(count("returned the text 'SUCCESS' (did you mean 'success'?)") == 1);
  CHECK(count("(said once for this node and text)") == 3);
  CHECK(count("banana") == 0);
  CHECK(count("error") == 0);
  CHECK(t.rt.script_errors() == 0);  // warnings are not errors: --strict goes on
}

TEST_CASE("lua: an unknown blackboard key or module field read every tick: each asked name gets its own message, and a reload's keys") {
  // The message (with its did-you-mean over every declared name) is built once per name asked
  // in a row, not on every call: names in turn, and a brain reloaded with other keys, must
  // still each be told as they are.
  LuaRt t;
  t.write("ask.lua", R"LUA(
local thicket = require("thicket")
return {
  Ask = function(agent, args)
    local tick = thicket.tick()
    if tick % 3 == 1 then return agent.bb.helth end
    if tick % 3 == 2 then return agent.bb.mana end
    return thicket.SUCESS
  end,
}
)LUA");
  const fs::path brain = t.write("ask.yaml", "tree: ask\nleaves: [ask.lua]\nblackboard: {health: 1}\nroot:\n  action: Ask\n");
  std::vector<thicket::Diagnostic> d;
  const auto b = t.rt.load_file(brain.string(), d);
  REQUIRE(b);
  auto a = t.rt.spawn(*b);
  for (int i = 0; i < 6; ++i) t.rt.tick(a, 0.1);
  t.dir.rewrite("ask.yaml", "tree: ask\nleaves: [ask.lua]\nblackboard: {health: 1, helix: 2}\nroot:\n  action: Ask\n");
  REQUIRE(t.rt.reload_changed() == 1);
  t.rt.tick(a, 0.1);  // tick 7: helth again, now beside helix
  const std::string log = t.joined_log();
  auto count = [&](const std::string& what) { return occurrences(log, what); };
  CHECK(count("blackboard has no key 'helth'; did you mean 'health'? (declared: health)") == 2);
  CHECK(count("blackboard has no key 'mana' (declared: health)") == 2);
  CHECK(count("the thicket module has no field 'SUCESS'; did you mean 'SUCCESS'?") == 2);
  CHECK(count("blackboard has no key 'helth'; did you mean 'health'? (declared: health, helix)") == 1);
}

TEST_CASE("lua: spawning an id in use every tick is refused each time, said six times") {
  LuaRt t;
  t.write("owner.lua", R"LUA(
local thicket = require("thicket")
return {
  KeepPet = function(agent, args) thicket.spawn("pet", nil, 100) return thicket.RUNNING end,
  Idle = function(agent, args) return thicket.RUNNING end,
}
)LUA");
  t.load("tree: pet\nleaves: [owner.lua]\nroot:\n  action: Idle\n", "pet.yaml");
  auto owner = t.load("tree: owner\nleaves: [owner.lua]\nroot:\n  action: KeepPet\n", "owner.yaml");
  t.rt.spawn(owner);
  for (int i = 0; i < 10; ++i) t.rt.tick_all(0.1);  // the pet spawned after tick 1; 9 refusals
  CHECK(t.rt.agent_count() == 2);
  CHECK_FALSE(t.rt.spawn(owner, {}, 100).valid());  // the game's own spawn is refused too, quietly now
  const std::string log = t.joined_log();
  size_t lines = 0;
  for (size_t at = log.find("error: spawn: agent id 100 is in use; no agent spawned"); at != std::string::npos;
       at = log.find("error: spawn: agent id 100 is in use", at + 1))
    ++lines;
  CHECK(lines == 6);
  CHECK(log.find("(said 6 times; further spawns of an id in use are refused without a word)") != std::string::npos);
  // Said with the agent whose leaf asked, and each refusal of a leaf's spawn is a script error
  // (it was printed as an error and counted as none: --strict went on, the exit status was 0);
  // the game's own refused spawn is not one.
  CHECK(log.find("is in use; no agent spawned (thicket.spawn in a leaf of agent 1)") != std::string::npos);
  CHECK(t.rt.script_errors() == 9);
}

TEST_CASE("lua: a thicket.defer cleanup that yields or waits while its task is cancelled is an error at its line") {
  // Lua's own words were "attempt to yield across a C-call boundary", with no position; and
  // thicket.wait said it "can only be called inside a thicket.task", which it was.
  LuaRt t;
  t.write("task.lua", R"LUA(
local thicket = require("thicket")
local L = {}
local function job(cleanup)
  return thicket.task(function(agent, args)
    local guard <close> = thicket.defer(cleanup)
    while true do coroutine.yield() end
  end)
end
L.Yields = job(function()
  coroutine.yield()
end)
L.Waits = job(function()
  thicket.wait(1)
end)
L.Breaks = job(function()
  local x = nil
  return x.y
end)
L.Fine = job(function() thicket.log("@" .. thicket.tick() .. " cleaned") end)
-- Finishing by itself (not cancelled), a task's cleanup may still yield: one more tick.
L.Ends = thicket.task(function()
  local guard <close> = thicket.defer(function()
    thicket.log("@" .. thicket.tick() .. " closing")
    coroutine.yield()
    thicket.log("@" .. thicket.tick() .. " closed")
  end)
  return thicket.SUCCESS
end)
function L.At(agent, args) return thicket.tick() == args.at end
return L
)LUA");
  for (const char* leaf : {"Yields", "Waits", "Breaks", "Fine"}) {
    CAPTURE(leaf);
    t.log.clear();
    auto b = t.load(std::string("tree: t\nleaves: [task.lua]\nroot:\n  active_selector:\n") +
                    "    - condition: {leaf: At, args: {at: 2}}\n    - action: " + leaf + "\n");
    auto a = t.rt.spawn(b);
    for (int i = 0; i < 3; ++i) t.rt.tick(a, 0.5);
    const std::string log = t.joined_log();
    INFO(log);
    const std::string name = leaf;
    const std::string closing = "error: while closing the cancelled task: ";  // then the file's path
    if (name == "Yields")
      CHECK(log.find("/task.lua:11: a thicket.defer cleanup of a cancelled or failed task cannot yield (coroutine.yield): it "
                     "runs to its end at once") != std::string::npos);
    if (name == "Waits")
      CHECK(log.find("/task.lua:14: thicket.wait in a thicket.defer cleanup of a cancelled or failed task: the cleanup runs to "
                     "its end at once, it cannot wait") != std::string::npos);
    if (name == "Breaks") CHECK(log.find("/task.lua:18: attempt to index a nil value") != std::string::npos);
    if (name == "Fine") {
      CHECK(t.marks() == Lines{"2 cleaned"});
      CHECK(log.find(closing) == std::string::npos);
    } else {
      CHECK(log.find(closing) != std::string::npos);
    }
  }
  CHECK(t.rt.script_errors() == 3);
  t.log.clear();
  auto e = t.rt.spawn(t.load("tree: e\nleaves: [task.lua]\nroot:\n  action: Ends\n"));
  CHECK(t.rt.tick(e, 0.5) == Status::Running);  // the cleanup yielded
  CHECK(t.rt.tick(e, 0.5) == Status::Success);
  CHECK(t.marks() == Lines{"1 closing", "2 closed"});
}

TEST_CASE("lua: thicket.wait refuses what would not wait: a coroutine inside the task, negative or NaN seconds") {
  // In a coroutine the leaf made, thicket.wait yielded that coroutine, not the task: it
  // returned at once and the task went on. wait(-1) and wait(0/0) returned at once too, where
  // the wait node's `wait: -1` and `wait: .nan` are load errors. A plain leaf's own coroutine
  // was taken for a task, and a comparison inside table.sort in a task said the task was none.
  LuaRt t;
  t.write("wait.lua", R"LUA(local thicket = require("thicket")
local L = {}
local function at(ok, message) return (tostring(message):gsub("^.*/wait%.lua", "wait.lua")) end
L.Inner = thicket.task(function()
  coroutine.wrap(function() thicket.wait(1.0) end)()
  return true
end)
L.Args = thicket.task(function()
  thicket.log("@" .. at(pcall(function() return thicket.wait(-1) end)))
  thicket.log("@" .. at(pcall(function() thicket.wait(0/0) end)))
  thicket.log("@" .. at(pcall(function() thicket.wait("2") end)))
  thicket.log("@" .. at(pcall(table.sort, {2, 1}, function(a, b) thicket.wait(1) return a < b end)))
  thicket.wait(math.huge)  -- for ever, as `wait: .inf`
  return true
end)
function L.Plain()
  coroutine.wrap(function() thicket.wait(1.0) end)()
  return true
end
return L
)LUA");
  auto inner = t.rt.spawn(t.load("tree: t\nleaves: [wait.lua]\nroot: {action: Inner}\n", "inner.yaml"));
  CHECK(t.rt.tick(inner, 0.5) == Status::Failure);
  CHECK(t.joined_log().find("/wait.lua:5: thicket.wait must be called from the task itself, not from a coroutine inside "
                            "it (there it would pause only that coroutine, and the task would go on at once)") !=
        std::string::npos);
  auto args = t.rt.spawn(t.load("tree: t\nleaves: [wait.lua]\nroot: {action: Args}\n", "args.yaml"));
  for (int i = 0; i < 3; ++i) CHECK(t.rt.tick(args, 0.5) == Status::Running);
  CHECK(t.marks() == Lines{"wait.lua:9: bad argument #1 to 'wait' (seconds must not be negative, got -1)",
                           "wait.lua:10: bad argument #1 to 'wait' (a number of seconds expected, got nan (not a number))",
                           "wait.lua:11: bad argument #1 to 'wait' (number of seconds expected, got string)",
                           "wait.lua:12: thicket.wait cannot wait here: it is called by a library function that cannot "
                           "pause (a table.sort comparison, a string.gsub replacement); wait in the task's own code"});
  auto plain = t.rt.spawn(t.load("tree: t\nleaves: [wait.lua]\nroot: {action: Plain}\n", "plain.yaml"));
  CHECK(t.rt.tick(plain, 0.5) == Status::Failure);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(log.find("/wait.lua:17: thicket.wait can only be called inside a thicket.task") != std::string::npos);
  CHECK(t.rt.script_errors() == 2);
}

// SPEC 3.1: "tick k (k = 1, 2, ...) of a run happens at sim time (k-1) * dt". With dt 0.1 the
// eleventh tick is at 10 * 0.1 == 1.0 exactly; a clock that sums dt gives 0.9999999999999999
// there, and a leaf testing `thicket.time() >= 1.0` misses its moment.
TEST_CASE("lua: thicket.time() is exactly (k-1)*dt for a constant dt") {
  LuaRt t;
  t.write("clock.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Clock(agent, args)
  local k = thicket.tick()
  if thicket.time() ~= (k - 1) * thicket.dt() then
    thicket.log(string.format("@tick %d: time %.17g, (k-1)*dt %.17g", k, thicket.time(), (k - 1) * thicket.dt()))
  end
  return thicket.RUNNING
end
return L
)LUA");
  auto b = t.load("tree: c\nleaves: [clock.lua]\nroot:\n  action: Clock\n");
  auto a = t.rt.spawn(b);
  for (int i = 0; i < 12; ++i) t.rt.tick(a, 0.1);
  CHECK(t.marks() == Lines{});
}

TEST_CASE("lua: an imported tree's leaf files resolve beside the imported file") {
  LuaRt t;
  t.write("lib/lib.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.FromLib(agent, args) thicket.log("@from lib " .. args.n) return true end
return L
)LUA");
  t.write("lib/lib.yaml", "tree: libtree\nleaves: [lib.lua]\nroot:\n  action: {leaf: FromLib, args: {n: 1}}\n");
  auto b = t.load(R"(
tree: main
import: [lib/lib.yaml]
root:
  sequence:
    - subtree: libtree
    - action: {leaf: FromLib, args: {n: 2}}
)");
  CHECK(t.rt.tick(t.rt.spawn(b), 0.5) == Status::Success);
  CHECK(t.marks() == Lines{"from lib 1", "from lib 2"});
}

TEST_CASE("lua: the spec's worked tree examples, run in-process with their Lua leaves, print exactly their .expected") {
  for (const char* name : {"seed000_guard", "seed001_nested_aborts"}) {
    INFO("example ", name);
    std::string dir = THICKET_SOURCE_DIR "/tests/spec_examples/";
    std::ifstream in(dir + name + ".expected");
    REQUIRE(in.good());
    std::string expected_out, expected_status, line;
    while (std::getline(in, line)) (line.rfind("status ", 0) == 0 ? expected_status : expected_out) += line + "\n";

    std::vector<std::string> log;
    thicket::Runtime rt(thicket::RuntimeOptions{.seed = 1, .log = [&](const std::string& l) { log.push_back(l); }});
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_file(dir + name + ".yaml", d);
    REQUIRE(b.has_value());
    auto a = rt.spawn(*b);
    std::string statuses;
    StdoutCapture out;
    for (int k = 1; k <= 12; ++k)
      statuses += "status " + std::to_string(k) + " " + std::string(thicket::status_name(rt.tick(a, 0.5))) + "\n";
    CHECK(out.finish() == expected_out);
    CHECK(statuses == expected_status);
    CHECK(rt.script_errors() == 0);
    CHECK(log.empty());
  }
}

TEST_CASE("lua: an error in a start hook fails the leaf for that tick; it stops with failure and the next tick starts afresh") {
  LuaRt t;
  t.write("start.lua", R"LUA(
local thicket = require("thicket")
local L = {}
L.BadStart = {
  start = function(agent, args, mem)
    thicket.log("@start " .. thicket.tick())
    if thicket.tick() == 1 then error("cannot start") end
  end,
  tick = function(agent, args, mem) thicket.log("@tick " .. thicket.tick()) return thicket.RUNNING end,
  stop = function(agent, args, mem, status) thicket.log("@stop " .. thicket.tick() .. " " .. status) end,
}
return L
)LUA");
  auto b = t.load("tree: s\nleaves: [start.lua]\nroot:\n  action: BadStart\n");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.tick(a, 0.5) == Status::Failure);
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("start.lua:7") != std::string::npos);
  auto m = t.marks();
  REQUIRE(!m.empty());
  CHECK(m.front() == "start 1");
  CHECK(m.back() == "stop 1 failure");
  CHECK(t.rt.tick(a, 0.5) == Status::Running);
  CHECK(t.marks() == Lines{"start 2", "tick 2"});
}

// SPEC 7: "`require` finds modules only beside the brain's leaf files". With two brains in one
// runtime, a module beside brain B's leaf files is not beside brain A's.
TEST_CASE("lua: require in one brain does not find modules beside another brain's leaf files") {
  LuaRt t;
  t.write("b/b.lua", "local L = {}\nfunction L.B() return true end\nreturn L\n");
  t.write("b/secret.lua", "return { v = 'leaked' }\n");
  t.write("a/a.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.ReqSecret(agent, args)
  local ok = pcall(require, "secret")
  thicket.log("@secret found=" .. tostring(ok))
  return true
end
return L
)LUA");
  t.load("tree: b\nleaves: [b.lua]\nroot:\n  action: B\n", "b/b.yaml");
  auto a = t.load("tree: a\nleaves: [a.lua]\nroot:\n  action: ReqSecret\n", "a/a.yaml");
  t.rt.tick(t.rt.spawn(a), 0.5);
  CHECK(t.marks() == Lines{"secret found=false"});
}

TEST_CASE("lua: a require inside a leaf finds its module once, not again on every call, until the brain loads again") {
  // A leaf requiring a module on every call searched the brain's leaf folders each time: with
  // the module beside the brain's second leaf file, a failed stat of the first folder a call
  // (2.9 us a require, 0.5 beside the first). Found once, it is the same module until the
  // brain is installed again: a file put in an earlier folder meanwhile is found then.
  LuaRt t;
  t.write("first/l.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Where(agent, args)
  thicket.log("@" .. require("place").where)
  return true
end
return L
)LUA");
  t.write("second/o.lua", "local L = {}\nfunction L.Other() return true end\nreturn L\n");
  t.write("second/place.lua", "return { where = 'second' }\n");
  const std::string brain = "tree: w\nleaves: [first/l.lua, second/o.lua]\nroot:\n  action: Where\n";
  auto a = t.rt.spawn(t.load(brain));
  t.rt.tick(a, 0.5);
  t.write("first/place.lua", "return { where = 'first' }\n");
  t.rt.tick(a, 0.5);
  CHECK(t.marks() == Lines{"second", "second"});
  auto b = t.rt.spawn(t.load(brain));
  t.rt.tick(b, 0.5);
  CHECK(t.marks() == Lines{"first"});
}

TEST_CASE("lua: a node's args table is built once and shared by all agents and ticks") {
  LuaRt t;
  t.write("share.lua", R"LUA(
local thicket = require("thicket")
local L = {}
local seen = {}
function L.Same(agent, args)
  seen[#seen + 1] = args
  thicket.log(string.format("@%d same=%s", agent.id, tostring(seen[1] == args)))
  return true
end
return L
)LUA");
  auto b = t.load("tree: s\nleaves: [share.lua]\nroot:\n  action: {leaf: Same, args: {x: 1}}\n");
  auto a1 = t.rt.spawn(b);
  auto a2 = t.rt.spawn(b);
  t.rt.tick(a1, 0.5);
  t.rt.tick(a2, 0.5);
  t.rt.tick(a1, 0.5);
  CHECK(t.marks() == Lines{"1 same=true", "2 same=true", "1 same=true"});
}

TEST_CASE("lua: a misspelt arg type is the one error; call sites are not checked against the broken declaration") {
  LuaRt t;
  t.write("l.lua", "return { Go = { args = {n = \"number\", s = \"strin\"}, tick = function() return true end } }\n");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [l.lua]\nroot: {action: {leaf: Go, args: {n: 1, s: x}}}\n", d).has_value());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("arg 's' of leaf 'Go' has an unknown type 'strin'; did you mean 'string'?") == 0);
}

TEST_CASE("lua: unknown leaves name a missing leaf file once, however often it is listed") {
  LuaRt t;
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [missing.lua, missing.lua]\nroot: {action: X}\n", d).has_value());
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  INFO(all);
  CHECK(all.find("(it may be in missing.lua, which failed to load: see the error there)") != std::string::npos);
}

// Lua leaves write numbers with a '.' under a game's German locale, as headless runs do.
namespace {
// The C library's own formatting under the calling thread's locale.
std::string c_printed(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", x);
  return text;
}
}  // namespace

TEST_CASE("Lua leaves write numbers with a '.' and sort texts by bytes whatever the game's C locale: load, tick, tick_all's jobs, despawn") {
  const thicket_test::CLocaleAtEnd c_at_end;
  REQUIRE_MESSAGE(thicket_test::comma_locale(), "no de_DE locale, and localedef could not make one (Debian's `locales` package)");
  REQUIRE(c_printed(1.5) == "1,5");  // the game's locale is in force
  thicket_test::LuaRuntime t;
  t.write("numbers.lua", R"LUA(
local thicket = require("thicket")
thicket.log("@load " .. tostring(0.5))
local names = {"b", "B", "Äpfel", "a", "apple"}
table.sort(names)  -- `<` between texts: strcoll, the C locale's byte order
thicket.log("@sorted " .. table.concat(names, " "))
local L = {}
function L.Say() thicket.log("@tick " .. tostring(1.5) .. " " .. string.format("%.2f", 2.25) .. " " .. 3.75) return thicket.FAILURE end
L.Hold = {
  tick = function() return thicket.RUNNING end,
  stop = function() thicket.log("@stop " .. tostring(4.5)) end,
}
return L
)LUA");
  const auto brain = t.load("tree: t\nleaves: [numbers.lua]\nroot: {active_selector: [{action: Say}, {action: Hold}]}\n");
  const auto agent = t.rt.spawn(brain);
  t.rt.tick(agent, 0.1);
  t.rt.tick_all(0.1);
  // A job on a thread of the game's own, which has the game's locale as well.
  t.rt.tick_all(0.1, [](size_t n, const std::function<void(size_t)>& job) {
    std::string on_thread;
    std::thread worker([&] {
      on_thread = c_printed(1.5);
      for (size_t k = 0; k < n; ++k) job(k);
    });
    worker.join();
    CHECK(on_thread == "1,5");
  });
  t.rt.despawn(agent);
  CHECK(t.marks() == thicket_test::LogLines{"load 0.5", "sorted B a apple b Äpfel", "tick 1.5 2.25 3.75", "tick 1.5 2.25 3.75",
                                             "tick 1.5 2.25 3.75", "stop 4.5"});
  CHECK(c_printed(1.5) == "1,5");  // each call gave the game its locale back

  // A restore into a changed brain that no longer runs `held` where it did: its stop hook runs.
  const std::string held = t.write("held.yaml", "tree: h\nleaves: [numbers.lua]\nroot: {sequence: [{action: {leaf: Hold, name: held}}]}\n").string();
  std::vector<thicket::Diagnostic> d;
  const auto hb = t.rt.load_file(held, d);
  REQUIRE(hb.has_value());
  const auto holder = t.rt.spawn(*hb);
  t.rt.tick(holder, 0.1);
  REQUIRE(t.rt.running_nodes(holder).size() > 1);
  thicket::SnapshotWriter saved;
  t.rt.save(saved);
  t.write("held.yaml", "tree: h\nleaves: [numbers.lua]\nroot: {sequence: [{sequence: [{action: {leaf: Hold, name: held}}]}]}\n");
  thicket_test::LuaRuntime u;
  REQUIRE(u.rt.load_file(held, d).has_value());
  u.marks();
  thicket::SnapshotReader in(saved.bytes());
  REQUIRE(u.rt.restore(in, d));
  CHECK(u.marks() == thicket_test::LogLines{"stop 4.5"});

  // A hot reload of the leaf file runs its chunk again.
  const std::string leaves = (std::filesystem::path(held).parent_path() / "numbers.lua").string();
  std::ifstream was(leaves);
  const std::string text((std::istreambuf_iterator<char>(was)), std::istreambuf_iterator<char>());
  t.write("numbers.lua", text + "-- edited\n");
  t.marks();
  REQUIRE(t.rt.reload_files({leaves}, nullptr) == 1);
  CHECK(t.marks() == thicket_test::LogLines{"load 0.5", "sorted B a apple b Äpfel"});
  CHECK(c_printed(1.5) == "1,5");
}

TEST_CASE("a leaf file that returns no table is told where its own return is, not a leaf's or a comment's") {
  thicket_test::LuaRuntime t;
  auto error_of = [&](const std::string& lua) {
    t.write("r.lua", lua);
    std::vector<thicket::Diagnostic> d;
    CHECK_FALSE(t.try_load("tree: t\nleaves: [r.lua]\nroot: {action: Patrol}\n", d).has_value());
    for (const auto& x : d)
      if (x.message.find("must return a table of leaves") != std::string::npos)
        return std::to_string(x.line) + ":" + std::to_string(x.column);
    return std::string("no such error");
  };
  // No return of its own: its last line that is not blank, where `return leaves` belongs (it
  // was the comment's "return" at 7:15, or the leaf's at 3:3).
  CHECK(error_of("local leaves = {}\nfunction leaves.Patrol()\n  return true\nend\nlocal function helper()\n  return 1\nend\n"
                 "-- forgot the return\n\n") == "8:1");
  CHECK(error_of("local leaves = {}\nfunction leaves.Patrol() return true end\n") == "2:1");
  // Its own, after functions, long strings and comments that hold the word or close brackets.
  CHECK(error_of("local leaves = {}\nlocal s = [==[\nreturn ]] end\n]==] --[[ return\n]]\n"
                 "leaves.Patrol = function() if s then return 'x' end repeat local y = 1 until true end\n"
                 "local q = \"return \\\" end\" -- return\nreturn nil\n") == "8:1");
  // A return inside a top-level block is the file's too; the last one counts.
  CHECK(error_of("local leaves = {}\nif leaves then\n  do return 7 end\nend\n") == "3:6");
}
