// bench_reload: how long does a hot reload take with 10,000 live agents? (SPEC 10, SPEC 11;
// issue 6 "reload of one 200-line Lua file, and recompile + state remap of a 31-node and a
// 1,000-node tree with 10k live agents (goals: <= 5 ms and <= 20 ms)")
//
// The brains are bench_t31's T31 tree (active_selector over branches of [2 conditions, a
// selector of 3 actions, a sequence of 2 actions]) with 3 branches (31 nodes) and with 100
// branches (1,001 nodes), their Lua leaves a pure function of tick + agent id, so some actions
// run for a tick or two and running branches get aborted. The leaf file has 40 leaves in
// about 200 lines (21 used by the trees, 19 more as a real file would have).
//
// (a) Lua reload: the leaf file is rewritten (its VERSION constant changes) and its mtime bumped,
//     then Runtime::reload_changed() is timed. Baselines in the same run: the bare Lua cost of
//     loading and running the same file in a plain lua_State (and taking a registry reference
//     to each leaf); loading the whole brain from scratch (load_file in a fresh Runtime); spawning
//     10,000 agents.
// (b) YAML reload: one leaf's args change in the brain file (`args: {v: N}`), its mtime is bumped,
//     and reload_changed() is timed: the brain is recompiled (its leaf file is run again too) and
//     every agent's state is remapped onto the new node array. Baselines: the same reload in a
//     runtime with no agents (so the remap's share shows), load_file from scratch, spawning 10k.
//
// Every reload is checked: it must report one file reloaded; then the reloaded runtime and a
// control runtime (same brain and agents, never reloaded) tick once in lockstep, and every
// agent's whole state block (node statuses, positions, blackboard) must be byte-identical
// between them; the new code (VERSION) or the new args (v) must be the ones the leaves saw.
// Timings: steady_clock around reload_changed() alone; median and best of the reps.
#include <algorithm>
#include <cstdio>
#include <cstring>
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

// ---- the leaf pattern (bench_t31's) -------------------------------------------------------------

constexpr int kConds = 6, kActs = 15, kExtras = 19;
constexpr uint32_t kCondOff[kConds] = {0, 1, 1, 2, 0, 3}, kCondMask[kConds] = {1, 3, 1, 3, 7, 7};
constexpr uint32_t kActOff[kActs] = {2, 2, 4, 7, 2, 2, 2, 5, 2, 0, 3, 3, 4, 5, 2};
constexpr uint32_t kActMask[kActs] = {3, 7, 7, 7, 3, 3, 7, 7, 7, 3, 3, 7, 7, 7, 3};

// The leaf file: 40 leaves, about 200 lines. A0 records the VERSION it runs under and the `v`
// of its args, so a check can tell which code and which args were used.
std::string leaf_file(int version, int* lines = nullptr) {
  std::string s =
      "-- Leaves of the reload benchmark: conditions C0-C5 and actions A0-A14 are a pure function\n"
      "-- of tick + agent id; X0-X18 stand for the rest of a real leaf file.\n"
      "local thicket = require(\"thicket\")\n"
      "local tick, S, F, R = thicket.tick, thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING\n"
      "local VERSION = " + std::to_string(version) + "\n"
      "local L = {}\n\n";
  for (int j = 0; j < kConds; ++j)
    s += "function L.C" + std::to_string(j) + "(agent, args)\n  local h = tick() + agent.id\n  return (h + " +
         std::to_string(kCondOff[j]) + ") & " + std::to_string(kCondMask[j]) + " ~= 0\nend\n";
  s += "\n";
  for (int k = 0; k < kActs; ++k) {
    s += "function L.A" + std::to_string(k) + "(agent, args)\n";
    if (k == 0) s += "  RELOAD_SEEN = VERSION\n  if args.v then ARGS_SEEN = args.v end\n";
    s += "  local v = (((tick() + agent.id) >> 1) + " + std::to_string(kActOff[k]) + ") & " + std::to_string(kActMask[k]) +
         "\n  if v == 0 then return R elseif v == 2 then return F end\n  return S\nend\n";
  }
  s += "\n";
  for (int x = 0; x < kExtras; ++x)
    s += "function L.X" + std::to_string(x) + "(agent, args)\n  if (agent.count or 0) > (args.limit or 10) + " +
         std::to_string(x) + " then return F end\n  agent.count = (agent.count or 0) + 1\n  return S\nend\n";
  s += "\nreturn L\n";
  if (lines) *lines = static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  return s;
}

