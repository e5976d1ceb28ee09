// tick_all on the game's threads (SPEC 8.2): the same results, byte for byte, whatever the
// executor does and however many script states the agents are spread over; calls leaves make to
// spawn, despawn and send, which wait for the end of the tick_all; time slicing.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lua_fixture.hpp"
#include "string_table.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"

namespace {

using thicket::AgentHandle;
using thicket::BrainHandle;
using thicket::Executor;
using thicket::Runtime;
using thicket::RuntimeOptions;
using thicket::Status;
using thicket::TraceEvent;
using thicket_test::LogLines;
using thicket_test::ScratchDir;

// A job system as a game might have: `threads` threads take the jobs in an order shuffled anew
// at every call (seeded), so no two calls run the jobs alike.
Executor scrambled(unsigned threads, uint64_t seed) {
  auto calls = std::make_shared<uint64_t>(seed);
  return [threads, calls](size_t n, const std::function<void(size_t)>& job) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::mt19937_64 rng((*calls)++);
    std::shuffle(order.begin(), order.end(), rng);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k; (k = next.fetch_add(1)) < n;) job(order[k]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  };
}

// Runs the jobs one after another, last first.
Executor backwards() {
  return [](size_t n, const std::function<void(size_t)>& job) {
    for (size_t k = n; k-- > 0;) job(k);
  };
}

std::string line_of(const TraceEvent& e) {
  std::ostringstream o;
  o << static_cast<int>(e.type) << " t" << e.tick << " a" << e.agent << " " << thicket::status_name(e.status);
  for (const auto& r : e.running) o << " " << r;
  o << " |" << e.composite << "|" << e.condition << "|" << e.aborted << "|" << e.brain << "|" << e.from_name << "|"
    << e.to_name << "|" << e.transition << "|" << e.cause << "|" << e.event << "|" << e.taken_by;
  return o.str();
}

// Everything a run shows: trace lines, log lines, printed lines, and every agent's blackboard
// and node statuses at the end.
struct Outcome {
  std::vector<std::string> trace, log, printed, agents;
  uint64_t errors = 0;
};

// (Appends: GCC 12 warns of a false -Warray-bounds on std::string(x) + "/" in some unity batches.)
std::string source(const std::string& rel) { return std::string(THICKET_SOURCE_DIR).append(1, '/').append(rel); }

// Ticks of the examples' runs below: 40 under ThreadSanitizer (test.sh's TSan tree runs this
// file on one core, ~10x slower: the first case took 45 of its 75 s at 80 ticks). Every tick
// takes the same threaded paths; the Release and ASan trees keep 80.
#ifdef THICKET_UNDER_TSAN
constexpr uint32_t example_ticks = 40;
#else
constexpr uint32_t example_ticks = 80;
#endif

// The example brains with Lua leaves (a tree, a behavior machine, an fsm), many agents of each
// interleaved, and a native brain whose agents go to the native jobs.
Outcome run_examples(uint32_t states, const Executor& executor, uint32_t ticks = example_ticks) {
  Outcome out;
  RuntimeOptions o;
  o.seed = 11;
  o.script_states = states;
  o.log = [&](const std::string& l) { out.log.push_back(l); };
  Runtime rt(o);
  rt.impl().print_sink = [&](const std::string& l) { out.printed.push_back(l); };
  rt.on_trace([&](const TraceEvent& e) { out.trace.push_back(line_of(e)); });
  thicket::NativeLeafFn count;
  count.tick = [](thicket::LeafContext& c, void*) {
    thicket::Value v;
    c.get("n", v);
    c.set("n", std::get<double>(v) + c.random());
    return c.tick() % 3 == 0 ? Status::Success : Status::Running;
  };
  rt.register_leaf("Count", count);
  // Leaf names are one name space and the three examples each define Patrol: the copies in a
  // scratch folder give theirs a name of its own.
  ScratchDir dir;
  std::vector<BrainHandle> brains;
  for (const char* name : {"guard", "minion", "npc"}) {
    for (const char* ext : {".yaml", ".lua"}) {
      std::ifstream in(source(std::string("scripts/examples/") + name + "/" + name + ext));
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      REQUIRE(!text.empty());
      for (size_t at; (at = text.find("Patrol")) != std::string::npos;) text.replace(at, 6, std::string("P_") + name);
      dir.write(std::string(name) + ext, text);
    }
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_file((dir.path() / (std::string(name) + ".yaml")).string(), d);
    REQUIRE(b.has_value());
    brains.push_back(*b);
  }
  std::vector<thicket::Diagnostic> d;
  auto native = rt.load_string("tree: counter\nblackboard: {n: 0}\nroot: {sequence: [{action: Count}, {action: Count}]}\n",
                               "counter.yaml", d);
  REQUIRE(native.has_value());
  for (int i = 0; i < 600; ++i) rt.spawn(i % 4 == 3 ? *native : brains[i % 3]);
  for (uint32_t t = 0; t < ticks; ++t) {
    if (executor) rt.tick_all(0.1, executor);
    else rt.tick_all(0.1);
  }
  for (AgentHandle a : rt.agents()) {
    std::string s = std::to_string(rt.agent_id(a)) + " " + std::string(thicket::status_name(rt.status(a))) + " ";
    rt.node_statuses(a, s);
    for (const char* key : {"health", "kills", "mood", "x", "shots", "n", "hp"}) {
      auto v = rt.get(a, key);
      if (!v) continue;
      std::visit([&](const auto& x) {
        std::ostringstream o;
        o << " " << key << "=";
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) o << "nil";
        else o << x;
        s += o.str();
      }, *v);
    }
    out.agents.push_back(s);
  }
  out.errors = rt.script_errors();
  return out;
}

void check_same(const Outcome& a, const Outcome& b) {
  CHECK(a.trace.size() == b.trace.size());
  CHECK(LogLines(a.trace) == LogLines(b.trace));
  CHECK(LogLines(a.log) == LogLines(b.log));
  CHECK(LogLines(a.printed) == LogLines(b.printed));
  CHECK(LogLines(a.agents) == LogLines(b.agents));
  CHECK(a.errors == b.errors);
}

}  // namespace

TEST_CASE("tick_all(dt, executor): the example brains give tick_all(dt)'s trace, log, prints and blackboards") {
  // doctest runs the case's body once per subcase: the serial run is made the first time only
  // (it was made five times, a third of the case's time).
  static const Outcome serial = run_examples(1, nullptr);
  REQUIRE(serial.trace.size() > 500 * example_ticks);
  REQUIRE(!serial.printed.empty());
  SUBCASE("one script state, four threads in a scrambled order") { check_same(serial, run_examples(1, scrambled(4, 1))); }
  SUBCASE("three script states, four threads") { check_same(serial, run_examples(3, scrambled(4, 2))); }
  SUBCASE("three script states, the jobs run backwards on one thread") { check_same(serial, run_examples(3, backwards())); }
  SUBCASE("five script states, tick_all(dt)") { check_same(serial, run_examples(5, nullptr)); }
  SUBCASE("sixteen threads") { check_same(serial, run_examples(4, scrambled(16, 3))); }
}

TEST_CASE("tick_all(dt, executor): an executor that runs a job twice or not at all changes nothing") {
  const Outcome serial = run_examples(2, nullptr, 30);
  Executor sloppy = [](size_t n, const std::function<void(size_t)>& job) {
    for (size_t k = 0; k < n; k += 2) {  // every other job, twice
      job(k);
      job(k);
    }
  };
  check_same(serial, run_examples(2, sloppy, 30));
}

namespace {
// The guide's example (docs/examples/lua/spawner.*): the test keeps it true.
std::string example(const std::string& name) {
  std::ifstream in(source("docs/examples/lua/" + name));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!text.empty());
  return text;
}

struct SpawnRun {
  std::vector<std::string> printed, events;
  std::vector<uint32_t> ids;
  bool third_stale = false;
};

SpawnRun run_spawner(uint32_t states, const Executor& executor) {
  SpawnRun r;
  ScratchDir dir;
  dir.write("spawner.lua", example("spawner.lua"));
  RuntimeOptions o;
  o.script_states = states;
  o.log = [](const std::string&) {};
  Runtime rt(o);
  rt.impl().print_sink = [&](const std::string& l) { r.printed.push_back(l); };
  rt.on_trace([&](const TraceEvent& e) {
    if (e.type == TraceEvent::Type::Event)
      r.events.push_back("t" + std::to_string(e.tick) + " a" + std::to_string(e.agent) + " " + e.event + " taken_by=" + e.taken_by);
  });
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(example("spawner.yaml"), (dir.path() / "spawner.yaml").string(), d);
  REQUIRE(b.has_value());
  std::vector<AgentHandle> h;
  for (int i = 0; i < 4; ++i) h.push_back(rt.spawn(*b));
  for (int t = 0; t < 3; ++t) {
    if (executor) rt.tick_all(0.1, executor);
    else rt.tick_all(0.1);
    if (t == 1) r.third_stale = rt.status(h[2]) == Status::Invalid;
  }
  for (AgentHandle a : rt.agents()) r.ids.push_back(rt.agent_id(a));
  return r;
}
}  // namespace

