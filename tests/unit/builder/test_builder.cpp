// The fluent builder (SPEC 8): a built tree compiles to the same node array as the equivalent
// YAML (compared as `thicket dump` text), misuse is reported as diagnostics, and native leaves
// tick through a built tree. Trees are inline; time is the sim clock.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "thicket/builder.hpp"
#include "thicket/runtime.hpp"

namespace fs = std::filesystem;
using thicket::Abort;
using thicket::AgentHandle;
using thicket::Diagnostic;
using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Policy;
using thicket::Runtime;
using thicket::Status;
using thicket::TraceEvent;
using thicket::TreeBuilder;
using thicket::Value;
using thicket::ValueType;

namespace {

std::string all(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += thicket::format_diagnostic(d) + "\n";
  return out;
}

// A leaf with a tick only (no start/stop hooks).
NativeLeaf ticking(std::function<Status(LeafContext&)> tick) {
  NativeLeaf leaf;
  leaf.tick = std::move(tick);
  return leaf;
}

// Native leaves that always succeed, so trees load without Lua.
void natives(Runtime& rt, std::initializer_list<const char*> names) {
  for (const char* name : names) rt.register_leaf(name, ticking([](LeafContext&) { return Status::Success; }));
}

// The dump of a brain loaded from YAML text, or its diagnostics when it fails.
std::string dump_yaml(Runtime& rt, const std::string& yaml, const std::string& name) {
  std::vector<Diagnostic> d;
  auto brain = rt.load_string(yaml, name, d);
  return brain ? rt.dump(*brain) : "load failed:\n" + all(d);
}

std::string dump_built(Runtime& rt, const TreeBuilder& b, const std::string& name) {
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d, name);
  return brain ? rt.dump(*brain) : "load failed:\n" + all(d) + b.Yaml();
}

const std::vector<const char*> kLeaves = {"SeesEnemy", "HealthLow", "RunAway", "EnemyDead", "Attack",
                                          "Patrol",    "Hungry",    "Eat"};

// Two runtimes, so neither brain can see anything the other loaded.
struct Pair {
  Runtime from_yaml, from_builder;
  Pair() {
    for (const char* n : kLeaves) {
      natives(from_yaml, {n});
      natives(from_builder, {n});
    }
  }
};

}  // namespace

TEST_CASE("builder: seed 000's guard (scripts/examples/guard) compiles to the array of its YAML file") {
  const std::string path = std::string(THICKET_SOURCE_DIR) + "/scripts/examples/guard/guard.yaml";
  Runtime from_file, from_builder;
  std::vector<Diagnostic> d;
  auto file_brain = from_file.load_file(path, d);
  REQUIRE_MESSAGE(file_brain, all(d));

  TreeBuilder b("guard");
  b.Leaves({"guard.lua"})
      .Blackboard("health", 100.0)
      .Blackboard("enemy_hp", 0.0)
      .Blackboard("enemy_visible", false)
      .Blackboard("kills", 0)
      .Blackboard("mood", "calm");
  b.ActiveSelector()
      ->Named("fight_or_flight")->Sequence()
          ->Condition("SeesEnemy", {{"chance", 0.02}})
          ->ActiveSelector()
              ->Named("flee")->Sequence()
                  ->Check("health < 30")
                  ->Action("RunAway", {{"heal_per_second", 10}, {"until", 80}})
              ->Back()
              ->Named("fight")->Monitor()
                  ->Condition("EnemyDead", true)
                  ->Action("Attack", {{"damage", 15}, {"hurt", 9}})
              ->Back()
          ->Back()
      ->Back()
      ->Action("Patrol", {{"legs_per_report", 20}})
      ->End();
  CHECK(b.Errors().empty());
  // Loaded under the file's own name, so `leaves: [guard.lua]` resolves beside it.
  std::string built = dump_built(from_builder, b, path);
  CHECK(built == from_file.dump(*file_brain));

  // The blackboard defaults and types agree too (the dump shows types only).
  auto a = from_file.spawn(*file_brain);
  std::vector<Diagnostic> d2;
  auto built_brain = b.Load(from_builder, d2, path);
  REQUIRE(built_brain);
  auto c = from_builder.spawn(*built_brain);
  for (const char* key : {"health", "enemy_hp", "enemy_visible", "kills", "mood"})
    CHECK_MESSAGE(from_file.get(a, key) == from_builder.get(c, key), key);
  CHECK(from_builder.get(c, "kills") == std::optional<Value>(int64_t{0}));
  CHECK(from_builder.get(c, "health") == std::optional<Value>(100.0));
}

