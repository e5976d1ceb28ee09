// bench_aborts: what do native `check:` conditions and conditional-abort re-checks cost per
// agent-tick? (SPEC 3.4, 3.5, 11; issue 3 "Benchmarks": T31 with `check:` conditions, abort
// re-check cost)
//
// Part 1, T31 with `check:` conditions. The T31 tree of bench_t31 (31 nodes: active_selector
// over 3 x [2 conditions, selector of 3 actions, sequence of 2 actions]) with its 6 conditions
// reading a blackboard number `phase` that the game loop writes into every agent before each
// tick (a "sense" pass): phase = (tick + agent id) mod 16, so bench_t31's condition pattern
// ((h + off) & mask) != 0 becomes `(phase + off) % (mask + 1) != 0`. The 15 actions are the
// same native leaves as in bench_t31 (a pure function of tick + agent id). Rows, all timed in
// the same run, interleaved rep by rep, every one including the same sense pass:
//   sense     the sense pass alone (informational: what every other row includes)
//   floor     a hand-written C++ function of the same logic over a per-agent struct (baseline)
//   check     thicket, `condition: {check: "..."}`: no leaf call for conditions
//   native    thicket, native condition leaves reading the same slot (LeafContext::get_number)
//   lua       thicket, Lua condition leaves reading agent.bb.phase
// A verification pass first runs all four with counting leaves and compares per-leaf call
// counts, action starts, aborts, running results and a checksum of every root status.
//
// Part 2, abort re-check cost. For K = 1, 4, 16:
//   selector
//     sequence {abort: lower_priority, children: [condition, action Work]}   x K
//     action Idle   (always running; start/stop hooks)
// The condition of branch i is `threat > K-1-i` (a check, or native / Lua leaf G{K-1-i}).
// threat stays 0, so every condition is false: each tick the root resumes Idle after
// re-checking the K observed conditions (SPEC 3.5 lower_priority). The same tree with
// `abort: none` resumes Idle directly (event-driven resume: no walk); the difference divided by K is the cost of one re-check
// (at K = 1 with the fixed cost of leaving the direct resume; the slope from K = 1 to 16 is the
// per-condition cost alone). Conditions as `check:`, native leaves and (informational) Lua leaves.
// Then aborts that fire: the game loop sets threat = 1 on every N-th tick of each agent (out of
// step across agents, "staggered", or all on the same tick, "lockstep"), so the last branch's condition (`threat > 0`, re-checked last, so every
// re-check is still paid) flips, Idle is aborted, Work runs, the root succeeds and restarts the
// next tick. Beside the same tree and the same writes with threat left at 0, the difference per
// abort is what an abort costs: the stop hook, re-running the branch, and the restart walk on
// the following tick in place of a resume.
//
// Part 3, where a check's time goes: CompiledExpr::eval alone over 10k agents' slots, for the
// T31 expressions (with `%`), the same shapes with `*` in place of `%`, and `phase > j`,
// beside the same tests inline in C++ and through a std::function.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <lua.hpp>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "lua_host.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"

namespace {

using thicket::LeafContext;
using namespace bench;
using thicket::Status;

// ---- common ------------------------------------------------------------------------------------

// A thicket runtime with one brain and n agents, and a pointer to each agent's blackboard slot
// of one number key, so the game loop's sense pass writes it directly (as a component system
// writing into agent state would; Runtime::set by key name is timed separately in main).
struct Agents {
  std::unique_ptr<thicket::Runtime> rt = std::make_unique<thicket::Runtime>();
  thicket::BrainHandle brain;
  std::vector<thicket::AgentHandle> handles;
  std::vector<uint32_t> ids;
  std::vector<double*> key;  // the sensed key's slot, per agent
  uint32_t slot = 0;         // read by the native leaves (set before the first tick)
  uint64_t tick = 0;         // ticks done