// `branches` T31 branches under one active_selector (1 + 10 * branches nodes); the first
// action of branch 0 carries args {v: version}.
std::string tree_yaml(int branches, int version) {
  std::string y = "tree: t" + std::to_string(1 + 10 * branches) + "\nleaves: [leaves.lua]\nroot:\n  active_selector:\n";
  for (int i = 0; i < branches; ++i) {
    int b = i % 3;
    // Appended, not "C" + to_string: GCC 12 warns falsely on that.
    auto c = [&](int j) { return std::string("C").append(std::to_string(2 * b + j)); };
    auto a = [&](int k) { return std::string("A").append(std::to_string(5 * b + k)); };
    y += "    - sequence:\n";
    y += "        - condition: " + c(0) + "\n";
    y += "        - condition: " + c(1) + "\n";
    y += "        - selector:\n";
    for (int k = 0; k < 3; ++k) {
      if (i == 0 && k == 0) y += "            - action: {leaf: " + a(k) + ", args: {v: " + std::to_string(version) + "}}\n";
      else y += "            - action: " + a(k) + "\n";
    }
    y += "        - sequence:\n";
    for (int k = 3; k < 5; ++k) y += "            - action: " + a(k) + "\n";
  }
  return y;
}

// ---- helpers ------------------------------------------------------------------------------------

std::string ms(const Stat& s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%7.2f ms [%6.2f]", s.median, s.best);
  return buf;
}

// A runtime with one brain file and n agents; its log lines are kept.
struct World {
  std::unique_ptr<thicket::Runtime> rt;
  thicket::BrainHandle brain;
  std::vector<thicket::AgentHandle> agents;
  std::vector<std::string> log;
  double spawn_ms = 0;

  World(const std::string& brain_file, size_t n) {
    thicket::RuntimeOptions opts;
    opts.log = [this](const std::string& line) { log.push_back(line); };
    rt = std::make_unique<thicket::Runtime>(opts);
    std::vector<thicket::Diagnostic> diags;
    auto b = rt->load_file(brain_file, diags);
    if (!b) fail_load(diags);
    brain = *b;
    agents.reserve(n);
    spawn_ms = time_ms([&] {
      for (size_t i = 0; i < n; ++i) agents.push_back(rt->spawn(brain));
    });
  }
  void tick() { rt->tick_all(0.1); }
  lua_State* L() { return thicket::lua_host(rt->impl()).state(); }
  lua_Integer global(const char* name) {
    thicket::lua_host(rt->impl()).push_leaf_global(name);
    lua_Integer v = lua_tointeger(L(), -1);
    lua_pop(L(), 1);
    return v;
  }
  const uint8_t* block(size_t i) {
    auto& impl = rt->impl();
    const thicket::AgentInfo& a = impl.agents[agents[i].index];
    return impl.brains[a.brain]->block(a.row);
  }
  const thicket::Program& program() { return *rt->impl().brains[brain.index]->program; }
  // Running nodes summed over all agents.
  uint64_t running() {
    uint64_t n = 0;
    size_t nodes = program().nodes.size();
    for (size_t i = 0; i < agents.size(); ++i) {
      auto* st = reinterpret_cast<const Status*>(block(i));
      for (size_t k = 0; k < nodes; ++k) n += st[k] == Status::Running;
    }
    return n;
  }
};

// Root statuses after the last check tick: success, failure, running (live, then control).
uint64_t g_roots[2][3] = {};

void print_roots() {
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("  root statuses after the last check tick, success/failure/running: %llu/%llu/%llu (control: %llu/%llu/%llu)\n",
              u(g_roots[0][0]), u(g_roots[0][1]), u(g_roots[0][2]), u(g_roots[1][0]), u(g_roots[1][1]), u(g_roots[1][2]));
}

// Ticks both once; true when every agent's block is byte-identical in both.
bool same_after_tick(World& live, World& control) {
  live.tick();
  control.tick();
  World* w[2] = {&live, &control};
  for (int k = 0; k < 2; ++k) {
    std::fill(g_roots[k], g_roots[k] + 3, 0);
    for (auto h : w[k]->agents) {
      Status s = w[k]->rt->status(h);
      if (s == Status::Success) ++g_roots[k][0];
      if (s == Status::Failure) ++g_roots[k][1];
      if (s == Status::Running) ++g_roots[k][2];
    }
  }
  const size_t bytes = live.program().block_size;
  if (bytes != control.program().block_size || live.agents.size() != control.agents.size()) return false;
  for (size_t i = 0; i < live.agents.size(); ++i)
    if (std::memcmp(live.block(i), control.block(i), bytes) != 0) return false;
  return live.rt->script_errors() == 0 && control.rt->script_errors() == 0;
}

