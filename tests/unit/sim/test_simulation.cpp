// Scenario runs (issue 7): the same results for any number of workers, effects after the
// tick in agent-id order, steering moving agents.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "record_file.hpp"
#include "simulation.hpp"

namespace fs = std::filesystem;
using namespace thicket;

namespace {

struct SimDir {
  fs::path dir;
  SimDir() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("thicket_sim_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(dir);
  }
  ~SimDir() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const char* kHunterLua = R"(
local thicket = require("thicket")
local L = {}
-- Hunters chase the nearest prey and strike it when close; prey wander.
L.Hunt = thicket.task(function(agent, args)
  while true do
    local e = agent:nearest(30, {enemies = true})
    if e and e.distance < 1.5 then
      agent:damage(e.id, 40)
      thicket.metric("strikes")
      thicket.wait(0.3)
    elseif e then
      agent:steer{pursue = e.id, separation = 1}
      coroutine.yield()
    else
      agent:steer{wander = 1}
      coroutine.yield()
    end
  end
end)
L.Wander = thicket.task(function(agent, args)
  while true do
    local x, y = agent:position()
    thicket.gauge("prey_left", 1)
    agent.bb.seen = #agent:neighbours(5)
    agent:steer{wander = 1, avoid = 1, flee = {20, 20, weight = 0.3}}
    if thicket.random() < 0.01 then agent:signal(agent.id, "alarm", true) end
    coroutine.yield()
  end
end)
function L.Always() return true end
return L
)";

std::string scenario_text(int hunters, int prey) {
  std::ostringstream s;
  s << "scenario: chase\nseed: 11\nticks: 120\ndt: 0.1\nworld: {size: [40, 40], obstacles: [{circle: [20, 20], radius: 3}]}\n"
    << "teams: [hunters, prey]\ngroups:\n"
    << "  - {name: hunters, team: hunters, count: " << hunters
    << ", brain: hunter.yaml, spawn: {centre: [10, 10], radius: 4}, vehicle: {max_speed: 4, max_force: 10}}\n"
    << "  - {name: prey, team: prey, count: " << prey
    << ", brain: prey.yaml, spawn: {box: [[25, 25], [38, 38]]}, vehicle: {max_speed: 3, max_force: 6}}\n"
    << "metrics: [strikes, prey_left]\n";
  return s.str();
}

// A run's options as the scenario gives them, on `threads` workers.
SimOptions options_of(const ScenarioSpec& spec, uint32_t threads) {
  SimOptions o;
  o.threads = threads;
  o.seed = spec.seed;
  o.ticks = spec.ticks;
  o.dt = spec.dt;
  return o;
}

struct Outcome {
  std::string record;
  RunResult result;
};

Outcome run(SimDir& d, uint32_t threads, int hunters = 6, int prey = 30, const std::string& lua = kHunterLua,
            const std::string& extra_metrics = "") {
  d.write("hunter.lua", lua);
  d.write("hunter.yaml", "machine: hunter\nleaves: [hunter.lua]\nblackboard: {health: 100}\n"
                         "behaviors: [{name: hunt, check: Always, run: Hunt}]\n");
  d.write("prey.yaml", "machine: prey\nleaves: [hunter.lua]\nblackboard: {health: 100, seen: 0, alarm: false}\n"
                       "behaviors: [{name: wander, check: Always, run: Wander}]\n");
  std::string text = scenario_text(hunters, prey);
  if (!extra_metrics.empty()) text.replace(text.find("metrics: [") + 10, 0, extra_metrics + ", ");
  std::string path = d.write("chase.yaml", text);
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(path, diags);
  REQUIRE(spec);
  thicket::RecordString record;
  SimOptions o = options_of(*spec, threads);
  o.record = &record;
  std::string log;
  o.log = [&](const std::string& line) { log += line + "\n"; };
  auto sim = Simulation::create(*spec, o, diags);
  for (const auto& dg : diags) MESSAGE(format_diagnostic(dg));
  REQUIRE(sim);
  Outcome out;
  out.result = sim->run();
  out.record = record.text;
  CHECK(log == "");
  return out;
}

}  // namespace

