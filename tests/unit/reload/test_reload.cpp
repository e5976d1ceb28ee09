// Hot reload (SPEC 10) through the C++ API: files change at known ticks, deterministically.
#include <doctest/doctest.h>
#include <fcntl.h>     // open: a save in two writes
#include <sys/stat.h>  // mkfifo
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace fs = std::filesystem;
using thicket::Status;

namespace {

// A scratch folder of brain files; each write moves the file's mtime forward so the
// change is seen even within the file system's timestamp granularity.
struct Scratch {
  fs::path dir;
  Scratch() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("thicket_reload_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) {
    fs::path p = dir / name;
    bool existed = fs::exists(p);
    auto before = existed ? fs::last_write_time(p) : fs::file_time_type{};
    std::ofstream(p, std::ios::trunc) << text;
    if (existed) fs::last_write_time(p, before + std::chrono::seconds(2));
    return p.string();
  }
};

struct Run {
  std::string log, out;
  thicket::Runtime rt{thicket::RuntimeOptions{.seed = 1, .log = [this](const std::string& l) { log += l + "\n"; }}};
};

// One agent of brain.yaml (text `brain`) with leaves.lua (text `leaves`), its prints kept in
// `out`, each ended by ';'; reload(text) saves a new version and reloads it.
struct Printing {
  Scratch s;
  Run r;
  std::string out;
  thicket::AgentHandle a;
  Printing(const std::string& leaves, const std::string& brain) : Printing({{"leaves.lua", leaves}}, brain) {}
  // Other files first (imported brains, more leaf files), then brain.yaml.
  Printing(const std::vector<std::pair<std::string, std::string>>& files, const std::string& brain) {
    for (const auto& [name, text] : files) s.write(name, text);
    r.rt.on_print([this](const std::string& line) { out += line + ";"; });
    std::vector<thicket::Diagnostic> d;
    auto b = r.rt.load_file(s.write("brain.yaml", brain), d);
    REQUIRE(b);
    a = r.rt.spawn(*b);
  }
  void reload(const std::string& brain) {
    s.write("brain.yaml", brain);
    REQUIRE(r.rt.reload_changed() == 1);
  }
};

const char* kLeaves = R"(
local thicket = require("thicket")
local L = {}
function L.Say(agent, args) print(thicket.tick() .. " v1 " .. args.id) return thicket.SUCCESS end
L.Work = {
  start = function(agent, args, mem) mem.n = 0; agent.bb.log = agent.bb.log .. "start " .. args.id .. ";" end,
  tick = function(agent, args, mem) mem.n = mem.n + 1; agent.bb.count = mem.n; return thicket.RUNNING end,
  stop = function(agent, args, mem, status) agent.bb.log = agent.bb.log .. "stop " .. args.id .. " " .. status .. ";" end,
}
return L
)";

const char* kTree = R"(
tree: reload
leaves: [leaves.lua]
blackboard:
  count: 0
  log: ""
root:
  sequence:
    - action: {leaf: Say, args: {id: a}}
    - action: {leaf: Work, args: {id: w}, name: work}
)";

std::string get_string(thicket::Runtime& rt, thicket::AgentHandle a, const std::string& key) {
  auto v = rt.get(a, key);
  REQUIRE(v);
  return std::get<std::string>(*v);
}
double get_number(thicket::Runtime& rt, thicket::AgentHandle a, const std::string& key) {
  auto v = rt.get(a, key);
  REQUIRE(v);
  return std::get<double>(*v);
}

// Loads `brain` into r's runtime and spawns one agent of it; its Lua print lines go to `out`.
thicket::AgentHandle spawn_printing(Run& r, const std::string& brain, std::string& out) {
  r.rt.on_print([&out](const std::string& line) { out += line + "\n"; });
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  return r.rt.spawn(*b);
}

// The set-up most tests here start from: kLeaves and kTree written to a scratch folder, the
// brain loaded (b) and one agent spawned (a), not yet ticked.
// kLeaves with `lines` added before its `return L`.
std::string leaves_with(const std::string& lines) {
  std::string text = kLeaves;
  text.replace(text.find("return L"), 8, lines + "\nreturn L");
  return text;
}

// kLeaves with its Work hook table replaced by `lines` (a task, a function).
std::string leaves_with_work(const std::string& lines) {
  std::string text = kLeaves;
  const size_t from = text.find("L.Work = {"), to = text.find("}\n", from) + 2;
  text.replace(from, to - from, lines);
  return text;
}

struct ReloadFixture {
  Scratch s;
  std::string brain;
  Run r;
  std::vector<thicket::Diagnostic> d;
  std::optional<thicket::BrainHandle> b;
  thicket::AgentHandle a;
  ReloadFixture() {
    s.write("leaves.lua", kLeaves);
    brain = s.write("brain.yaml", kTree);
    b = r.rt.load_file(brain, d);
    REQUIRE(b);
    a = r.rt.spawn(*b);
  }
};

}  // namespace

TEST_CASE_FIXTURE(ReloadFixture, "reload: a changed Lua leaf is used from the next call on; running hooks keep their mem") {
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
  CHECK(r.rt.reload_changed() == 0);  // nothing changed yet
  std::string v2 = kLeaves;
  v2.replace(v2.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 10");
  s.write("leaves.lua", v2);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("t=0.2 tick 3: reloaded ") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 12);  // the running Work kept mem.n = 2, new code adds 10
  CHECK(get_string(r.rt, a, "log") == "start w;");
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: the embedder's check refuses a version it cannot drive; the old one runs on, and a later edit is retried") {
  std::vector<thicket::ReloadCandidate> seen;
  std::optional<thicket::BrainHandle> loaded_inside;
  std::vector<thicket::Diagnostic> inside;
  r.rt.on_reload_check([&](const thicket::ReloadCandidate& c) -> std::string {
    seen.push_back(c);
    loaded_inside = r.rt.load_file(brain, inside);  // refused: the check runs inside the reload
    for (const auto& [key, type] : c.blackboard)
      if (key == "count") return type == thicket::ValueType::Number ? "" : "'count' must be a number";
    return "the game needs the key 'count'";
  });
  r.rt.tick(a, 0.1);
  std::string v2 = kTree;
  v2.replace(v2.find("  count: 0\n"), 11, "  total: 0\n");
  v2.replace(v2.find("leaf: Work"), 10, "leaf: Say");  // (Work writes count)
  s.write("brain.yaml", v2);
  std::vector<thicket::ReloadReport> reports;
  CHECK(r.rt.reload_changed(&reports) == 0);
  REQUIRE(reports.size() == 1);
  CHECK_FALSE(reports[0].ok);
  CHECK(reports[0].first_error == brain + ": the game needs the key 'count'");
  REQUIRE(seen.size() == 1);
  CHECK_FALSE(loaded_inside);
  REQUIRE_FALSE(inside.empty());
  CHECK(inside[0].message.find("cannot be called during a tick") != std::string::npos);
  CHECK(r.rt.brain_count() == 1);
  CHECK(seen[0].path == brain);
  CHECK(seen[0].name == "reload");
  CHECK(seen[0].blackboard == std::vector<std::pair<std::string, thicket::ValueType>>{
                                  {"total", thicket::ValueType::Number}, {"log", thicket::ValueType::String}});
  CHECK(r.log.find("failed; the old version keeps running") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);  // the old version ran on: Work counts
  // Put back, with an edit: taken.
  std::string v3 = kTree;
  v3.replace(v3.find("id: a"), 5, "id: b");
  s.write("brain.yaml", v3);
  reports.clear();
  CHECK(r.rt.reload_changed(&reports) == 1);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].ok);
  CHECK(seen.size() == 2);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 3);  // Work kept its place and mem
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a running hook table become a task runs on in its new form; a running task finishes on the old code") {
  // The running Work is a hook table (mem.n = 2). Reloaded as a task, its run starts the task
  // (the node's slot held the hooks' mem table: the task failed at once). Reloaded as hooks
  // again while that task runs, the task finishes on the old code (SPEC 10: "a coroutine task
  // already running finishes on the old code"; it was dropped, its cleanups never run, and the
  // hooks started afresh), and the hooks start with the node's next run.
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
  s.write("leaves.lua", leaves_with_work("L.Work = thicket.task(function(agent, args)\n"
                                         "  local done <close> = thicket.defer(function() agent.bb.log = agent.bb.log .. 'closed;' end)\n"
                                         "  for i = 1, 3 do agent.bb.count = agent.bb.count + 100; coroutine.yield() end\n"
                                         "  return thicket.SUCCESS\n"
                                         "end)\n"));
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.rt.tick(a, 0.1) == thicket::Status::Running);
  CHECK(get_number(r.rt, a, "count") == 102);
  s.write("leaves.lua", kLeaves);  // hooks again, while the task runs
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.rt.tick(a, 0.1) == thicket::Status::Running);  // the task's second step
  CHECK(get_number(r.rt, a, "count") == 202);
  CHECK(r.rt.tick(a, 0.1) == thicket::Status::Running);  // its third
  CHECK(get_number(r.rt, a, "count") == 302);
  CHECK(r.rt.tick(a, 0.1) == thicket::Status::Success);  // it returns: its cleanup runs
  CHECK(get_string(r.rt, a, "log") == "start w;closed;");
  CHECK(r.rt.tick(a, 0.1) == thicket::Status::Running);  // the next run: the hooks, afresh
  CHECK(get_number(r.rt, a, "count") == 1);
  CHECK(get_string(r.rt, a, "log") == "start w;closed;start w;");
  CHECK(r.rt.script_errors() == 0);
  INFO(r.log);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a running task become a hook table or a function, then aborted, is closed: its cleanups run") {
  // Despawned before it finished, the old task is cancelled: closed, its to-be-closed
  // variables run, and no stop hook of the new form is called (it got the task's coroutine as
  // its mem, then a fresh one; the task was never closed).
  for (const bool to_function : {false, true}) {
    CAPTURE(to_function);
    auto agent = r.rt.spawn(*b);
    s.write("leaves.lua", leaves_with_work("L.Work = thicket.task(function(agent, args)\n"
                                           "  local done <close> = thicket.defer(function() print('closed ' .. agent.id) end)\n"
                                           "  while true do coroutine.yield() end\n"
                                           "end)\n"));
    CHECK(r.rt.reload_changed() == 1);
    CHECK(r.rt.tick(agent, 0.1) == thicket::Status::Running);
    std::string next = kLeaves;
    if (to_function) {
      next = leaves_with_work("function L.Work(agent, args) agent.bb.log = agent.bb.log .. 'fn;' return thicket.RUNNING end\n");
    } else {
      next.replace(next.find("agent.bb.log = agent.bb.log .. \"stop \""), 0, "local n = mem.n + 0; ");
    }
    s.write("leaves.lua", next);
    CHECK(r.rt.reload_changed() == 1);
    std::string out;
    r.rt.on_print([&](const std::string& line) { out += line + "\n"; });
    const uint32_t id = r.rt.agent_id(agent);
    r.rt.despawn(agent);
    CHECK(out == "closed " + std::to_string(id) + "\n");
    CHECK(r.rt.script_errors() == 0);
    r.rt.on_print(nullptr);
  }
  INFO(r.log);
}

