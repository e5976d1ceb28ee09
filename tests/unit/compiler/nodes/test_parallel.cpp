// Parallel and monitor (SPEC 3.2), tick by tick: success and failure thresholds, finished
// children, aborting the rest; monitor's re-ticked conditions.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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
