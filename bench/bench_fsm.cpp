// bench_fsm: what does one agent-tick of a 3-state `fsm:` brain cost at 10,000 agents, beside
// the same logic as a behavior tree and beside a hand-written C++ switch (the floor)?
// (SPEC 4, SPEC 11; issue 5 "a benchmark of FSM agents ... beside the same logic as a
// behavior tree")
//
// The logic. States patrol (0), chase (1), attack (2). The blackboard number `want` says which
// state the agent should be in; every state's act "senses the world" for the next tick by
// writing want = ((tick + 1 + id) >> 3) % 3, a pure function of the agent id and the tick (ids
// 1..N, ticks 1-based; spawn sets want for tick 1). So each agent changes state every 8 ticks,
// agents are out of step, and at 10k agents every tick 1/8 of the agents transition. Per tick:
//   fsm   the current state's reason returns the transition to the wanted state (or nil to
//         stay); the transition fires (its running act is aborted, the new one starts); then
//         the current state's act runs (it returns running).
//   tree  active_selector over three `sequence {abort: self}`: [condition want == k, act k].
//         Each tick the branches before the current one fail at their condition, the running
//         branch re-checks its condition (abort: self) and resumes its act; when the condition
//         changes, the act is aborted and another branch takes over. 1 to 3 condition calls and
//         one act call per tick, where the fsm makes one reason call and one act call.
//
// Rows, all timed in the same run, interleaved rep by rep:
//   floor         hand-written C++: switch on the state for the reason, switch for the act
//   AdvancedFSM   thicket's C++ classes (FSMState<Ctx> with virtual Reason/Act, one machine
//                 of three heap states per agent), no YAML, no Lua
//   fsm-native    `fsm:` with `when: [{check: "want == k", go: ...}]` transitions, native acts
//   tree-native   the tree with `condition: {check: "want == k"}` and native acts
//   bare-lua      the floor's switch calling the same Lua Reason and act functions with one bare
//                 lua_pcall each, in a plain lua_State (agent.bb a plain Lua table)
//   fsm-lua       `fsm:` with Lua `reason` leaves and Lua `act` leaves
//   fsm-when      `fsm:` with `when: check` transitions and Lua acts
//   tree-lua      the tree with Lua condition leaves and Lua acts
// A verification pass first runs every implementation for 1,000 agents x 64 ticks and checks,
// agent-tick by agent-tick, that each is in the floor's state.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <lua.hpp>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "runtime_impl.hpp"
#include "thicket/fsm.hpp"
#include "thicket/runtime.hpp"

namespace {

using namespace bench;
using thicket::Status;

constexpr int kStates = 3;
const char* const kStateNames[kStates] = {"patrol", "chase", "attack"};
const char* const kActNames[kStates] = {"Patrol", "Chase", "Attack"};

// The wanted state at phase h = tick + id.
inline uint32_t want_at(uint64_t h) { return static_cast<uint32_t>((h >> 3) % 3); }

// ---- the brains ------------------------------------------------------------------------------

const char* kLeafLua = R"LUA(local thicket = require("thicket")
local tick, R = thicket.tick, thicket.RUNNING
local L = {}
local function sense(agent) agent.bb.want = ((tick() + 1 + agent.id) >> 3) % 3 end
function L.Patrol(agent, args) sense(agent) return R end
function L.Chase(agent, args) sense(agent) return R end
function L.Attack(agent, args) sense(agent) return R end
local go = { "go_patrol", "go_chase", "go_attack" }
function L.Reason(agent, args)
  local w = agent.bb.want
  if w ~= args.me then return go[w + 1] end
end
function L.Is(agent, args) return agent.bb.want == args.me end
return L
)LUA";

// Acts: Lua leaves Patrol/Chase/Attack, or native NPatrol/NChase/NAttack.
std::string act_name(int k, bool native) {
  std::string s = native ? "N" : "";  // appended: GCC 12 warns falsely on "N" + std::string
  return s += kActNames[k];
}