TEST_CASE("reload: a YAML edit that gives a running node another leaf lets its task finish on the old code") {
  // The node keeps its id and kind (its state is kept, SPEC 10); the task it runs finishes on
  // the old code, and the new leaf (a hook table) starts with the node's next run. (The hook
  // table's tick was called on the task's slot: the task was dropped unclosed, and `start`
  // came a tick late.)
  Scratch s;
  s.write("leaves.lua", R"(
local thicket = require("thicket")
local L = {}
L.T = thicket.task(function(agent)
  local done <close> = thicket.defer(function() print(thicket.tick() .. " T closed") end)
  for i = 1, 2 do print(thicket.tick() .. " T step " .. i); coroutine.yield() end
  return thicket.SUCCESS
end)
L.H = {
  start = function(agent, args, mem) mem.b = 100; print(thicket.tick() .. " H start") end,
  tick = function(agent, args, mem) mem.b = mem.b + 1; print(thicket.tick() .. " H tick " .. mem.b); return thicket.RUNNING end,
}
return L
)");
  const std::string brain = s.write("brain.yaml", "tree: swap\nleaves: [leaves.lua]\nroot:\n  action: {leaf: T, name: job}\n");
  Run r;
  std::string out;
  const auto a = spawn_printing(r, brain, out);
  r.rt.tick(a, 0.1);
  s.write("brain.yaml", "tree: swap\nleaves: [leaves.lua]\nroot:\n  action: {leaf: H, name: job}\n");
  CHECK(r.rt.reload_changed() == 1);
  for (int i = 0; i < 4; ++i) r.rt.tick(a, 0.1);
  CHECK(out == "1 T step 1\n2 T step 2\n3 T closed\n4 H start\n4 H tick 101\n5 H tick 102\n");
  CHECK(r.rt.script_errors() == 0);
  INFO(r.log);
}

TEST_CASE("reload: a running task whose leaf became a plain function finishes on the old code, then the function runs") {
  // The engine stops hooked leaves only, so nothing released the old run when it ended: its
  // slot kept the dead coroutine, every later run resumed it ("cannot resume dead coroutine",
  // the new function never ran), and the errors piling up on its stack crashed the process.
  Scratch s;
  s.write("leaves.lua", R"(
local thicket = require("thicket")
local L = {}
L.Work = thicket.task(function(agent)
  for i = 1, 2 do print(thicket.tick() .. " task " .. i); coroutine.yield() end
  return thicket.SUCCESS
end)
return L
)");
  const std::string brain = s.write("brain.yaml", "tree: swap\nleaves: [leaves.lua]\nroot:\n  repeat: {child: {action: {leaf: Work, name: job}}}\n");
  Run r;
  std::string out;
  const auto a = spawn_printing(r, brain, out);
  r.rt.tick(a, 0.1);
  s.write("leaves.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                        "function L.Work(agent) print(thicket.tick() .. ' plain') return true end\nreturn L\n");
  CHECK(r.rt.reload_changed() == 1);
  for (int i = 0; i < 300; ++i) r.rt.tick(a, 0.1);
  const std::string first = "1 task 1\n2 task 2\n4 plain\n5 plain\n6 plain\n";  // (3: the task returns)
  CHECK(out.substr(0, first.size()) == first);
  CHECK(std::count(out.begin(), out.end(), '\n') == 300);  // 301 ticks, one silent
  CHECK(out.find("task", 20) == std::string::npos);
  CHECK(r.rt.script_errors() == 0);
  INFO(r.log);
}

TEST_CASE("reload: a machine's check_every changed is named among the changed settings") {
  Scratch s;
  s.write("leaves.lua", "local L = {}\nfunction L.C() return true end\nfunction L.W() return 'running' end\nreturn L\n");
  const char* v1 = "machine: m\nleaves: [leaves.lua]\ncheck_every: 1.0\nbehaviors:\n  - {name: a, check: C, run: W}\n";
  const std::string brain = s.write("brain.yaml", v1);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  r.rt.spawn(*b);
  std::string v2 = v1;
  v2.replace(v2.find("1.0"), 3, "0.3");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("1 changed: root") != std::string::npos);  // (it said nothing changed)
}

TEST_CASE("reload: an fsm state whose active child is removed, with no child it can enter, says so once and retries") {
  // SPEC 4.1: the nearest surviving ancestor re-enters its descent. When no child of it can be
  // entered (here nap's enter_if fails), the state stays without an active child, as the
  // initial descent would: reported once and counted (it was silent), then entered once it can.
  Scratch s;
  s.write("leaves.lua", "local L = {}\nfunction L.Act(agent, args) print(args.id) return \"running\" end\nreturn L\n");
  const char* head = "fsm: r\nleaves: [leaves.lua]\nblackboard: {n: {type: integer, default: 0}}\ninitial: calm\nstates:\n"
                     "  calm:\n    act: {leaf: Act, args: {id: calm}}\n    states:\n";
  // (appends, not +: GCC 12 warns of a false -Warray-bounds on std::string(x) + "...")
  const std::string brain = s.write("brain.yaml", std::string(head).append("      rest: {act: {leaf: Act, args: {id: rest}}}\n"));
  Run r;
  std::string out;
  r.rt.on_print([&](const std::string& line) { out += line + ";"; });
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  s.write("brain.yaml", std::string(head).append("      nap: {enter_if: \"n > 1\", act: {leaf: Act, args: {id: nap}}}\n"));
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  CHECK(out == "calm;rest;calm;calm;");
  const std::string said = "state 'calm' lost its active child in a reload and cannot enter another";
  CHECK(r.log.find(said) != std::string::npos);
  CHECK(r.log.find(said) == r.log.rfind(said));  // once
  CHECK(r.log.find("brain.yaml:6:3: error: fsm 'r'") != std::string::npos);
  CHECK(r.rt.script_errors() == 1);
  REQUIRE(r.rt.set(a, "n", int64_t{2}));
  r.rt.tick(a, 0.1);
  CHECK(out == "calm;rest;calm;calm;calm;nap;");
  INFO(r.log);
}

TEST_CASE("reload: an active top-level state made final ends the brain at the next tick, as if entered") {
  // SPEC 4.1: entering a top-level final state ends the brain at once. A reload that makes the
  // active top-level state final enters nothing: the agent sat in it, running, for ever. It now
  // ends at the next tick (the state left, its exit run, root success), then starts afresh.
  Scratch s;
  s.write("leaves.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                        "function L.Act(agent, args) print(thicket.tick() .. ' act ' .. args.id) return 'running' end\n"
                        "function L.Say(agent, args) print(thicket.tick() .. ' ' .. args.id) end\nreturn L\n");
  const char* v1 = "fsm: f\nleaves: [leaves.lua]\nstates:\n"
                   "  a:\n    enter: {leaf: Say, args: {id: enter a}}\n    exit: {leaf: Say, args: {id: exit a}}\n"
                   "    act: {leaf: Act, args: {id: a}}\n  b: {}\n";
  const char* v2 = "fsm: f\nleaves: [leaves.lua]\nstates:\n"
                   "  a:\n    final: true\n    enter: {leaf: Say, args: {id: enter a}}\n    exit: {leaf: Say, args: {id: exit a}}\n"
                   "  b: {}\n";
  const std::string brain = s.write("brain.yaml", v1);
  Run r;
  std::string out;
  r.rt.on_print([&](const std::string& line) { out += line + ";"; });
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  SUBCASE("the next tick ends it") {
    CHECK(r.rt.tick(a, 0.1) == thicket::Status::Success);
    CHECK(r.rt.tick(a, 0.1) == thicket::Status::Success);  // entered afresh: final, so ended at once
    CHECK(out == "1 enter a;1 act a;2 act a;3 exit a;4 enter a;4 exit a;");
    CHECK(r.rt.script_errors() == 0);
  }
  SUBCASE("a second reload before it, that makes the state plain again, undoes the end") {
    // (The end the first set stayed: the brain ended at tick 3 all the same.)
    s.write("brain.yaml", std::string(v1) + "# back\n");
    CHECK(r.rt.reload_changed() == 1);
    CHECK(r.rt.tick(a, 0.1) == thicket::Status::Running);
    CHECK(out == "1 enter a;1 act a;2 act a;3 act a;");
  }
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a broken Lua file changes nothing and is reported; fixing it reloads") {
  r.rt.tick(a, 0.1);
  s.write("leaves.lua", "local L = {}\nfunction L.Say( return L\n");
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("failed; the old version keeps running") != std::string::npos);
  CHECK(r.log.find("leaves.lua:2:") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
  // A leaf the tree uses may not disappear.
  r.log.clear();
  s.write("leaves.lua", "local L = {}\nfunction L.Say() return true end\nreturn L\n");
  CHECK(r.rt.reload_changed() == 0);
  // Said with where the brain calls it: the place to change too.
  INFO(r.log);
  CHECK(r.log.find(brain + ":10:15: error: unknown leaf 'Work' (" + s.path("leaves.lua") + " no longer defines it, and " +
                   brain + " still calls it here)") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 3);
  s.write("leaves.lua", std::string(kLeaves).append("\n-- fixed\n"));  // (appends: GCC 12's false -Warray-bounds)
  CHECK(r.rt.reload_changed() == 1);
}

