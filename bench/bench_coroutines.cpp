// bench_coroutines: what do 10,000 agents, each with a live Lua coroutine task, cost per tick
// and in memory, beside the bare Lua coroutine API? What does cancelling and restarting a task
// cost? (SPEC 5, SPEC 7 thicket.task, SPEC 11; issue 4 "10k agents: measure memory and resume
// cost")
//
// Every task body is the same Lua function text, used both by thicket (wrapped in
// thicket.task) and by the bare baselines (returned by a chunk in a plain lua_State):
//     function(agent, args) while true do agent.n = (agent.n or 0) + 1; coroutine.yield() end end
// so one agent-tick is one resume that does one table read-modify-write and yields.
//
// Rows, each a world of 10,000 agents, all timed in the same run, interleaved rep by rep:
//   bare-co       C++ loop over 10,000 lua_newthread coroutines of that function, lua_resume
//                 once each per tick (baseline a: the bare cost of a resume)
//   bare-pcall    C++ loop calling the plain-function version once per agent with lua_pcall
//                 (the bare cost of baseline b's leaf call)
//   machine       thicket `machine:` brain, one behavior {check: Always, run: Loop};
//                 check_every 1e6 s, so after the first tick every tick is one resume only
//   machine+chk   the same, checked every tick (check_every omitted) with a native check leaf
//   machine+lchk  the same, checked every tick with the Lua check leaf Always
//   machine-bb    as machine, the body doing `bb.n = bb.n + 1` on the typed blackboard instead
//   tree-task     the task as the only node of a `tree:` (a running action)
//   tree-plain    baseline b: the behavior as a plain (non-coroutine) Lua function leaf
//                 returning RUNNING, the only node of a tree
// Switching (cancel + restart), checks every tick with native leaves:
//   bare-switch   per agent per tick: lua_closethread, push the function, lua_resume with args
//   bare-sw+close the same with the <close> task below (and a copy of thicket.defer's Lua code)
//   steady        machine [{check: Never, run: Loop}, {check: Always, run: Loop}]: no switch
//   switch        machine [{check: EvenTick, run: Loop}, {check: Always, run: Loop}]: every tick
//                 the other behavior wins, so the running task is cancelled (its coroutine
//                 closed) and the other one starts (a pooled coroutine, first resume)
//   switch+close  the same with a task holding a `<close>` thicket.defer, which cancellation runs
//
// Memory per agent: the Lua heap (lua_gc LUA_GCCOUNT/COUNTB after a full collection) before
// spawning and after spawning 10,000 agents and ticking them once (so every coroutine exists),
// divided by 10,000; also all malloc'd bytes (mallinfo2().uordblks: Lua heap plus C++ state
// blocks) over the same span, and Runtime::bytes_per_agent (the C++ state block and AgentInfo);
// and the time of one full collection of each world's Lua state (what 10k live coroutines cost
// the garbage collector: every cycle traverses every thread's stack).
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <lua.hpp>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"

