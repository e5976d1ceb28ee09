// bench_snapshot: what do a snapshot of 10,000 agents and its restore cost? (issue 15: "the
// cost of a checkpoint (ms and bytes per 10,000 agents) and of a restore. Goal: a checkpoint of
// 10,000 agents in <= 20 ms and <= 1 KB per agent"). This is the brain side alone
// (Runtime::save / restore); a scenario checkpoint adds the world and the metrics.
//
// (a) scripted: 10,000 agents over three brains (a 14-node tree with a conditional abort, a
//     cooldown, a random selector, repeat and timeout; an fsm; a behavior machine), their leaves
//     Lua hook tables with plain `mem` (a counter and a small route table that grows a little),
//     tasks, function leaves that keep an agent-table field and a table in an `any` blackboard
//     key: the Lua side a snapshot walks is real. Ticked 40 times first, so nodes run, wait
//     and cool down.
// (b) native: the same tree with C++ leaves: the core's share alone.
// Rows: Runtime::save into a SnapshotWriter; restore into a fresh runtime with the brains
// loaded (its setup not timed); baselines: spawning the 10,000 agents, one tick_all.
// Checked: a restored runtime saves the same bytes, and it ticks on exactly as the original
// (node statuses and blackboards after 10 more ticks).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "thicket/runtime.hpp"

namespace {

using namespace bench;
using namespace thicket;

constexpr int kAgents = 10000;
constexpr int kReps = 9;

const char* kLeaves = R"LUA(
local thicket = require("thicket")
local leaves = {}
leaves.Patrol = {
  start = function(agent, args, mem) mem.steps = 0; mem.route = {1, 2, {x = 3.5, tag = "gate"}} end,
  tick = function(agent, args, mem)
    mem.steps = mem.steps + 1
    if #mem.route < 8 then mem.route[#mem.route + 1] = thicket.random(1, 100) end
    agent.bb.steps = agent.bb.steps + 1
    if mem.steps >= args.n then return thicket.SUCCESS end
    return thicket.RUNNING
  end,
}
leaves.Work = thicket.task(function(agent, args)
  while true do
    agent.bb.n = agent.bb.n + 1
    if agent.bb.n % args.every == 0 then return thicket.SUCCESS end
    coroutine.yield()
  end
end)
function leaves.Count(agent, args)
  agent.visits = (agent.visits or 0) + 1
  agent.bb.memo = {visits = agent.visits, last = thicket.tick(), tag = "c"}
  agent.bb.label = "count" .. (agent.visits % 10)
  return thicket.random() < 0.7
end
function leaves.Alert(agent, args) return agent.bb.steps % 4 < 2 end
function leaves.Say(agent, args) agent.bb.label = args.text end
function leaves.Bored(agent, args)
  if agent.bb.n >= 3 and thicket.random() < 0.5 then return "bored" end
end
return leaves
)LUA";

std::string tree(bool lua) {
  return std::string("tree: guard\n") + (lua ? "leaves: [leaves.lua]\n" : "") + R"YAML(
blackboard:
  steps: 0
  n: {type: integer, default: 0}
  memo: null
  label: "none"
  flag: false
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: Alert
          - cooldown:
              seconds: 0.5
              child: {action: {leaf: Work, args: {every: 3}}}
    - sequence:
        - random_selector:
            weights: [1, 2, 1]
            children:
              - action: {leaf: Patrol, args: {n: 3}}
              - action: Count
              - wait: 0.3
        - repeat:
            times: 2
            child: {action: {leaf: Patrol, args: {n: 2}}}
        - timeout:
            seconds: 0.4
            child: {action: {leaf: Work, args: {every: 5}}}
)YAML";
}

const char* kFsm = R"YAML(
fsm: shop
leaves: [leaves.lua]
initial: idle
blackboard: {steps: 0, n: {type: integer, default: 0}, memo: null, label: "none"}
states:
  idle:
    enter: {leaf: Say, args: {text: "idle"}}
    reason: Bored
    act: {leaf: Work, args: {every: 4}}
    transitions: {bored: busy}
  busy:
    enter: {leaf: Say, args: {text: "busy"}}
    when:
      - {check: "steps >= 6", go: idle}
    tree: chores