TEST_CASE("reload: a leaf file whose new arg declarations its calls do not meet is refused, as a load refuses them") {
  Scratch s;
  const auto leaves = [](const std::string& args, const std::string& word) {
    return "local L = {}\nL.A = {args = {" + args + "}, fn = function(agent, args) print('" + word +
           " ' .. tostring(args.n)) return true end}\nreturn L\n";
  };
  const std::string brain = s.write("brain.yaml", "tree: t\nleaves: [leaves.lua]\nroot:\n  action: {leaf: A, args: {n: 3, k: 1}}\n");
  Run r;
  std::string out;
  r.rt.on_print([&](const std::string& line) { out += line + "\n"; });
  std::vector<thicket::Diagnostic> d;
  s.write("leaves.lua", leaves("n = 'integer', k = 'number?'", "v1"));
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  // Every call's args against the new declarations, all errors said, at the node that calls it.
  s.write("leaves.lua", leaves("n = 'string', m = 'number', j = 'boolean?'", "v2"));
  CHECK(r.rt.reload_changed() == 0);
  INFO(r.log);
  CHECK(r.log.find("reload of " + s.path("leaves.lua") + " failed; the old version keeps running:\n"
                   "  " + brain + ":4:11: error: leaf 'A' has no arg 'k' (args: j, m, n) (the new " +
                   s.path("leaves.lua") + " declares it so)\n"
                   "  " + brain + ":4:11: error: leaf 'A' needs arg 'm' (a number): args: {m: ...} (the new " +
                   s.path("leaves.lua") + " declares it so)\n"
                   "  " + brain + ":4:11: error: arg 'n' of leaf 'A' must be text, got the number 3 (the new " +
                   s.path("leaves.lua") + " declares it so)\n") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(out == "v1 3\nv1 3\n");
  // Declarations the calls meet are taken.
  s.write("leaves.lua", leaves("n = 'number', k = 'integer'", "v3"));
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  CHECK(out == "v1 3\nv1 3\nv3 3\n");
}

TEST_CASE("reload: an imported brain file that changes reloads the brain that imports it (SPEC 10)") {
  // The brain's own file is unchanged; its subtree comes from sub.yaml, which is edited.
  const std::string sub = "tree: sub\nleaves: [leaves.lua]\nroot: {action: {leaf: Say, args: {s: V}}}\n";
  auto version = [&](const char* v) { return std::string(sub).replace(sub.find("s: V") + 3, 1, v); };
  Printing p({{"leaves.lua", "local L = {}\nfunction L.Say(agent, args) print(args.s) return 'running' end\nreturn L\n"},
              {"sub.yaml", version("v1")}},
             "tree: main\nimport: [sub.yaml]\nroot: {subtree: sub}\n");
  p.r.rt.tick(p.a, 0.1);
  p.s.write("sub.yaml", version("v2"));
  CHECK(p.r.rt.reload_changed() == 1);
  INFO(p.r.log);
  CHECK(p.r.log.find("reloaded " + p.s.path("sub.yaml")) != std::string::npos);
  p.r.rt.tick(p.a, 0.1);
  CHECK(p.out == "v1;v2;");
  // A broken import is refused as a broken brain file is: the old version runs on.
  p.s.write("sub.yaml", "tree: sub\nroot: {action: Nope}\n");
  CHECK(p.r.rt.reload_changed() == 0);
  CHECK(p.r.log.find("unknown leaf 'Nope'") != std::string::npos);
  p.r.rt.tick(p.a, 0.1);
  CHECK(p.out == "v1;v2;v2;");
}

TEST_CASE("reload: a leaf file's errors are said all at once, as check says them") {
  // A renamed leaf was said once, at its first call, with no did-you-mean; a broken hook hid
  // the args the calls no longer meet (one save, two rounds of fixes).
  const auto leaves = [](const std::string& step, const std::string& n, const std::string& other) {
    return "local L = {}\nL." + step + " = {args = {n = '" + n + "'}, fn = function() return true end}\n" + other +
           "\nreturn L\n";
  };
  Printing p(leaves("Step", "integer", "function L.Other() return true end"),
             "tree: t\nleaves: [leaves.lua]\nroot:\n  sequence:\n    - action: {leaf: Step, args: {n: 1}}\n"
             "    - action: {leaf: Step, args: {n: 2}}\n    - action: Other\n");
  p.r.rt.tick(p.a, 0.1);
  const std::string lua = p.s.path("leaves.lua"), brain = p.s.path("brain.yaml");
  // A rename: said at each call, with the near name.
  p.s.write("leaves.lua", leaves("Stpe", "integer", "function L.Other() return true end"));
  CHECK(p.r.rt.reload_changed() == 0);
  INFO(p.r.log);
  const std::string renamed = ": error: unknown leaf 'Step'; did you mean 'Stpe'? (" + lua + " no longer defines it, and " +
                              brain + " still calls it here)";
  CHECK(p.r.log.find("  " + brain + ":5:15" + renamed + "\n  " + brain + ":6:15" + renamed) != std::string::npos);
  // A broken hook in one leaf and args the calls do not meet in another: both said.
  p.r.log.clear();
  p.s.write("leaves.lua", leaves("Step", "string", "L.Other = {tick = function() return true end, stpo = function() end}"));
  CHECK(p.r.rt.reload_changed() == 0);
  CHECK(p.r.log.find("unknown hook 'stpo'") != std::string::npos);
  CHECK(p.r.log.find(brain + ":5:15: error: arg 'n' of leaf 'Step' must be text, got the number 1") != std::string::npos);
  CHECK(p.r.log.find(brain + ":6:15: error: arg 'n' of leaf 'Step' must be text, got the number 2") != std::string::npos);
  CHECK(p.r.rt.tick(p.a, 0.1) == thicket::Status::Success);  // the old version runs on
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a leaf file swapped for a pipe is refused, not waited on; the old version runs on") {
  // A pipe nothing writes to would block the reload (and the game) for ever.
  r.rt.tick(a, 0.1);
  fs::remove(s.path("leaves.lua"));
  REQUIRE(::mkfifo(s.path("leaves.lua").c_str(), 0600) == 0);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("not a plain file") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
}

TEST_CASE("reload: a leaf that must stay a plain function may not become a task or hook table") {
  // The compiler refuses a task or a hook table as a condition and as an fsm state's enter,
  // exit or reason; a reload that turned one into either would break the brain on every call.
  const char* leaves = R"(
local thicket = require("thicket")
local L = {}
function L.Near(agent, args) return true end
function L.Hello(agent, args) agent.bb.log = agent.bb.log .. "hello;" end
function L.Bye(agent, args) agent.bb.log = agent.bb.log .. "bye;" end
function L.Why(agent, args) return nil end
function L.Idle(agent, args) return thicket.RUNNING end
return L
)";
  const char* fsm = R"(
fsm: plain
leaves: [leaves.lua]
blackboard:
  log: ""
states:
  a:
    enter: Hello
    exit: Bye
    reason: Why
    act: Idle
    when: [{condition: Near, go: b}]
  b:
    act: Idle
)";
  struct Change {
    const char* from;
    const char* to;
    const char* message;
  };
  const Change changes[] = {
      {"function L.Near(agent, args) return true end", "L.Near = thicket.task(function(agent, args) return true end)",
       "leaf 'Near' is now a task but"},
      {"function L.Why(agent, args) return nil end", "L.Why = {tick = function(agent, args) return nil end}",
       "leaf 'Why' is now a hook table but"},
      {"function L.Hello(agent, args) agent.bb.log = agent.bb.log .. \"hello;\" end",
       "L.Hello = thicket.task(function(agent, args) end)", "leaf 'Hello' is now a task but"},
      {"function L.Bye(agent, args) agent.bb.log = agent.bb.log .. \"bye;\" end",
       "L.Bye = {start = function() end, tick = function() return thicket.SUCCESS end}", "leaf 'Bye' is now a hook table but"},
  };
  const char* uses[] = {"uses it as a condition", "uses it as state 'a''s 'reason', which calls a plain function",
                        "uses it as state 'a''s 'enter'", "uses it as state 'a''s 'exit'"};
  for (size_t k = 0; k < 4; ++k) {
    CAPTURE(changes[k].to);
    Scratch s;
    s.write("leaves.lua", leaves);
    std::string brain = s.write("brain.yaml", fsm);
    Run r;
    std::vector<thicket::Diagnostic> d;
    auto b = r.rt.load_file(brain, d);
    REQUIRE(b);
    auto a = r.rt.spawn(*b);
    r.rt.tick(a, 0.1);
    std::string v2 = leaves;
    v2.replace(v2.find(changes[k].from), std::string(changes[k].from).size(), changes[k].to);
    s.write("leaves.lua", v2);
    CHECK(r.rt.reload_changed() == 0);
    CHECK(r.log.find("failed; the old version keeps running") != std::string::npos);
    CHECK(r.log.find(changes[k].message) != std::string::npos);
    CHECK(r.log.find(uses[k]) != std::string::npos);
    CHECK(r.log.find(" (at " + brain + ":", r.log.find(uses[k])) != std::string::npos);  // the use's place
    r.rt.tick(a, 0.1);
    CHECK(r.rt.script_errors() == 0);  // the old leaves go on
    CHECK(get_string(r.rt, a, "log") == "hello;bye;");  // entered a, left it for b (Near passed)
  }
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a watched file deleted is said gone once; back again, it reloads") {
  fs::rename(s.path("leaves.lua"), s.path("leaves.lua.away"));
  r.log.clear();
  CHECK(r.rt.reload_changed() == 0);  // (a save that deletes and writes again looks like this once)
  CHECK(r.log.empty());
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.rt.reload_changed() == 0);
  INFO(r.log);
  const std::string said = s.path("leaves.lua") + " is gone (deleted or moved away): the running version stays";
  CHECK(r.log.find(said) != std::string::npos);
  CHECK(r.log.find(said) == r.log.rfind(said));  // once
  fs::rename(s.path("leaves.lua.away"), s.path("leaves.lua"));
  s.write("leaves.lua", leaves_with("function L.on_reload() thicket.log('back!') end"));
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("back!") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a leaf file a failed version names before it is written is not said gone") {
  // The YAML names new.lua before new.lua is saved: the reload fails (not found), and new.lua
  // is watched from then on. It was then said "gone (deleted or moved away)", which it never
  // was; once written, the brain reloads.
  std::string v2 = kTree;
  v2.replace(v2.find("leaves: [leaves.lua]"), 20, "leaves: [leaves.lua, new.lua]");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 0);  // a failed reload
  CHECK(r.log.find("new.lua' not found") != std::string::npos);
  r.log.clear();
  for (int look = 0; look < 3; ++look) {
    s.write("leaves.lua", kLeaves);  // the same bytes: a look at the watched files, no reload
    CHECK(r.rt.reload_changed() == 0);
  }
  INFO(r.log);
  CHECK(r.log.find("is gone") == std::string::npos);
  s.write("new.lua", "return {}\n");
  size_t reloaded = 0;
  for (int look = 0; look < 3; ++look) reloaded += r.rt.reload_changed();
  CHECK(reloaded == 1);
  CHECK(r.log.find("reloaded") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a watched file moved to another folder is said gone too") {
  // Only IN_MOVED_FROM tells of it in the watched folder (the rename above also tells of the
  // new name there): it was not watched for, so nothing was said.
  fs::create_directories(s.path("away"));
  CHECK(r.rt.reload_changed() == 0);  // (the new folder's event taken: the move alone is left)
  fs::rename(s.path("leaves.lua"), s.path("away/leaves.lua"));
  for (int look = 0; look < 3; ++look) CHECK(r.rt.reload_changed() == 0);
  INFO(r.log);
  CHECK(r.log.find(s.path("leaves.lua") + " is gone (deleted or moved away)") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a file created and still open, not yet written, is not looked at") {
  // `{ sleep 1; cat new.lua; } > leaves.lua`: created (empty) and open for writing; the first
  // write comes later. It was loaded empty, a failed reload, then loaded again.
  const std::string leaves = s.path("leaves.lua");
  fs::remove(leaves);
  std::string v2 = kLeaves;
  v2.replace(v2.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 10");
  {
    std::ofstream saving(leaves, std::ios::trunc);
    REQUIRE(saving);
    CHECK(r.rt.reload_changed() == 0);
    CHECK(r.rt.reload_changed() == 0);
    saving << v2;
  }
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("failed") == std::string::npos);
  CHECK(r.log.find("gone") == std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a file gone is a failed report; back as it was, a good one (a game clears its notice)") {
  const std::string leaves = s.path("leaves.lua");
  fs::rename(leaves, leaves + ".away");
  std::vector<thicket::ReloadReport> reports;
  for (int look = 0; look < 3; ++look) CHECK(r.rt.reload_changed(&reports) == 0);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].file == leaves);
  CHECK_FALSE(reports[0].ok);
  CHECK(reports[0].first_error == leaves + ": the file is gone (deleted or moved away): the running version stays, and it "
                                           "reloads when the file is back");
  reports.clear();
  fs::rename(leaves + ".away", leaves);  // the same bytes: nothing to reload
  CHECK(r.rt.reload_changed(&reports) == 0);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].file == leaves);
  CHECK(reports[0].ok);
  CHECK(r.log.find(leaves + " is back, as it was") != std::string::npos);
  reports.clear();
  CHECK(r.rt.reload_changed(&reports) == 0);
  CHECK(reports.empty());  // said once
}