namespace {

using namespace bench;
using thicket::Status;

constexpr size_t kAgents = 10000;

// ---- the Lua text shared by thicket and the bare baselines --------------------------------

const std::string kLoopFn =
    "function(agent, args)\n"
    "  while true do\n"
    "    agent.n = (agent.n or 0) + 1\n"
    "    coroutine.yield()\n"
    "  end\n"
    "end";
const std::string kLoopCloseFn =
    "function(agent, args)\n"
    "  local guard <close> = thicket.defer(function() agent.closed = (agent.closed or 0) + 1 end)\n"
    "  while true do\n"
    "    agent.n = (agent.n or 0) + 1\n"
    "    coroutine.yield()\n"
    "  end\n"
    "end";
// The bare state's stand-in for thicket.defer: the same code as thicket's (thicket_module.cpp).
const std::string kBareDefer =
    "local thicket = {}\n"
    "local Defer = { __close = function(self) local fn = self[1]; self[1] = nil; if fn then fn() end end,\n"
    "                __name = \"thicket.defer\" }\n"
    "function thicket.defer(fn)\n"
    "  if type(fn) ~= \"function\" then error(\"thicket.defer expects a function\", 2) end\n"
    "  return setmetatable({ fn }, Defer)\n"
    "end\n";
const std::string kStepFn =
    "function(agent, args)\n"
    "  agent.n = (agent.n or 0) + 1\n"
    "  return \"running\"\n"
    "end";

std::string leaf_file() {
  return "local thicket = require(\"thicket\")\n"
         "local L = {}\n"
         "function L.Always(agent, args) return true end\n"
         "L.Loop = thicket.task(" + kLoopFn + ")\n"
         "L.LoopBB = thicket.task(function(agent, args)\n"
         "  local bb = agent.bb\n"
         "  while true do\n"
         "    bb.n = bb.n + 1\n"
         "    coroutine.yield()\n"
         "  end\n"
         "end)\n"
         "L.LoopClose = thicket.task(" + kLoopCloseFn + ")\n"
         "L.Step = " + kStepFn + "\n"
         "return L\n";
}

std::string machine_yaml(const std::string& name, const std::string& check_every, const std::string& behaviors) {
  std::string y = "machine: " + name + "\nleaves: [co.lua]\n";
  if (!check_every.empty()) y += "check_every: " + check_every + "\n";
  y += "blackboard:\n  n: {type: integer, default: 0}\nbehaviors:\n" + behaviors;
  return y;
}
std::string tree_yaml(const std::string& name, const std::string& leaf) {
  return "tree: " + name + "\nleaves: [co.lua]\nblackboard:\n  n: {type: integer, default: 0}\nroot:\n  action: " + leaf +
         "\n";
}

// ---- helpers ----------------------------------------------------------------------------------

double lua_heap_bytes(lua_State* L) {
  lua_gc(L, LUA_GCCOLLECT);
  lua_gc(L, LUA_GCCOLLECT);
  return lua_gc(L, LUA_GCCOUNT) * 1024.0 + lua_gc(L, LUA_GCCOUNTB);
}
double malloc_bytes() { return static_cast<double>(mallinfo2().uordblks); }

// What one world reports about its memory.
struct Memory {
  double lua_per_agent = 0;     // Lua heap bytes per agent
  double malloc_per_agent = 0;  // all malloc'd bytes per agent (Lua heap included)
  size_t state_block = 0;       // thicket: Runtime::bytes_per_agent
  double gc_ms = 0;             // one full collection (lua_gc LUA_GCCOLLECT) with every agent live
};

// Median time of a full collection of L's heap.
double full_gc_ms(lua_State* L) {
  std::vector<double> v;
  for (int i = 0; i < 3; ++i) v.push_back(time_ms([&] { lua_gc(L, LUA_GCCOLLECT); }));
  return median_of(v);
}

// A world of agents that can be ticked and that counts each agent's resumes in agent.n.
struct World {
  virtual ~World() = default;
  virtual void tick() = 0;
  // Sum of agent.n (or bb.n) over all agents, and of agent.closed.
  virtual uint64_t total_n() = 0;
  virtual uint64_t total_closed() { return 0; }
  uint64_t ticks = 0;
  Memory mem;
};

uint64_t sum_field(lua_State* L, const std::vector<int>& agent_refs, const char* field) {
  uint64_t sum = 0;
  for (int ref : agent_refs) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_getfield(L, -1, field);
    sum += static_cast<uint64_t>(lua_tointeger(L, -1));
    lua_pop(L, 2);
  }
  return sum;
}

// ---- the bare baselines: a plain lua_State, no thicket --------------------------------------

struct BareWorld : World {
  enum class Mode { Resume, Pcall, Switch, SwitchClose };
  Mode mode;
  lua_State* L = nullptr;
  int fn = LUA_NOREF;
  std::vector<int> agents;        // registry refs of the agent tables
  std::vector<lua_State*> cos;    // Resume / Switch: one coroutine per agent (anchored in `anchor`)
  int anchor = LUA_NOREF;

  explicit BareWorld(Mode m) : mode(m) {
    L = luaL_newstate();
    luaL_openlibs(L);
    std::string chunk = mode == Mode::Pcall         ? "return " + kStepFn
                        : mode == Mode::SwitchClose ? kBareDefer + "return " + kLoopCloseFn
                                                    : "return " + kLoopFn;
    run_chunk(L, chunk, "bare");
    fn = luaL_ref(L, LUA_REGISTRYINDEX);
    double lua0 = lua_heap_bytes(L), heap0 = malloc_bytes();
    lua_createtable(L, static_cast<int>(kAgents), 0);
    agents.reserve(kAgents);
    for (size_t i = 0; i < kAgents; ++i) {
      lua_createtable(L, 0, 4);
      lua_pushinteger(L, static_cast<lua_Integer>(i + 1));
      lua_setfield(L, -2, "id");
      agents.push_back(luaL_ref(L, LUA_REGISTRYINDEX));
      if (mode != Mode::Pcall) {
        lua_State* co = lua_newthread(L);
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
        lua_rawgeti(co, LUA_REGISTRYINDEX, fn);
        cos.push_back(co);
      }
    }
    anchor = luaL_ref(L, LUA_REGISTRYINDEX);
    tick();
    mem.lua_per_agent = (lua_heap_bytes(L) - lua0) / kAgents;
    mem.malloc_per_agent = (malloc_bytes() - heap0) / kAgents;
    mem.gc_ms = full_gc_ms(L);
  }
  ~BareWorld() override { lua_close(L); }

