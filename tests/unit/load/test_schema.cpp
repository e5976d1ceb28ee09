// Tests for runtime/src/load/schema.cpp and schema_words.cpp (JSON Schema with valijson, worded over yaml-cpp) and for the brain
// schemas in schemas/: every example brain passes, bad brains fail at the right line:col.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "schema.hpp"

#ifndef THICKET_SOURCE_DIR
#error "THICKET_SOURCE_DIR (the repository's root) must be defined; CMakeLists.txt does"
#endif

namespace {

using thicket::SchemaError;
using thicket::SchemaSet;
namespace fs = std::filesystem;

const std::string kSchemaDir = std::string(THICKET_SOURCE_DIR) + "/schemas";

// The repository's brain schemas, loaded once; null (with the reason) if they do not load.
const SchemaSet* brain_schemas(std::string* why = nullptr) {
  static std::string error;
  static std::optional<SchemaSet> set = SchemaSet::load(kSchemaDir, error);
  if (why) *why = error;
  return set ? &*set : nullptr;
}

std::vector<std::string> render(const std::vector<SchemaError>& errors) {
  std::vector<std::string> out;
  for (const SchemaError& e : errors)
    out.push_back(std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Validates a brain against the schema its top-level key names.
std::vector<std::string> check_brain(const std::string& yaml) {
  const SchemaSet* set = brain_schemas();
  REQUIRE(set != nullptr);
  YAML::Node doc = YAML::Load(yaml);
  std::string file = thicket::brain_schema_file(doc);
  REQUIRE_MESSAGE(!file.empty(), "no tree/fsm/machine key in:\n" << yaml);
  std::vector<SchemaError> errors;
  set->validate(doc, file, errors);
  return render(errors);
}

// Validates `yaml` against an inline schema set; the first file is the one validated against.
std::vector<std::string> check_with(const std::map<std::string, std::string>& files, const std::string& file,
                                    const std::string& yaml) {
  std::string error;
  auto set = SchemaSet::parse(files, error);
  REQUIRE_MESSAGE(set.has_value(), error);
  std::vector<SchemaError> errors;
  set->validate(YAML::Load(yaml), file, errors);
  return render(errors);
}

std::vector<std::string> check_schema(const std::string& schema, const std::string& yaml) {
  return check_with({{"s.schema.json", schema}}, "s.schema.json", yaml);
}

std::string load_error(const std::map<std::string, std::string>& files) {
  std::string error;
  auto set = SchemaSet::parse(files, error);
  CHECK_FALSE(set.has_value());
  return error;
}

std::vector<fs::path> yaml_files_under(const fs::path& dir, bool recursive) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  auto take = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
      out.push_back(e.path());
  };
  if (recursive)
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) take(e);
  else
    for (const auto& e : fs::directory_iterator(dir, ec)) take(e);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// ---------------------------------------------------------------- the brain schemas

TEST_CASE("schema: the brain schemas load") {
  std::string why;
  const SchemaSet* set = brain_schemas(&why);
  REQUIRE_MESSAGE(set != nullptr, why);
  CHECK(set->has("tree.schema.json"));
  CHECK(set->has("fsm.schema.json"));
  CHECK(set->has("machine.schema.json"));
  CHECK_FALSE(set->has("scenario.schema.json.missing"));
}

TEST_CASE("schema: each brain schema is self-contained, documented and agrees with the others") {
  // Editors resolve "#/$defs/..." without fetching sibling files, so each file carries the
  // node definitions; this keeps the copies identical.
  std::map<std::string, YAML::Node> docs;
  for (const char* kind : {"tree", "fsm", "machine"}) {
    std::string file = kSchemaDir + "/" + kind + ".schema.json";
    YAML::Node doc = YAML::LoadFile(file);
    INFO(file);
    CHECK(doc["$schema"].as<std::string>() == "https://json-schema.org/draft/2020-12/schema");
    CHECK(doc["$id"].as<std::string>() == std::string("https://thicket.dev/schemas/") + kind + ".schema.json");
    CHECK(doc["title"].IsScalar());
    CHECK(doc["required"][0].as<std::string>() == kind);
    docs[kind] = doc;

    // Every property documents itself, so editors show help on hover.
    std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& n, const std::string& at) {
      if (n.IsSequence())
        for (size_t i = 0; i < n.size(); ++i) walk(n[i], at + "/" + std::to_string(i));
      if (!n.IsMap()) return;
      for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string key = it->first.as<std::string>();
        if (key == "properties")
          for (auto p = it->second.begin(); p != it->second.end(); ++p) {
            INFO(at << "/properties/" << p->first.as<std::string>());
            CHECK(p->second["description"].IsScalar());
          }
        walk(it->second, at + "/" + key);
      }
    };
    walk(doc, "");
  }
  int shared = 0;
  for (const auto& [kind, doc] : docs)
    for (auto it = doc["$defs"].begin(); it != doc["$defs"].end(); ++it) {
      const std::string name = it->first.as<std::string>();
      for (const auto& [other_kind, other] : docs) {
        const YAML::Node theirs = other["$defs"][name];
        if (other_kind == kind || !theirs) continue;
        const std::string& mine = kind;  // INFO captures in a lambda, which clang 14 refuses for a structured binding
        const std::string& their_kind = other_kind;
        INFO("$defs/" << name << " differs between " << mine << " and " << their_kind);
        CHECK(YAML::Dump(it->second) == YAML::Dump(theirs));
        ++shared;
      }
    }
  CHECK(shared > 30);
}