TEST_CASE("reload: a leaf file's top level may not change the run; a failed reload leaves every agent as it was") {
  // The top level runs before the reload is judged: a spawn, despawn, event or blackboard write
  // there could not be undone when the file then fails (they stuck: agents gone, values written).
  Scratch s;
  const std::string v1 = R"(
local thicket = require("thicket")
kept = kept or {}
local L = {}
function L.A(agent) kept[agent.id] = agent; agent.bb.hp = agent.bb.hp + 1; return thicket.RUNNING end
)";
  s.write("leaves.lua", v1 + "return L\n");
  const std::string brain = s.write("brain.yaml", "tree: t\nleaves: [leaves.lua]\nblackboard: {hp: 0}\nroot: {action: A}\n");
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a1 = r.rt.spawn(*b), a2 = r.rt.spawn(*b);
  r.rt.tick_all(0.1);
  for (const std::string& change : {std::string("thicket.spawn('t')"), std::string("thicket.despawn(2)"),
                                    std::string("thicket.send(1, 'go')"), std::string("kept[1].bb.hp = 100")}) {
    CAPTURE(change);
    r.log.clear();
    s.write("leaves.lua", v1 + change + "\nreturn L\n");
    CHECK(r.rt.reload_changed() == 0);
    INFO(r.log);
    const std::string what = change == "kept[1].bb.hp = 100" ? "agent 1's blackboard written" : change.substr(0, change.find('('));
    CHECK(r.log.find("leaves.lua:6: error: " + what + " at a leaf file's top level: the file runs while it loads or "
                     "reloads, before the load is judged") != std::string::npos);
    CHECK(r.rt.agent_count() == 2);
    CHECK(get_number(r.rt, a1, "hp") == 1);
    CHECK(get_number(r.rt, a2, "hp") == 1);
  }
  // on_reload runs once the reload has succeeded: there it may.
  s.write("leaves.lua", v1 + "function L.on_reload() kept[1].bb.hp = 100; thicket.despawn(2) end\nreturn L\n");
  CHECK(r.rt.reload_changed() == 1);
  CHECK(get_number(r.rt, a1, "hp") == 100);
  CHECK(r.rt.agent_count() == 1);
}

TEST_CASE("reload: on_reload is called after a Lua file reloads") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  s.write("leaves.lua", leaves_with("function L.on_reload() thicket.log('reloaded!') end"));
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("reloaded!") != std::string::npos);
  // An error in it reads as a leaf's: FILE:LINE: message, then where, then the frames.
  const std::string v3 = leaves_with("function L.on_reload()\n  error('no map')\nend");
  s.write("leaves.lua", v3);
  r.log.clear();
  CHECK(r.rt.reload_changed() == 1);
  const auto line = std::count(v3.begin(), v3.begin() + static_cast<std::ptrdiff_t>(v3.find("  error('no map')")), '\n') + 1;
  INFO(r.log);
  CHECK(r.log.find("\nerror: ") != std::string::npos);  // after the line saying it reloaded
  CHECK(r.log.find("leaves.lua:" + std::to_string(line) + ": no map\n  in on_reload of ") != std::string::npos);
  CHECK(r.log.find("\n  stack traceback:") != std::string::npos);
  // Its message's control characters are escapes and its second line is indented under the
  // first, as a leaf's (they went to the log raw, the second line at column 0).
  s.write("leaves.lua", leaves_with("function L.on_reload()\n  error('\\27[2Jfirst\\nsecond')\nend"));
  r.log.clear();
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find('\x1b') == std::string::npos);
  CHECK(r.log.find(": \\x1B[2Jfirst\n       second\n  in on_reload of ") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a recompiled tree keeps running nodes and blackboard values; removed running nodes are aborted") {
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  REQUIRE(r.rt.running_nodes(a) == std::vector<std::string>{"root", "work"});
  // An unrelated branch changes: a node is inserted before the running one (its path moves,
  // its name keeps it) and a key is added.
  std::string v2 = kTree;
  v2.replace(v2.find("    - action: {leaf: Say, args: {id: a}}"), 0, "    - action: {leaf: Say, args: {id: new}}\n");
  v2.replace(v2.find("  log: \"\""), 0, "  extra: 7\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  // Unnamed nodes go by their path: the new node took root/0, whose args it changed, and the
  // old root/0 (now root/1) counts as added.
  CHECK(r.log.find("nodes kept, 1 added, 0 removed; 1 changed: root/0; blackboard keys added: extra\n") != std::string::npos);
  CHECK(get_number(r.rt, a, "extra") == 7);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 3);  // Work went on: not restarted
  CHECK(get_string(r.rt, a, "log") == "start w;");
  CHECK(r.rt.running_nodes(a) == std::vector<std::string>{"root", "work"});
  // The running node disappears: it is aborted, and the tree goes on without it.
  std::string v3 = v2;
  v3.erase(v3.find("    - action: {leaf: Work, args: {id: w}, name: work}"));
  s.write("brain.yaml", v3);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(get_string(r.rt, a, "log") == "start w;stop w aborted;");
  CHECK(r.rt.tick(a, 0.1) == Status::Success);
  CHECK(get_number(r.rt, a, "count") == 3);  // the blackboard survived both reloads
}