TEST_CASE("spawn, despawn and send from a Lua leaf take effect at the end of tick_all, in agent order") {
  const SpawnRun r = run_spawner(1, nullptr);
  CHECK(LogLines(r.printed) == LogLines{
                                   "tick 1 agent 1 n=1", "tick 1 agent 2 n=1", "tick 1 agent 3 n=1", "tick 1 agent 4 n=1",
                                   "tick 2 agent 1 n=2", "spawn\ttrue", "despawn 3\ttrue", "despawn 99\tfalse", "send 2\ttrue",
                                   "tick 2 agent 2 n=2",
                                   "tick 2 agent 3 n=2",  // despawned during the tick: it finishes the tick
                                   "tick 2 agent 4 n=2", "despawn 3 again\ttrue",
                                   // agent 3 is gone; agent 5, spawned during tick 2, has its first tick now
                                   "tick 3 agent 1 n=3", "tick 3 agent 2 n=3", "tick 3 agent 4 n=3", "tick 1 agent 5 n=101"});
  CHECK(r.third_stale);
  // Agent 1 spawned before it despawned agent 3, so the new agent has a slot of its own.
  CHECK(r.ids == std::vector<uint32_t>{1, 2, 4, 5});
  // The events (no brain takes events yet): dropped at the receiver's next tick, traced.
  CHECK(LogLines(r.events) == LogLines{"t3 a1 self taken_by=", "t3 a2 hello taken_by="});
  SUBCASE("the same on threads, with script states") {
    const SpawnRun p = run_spawner(3, scrambled(3, 5));
    CHECK(LogLines(p.printed) == LogLines(r.printed));
    CHECK(LogLines(p.events) == LogLines(r.events));
    CHECK(p.ids == r.ids);
  }
}

TEST_CASE("spawn, despawn and send from native leaves during tick_all(dt, executor) are deferred too") {
  RuntimeOptions o;
  o.log = [](const std::string&) {};
  Runtime rt(o);
  struct Ctx {
    Runtime* rt;
    BrainHandle brain;
    std::atomic<int> ticks{0};
    std::atomic<int> valid_spawns{0};
  } ctx;
  ctx.rt = &rt;
  thicket::NativeLeafFn act;
  act.user = &ctx;
  act.tick = [](thicket::LeafContext& c, void* u) {
    auto& x = *static_cast<Ctx*>(u);
    ++x.ticks;
    if (c.tick() == 1 && c.agent_id() % 100 == 0) {
      // Every 100th agent despawns itself and spawns two more: none of it is seen in this tick.
      auto me = x.rt->find_agent(c.agent_id());
      x.rt->despawn(*me);
      if (x.rt->spawn(x.brain).valid()) ++x.valid_spawns;  // doctest's CHECK is for one thread
      x.rt->spawn(x.brain, {}, 100000 + c.agent_id());
      x.rt->send(*me, "bye");
    }
    return Status::Success;
  };
  rt.register_leaf("Act", act);
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string("tree: t\nroot: {action: Act}\n", "t.yaml", d);
  REQUIRE(b.has_value());
  ctx.brain = *b;
  for (int i = 0; i < 1000; ++i) rt.spawn(*b);
  rt.tick_all(0.1, scrambled(4, 9));
  CHECK(ctx.ticks == 1000);       // every agent ticked once, the despawned ones included
  CHECK(ctx.valid_spawns == 0);   // a spawn during the tick gives no handle yet
  CHECK(rt.agent_count() == 1010);  // 10 gone, 20 new
  CHECK(rt.find_agent(100000 + 500).has_value());
  CHECK(!rt.find_agent(500).has_value());
  rt.tick_all(0.1, scrambled(4, 10));
  CHECK(ctx.ticks == 2010);  // the new agents' first tick
}

namespace {
// docs/examples/lua/sliced.*: the guide's example.
}  // namespace

TEST_CASE("time slicing: tick_every k ticks each agent every k-th call, phases spread, dt the time passed") {
  ScratchDir dir;
  dir.write("sliced.lua", example("sliced.lua"));
  auto run = [&](const Executor& ex) {
    std::vector<std::string> printed;
    RuntimeOptions o;
    o.script_states = ex ? 2 : 1;
    o.log = [](const std::string&) {};
    Runtime rt(o);
    rt.impl().print_sink = [&](const std::string& l) { printed.push_back(l); };
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(example("sliced.yaml"), (dir.path() / "sliced.yaml").string(), d);
    REQUIRE(b.has_value());
    std::vector<AgentHandle> h;
    for (int i = 0; i < 6; ++i) h.push_back(rt.spawn(*b));
    CHECK(rt.tick_every(h[0]) == 3);
    for (int t = 0; t < 14; ++t) {
      if (ex) rt.tick_all(0.1, ex);
      else rt.tick_all(0.1);
    }
    return printed;
  };
  const auto printed = run(nullptr);
  // Agent id 3 and 6 are in phase 0 (calls 0, 3, 6, ...), 1 and 4 in phase 1, 2 and 5 in phase 2.
  std::vector<std::string> agent1, agent3;
  for (const auto& l : printed) {
    if (l.rfind("agent 1 ", 0) == 0) agent1.push_back(l);
    if (l.rfind("agent 3 ", 0) == 0) agent3.push_back(l);
  }
  CHECK(LogLines(agent3) == LogLines{"agent 3 tick 1 time 0.00 dt 0.10", "agent 3 tick 2 time 0.30 dt 0.30",
                                     "agent 3 tick 3 time 0.60 dt 0.30", "agent 3 tick 4 time 0.90 dt 0.30",
                                     "agent 3 tick 5 time 1.20 dt 0.30", "agent 3 woke at 1.20"});
  CHECK(LogLines(agent1) == LogLines{"agent 1 tick 1 time 0.10 dt 0.10", "agent 1 tick 2 time 0.40 dt 0.30",
                                     "agent 1 tick 3 time 0.70 dt 0.30", "agent 1 tick 4 time 1.00 dt 0.30",
                                     "agent 1 tick 5 time 1.30 dt 0.30", "agent 1 woke at 1.30"});
  // Two agents a call: no call does more than its share.
  size_t clocks = 0;
  for (const auto& l : printed) clocks += l.find(" dt ") != std::string::npos;
  CHECK(clocks == 28);  // 14 calls x 2 agents
  CHECK(LogLines(run(scrambled(3, 4))) == LogLines(printed));
}

namespace {
// The guide's sliced example with its tick_every set back to 1; its prints go to `printed`.
thicket::BrainHandle load_unsliced_example(thicket_test::LuaRuntime& t, std::vector<std::string>& printed) {
  t.write("sliced.lua", example("sliced.lua"));
  t.rt.impl().print_sink = [&printed](const std::string& l) { printed.push_back(l); };
  std::string yaml = example("sliced.yaml");
  return t.load(yaml.replace(yaml.find("tick_every: 3"), 13, "tick_every: 1"));
}
}  // namespace

TEST_CASE("time slicing set per agent: tick_every from C++, and a brain file's tick_every checked") {
  thicket_test::LuaRuntime t;
  std::vector<std::string> printed;
  auto b = load_unsliced_example(t, printed);
  auto a = t.rt.spawn(b);
  t.rt.tick_all(0.1);
  CHECK(t.rt.set_tick_every(a, 4));
  CHECK(!t.rt.set_tick_every(a, 0));
  for (int i = 0; i < 8; ++i) t.rt.tick_all(0.1);
  // id 1 with k = 4: calls 1, 5 (its first tick was call 0).
  CHECK(LogLines(printed) == LogLines{"agent 1 tick 1 time 0.00 dt 0.10", "agent 1 tick 2 time 0.10 dt 0.10",
                                      "agent 1 tick 3 time 0.50 dt 0.40"});
  // k = 3 from call 9 (k = 4 would have ticked it then): calls 10 and 13.
  printed.clear();
  CHECK(t.rt.set_tick_every(a, 3));
  for (int i = 0; i < 5; ++i) t.rt.tick_all(0.1);
  CHECK(LogLines(printed) == LogLines{"agent 1 tick 4 time 1.00 dt 0.50", "agent 1 woke at 1.00",
                                      "agent 1 tick 5 time 1.30 dt 0.30"});
  t.rt.despawn(a);
  CHECK(t.rt.tick_every(a) == 0);
  std::vector<thicket::Diagnostic> d;
  CHECK(!t.try_load("tree: x\ntick_every: 0\nroot: {action: Clock}\n", d));
  REQUIRE(!d.empty());
  CHECK(d[0].line == 2);
  CHECK(d[0].message.find("'tick_every'") != std::string::npos);
  CHECK(d[0].message.find("got 0") != std::string::npos);  // the value, not its type ("an integer")
  d.clear();
  CHECK(!t.try_load("tree: x\ntick_every: [2]\nroot: {action: Clock}\n", d));
  REQUIRE(!d.empty());
  CHECK(d[0].message.find("got a list") != std::string::npos);
}