// fsm with Lua reasons (when = false) or `when: check` transitions (when = true).
std::string fsm_yaml(bool when, bool native_acts) {
  std::string y = "fsm: three\n";
  if (!native_acts || !when) y += "leaves: [fsm.lua]\n";
  y += "initial: patrol\nblackboard:\n  want: 0\nstates:\n";
  for (int k = 0; k < kStates; ++k) {
    y += std::string("  ") + kStateNames[k] + ":\n";
    if (when) {
      y += "    when:\n";
      for (int j = 0; j < kStates; ++j)
        if (j != k) y += "      - {check: \"want == " + std::to_string(j) + "\", go: " + kStateNames[j] + "}\n";
    } else {
      y += "    reason: {leaf: Reason, args: {me: " + std::to_string(k) + "}}\n";
      y += "    transitions: {";
      bool first = true;
      for (int j = 0; j < kStates; ++j)
        if (j != k) {
          y += std::string(first ? "" : ", ") + "go_" + kStateNames[j] + ": " + kStateNames[j];
          first = false;
        }
      y += "}\n";
    }
    y += "    act: " + act_name(k, native_acts) + "\n";
  }
  return y;
}

std::string tree_yaml(bool native) {
  std::string y = "tree: three\n";
  if (!native) y += "leaves: [fsm.lua]\n";
  y += "blackboard:\n  want: 0\nroot:\n  active_selector:\n";
  for (int k = 0; k < kStates; ++k) {
    std::string cond = native ? "{check: \"want == " + std::to_string(k) + "\"}"
                              : "{leaf: Is, args: {me: " + std::to_string(k) + "}}";
    y += "    - sequence:\n        abort: self\n        children:\n";
    y += "          - condition: " + cond + "\n";
    y += "          - action: " + act_name(k, native) + "\n";
  }
  return y;
}

// A world of n agents of one implementation.
struct World {
  virtual ~World() = default;
  virtual void tick() = 0;
  virtual int state(size_t agent) = 0;  // the agent's current state after the last tick
  virtual size_t bytes_per_agent() { return 0; }
  size_t n = 0;
  uint64_t transitions = 0;  // counted by the floor only
};

// ---- floor: a C++ switch -------------------------------------------------------------------------

struct FloorWorld : World {
  struct Agent {
    uint32_t id;
    uint8_t state;
    double want;
  };
  std::vector<Agent> agents;
  uint64_t ticks = 0;
  explicit FloorWorld(size_t count) {
    n = count;
    for (size_t i = 0; i < n; ++i) agents.push_back({uint32_t(i + 1), 0, double(want_at(1 + i + 1))});
  }
  void tick() override {
    ++ticks;
    for (Agent& a : agents) {
      // reason: the transition to the wanted state, if it differs
      uint8_t to = a.state;
      switch (a.state) {
        case 0: to = a.want == 1 ? 1 : a.want == 2 ? 2 : 0; break;
        case 1: to = a.want == 0 ? 0 : a.want == 2 ? 2 : 1; break;
        case 2: to = a.want == 0 ? 0 : a.want == 1 ? 1 : 2; break;
      }
      transitions += to != a.state;
      a.state = to;
      // act: every act senses the next tick's wanted state
      const uint64_t h = ticks + 1 + a.id;
      switch (a.state) {
        case 0: a.want = want_at(h); break;
        case 1: a.want = want_at(h); break;
        case 2: a.want = want_at(h); break;
      }
    }
  }
  int state(size_t i) override { return agents[i].state; }
  size_t bytes_per_agent() override { return sizeof(Agent); }
};

// ---- thicket's C++ classes: FSMState / AdvancedFSM -------------------------------------------------

struct Ctx {
  uint32_t id;
  uint64_t tick;
  double want;
};
enum : thicket::TransitionId { kGoPatrol, kGoChase, kGoAttack };
class StateK : public thicket::FSMState<Ctx> {
 public:
  explicit StateK(int k) : FSMState(k, kStateNames[k]), k_(k) {
    for (int j = 0; j < kStates; ++j)
      if (j != k) AddTransition(j, j);  // transition "go to j" = j
  }
  thicket::TransitionId Reason(Ctx& c) override { return c.want != k_ ? static_cast<int>(c.want) : thicket::kNoTransition; }
  void Act(Ctx& c) override { c.want = want_at(c.tick + 1 + c.id); }

