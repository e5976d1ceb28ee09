// bench_grid: how much faster is jump point search than plain A* on the Moving AI maps, and what
// do tactical costs (danger zones) cost A*? (issue 12: JPS >= 10x faster than A* on the 512x512
// maps random512-20-0 and maze512-2-5; published JPS results reach 10-30x.)
//
// For every scenario of the four maps in data/movingai: A* (the baseline: binary heap with
// decrease-key, octile heuristic), JPS (block-based jumps over 64-bit rows, no corner cutting)
// with the octile heuristic, JPS with landmarks (the max of the octile distance and a
// differential heuristic from 16 landmarks; the default) and A* with 20 danger zones placed
// with a fixed seed on free cells. First every length is
// checked against the published optimum (and JPS against A*), then each scenario is timed with
// the three searches interleaved, rep by rep, so other work on the machine spoils one rep of
// each rather than one search. A scenario's time is its median over the reps; the table gives
// the mean and the median of those over the map's scenarios.
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
  double mean() const {
    double s = 0;
    for (double v : per_scenario_us) s += v;
    return per_scenario_us.empty() ? 0 : s / double(per_scenario_us.size());
  }
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
  const SearchOptions astar{Algorithm::AStar, {}}, jps{Algorithm::Jps, {}, false}, alt{Algorithm::Jps, {}, true},
      tactical{Algorithm::Auto, std::span<const DangerZone>(zones)};

  GridSearch a, j, l, t;
  // The first search of a map builds the JPS bit rows, and with landmarks their distance
  // tables (both cached by map stamp): time them apart.
  const Cell s0 = scen->front().start, g0 = scen->front().goal;
  const double cold_us = time_ns([&] { j.find(*map, s0, g0, jps); }) / 1e3;
  const double cold_alt_us = time_ns([&] { l.find(*map, s0, g0, alt); }) / 1e3;
  const std::size_t table_bytes = l.stats().table_bytes;  // bit rows, jump distances, landmarks

  // Check before timing.
  int a_match = 0, j_match = 0, l_match = 0, same = 0, tactical_found = 0, tactical_dearer = 0;
  std::uint64_t a_expanded = 0, j_expanded = 0, l_expanded = 0, t_expanded = 0;
  for (const ScenarioEntry& e : *scen) {
    const bool fa = a.find(*map, e.start, e.goal, astar) == SearchState::Found;
    const bool fj = j.find(*map, e.start, e.goal, jps) == SearchState::Found;
    const bool fl = l.find(*map, e.start, e.goal, alt) == SearchState::Found;
    const bool ft = t.find(*map, e.start, e.goal, tactical) == SearchState::Found;
    a_match += fa && close(a.length(), e.optimal_length, 1e-6);
    j_match += fj && close(j.length(), e.optimal_length, 1e-6);
    l_match += fl && close(l.length(), e.optimal_length, 1e-6);
    same += fa && fj && fl && close(a.cost(), j.cost(), 1e-9) && close(a.cost(), l.cost(), 1e-9) &&
            j.stats().used == Algorithm::Jps && l.stats().used == Algorithm::Jps;
    tactical_found += ft;
    tactical_dearer += ft && fa && t.cost() >= a.cost() - 1e-9;
    a_expanded += a.stats().expanded;
    j_expanded += j.stats().expanded;
    l_expanded += l.stats().expanded;
    t_expanded += t.stats().expanded;
  }
  const int n = int(scen->size());
  const bool ok = a_match == n && j_match == n && l_match == n && same == n && tactical_found == n && tactical_dearer == n;

  Figures fa, fj, fl, ft;
  for (const ScenarioEntry& e : *scen) {
    std::vector<double> sa, sj, sl, st;
    for (int r = 0; r < reps; ++r) {
      sa.push_back(time_ns([&] { a.find(*map, e.start, e.goal, astar); }) / 1e3);
      sj.push_back(time_ns([&] { j.find(*map, e.start, e.goal, jps); }) / 1e3);
      sl.push_back(time_ns([&] { l.find(*map, e.start, e.goal, alt); }) / 1e3);
      st.push_back(time_ns([&] { t.find(*map, e.start, e.goal, tactical); }) / 1e3);
    }
    fa.per_scenario_us.push_back(median_of(sa));
    fj.per_scenario_us.push_back(median_of(sj));
    fl.per_scenario_us.push_back(median_of(sl));
    ft.per_scenario_us.push_back(median_of(st));
  }
  std::vector<double> speedups, alt_speedups;
  for (int i = 0; i < n; ++i) {
    speedups.push_back(fa.per_scenario_us[size_t(i)] / fj.per_scenario_us[size_t(i)]);
    alt_speedups.push_back(fa.per_scenario_us[size_t(i)] / fl.per_scenario_us[size_t(i)]);
  }

  std::printf("\n%s (%dx%d, %d scenarios, %d reps each; microseconds per search):\n", name.c_str(), map->width(),
              map->height(), n, reps);
  std::printf("  lengths = published: A* %d/%d, JPS %d/%d, JPS+landmarks %d/%d; both JPS costs = A* cost: %d/%d; "
              "tactical found %d/%d (never cheaper than plain: %d) -> %s\n",
              a_match, n, j_match, n, l_match, n, same, n, tactical_found, n, tactical_dearer, match(ok));
  std::printf("  %-22s %10s %10s %12s %14s\n", "", "mean", "median", "expanded", "own buffers");
  auto row = [&](const char* label, const Figures& f, std::uint64_t expanded, std::size_t bytes, const char* note) {
    std::printf("  %-22s %10.1f %10.1f %12.0f %14zu  %s\n", label, f.mean(), f.median(), double(expanded) / n, bytes,
                note);
  };
  row("A*", fa, a_expanded, a.stats().buffer_bytes, "(baseline)");
  row("JPS", fj, j_expanded, j.stats().buffer_bytes, "(octile)");
  row("JPS + landmarks", fl, l_expanded, l.stats().buffer_bytes, "(the default)");
  row("A* + 20 danger zones", ft, t_expanded, t.stats().buffer_bytes, "");
  std::printf("  JPS speed-up over A*: %.1fx (of the means), %.1fx (median of per-scenario ratios)\n",
              fa.mean() / fj.mean(), median_of(speedups));
  std::printf("  JPS + landmarks speed-up over A*: %.1fx (of the means), %.1fx (median of per-scenario ratios)\n",
              fa.mean() / fl.mean(), median_of(alt_speedups));
  std::printf("  danger zones over plain A*: %.2fx (of the means)\n", ft.mean() / fa.mean());
  std::printf("  JPS's first search of the map (builds its bit rows): %.1f us\n", cold_us);
  std::printf("  JPS + landmarks' first search (bit rows, components, %d landmarks' distances): %.1f ms, "
              "the tables (shared by every search of the map) %zu bytes (%.1f a cell)\n",
              l.stats().landmarks, cold_alt_us / 1e3, table_bytes, double(table_bytes) / (double(map->width()) * map->height()));
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