TEST_CASE("time slicing: tick(agent) of a sliced agent moves its clock on; set back to 1, it gets each call's dt") {
  thicket_test::LuaRuntime t;
  std::vector<std::string> printed;
  auto b = load_unsliced_example(t, printed);
  auto a = t.rt.spawn(b);   // id 1
  auto c = t.rt.spawn(b);   // id 2, never sliced: the comparison
  CHECK(t.rt.set_tick_every(a, 2));
  t.rt.tick_all(0.1);       // call 0: agent 2 only
  t.rt.tick_all(0.1);       // call 1: both, at t = 0.1
  t.rt.tick(a, 1.0);        // agent 1 by 1 s at the call clock's 0.2: its clock is 1 s ahead after
  t.rt.tick(a, 1.0);
  t.rt.tick_all(0.1);       // call 2 (t = 0.2): agent 2 only
  t.rt.tick_all(0.1);       // call 3 (t = 0.3): agent 1 at 2.3 (it said 0.3, going back from 1.2)
  CHECK(t.rt.set_tick_every(a, 1));
  t.rt.tick_all(0.5);       // call 4 (t = 0.4)
  t.rt.tick_all(0.1);       // call 5 (t = 0.9): each agent's dt is the call's (it was 0.5 for agent 1)
  std::vector<std::string> one, two;
  for (const auto& l : printed) (l.rfind("agent 1 ", 0) == 0 ? one : two).push_back(l);
  CHECK(LogLines(one) == LogLines{"agent 1 tick 1 time 0.10 dt 0.10", "agent 1 tick 2 time 0.20 dt 1.00",
                                  "agent 1 tick 3 time 1.20 dt 1.00", "agent 1 woke at 1.20",
                                  "agent 1 tick 4 time 2.30 dt 1.10",
                                  "agent 1 tick 5 time 2.40 dt 0.50", "agent 1 tick 6 time 2.90 dt 0.10"});
  CHECK(LogLines(two) == LogLines{"agent 2 tick 1 time 0.00 dt 0.10", "agent 2 tick 2 time 0.10 dt 0.10",
                                  "agent 2 tick 3 time 0.20 dt 0.10", "agent 2 tick 4 time 0.30 dt 0.10",
                                  "agent 2 tick 5 time 0.40 dt 0.50", "agent 2 tick 6 time 0.90 dt 0.10"});
  (void)c;
}

TEST_CASE("time slicing: set back to 1 calls after its last tick, an agent's next dt covers the time since") {
  thicket_test::LuaRuntime t;
  std::vector<std::string> printed;
  auto b = load_unsliced_example(t, printed);
  auto a = t.rt.spawn(b);  // id 1: ticked at calls 1 and 4 with k = 3
  CHECK(t.rt.set_tick_every(a, 3));
  for (int k = 0; k < 6; ++k) t.rt.tick_all(0.1);  // calls 0..5, the last at t = 0.5
  CHECK(t.rt.set_tick_every(a, 1));  // its last tick was at 0.4 (call 4)
  CHECK(t.rt.tick_every(a) == 1);
  for (int k = 0; k < 3; ++k) t.rt.tick_all(0.1);  // calls 6..8: t = 0.6, 0.7, 0.8
  // Its dts add up to its clock: 0.2 at t = 0.6 (it was 0.1, and its clock stayed 0.1 behind).
  CHECK(LogLines(printed) == LogLines{"agent 1 tick 1 time 0.10 dt 0.10", "agent 1 tick 2 time 0.40 dt 0.30",
                                      "agent 1 tick 3 time 0.60 dt 0.20", "agent 1 tick 4 time 0.70 dt 0.10",
                                      "agent 1 tick 5 time 0.80 dt 0.10"});
  // Sliced again before that tick: it stays sliced, by the new k.
  auto c = t.rt.spawn(b);
  CHECK(t.rt.set_tick_every(c, 4));
  for (int k = 0; k < 3; ++k) t.rt.tick_all(0.1);
  CHECK(t.rt.set_tick_every(c, 1));
  CHECK(t.rt.set_tick_every(c, 2));
  printed.clear();
  for (int k = 0; k < 4; ++k) t.rt.tick_all(0.1);
  size_t c_ticks = 0;
  for (const auto& l : printed) c_ticks += l.rfind("agent 2 ", 0) == 0;
  CHECK(c_ticks == 2);
}

TEST_CASE("tick and tick_all refuse a dt that is not a positive number of seconds up to 1000000: the clocks stay right") {
  thicket_test::LuaRuntime t;
  auto b = t.load("tree: w\nroot: {wait: 0.5}\n");
  auto a = t.rt.spawn(b);
  for (int i = 0; i < 3; ++i) t.rt.tick_all(0.1);
  t.rt.tick_all(std::nan(""));  // a frame timer's 0/0
  t.rt.tick_all(0.0);
  t.rt.tick_all(-1.0, [](size_t n, const std::function<void(size_t)>& job) {
    for (size_t i = 0; i < n; ++i) job(i);
  });
  CHECK(t.rt.tick(a, std::numeric_limits<double>::infinity()) == Status::Invalid);
  t.rt.tick_all(std::numeric_limits<double>::max());  // the clocks would be inf after two ticks
  CHECK(t.rt.agent_ticks() == 3);
  REQUIRE(t.log.size() == 5);
  CHECK(t.log[0] == "error: tick_all: dt must be a positive number of seconds, at most 1000000, got nan; nothing ticked");
  CHECK(t.log[3] == "error: tick: dt must be a positive number of seconds, at most 1000000, got inf; nothing ticked");
  CHECK(t.log[4] == "error: tick_all: dt must be a positive number of seconds, at most 1000000, got 1.7976931348623157e+308; nothing ticked");
  // The value as it was given: "1e+06" read as if 1000000 itself were refused.
  t.rt.tick_all(1000000.5);
  REQUIRE(t.log.size() == 6);
  CHECK(t.log[5] == "error: tick_all: dt must be a positive number of seconds, at most 1000000, got 1000000.5; nothing ticked");
  t.rt.tick_all(0.1);
  t.rt.tick_all(0.1);
  CHECK(t.rt.status(a) == Status::Running);  // at 0.4
  t.rt.tick_all(0.1);
  CHECK(t.rt.status(a) == Status::Success);  // at 0.5 (after a NaN, never)
}

namespace {
const char* kStatefulYaml = R"(tree: stateful
leaves: [stateful.lua]
blackboard: {note: {type: any}, n: {type: integer, default: 0}}
root:
  sequence:
    - action: Say
    - action: Count
)";
const char* kStatefulLua = R"(local thicket = require("thicket")
local leaves = {}
function leaves.Say(agent)
  agent.bb.n = agent.bb.n + 1
  agent.bb.note = "note " .. agent.bb.n
  print("v1 agent " .. agent.id .. " " .. agent.bb.note)
  return true
end
leaves.Count = {
  start = function(agent, args, mem) mem.k = 0 end,
  tick = function(agent, args, mem)
    mem.k = mem.k + 1
    print("agent " .. agent.id .. " count " .. mem.k)
    if mem.k == 4 then return thicket.SUCCESS end
    return thicket.RUNNING
  end,
}
return leaves
)";

struct Stateful {
  const ScratchDir& dir;  // snapshots name brains by their file: one folder for all runtimes
  std::vector<std::string> printed;
  std::unique_ptr<Runtime> rt;
  BrainHandle brain;
  Stateful(const ScratchDir& folder, uint32_t states, bool spawn = true) : dir(folder) {
    dir.write("stateful.lua", kStatefulLua);
    RuntimeOptions o;
    o.script_states = states;
    o.log = [](const std::string&) {};
    rt = std::make_unique<Runtime>(o);
    rt->impl().print_sink = [this](const std::string& l) { printed.push_back(l); };
    std::vector<thicket::Diagnostic> d;
    auto b = rt->load_file(dir.write("stateful.yaml", kStatefulYaml).string(), d);
    REQUIRE(b.has_value());
    brain = *b;
    if (spawn)
      for (int i = 0; i < 40; ++i) rt->spawn(brain);
  }
};
}  // namespace

