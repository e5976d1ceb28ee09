// Hot reload (SPEC 10) through the C++ API: files change at known ticks, deterministically.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

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

}  // namespace

TEST_CASE("reload: a changed Lua leaf is used from the next call on; running hooks keep their mem") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
  CHECK(r.rt.reload_changed() == 0);  // nothing changed yet
  std::string v2 = kLeaves;
  v2.replace(v2.find("mem.n = mem.n + 1"), 17, "mem.n = mem.n + 10");
  s.write("leaves.lua", v2);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("reload: ") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 12);  // the running Work kept mem.n = 2, new code adds 10
  CHECK(get_string(r.rt, a, "log") == "start w;");
}

TEST_CASE("reload: a broken Lua file changes nothing and is reported; fixing it reloads") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
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
  CHECK(r.log.find("'Work' is no longer defined here") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 3);
  s.write("leaves.lua", std::string(kLeaves) + "\n-- fixed\n");
  CHECK(r.rt.reload_changed() == 1);
}

TEST_CASE("reload: on_reload is called after a Lua file reloads") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  std::string v2 = kLeaves;
  v2.replace(v2.find("return L"), 8, "function L.on_reload() thicket.log('reloaded!') end\nreturn L");
  s.write("leaves.lua", v2);
  CHECK(r.rt.reload_changed() == 1);
  CHECK(r.log.find("reloaded!") != std::string::npos);
}

TEST_CASE("reload: a recompiled tree keeps running nodes and blackboard values; removed running nodes are aborted") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
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
  CHECK(r.log.find("nodes kept") != std::string::npos);
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

TEST_CASE("reload: a broken tree, or a blackboard key that changes type, leaves the old brain running") {
  Scratch s;
  s.write("leaves.lua", kLeaves);
  std::string brain = s.write("brain.yaml", kTree);
  Run r;
  std::vector<thicket::Diagnostic> d;
  auto b = r.rt.load_file(brain, d);
  REQUIRE(b);
  auto a = r.rt.spawn(*b);
  r.rt.tick(a, 0.1);
  std::string before = r.rt.dump(*b);
  std::string broken = kTree;
  broken.replace(broken.find("sequence:"), 9, "sequense:");
  s.write("brain.yaml", broken);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("did you mean 'sequence'") != std::string::npos);
  CHECK(r.rt.dump(*b) == before);
  std::string retyped = kTree;
  retyped.replace(retyped.find("count: 0"), 8, "count: \"zero\"");
  s.write("brain.yaml", retyped);
  CHECK(r.rt.reload_changed() == 0);
  CHECK(r.log.find("changed type from number to string") != std::string::npos);
  r.rt.tick(a, 0.1);
  CHECK(get_number(r.rt, a, "count") == 2);
}
