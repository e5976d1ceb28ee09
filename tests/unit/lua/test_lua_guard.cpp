// Runaway scripts (lua_guard): the watchdog stops a Lua call that runs past its time limit,
// wherever it loops (a plain leaf, a hook, a task, a pcall that swallows errors, a coroutine
// of the leaf's own, on_reload, a leaf file's top level); the instruction budget works on every
// tick; the Lua heap has a cap; Ctrl-C (interrupt_scripts) stops every call. Each stopped call
// is a script error of that leaf; the run goes on.
#include <doctest/doctest.h>

#include <csignal>
#include <ctime>
#include <lua.hpp>
#include <regex>

#include <string>
#include <thread>

#include "lua_fixture.hpp"
#include "runtime_impl.hpp"

using thicket::Status;
using thicket_test::LuaRuntime;

namespace {

const char* kRunaways = R"LUA(
local thicket = require("thicket")
local L = {}
function L.Spin(agent) local n = 0; while agent.bb.wood < 10 do n = n + 1 end end
function L.Swallow() while true do pcall(function() while true do end end) end end
function L.OwnCoroutine() coroutine.wrap(function() while true do end end)() end
function L.ResumeForever()
  local co = coroutine.create(function() while true do end end)
  while true do coroutine.resume(co) end
end
L.HookSpin = { tick = function() while true do end end }
L.TaskSpin = thicket.task(function()
  local guard <close> = thicket.defer(function() thicket.log("@cleanup " .. thicket.tick()) end)
  while true do end
end)
function L.Grow()
  local t = {}
  for i = 1, math.huge do t[i] = string.rep("x", 64) .. i end
end
function L.BigString() return #string.rep("x", 1 << 30) > 0 end
function L.Fine() thicket.log("@fine " .. thicket.tick()); return true end
-- A message handler that never returns: on an ordinary error, and on the stop itself.
function L.HandlerSpin() xpcall(function() error("x") end, function(m) while true do end end) end
function L.BothSpin() xpcall(function() while true do end end, function(m) while true do end end) end
-- Only C functions, each calling the next, no Lua instruction between: t[i] calls pcall(t, i),
-- which calls table.unpack(t, i), which reads t[i + 1]...; pcall swallows the C stack overflow at
-- the bottom and the walk goes on (20 times longer with each nil: 8 nils ran for hours).
function L.CChain()
  local t = setmetatable({nil, nil, nil, nil, nil, nil, nil, nil, 1}, {__index = pcall, __call = table.unpack})
  table.unpack(t)
end
return L
)LUA";

std::string brain_with(const std::string& leaf) {
  return "tree: t\nleaves: [run.lua]\nblackboard: {wood: 0}\nroot:\n  sequence:\n"
         "    - force_success: {action: " + leaf + "}\n    - action: Fine\n";
}

// An agent of brain_with(leaf), its leaves the runaways.
thicket::AgentHandle spawn_runaway(LuaRuntime& t, const std::string& leaf) {
  t.write("run.lua", kRunaways);
  return t.rt.spawn(t.load(brain_with(leaf)));
}

thicket::RuntimeOptions timed(double seconds) {
  thicket::RuntimeOptions o;
  o.leaf_timeout = seconds;
  o.instruction_budget = 0;  // only the watchdog
  return o;
}

// A call stopped by the instruction budget (100,000) alone, or by a time limit of 10 ms alone.
thicket::RuntimeOptions budget_or_timed(bool budget) {
  thicket::RuntimeOptions o = timed(0.01);
  if (budget) {
    o.leaf_timeout = 0;
    o.instruction_budget = 100000;
  }
  return o;
}

// An agent whose brain is the one action `leaf` of the leaf file `file` (a brain file per leaf).
thicket::AgentHandle spawn_leaf(LuaRuntime& t, const std::string& file, const std::string& leaf) {
  return t.rt.spawn(t.load("tree: t\nleaves: [" + file + "]\nroot: {action: " + leaf + "}\n", leaf + ".yaml"));
}

}  // namespace

TEST_CASE("guard: a leaf that never returns is stopped at its time limit with leaf, node, agent and file:line") {
  // (HandlerSpin, BothSpin: an xpcall message handler runs where the error was raised; a stop
  // raised by the watchdog's hook ran it with hooks off, so a looping handler held the host.
  // CChain: no Lua instruction runs for a count hook to fire at; the stop's hook fires on calls.)
  for (const char* leaf : {"Spin", "Swallow", "OwnCoroutine", "ResumeForever", "HookSpin", "TaskSpin", "HandlerSpin", "BothSpin",
                           "CChain"}) {
    CAPTURE(leaf);
    LuaRuntime t(timed(0.02));
    t.write("run.lua", kRunaways);
    auto b = t.load(brain_with(leaf));
    auto a = t.rt.spawn(b);
    t.rt.tick(a, 0.1);
    t.rt.tick(a, 0.1);  // and again on the next tick: nothing is left broken by the first stop
    CHECK(t.rt.script_errors() == 2);
    const std::string log = t.joined_log();
    CHECK(log.find("run.lua:") != std::string::npos);
    CHECK(log.find("stopped after running for more than 20 ms without returning or yielding") != std::string::npos);
    CHECK(log.find("in leaf '" + std::string(leaf) + "' at node root/0/0, agent 1, tick 1") != std::string::npos);
    CHECK(log.find("in leaf '" + std::string(leaf) + "' at node root/0/0, agent 1, tick 2") != std::string::npos);
    // The rest of the tree ran: the run goes on after the stop.
    CHECK(log.find("@fine 1") != std::string::npos);
    CHECK(log.find("@fine 2") != std::string::npos);
  }
}

