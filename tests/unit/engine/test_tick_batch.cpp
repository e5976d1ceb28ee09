// The batched walk (tick_batch.cpp): tick_all ticks the agents of a brain made of plain
// composites and agent_local native leaves together, node by node. Each agent must get exactly
// the leaf calls (in its own order), node states and root statuses of a tick of its own; only
// the order between agents may differ. Random trees run once batched and once one agent at a
// time (RuntimeImpl::batch_min = 0), and every agent's calls, its whole state block and its
// root statuses are compared.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "rolled_leaves.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"
#include "sanitizer_sample.hpp"

namespace {

using thicket::LeafContext;
using thicket::Status;

// Every call, per agent, in the agent's order: what the agent saw (tick, node, result).
struct Calls {
  std::vector<std::vector<std::string>> by_agent;
  void add(LeafContext& c, const char* what, Status s) {
    if (by_agent.size() <= c.agent_id()) by_agent.resize(c.agent_id() + 1);
    // (Appended piece by piece: "t" + std::string(...) draws a GCC 12 -Wrestrict false positive.)
    std::string line = "t";
    line += std::to_string(c.tick());
    line += ' ';
    line += c.node_id();
    line += ' ';
    line += what;
    line += ' ';
    line += thicket::status_name(s);
    by_agent[c.agent_id()].push_back(std::move(line));
  }
};

// C and A are agent_local (each writes only its own agent's list); c and a are the same leaves
// without the promise.
void register_leaves(thicket::Runtime& rt, Calls& calls) {
  thicket::NativeLeafFn cond;  // succeeds 2 times in 3
  cond.user = &calls;
  cond.tick = [](LeafContext& c, void* u) {
    Status s = rolled::condition(c);
    static_cast<Calls*>(u)->add(c, "cond", s);
    return s;
  };
  thicket::NativeLeafFn act;  // running, success or failure
  act.user = &calls;
  act.tick = [](LeafContext& c, void* u) {
    Status s = rolled::action(c);
    static_cast<Calls*>(u)->add(c, "tick", s);
    return s;
  };
  rt.register_leaf("c", cond);
  rt.register_leaf("a", act);
  cond.agent_local = act.agent_local = true;
  rt.register_leaf("C", cond);
  rt.register_leaf("A", act);
  thicket::NativeLeafFn thrower = act;  // A that throws on some of its calls (X)
  thrower.tick = [](LeafContext& c, void* u) {
    Status s = rolled::action(c);
    if ((c.agent_id() * 7 + c.tick()) % 11 == 0) {
      static_cast<Calls*>(u)->add(c, "throw", s);
      throw std::runtime_error("X threw for agent " + std::to_string(c.agent_id()));
    }
    static_cast<Calls*>(u)->add(c, "tick", s);
    return s;
  };
  rt.register_leaf("X", thrower);
}

// A random tree of the kinds the batched walk takes, `ind` spaces deep.
void emit(std::mt19937_64& rng, int depth, const std::string& ind, std::string& out) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  if (depth >= 4 || (depth > 0 && pick(10) < 3 + depth)) {
    out += ind + (pick(2) ? "condition: C\n" : "action: A\n");
    return;
  }
  static const char* kinds[] = {"sequence", "selector", "active_selector"};
  out += ind + kinds[pick(3)] + ":\n";
  const std::string in = ind + "  ";
  const int n = 1 + pick(4);
  for (int k = 0; k < n; ++k) {
    std::string sub;
    emit(rng, depth + 1, in + "  ", sub);
    out += in + "- " + sub.substr(in.size() + 2);  // the first line follows "- "
  }
}

struct BatchRun {
  Calls calls;
  std::vector<std::string> roots;           // per tick, every agent's root status
  std::vector<std::vector<uint8_t>> blocks; // per tick, every agent's state block
  std::vector<std::string> thrown;          // per tick, what came out of tick_all
  bool batched = false;                     // some tick_all took the batched walk
};

