// Leaf nodes (SPEC 3.4), tick by tick: condition, check expressions and wait; leaf names and
// leaf files the loader must refuse.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "nodes_fixture.hpp"

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;
using thicket_test::Bt;
using thicket_test::text;

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

// The plain-function form of a native leaf (NativeLeafFn): tick/start/stop get the user
// pointer back; a leaf registered without any tick function fails instead of crashing.
TEST_CASE("nodes: NativeLeafFn leaves get their user pointer, hooks run; a leaf without tick fails") {
  struct Log {
    std::string text;
    int runs = 0;
  } log;
  thicket::NativeLeafFn fn;
  fn.tick = [](LeafContext& c, void* u) {
    auto* l = static_cast<Log*>(u);
    l->text += std::to_string(c.tick()) + " tick agent " + std::to_string(c.agent_id()) + " " + c.node_id() + "\n";
    return ++l->runs % 2 ? Status::Running : Status::Success;
  };
  fn.start = [](LeafContext& c, void* u) { static_cast<Log*>(u)->text += std::to_string(c.tick()) + " start\n"; };
  fn.stop = [](LeafContext& c, Status s, void* u) {
    static_cast<Log*>(u)->text += std::to_string(c.tick()) + " stop " + std::string(thicket::status_name(s)) + "\n";
  };
  fn.user = &log;
  thicket::Runtime rt;
  std::string logged;
  rt.on_log([&](const std::string& line) { logged += line + "\n"; });
  rt.register_leaf("Walk", fn);
  // A leaf with no tick (the header: required) or no name is refused with an error in the log:
  // taken, it loaded and failed every tick without a word.
  rt.register_leaf("Nothing", thicket::NativeLeafFn{});
  rt.register_leaf("Empty", NativeLeaf{});
  rt.register_leaf("", fn);
  CHECK(logged == "error: register_leaf: leaf 'Nothing' has no tick (it is required); nothing registered\n"
                  "error: register_leaf: leaf 'Empty' has no tick (it is required); nothing registered\n"
                  "error: register_leaf: a leaf needs a name; nothing registered\n");
  std::vector<thicket::Diagnostic> diags;
  auto b = rt.load_string("tree: t\nroot:\n  selector:\n    - action: Nothing\n    - action: Empty\n    - action: walk_it\n",
                          "t.yaml", diags);
  REQUIRE_FALSE(b);  // none of the three is a leaf
  CHECK(diags.size() == 3);
  diags.clear();
  b = rt.load_string("tree: t\nroot:\n  selector:\n    - action: {leaf: Walk, name: w}\n", "t.yaml", diags);
  REQUIRE(b);
  auto a = rt.spawn(*b);
  CHECK(rt.tick(a, 0.1) == Status::Running);
  CHECK(rt.tick(a, 0.1) == Status::Success);
  CHECK(log.text == "1 start\n1 tick agent 1 w\n2 tick agent 1 w\n2 stop success\n");
}
