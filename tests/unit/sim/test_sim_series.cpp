// Scenario runs seen over time (issue 14): --series samples, gauge statistics over ticks,
// --strict, and --watch's reload in every worker (Simulation::reload_changed).
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <regex>

#include "record_file.hpp"
#include "simulation.hpp"

namespace fs = std::filesystem;
using namespace thicket;

namespace {

// A scratch folder; a rewrite moves the file's mtime forward, so that the change is seen
// within the file system's timestamp granularity.
struct Scratch {
  fs::path dir;
  Scratch() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("thicket_series_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
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

// Every agent counts its ticks; from its third tick on it reports the count as a gauge, and
// each tick it adds 1 to the counter `c`. Agent 2 fails in its tick `fail_at` (0: never).
std::string counting_lua(int fail_at) {
  return "local thicket = require('thicket')\nlocal L = {}\n"
         "function L.Count(agent)\n"
         "  agent.n = (agent.n or 0) + 1\n"
         "  thicket.metric('c')\n"
         "  if agent.n >= 3 then thicket.gauge('g', agent.n) end\n"
         "  if agent.id == 2 and agent.n == " + std::to_string(fail_at) + " then error('boom') end\n"
         "  return thicket.RUNNING\nend\nreturn L\n";
}

struct Setup {
  Scratch d;
  std::optional<ScenarioSpec> spec;
  explicit Setup(const std::string& lua, int agents = 4) {
    d.write("count.lua", lua);
    d.write("count.yaml", "tree: count\nleaves: [count.lua]\nroot: {action: Count}\n");
    std::string path = d.write("s.yaml", "scenario: s\nticks: 10\nworld: {size: [10, 10]}\nteams: [a]\ngroups:\n"
                                         "  - {name: g, team: a, count: " + std::to_string(agents) +
                                             ", brain: count.yaml, spawn: {centre: [5, 5], radius: 1}}\n"
                                             "metrics: [g, c]\n");
    std::vector<Diagnostic> diags;
    spec = load_scenario(path, diags);
    REQUIRE(spec);
  }
  std::unique_ptr<Simulation> make(SimOptions o, std::string& log) {
    o.ticks = spec->ticks;
    o.log = [&log](const std::string& line) { log += line + "\n"; };
    std::vector<Diagnostic> diags;
    auto sim = Simulation::create(*spec, o, diags);
    for (const auto& dg : diags) MESSAGE(format_diagnostic(dg));
    REQUIRE(sim);
    return sim;
  }
};

}  // namespace

TEST_CASE("series: CSV and JSONL lines hold every metric in name order at every N-th tick") {
  const std::vector<std::string> names = {"b", "a"};
  SeriesBuffer csv(SeriesFormat::Csv, 2, 1, 7), jsonl(SeriesFormat::Jsonl, 2, 3, 9);
  for (uint64_t t = 1; t <= 4; ++t) {
    csv.sample(t, names, {double(t), 0.1});
    jsonl.sample(t, names, {t == 4 ? std::numeric_limits<double>::infinity() : 2.5, -0.0});
  }
  CHECK(csv.header() == "run,seed,tick,a,b\n");
  CHECK(csv.text() == "1,7,2,0.1,2\n1,7,4,0.1,4\n");
  CHECK(jsonl.header() == "");
  CHECK(jsonl.text() == "{\"run\":3,\"seed\":9,\"tick\":2,\"metrics\":{\"a\":0,\"b\":2.5}}\n"
                        "{\"run\":3,\"seed\":9,\"tick\":4,\"metrics\":{\"a\":0,\"b\":null}}\n");
  // Told the metrics before any tick, a run with no sampled tick still has its whole header.
  SeriesBuffer none(SeriesFormat::Csv, 10, 1, 7);
  CHECK(none.header() == "run,seed,tick\n");
  none.set_names(names);
  none.sample(5, names, {1, 2});
  CHECK(none.header() == "run,seed,tick,a,b\n");
  CHECK(none.text().empty());
  CHECK(series_format("x.csv") == SeriesFormat::Csv);
  CHECK(series_format("x.jsonl") == SeriesFormat::Jsonl);
  CHECK(!series_format("x.txt"));
}

TEST_CASE("simulation: gauge statistics count the ticks from the first report; the series is the same for 1 and 3 workers") {
  Setup s(counting_lua(0));
  std::string texts[2];
  RunResult results[2];
  for (int k = 0; k < 2; ++k) {
    SeriesBuffer series(SeriesFormat::Csv, 1, 1, 1);
    SimOptions o;
    o.threads = k == 0 ? 1 : 3;
    o.series = &series;
    std::string log;
    results[k] = s.make(o, log)->run();
    CHECK(log == "");
    texts[k] = series.header() + series.text();
  }
  CHECK(texts[0] == texts[1]);
  // 4 agents report n from their third tick: 12, 16, ..., 40 over ticks 3..10.
  const RunResult& r = results[0];
  REQUIRE(r.gauges.count("g") == 1);
  const GaugeStats& g = r.gauges.at("g");
  CHECK(g.ticks == 8);
  CHECK(g.min == 12);
  CHECK(g.max == 40);
  CHECK(g.last == 40);
  CHECK(g.mean == doctest::Approx(26));
  CHECK(r.gauges.count("c") == 0);  // a counter has no gauge statistics
  CHECK(r.metrics.at("c") == 40);
  std::istringstream lines(texts[0]);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "run,seed,tick,c,damage_dealt,deaths,g");
  std::getline(lines, line);
  CHECK(line == "1,1,1,4,0,0,0");
  std::getline(lines, line);
  std::getline(lines, line);
  CHECK(line == "1,1,3,12,0,0,12");
}

TEST_CASE("simulation: strict stops the run after the first tick with a script error, that tick finished") {
  Setup s(counting_lua(3));
  SimOptions o;
  o.threads = 2;
  o.strict = true;
  std::string log;
  RunResult r = s.make(o, log)->run();
  CHECK(r.stopped_strict);
  CHECK(r.ticks == 3);
  CHECK(r.script_errors == 1);
  CHECK(r.metrics.at("c") == 12);  // every agent ticked in tick 3
  o.strict = false;
  std::string log2;
  RunResult all = s.make(o, log2)->run();
  CHECK(!all.stopped_strict);
  CHECK(all.ticks == 10);
}

TEST_CASE("simulation: watch reloads a leaf file in every worker between ticks; a broken one in none") {
  Setup s("local thicket = require('thicket')\nlocal L = {}\n"
          "function L.Count(agent) thicket.gauge('g', 1) return thicket.RUNNING end\nreturn L\n",
          6);
  SimOptions o;
  o.threads = 3;
  o.watch = true;
  std::vector<std::vector<ReloadReport>> heard;
  o.on_reload = [&](const std::vector<ReloadReport>& r) { heard.push_back(r); };
  SeriesBuffer series(SeriesFormat::Csv, 1, 1, 1);
  o.series = &series;
  std::string log;
  auto sim = s.make(o, log);
  // The files change after ticks 2 and 5 (progress runs on this thread between ticks), so
  // the run itself says when the reload happens: no wall clock in the verdict.
  sim->run([&](uint64_t done, uint64_t) {
    if (done == 2)
      s.d.write("count.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                             "function L.Count(agent) thicket.gauge('g', 2) return thicket.RUNNING end\nreturn L\n");
    if (done == 5) s.d.write("count.lua", "local L = {\nreturn L\n");
  });
  // g per tick: 6 agents x 1, then x 2 from tick 3 on, in every worker; the broken file changes nothing.
  std::istringstream lines(series.text());
  std::string g;
  for (std::string line; std::getline(lines, line);) g += line.substr(line.rfind(',') + 1) + " ";
  CHECK(g == "6 6 12 12 12 12 12 12 12 12 ");
  REQUIRE(heard.size() == 2);
  REQUIRE(heard[0].size() == 1);
  CHECK(heard[0][0].ok);
  CHECK(heard[0][0].file == (s.d.dir / "count.lua").string());
  REQUIRE(heard[1].size() == 1);
  CHECK(!heard[1][0].ok);
  CHECK(heard[1][0].first_error.find("count.lua") != std::string::npos);
  // Each notice once, not once per worker.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = log.find(what); at != std::string::npos; at = log.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(": reloaded ") == 1);
  CHECK(count(": reload of ") == 1);
}

TEST_CASE("simulation: a watch reload's notice counts the running nodes it aborted in every worker") {
  // Count runs for ever (RUNNING): a reload that removes it aborts it in each of the 6 agents,
  // which 3 workers hold. The notice (worker 0's) said 2, its own.
  Setup s("local thicket = require('thicket')\nlocal L = {}\n"
          "function L.Count(agent) return thicket.RUNNING end\nreturn L\n",
          6);
  for (uint32_t threads : {1u, 3u}) {
    s.d.write("count.yaml", "tree: count\nleaves: [count.lua]\nroot: {action: Count}\n");
    SimOptions o;
    o.threads = threads;
    o.watch = true;
    std::string log;
    auto sim = s.make(o, log);
    sim->run([&](uint64_t done, uint64_t) {
      if (done == 2) s.d.write("count.yaml", "tree: count\nleaves: [count.lua]\nroot: {wait: {seconds: 100, name: w}}\n");
    });
    CAPTURE(threads);
    CHECK(log.find("(6 running node(s) aborted)") != std::string::npos);
    CHECK(log.find(": reloaded ") == log.rfind(": reloaded "));  // once
  }
}

TEST_CASE("simulation: a reload's stop hooks print in agent order and a leaf file's top level once, on any number of threads") {
  // Each agent runs Count for ever; a reload after tick 2 removes it, so each of the 6 agents'
  // stop hook prints. The workers reload one after another (workers 1.. first): on 2 or 3
  // threads the lines came out a3..a6 then a1, a2, and the leaf file's top-level print (at the
  // load, and again as the reload re-runs it) once per worker.
  Setup s("local thicket = require('thicket')\nprint('leaf file loaded')\nlocal L = {}\n"
          "L.Count = {tick = function(agent) return thicket.RUNNING end,\n"
          "  stop = function(agent, args, mem, status) print('a' .. agent.id .. ' ' .. status) end}\nreturn L\n",
          6);
  std::string first;
  for (uint32_t threads : {1u, 2u, 3u}) {
    s.d.write("count.yaml", "tree: count\nleaves: [count.lua]\nroot: {action: Count}\n");
    SimOptions o;
    o.threads = threads;
    o.watch = true;
    std::string out;  // prints and log lines, as they came
    o.print = [&out](const std::string& line) { out += line + "\n"; };
    std::string log;
    auto sim = s.make(o, log);
    sim->run([&](uint64_t done, uint64_t) {
      if (done == 2) s.d.write("count.yaml", "tree: count\nleaves: [count.lua]\nroot: {wait: {seconds: 100, name: w}}\n");
    });
    CAPTURE(threads);
    CHECK(out == "leaf file loaded\nleaf file loaded\na1 aborted\na2 aborted\na3 aborted\na4 aborted\na5 aborted\na6 aborted\n");
    CHECK(log.find("(6 running node(s) aborted)") != std::string::npos);
  }
}

namespace {
// The scenario at `path`, run with --watch (its own ticks, options `o` else), its log kept in
// `log`.
std::unique_ptr<Simulation> watched(const std::string& path, SimOptions o, std::string& log) {
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(path, diags);
  for (const auto& dg : diags) MESSAGE(format_diagnostic(dg));
  REQUIRE(spec);
  o.ticks = spec->ticks;
  o.watch = true;
  o.log = [&log](const std::string& line) { log += line + "\n"; };
  auto sim = Simulation::create(*spec, o, diags);
  for (const auto& dg : diags) MESSAGE(format_diagnostic(dg));
  REQUIRE(sim);
  return sim;
}

// A watched scenario on two threads with its series, per tick, and its log kept.
struct WatchedSeries {
  SeriesBuffer series{SeriesFormat::Csv, 1, 1, 1};
  std::string log;
  std::unique_ptr<Simulation> sim;
  explicit WatchedSeries(const std::string& path) {
    SimOptions o;
    o.threads = 2;
    o.series = &series;
    sim = watched(path, o, log);
  }
};

// Two watchers (their brain watcher.yaml, written by the caller) that see a still target, their
// sight's `seen` written into the key `spotted`: the scenario's path.
std::string watchers_scenario(Scratch& d, int ticks, const std::string& metrics) {
  d.write("target.yaml", "tree: target\nleaves: [look.lua]\nroot: {action: Idle}\n");
  return d.write(
      "s.yaml",
      "scenario: s\nticks: " + std::to_string(ticks) + "\nworld: {size: [20, 20]}\nteams: [a, b]\ngroups:\n"
      "  - {name: watchers, team: a, count: 2, brain: watcher.yaml, spawn: {centre: [5, 5], radius: 1},"
      " vehicle: {max_speed: 0.001}, senses: {sight: {cones: [{range: 30, angle: 360}]}, blackboard: {seen: spotted}}}\n"
      "  - {name: targets, team: b, count: 1, brain: target.yaml, spawn: {centre: [8, 8], radius: 1}, vehicle: {max_speed: 0.001}}\n"
      "metrics: [" + metrics + "]\n");
}
}  // namespace

TEST_CASE("simulation: after a watch reload, senses write into the new version's blackboard slots") {
  Scratch d;
  const char* lua = "local thicket = require('thicket')\nlocal L = {}\n"
                    "function L.Look(agent)\n"
                    "  if agent.bb.spotted then thicket.gauge('spotted', 1) end\n"
                    "  if agent.bb.alert then thicket.gauge('alert', 1) end\n"
                    "  return thicket.RUNNING\nend\nfunction L.Idle() return thicket.RUNNING end\nreturn L\n";
  d.write("look.lua", lua);
  d.write("watcher.yaml", "tree: watcher\nleaves: [look.lua]\nblackboard: {spotted: false, alert: false}\nroot: {action: Look}\n");
  std::string path = watchers_scenario(d, 6, "spotted, alert");
  WatchedSeries w(path);
  // Version 2 declares the keys the other way round: the slot `seen` was bound to is now `alert`.
  w.sim->run([&](uint64_t done, uint64_t) {
    if (done == 2)
      d.write("watcher.yaml", "tree: watcher\nleaves: [look.lua]\nblackboard: {alert: false, spotted: false}\nroot: {action: Look}\n");
  });
  CHECK(w.log.find("reloaded") != std::string::npos);
  CHECK_MESSAGE(w.log.find("error") == std::string::npos, w.log);
  // Columns: alert, damage_dealt, deaths, spotted.
  std::istringstream lines(w.series.text());
  std::string got;
  for (std::string line; std::getline(lines, line);) {
    std::string rest = line.substr(6);  // after "1,1,T,"
    got += rest.substr(0, rest.find(',')) + "/" + rest.substr(rest.rfind(',') + 1) + " ";
  }
  CHECK(got == "0/2 0/2 0/2 0/2 0/2 0/2 ");
}

TEST_CASE("simulation: a sense's key removed by one reload and declared again by the next is written again") {
  // A mistaken save dropped the key `seen` writes, and the save a moment later put it back:
  // the binding stayed dropped ("not written until the run restarts"), and the watchers never
  // saw again, silently.
  Scratch d;
  d.write("look.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                      "function L.Look(agent)\n  if agent.bb.spotted then thicket.gauge('spotted', 1) end\n"
                      "  return thicket.RUNNING\nend\nfunction L.Idle() return thicket.RUNNING end\nreturn L\n");
  const std::string v1 = "tree: watcher\nleaves: [look.lua]\nblackboard: {spotted: false}\nroot: {action: Look}\n";
  d.write("watcher.yaml", v1);
  std::string path = watchers_scenario(d, 8, "spotted");
  WatchedSeries w(path);
  w.sim->run([&](uint64_t done, uint64_t) {
    if (done == 2) d.write("watcher.yaml", "tree: watcher\nleaves: [look.lua]\nroot: {action: Look}\n");
    if (done == 4) d.write("watcher.yaml", v1);
  });
  INFO(w.log);
  CHECK(w.log.find("senses of group 'watchers' can no longer write 'seen' into blackboard key 'spotted'") != std::string::npos);
  CHECK(w.log.find("senses of group 'watchers' write 'seen' into blackboard key 'spotted' again") != std::string::npos);
  // The last column is `spotted`: both watchers see the target before the first reload and
  // after the second.
  std::istringstream lines(w.series.text());
  std::vector<std::string> spotted;
  for (std::string line; std::getline(lines, line);) spotted.push_back(line.substr(line.rfind(',') + 1));
  REQUIRE(spotted.size() >= 8);
  CHECK(spotted[spotted.size() - 8] == "2");
  CHECK(spotted.back() == "2");
}

TEST_CASE("simulation: after a watch reload, the record's keys are read from the new version's slots") {
  // The record kept the slots of the first version: a reload that reordered the keys recorded
  // another key's value under the name, and a dropped key's slot went on being read.
  Scratch d;
  d.write("idle.lua", "local thicket = require('thicket')\nlocal L = {}\nfunction L.Idle() return thicket.RUNNING end\nreturn L\n");
  d.write("pair.yaml", "tree: pair\nleaves: [idle.lua]\nblackboard: {home: 0, other: 1}\nroot: {action: Idle}\n");
  std::string path = d.write(
      "s.yaml",
      "scenario: s\nticks: 6\nworld: {size: [20, 20]}\nteams: [a]\ngroups:\n"
      "  - {name: west, team: a, count: 1, brain: pair.yaml, spawn: {centre: [5, 5], radius: 1}, blackboard: {home: 40}}\n"
      "  - {name: east, team: a, count: 1, brain: pair.yaml, spawn: {centre: [15, 5], radius: 1}, blackboard: {home: 50}}\n");
  SimOptions o;
  o.threads = 1;
  o.record_keys = {"home", "other"};
  RecordString record;
  o.record = &record;
  std::string log;
  auto sim = watched(path, o, log);
  sim->run([&](uint64_t done, uint64_t) {
    if (done == 2)  // the same keys, the other way round
      d.write("pair.yaml", "tree: pair\nleaves: [idle.lua]\nblackboard: {other: 1, home: 0}\nroot: {action: Idle}\n");
    if (done == 4)  // 'other' dropped
      d.write("pair.yaml", "tree: pair\nleaves: [idle.lua]\nblackboard: {home: 0}\nroot: {action: Idle}\n");
  });
  CHECK_MESSAGE(log.find("error") == std::string::npos, log);
  // Each tick line's agents end with their recorded keys: [home, other].
  std::istringstream lines(record.text);
  std::string got;
  const std::regex keys(R"re(",\[([^\[\]]*)\]\])re");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"tick\":", 0) != 0) continue;
    for (auto m = std::sregex_iterator(line.begin(), line.end(), keys); m != std::sregex_iterator(); ++m)
      got += (*m)[1].str() + " ";
    got += "| ";
  }
  CHECK(got == "40,1 50,1 | 40,1 50,1 | 40,1 50,1 | 40,1 50,1 | 40,null 50,null | 40,null 50,null | ");
}
