// The fluent fsm builder (SPEC 8, 4, 4.1): a built state machine, flat or hierarchical, compiles
// to the node array of the equivalent YAML (compared as `thicket dump` and `thicket dot` text),
// ticks as that YAML does (native and Lua leaves), and misuse is reported as diagnostics. Brains
// are inline; time is the sim clock.
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
using thicket::AgentHandle;
using thicket::BrainHandle;
using thicket::Diagnostic;
using thicket::FsmBuilder;
using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Runtime;
using thicket::Status;
using thicket::TraceEvent;
using thicket::TreeBuilder;
using thicket::Value;

namespace {

std::string all(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += thicket::format_diagnostic(d) + "\n";
  return out;
}

std::string lines_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string errors_of(const FsmBuilder& b) {
  std::string out;
  for (const auto& e : b.Errors()) out += e + "\n";
  return out;
}

// A leaf with a tick only (no start/stop hooks).
NativeLeaf ticking(std::function<Status(LeafContext&)> tick) {
  NativeLeaf leaf;
  leaf.tick = std::move(tick);
  return leaf;
}

NativeLeaf returning(Status s) {
  return ticking([s](LeafContext&) { return s; });
}

// Leaves of the brains below that only need to exist: acts keep running, conditions pass.
void natives(Runtime& rt) {
  for (const char* name : {"Patrol", "Rest", "Shoot", "Reload", "LookAround", "Aim", "Say", "Hide", "Think"})
    rt.register_leaf(name, returning(Status::Running));
  for (const char* name : {"HasTarget", "Hurt", "Awake", "Tired", "Ready"}) rt.register_leaf(name, returning(Status::Success));
}

// `thicket dump` and `thicket dot` of a brain, or its diagnostics when it fails to load.
std::string text_of(Runtime& rt, std::optional<BrainHandle> brain, const std::vector<Diagnostic>& d) {
  return brain ? rt.dump(*brain) + rt.dot(*brain) : "load failed:\n" + all(d);
}

std::string from_yaml(const std::string& yaml, const std::string& name) {
  Runtime rt;
  natives(rt);
  std::vector<Diagnostic> d;
  auto brain = rt.load_string(yaml, name, d);
  return text_of(rt, brain, d);
}

std::string from_builder(const FsmBuilder& b, const std::string& name) {
  Runtime rt;
  natives(rt);
  std::vector<Diagnostic> d;
  auto brain = b.Load(rt, d, name);
  return text_of(rt, brain, d) + (brain ? "" : b.Yaml());
}

// SPEC 4.1's guard, with the search tree, the fight machine and leaves written out.
const char* kGuardYaml = R"(
fsm: guard
blackboard: {ammo: 6}
initial: calm
states:
  calm:
    initial: patrol
    transitions: {noise: alert, saw_enemy: combat}
    states:
      patrol: {act: Patrol, transitions: {tired: rest}}
      rest:   {act: Rest, when: [{after: 5.0, go: patrol}]}
  alert:
    tree: search
    transitions: {success: calm, saw_enemy: {go: combat, check: "ammo > 0"}}
  combat:
    machine: fight
    history: true
    initial: engage
    transitions: {enemy_dead: calm, wounded: fled}
    states:
      engage: {act: Shoot, transitions: {out_of_ammo: reload}}
      reload: {act: Reload, transitions: {success: engage}}
  fled: {final: true}
trees:
  search: {sequence: [{action: LookAround}, {wait: 2}]}
machines:
  fight: {behaviors: [{name: aim, check: HasTarget, run: Aim}]}
)";

FsmBuilder guard_builder() {
  TreeBuilder search("search");
  search.Sequence()->Action("LookAround")->Wait(2.0)->End();
  FsmBuilder b("guard");
  b.Blackboard("ammo", 6.0).Define(search);
  b.DefineMachine("fight", {{.name = "aim", .check = "HasTarget", .run = "Aim"}});
  b.Initial("calm")
   ->State("calm")->Initial("patrol")->On("noise", "alert")->On("saw_enemy", "combat")
       ->State("patrol")->Act("Patrol")->On("tired", "rest")->End()
       ->State("rest")->Act("Rest")->After(5.0, "patrol")->End()
   ->End()
   ->State("alert")->Tree("search")->On("success", "calm")->On("saw_enemy", "combat", "ammo > 0")->End()
   ->State("combat")->Machine("fight")->History()->Initial("engage")
       ->On("enemy_dead", "calm")->On("wounded", "fled")
       ->State("engage")->Act("Shoot")->On("out_of_ammo", "reload")->End()
       ->State("reload")->Act("Reload")->On("success", "engage")->End()
   ->End()
   ->State("fled")->Final()->End();
  return b;
}

}  // namespace

