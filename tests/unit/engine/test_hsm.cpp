// Hierarchical states and events (SPEC 4.1) through the C++ API: events from C++, hot reload
// keeping the active configuration, the history memory and the event queue, and snapshots
// that resume exactly as an uninterrupted run.
#include <doctest/doctest.h>


#include "lua_fixture.hpp"
#include "thicket/runtime.hpp"
#include "thicket/snapshot.hpp"

using thicket::Status;

namespace {

// A scratch folder; write() again moves the file's mtime on, so reloads see it.
struct Scratch {
  thicket_test::ScratchDir dir;
  std::string write(const std::string& name, const std::string& text) { return dir.rewrite(name, text).string(); }
};

// Every leaf prints "TICK what"; Act sends the events args.sends names for this tick.
const char* kLeaves = R"(
local thicket = require("thicket")
local L = {}
local function p(s) print(thicket.tick() .. " " .. s) end
function L.Enter(agent, args) p("enter " .. args.state) end
function L.Exit(agent, args) p("exit " .. args.state) end
L.Act = {
  start = function(agent, args, mem) mem.n = 0; p("start " .. args.id) end,
  tick = function(agent, args, mem)
    mem.n = mem.n + 1
    local s = args.sends and args.sends[tostring(thicket.tick())]
    if s then agent:send(s) end
    p("tick " .. args.id .. " " .. mem.n)
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status) p("stop " .. args.id .. " " .. status) end,
}
return L
)";

const char* kBrain = R"(
fsm: guard
leaves: [leaves.lua]
initial: calm
states:
  calm:
    initial: patrol
    enter: {leaf: Enter, args: {state: calm}}
    exit: {leaf: Exit, args: {state: calm}}
    transitions: {fight: combat}
    states:
      patrol:
        enter: {leaf: Enter, args: {state: patrol}}
        act: {leaf: Act, args: {id: patrol}}
        transitions: {tired: rest}
      rest:
        enter: {leaf: Enter, args: {state: rest}}
        act: {leaf: Act, args: {id: rest}}
  combat:
    history: true
    initial: engage
    enter: {leaf: Enter, args: {state: combat}}
    exit: {leaf: Exit, args: {state: combat}}
    transitions: {calm_down: calm}
    states:
      engage:
        enter: {leaf: Enter, args: {state: engage}}
        act: {leaf: Act, args: {id: engage}}
        transitions: {empty: reload}
      reload:
        enter: {leaf: Enter, args: {state: reload}}
        exit: {leaf: Exit, args: {state: reload}}
        act: {leaf: Act, args: {id: reload}}
)";

struct Run {
  std::string log, out;
  thicket::Runtime rt{thicket::RuntimeOptions{.seed = 1, .log = [this](const std::string& l) { log += l + "\n"; }}};
  Run() {
    rt.on_print([this](const std::string& l) { out += l + "\n"; });
  }
  std::string take() {
    std::string s = std::move(out);
    out.clear();
    return s;
  }
};

std::vector<std::string> running(Run& r, thicket::AgentHandle a) { return r.rt.running_nodes(a); }
bool runs(Run& r, thicket::AgentHandle a, const std::string& id) {
  auto v = running(r, a);
  return std::find(v.begin(), v.end(), id) != v.end();
}

}  // namespace

TEST_CASE("hsm: events from C++ are offered innermost-outward; history re-enters the child a state was left with") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(s.write("brain.yaml", kBrain), d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick_all(0.1);
  CHECK(r.take() == "1 enter calm\n1 enter patrol\n1 start patrol\n1 tick patrol 1\n");
  CHECK(r.rt.send(a, "fight"));  // outside tick_all: queued now, handled in the next tick's event phase
  r.rt.tick_all(0.1);
  CHECK(r.take() == "2 stop patrol aborted\n2 exit calm\n2 enter combat\n2 enter engage\n2 start engage\n2 tick engage 1\n");
  r.rt.send(a, "empty");
  r.rt.tick_all(0.1);
  CHECK(runs(r, a, "reload"));
  r.rt.send(a, "calm_down");  // combat is left from reload: its history remembers reload
  r.rt.send(a, "fight");      // both in one tick, in the order sent
  r.rt.tick_all(0.1);
  CHECK(r.take() ==
        "3 stop engage aborted\n3 enter reload\n3 start reload\n3 tick reload 1\n"
        "4 stop reload aborted\n4 exit reload\n4 exit combat\n4 enter calm\n4 enter patrol\n"
        "4 exit calm\n4 enter combat\n4 enter reload\n4 start reload\n4 tick reload 1\n");
  // An event no state maps is dropped, never an error.
  r.rt.send(a, "nobody_listens");
  r.rt.tick_all(0.1);
  CHECK(runs(r, a, "reload"));
  CHECK(r.log.empty());
}