TEST_CASE("script states: a hot reload reaches every state; snapshots move agents between runtimes of any states") {
  ScratchDir dir;
  SUBCASE("reload") {
    Stateful s(dir, 3);
    s.rt->tick_all(0.1, scrambled(3, 1));
    std::string lua = kStatefulLua;
    lua.replace(lua.find("print(\"v1"), 9, "print(\"v2");
    s.dir.write("stateful.lua", lua);
    CHECK(s.rt->reload_files({(s.dir.path() / "stateful.lua").string()}) == 1);
    s.printed.clear();
    for (int t = 0; t < 5; ++t) s.rt->tick_all(0.1, scrambled(3, 2 + t));  // Say runs again at tick 6
    size_t v2 = 0;
    for (const auto& l : s.printed) {
      CHECK(l.rfind("v1", 0) != 0);
      v2 += l.rfind("v2", 0) == 0;
    }
    CHECK(v2 == 40);  // every agent, whatever its state
  }
  SUBCASE("snapshots") {
    Stateful whole(dir, 3);
    for (int t = 0; t < 10; ++t) whole.rt->tick_all(0.1, scrambled(2, t));
    for (uint32_t from : {1u, 3u}) {
      for (uint32_t to : {1u, 2u, 3u}) {
        Stateful a(dir, from);
        for (int t = 0; t < 5; ++t) a.rt->tick_all(0.1, scrambled(2, t));
        std::ostringstream saved;
        REQUIRE(a.rt->save(saved));
        Stateful b(dir, to, false);
        b.printed = a.printed;
        std::istringstream in(saved.str());
        std::vector<thicket::Diagnostic> d;
        const bool restored = b.rt->restore(in, d);
        for (const auto& x : d) INFO(x.message);
        REQUIRE(restored);
        for (int t = 5; t < 10; ++t) b.rt->tick_all(0.1, scrambled(2, t));
        INFO("from ", from, " states to ", to);
        CHECK(LogLines(b.printed) == LogLines(whole.printed));
        auto agent = b.rt->find_agent(17);
        REQUIRE(agent.has_value());
        CHECK(std::get<std::string>(*b.rt->get(*agent, "note")) == "note 3");  // Say ran at ticks 1, 5 and 9
      }
    }
  }
}

TEST_CASE("script states outside 1 to 64 are brought into range, and the log says so") {
  for (uint32_t asked : {0u, 65u, 1000u}) {
    CAPTURE(asked);
    std::vector<std::string> lines;
    thicket::RuntimeOptions o;
    o.script_states = asked;
    o.log = [&](const std::string& line) { lines.push_back(line); };
    thicket::Runtime rt(o);
    const std::string made = asked == 0 ? "1" : "64";
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "warning: script_states " + std::to_string(asked) + " is outside 1 to 64: " + made + " made");
  }
  std::vector<std::string> lines;
  thicket::RuntimeOptions o;
  o.script_states = 64;
  o.log = [&](const std::string& line) { lines.push_back(line); };
  thicket::Runtime rt(o);
  CHECK(lines.empty());
}

TEST_CASE("a native leaf that throws ends its agent's tick; the others tick; tick_all rethrows the first in agent order") {
  for (int threaded = 0; threaded < 2; ++threaded) {
    Runtime rt;
    static std::atomic<int> calls[400];
    for (auto& c : calls) c = 0;
    thicket::NativeLeafFn act;
    act.tick = [](thicket::LeafContext& c, void*) {
      ++calls[c.agent_id()];
      if (c.tick() == 1 && c.agent_id() % 50 == 7) throw std::runtime_error("boom " + std::to_string(c.agent_id()));
      return Status::Running;
    };
    rt.register_leaf("Act", act);
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string("tree: t\nroot: {action: Act}\n", "t.yaml", d);
    REQUIRE(b.has_value());
    for (int i = 0; i < 300; ++i) rt.spawn(*b);
    auto tick = [&] {
      if (threaded) rt.tick_all(0.1, scrambled(3, 7));
      else rt.tick_all(0.1);
    };
    CHECK_THROWS_WITH_AS(tick(), "boom 7", std::runtime_error);
    for (uint32_t id = 1; id <= 300; ++id) CHECK(calls[id] == 1);
    CHECK_NOTHROW(tick());
    CHECK(calls[300] == 2);
    CHECK(rt.agent_ticks() == 600);
  }
}

TEST_CASE("a stop hook that throws: the abort or despawn completes, each stop runs once, then the exception comes out") {
  Runtime rt;
  static int stops[3];
  for (int& n : stops) n = 0;
  thicket::NativeLeafFn act;
  act.tick = [](thicket::LeafContext&, void*) { return Status::Running; };
  act.stop = [](thicket::LeafContext& c, Status, void* u) {
    const int which = static_cast<int>(reinterpret_cast<intptr_t>(u));
    ++stops[which];
    if (which == 0) throw std::runtime_error("stop boom " + std::to_string(c.agent_id()));
  };
  act.user = reinterpret_cast<void*>(intptr_t{0});
  rt.register_leaf("Boom", act);
  act.user = reinterpret_cast<void*>(intptr_t{1});
  rt.register_leaf("Quiet", act);
  std::vector<thicket::Diagnostic> d;
  auto both = rt.load_string("tree: p\nroot: {parallel: [{action: Boom}, {action: Quiet}]}\n", "p.yaml", d);
  REQUIRE(both.has_value());
  // A despawn: the agent is gone (it stayed, half stopped, and a second despawn stopped Boom again).
  const auto a = rt.spawn(*both);
  rt.tick_all(0.1);
  CHECK_THROWS_WITH_AS(rt.despawn(a), "stop boom 1", std::runtime_error);
  CHECK(stops[0] == 1);
  CHECK(stops[1] == 1);
  CHECK(rt.agent_count() == 0);
  CHECK_FALSE(rt.find_agent(1).has_value());
  CHECK(rt.status(a) == Status::Invalid);
  rt.despawn(a);  // stale: nothing
  CHECK(stops[0] == 1);
  // An abort during a tick: a guard that turns true aborts the running branch; its stops run
  // once, the tick_all throws, and the next tick does not stop the branch again.
  auto guarded = rt.load_string(
      "tree: g\nblackboard: {alarm: false}\nroot:\n  active_selector:\n    - sequence: [{condition: {check: alarm}}, {wait: 5}]\n"
      "    - parallel: [{action: Boom}, {action: Quiet}]\n",
      "g.yaml", d);
  REQUIRE(guarded.has_value());
  const auto g = rt.spawn(*guarded);
  rt.tick_all(0.1);
  CHECK(rt.running_nodes(g).size() >= 2);
  CHECK(rt.set(g, "alarm", true));
  CHECK_THROWS_WITH_AS(rt.tick_all(0.1), "stop boom 2", std::runtime_error);
  CHECK(stops[0] == 2);
  CHECK(stops[1] == 2);
  CHECK_NOTHROW(rt.tick_all(0.1));
  CHECK(stops[0] == 2);
  CHECK(stops[1] == 2);
}

TEST_CASE("Runtime::on_print takes Lua print lines") {
  thicket_test::LuaRuntime t;
  t.write("p.lua", "local leaves = {}\nfunction leaves.P(agent) print('hello', agent.id, nil) return true end\nreturn leaves\n");
  std::vector<std::string> printed;
  t.rt.on_print([&](const std::string& l) { printed.push_back(l); });
  auto b = t.load("tree: p\nleaves: [p.lua]\nroot: {action: P}\n");
  t.rt.spawn(b);
  t.rt.tick_all(0.1);
  CHECK(LogLines(printed) == LogLines{"hello\t1\tnil"});
  // A __tostring that raises: the leaf fails with the error, nothing is printed, nothing leaks
  // (the ASan build's leak check covers print and thicket.log raising mid-way).
  t.write("q.lua", "local leaves = {}\nlocal bad = setmetatable({}, {__tostring = function() error('no text') end})\n"
                   "function leaves.Q(agent) print('x', bad) return true end\n"
                   "function leaves.L(agent) require('thicket').log('x', bad) return true end\nreturn leaves\n");
  auto q = t.load("tree: q\nleaves: [q.lua]\nroot: {sequence: [{action: Q}]}\n", "q.yaml");
  auto l = t.load("tree: l\nleaves: [q.lua]\nroot: {sequence: [{action: L}]}\n", "l.yaml");
  t.rt.spawn(q);
  t.rt.spawn(l);
  const uint64_t before = t.rt.script_errors();
  t.rt.tick_all(0.1);
  CHECK(t.rt.script_errors() == before + 2);
  CHECK(LogLines(printed) == LogLines{"hello\t1\tnil", "hello\t1\tnil"});  // agent 1's line again, no other
}

