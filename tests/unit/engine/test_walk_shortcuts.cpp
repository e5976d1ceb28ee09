// The tree walk's shortcuts (Program::ops: plain sequences and selectors, active selectors'
// children, native leaves without flags or hooks, tick.cpp) must make exactly the calls and
// results of the general path, which the reference model checks (test_reference_model.cpp).
// The plain walk (walk_plain, brains whose leaves are all native shortcuts) likewise.
// Random trees mixing shortcut nodes with general ones (aborts, negated conditions, hooked
// actions, random composites, parallels, decorators, waits) run once with the shortcuts and once
// with RuntimeImpl::fast_ops off; every leaf call, hook call and root status must agree.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rolled_leaves.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"
#include "sanitizer_sample.hpp"

namespace {

using thicket::LeafContext;
using thicket::Status;

// Leaf results come from rolled_leaves.hpp: a pure function of the node, the agent and the
// tick, so plain functions (no start hook) give the same answers in both runs.
const char* name(Status s) { return thicket::status_name(s).data(); }

struct Log {
  std::vector<std::string> lines;
  void add(LeafContext& c, const char* what, Status s) {
    lines.push_back(std::to_string(c.agent_id()) + " t" + std::to_string(c.tick()) + " " + c.node_id() + " " + what +
                    " " + name(s));
  }
};

void register_leaves(thicket::Runtime& rt, Log& log) {
  thicket::NativeLeafFn cond;  // a plain native condition: succeeds 2 times in 3
  cond.user = &log;
  cond.tick = [](LeafContext& c, void* u) {
    Status s = rolled::condition(c);
    static_cast<Log*>(u)->add(c, "cond", s);
    return s;
  };
  rt.register_leaf("C", cond);
  thicket::NativeLeafFn act;  // a plain native action: running, success or failure
  act.user = &log;
  act.tick = [](LeafContext& c, void* u) {
    Status s = rolled::action(c);
    static_cast<Log*>(u)->add(c, "tick", s);
    return s;
  };
  rt.register_leaf("A", act);
  thicket::NativeLeafFn hooked = act;  // the same with start/stop hooks: the general path
  hooked.start = [](LeafContext& c, void* u) { static_cast<Log*>(u)->add(c, "start", Status::Running); };
  hooked.stop = [](LeafContext& c, Status s, void* u) { static_cast<Log*>(u)->add(c, "stop", s); };
  rt.register_leaf("H", hooked);
}

// A random tree in YAML, `ind` spaces deep; leaves more likely as depth grows. With
// `native_only`, the leaves are plain native conditions and actions (and waits), so the brain
// takes the plain walk (Program::plain_walk). With `bt`, most composites and decorators are
// BT.CPP's imported kinds, which lower_imported runs as thicket's where they coincide.
void emit(std::mt19937_64& rng, int depth, const std::string& ind, std::string& out, bool native_only = false,
          bool bt = false) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const bool leaf = depth >= 4 || (depth > 0 && pick(10) < 3 + depth);
  if (leaf && native_only) {
    static const char* leaves[] = {"condition: C\n", "action: A\n", "wait: 0.2\n"};
    out += ind + leaves[pick(5) / 2];  // waits 1 in 5
    return;
  }
  if (leaf) {
    switch (pick(7)) {
      case 0:
      case 1: out += ind + "condition: C\n"; return;
      case 2: out += ind + "condition: {leaf: C, negate: true}\n"; return;
      case 3:
      case 4: out += ind + "action: A\n"; return;
      case 5: out += ind + "action: H\n"; return;
      default: out += ind + "wait: 0.2\n"; return;
    }
  }
  const std::string in = ind + "  ";
  auto children = [&](int lo) {
    const int n = lo + pick(4);
    for (int k = 0; k < n; ++k) {
      out += in + "- ";
      std::string sub;
      emit(rng, depth + 1, in + "  ", sub, native_only, bt);
      out += sub.substr(in.size() + 2);  // the first line follows "- "
    }
  };
  if (bt) {
    switch (pick(12)) {
      case 0:
      case 1: out += ind + "bt_sequence:\n"; children(1); return;
      case 2:
      case 3: out += ind + "bt_fallback:\n"; children(1); return;
      case 4: out += ind + "bt_reactive_fallback:\n"; children(1); return;
      case 5:
      case 6: out += ind + "bt_reactive_sequence:\n"; children(1); return;
      case 7: out += ind + "bt_subtree:\n" + in + "id: S\n" + in + "child:\n"; emit(rng, depth + 1, in + "  ", out, native_only, bt); return;
      case 8: out += ind + "bt_inverter:\n"; emit(rng, depth + 1, in, out, native_only, bt); return;
      case 9: out += ind + "bt_force_failure:\n"; emit(rng, depth + 1, in, out, native_only, bt); return;
      default: break;  // thicket's own kinds below
    }
  }
  switch (pick(12)) {
    case 0:
    case 1:
    case 2: out += ind + "sequence:\n"; children(1); return;
    case 3:
    case 4:
    case 5: out += ind + "selector:\n"; children(1); return;
    case 6: out += ind + "active_selector:\n"; children(1); return;
    case 7: {
      static const char* modes[] = {"self", "lower_priority", "both"};
      out += ind + (pick(2) ? "sequence" : "selector") + ":\n" + in + "abort: " + modes[pick(3)] + "\n" + in + "children:\n";
      children(1);
      return;
    }
    case 8: out += ind + "random_selector:\n"; children(1); return;
    case 9:
      out += ind + "parallel:\n" + in + "success: 1\n" + in + "children:\n";
      children(2);
      return;
    case 10: out += ind + "invert:\n"; emit(rng, depth + 1, in, out, native_only, bt); return;
    default: out += ind + "force_success:\n"; emit(rng, depth + 1, in, out, native_only, bt); return;
  }
}