  void resume(lua_State* co, int agent_ref) {
    int nargs = 0, nres = 0;
    if (lua_status(co) == LUA_OK && lua_gettop(co) == 1) {  // a fresh run: pass (agent, args)
      lua_rawgeti(co, LUA_REGISTRYINDEX, agent_ref);
      lua_pushnil(co);
      nargs = 2;
    }
    if (lua_resume(co, L, nargs, &nres) != LUA_YIELD) {
      std::fprintf(stderr, "bare resume: %s\n", lua_tostring(co, -1));
      std::exit(1);
    }
    lua_pop(co, nres);
  }

  void tick() override {
    ++ticks;
    switch (mode) {
      case Mode::Resume:
        for (size_t i = 0; i < kAgents; ++i) resume(cos[i], agents[i]);
        break;
      case Mode::Switch:
      case Mode::SwitchClose:
        for (size_t i = 0; i < kAgents; ++i) {
          lua_State* co = cos[i];
          if (ticks > 1) {  // cancel the running task and start a new run on the same thread
#if LUA_VERSION_RELEASE_NUM >= 50406
            lua_closethread(co, L);
#else
            lua_resetthread(co);
#endif
            lua_settop(co, 0);
            lua_rawgeti(co, LUA_REGISTRYINDEX, fn);
          }
          resume(co, agents[i]);
        }
        break;
      case Mode::Pcall:
        for (size_t i = 0; i < kAgents; ++i) {
          lua_rawgeti(L, LUA_REGISTRYINDEX, fn);
          lua_rawgeti(L, LUA_REGISTRYINDEX, agents[i]);
          lua_pushnil(L);
          if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
            std::fprintf(stderr, "bare pcall: %s\n", lua_tostring(L, -1));
            std::exit(1);
          }
          lua_pop(L, 1);
        }
        break;
    }
  }
  uint64_t total_n() override { return sum_field(L, agents, "n"); }
  uint64_t total_closed() override { return sum_field(L, agents, "closed"); }
};

// ---- thicket -----------------------------------------------------------------------------------

struct ThicketWorld : World {
  std::unique_ptr<thicket::Runtime> rt;
  thicket::BrainHandle brain;
  std::vector<thicket::AgentHandle> handles;
  bool bb_counter = false;  // the body counts in bb.n, not agent.n

  ThicketWorld(const TempDir& dir, const std::string& file, bool bb) : bb_counter(bb) {
    thicket::RuntimeOptions opts;
    opts.log = [](const std::string& line) { std::fprintf(stderr, "log: %s\n", line.c_str()); };
    // THICKET_BENCH_JOURNAL=1: with task journals (RuntimeOptions::journal_tasks), as a run
    // with --checkpoint has them; their cost per resume.
    opts.journal_tasks = std::getenv("THICKET_BENCH_JOURNAL") != nullptr;
    rt = std::make_unique<thicket::Runtime>(opts);
    using thicket::LeafContext;
    rt->register_leaf("NAlways", {[](LeafContext&) { return Status::Success; }, {}, {}});
    rt->register_leaf("NNever", {[](LeafContext&) { return Status::Failure; }, {}, {}});
    rt->register_leaf("EvenTick",
                      {[](LeafContext& c) { return c.tick() % 2 == 0 ? Status::Success : Status::Failure; }, {}, {}});
    std::vector<thicket::Diagnostic> diags;
    auto b = rt->load_file((dir.path / file).string(), diags);
    if (!b) fail_load(diags);
    brain = *b;
    lua_State* L = thicket::lua_host(rt->impl()).state();
    double lua0 = lua_heap_bytes(L), heap0 = malloc_bytes();
    handles.reserve(kAgents);
    for (size_t i = 0; i < kAgents; ++i) handles.push_back(rt->spawn(brain));
    tick();
    mem.lua_per_agent = (lua_heap_bytes(L) - lua0) / kAgents;
    mem.malloc_per_agent = (malloc_bytes() - heap0) / kAgents;
    mem.state_block = rt->bytes_per_agent(brain);
    mem.gc_ms = full_gc_ms(L);
    if (rt->script_errors()) {
      std::fprintf(stderr, "%s: script errors\n", file.c_str());
      std::exit(1);
    }
  }
  void tick() override {
    ++ticks;
    rt->tick_all(0.1);
  }
  uint64_t total_n() override {
    if (bb_counter) {
      uint64_t sum = 0;
      for (auto h : handles) sum += static_cast<uint64_t>(std::get<int64_t>(*rt->get(h, "n")));
      return sum;
    }
    return sum_field(thicket::lua_host(rt->impl()).state(), agent_refs(), "n");
  }
  uint64_t total_closed() override { return sum_field(thicket::lua_host(rt->impl()).state(), agent_refs(), "closed"); }
  std::vector<int> agent_refs() {
    std::vector<int> refs;
    for (auto h : handles) refs.push_back(rt->impl().agents[h.index].lua_agent);
    return refs;
  }
};

