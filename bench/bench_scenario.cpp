// bench_scenario: what does a scenario run cost per agent-tick, how much do two threads buy, what
// do neighbour queries cost, and how much memory does an agent take? (issue 7 "Benchmark")
//
// Scenarios. The two examples, scripts/examples/arena (minions guarding two posts against
// wandering players; behavior machine + tree, coroutine tasks, nearest-enemy queries, damage)
// and scripts/examples/flock (one Lua leaf per boid steering with separation, alignment and
// cohesion over a 6 m radius, plus a 1 m neighbours() call every tick), each scaled to 1,000 and
// 10,000 agents: copies of the scenario files are written to a temporary folder with every
// group's count scaled (largest remainder, so the total is exact) and the brains referenced by
// absolute path. The world size, obstacles, spawn areas, seed and dt stay the example's, so the
// 10k scenarios are 10x as dense as the 1k ones (neighbour queries return ~10x as many agents).
//
// Checks first (untimed): every scaled scenario runs on 1 and on 2 threads with --record into an
// std::ostringstream; results (agent-ticks, metrics, statuses, agents alive, script errors) and
// the records (positions and statuses of every agent every tick) must be byte-identical. Every
// timed run's result is compared with those too.
//
// Throughput: per scenario, reps of one fresh Simulation run on 1 thread and one on 2 threads,
// interleaved (the order alternating rep by rep), creation untimed; ns per agent-tick = run()
// wall time / agent-ticks. Speed-up 1 -> 2 threads as the ratio of medians, of bests, and the
// median over ticks and reps of the per-tick ratio (the runs are identical tick by tick, so a
// tick of the 1-thread run and the same tick of the 2-thread run do the same work; a burst of
// other work on the machine spoils a few ticks, not the figure).
//
// Work split: in each 2-thread run, the CPU time of the main thread (worker 0 plus the serial
// part of every tick) and of the pool's thread (worker 1) over ticks 2..T, read from
// /proc/self/task/*/schedstat in the progress callback: the speed-up the split allows, and how
// much more CPU the same work takes on 2 cores than on 1.
//
// Neighbour queries: a world::World with the scenario's tick-1 positions (its spawn areas and
// seed, placed as Simulation::create places them), a SpatialHash of the cell size the
// simulation uses, and the queries the example's Lua makes, from every agent that makes them:
// per query, beside a brute-force scan over all entities (the results must be equal); entries
// examined per query from QueryCost. Then the hash rebuild per tick beside a plain pass copying
// every live position (the floor of any per-tick pass), and the motion step (timed on one thread
// as the baseline; runs now split it over the workers, each moving its own agents). Per query,
// beside the entries it examined, those the same cells hold of every team: what the hash read
// before its cells were grouped by team (the baseline of per-team cells).
//
// Memory: process-level, mallinfo2 (in-use arena bytes + mmapped blocks) before and after
// Simulation::create and after the timed run, divided by agents; the marginal cost of an agent
// (10k minus 1k) and of a second worker; and the C++ state per agent piece by piece
// (Runtime::bytes_per_agent, SimAgent, world::Entity, force, slot map, spatial hash entry).
//
// The machine's own 2-core scaling, measured beside every rep (the baseline of the speed-up): a
// kernel with no shared data (each half updates its own 512 KB table at pseudo-random places),
// both halves in turn on one thread and then each on its own thread. On the VMs of these
// measurements it gave anything from 1.7x to 2.0x from one minute to the next (pure arithmetic
// stays at 2.0x), which moves the scenarios' speed-ups with it.
//
// The load average is printed at start and end, and the CPU time other processes used during
// the timed runs (from /proc/stat minus this process's getrusage): on a 2-core machine, another
// busy process makes the 2-thread figures unreliable.
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <lua.hpp>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "agent.hpp"
#include "harness.hpp"
#include "sim/record_file.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_internal.hpp"
#include "sim/simulation.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace {

namespace fs = std::filesystem;
namespace w = thicket::world;
using namespace bench;

// ---- common ------------------------------------------------------------------------------------

double load1() {
  std::ifstream in("/proc/loadavg");
  double a = -1;
  in >> a;
  return a;
}

[[noreturn]] void fail(const std::string& what, const std::vector<thicket::Diagnostic>& diags) {
  std::fprintf(stderr, "bench_scenario: %s\n", what.c_str());
  for (const auto& d : diags) std::fprintf(stderr, "  %s:%d:%d: %s\n", d.file.c_str(), d.line, d.column, d.message.c_str());
  std::exit(1);
}

// ---- the scaled scenarios ---------------------------------------------------------------------

// The examples' folder: beside this source file (../scripts/examples), else under the working
// directory, else argv[1].
fs::path examples_dir(int argc, char** argv) {
  std::vector<fs::path> tries;
  if (argc > 1) tries.push_back(argv[1]);
  tries.push_back(fs::path(__FILE__).parent_path().parent_path() / "scripts" / "examples");
  tries.push_back(fs::current_path() / "scripts" / "examples");
  for (const auto& p : tries)
    if (fs::exists(p / "arena" / "arena.yaml") && fs::exists(p / "flock" / "flock.yaml")) return fs::canonical(p);
  std::fprintf(stderr, "bench_scenario: cannot find scripts/examples (give its path as the first argument)\n");
  std::exit(1);
}