TEST_CASE("reload: a YAML file loaded as two brains (two groups of a scenario) recompiles both") {
  // The first brain to recompile took the file off the list of changes: the second ran the
  // old version, silently.
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b1 = r.rt.load_file(brain, d);
  auto b2 = r.rt.load_file(brain, d);
  REQUIRE(b1);
  REQUIRE(b2);
  auto a1 = r.rt.spawn(*b1), a2 = r.rt.spawn(*b2);
  r.rt.tick(a1, 0.1);
  r.rt.tick(a2, 0.1);
  std::string v2 = kTree;
  v2.replace(v2.find("  log: \"\""), 0, "  extra: 7\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 2);
  CHECK(get_number(r.rt, a1, "extra") == 7);
  CHECK(get_number(r.rt, a2, "extra") == 7);
  // The notice is said once, not once per brain (a scenario's log said each reload twice).
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = r.log.find(what); at != std::string::npos; at = r.log.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(": reloaded ") == 1);
  s.write("brain.yaml", kTree + std::string("root: {}\n"));  // a key given twice: both brains fail
  CHECK(r.rt.reload_changed() == 0);
  CHECK(count("failed; the old version keeps running") == 1);
  INFO(r.log);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a broken tree, or a blackboard key that changes type, leaves the old brain running") {
  r.rt.tick(a, 0.1);
  std::string before = r.rt.dump(*b);
  std::string broken = kTree;
  broken.replace(broken.find("sequence:"), 9, "sequense:");
  broken.replace(broken.find("Say"), 3, "Sya");  // a second error in the same file
  s.write("brain.yaml", broken);
  std::vector<thicket::ReloadReport> reports;
  CHECK(r.rt.reload_changed(&reports) == 0);
  CHECK(r.log.find("did you mean 'sequence'") != std::string::npos);
  CHECK(r.rt.dump(*b) == before);
  // The report holds every error of the file (a game shows them all), the first one apart.
  REQUIRE(reports.size() == 1);
  CHECK_FALSE(reports[0].ok);
  CHECK(reports[0].first_error.find("did you mean 'sequence'") != std::string::npos);
  REQUIRE(reports[0].diagnostics.size() >= 2);
  CHECK(reports[0].diagnostics[0].line > 0);
  bool both = false;
  for (const auto& diag : reports[0].diagnostics) both = both || diag.message.find("'Sya'") != std::string::npos;
  CHECK(both);
  // Its errors in the order `thicket check` lists them: by line (a loader's passes said a
  // missing 'root' at 1:1 after an unknown key further down).
  r.log.clear();
  std::string unordered = kTree;
  unordered.replace(unordered.find("root:"), 5, "rot:");
  s.write("brain.yaml", unordered);
  CHECK(r.rt.reload_changed() == 0);
  INFO(r.log);
  const size_t top = r.log.find(brain + ":2:1: error: a tree file needs 'root:'"), key = r.log.find(brain + ":7:1: error: unknown top-level key 'rot'");
  CHECK(top != std::string::npos);
  CHECK(key != std::string::npos);
  CHECK(top < key);
  std::string retyped = kTree;
  retyped.replace(retyped.find("count: 0"), 8, "count: \"zero\"");
  s.write("brain.yaml", retyped);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("changed type from number to string") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a YAML change rejected for a missing leaf is retried when the leaf is added to its Lua file") {
  for (int i = 0; i < 3; ++i) r.rt.tick(a, 0.1);
  // The YAML uses a leaf that does not exist yet: rejected, and the brain says so.
  std::string v2 = kTree;
  v2.replace(v2.find("    - action: {leaf: Say, args: {id: a}}"), 0, "    - action: {leaf: Wave, args: {id: hi}}\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("t=0.3 tick 4: reload of " + brain + " failed; the old version keeps running") != std::string::npos);
  CHECK(r.log.find("unknown leaf 'Wave'") != std::string::npos);

  std::string before = r.rt.dump(*b);
  r.rt.tick(a, 0.1);
  // The leaf is added to the Lua file: the Lua file reloads and the waiting YAML is retried.
  r.log.clear();
  std::string leaves2 = kLeaves;
  leaves2.replace(leaves2.find("return L\n"), 8, "function L.Wave(agent, args) return true end\nreturn L\n");
  s.write("leaves.lua", leaves2);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("t=0.4 tick 5: reloaded " + brain + " (retried: " + s.path("leaves.lua") +
                   " changed): brain reload recompiled") != std::string::npos);
  CHECK(r.log.find("still runs its previous version") == std::string::npos);
  CHECK(r.rt.dump(*b) != before);
  CHECK(r.rt.dump(*b).find("leaf=Wave") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 5);  // the running Work went on through both reloads
  CHECK(get_string(r.rt, a, "log") == "start w;");
}

TEST_CASE("reload: while a brain waits on a failed reload, other files reload and each round says it is stale") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  s.write("other.lua", "local L = {}\nfunction L.Other() return true end\nreturn L\n");
  std::string brain = s.write("brain.yaml", kTree);
  std::string other = s.write("other.yaml", "tree: other\nleaves: [other.lua]\nroot: {action: Other}\n");
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  REQUIRE(r.rt.load_file(other, d));
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  // The new YAML names a leaf file that does not exist yet, and a leaf in it.
  std::string v2 = kTree;
  v2.replace(v2.find("leaves: [leaves.lua]"), 20, "leaves: [leaves.lua, extra.lua]");
  v2.replace(v2.find("    - action: {leaf: Say, args: {id: a}}"), 0, "    - action: Extra\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("reload of " + brain + " failed; the old version keeps running") != std::string::npos);
  CHECK(r.log.find("still runs its previous version") == std::string::npos);  // said once per round
  // Another brain's file reloads: the log says which brain still runs its previous version.
  r.log.clear();
  s.write("other.lua", "local L = {}\nfunction L.Other() return false end\nreturn L\n");
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("t=0.1 tick 2: reloaded " + s.path("other.lua")) != std::string::npos);
  CHECK(r.log.find("t=0.1 tick 2: brain " + brain + " still runs its previous version: " + brain +
                   ":3:") != std::string::npos);
  CHECK(r.log.find("extra.lua' not found") != std::string::npos);
  // An edit of the old version's leaf file that does not fix it: the Lua reload applies to the
  // running version, the retry fails again, and the log says so.
  r.log.clear();
  std::string v1b = kLeaves;
  v1b.replace(v1b.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 10");
  s.write("leaves.lua", v1b);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("reloaded " + s.path("leaves.lua")) != std::string::npos);
  CHECK(r.log.find("reload of " + brain + " (retried: " + s.path("leaves.lua") + " changed) failed") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 11);
  // The missing file appears: the brain is retried and recompiles.
  r.log.clear();
  s.write("extra.lua", "local L = {}\nfunction L.Extra() return true end\nreturn L\n");
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("retried: " + s.path("extra.lua") + " changed") != std::string::npos);
  CHECK(r.log.find("brain reload recompiled") != std::string::npos);
  CHECK(r.log.find("still runs its previous version") == std::string::npos);
  CHECK(r.rt.dump(*b).find("leaf=Extra") != std::string::npos);
}

TEST_CASE("reload: touching a file retries a failed YAML reload; a healthy brain ignores touches") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  s.write("brain.yaml", kTree);  // same content, a new time
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.empty());
  // A native leaf registered after the failure (outside the watched files) makes the
  // retry succeed; a touch of the YAML asks for it.
  std::string v2 = kTree;
  v2.replace(v2.find("    - action: {leaf: Say, args: {id: a}}"), 0, "    - action: Native\n");
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("unknown leaf 'Native'") != std::string::npos);
  thicket::NativeLeaf native;
  native.tick = [](thicket::LeafContext&) { return Status::Success; };
  r.rt.register_leaf("Native", std::move(native));
  r.log.clear();
  s.write("brain.yaml", v2);  // touch
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("brain reload recompiled") != std::string::npos);
  CHECK(r.rt.dump(*b).find("leaf=Native") != std::string::npos);
}

TEST_CASE("reload: a leaf file named only by a failed version does not put its leaves live") {
  Scratch s;
  s.write("leaves.lua", "local thicket = require('thicket')\nreturn { Say = function() thicket.log('@v1') return true end }\n");
  std::string brain = s.write("brain.yaml", "tree: t\nleaves: [leaves.lua]\nroot: {action: Say}\n");
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  // The new version lists extra.lua (not there yet) and a leaf that exists nowhere: rejected.
  s.write("brain.yaml", "tree: t\nleaves: [leaves.lua, extra.lua]\nroot:\n  sequence: [{action: Say}, {action: Missing}]\n");
  CHECK(r.rt.reload_changed() == 0);
  // extra.lua appears, redefining Say; the retry still fails (Missing), so nothing of it runs.
  s.write("extra.lua", "local thicket = require('thicket')\nreturn { Say = function() thicket.log('@extra') return true end }\n");
  CHECK(r.rt.reload_changed() == 0);
  r.log.clear();
  r.rt.tick(a, 0.1);
  INFO(r.log);
  CHECK(r.log.find("@v1") != std::string::npos);
  CHECK(r.log.find("@extra") == std::string::npos);
}

TEST_CASE("reload: a changed module reloads the leaf files that require it; a broken one leaves the old") {
  Scratch s;
  s.write("cfg.lua", "return {speed = 1}\n");
  s.write("leaves.lua", R"(
local thicket = require("thicket")
local cfg = require("cfg")
local L = {}
function L.Show(agent, args) thicket.log("@speed " .. cfg.speed) return thicket.RUNNING end
return L
)");
  std::string brain = s.write("brain.yaml", "tree: m\nleaves: [leaves.lua]\nroot: {action: Show}\n");
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  s.write("cfg.lua", "return {speed = 7}\n");
  CHECK(r.rt.reload_changed() == 1);  // leaves.lua, with the new module
  CHECK(r.log.find("module " + s.path("cfg.lua") + " changed; the leaf files that require it reload") != std::string::npos);
  r.rt.tick(a, 0.1);
  // A module that no longer loads: the leaf file's reload fails, the old versions stay.
  s.write("cfg.lua", "return {speed = \n");
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("failed; the old version keeps running") != std::string::npos);
  r.rt.tick(a, 0.1);
  // Fixed again: reloads.
  s.write("cfg.lua", "return {speed = 9}\n");
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  std::string speeds;
  for (size_t at = 0; (at = r.log.find("@speed ", at)) != std::string::npos; at += 7) speeds += r.log.substr(at + 7, 1);
  CHECK(speeds == "1779");
}

TEST_CASE("reload: the notice names the next tick_all's time and number, also when agents are time-sliced") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string tree = kTree;
  tree.replace(tree.find("leaves: [leaves.lua]"), 0, "tick_every: 3\n");
  std::string brain = s.write("brain.yaml", tree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  for (int i = 0; i < 3; ++i) r.rt.spawn(*b);
  for (int i = 0; i < 11; ++i) r.rt.tick_all(0.1);  // each agent ticked 3 or 4 times
  std::string v2 = kLeaves;
  v2.replace(v2.find(" v1 "), 4, " v2 ");
  s.write("leaves.lua", v2);
  CHECK(r.rt.reload_changed() == 1);
  // The 12th call, at t = 1.1, is the first to run the new version (it was "t=1 tick 5": the
  // clock of the agent ticked last, and that agent's own next tick count).
  CHECK(r.log.find("t=1.1 tick 12: reloaded ") != std::string::npos);
  // An agent spawned late counts its own ticks from 1; the notice keeps the run's calls.
  r.rt.spawn(*b);
  r.rt.tick_all(0.1);
  s.write("leaves.lua", kLeaves);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("t=1.2 tick 13: reloaded ") != std::string::npos);
}

