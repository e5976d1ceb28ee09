// bench_grid: how much faster is jump point search than plain A* on the Moving AI maps, and what
// do tactical costs (danger zones) cost A*? (issue 12: JPS >= 10x faster than A* on the 512x512
// maps random512-20-0 and maze512-2-5; published JPS results reach 10-30x.)
//
// For every scenario of the four maps in data/movingai: A* (the baseline: binary heap with
// decrease-key, octile heuristic), JPS (block-based jumps over 64-bit rows, no corner cutting)
// and A* with 20 danger zones placed with a fixed seed on free cells. First every length is
// checked against the published optimum (and JPS against A*), then each scenario is timed with
// the three searches interleaved, rep by rep, so other work on the machine spoils one rep of
// each rather than one search. A scenario's time is its median over the reps; the table gives
// the mean and the median of those over the map's scenarios, and [the mean of each scenario's
// best rep], the figure least spoilt by other work on the machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"
#include "thicket/nav.hpp"

namespace {

using namespace bench;
using namespace thicket::nav;

constexpr int kZones = 20;
constexpr double kZoneRadius = 6;  // cells (the maps are placed with cell size 1)
constexpr double kZoneCost = 50;

struct Figures {
  std::vector<double> per_scenario_us;  // the median over reps of each scenario
  std::vector<double> best_us;          // the best rep of each scenario (least disturbed by load)
  static double mean_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / double(v.size());
  }
  double mean() const { return mean_of(per_scenario_us); }
  double best_mean() const { return mean_of(best_us); }
  double median() const { return median_of(per_scenario_us); }
};

std::vector<DangerZone> place_zones(const GridMap& map, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<DangerZone> zones;
  while (int(zones.size()) < kZones) {
    const Cell c{int(rng() % unsigned(map.width())), int(rng() % unsigned(map.height()))};
    if (map.passable(c)) zones.push_back({map.centre_of(c), kZoneRadius, kZoneCost});
  }
  return zones;
}

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