TEST_CASE("print and thicket.log take any number of arguments, in a leaf and in a task") {
  // Each argument used to take two Lua stack slots past the twenty Lua grants a C function:
  // 40 arguments crashed the host (ASan: a write past the stack).
  // No time limit: under TSan on a loaded machine the 5,000-argument calls once took past the
  // 50 ms one (a script error, and no line after the first); what is tested is not time.
  thicket::RuntimeOptions o;
  o.leaf_timeout = 0;
  thicket_test::LuaRuntime t(o);
  t.write("many.lua",
          "local thicket = require('thicket')\nlocal leaves = {}\n"
          "local function many() local t = {} for i = 1, 5000 do t[i] = i end return t end\n"
          "function leaves.P(agent) print(table.unpack(many())) thicket.log(table.unpack(many())) return true end\n"
          "leaves.T = thicket.task(function(agent) print(table.unpack(many(), 1, 300)) return true end)\n"
          "function leaves.R(agent) print(math.type(math.random(0)), math.random(0) ~= math.random(0)) return true end\n"
          "return leaves\n");
  std::vector<std::string> printed, logged;
  t.rt.on_print([&](const std::string& l) { printed.push_back(l); });
  auto b = t.load("tree: many\nleaves: [many.lua]\nroot: {sequence: [{action: P}, {action: T}, {action: R}]}\n", "many.yaml");
  t.rt.spawn(b);
  t.rt.tick_all(0.1);
  INFO(t.joined_log().substr(0, 2000));  // (a script error says why; once under TSan on a loaded machine)
  CHECK(t.rt.script_errors() == 0);
  std::string all_5000 = "1", first_300 = "1";
  for (int i = 2; i <= 5000; ++i) all_5000 += "\t" + std::to_string(i);
  for (int i = 2; i <= 300; ++i) first_300 += "\t" + std::to_string(i);
  REQUIRE(printed.size() == 3);
  CHECK(printed[0] == all_5000);
  CHECK(printed[1] == first_300);
  CHECK(printed[2] == "integer\ttrue");  // Lua 5.4's math.random(0): all 64 bits random
  CHECK(t.joined_log().find("agent 1: " + all_5000) != std::string::npos);
}

TEST_CASE("a blackboard write of the wrong type names the declared type and the value's, and the declared keys") {
  thicket_test::LuaRuntime t;
  t.write("w.lua", "local leaves = {}\nfunction leaves.I(agent) agent.bb.alert = 3 return true end\n"
                   "function leaves.S(agent) agent.bb.alert = 'yes' return true end\n"
                   "function leaves.N(agent) agent.bb.alert = nil return true end\nreturn leaves\n");
  const std::string bb = "blackboard: {alert: false, hp: 10}\n";
  auto b = t.load("tree: w\nleaves: [w.lua]\n" + bb + "root: {sequence: [{action: I}]}\n", "i.yaml");
  auto c = t.load("tree: w\nleaves: [w.lua]\n" + bb + "root: {sequence: [{action: S}]}\n", "s.yaml");
  auto d = t.load("tree: w\nleaves: [w.lua]\n" + bb + "root: {sequence: [{action: N}]}\n", "n.yaml");
  t.rt.spawn(b);
  t.rt.spawn(c);
  t.rt.spawn(d);
  t.rt.tick_all(0.1);
  const std::string log = t.joined_log();
  // SPEC 6: "raises a Lua error naming the key and the declared keys".
  CHECK(log.find("w.lua:2: blackboard key 'alert' is declared boolean; cannot set it to an integer (3) (declared: alert, hp)\n") !=
        std::string::npos);
  CHECK(log.find("w.lua:3: blackboard key 'alert' is declared boolean; cannot set it to a string ('yes') (declared: alert, hp)\n") !=
        std::string::npos);
  CHECK(log.find("w.lua:4: blackboard key 'alert' is declared boolean; cannot set it to nil (a declared key always holds a value: "
                 "set its default instead; declared: alert, hp)\n") != std::string::npos);
}

TEST_CASE("StringTable: threads intern at once and agree on every id") {
  thicket::StringTable table;
  constexpr int kThreads = 4, kStrings = 3000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kStrings));
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)  // the later rounds hit the thread's cache
        for (int i = 0; i < kStrings; ++i) {
          const int k = (i * 7 + t * 1000) % kStrings;
          const uint32_t id = table.intern("s" + std::to_string(k));
          if (table.get(id) != "s" + std::to_string(k)) ids[t][k] = UINT32_MAX;
          else if (round == 0) ids[t][k] = id;
          else if (ids[t][k] != id) ids[t][k] = UINT32_MAX - 1;
        }
    });
  for (auto& th : pool) th.join();
  CHECK(table.size() == kStrings + 1);  // and ""
  for (int t = 1; t < kThreads; ++t) CHECK(ids[t] == ids[0]);
  CHECK(std::find(ids[0].begin(), ids[0].end(), UINT32_MAX) == ids[0].end());
}

TEST_CASE("thicket.spawn, despawn and send refuse bad arguments with a clear message") {
  thicket_test::LuaRuntime t;
  t.write("bad.lua", R"(local thicket = require("thicket")
local leaves = {}
function leaves.Try(agent)
  thicket.log("@" .. tostring(select(2, pcall(function() return thicket.spawn("spawnr") end))))
  thicket.log("@" .. tostring(select(2, pcall(thicket.spawn, "spawner", {}, 0))))
  thicket.log("@" .. tostring(select(2, pcall(thicket.send, 1, ""))))
  thicket.log("@despawn 42 " .. tostring(thicket.despawn(42)))
  thicket.log("@send 42 " .. tostring(thicket.send(42, "x")))
  return true
end
return leaves
)");
  auto b = t.load("tree: spawner\nleaves: [bad.lua]\nroot: {action: Try}\n");
  t.rt.spawn(b);
  t.rt.tick_all(0.1);
  const LogLines got = t.marks();
  REQUIRE(got.size() == 5);
  CHECK(got[0].find("bad.lua:4: thicket.spawn: no loaded brain is called 'spawnr'; did you mean 'spawner'?") != std::string::npos);
  CHECK(got[1].find("an agent id is a whole number from 1") != std::string::npos);
  CHECK(got[2].find("an event name must not be empty") != std::string::npos);
  CHECK(got[3] == "despawn 42 false");
  CHECK(got[4] == "send 42 false");
  CHECK(t.rt.agent_count() == 1);  // nothing was spawned
}

TEST_CASE("thicket.spawn stops at RuntimeOptions::max_script_agents; the game's own spawns do not") {
  // Each agent spawns 10 agents a tick: 1, 11, 121, ... without the cap.
  const char* breeder = R"(local thicket = require("thicket")
local leaves = {}
function leaves.Breed(agent)
  for _ = 1, 10 do thicket.spawn("breeder") end
  return true
end
return leaves
)";
  for (const bool threaded : {false, true}) {
    CAPTURE(threaded);
    thicket::RuntimeOptions o;
    o.max_script_agents = 30;
    o.script_states = threaded ? 4 : 1;
    thicket_test::LuaRuntime t(o);
    t.write("breed.lua", breeder);
    auto b = t.load("tree: breeder\nleaves: [breed.lua]\nroot: {action: Breed}\n");
    t.rt.spawn(b);
    for (int k = 0; k < 4; ++k) {
      if (threaded) t.rt.tick_all(0.1, scrambled(4, 7 + k));
      else t.rt.tick_all(0.1);
    }
    // One at a time the cap is exact; jobs on 4 threads may each pass it by one at the same moment.
    if (threaded) {
      CHECK(t.rt.agent_count() >= 30);
      CHECK(t.rt.agent_count() <= 33);
    } else {
      CHECK(t.rt.agent_count() == 30);
    }
    CHECK(t.rt.script_errors() > 0);
    bool said = false;
    for (const auto& l : t.log) said |= l.find("counting the spawns queued this tick; scripts may spawn up to 30;") != std::string::npos;
    CHECK(said);
    const size_t before = t.rt.agent_count();
    CHECK(t.rt.spawn(b).valid());  // the game's spawn is not refused
    CHECK(t.rt.agent_count() == before + 1);
  }
  // 0 lifts the cap: 1 + 10 + 110 agents after two ticks.
  thicket::RuntimeOptions o;
  o.max_script_agents = 0;
  thicket_test::LuaRuntime t(o);
  t.write("breed.lua", breeder);
  auto b = t.load("tree: breeder\nleaves: [breed.lua]\nroot: {action: Breed}\n");
  t.rt.spawn(b);
  t.rt.tick_all(0.1);
  t.rt.tick_all(0.1);
  CHECK(t.rt.agent_count() == 121);
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("thicket.spawn stops at RuntimeOptions::max_script_state_bytes, the agents' node state; the game's spawns do not") {
  // A leaf spawning a big brain in a loop took the host's memory long before the agent cap (a
  // 70,000-node brain is 545 KB an agent). The cap is in bytes of agent blocks: with it at the
  // first agent's block, every script spawn is refused, with the figures; 0 lifts it.
  const char* breeder = R"(local thicket = require("thicket")
local leaves = {}
function leaves.Breed(agent)
  thicket.spawn("breeder")
  return true
end
return leaves
)";
  for (const size_t cap : {size_t(1), size_t(0)}) {
    CAPTURE(cap);
    thicket::RuntimeOptions o;
    o.max_script_state_bytes = cap;
    thicket_test::LuaRuntime t(o);
    t.write("breed.lua", breeder);
    auto b = t.load("tree: breeder\nleaves: [breed.lua]\nroot: {action: Breed}\n");
    CHECK(t.rt.spawn(b).valid());  // the game's spawn: never refused
    t.rt.tick_all(0.1);
    t.rt.tick_all(0.1);
    bool said = false;
    for (const auto& l : t.log)
      said |= l.find("breed.lua:4: thicket.spawn: the agents' node state would pass 0 MiB (0 MiB now, and an agent of "
                     "brain breeder takes 1 KiB); no agent spawned") != std::string::npos;
    if (cap == 1) {
      CHECK(t.rt.agent_count() == 1);
      CHECK(said);
      CHECK(t.rt.script_errors() == 2);
    } else {
      CHECK(t.rt.agent_count() == 4);  // 1, 2, 4
      CHECK(t.rt.script_errors() == 0);
    }
  }
}