struct Row {
  Row(const char* name, const char* what, std::unique_ptr<World> world)
      : name(name), what(what), world(std::move(world)) {}
  const char* name;
  const char* what;
  std::unique_ptr<World> world;
  std::vector<double> ns;       // interleaved: per rep, ns per agent-tick
  std::vector<double> warm_ns;  // warm: per tick of the world run alone, ns per agent-tick
  bool closes = false;     // the task has a <close> cleanup: count its runs
};

// Two ways of timing, because 10k coroutines (~15 MB) do not fit in the caches:
// interleaved: rep by rep across all worlds, so each rep starts with caches full of other worlds'
// data (as when a game does other work between AI ticks); warm: each world alone, tick after
// tick, so its data stays in the last-level cache (the best case).
void time_rows(std::vector<Row>& rows, int reps, int block, int warm_ticks) {
  const double per = static_cast<double>(kAgents);
  for (int r = 0; r < reps; ++r)
    for (Row& row : rows)
      row.ns.push_back(time_ns([&] {
                         for (int t = 0; t < block; ++t) row.world->tick();
                       }) /
                       (per * block));
  for (Row& row : rows) {
    for (int t = 0; t < 3; ++t) row.world->tick();
    for (int t = 0; t < warm_ticks; ++t) row.warm_ns.push_back(time_ns([&] { row.world->tick(); }) / per);
  }
}

// Every agent-tick is exactly one resume (or call) that adds 1 to n.
bool check_rows(std::vector<Row>& rows) {
  bool all = true;
  for (Row& row : rows) {
    uint64_t n = row.world->total_n(), want = row.world->ticks * kAgents;
    bool ok = n == want;
    std::string extra;
    if (row.closes) {
      uint64_t closed = row.world->total_closed(), want_closed = (row.world->ticks - 1) * kAgents;
      ok = ok && closed == want_closed;
      extra = ", cleanups run " + std::to_string(closed) + " (want " + std::to_string(want_closed) + ")";
    }
    std::printf("  %-13s n summed over agents %llu (want %llu = %llu ticks x %zu)%s: %s\n", row.name, u(n), u(want),
                u(row.world->ticks), kAgents, extra.c_str(), ok ? "ok" : "WRONG");
    all = all && ok;
  }
  return all;
}

void print_rows(const std::vector<Row>& rows, int reps, int block, int warm_ticks) {
  std::printf("  %zu agents; median, best in brackets. interleaved: %d reps of %d ticks, rep by rep across these\n"
              "  worlds; warm: %d single ticks of each world alone, after 3 warm-up ticks\n",
              kAgents, reps, block, warm_ticks);
  std::printf("  %-13s %18s %20s\n", "", "interleaved", "warm");
  for (const Row& row : rows) {
    Stat s = stat_of(row.ns), w = stat_of(row.warm_ns);
    std::printf("  %-13s %8.1f [%7.1f]   %8.1f [%7.1f]   %s\n", row.name, s.median, s.best, w.median, w.best, row.what);
  }
}