 private:
  int k_;
};
struct ClassWorld : World {
  std::vector<Ctx> ctx;
  std::vector<thicket::AdvancedFSM<Ctx>> fsms;
  explicit ClassWorld(size_t count) {
    n = count;
    fsms.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ctx.push_back({uint32_t(i + 1), 0, double(want_at(1 + i + 1))});
      for (int k = 0; k < kStates; ++k) fsms[i].AddFSMState(std::make_unique<StateK>(k));
    }
  }
  void tick() override {
    for (size_t i = 0; i < n; ++i) {
      ++ctx[i].tick;
      fsms[i].Update(ctx[i]);
    }
  }
  int state(size_t i) override { return fsms[i].CurrentStateID(); }
};

// ---- bare Lua: the floor's switch, leaves called with lua_pcall ----------------------------------

struct BareLuaWorld : World {
  lua_State* L;
  int reason = LUA_NOREF, act[kStates] = {}, args[kStates] = {};
  const char* go[kStates] = {};  // interned transition names
  std::vector<int> agent_ref;
  std::vector<uint8_t> st;
  uint64_t ticks = 0;
  explicit BareLuaWorld(size_t count) {
    n = count;
    L = bare_lua_state();
    run_chunk(L, kLeafLua, "fsm.lua");
    lua_getfield(L, -1, "Reason");
    reason = luaL_ref(L, LUA_REGISTRYINDEX);
    for (int k = 0; k < kStates; ++k) {
      lua_getfield(L, -1, kActNames[k]);
      act[k] = luaL_ref(L, LUA_REGISTRYINDEX);
      lua_createtable(L, 0, 1);
      lua_pushinteger(L, k);
      lua_setfield(L, -2, "me");
      args[k] = luaL_ref(L, LUA_REGISTRYINDEX);
      lua_pushstring(L, (std::string("go_") + kStateNames[k]).c_str());
      go[k] = lua_tostring(L, -1);
      luaL_ref(L, LUA_REGISTRYINDEX);  // keeps the string alive, so the pointer stays the interned one
    }
    lua_pop(L, 1);
    for (size_t i = 0; i < n; ++i) {
      lua_createtable(L, 0, 4);
      lua_pushinteger(L, static_cast<lua_Integer>(i + 1));
      lua_setfield(L, -2, "id");
      lua_createtable(L, 0, 1);
      lua_pushnumber(L, want_at(1 + i + 1));
      lua_setfield(L, -2, "want");
      lua_setfield(L, -2, "bb");
      agent_ref.push_back(luaL_ref(L, LUA_REGISTRYINDEX));
    }
    st.assign(n, 0);
  }
  ~BareLuaWorld() override { lua_close(L); }
  void call(int fn, int agent, int a, int nres) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, fn);
    lua_rawgeti(L, LUA_REGISTRYINDEX, agent);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a);
    if (lua_pcall(L, 2, nres, 0) != LUA_OK) {
      std::fprintf(stderr, "bare lua: %s\n", lua_tostring(L, -1));
      std::exit(1);
    }
  }
  void tick() override {
    bare_tick = ++ticks;
    for (size_t i = 0; i < n; ++i) {
      uint8_t& s = st[i];
      call(reason, agent_ref[i], args[s], 1);
      if (const char* t = lua_tostring(L, -1)) {
        for (int k = 0; k < kStates; ++k)
          if (t == go[k] && k != s) s = static_cast<uint8_t>(k);
      }
      lua_pop(L, 1);
      switch (s) {  // the act: a running action, its result read as a status string
        case 0: call(act[0], agent_ref[i], args[0], 1); break;
        case 1: call(act[1], agent_ref[i], args[1], 1); break;
        case 2: call(act[2], agent_ref[i], args[2], 1); break;
      }
      lua_pop(L, 1);
    }
  }
  int state(size_t i) override { return st[i]; }
};

