// Task journals (issue 31; bindings/lua/lua_journal.cpp, guide 11.6): with
// RuntimeOptions::journal_tasks a Lua task running when a snapshot is taken is rebuilt after the
// restore by replaying it with its journal, and goes on exactly as the uninterrupted run; a task
// that cannot be kept exactly makes the save fail with the reason; off, a task restarts as before.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lua_fixture.hpp"
#include "thicket/runtime.hpp"

using namespace thicket;
using thicket_test::ScratchDir;

namespace {

// A task with random draws, waits, blackboard reads and writes, prints, logs, an event to its
// own agent and plain state in its locals; a cleanup that logs.
const char* kTaskLeaves = R"LUA(
local thicket = require("thicket")
local leaves = {}
leaves.Forage = thicket.task(function(agent, args)
  local done <close> = thicket.defer(function() thicket.log("@cleanup " .. tostring(thicket.restored()) .. " " .. agent.bb.food) end)
  local found, path = 0, {}
  thicket.log("@start " .. tostring(thicket.restored()))
  for step = 1, args.steps do
    local r = thicket.random(1, 6) + math.random()
    path[#path + 1] = {step = step, r = r}
    if r > 3.5 then
      found = found + 1
      agent.bb.food = agent.bb.food + 1
      print(string.format("@print %d %.6f %d", step, r, found))
    end
    thicket.log(string.format("@step %d %.6f bb=%d t=%.2f tick=%d", step, r, agent.bb.food, thicket.time(), thicket.tick()))
    if step % 4 == 0 then thicket.wait(0.25) else coroutine.yield() end
  end
  agent.bb.last = #path
  agent:send("fed")
  return found > 0
end)
function leaves.Note(agent, args) thicket.log("@note " .. agent.bb.food .. " " .. thicket.random(1, 1000)); return false end
return leaves
)LUA";

const char* kTaskTree = R"YAML(
tree: forager
leaves: [forage.lua]
blackboard: {food: 0, last: 0}
root:
  repeat:
    child:
      sequence:
        - action: {leaf: Forage, args: {steps: 9}}
        - action: {leaf: Note}
)YAML";

struct Run {
  std::vector<std::string> lines;  // logs and prints starting with '@', in order
  Runtime rt;
  std::optional<BrainHandle> brain;
  Run(const ScratchDir& dir, bool journal, const std::string& tree = "forager.yaml")
      : rt([&] {
          RuntimeOptions o;
          o.journal_tasks = journal;
          o.log = [this](const std::string& l) {
            if (auto at = l.find('@'); at != std::string::npos) lines.push_back(l.substr(at));
            else if (l.find("warning") != std::string::npos || l.find("error") != std::string::npos) lines.push_back(l);
          };
          return o;
        }()) {
    rt.on_print([this](const std::string& l) { lines.push_back(l); });
    std::vector<Diagnostic> diags;
    brain = rt.load_file((dir.path() / tree).string(), diags);
    REQUIRE_MESSAGE(brain, (diags.empty() ? std::string() : diags[0].message));
  }
  void ticks(int n) {
    for (int t = 0; t < n; ++t) rt.tick_all(0.1);
  }
  std::string bb(const char* key) {
    auto v = rt.get(rt.agents().at(0), key);
    return v ? value_text(*v) : "?";
  }
  static std::string value_text(const Value& v) {
    if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&v)) return std::to_string(*d);
    return "other";
  }
};

void write_forage(const ScratchDir& dir) {
  dir.write("forage.lua", kTaskLeaves);
  dir.write("forager.yaml", kTaskTree);
}

}  // namespace

TEST_CASE("task journal: a task saved mid-run goes on after a restore exactly as the uninterrupted run") {
  ScratchDir dir;
  write_forage(dir);
  for (int at : {1, 3, 7, 12, 20}) {
    CAPTURE(at);
    Run whole(dir, true);
    whole.rt.spawn(*whole.brain);
    whole.rt.spawn(*whole.brain);
    whole.ticks(at);
    SnapshotWriter w;
    std::vector<Diagnostic> diags;
    const bool saved = whole.rt.save(w, diags);
    REQUIRE_MESSAGE(saved, (diags.empty() ? std::string() : diags[0].message));
    const size_t before = whole.lines.size();
    whole.ticks(30);
    const std::vector<std::string> after(whole.lines.begin() + static_cast<std::ptrdiff_t>(before), whole.lines.end());
    REQUIRE(!after.empty());

    Run resumed(dir, true);
    SnapshotReader in(w.bytes());
    REQUIRE(resumed.rt.restore(in, diags));
    resumed.ticks(30);
    // The replay printed, logged, drew and wrote nothing: every line after the restore is the
    // uninterrupted run's, none is repeated, and the task never knew it was restored.
    CHECK(resumed.lines == after);
    CHECK(resumed.bb("food") == whole.bb("food"));
    CHECK(resumed.bb("last") == whole.bb("last"));
    for (const std::string& l : resumed.lines) CHECK(l.find("true") == std::string::npos);
    // The same state gives the same bytes.
    SnapshotWriter a, b;
    REQUIRE(whole.rt.save(a, diags));
    REQUIRE(resumed.rt.save(b, diags));
    CHECK(a.bytes() == b.bytes());
  }
}