TEST_CASE("schema: every example brain validates against the schema its top-level key names") {
  std::vector<fs::path> files = yaml_files_under(fs::path(THICKET_SOURCE_DIR) / "tests" / "spec_examples", false);
  std::vector<fs::path> ours = yaml_files_under(fs::path(THICKET_SOURCE_DIR) / "scripts" / "examples", true);
  files.insert(files.end(), ours.begin(), ours.end());
  const SchemaSet* set = brain_schemas();
  REQUIRE(set != nullptr);
  int brains = 0;
  for (const fs::path& file : files) {
    YAML::Node doc = YAML::LoadFile(file.string());
    std::string schema = thicket::brain_schema_file(doc);
    if (schema.empty()) continue;  // not a brain (a scenario, say)
    std::vector<SchemaError> errors;
    set->validate(doc, schema, errors);
    INFO(file.string() << "\n" << joined(render(errors)));
    CHECK(errors.empty());
    ++brains;
  }
  CHECK(brains >= 3);  // the spec's three worked examples at least
}

TEST_CASE("schema: the spec's own examples validate") {
  CHECK(check_brain(R"(
tree: guard
leaves: [guard.lua]
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
)").empty());
  CHECK(check_brain(R"(
fsm: monster
leaves: [monster.lua]
initial: patrol
states:
  patrol: {reason: PatrolReason, act: Patrol, transitions: {saw_player: chase}}
  chase:  {reason: ChaseReason,  act: Chase,  transitions: {lost_player: patrol, in_range: attack}}
  attack: {reason: AttackReason, tree: attack_tree, transitions: {out_of_range: chase}}
)").empty());
  CHECK(check_brain(R"(
machine: minion
leaves: [minion.lua]
check_every: 1.0          # seconds between checks; omitted = every tick
behaviors:
  - {name: return_home, check: FarFromSpawn, run: ReturnHome}
  - {name: hunt,        check: PlayerNear,   run: ChaseAndAttack}
  - {name: patrol,      check: Always,       run: Patrol}
)").empty());
  CHECK(check_brain(R"(
tree: bb
root: {action: A}
blackboard:
  health: 100                  # number
  ammo: {type: integer, default: 6}
  alert: false                 # boolean
  mood: "calm"                 # string
  target: {type: any}          # any Lua value, default nil
)").empty());
}

TEST_CASE("schema: every node kind in every form is accepted") {
  CHECK(joined(check_brain(R"(
# yaml-language-server: $schema=../../schemas/tree.schema.json
tree: everything
leaves: [a.lua, lib/b.lua]
import: [common.yaml]
blackboard: {n: 1.5, i: 3, b: true, s: text, d: {type: number, default: 0.5}, e: {type: string}}
trees:
  helper: {action: Help}
  other: {sequence: [{wait: 1}]}
root:
  sequence:
    name: top
    abort: both
    children:
      - selector: [{action: A}, {action: {leaf: B, args: {x: [1, 2], y: {z: on}}, name: b}}]
      - selector: {abort: self, children: [{condition: C}]}
      - active_selector: [{condition: C}, {action: A}]
      - active_selector: {name: as, children: [{action: A}]}
      - parallel: [{action: A}, {action: B}]
      - parallel: {success: one, failure: all, children: [{action: A}]}
      - parallel: {success: 2, failure: 1, children: [{action: A}, {action: B}]}
      - monitor: [{condition: C}, {action: A}]
      - monitor: {name: m, children: [{action: A}]}
      - random_selector: [{action: A}, {action: B}]
      - random_selector: {weights: [1, 2.5], abort: none, children: [{action: A}, {action: B}]}
      - random_sequence: {weights: [0.1], children: [{action: A}]}
      - filter: {conditions: [{condition: C}], do: [{action: A}], abort: lower_priority, name: f}
      - filter: {do: [{action: A}]}
      - filter: {conditions: [{condition: C}], do: []}
      - invert: {condition: C}
      - invert: {child: {condition: C}, name: i}
      - force_success: {action: A}
      - force_failure: {child: {action: A}}
      - repeat: {action: A}
      - repeat: {times: 3, child: {action: A}}
      - until_fail: {action: A}
      - until_success: {child: {action: A}}
      - limit: {times: 1, child: {action: A}}
      - timeout: {seconds: 2.5, child: {action: A}}
      - cooldown: {seconds: 0, child: {action: A}, name: cd}
      - log: {action: A}
      - log: {message: "hello", child: {action: A}}
      - action: Some.Namespaced_leaf
      - condition: {leaf: C, negate: false, args: {}}
      - condition: {check: "health < 30 and not alert", negate: true, name: low}
      - wait: 0
      - wait: {seconds: 2.5, name: w}
      - subtree: helper
      - subtree: {tree: other, name: s}
)")) == "");
  CHECK(joined(check_brain(R"(
fsm: full
initial: a
trees:
  t: {action: T}
states:
  a:
    reason: R
    act: {leaf: Act, args: {speed: 2}}
    enter: Enter
    exit: {leaf: Exit, name: leaving}
    transitions: {go: b}
    when:
      - {check: "x > 1", go: b}
      - {condition: Ready, go: b}
      - {condition: {check: "y"}, go: a}
  b: {tree: t}
  c: {tree: {sequence: [{action: A}]}}
  d: {}
)")) == "");
  CHECK(joined(check_brain(R"(
machine: full
check_every: 0
import: [trees.yaml]
behaviors:
  - {name: a, check: {leaf: Near, args: {d: 3}, negate: true}, run: {leaf: Go, args: {}}}
  - {name: b, check: {check: "hp < 10"}, tree: flee_tree}
  - {name: c, check: Always, tree: {selector: [{action: A}]}}
)")) == "");
}

TEST_CASE("schema: bad brains report the deepest offending node at its line:col") {
  struct Case {
    const char* yaml;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"tree: t\nroot:\n  sequence:\n    chidren: [{action: A}]\n",
       {"4:5: unknown key 'chidren' in sequence parameters (allowed: abort, children, name)"}},
      {"tree: t\nroot:\n  repeat: {times: 0, child: {action: A}}\n",
       {"3:19: 'times' must be an integer >= 1, got 0"}},
      {"tree: t\nroot:\n  selector:\n    children: Patrol\n",
       {"4:15: expected a list of nodes, got text"}},
      {"tree: t\nroot:\n  sequence: Patrol\n",
       {"3:13: expected a list of nodes or sequence parameters, got text"}},
      {"tree: t\nroot:\n  selector:\n    - sequense: [{action: A}]\n",
       {"4:7: unknown key 'sequense' in node (did you mean 'sequence'?)"}},
      {"tree: t\nroot:\n  sequence:\n    abort: lowerpriority\n    children: [{action: A}]\n",
       {"4:12: 'abort' must be none, self, lower_priority or both, got 'lowerpriority' (did you mean "
        "'lower_priority'?)"}},
      {"tree: t\nroot:\n  sequence: []\n", {"3:13: 'sequence' must not be empty"}},
      {"tree: t\nroot:\n  timeout: {seconds: -0.5, child: {wait: -1}}\n",
       {"3:22: 'seconds' must be a number >= 0, got -0.5", "3:42: 'wait' must be a number >= 0, got -1"}},
      {"tree: t\nroot:\n  limit: {child: {action: A}}\n", {"3:10: missing required key 'times' in limit parameters"}},
      {"tree: t\nroot:\n  invert: {sequence: [{action: A}, {acton: B}]}\n",
       {"3:37: unknown key 'acton' in node (did you mean 'action'?)"}},
      {"tree: t\nroot:\n  random_selector:\n    weights: [1, 0]\n    children: [{action: A}, {action: B}]\n",
       {"4:18: item 2 of 'weights' must be a number > 0, got 0"}},
      {"tree: t\nroot:\n  parallel: {success: some, children: [{action: A}]}\n",
       {"3:23: 'success' must be one or all, got 'some'"}},
      {"tree: t\nroot:\n  condition: {leaf: Hungry, negate: yes}\n",
       {"3:37: expected true/false, got text ('yes' is text in YAML 1.2; write true or false)"}},
      {"tree: t\nroot: {action: A, name: a}\n",
       {"2:7: node must have exactly 1 key, got 2 (action, name)",
        "2:19: unknown key 'name' in node (allowed: action, active_selector, always, b3_inverter, b3_limiter, "
        "b3_max_time, b3_mem_priority, b3_mem_sequence, b3_priority, b3_repeat_until_failure, "
        "b3_repeat_until_success, b3_repeater, b3_sequence, b3_tree, b3_wait, bt_delay, bt_fallback, "
        "bt_force_failure, bt_force_success, bt_guard, bt_if_then_else, bt_inverter, "
        "bt_keep_running_until_failure, bt_parallel, bt_parallel_all, bt_precondition, bt_reactive_fallback, "
        "bt_reactive_sequence, bt_repeat, bt_retry, bt_run_once, bt_script, bt_sequence, bt_sequence_with_memory, bt_sleep, "
        "bt_subtree, bt_switch, bt_timeout, bt_try_catch, bt_while_do_else, condition, cooldown, filter, force_failure, "
        "force_success, invert, limit, log, monitor, parallel, random_selector, random_sequence, repeat, "
        "selector, sequence, subtree, timeout, until_fail, until_success, wait)"}},
      {"tree: t\nroot:\nstates: {}\n",
       {"2:1: expected a node, got nothing (null)",
        "3:1: unknown key 'states' in behavior tree (allowed: blackboard, import, leaves, root, tick_every, tree, trees)"}},
      {"tree: t\n", {"1:1: missing required key 'root' in behavior tree"}},
      {"tree: t\nroot:\n  repeat: {action: Shoot, times: 3}\n",
       {"3:11: missing required key 'child' in repeat parameters",
        "3:12: unknown key 'action' in repeat parameters (allowed: child, name, times)"}},
      {"tree: t\nroot:\n  filter: {}\n", {"3:11: missing at least one of 'do' or 'conditions' in filter parameters"}},
      {"tree: t\nroot: {action: A}\nblackboard:\n  2fast: 1\n  ammo: {type: float}\n  list: [1]\n",
       {"4:3: key '2fast' must be an identifier matching ^[A-Za-z_][A-Za-z0-9_]*$",
        "5:16: 'type' must be number, integer, boolean, string or any, got 'float'",
        "6:9: expected a number, true/false, text or nothing (null), or a key declaration, got a list"}},
      {"fsm: f\ninitial: a\nstates:\n  a: {act: A, tree: t}\n  b: {when: [{go: a}, {check: x, condition: C, go: b}]}\n",
       {"4:15: 'act' and 'tree' cannot be used together in state",
        "5:14: missing at least one of 'check', 'condition' or 'after' in when entry",
        "5:34: 'check' and 'condition' cannot be used together in when entry"}},
      {"fsm: f\ninitial: a\nstates: {}\n", {"3:9: 'states' must have at least 1 key, got 0"}},
      {"machine: m\ncheck_every: -1\nbehaviors:\n  - {name: a, check: X}\n  - {name: b, check: X, run: R, tree: t}\n"
       "  - {check: {leaf: X, check: \"y\"}, run: R}\n",
       {"2:14: 'check_every' must be a number >= 0, got -1", "4:5: missing one of 'run' or 'tree' in behavior",
        "5:33: only one of 'run' or 'tree' is allowed in behavior", "6:5: missing required key 'name' in behavior",
        "6:23: unknown key 'check' in leaf condition (allowed: args, leaf, name, negate)"}},
      {"machine: m\nbehaviors: []\n", {"2:12: 'behaviors' must not be empty"}},
  };
  for (const Case& c : cases) {
    INFO(c.yaml);
    CHECK(joined(check_brain(c.yaml)) == joined(c.expected));
  }
}

TEST_CASE("schema: a decorator's short form is a node, its parameter form has child") {
  // Errors deep inside the short form's child win over "missing child" at the top.
  CHECK(joined(check_brain("tree: t\nroot:\n  invert:\n    sequence: {children: [{wait: {second: 1}}]}\n")) ==
        "4:35: unknown key 'second' in wait parameters (allowed: name, seconds)\n");
  // ...and the parameter form's errors win when it has the parameter keys.
  CHECK(joined(check_brain("tree: t\nroot:\n  repeat:\n    times: 2\n    child: {acton: A}\n")) ==
        "5:13: unknown key 'acton' in node (did you mean 'action'?)\n");
  // limit, timeout and cooldown have required parameters, so no short form.
  CHECK(joined(check_brain("tree: t\nroot:\n  cooldown: {action: A}\n")) ==
        "3:13: missing required key 'child' in cooldown parameters\n"
        "3:13: missing required key 'seconds' in cooldown parameters\n"
        "3:14: unknown key 'action' in cooldown parameters (allowed: child, name, seconds)\n");
  CHECK(joined(check_brain("tree: t\nroot:\n  invert:\n")) == "3:3: expected invert parameters or a node, got nothing (null)\n");
}

TEST_CASE("schema: brain_schema_file names the schema by the top-level key") {
  CHECK(thicket::brain_schema_file(YAML::Load("tree: a\nroot: {wait: 1}")) == "tree.schema.json");
  CHECK(thicket::brain_schema_file(YAML::Load("fsm: a")) == "fsm.schema.json");
  CHECK(thicket::brain_schema_file(YAML::Load("machine: a")) == "machine.schema.json");
  CHECK(thicket::brain_schema_file(YAML::Load("tree: a\nfsm: b")) == "");
  CHECK(thicket::brain_schema_file(YAML::Load("scenario: a")) == "scenario.schema.json");
  CHECK(thicket::brain_schema_file(YAML::Load("[tree]")) == "");
  // A file naming two kinds has no schema of its own; against either, the other key is unknown.
  std::vector<SchemaError> errors;
  brain_schemas()->validate(YAML::Load("tree: t\nfsm: f\nroot: {action: A}\n"), "tree.schema.json", errors);
  CHECK(render(errors) == std::vector<std::string>{
      "2:1: unknown key 'fsm' in behavior tree (allowed: blackboard, import, leaves, root, tick_every, tree, trees)"});
}

// ---------------------------------------------------------------- the validator's keywords

TEST_CASE("schema keyword: type follows the YAML 1.2 core schema") {
  const std::string schema = R"({"properties": {
      "i": {"type": "integer"}, "n": {"type": "number"}, "s": {"type": "string"},
      "b": {"type": "boolean"}, "z": {"type": "null"}, "o": {"type": "object"}, "a": {"type": "array"},
      "either": {"type": ["integer", "string"]}}})";
  CHECK(check_schema(schema, "{i: 3, n: 3, s: x, b: true, z: ~, o: {}, a: [], either: 1}").empty());
  CHECK(check_schema(schema, "{i: 0x1F, n: 1e3, s: '1', b: False, z: null, either: text}").empty());
  CHECK(check_schema(schema, "{n: .inf, s: on}").empty());
  CHECK(check_schema(schema, "i: -0x1F") == std::vector<std::string>{"1:4: expected an integer, got text"});  // hex is unsigned
  CHECK(check_schema(schema, "i: 1.0") ==
        std::vector<std::string>{"1:4: expected an integer, got a number (1.0 is written as a number with a fraction or an "
                                 "exponent, which YAML reads as no whole number: write 1)"});
  CHECK(check_schema(schema, "i: 99999999999999999999") ==
        std::vector<std::string>{"1:4: expected an integer, got a number (99999999999999999999 is too large for a whole "
                                 "number: at most 9223372036854775807)"});
  CHECK(check_schema(schema, "i: '1'") == std::vector<std::string>{"1:4: expected an integer, got text"});
  CHECK(check_schema(schema, "s: 12") == std::vector<std::string>{"1:4: expected text, got an integer"});
  CHECK(check_schema(schema, "b: no") ==
        std::vector<std::string>{"1:4: expected true/false, got text ('no' is text in YAML 1.2; write true or false)"});
  CHECK(check_schema(schema, "z: 0") == std::vector<std::string>{"1:4: expected nothing (null), got an integer"});
  CHECK(check_schema(schema, "o: []") == std::vector<std::string>{"1:4: expected a mapping, got a list"});
  CHECK(check_schema(schema, "a: {}") == std::vector<std::string>{"1:4: expected a list, got a mapping"});
  CHECK(check_schema(schema, "either: 1.5") == std::vector<std::string>{"1:9: expected an integer or text, got a number"});
  // An empty value is reported at its key: yaml-cpp marks it where the next token starts.
  CHECK(check_schema(schema, "s:\ni: 1") == std::vector<std::string>{"1:1: expected text, got nothing (null)"});
}

TEST_CASE("schema keyword: properties, required, additionalProperties, min/maxProperties") {
  const std::string closed = R"({"title": "thing", "type": "object",
      "properties": {"alpha": {"type": "integer"}, "beta": {}}, "required": ["alpha"],
      "additionalProperties": false})";
  CHECK(check_schema(closed, "{alpha: 1, beta: [any]}").empty());
  CHECK(check_schema(closed, "{beta: 1}") == std::vector<std::string>{"1:1: missing required key 'alpha' in thing"});
  CHECK(check_schema(closed, "{alpha: 1, gamma: 2}") ==
        std::vector<std::string>{"1:12: unknown key 'gamma' in thing (allowed: alpha, beta)"});
  // A misspelt required key is reported once, as unknown.
  CHECK(check_schema(closed, "{alpah: 1}") ==
        std::vector<std::string>{"1:2: unknown key 'alpah' in thing (allowed: alpha, beta)"});

  const std::string open = R"({"properties": {"fixed": {"type": "string"}},
      "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2})";
  CHECK(check_schema(open, "{fixed: a, other: 3}").empty());
  CHECK(check_schema(open, "{other: x}") == std::vector<std::string>{"1:9: expected an integer, got text"});
  CHECK(check_schema(open, "{}") == std::vector<std::string>{"1:1: the document must have at least 1 key, got 0"});
  CHECK(check_schema(open, "{a: 1, b: 2, c: 3}") ==
        std::vector<std::string>{"1:1: the document must have at most 2 keys, got 3 (a, b, c)"});
  CHECK(check_schema(R"({"additionalProperties": true})", "{anything: [1]}").empty());
}

TEST_CASE("schema keyword: patternProperties and propertyNames") {
  const std::string schema = R"({"patternProperties": {"^n_": {"type": "number"}, "^s_": {"type": "string"}},
      "additionalProperties": false, "propertyNames": {"maxLength": 5}})";
  CHECK(check_schema(schema, "{n_a: 1, s_b: x}").empty());
  CHECK(check_schema(schema, "{n_a: x}") == std::vector<std::string>{"1:7: expected a number, got text"});
  CHECK(check_schema(schema, "{x: 1}") == std::vector<std::string>{"1:2: unknown key 'x' in the document"});
  CHECK(check_schema(schema, "{n_long: 1}") ==
        std::vector<std::string>{"1:2: key 'n_long' must be at most 5 characters long, got 6"});
  // Property names are text, as in JSON, whatever YAML would make of them.
  CHECK(check_schema(R"({"propertyNames": {"type": "string", "pattern": "^[0-9]+$"}})", "{12: a, true: b}") ==
        std::vector<std::string>{"1:9: key 'true' must be text matching ^[0-9]+$"});
}

TEST_CASE("schema keyword: items, minItems, maxItems") {
  const std::string schema = R"({"properties": {"l": {"type": "array", "items": {"type": "integer", "minimum": 0},
      "minItems": 2, "maxItems": 3}, "one": {"minItems": 1}, "none": {"items": false}}})";
  CHECK(check_schema(schema, "l: [0, 1, 2]").empty());
  CHECK(check_schema(schema, "l: [0, -1, x]") ==
        std::vector<std::string>{"1:8: item 2 of 'l' must be an integer >= 0, got -1",
                                 "1:12: expected an integer >= 0, got text"});
  CHECK(check_schema(schema, "l: [1]") == std::vector<std::string>{"1:4: 'l' must have at least 2 items, got 1"});
  CHECK(check_schema(schema, "l: [1, 2, 3, 4]") == std::vector<std::string>{"1:4: 'l' must have at most 3 items, got 4"});
  CHECK(check_schema(schema, "one: []") == std::vector<std::string>{"1:6: 'one' must not be empty"});
  CHECK(check_schema(schema, "one: text").empty());  // minItems applies to lists only
  CHECK(check_schema(schema, "none: [1]") == std::vector<std::string>{"1:8: item 1 of 'none' is not allowed here"});
}