TEST_CASE("a leaf that loads, restores, reloads, registers or saves during a tick is refused, and the tick goes on") {
  // Each would change the brains or agents the tick is walking (a load from a C leaf crashed).
  std::vector<std::string> log;
  thicket::RuntimeOptions o;
  o.log = [&](const std::string& l) { log.push_back(l); };
  thicket::Runtime rt(o);
  std::vector<thicket::Diagnostic> loaded, restored;
  bool loaded_ok = false, restored_ok = true, saved_mid = true;
  std::string snapshot;
  rt.register_leaf("Meddle", thicket::NativeLeaf{[&](thicket::LeafContext&) {
                     for (int k = 0; k < 50; ++k)  // enough brains to move the brain array, if it were let
                       if (rt.load_string("tree: x" + std::to_string(k) + "\nroot: {action: Meddle}\n", "x.yaml", loaded))
                         loaded_ok = true;
                     std::istringstream in(snapshot);
                     restored_ok = rt.restore(in, restored);
                     std::ostringstream half;  // the agents half ticked: refused
                     saved_mid = rt.save(half);
                     rt.register_leaf("Late", thicket::NativeLeaf{[](thicket::LeafContext&) { return thicket::Status::Success; }});
                     CHECK(rt.reload_changed() == 0);
                     return thicket::Status::Success;
                   }});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string("tree: m\nroot: {action: Meddle}\n", "m.yaml", d);
  REQUIRE(b);
  rt.spawn(*b);
  std::ostringstream out;
  REQUIRE(rt.save(out));
  snapshot = out.str();
  rt.tick_all(0.1);
  CHECK_FALSE(loaded_ok);
  CHECK_FALSE(restored_ok);
  CHECK_FALSE(saved_mid);
  REQUIRE(loaded.size() == 50);
  CHECK(thicket::format_diagnostic(loaded[0]) ==
        "x.yaml: error: load_string cannot be called during a tick (from a leaf): call it before or after tick_all");
  REQUIRE(restored.size() == 1);
  CHECK(restored[0].message == "restore cannot be called during a tick (from a leaf): call it before or after tick_all");
  CHECK(rt.brain_count() == 1);
  CHECK(rt.agent_ticks() == 1);
  bool late = false;
  bool unsaved = false;
  for (const auto& l : log) late = late || l.find("error: register_leaf cannot be called during a tick") == 0;
  for (const auto& l : log) unsaved = unsaved || l == "error: snapshot not saved: save cannot be called during a tick (from a leaf): call it before or after tick_all";
  CHECK(late);
  CHECK(unsaved);
  // Nor can a leaf tick: its agent would be ticked inside its own walk, and a leaf that always
  // does would recurse until the stack overflows. Refused, logged, nothing ticked.
  log.clear();
  thicket::Runtime rt2(o);
  thicket::AgentHandle self;
  Status inner = Status::Success;
  rt2.register_leaf("Recurse", thicket::NativeLeaf{[&](thicket::LeafContext&) {
                      rt2.tick_all(0.1);
                      inner = rt2.tick(self, 0.1);
                      return Status::Running;
                    }});
  auto rb = rt2.load_string("tree: r\nroot: {action: Recurse}\n", "r.yaml", d);
  REQUIRE(rb);
  self = rt2.spawn(*rb);
  rt2.tick_all(0.1);
  CHECK(rt2.agent_ticks() == 1);
  CHECK(inner == Status::Invalid);
  REQUIRE(log.size() == 2);
  CHECK(log[0] == "error: tick_all cannot be called during a tick (from a leaf): call it before or after tick_all");
  CHECK(log[1] == "error: tick cannot be called during a tick (from a leaf): call it before or after tick_all");
  // Between ticks, all of it works.
  CHECK(rt.load_string("tree: y\nroot: {action: Meddle}\n", "y.yaml", d).has_value());
}

TEST_CASE("stop hooks run between ticks (despawn, reload, restore) are a tick's leaves: their calls wait, loads and ticks are refused") {
  // The runtime holds pointers into its agent and brain arrays while it runs those hooks: a
  // spawn from one grew them under it (use after free), a despawn of its own agent despawned
  // it again from inside (the agent count went negative, two spawns got one handle).
  std::vector<std::string> log;
  RuntimeOptions o;
  o.log = [&](const std::string& l) { log.push_back(l); };
  Runtime rt(o);
  std::vector<thicket::Diagnostic> d;
  BrainHandle loot{0};
  std::string snapshot;
  int stops = 0;
  std::vector<bool> spawned_at_once;
  bool restored = true, loaded = false;
  Status inner = Status::Success;
  rt.register_leaf("Guard", thicket::NativeLeaf{
                                .tick = [](thicket::LeafContext&) { return Status::Running; },
                                .stop =
                                    [&](thicket::LeafContext& c, Status) {
                                      ++stops;
                                      auto me = rt.find_agent(c.agent_id());
                                      REQUIRE(me.has_value());
                                      // enough spawns to move the agent array, if they were made at once
                                      for (int k = 0; k < 64; ++k) spawned_at_once.push_back(rt.spawn(loot).valid());
                                      rt.despawn(*me);  // its own agent, again
                                      inner = rt.tick(*me, 0.1);
                                      std::istringstream in(snapshot);
                                      std::vector<thicket::Diagnostic> r;
                                      restored = rt.restore(in, r);
                                      loaded = rt.load_string("tree: z\nroot: {action: Guard}\n", "z.yaml", r).has_value();
                                      rt.register_leaf("Late", thicket::NativeLeaf{[](thicket::LeafContext&) { return Status::Success; }});
                                    },
                            });
  ScratchDir dir;
  auto guard = rt.load_file(dir.write("guard.yaml", "tree: guard\nroot: {action: Guard}\n").string(), d);
  auto l = rt.load_string("tree: loot\nroot: {condition: Guard}\n", "loot.yaml", d);
  REQUIRE(guard);
  REQUIRE(l);
  loot = *l;
  const AgentHandle a = rt.spawn(*guard);
  rt.spawn(*guard);
  std::ostringstream out;
  REQUIRE(rt.save(out));
  snapshot = out.str();
  rt.tick_all(0.1);  // both guards run

  rt.despawn(a);  // the game's despawn, between ticks
  CHECK(stops == 1);
  CHECK(std::count(spawned_at_once.begin(), spawned_at_once.end(), true) == 0);  // made after the hooks
  CHECK(rt.agent_count() == 1 + 64);
  CHECK(inner == Status::Invalid);
  CHECK_FALSE(restored);
  CHECK_FALSE(loaded);
  CHECK(rt.brain_count() == 2);
  CHECK(std::count_if(log.begin(), log.end(), [](const std::string& l) {
          return l.rfind("error: register_leaf cannot be called during a tick (from a leaf)", 0) == 0 ||
                 l.rfind("error: tick cannot be called during a tick (from a leaf)", 0) == 0;
        }) == 2);
  // Between ticks again: the next spawn has a slot and a handle of its own.
  const AgentHandle x = rt.spawn(loot), y = rt.spawn(loot);
  CHECK(x.valid());
  CHECK(y.valid());
  CHECK(rt.agent_id(x) != rt.agent_id(y));
  CHECK(rt.agent_count() == 1 + 64 + 2);

  SUBCASE("a reload's stop hooks (the running node is gone)") {
    spawned_at_once.clear();
    stops = 0;
    dir.rewrite("guard.yaml", "tree: guard\nroot: {condition: Guard}\n");
    REQUIRE(rt.reload_changed() == 1);
    CHECK(stops == 1);  // the other guard's running action
    CHECK(std::count(spawned_at_once.begin(), spawned_at_once.end(), true) == 0);
    CHECK(rt.agent_count() == 64 + 2 + 64);  // the guard despawned itself after the hooks
  }
}