struct Run {
  std::vector<std::string> lines;
  size_t shortcuts = 0;  // nodes the walk took a shortcut for
  size_t reactive_sequences = 0;  // lowered bt_reactive_sequences (Op::ActiveSeq)
  bool plain_walk = false;
};

Run run(const std::string& yaml, bool fast) {
  Run out;
  Log log;
  thicket::Runtime rt;
  rt.impl().fast_ops = fast;
  register_leaves(rt, log);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(yaml, "walk.yaml", diags);
  REQUIRE_MESSAGE(brain, (diags.empty() ? std::string("no diagnostics") : diags[0].message) << "\n" << yaml);
  const thicket::Program& program = *rt.impl().brains[brain->index]->program;
  for (const auto& op : program.ops) {
    out.shortcuts += op.op != thicket::Op::General;
    out.reactive_sequences += op.op == thicket::Op::ActiveSeq;
  }
  out.plain_walk = program.plain_walk;
  std::vector<thicket::AgentHandle> agents{rt.spawn(*brain), rt.spawn(*brain)};
  for (int t = 0; t < 40; ++t) {
    rt.tick_all(0.1);
    for (auto a : agents) log.lines.push_back("root " + std::string(name(rt.status(a))));
  }
  rt.despawn(agents[0]);  // aborts what runs: stop hooks
  out.lines = std::move(log.lines);
  return out;
}

}  // namespace

TEST_CASE("the walk's shortcuts make the general path's calls and results on random trees") {
  std::mt19937_64 rng(20261124);
  size_t trees_with_shortcuts = 0, calls = 0;
  const int trees = sanitizer_sample(400);
  for (int k = 0; k < trees; ++k) {
    std::string yaml = "tree: w" + std::to_string(k) + "\nroot:\n";
    emit(rng, 0, "  ", yaml);
    Run fast = run(yaml, true), general = run(yaml, false);
    CHECK(general.shortcuts == 0);
    trees_with_shortcuts += fast.shortcuts > 0;
    calls += fast.lines.size();
    REQUIRE_MESSAGE(fast.lines == general.lines, "tree " << k << ":\n" << yaml);
  }
  CHECK(trees_with_shortcuts > size_t(trees) * 7 / 8);  // the comparison exercised the shortcuts
  CHECK(calls > size_t(trees) * 125);
}