TEST_CASE("schema keyword: enum and const") {
  const std::string schema = R"({"properties": {"e": {"enum": ["red", "green", 3, null, true, [1, 2], {"k": "v"}]},
      "c": {"const": 1.5}}})";
  for (const char* ok : {"e: red", "e: 3", "e: 3.0", "e: ~", "e: true", "e: [1, 2]", "e: {k: v}", "c: 1.5"})
    CHECK_MESSAGE(check_schema(schema, ok).empty(), ok);
  CHECK(check_schema(schema, "e: gren") ==
        std::vector<std::string>{"1:4: 'e' must be red, green, 3, null, true, a list or a mapping, got 'gren' (did you "
                                 "mean 'green'?)"});
  CHECK(check_schema(schema, "e: '3'").size() == 1);  // quoted: text, not the number 3
  CHECK(check_schema(schema, "e: [2, 1]").size() == 1);
  CHECK(check_schema(schema, "c: 2") == std::vector<std::string>{"1:4: 'c' must be 1.5, got 2"});
}

TEST_CASE("schema keyword: minimum, exclusiveMinimum, maximum, exclusiveMaximum") {
  const std::string schema = R"({"properties": {"a": {"type": "number", "minimum": 0, "maximum": 1},
      "b": {"exclusiveMinimum": 0, "exclusiveMaximum": 10}}})";
  CHECK(check_schema(schema, "{a: 0, b: 0.001}").empty());
  CHECK(check_schema(schema, "{a: 1, b: 9.99, c: -5}").empty());
  CHECK(check_schema(schema, "a: 1.01") == std::vector<std::string>{"1:4: 'a' must be a number >= 0 and <= 1, got 1.01"});
  CHECK(check_schema(schema, "b: 0") == std::vector<std::string>{"1:4: 'b' must be a number > 0 and < 10, got 0"});
  CHECK(check_schema(schema, "b: 10") == std::vector<std::string>{"1:4: 'b' must be a number > 0 and < 10, got 10"});
  // valijson, like JSON Schema, finds NaN outside no bound (the compiler refuses it).
  CHECK(check_schema(schema, "a: .nan").empty());
  CHECK(check_schema(schema, "b: text").empty());  // bounds apply to numbers only
}