TEST_CASE("builder: SPEC 3's guard with a conditional abort compiles to the array of its YAML") {
  Pair p;
  std::string yaml = R"(
tree: guard
blackboard:
  health: 100
  enemy_visible: false
root:
  active_selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: SeesEnemy
          - active_selector:
              - sequence: [ {condition: HealthLow}, {action: RunAway} ]
              - monitor:
                  - condition: {leaf: EnemyDead, negate: true}
                  - action: Attack
    - action: {leaf: Patrol, args: {radius: 10}}
)";
  TreeBuilder b("guard");
  b.Blackboard("health", 100.0).Blackboard("enemy_visible", false);
  b.ActiveSelector()
      ->Sequence(Abort::LowerPriority)
          ->Condition("SeesEnemy")
          ->ActiveSelector()
              ->Sequence()->Condition("HealthLow")->Action("RunAway")->Back()
              ->Monitor()->Condition("EnemyDead", true)->Action("Attack")->Back()
          ->Back()
      ->Back()
      ->Action("Patrol", {{"radius", 10}})
      ->End();
  std::string expected = dump_yaml(p.from_yaml, yaml, "guard.yaml");
  CHECK(expected.find("abort=lower_priority") != std::string::npos);
  CHECK(dump_built(p.from_builder, b, "guard.yaml") == expected);
}

TEST_CASE("builder: every node kind of SPEC 3.2-3.4, with names, aborts, thresholds, weights and subtrees") {
  Pair p;
  std::string yaml = R"(
tree: every_kind
blackboard:
  health: 100
  ammo: {type: integer, default: 6}
  alert: false
  mood: "calm"
  target: {type: any}
root:
  selector:
    abort: self
    name: top
    children:
      - condition: {check: "health < 30 and not alert"}
      - sequence:
          abort: lower_priority
          children:
            - condition: {leaf: SeesEnemy, args: {range: 12.5, team: red, code: "007", on: yes}}
            - action: {leaf: Attack, args: {damage: 12, burst: true, nothing: ~}}
      - active_selector:
          - parallel:
              success: one
              failure: all
              children:
                - action: Patrol
                - wait: 1.5
          - parallel:
              success: 2
              children: [ {action: Patrol}, {action: Attack}, {wait: 2} ]
      - monitor:
          - condition: {leaf: SeesEnemy, negate: true}
          - action: Patrol
      - filter:
          abort: both
          name: meal
          conditions:
            - condition: Hungry
            - condition: {check: "ammo > 0", negate: true}
          do:
            - action: Eat
      - random_selector:
          weights: [1, 2, 3]
          children:
            - invert: {name: not_hungry, child: {condition: Hungry}}
            - force_success: {action: Eat}
            - force_failure: {action: Eat}
      - random_sequence:
          abort: lower_priority
          children:
            - repeat: {action: Patrol}
            - repeat: {times: 3, child: {action: Attack}}
            - until_fail: {condition: SeesEnemy}
            - until_success: {action: Attack}
      - random_sequence: [ {action: Eat}, {action: Patrol} ]
      - limit: {times: 2, name: twice, child: {action: Eat}}
      - timeout: {seconds: 2.5, child: {wait: {seconds: 5, name: long_wait}}}
      - cooldown: {seconds: 1, child: {action: Attack}}
      - log: {message: "eating: now", child: {action: Eat}}
      - log: {action: Eat}
      - invert:
          sequence: [ {condition: Hungry}, {action: {leaf: Eat, name: gulp}} ]
      - subtree: Combat
      - subtree: {tree: Combat, name: combat2}
trees:
  Combat:
    sequence:
      - condition: SeesEnemy
      - action: {leaf: Attack, name: strike}
)";
  TreeBuilder combat("Combat");
  combat.Sequence()->Condition("SeesEnemy")->Named("strike")->Action("Attack")->End();

  TreeBuilder b("every_kind");
  b.Blackboard("health", 100.0)
      .Blackboard("ammo", 6)
      .Blackboard("alert", false)
      .Blackboard("mood", "calm")
      .Blackboard("target", Value{})
      .Define(combat);
  b.Named("top")->Selector(Abort::Self)
      ->Check("health < 30 and not alert")
      ->Sequence(Abort::LowerPriority)
          ->Condition("SeesEnemy", {{"range", 12.5}, {"team", "red"}, {"code", "007"}, {"on", "yes"}})
          ->Action("Attack", {{"damage", 12}, {"burst", true}, {"nothing", Value{}}})
      ->Back()
      ->ActiveSelector()
          ->Parallel(Policy::One, Policy::All)->Action("Patrol")->Wait(1.5)->Back()
          ->Parallel(2)->Action("Patrol")->Action("Attack")->Wait(2)->Back()
      ->Back()
      ->Monitor()->Condition("SeesEnemy", true)->Action("Patrol")->Back()
      ->Named("meal")->Filter(Abort::Both)
          ->Condition("Hungry")->Check("ammo > 0", true)
      ->Do()
          ->Action("Eat")
      ->Back()
      ->RandomSelector({1, 2, 3})
          ->Named("not_hungry")->Invert()->Condition("Hungry")
          ->ForceSuccess()->Action("Eat")
          ->ForceFailure()->Action("Eat")
      ->Back()
      ->RandomSequence({}, Abort::LowerPriority)
          ->Repeat()->Action("Patrol")
          ->Repeat(3)->Action("Attack")
          ->UntilFail()->Condition("SeesEnemy")
          ->UntilSuccess()->Action("Attack")
      ->Back()
      ->RandomSequence()->Action("Eat")->Action("Patrol")->Back()
      ->Named("twice")->Limit(2)->Action("Eat")
      ->Timeout(2.5)->Named("long_wait")->Wait(5)
      ->Cooldown(1)->Action("Attack")
      ->Log("eating: now")->Action("Eat")
      ->Log()->Action("Eat")
      ->Invert()->Sequence()->Condition("Hungry")->Named("gulp")->Action("Eat")->Back()  // Back() closes invert too
      ->Subtree("Combat")
      ->Named("combat2")->Subtree("Combat")
      ->End();
  REQUIRE_MESSAGE(b.Errors().empty(), b.Errors().front());
  std::string expected = dump_yaml(p.from_yaml, yaml, "every_kind.yaml");
  REQUIRE(expected.rfind("tree every_kind", 0) == 0);
  // Sanity: the YAML really holds every kind.
  for (const char* kind : {"selector", "sequence", "active_selector", "parallel", "monitor", "filter", "random_selector",
                           "random_sequence", "invert", "force_success", "force_failure", "repeat", "until_fail",
                           "until_success", "limit", "timeout", "cooldown", "log", "action", "condition", "check", "wait"})
    CHECK_MESSAGE(expected.find(std::string(" ") + kind + " ") != std::string::npos, kind);
  CHECK(dump_built(p.from_builder, b, "every_kind.yaml") == expected);
}

