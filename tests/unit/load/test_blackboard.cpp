// The blackboard (SPEC 6): declared, typed keys with defaults; `agent.bb.key` from Lua with type
// checks and errors naming the key and the declared keys; Runtime::get / set and LeafContext's
// get / set from C++; one blackboard per agent; per-agent overrides at spawn.
#include <cmath>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include <unistd.h>

#include "thicket/runtime.hpp"

namespace fs = std::filesystem;
using thicket::Status;
using thicket::Value;

namespace {

class BbDir {
 public:
  BbDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("thicket_test_bb_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~BbDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// Log lines; a type of its own so doctest prints it when a comparison fails.
struct Lines : std::vector<std::string> {
  using std::vector<std::string>::vector;
  Lines(std::vector<std::string> v) : std::vector<std::string>(std::move(v)) {}
  friend std::ostream& operator<<(std::ostream& os, const Lines& l) {
    os << "{";
    for (size_t i = 0; i < l.size(); ++i) os << (i ? ", " : "") << '"' << l[i] << '"';
    return os << "}";
  }
};

const char* kLeaves = R"LUA(
local thicket = require("thicket")
local L = {}
local function d(v)
  if math.type(v) == "integer" then return "integer:" .. tostring(v) end
  if type(v) == "number" then return string.format("number:%g", v) end
  if type(v) == "table" then return "table:" .. tostring(v.name) end
  return type(v) .. ":" .. tostring(v)
end
function L.Read(agent, args)
  local bb = agent.bb
  thicket.log(string.format("@%d health=%s ammo=%s alert=%s mood=%s target=%s", agent.id, d(bb.health),
                            d(bb.ammo), d(bb.alert), d(bb.mood), d(bb.target)))
  return true
end
function L.Write(agent, args)
  local bb = agent.bb
  bb.health = bb.health - 10
  bb.ammo = bb.ammo + 1
  bb.alert = not bb.alert
  bb.mood = bb.mood .. "!"
  bb.target = { name = "orc" }
  return true
end
function L.TryWrites(agent, args)
  local function try(key, value, shown)
    local ok, err = pcall(function() agent.bb[key] = value end)
    thicket.log("@" .. key .. "=" .. shown .. " " .. (ok and "ok" or ("error " .. tostring(err))))
  end
  try("health", "lots", "'lots'")
  try("health", 5, "5")
  try("health", 2.5, "2.5")
  try("ammo", 2.5, "2.5")
  try("ammo", "3", "'3'")
  try("ammo", 4, "4")
  try("alert", 1, "1")
  try("alert", nil, "nil")
  try("alert", true, "true")
  try("mood", 5, "5")
  try("mood", false, "false")
  try("mood", "angry", "'angry'")
  try("target", 5, "5")
  try("target", "x", "'x'")
  try("target", nil, "nil")
  try("nope", 1, "1")
  local ok, err = pcall(function() return agent.bb.nope end)
  thicket.log("@read nope " .. (ok and "ok" or ("error " .. tostring(err))))
  return true
end
function L.Unprotected(agent, args)
  return agent.bb.helth > 0
end
function L.SetTarget(agent, args)
  agent.bb.target = args.value
  return true
end
return L
)LUA";

const char* kBrain = R"(
tree: bb
leaves: [bb.lua]
blackboard:
  health: 100
  ammo: {type: integer, default: 6}
  alert: false
  mood: "calm"
  target: {type: any}
root:
  ROOT
)";

class BbRt {
 public:
  BbRt() : rt(thicket::RuntimeOptions{.seed = 1, .log = [this](const std::string& l) { log.push_back(l); }}) {
    std::ofstream(dir.path / "bb.lua") << kLeaves;
  }
  // Loads kBrain with `root` as its root node; a bare leaf name stands for `action: NAME`.
  thicket::BrainHandle load(const std::string& root) {
    std::string yaml = kBrain;
    yaml.replace(yaml.find("ROOT"), 4, root.find(':') == std::string::npos ? "action: " + root : root);
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(yaml, (dir.path / ("brain" + std::to_string(++loads) + ".yaml")).string(), d);
    std::string all;
    for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
    INFO(all);
    REQUIRE(b.has_value());
    return *b;
  }
  Lines marks() {
    Lines out;
    for (const auto& l : log) {
      size_t at = l.find('@');
      if (at != std::string::npos) out.push_back(l.substr(at + 1));
    }
    log.clear();
    return out;
  }
  BbDir dir;
  std::vector<std::string> log;
  int loads = 0;
  thicket::Runtime rt;
};


bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("blackboard: declared keys start from their typed defaults, in Lua and in C++") {
  BbRt t;
  auto b = t.load("Read");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.get(a, "health") == std::optional<Value>(100.0));
  CHECK(t.rt.get(a, "ammo") == std::optional<Value>(int64_t{6}));
  CHECK(t.rt.get(a, "alert") == std::optional<Value>(false));
  CHECK(t.rt.get(a, "mood") == std::optional<Value>(std::string("calm")));
  CHECK(t.rt.get(a, "target") == std::optional<Value>(std::monostate{}));
  CHECK_FALSE(t.rt.get(a, "nope").has_value());
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.marks() == Lines{"1 health=number:100 ammo=integer:6 alert=boolean:false mood=string:calm target=nil:nil"});
}