TEST_CASE("fsm builder: SPEC 4.1's guard compiles to the array of its YAML (dump and dot)") {
  FsmBuilder b = guard_builder();
  CHECK(errors_of(b).empty());
  std::string expected = from_yaml(kGuardYaml, "guard.yaml");
  REQUIRE(expected.rfind("fsm guard:", 0) == 0);
  CHECK(expected.find("subgraph cluster_") != std::string::npos);  // composites drawn as clusters
  CHECK(from_builder(b, "guard.yaml") == expected);
}

TEST_CASE("fsm builder: the YAML text of a small HSM") {
  FsmBuilder b("door");
  b.Leaves({"door.lua"}).Blackboard("locked", false).Blackboard("knocks", 0);
  b.State("closed")->Initial("idle")->Enter("Say", {{"text", "shut"}})->Exit("Say", {{"text", "opening"}})
       ->On("open", "opened", "not locked")->OnCondition("kick", "broken", "Hurt", {{"force", 2.5}}, true)
       ->State("idle")->Act("Rest")->WhenCondition("Tired", "waiting")->End()
       ->State("waiting")->EnterIf("knocks > 0")->Reason("Think")->After(1.5, "idle", "knocks < 3")->End()
   ->End()
   ->State("opened")->History()->EnterIfCondition("Ready", {{"who", "me"}})
       ->State("ajar")->When("locked", "closed")->AfterCondition(0.5, "wide", "Awake")->End()
       ->State("wide")->End()
   ->End()
   ->State("broken")->Final()->End();
  CHECK(errors_of(b).empty());
  CHECK(b.Yaml() == R"(fsm: door
leaves: [door.lua]
blackboard:
  locked: false
  knocks: {type: integer, default: 0}
states:
  closed:
    initial: idle
    enter: {leaf: Say, args: {text: shut}}
    exit: {leaf: Say, args: {text: opening}}
    transitions:
      open: {go: opened, check: "not locked"}
      kick: {go: broken, condition: {leaf: Hurt, negate: true, args: {force: 2.5}}}
    states:
      idle:
        act: Rest
        when:
          - {condition: Tired, go: waiting}
      waiting:
        enter_if: {check: "knocks > 0"}
        reason: Think
        when:
          - {after: 1.5, check: "knocks < 3", go: idle}
  opened:
    history: true
    enter_if: {condition: {leaf: Ready, args: {who: me}}}
    states:
      ajar:
        when:
          - {check: "locked", go: closed}
          - {after: 0.5, condition: Awake, go: wide}
      wide: {}
  broken: {final: true}
)");
}