TEST_CASE("builder: text that looks like a number, a boolean or null stays text; doubles stay floats") {
  TreeBuilder b("123");
  b.Blackboard("mood", "true").Blackboard("code", "0x1F").Blackboard("empty", "").Blackboard("ratio", 2.0);
  b.Named("10")->Sequence()->Action("Patrol", {{"s", "10"}, {"b", "false"}, {"n", "~"}, {"r", 10.0}, {"i", 10}})->End();
  std::string yaml = b.Yaml();
  CHECK(yaml.find("tree: \"123\"") != std::string::npos);
  CHECK(yaml.find("mood: \"true\"") != std::string::npos);
  CHECK(yaml.find("ratio: 2.0") != std::string::npos);
  CHECK(yaml.find("r: 10.0") != std::string::npos);
  CHECK(yaml.find("i: 10}") != std::string::npos);

  Runtime rt;
  natives(rt, {"Patrol"});
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d);
  REQUIRE_MESSAGE(brain, all(d));
  std::string dump = rt.dump(*brain);
  CHECK(dump.rfind("tree 123:", 0) == 0);
  CHECK(dump.find("id=10 ") != std::string::npos);
  CHECK(dump.find(R"(args={s: "10", b: "false", n: "~", r: 10, i: 10})") != std::string::npos);
  CHECK(dump.find("bb mood: string") != std::string::npos);
  CHECK(dump.find("bb code: string") != std::string::npos);
  CHECK(dump.find("bb empty: string") != std::string::npos);
  auto a = rt.spawn(*brain);
  CHECK(rt.get(a, "mood") == std::optional<Value>(std::string("true")));
  CHECK(rt.get(a, "code") == std::optional<Value>(std::string("0x1F")));
  CHECK(rt.get(a, "empty") == std::optional<Value>(std::string()));
}