// The scenario file with every `count:` scaled so they add up to `total` (largest remainder)
// and every `brain:` made absolute.
std::string scaled_yaml(const fs::path& file, uint32_t total) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex count_re(R"(^(\s*(?:-\s*)?)count:\s*(\d+)\s*$)"), brain_re(R"(^(\s*(?:-\s*)?)brain:\s*(\S+)\s*$)");
  std::vector<size_t> at;
  std::vector<double> counts;
  std::smatch m;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_match(lines[i], m, count_re)) {
      at.push_back(i);
      counts.push_back(std::stod(m[2]));
    } else if (std::regex_match(lines[i], m, brain_re)) {
      lines[i] = m[1].str() + "brain: " + fs::weakly_canonical(file.parent_path() / m[2].str()).string();
    }
  }
  double sum = 0;
  for (double c : counts) sum += c;
  std::vector<uint32_t> scaled(counts.size());
  std::vector<std::pair<double, size_t>> remainder;
  uint32_t given = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    double exact = counts[k] * total / sum;
    scaled[k] = static_cast<uint32_t>(std::floor(exact));
    given += scaled[k];
    remainder.push_back({-(exact - scaled[k]), k});
  }
  std::sort(remainder.begin(), remainder.end());
  for (size_t k = 0; given < total; ++k, ++given) ++scaled[remainder[k % remainder.size()].second];
  for (size_t k = 0; k < at.size(); ++k) {
    std::regex_match(lines[at[k]], m, count_re);
    lines[at[k]] = m[1].str() + "count: " + std::to_string(scaled[k]);
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct Scenario {
  std::string label;  // e.g. "flock 10k"
  std::string kind;   // "arena" or "flock"
  thicket::ScenarioSpec spec;
  uint32_t agents = 0;
  uint64_t ticks = 0;  // per timed run
  int reps = 0;
};

// ---- running -----------------------------------------------------------------------------------

struct Run {
  thicket::RunResult result;
  double ns = 0;                 // run() wall time
  std::vector<double> tick_ns;   // each tick's wall time
  std::string record;            // with record = true
  size_t heap_before = 0, heap_created = 0, heap_after_run = 0;
  // 2 threads: CPU time of the main thread (worker 0 and the serial part) and of the pool's
  // thread (worker 1) over ticks 2..T, and the wall time of those ticks.
  double main_cpu_ns = 0, pool_cpu_ns = 0, split_wall_ns = 0;
};

// CPU time (ns spent on a CPU, /proc/self/task/TID/schedstat) of each thread of this process.
std::map<int, double> thread_cpu_ns() {
  std::map<int, double> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(e.path() / "schedstat");
    double ns = 0;
    if (in >> ns) out[std::atoi(e.path().filename().c_str())] = ns;
  }
  return out;
}

Run simulate(const thicket::ScenarioSpec& spec, uint32_t threads, uint64_t ticks, bool record) {
  Run run;
  std::vector<Clock::time_point> stamps;
  stamps.reserve(ticks + 1);
  thicket::RecordString rec;
  thicket::SimOptions o;
  o.threads = threads;
  o.seed = spec.seed;
  o.ticks = ticks;
  o.dt = spec.dt;
  if (record) o.record = &rec;
  std::vector<thicket::Diagnostic> diags;
  run.heap_before = heap_in_use();
  auto sim = thicket::Simulation::create(spec, o, diags);
  if (!sim) fail("could not create the simulation of " + spec.path, diags);
  run.heap_created = heap_in_use();
  std::map<int, double> cpu_first, cpu_last;
  stamps.push_back(Clock::now());
  run.result = sim->run([&](uint64_t done, uint64_t total) {
    stamps.push_back(Clock::now());
    if (threads > 1 && done == 1) cpu_first = thread_cpu_ns();
    if (threads > 1 && done == total) cpu_last = thread_cpu_ns();
  });
  run.ns = std::chrono::duration<double, std::nano>(Clock::now() - stamps.front()).count();
  if (threads > 1 && ticks > 1) {
    const int self = static_cast<int>(gettid());
    for (const auto& [tid, ns] : cpu_last)
      if (cpu_first.count(tid)) (tid == self ? run.main_cpu_ns : run.pool_cpu_ns) += ns - cpu_first[tid];
    run.split_wall_ns = std::chrono::duration<double, std::nano>(stamps[ticks] - stamps[1]).count();
  }
  run.heap_after_run = heap_in_use();
  for (size_t k = 1; k < stamps.size(); ++k)
    run.tick_ns.push_back(std::chrono::duration<double, std::nano>(stamps[k] - stamps[k - 1]).count());
  if (record) run.record = rec.text;
  return run;
}

bool same_result(const thicket::RunResult& a, const thicket::RunResult& b) {
  return a.ticks == b.ticks && a.agent_ticks == b.agent_ticks && a.metrics == b.metrics && a.statuses == b.statuses &&
         a.agents_at_start == b.agents_at_start && a.agents_at_end == b.agents_at_end && a.script_errors == b.script_errors;
}