TEST_CASE("fsm builder: every state key, inline trees and machines, against the equivalent YAML") {
  std::string yaml = R"(
fsm: every_key
blackboard:
  ammo: {type: integer, default: 3}
  alert: false
initial: top
states:
  top:
    enter_if: {condition: {leaf: Awake, args: {how: fully}}}
    enter: {leaf: Say, args: {text: hello, loud: true}}
    exit: Say
    reason: {leaf: Think, args: {depth: 2}}
    transitions:
      noise: {go: hiding, condition: {leaf: Hurt, negate: true}}
      done: gone
    when:
      - {check: "ammo < 1", go: hiding}
      - {condition: {leaf: Tired, args: {limit: 0.5}}, go: resting}
      - {after: 3, condition: Ready, go: resting}
      - {after: 4.5, go: gone}
    states:
      resting: {act: {leaf: Rest, args: {deep: false}}, enter_if: "ammo >= 0"}
      hiding:
        tree:
          sequence: [ {condition: {check: "alert"}}, {action: Hide}, {subtree: peek} ]
      fighting:
        history: true
        initial: aiming
        machine:
          check_every: 0.25
          behaviors:
            - {name: aim, check: {check: "ammo > 0"}, run: {leaf: Aim, args: {steady: 1}}}
            - {name: look, check: {leaf: HasTarget, args: {range: 10}}, tree: peek}
        states:
          aiming: {act: Shoot}
          reloading: {act: Reload, final: false}
      gone: {final: true}
trees:
  peek: {action: LookAround}
)";
  TreeBuilder peek("peek");
  peek.Action("LookAround")->End();
  TreeBuilder hiding("hiding_tree");  // inline: only its root travels, its Define()d trees go to `trees:`
  hiding.Define(peek).Sequence()->Check("alert")->Action("Hide")->Subtree("peek")->End();

  FsmBuilder b("every_key");
  b.Blackboard("ammo", 3).Blackboard("alert", false);
  b.Initial("top")
   ->State("top")->EnterIfCondition("Awake", {{"how", "fully"}})->Enter("Say", {{"text", "hello"}, {"loud", true}})
       ->Exit("Say")->Reason("Think", {{"depth", 2}})
       ->OnCondition("noise", "hiding", "Hurt", {}, true)->On("done", "gone")
       ->When("ammo < 1", "hiding")->WhenCondition("Tired", "resting", {{"limit", 0.5}})
       ->AfterCondition(3, "resting", "Ready")->After(4.5, "gone")
       ->State("resting")->Act("Rest", {{"deep", false}})->EnterIf("ammo >= 0")->End()
       ->State("hiding")->Tree(hiding)->End()
       ->State("fighting")->History()->Initial("aiming")
           ->Machine({{.name = "aim", .check_expr = "ammo > 0", .run = "Aim", .run_args = {{"steady", 1}}},
                      {.name = "look", .check = "HasTarget", .check_args = {{"range", 10}}, .tree = "peek"}},
                     0.25)
           ->State("aiming")->Act("Shoot")->End()
           ->State("reloading")->Act("Reload")->Final(false)->End()
       ->End()
       ->State("gone")->Final()->End()
   ->End();
  REQUIRE_MESSAGE(errors_of(b).empty(), errors_of(b));
  std::string expected = from_yaml(yaml, "every_key.yaml");
  REQUIRE(expected.rfind("fsm every_key:", 0) == 0);
  for (const char* part : {"id=top/enter_if", "id=top/enter ", "id=top/exit", "id=top/reason", "id=top/transitions/noise",
                           "id=top/when/1", "id=hiding/tree", "id=fighting/machine", "id=resting/enter_if"})
    CHECK_MESSAGE(expected.find(part) != std::string::npos, part);
  CHECK(from_builder(b, "every_key.yaml") == expected);
}

TEST_CASE("fsm builder: a flat fsm (SPEC 4's monster) with Lua reasons ticks as its YAML does") {
  fs::path dir = fs::temp_directory_path() / ("thicket_test_builder_fsm_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Patrol sees the player on its 3rd tick, Chase gets in range on its 2nd; the reasons report it.
  std::ofstream(dir / "monster.lua") << R"LUA(
local thicket = require("thicket")
local L = {}
function L.PatrolReason(agent, args) if agent.bb.seen then return "saw_player" end end
function L.ChaseReason(agent, args)
  if agent.bb.close then return "in_range" end
  if not agent.bb.seen then return "lost_player" end
end
function L.AttackReason(agent, args) if not agent.bb.close then return "out_of_range" end end
function L.Patrol(agent, args)
  agent.bb.steps = agent.bb.steps + 1
  if agent.bb.steps >= 3 then agent.bb.seen = true end
  return thicket.RUNNING
end
function L.Chase(agent, args) agent.bb.close = true return thicket.RUNNING end
function L.Attack(agent, args) agent:send("swing") return thicket.RUNNING end
return L
)LUA";
  const std::string yaml = R"(
fsm: monster
leaves: [monster.lua]
blackboard: {steps: 0, seen: false, close: false}
initial: patrol
states:
  patrol: {reason: PatrolReason, act: Patrol, transitions: {saw_player: chase}}
  chase:  {reason: ChaseReason,  act: Chase,  transitions: {lost_player: patrol, in_range: attack}}
  attack: {reason: AttackReason, act: Attack, transitions: {out_of_range: chase}}
)";
  FsmBuilder b("monster");
  b.Leaves({"monster.lua"}).Blackboard("steps", 0.0).Blackboard("seen", false).Blackboard("close", false);
  b.Initial("patrol")
   ->State("patrol")->Reason("PatrolReason")->Act("Patrol")->On("saw_player", "chase")->End()
   ->State("chase")->Reason("ChaseReason")->Act("Chase")->On("lost_player", "patrol")->On("in_range", "attack")->End()
   ->State("attack")->Reason("AttackReason")->Act("Attack")->On("out_of_range", "chase")->End();
  REQUIRE(errors_of(b).empty());

  // Each run: the transitions and events of 7 ticks, from the trace.
  auto run = [&](bool built) {
    std::vector<std::string> lines;
    Runtime rt;
    rt.on_trace([&](const TraceEvent& e) {
      if (e.type == TraceEvent::Type::Transition)
        lines.push_back(std::to_string(e.tick) + " " + e.from_name + "->" + e.to_name + " by " + e.transition);
      if (e.type == TraceEvent::Type::Event)
        lines.push_back(std::to_string(e.tick) + " event " + e.event + " taken by '" + e.taken_by + "'");
    }, false);
    std::vector<Diagnostic> d;
    const std::string name = (dir / "monster.yaml").string();  // leaves resolve beside it
    auto brain = built ? b.Load(rt, d, name) : rt.load_string(yaml, name, d);
    REQUIRE_MESSAGE(brain, all(d));
    AgentHandle a = rt.spawn(*brain);
    for (int t = 0; t < 7; ++t) rt.tick(a, 0.1);
    CHECK(rt.script_errors() == 0);
    return std::pair(lines, rt.dump(*brain));
  };
  auto [built, built_dump] = run(true);
  auto [loaded, loaded_dump] = run(false);
  CHECK(built_dump == loaded_dump);
  CHECK(built == loaded);
  CHECK(lines_of(built) == lines_of({
                     "1 ->patrol by ",
                     "4 patrol->chase by saw_player",
                     "5 chase->attack by in_range",
                     "6 event swing taken by ''",
                     "7 event swing taken by ''",
                 }));
  fs::remove_all(dir);
}