// A leaf whose thread is charged CPU time while it waits in C (here: a log line whose sink
// burns 60 ms; on a busy machine, interrupts and page faults charged to the thread) passes its
// time limit without running any Lua: the watchdog marks it, and the call returns within its
// grace of a few thousand instructions, so it is not stopped. One that goes on running Lua
// after the stall is stopped all the same.
// The watchdog's signal must reach the thread running Lua. A job system's workers are often
// made with every signal blocked (they inherit the mask of the thread that made them): a leaf
// that looped there held the tick for ever.
TEST_CASE("guard: a leaf looping on a thread that blocks every signal is stopped") {
  LuaRuntime t(timed(0.02));
  auto a = spawn_runaway(t, "Spin");
  bool unblocked = false;
  std::thread worker([&] {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    t.rt.tick(a, 0.1);  // its first Lua call readies the thread: SIGURG unblocked
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, nullptr, &now);
    unblocked = sigismember(&now, SIGURG) == 0 && sigismember(&now, SIGINT) == 1;  // that one only
  });
  worker.join();
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("stopped after running for more than 20 ms") != std::string::npos);
  CHECK(unblocked);
}

// A thread that blocks the signal after its first Lua call: the watchdog, unanswered for about
// a second, hooks the call from its own thread (its last resort).
TEST_CASE("guard: a leaf looping on a thread that blocked the signal after its first call is stopped all the same") {
  LuaRuntime t(timed(0.02));
  t.write("run.lua", kRunaways);
  auto fine = t.rt.spawn(t.load("tree: f\nleaves: [run.lua]\nroot: {action: Fine}\n", "fine.yaml"));
  auto a = t.rt.spawn(t.load(brain_with("Spin")));
  std::thread worker([&] {
    t.rt.tick(fine, 0.1);  // readies the thread
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    t.rt.tick(a, 0.1);
  });
  worker.join();
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("stopped after running for more than 20 ms") != std::string::npos);
}

namespace {
std::atomic<int> g_host_sigurgs{0};
void host_sigurg(int) { g_host_sigurgs.fetch_add(1); }
}  // namespace

// A host that puts its own SIGURG handler in after thicket's: a looping leaf held the tick for
// ever. The watchdog, unanswered, puts its handler back in front; the host's still gets every
// SIGURG that is not the watchdog's (and none of the watchdog's).
TEST_CASE("guard: a host's SIGURG handler installed after thicket's: the loop is stopped, the host's handler kept") {
  LuaRuntime t(timed(0.02));
  auto a = spawn_runaway(t, "Spin");
  struct sigaction host {};
  host.sa_handler = host_sigurg;
  sigemptyset(&host.sa_mask);
  struct sigaction before {};
  sigaction(SIGURG, &host, &before);
  t.rt.tick(a, 0.1);
  CHECK(t.rt.script_errors() == 1);
  struct sigaction now {};
  sigaction(SIGURG, nullptr, &now);
  CHECK((now.sa_flags & SA_SIGINFO) != 0);  // thicket's, in front again
  g_host_sigurgs = 0;
  t.rt.tick(a, 0.1);  // stopped again: the watchdog's signals are not the host's
  CHECK(t.rt.script_errors() == 2);
  CHECK(g_host_sigurgs.load() == 0);
  raise(SIGURG);  // one of the host's own
  CHECK(g_host_sigurgs.load() == 1);
}

TEST_CASE("guard: a leaf charged time outside Lua that then returns is not stopped; one that loops on is") {
  thicket_test::ScratchDir dir;
  std::vector<std::string> log;
  thicket::RuntimeOptions o = timed(0.01);
  o.log = [&log](const std::string& line) {
    log.push_back(line);
    if (line.find("@stall") == std::string::npos) return;
    timespec start{}, now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    while ((now.tv_sec - start.tv_sec) * 1e3 + (now.tv_nsec - start.tv_nsec) / 1e6 < 60);
  };
  thicket::Runtime rt(o);
  dir.write("stall.lua", R"LUA(
local thicket = require("thicket")
local L = {}
function L.Stall() thicket.log("@stall"); local n = 0; for i = 1, 100 do n = n + i end; return n == 5050 end
function L.StallSpin() thicket.log("@stall"); while true do end end
-- A library loop that looks at the watchdog once (string.rep polls every ~16,000 one-byte copies).
function L.StallRep() thicket.log("@stall"); return #string.rep("x", 20000) == 20000 end
return L
)LUA");
  auto brain = [&](const char* leaf) {
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string("tree: t\nleaves: [stall.lua]\nroot: {action: " + std::string(leaf) + "}\n",
                            (dir.path() / (std::string(leaf) + ".yaml")).string(), d);
    REQUIRE(b.has_value());
    return *b;
  };
  auto quiet = rt.spawn(brain("Stall"));
  CHECK(rt.tick(quiet, 0.1) == Status::Success);
  CHECK(rt.script_errors() == 0);
  // A library loop's look at the watchdog right after the stall has the same grace (one look).
  auto repeating = rt.spawn(brain("StallRep"));
  CHECK(rt.tick(repeating, 0.1) == Status::Success);
  CHECK(rt.script_errors() == 0);
  auto looping = rt.spawn(brain("StallSpin"));
  CHECK(rt.tick(looping, 0.1) == Status::Failure);
  CHECK(rt.script_errors() == 1);
  std::string all;
  for (const auto& l : log) all += l + "\n";
  CHECK(all.find("stall.lua:5: stopped after running for more than 10 ms") != std::string::npos);
}