namespace {
// A quiet runtime with brain g (root: the native action Go, which succeeds), for the trace
// sink cases below.
struct GoRuntime {
  RuntimeOptions quiet() {
    RuntimeOptions o;
    o.log = [](const std::string&) {};
    return o;
  }
  Runtime rt{quiet()};
  std::vector<thicket::Diagnostic> d;
  std::optional<thicket::BrainHandle> b;
  GoRuntime() {
    rt.register_leaf("Go", thicket::NativeLeaf{[](thicket::LeafContext&) { return Status::Success; }});
    b = rt.load_string("tree: g\nroot: {action: Go}\n", "g.yaml", d);
    REQUIRE(b);
  }
};
}  // namespace

TEST_CASE_FIXTURE(GoRuntime, "a trace sink that throws ends the tick_all with its exception, and the next tick_all runs") {
  rt.spawn(*b);
  int traced = 0;
  rt.on_trace([&](const TraceEvent&) {
    if (++traced == 1) throw std::runtime_error("sink failed");
  });
  CHECK_THROWS_AS(rt.tick_all(0.1), std::runtime_error);
  const uint64_t before = rt.agent_ticks();
  rt.tick_all(0.1);  // refused for good before: "tick_all cannot be called during a tick"
  CHECK(rt.agent_ticks() > before);
  CHECK(rt.load_string("tree: h\nroot: {action: Go}\n", "h.yaml", d).has_value());
}

TEST_CASE("a trace sink that throws: the tick_all goes on to its end, then throws it, and both forms agree") {
  // It threw through the tick: the agents after the one traced went unticked (plain), the
  // spawns and despawns leaves had queued were lost (executor), and the call's ticks were
  // counted in a later one. Now: every agent ticks, the queue is carried out, agent_ticks
  // counts this call, the sink is not called again in it, and its exception comes out last.
  for (const bool with_executor : {false, true}) {
    CAPTURE(with_executor);
    RuntimeOptions o;
    o.log = [](const std::string&) {};
    Runtime rt(o);
    std::vector<thicket::Diagnostic> d;
    int calls = 0;
    rt.register_leaf("Go", thicket::NativeLeaf{[&](thicket::LeafContext& c) {
      ++calls;
      if (c.agent_id() == 3) {  // queues a spawn and a despawn, as leaves do mid-tick
        rt.spawn(thicket::BrainHandle{0}, {}, 500);
        rt.despawn(*rt.find_agent(4));
      }
      return Status::Success;
    }});
    REQUIRE(rt.load_string("tree: g\nroot: {action: Go}\n", "g.yaml", d));
    for (int k = 0; k < 10; ++k) rt.spawn(thicket::BrainHandle{0});
    int traced = 0;
    rt.on_trace([&](const TraceEvent&) {
      ++traced;
      throw std::runtime_error("sink failed");
    });
    const Executor two = scrambled(2, 7);
    const uint64_t before = rt.agent_ticks();
    if (with_executor) CHECK_THROWS_WITH(rt.tick_all(0.1, two), "sink failed");
    else CHECK_THROWS_WITH(rt.tick_all(0.1), "sink failed");
    CHECK(calls == 10);  // every agent ticked
    CHECK(traced == 1);  // not called again in that call
    CHECK(rt.agent_ticks() == before + 10);
    CHECK(rt.find_agent(500).has_value());  // the queue carried out
    CHECK_FALSE(rt.find_agent(4).has_value());
    rt.on_trace({});
    rt.tick_all(0.1);
    CHECK(rt.agent_ticks() == before + 20);  // (10 agents again: 4 gone, 500 come)
  }
}

TEST_CASE("a trace sink called by an executor's tick_all is still in the tick: tick_all, tick and loads are refused") {
  // The executor's form hands its trace over after the jobs, once its tick flag was down: a
  // sink's tick_all ran a second frame inside the first (a despawned agent ticked again), and
  // its tick and load_string were obeyed where tick_all(dt)'s refused them.
  RuntimeOptions o;
  std::string log;
  o.log = [&](const std::string& line) { log += line + "\n"; };
  Runtime rt(o);
  std::vector<thicket::Diagnostic> d;
  int calls = 0;
  rt.register_leaf("Go", thicket::NativeLeaf{[&](thicket::LeafContext&) { ++calls; return Status::Success; }});
  REQUIRE(rt.load_string("tree: g\nroot: {action: Go}\n", "g.yaml", d));
  const thicket::AgentHandle a = rt.spawn(thicket::BrainHandle{0});
  rt.spawn(thicket::BrainHandle{0});
  bool inside = false;
  std::optional<thicket::BrainHandle> loaded;
  rt.on_trace([&](const TraceEvent&) {
    if (inside) return;
    inside = true;
    rt.tick_all(0.1, scrambled(2, 3));
    rt.tick(a, 0.1);
    std::vector<thicket::Diagnostic> diags;
    loaded = rt.load_string("tree: h\nroot: {action: Go}\n", "h.yaml", diags);
  });
  rt.tick_all(0.1, scrambled(2, 3));
  CHECK(calls == 2);  // one frame: the sink's tick_all and tick ran none
  CHECK_FALSE(loaded.has_value());
  CHECK(log.find("tick_all cannot be called during a tick") != std::string::npos);
}

TEST_CASE_FIXTURE(GoRuntime, "a trace sink that replaces or clears itself goes on safely; the new sink takes over when its call returns") {
  for (int k = 0; k < 4; ++k) rt.spawn(*b);
  std::vector<std::string> seen;
  auto second = [&seen](const TraceEvent& e) { seen.push_back("second " + std::to_string(e.agent)); };
  // The first sink's captured text is read after it set the next sink: replacing the running
  // std::function destroyed it (a heap use after free under ASan, garbage without).
  const std::string name(100, 'f');  // past the small-string buffer: on the heap of the capture
  rt.on_trace([this, &seen, second, name](const TraceEvent& e) {
    rt.on_trace(second);
    seen.push_back(name.substr(0, 5) + " " + std::to_string(e.agent));
  });
  rt.tick_all(0.1);
  CHECK(seen == std::vector<std::string>{"fffff 1", "second 2", "second 3", "second 4"});
  seen.clear();
  rt.on_trace([this, &seen, name](const TraceEvent& e) {
    rt.on_trace({});
    seen.push_back(name.substr(0, 5) + " " + std::to_string(e.agent));
  });
  rt.tick_all(0.1);
  rt.tick_all(0.1);
  CHECK(seen == std::vector<std::string>{"fffff 1"});
}

TEST_CASE("agent ids stop at 4294967294, so the id after the last one still fits a snapshot; automatic ids go on") {
  std::vector<std::string> log;
  thicket::RuntimeOptions o;
  o.log = [&](const std::string& l) { log.push_back(l); };
  thicket::Runtime rt(o);
  rt.register_leaf("Idle", thicket::NativeLeaf{[](thicket::LeafContext&) { return thicket::Status::Running; }});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string("tree: t\nroot: {action: Idle}\n", "t.yaml", d);
  REQUIRE(b);
  CHECK_FALSE(rt.spawn(*b, {}, 0xFFFFFFFFu).valid());
  CHECK(log.back() == "error: spawn: agent id 4294967295 is past the largest, 4294967294; no agent spawned");
  auto first = rt.spawn(*b);  // id 1
  auto last = rt.spawn(*b, {}, 0xFFFFFFFEu);
  REQUIRE(last.valid());
  // The automatic ids go on after the largest given: past it, they take ids no live agent has
  // (no agent at all could be spawned so after one chosen id, despawned or not).
  auto next = rt.spawn(*b);
  REQUIRE(next.valid());
  CHECK(rt.agent_id(next) == 2);
  CHECK(log.back().rfind("warning: spawn: automatic agent ids have passed the largest, 4294967294", 0) == 0);
  rt.despawn(first);
  CHECK(rt.agent_id(rt.spawn(*b)) == 3);  // the lowest free id past the last one given
  rt.tick_all(0.1);
  std::ostringstream out;
  REQUIRE(rt.save(out));
  std::istringstream in(out.str());
  CHECK(rt.restore(in, d));  // failed as "a bad slot or a repeated id" when id 4294967295 could be given
  CHECK(d.empty());
  CHECK(rt.find_agent(0xFFFFFFFEu).has_value());
}