// ---- the bare Lua floor for (a): load and run the file, reference each leaf ---------------------

double bare_load_ms(const std::string& path, lua_State* L) {
  return time_ms([&] {
    if (luaL_loadfilex(L, path.c_str(), "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
      std::fprintf(stderr, "bare: %s\n", lua_tostring(L, -1));
      std::exit(1);
    }
    std::vector<int> refs;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      refs.push_back(luaL_ref(L, LUA_REGISTRYINDEX));  // pops the value
    }
    lua_pop(L, 1);
    for (int r : refs) luaL_unref(L, LUA_REGISTRYINDEX, r);
  });
}

// ---- (a) -------------------------------------------------------------------------------------------

bool lua_reload(const TempDir& dir, int reps) {
  int lines = 0;
  leaf_file(0, &lines);
  std::printf("(a) reload of one Lua leaf file: %d lines, %d leaves; %zu live agents of the 31-node brain\n", lines,
              kConds + kActs + kExtras, kAgents);
  const std::string live_yaml = dir.write("a_live/t31.yaml", tree_yaml(3, 0));
  const std::string live_lua = dir.write("a_live/leaves.lua", leaf_file(0));
  const std::string ctl_yaml = dir.write("a_ctl/t31.yaml", tree_yaml(3, 0));
  dir.write("a_ctl/leaves.lua", leaf_file(0));

  World live(live_yaml, kAgents), control(ctl_yaml, kAgents);
  for (int t = 0; t < 5; ++t) {
    live.tick();
    control.tick();
  }
  std::printf("  after 5 warm-up ticks: %.2f running nodes per agent\n", double(live.running()) / kAgents);

  std::vector<double> reload, bare, scratch, spawn;
  bool ok = true;
  int bad_count = 0;
  lua_State* B = bare_lua_state();
  for (int r = 1; r <= reps; ++r) {
    dir.write("a_live/leaves.lua", leaf_file(r), r);
    size_t n = 0;
    reload.push_back(time_ms([&] { n = live.rt->reload_changed(); }));
    bool same = same_after_tick(live, control);
    bool seen = live.global("RELOAD_SEEN") == r;
    if (n != 1 || !same || !seen) {
      ok = false;
      if (bad_count++ < 3)
        std::printf("  rep %d: reloaded %zu file(s), blocks %s, new code %s\n", r, n, same ? "identical" : "DIFFER",
                    seen ? "used" : "NOT USED");
    }
    bare.push_back(bare_load_ms(live_lua, B));
    thicket::Runtime fresh;
    std::vector<thicket::Diagnostic> diags;
    std::optional<thicket::BrainHandle> b;
    scratch.push_back(time_ms([&] { b = fresh.load_file(ctl_yaml, diags); }));
    if (!b) fail_load(diags);
    spawn.push_back(time_ms([&] {
      for (size_t i = 0; i < kAgents; ++i) fresh.spawn(*b);
    }));
  }
  lua_close(B);
  Stat s = stat_of(reload);
  std::printf("  %d reps; median, best in brackets:\n", reps);
  std::printf("  reload_changed()                          %s   goal <= 5 ms: %s\n", ms(s).c_str(),
              s.median <= 5 ? "met" : s.best <= 5 ? "met by the best rep only" : "NOT met");
  std::printf("  baseline: bare Lua load + run + ref      %s   (plain lua_State, same file)\n", ms(stat_of(bare)).c_str());
  std::printf("  baseline: load_file of the brain          %s   (fresh Runtime: YAML + this Lua file + compile)\n",
              ms(stat_of(scratch)).c_str());
  std::printf("  baseline: spawn %zu agents             %s\n", kAgents, ms(stat_of(spawn)).c_str());
  std::printf("  log: %s\n", live.log.empty() ? "(none)" : live.log.back().c_str());
  print_roots();
  std::printf("  after each reload: one file reloaded, the next tick used the new code, and every agent's state\n"
              "  block matched the never-reloaded control runtime's: %s\n",
              ok ? "yes" : "NO");
  return ok;
}

// ---- (b) -------------------------------------------------------------------------------------------