std::string metrics_line(const thicket::RunResult& r) {
  std::string s;
  char buf[96];
  for (const auto& [k, v] : r.metrics) {
    std::snprintf(buf, sizeof buf, "%s%s %.0f", s.empty() ? "" : ", ", k.c_str(), v);
    s += buf;
  }
  return s;
}

// ---- neighbour queries -------------------------------------------------------------------------

// Tick-1 positions as Simulation::create places them (same stream, same order).
w::Vec2 spawn_point(const thicket::SpawnArea& area, thicket::Rng& rng) {
  if (area.shape == thicket::SpawnArea::Shape::Box)
    return {area.min.x + (area.max.x - area.min.x) * rng.uniform(), area.min.y + (area.max.y - area.min.y) * rng.uniform()};
  double r = area.radius * std::sqrt(rng.uniform()), a = 2 * M_PI * rng.uniform();
  return {area.centre.x + r * std::cos(a), area.centre.y + r * std::sin(a)};
}

struct Placed {
  w::World world{w::Bounds{}};
  std::vector<std::string> group_of;  // by slot: the group's team name
  double cell = 4.0;
};

std::unique_ptr<Placed> place(const thicket::ScenarioSpec& spec) {
  auto p = std::make_unique<Placed>();
  p->world = w::World(spec.bounds);
  for (const auto& o : spec.obstacles) p->world.add_obstacle(o);
  thicket::Rng rng = thicket::Rng::seeded(spec.seed, 0x5eed5eedULL);
  for (const auto& g : spec.groups) {
    int32_t team = static_cast<int32_t>(std::find(spec.teams.begin(), spec.teams.end(), g.team) - spec.teams.begin());
    for (uint32_t k = 0; k < g.count; ++k) {
      p->world.spawn(spawn_point(g.spawn, rng), g.vehicle, team);
      p->group_of.push_back(g.team);
    }
    p->cell = std::max(p->cell, 4 * g.vehicle.radius);  // as Simulation::create sizes its hash
  }
  return p;
}

// One kind of query the example's Lua makes, from the positions of the agents that make it.
struct QueryKind {
  std::string what;
  bool nearest = false;
  double radius = 0;
  std::string asker_team;  // "" = every agent asks
  enum class Teams { Any, Same, Enemies, Only } teams = Teams::Any;
  std::string only_team;
};

w::QueryFilter filter_for(const QueryKind& q, const w::Entity& me, const thicket::ScenarioSpec& spec) {
  w::QueryFilter f;
  f.excluded = me.id;
  if (q.teams == QueryKind::Teams::Same) f.teams = w::TeamFilter::only(me.team);
  if (q.teams == QueryKind::Teams::Enemies) f.teams = w::TeamFilter::all_but(me.team);
  if (q.teams == QueryKind::Teams::Only)
    f.teams = w::TeamFilter::only(
        static_cast<int32_t>(std::find(spec.teams.begin(), spec.teams.end(), q.only_team) - spec.teams.begin()));
  return f;
}

bool passes(const w::QueryFilter& f, const w::Entity& e) { return e.alive && e.id != f.excluded && f.teams.accepts(e.team); }

// Brute force: every entity examined.
void brute_within(const w::World& world, w::Vec2 c, double r, std::vector<w::EntityId>& out, const w::QueryFilter& f) {
  out.clear();
  const double r2 = r * r;
  for (const w::Entity& e : world.entities())
    if (passes(f, e) && (e.position - c).length_squared() <= r2) out.push_back(e.id);
}
w::EntityId brute_nearest(const w::World& world, w::Vec2 c, double r, const w::QueryFilter& f) {
  w::EntityId best = w::EntityId::none();
  double best_d2 = r * r;
  for (const w::Entity& e : world.entities()) {
    if (!passes(f, e)) continue;
    double d2 = (e.position - c).length_squared();
    if (d2 < best_d2 || (d2 == best_d2 && (best.is_none() || e.id < best))) {
      best = e.id;
      best_d2 = d2;
    }
  }
  return best;
}

struct QueryFigures {
  std::string what;
  size_t askers = 0;
  double hash_ns = 0, hash_best = 0, brute_ns = 0, brute_best = 0;
  double entries = 0, cells = 0, found = 0;  // per query
  double all_team_entries = 0;  // per query: what the same cells hold of every team (the hash before per-team cells)
  bool agree = true;
};