// ---- thicket --------------------------------------------------------------------------------------

struct ThicketWorld : World {
  std::unique_ptr<thicket::Runtime> rt = std::make_unique<thicket::Runtime>();
  thicket::BrainHandle brain;
  std::vector<thicket::AgentHandle> handles;
  std::shared_ptr<uint32_t> want_slot = std::make_shared<uint32_t>(0);
  bool is_fsm;

  ThicketWorld(size_t count, const std::string& yaml, const TempDir& dir, const std::string& file, bool fsm)
      : is_fsm(fsm) {
    n = count;
    for (int k = 0; k < kStates; ++k) {
      auto slot = want_slot;
      rt->register_leaf(act_name(k, true), {[slot](thicket::LeafContext& c) {
                                              c.set_number(*slot, want_at(c.tick() + 1 + c.agent_id()));
                                              return Status::Running;
                                            },
                                            {},
                                            {}});
    }
    dir.write(file, yaml);
    std::vector<thicket::Diagnostic> diags;
    auto b = rt->load_file((dir.path / file).string(), diags);
    if (!b) fail_load(diags);
    brain = *b;
    *want_slot = *rt->blackboard_slot(brain, "want");
    for (size_t i = 0; i < n; ++i) handles.push_back(rt->spawn(brain, {{"want", double(want_at(1 + i + 1))}}));
  }
  void tick() override {
    rt->tick_all(0.1);
    if (rt->script_errors()) {
      std::fprintf(stderr, "script errors\n");
      std::exit(1);
    }
  }
  // fsm: the root's current state index; tree: the active_selector's running branch.
  int state(size_t i) override {
    auto& impl = rt->impl();
    const thicket::AgentInfo& a = impl.agents[handles[i].index];
    const thicket::Brain& b = *impl.brains[a.brain];
    const uint8_t* block = const_cast<thicket::Brain&>(b).block(a.row);
    return *reinterpret_cast<const uint16_t*>(block + b.program->nodes[0].state);
  }
  size_t bytes_per_agent() override { return rt->bytes_per_agent(brain); }
};

// One implementation: its row's name and note, and how to build a world of n agents of it.
struct Impl {
  const char* name;
  const char* what;
  std::function<std::unique_ptr<World>(size_t)> make;
};

}  // namespace