TEST_CASE("guard: a stopped task still runs its to-be-closed cleanup") {
  LuaRuntime t(timed(0.02));
  t.write("run.lua", kRunaways);
  auto a = t.rt.spawn(t.load(brain_with("TaskSpin")));
  t.rt.tick(a, 0.1);
  CHECK(t.marks() == thicket_test::LogLines{"cleanup 1", "fine 1"});
}

TEST_CASE("guard: the instruction budget stops a spinning task on every tick and for every agent") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;  // only the budget
  o.instruction_budget = 100000;
  LuaRuntime t(o);
  t.write("run.lua", kRunaways);
  auto b = t.load(brain_with("TaskSpin"));
  auto a1 = t.rt.spawn(b), a2 = t.rt.spawn(b);
  for (int tick = 0; tick < 3; ++tick) {
    t.rt.tick(a1, 0.1);
    t.rt.tick(a2, 0.1);
  }
  CHECK(t.rt.script_errors() == 6);
  CHECK(t.joined_log().find("ran past its instruction budget (100000 instructions)") != std::string::npos);
}

TEST_CASE("guard: a pcall cannot catch the budget's stop, around a C call or a coroutine's resume") {
  // Raised as an error inside a table.sort comparison, the budget's stop was caught by the
  // pcall around the sort and the loop went on, a slice at a time, for ever (with the time
  // limit off); out of a coroutine of the task's own, pcall(coroutine.resume, co) caught it
  // and the task returned success.
  LuaRuntime t(budget_or_timed(true));
  t.write("catch.lua", R"LUA(
local thicket = require("thicket")
local function loops() while true do end end
return {
  Sorts = thicket.task(function()
    while true do pcall(table.sort, {3, 2, 1}, loops) end
  end),
  Resumes = thicket.task(function()
    local co = coroutine.create(loops)
    pcall(coroutine.resume, co)
    pcall(coroutine.resume, co)
    return true
  end),
}
)LUA");
  for (const char* leaf : {"Sorts", "Resumes"}) {
    CAPTURE(leaf);
    auto a = spawn_leaf(t, "catch.lua", leaf);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  }
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(t.rt.script_errors() == 4);
  CHECK(log.find("catch.lua:3: the leaf ran past its instruction budget") != std::string::npos);
}

TEST_CASE("guard: a budget under 8,000 instructions counts as 8,000, and the message says so") {
  // The hook fires once an eighth of the budget, an eighth being at least 1,000 instructions:
  // a budget of 10 let ~8,000 run and said "(10 instructions)".
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.instruction_budget = 10;
  LuaRuntime t(o);
  t.write("run.lua", kRunaways);
  auto a = t.rt.spawn(t.load(brain_with("TaskSpin")));
  t.rt.tick(a, 0.1);
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("ran past its instruction budget (8000 instructions)") != std::string::npos);
}

TEST_CASE("guard: the budget's error names the line, and a file's own code while it loads") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;  // only the budget
  o.instruction_budget = 100000;
  LuaRuntime t(o);
  t.write("load.lua", "local t = {}\nfor i = 1, 10000000 do t[i % 10] = i end\nreturn {}\n");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [load.lua]\nroot: {action: X}\n", d).has_value());
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  CHECK_MESSAGE(all.find("load.lua:2: error: the file, while it loads, ran past its instruction budget (100000 "
                         "instructions) without returning (an endless loop, or more work than a load should do?)") != std::string::npos, all);
  CHECK_MESSAGE(all.find("coroutine.yield") == std::string::npos, all);  // a task's advice: not for a file's top level
  t.write("run.lua", kRunaways);
  auto a = t.rt.spawn(t.load(brain_with("TaskSpin")));
  t.rt.tick(a, 0.1);
  CHECK_MESSAGE(std::regex_search(t.joined_log(), std::regex("run\\.lua:[0-9]+: the leaf ran past its instruction budget")), t.joined_log());
}

TEST_CASE("guard: two different spinning tasks in a row are both stopped by the budget") {
  LuaRuntime t(budget_or_timed(true));
  t.write("run.lua", std::string(kRunaways) + "\n");
  t.write("two.lua", R"LUA(
local thicket = require("thicket")
return { A = thicket.task(function() while true do end end), B = thicket.task(function() while true do end end) }
)LUA");
  auto b = t.load("tree: t\nleaves: [two.lua]\nroot:\n  sequence:\n    - force_success: {action: A}\n"
                  "    - force_success: {action: B}\n");
  auto a = t.rt.spawn(b);
  t.rt.tick(a, 0.1);
  t.rt.tick(a, 0.1);
  CHECK(t.rt.script_errors() == 4);
}