QueryFigures time_queries(const Placed& p, const thicket::ScenarioSpec& spec, const w::SpatialHash& hash, const QueryKind& q,
                          int reps) {
  QueryFigures fig;
  fig.what = q.what;
  std::vector<const w::Entity*> askers;
  for (const w::Entity& e : p.world.entities())
    if (q.asker_team.empty() || p.group_of[e.id.index()] == q.asker_team) askers.push_back(&e);
  fig.askers = askers.size();
  std::vector<w::QueryFilter> filters;
  for (const w::Entity* e : askers) filters.push_back(filter_for(q, *e, spec));
  // Check: the hash and the scan give the same answers, for every asker.
  std::vector<w::EntityId> a, b;
  w::QueryCost cost, all_teams;
  uint64_t found = 0;
  for (size_t k = 0; k < askers.size(); ++k) {
    w::QueryFilter any_team = filters[k];
    any_team.teams = w::TeamFilter::any();
    if (q.nearest) hash.nearest(askers[k]->position, q.radius, any_team, &all_teams);
    else hash.within_radius(askers[k]->position, q.radius, a, any_team, &all_teams);
    if (q.nearest) {
      w::EntityId x = hash.nearest(askers[k]->position, q.radius, filters[k], &cost);
      fig.agree = fig.agree && x == brute_nearest(p.world, askers[k]->position, q.radius, filters[k]);
      found += !x.is_none();
    } else {
      hash.within_radius(askers[k]->position, q.radius, a, filters[k], &cost);
      brute_within(p.world, askers[k]->position, q.radius, b, filters[k]);
      fig.agree = fig.agree && a == b;
      found += a.size();
    }
  }
  const double n = static_cast<double>(askers.size());
  fig.entries = static_cast<double>(cost.entries) / n;
  fig.all_team_entries = static_cast<double>(all_teams.entries) / n;
  fig.cells = static_cast<double>(cost.cells) / n;
  fig.found = static_cast<double>(found) / n;
  // Timing: all askers through the hash, then (a strided subset, at most 1,000) through the scan.
  const size_t stride = std::max<size_t>(1, askers.size() / 1000);
  size_t brute_n = 0;
  for (size_t k = 0; k < askers.size(); k += stride) ++brute_n;
  std::vector<double> th, tb;
  uint64_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    th.push_back(time_ns([&] {
                   for (size_t k = 0; k < askers.size(); ++k) {
                     if (q.nearest)
                       sink += hash.nearest(askers[k]->position, q.radius, filters[k]).bits;
                     else {
                       hash.within_radius(askers[k]->position, q.radius, a, filters[k]);
                       sink += a.size();
                     }
                   }
                 }) /
                 n);
    tb.push_back(time_ns([&] {
                   for (size_t k = 0; k < askers.size(); k += stride) {
                     if (q.nearest)
                       sink += brute_nearest(p.world, askers[k]->position, q.radius, filters[k]).bits;
                     else {
                       brute_within(p.world, askers[k]->position, q.radius, b, filters[k]);
                       sink += b.size();
                     }
                   }
                 }) /
                 static_cast<double>(brute_n));
  }
  if (sink == 42) std::printf(" ");
  Stat h = stat_of(th), s = stat_of(tb);
  fig.hash_ns = h.median;
  fig.hash_best = h.best;
  fig.brute_ns = s.median;
  fig.brute_best = s.best;
  return fig;
}

std::vector<QueryKind> queries_of(const std::string& kind) {
  if (kind == "flock")
    return {{"within_radius 6 m, own team (steer: separation/alignment/cohesion)", false, 6.0, "", QueryKind::Teams::Same, ""},
            {"within_radius 1 m, anyone (neighbours(1.0))", false, 1.0, "", QueryKind::Teams::Any, ""}};
  return {{"nearest 10 m, enemies (minion EnemyNear)", true, 10.0, "minions", QueryKind::Teams::Enemies, ""},
          {"nearest 12 m, enemies (minion Hunt)", true, 12.0, "minions", QueryKind::Teams::Enemies, ""},
          {"nearest 8 m, team minions (player MinionNear)", true, 8.0, "players", QueryKind::Teams::Only, "minions"}};
}

// ---- the per-tick serial parts we can time from outside -----------------------------------------

struct SerialFigures {
  double rebuild_ns = 0, rebuild_best = 0, copy_ns = 0, move_ns = 0, fill_ns = 0;
  size_t hash_bytes = 0;  // malloc'd by a hash built for these entities
};

SerialFigures time_serial(Placed& p, int reps, int block) {
  SerialFigures f;
  size_t h0 = heap_in_use();
  auto hash = std::make_unique<w::SpatialHash>(p.cell);
  hash->rebuild(p.world);
  f.hash_bytes = heap_in_use() - h0;
  std::vector<w::Vec2> copy(p.world.entities().size()), forces(p.world.entities().size());
  uint64_t rng = 99;
  for (auto& v : forces) v = {w::random_signed_unit(rng), w::random_signed_unit(rng)};
  std::vector<double> tr, tc, tm, tf;
  for (int r = 0; r < reps; ++r) {
    tr.push_back(time_ns([&] {
                   for (int k = 0; k < block; ++k) hash->rebuild(p.world);
                 }) /
                 block);
    tc.push_back(time_ns([&] {
                   for (int k = 0; k < block; ++k) {
                     size_t n = 0;
                     for (const w::Entity& e : p.world.entities())
                       if (e.alive) copy[n++] = e.position;
                     asm volatile("" ::"r"(copy.data()) : "memory");
                   }
                 }) /
                 block);
    tf.push_back(time_ns([&] {
                   for (int k = 0; k < block; ++k) {
                     std::fill(copy.begin(), copy.end(), w::Vec2{0, 0});
                     asm volatile("" ::"r"(copy.data()) : "memory");
                   }
                 }) /
                 block);
    // The motion step moves the entities: on a copy of the world, so the queries' world stays.
    w::World moving = p.world;
    tm.push_back(time_ns([&] {
                   for (int k = 0; k < block; ++k) moving.move_entities(forces, 0.1);
                 }) /
                 block);
  }
  Stat r = stat_of(tr);
  f.rebuild_ns = r.median;
  f.rebuild_best = r.best;
  f.copy_ns = median_of(tc);
  f.move_ns = median_of(tm);
  f.fill_ns = median_of(tf);
  return f;
}