TEST_CASE("reload: a running node the reload removes stops at the clock of the agent's last tick, as on despawn") {
  Scratch s;
  s.write("leaves.lua", R"(
local thicket = require("thicket")
local L = {}
L.Work = {
  tick = function(agent, args, mem) return thicket.RUNNING end,
  stop = function(agent, args, mem, status) print("stop " .. status .. " tick " .. thicket.tick() .. " t=" .. thicket.time()) end,
}
return L
)");
  const std::string tree = "tree: clock\nleaves: [leaves.lua]\nroot:\n  sequence:\n    - action: {leaf: Work, name: work}\n";
  std::string brain = s.write("brain.yaml", tree + "    - action: {leaf: Work, name: after}\n");
  std::string printed;
  thicket::Runtime rt;
  rt.on_print([&](const std::string& l) { printed += l + "\n"; });
  std::vector<thicket::Diagnostic> d;
  auto b = rt.load_file(brain, d);
  REQUIRE(b);
  auto a = rt.spawn(*b);
  for (int i = 0; i < 3; ++i) rt.tick_all(0.5);
  s.write("brain.yaml", tree.substr(0, tree.find("    - action: {leaf: Work, name: work}")) +
                            "    - action: {leaf: Work, name: after}\n");
  CHECK(rt.reload_changed() == 1);
  // Tick 3 was at t = 1 (it said t=1.5, the time of a tick 4 that had not happened).
  CHECK(printed == "stop aborted tick 3 t=1.0\n");
  rt.tick_all(0.5);  // `after` starts at tick 4, t = 1.5
  rt.despawn(a);
  CHECK(printed == "stop aborted tick 3 t=1.0\nstop aborted tick 4 t=1.5\n");
}

TEST_CASE("reload: files reached through symbolic links, and a folder deleted and made again, keep reloading") {
  Scratch s;
  fs::create_directories(s.dir / "real");
  fs::create_directories(s.dir / "mod");
  s.write("real/leaves.lua", kLeaves);
  s.write("real/brain.yaml", kTree);
  fs::create_symlink("../real/leaves.lua", s.dir / "mod" / "leaves.lua");
  fs::create_symlink("../real/brain.yaml", s.dir / "mod" / "brain.yaml");
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(s.path("mod/brain.yaml"), d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  // The link's target changes (its own folder has no event): seen (it was not).
  std::string v2 = kLeaves;
  v2.replace(v2.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 10");
  s.write("real/leaves.lua", v2);
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 11);

  // A deploy step replaces the whole folder: the new files reload, and so do later edits (the
  // folder's watch died with the old folder, and nothing was seen again).
  fs::remove_all(s.dir / "real");
  CHECK(r.rt.reload_changed() == 0);  // gone: the old version runs on
  fs::create_directories(s.dir / "real");
  s.write("real/brain.yaml", kTree);
  std::string v3 = kLeaves;
  v3.replace(v3.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 100");
  s.write("real/leaves.lua", v3);
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 111);
  s.write("real/leaves.lua", kLeaves);
  CHECK(r.rt.reload_changed() == 1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 112);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: the notice says what changed besides the nodes: keys, defaults, tick_every") {
  r.rt.tick_all(0.1);
  std::string v2 = kTree;
  v2.replace(v2.find("  count: 0\n"), 11, "  count: 5\n");  // a new default
  v2.replace(v2.find("  log: \"\"\n"), 10, "");             // a key removed
  v2.replace(v2.find("leaves: [leaves.lua]"), 0, "tick_every: 2\n");
  s.write("brain.yaml", v2);  // (the Work leaf's writes of bb.log fail from now on: not looked at here)
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("0 removed; blackboard keys removed: log; new defaults (for agents spawned from now on): count; "
                   "tick_every 1 -> 2 for agents spawned from now on (the agents there keep theirs)\n") !=
        std::string::npos);
  CHECK(r.rt.tick_every(a) == 1);
  CHECK(r.rt.tick_every(r.rt.spawn(*b)) == 2);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: the notice names the kept nodes whose settings changed (an edit of args alone)") {
  r.rt.tick_all(0.1);
  std::string v2 = kTree;
  v2.replace(v2.find("{id: a}"), 7, "{id: b}");  // one arg's value: no node added or removed
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("recompiled: 3 nodes kept, 0 added, 0 removed; 1 changed: root/0\n") != std::string::npos);
  // Many changed: the first eight by id, then a count.
  std::string many = "tree: reload\nleaves: [leaves.lua]\nroot:\n  sequence:\n";
  for (int k = 0; k < 10; ++k) many += "    - action: {leaf: Say, args: {id: x}, name: n" + std::to_string(k) + "}\n";
  s.write("brain.yaml", many);
  r.log.clear();
  CHECK(r.rt.reload_changed() == 1);
  std::string many2 = many;
  for (size_t at = many2.find("{id: x}"); at != std::string::npos; at = many2.find("{id: x}")) many2.replace(at, 7, "{id: y}");
  s.write("brain.yaml", many2);
  r.log.clear();
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("11 nodes kept, 0 added, 0 removed; 10 changed: n0, n1, n2, n3, n4, n5, n6, n7 and 2 more\n") !=
        std::string::npos);
  // A touch that changes nothing says nothing changed.
  s.write("brain.yaml", many2 + "# a comment\n");
  r.log.clear();
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("11 nodes kept, 0 added, 0 removed\n") != std::string::npos);
}

TEST_CASE("reload: an active fsm state moved under another parent stops, and the notice counts it aborted") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  const std::string before = R"(
fsm: mv
leaves: [leaves.lua]
blackboard: {count: 0, log: ""}
initial: p
states:
  p:
    states:
      c:
        act: {leaf: Work, args: {id: c}}
  q:
    act: {leaf: Work, args: {id: q}}
)";
  std::string brain = s.write("brain.yaml", before);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick_all(0.1);
  REQUIRE(get_string(r.rt, a, "log") == "start c;");
  // c moves from p to q: it still exists, but p/c is no longer a path of the machine.
  const std::string after = R"(
fsm: mv
leaves: [leaves.lua]
blackboard: {count: 0, log: ""}
initial: p
states:
  p:
    states:
      d:
        act: {leaf: Say, args: {id: d}}
  q:
    act: {leaf: Work, args: {id: q}}
    states:
      c:
        act: {leaf: Work, args: {id: c}}
)";
  s.write("brain.yaml", after);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(get_string(r.rt, a, "log") == "start c;stop c aborted;");
  CHECK(r.log.find("(1 running node(s) aborted)") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a Lua file fixed while its brain waits on it is reported loaded (a game's banner for it stood for good)") {
  // The Lua file breaks (reported failed); the YAML is saved meanwhile (its recompile reads the
  // broken file and fails: the brain waits); the Lua file is fixed: the brain recompiles with
  // it, and both files are reported loaded.
  std::vector<thicket::ReloadReport> reports;
  s.write("leaves.lua", std::string(kLeaves) + "local = =\n");
  CHECK(r.rt.reload_changed(&reports) == 0);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].file == s.path("leaves.lua"));
  CHECK_FALSE(reports[0].ok);
  std::string v2 = kTree;
  v2.replace(v2.find("  log: \"\""), 0, "  extra: 7\n");
  s.write("brain.yaml", v2);
  reports.clear();
  CHECK(r.rt.reload_changed(&reports) == 0);
  for (const auto& rep : reports) CHECK_FALSE(rep.ok);
  s.write("leaves.lua", kLeaves);
  reports.clear();
  CHECK(r.rt.reload_changed(&reports) == 1);
  std::vector<std::pair<std::string, bool>> got;
  for (const auto& rep : reports) got.emplace_back(rep.file, rep.ok);
  CHECK(got == std::vector<std::pair<std::string, bool>>{{brain, true}, {s.path("leaves.lua"), true}});
  CHECK(get_number(r.rt, a, "extra") == 7);
}

namespace {
// A brain of kLeaves plus Mark (a leaf that notes its call in the log), loaded from `before`,
// one agent ticked `ticks` times, then `after` written and reloaded.
// The text of a brain of those leaves called `name`, with `root` the lines under its root.
std::string edit_brain(const std::string& name, const std::string& root) {
  return "tree: " + name + "\nleaves: [leaves.lua]\nblackboard: {count: 0, log: \"\"}\nroot:\n" + root;
}

struct Edit {
  Scratch s;
  Run r;
  thicket::AgentHandle a;
  Edit(const std::string& before, int ticks) {
    s.write("leaves.lua", leaves_with(
        "function L.Mark(agent, args) agent.bb.log = agent.bb.log .. \"mark \" .. args.id .. \";\" return thicket.SUCCESS end\n"
        "function L.No() return false end\n"
        "function L.Seen(agent, args) agent.bb.log = agent.bb.log .. \"eval \" .. args.id .. \";\" return false end"));
    std::vector<thicket::Diagnostic> d;
    auto b = r.rt.load_file(s.write("brain.yaml", before), d);
    REQUIRE(b);
    a = r.rt.spawn(*b);
    for (int k = 0; k < ticks; ++k) r.rt.tick_all(0.1);
  }
  void reload(const std::string& after) {
    s.write("brain.yaml", after);
    REQUIRE(r.rt.reload_changed() == 1);
  }
};
}  // namespace

TEST_CASE("reload: a running node moved under another parent (a branch inserted above it) stops, and starts afresh there") {
  const std::string before = edit_brain("mv", R"(  sequence:
    - sequence:
        - action: {leaf: Mark, args: {id: a}}
        - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 2);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
  REQUIRE(get_number(e.r.rt, e.a, "count") == 2);
  // A new first branch takes root/0's path; the old root/0 is now root/1, a new node, and the
  // named work moved under it: its old parent no longer runs it.
  std::string after = before;
  after.replace(after.find("    - sequence:"), 0, "    - sequence:\n        - action: {leaf: Mark, args: {id: new}}\n");
  e.reload(after);
  INFO(e.r.log);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;");
  CHECK(e.r.log.find("(2 running node(s) aborted)") != std::string::npos);  // root/0 and work
  e.r.rt.tick_all(0.1);
  // Reached again by its new parent, work starts afresh (its mem too), not resumed mid-way.
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;mark new;mark a;start w;");
  CHECK(get_number(e.r.rt, e.a, "count") == 1);
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"root", "root/1", "work"});
}