trees:
  chores:
    sequence:
      - action: {leaf: Patrol, args: {n: 2}}
      - wait: 0.2
)YAML";

const char* kMachine = R"YAML(
machine: villager
leaves: [leaves.lua]
check_every: 0.3
blackboard: {steps: 0, n: {type: integer, default: 0}, memo: null, label: "none"}
behaviors:
  - {name: alert, check: Alert, run: {leaf: Work, args: {every: 2}}}
  - {name: walk, check: {check: "n >= 0"}, run: {leaf: Patrol, args: {n: 3}}}
)YAML";

// Native leaves of the same names: the tree's behavior without Lua.
void register_native(Runtime& rt) {
  auto steps = std::make_shared<std::vector<int>>();
  rt.register_leaf("Alert", {[](LeafContext& c) {
                               Value v;
                               c.get("steps", v);
                               return static_cast<int64_t>(std::get<double>(v)) % 4 < 2 ? Status::Success : Status::Failure;
                             }, nullptr, nullptr});
  rt.register_leaf("Count", {[](LeafContext& c) { return c.random() < 0.7 ? Status::Success : Status::Failure; }, nullptr, nullptr});
  rt.register_leaf("Patrol", {[](LeafContext& c) {
                                Value v;
                                c.get("steps", v);
                                double s = std::get<double>(v) + 1;
                                c.set("steps", s);
                                return static_cast<int64_t>(s) % 3 == 0 ? Status::Success : Status::Running;
                              }, [](LeafContext&) {}, nullptr});
  rt.register_leaf("Work", {[](LeafContext& c) {
                              Value v;
                              c.get("n", v);
                              int64_t n = std::get<int64_t>(v) + 1;
                              c.set("n", n);
                              return n % 4 == 0 ? Status::Success : Status::Running;
                            }, [](LeafContext&) {}, nullptr});
}

struct Setup {
  std::unique_ptr<Runtime> rt;
  std::vector<BrainHandle> brains;
};

Setup make(const TempDir& dir, bool lua) {
  Setup s;
  RuntimeOptions o;
  o.log = [](const std::string&) {};  // the "left out" line is not the subject
  s.rt = std::make_unique<Runtime>(o);
  std::vector<std::string> files = lua ? std::vector<std::string>{"tree.yaml", "fsm.yaml", "machine.yaml"}
                                       : std::vector<std::string>{"native.yaml"};
  if (!lua) register_native(*s.rt);
  for (const auto& f : files) {
    std::vector<Diagnostic> d;
    auto b = s.rt->load_file(dir / f, d);
    if (!b) fail_load(d);
    s.brains.push_back(*b);
  }
  return s;
}

std::string fingerprint(Runtime& rt) {
  std::string out;
  for (AgentHandle h : rt.agents()) {
    rt.node_statuses(h, out);
    if (auto v = rt.get(h, "steps")) out += std::to_string(std::get<double>(*v));
    if (auto v = rt.get(h, "n")) out += std::to_string(std::get<int64_t>(*v));
  }
  return out;
}