TEST_CASE("the plain walk makes the general path's calls and results on random trees") {
  // Native leaves only: plain composites recurse (walk_plain), anything else (aborts, random
  // composites, parallels, decorators, waits) is handed to the general walk and back.
  std::mt19937_64 rng(20261125);
  size_t plain = 0, calls = 0;
  const int trees = sanitizer_sample(300);
  for (int k = 0; k < trees; ++k) {
    std::string yaml = "tree: p" + std::to_string(k) + "\nroot:\n";
    emit(rng, 0, "  ", yaml, true);
    Run fast = run(yaml, true), general = run(yaml, false);
    CHECK_FALSE(general.plain_walk);
    plain += fast.plain_walk;
    calls += fast.lines.size();
    REQUIRE_MESSAGE(fast.lines == general.lines, "tree " << k << ":\n" << yaml);
  }
  CHECK(plain > size_t(trees) * 2 / 3);  // the rest have conditions an abort observes: the general walk
  CHECK(calls > size_t(trees) * 100);
  // Deeper than the plain walk's recursion (32 composites): the rest goes to the general walk.
  std::string deep = "tree: deep\nroot:\n  ";
  for (int d = 0; d < 40; ++d) deep += d % 2 ? "{selector: [{condition: C}, " : (d ? "{sequence: [{condition: C}, " : "sequence: [{condition: C}, ");
  deep += "{action: A}";
  for (int d = 1; d < 40; ++d) deep += "]}";
  deep += "]\n";
  Run fast = run(deep, true), general = run(deep, false);
  CHECK(fast.plain_walk);
  CHECK(fast.lines.size() > 100);
  CHECK(fast.lines == general.lines);
}

TEST_CASE("the plain walk makes the general path's calls on random trees of BT.CPP's lowered kinds") {
  // bt_sequence, bt_fallback, bt_reactive_fallback, bt_reactive_sequence (Op::ActiveSeq),
  // bt_subtree and the decorators over native leaves run as thicket's kinds (lower_imported);
  // a wait below one keeps it a bt_* node. The general walk of the same program is the
  // reference here; tests/import checks it against BT.CPP itself.
  std::mt19937_64 rng(20261206);
  size_t plain = 0, reactive_sequences = 0, calls = 0;
  const int trees = sanitizer_sample(300);
  for (int k = 0; k < trees; ++k) {
    std::string yaml = "tree: b" + std::to_string(k) + "\nroot:\n";
    emit(rng, 0, "  ", yaml, true, true);
    Run fast = run(yaml, true), general = run(yaml, false);
    plain += fast.plain_walk;
    reactive_sequences += fast.reactive_sequences > 0;
    calls += fast.lines.size();
    REQUIRE_MESSAGE(fast.lines == general.lines, "tree " << k << ":\n" << yaml);
  }
  CHECK(plain > size_t(trees) / 2);
  CHECK(reactive_sequences > size_t(trees) / 5);
  CHECK(calls > size_t(trees) * 100);
}

