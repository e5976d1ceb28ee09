// Composite nodes (SPEC 3.2), tick by tick: sequence, selector, active_selector, filter and the
// random composites (parallel and monitor are in test_parallel.cpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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

TEST_CASE("nodes: random_selector without weights draws the orders the weighted draw gives for equal weights") {
  // Unweighted children take a shortcut (each pick at once, not by walking the remaining
  // weights): it must give, draw for draw, the order of the general weighted walk. Weights all
  // 2 go the general way and pick exactly as weights all 1 would (every sum and difference
  // is exact, doubled).
  constexpr int kChildren = 37;
  std::string kids, twos;
  for (int k = 0; k < kChildren; ++k) {
    kids += std::string(k ? ", " : "") + "{action: a" + std::to_string(k) + "}";
    twos += std::string(k ? ", " : "") + "2";
  }
  auto make = [&](const std::string& params) {
    auto t = std::make_unique<Bt>(7);
    for (int k = 0; k < kChildren; ++k) t->act("a" + std::to_string(k), "F");
    t->load("tree: rnd\nroot:\n  random_selector: " + params + "\n");
    return t;
  };
  auto plain = make("[ " + kids + " ]");
  auto weighted = make("{weights: [" + twos + "], children: [ " + kids + " ]}");
  std::set<std::vector<std::string>> distinct;
  for (int i = 0; i < 6; ++i) {
    auto a = plain->rt.spawn(plain->brain);
    auto b = weighted->rt.spawn(weighted->brain);
    for (int run = 0; run < 5; ++run) {
      const auto order = one_run_order(*plain, a);
      CHECK(order.size() == kChildren);
      CHECK(order == one_run_order(*weighted, b));
      distinct.insert(order);
    }
  }
  CHECK(distinct.size() == 30);  // 37! orders: no two runs alike
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

TEST_CASE("nodes: weights that add up past the largest double are refused (the draw took a share of inf)") {
  auto errors_of = [](const std::string& weights, int children) {
    Bt t;
    std::string kids;
    for (int k = 0; k < children; ++k) {
      t.act("a" + std::to_string(k), "S");
      kids += std::string(k ? ", " : "") + "{action: a" + std::to_string(k) + "}";
    }
    std::vector<thicket::Diagnostic> d;
    t.rt.load_string("tree: w\nroot:\n  random_sequence:\n    weights: " + weights + "\n    children: [" + kids + "]\n",
                     "w.yaml", d);
    std::string all;
    for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
    return all;
  };
  CHECK(errors_of("[1e308, 1e308, 1]", 3) ==
        "w.yaml:4:14: error: the weights add up to more than the largest number (about 1.8e308); only their ratios "
        "count: divide them all by the same number\n");
  CHECK(errors_of("[1e308, 1e307, 1]", 3) == "");  // the largest sums that stay finite are fine
  CHECK(errors_of("[1, 2]", 1) == "w.yaml:4:14: error: 'weights' has 2 entries but there is 1 child\n");
  CHECK(errors_of("[1]", 2) == "w.yaml:4:14: error: 'weights' has 1 entry but there are 2 children\n");
}