int main() {
  TempDir dir("bench_fsm");
  dir.write("fsm.lua", kLeafLua);
  auto thk = [&](std::string yaml, std::string file, bool fsm) {
    return [=, &dir](size_t n) -> std::unique_ptr<World> { return std::make_unique<ThicketWorld>(n, yaml, dir, file, fsm); };
  };
  std::vector<Impl> rows;
  rows.push_back({"floor", "hand-written C++ switch FSM (the floor)",
                  [](size_t n) { return std::make_unique<FloorWorld>(n); }});
  rows.push_back({"AdvancedFSM", "thicket's C++ classes: virtual Reason/Act, 3 heap states per agent",
                  [](size_t n) { return std::make_unique<ClassWorld>(n); }});
  rows.push_back({"fsm-native", "fsm: when: check transitions, native acts", thk(fsm_yaml(true, true), "fsm_native.yaml", true)});
  rows.push_back({"tree-native", "tree: check conditions, native acts", thk(tree_yaml(true), "tree_native.yaml", false)});
  rows.push_back({"bare-lua", "C++ switch + one bare lua_pcall per Reason / act (Lua floor)",
                  [](size_t n) { return std::make_unique<BareLuaWorld>(n); }});
  rows.push_back({"fsm-lua", "fsm: Lua reason + Lua act", thk(fsm_yaml(false, false), "fsm_lua.yaml", true)});
  rows.push_back({"fsm-when", "fsm: when: check transitions, Lua acts", thk(fsm_yaml(true, false), "fsm_when.yaml", true)});
  rows.push_back({"tree-lua", "tree: Lua condition leaves, Lua acts", thk(tree_yaml(false), "tree_lua.yaml", false)});

  std::printf(
      "bench_fsm: 3 states (patrol, chase, attack); every act writes the next tick's wanted state,\n"
      "want = ((tick + 1 + id) >> 3) %% 3, so each agent changes state every 8 ticks.\n"
      "(load average at start: %s)\n\n",
      load_average().c_str());

  // Verification: every implementation in the floor's state, every agent-tick.
  const size_t vn = 1000;
  const int vticks = 64;
  bool all_ok = true;
  {
    std::vector<std::unique_ptr<World>> worlds;
    for (Impl& r : rows) worlds.push_back(r.make(vn));
    std::vector<uint64_t> mismatches(rows.size(), 0);
    uint64_t in_state[kStates] = {};
    for (int t = 0; t < vticks; ++t) {
      for (auto& w : worlds) w->tick();
      for (size_t i = 0; i < vn; ++i) {
        int want = worlds[0]->state(i);
        ++in_state[want];
        for (size_t k = 1; k < worlds.size(); ++k) mismatches[k] += worlds[k]->state(i) != want;
      }
    }
    std::printf("consistency (%zu agents x %d ticks; each agent's state after each tick vs the floor's):\n", vn, vticks);
    std::printf("  floor: %llu transitions in %llu agent-ticks (%.1f%%); agent-ticks in patrol/chase/attack %llu/%llu/%llu\n",
                static_cast<unsigned long long>(worlds[0]->transitions), static_cast<unsigned long long>(vn * vticks),
                100.0 * worlds[0]->transitions / (vn * vticks), static_cast<unsigned long long>(in_state[0]),
                static_cast<unsigned long long>(in_state[1]), static_cast<unsigned long long>(in_state[2]));
    for (size_t k = 1; k < worlds.size(); ++k) {
      std::printf("  %-12s %s (%llu mismatching agent-ticks)\n", rows[k].name, match(mismatches[k] == 0), u(mismatches[k]));
      all_ok = all_ok && mismatches[k] == 0;
    }
  }

  const size_t n = 10000;
  std::vector<std::unique_ptr<World>> worlds;
  for (Impl& r : rows) worlds.push_back(r.make(n));
  auto world = [&](const char* name) {
    for (size_t i = 0; i < rows.size(); ++i)
      if (std::string(rows[i].name) == name) return worlds[i].get();
    std::abort();
  };
  std::printf("\nper-agent state: floor %zu B (id, state, want); thicket bytes_per_agent: fsm %zu B, tree %zu B\n",
              world("floor")->bytes_per_agent(), world("fsm-lua")->bytes_per_agent(), world("tree-lua")->bytes_per_agent());
  for (auto& w : worlds)  // warm-up
    for (int t = 0; t < 8; ++t) w->tick();
  const int reps = 25, block = 4;
  Rows timed;
  for (size_t i = 0; i < rows.size(); ++i)
    timed.add(
        rows[i].name, rows[i].what,
        [w = worlds[i].get()](int ticks) {
          for (int t = 0; t < ticks; ++t) w->tick();
        },
        0);
  timed.measure(reps, block, double(n * block));

  std::printf("\nns per agent-tick, %zu agents (%d reps of %d ticks, interleaved; median, best in brackets):\n", n, reps,
              block);
  timed.print();
  auto ratio = [&](const char* x, const char* y) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2fx (%.2fx)", timed.ratio(x, y), timed.ratio(x, y, true));
    return std::string(buf);
  };
  std::printf("  ratios of medians (of bests):\n");
  std::printf("    fsm-native / floor     %-16s  tree-native / fsm-native %s\n", ratio("fsm-native", "floor").c_str(), ratio("tree-native", "fsm-native").c_str());
  std::printf("    AdvancedFSM / floor    %-16s\n", ratio("AdvancedFSM", "floor").c_str());
  std::printf("    fsm-lua / bare-lua     %-16s  tree-lua / fsm-lua       %s\n", ratio("fsm-lua", "bare-lua").c_str(), ratio("tree-lua", "fsm-lua").c_str());
  std::printf("    fsm-when / fsm-lua     %-16s\n", ratio("fsm-when", "fsm-lua").c_str());
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return consistency(all_ok) ? 0 : 1;
}