const Row& find(const std::vector<Row>& rows, const char* name) {
  for (const Row& r : rows)
    if (std::string(r.name) == name) return r;
  std::abort();
}

}  // namespace

int main() {
  TempDir dir("bench_coroutines");
  dir.write("co.lua", leaf_file());
  dir.write("machine.yaml", machine_yaml("machine", "1000000", "  - {name: loop, check: Always, run: Loop}\n"));
  dir.write("machine_chk.yaml", machine_yaml("machine_chk", "", "  - {name: loop, check: NAlways, run: Loop}\n"));
  dir.write("machine_lchk.yaml", machine_yaml("machine_lchk", "", "  - {name: loop, check: Always, run: Loop}\n"));
  dir.write("machine_bb.yaml", machine_yaml("machine_bb", "1000000", "  - {name: loop, check: Always, run: LoopBB}\n"));
  dir.write("tree_task.yaml", tree_yaml("tree_task", "Loop"));
  dir.write("tree_plain.yaml", tree_yaml("tree_plain", "Step"));
  dir.write("steady.yaml", machine_yaml("steady", "",
                                        "  - {name: a, check: NNever, run: Loop}\n"
                                        "  - {name: b, check: NAlways, run: Loop}\n"));
  dir.write("switch.yaml", machine_yaml("switch", "",
                                        "  - {name: a, check: EvenTick, run: Loop}\n"
                                        "  - {name: b, check: NAlways, run: Loop}\n"));
  dir.write("switch_close.yaml", machine_yaml("switch_close", "",
                                              "  - {name: a, check: EvenTick, run: LoopClose}\n"
                                              "  - {name: b, check: NAlways, run: LoopClose}\n"));

  std::printf(
      "bench_coroutines: %zu agents, each with a live Lua coroutine task whose body is\n"
      "  while true do agent.n = (agent.n or 0) + 1; coroutine.yield() end\n"
      "(%s; load average at start: %s)\n\n",
      kAgents, LUA_RELEASE, load_average().c_str());

  auto bare = [](BareWorld::Mode m) { return std::make_unique<BareWorld>(m); };
  auto thk = [&](const char* file, bool bb = false) { return std::make_unique<ThicketWorld>(dir, file, bb); };

  std::vector<Row> resume_rows;
  resume_rows.push_back({"bare-co", "C++ loop: lua_resume of 10k lua_newthread coroutines (baseline a)",
                         bare(BareWorld::Mode::Resume)});
  resume_rows.push_back({"bare-pcall", "C++ loop: lua_pcall of the plain-function version (floor of baseline b)",
                         bare(BareWorld::Mode::Pcall)});
  resume_rows.push_back({"machine", "thicket machine, task resumed; checked once (check_every 1e6 s)",
                         thk("machine.yaml")});
  resume_rows.push_back({"machine+chk", "thicket machine, checked every tick by a native leaf", thk("machine_chk.yaml")});
  resume_rows.push_back({"machine+lchk", "thicket machine, checked every tick by the Lua leaf Always",
                         thk("machine_lchk.yaml")});
  resume_rows.push_back({"machine-bb", "as machine, body does bb.n = bb.n + 1 (typed blackboard)",
                         thk("machine_bb.yaml", true)});
  resume_rows.push_back({"tree-task", "thicket tree: the task as a running action", thk("tree_task.yaml")});
  resume_rows.push_back({"tree-plain", "thicket tree: plain Lua function leaf returning running (baseline b)",
                         thk("tree_plain.yaml")});

  std::vector<Row> switch_rows;
  switch_rows.push_back({"bare-switch", "C++ loop: lua_closethread + push function + lua_resume(agent, args)",
                         bare(BareWorld::Mode::Switch)});
  switch_rows.push_back({"bare-sw+close", "bare-switch with the <close> thicket.defer task (same Lua code)",
                         bare(BareWorld::Mode::SwitchClose)});
  switch_rows.back().closes = true;
  switch_rows.push_back({"steady", "thicket machine, 2 native checks, the same behavior wins every tick",
                         thk("steady.yaml")});
  switch_rows.push_back({"switch", "thicket machine, the other behavior wins every tick: cancel + start",
                         thk("switch.yaml")});
  switch_rows.push_back({"switch+close", "as switch, the task holds a <close> thicket.defer run on cancel",
                         thk("switch_close.yaml")});
  switch_rows.back().closes = true;

  // Memory (measured while the worlds were built: spawn + first tick).
  std::printf("memory per agent, after spawning %zu agents and ticking once (every coroutine live):\n", kAgents);
  std::printf("  %-13s %10s %12s %12s %14s\n", "", "Lua heap", "all malloc", "C++ block", "full Lua GC");
  auto mem_row = [](const Row& r) {
    const Memory& m = r.world->mem;
    std::printf("  %-13s %8.0f B %10.0f B %10s %11.2f ms\n", r.name, m.lua_per_agent, m.malloc_per_agent,
                m.state_block ? (std::to_string(m.state_block) + " B").c_str() : "-", m.gc_ms);
  };
  for (const Row& r : resume_rows) mem_row(r);
  for (const Row& r : switch_rows) mem_row(r);
  std::printf(
      "  Lua heap: lua_gc(LUA_GCCOUNT/COUNTB) after two full collections, before spawning vs after the first\n"
      "  tick, / %zu. all malloc: mallinfo2().uordblks over the same span (Lua heap + C++ agent storage).\n"
      "  C++ block: Runtime::bytes_per_agent (node state + blackboard + AgentInfo).\n"
      "  full Lua GC: one lua_gc(LUA_GCCOLLECT) of that world's whole Lua state (median of 3).\n",
      kAgents);
  {
    double co = find(resume_rows, "machine").world->mem.lua_per_agent;
    double plain = find(resume_rows, "tree-plain").world->mem.lua_per_agent;
    double bare_co = find(resume_rows, "bare-co").world->mem.lua_per_agent;
    double bare_pc = find(resume_rows, "bare-pcall").world->mem.lua_per_agent;
    std::printf(
        "  => a live task costs %.0f B of Lua heap per agent beyond a plain-leaf agent (machine - tree-plain);\n"
        "     a bare coroutine costs %.0f B beyond its agent table (bare-co - bare-pcall).\n",
        co - plain, bare_co - bare_pc);
  }

  const int reps = 25, block = 2, warm_ticks = 20;
  std::printf("\nns per agent-tick, one resume (or one leaf call) each:\n");
  time_rows(resume_rows, reps, block, warm_ticks);
  print_rows(resume_rows, reps, block, warm_ticks);
  // Medians, interleaved (ns) or warm (warm_ns).
  auto med = [](const std::vector<Row>& rows, const char* n, bool warm = false) {
    const Row& r = find(rows, n);
    return stat_of(warm ? r.warm_ns : r.ns).median;
  };
  auto ratio = [&](const char* x, const char* y) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2fx / %.2fx", med(resume_rows, x) / med(resume_rows, y),
                  med(resume_rows, x, true) / med(resume_rows, y, true));
    return std::string(buf);
  };
  std::printf("  ratios of medians, interleaved / warm:\n");
  std::printf("    machine / bare-co     %-16s  tree-plain / bare-pcall %s\n", ratio("machine", "bare-co").c_str(),
              ratio("tree-plain", "bare-pcall").c_str());
  std::printf("    machine / tree-plain  %-16s  bare-co / bare-pcall    %s\n", ratio("machine", "tree-plain").c_str(),
              ratio("bare-co", "bare-pcall").c_str());

  std::printf("\nns per agent-tick when the machine switches behaviors every tick (cancel + restart):\n");
  time_rows(switch_rows, reps, block, warm_ticks);
  print_rows(switch_rows, reps, block, warm_ticks);
  for (bool warm : {false, true})
    std::printf(
        "  => %s: cancel + restart costs %.1f ns in thicket (switch - steady), %.1f ns bare (bare-switch -\n"
        "     bare-co); a <close> cleanup adds %.1f ns in thicket (switch+close - switch), %.1f ns bare\n",
        warm ? "warm" : "interleaved", med(switch_rows, "switch", warm) - med(switch_rows, "steady", warm),
        med(switch_rows, "bare-switch", warm) - med(resume_rows, "bare-co", warm),
        med(switch_rows, "switch+close", warm) - med(switch_rows, "switch", warm),
        med(switch_rows, "bare-sw+close", warm) - med(switch_rows, "bare-switch", warm));

  std::printf("\nconsistency (every agent-tick resumed its task exactly once):\n");
  bool ok = check_rows(resume_rows);
  ok = check_rows(switch_rows) && ok;
  std::printf("  => %s\n", ok ? "all worlds did the expected work" : "SOME WORLD DID NOT");
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return ok ? 0 : 1;
}