// The control: both halves on this thread, then each half on its own thread; returns the ratio
// of the two wall times. ~25 ms on one thread.
double machine_speedup() {
  struct Half {
    std::vector<uint32_t> table = std::vector<uint32_t>(std::size_t(1) << 17);  // 512 KB
    uint64_t state;
    uint64_t sum = 0;
    explicit Half(uint64_t seed) : state(seed) {}
    void run(uint64_t steps) {
      for (uint64_t i = 0; i < steps; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t& cell = table[(state >> 33) & (table.size() - 1)];
        cell += uint32_t(state);
        sum += cell;
      }
    }
  };
  constexpr uint64_t kSteps = 6'000'000;
  Half a(1), b(2);
  a.run(kSteps / 8);  // warm both tables
  b.run(kSteps / 8);
  const double one = time_ns([&] {
    a.run(kSteps);
    b.run(kSteps);
  });
  const double two = time_ns([&] {
    std::thread other([&] { b.run(kSteps); });
    a.run(kSteps);
    other.join();
  });
  asm volatile("" ::"r"(a.sum + b.sum));
  return one / two;
}

}  // namespace

int main(int argc, char** argv) {
  const auto wall0 = Clock::now();
  const fs::path ex = examples_dir(argc, argv);
  const double load_start = load1();
  std::printf(
      "bench_scenario: the arena and flock example scenarios scaled to 1k and 10k agents (issue 7 \"Benchmark\")\n"
      "(%s; %ld cores online; load average at start: %s)\n",
      LUA_RELEASE, sysconf(_SC_NPROCESSORS_ONLN), load_average().c_str());

  // The scaled scenario files.
  TempDir dir("bench_scenario_scaled");
  std::vector<Scenario> scenarios;
  for (const char* kind : {"arena", "flock"})
    for (uint32_t n : {1000u, 10000u}) {
      Scenario s;
      s.kind = kind;
      s.label = std::string(kind) + (n == 1000 ? " 1k" : " 10k");
      s.agents = n;
      const fs::path src = ex / kind / (std::string(kind) + ".yaml");
      std::string file = dir.write(std::string(kind) + "_" + std::to_string(n) + ".yaml", scaled_yaml(src, n));
      std::vector<thicket::Diagnostic> diags;
      auto spec = thicket::load_scenario(file, diags);
      if (!spec) fail("could not load the scaled scenario " + file, diags);
      s.spec = *spec;
      uint32_t total = 0;
      for (const auto& g : s.spec.groups) total += g.count;
      if (total != n) {
        std::fprintf(stderr, "bench_scenario: %s has %u agents, wanted %u\n", file.c_str(), total, n);
        return 1;
      }
      // Ticks per timed run and reps (the whole benchmark must stay under 90 s on 2 cores):
      // 0.2 M agent-ticks a run at 1k, 0.6 M at 10k.
      s.ticks = n == 1000 ? 200 : 60;
      s.reps = n == 1000 ? 5 : 3;
      scenarios.push_back(std::move(s));
    }
  std::printf("\nscenarios (examples from %s; world size, obstacles, spawn areas, seed, dt as in the example):\n",
              ex.string().c_str());
  for (const auto& s : scenarios) {
    std::string groups;
    for (const auto& g : s.spec.groups) groups += (groups.empty() ? "" : ", ") + g.name + " " + std::to_string(g.count);
    const double area = (s.spec.bounds.max.x - s.spec.bounds.min.x) * (s.spec.bounds.max.y - s.spec.bounds.min.y);
    std::printf("  %-9s %5u agents (%s) in %.0f x %.0f m = %.3f agents/m^2; %llu ticks a run, dt %.2f s, seed %llu\n",
                s.label.c_str(), s.agents, groups.c_str(), s.spec.bounds.max.x - s.spec.bounds.min.x,
                s.spec.bounds.max.y - s.spec.bounds.min.y, s.agents / area, u(s.ticks), s.spec.dt, u(s.spec.seed));
  }

  // ---- consistency: 1 vs 2 threads, results and records ----
  std::printf(
      "\nconsistency, 1 vs 2 threads (the timed runs' ticks, with --record into an std::ostringstream):\n");
  bool consistent = true;
  std::vector<thicket::RunResult> reference;
  for (const auto& s : scenarios) {
    Run one = simulate(s.spec, 1, s.ticks, true), two = simulate(s.spec, 2, s.ticks, true);
    bool same = same_result(one.result, two.result), rec = one.record == two.record && !one.record.empty();
    bool clean = one.result.script_errors == 0 && one.result.agent_ticks > 0;
    consistent = consistent && same && rec && clean;
    std::printf("  %-9s results %s, records %s (%.1f MB each), script errors %llu; agents %u -> %u; %s\n", s.label.c_str(),
                match(same), match(rec), one.record.size() / 1e6, u(one.result.script_errors), one.result.agents_at_start,
                one.result.agents_at_end, metrics_line(one.result).c_str());
    reference.push_back(one.result);
  }

  // ---- throughput ----
  std::printf(
      "\nthroughput (fresh Simulation per run, creation untimed; 1- and 2-thread runs interleaved;\n"
      "median of the reps, best in brackets):\n");
  std::printf("  %-9s %7s %5s  %22s  %22s  %s\n", "scenario", "agent-", "reps", "1 thread", "2 threads",
              "speed-up 1 -> 2 threads (goal >= 1.8x)");
  std::printf("  %-9s %7s %5s  %22s  %22s  %s\n", "", "ticks", "", "ns/agent-tick  Mat/s", "ns/agent-tick  Mat/s",
              "medians  bests  per-tick median  machine");
  const CpuClock cpu0 = CpuClock::now();
  const auto timed0 = Clock::now();
  bool timed_same = true;
  struct Throughput {
    Stat ns1, ns2;
    double per_tick_speedup = 0;
    double tick1_ns = 0;  // median 1-thread tick
    double main_cpu = 0, pool_cpu = 0, split_wall = 0;  // 2 threads, ticks 2..T: medians over reps
    double one_wall = 0;                                // 1 thread, ticks 2..T: median over reps
    double machine = 0;                                 // the control's speed-up: median over reps
    size_t mem_created = 0, mem_after_run = 0, mem_created2 = 0;
  };
  std::vector<Throughput> tp(scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    std::vector<double> n1, n2, ratios, ticks1, main_cpu, pool_cpu, split_wall, one_wall, machine;
    for (int r = 0; r < s.reps; ++r) {
      machine.push_back(machine_speedup());
      Run a, b;
      if (r % 2 == 0) {
        a = simulate(s.spec, 1, s.ticks, false);
        b = simulate(s.spec, 2, s.ticks, false);
      } else {
        b = simulate(s.spec, 2, s.ticks, false);
        a = simulate(s.spec, 1, s.ticks, false);
      }
      timed_same = timed_same && same_result(a.result, reference[i]) && same_result(b.result, reference[i]);
      n1.push_back(a.ns / static_cast<double>(a.result.agent_ticks));
      n2.push_back(b.ns / static_cast<double>(b.result.agent_ticks));
      for (size_t t = 0; t < a.tick_ns.size() && t < b.tick_ns.size(); ++t) ratios.push_back(a.tick_ns[t] / b.tick_ns[t]);
      ticks1.insert(ticks1.end(), a.tick_ns.begin(), a.tick_ns.end());
      main_cpu.push_back(b.main_cpu_ns);
      pool_cpu.push_back(b.pool_cpu_ns);
      split_wall.push_back(b.split_wall_ns);
      double w1 = 0;
      for (size_t t = 1; t < a.tick_ns.size(); ++t) w1 += a.tick_ns[t];
      one_wall.push_back(w1);
      if (r == 0) {
        tp[i].mem_created = a.heap_created - a.heap_before;
        tp[i].mem_after_run = a.heap_after_run - a.heap_before;
        tp[i].mem_created2 = b.heap_created - b.heap_before;
      }
    }
    tp[i].ns1 = stat_of(n1);
    tp[i].ns2 = stat_of(n2);
    tp[i].per_tick_speedup = median_of(ratios);
    tp[i].tick1_ns = median_of(ticks1);
    tp[i].main_cpu = median_of(main_cpu);
    tp[i].pool_cpu = median_of(pool_cpu);
    tp[i].split_wall = median_of(split_wall);
    tp[i].one_wall = median_of(one_wall);
    tp[i].machine = median_of(machine);
    const Throughput& t = tp[i];
    std::printf("  %-9s %6.2fM %5d  %9.0f [%6.0f] %5.2f  %9.0f [%6.0f] %5.2f  %6.2fx %6.2fx %8.2fx %7.2fx\n", s.label.c_str(),
                reference[i].agent_ticks / 1e6, s.reps, t.ns1.median, t.ns1.best, 1e3 / t.ns1.median, t.ns2.median,
                t.ns2.best, 1e3 / t.ns2.median, t.ns1.median / t.ns2.median, t.ns1.best / t.ns2.best, t.per_tick_speedup,
                t.machine);
  }
  const double timed_s = std::chrono::duration<double>(Clock::now() - timed0).count();
  const CpuClock cpu1 = CpuClock::now();
  const double others = std::max(0.0, (cpu1.machine_busy - cpu0.machine_busy) - (cpu1.self - cpu0.self));
  std::printf("  (Mat/s = million agent-ticks per second; every timed run's results equal the checked ones: %s;\n"
              "   machine = what 2 threads gave on a kernel sharing no data, timed before each rep: the ceiling the\n"
              "   machine allowed at the time)\n",
              timed_same ? "yes" : "NO");
  std::printf(
      "  other processes used %.2f CPU-s during the %.1f s of timed runs (%.0f%% of one core; this process %.2f CPU-s)\n",
      others, timed_s, 100.0 * others / timed_s, cpu1.self - cpu0.self);

  // ---- where the 2-thread time goes ----
  std::printf(
      "\nwork split of the 2-thread runs (CPU time of each thread over ticks 2..T, /proc/self/task/*/schedstat,\n"
      "median over reps; the main thread runs worker 0 and the serial part, the pool's thread worker 1;\n"
      "agents go to workers in contiguous id ranges, ids in group order):\n");
  std::printf("  %-9s %-44s %-30s %8s %8s %8s %7s %8s %8s %10s\n", "scenario", "worker 0 (main thread)",
              "worker 1 (pool thread)", "main ms", "pool ms", "wall ms", "split", "ceiling", "measured", "extra CPU");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    // The split Simulation::create makes: worker = (id - 1) * K / total.
    std::vector<std::map<std::string, uint32_t>> holds(2);
    uint32_t id = 0;
    for (const auto& g : s.spec.groups)
      for (uint32_t k = 0; k < g.count; ++k, ++id) ++holds[(uint64_t(id) * 2) / s.agents][g.name];
    std::string held[2];
    for (int wk = 0; wk < 2; ++wk)
      for (const auto& [name, n] : holds[wk]) held[wk] += (held[wk].empty() ? "" : ", ") + name + " " + std::to_string(n);
    const Throughput& t = tp[i];
    const double total = t.main_cpu + t.pool_cpu;
    std::printf("  %-9s %-44s %-30s %8.1f %8.1f %8.1f %3.0f:%-3.0f %7.2fx %7.2fx %9.0f%%\n", s.label.c_str(),
                held[0].c_str(), held[1].c_str(), t.main_cpu / 1e6, t.pool_cpu / 1e6, t.split_wall / 1e6,
                100 * t.main_cpu / total, 100 * t.pool_cpu / total, total / std::max(t.main_cpu, t.pool_cpu),
                t.per_tick_speedup, std::round(100 * (total / t.one_wall - 1)) + 0.0);
  }
  std::printf(
      "  (ceiling = (main + pool) / busier thread: the speed-up this split of the CPU time allows, were there no\n"
      "   waiting; measured = the per-tick median speed-up above. main ms ~ wall ms: the main thread never waits,\n"
      "   it sets the pace. extra CPU = (main + pool) / the 1-thread run's wall time over the same ticks - 1: what\n"
      "   running the same work on 2 cores costs on top, barrier sleeps and wake-ups and cache lines moving between\n"
      "   the cores included)\n");
  std::string met, missed;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.2fx (machine %.2fx)", scenarios[i].label.c_str(), tp[i].per_tick_speedup,
                  tp[i].machine);
    std::string& to = tp[i].per_tick_speedup >= 1.8 ? met : missed;
    to += (to.empty() ? "" : ", ") + std::string(buf);
  }
  std::printf("  goal >= 1.8x (per-tick median): met by %s; missed by %s\n", met.empty() ? "none" : met.c_str(),
              missed.empty() ? "none" : missed.c_str());

  // ---- neighbour queries and per-tick serial parts ----
  std::printf(
      "\nneighbour queries on the scenarios' tick-1 positions (SpatialHash, cell as the simulation's; every\n"
      "agent that makes the query asks once; ns per query, median [best] of 5; brute force = scan of all entities,\n"
      "timed on up to 1,000 askers; entries = entities examined per query (QueryCost); all teams = what the same\n"
      "cells hold of every team, which the hash read before its cells were grouped by team; found = results per query):\n");
  std::printf("  %-9s %-66s %6s %12s %14s %8s %8s %9s %7s %6s\n", "scenario", "query", "askers", "hash ns", "brute ns",
              "speedup", "entries", "all teams", "found", "agree");
  bool queries_agree = true;
  std::vector<SerialFigures> serial(scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    auto placed = place(s.spec);
    w::SpatialHash hash(placed->cell);
    hash.rebuild(placed->world);
    for (const QueryKind& q : queries_of(s.kind)) {
      QueryFigures f = time_queries(*placed, s.spec, hash, q, 5);
      queries_agree = queries_agree && f.agree;
      std::printf("  %-9s %-66s %6zu %6.0f [%4.0f] %7.0f [%5.0f] %7.0fx %8.1f %9.1f %7.1f %6s\n", s.label.c_str(), f.what.c_str(),
                  f.askers, f.hash_ns, f.hash_best, f.brute_ns, f.brute_best, f.brute_ns / f.hash_ns, f.entries,
                  f.all_team_entries, f.found, match(f.agree));
    }
    serial[i] = time_serial(*placed, 7, s.agents >= 10000 ? 20 : 100);
  }
  std::printf(
      "\nper-tick serial work (done by one thread between the parallel phases), on the same worlds, median of 7:\n"
      "  %-9s %14s %12s %14s %12s %10s %10s %22s %16s\n",
      "scenario", "hash rebuild", "per entity", "position copy", "force fill", "motion", "serial sum", "of a 1-thread tick",
      "with motion");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const SerialFigures& f = serial[i];
    const double sum = f.rebuild_ns + f.fill_ns;
    const double frac = sum / tp[i].tick1_ns;
    std::printf("  %-9s %11.1f us %9.1f ns %11.1f us %9.1f us %7.1f us %7.1f us %7.2f%% (of %6.2f ms) %15.2f%%\n",
                scenarios[i].label.c_str(), f.rebuild_ns / 1e3, f.rebuild_ns / scenarios[i].agents, f.copy_ns / 1e3,
                f.fill_ns / 1e3, f.move_ns / 1e3, sum / 1e3, 100 * frac, tp[i].tick1_ns / 1e6,
                100 * (sum + f.move_ns) / tp[i].tick1_ns);
  }
  std::printf(
      "  (motion: every live entity moved once, on one thread; in a run each worker moves its own agents, so it is\n"
      "   not in the serial sum; with motion = the serial share when motion was serial, the baseline;\n"
      "   position copy: a plain pass copying every live position, the floor of any per-tick pass over the entities;\n"
      "   a serial share s caps the 2-thread speed-up at 1 / (s + (1 - s) / 2): 1.8x needs s <= 11%%)\n");

  // ---- memory ----
  std::printf("\nmemory per agent (mallinfo2: arena bytes in use + mmapped blocks):\n");
  std::printf("  %-9s %26s %26s %26s\n", "scenario", "after create, 1 thread", "after the timed run", "after create, 2 threads");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const double n = scenarios[i].agents;
    std::printf("  %-9s %10.2f MB = %6.0f B/agent %10.2f MB = %6.0f B/agent %10.2f MB = %6.0f B/agent\n",
                scenarios[i].label.c_str(), tp[i].mem_created / 1e6, tp[i].mem_created / n, tp[i].mem_after_run / 1e6,
                tp[i].mem_after_run / n, tp[i].mem_created2 / 1e6, tp[i].mem_created2 / n);
  }
  for (size_t i = 0; i + 1 < scenarios.size(); i += 2) {
    const double d = static_cast<double>(tp[i + 1].mem_created) - static_cast<double>(tp[i].mem_created);
    std::printf(
        "  %-5s marginal (10k - 1k) / 9,000 = %.0f B/agent (with the slack of vectors grown by doubling); a second\n"
        "        worker (its Runtime, Lua state, brains loaded again) adds %.2f MB at 1k\n",
        scenarios[i].kind.c_str(), d / (scenarios[i + 1].agents - scenarios[i].agents),
        (static_cast<double>(tp[i].mem_created2) - static_cast<double>(tp[i].mem_created)) / 1e6);
  }
  std::printf("  (after the run: the Lua heaps also hold garbage not yet collected)\n");
  // The C++ state of one agent, piece by piece.
  {
    std::printf("  C++ state per agent, piece by piece:\n");
    for (const char* brain : {"arena/minion.yaml", "arena/player.yaml", "flock/boid.yaml"}) {
      thicket::Runtime rt;
      std::vector<thicket::Diagnostic> diags;
      auto b = rt.load_file((ex / brain).string(), diags);
      if (b)
        std::printf("    Runtime::bytes_per_agent(%s) = %zu bytes (state block + AgentInfo %zu)\n", brain,
                    rt.bytes_per_agent(*b), sizeof(thicket::AgentInfo));
      else
        std::printf("    Runtime::bytes_per_agent(%s): the brain does not load outside a simulation\n", brain);
    }
    const double hash10k = static_cast<double>(serial[1].hash_bytes) / scenarios[1].agents;
    std::printf(
        "    simulation: SimAgent %zu + world::Entity %zu + force %zu + slot->agent map %zu + spatial hash %.0f (measured at\n"
        "    10k) = %.0f bytes per agent besides the brain's; the rest of the figures above is the Lua heap (agent table,\n"
        "    blackboard userdata, per-agent memory tables, task coroutines) and malloc's own overhead\n",
        sizeof(thicket::SimAgent), sizeof(w::Entity), sizeof(w::Vec2), sizeof(uint32_t), hash10k,
        sizeof(thicket::SimAgent) + sizeof(w::Entity) + sizeof(w::Vec2) + sizeof(uint32_t) + hash10k);
  }

  const double load_end = load1();
  const double total_s = std::chrono::duration<double>(Clock::now() - wall0).count();
  std::printf("\nload average at end: %s (this benchmark keeps up to 2 threads busy; %.1f s in all)\n", load_average().c_str(),
              total_s);
  // The verdict goes by the CPU time other processes took while the runs were timed: the load
  // average lags (a 1-minute average still shows work that ended a minute ago).
  const double other_share = others / timed_s;
  const bool busy = other_share > 0.15;
  std::printf(
      "  the machine was %s: other processes used %.0f%% of a core during the timed runs (load average %.2f at\n"
      "  start, %.2f at end)%s\n",
      busy ? "NOT quiet" : "quiet", 100.0 * other_share, load_start, load_end,
      busy ? ";\n  the 2-thread figures and the speed-up are unreliable (other work takes part of the 2 cores)"
      : other_share > 0.05 ? "; the 2-thread figures may be a little low"
      : load_start > 1.0   ? "; the load average lags: it still counts work that ended up to a minute before"
                           : "");
  const bool all = consistent && timed_same && queries_agree;
  std::printf("\n");
  return consistency(all, "1- and 2-thread runs gave identical results and records; hash queries equal brute force",
                     "MISMATCH (see above)")
             ? 0
             : 1;
}