TEST_CASE("reload: a sequence whose running child is removed, replaced or wrapped goes on after the children it finished") {
  const std::string before = edit_brain("gone", R"(  sequence:
    - action: {leaf: Mark, args: {id: a}, name: a}
    - action: {leaf: Work, args: {id: w}, name: w}
    - action: {leaf: Mark, args: {id: c}, name: c}
)");
  const std::string work = "    - action: {leaf: Work, args: {id: w}, name: w}\n";
  struct Case {
    const char* what;
    std::string instead;  // what takes the running action's place
    const char* then;     // the log after the next tick
  };
  const Case cases[] = {
      // Renamed: the running action's id changes, the old one is gone.
      {"renamed", "    - action: {leaf: Work, args: {id: w}, name: work}\n", "start w;"},
      // Replaced by a node of another kind at its place.
      {"replaced", "    - sequence: [{action: {leaf: Mark, args: {id: b}}}]\n", "mark b;mark c;"},
      // Removed: the sequence goes on with the action after it.
      {"removed", "", "mark c;"},
      // Wrapped in a new branch: it moved under another parent (it stops there), and the
      // branch now in its place starts it afresh.
      {"wrapped", "    - sequence: [{action: {leaf: Work, args: {id: w}, name: w}}]\n", "start w;"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    Edit e(before, 2);
    REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
    std::string after = before;
    after.replace(after.find(work), work.size(), c.instead);
    e.reload(after);
    INFO(e.r.log);
    // Only the running action stops; root keeps its place (it restarted before: `mark a` again).
    CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;");
    CHECK(e.r.log.find("(1 running node(s) aborted)") != std::string::npos);
    e.r.rt.tick_all(0.1);
    CHECK(get_string(e.r.rt, e.a, "log") == std::string("mark a;start w;stop w aborted;") + c.then);
  }
}

TEST_CASE("reload: a sequence whose running child was its last and is removed restarts (nothing is left to go on with)") {
  const std::string before = edit_brain("last", R"(  sequence:
    - action: {leaf: Mark, args: {id: a}, name: a}
    - action: {leaf: Work, args: {id: w}, name: w}
)");
  Edit e(before, 2);
  e.reload(before.substr(0, before.find("    - action: {leaf: Work")));
  INFO(e.r.log);
  CHECK(e.r.log.find("(2 running node(s) aborted)") != std::string::npos);  // root and root/1
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;mark a;");
}

TEST_CASE("reload: a running random_sequence given another child stops its running child and draws again") {
  const std::string before = edit_brain("rs", R"(  random_sequence:
    name: rs
    children:
      - action: {leaf: Mark, args: {id: a}, name: a}
      - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 1);
  REQUIRE(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"rs", "work"});
  std::string after = before + "      - action: {leaf: Mark, args: {id: c}, name: c}\n";
  e.reload(after);
  INFO(e.r.log);
  // Its drawn order named two children: with three it cannot resume (before, its position and
  // order came out blank, running child 0 again and again, and work ran on unstopped).
  const std::string drawn = get_string(e.r.rt, e.a, "log");  // "mark a;" first or not: the draw's
  CHECK(drawn.size() >= 23);
  CHECK(drawn.substr(drawn.size() - 23) == "start w;stop w aborted;");
  CHECK(e.r.log.find("(1 running node(s) aborted)") != std::string::npos);  // rs, and work below it
  e.r.rt.tick_all(0.1);
  const std::string log = get_string(e.r.rt, e.a, "log");
  CHECK(log.find("start w;", log.find("aborted")) != std::string::npos);  // work started again in the new draw
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"rs", "work"});
}

TEST_CASE("reload: a finished random composite whose children changed re-checks in list order, not by its old draw") {
  // Its drawn order named the old places of its children: applied to the new list, the
  // re-checks went in neither the order they were evaluated in nor the list's.
  const std::string before = edit_brain("rr", R"(  selector:
    - random_selector:
        name: R
        abort: lower_priority
        weights: [1, 1000000000000, 1000000]
        children:
          - condition: {leaf: Seen, args: {id: a}, name: a}
          - condition: {leaf: Seen, args: {id: b}, name: b}
          - condition: {leaf: Seen, args: {id: c}, name: c}
    - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 2);
  // Drawn b, c, a; re-checked in that order on tick 2.
  REQUIRE(get_string(e.r.rt, e.a, "log") == "eval b;eval c;eval a;start w;eval b;eval c;eval a;");
  std::string after = before;
  const std::string c_line = "          - condition: {leaf: Seen, args: {id: c}, name: c}\n";
  after.erase(after.find(c_line), c_line.size());
  after.insert(after.find("          - condition: {leaf: Seen, args: {id: a}"), c_line);
  e.reload(after);
  INFO(e.r.log);
  e.r.rt.tick_all(0.1);
  const std::string log = get_string(e.r.rt, e.a, "log");
  CHECK(log.substr(log.size() - 21) == "eval c;eval a;eval b;");  // the new list's order
}

TEST_CASE("reload: a behavior3 leaf's finished run leaves no mem behind for a later run to take as its own") {
  // b3 closes keep the node's mem for the end-of-tick pass's second close; kept past the tick,
  // a later run found it in place: a hook table that came back by two reloads (hooks, a plain
  // function, hooks again) ran on the dead run's mem and its start was skipped.
  Scratch s;
  Run r;
  auto hooks = [](const char* v) {
    return std::string("local thicket = require(\"thicket\")\nlocal L = {}\nL.W = {\n") +
           "  start = function(agent, args, mem) mem.v = \"" + v + "\"; agent.bb.log = agent.bb.log .. \"open " + v +
           ";\" end,\n  tick = function(agent, args, mem) agent.bb.log = agent.bb.log .. \"tick \" .. mem.v .. \";\" " +
           "return thicket.tick() == 1 and thicket.SUCCESS or thicket.RUNNING end,\n}\nreturn L\n";
  };
  s.write("leaves.lua", hooks("v1"));
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(s.write("brain.yaml", "tree: b3\nleaves: [leaves.lua]\nblackboard: {log: \"\"}\nroot:\n  b3_tree:\n    action: W\n"), d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick_all(0.1);  // v1 opens and succeeds: closed
  s.write("leaves.lua", "local thicket = require(\"thicket\")\nreturn {W = function() return thicket.RUNNING end}\n");
  REQUIRE(r.rt.reload_changed() == 1);
  r.rt.tick_all(0.1);  // a plain function, running
  s.write("leaves.lua", hooks("v3"));
  REQUIRE(r.rt.reload_changed() == 1);
  r.rt.tick_all(0.1);  // hooks again: the running run starts as v3's, with a mem of its own
  INFO(r.log);
  CHECK(get_string(r.rt, a, "log") == "open v1;tick v1;open v3;tick v3;");
}

TEST_CASE("reload: an abort mode added to a running sequence keeps its place (a finished action is not run again)") {
  const std::string before = edit_brain("ab", R"(  selector:
    - sequence:
        - condition: No
        - action: {leaf: Mark, args: {id: x}}
    - sequence:
        name: s2
        children:
          - action: {leaf: Mark, args: {id: a}}
          - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 2);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
  std::string after = before;
  after.replace(after.find("        children:"), 0, "        abort: lower_priority\n");
  // (The abort mode gives s2 a stamp beside its position: its state grew from 2 bytes to 8,
  // and was not carried over, so it resumed at child 0.)
  e.reload(after);
  INFO(e.r.log);
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
  CHECK(get_number(e.r.rt, e.a, "count") == 3);
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"root", "s2", "work"});
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a save written in place in two writes is loaded once its writer closes it, never half") {
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  REQUIRE(r.rt.running_nodes(a) == std::vector<std::string>{"root", "work"});
  // The tree with a node added at its end, written as an editor writing in place does: emptied,
  // a first part (valid YAML without the running work), a look between, then the rest.
  const std::string v2 = std::string(kTree) + "    - action: {leaf: Say, args: {id: b}}\n";
  const size_t cut = v2.find("    - action: {leaf: Work");
  const int fd = ::open(brain.c_str(), O_WRONLY | O_TRUNC);
  REQUIRE(fd >= 0);
  CHECK(r.rt.reload_changed() == 0);  // emptied, nothing written: not "the file is empty"
  REQUIRE(::write(fd, v2.data(), cut) == static_cast<ssize_t>(cut));
  CHECK(r.rt.reload_changed() == 0);  // half of it: waited for, work not aborted
  REQUIRE(::write(fd, v2.data() + cut, v2.size() - cut) == static_cast<ssize_t>(v2.size() - cut));
  CHECK(r.rt.reload_changed() == 0);  // all of it, still open
  ::close(fd);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("the file is empty") == std::string::npos);
  CHECK(r.log.find("aborted") == std::string::npos);
  CHECK(r.log.find("nodes kept, 1 added, 0 removed") != std::string::npos);
  CHECK(get_string(r.rt, a, "log") == "start w;");
  CHECK(r.rt.running_nodes(a) == std::vector<std::string>{"root", "work"});
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a change that keeps the file's size and modification time (cp -p, touch -r) is seen") {
  // (As is a chmod that makes an unreadable save readable: the change time moves with both.)
  const auto when = fs::last_write_time(brain);
  std::string v2 = kTree;
  v2.replace(v2.find("{id: a}"), 7, "{id: z}");  // same size
  { std::ofstream(brain, std::ios::trunc) << v2; }
  fs::last_write_time(brain, when);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("1 changed: root/0") != std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a watched file replaced by a loop of symbolic links is said to be one, not gone") {
  fs::remove(s.path("leaves.lua"));
  fs::create_symlink("leaves.lua", s.path("leaves.lua"));  // a link to itself
  r.log.clear();
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.rt.reload_changed() == 0);
  INFO(r.log);
  CHECK(r.log.find(s.path("leaves.lua") + " is a loop of symbolic links (it leads to no file): the running version stays") !=
        std::string::npos);
  CHECK(r.log.find("is gone") == std::string::npos);
}