TEST_CASE("guard: a task that failed, by its own error or stopped by the budget, hands its coroutine on") {
  // A coroutine whose run ended in a script error is reset and reused (a new one per failing
  // run cost ~40% of the run); the budget still stops the next run on it (or this test would
  // never end). One whose run the budget's hook stopped by a yield is closed while suspended,
  // its hooks whole, and is reused too.
  LuaRuntime t(budget_or_timed(true));
  t.write("flaky.lua", R"LUA(
local thicket = require("thicket")
local runs = 0
return { Flaky = thicket.task(function()
  runs = runs + 1
  thicket.log("@run " .. runs .. " " .. tostring(coroutine.running()))
  if runs % 2 == 1 then error("broken") end
  while true do end
end) }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [flaky.lua]\nroot: {action: Flaky}\n"));
  for (int i = 0; i < 4; ++i) t.rt.tick(a, 0.1);  // broken, spins, broken, spins
  CHECK(t.rt.script_errors() == 4);
  const std::string log = t.joined_log();
  CHECK_MESSAGE(log.find("ran past its instruction budget") != std::string::npos, log);
  const thicket_test::LogLines marks = t.marks();
  REQUIRE(marks.size() == 4);
  auto thread = [&](size_t i) { return marks[i].substr(marks[i].find("thread")); };
  CHECK(thread(1) == thread(0));  // failed by its error: the same coroutine again
  CHECK(thread(2) == thread(1));  // stopped by the budget: the same one again
  CHECK(thread(3) == thread(2));
}

TEST_CASE("guard: a task thread closed while suspended is reused, its error reported once; not one inside an xpcall") {
  // Before Lua 5.4.7 a thread reset while suspended inside a pcall keeps that pcall's message
  // handler: an error raised outside any pcall on its next run called whatever lay in the
  // handler's stack slot. The base pcall's slot holds its own handler again on the next run,
  // which reported the error a second time ("while closing the failed task: ... boom").
  LuaRuntime t(timed(0.05));
  t.write("cut.lua", R"LUA(
local thicket = require("thicket")
local runs = 0
local function wait_here() coroutine.yield() end
return { Cut = thicket.task(function()
  runs = runs + 1
  thicket.log("@run " .. runs .. " " .. tostring(coroutine.running()))
  if runs == 1 then while true do coroutine.yield() end end
  if runs == 3 then xpcall(function() while true do coroutine.yield() end end, function(m) return m end) end
  error("boom")
end) }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [cut.lua]\nroot:\n  timeout:\n    seconds: 0.15\n    child: {action: Cut}\n"));
  // Run 1 yields until the timeout cancels it; run 2 fails; run 3 yields inside an xpcall until
  // cancelled; run 4 fails.
  for (int i = 0; i < 8; ++i) t.rt.tick(a, 0.1);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(t.rt.script_errors() == 2);
  CHECK(log.find("while closing") == std::string::npos);
  const thicket_test::LogLines marks = t.marks();
  REQUIRE(marks.size() == 4);
  auto thread = [&](size_t i) { return marks[i].substr(marks[i].find("thread")); };
  CHECK(thread(1) == thread(0));  // cancelled while suspended: reused
  CHECK(thread(2) == thread(1));  // failed: reused
  if (LUA_VERSION_RELEASE_NUM < 50407) CHECK(thread(3) != thread(2));  // cancelled inside an xpcall: a new one
}

TEST_CASE("guard: a failed task's cleanups run at once as its error unwinds it, and cannot wait or yield") {
  // Its cleanups now run under the base pcall, where a coroutine may yield: a thicket.defer
  // cleanup that waited, or a __close that yielded, left the failed task running for ticks.
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  LuaRuntime t(o);
  t.write("fail.lua", R"LUA(
local thicket = require("thicket")
return {
  Waits = thicket.task(function()
    local c <close> = thicket.defer(function() thicket.log("@defer"); thicket.wait(0.2); thicket.log("@never") end)
    error("boom")
  end),
  Yields = thicket.task(function()
    local c <close> = setmetatable({}, {__close = function() thicket.log("@close"); coroutine.yield(); thicket.log("@never") end})
    error("boom")
  end),
  RawWaits = thicket.task(function()
    local c <close> = setmetatable({}, {__close = function() thicket.log("@raw"); thicket.wait(1); thicket.log("@never") end})
    error("boom")
  end),
  -- A coroutine of a leaf's own: the yield left it suspended, and resume answered true and the
  -- yielded value, the body's error lost.
  Own = function()
    local co = coroutine.create(function()
      local c <close> = setmetatable({}, {__close = function() coroutine.yield("from close") end})
      error("body error")
    end)
    local ok, err = coroutine.resume(co)
    thicket.log("@" .. tostring(ok) .. " " .. coroutine.status(co) .. " " .. tostring(tostring(err):match("a cleanup cannot yield")))
    return true
  end,
}
)LUA");
  for (const char* leaf : {"Waits", "Yields", "RawWaits"}) {
    auto a = spawn_leaf(t, "fail.lua", leaf);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  }
  auto own = t.rt.spawn(t.load("tree: own\nleaves: [fail.lua]\nroot: {action: Own}\n", "own.yaml"));
  CHECK(t.rt.tick(own, 0.1) == Status::Success);
  const std::string log = t.joined_log();
  INFO(log);
  CHECK(t.marks() == thicket_test::LogLines{"defer", "defer", "close", "close", "raw", "raw", "false dead a cleanup cannot yield"});
  CHECK(log.find("fail.lua:5: thicket.wait in a thicket.defer cleanup of a cancelled or failed task") != std::string::npos);
  CHECK(log.find("fail.lua:9: a cleanup cannot yield while its coroutine's error unwinds it") != std::string::npos);
  CHECK(log.find("fail.lua:13: thicket.wait in a cleanup of a failed task") != std::string::npos);
  CHECK(t.rt.script_errors() == 12);  // each run's error, and each cleanup's
}

TEST_CASE("guard: the cleanup of a task the budget or the time limit stopped is stopped too if it loops") {
  // The hook stops a task by a yield (an error raised by a hook left the coroutine's hooks off
  // for good): its looping cleanup, run as the task is closed, held the host for ever.
  const char* kLeaves = R"LUA(
local thicket = require("thicket")
return { Spin = thicket.task(function()
  local c <close> = thicket.defer(function() thicket.log("@cleanup"); while true do end end)
  while true do end
end) }
)LUA";
  for (bool budget : {true, false}) {
    CAPTURE(budget);
    LuaRuntime t(budget_or_timed(budget));
    t.write("spin.lua", kLeaves);
    auto a = spawn_leaf(t, "spin.lua", "Spin");
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    const std::string log = t.joined_log();
    CHECK(t.marks() == thicket_test::LogLines{"cleanup", "cleanup"});
    CHECK(t.rt.script_errors() == 4);  // each run, and each cleanup
    CHECK_MESSAGE(log.find("spin.lua:4: ") != std::string::npos, log);
    CHECK_MESSAGE(log.find("while closing the failed task: ") != std::string::npos, log);
    // The traceback names the line the task was stopped at, as the message does.
    CHECK_MESSAGE(log.find("spin.lua:5: in function <") != std::string::npos, log);
  }
}

TEST_CASE("guard: a coroutine a leaf made, stopped at its limit, is closed later under the limit") {
  // Stopped inside the coroutine, the stop goes on into the leaf; closing the coroutine on a
  // later tick runs its looping __close, which the watchdog stops (it held the host for ever).
  LuaRuntime t(timed(0.01));
  t.write("co.lua", R"LUA(
local thicket = require("thicket")
local co
return { Evil = function()
  if not co then
    co = coroutine.create(function()
      local c <close> = setmetatable({}, {__close = function() thicket.log("@close"); while true do end end})
      while true do end
    end)
    coroutine.resume(co)
  else
    thicket.log("@" .. coroutine.status(co))
    coroutine.close(co)
  end
  return true
end }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [co.lua]\nroot: {action: Evil}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  const std::string log = t.joined_log();
  CHECK(t.marks() == thicket_test::LogLines{"suspended", "close", "dead"});
  CHECK_MESSAGE(log.find("co.lua:8: stopped after running") != std::string::npos, log);
  CHECK_MESSAGE(log.find("co.lua:7: stopped after running") != std::string::npos, log);
}

TEST_CASE("guard: a task stopped inside a C call runs its cleanup under a grace, and a looping one is stopped") {
  // Inside a table.sort comparison a coroutine cannot yield, so the hook raises the stop as an
  // error; Lua then left the coroutine's hooks off for good, and the task's cleanup, run as
  // the task was closed, looped with no limit: the host hung (budget and time limit alike).
  const char* kLeaves = R"LUA(
local thicket = require("thicket")
return { Sort = thicket.task(function()
  local c <close> = thicket.defer(function() thicket.log("@cleanup " .. thicket.tick()); while true do end end)
  table.sort({3, 2, 1}, function(a, b) while true do end end)
end) }
)LUA";
  for (bool budget : {true, false}) {
    CAPTURE(budget);
    LuaRuntime t(budget_or_timed(budget));
    t.write("sort.lua", kLeaves);
    auto a = spawn_leaf(t, "sort.lua", "Sort");
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    CHECK(t.rt.tick(a, 0.1) == Status::Failure);
    const std::string log = t.joined_log();
    INFO(log);
    CHECK(t.marks() == thicket_test::LogLines{"cleanup 1", "cleanup 2"});
    CHECK(t.rt.script_errors() == 4);  // each run, and each cleanup
    CHECK(log.find("sort.lua:5: ") != std::string::npos);
    CHECK(log.find("while closing the failed task: ") != std::string::npos);
  }
}

TEST_CASE("guard: a leaf's coroutine stopped inside a C call is closed under the limit; C-only chains in one are stopped") {
  // Stopped inside a table.sort comparison, the coroutine ended with its hooks off, and closing
  // it on a later tick ran its looping __close with no limit. A chain of C calls inside a
  // leaf's coroutine ran on: the call hook may not yield there, and it waited for a Lua
  // instruction that never came.
  LuaRuntime t(timed(0.01));
  t.write("co.lua", R"LUA(
local thicket = require("thicket")
local co
local L = {}
function L.Evil()
  if not co then
    co = coroutine.create(function()
      local c <close> = setmetatable({}, {__close = function() thicket.log("@close"); while true do end end})
      table.sort({3, 2, 1}, function(a, b) while true do end end)
    end)
    coroutine.resume(co)
  else
    thicket.log("@" .. coroutine.status(co))
    thicket.log("@" .. tostring(coroutine.close(co)))
  end
  return true
end
function L.Chain()
  coroutine.wrap(function()
    local t = setmetatable({nil, nil, nil, nil, nil, nil, nil, nil, 1}, {__index = pcall, __call = table.unpack})
    table.unpack(t)
  end)()
  return true
end
return L
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [co.lua]\nroot: {action: Evil}\n"));
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);
  CHECK(t.rt.tick(a, 0.1) == Status::Success);
  auto b = t.rt.spawn(t.load("tree: c\nleaves: [co.lua]\nroot: {action: Chain}\n", "chain.yaml"));
  CHECK(t.rt.tick(b, 0.1) == Status::Failure);
  const std::string log = t.joined_log();
  INFO(log);
  // The cleanup ran as the stop unwound the coroutine, and was stopped in its turn: by a
  // yield, which leaves the coroutine suspended, with nothing more to close.
  CHECK(t.marks() == thicket_test::LogLines{"close", "suspended", "true"});
  CHECK(log.find("co.lua:8: stopped after running") != std::string::npos);
  CHECK(log.find("in leaf 'Chain'") != std::string::npos);
  CHECK(t.rt.script_errors() == 2);
}

TEST_CASE("guard: an endless loop in on_reload or at a leaf file's top level is stopped") {
  LuaRuntime t(timed(0.01));
  // Loading may take 20 limits (0.2 s here), then the file is a load error.
  t.write("top.lua", "while true do end\nreturn {}\n");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [top.lua]\nroot: {action: X}\n", d).has_value());
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  INFO(all);
  CHECK(all.find("top.lua:1: error: stopped: the file's top level ran for more than 200 ms at load without ending (an "
                 "endless loop, or more work than a load should do? a load may take 20 times --leaf-timeout)") !=
        std::string::npos);

  auto leaf = t.write("hot.lua", "return { Go = function() return true end, on_reload = function() end }\n");
  std::vector<thicket::Diagnostic> diags;
  auto brain = t.rt.load_file(t.write("hot.yaml", "tree: t\nleaves: [hot.lua]\nroot: {action: Go}\n").string(), diags);
  REQUIRE(brain.has_value());
  auto a = t.rt.spawn(*brain);
  t.rt.tick(a, 0.1);
  t.write("hot.lua", "return { Go = function() return true end,\n  on_reload = function() while true do end end }\n");
  std::filesystem::last_write_time(leaf, std::filesystem::last_write_time(leaf) + std::chrono::seconds(2));
  t.rt.reload_changed();
  INFO(t.joined_log());
  CHECK(t.joined_log().find("hot.lua:2: stopped after running for more than 10 ms") != std::string::npos);
  CHECK(t.rt.tick(a, 0.1) == Status::Success);  // the new leaves are in, the run goes on
}

TEST_CASE("guard: a leaf that allocates without bound fails at the heap cap; the run goes on") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.lua_memory_limit = size_t(16) << 20;
  for (const char* leaf : {"Grow", "BigString"}) {
    CAPTURE(leaf);
    LuaRuntime t(o);
    auto a = spawn_runaway(t, leaf);
    t.rt.tick(a, 0.1);
    t.rt.tick(a, 0.1);
    CHECK(t.rt.script_errors() == 2);
    INFO(t.joined_log());
    // Where: Lua's "not enough memory" has no position (the line of string.rep's caller for
    // BigString).
    const std::string at = std::string(leaf) == "Grow" ? "/run.lua:18: " : "/run.lua:20: ";
    CHECK(t.joined_log().find(at + "the Lua heap reached its cap of 16 MiB") != std::string::npos);
    CHECK(t.joined_log().find("@fine 2") != std::string::npos);
  }
  // A cap under 1 MiB is said as such (it read "0 MiB").
  o.lua_memory_limit = size_t(768) << 10;
  LuaRuntime small(o);
  small.rt.tick(spawn_runaway(small, "Grow"), 0.1);
  INFO(small.joined_log());
  CHECK(small.joined_log().find("the Lua heap reached its cap of 768 KiB (") != std::string::npos);
}