TEST_CASE("the walk's shortcuts are taken only where they apply") {
  Log log;
  thicket::Runtime rt;
  register_leaves(rt, log);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(
      "tree: s\nroot:\n  active_selector:\n    - sequence:\n        - condition: C\n"
      "        - condition: {leaf: C, negate: true}\n        - action: A\n        - action: H\n"
      "    - selector:\n        abort: self\n        children:\n          - action: A\n",
      "s.yaml", diags);
  REQUIRE(brain);
  const auto& ops = rt.impl().brains[brain->index]->program->ops;
  using thicket::Op;
  std::vector<Op> want{Op::Active, Op::Sequence, Op::NativeCond, Op::Cond, Op::NativeAction, Op::Action,
                       Op::General, Op::NativeAction};
  REQUIRE(ops.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(ops[i].op == want[i]);
  // A negated condition and a hooked action need the general walk's leaf handling.
  CHECK_FALSE(rt.impl().brains[brain->index]->program->plain_walk);
}

TEST_CASE("the plain walk's one-pass abort is not used where an aborted node has work to do") {
  // A log decorator says "aborted" when its child is interrupted: a brain with one takes the
  // plain walk (all its leaves are native shortcuts) but aborts through Engine::abort.
  std::vector<std::string> lines;
  thicket::RuntimeOptions options;
  options.log = [&](const std::string& line) { lines.push_back(line); };
  thicket::Runtime rt(options);
  thicket::NativeLeafFn alarm;  // true on the agent's second tick only
  alarm.tick = [](LeafContext& c, void*) { return c.tick() == 2 ? Status::Success : Status::Failure; };
  rt.register_leaf("Alarm", alarm);
  thicket::NativeLeafFn busy;
  busy.tick = [](LeafContext&, void*) { return Status::Running; };
  rt.register_leaf("Busy", busy);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(
      "tree: logged\nroot:\n  active_selector:\n    - condition: Alarm\n"
      "    - log:\n        message: the work\n        child:\n          action: Busy\n",
      "logged.yaml", diags);
  REQUIRE(brain);
  const thicket::Program& program = *rt.impl().brains[brain->index]->program;
  CHECK(program.plain_walk);
  CHECK_FALSE(program.span_abort);
  auto agent = rt.spawn(*brain);
  CHECK(rt.tick(agent, 0.1) == Status::Running);  // the alarm is off: the work starts
  CHECK(rt.tick(agent, 0.1) == Status::Success);  // the alarm interrupts it
  size_t aborted = 0;
  for (const auto& line : lines) aborted += line.find("the work: aborted") != std::string::npos;
  CHECK(aborted == 1);
  CHECK(rt.running_nodes(agent).empty());
}

TEST_CASE("the plain walk's one-pass abort is not used where an imported node has its halt to do") {
  // A bt_guard's on_halted script runs when the guard is halted while running, and a
  // bt_sequence forgets its place: an active_selector's interrupt goes through Engine::abort.
  thicket::Runtime rt;
  thicket::NativeLeafFn alarm;  // true on the agent's third tick only
  alarm.tick = [](LeafContext& c, void*) { return c.tick() == 3 ? Status::Success : Status::Failure; };
  rt.register_leaf("Alarm", alarm);
  thicket::NativeLeafFn busy;
  busy.tick = [](LeafContext&, void*) { return Status::Running; };
  rt.register_leaf("Busy", busy);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(R"(tree: guarded
blackboard: {halts: 0, starts: 0}
root:
  active_selector:
    - condition: Alarm
    - bt_guard:
        on_halted: "halts = halts + 1"
        child:
          bt_sequence:
            - bt_script: "starts = starts + 1"
            - action: Busy
)",
      "guarded.yaml", diags);
  for (const auto& d : diags) MESSAGE(d.message);
  REQUIRE(brain);
  const thicket::Program& program = *rt.impl().brains[brain->index]->program;
  CHECK(program.plain_walk);
  CHECK_FALSE(program.span_abort);
  const uint32_t halts = *rt.blackboard_slot(*brain, "halts"), starts = *rt.blackboard_slot(*brain, "starts");
  auto agent = rt.spawn(*brain);
  CHECK(rt.tick(agent, 0.1) == Status::Running);  // the script, then Busy
  CHECK(rt.tick(agent, 0.1) == Status::Running);  // Busy again: the sequence resumes there
  CHECK(rt.get_number(agent, starts) == 1);
  CHECK(rt.tick(agent, 0.1) == Status::Success);  // the alarm halts the guard: on_halted runs
  CHECK(rt.get_number(agent, halts) == 1);
  CHECK(rt.tick(agent, 0.1) == Status::Running);  // the sequence starts afresh: the script again
  CHECK(rt.get_number(agent, starts) == 2);
  CHECK(rt.get_number(agent, halts) == 1);
}

