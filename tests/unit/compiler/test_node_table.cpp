// Runtime::nodes / brain_type / node_statuses: the node table and per-node statuses viewers
// draw brains from (issue 14; docs/record-format.md), for trees, fsms and machines.
#include <doctest/doctest.h>

#include "thicket/runtime.hpp"

using thicket::NodeInfo;
using thicket::Status;

namespace {

const NodeInfo* find(const std::vector<NodeInfo>& nodes, const std::string& id) {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

std::string statuses(const thicket::Runtime& rt, thicket::AgentHandle a) {
  std::string s;
  rt.node_statuses(a, s);
  return s;
}

}  // namespace

TEST_CASE("node table: a tree's nodes depth-first with parents, decorator parameters, leaf args and checks") {
  thicket::Runtime rt;
  rt.register_leaf("Sees", thicket::NativeLeaf{.tick = [](thicket::LeafContext&) { return Status::Success; }});
  rt.register_leaf("Go", thicket::NativeLeaf{.tick = [](thicket::LeafContext&) { return Status::Running; }});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(R"(
tree: guard
blackboard: {n: 0}
root:
  selector:
    - sequence:
        abort: self
        children:
          - condition: {leaf: Sees, args: {range: 12.5, team: red}}
          - cooldown: {seconds: 2, child: {action: Go}}
    - repeat: {times: 3, child: {condition: {check: "n >= 1"}}}
    - parallel: {success: 1, failure: 2, children: [{action: Go}, {wait: 1.5}]}
)", "guard.yaml", d);
  REQUIRE(b);
  CHECK(rt.brain_type(*b) == "tree");
  auto nodes = rt.nodes(*b);
  REQUIRE(nodes.size() == 10);
  CHECK(nodes[0].kind == "selector");
  CHECK(nodes[0].parent == -1);
  CHECK(nodes[1].kind == "sequence");
  CHECK(nodes[1].parent == 0);
  CHECK(nodes[1].params == "abort: self");
  CHECK(nodes[2].kind == "condition");
  CHECK(nodes[2].parent == 1);
  CHECK(nodes[2].params == "range: 12.5, team: \"red\"");
  CHECK(nodes[3].kind == "cooldown");
  CHECK(nodes[3].params == "seconds: 2");
  CHECK(nodes[4].kind == "action");
  CHECK(nodes[4].parent == 3);
  CHECK(nodes[5].kind == "repeat");
  CHECK(nodes[5].parent == 0);
  CHECK(nodes[5].params == "times: 3");
  CHECK(nodes[6].kind == "check");
  CHECK(nodes[6].params == "check: n >= 1");
  CHECK(nodes[7].kind == "parallel");
  CHECK(nodes[7].params == "success: 1, failure: 2");
  CHECK(nodes[9].kind == "wait");
  CHECK(nodes[9].params == "seconds: 1.5");
  CHECK(nodes[9].parent == 7);
  for (const auto& n : nodes) {
    CHECK(n.links.empty());
    CHECK_FALSE(n.id.empty());
    CHECK_FALSE(n.label.empty());
  }
  // Statuses: one character per node, '.' before the first tick.
  auto a = rt.spawn(*b);
  CHECK(statuses(rt, a) == "..........");
  rt.tick(a, 0.1);
  // The selector runs the sequence: Sees succeeded, the cooldown's Go runs.
  CHECK(statuses(rt, a) == "RRSRR.....");
  std::string out = "x";
  rt.node_statuses(a, out);  // appends
  CHECK(out == "xRRSRR.....");
  rt.despawn(a);
  out.clear();
  rt.node_statuses(a, out);  // a stale handle appends nothing
  CHECK(out.empty());
  CHECK(rt.nodes(thicket::BrainHandle{}).empty());
  CHECK(rt.brain_type(thicket::BrainHandle{}).empty());
}

TEST_CASE("node table: an fsm's states link to their targets by transition name or 'when'") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  auto fsm = rt.load_string(R"(
fsm: door
blackboard: {open: false}
initial: shut
states:
  shut: {when: [{check: "open", go: ajar}]}
  ajar: {when: [{check: "not open", go: shut}, {check: "false", go: ajar}]}
)", "door.yaml", d);
  REQUIRE(fsm);
  CHECK(rt.brain_type(*fsm) == "fsm");
  auto nodes = rt.nodes(*fsm);
  REQUIRE(nodes.size() >= 3);
  CHECK(nodes[0].kind == "fsm");
  const NodeInfo* shut = find(nodes, "shut");
  const NodeInfo* ajar = find(nodes, "ajar");
  REQUIRE(shut);
  REQUIRE(ajar);
  CHECK(shut->kind == "state");
  CHECK(shut->parent == 0);
  const auto ajar_index = static_cast<uint32_t>(ajar - nodes.data());
  const auto shut_index = static_cast<uint32_t>(shut - nodes.data());
  CHECK(shut->links == std::vector<std::pair<uint32_t, std::string>>{{ajar_index, "when"}});
  CHECK(ajar->links == std::vector<std::pair<uint32_t, std::string>>{{shut_index, "when"}, {ajar_index, "when"}});
  const NodeInfo* check = find(nodes, "shut/when/0");
  REQUIRE(check);
  CHECK(check->params == "check: open");
  CHECK(nodes[check->parent].id == "shut");

  auto a = rt.spawn(*fsm);
  rt.tick(a, 0.1);
  std::string s = statuses(rt, a);
  REQUIRE(s.size() == nodes.size());
  CHECK(s[0] == 'R');
  CHECK(s[shut_index] == 'R');
  CHECK(s[ajar_index] == '.');
  rt.set(a, "open", true);
  rt.tick(a, 0.1);
  s = statuses(rt, a);
  CHECK(s[ajar_index] == 'R');
  CHECK(s[shut_index] != 'R');
}

TEST_CASE("node table: a machine's checks link to the run node of their behavior") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  auto machine = rt.load_string(R"(
machine: m
blackboard: {near: false}
behaviors:
  - {name: hunt, check: {check: "near"}, tree: {wait: 10}}
  - {name: idle, check: {check: "true"}, tree: {cooldown: {seconds: 4, child: {wait: 10}}}}
)", "m.yaml", d);
  REQUIRE(machine);
  CHECK(rt.brain_type(*machine) == "machine");
  auto nodes = rt.nodes(*machine);
  REQUIRE(nodes.size() >= 5);
  CHECK(nodes[0].kind == "machine");
  const NodeInfo* hunt_check = find(nodes, "hunt/check");
  const NodeInfo* idle_check = find(nodes, "idle/check");
  REQUIRE(hunt_check);
  REQUIRE(idle_check);
  REQUIRE(hunt_check->links.size() == 1);
  REQUIRE(idle_check->links.size() == 1);
  CHECK(hunt_check->links[0].second == "hunt");
  CHECK(idle_check->links[0].second == "idle");
  const NodeInfo& hunt_run = nodes[hunt_check->links[0].first];
  const NodeInfo& idle_run = nodes[idle_check->links[0].first];
  CHECK(hunt_run.parent == 0);
  CHECK(hunt_run.id == "hunt");
  CHECK(idle_run.id == "idle");
  bool cooldown = false;
  for (const auto& n : nodes)
    if (n.kind == "cooldown") cooldown = n.params == "seconds: 4";
  CHECK(cooldown);

  auto a = rt.spawn(*machine);
  rt.tick(a, 0.1);
  std::string s = statuses(rt, a);
  CHECK(s[idle_check->links[0].first] == 'R');
  CHECK(s[hunt_check->links[0].first] == '.');
}