bool yaml_reload(const TempDir& dir, int branches, int reps, double goal_ms) {
  const std::string tag = "b" + std::to_string(branches);
  const int nodes = 1 + 10 * branches;
  const std::string live_yaml = dir.write(tag + "_live/tree.yaml", tree_yaml(branches, 0));
  dir.write(tag + "_live/leaves.lua", leaf_file(0));
  const std::string empty_yaml = dir.write(tag + "_empty/tree.yaml", tree_yaml(branches, 0));
  dir.write(tag + "_empty/leaves.lua", leaf_file(0));
  const std::string ctl_yaml = dir.write(tag + "_ctl/tree.yaml", tree_yaml(branches, 0));
  dir.write(tag + "_ctl/leaves.lua", leaf_file(0));

  World live(live_yaml, kAgents), control(ctl_yaml, kAgents), empty(empty_yaml, 0);
  for (int t = 0; t < 5; ++t) {
    live.tick();
    control.tick();
  }
  std::printf("\n(b) YAML reload of a %d-node tree with %zu live agents (state block %u B per agent)\n", nodes, kAgents,
              live.program().block_size);
  std::printf("  after 5 warm-up ticks: %.2f running nodes per agent\n", double(live.running()) / kAgents);

  std::vector<double> reload, reload_empty, scratch, spawn;
  bool ok = true;
  int bad_count = 0;
  uint64_t running_seen = 0;
  for (int r = 1; r <= reps; ++r) {
    running_seen += live.running();
    dir.write(tag + "_live/tree.yaml", tree_yaml(branches, r), r);
    size_t n = 0;
    reload.push_back(time_ms([&] { n = live.rt->reload_changed(); }));
    bool same = same_after_tick(live, control);
    bool args = live.global("ARGS_SEEN") == r;
    if (n != 1 || !same || !args) {
      ok = false;
      if (bad_count++ < 3)
        std::printf("  rep %d: reloaded %zu file(s), blocks %s, new args %s\n", r, n, same ? "identical" : "DIFFER",
                    args ? "used" : "NOT USED");
    }
    dir.write(tag + "_empty/tree.yaml", tree_yaml(branches, r), r);
    size_t ne = 0;
    reload_empty.push_back(time_ms([&] { ne = empty.rt->reload_changed(); }));
    ok = ok && ne == 1;
    thicket::Runtime fresh;
    std::vector<thicket::Diagnostic> diags;
    std::optional<thicket::BrainHandle> b;
    scratch.push_back(time_ms([&] { b = fresh.load_file(ctl_yaml, diags); }));
    if (!b) fail_load(diags);
    spawn.push_back(time_ms([&] {
      for (size_t i = 0; i < kAgents; ++i) fresh.spawn(*b);
    }));
  }
  Stat s = stat_of(reload), e = stat_of(reload_empty);
  std::printf("  %d reps (%.2f running nodes per agent at the reloads, on average); median, best in brackets:\n", reps,
              double(running_seen) / reps / kAgents);
  std::printf("  reload_changed(), %zu agents          %s   goal <= %.0f ms: %s\n", kAgents, ms(s).c_str(), goal_ms,
              s.median <= goal_ms ? "met" : s.best <= goal_ms ? "met by the best rep only" : "NOT met");
  std::printf("  baseline: the same reload, no agents      %s   (recompile + leaf file; remap share %.2f ms)\n",
              ms(e).c_str(), s.median - e.median);
  std::printf("  baseline: load_file of the brain          %s   (fresh Runtime)\n", ms(stat_of(scratch)).c_str());
  std::printf("  baseline: spawn %zu agents             %s\n", kAgents, ms(stat_of(spawn)).c_str());
  std::printf("  log: %s\n", live.log.empty() ? "(none)" : live.log.back().c_str());
  print_roots();
  std::printf("  after each reload: one file reloaded, the next tick used the new args, and every agent's state\n"
              "  block matched the never-reloaded control runtime's: %s\n",
              ok ? "yes" : "NO");
  return ok;
}

}  // namespace

int main() {
  TempDir dir("bench_reload");
  std::printf("bench_reload: hot reload with %zu live agents (Lua leaves; timings: steady_clock around\n"
              "reload_changed() alone, median and best of the reps; load average at start: %s)\n\n",
              kAgents, load_average().c_str());
  bool ok = lua_reload(dir, 21);
  ok = yaml_reload(dir, 3, 15, 20) && ok;
  ok = yaml_reload(dir, 100, 9, 20) && ok;
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return consistency(ok, "every reload verified", "SOME RELOAD FAILED A CHECK") ? 0 : 1;
}
