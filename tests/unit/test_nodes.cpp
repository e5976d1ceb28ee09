// Every node kind of SPEC 3.2-3.4, the abort rules of 3.1 and the conditional aborts of 3.5,
// tick by tick. Each test states its tree inline, ticks it with native leaves that write every
// call to a log in the examples' format (`3 start a`, `3 tick a running`, `3 stop a aborted`,
// `3 eval c true`), and compares that log and the root's status after each tick (`status K S`,
// at the end, as in tests/spec_examples/*.expected). Time is the sim clock; randomness a fixed seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "thicket/runtime.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;

namespace {

// Drops the newline that follows R"( so expectations can start on their own line.
std::string text(const char* s) {
  std::string t = s;
  if (!t.empty() && t[0] == '\n') t.erase(0, 1);
  return t;
}

std::string status_str(Status s) { return std::string(thicket::status_name(s)); }

// A runtime with scripted native leaves that log every call.
//   cond(name, ticks)  a condition, true on the agent ticks listed; logs `K eval NAME true|false`
//                      (its raw result, before `negate`, as the examples do).
//   act(name, script)  an action whose n-th tick of a run returns script[n] ('S', 'F', 'R'; the
//                      last entry repeats); logs start, tick and stop.
// Log decorator lines whose message was passed to watch() are folded into the same log as
// `K log MESSAGE EVENT`, so their order against the leaf calls can be checked.
class Bt {
 public:
  explicit Bt(uint64_t seed = 1)
      : rt(thicket::RuntimeOptions{.seed = seed, .log = [this](const std::string& line) { on_log(line); }}) {}

  void cond(const std::string& name, std::set<uint64_t> at) {
    rt.register_leaf(name, NativeLeaf{
                               .tick =
                                   [this, name, at](LeafContext& c) {
                                     bool r = at.count(c.tick()) > 0;
                                     emit(c, "eval " + name + (r ? " true" : " false"));
                                     return r ? Status::Success : Status::Failure;
                                   },
                               // A condition has no start/stop hooks (SPEC 3.4): these must never run.
                               .start = [this, name](LeafContext& c) { emit(c, "HOOK start " + name); },
                               .stop = [this, name](LeafContext& c, Status s) {
                                 emit(c, "HOOK stop " + name + " " + status_str(s));
                               }});
  }

  void act(const std::string& name, std::string script) {
    rt.register_leaf(name, NativeLeaf{
                               .tick =
                                   [this, name, script](LeafContext& c) {
                                     int& n = runs[run_key(c)];
                                     ++n;
                                     char s = script[std::min<size_t>(static_cast<size_t>(n), script.size()) - 1];
                                     Status st = s == 'S' ? Status::Success : s == 'F' ? Status::Failure : Status::Running;
                                     emit(c, "tick " + name + " " + status_str(st));
                                     return st;
                                   },
                               .start =
                                   [this, name](LeafContext& c) {
                                     runs[run_key(c)] = 0;
                                     node_of[name] = c.node_id();
                                     emit(c, "start " + name);
                                   },
                               .stop = [this, name](LeafContext& c, Status s) {
                                 emit(c, "stop " + name + " " + status_str(s));
                               }});
  }

  void watch(const std::string& message) { watched.push_back(message); }

  thicket::BrainHandle load(const std::string& yaml, const std::string& name = "nodes_test.yaml") {
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(yaml, name, d);
    std::string all;
    for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
    INFO(all);
    REQUIRE(b.has_value());
    brain = *b;
    return *b;
  }

  // Ticks the test's agent (spawned on first use) `ticks` times; returns the calls made in those
  // ticks followed by the root's status after each.
  std::string run(int ticks, double dt = 0.5) {
    if (!agent.valid()) agent = rt.spawn(brain);
    std::string statuses;
    size_t from = calls.size();
    for (int i = 0; i < ticks; ++i) {
      ++k;
      Status s = rt.tick(agent, dt);
      statuses += "status " + std::to_string(k) + " " + status_str(s) + "\n";
    }
    return calls.substr(from) + statuses;
  }

  // The order in which actions were started in `log` (the names after "start ").
  static std::vector<std::string> starts(const std::string& log) {
    std::vector<std::string> out;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
      size_t p = line.find(" start ");
      if (p != std::string::npos) out.push_back(line.substr(p + 7));
    }
    return out;
  }

  std::string calls;
  std::vector<std::string> log_lines;
  std::map<std::string, std::string> node_of;  // action name -> node id of its latest start
  std::vector<std::string> watched;
  thicket::BrainHandle brain;
  thicket::AgentHandle agent;
  uint64_t k = 0;
  bool prefix_agent = false;
  std::map<std::string, int> runs;
  thicket::Runtime rt;  // last: its log callback uses the members above