TEST_CASE("blackboard: Lua writes are seen by later reads and by C++") {
  BbRt t;
  auto w = t.load("Write");
  auto a = t.rt.spawn(w);
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.rt.script_errors() == 0);
  CHECK(t.rt.get(a, "health") == std::optional<Value>(90.0));
  CHECK(t.rt.get(a, "ammo") == std::optional<Value>(int64_t{7}));
  CHECK(t.rt.get(a, "alert") == std::optional<Value>(true));
  CHECK(t.rt.get(a, "mood") == std::optional<Value>(std::string("calm!")));
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.rt.get(a, "health") == std::optional<Value>(80.0));
  CHECK(t.rt.get(a, "ammo") == std::optional<Value>(int64_t{8}));
  CHECK(t.rt.get(a, "alert") == std::optional<Value>(false));
  CHECK(t.rt.get(a, "mood") == std::optional<Value>(std::string("calm!!")));
}

TEST_CASE("blackboard: an `any` key holds any Lua value, nil by default") {
  BbRt t;
  auto b = t.load("action: {leaf: SetTarget, args: {value: goblin}}");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.get(a, "target") == std::optional<Value>(std::monostate{}));
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.rt.get(a, "target") == std::optional<Value>(std::string("goblin")));
  CHECK(t.rt.set(a, "target", Value(int64_t{3})));
  CHECK(t.rt.get(a, "target") == std::optional<Value>(int64_t{3}));
  CHECK(t.rt.set(a, "target", Value(std::monostate{})));
  CHECK(t.rt.get(a, "target") == std::optional<Value>(std::monostate{}));

  // A table written by one leaf is read back by the next, and on later ticks.
  auto wr = t.load("sequence: [ {action: Read}, {action: Write}, {action: Read} ]");
  auto a2 = t.rt.spawn(wr);
  t.rt.tick(a2, 0.5);
  t.rt.tick(a2, 0.5);
  CHECK(t.rt.script_errors() == 0);
  CHECK(t.marks() == Lines{"2 health=number:100 ammo=integer:6 alert=boolean:false mood=string:calm target=nil:nil",
                           "2 health=number:90 ammo=integer:7 alert=boolean:true mood=string:calm! target=table:orc",
                           "2 health=number:90 ammo=integer:7 alert=boolean:true mood=string:calm! target=table:orc",
                           "2 health=number:80 ammo=integer:8 alert=boolean:false mood=string:calm!! target=table:orc"});
}