TEST_CASE("simulation: the same run for 1, 2 and 3 workers, tick by tick") {
  SimDir d;
  Outcome one = run(d, 1), two = run(d, 2), three = run(d, 3);
  CHECK(one.result.metrics.at("strikes") > 0);
  CHECK(one.result.metrics.at("deaths") > 0);  // strikes of 40 kill after three
  CHECK(one.result.agents_at_end < one.result.agents_at_start);
  CHECK(one.record == two.record);
  CHECK(one.record == three.record);
  CHECK(one.result.metrics == two.result.metrics);
  CHECK(one.result.metrics == three.result.metrics);
  CHECK(one.result.agent_ticks == three.result.agent_ticks);
  CHECK(one.result.script_errors == 0);
  // The gauge: prey counted themselves every tick; the last tick's sum is the survivors (plus
  // those killed by that tick's strikes, which still ticked).
  double left = one.result.metrics.at("prey_left");
  CHECK(left >= one.result.agents_at_end - 6);
  CHECK(left <= 30 - (one.result.metrics.at("deaths") - 3));
}

TEST_CASE("simulation: a different seed gives a different run; steering moves agents") {
  SimDir d;
  Outcome a = run(d, 1);
  std::istringstream lines(a.record);
  std::string header, first, last, line;
  std::getline(lines, header);
  std::getline(lines, first);
  while (std::getline(lines, line))
    if (line.rfind("{\"tick\":", 0) == 0) last = line;
  CHECK(header.rfind("{\"format\":\"thicket-record\",\"version\":1,", 0) == 0);
  CHECK(first.rfind("{\"tick\":1,\"agents\":[[1,", 0) == 0);
  CHECK(first != last);
  // Damage kills: strikes of 40 against health 100; each death followed three strikes.
  CHECK(a.result.metrics.at("damage_dealt") == doctest::Approx(40 * a.result.metrics.at("strikes")));
  CHECK(a.result.metrics.at("strikes") >= 3 * a.result.metrics.at("deaths"));
}

TEST_CASE("simulation: unknown metrics and undeclared initial keys are reported") {
  SimDir d;
  d.write("hunter.lua", "local L = {}\nL.Count = function(agent) thicket = require('thicket'); thicket.metric('nope') return true end\n"
                        "function L.Always() return true end\nreturn L\n");
  d.write("hunter.yaml", "machine: hunter\nleaves: [hunter.lua]\nbehaviors: [{name: c, check: Always, run: Count}]\n");
  std::string path = d.write("s.yaml", "scenario: s\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n"
                                        "  - {name: g, team: a, count: 2, brain: hunter.yaml, spawn: {centre: [5, 5], radius: 1},"
                                        " blackboard: {speed: 3}}\n");
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(path, diags);
  REQUIRE(spec);
  SimOptions o;
  o.ticks = 2;
  auto sim = Simulation::create(*spec, o, diags);
  CHECK(!sim);
  bool named = false;
  for (const auto& dg : diags) named = named || dg.message.find("'speed' is not declared") != std::string::npos;
  CHECK(named);
  spec->groups[0].blackboard.clear();
  diags.clear();
  std::string log;
  o.log = [&](const std::string& line) { log += line + "\n"; };
  auto ok = Simulation::create(*spec, o, diags);
  REQUIRE(ok);
  RunResult r = ok->run();
  CHECK(r.script_errors == 4);
  CHECK(log.find("hunter.lua:2: unknown metric 'nope' (none are declared): declare it under 'metrics:' in the scenario") !=
        std::string::npos);
  // A near name of a declared metric gets a did-you-mean.
  spec->metrics = {"nopes", "kills"};
  log.clear();
  auto near = Simulation::create(*spec, o, diags);
  REQUIRE(near);
  near->run();
  CHECK(log.find("unknown metric 'nope'; did you mean 'nopes'?: declare it under 'metrics:' in the scenario") != std::string::npos);
}