 private:
  static std::string run_key(LeafContext& c) { return std::to_string(c.agent_id()) + "|" + c.node_id(); }
  void emit(LeafContext& c, const std::string& what) {
    if (prefix_agent) calls += "a" + std::to_string(c.agent_id()) + " ";
    calls += std::to_string(c.tick()) + " " + what + "\n";
  }
  void on_log(const std::string& line) {
    log_lines.push_back(line);
    for (const auto& m : watched) {
      size_t p = line.find(m);
      if (p == std::string::npos) continue;
      std::string rest = line.substr(p + m.size());
      const char* event = nullptr;
      for (const char* e : {"aborted", "success", "failure", "running", "start"})
        if (!event && rest.find(e) != std::string::npos) event = e;
      calls += std::to_string(k) + " log " + m + " " + (event ? event : "?") + "\n";
      return;
    }
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// ---------------------------------------------------------------- worked examples (SPEC 12)

TEST_CASE("nodes: seed 000's guard, with native leaves, prints examples/seed000_guard.expected") {
  Bt t;
  t.cond("see", {3, 4, 5, 6, 7, 8, 9});
  t.cond("low", {7, 8});
  t.cond("dead", {5});
  t.act("runaway", "R");
  t.act("attack", "R");
  t.act("patrol", "R");
  t.load(R"(
tree: seed000_guard
root:
  active_selector:
    - sequence:
        - condition: see
        - active_selector:
            - sequence:
                - condition: low
                - action: runaway
            - monitor:
                - condition: {leaf: dead, negate: true}
                - action: attack
    - action: patrol
)");
  std::string expected = read_text(THICKET_SOURCE_DIR "/tests/spec_examples/seed000_guard.expected");
  REQUIRE(!expected.empty());
  CHECK(t.run(12) == expected);
}

TEST_CASE("nodes: seed 001's nested aborts, with native leaves, prints examples/seed001_nested_aborts.expected") {
  Bt t;
  t.cond("can_see", {5, 6});
  t.cond("can_hear", {3, 9});
  t.act("patrol", "RRS");
  t.act("smoke", "R");
  t.load(R"(
tree: abort_lower
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - selector:
              abort: lower_priority
              children:
                - condition: can_see
                - condition: can_hear
          - action: patrol
    - action: smoke
)");
  std::string expected = read_text(THICKET_SOURCE_DIR "/tests/spec_examples/seed001_nested_aborts.expected");
  REQUIRE(!expected.empty());
  CHECK(t.run(12) == expected);
}

// ---------------------------------------------------------------- 3.1 the tick contract

TEST_CASE("nodes: action hooks follow start / tick / stop, and a leaf that finishes at once does all three in one tick") {
  Bt t;
  t.act("a", "RRS");
  t.load(R"(
tree: t
root:
  action: a
)");
  CHECK(t.run(4) == text(R"(
1 start a
1 tick a running
2 tick a running
3 tick a success
3 stop a success
4 start a
4 tick a running
status 1 running
status 2 running
status 3 success
status 4 running
)"));

  Bt f;
  f.act("b", "F");
  f.load("tree: t\nroot: {action: b}\n");
  CHECK(f.run(2) == text(R"(
1 start b
1 tick b failure
1 stop b failure
2 start b
2 tick b failure
2 stop b failure
status 1 failure
status 2 failure
)"));
}

TEST_CASE("nodes: node ids are names, else paths of child indices; running_nodes lists the running path") {
  Bt t;
  t.act("a", "S");
  t.act("b", "F");
  t.act("c", "R");
  t.act("d", "R");
  t.load(R"(
tree: ids
root:
  sequence:
    - action: a
    - selector:
        name: sel
        children:
          - action: b
          - action: {leaf: c, name: shooter}
          - invert: {action: d}
)");
  t.run(1);
  CHECK(t.node_of["a"] == "root/0");
  CHECK(t.node_of["b"] == "root/1/0");  // a path counts child indices, whatever the parent's name
  CHECK(t.node_of["c"] == "shooter");
  CHECK(t.rt.running_nodes(t.agent) == std::vector<std::string>{"root", "sel", "shooter"});
}

TEST_CASE("nodes: a decorator's child is /0 in ids") {
  Bt t;
  t.act("d", "R");
  t.load(R"(
tree: ids
root:
  selector:
    - invert: {action: d}
)");
  t.run(1);
  CHECK(t.node_of["d"] == "root/0/0");
  CHECK(t.rt.running_nodes(t.agent) == std::vector<std::string>{"root", "root/0", "root/0/0"});
}

TEST_CASE("nodes: aborting aborts running descendants in post-order, deepest first; non-running nodes are left alone") {
  Bt t;
  t.cond("stop", {2});
  t.act("a", "S");
  t.act("b", "R");
  t.act("c", "R");
  t.act("d", "R");
  t.act("e", "S");
  t.watch("L1");
  t.watch("L2");
  t.load(R"(
tree: post_order
root:
  active_selector:
    - condition: stop
    - parallel:
        - log:
            message: L1
            child:
              sequence: [ {action: a}, {action: b} ]
        - parallel:
            - action: c
            - log: {message: L2, child: {action: d}}
        - action: e
)");
  CHECK(t.run(3) == text(R"(
1 eval stop false
1 log L1 start
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b running
1 start c
1 tick c running
1 log L2 start
1 start d
1 tick d running
1 start e
1 tick e success
1 stop e success
2 eval stop true
2 stop b aborted
2 log L1 aborted
2 stop c aborted
2 stop d aborted
2 log L2 aborted
3 eval stop false
3 log L1 start
3 start a
3 tick a success
3 stop a success
3 start b
3 tick b running
3 start c
3 tick c running
3 log L2 start
3 start d
3 tick d running
3 start e
3 tick e success
3 stop e success
status 1 running
status 2 success
status 3 running
)"));
}

// ---------------------------------------------------------------- 3.2 composites

TEST_CASE("nodes: sequence resumes at its running child, fails at a failure, succeeds when all succeed; the root restarts after finishing") {
  Bt t;
  t.cond("c", {1, 2, 3, 4});
  t.act("a", "S");
  t.act("b", "RS");
  t.act("x", "F");
  t.load(R"(
tree: seq
root:
  sequence:
    - action: a
    - condition: c
    - action: b
    - action: x
)");
  CHECK(t.run(3) == text(R"(
1 start a
1 tick a success
1 stop a success
1 eval c true
1 start b
1 tick b running
2 tick b success
2 stop b success
2 start x
2 tick x failure
2 stop x failure
3 start a
3 tick a success
3 stop a success
3 eval c true
3 start b
3 tick b running
status 1 running
status 2 failure
status 3 running
)"));

  Bt s;
  s.act("a", "S");
  s.act("b", "S");
  s.load("tree: seq\nroot:\n  sequence: [ {action: a}, {action: b} ]\n");
  CHECK(s.run(1) == text(R"(
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b success
1 stop b success
status 1 success
)"));
}

TEST_CASE("nodes: selector mirrors sequence") {
  Bt t;
  t.cond("c", {});
  t.act("a", "F");
  t.act("b", "RS");
  t.act("x", "S");
  t.load(R"(
tree: sel
root:
  selector:
    - condition: c
    - action: a
    - action: b
    - action: x
)");
  CHECK(t.run(3) == text(R"(
1 eval c false
1 start a
1 tick a failure
1 stop a failure
1 start b
1 tick b running
2 tick b success
2 stop b success
3 eval c false
3 start a
3 tick a failure
3 stop a failure
3 start b
3 tick b running
status 1 running
status 2 success
status 3 running
)"));

  Bt f;
  f.cond("c", {});
  f.act("a", "F");
  f.load("tree: sel\nroot:\n  selector: [ {condition: c}, {action: a} ]\n");
  CHECK(f.run(1) == text(R"(
1 eval c false
1 start a
1 tick a failure
1 stop a failure
status 1 failure
)"));
}

TEST_CASE("nodes: active_selector re-evaluates from the first child and aborts the old runner after the new one was ticked") {
  Bt t;
  t.cond("c", {3, 4});
  t.act("h", "RRF");
  t.act("l", "R");
  t.load(R"(
tree: active
root:
  active_selector:
    - sequence: [ {condition: c}, {action: h} ]
    - action: l
)");
  // Tick 4: the sequence is running, so ticking it resumes h (c is not evaluated again).
  // Tick 5: h fails by itself: it is not running, so nothing is aborted; l starts afresh.
  CHECK(t.run(6) == text(R"(
1 eval c false
1 start l
1 tick l running
2 eval c false
2 tick l running
3 eval c true
3 start h
3 tick h running
3 stop l aborted
4 tick h running
5 tick h failure
5 stop h failure
5 start l
5 tick l running
6 eval c false
6 tick l running
status 1 running
status 2 running
status 3 running
status 4 running
status 5 running
status 6 running
)"));
}

TEST_CASE("nodes: active_selector: a higher child that succeeds aborts the runner, and the root restarts next tick") {
  Bt t;
  t.cond("c", {2});
  t.act("l", "R");
  t.load(R"(
tree: active
root:
  active_selector:
    - condition: c
    - action: l
)");
  CHECK(t.run(3) == text(R"(
1 eval c false
1 start l
1 tick l running
2 eval c true
2 stop l aborted
3 eval c false
3 start l
3 tick l running
status 1 running
status 2 success
status 3 running
)"));
}

TEST_CASE("nodes: parallel (default success all, failure one): finished children are not ticked again in the run; a new run resets them") {
  Bt t;
  t.cond("c", {1});
  t.act("a", "RS");
  t.act("b", "RRS");
  t.load(R"(
tree: par
root:
  parallel:
    - condition: c
    - action: a
    - action: b
)");
  CHECK(t.run(4) == text(R"(
1 eval c true
1 start a
1 tick a running
1 start b
1 tick b running
2 tick a success
2 stop a success
2 tick b running
3 tick b success
3 stop b success
4 eval c false
status 1 running
status 2 running
status 3 success
status 4 failure
)"));
}

TEST_CASE("nodes: parallel failure one: the first failure decides at once and the still-running children are aborted") {
  Bt t;
  t.act("a", "RF");
  t.act("b", "R");
  t.act("c", "R");
  t.load(R"(
tree: par
root:
  parallel: [ {action: a}, {action: b}, {action: c} ]
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a running
1 start b
1 tick b running
1 start c
1 tick c running
2 tick a failure
2 stop a failure
2 stop b aborted
2 stop c aborted
status 1 running
status 2 failure
)"));
}

TEST_CASE("nodes: parallel success one: the first success decides, in list order; the rest are aborted") {
  Bt t;
  t.act("a", "R");
  t.act("b", "RS");
  t.act("c", "R");
  t.load(R"(
tree: par
root:
  parallel:
    success: one
    children: [ {action: a}, {action: b}, {action: c} ]
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a running
1 start b
1 tick b running
1 start c
1 tick c running
2 tick a running
2 tick b success
2 stop b success
2 stop a aborted
2 stop c aborted
status 1 running
status 2 success
)"));

  // success one and failure one: whichever count reaches its threshold first in list order.
  Bt f;
  f.act("a", "F");
  f.act("b", "S");
  f.load(R"(
tree: par
root:
  parallel: {success: one, failure: one, children: [ {action: a}, {action: b} ]}
)");
  CHECK(f.run(1) == text(R"(
1 start a
1 tick a failure
1 stop a failure
status 1 failure
)"));
}

TEST_CASE("nodes: parallel with integer thresholds counts the latest status of finished children") {
  Bt t;
  t.act("a", "F");
  t.act("b", "RS");
  t.act("c", "RRS");
  t.load(R"(
tree: par
root:
  parallel: {success: 2, failure: 2, children: [ {action: a}, {action: b}, {action: c} ]}
)");
  CHECK(t.run(3) == text(R"(
1 start a
1 tick a failure
1 stop a failure
1 start b
1 tick b running
1 start c
1 tick c running
2 tick b success
2 stop b success
2 tick c running
3 tick c success
3 stop c success
status 1 running
status 2 running
status 3 success
)"));

  Bt f;
  f.act("a", "F");
  f.act("b", "RF");
  f.act("c", "R");
  f.load(R"(
tree: par
root:
  parallel: {success: all, failure: 2, children: [ {action: a}, {action: b}, {action: c} ]}
)");
  CHECK(f.run(2) == text(R"(
1 start a
1 tick a failure
1 stop a failure
1 start b
1 tick b running
1 start c
1 tick c running
2 tick b failure
2 stop b failure
2 stop c aborted
status 1 running
status 2 failure
)"));
}

TEST_CASE("nodes: parallel: every child finished and neither threshold met -> failure") {
  Bt t;
  t.act("a", "S");
  t.act("b", "F");
  t.act("c", "RS");
  t.load(R"(
tree: par
root:
  parallel: {success: all, failure: 2, children: [ {action: a}, {action: b}, {action: c} ]}
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b failure
1 stop b failure
1 start c
1 tick c running
2 tick c success
2 stop c success
status 1 running
status 2 failure
)"));
}

TEST_CASE("nodes: monitor re-ticks its direct conditions every tick in list order; a failing one aborts the actions") {
  Bt t;
  t.cond("ok", {1, 2, 3});
  t.act("a", "R");
  t.load(R"(
tree: mon
root:
  monitor:
    - condition: ok
    - action: a
)");
  CHECK(t.run(5) == text(R"(
1 eval ok true
1 start a
1 tick a running
2 eval ok true
2 tick a running
3 eval ok true
3 tick a running
4 eval ok false
4 stop a aborted
5 eval ok false
status 1 running
status 2 running
status 3 running
status 4 failure
status 5 failure
)"));
}

TEST_CASE("nodes: monitor: conditions are ticked in list order with the others; all succeeding -> success") {
  Bt t;
  t.cond("ok", {1});
  t.act("a", "R");
  t.load(R"(
tree: mon
root:
  monitor:
    - action: a
    - condition: ok
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a running
1 eval ok true
2 tick a running
2 eval ok false
2 stop a aborted
status 1 running
status 2 failure
)"));

  Bt s;
  s.cond("ok", {1, 2, 3});
  s.act("a", "RS");
  s.load("tree: mon\nroot:\n  monitor: [ {condition: ok}, {action: a} ]\n");
  CHECK(s.run(2) == text(R"(
1 eval ok true
1 start a
1 tick a running
2 eval ok true
2 tick a success
2 stop a success
status 1 running
status 2 success
)"));
}

TEST_CASE("nodes: monitor re-ticks only direct condition children, not conditions inside a finished composite") {
  Bt t;
  t.cond("c", {1});
  t.act("a", "R");
  t.load(R"(
tree: mon
root:
  monitor:
    - sequence: [ {condition: c} ]
    - action: a
)");
  CHECK(t.run(2) == text(R"(
1 eval c true
1 start a
1 tick a running
2 tick a running
status 1 running
status 2 running
)"));
}

TEST_CASE("nodes: filter is a sequence of its conditions followed by its do children") {
  Bt t;
  t.cond("c1", {1, 2, 3});
  t.cond("c2", {1, 2});
  t.act("a", "S");
  t.act("b", "RRS");
  t.load(R"(
tree: filt
root:
  filter:
    conditions: [ {condition: c1}, {condition: c2} ]
    do: [ {action: a}, {action: b} ]
)");
  CHECK(t.run(4) == text(R"(
1 eval c1 true
1 eval c2 true
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b running
2 tick b running
3 tick b success
3 stop b success
4 eval c1 false
status 1 running
status 2 running
status 3 success
status 4 failure
)"));
  CHECK(t.node_of["b"] == "root/3");
}

TEST_CASE("nodes: filter with abort self re-checks its conditions while a do child runs") {
  Bt t;
  t.cond("c", {1, 2});
  t.act("a", "R");
  t.load(R"(
tree: filt
root:
  filter:
    abort: self
    conditions: [ {condition: c} ]
    do: [ {action: a} ]
)");
  CHECK(t.run(3) == text(R"(
1 eval c true
1 start a
1 tick a running
2 eval c true
2 tick a running
3 eval c false
3 stop a aborted
3 eval c false
status 1 running
status 2 running
status 3 failure
)"));
}

namespace {
// The order one agent's random composite tried its children in, over one tick.
std::vector<std::string> one_run_order(Bt& t, thicket::AgentHandle a) {
  size_t from = t.calls.size();
  t.rt.tick(a, 0.5);
  return Bt::starts(t.calls.substr(from));
}
}  // namespace

TEST_CASE("nodes: random_selector tries every child once, in a permutation drawn per start, reproducible for a seed") {
  const char* yaml = R"(
tree: rnd
root:
  random_selector: [ {action: a}, {action: b}, {action: c}, {action: d} ]
)";
  auto make = [&](uint64_t seed) {
    auto t = std::make_unique<Bt>(seed);
    for (const char* n : {"a", "b", "c", "d"}) t->act(n, "F");
    t->load(yaml);
    return t;
  };
  auto t1 = make(42), t2 = make(42), t3 = make(43);
  const std::vector<std::string> all = {"a", "b", "c", "d"};
  std::vector<std::vector<std::string>> orders1, orders2, orders3;
  std::vector<thicket::AgentHandle> as1, as2, as3;
  for (int i = 0; i < 12; ++i) {
    as1.push_back(t1->rt.spawn(t1->brain));
    as2.push_back(t2->rt.spawn(t2->brain));
    as3.push_back(t3->rt.spawn(t3->brain));
  }
  // Tick the second runtime's agents in reverse order: each agent's draws are its own.
  for (int i = 0; i < 12; ++i) orders1.push_back(one_run_order(*t1, as1[i]));
  for (int i = 11; i >= 0; --i) orders2.insert(orders2.begin(), one_run_order(*t2, as2[i]));
  for (int i = 0; i < 12; ++i) orders3.push_back(one_run_order(*t3, as3[i]));
  std::set<std::vector<std::string>> distinct;
  for (const auto& o : orders1) {
    auto sorted = o;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == all);  // a permutation: each child once, all failing -> all tried
    distinct.insert(o);
  }
  CHECK(orders1 == orders2);  // same seed, same agents -> same orders
  CHECK(orders1 != orders3);  // another seed -> other orders
  CHECK(distinct.size() > 1);  // agents draw from their own streams

  // Each start draws again: one agent over many runs does not repeat one order.
  std::set<std::vector<std::string>> per_run;
  for (int r = 0; r < 20; ++r) per_run.insert(one_run_order(*t1, as1[0]));
  CHECK(per_run.size() > 1);
}

TEST_CASE("nodes: random_selector stops at the first success; random_sequence runs all in order and resumes a running child") {
  Bt t(5);
  t.act("a", "S");
  t.act("b", "S");
  t.act("c", "S");
  t.load("tree: rnd\nroot:\n  random_selector: [ {action: a}, {action: b}, {action: c} ]\n");
  auto a = t.rt.spawn(t.brain);
  for (int i = 0; i < 10; ++i) CHECK(one_run_order(t, a).size() == 1);
  CHECK(t.rt.status(a) == Status::Success);

  Bt s(5);
  s.act("a", "RS");
  s.act("b", "RS");
  s.act("c", "RS");
  s.load("tree: rnd\nroot:\n  random_sequence: [ {action: a}, {action: b}, {action: c} ]\n");
  auto r = s.run(4);
  auto order = Bt::starts(r);
  REQUIRE(order.size() == 3);
  // Each child runs two ticks and the next starts in the tick the previous one succeeds; the
  // order drawn at the start holds for the whole run.
  std::string expected;
  for (int i = 0; i < 3; ++i) {
    const std::string& x = order[i];
    int t1 = i + 1, t2 = i + 2;
    expected += std::to_string(t1) + " start " + x + "\n" + std::to_string(t1) + " tick " + x + " running\n" +
                std::to_string(t2) + " tick " + x + " success\n" + std::to_string(t2) + " stop " + x + " success\n";
  }
  expected += "status 1 running\nstatus 2 running\nstatus 3 running\nstatus 4 success\n";
  CHECK(r == expected);
  auto sorted = order;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("nodes: random composites' weights bias the draw without replacement") {
  Bt t(9);
  t.act("a", "S");
  t.act("b", "S");
  t.act("c", "S");
  t.load(R"(
tree: weighted
root:
  random_sequence:
    weights: [8, 1, 1]
    children: [ {action: a}, {action: b}, {action: c} ]
)");
  const int n = 4000;
  std::map<std::vector<std::string>, int> counts;
  int a_first = 0;
  for (int i = 0; i < n; ++i) {
    auto agent = t.rt.spawn(t.brain);
    auto o = one_run_order(t, agent);
    REQUIRE(o.size() == 3);
    counts[o]++;
    if (o[0] == "a") ++a_first;
  }
  // P(a first) = 8/10; P(a, b, c) = 8/10 * 1/2; P(b, a, c) = 1/10 * 8/9.
  CHECK(a_first / double(n) == doctest::Approx(0.8).epsilon(0.04));
  CHECK(counts[{"a", "b", "c"}] / double(n) == doctest::Approx(0.4).epsilon(0.1));
  CHECK(counts[{"b", "a", "c"}] / double(n) == doctest::Approx(0.1 * 8 / 9).epsilon(0.2));
  CHECK(counts[{"b", "c", "a"}] / double(n) == doctest::Approx(0.1 * 1 / 9).epsilon(0.5));
  CHECK(counts.size() == 6);

  Bt s(9);
  s.act("a", "F");
  s.act("b", "F");
  s.act("c", "F");
  s.load(R"(
tree: weighted
root:
  random_selector: {weights: [1, 1, 8], children: [ {action: a}, {action: b}, {action: c} ]}
)");
  int c_first = 0;
  for (int i = 0; i < n; ++i) {
    auto o = one_run_order(s, s.rt.spawn(s.brain));
    REQUIRE(o.size() == 3);
    if (o[0] == "c") ++c_first;
  }
  CHECK(c_first / double(n) == doctest::Approx(0.8).epsilon(0.04));
}

// ---------------------------------------------------------------- 3.3 decorators

TEST_CASE("nodes: invert swaps success and failure and passes running") {
  Bt t;
  t.act("a", "RS");
  t.load("tree: inv\nroot:\n  invert: {action: a}\n");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a running
2 tick a success
2 stop a success
status 1 running
status 2 failure
)"));
  Bt c;
  c.cond("c", {1});
  c.load("tree: inv\nroot:\n  invert: {condition: c}\n");
  CHECK(c.run(2) == text(R"(
1 eval c true
2 eval c false
status 1 failure
status 2 success
)"));
}

TEST_CASE("nodes: force_success and force_failure turn any finish into success / failure") {
  Bt t;
  t.act("a", "RF");
  t.load("tree: fs\nroot:\n  force_success: {action: a}\n");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a running
2 tick a failure
2 stop a failure
status 1 running
status 2 success
)"));
  Bt f;
  f.act("a", "RS");
  f.load("tree: ff\nroot:\n  force_failure: {action: a}\n");
  CHECK(f.run(2) == text(R"(
1 start a
1 tick a running
2 tick a success
2 stop a success
status 1 running
status 2 failure
)"));
}

TEST_CASE("nodes: repeat times: one completion per tick; the times-th success succeeds; the count restarts with the repeat") {
  Bt t;
  t.act("a", "S");
  t.load(R"(
tree: rep
root:
  repeat: {times: 3, child: {action: a}}
)");
  CHECK(t.run(4) == text(R"(
1 start a
1 tick a success
1 stop a success
2 start a
2 tick a success
2 stop a success
3 start a
3 tick a success
3 stop a success
4 start a
4 tick a success
4 stop a success
status 1 running
status 2 running
status 3 success
status 4 running
)"));
}

TEST_CASE("nodes: repeat runs a multi-tick child to completion each time; failure fails") {
  Bt t;
  t.act("a", "RS");
  t.load("tree: rep\nroot:\n  repeat: {times: 2, child: {action: a}}\n");
  CHECK(t.run(4) == text(R"(
1 start a
1 tick a running
2 tick a success
2 stop a success
3 start a
3 tick a running
4 tick a success
4 stop a success
status 1 running
status 2 running
status 3 running
status 4 success
)"));

  Bt f;
  f.cond("c", {1, 2});
  f.load("tree: rep\nroot:\n  repeat: {times: 5, child: {condition: c}}\n");
  CHECK(f.run(3) == text(R"(
1 eval c true
2 eval c true
3 eval c false
status 1 running
status 2 running
status 3 failure
)"));
}

TEST_CASE("nodes: repeat: an aborted repeat restarts its success count") {
  Bt t;
  t.cond("c", {3});
  t.act("a", "S");
  t.load(R"(
tree: rep
root:
  active_selector:
    - condition: c
    - repeat: {times: 3, child: {action: a}}
)");
  // Tick 3 interrupts the repeat after two successes (a is not running: nothing to stop);
  // from tick 4 the repeat starts again and needs three more successes.
  CHECK(t.run(6) == text(R"(
1 eval c false
1 start a
1 tick a success
1 stop a success
2 eval c false
2 start a
2 tick a success
2 stop a success
3 eval c true
4 eval c false
4 start a
4 tick a success
4 stop a success
5 eval c false
5 start a
5 tick a success
5 stop a success
6 eval c false
6 start a
6 tick a success
6 stop a success
status 1 running
status 2 running
status 3 success
status 4 running
status 5 running
status 6 success
)"));
}

TEST_CASE("nodes: repeat without times runs forever, one completion per tick") {
  Bt t;
  t.act("a", "S");
  t.load("tree: rep\nroot:\n  repeat: {action: a}\n");
  std::string expected, statuses;
  for (int k = 1; k <= 5; ++k) {
    std::string K = std::to_string(k);
    expected += K + " start a\n" + K + " tick a success\n" + K + " stop a success\n";
    statuses += "status " + K + " running\n";
  }
  CHECK(t.run(5) == expected + statuses);

  Bt p;
  p.act("a", "S");
  p.load("tree: rep\nroot:\n  repeat: {child: {action: a}}\n");
  CHECK(p.run(5) == expected + statuses);
}

TEST_CASE("nodes: until_fail and until_success") {
  Bt t;
  t.cond("c", {1, 2});
  t.load("tree: uf\nroot:\n  until_fail: {condition: c}\n");
  CHECK(t.run(3) == text(R"(
1 eval c true
2 eval c true
3 eval c false
status 1 running
status 2 running
status 3 success
)"));

  Bt a;
  a.act("a", "S");
  a.load("tree: uf\nroot:\n  until_fail: {action: a}\n");
  CHECK(a.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
2 start a
2 tick a success
2 stop a success
status 1 running
status 2 running
)"));

  Bt s;
  s.cond("c", {3});
  s.load("tree: us\nroot:\n  until_success: {condition: c}\n");
  CHECK(s.run(4) == text(R"(
1 eval c false
2 eval c false
3 eval c true
4 eval c false
status 1 running
status 2 running
status 3 success
status 4 running
)"));
}

TEST_CASE("nodes: limit counts starts over the agent's life, across runs; then fails without ticking") {
  Bt t;
  t.act("a", "RS");
  t.load("tree: lim\nroot:\n  limit: {times: 2, child: {action: a}}\n");
  CHECK(t.run(6) == text(R"(
1 start a
1 tick a running
2 tick a success
2 stop a success
3 start a
3 tick a running
4 tick a success
4 stop a success
status 1 running
status 2 success
status 3 running
status 4 success
status 5 failure
status 6 failure
)"));
  // Another agent has its own life.
  auto b = t.rt.spawn(t.brain);
  size_t from = t.calls.size();
  CHECK(t.rt.tick(b, 0.5) == Status::Running);
  CHECK(t.calls.substr(from) == "1 start a\n1 tick a running\n");
}

TEST_CASE("nodes: limit with a condition child counts one start per evaluation") {
  Bt t;
  t.cond("c", {1, 2, 3, 4});
  t.load("tree: lim\nroot:\n  limit: {times: 2, child: {condition: c}}\n");
  CHECK(t.run(4) == text(R"(
1 eval c true
2 eval c true
status 1 success
status 2 success
status 3 failure
status 4 failure
)"));
}

TEST_CASE("nodes: timeout aborts its child and fails once running for seconds (starting tick at 0 s)") {
  Bt t;
  t.act("a", "R");
  t.load("tree: to\nroot:\n  timeout: {seconds: 1.0, child: {action: a}}\n");
  CHECK(t.run(5) == text(R"(
1 start a
1 tick a running
2 tick a running
3 stop a aborted
4 start a
4 tick a running
5 tick a running
status 1 running
status 2 running
status 3 failure
status 4 running
status 5 running
)"));

  Bt s;
  s.act("a", "RS");
  s.load("tree: to\nroot:\n  timeout: {seconds: 1.0, child: {action: a}}\n");
  CHECK(s.run(2) == text(R"(
1 start a
1 tick a running
2 tick a success
2 stop a success
status 1 running
status 2 success
)"));
}

TEST_CASE("nodes: timeout with seconds 0 fails on its starting tick without ticking the child") {
  Bt t;
  t.act("a", "S");
  t.load("tree: to\nroot:\n  timeout: {seconds: 0, child: {action: a}}\n");
  CHECK(t.run(3) == text(R"(
status 1 failure
status 2 failure
status 3 failure
)"));
}

TEST_CASE("nodes: timeout tests elapsed time with a tolerance of 1e-9") {
  Bt t;
  t.act("a", "R");
  t.load("tree: to\nroot:\n  timeout: {seconds: 1.0000000001, child: {action: a}}\n");
  CHECK(t.run(3) == text(R"(
1 start a
1 tick a running
2 tick a running
3 stop a aborted
status 1 running
status 2 running
status 3 failure
)"));

  Bt o;  // 1e-8 past the tick: outside the tolerance, so one more tick runs
  o.act("a", "R");
  o.load("tree: to\nroot:\n  timeout: {seconds: 1.00000001, child: {action: a}}\n");
  CHECK(o.run(4) == text(R"(
1 start a
1 tick a running
2 tick a running
3 tick a running
4 stop a aborted
status 1 running
status 2 running
status 3 running
status 4 failure
)"));

  Bt d;  // dt 0.1: ten ticks of float sim time make 1.0 up to rounding
  d.act("a", "R");
  d.load("tree: to\nroot:\n  timeout: {seconds: 1.0, child: {action: a}}\n");
  std::string r = d.run(11, 0.1);
  CHECK(r.find("10 tick a running\n") != std::string::npos);
  CHECK(r.find("11 tick a") == std::string::npos);
  CHECK(r.find("11 stop a aborted\n") != std::string::npos);
  CHECK(r.find("status 11 failure\n") != std::string::npos);
}

TEST_CASE("nodes: cooldown fails for seconds after the child last stopped with success or failure") {
  Bt t;
  t.act("a", "S");
  t.load("tree: cd\nroot:\n  cooldown: {seconds: 1.0, child: {action: a}}\n");
  CHECK(t.run(5) == text(R"(
1 start a
1 tick a success
1 stop a success
3 start a
3 tick a success
3 stop a success
5 start a
5 tick a success
5 stop a success
status 1 success
status 2 failure
status 3 success
status 4 failure
status 5 success
)"));

  // tf is when the child stopped (t = 0.5), not when it started; a failure counts too.
  Bt s;
  s.act("a", "RF");
  s.load("tree: cd\nroot:\n  cooldown: {seconds: 1.0, child: {action: a}}\n");
  CHECK(s.run(4) == text(R"(
1 start a
1 tick a running
2 tick a failure
2 stop a failure
4 start a
4 tick a running
status 1 running
status 2 failure
status 3 failure
status 4 running
)"));
}

TEST_CASE("nodes: cooldown: an abort does not count as the child stopping") {
  Bt t;
  t.cond("c", {2});
  t.act("a", "R");
  t.load(R"(
tree: cd
root:
  active_selector:
    - condition: c
    - cooldown: {seconds: 1.0, child: {action: a}}
)");
  CHECK(t.run(3) == text(R"(
1 eval c false
1 start a
1 tick a running
2 eval c true
2 stop a aborted
3 eval c false
3 start a
3 tick a running
status 1 running
status 2 success
status 3 running
)"));
}

TEST_CASE("nodes: cooldown's elapsed-time test has the 1e-9 tolerance") {
  Bt t;
  t.act("a", "S");
  t.load("tree: cd\nroot:\n  cooldown: {seconds: 1.0000000001, child: {action: a}}\n");
  CHECK(t.run(3) == text(R"(
1 start a
1 tick a success
1 stop a success
3 start a
3 tick a success
3 stop a success
status 1 success
status 2 failure
status 3 success
)"));
}

TEST_CASE("nodes: log writes a line to the run's log when its child starts and stops, and passes the status") {
  Bt t;
  t.act("a", "RS");
  t.watch("hello-log");
  t.load("tree: lg\nroot:\n  log: {message: hello-log, child: {action: a}}\n");
  CHECK(t.run(2) == text(R"(
1 log hello-log start
1 start a
1 tick a running
2 tick a success
2 stop a success
2 log hello-log success
status 1 running
status 2 success
)"));
  CHECK(t.log_lines.size() == 2);

  Bt f;
  f.act("a", "F");
  f.watch("m2");
  f.load("tree: lg\nroot:\n  log: {message: m2, child: {action: a}}\n");
  CHECK(f.run(1) == text(R"(
1 log m2 start
1 start a
1 tick a failure
1 stop a failure
1 log m2 failure
status 1 failure
)"));

  Bt plain;  // without a message: still one line at the start and one at the stop
  plain.act("a", "S");
  plain.load("tree: lg\nroot:\n  log: {action: a}\n");
  CHECK(plain.run(1) == "1 start a\n1 tick a success\n1 stop a success\nstatus 1 success\n");
  CHECK(plain.log_lines.size() == 2);
}

// ---------------------------------------------------------------- 3.4 leaves

TEST_CASE("nodes: condition: truthy success, falsy failure, negate swaps; no start/stop hooks") {
  Bt t;
  t.cond("c", {1, 3});
  t.load(R"(
tree: cnd
root:
  sequence:
    - condition: {leaf: c, negate: true}
)");
  CHECK(t.run(3) == text(R"(
1 eval c true
2 eval c false
3 eval c true
status 1 failure
status 2 success
status 3 failure
)"));
  CHECK(t.calls.find("HOOK") == std::string::npos);
}

TEST_CASE("nodes: condition check expressions read the blackboard without a leaf call") {
  Bt t;
  t.load(R"(
tree: chk
blackboard:
  health: 50
  alert: false
root:
  selector:
    - condition: {check: "health < 30 and not alert"}
)");
  auto a = t.rt.spawn(t.brain);
  CHECK(t.rt.tick(a, 0.5) == Status::Failure);
  REQUIRE(t.rt.set(a, "health", 20.0));
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  REQUIRE(t.rt.set(a, "alert", true));
  CHECK(t.rt.tick(a, 0.5) == Status::Failure);

  Bt n;
  n.load(R"(
tree: chk
blackboard:
  health: 50
root:
  condition: {check: "health < 30", negate: true}
)");
  auto b = n.rt.spawn(n.brain);
  CHECK(n.rt.tick(b, 0.5) == Status::Success);
}

TEST_CASE("nodes: wait 1.0 at dt 0.5 succeeds on its third tick; both forms; wait 0 succeeds at once") {
  for (const char* yaml : {"tree: w\nroot:\n  sequence: [ {wait: 1.0}, {action: a} ]\n",
                           "tree: w\nroot:\n  sequence: [ {wait: {seconds: 1.0}}, {action: a} ]\n"}) {
    Bt t;
    t.act("a", "S");
    t.load(yaml);
    CHECK(t.run(4) == text(R"(
3 start a
3 tick a success
3 stop a success
status 1 running
status 2 running
status 3 success
status 4 running
)"));
  }
  Bt z;
  z.load("tree: w\nroot:\n  wait: 0\n");
  CHECK(z.run(2) == "status 1 success\nstatus 2 success\n");
}

TEST_CASE("nodes: wait's elapsed-time test has the 1e-9 tolerance") {
  auto first_success = [](const std::string& seconds, double dt) {
    Bt t;
    t.load("tree: w\nroot:\n  wait: " + seconds + "\n");
    auto a = t.rt.spawn(t.brain);
    for (int k = 1; k <= 40; ++k)
      if (t.rt.tick(a, dt) == Status::Success) return k;
    return -1;
  };
  CHECK(first_success("1.0", 0.5) == 3);
  CHECK(first_success("1.0000000001", 0.5) == 3);  // 1e-10 past: within the tolerance
  CHECK(first_success("1.000000002", 0.5) == 4);   // 2e-9 past: not
  CHECK(first_success("1.0", 0.1) == 11);          // ten steps of 0.1
  CHECK(first_success("0.8", 0.1) == 9);
  CHECK(first_success("0.3", 0.1) == 4);
  CHECK(first_success("2.5", 0.25) == 11);
}

TEST_CASE("nodes: subtree from the same file's trees: map is compiled inline, with ids from the root") {
  Bt t;
  t.act("a", "S");
  t.act("b", "R");
  t.act("c", "R");
  t.load(R"(
tree: main
trees:
  attack:
    sequence: [ {action: a}, {action: b} ]
root:
  selector:
    - subtree: attack
    - action: c
)");
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
1 start b
1 tick b running
2 tick b running
status 1 running
status 2 running
)"));
  CHECK(t.node_of["b"] == "root/0/1");
  CHECK(t.rt.running_nodes(t.agent) == std::vector<std::string>{"root", "root/0", "root/0/1"});
}

TEST_CASE("nodes: subtree from an imported file") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("thicket_test_nodes_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};
  {
    std::ofstream(dir / "lib.yaml") << "tree: patrol_loop\nroot:\n  sequence: [ {action: a}, {wait: 0.5}, {action: b} ]\n";
  }
  Bt t;
  t.act("a", "S");
  t.act("b", "S");
  t.act("c", "S");
  t.load(R"(
tree: main
import: [lib.yaml]
root:
  sequence:
    - subtree: patrol_loop
    - action: c
)",
         (dir / "main.yaml").string());
  CHECK(t.run(2) == text(R"(
1 start a
1 tick a success
1 stop a success
2 start b
2 tick b success
2 stop b success
2 start c
2 tick c success
2 stop c success
status 1 running
status 2 success
)"));
}

TEST_CASE("nodes: subtree cycles are load errors") {
  thicket::Runtime rt(thicket::RuntimeOptions{.log = [](const std::string&) {}});
  rt.register_leaf("a", NativeLeaf{.tick = [](LeafContext&) { return Status::Success; }, .start = {}, .stop = {}});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(R"(
tree: main
trees:
  x:
    sequence: [ {action: a}, {subtree: y} ]
  y:
    selector: [ {subtree: x} ]
root:
  subtree: x
)",
                          "cycle.yaml", d);
  CHECK_FALSE(b.has_value());
  bool cycle = false;
  for (const auto& x : d) cycle = cycle || (x.severity == thicket::Severity::Error && x.message.find("cycle") != std::string::npos);
  CHECK(cycle);
}

// ---------------------------------------------------------------- 3.5 conditional aborts

TEST_CASE("aborts: self re-checks the conditions before the running child; it does not guard lower priorities") {
  Bt t;
  t.cond("c", {1, 2, 4});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: self
root:
  selector:
    - sequence:
        abort: self
        children:
          - condition: c
          - action: a
    - action: b
)");
  CHECK(t.run(4) == text(R"(
1 eval c true
1 start a
1 tick a running
2 eval c true
2 tick a running
3 eval c false
3 stop a aborted
3 eval c false
3 start b
3 tick b running
4 tick b running
status 1 running
status 2 running
status 3 running
status 4 running
)"));
}

TEST_CASE("aborts: lower_priority lets the parent re-check an earlier child's conditions; it does not guard its own children") {
  Bt t;
  t.cond("c", {3});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: lower
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: c
          - action: a
    - action: b
)");
  CHECK(t.run(4) == text(R"(
1 eval c false
1 start b
1 tick b running
2 eval c false
2 tick b running
3 eval c true
3 stop b aborted
3 eval c true
3 start a
3 tick a running
4 tick a running
status 1 running
status 2 running
status 3 running
status 4 running
)"));
}

TEST_CASE("aborts: both applies the self and the lower_priority rules") {
  Bt t;
  t.cond("c", {3});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: both
root:
  selector:
    - sequence:
        abort: both
        children:
          - condition: c
          - action: a
    - action: b
)");
  CHECK(t.run(6) == text(R"(
1 eval c false
1 start b
1 tick b running
2 eval c false
2 tick b running
3 eval c true
3 stop b aborted
3 eval c true
3 start a
3 tick a running
4 eval c false
4 stop a aborted
4 eval c false
4 start b
4 tick b running
5 eval c false
5 tick b running
6 eval c false
6 tick b running
status 1 running
status 2 running
status 3 running
status 4 running
status 5 running
status 6 running
)"));
}

TEST_CASE("aborts: when both rules apply, the union is re-checked once, in child order") {
  Bt t;
  t.cond("c1", {1, 2, 3});
  t.cond("c2", {1, 2, 3});
  t.act("a", "R");
  t.load(R"(
tree: union
root:
  sequence:
    abort: self
    children:
      - condition: c1
      - selector:
          abort: lower_priority
          children: [ {condition: c2} ]
      - action: a
)");
  CHECK(t.run(2) == text(R"(
1 eval c1 true
1 eval c2 true
1 start a
1 tick a running
2 eval c1 true
2 eval c2 true
2 tick a running
status 1 running
status 2 running
)"));
}

TEST_CASE("aborts: observed conditions nest through composites whose abort is not none") {
  Bt t;
  t.cond("deep", {3});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: nest
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - selector:
              abort: both
              children:
                - sequence:
                    abort: self
                    children: [ {condition: deep} ]
          - action: a
    - action: b
)");
  CHECK(t.run(5) == text(R"(
1 eval deep false
1 start b
1 tick b running
2 eval deep false
2 tick b running
3 eval deep true
3 stop b aborted
3 eval deep true
3 start a
3 tick a running
4 eval deep false
4 stop a aborted
4 eval deep false
4 start b
4 tick b running
5 eval deep false
5 tick b running
status 1 running
status 2 running
status 3 running
status 4 running
status 5 running
)"));
}

TEST_CASE("aborts: a composite with abort none in between stops the nesting") {
  Bt t;
  t.cond("c", {2, 3});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: blocked
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - selector: [ {condition: c} ]
          - action: a
    - action: b
)");
  CHECK(t.run(3) == text(R"(
1 eval c false
1 start b
1 tick b running
2 tick b running
3 tick b running
status 1 running
status 2 running
status 3 running
)"));
}

TEST_CASE("aborts: a condition or composite under a decorator is never observed") {
  Bt t;
  t.cond("c", {1});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: deco
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - invert: {condition: c}
          - action: a
    - action: b
)");
  CHECK(t.run(3) == text(R"(
1 eval c true
1 start b
1 tick b running
2 tick b running
3 tick b running
status 1 running
status 2 running
status 3 running
)"));

  Bt d;
  d.cond("c", {2});
  d.act("a", "R");
  d.act("b", "R");
  d.load(R"(
tree: deco
root:
  selector:
    - force_failure:
        sequence:
          abort: lower_priority
          children:
            - condition: c
            - action: a
    - action: b
)");
  CHECK(d.run(2) == text(R"(
1 eval c false
1 start b
1 tick b running
2 tick b running
status 1 running
status 2 running
)"));
}

TEST_CASE("aborts: lower_priority acts only where the parent is a sequence, selector, filter or random composite") {
  Bt t;
  t.cond("c", {2});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: under_parallel
root:
  parallel:
    failure: all
    children:
      - sequence:
          abort: lower_priority
          children:
            - condition: c
            - action: a
      - action: b
)");
  CHECK(t.run(2) == text(R"(
1 eval c false
1 start b
1 tick b running
2 tick b running
status 1 running
status 2 running
)"));
}

TEST_CASE("aborts: only conditions evaluated since their holder last started are re-checked") {
  Bt t;
  t.cond("c1", {3});
  t.cond("c2", {1, 2, 3, 4});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: reached
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: c1
          - condition: c2
          - action: a
    - action: b
)");
  // c2 is not reached while c1 is false, so it is not re-checked (ticks 2 and 4 would show it).
  CHECK(t.run(4) == text(R"(
1 eval c1 false
1 start b
1 tick b running
2 eval c1 false
2 tick b running
3 eval c1 true
3 stop b aborted
3 eval c1 true
3 eval c2 true
3 start a
3 tick a running
4 tick a running
status 1 running
status 2 running
status 3 running
status 4 running
)"));
}

TEST_CASE("aborts: a result remembered from an earlier run of the holder is stale and aborts nothing") {
  Bt t;
  t.cond("c1", {1, 2});
  t.cond("c2", {4});
  t.act("b", "RF");
  t.load(R"(
tree: stale
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: c1
          - condition: c2
    - action: b
)");
  CHECK(t.run(4) == text(R"(
1 eval c1 true
1 eval c2 false
1 start b
1 tick b running
2 eval c1 true
2 eval c2 false
2 tick b failure
2 stop b failure
3 eval c1 false
3 start b
3 tick b running
4 eval c1 false
4 tick b failure
4 stop b failure
status 1 running
status 2 failure
status 3 running
status 4 failure
)"));
}

TEST_CASE("aborts: the first changed condition aborts; later ones are not re-checked; the runner may restart") {
  Bt t;
  t.cond("c1", {1});
  t.cond("c2", {2});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: first
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: c1
          - condition: c2
          - action: a
    - action: b
)");
  CHECK(t.run(2) == text(R"(
1 eval c1 true
1 eval c2 false
1 start b
1 tick b running
2 eval c1 false
2 stop b aborted
2 eval c1 false
2 start b
2 tick b running
status 1 running
status 2 running
)"));
}

TEST_CASE("aborts: a selector's lower_priority abort reacts to a condition turning false too") {
  // Any change of the remembered result counts, true -> false as well as false -> true.
  Bt t;
  t.cond("c", {1});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: sel_lower
root:
  sequence:
    - selector:
        abort: lower_priority
        children:
          - condition: c
          - action: a
    - action: b
)");
  // Tick 1: c true -> the selector succeeds -> b runs. Tick 2: the sequence re-checks c (false
  // now, a change) -> b is aborted and the selector starts afresh: c false, a starts.
  CHECK(t.run(2) == text(R"(
1 eval c true
1 start b
1 tick b running
2 eval c false
2 stop b aborted
2 eval c false
2 start a
2 tick a running
status 1 running
status 2 running
)"));
}

TEST_CASE("aborts: self observes the conditions of a child composite whose own abort is self") {
  Bt t;
  t.cond("c", {1});
  t.act("a", "R");
  t.load(R"(
tree: self_nest
root:
  sequence:
    abort: self
    children:
      - selector:
          abort: self
          children: [ {condition: c} ]
      - action: a
)");
  CHECK(t.run(2) == text(R"(
1 eval c true
1 start a
1 tick a running
2 eval c false
2 stop a aborted
2 eval c false
status 1 running
status 2 failure
)"));
}

TEST_CASE("nodes: tick k happens at sim time (k-1)*dt, seen by native leaves") {
  Bt t;
  std::vector<std::pair<uint64_t, double>> seen;
  t.rt.register_leaf("clock", NativeLeaf{.tick =
                                             [&](LeafContext& c) {
                                               seen.push_back({c.tick(), c.time()});
                                               CHECK(c.dt() == 0.25);
                                               return Status::Running;
                                             },
                                         .start = {},
                                         .stop = {}});
  t.load("tree: clk\nroot:\n  action: clock\n");
  t.run(5, 0.25);
  REQUIRE(seen.size() == 5);
  for (size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].first == i + 1);
    CHECK(seen[i].second == 0.25 * static_cast<double>(i));  // exact in binary
  }

  Bt d;
  std::vector<double> times;
  d.rt.register_leaf("clock", NativeLeaf{.tick = [&](LeafContext& c) {
                                            times.push_back(c.time());
                                            return Status::Running;
                                          },
                                          .start = {},
                                          .stop = {}});
  d.load("tree: clk\nroot:\n  action: clock\n");
  d.run(101, 0.1);
  REQUIRE(times.size() == 101);
  for (size_t i = 0; i < times.size(); ++i) CHECK(times[i] == doctest::Approx(0.1 * static_cast<double>(i)).epsilon(1e-12));
}

// The same clock rule seen from C++ (SPEC 3.1): tick 11 at dt 0.1 is at 10 * 0.1 == 1.0.
TEST_CASE("nodes: LeafContext::time() is exactly (k-1)*dt for a constant dt") {
  Bt t;
  std::string off;
  t.rt.register_leaf("clock", NativeLeaf{.tick = [&](LeafContext& c) {
                                            double expected = static_cast<double>(c.tick() - 1) * 0.1;
                                            char line[96];
                                            std::snprintf(line, sizeof line, "tick %llu: time %.17g, (k-1)*dt %.17g\n",
                                                          static_cast<unsigned long long>(c.tick()), c.time(), expected);
                                            if (c.time() != expected) off += line;
                                            return Status::Running;
                                          },
                                          .start = {},
                                          .stop = {}});
  t.load("tree: clk\nroot:\n  action: clock\n");
  t.run(12, 0.1);
  CHECK(off == "");
}

TEST_CASE("aborts: lower_priority under an active_selector adds no re-check: the condition is evaluated once per tick") {
  Bt t;
  t.cond("c", {3});
  t.act("a", "R");
  t.act("b", "R");
  t.load(R"(
tree: under_active
root:
  active_selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: c
          - action: a
    - action: b
)");
  CHECK(t.run(3) == text(R"(
1 eval c false
1 start b
1 tick b running
2 eval c false
2 tick b running
3 eval c true
3 start a
3 tick a running
3 stop b aborted
status 1 running
status 2 running
status 3 running
)"));
}

// Found by fuzz/brain_fuzz (fuzz/regressions/brain/empty_leaf_name.yaml): an empty leaf name
// passed the compiler and threw map::at when the program was installed.
TEST_CASE("nodes: an empty leaf name is a load error, not an internal error") {
  for (const char* root : {"{action: {leaf: !ct}}", "{action: {leaf: \"\"}}", "{condition: {leaf: ''}}",
                           "{action: \"\"}", "{condition: ''}"}) {
    thicket::Runtime rt(thicket::RuntimeOptions{.log = [](const std::string&) {}});
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(std::string("tree: t\nroot: ") + root + "\n", "empty_leaf.yaml", d);
    INFO(root);
    CHECK_FALSE(b.has_value());
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 2);
    CHECK(d[0].message.find("internal error") == std::string::npos);
  }
}

// Found by fuzz/brain_fuzz (fuzz/regressions/brain/leaf_file_name_too_long.yaml): a leaf or
// import path longer than the file system allows threw filesystem_error.
TEST_CASE("nodes: a leaf or import file name too long for the file system is not found") {
  const std::string longname(300, 'x');
  for (const std::string& yaml : {"tree: t\nleaves: [" + longname + ".lua]\nroot: {action: A}\n",
                                  "tree: t\nimport: [" + longname + ".yaml]\nroot: {action: A}\n"}) {
    thicket::Runtime rt(thicket::RuntimeOptions{.log = [](const std::string&) {}});
    rt.register_leaf("A", NativeLeaf{.tick = [](LeafContext&) { return Status::Success; }, .start = {}, .stop = {}});
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(yaml, "long_name.yaml", d);
    CHECK_FALSE(b.has_value());
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 2);
    CHECK(d[0].message.find("internal error") == std::string::npos);
  }
}