bool run(const TempDir& dir, bool lua, const char* title) {
  std::printf("\n(%s) %s, %d agents\n", lua ? "a" : "b", title, kAgents);
  Setup src = make(dir, lua);
  std::vector<double> spawn_ms;
  spawn_ms.push_back(time_ms([&] {
    for (int k = 0; k < kAgents; ++k) src.rt->spawn(src.brains[k % src.brains.size()]);
  }));
  std::vector<double> tick_ms;
  for (int t = 0; t < 40; ++t) tick_ms.push_back(time_ms([&] { src.rt->tick_all(0.1); }));

  std::string bytes;
  std::vector<double> save_ms, restore_ms;
  for (int r = 0; r < kReps; ++r) {
    SnapshotWriter w;
    save_ms.push_back(time_ms([&] { src.rt->save(w); }));
    bytes = w.take();
  }
  bool same = true;
  std::unique_ptr<Runtime> last;
  for (int r = 0; r < kReps; ++r) {
    Setup dst = make(dir, lua);
    SnapshotReader in(bytes);
    std::vector<Diagnostic> d;
    bool ok = false;
    restore_ms.push_back(time_ms([&] { ok = dst.rt->restore(in, d); }));
    if (!ok) fail_load(d);
    last = std::move(dst.rt);
  }
  // One agent at a time (a scenario resumed with another thread count moves agents so).
  std::vector<std::string> singles;
  std::vector<double> save_each_ms, restore_each_ms;
  save_each_ms.push_back(time_ms([&] {
    for (AgentHandle h : src.rt->agents()) {
      SnapshotWriter w;
      src.rt->save(h, w);
      singles.push_back(w.take());
    }
  }));
  size_t single_bytes = 0;
  for (const auto& b : singles) single_bytes += b.size();
  {
    Setup dst = make(dir, lua);
    restore_each_ms.push_back(time_ms([&] {
      for (const auto& b : singles) {
        SnapshotReader in(b);
        std::vector<Diagnostic> d;
        if (!dst.rt->restore_agent(in, d)) fail_load(d);
      }
    }));
  }
  // Linear in the agents restored: a quarter of them into another fresh runtime, per agent.
  std::vector<double> restore_quarter_ms;
  {
    Setup dst = make(dir, lua);
    restore_quarter_ms.push_back(time_ms([&] {
      for (size_t i = 0; i < singles.size() / 4; ++i) {
        SnapshotReader in(singles[i]);
        std::vector<Diagnostic> d;
        if (!dst.rt->restore_agent(in, d)) fail_load(d);
      }
    }));
  }
  SnapshotWriter again;
  last->save(again);
  same = again.bytes() == bytes;
  for (int t = 0; t < 10; ++t) {
    src.rt->tick_all(0.1);
    last->tick_all(0.1);
  }
  const bool ticks_on = fingerprint(*src.rt) == fingerprint(*last);
  print_row("save", stat_of(save_ms), "ms for " + std::to_string(kAgents) + " agents (goal <= 20 ms)", 14, 2);
  print_row("restore", stat_of(restore_ms), "ms into a fresh runtime", 14, 2);
  print_row("save each", stat_of(save_each_ms), "ms: save(agent) of each agent, " +
                                                  std::to_string(single_bytes / kAgents) + " bytes per agent with its brain table", 14, 2);
  print_row("restore_agent", stat_of(restore_each_ms), "ms: each of those into a fresh runtime", 14, 2);
  std::printf("  restore_agent per agent: %.2f us for all %d, %.2f us for the first %d (linear: the same)\n",
              stat_of(restore_each_ms).median * 1e3 / kAgents, kAgents,
              stat_of(restore_quarter_ms).median * 1e3 / (kAgents / 4), kAgents / 4);
  print_row("spawn 10k", stat_of(spawn_ms), "ms (baseline: making the agents)", 14, 2);
  print_row("tick_all", stat_of(tick_ms), "ms for one tick of every agent (baseline)", 14, 2);
  std::printf("  bytes          %9zu  (%.0f bytes per agent; goal <= 1024)\n", bytes.size(),
              static_cast<double>(bytes.size()) / kAgents);
  std::printf("  restored runtime saves the same bytes: %s; ticks on as the original: %s\n", match(same), match(ticks_on));
  return same && ticks_on;
}

}  // namespace

int main() {
  TempDir dir("bench_snapshot");
  dir.write("leaves.lua", kLeaves);
  dir.write("tree.yaml", tree(true));
  dir.write("native.yaml", tree(false));
  dir.write("fsm.yaml", kFsm);
  dir.write("machine.yaml", kMachine);
  std::printf("bench_snapshot: Runtime::save / restore of %d agents (median [best] of %d; load %s)\n", kAgents, kReps,
              load_average().c_str());
  bool ok = run(dir, true, "scripted: tree + fsm + machine, Lua hooks, tasks, agent fields, any values");
  ok = run(dir, false, "native: the tree with C++ leaves") && ok;
  return consistency(ok, "restored runtimes saved the same bytes and ticked on as the originals",
                     "A RESTORED RUNTIME DIFFERS") ? 0 : 1;
}