TEST_CASE("hsm: a hot reload keeps the active configuration, the history memory and the event queue") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string path = s.write("brain.yaml", kBrain);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(path, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick_all(0.1);
  r.rt.send(a, "fight");
  r.rt.tick_all(0.1);
  r.rt.send(a, "empty");
  r.rt.tick_all(0.1);
  r.rt.send(a, "calm_down");
  r.rt.tick_all(0.1);  // calm/patrol now; combat's history: reload
  REQUIRE(runs(r, a, "patrol"));
  r.rt.send(a, "fight");  // queued across the reload
  r.take();
  // A state is added before the active ones: every index moves, nothing the agent holds may.
  std::string v2 = kBrain;
  v2.replace(v2.find("  calm:\n"), 0, "  first: {act: {leaf: Act, args: {id: first}}}\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(runs(r, a, "patrol"));
  CHECK(runs(r, a, "calm"));
  r.rt.tick_all(0.1);  // the queued fight: combat re-enters reload by its history
  CHECK(r.take() == "5 stop patrol aborted\n5 exit calm\n5 enter combat\n5 enter reload\n5 start reload\n5 tick reload 1\n");
  // The active leaf state is removed: its nearest surviving ancestor re-enters its descent.
  std::string v3 = v2;
  v3.erase(v3.find("      reload:\n"), v3.find("        act: {leaf: Act, args: {id: reload}}\n") + 45 - v3.find("      reload:\n"));
  v3.replace(v3.find("transitions: {empty: reload}"), 28, "transitions: {}");
  s.write("brain.yaml", v3);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.take() == "5 stop reload aborted\n");  // the removed state's running act stops (its exit leaf is gone with it)
  std::vector<thicket::TraceEvent> seen;
  r.rt.on_trace([&](const thicket::TraceEvent& e) { seen.push_back(e); }, false);
  r.rt.tick_all(0.1);
  CHECK(r.take() == "6 enter engage\n6 start engage\n6 tick engage 1\n");
  // Traced as the reload's fallback: combat's descent entered again, not a transition of its own.
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].type == thicket::TraceEvent::Type::Transition);
  CHECK(seen[0].reload);
  CHECK(seen[0].from_name == "combat");
  CHECK(seen[0].entered == std::vector<std::string>{"engage"});
  CHECK(running(r, a) == std::vector<std::string>{"root", "combat", "engage", "engage/act"});
}

TEST_CASE("hsm: a snapshot taken mid-run resumes exactly as the uninterrupted run, queued events included") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string path = s.write("brain.yaml", kBrain);
  const std::vector<std::pair<int, std::string>> sends = {{2, "fight"}, {3, "empty"}, {5, "calm_down"}, {5, "tired"},
                                                          {7, "fight"}, {9, "calm_down"}, {10, "fight"}};
  auto drive = [&](Run& r, thicket::AgentHandle a, int from, int to) {
    for (int t = from; t <= to; ++t) {
      for (const auto& [at, ev] : sends)
        if (at == t) r.rt.send(a, ev);
      r.rt.tick_all(0.1);
    }
  };
  std::vector<thicket::Diagnostic> d;
  Run whole;
  auto bw = whole.rt.load_file(path, d);
  REQUIRE(bw);
  auto aw = whole.rt.spawn(*bw);
  drive(whole, aw, 1, 12);
  for (int cut : {3, 5, 7}) {
    CAPTURE(cut);
    Run first;
    auto b1 = first.rt.load_file(path, d);
    REQUIRE(b1);
    auto a1 = first.rt.spawn(*b1);
    drive(first, a1, 1, cut - 1);
    for (const auto& [at, ev] : sends)
      if (at == cut) first.rt.send(a1, ev);  // queued when the snapshot is taken
    thicket::SnapshotWriter w;
    first.rt.save(w);
    Run second;
    REQUIRE(second.rt.load_file(path, d));
    thicket::SnapshotReader in(w.bytes());
    REQUIRE(second.rt.restore(in, d));
    auto a2 = second.rt.agents().at(0);
    second.rt.tick_all(0.1);  // tick `cut`, with its events already queued
    drive(second, a2, cut + 1, 12);
    CHECK(first.out + second.out == whole.out);
    CHECK(running(second, a2) == running(whole, aw));
  }
}

TEST_CASE("hsm: a send to a full queue returns false; what its trace callback calls waits until send returns") {
  // The drop's trace sink once ran with a reference into the agent array held across it: a sink
  // that spawned grew the array under it (a use after free; Python's send reached it).
  Scratch s;
  s.write("leaves.lua", kLeaves);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(s.write("brain.yaml", kBrain), d);
  REQUIRE(b);
  thicket::AgentHandle last{};
  for (int i = 0; i < 50; ++i) last = r.rt.spawn(*b);
  int full = 0, agents_in_sink = -1;
  bool load_refused = false;
  r.rt.on_trace(
      [&](const thicket::TraceEvent& ev) {
        if (!ev.queue_full) return;
        ++full;
        if (full > 1) return;
        for (int i = 0; i < 5000; ++i) r.rt.spawn(*b);  // waits: the array does not grow under send
        agents_in_sink = static_cast<int>(r.rt.agents().size());
        std::vector<thicket::Diagnostic> diags;
        load_refused = !r.rt.load_string("tree: t\nroot: {action: Idle}\n", "t.yaml", diags) && !diags.empty() &&
                       diags[0].message.find("cannot be called during a tick") != std::string::npos;
      },
      false);
  for (int i = 0; i < 4096; ++i) REQUIRE(r.rt.send(last, i % 2 ? "calm_down" : "fight"));
  CHECK_FALSE(r.rt.send(last, "fight"));  // dropped
  CHECK(full == 1);
  CHECK(agents_in_sink == 50);
  CHECK(load_refused);
  CHECK(r.rt.agents().size() == 5050);  // the sink's spawns, once send returned
  CHECK(r.log.find("its event queue holds 4096 events; event 'fight' and any further ones are dropped") !=
        std::string::npos);
  CHECK_FALSE(r.rt.send(last, "fight"));  // still full: traced again, logged once
  CHECK(full == 2);
  CHECK(r.rt.agents().size() == 5050);
}