TEST_CASE("blackboard: Lua writes are type-checked; errors name the key; undeclared keys name the declared keys") {
  BbRt t;
  auto b = t.load("TryWrites");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  auto m = t.marks();
  REQUIRE(m.size() == 17);
  auto ok = [&](size_t i, const std::string& what) {
    INFO(m[i]);
    CHECK(m[i] == what + " ok");
  };
  auto wrong = [&](size_t i, const std::string& what, const std::string& key) {
    INFO(m[i]);
    CHECK(m[i].rfind(what + " error ", 0) == 0);
    CHECK(contains(m[i].substr(what.size()), key));  // the message names the key
  };
  wrong(0, "health='lots'", "health");
  ok(1, "health=5");
  ok(2, "health=2.5");
  wrong(3, "ammo=2.5", "ammo");
  wrong(4, "ammo='3'", "ammo");
  ok(5, "ammo=4");
  wrong(6, "alert=1", "alert");
  wrong(7, "alert=nil", "alert");
  ok(8, "alert=true");
  wrong(9, "mood=5", "mood");
  wrong(10, "mood=false", "mood");
  ok(11, "mood='angry'");
  ok(12, "target=5");
  ok(13, "target='x'");
  ok(14, "target=nil");
  // Undeclared keys, written and read: the error names the key and every declared key.
  for (size_t i : {size_t{15}, size_t{16}}) {
    INFO(m[i]);
    CHECK(contains(m[i], "error"));
    CHECK(contains(m[i], "nope"));
    for (const char* k : {"health", "ammo", "alert", "mood", "target"}) CHECK(contains(m[i], k));
  }
  CHECK(m[16].rfind("read nope error", 0) == 0);
  // The successful writes stuck; the failed ones changed nothing.
  CHECK(t.rt.get(a, "health") == std::optional<Value>(2.5));
  CHECK(t.rt.get(a, "ammo") == std::optional<Value>(int64_t{4}));
  CHECK(t.rt.get(a, "alert") == std::optional<Value>(true));
  CHECK(t.rt.get(a, "mood") == std::optional<Value>(std::string("angry")));
  CHECK(t.rt.get(a, "target") == std::optional<Value>(std::monostate{}));
  CHECK(t.rt.script_errors() == 0);  // every error above was caught by pcall
}

TEST_CASE("blackboard: an uncaught blackboard error is a script error naming the key and the declared keys") {
  BbRt t;
  auto b = t.load("Unprotected");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.tick(a, 0.5) == Status::Failure);
  CHECK(t.rt.script_errors() == 1);
  std::string all;
  for (const auto& l : t.log) all += l + "\n";
  INFO(all);
  CHECK(contains(all, "helth"));
  for (const char* k : {"health", "ammo", "alert", "mood", "target"}) CHECK(contains(all, k));
  CHECK(contains(all, "bb.lua:"));
}

TEST_CASE("blackboard: C++ Runtime::set writes typed values Lua reads; wrong types and undeclared keys are refused") {
  BbRt t;
  auto b = t.load("Read");
  auto a = t.rt.spawn(b);
  CHECK(t.rt.set(a, "health", Value(42.5)));
  CHECK(t.rt.set(a, "ammo", Value(int64_t{12})));
  CHECK(t.rt.set(a, "alert", Value(true)));
  CHECK(t.rt.set(a, "mood", Value(std::string("zen"))));
  CHECK(t.rt.set(a, "target", Value(std::string("orc"))));
  CHECK_FALSE(t.rt.set(a, "nope", Value(1.0)));
  CHECK_FALSE(t.rt.get(a, "nope").has_value());
  CHECK_FALSE(t.rt.set(a, "health", Value(std::string("lots"))));
  CHECK_FALSE(t.rt.set(a, "ammo", Value(std::string("3"))));
  CHECK_FALSE(t.rt.set(a, "alert", Value(std::string("yes"))));
  CHECK_FALSE(t.rt.set(a, "mood", Value(false)));
  CHECK(t.rt.get(a, "health") == std::optional<Value>(42.5));
  CHECK(t.rt.get(a, "mood") == std::optional<Value>(std::string("zen")));
  CHECK(t.rt.tick(a, 0.5) == Status::Success);
  CHECK(t.marks() == Lines{"1 health=number:42.5 ammo=integer:12 alert=boolean:true mood=string:zen target=string:orc"});
}