// `agents` agents of `yaml` (and, when `other` is set, as many of an unbatchable brain,
// spawned in between) for `ticks` ticks; a few agents leave and others come halfway.
BatchRun run(const std::string& yaml, bool batch, int agents, int ticks, const std::string& other = "") {
  BatchRun out;
  thicket::Runtime rt;
  thicket::RuntimeImpl& impl = rt.impl();
  if (!batch) impl.batch_min = 0;
  register_leaves(rt, out.calls);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(yaml, "batch.yaml", diags);
  REQUIRE_MESSAGE(brain, (diags.empty() ? std::string("no diagnostics") : diags[0].message) << "\n" << yaml);
  std::optional<thicket::BrainHandle> other_brain;
  if (!other.empty()) {
    other_brain = rt.load_string(other, "other.yaml", diags);
    REQUIRE(other_brain);
  }
  std::vector<thicket::AgentHandle> live;
  for (int k = 0; k < agents; ++k) {
    live.push_back(rt.spawn(*brain));
    if (other_brain) live.push_back(rt.spawn(*other_brain));
  }
  for (int t = 0; t < ticks; ++t) {
    if (t == ticks / 2) {  // rows freed and reused, agent indices out of spawn order
      for (size_t k = 0; k < live.size(); k += 7) rt.despawn(live[k]);
      for (size_t k = 0; k < live.size(); k += 7) live[k] = rt.spawn(*brain);
    }
    for (const auto& q : impl.batches) out.batched |= q.on;
    try {
      rt.tick_all(0.1);
      out.thrown.emplace_back();
    } catch (const std::runtime_error& e) {
      out.thrown.emplace_back(e.what());
    }
    std::string roots;
    for (auto a : live) {
      roots += thicket::status_name(rt.status(a));
      roots += ' ';
      const thicket::AgentInfo& info = impl.agents[a.index];
      const uint8_t* block = impl.block_of(info);
      out.blocks.emplace_back(block, block + impl.program_of(info).block_size);
    }
    out.roots.push_back(roots);
  }
  for (const auto& q : impl.batches) out.batched |= q.on;
  return out;
}

void compare(const BatchRun& batched, const BatchRun& single, const std::string& yaml) {
  REQUIRE_MESSAGE(batched.calls.by_agent == single.calls.by_agent, yaml);
  REQUIRE_MESSAGE(batched.roots == single.roots, yaml);
  for (size_t q = 0; q < batched.blocks.size() && q < single.blocks.size(); ++q)
    if (batched.blocks[q] != single.blocks[q]) {
      std::string d = "block " + std::to_string(q) + ":";
      for (size_t j = 0; j < batched.blocks[q].size(); ++j)
        d += " " + std::to_string(batched.blocks[q][j]) + "/" + std::to_string(single.blocks[q][j]);
      MESSAGE(d);
      break;
    }
  REQUIRE_MESSAGE(batched.blocks == single.blocks, yaml);
  REQUIRE_MESSAGE(batched.thrown == single.thrown, yaml);
  CHECK(!single.batched);
}

bool batchable(const std::string& yaml) {
  Calls calls;
  thicket::Runtime rt;
  register_leaves(rt, calls);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(yaml, "b.yaml", diags);
  REQUIRE_MESSAGE(brain, (diags.empty() ? std::string("no diagnostics") : diags[0].message) << "\n" << yaml);
  return rt.impl().brains[brain->index]->program->batchable;
}

}  // namespace

TEST_CASE("the batched walk gives each agent the calls, state and root status of its own tick") {
  std::mt19937_64 rng(20261125);
  size_t calls = 0, aborts = 0;
  const int trees = sanitizer_sample(150);
  for (int k = 0; k < trees; ++k) {
    std::string yaml = "tree: b" + std::to_string(k) + "\nroot:\n";
    emit(rng, 0, "  ", yaml);
    BatchRun batched = run(yaml, true, 40, 24), single = run(yaml, false, 40, 24);
    CHECK(batched.batched);
    compare(batched, single, yaml);
    for (const auto& agent : batched.calls.by_agent) calls += agent.size();
    for (const auto& block : batched.blocks)
      for (size_t i = 0; i < block.size(); ++i) aborts += block[i] == static_cast<uint8_t>(Status::Aborted);
  }
  CHECK(calls > size_t(trees) * 666);  // the comparison exercised the walk
  CHECK(aborts > size_t(trees) * 20 / 3);  // including active selectors' aborts
}