TEST_CASE("BT.CPP's Sequence, Fallback and ReactiveFallback over leaves run as thicket's kinds: the plain walk") {
  // lower_imported (compile_imported.cpp): a bt_sequence, bt_fallback (not async),
  // bt_reactive_fallback, bt_inverter, bt_force_success or bt_force_failure whose children are
  // all leaves or lowered nodes is compiled as thicket's kind (flagged kLowered); any other
  // child keeps it (and the nodes above it) a bt_* node. The recorded BT.CPP cases
  // (tests/import) check the calls.
  thicket::Runtime rt;
  Log log;
  register_leaves(rt, log);
  std::vector<thicket::Diagnostic> diags;
  auto mixed = rt.load_string(R"(tree: mixed
root:
  bt_reactive_fallback:
    - bt_sequence:
        - condition: C
        - bt_fallback: [{action: A}, {action: A}]
    - bt_guard:
        skip_if: "false"
        child:
          bt_sequence: [{action: A}]
    - bt_sequence:
        async: true
        children: [{action: A}, {action: A}]
    - bt_fallback: [{bt_script: "n = n + 1"}, {action: A}]
blackboard: {n: 0}
)",
                              "mixed.yaml", diags);
  for (const auto& d : diags) MESSAGE(d.message);
  REQUIRE(mixed);
  const thicket::Program& p = *rt.impl().brains[mixed->index]->program;
  using thicket::NodeKind;
  auto lowered = [&](uint32_t i, NodeKind as) { return p.nodes[i].kind == as && (p.nodes[i].flags & thicket::kLowered); };
  CHECK(p.nodes[0].kind == NodeKind::BtReactiveFallback);  // a bt_guard below: kept
  CHECK(lowered(1, NodeKind::Sequence));
  CHECK(lowered(3, NodeKind::Selector));
  CHECK(p.nodes[6].kind == NodeKind::BtGuard);
  CHECK(lowered(7, NodeKind::Sequence));  // under the guard, its own subtree is leaves only
  CHECK(p.nodes[9].kind == NodeKind::BtSequence);  // async: it yields between children
  CHECK(lowered(12, NodeKind::Selector));  // a Script: a leaf that succeeds
  CHECK(p.nodes[13].kind == NodeKind::BtScript);
  const std::string dump = rt.dump(*mixed);
  CHECK(dump.find("bt_sequence") != std::string::npos);
  CHECK(dump.find(" as=sequence") != std::string::npos);
  CHECK(dump.find(" as=selector") != std::string::npos);
  CHECK(dump.find(" as=active_selector") == std::string::npos);

  // T31's shape as BT.CPP writes it, and decorators: every node lowered (an `always` stays,
  // with no halt of its own), so the plain walk and its one-pass abort.
  auto t31 = rt.load_string(R"(tree: reactive
root:
  bt_reactive_fallback:
    - bt_sequence: [{condition: C}, {bt_fallback: [{action: A}, {action: A}]}, {action: A}]
    - bt_reactive_sequence: [{bt_inverter: {condition: C}}, {action: A}]
    - bt_subtree:
        id: Sub
        child: {bt_force_success: {bt_force_failure: {always: success}}}
)",
                            "reactive.yaml", diags);
  REQUIRE(t31);
  const thicket::Program& q = *rt.impl().brains[t31->index]->program;
  CHECK((q.nodes[0].kind == NodeKind::ActiveSelector && (q.nodes[0].flags & thicket::kLowered)));
  // A ReactiveSequence: an active_selector with success and failure exchanged (a = 1).
  CHECK((q.nodes[7].kind == NodeKind::ActiveSelector && q.nodes[7].a == 1 && (q.nodes[7].flags & thicket::kLowered)));
  CHECK(q.ops[7].op == thicket::Op::ActiveSeq);
  CHECK((q.nodes[8].kind == NodeKind::Invert && (q.nodes[8].flags & thicket::kLowered)));
  // A SubTree passes its child's result on: a one-child filter (a sequence), on the plain walk.
  CHECK((q.nodes[11].kind == NodeKind::Filter && (q.nodes[11].flags & thicket::kLowered)));
  CHECK(q.ops[11].op == thicket::Op::Sequence);
  CHECK((q.nodes[12].kind == NodeKind::ForceSuccess && (q.nodes[12].flags & thicket::kLowered)));
  CHECK((q.nodes[13].kind == NodeKind::ForceFailure && (q.nodes[13].flags & thicket::kLowered)));
  CHECK(q.plain_walk);
  CHECK(q.span_abort);
  const std::string shown = rt.dump(*t31);
  CHECK(shown.find("bt_reactive_fallback") != std::string::npos);
  CHECK(shown.find("bt_subtree             id=root/2 end=15 state@") != std::string::npos);
  CHECK(shown.find(" as=filter id=Sub\n") != std::string::npos);
  CHECK(shown.find("bt_reactive_sequence   id=root/1 end=11 state@") != std::string::npos);
  CHECK(shown.find(" as=active_sequence\n") != std::string::npos);
  // What the API tells an editor or a viewer: the kinds the file wrote.
  const std::vector<thicket::NodeInfo> info = rt.nodes(*t31);
  REQUIRE(info.size() == 15);
  CHECK(info[0].kind == "bt_reactive_fallback");
  CHECK(info[7].kind == "bt_reactive_sequence");
  CHECK(info[11].kind == "bt_subtree");
  CHECK(info[12].kind == "bt_force_success");
}