TEST_CASE("task journal: a restored task saved again before it ran keeps its journal; one agent at a time too") {
  ScratchDir dir;
  write_forage(dir);
  Run whole(dir, true);
  AgentHandle h = whole.rt.spawn(*whole.brain);
  whole.ticks(6);
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  REQUIRE(whole.rt.save(h, w, diags));
  Run middle(dir, true);
  SnapshotReader in(w.bytes());
  REQUIRE(middle.rt.restore_agent(in, diags).has_value());
  SnapshotWriter w2;
  REQUIRE(middle.rt.save(middle.rt.agents().at(0), w2, diags));
  CHECK(w2.bytes() == w.bytes());
  const size_t before = whole.lines.size();
  whole.ticks(10);
  Run last(dir, true);
  SnapshotReader in2(w2.bytes());
  REQUIRE(last.rt.restore_agent(in2, diags).has_value());
  last.ticks(10);
  CHECK(last.lines == std::vector<std::string>(whole.lines.begin() + static_cast<std::ptrdiff_t>(before), whole.lines.end()));
}

TEST_CASE("task journal: a value that is not plain data refuses the save, naming the task and why") {
  ScratchDir dir;
  dir.write("hold.lua", R"LUA(
local thicket = require("thicket")
local leaves = {}
function leaves.Give(agent) agent.bb.thing = function() return 1 end return true end
leaves.Hold = thicket.task(function(agent)
  local f = agent.bb.thing
  while true do coroutine.yield() end
end)
leaves.Plain = thicket.task(function(agent)
  while true do agent.bb.n = agent.bb.n + 1 coroutine.yield() end
end)
return leaves
)LUA");
  dir.write("hold.yaml", "tree: hold\nleaves: [hold.lua]\nblackboard: {thing: null, n: 0}\n"
                         "root:\n  sequence:\n    - action: Give\n    - action: {leaf: Hold, name: holding}\n");
  dir.write("plain.yaml", "tree: plain\nleaves: [hold.lua]\nblackboard: {n: 0}\nroot: {action: Plain}\n");
  Run run(dir, true, "hold.yaml");
  run.rt.spawn(*run.brain);
  run.ticks(3);
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  CHECK_FALSE(run.rt.save(w, diags));
  CHECK(w.bytes().empty());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].severity == Severity::Error);
  const std::string& m = diags[0].message;
  CAPTURE(m);
  CHECK(m.find("agent 1's task Hold at node holding (") != std::string::npos);
  CHECK(m.find("hold.yaml:") != std::string::npos);
  CHECK(m.find("cannot be saved exactly: agent.bb __index returned a function") != std::string::npos);
  // The void save writes nothing and logs why.
  SnapshotWriter w2;
  run.rt.save(w2);
  CHECK(w2.bytes().empty());
  CHECK(run.lines.back().find("cannot be saved exactly") != std::string::npos);
  // Without journaling the same run saves as before: the task will restart.
  Run off(dir, false, "hold.yaml");
  off.rt.spawn(*off.brain);
  off.ticks(3);
  diags.clear();
  CHECK(off.rt.save(w, diags));
  CHECK(diags.empty());
}