TEST_CASE("the batched walk with several batches, a small last one and an unbatchable brain between") {
  // 540 agents: batches of 256 and 256, and a last 28, below batch_min, one at a time; 20
  // agents: below batch_min, all one at a time.
  const std::string yaml =
      "tree: t\nroot:\n  active_selector:\n"
      "    - sequence: [{condition: C}, {condition: C}, {selector: [{action: A}, {action: A}, {action: A}]}]\n"
      "    - sequence: [{condition: C}, {sequence: [{action: A}, {action: A}]}]\n"
      "    - selector: [{action: A}, {action: A}]\n";
  const std::string other = "tree: o\nroot:\n  sequence: [{condition: c}, {action: a}]\n";
  CHECK(batchable(yaml));
  CHECK_FALSE(batchable(other));
  for (int agents : {540, 20}) {
    BatchRun batched = run(yaml, true, agents, 40, other), single = run(yaml, false, agents, 40, other);
    CHECK(batched.batched == (agents >= 32));
    compare(batched, single, yaml);
  }
}

TEST_CASE("only brains of plain composites and agent_local native leaves are batched") {
  auto tree = [](const std::string& root) { return "tree: t\nroot:\n" + root; };
  CHECK(batchable(tree("  sequence: [{condition: C}, {action: A}]\n")));
  CHECK(batchable(tree("  filter:\n    conditions: [{condition: C}]\n    do: [{action: A}]\n")));
  CHECK_FALSE(batchable(tree("  sequence: [{condition: c}, {action: A}]\n")));  // c is not agent_local
  CHECK_FALSE(batchable(tree("  sequence: [{condition: C}, {action: a}]\n")));
  CHECK_FALSE(batchable(tree("  sequence: [{condition: {leaf: C, negate: true}}, {action: A}]\n")));
  CHECK_FALSE(batchable(tree("  sequence: [{condition: C}, {invert: {action: A}}]\n")));
  CHECK_FALSE(batchable(tree("  sequence: [{condition: C}, {wait: 1}]\n")));
  CHECK_FALSE(batchable(tree("  sequence:\n    abort: self\n    children: [{condition: C}, {action: A}]\n")));
  CHECK_FALSE(batchable(tree("  random_selector: [{action: A}, {action: A}]\n")));
  // Nesting: kBatchDepth composites deep is batched, one more is not.
  auto nested = [](uint32_t depth) {  // sequence: [{condition: C}, {sequence: [..., {action: A}]}]
    std::string y = "tree: n\nroot:\n  sequence: [{condition: C}, ";
    for (uint32_t d = 1; d < depth; ++d) y += "{sequence: [{condition: C}, ";
    y += "{action: A}";
    for (uint32_t d = 1; d < depth; ++d) y += "]}";
    return y + "]\n";
  };
  CHECK(batchable(nested(thicket::Engine::kBatchDepth)));
  CHECK_FALSE(batchable(nested(thicket::Engine::kBatchDepth + 1)));
  // The hooks make an action unbatchable: its start and stop must run in the walk's order.
  Calls calls;
  thicket::Runtime rt;
  register_leaves(rt, calls);
  thicket::NativeLeafFn hooked;
  hooked.tick = [](LeafContext&, void*) { return Status::Success; };
  hooked.stop = [](LeafContext&, Status, void*) {};
  hooked.agent_local = true;
  rt.register_leaf("H", hooked);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(tree("  sequence: [{condition: C}, {action: H}]\n"), "h.yaml", diags);
  REQUIRE(brain);
  CHECK_FALSE(rt.impl().brains[brain->index]->program->batchable);
}

TEST_CASE("a batched leaf that throws ends its own agent's tick only, as one agent at a time does") {
  // The same random trees with every action a leaf that throws on some calls: the others' calls,
  // every state block and root status, and the exception tick_all rethrows (the lowest agent's)
  // are those of the per-agent walk (the batched walk used to leave the batch's other agents
  // unticked, some half walked).
  std::mt19937_64 rng(20261207);
  size_t throws = 0;
  const int trees = sanitizer_sample(60);
  for (int k = 0; k < trees; ++k) {
    std::string yaml = "tree: x" + std::to_string(k) + "\nroot:\n";
    emit(rng, 0, "  ", yaml);
    for (size_t at = yaml.find("action: A"); at != std::string::npos; at = yaml.find("action: A", at)) yaml[at + 8] = 'X';
    if (yaml.find("action: X") == std::string::npos) continue;
    BatchRun batched = run(yaml, true, 40, 24), single = run(yaml, false, 40, 24);
    CHECK(batched.batched);
    compare(batched, single, yaml);
    for (const auto& t : batched.thrown) throws += !t.empty();
  }
  CHECK(throws > size_t(trees) * 5);  // ticks that threw, in most trees
}