TEST_CASE("blackboard: each agent has its own blackboard") {
  BbRt t;
  auto w = t.load("Write");
  auto a1 = t.rt.spawn(w);
  auto a2 = t.rt.spawn(w);
  t.rt.tick(a1, 0.5);
  t.rt.tick(a1, 0.5);
  t.rt.tick(a2, 0.5);
  CHECK(t.rt.get(a1, "health") == std::optional<Value>(80.0));
  CHECK(t.rt.get(a2, "health") == std::optional<Value>(90.0));
  CHECK(t.rt.get(a1, "mood") == std::optional<Value>(std::string("calm!!")));
  CHECK(t.rt.get(a2, "mood") == std::optional<Value>(std::string("calm!")));
  CHECK(t.rt.set(a2, "ammo", Value(int64_t{100})));
  CHECK(t.rt.get(a1, "ammo") == std::optional<Value>(int64_t{8}));
  // A new agent starts from the declared defaults, not from another agent's values.
  auto a3 = t.rt.spawn(w);
  CHECK(t.rt.get(a3, "health") == std::optional<Value>(100.0));
  CHECK(t.rt.get(a3, "ammo") == std::optional<Value>(int64_t{6}));
}

TEST_CASE("blackboard: spawn overrides defaults per agent") {
  BbRt t;
  auto b = t.load("Read");
  auto a1 = t.rt.spawn(b, {{"health", Value(50.0)}, {"mood", Value(std::string("grim"))}, {"ammo", Value(int64_t{1})}});
  auto a2 = t.rt.spawn(b);
  CHECK(t.rt.get(a1, "health") == std::optional<Value>(50.0));
  CHECK(t.rt.get(a1, "mood") == std::optional<Value>(std::string("grim")));
  CHECK(t.rt.get(a2, "health") == std::optional<Value>(100.0));
  t.rt.tick(a1, 0.5);
  t.rt.tick(a2, 0.5);
  CHECK(t.marks() == Lines{"1 health=number:50 ammo=integer:1 alert=boolean:false mood=string:grim target=nil:nil",
                           "2 health=number:100 ammo=integer:6 alert=boolean:false mood=string:calm target=nil:nil"});
}

TEST_CASE("blackboard: native leaves read and write it through LeafContext") {
  thicket::Runtime rt(thicket::RuntimeOptions{.log = [](const std::string&) {}});
  std::vector<std::string> seen;
  rt.register_leaf("Bump", thicket::NativeLeaf{.tick =
                                                   [&](thicket::LeafContext& c) {
                                                     Value v;
                                                     REQUIRE(c.get("health", v));
                                                     double h = std::get<double>(v);
                                                     CHECK(c.set("health", Value(h + 1)));
                                                     CHECK_FALSE(c.set("health", Value(std::string("x"))));
                                                     CHECK_FALSE(c.set("nope", Value(1.0)));
                                                     Value n;
                                                     CHECK_FALSE(c.get("nope", n));
                                                     REQUIRE(c.get("mood", v));
                                                     seen.push_back(std::get<std::string>(v));
                                                     CHECK(c.set("mood", Value(std::string("busy"))));
                                                     return Status::Success;
                                                   },
                                               .start = {},
                                               .stop = {}});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(R"(
tree: native
blackboard:
  health: 10
  mood: calm
root:
  action: Bump
)",
                          "native_bb.yaml", d);
  REQUIRE(b.has_value());
  auto a = rt.spawn(*b, {{"health", Value(20.0)}});
  CHECK(rt.tick(a, 0.5) == Status::Success);
  CHECK(rt.tick(a, 0.5) == Status::Success);
  CHECK(rt.get(a, "health") == std::optional<Value>(22.0));
  CHECK(seen == std::vector<std::string>{"calm", "busy"});
}