TEST_CASE("a load prepares its own brain only; a leaf replaced by name prepares the brains that call it") {
  // Loading the n-th brain cost a pass over the n - 1 before it (each load prepared every brain's
  // ops again): a runtime loading thousands of brains spent most of its time there.
  thicket::Runtime rt;
  int calls = 0, starts = 0;
  thicket::NativeLeaf first;  // the std::function form: brains' hot calls point at the leaf
  first.tick = [&](LeafContext&) { return ++calls, Status::Success; };
  rt.register_leaf("First", first);
  std::vector<thicket::Diagnostic> diags;
  auto a = rt.load_string("tree: a\nroot: {action: First}\n", "a.yaml", diags);
  REQUIRE(a);
  const thicket::Program& pa = *rt.impl().brains[a->index]->program;
  CHECK(pa.prepared == 1);
  auto agent = rt.spawn(*a);
  CHECK(rt.tick(agent, 0.1) == Status::Success);
  // Many leaves and brains later (new leaves: no brain calls them yet), `a` was not prepared again
  // and still calls its leaf where it is (a growing vector of leaves would have moved it).
  std::vector<thicket::BrainHandle> others;
  for (int k = 0; k < 300; ++k) {
    const std::string leaf = "Other" + std::to_string(k);
    thicket::NativeLeaf other;
    other.tick = [](LeafContext&) { return Status::Failure; };
    rt.register_leaf(leaf, other);
    auto b = rt.load_string("tree: b" + std::to_string(k) + "\nroot: {action: " + leaf + "}\n", "b.yaml", diags);
    REQUIRE(b);
    others.push_back(*b);
  }
  CHECK(pa.prepared == 1);
  CHECK(rt.tick(agent, 0.1) == Status::Success);
  CHECK(calls == 2);
  // `First` replaced, now with a start hook: `a` is prepared again (its action is hooked now,
  // off the shortcut), and no other brain is.
  thicket::NativeLeaf hooked;
  hooked.tick = [&](LeafContext&) { return ++calls, Status::Success; };
  hooked.start = [&](LeafContext&) { ++starts; };
  rt.register_leaf("First", hooked);
  CHECK(pa.prepared == 2);
  CHECK(rt.tick(agent, 0.1) == Status::Success);
  CHECK(starts == 1);
  CHECK(calls == 3);
  for (auto b : others) CHECK(rt.impl().brains[b.index]->program->prepared == 1);
}