// A worker's effects come in agent-id order and are merged, not sorted (sim_phases.cpp)...
// except after a death: the dying prey's task is aborted while the tick's effects are applied,
// and its deferred code damages a hunter and counts a metric, which land first in its worker's
// next list, out of order. That tick is sorted: still the same run for any number of workers
// (without the sort, the metric's total differs between 1 and 2 workers).
TEST_CASE("simulation: effects made by a dying agent's aborted task keep the run the same for any worker count") {
  std::string lua = kHunterLua;
  const std::string wander = "L.Wander = thicket.task(function(agent, args)\n";
  lua.replace(lua.find(wander), wander.size(),
              wander + "  local last <close> = thicket.defer(function() agent:damage(1, 1); thicket.metric(\"last_words\", 1e16) end)\n");
  // Hunters add 1 to the same counter every step: 1e16 + 1 rounds back to 1e16, so the total
  // depends on whether a tick adds the hunters' ones before or after the dead prey's 1e16.
  const std::string hunt = "  while true do\n    local e = agent:nearest(30";
  lua.replace(lua.find(hunt), hunt.size(), "  while true do\n    thicket.metric(\"last_words\", 1)\n    local e = agent:nearest(30");
  SimDir d;
  Outcome one = run(d, 1, 6, 30, lua, "last_words"), two = run(d, 2, 6, 30, lua, "last_words"),
          three = run(d, 3, 6, 30, lua, "last_words");
  CHECK(one.result.metrics.at("deaths") > 0);
  CHECK(one.result.metrics.at("last_words") > 0);
  CHECK(one.result.script_errors == 0);
  CHECK(one.record == two.record);
  CHECK(one.record == three.record);
  CHECK(one.result.metrics == two.result.metrics);
  CHECK(one.result.metrics == three.result.metrics);
}

TEST_CASE("simulation: damage and metric values that are not finite numbers are script errors") {
  // NaN damage made a target's health NaN (it could never die) and spoiled damage_dealt.
  SimDir d;
  d.write("nan.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                     "function L.Hit(agent)\n  if agent.id == 1 and thicket.tick() == 2 then\n"
                     "    agent:damage(2, 0/0)\n  end\n  if agent.id == 1 and thicket.tick() == 3 then\n"
                     "    thicket.metric('strikes', 1/0)\n  end\n"
                     "  if agent.id == 2 and thicket.tick() == 4 then thicket.gauge('level') end\n"  // a gauge has no default
                     "  return 'running'\nend\nreturn L\n");
  d.write("nan.yaml", "tree: nan\nleaves: [nan.lua]\nblackboard: {health: 100}\nroot: {action: Hit}\n");
  std::string path = d.write("s.yaml", "scenario: nan\nticks: 5\nworld: {size: [20, 20]}\nteams: [a]\ngroups:\n"
                                       "  - {name: g, team: a, count: 2, brain: nan.yaml, spawn: {box: [[2, 2], [8, 8]]}}\n"
                                       "metrics: [strikes, level]\n");
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(path, diags);
  REQUIRE(spec);
  SimOptions o = options_of(*spec, 1);
  std::string log;
  o.log = [&](const std::string& line) { log += line + "\n"; };
  auto sim = Simulation::create(*spec, o, diags);
  REQUIRE(sim);
  RunResult r = sim->run();
  CHECK(r.script_errors == 3);
  CHECK(log.find("nan.lua:10: bad argument #2 to 'gauge' (number expected, got no value)") != std::string::npos);
  CHECK(r.metrics.at("level") == 0);
  CHECK(log.find("nan.lua:5: bad argument #2 to 'damage' (damage must be a finite number)") != std::string::npos);
  CHECK(log.find("nan.lua:8: bad argument #2 to 'metric' (a metric's value must be a finite number)") != std::string::npos);
  CHECK(r.metrics.at("damage_dealt") == 0);
  CHECK(r.metrics.at("strikes") == 0);
}
