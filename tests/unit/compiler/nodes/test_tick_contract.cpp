// The tick contract (SPEC 3.1), tick by tick: leaf hooks, node ids, aborting running
// descendants, and the sim clock as leaves see it.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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

// The walk keeps a fixed stack of frames (tick.cpp, 32) and goes on in a nested walk below it:
// a path of 70 decorators and composites must tick, finish, resume and abort as a short one.
TEST_CASE("nodes: a tree deeper than the walk's stack ticks, resumes and aborts like a shallow one") {
  // 35 (invert, sequence) pairs: 70 nodes above the action.
  std::string y = "tree: t\nroot:\n  active_selector:\n    - condition: gate\n";
  size_t item = 4;  // column of the "- " of the next list item
  for (int k = 0; k < 35; ++k) {
    y += std::string(item, ' ') + "- invert:\n" + std::string(item + 4, ' ') + "sequence:\n";
    item += 6;
  }
  const std::string line = std::string(item, ' ') + "- ";
  y += line + "action: a\n";
  Bt t;
  t.cond("gate", {2});  // succeeds on tick 2 only: the running deep branch is aborted then
  t.act("a", "RF");
  t.load(y);
  // 35 inverts over a failure: an odd count, so the branch succeeds when a fails.
  CHECK(t.run(4) == text(R"(
1 eval gate false
1 start a
1 tick a running
2 eval gate true
2 stop a aborted
3 eval gate false
3 start a
3 tick a running
4 eval gate false
4 tick a failure
4 stop a failure
status 1 running
status 2 success
status 3 running
status 4 success
)"));
}