TEST_CASE("builder: text with control characters or YAML 1.1's boolean words loads as that text, without a warning") {
  // yaml-cpp wrote "\r" plain: the load failed ("a line ends with CR alone") or read nil; `yes`
  // plain drew the loader's warning to quote it.
  TreeBuilder b("t");
  b.Blackboard("cr", "\r").Blackboard("mid", "a\rb").Blackboard("bell", "\a").Blackboard("tab", "a\tb");
  b.Blackboard("yes", "yes").Blackboard("off", "Off");
  b.Wait(1.0);
  b.End();
  Runtime rt;
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d);
  REQUIRE_MESSAGE(brain, all(d));
  CHECK_MESSAGE(d.empty(), all(d));
  auto a = rt.spawn(*brain);
  for (const char* key : {"cr", "mid", "bell", "tab", "yes", "off"}) {
    CAPTURE(key);
    const std::string want = std::string(key) == "cr" ? "\r" : std::string(key) == "mid" ? "a\rb" : std::string(key) == "bell" ? "\a"
                           : std::string(key) == "tab" ? "a\tb" : std::string(key) == "yes" ? "yes" : "Off";
    CHECK(rt.get(a, key) == std::optional<Value>(want));
  }
}

TEST_CASE("builder: Lua leaves see integer args as integers and double args as floats") {
  fs::path dir = fs::temp_directory_path() / ("thicket_test_builder_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "probe.lua") << R"LUA(
local thicket = require("thicket")
local L = {}
function L.Probe(agent, args)
  thicket.log("@" .. math.type(args.r) .. " " .. math.type(args.i) .. " " .. type(args.s) .. " " .. type(args.b))
  return true
end
return L
)LUA";
  std::vector<std::string> log;
  Runtime rt(thicket::RuntimeOptions{.log = [&](const std::string& line) {
    if (line.find('@') != std::string::npos) log.push_back(line.substr(line.find('@')));  // from the mark on
  }});
  TreeBuilder b("probe");
  b.Leaves({"probe.lua"});
  b.Action("Probe", {{"r", 10.0}, {"i", 10}, {"s", "10"}, {"b", true}})->End();
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d, (dir / "probe.yaml").string());  // leaves resolve beside the name
  REQUIRE_MESSAGE(brain, all(d));
  rt.tick(rt.spawn(*brain), 0.1);
  CHECK(log == std::vector<std::string>{"@float integer string boolean"});
  fs::remove_all(dir);
}

TEST_CASE("builder: explicitly typed blackboard keys and per-agent overrides at spawn") {
  TreeBuilder b("typed");
  b.Blackboard("speed", ValueType::Number, int64_t{3})
      .Blackboard("ammo", ValueType::Integer)
      .Blackboard("target", ValueType::Any)
      .Blackboard("name", ValueType::String, "bob");
  b.Wait(1)->End();
  Runtime rt;
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d);
  REQUIRE_MESSAGE(brain, all(d));
  CHECK(rt.dump(*brain).find("bb speed: number\n  bb ammo: integer\n  bb target: any\n  bb name: string") != std::string::npos);
  auto plain = rt.spawn(*brain);
  auto tuned = rt.spawn(*brain, {{"speed", 7.5}, {"ammo", int64_t{4}}});
  CHECK(rt.get(plain, "speed") == std::optional<Value>(3.0));
  CHECK(rt.get(plain, "ammo") == std::optional<Value>(int64_t{0}));
  CHECK(rt.get(plain, "name") == std::optional<Value>(std::string("bob")));
  CHECK(rt.get(tuned, "speed") == std::optional<Value>(7.5));
  CHECK(rt.get(tuned, "ammo") == std::optional<Value>(int64_t{4}));
}

TEST_CASE("builder: Yaml() before End() shows the tree as End() would close it; copies are independent") {
  TreeBuilder b("t");
  b.Sequence()->Action("A")->Selector()->Action("B");
  TreeBuilder copy = b;
  copy.Back()->Action("C")->End();
  b.End();
  TreeBuilder closed("t");
  closed.Sequence()->Action("A")->Selector()->Action("B")->Back()->Back()->End();
  CHECK(b.Yaml() == closed.Yaml());
  CHECK(copy.Yaml() != b.Yaml());
  CHECK(copy.Yaml().find("action: C") != std::string::npos);
  CHECK(b.Errors().empty());
  CHECK(copy.Errors().empty());
}