TEST_CASE("fsm builder: a built HSM with native leaves ticks as its YAML does: events, when, history, final") {
  // The game's side: events sent between ticks; leaves keep their state on the blackboard, so
  // the two runtimes below cannot share anything.
  auto leaves = [](Runtime& rt) {
    auto bump = [](LeafContext& c, const char* key) {
      Value v;
      c.get(key, v);
      int64_t n = std::get<int64_t>(v) + 1;
      c.set(key, n);
      return n;
    };
    rt.register_leaf("Patrol", returning(Status::Running));
    rt.register_leaf("Search", ticking([bump](LeafContext& c) { return bump(c, "searched") % 2 == 0 ? Status::Success : Status::Running; }));
    rt.register_leaf("Shout", ticking([bump](LeafContext& c) { bump(c, "shouts"); return Status::Success; }));
    rt.register_leaf("Shoot", ticking([](LeafContext& c) {
                       Value v;
                       c.get("ammo", v);
                       c.set("ammo", std::get<int64_t>(v) - 1);
                       return Status::Running;
                     }));
    rt.register_leaf("Reload", ticking([bump](LeafContext& c) {
                       if (bump(c, "reloading") % 2 != 0) return Status::Running;
                       c.set("ammo", int64_t{2});
                       return Status::Success;
                     }));
    rt.register_leaf("Hurt", ticking([](LeafContext& c) {
                       Value v;
                       c.get("hurt", v);
                       return std::get<bool>(v) ? Status::Success : Status::Failure;
                     }));
  };
  const std::string yaml = R"(
fsm: guard
blackboard:
  ammo: {type: integer, default: 2}
  searched: {type: integer, default: 0}
  shouts: {type: integer, default: 0}
  reloading: {type: integer, default: 0}
  hurt: false
initial: calm
states:
  calm:
    initial: patrol
    transitions: {noise: alert, saw_enemy: combat}
    states:
      patrol: {act: Patrol, transitions: {tired: rest}}
      rest:   {act: Patrol, when: [{after: 0.3, go: patrol}]}
  alert:
    act: Search
    transitions: {success: calm, saw_enemy: {go: combat, check: "ammo > 0"}}
  combat:
    history: true
    initial: engage
    enter: Shout
    transitions: {enemy_dead: calm, wounded: {go: fled, condition: Hurt}}
    states:
      engage: {act: Shoot, when: [{check: "ammo < 1", go: reload}]}
      reload: {act: Reload, transitions: {success: engage}}
  fled: {final: true}
)";
  FsmBuilder b("guard");
  b.Blackboard("ammo", 2).Blackboard("searched", 0).Blackboard("shouts", 0).Blackboard("reloading", 0).Blackboard("hurt", false);
  b.Initial("calm")
   ->State("calm")->Initial("patrol")->On("noise", "alert")->On("saw_enemy", "combat")
       ->State("patrol")->Act("Patrol")->On("tired", "rest")->End()
       ->State("rest")->Act("Patrol")->After(0.3, "patrol")->End()
   ->End()
   ->State("alert")->Act("Search")->On("success", "calm")->On("saw_enemy", "combat", "ammo > 0")->End()
   ->State("combat")->History()->Initial("engage")->Enter("Shout")
       ->On("enemy_dead", "calm")->OnCondition("wounded", "fled", "Hurt")
       ->State("engage")->Act("Shoot")->When("ammo < 1", "reload")->End()
       ->State("reload")->Act("Reload")->On("success", "engage")->End()
   ->End()
   ->State("fled")->Final()->End();
  REQUIRE(errors_of(b).empty());

  // Tick k is preceded by the events sent before it.
  const std::vector<std::pair<int, std::vector<const char*>>> sends = {
      {2, {"tired"}}, {6, {"noise"}}, {9, {"saw_enemy"}}, {12, {"enemy_dead"}}, {13, {"saw_enemy"}},
      {15, {"wounded"}}, {16, {"wounded"}}};
  auto run = [&](bool built) {
    Runtime rt;
    leaves(rt);
    std::vector<std::string> lines;
    rt.on_trace([&](const TraceEvent& e) {
      auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
        return s;
      };
      if (e.type == TraceEvent::Type::Transition)
        lines.push_back(std::to_string(e.tick) + " " + e.from_name + "->" + e.to_name +
                        (e.event.empty() ? "" : " by " + e.event) + " exited [" + join(e.exited) + "] entered [" +
                        join(e.entered) + "]");
      else if (e.type == TraceEvent::Type::Event && e.taken_by.empty())
        lines.push_back(std::to_string(e.tick) + " dropped " + e.event);
      else if (e.type == TraceEvent::Type::Tick && e.status != Status::Running)
        lines.push_back(std::to_string(e.tick) + " " + std::string(thicket::status_name(e.status)));
    });
    std::vector<Diagnostic> d;
    auto brain = built ? b.Load(rt, d) : rt.load_string(yaml, "guard.yaml", d);
    REQUIRE_MESSAGE(brain, all(d));
    AgentHandle a = rt.spawn(*brain);
    for (int tick = 1; tick <= 17; ++tick) {
      for (const auto& [at, events] : sends)
        if (at == tick)
          for (const char* ev : events) CHECK(rt.send(a, ev));
      if (tick == 16) rt.set(a, "hurt", true);
      rt.tick(a, 0.1);
    }
    lines.push_back("shouts " + std::to_string(std::get<int64_t>(*rt.get(a, "shouts"))));
    return lines;
  };
  std::vector<std::string> built = run(true);
  CHECK(built == run(false));
  CHECK(lines_of(built) ==
        "1 ->calm exited [] entered [calm,patrol]\n"
        "2 patrol->rest by tired exited [patrol] entered [rest]\n"
        "5 rest->patrol exited [rest] entered [patrol]\n"                   // 0.3 s after tick 2
        "6 calm->alert by noise exited [patrol,calm] entered [alert]\n"
        "8 alert->calm by success exited [alert] entered [calm,patrol]\n"   // Search succeeded at 7
        "9 calm->combat by saw_enemy exited [patrol,calm] entered [combat,engage]\n"
        "11 engage->reload exited [engage] entered [reload]\n"              // Shoot: ammo 2 -> 0 by 10
        "12 combat->calm by enemy_dead exited [reload,combat] entered [calm,patrol]\n"
        "13 calm->combat by saw_enemy exited [patrol,calm] entered [combat,reload]\n"  // history
        "14 reload->engage by success exited [reload] entered [engage]\n"   // Reload succeeded at 13
        "15 dropped wounded\n"                                              // the Hurt guard fails
        "16 combat->fled by wounded exited [engage,combat] entered [fled]\n"
        "16 fled-> exited [fled] entered []\n"  // the brain's end: the final state left
        "16 success\n"                                                      // a top-level final state
        "17 ->calm exited [] entered [calm,patrol]\n"                       // starts again
        "shouts 2\n");
}