TEST_CASE("guard: interrupt_scripts stops every Lua call until resume_scripts") {
  LuaRuntime t(timed(0));  // no time limit: only the interrupt can stop Spin
  t.write("run.lua", kRunaways);
  auto a = t.rt.spawn(t.load(brain_with("Spin")));
  thicket::interrupt_scripts();
  t.rt.tick(a, 0.1);
  thicket::resume_scripts();
  CHECK(t.joined_log().find("stopped: the run was interrupted (Ctrl-C)") != std::string::npos);
  // Spin and, while interrupted, Fine too were stopped: said, but no errors of the scripts'
  // (issue 31: an interrupted clean run exits 0).
  CHECK(t.rt.script_errors() == 0);
  t.log.clear();
  CHECK(t.rt.set(a, "wood", thicket::Value(int64_t{10})));  // Spin returns at once now
  CHECK(t.rt.tick(a, 0.1) == Status::Success);  // nothing stays interrupted
  CHECK(t.marks() == thicket_test::LogLines{"fine 2"});
}

// A 16 MiB heap, and neither time nor instruction limit: a task meets the cap, nothing else.
static thicket::RuntimeOptions heap_capped_tasks() {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.instruction_budget = 0;
  o.lua_memory_limit = size_t(16) << 20;
  return o;
}