TEST_CASE("builder: misuse is recorded, not thrown, and Load returns it as diagnostics without loading") {
  auto errors_of = [](TreeBuilder& b) {
    std::string out;
    for (const auto& e : b.Errors()) out += e + "\n";
    return out;
  };

  SUBCASE("Back() with nothing open") {
    TreeBuilder b("t");
    b.Back()->Action("A")->End();
    CHECK(errors_of(b) == "call 1, Back(): no composite is open\n");
  }
  SUBCASE("Back() after the root composite was closed") {
    TreeBuilder b("t");
    b.Sequence()->Action("A")->Back()->Back()->End();
    CHECK(errors_of(b) == "call 4, Back(): no composite is open\n");
  }
  SUBCASE("a decorator without a child at End()") {
    TreeBuilder b("t");
    b.Sequence()->Action("A")->Repeat(3)->End();
    CHECK(errors_of(b) == "call 4, End(): Repeat(3) has no child; a decorator takes the next node as its child\n");
  }
  SUBCASE("Back() while a decorator waits for its child") {
    TreeBuilder b("t");
    b.Sequence()->Action("A")->Invert()->Back()->Condition("C")->End();
    CHECK(errors_of(b) == "call 4, Back(): Invert() is still waiting for its child; a decorator takes the next node\n");
  }
  SUBCASE("End() twice, and nodes after End()") {
    TreeBuilder b("t");
    b.Action("A")->End();
    b.End();
    b.Action("B");
    CHECK(errors_of(b) ==
          "call 3, End(): the tree is finished: End() was already called\n"
          "call 4, Action(\"B\"): the tree is finished: End() was already called\n");
  }
  SUBCASE("a second top-level node") {
    TreeBuilder b("t");
    b.Sequence()->Action("A")->Back()->Action("B")->End();
    CHECK(errors_of(b) ==
          "call 4, Action(\"B\"): the tree already has its root (Sequence()); to hold several nodes, open a composite "
          "such as Sequence() first\n");
  }
  SUBCASE("an empty composite, an empty tree") {
    TreeBuilder b("t");
    b.Sequence()->Selector(Abort::Self)->Back()->Action("A")->End();
    CHECK(errors_of(b) == "call 3, Back(): Selector(abort: self) has no children; a composite needs at least one\n");
    TreeBuilder empty("e");
    empty.End();
    CHECK(errors_of(empty) == "call 1, End(): the tree is empty: add a root node before End()\n");
  }
  SUBCASE("Do() outside a filter, Do() twice, an empty filter") {
    TreeBuilder b("t");
    b.Sequence()->Do()->Filter()->Condition("C")->Do()->Do()->Action("A")->Back()->Filter()->Do()->End();
    CHECK(errors_of(b) ==
          "call 2, Do(): no filter is open; Do() separates a Filter()'s conditions from its do nodes\n"
          "call 6, Do(): this filter's Do() was already called\n"
          "call 11, End(): Filter() has no children (a filter needs a node in its conditions or after Do())\n");
  }
  SUBCASE("Named() with no node after it, or twice") {
    TreeBuilder b("t");
    b.Sequence()->Named("a")->Named("b")->Action("A")->Named("c")->End();
    CHECK(errors_of(b) ==
          "call 3, Named(\"b\"): follows Named(\"a\") with no node between them\n"
          "call 6, End(): Named(\"c\") has no node after it\n");
  }
  SUBCASE("a blackboard key declared twice; errors of a Define()d tree") {
    TreeBuilder sub("Sub");
    sub.Back();
    TreeBuilder b("t");
    b.Blackboard("k", 1.0).Blackboard("k", 2.0).Define(sub);
    b.Subtree("Sub")->End();
    CHECK(errors_of(b) ==
          "call 2, Blackboard(\"k\"): blackboard key 'k' is declared twice\n"
          "in tree 'Sub': call 1, Back(): no composite is open\n"
          "in tree 'Sub': call 2, End() implied by Define(): the tree is empty: add a root node before End()\n");
  }
  SUBCASE("Load returns the errors as diagnostics named by the given file, and loads nothing") {
    TreeBuilder b("t");
    b.Back()->Invert()->End();
    Runtime rt;
    std::vector<Diagnostic> d;
    CHECK_FALSE(b.Load(rt, d, "brains/t.yaml"));
    CHECK(all(d) ==
          "brains/t.yaml: error: builder: call 1, Back(): no composite is open\n"
          "brains/t.yaml: error: builder: call 3, End(): Invert() has no child; a decorator takes the next node as its child\n"
          "brains/t.yaml: error: builder: call 3, End(): the tree is empty: add a root node before End()\n");
    TreeBuilder unfinished("u");
    unfinished.Action("A");
    d.clear();
    CHECK_FALSE(unfinished.Load(rt, d));
    CHECK(all(d) == "u.yaml: error: builder: the tree is not finished: call End() before Load()\n");
  }
}