TEST_CASE("fsm builder: Yaml() before the last End() shows the states closed; copies are independent") {
  FsmBuilder b("f");
  b.State("a")->State("b")->Act("Patrol");
  FsmBuilder copy = b;
  copy.End()->State("c")->End()->End();
  b.End()->End();
  FsmBuilder open("f");
  open.State("a")->State("b")->Act("Patrol");
  CHECK(open.Yaml() == b.Yaml());
  CHECK(copy.Yaml() != b.Yaml());
  CHECK(copy.Yaml().find("c: {}") != std::string::npos);
  CHECK(errors_of(b).empty());
  CHECK(errors_of(copy).empty());
  // Open states are shown closed but not loaded.
  Runtime rt;
  natives(rt);
  std::vector<Diagnostic> d;
  CHECK_FALSE(open.Load(rt, d));
  CHECK(all(d) ==
        "f.yaml: error: builder: state 'b' (State(\"b\")) is still open: close it with End() before Load()\n"
        "f.yaml: error: builder: state 'a' (State(\"a\")) is still open: close it with End() before Load()\n");
  d.clear();
  CHECK(b.Load(rt, d));
}

TEST_CASE("fsm builder: misuse is recorded, not thrown, and Load returns it as diagnostics without loading") {
  SUBCASE("state calls and End() with no state open") {
    FsmBuilder b("f");
    b.Act("Patrol")->End()->On("x", "y")->State("a")->End()->History();
    CHECK(errors_of(b) ==
          "call 1, Act(\"Patrol\"): no state is open; open one with State(name) first\n"
          "call 2, End(): no state is open\n"
          "call 3, On(\"x\", \"y\"): no state is open; open one with State(name) first\n"
          "call 6, History(): no state is open; open one with State(name) first\n");
  }
  SUBCASE("a state name used twice in the brain, an empty name") {
    FsmBuilder b("f");
    b.State("a")->State("b")->End()->End()->State("b")->End()->State("")->End();
    CHECK(errors_of(b) ==
          "call 5, State(\"b\"): state 'b' is already defined: state names are unique in the whole brain\n"
          "call 7, State(\"\"): a state needs a name\n");
  }
  SUBCASE("two bodies, two enter leaves, two enter_ifs, two initials, an event mapped twice") {
    FsmBuilder b("f");
    b.Initial("a")->Initial("b")
     ->State("a")->Act("Patrol")->Tree("t")->Machine("m")->Enter("Say")->Enter("Say")->Exit("Say")->Exit("Say")
         ->Reason("Think")->Reason("Think")->EnterIf("x")->EnterIfCondition("Ready")->Initial("c")->Initial("d")
         ->On("go", "b")->OnCondition("go", "c", "Ready")->On("stay", "a")
         ->State("c")->End()->State("d")->End()
     ->End()->State("b")->End();
    CHECK(errors_of(b) ==
          "call 2, Initial(\"b\"): the brain already has an initial state (Initial(\"a\"))\n"
          "call 5, Tree(\"t\"): state 'a' already has a body (Act(\"Patrol\")); a state runs one act, tree or machine\n"
          "call 6, Machine(\"m\"): state 'a' already has a body (Act(\"Patrol\")); a state runs one act, tree or machine\n"
          "call 8, Enter(\"Say\"): state 'a' already has an enter leaf (Enter(\"Say\"))\n"
          "call 10, Exit(\"Say\"): state 'a' already has an exit leaf (Exit(\"Say\"))\n"
          "call 12, Reason(\"Think\"): state 'a' already has a reason leaf (Reason(\"Think\"))\n"
          "call 14, EnterIfCondition(\"Ready\"): state 'a' already has an enter_if (EnterIf(\"x\"))\n"
          "call 16, Initial(\"d\"): state 'a' already has an initial child (Initial(\"c\"))\n"
          "call 18, OnCondition(\"go\", \"c\", \"Ready\"): state 'a' already maps 'go' (On(\"go\", \"b\"))\n");
  }
  SUBCASE("machines: a name defined twice, no behaviors, a behavior without one check and one run") {
    FsmBuilder b("f");
    b.DefineMachine("m", {{.name = "a", .check = "Ready", .run = "Aim"}})
        .DefineMachine("m", {{.name = "a", .check = "Ready", .run = "Aim"}})
        .DefineMachine("none", {});
    b.State("s")->Machine({{.name = "both", .check = "Ready", .check_expr = "x > 1", .run = "Aim", .tree = "t"},
                           {.name = "", .check = "Ready"}})->End();
    CHECK(errors_of(b) ==
          "call 2, DefineMachine(\"m\"): machine 'm' is defined twice\n"
          "call 3, DefineMachine(\"none\"): a machine needs at least one behavior\n"
          "call 5, Machine(2 behaviors): behavior 0 ('both') needs one of check (a condition leaf) and check_expr (an expression)\n"
          "call 5, Machine(2 behaviors): behavior 0 ('both') needs one of run (a leaf) and tree\n"
          "call 5, Machine(2 behaviors): behavior 1 needs one of run (a leaf) and tree\n");
  }
  SUBCASE("a blackboard key declared twice; misuse inside a TreeBuilder given to Define() or Tree()") {
    TreeBuilder bad("bad");
    bad.Back();
    FsmBuilder b("f");
    b.Blackboard("k", 1.0).Blackboard("k", 2.0).Define(bad);
    b.State("s")->Tree(bad)->End();
    CHECK(errors_of(b) ==
          "call 2, Blackboard(\"k\"): blackboard key 'k' is declared twice\n"
          "in tree 'bad': call 1, Back(): no composite is open\n"
          "in tree 'bad': call 2, End() implied by Define(): the tree is empty: add a root node before End()\n"
          "in tree 'bad': call 1, Back(): no composite is open\n"
          "in tree 'bad': call 2, End() implied by Tree(TreeBuilder \"bad\"): the tree is empty: add a root node before End()\n");
  }
  SUBCASE("Load returns the errors as diagnostics named by the given file, and loads nothing") {
    FsmBuilder b("f");
    b.End()->State("a");
    Runtime rt;
    std::vector<Diagnostic> d;
    CHECK_FALSE(b.Load(rt, d, "brains/f.yaml"));
    CHECK(all(d) ==
          "brains/f.yaml: error: builder: call 1, End(): no state is open\n"
          "brains/f.yaml: error: builder: state 'a' (State(\"a\")) is still open: close it with End() before Load()\n");
    CHECK(rt.brain_count() == 0);
    FsmBuilder empty("e");
    d.clear();
    CHECK_FALSE(empty.Load(rt, d));
    CHECK(all(d) == "e.yaml: error: builder: the fsm has no states: add one with State(name)\n");
  }
}