TEST_CASE("schema keyword: minLength and pattern") {
  const std::string schema = R"({"properties": {"s": {"minLength": 1}, "t": {"minLength": 3},
      "id": {"title": "name", "pattern": "^[a-z]+$"}, "p": {"pattern": "b"}}})";
  CHECK(check_schema(schema, "{s: x, t: été, id: abc, p: abc}").empty());  // counted in characters
  CHECK(check_schema(schema, "s: ''") == std::vector<std::string>{"1:4: 's' must not be empty"});
  CHECK(check_schema(schema, "t: ab") == std::vector<std::string>{"1:4: 't' must be at least 3 characters long, got 2"});
  CHECK(check_schema(schema, "id: aB") == std::vector<std::string>{"1:5: 'id' must be a name matching ^[a-z]+$, got 'aB'"});
  CHECK(check_schema(schema, "p: xyz") == std::vector<std::string>{"1:4: 'p' must be text matching b, got 'xyz'"});
  CHECK(check_schema(schema, "p: 12").empty());  // pattern applies to text only
}

TEST_CASE("schema keyword: oneOf reports the branch that got furthest") {
  const std::string schema = R"({"$defs": {
      "cat": {"title": "cat", "type": "object", "properties": {"meow": {"type": "object",
              "properties": {"loud": {"type": "boolean"}}}}, "required": ["meow"], "additionalProperties": false},
      "dog": {"title": "dog", "type": "object", "properties": {"woof": {"type": "integer"}},
              "required": ["woof"], "additionalProperties": false}},
    "properties": {"pet": {"oneOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}, {"type": "string"}]}}})";
  CHECK(check_schema(schema, "pet: {meow: {loud: true}}").empty());
  CHECK(check_schema(schema, "pet: {woof: 1}").empty());
  CHECK(check_schema(schema, "pet: rex").empty());
  // The dog branch knows 'woof': its error, not the cat's.
  CHECK(check_schema(schema, "pet: {woof: x}") == std::vector<std::string>{"1:13: expected an integer, got text"});
  // The cat branch's error lies deeper.
  CHECK(check_schema(schema, "pet: {meow: {loud: 2}}") == std::vector<std::string>{"1:20: expected true/false, got an integer"});
  // No branch takes a list: say what would do.
  CHECK(check_schema(schema, "pet: [1]") ==
        std::vector<std::string>{"1:6: expected a cat, a dog or text, got a list"});
  // Both pass: ambiguous.
  CHECK(check_schema(R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})", "3") ==
        std::vector<std::string>{"1:1: the document is ambiguous: it matches an integer or a number >= 0"});
}