TEST_CASE("builder: errors in values are the loader's, reported as for a file") {
  Runtime rt;
  natives(rt, {"Attack"});
  TreeBuilder b("t");
  b.Blackboard("health", 100.0);
  b.Sequence()->Action("Atack")->Check("helth < 3")->Repeat(0)->Action("Attack")->Wait(-1)->Subtree("Nope")->End();
  CHECK(b.Errors().empty());
  std::vector<Diagnostic> d;
  CHECK_FALSE(b.Load(rt, d, "t.yaml"));
  std::string text = all(d);
  CHECK(text.find("t.yaml:") == 0);
  CHECK(text.find("unknown leaf 'Atack'; did you mean 'Attack'?") != std::string::npos);
  CHECK(text.find("helth") != std::string::npos);
  CHECK(text.find("'times' must be >= 1, got 0") != std::string::npos);
  CHECK(text.find("must not be negative") != std::string::npos);
  CHECK(text.find("unknown tree 'Nope'") != std::string::npos);
}

TEST_CASE("builder: native leaves tick through a built tree: world state, blackboard, running nodes, abort traces") {
  // The game's side: one enemy that turns up at tick 3 and takes three hits.
  struct World {
    bool enemy_visible = false;
    int enemy_hp = 0;
    int patrol_ticks = 0;
    std::vector<std::string> stops;
  } world;
  Runtime rt;
  rt.register_leaf("SeesEnemy", ticking([&](LeafContext&) {
                     return world.enemy_visible ? Status::Success : Status::Failure;
                   }));
  NativeLeaf patrol = ticking([&](LeafContext&) {
    ++world.patrol_ticks;
    return Status::Running;
  });
  patrol.stop = [&](LeafContext& c, Status s) {
    world.stops.push_back(c.node_id() + " " + std::string(thicket::status_name(s)));
  };
  rt.register_leaf("Patrol", patrol);
  rt.register_leaf("Attack", ticking([&](LeafContext& c) {
                     world.enemy_hp -= 1;
                     if (world.enemy_hp > 0) return Status::Running;
                     world.enemy_visible = false;
                     Value kills;
                     c.get("kills", kills);
                     c.set("kills", std::get<int64_t>(kills) + 1);
                     return Status::Success;
                   }));

  TreeBuilder b("guard");
  b.Blackboard("kills", 0).Blackboard("health", 100.0);
  b.Selector()
      ->Named("fight")->Sequence(Abort::LowerPriority)->Condition("SeesEnemy")->Named("attack")->Action("Attack")->Back()
      ->Named("patrol")->Action("Patrol")
      ->End();
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d);
  REQUIRE_MESSAGE(brain, all(d));

  std::vector<std::string> aborts;
  rt.on_trace([&](const TraceEvent& e) {
    if (e.type == TraceEvent::Type::Abort)
      aborts.push_back(std::to_string(e.tick) + " " + e.composite + " " + e.condition_label + " " +
                       std::string(thicket::status_name(e.from)) + "->" + std::string(thicket::status_name(e.to)) +
                       " interrupts " + e.aborted);
  });
  AgentHandle guard = rt.spawn(*brain, {{"health", 80.0}});
  CHECK(rt.get(guard, "health") == std::optional<Value>(80.0));

  std::vector<std::string> running;
  for (int tick = 1; tick <= 7; ++tick) {
    if (tick == 3) {
      world.enemy_visible = true;
      world.enemy_hp = 3;
    }
    Status s = rt.tick(guard, 0.1);
    std::string line = std::to_string(tick) + " " + std::string(thicket::status_name(s)) + ":";
    for (const auto& id : rt.running_nodes(guard)) line += " " + id;
    running.push_back(line);
    CHECK(rt.status(guard) == s);
  }
  CHECK(running == std::vector<std::string>{
                       "1 running: root patrol",
                       "2 running: root patrol",
                       "3 running: root fight attack",
                       "4 running: root fight attack",
                       "5 success:",
                       "6 running: root patrol",
                       "7 running: root patrol",
                   });
  CHECK(aborts == std::vector<std::string>{"3 root condition SeesEnemy failure->success interrupts patrol"});
  CHECK(world.stops == std::vector<std::string>{"patrol aborted"});
  CHECK(world.patrol_ticks == 4);
  CHECK(rt.get(guard, "kills") == std::optional<Value>(int64_t{1}));
}
