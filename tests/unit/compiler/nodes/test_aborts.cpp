// Conditional aborts (SPEC 3.5), tick by tick: self, lower_priority and both; which conditions
// are observed and re-checked, and when.
#include <doctest/doctest.h>

#include <string>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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