TEST_CASE("schema keyword: anyOf, allOf and not") {
  const std::string any = R"({"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]})";
  CHECK(check_schema(any, "3").empty());
  CHECK(check_schema(any, "ab").empty());
  CHECK(check_schema(any, "a") == std::vector<std::string>{"1:1: the document must be at least 2 characters long, got 1"});
  const std::string all = R"({"allOf": [{"minimum": 1}, {"maximum": 5}]})";
  CHECK(check_schema(all, "3").empty());
  CHECK(check_schema(all, "6") == std::vector<std::string>{"1:1: the document must be a number <= 5, got 6"});
  CHECK(check_schema(R"({"not": {"type": "string"}})", "x") ==
        std::vector<std::string>{"1:1: the document must not be text"});
  const std::string exclusive = R"({"title": "state", "not": {"required": ["act", "tree"]}})";
  CHECK(check_schema(exclusive, "{act: a}").empty());
  CHECK(check_schema(exclusive, "{tree: t, act: a}") ==
        std::vector<std::string>{"1:11: 'tree' and 'act' cannot be used together in state"});
  CHECK(check_schema(R"({"title": "leaf", "not": {"required": ["children"]}})", "{leaf: a, children: []}") ==
        std::vector<std::string>{"1:11: 'children' is not allowed in leaf"});
  const std::string choice = R"({"title": "entry", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})";
  CHECK(check_schema(choice, "{a: 1, b: 2}").empty());
  CHECK(check_schema(choice, "{c: 1}") == std::vector<std::string>{"1:1: missing at least one of 'a' or 'b' in entry"});
}