TEST_CASE("fsm builder: errors in values are the loader's, reported as for a file") {
  Runtime rt;
  natives(rt);
  FsmBuilder b("f");
  b.Blackboard("ammo", 1.0);
  b.Initial("nope")
   ->State("a")->Act("Patrl")->On("x", "bb")->When("amo > 1", "a")->After(-1, "a")->History()->End()
   ->State("b")->Final()->Act("Rest")->Tree("missing")->End();
  CHECK(errors_of(b) ==
        "call 13, Tree(\"missing\"): state 'b' already has a body (Act(\"Rest\")); a state runs one act, tree or machine\n");
  FsmBuilder c("f");  // the same without the builder's own error: the loader's turn
  c.Blackboard("ammo", 1.0);
  c.Initial("nope")
   ->State("a")->Act("Patrl")->On("x", "bb")->When("amo > 1", "a")->After(-1, "a")->History()->End()
   ->State("b")->Final()->Act("Rest")->End();
  REQUIRE(errors_of(c).empty());
  std::vector<Diagnostic> d;
  CHECK_FALSE(c.Load(rt, d, "f.yaml"));
  std::string text = all(d);
  CHECK(text.find("f.yaml:") == 0);
  for (const char* part : {"the brain's 'initial' names 'nope'", "unknown leaf 'Patrl'; did you mean 'Patrol'?",
                           "unknown state 'bb'", "amo", "must not be negative",
                           "'history' applies to a composite state", "a final state has no 'act'"})
    CHECK_MESSAGE(text.find(part) != std::string::npos, part, "\n", text);
}

TEST_CASE("fsm: an 'after' or a wait of NaN seconds is refused as not a number") {
  Runtime rt;
  natives(rt);
  std::vector<Diagnostic> d;
  CHECK_FALSE(rt.load_string("fsm: f\nstates:\n  a:\n    when: [{after: .nan, go: a}]\n", "f.yaml", d));
  CHECK(all(d) == "f.yaml:4:20: error: 'after' must be a number of seconds, got .nan (not a number)\n");
  d.clear();
  CHECK_FALSE(rt.load_string("tree: t\nroot:\n  wait: .NaN\n", "t.yaml", d));
  CHECK(all(d) == "t.yaml:3:9: error: wait must be a number of seconds, got .NaN (not a number)\n");
}