TEST_CASE("guard: a task that allocates without bound fails at the heap cap with the cap's message") {
  LuaRuntime t(heap_capped_tasks());
  t.write("run.lua", std::string(kRunaways) + "\n");
  t.write("task.lua", R"LUA(
local thicket = require("thicket")
return { TaskGrow = thicket.task(function()
  local t = {}
  for i = 1, math.huge do t[i] = string.rep("x", 64) .. i end
end) }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [task.lua]\nroot: {action: TaskGrow}\n"));
  t.rt.tick(a, 0.1);
  INFO(t.joined_log());
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("task.lua:5: the Lua heap reached its cap of 16 MiB") != std::string::npos);
}

TEST_CASE("guard: with several brains, the heap cap's message says the heap is shared by all their leaves") {
  // Mod A hoards in a global, swallowing the cap's error with pcall; mod B's ordinary leaf then
  // meets the cap and was blamed alone ("a leaf that keeps growing a table?"): one heap holds
  // the leaves of every brain, which the message now says. With one brain it says what it did.
  LuaRuntime t(heap_capped_tasks());
  t.write("hoard.lua", R"LUA(
local leaves, hoard = {}, {}
function leaves.Hoard(agent)
  pcall(function() for i = 1, math.huge do hoard[#hoard + 1] = string.rep("h", 64) .. i end end)
  return true
end
return leaves
)LUA");
  t.write("plain.lua", R"LUA(
local leaves = {}
function leaves.Work(agent)
  local t = {}
  t[1] = string.rep("w", 4 << 20)
  return true
end
return leaves
)LUA");
  auto a = t.load("tree: a\nleaves: [hoard.lua]\nroot: {action: Hoard}\n");
  auto b = t.load("tree: b\nleaves: [plain.lua]\nroot: {action: Work}\n");
  t.rt.spawn(a);
  t.rt.spawn(b);
  t.rt.tick_all(0.1);
  INFO(t.joined_log());
  CHECK(t.rt.script_errors() >= 1);
  CHECK(t.joined_log().find("plain.lua:5: the Lua heap reached its cap of 16 MiB (the heap is shared by the leaves of all "
                            "2 brains: a leaf that keeps growing a table or a string, here or in another brain?)") !=
        std::string::npos);
}

TEST_CASE("guard: the cleanups of a task stopped at the heap cap run to their end, allocating") {
  // What the task grew is still held by the stack its error unwinds, so the heap is at its cap
  // while its to-be-closed variables run: they get a grace past it. (A cleanup failed at its
  // first allocation, silently: Lua's one "not enough memory" was taken for the run's error.)
  LuaRuntime t(heap_capped_tasks());
  t.write("task.lua", R"LUA(
local thicket = require("thicket")
return { TaskGrow = thicket.task(function(agent)
  local t = {}
  local done <close> = thicket.defer(function()
    agent.bb.cleaned = 1
    local s = string.rep("y", 1000) .. "z"
    agent.bb.cleaned = #s
  end)
  for i = 1, math.huge do t[i] = string.rep("x", 64) .. i end
end) }
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [task.lua]\nblackboard: {cleaned: 0}\nroot: {action: TaskGrow}\n"));
  t.rt.tick(a, 0.1);
  INFO(t.joined_log());
  CHECK(t.rt.script_errors() == 1);
  CHECK(t.joined_log().find("the Lua heap reached its cap of 16 MiB") != std::string::npos);
  const auto cleaned = t.rt.get(a, "cleaned");
  REQUIRE(cleaned);
  CHECK(std::get<double>(*cleaned) == 1001);
}

TEST_CASE("guard: a leaf file that allocates without bound as it loads fails with the cap's message") {
  // Lua's own message was a bare "not enough memory", with no word of the cap.
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.lua_memory_limit = size_t(16) << 20;
  LuaRuntime t(o);
  t.write("hoard.lua", R"LUA(local L = {}
function L.A() return true end
local t = {}
for i = 1, 1e8 do t[i] = string.rep("z", 50) .. i end
return L
)LUA");
  std::vector<thicket::Diagnostic> d;
  CHECK_FALSE(t.try_load("tree: t\nleaves: [hoard.lua]\nroot: {action: A}\n", d));
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  INFO(all);
  CHECK(all.find("hoard.lua:4: error: the Lua heap reached its cap of 16 MiB while the file ran") != std::string::npos);
  CHECK(all.find("(--lua-memory sets the cap; lua_memory_limit when embedded)") != std::string::npos);
}

TEST_CASE("guard: new texts past the cap are refused to the blackboard, thicket.spawn and thicket.send") {
  // The run keeps every distinct text scripts write (out of the Lua heap): without the cap a
  // leaf writing a new 1 MiB text each tick takes 1 MiB more of the host's memory each tick.
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.lua_memory_limit = size_t(8) << 20;
  const char* leaves = R"(local thicket = require("thicket")
local big = string.rep("x", 1 << 20)
local leaves = {}
function leaves.Write(agent) agent.bb.note = big .. thicket.tick(); return true end
function leaves.Again(agent) agent.bb.note = big .. "1"; thicket.log("@again ok"); return true end
function leaves.Spawn(agent) thicket.spawn("texts", {note = big .. "spawn"}); return true end
function leaves.Send(agent) thicket.send(agent.id, big .. "send"); return true end
return leaves
)";
  for (const char* leaf : {"Write", "Spawn", "Send"}) {
    CAPTURE(leaf);
    LuaRuntime t(o);
    t.write("texts.lua", leaves);
    auto b = t.load(std::string("tree: texts\nleaves: [texts.lua]\nblackboard: {note: \"\"}\nroot: {action: ") + leaf + "}\n");
    auto writer = t.load("tree: writer\nleaves: [texts.lua]\nblackboard: {note: \"\"}\nroot: {action: Write}\n", "writer.yaml");
    auto w = t.rt.spawn(writer);
    for (int k = 0; k < 12; ++k) t.rt.tick(w, 0.1);  // 8 new texts fit; the next ones are refused
    const size_t held = t.rt.impl().strings.bytes();
    CHECK(held <= (size_t(8) << 20));
    CHECK(t.rt.script_errors() >= 3);
    INFO(t.joined_log());
    CHECK(t.joined_log().find("texts.lua:4: blackboard: a new text of 1048578 bytes") != std::string::npos);
    const uint64_t errors = t.rt.script_errors();
    auto a = t.rt.spawn(b);
    t.rt.tick(a, 0.1);
    if (std::string(leaf) != "Write") {
      CHECK(t.rt.script_errors() == errors + 1);  // refused, with its own name
      CHECK(t.joined_log().find(std::string("thicket.") + (std::string(leaf) == "Spawn" ? "spawn" : "send") +
                                ": a new text of") != std::string::npos);
      CHECK(t.rt.agent_count() == 2);
    }
    CHECK(t.rt.impl().strings.bytes() == held);
  }
  // A text the run holds already is taken at the cap: it costs nothing more.
  LuaRuntime t(o);
  t.write("texts.lua", leaves);
  auto writer = t.load("tree: writer\nleaves: [texts.lua]\nblackboard: {note: \"\"}\nroot: {action: Write}\n", "writer.yaml");
  auto again = t.load("tree: again\nleaves: [texts.lua]\nblackboard: {note: \"\"}\nroot: {action: Again}\n", "again.yaml");
  auto w = t.rt.spawn(writer);
  for (int k = 0; k < 12; ++k) t.rt.tick(w, 0.1);
  t.log.clear();
  auto a = t.rt.spawn(again);
  CHECK(t.rt.tick(a, 0.1) == Status::Success);  // big .. "1": written on the writer's first tick
  CHECK(t.marks() == thicket_test::LogLines{"again ok"});
}

TEST_CASE("guard: short unique texts are held to the cap with what holding each one costs, not its letters alone") {
  // A 3-letter text takes ~84 bytes of memory once held (its slot, its index entry, malloc's
  // headers): counted by its letters, a 1 MiB cap let ~300,000 of them through (~25 MiB).
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  o.lua_memory_limit = size_t(1) << 20;
  LuaRuntime t(o);
  t.write("names.lua", R"(
return { Name = function(agent)
  for i = 1, 300000 do agent.bb.note = "n" .. i end
  return true
end }
)");
  auto b = t.load("tree: names\nleaves: [names.lua]\nblackboard: {note: \"\"}\nroot: {action: Name}\n");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.tick(a, 0.1) == Status::Failure);  // refused past the cap
  CHECK(t.rt.impl().strings.size() < 20000);  // ~10,000 at ~100 bytes each; ~160,000 by their letters
  CHECK(t.rt.impl().strings.bytes() <= (size_t(1) << 20));
  CHECK(t.joined_log().find("blackboard: a new text of") != std::string::npos);
}

TEST_CASE("guard: a looping xpcall message handler is stopped by the instruction budget too") {
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;  // the budget alone
  o.instruction_budget = 1000000;
  o.budget_all_leaves = true;
  for (const char* leaf : {"HandlerSpin", "BothSpin"}) {
    CAPTURE(leaf);
    LuaRuntime t(o);
    auto a = spawn_runaway(t, leaf);
    t.rt.tick(a, 0.1);
    CHECK(t.rt.script_errors() == 1);
    INFO(t.joined_log());
    CHECK_MESSAGE(t.joined_log().find("ran past its instruction budget") != std::string::npos, t.joined_log());
    CHECK(t.joined_log().find("@fine 1") != std::string::npos);
  }
}

// The grace of kStopGraceInstructions is instructions: a loop of instructions that each take long
// (string.upper on 8 MB, a few ms) made it seconds per call (10,000 of them), for every agent
// and tick. The grace also ends once it has used the time limit again.
TEST_CASE("guard: a loop whose every instruction takes long is stopped within its grace's time") {
  LuaRuntime t(timed(0.02));
  t.write("big.lua", R"LUA(
local thicket = require("thicket")
local BIG = string.rep("p", 8 * 1024 * 1024)
n = 0
return {
  Shout = function() while true do n = n + 1; local loud = BIG:upper() end end,
  Count = function() thicket.log("@" .. n); return true end,
}
)LUA");
  auto a = t.rt.spawn(t.load("tree: t\nleaves: [big.lua]\nroot:\n  sequence:\n    - force_success: {action: Shout}\n"
                             "    - action: Count\n"));
  t.rt.tick(a, 0.1);
  CHECK(t.rt.script_errors() == 1);
  const auto marks = t.marks();
  REQUIRE(marks.size() == 1);
  // ~2,000 loops (10,007 instructions of ~5 a loop) before; now the limit and as much again.
  CHECK(std::stoi(marks[0]) < 500);
}
