// Decorator nodes (SPEC 3.3), tick by tick: invert, force_*, repeat, until_*, limit, timeout,
// cooldown and log.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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