TEST_CASE("blackboard: set_number / get_number by slot from the game loop") {
  thicket::Runtime rt;
  rt.register_leaf("Idle", thicket::NativeLeaf{.tick = [](thicket::LeafContext&) { return thicket::Status::Running; }, .start = {}, .stop = {}});
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string("tree: t\nblackboard: {phase: 0, name: \"x\"}\nroot: {action: Idle}\n", "t.yaml", d);
  REQUIRE(b);
  auto a = rt.spawn(*b);
  auto phase = rt.blackboard_slot(*b, "phase"), name = rt.blackboard_slot(*b, "name");
  REQUIRE(phase);
  REQUIRE(name);
  // blackboard_keys lists the keys in slot order (a debugger's list).
  auto keys = rt.blackboard_keys(*b);
  REQUIRE(keys.size() == 2);
  CHECK(keys[*phase] == "phase");
  CHECK(keys[*name] == "name");
  CHECK(rt.blackboard_keys(thicket::BrainHandle{}).empty());
  // blackboard_type: a declared key's type (nullopt for an undeclared key or a bad handle), and
  // value_fits: what Runtime::set takes for that type (the Python module and a scenario's
  // signals check values with it before they reach an agent).
  CHECK(rt.blackboard_type(*b, "phase") == thicket::ValueType::Number);
  CHECK(rt.blackboard_type(*b, "name") == thicket::ValueType::String);
  CHECK_FALSE(rt.blackboard_type(*b, "nope"));
  CHECK_FALSE(rt.blackboard_type(thicket::BrainHandle{}, "phase"));
  CHECK(thicket::value_fits(thicket::ValueType::Number, thicket::Value{int64_t{3}}));
  CHECK_FALSE(thicket::value_fits(thicket::ValueType::Integer, thicket::Value{3.0}));
  CHECK_FALSE(thicket::value_fits(thicket::ValueType::Boolean, thicket::Value{int64_t{1}}));
  CHECK(thicket::value_fits(thicket::ValueType::Any, thicket::Value{}));
  CHECK_FALSE(thicket::value_fits(thicket::ValueType::String, thicket::Value{}));
  CHECK_FALSE(rt.set(a, "name", thicket::Value{1.0}));  // set refuses what value_fits refuses
  CHECK(rt.set(a, "phase", thicket::Value{int64_t{2}}));
  CHECK(std::get<double>(*rt.get(a, "phase")) == 2.0);
  CHECK(rt.brain_of(a).index == b->index);  // the agent's brain, e.g. to list its keys
  CHECK(rt.set_number(a, *phase, 7.5));
  CHECK(rt.get_number(a, *phase) == 7.5);
  CHECK(std::get<double>(*rt.get(a, "phase")) == 7.5);
  CHECK_FALSE(rt.set_number(a, *name, 1.0));  // not a number key
  CHECK(std::isnan(rt.get_number(a, *name)));
  CHECK_FALSE(rt.set_number(a, 99, 1.0));
  rt.despawn(a);
  CHECK_FALSE(rt.set_number(a, *phase, 1.0));  // a stale handle
  CHECK_FALSE(rt.brain_of(a).valid());
}

TEST_CASE("blackboard: a key whose declaration has an error is reported once, not again where it is used") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_string(R"(tree: t
blackboard:
  a: {type: integer, default: 2.5}
  b: {type: intger}
  c: [1]
  d: {default: 1}
root:
  sequence:
    - condition: {check: "a > 1 and b > 1 and c > 1 and d > 1"}
    - condition: {check: "e > 1"}
)",
                          "t.yaml", d);
  CHECK_FALSE(b);
  std::string all;
  for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
  CHECK(all ==
        "t.yaml:3:31: error: the default of 'a' must be an integer, got a number\n"
        "t.yaml:4:13: error: unknown type 'intger' for 'b'; did you mean 'integer'? (types: number, integer, boolean, "
        "string, any)\n"
        "t.yaml:5:6: error: the default of 'c' must be a number, true/false or text, or {type: ..., default: ...}; got a "
        "list\n"
        "t.yaml:6:6: error: the declaration of 'd' needs a type: {type: number|integer|boolean|string|any, default: ...}\n"
        "t.yaml:10:27: error: in check expression: unknown blackboard key 'e'; declared keys: a, b, c, d\n");
}