TEST_CASE_FIXTURE(ReloadFixture, "reload: a save in place is waited for also while another reader opens and closes the file") {
  // The kernel merges identical inotify events that follow one another: the reader's open and
  // the editor's make one, so opens counted went to 0 at the reader's close, mid-save.
  r.rt.tick(a, 0.1);
  const std::string v2 = std::string(kTree) + "    - action: {leaf: Say, args: {id: b}}\n";
  const size_t cut = v2.find("    - action: {leaf: Work");
  const int reader = ::open(brain.c_str(), O_RDONLY);
  const int fd = ::open(brain.c_str(), O_WRONLY | O_TRUNC);
  REQUIRE(reader >= 0);
  REQUIRE(fd >= 0);
  ::close(reader);
  REQUIRE(::write(fd, v2.data(), cut) == static_cast<ssize_t>(cut));
  CHECK(r.rt.reload_changed() == 0);  // half of it: waited for
  REQUIRE(::write(fd, v2.data() + cut, v2.size() - cut) == static_cast<ssize_t>(v2.size() - cut));
  ::close(fd);
  CHECK(r.rt.reload_changed() == 1);
  INFO(r.log);
  CHECK(r.log.find("aborted") == std::string::npos);
  CHECK(r.log.find("nodes kept, 1 added, 0 removed") != std::string::npos);
  // Then a reader holds it while it is saved by rename: later saves in place are not held up.
  const int holder = ::open(brain.c_str(), O_RDONLY);
  REQUIRE(holder >= 0);
  { std::ofstream(brain + ".tmp") << kTree; }
  fs::rename(brain + ".tmp", brain);
  ::close(holder);
  CHECK(r.rt.reload_changed() == 1);
  s.write("brain.yaml", v2);
  CHECK(r.rt.reload_changed() == 1);  // at once, not after the 1 s a stuck count waited
}

TEST_CASE("reload: an imported node that stops (or starts) being run as thicket's kind keeps its agents sound") {
  // lower_imported runs a bt_sequence over leaves as a sequence; a bt_guard added below it
  // makes it a bt_sequence again (another kind at the same id), and taking the guard out
  // lowers it once more.
  const std::string before = edit_brain("lw", R"(  bt_sequence:
    - action: {leaf: Mark, args: {id: a}}
    - action: {leaf: Work, args: {id: w}, name: work}
    - action: {leaf: Mark, args: {id: c}}
)");
  Edit e(before, 2);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
  std::string guarded = before;
  const std::string last = "    - action: {leaf: Mark, args: {id: c}}\n";
  guarded.replace(guarded.find(last), last.size(),
                  "    - bt_guard:\n        skip_if: \"false\"\n        child: {action: {leaf: Mark, args: {id: c}}}\n");
  // Nodes match by id and kind (remap.cpp): the root is a new node, so the running work is
  // stopped; the new bt_sequence starts at its first child, the kept Mark a, which starts fresh
  // under its new parent (it held the success it finished with under the old one: an action
  // holding a finished status gives it again without a call, as BT.CPP's do, so it was skipped).
  e.reload(guarded);
  INFO(e.r.log);
  CHECK(e.r.log.find("(1 running node(s) aborted)") != std::string::npos);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;");
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;mark a;start w;");
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"root", "work"});
  // Back: lowered again, a new node once more, which starts from its first child.
  e.reload(before);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;mark a;start w;stop w aborted;");
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") ==
        "mark a;start w;stop w aborted;mark a;start w;stop w aborted;mark a;start w;");
}

TEST_CASE("reload: a lowered bt_reactive_fallback edited into a bt_reactive_sequence is a new node") {
  // Both run as active_selector (a ReactiveSequence with success and failure exchanged), so the
  // kind they run as is the same; nodes match by that kind and by the kind the file wrote too
  // (remap.cpp), so the edit stops the running work, as any change of kind does.
  const std::string before = edit_brain("rs", R"(  bt_reactive_fallback:
    - action: {leaf: Mark, args: {id: a}}
    - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 2);
  // Mark a succeeds: the fallback is done at its first child, and starts again each tick.
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;mark a;");
  std::string seq = before;
  seq.replace(seq.find("bt_reactive_fallback"), 20, "bt_reactive_sequence");
  e.reload(seq);
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;mark a;mark a;start w;");
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"root", "work"});
  // Back to the fallback while Work runs: a new node, so Work is stopped; the fallback then
  // decides at Mark a.
  e.reload(before);
  INFO(e.r.log);
  CHECK(e.r.log.find("(1 running node(s) aborted)") != std::string::npos);
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;mark a;mark a;start w;stop w aborted;mark a;");
}

TEST_CASE("reload: a running node moved under an imported kind's node (bt_sequence) stops too") {
  const std::string before = edit_brain("b", R"(  sequence:
    - sequence:
        name: s1
        children:
          - action: {leaf: Mark, args: {id: m1}}
          - action: {leaf: Work, args: {id: w}, name: work}
    - bt_sequence:
        name: bs
        children:
          - action: {leaf: Mark, args: {id: other}}
)");
  Edit e(before, 2);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark m1;start w;");
  std::string after = before;
  const std::string moved = "          - action: {leaf: Work, args: {id: w}, name: work}\n";
  after.erase(after.find(moved), moved.size());
  e.reload(after + moved);
  INFO(e.r.log);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark m1;start w;stop w aborted;");
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark m1;start w;stop w aborted;mark m1;mark other;start w;");
}

TEST_CASE("reload: an async bt_sequence whose finished child is removed restarts, not at a place that names another child") {
  // It kept its index (1, the running `work`) and ran `c` beside it: two running children.
  const std::string before = edit_brain("bs", R"(  bt_sequence:
    name: bs
    async: true
    children:
      - action: {leaf: Mark, args: {id: a}, name: a}
      - action: {leaf: Work, args: {id: w}, name: work}
      - action: {leaf: Mark, args: {id: c}, name: c}
)");
  Edit e(before, 3);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;start w;");
  std::string after = before;
  const std::string first = "      - action: {leaf: Mark, args: {id: a}, name: a}\n";
  after.erase(after.find(first), first.size());
  e.reload(after);
  INFO(e.r.log);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;");
  e.r.rt.tick_all(0.1);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;start w;stop w aborted;start w;");
  CHECK(e.r.rt.running_nodes(e.a) == std::vector<std::string>{"bs", "work"});
}

TEST_CASE("reload: a finished node moved into a running parallel runs there; its old result does not count") {
  const std::string before = edit_brain("par", R"(  sequence:
    - action: {leaf: Mark, args: {id: x}, name: x}
    - parallel:
        name: par
        success: all
        children:
          - action: {leaf: Work, args: {id: w}, name: work}
)");
  Edit e(before, 2);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark x;start w;");
  std::string after = before;
  const std::string x = "    - action: {leaf: Mark, args: {id: x}, name: x}\n";
  after.erase(after.find(x), x.size());
  after.insert(after.find("          - action: {leaf: Work"), "          - action: {leaf: Mark, args: {id: x}, name: x}\n");
  e.reload(after);
  e.r.rt.tick_all(0.1);
  INFO(e.r.log);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark x;start w;mark x;");
}

TEST_CASE("reload: a queued event whose sending state the reload removed is traced as dropped") {
  // `work` succeeds in tick 2: its `success` waits for tick 3. A reload renames `work`: the
  // event is stale and dropped (SPEC 4.1), with a trace record now (none was written).
  Scratch s;
  s.write("leaves.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                        "function L.Done(agent) if thicket.tick() >= 2 then return 'success' end return 'running' end\nreturn L\n");
  const char* v1 = "fsm: f\nleaves: [leaves.lua]\nstates:\n"
                   "  work:\n    act: {leaf: Done}\n    transitions: {success: other}\n  other: {}\n";
  const std::string brain = s.write("brain.yaml", v1);
  Run r;
  std::vector<thicket::TraceEvent> events;
  r.rt.on_trace([&](const thicket::TraceEvent& e) {
    if (e.type == thicket::TraceEvent::Type::Event) events.push_back(e);
  });
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  REQUIRE(events.empty());
  std::string v2 = v1;
  v2.replace(v2.find("  work:"), 7, "  job:");
  s.write("brain.yaml", v2);
  REQUIRE(r.rt.reload_changed() == 1);
  INFO(r.log);
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == "success");
  CHECK(events[0].taken_by.empty());
  CHECK(events[0].stale);
  CHECK(events[0].reload);
  CHECK(events[0].from_name == "work");
  CHECK(events[0].tick == 2);
  r.rt.tick(a, 0.1);
  CHECK(events.size() == 1);  // not offered again
}

TEST_CASE("reload: a machine whose running behavior is removed picks again at its next tick, not at its next check") {
  // check_every 10: the machine checked at tick 1. A reload removes the running `a`: it sat
  // idle until its next check, 10 s on.
  Printing p("local thicket = require('thicket')\nlocal L = {}\nfunction L.Yes() return true end\n"
             "L.Run = {tick = function(agent, args) print(thicket.tick() .. ' ' .. args.id) return 'running' end}\n"
             "return L\n",
             "machine: m\nleaves: [leaves.lua]\ncheck_every: 10\nbehaviors:\n"
             "  - {name: a, check: Yes, run: {leaf: Run, args: {id: a}}}\n"
             "  - {name: b, check: Yes, run: {leaf: Run, args: {id: b}}}\n");
  p.r.rt.tick(p.a, 0.1);
  p.r.rt.tick(p.a, 0.1);
  p.reload("machine: m\nleaves: [leaves.lua]\ncheck_every: 10\nbehaviors:\n"
           "  - {name: b, check: Yes, run: {leaf: Run, args: {id: b}}}\n");
  p.r.rt.tick(p.a, 0.1);
  p.r.rt.tick(p.a, 0.1);
  INFO(p.r.log);
  CHECK(p.out == "1 a;2 a;3 b;4 b;");
}

TEST_CASE("reload: a bt_sequence_with_memory whose children changed starts at its first child") {
  // It failed at `no` and keeps its index (1) to resume there (and its halt keeps it too). A new
  // first child moves `no` to 2: the index named `a` then, which it resumed at, skipping the new
  // child. Now it starts at `x` (which, finished fresh, ends the tick: BT.CPP's wake-up).
  const std::string before = edit_brain("sm", R"(  bt_sequence_with_memory:
    name: sm
    children:
      - action: {leaf: Mark, args: {id: a}, name: a}
      - condition: {leaf: No, name: no}
)");
  Edit e(before, 1);
  REQUIRE(get_string(e.r.rt, e.a, "log") == "mark a;");
  std::string after = before;
  after.insert(after.find("      - action: {leaf: Mark, args: {id: a}"), "      - action: {leaf: Mark, args: {id: x}, name: x}\n");
  e.reload(after);
  e.r.rt.tick_all(0.1);
  INFO(e.r.log);
  CHECK(get_string(e.r.rt, e.a, "log") == "mark a;mark x;");
}