bool run_map(const std::string& name, int reps) {
  const std::string base = std::string(THICKET_SOURCE_DIR) + "/data/movingai/" + name + ".map";
  std::vector<thicket::Diagnostic> diags;
  auto map = load_grid_map(base, diags);
  if (!map) fail_load(diags);
  auto scen = load_scen(base + ".scen", &*map, diags);
  if (!scen) fail_load(diags);
  const std::vector<DangerZone> zones = place_zones(*map, 3);
  const SearchOptions astar{Algorithm::AStar, {}}, jps{Algorithm::Jps, {}},
      tactical{Algorithm::Auto, std::span<const DangerZone>(zones)};

  GridSearch a, j, t;
  // The first search of a map builds the JPS bit rows (cached by map stamp): time it apart.
  const Cell s0 = scen->front().start, g0 = scen->front().goal;
  const double cold_us = time_ns([&] { j.find(*map, s0, g0, jps); }) / 1e3;

  // Check before timing.
  int a_match = 0, j_match = 0, same = 0, tactical_found = 0, tactical_dearer = 0;
  std::uint64_t a_expanded = 0, j_expanded = 0, t_expanded = 0;
  for (const ScenarioEntry& e : *scen) {
    const bool fa = a.find(*map, e.start, e.goal, astar) == SearchState::Found;
    const bool fj = j.find(*map, e.start, e.goal, jps) == SearchState::Found;
    const bool ft = t.find(*map, e.start, e.goal, tactical) == SearchState::Found;
    a_match += fa && close(a.length(), e.optimal_length, 1e-6);
    j_match += fj && close(j.length(), e.optimal_length, 1e-6);
    same += fa && fj && close(a.cost(), j.cost(), 1e-9) && j.stats().used == Algorithm::Jps;
    tactical_found += ft;
    tactical_dearer += ft && fa && t.cost() >= a.cost() - 1e-9;
    a_expanded += a.stats().expanded;
    j_expanded += j.stats().expanded;
    t_expanded += t.stats().expanded;
  }
  const int n = int(scen->size());
  const bool ok = a_match == n && j_match == n && same == n && tactical_found == n && tactical_dearer == n;

  Figures fa, fj, ft;
  for (const ScenarioEntry& e : *scen) {
    std::vector<double> sa, sj, st;
    for (int r = 0; r < reps; ++r) {
      sa.push_back(time_ns([&] { a.find(*map, e.start, e.goal, astar); }) / 1e3);
      sj.push_back(time_ns([&] { j.find(*map, e.start, e.goal, jps); }) / 1e3);
      st.push_back(time_ns([&] { t.find(*map, e.start, e.goal, tactical); }) / 1e3);
    }
    for (auto [f, v] : {std::pair{&fa, &sa}, std::pair{&fj, &sj}, std::pair{&ft, &st}}) {
      f->per_scenario_us.push_back(median_of(*v));
      f->best_us.push_back(stat_of(*v).best);
    }
  }
  std::vector<double> speedups;
  for (int i = 0; i < n; ++i) speedups.push_back(fa.per_scenario_us[size_t(i)] / fj.per_scenario_us[size_t(i)]);

  std::printf("\n%s (%dx%d, %d scenarios, %d reps each; microseconds per search):\n", name.c_str(), map->width(),
              map->height(), n, reps);
  std::printf("  lengths = published: A* %d/%d, JPS %d/%d; JPS cost = A* cost: %d/%d; tactical found %d/%d "
              "(never cheaper than plain: %d) -> %s\n",
              a_match, n, j_match, n, same, n, tactical_found, n, tactical_dearer, match(ok));
  std::printf("  %-22s %10s %10s %10s %12s %14s\n", "", "mean", "median", "[mean of", "expanded", "buffer bytes");
  std::printf("  %-22s %10s %10s %10s\n", "", "", "", " bests]");
  auto row = [&](const char* label, const Figures& f, std::uint64_t expanded, std::size_t bytes, const char* note) {
    std::printf("  %-22s %10.1f %10.1f [%8.1f] %12.0f %14zu  %s\n", label, f.mean(), f.median(), f.best_mean(),
                double(expanded) / n, bytes, note);
  };
  row("A*", fa, a_expanded, a.stats().buffer_bytes, "(baseline)");
  row("JPS", fj, j_expanded, j.stats().buffer_bytes, "");
  row("A* + 20 danger zones", ft, t_expanded, t.stats().buffer_bytes, "");
  const double speedup_mean = fa.mean() / fj.mean(), speedup_median = median_of(speedups);
  std::printf("  JPS speed-up over A*: %.1fx (of the means), %.1fx (median of per-scenario ratios), %.1fx (of the "
              "bests)%s\n",
              speedup_mean, speedup_median, fa.best_mean() / fj.best_mean(),
              map->width() < 512                                  ? ""
              : std::min(speedup_mean, speedup_median) >= 10 ? "  (goal >= 10x: met)"
              : std::max(speedup_mean, speedup_median) >= 10 ? "  (goal >= 10x: borderline)"
                                                              : "  (goal >= 10x: NOT met)");
  std::printf("  danger zones over plain A*: %.2fx (of the means)\n", ft.mean() / fa.mean());
  std::printf("  JPS's first search of the map (builds its bit rows): %.1f us\n", cold_us);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  // Fewer reps for a quick look: bench_grid 1
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::printf("bench_grid: A* (baseline) vs jump point search vs A* with danger zones, Moving AI maps\n");
  std::printf("load average at start: %s\n", load_average().c_str());
  bool ok = true;
  for (const char* name : {"arena", "AR0500SR", "random512-20-0", "maze512-2-5"}) ok = run_map(name, reps) && ok;
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return consistency(ok, "every length matches the published one; JPS and A* agree",
                     "LENGTHS DIFFER (see the lines above)")
             ? 0
             : 1;
}