TEST_CASE("schema keyword: $ref within a file, to a sibling file and by $id") {
  const std::map<std::string, std::string> files = {
      {"main.schema.json", R"({"$id": "https://example.test/s/main.schema.json", "properties": {
          "local": {"$ref": "#/$defs/positive"},
          "sibling": {"$ref": "common.schema.json#/$defs/word"},
          "dotted": {"$ref": "./common.schema.json#/$defs/word"},
          "absolute": {"$ref": "https://example.test/s/common.schema.json#/$defs/word"},
          "whole": {"$ref": "common.schema.json"},
          "escaped": {"$ref": "#/$defs/a~1b"}},
        "$defs": {"positive": {"type": "number", "exclusiveMinimum": 0}, "a/b": {"const": 1}}})"},
      {"common.schema.json", R"({"$id": "https://example.test/s/common.schema.json", "type": "object",
          "$defs": {"word": {"type": "string", "pattern": "^\\w+$"}}})"},
  };
  CHECK(check_with(files, "main.schema.json", "{local: 1, sibling: a, dotted: b, absolute: c, whole: {}, escaped: 1}").empty());
  CHECK(check_with(files, "main.schema.json", "local: 0") == std::vector<std::string>{"1:8: 'local' must be a number > 0, got 0"});
  CHECK(check_with(files, "main.schema.json", "sibling: a b").size() == 1);
  CHECK(check_with(files, "main.schema.json", "absolute: 3") == std::vector<std::string>{"1:11: expected text, got an integer"});
  CHECK(check_with(files, "main.schema.json", "whole: []") == std::vector<std::string>{"1:8: expected a mapping, got a list"});
  CHECK(check_with(files, "main.schema.json", "escaped: 2").size() == 1);
  CHECK(check_with(files, "common.schema.json", "{}").empty());
}