TEST_CASE("script errors: which are printed is the same with one script state or several on threads") {
  // The repeat counts were kept per script state: a broken leaf's error was printed six times
  // per lane, so the log depended on the lanes and on which agents each ticked.
  ScratchDir dir;  // one folder: the messages name the file
  auto run = [&dir](uint32_t states, const Executor& executor) {
    dir.write("broken.lua", "return { Broken = function(agent) error('the door is jammed') end,\n"
                            "  Varied = function(agent) error('agent ' .. agent.id .. ' lost its way') end }\n");
    RuntimeOptions o;
    o.script_states = states;
    std::vector<std::string> log;
    o.log = [&](const std::string& l) { log.push_back(l); };
    Runtime rt(o);
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string("tree: broken\nleaves: [broken.lua]\nroot: {sequence: [{action: Broken}]}\n",
                            (dir.path() / "broken.yaml").string(), d);
    auto v = rt.load_string("tree: varied\nleaves: [broken.lua]\nroot: {sequence: [{action: Varied}]}\n",
                            (dir.path() / "varied.yaml").string(), d);
    REQUIRE(b.has_value());
    REQUIRE(v.has_value());
    for (int i = 0; i < 40; ++i) rt.spawn(i % 2 ? *b : *v);
    for (int t = 0; t < 3; ++t) {
      if (executor) rt.tick_all(0.1, executor);
      else rt.tick_all(0.1);
    }
    CHECK(rt.script_errors() == 120);
    return log;
  };
  const auto one = run(1, nullptr);
  size_t jammed = 0, varied = 0;
  for (const auto& l : one) {
    jammed += l.find("the door is jammed") != std::string::npos;
    varied += l.find("lost its way") != std::string::npos;
  }
  CHECK(jammed == 6);
  CHECK(varied == 20);
  CHECK(LogLines(run(3, scrambled(3, 5))) == LogLines(one));
  CHECK(LogLines(run(2, backwards())) == LogLines(one));
}

TEST_CASE("tick_all: a leaf's send storm keeps, per target, no more sends than the queue holds (and the one it logs)") {
  // 20,000 sends of one tick to agent 1 were all kept until the tick's end (a 40-ms storm on
  // 30 agents held 730 MB), for delivery to drop all but 4,096 (16,000 here: past 16,384 a
  // tick, an agent's sends are refused at the call: tests/e2e/guard_test.sh). The outcome is the same
  // either way, and with a trace sink, where each drop is a record, all are kept still.
  for (bool traced : {false, true}) {
    CAPTURE(traced);
    // No time limit: under TSan beside a fuzzer the 20,000 sends once took past the 50 ms one,
    // and the leaf was stopped after 18,376 of them; what is tested is not time.
    thicket::RuntimeOptions o;
    o.leaf_timeout = 0;
    thicket_test::LuaRuntime t(o);
    t.write("storm.lua", R"(
local thicket = require("thicket")
return {
  Storm = function(agent)
    if agent.id ~= 2 then return thicket.RUNNING end
    for i = 1, 8000 do thicket.send(1, "e") end
    for i = 1, 10 do thicket.send(3, "f") end
    for i = 1, 8000 do thicket.send(1, "e") end
    return thicket.RUNNING
  end,
}
)");
    auto b = t.load("fsm: storm\nleaves: [storm.lua]\ninitial: a\nstates:\n  a: {act: Storm}\n");
    for (int i = 0; i < 3; ++i) t.rt.spawn(b);
    size_t records = 0;
    if (traced) t.rt.on_trace([&](const thicket::TraceEvent& ev) { records += ev.queue_full; }, false);
    t.rt.tick_all(0.1);
    auto& impl = t.rt.impl();
    CHECK(impl.extras[0].events.size() == 4096);
    CHECK(impl.extras[2].events.size() == 10);
    const std::string log = t.joined_log();
    const std::string said = "its event queue holds 4096 events; event 'e' and any further ones are dropped";
    CHECK(log.find(said) != std::string::npos);
    CHECK(log.find(said) == log.rfind(said));  // once
    const size_t kept = std::max(impl.call_job.deferred.capacity(), impl.deferred_spare.capacity());
    if (traced) {
      CHECK(records == 16000 - 4096);
      CHECK(kept >= 16010);
    } else {
      CHECK(kept <= 8192);  // 4,096 + 1 + 10 kept, in a vector that doubles; 16,010: 16,384
    }
  }
}

TEST_CASE("tick_all: a send storm's count is the tick's own: the next tick's sends to that agent are kept") {
  // The count outlived the tick_all when another agent's deferred call (a despawn) came before
  // the storming agent's next send: its sends to the same agent were all dropped the tick after.
  thicket::RuntimeOptions o;  // no time limit, as above: 20,000 sends under TSan
  o.leaf_timeout = 0;
  thicket_test::LuaRuntime t(o);
  t.write("storm.lua", R"(
local thicket = require("thicket")
return {
  Storm = function(agent)
    if thicket.tick() == 1 and agent.id == 2 then for i = 1, 20000 do thicket.send(1, "e") end end
    if thicket.tick() == 2 and agent.id == 1 then thicket.despawn(4) end
    if thicket.tick() == 2 and agent.id == 2 then for i = 1, 10 do thicket.send(1, "e") end end
    return thicket.RUNNING
  end,
}
)");
  auto b = t.load("fsm: storm\nleaves: [storm.lua]\ninitial: a\nstates:\n  a: {act: Storm}\n");
  for (int i = 0; i < 4; ++i) t.rt.spawn(b);
  t.rt.tick_all(0.1);
  auto& impl = t.rt.impl();
  CHECK(impl.extras[0].events.size() == 4096);
  t.rt.tick_all(0.1);  // agent 1 takes 64 of them, then agent 2's 10 join
  CHECK(impl.extras[0].events.size() == 4096 - 64 + 10);
  CHECK(t.rt.agent_count() == 3);
}

TEST_CASE("spawn with id 0 and a path holding a NUL are said, not silently nothing or another file") {
  std::vector<std::string> log;
  thicket::RuntimeOptions o;
  o.log = [&](const std::string& l) { log.push_back(l); };
  Runtime rt(o);
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string("tree: t\nroot: {wait: 1}\n", "t.yaml", d);
  REQUIRE(b.has_value());
  CHECK_FALSE(rt.spawn(*b, {}, 0).valid());
  REQUIRE(log.size() == 1);
  CHECK(log[0].rfind("error: spawn: agent id 0 is no agent's (ids run from 1)", 0) == 0);
  CHECK_FALSE(rt.load_file(std::string("t.yaml\0junk", 11), d).has_value());
  CHECK(d.back().message == "the path holds a NUL byte after 't.yaml': no file has such a name");
}

TEST_CASE("LeafContext::get_number/set_number refuse a slot past the keys or of another type, and set_number a NaN") {
  // They wrote and read through any slot: an integer key took a double's bits, a slot past the
  // brain's keys reached the next agent's block.
  Runtime rt;
  static std::vector<std::string> seen;
  seen.clear();
  thicket::NativeLeafFn probe;
  probe.tick = [](thicket::LeafContext& c, void*) {
    if (c.agent_id() != 1) return Status::Success;
    auto said = [](bool b) { return std::string(b ? "true" : "false"); };
    seen.push_back("int " + said(c.set_number(1, 1e300)));
    seen.push_back("string " + said(c.set_number(2, 5)));
    seen.push_back("past " + said(c.set_number(3, 5)) + " " + said(c.set_number(1000000, 5)));
    seen.push_back("nan " + said(c.set_number(0, std::nan(""))));
    seen.push_back("number " + said(c.set_number(0, 7)));
    seen.push_back("reads " + std::to_string(c.get_number(0)) + " " + std::to_string(std::isnan(c.get_number(1))) + " " +
                   std::to_string(std::isnan(c.get_number(2))) + " " + std::to_string(std::isnan(c.get_number(3))));
    return Status::Success;
  };
  rt.register_leaf("Probe", probe);
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(
      "tree: t\nblackboard: {hp: 10, n: {type: integer, default: 7}, name: abc}\nroot: {action: Probe}\n", "t.yaml", d);
  REQUIRE(b.has_value());
  const auto one = rt.spawn(*b), two = rt.spawn(*b);
  rt.tick_all(0.1);
  CHECK(seen == std::vector<std::string>{"int false", "string false", "past false false", "nan false", "number true",
                                         "reads 7.000000 1 1 1"});
  CHECK(rt.get(one, "n") == std::optional<thicket::Value>(int64_t{7}));
  CHECK(rt.get(one, "name") == std::optional<thicket::Value>(std::string("abc")));
  CHECK(rt.get(two, "hp") == std::optional<thicket::Value>(10.0));
  CHECK(rt.get(two, "n") == std::optional<thicket::Value>(int64_t{7}));
  CHECK(rt.status(two) == Status::Success);
}
