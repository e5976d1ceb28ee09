// bench_smooth: what does line-of-sight smoothing cost beside the search that made the path,
// and what does skipping the targets hidden behind walls already met save over the plain
// method (test every later cell, farthest first)? And what does a thick line (Walls::clear
// with a radius) cost beside a thin one (line_of_sight) over the same legs?
//
// For every scenario of the four maps in data/movingai: the path of the default search, then
// smooth_path and the plain method, which must give the same points (checked before timing);
// then rows timed rep by rep, interleaved. Figures are microseconds per path (per leg for the
// sight rows).
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "thicket/nav.hpp"

namespace {

using namespace bench;
using namespace thicket::nav;

// The plain method: from each kept cell, every later cell from the last backwards, the first
// one in sight kept.
void plain_smooth(const GridMap& map, std::span<const Cell> cells, std::vector<Vec2>& out) {
  out.clear();
  if (cells.empty()) return;
  out.push_back(map.centre_of(cells[0]));
  std::size_t kept = 0;
  while (kept + 1 < cells.size()) {
    std::size_t next = kept + 1;
    for (std::size_t j = cells.size() - 1; j > kept + 1; --j)
      if (line_of_sight(map, map.centre_of(cells[kept]), map.centre_of(cells[j]))) {
        next = j;
        break;
      }
    out.push_back(map.centre_of(cells[next]));
    kept = next;
  }
}

bool run_map(const std::string& name, int reps) {
  const std::string base = std::string(THICKET_SOURCE_DIR) + "/data/movingai/" + name + ".map";
  std::vector<thicket::Diagnostic> diags;
  auto map = load_grid_map(base, diags);
  if (!map) fail_load(diags);
  auto scen = load_scen(base + ".scen", &*map, diags);
  if (!scen) fail_load(diags);

  GridSearch search;
  std::vector<std::vector<Cell>> paths;
  for (const ScenarioEntry& e : *scen)
    if (search.find(*map, e.start, e.goal) == SearchState::Found)
      paths.emplace_back(search.path().begin(), search.path().end());

  // Check before timing: the same points, and every leg clear for a body of radius 0.4.
  std::vector<Vec2> fast, plain;
  std::vector<std::pair<Vec2, Vec2>> legs;
  std::size_t same = 0, cells = 0;
  for (const auto& p : paths) {
    smooth_path(*map, p, fast);
    plain_smooth(*map, p, plain);
    same += fast == plain;
    cells += p.size();
    for (std::size_t i = 1; i < fast.size(); ++i) legs.emplace_back(fast[i - 1], fast[i]);
  }
  const bool ok = same == paths.size() && paths.size() == scen->size();
  const Walls walls({}, &*map);
  std::size_t thick_clear = 0;
  for (const auto& [a, b] : legs) thick_clear += walls.clear(a, b, 0.4);

  const double n = double(paths.size());
  Rows paths_rows;
  paths_rows.add("search", "(baseline: the path's own search)", [&](int k) {
    for (int r = 0; r < k; ++r)
      for (const ScenarioEntry& e : *scen) search.find(*map, e.start, e.goal);
  });
  paths_rows.add("smooth_path", "", [&](int k) {
    for (int r = 0; r < k; ++r)
      for (const auto& p : paths) smooth_path(*map, p, fast);
  });
  paths_rows.add("plain smoothing", "", [&](int k) {
    for (int r = 0; r < k; ++r)
      for (const auto& p : paths) plain_smooth(*map, p, plain);
  });
  paths_rows.measure(reps, 1, n * 1e3);

  Rows leg_rows;
  volatile std::size_t sink = 0;  // keeps the answers alive
  leg_rows.add("line_of_sight", "(baseline)", [&](int k) {
    for (int r = 0; r < k; ++r)
      for (const auto& [a, b] : legs) sink = sink + line_of_sight(*map, a, b);
  });
  leg_rows.add("clear, radius 0.4", "", [&](int k) {
    for (int r = 0; r < k; ++r)
      for (const auto& [a, b] : legs) sink = sink + walls.clear(a, b, 0.4);
  });
  leg_rows.measure(reps, 1, double(std::max<std::size_t>(legs.size(), 1)) * 1e3);

  std::printf("\n%s (%dx%d): %zu paths, mean %.0f cells -> %.1f legs; smooth_path = plain: %zu/%zu -> %s\n",
              name.c_str(), map->width(), map->height(), paths.size(), double(cells) / n,
              double(legs.size()) / n, same, paths.size(), match(ok));
  std::printf("  microseconds per path (median of %d reps [best]):\n", reps);
  paths_rows.print(2);
  std::printf("  smoothing / search: %.2fx; plain / smooth_path: %.1fx\n",
              paths_rows.ratio("smooth_path", "search"), paths_rows.ratio("plain smoothing", "smooth_path"));
  std::printf("  microseconds per smoothed leg (%zu legs, %zu clear for radius 0.4):\n", legs.size(),
              thick_clear);
  leg_rows.print(3);
  std::printf("  thick / thin: %.1fx\n", leg_rows.ratio("clear, radius 0.4", "line_of_sight"));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  // Fewer reps for a quick look: bench_smooth 1
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::printf("bench_smooth: grid path smoothing and sight lines on the Moving AI maps\n");
  std::printf("load average at start: %s\n", load_average().c_str());
  bool ok = true;
  for (const char* name : {"arena", "AR0500SR", "random512-20-0", "maze512-2-5"}) ok = run_map(name, reps) && ok;
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return consistency(ok, "smooth_path and the plain method kept the same points on every path",
                     "SMOOTHING DIFFERS (see the lines above)")
             ? 0
             : 1;
}