TEST_CASE("schema keyword: what no brain schema uses is checked by valijson, in its words") {
  const std::string schema = R"({"properties": {"u": {"uniqueItems": true}, "m": {"multipleOf": 3}}})";
  CHECK(check_schema(schema, "{u: [1, 2], m: 9}").empty());
  CHECK(check_schema(schema, "u: [1, 1]") ==
        std::vector<std::string>{"1:4: 'u': Elements at indexes #0 and #1 violate uniqueness constraint."});
  CHECK(check_schema(schema, "m: 4") == std::vector<std::string>{"1:4: 'm': Value should be a multiple of 3"});
}

TEST_CASE("schema keyword: boolean schemas and ignored annotations") {
  CHECK(check_schema("true", "[anything]").empty());
  CHECK(check_schema("false", "1") == std::vector<std::string>{"1:1: the document is not allowed here"});
  CHECK(check_schema(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "title": "t",
      "description": "d", "default": 1, "examples": [1], "$comment": "c", "deprecated": false,
      "markdownDescription": "m"})", "anything").empty());
}

TEST_CASE("schema: a $ref cycle that never descends is a load error, not followed forever") {
  std::string error = load_error({{"s.schema.json", R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
      "$ref": "#/$defs/a"})"}});
  CHECK(error.find("s.schema.json: $ref '#/$defs/") != std::string::npos);
  CHECK(error.find("(a $ref cycle)") != std::string::npos);
}

TEST_CASE("schema: a $ref cycle across files is a load error too (issue 31), not a crash") {
  std::string error = load_error({{"a.schema.json", R"({"$ref": "b.schema.json"})"},
                                  {"b.schema.json", R"({"$ref": "a.schema.json#/$defs/x", "$defs": {}})"},
                                  {"c.schema.json", R"({"$defs": {"x": {"$ref": "d.schema.json"}}, "$ref": "#/$defs/x"})"},
                                  {"d.schema.json", R"({"$ref": "c.schema.json"})"}});
  CHECK(error.find("(a $ref cycle)") != std::string::npos);
}

TEST_CASE("schema: deep documents are checked to 320 levels, then reported, never overflowing the stack") {
  const std::string nested = R"({"$defs": {"n": {"anyOf": [{"type": "integer"},
      {"type": "array", "items": {"$ref": "#/$defs/n"}}]}}, "$ref": "#/$defs/n"})";
  auto lists = [](int depth) {
    std::string doc = "0";
    for (int i = 0; i < depth; ++i) doc = "[" + doc + "]";
    return doc;
  };
  CHECK(check_schema(nested, lists(320)).empty());
  CHECK(check_schema(nested, lists(400)) ==
        std::vector<std::string>{"1:322: nested more than 320 levels deep; not checked further"});
  // A tree as deep as the loader allows (256 levels) is checked whole: check and run agree
  // (at 128 levels the schema stopped, and check refused what run loaded).
  std::string tree = "{action: A}";
  for (int i = 0; i < 250; ++i) tree = "{invert: " + tree + "}";
  CHECK(check_brain("tree: deep\nroot: " + tree + "\n").empty());
}