  void load(const std::string& yaml_or_path, bool from_file, const char* key_name, size_t n) {
    std::vector<thicket::Diagnostic> diags;
    auto b = from_file ? rt->load_file(yaml_or_path, diags) : rt->load_string(yaml_or_path, "bench.yaml", diags);
    if (!b) fail_load(diags);
    brain = *b;
    slot = *rt->blackboard_slot(brain, key_name);
    handles.reserve(n);
    for (size_t i = 0; i < n; ++i) handles.push_back(rt->spawn(brain));
    auto& impl = rt->impl();
    for (auto h : handles) {  // storage does not move once every agent is spawned
      ids.push_back(rt->agent_id(h));
      key.push_back(&impl.slots_of(impl.agents[h.index])[slot].num);
    }
  }
  // Writes the key through the public API for agent 0 and reads it back through the pointer
  // and vice versa: the direct pointer and Runtime::set/get address the same value.
  bool pointer_agrees(const char* key_name) {
    rt->set(handles[0], key_name, thicket::Value{7.0});
    bool a = *key[0] == 7.0;
    *key[0] = 3.0;
    auto v = rt->get(handles[0], key_name);
    bool b = v && std::get_if<double>(&*v) && *std::get_if<double>(&*v) == 3.0;
    *key[0] = 0.0;
    return a && b;
  }
};

// ---- part 1: T31 over a sensed blackboard number ---------------------------------------------

constexpr int kConds = 6, kActs = 15;

struct Pattern {
  uint32_t cond_off[kConds], cond_mask[kConds];
  uint32_t act_off[kActs], act_mask[kActs];
};
// bench_t31's pattern (its header explains the choice): every leaf is called, every branch
// decides, the root returns success, failure and running, running branches get aborted.
constexpr Pattern kPattern = {
    /*cond_off*/ {0, 1, 1, 2, 0, 3},
    /*cond_mask*/ {1, 3, 1, 3, 7, 7},
    /*act_off*/ {2, 2, 4, 7, 2, 2, 2, 5, 2, 0, 3, 3, 4, 5, 2},
    /*act_mask*/ {3, 7, 7, 7, 3, 3, 7, 7, 7, 3, 3, 7, 7, 7, 3},
};
Pattern g_pat;  // a run-time copy, so no implementation gets the masks folded into its code

// phase = (tick + id) & 15; every mask + 1 divides 16, so (phase + off) & mask == (h + off) & mask.
inline double phase_of(uint64_t tick, uint32_t id) { return static_cast<double>((tick + id) & 15); }
inline bool cond_of_phase(uint32_t j, double phase) {
  return ((static_cast<uint32_t>(phase) + g_pat.cond_off[j]) & g_pat.cond_mask[j]) != 0;
}
inline Status act_leaf(uint32_t k, uint64_t h) {
  uint64_t v = ((h >> 1) + g_pat.act_off[k]) & g_pat.act_mask[k];
  return v == 0 ? Status::Running : v == 2 ? Status::Failure : Status::Success;
}

// A leaf name: prefix + number (built by appending: GCC 12 warns falsely on "C" + to_string).
std::string leaf_name(char prefix, uint32_t i) {
  std::string s(1, prefix);
  return s += std::to_string(i);
}
std::string cond_name(uint32_t j) { return leaf_name('C', j); }
std::string act_name(uint32_t k) { return leaf_name('A', k); }

// The check expression of condition j.
std::string cond_check(uint32_t j) {
  std::string lhs = g_pat.cond_off[j] ? "(phase + " + std::to_string(g_pat.cond_off[j]) + ")" : "phase";
  return lhs + " % " + std::to_string(g_pat.cond_mask[j] + 1) + " != 0";
}

enum class Cond { Check, Native, Lua };
const char* cond_word(Cond c) { return c == Cond::Check ? "check" : c == Cond::Native ? "native" : "lua"; }

std::string t31_yaml(Cond mode) {
  std::string y = "tree: t31_phase\nblackboard: {phase: 0}\n";
  if (mode == Cond::Lua) y += "leaves: [t31_phase.lua]\n";
  y += "root:\n  active_selector:\n";
  for (int b = 0; b < 3; ++b) {
    y += "    - sequence:\n";
    for (int j = 0; j < 2; ++j) {
      uint32_t c = static_cast<uint32_t>(2 * b + j);
      if (mode == Cond::Check)
        y += "        - condition: {check: \"" + cond_check(c) + "\"}\n";
      else
        y += "        - condition: " + cond_name(c) + "\n";
    }
    y += "        - selector:\n";
    for (int k = 0; k < 3; ++k) y += "            - action: " + act_name(static_cast<uint32_t>(5 * b + k)) + "\n";
    y += "        - sequence:\n";
    for (int k = 3; k < 5; ++k) y += "            - action: " + act_name(static_cast<uint32_t>(5 * b + k)) + "\n";
  }
  return y;
}

// The Lua condition leaves; `count` adds a call counter to each (verification only).
std::string t31_lua(bool count) {
  std::string s = "local L = {}\n";
  if (count) s += "COUNT = {0, 0, 0, 0, 0, 0}\n";
  for (uint32_t j = 0; j < kConds; ++j) {
    std::string i = std::to_string(j + 1);
    s += "function L." + cond_name(j) + "(agent, args)\n";
    if (count) s += "  COUNT[" + i + "] = COUNT[" + i + "] + 1\n";
    s += "  return (agent.bb.phase + " + std::to_string(g_pat.cond_off[j]) + ") % " +
         std::to_string(g_pat.cond_mask[j] + 1) + " ~= 0\nend\n";
  }
  return s + "return L\n";
}

struct Counters {
  uint64_t cond[kConds] = {}, act[kActs] = {};
  uint64_t starts = 0, aborts = 0, running = 0;
  Checksum root_hash;
  uint64_t roots[5] = {};
  void root(Status s) {
    root_hash.add_status(s);
    ++roots[static_cast<int>(s)];
  }
  uint64_t cond_calls() const {
    uint64_t n = 0;
    for (uint64_t c : cond) n += c;
    return n;
  }
  uint64_t act_calls() const {
    uint64_t n = 0;
    for (uint64_t c : act) n += c;
    return n;
  }
};

// Hand-written floor: per-agent struct, the same logic (bench_t31's floor, conditions reading
// the sensed phase).
struct FloorAgent {
  uint32_t id = 0;
  double phase = 0;
  int8_t branch = -1;  // running branch, -1 none
  uint8_t stage = 0;   // in the running branch: 0 selector, 1 tail sequence
  uint8_t pos = 0;     // running action's position in that stage
};

template <bool Count>
struct FloorLeaves {
  Counters* c = nullptr;
  bool cond(uint32_t j, const FloorAgent& a) {
    if constexpr (Count) ++c->cond[j];
    return cond_of_phase(j, a.phase);
  }
  Status act(uint32_t k, const FloorAgent& a, uint64_t tick, bool starting) {
    Status s = act_leaf(k, tick + a.id);
    if constexpr (Count) {
      ++c->act[k];
      c->starts += starting;
      c->running += s == Status::Running;
    }
    return s;
  }
  void aborted() {
    if constexpr (Count) ++c->aborts;
  }
};

template <class Leaves>
Status floor_branch(FloorAgent& a, int b, bool resuming, uint64_t tick, Leaves& lv) {
  uint32_t stage = 0, pos = 0;
  if (resuming) {
    stage = a.stage;
    pos = a.pos;
  } else {
    if (!lv.cond(2 * b, a)) return Status::Failure;
    if (!lv.cond(2 * b + 1, a)) return Status::Failure;
  }
  bool starting = !resuming;
  if (stage == 0) {
    for (; pos < 3; ++pos, starting = true) {
      Status s = lv.act(5 * b + pos, a, tick, starting);
      if (s == Status::Running) {
        a.stage = 0;
        a.pos = static_cast<uint8_t>(pos);
        return s;
      }
      if (s == Status::Success) break;
    }
    if (pos == 3) return Status::Failure;
    pos = 0;
    starting = true;
  }
  for (; pos < 2; ++pos, starting = true) {
    Status s = lv.act(5 * b + 3 + pos, a, tick, starting);
    if (s == Status::Running) {
      a.stage = 1;
      a.pos = static_cast<uint8_t>(pos);
      return s;
    }
    if (s == Status::Failure) return s;
  }
  return Status::Success;
}

template <class Leaves>
Status floor_tick(FloorAgent& a, uint64_t tick, Leaves& lv) {
  const int prev = a.branch;
  Status result = Status::Failure;
  int decided = -1;
  for (int b = 0; b < 3; ++b) {
    Status s = floor_branch(a, b, prev == b, tick, lv);
    if (s != Status::Failure) {
      result = s;
      decided = b;
      break;
    }
  }
  if (prev >= 0 && decided >= 0 && decided < prev) lv.aborted();
  a.branch = static_cast<int8_t>(result == Status::Running ? decided : -1);
  return result;
}

struct FloorWorld {
  std::vector<FloorAgent> agents;
  uint64_t tick = 0;
  explicit FloorWorld(size_t n) : agents(n) {
    for (size_t i = 0; i < n; ++i) agents[i].id = static_cast<uint32_t>(i + 1);
  }
  template <class Leaves>
  void run(int ticks, Leaves& lv, Counters* verify = nullptr) {
    for (int t = 0; t < ticks; ++t) {
      ++tick;
      for (FloorAgent& a : agents) a.phase = phase_of(tick, a.id);  // the sense pass
      for (FloorAgent& a : agents) {
        Status s = floor_tick(a, tick, lv);
        if (verify) verify->root(s);
      }
    }
  }
};

struct T31World : Agents {
  Cond mode;
  // Native condition leaves (mode Native) and native actions (every mode); with counters the
  // actions get counting start/stop hooks.
  T31World(Cond m, size_t n, Counters* c, const TempDir* lua_dir) : mode(m) {
    const uint32_t* slotp = &slot;
    if (m == Cond::Native)
      for (uint32_t j = 0; j < kConds; ++j) {
        thicket::NativeLeaf leaf;
        if (c)
          leaf.tick = [j, c, slotp](LeafContext& x) {
            ++c->cond[j];
            return cond_of_phase(j, x.get_number(*slotp)) ? Status::Success : Status::Failure;
          };
        else
          leaf.tick = [j, slotp](LeafContext& x) {
            return cond_of_phase(j, x.get_number(*slotp)) ? Status::Success : Status::Failure;
          };
        rt->register_leaf(cond_name(j), std::move(leaf));
      }
    for (uint32_t k = 0; k < kActs; ++k) {
      thicket::NativeLeaf leaf;
      if (c) {
        leaf.tick = [k, c](LeafContext& x) {
          Status s = act_leaf(k, x.tick() + x.agent_id());
          ++c->act[k];
          c->running += s == Status::Running;
          return s;
        };
        leaf.start = [c](LeafContext&) { ++c->starts; };
        leaf.stop = [c](LeafContext&, Status s) { c->aborts += s == Status::Aborted; };
      } else {
        leaf.tick = [k](LeafContext& x) { return act_leaf(k, x.tick() + x.agent_id()); };
      }
      rt->register_leaf(act_name(k), std::move(leaf));
    }
    if (m == Cond::Lua)
      load((lua_dir->path / "t31_phase.yaml").string(), true, "phase", n);
    else
      load(t31_yaml(m), false, "phase", n);
  }
  void sense() {
    ++tick;
    for (size_t i = 0; i < key.size(); ++i) *key[i] = phase_of(tick, ids[i]);
  }
  void run(int ticks, Counters* verify = nullptr) {
    for (int t = 0; t < ticks; ++t) {
      sense();
      rt->tick_all(0.1);
      if (verify)
        for (auto h : handles) verify->root(rt->status(h));
    }
  }
};

void read_lua_counts(lua_State* L, Counters& out) {
  lua_getglobal(L, "COUNT");
  for (int i = 0; i < kConds; ++i) {
    lua_rawgeti(L, -1, i + 1);
    out.cond[i] = static_cast<uint64_t>(lua_tointeger(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

bool verify_t31(const TempDir& counting_dir, size_t n, int ticks) {
  Counters floor_c, check_c, native_c, lua_c;
  {
    FloorWorld w(n);
    FloorLeaves<true> lv{&floor_c};
    w.run(ticks, lv, &floor_c);
  }
  T31World check_w(Cond::Check, n, &check_c, nullptr);
  check_w.run(ticks, &check_c);
  T31World native_w(Cond::Native, n, &native_c, nullptr);
  native_w.run(ticks, &native_c);
  T31World lua_w(Cond::Lua, n, &lua_c, &counting_dir);
  lua_w.run(ticks, &lua_c);
  // Each leaf file has its own globals: bring the file's COUNT where the reader looks.
  thicket::LuaHost& lua_host = thicket::lua_host(lua_w.rt->impl());
  lua_host.push_leaf_global("COUNT");
  lua_setglobal(lua_host.state(), "COUNT");
  read_lua_counts(lua_host.state(), lua_c);
  bool ptr_ok = check_w.pointer_agrees("phase");

  auto same_acts = [&](const Counters& c) {
    return std::equal(c.act, c.act + kActs, floor_c.act) && c.starts == floor_c.starts &&
           c.aborts == floor_c.aborts && c.running == floor_c.running && c.root_hash == floor_c.root_hash;
  };
  auto same_conds = [&](const Counters& c) { return std::equal(c.cond, c.cond + kConds, floor_c.cond); };
  bool check_ok = same_acts(check_c), native_ok = same_acts(native_c) && same_conds(native_c),
       lua_ok = same_acts(lua_c) && same_conds(lua_c);
  std::printf(
      "consistency (%zu agents x %d ticks; per-leaf call counts, action starts, aborts, running results,\n"
      "             checksum of every agent-tick's root status, all compared with the floor):\n",
      n, ticks);
  auto line = [&](const char* name, const Counters& c, bool conds, bool ok) {
    std::printf("  %-7s condition calls %8s  action calls %8llu  starts %7llu  aborts %6llu  root checksum %016llx  %s\n",
                name, conds ? std::to_string(c.cond_calls()).c_str() : "n/a", u(c.act_calls()), u(c.starts),
                u(c.aborts), u(c.root_hash.h), match(ok));
  };
  line("floor", floor_c, true, true);
  line("check", check_c, false, check_ok);
  line("native", native_c, true, native_ok);
  line("lua", lua_c, true, lua_ok);
  std::printf("  (check: a `check:` condition calls no leaf, so its evaluations are not counted)\n");
  bool every_leaf = true;
  for (uint64_t c : floor_c.cond) every_leaf = every_leaf && c > 0;
  for (uint64_t c : floor_c.act) every_leaf = every_leaf && c > 0;
  std::printf("  exercised: every leaf called: %s; root success/failure/running = %llu/%llu/%llu; aborts %llu\n",
              every_leaf ? "yes" : "NO", u(floor_c.roots[1]), u(floor_c.roots[2]), u(floor_c.roots[3]),
              u(floor_c.aborts));
  std::printf("  the sense pass's slot pointer and Runtime::set/get address the same value: %s\n", match(ptr_ok));
  std::printf("  check expressions:");
  for (uint32_t j = 0; j < kConds; ++j) std::printf("%s \"%s\"", j ? "," : "", cond_check(j).c_str());
  std::printf("\n");
  bool all = check_ok && native_ok && lua_ok && every_leaf && ptr_ok;
  std::printf("  => floor, check, native and lua made the same decisions: %s\n", all ? "YES" : "NO");
  return all;
}

// Times the five rows at n agents, interleaved rep by rep, and prints the table.
void time_t31(const TempDir& dir, size_t n, int warmup, int block, int reps) {
  FloorWorld floor_w(n);
  FloorLeaves<false> floor_lv;
  T31World sense_w(Cond::Check, n, nullptr, nullptr), check_w(Cond::Check, n, nullptr, nullptr),
      native_w(Cond::Native, n, nullptr, nullptr), lua_w(Cond::Lua, n, nullptr, &dir);
  floor_w.run(warmup, floor_lv);
  check_w.run(warmup);
  native_w.run(warmup);
  lua_w.run(warmup);
  Rows rows;
  rows.add("sense", "the game loop's sense pass alone (included in every row below)", [&](int t) {
    for (int i = 0; i < t; ++i) sense_w.sense();
  });
  rows.add("floor", "hand-written C++ function, per-agent struct (baseline)", [&](int t) { floor_w.run(t, floor_lv); });
  rows.add("check", "thicket, 6 `check:` conditions, native actions", [&](int t) { check_w.run(t); });
  rows.add("native", "thicket, 6 native condition leaves (get_number), native actions", [&](int t) { native_w.run(t); });
  rows.add("lua", "thicket, 6 Lua condition leaves (agent.bb.phase), native actions", [&](int t) { lua_w.run(t); });
  rows.measure(reps, block, static_cast<double>(n) * block);

  std::printf("\nT31 with sensed phase, ns per agent-tick, %zu agent%s (%d reps of %d ticks; median, [best]):\n", n,
              n == 1 ? "" : "s", reps, block);
  rows.print();
  for (bool best : {false, true})
    std::printf("  ratios (%s): check/native %.2fx   check/floor %.2fx   native/floor %.2fx   lua/check %.2fx\n",
                best ? "of bests  " : "of medians", rows.ratio("check", "native", best),
                rows.ratio("check", "floor", best), rows.ratio("native", "floor", best), rows.ratio("lua", "check", best));
}

// ---- part 2: abort re-checks -------------------------------------------------------------------

constexpr int kMaxGuards = 16;

struct GuardCounters {
  uint64_t cond = 0, work = 0, idle = 0, idle_starts = 0, idle_aborts = 0;
  Checksum root_hash;
  bool operator==(const GuardCounters&) const = default;
};

// Branch i's condition: threat > k-1-i, so with threat 1 only the last branch's holds.
std::string guard_yaml(Cond mode, int k, bool aborts) {
  std::string y = "tree: guarded\nblackboard: {threat: 0}\n";
  if (mode == Cond::Lua) y += "leaves: [guards.lua]\n";
  y += "root:\n  selector:\n";
  for (int i = 0; i < k; ++i) {
    const std::string bound = std::to_string(k - 1 - i);
    y += "    - sequence:\n        abort: ";
    y += aborts ? "lower_priority" : "none";
    y += "\n        children:\n";
    if (mode == Cond::Check)
      y += "          - condition: {check: \"threat > " + bound + "\"}\n";
    else
      y += "          - condition: G" + bound + "\n";
    y += "          - action: Work\n";
  }
  y += "    - action: Idle\n";
  return y;
}

std::string guard_lua(bool count) {
  std::string s = "local L = {}\n";
  if (count) s += "COUNT = 0\n";
  for (int i = 0; i < kMaxGuards; ++i)
    s += "function L.G" + std::to_string(i) + "(agent, args)\n" + (count ? "  COUNT = COUNT + 1\n" : "") +
         "  return agent.bb.threat > " + std::to_string(i) + "\nend\n";
  return s + "return L\n";
}

std::string guard_file(int k, bool aborts) { return "guards_" + std::to_string(k) + (aborts ? "_lp" : "_none") + ".yaml"; }

struct GuardWorld : Agents {
  GuardCounters c;  // live in timed runs too: Work's and Idle's increments are part of every row
  Cond mode;

  // lua_dir: where guard_file(k, aborts) and guards.lua are (Lua mode).
  // count: native conditions count their calls (verification only); Lua ones count when the
  // leaf file is the counting one.
  GuardWorld(Cond m, int k, bool aborts, size_t n, bool count, const TempDir* lua_dir) : mode(m) {
    const uint32_t* slotp = &slot;
    GuardCounters* cp = &c;
    if (mode == Cond::Native)
      for (int i = 0; i < kMaxGuards; ++i) {
        thicket::NativeLeaf leaf;
        const double bound = i;
        if (count)
          leaf.tick = [cp, slotp, bound](LeafContext& x) {
            ++cp->cond;
            return x.get_number(*slotp) > bound ? Status::Success : Status::Failure;
          };
        else
          leaf.tick = [slotp, bound](LeafContext& x) {
            return x.get_number(*slotp) > bound ? Status::Success : Status::Failure;
          };
        rt->register_leaf(leaf_name('G', static_cast<uint32_t>(i)), std::move(leaf));
      }
    thicket::NativeLeaf work, idle;
    work.tick = [cp](LeafContext&) {
      ++cp->work;
      return Status::Success;
    };
    idle.tick = [cp](LeafContext&) {
      ++cp->idle;
      return Status::Running;
    };
    idle.start = [cp](LeafContext&) { ++cp->idle_starts; };
    idle.stop = [cp](LeafContext&, Status s) { cp->idle_aborts += s == Status::Aborted; };
    rt->register_leaf("Work", std::move(work));
    rt->register_leaf("Idle", std::move(idle));
    if (mode == Cond::Lua)
      load((lua_dir->path / guard_file(k, aborts)).string(), true, "threat", n);
    else
      load(guard_yaml(mode, k, aborts), false, "threat", n);
  }
  // flip_every: 0 = the game loop writes nothing; N = it writes threat every tick, 1 on each
  // agent's every N-th tick ((tick + id) % N == 0, or with lockstep tick % N == 0 for all
  // agents at once) and 0 otherwise; -1 = writes 0 every tick.
  void run(int ticks, int flip_every, bool hash = false, bool lockstep = false) {
    for (int t = 0; t < ticks; ++t) {
      ++tick;
      if (flip_every > 0)
        for (size_t i = 0; i < key.size(); ++i)
          *key[i] = (tick + (lockstep ? 0 : ids[i])) % static_cast<uint64_t>(flip_every) == 0;
      else if (flip_every < 0)
        for (size_t i = 0; i < key.size(); ++i) *key[i] = 0;
      rt->tick_all(0.1);
      if (hash)
        for (auto h : handles) c.root_hash.add_status(rt->status(h));
    }
  }
  GuardCounters counts() {
    GuardCounters r = c;
    if (mode == Cond::Lua) {  // the counting leaf file's global
      lua_State* L = thicket::lua_host(rt->impl()).state();
      thicket::lua_host(rt->impl()).push_leaf_global("COUNT");
      r.cond = static_cast<uint64_t>(lua_tointeger(L, -1));
      lua_pop(L, 1);
    }
    return r;
  }
};

// Runs every (mode, K, aborts) with counting leaves, steady and with flips; checks the three
// modes agree and that the counts are the ones SPEC 3.5 implies.
bool verify_guards(const TempDir& counting_dir, size_t n, int ticks, int flip) {
  bool all = true;
  std::printf(
      "\nconsistency of the guarded trees (%zu agents x %d ticks; condition calls, Work/Idle calls, Idle starts\n"
      "and aborts, root-status checksum; check/native/lua compared, and with the counts SPEC 3.5 implies):\n",
      n, ticks);
  for (int k : {1, 4, 16}) {
    for (bool aborts : {true, false}) {
      for (int f : {0, flip}) {
        GuardCounters got[3];
        for (Cond m : {Cond::Check, Cond::Native, Cond::Lua}) {
          GuardWorld w(m, k, aborts, n, true, &counting_dir);
          w.run(ticks, f, true);
          got[static_cast<int>(m)] = w.counts();
        }
        // What the rules imply. Steady: tick 1 evaluates the K conditions and starts Idle;
        // with lower_priority every later tick re-checks all K. Flips (lower_priority): a tick
        // with threat 1 while Idle runs re-checks all K, the last one changed: Idle is aborted,
        // the last branch restarts (its condition again, Work succeeds, the root succeeds); the
        // next tick the root starts afresh (K conditions, Idle starts). A fresh root with
        // threat 1 evaluates all K (the last holds) and runs Work.
        GuardCounters want;
        want.idle = want.idle_starts = want.idle_aborts = want.cond = want.work = 0;
        for (size_t a = 1; a <= n; ++a) {
          bool running = false;
          for (uint64_t t = 1; t <= static_cast<uint64_t>(ticks); ++t) {
            bool threat = f > 0 && (t + a) % static_cast<uint64_t>(f) == 0;
            if (running && aborts) {
              if (threat) {
                want.cond += static_cast<uint64_t>(k) + 1;  // K re-checks, the last again in the flow
                ++want.idle_aborts;
                ++want.work;
                running = false;
                continue;
              }
              want.cond += static_cast<uint64_t>(k);
              ++want.idle;
              continue;
            }
            if (running) {  // abort none: Idle resumes, nothing is re-checked
              ++want.idle;
              continue;
            }
            if (threat) {  // a fresh root with threat 1: the last condition holds, Work succeeds
              want.cond += static_cast<uint64_t>(k);
              ++want.work;
              continue;
            }
            want.cond += static_cast<uint64_t>(k);
            ++want.idle_starts;
            ++want.idle;
            running = true;
          }
        }
        bool ok = true;
        for (Cond m : {Cond::Check, Cond::Native, Cond::Lua}) {
          const GuardCounters& g = got[static_cast<int>(m)];
          ok = ok && g.work == want.work && g.idle == want.idle && g.idle_starts == want.idle_starts &&
               g.idle_aborts == want.idle_aborts && g.root_hash == got[0].root_hash;
          if (m != Cond::Check) ok = ok && g.cond == want.cond;
        }
        all = all && ok;
        std::printf(
            "  K=%2d %-14s %-13s conditions %7llu  Work %6llu  Idle %7llu  starts %6llu  aborts %6llu  checksum "
            "%016llx  %s\n",
            k, aborts ? "lower_priority" : "none", f ? ("flip every " + std::to_string(f)).c_str() : "steady",
            u(want.cond), u(want.work), u(want.idle), u(want.idle_starts), u(want.idle_aborts), u(got[0].root_hash.h),
            ok ? "all 3 match" : "MISMATCH");
        if (!ok)
          for (Cond m : {Cond::Check, Cond::Native, Cond::Lua}) {
            const GuardCounters& g = got[static_cast<int>(m)];
            std::printf("      %-6s conditions %llu Work %llu Idle %llu starts %llu aborts %llu checksum %016llx\n",
                        cond_word(m), u(g.cond), u(g.work), u(g.idle), u(g.idle_starts), u(g.idle_aborts),
                        u(g.root_hash.h));
          }
      }
    }
  }
  std::printf("  (check: its condition evaluations are not counted; the other counts and the checksum are)\n");
  std::printf("  => the guarded trees behave as SPEC 3.5 says in all three forms: %s\n", all ? "YES" : "NO");
  return all;
}

// Steady re-check cost at n agents: for each K, the six worlds (3 modes x aborts/none)
// interleaved rep by rep.
void time_rechecks(const TempDir& dir, size_t n, int warmup, int block, int reps) {
  std::printf(
      "\nabort re-check cost, %zu agent%s (Idle running behind K guarded sequences; %d reps of %d ticks;\n"
      "ns per agent-tick, median [best]; per re-check = (lower_priority - none) / K: the median of each rep's\n"
      "difference (the two are timed back to back) [the difference of bests]):\n",
      n, n == 1 ? "" : "s", reps, block);
  const double agent_ticks = static_cast<double>(n) * block;
  Stat lp_by_k[3][3];  // [mode][K index]
  const int ks[3] = {1, 4, 16};
  for (int ki = 0; ki < 3; ++ki) {
    const int k = ks[ki];
    std::unique_ptr<GuardWorld> w[3][2];
    for (Cond m : {Cond::Check, Cond::Native, Cond::Lua})
      for (int a = 0; a < 2; ++a) {
        w[static_cast<int>(m)][a] = std::make_unique<GuardWorld>(m, k, a == 0, n, false, &dir);
        w[static_cast<int>(m)][a]->run(warmup, 0);
      }
    std::vector<double> t[3][2];
    for (int r = 0; r < reps; ++r)
      for (int m = 0; m < 3; ++m)
        for (int a = 0; a < 2; ++a) {
          GuardWorld& g = *w[m][a];
          g.run(1, 0);
          t[m][a].push_back(time_ns([&] { g.run(block, 0); }) / agent_ticks);
        }
    for (int m = 0; m < 3; ++m) {
      Stat lp = stat_of(t[m][0]), none = stat_of(t[m][1]);
      lp_by_k[m][ki] = lp;
      std::vector<double> diff;
      for (int r = 0; r < reps; ++r) diff.push_back((t[m][0][r] - t[m][1][r]) / k);
      std::printf(
          "  %-6s K=%2d   abort none %7.1f [%7.1f]   lower_priority %7.1f [%7.1f]   per re-check %6.1f [%6.1f] ns\n",
          cond_word(static_cast<Cond>(m)), k, none.median, none.best, lp.median, lp.best, stat_of(diff).median,
          (lp.best - none.best) / k);
    }
  }
  std::printf("  slope (lower_priority K=16 - K=1) / 15, per re-checked condition:");
  for (int m = 0; m < 3; ++m)
    std::printf("  %s %.1f [%.1f] ns", cond_word(static_cast<Cond>(m)),
                (lp_by_k[m][2].median - lp_by_k[m][0].median) / 15, (lp_by_k[m][2].best - lp_by_k[m][0].best) / 15);
  std::printf("\n");
}

// Aborts that fire, at n agents, K guards: threat flips to 1 on each agent's every N-th tick.
bool time_flips(const TempDir& dir, size_t n, int k, int warmup, int block, int reps) {
  std::printf(
      "\naborts that fire, %zu agents, K=%d lower_priority (threat = 1 on each agent's every N-th tick, flipping the\n"
      "last-checked condition; beside the same tree with the same writes and threat left 0; %d reps of %d ticks;\n"
      "median [best]; per abort = (aborting - no aborts) x N: the median of each rep's difference, the two timed\n"
      "back to back [the difference of bests]):\n",
      n, k, reps, block);
  const double agent_ticks = static_cast<double>(n) * block;
  bool ok = true;
  struct Flip {
    int every;
    bool lockstep;
  };
  for (Flip fl : {Flip{2, false}, Flip{8, false}, Flip{8, true}}) {
    const int flip = fl.every;
    std::unique_ptr<GuardWorld> steady[2], flips[2];
    for (int m = 0; m < 2; ++m) {
      steady[m] = std::make_unique<GuardWorld>(static_cast<Cond>(m), k, true, n, false, &dir);
      flips[m] = std::make_unique<GuardWorld>(static_cast<Cond>(m), k, true, n, false, &dir);
      steady[m]->run(warmup, -1);
      flips[m]->run(warmup, flip, false, fl.lockstep);
    }
    std::vector<double> ts[2], tf[2], rate[2], per_abort[2];
    std::vector<uint64_t> aborts[2];
    for (int r = 0; r < reps; ++r)
      for (int m = 0; m < 2; ++m) {
        steady[m]->run(1, -1);
        ts[m].push_back(time_ns([&] { steady[m]->run(block, -1); }) / agent_ticks);
        flips[m]->run(1, flip, false, fl.lockstep);
        uint64_t a0 = flips[m]->c.idle_aborts;
        double ns = time_ns([&] { flips[m]->run(block, flip, false, fl.lockstep); });
        uint64_t fired = flips[m]->c.idle_aborts - a0;
        aborts[m].push_back(fired);
        tf[m].push_back(ns / agent_ticks);
        per_abort[m].push_back((tf[m].back() - ts[m].back()) * flip);
        rate[m].push_back(-static_cast<double>(fired) / (ns * 1e-9));  // negated: "best" = highest
      }
    for (int m = 0; m < 2; ++m) {
      const uint64_t want = static_cast<uint64_t>(agent_ticks) / static_cast<uint64_t>(flip);
      bool counted = std::all_of(aborts[m].begin(), aborts[m].end(), [&](uint64_t a) { return a == want; });
      ok = ok && counted;
      Stat s = stat_of(ts[m]), f = stat_of(tf[m]), rt = stat_of(rate[m]);
      const double per_agent_tick = 1.0 / flip;  // aborts per agent-tick
      std::printf(
          "  %-6s N=%d %-9s  no aborts %6.1f [%6.1f]   aborting %6.1f [%6.1f] ns/agent-tick   => %6.1f [%6.1f] ns per "
          "abort;\n                       %.2f M aborts/s (best %.2f M), 1 agent-tick in %d aborts; aborts per block %llu "
          "(expected %llu: %s)\n",
          cond_word(static_cast<Cond>(m)), flip, fl.lockstep ? "lockstep" : "staggered", s.median, s.best, f.median, f.best,
          stat_of(per_abort[m]).median, (f.best - s.best) / per_agent_tick, -rt.median / 1e6, -rt.best / 1e6,
          flip, u(aborts[m][0]), u(want), counted ? "every rep" : "MISMATCH");
    }
  }
  std::printf(
      "  (staggered: each agent on its own phase, (tick + id) %% N, so neighbouring agents take different paths;\n"
      "   lockstep: all agents abort on the same tick; N=2 staggered alternates abort/restart, a pattern too)\n");
  return ok;
}

// ---- part 3: the expression machine alone -------------------------------------------------------

// Evaluates 6 expressions per agent over n agents' phase slots; ns per evaluation.
bool time_eval(size_t n, int reps) {
  thicket::StringTable strings;
  const std::vector<thicket::ExprKey> keys{{"phase", thicket::ValueType::Number, 0}};
  auto compile = [&](const std::string& src) {
    std::vector<thicket::ExprError> errors;
    auto e = thicket::compile_expr(src, keys, strings, errors);
    if (!e) {
      std::fprintf(stderr, "compile_expr(%s): %s\n", src.c_str(), errors.empty() ? "?" : errors[0].message.c_str());
      std::exit(1);
    }
    return *e;
  };
  std::vector<thicket::CompiledExpr> mod, mul, gt;
  for (uint32_t j = 0; j < kConds; ++j) {
    std::string m = cond_check(j), x = m;
    x.replace(x.find(" % "), 3, " * ");
    mod.push_back(compile(m));
    mul.push_back(compile(x));
    gt.push_back(compile("phase > " + std::to_string(2 * j + 1)));
  }
  std::vector<thicket::Slot> slots(n);
  for (size_t i = 0; i < n; ++i) slots[i].num = static_cast<double>(i & 15);
  // The C++ forms: inline, and through the callable type a native leaf is held in.
  std::function<bool(double)> fn[kConds];
  for (uint32_t j = 0; j < kConds; ++j) fn[j] = [j](double p) { return cond_of_phase(j, p); };

  // Consistency: the compiled T31 expressions give cond_of_phase's answers on every phase.
  bool ok = true;
  for (int ph = 0; ph < 16; ++ph)
    for (uint32_t j = 0; j < kConds; ++j) {
      thicket::Slot s;
      s.num = ph;
      ok = ok && mod[j].eval(&s, strings) == cond_of_phase(j, ph) && gt[j].eval(&s, strings) == (ph > int(2 * j + 1));
    }

  uint64_t sink = 0;
  const double evals = static_cast<double>(n) * kConds;
  auto run_exprs = [&](const std::vector<thicket::CompiledExpr>& ex) {
    return time_ns([&] {
             uint64_t t = 0;
             for (size_t i = 0; i < n; ++i)
               for (uint32_t j = 0; j < kConds; ++j) t += ex[j].eval(&slots[i], strings);
             sink += t;
           }) /
           evals;
  };
  std::vector<double> t_mod, t_mul, t_gt, t_inline, t_fn;
  for (int r = 0; r < reps; ++r) {
    t_mod.push_back(run_exprs(mod));
    t_mul.push_back(run_exprs(mul));
    t_gt.push_back(run_exprs(gt));
    t_inline.push_back(time_ns([&] {
                         uint64_t t = 0;
                         for (size_t i = 0; i < n; ++i)
                           for (uint32_t j = 0; j < kConds; ++j) t += cond_of_phase(j, slots[i].num);
                         sink += t;
                       }) /
                       evals);
    t_fn.push_back(time_ns([&] {
                     uint64_t t = 0;
                     for (size_t i = 0; i < n; ++i)
                       for (uint32_t j = 0; j < kConds; ++j) t += fn[j](slots[i].num);
                     sink += t;
                   }) /
                   evals);
  }
  std::printf(
      "\nPart 3. Where a check's time goes: CompiledExpr::eval alone, 6 expressions x %zu agents' slots\n"
      "(%d reps; ns per evaluation, median [best]; compiled T31 expressions agree with C++ on all 16 phases: %s):\n",
      n, reps, match(ok));
  auto row = [](const char* name, const Stat& s, const char* what) { print_row(name, s, what, 7, 2); };
  Stat smod = stat_of(t_mod), smul = stat_of(t_mul);
  row("eval %", smod, "the T31 checks, e.g. \"(phase + 1) % 4 != 0\" (7 instructions, `%` is floored_mod: std::fmod)");
  row("eval *", smul, "the same shapes with `*` for `%`, e.g. \"(phase + 1) * 4 != 0\"");
  row("eval >", stat_of(t_gt), "\"phase > 3\" (3 instructions, the shape of part 2's conditions)");
  row("inline", stat_of(t_inline), "the T31 tests in C++, inline ((phase + off) & mask != 0)");
  row("std::fn", stat_of(t_fn), "the same through a std::function<bool(double)> (the callable a native leaf is held in)");
  std::printf("  => `%%` costs %.1f ns per evaluation over `*` (median)   (sum of results %llu)\n",
              smod.median - smul.median, u(sink));
  return ok;
}

}  // namespace

int main() {
  g_pat = kPattern;
  const auto t_start = Clock::now();
  std::printf(
      "bench_aborts: native `check:` conditions and conditional-abort re-checks (SPEC 3.4, 3.5; issue 3)\n"
      "(load average at start: %s; %ld CPUs online)\n\n",
      load_average().c_str(), sysconf(_SC_NPROCESSORS_ONLN));

  TempDir dir("bench_aborts_timed"), counting_dir("bench_aborts_counting");
  dir.write("t31_phase.yaml", t31_yaml(Cond::Lua));
  dir.write("t31_phase.lua", t31_lua(false));
  counting_dir.write("t31_phase.yaml", t31_yaml(Cond::Lua));
  counting_dir.write("t31_phase.lua", t31_lua(true));
  for (int k : {1, 4, 16})
    for (bool a : {true, false}) {
      dir.write(guard_file(k, a), guard_yaml(Cond::Lua, k, a));
      counting_dir.write(guard_file(k, a), guard_yaml(Cond::Lua, k, a));
    }
  dir.write("guards.lua", guard_lua(false));
  counting_dir.write("guards.lua", guard_lua(true));

  // ---- part 1
  std::printf(
      "Part 1. The T31 tree (active_selector over 3 x [2 conditions, selector of 3 actions, sequence of 2\n"
      "actions]); before each tick the game loop writes phase = (tick + id) mod 16 into every agent's blackboard;\n"
      "the 6 conditions test it, the 15 native actions are bench_t31's.\n\n");
  bool same = verify_t31(counting_dir, 1000, 96);

  // What writing the key costs through the public API (by name, as a Value) vs the slot pointer.
  {
    const size_t n = 10000;
    T31World w(Cond::Check, n, nullptr, nullptr);
    std::vector<double> by_name, by_ptr;
    for (int r = 0; r < 9; ++r) {
      by_name.push_back(time_ns([&] {
                          for (size_t i = 0; i < n; ++i) w.rt->set(w.handles[i], "phase", thicket::Value{double(i & 15)});
                        }) /
                        n);
      by_ptr.push_back(time_ns([&] { w.sense(); }) / n);
    }
    std::printf(
        "\nwriting one number key per agent (10,000 agents, median of 9): Runtime::set(agent, \"phase\", Value) %.1f ns;\n"
        "the sense pass's direct slot write %.1f ns (used below, so the rows show the tree, not the setter)\n",
        stat_of(by_name).median, stat_of(by_ptr).median);
  }

  const int reps = 25;
  time_t31(dir, 1, 1024, 1024, reps);
  time_t31(dir, 10000, 16, 2, reps);

  // ---- part 2
  std::printf(
      "\nPart 2. Abort re-checks: selector [K x sequence {abort: lower_priority, children: [condition, action\n"
      "Work]}, action Idle]; branch i's condition is `threat > K-1-i` (check), a native leaf or a Lua leaf\n"
      "reading threat; Idle always running.\n");
  bool guards_ok = verify_guards(counting_dir, 100, 64, 4);
  time_rechecks(dir, 1, 256, 1024, reps);
  time_rechecks(dir, 10000, 4, 2, reps);
  bool flips_ok = time_flips(dir, 10000, 4, 8, 16, reps);

  bool eval_ok = time_eval(10000, reps);

  bool all = same && guards_ok && flips_ok && eval_ok;
  std::printf("\nconsistency: %s   (total run time %.1f s; load average at end: %s)\n",
              all ? "every implementation made the same decisions" : "IMPLEMENTATIONS DISAGREE",
              std::chrono::duration<double>(Clock::now() - t_start).count(), load_average().c_str());
  return all ? 0 : 1;
}