TEST_CASE("task journal: a task past the journal's cap cannot be saved; its memory stays bounded") {
  ScratchDir dir;
  dir.write("busy.lua", R"LUA(
local thicket = require("thicket")
return { Busy = thicket.task(function(agent)
  while true do
    for i = 1, 5000 do thicket.random() end
    coroutine.yield()
  end
end) }
)LUA");
  dir.write("busy.yaml", "tree: busy\nleaves: [busy.lua]\nroot: {action: Busy}\n");
  Run run(dir, true, "busy.yaml");
  run.rt.spawn(*run.brain);
  run.ticks(19);  // 95,000 calls: still saveable
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  CHECK(run.rt.save(w, diags));
  CHECK(w.bytes().size() > 95000);
  run.ticks(2);  // 105,000: past the cap
  SnapshotWriter w2;
  CHECK_FALSE(run.rt.save(w2, diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message.find("agent 1's task Busy") != std::string::npos);
  CHECK(diags[0].message.find("passed its cap") != std::string::npos);
}

TEST_CASE("task journal: a replay that leaves its journal warns and the task starts again") {
  ScratchDir dir;
  write_forage(dir);
  Run whole(dir, true);
  whole.rt.spawn(*whole.brain);
  whole.ticks(5);
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  REQUIRE(whole.rt.save(w, diags));
  // The leaf changed since: the task makes one world call more per step than its journal holds.
  std::string changed = kTaskLeaves;
  const std::string mark = "    local r = thicket.random(1, 6) + math.random()";
  changed.replace(changed.find(mark), mark.size(), mark + "\n    thicket.tick()");
  dir.rewrite("forage.lua", changed);
  Run resumed(dir, true);
  SnapshotReader in(w.bytes());
  REQUIRE(resumed.rt.restore(in, diags));
  resumed.ticks(1);
  REQUIRE(resumed.lines.size() >= 2);
  CHECK(resumed.lines[0].find("warning: agent 1's task Forage at node") != std::string::npos);
  CHECK(resumed.lines[0].find("could not be replayed after the restore") != std::string::npos);
  CHECK(resumed.lines[1] == "@start true");  // restarted, and it knows
  resumed.ticks(20);
  int cleanups = 0;
  for (const std::string& l : resumed.lines) cleanups += l.rfind("@cleanup", 0) == 0;
  CHECK(cleanups >= 1);
  CHECK(resumed.lines.size() > 2);
}

TEST_CASE("task journal: off, a running task restarts after a restore as before") {
  ScratchDir dir;
  write_forage(dir);
  Run whole(dir, false);
  whole.rt.spawn(*whole.brain);
  whole.ticks(5);
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  REQUIRE(whole.rt.save(w, diags));
  Run resumed(dir, false);
  SnapshotReader in(w.bytes());
  REQUIRE(resumed.rt.restore(in, diags));
  resumed.ticks(1);
  REQUIRE(!resumed.lines.empty());
  CHECK(resumed.lines[0] == "@start true");
  // A journaled snapshot restored into a runtime without journaling cannot replay: it restarts, with a warning.
  Run on(dir, true);
  on.rt.spawn(*on.brain);
  on.ticks(5);
  SnapshotWriter w2;
  REQUIRE(on.rt.save(w2, diags));
  Run plain(dir, false);
  SnapshotReader in2(w2.bytes());
  REQUIRE(plain.rt.restore(in2, diags));
  plain.ticks(1);
  REQUIRE(plain.lines.size() >= 2);
  CHECK(plain.lines[0].find("journaling is off in this runtime") != std::string::npos);
  CHECK(plain.lines[1] == "@start true");
}

TEST_CASE("task journal: a restored task cancelled before it ran again is rebuilt, and its cleanup runs once") {
  ScratchDir dir;
  write_forage(dir);
  dir.write("stop.lua", R"LUA(
local thicket = require("thicket")
return { Stop = function(agent) return agent.bb.stop end,
         Idle = function(agent) thicket.log("@idle " .. agent.bb.food) return thicket.RUNNING end }
)LUA");
  dir.write("stopper.yaml", R"YAML(
tree: stopper
leaves: [forage.lua, stop.lua]
blackboard: {food: 0, last: 0, stop: false}
root:
  active_selector:
    - sequence:
        - condition: Stop
        - action: Idle
    - action: {leaf: Forage, args: {steps: 9}}
)YAML");
  Run whole(dir, true, "stopper.yaml");
  whole.rt.spawn(*whole.brain);
  whole.ticks(6);
  SnapshotWriter w;
  std::vector<Diagnostic> diags;
  REQUIRE(whole.rt.save(w, diags));
  const size_t before = whole.lines.size();
  REQUIRE(whole.rt.set(whole.rt.agents().at(0), "stop", Value(true)));
  whole.ticks(3);
  const std::vector<std::string> after(whole.lines.begin() + static_cast<std::ptrdiff_t>(before), whole.lines.end());
  REQUIRE(!after.empty());
  int cleanups = 0;
  for (const std::string& l : after) cleanups += l.rfind("@cleanup false", 0) == 0;
  CHECK(cleanups == 1);

  Run resumed(dir, true, "stopper.yaml");
  SnapshotReader in(w.bytes());
  REQUIRE(resumed.rt.restore(in, diags));
  REQUIRE(resumed.rt.set(resumed.rt.agents().at(0), "stop", Value(true)));
  resumed.ticks(3);
  CHECK(resumed.lines == after);
}