TEST_CASE("schema: load reports broken schemas") {
  // Unreadable JSON and bad patterns in every file, before valijson sees any of them.
  std::string error = load_error({{"a.schema.json", R"({"pattern": "(", "properties": {"x": {"type": "string"}}})"},
                                  {"b.schema.json", "{\"unterminated\": "}});
  for (const char* expected : {"a.schema.json: bad pattern '('", "b.schema.json: [json.exception.parse_error"}) {
    INFO(error);
    CHECK(error.find(expected) != std::string::npos);
  }
  // Then what valijson refuses, with its words, after the file's name.
  for (const char* schema : {R"({"type": "strng"})", R"({"minItems": -1})",
                             R"({"properties": {"x": {"$ref": "#/$defs/missing"}}})",
                             R"({"properties": {"y": {"$ref": "other.schema.json#/x"}}})"}) {
    std::string why = load_error({{"a.schema.json", schema}});
    INFO(schema << " -> " << why);
    CHECK(why.rfind("a.schema.json: ", 0) == 0);
  }
  std::string missing;
  CHECK_FALSE(SchemaSet::load("/nonexistent/thicket/schemas", missing).has_value());
  CHECK(missing.find("/nonexistent/thicket/schemas") != std::string::npos);
  std::vector<SchemaError> errors;
  brain_schemas()->validate(YAML::Load("x: 1"), "nope.schema.json", errors);
  CHECK(render(errors) == std::vector<std::string>{"1:1: no schema 'nope.schema.json' is loaded"});
}

TEST_CASE("schema: every error of a document is reported, in document order") {
  std::vector<std::string> errors = check_brain(R"(
tree: t
root:
  sequence:
    - wait: -1
    - action: 5
    - repeat: {times: 1.5, child: {action: A}}
    - log: {message: [3], child: {subtree: {tree: 7}}}
)");
  CHECK(joined(errors) ==
        "5:13: 'wait' must be a number >= 0, got -1\n"
        "6:15: expected a leaf name or a leaf call, got an integer\n"
        "7:23: expected an integer >= 1, got a number\n"
        "8:22: expected a number, true/false or text, got a list\n"
        "8:51: expected a tree name, got an integer\n");
}

TEST_CASE("schema: a blackboard key declared with nothing (`key:` or `key: null`) is an any key, as the loader has it") {
  CHECK(check_brain("tree: t\nroot: {action: A}\nblackboard: {target: null, other: , n: 1}\n").empty());
  CHECK(check_brain("fsm: f\ninitial: a\nstates:\n  a: {act: A}\nblackboard: {plan: null}\n").empty());
}

TEST_CASE("schema: a node name or log message given as a number or true/false is its text, as the loader has it") {
  CHECK(check_brain("tree: t\nroot:\n  log: {message: 5, name: 7, child: {wait: {seconds: 1, name: true}}}\n").empty());
  CHECK(check_brain("fsm: f\ninitial: a\nstates:\n  a: {tree: {log: {message: 2.5, name: 4, child: {action: A}}}}\n").empty());
  // Not lists or mappings: those are no text.
  CHECK(joined(check_brain("tree: t\nroot:\n  log: {message: [1], child: {action: A}}\n")) ==
        "3:18: expected a number, true/false or text, got a list\n");
}

TEST_CASE("schema: a name of 100,000 characters is checked as a short one is (std::regex recursed per character)") {
  // std::regex matched the name patterns one stack frame per character: some 30,000
  // characters overflowed the stack (SIGSEGV) in thicket check.
  const std::string name(100000, 'P');
  // (A key this long must be an explicit one, `? KEY`: YAML's implicit keys end at 1024.)
  CHECK(check_brain("tree: t\nblackboard:\n  ? " + name + "\n  : 1\nroot: {action: " + name + "}\n").empty());
  // A character the key pattern refuses, far past the part matched in full, is still refused.
  for (const char* tail : {"-x", ".x"}) {
    const auto bad = check_brain("tree: t\nblackboard:\n  ? " + name + tail + "\n  : 1\nroot: {action: A}\n");
    REQUIRE(bad.size() == 1);
    CHECK_MESSAGE(bad[0].find(" must be ") != std::string::npos, bad[0].substr(0, 80));
  }
  CHECK(check_brain("tree: t\nblackboard:\n  ? " + name + "_x\n  : 1\nroot: {action: A}\n").empty());
  CHECK(thicket::pattern_safe(name).size() == thicket::kPatternSafeLength);
  CHECK(thicket::pattern_safe(name + "-x") == name.substr(0, thicket::kPatternSafeLength) + "-");
}

TEST_CASE("schema: an empty args, an empty state and any leaf name are accepted, as the loader reads them") {
  // `args:` with nothing after it is no arguments; `rest:` alone an empty state. The loader ran
  // both; thicket check refused them ("expected leaf arguments, got nothing (null)").
  CHECK(check_brain("tree: t\nroot:\n  action:\n    leaf: Patrol\n    args:\n").empty());
  CHECK(check_brain("fsm: f\ninitial: a\nstates:\n  a: {act: {leaf: Patrol, args: }, transitions: {tired: rest}}\n  rest:\n").empty());
  CHECK(check_brain("machine: m\nbehaviors:\n  - {name: b, check: C, run: {leaf: R, args: }}\n").empty());
  // A leaf is named as its file's table names it: L["Run-Away"] too (the loader took it; the
  // schema asked for an identifier).
  CHECK(check_brain("tree: t\nroot:\n  action: Run-Away\n").empty());
  // The body rules still hold for a state with keys.
  CHECK(joined(check_brain("fsm: f\ninitial: a\nstates:\n  a: {act: A, tree: t}\n")) ==
        "4:15: 'act' and 'tree' cannot be used together in state\n");
}

TEST_CASE("schema: a scenario's seed, ticks, dt and world size have the loader's maxima") {
  const std::string rest = "world: {size: [100, 100]}\nteams: [a]\n"
                           "groups: [{name: g, team: a, brain: b.yaml, spawn: {centre: [5, 5], radius: 1}}]\n";
  CHECK(check_brain("scenario: s\nseed: 9223372036854775807\nticks: 9223372036854775807\ndt: 1000000\n" + rest).empty());
  CHECK(joined(check_brain("scenario: s\ndt: 1000001\n" + rest)) == "2:5: 'dt' must be a number > 0 and <= 1000000, got 1000001\n");
  const auto big = check_brain("scenario: s\nteams: [a]\nworld: {size: [2000000000, 5]}\n"
                               "groups: [{name: g, team: a, brain: b.yaml, spawn: {centre: [5, 5], radius: 1}}]\n");
  CHECK(joined(big) == "3:16: item 1 of 'size' must be a number > 0 and <= 1000000000, got 2000000000\n");
}
