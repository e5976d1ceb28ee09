// bench_navmesh: what does a navmesh cost to build for a 200 x 200 m world with 100 obstacles, and
// what does a path query on it cost, beside a grid search over the same world?
//
// The world: bounds (0, 0)-(200, 200); 100 obstacles from a fixed seed, half circles (radius 1 to
// 4 m), half boxes (sides 1 to 8 m), anywhere (they may overlap). Agent radius 0.5 m.
//   build      NavMesh::build with the default parameters (cell 0.2 m, watershed regions), and
//              with monotone regions; the median of several builds.
//   queries    1,000 pairs of points from a fixed seed, each end at least agent_radius + 0.25 m
//              from every obstacle, kept only when both the navmesh and the grid find a path.
//   navmesh    NavMeshQuery::find_path: snap both ends, Detour's A* over polygons, the funnel.
//   grid       the baseline: the world rasterized into a nav::GridMap of 0.5 m cells (a cell
//              blocked when its centre is within agent_radius of an obstacle), then
//              nav::GridSearch::find between the cells of the two ends: jump point search (the
//              Auto choice on a uniform map) and plain A*. (The grid's smoothing, smooth_path,
//              is not on this branch yet; the grid rows stop at the 8-connected path.)
// Rows are timed rep by rep, every row once per rep (a burst of other work spoils one rep of
// each row, not one row); the figure is µs per query, the median over reps, the best in brackets.
// Path lengths are compared as a sanity check: the navmesh's funnel path should come out no longer
// than the grid's 8-connected path (which zigzags at 45° steps); and every navmesh path, sampled
// every 10 cm, must keep agent_radius − max_edge_error from every obstacle (nav_mesh.hpp).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "thicket/nav.hpp"
#include "thicket/nav_mesh.hpp"

namespace {

using namespace bench;
using thicket::nav::Cell;
using thicket::nav::GridMap;
using thicket::nav::GridSearch;
using thicket::nav::NavMesh;
using thicket::nav::NavMeshParams;
using thicket::nav::NavMeshQuery;
using thicket::nav::SearchState;
using thicket::world::Obstacle;
using thicket::world::Vec2;

constexpr double kSize = 200;
constexpr int kObstacles = 100;
constexpr int kPairs = 1000;
constexpr double kGridCell = 0.5;
constexpr std::uint64_t kSeed = 20261124;

double uniform(std::uint64_t& rng, double lo, double hi) {
  return lo + (hi - lo) * (thicket::world::random_signed_unit(rng) + 1) / 2;
}

std::vector<Obstacle> make_obstacles(std::uint64_t& rng) {
  std::vector<Obstacle> out;
  for (int i = 0; i < kObstacles; ++i) {
    Vec2 c{uniform(rng, 0, kSize), uniform(rng, 0, kSize)};
    if (i % 2 == 0) {
      out.push_back(Obstacle::circle(c, uniform(rng, 1, 4)));
    } else {
      Vec2 half{uniform(rng, 0.5, 4), uniform(rng, 0.5, 4)};
      out.push_back(Obstacle::box(c - half, c + half));
    }
  }
  return out;
}

double clearance(Vec2 p, const std::vector<Obstacle>& obstacles) {
  double least = 1e9;
  for (const Obstacle& o : obstacles) least = std::min(least, thicket::world::distance_to_obstacle(o, p));
  return least;
}

// The baseline's map: a cell is blocked when its centre is within `radius` of an obstacle.
GridMap rasterize(const std::vector<Obstacle>& obstacles, double radius) {
  const auto cells = static_cast<std::int32_t>(kSize / kGridCell);
  GridMap map(cells, cells);
  map.cell_size = kGridCell;
  for (const Obstacle& o : obstacles) {
    double reach = (o.shape == thicket::world::ObstacleShape::Circle ? o.radius : std::max(o.half_extents.x, o.half_extents.y)) + radius;
    Cell lo = map.cell_at(o.centre - Vec2{reach, reach}), hi = map.cell_at(o.centre + Vec2{reach, reach});
    for (std::int32_t y = std::max(0, lo.y); y <= std::min(cells - 1, hi.y); ++y)
      for (std::int32_t x = std::max(0, lo.x); x <= std::min(cells - 1, hi.x); ++x)
        if (thicket::world::distance_to_obstacle(o, map.centre_of({x, y})) <= radius) map.set_passable({x, y}, false);
  }
  return map;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  std::uint64_t rng = kSeed;
  const std::vector<Obstacle> obstacles = make_obstacles(rng);
  const thicket::world::Bounds bounds{{0, 0}, {kSize, kSize}};
  NavMeshParams params;
  std::printf("bench_navmesh: %.0f x %.0f m, %d obstacles (circles and boxes, seed %llu), agent radius %.2f m\n",
              kSize, kSize, kObstacles, u(kSeed), params.agent_radius);

  // ---- builds ----
  std::unique_ptr<NavMesh> mesh;
  std::vector<double> watershed_ms, monotone_ms, grid_ms;
  NavMeshParams monotone = params;
  monotone.partition = thicket::nav::MeshPartition::Monotone;
  std::int32_t monotone_polys = 0, coarse_polys = 0;
  NavMeshParams coarse = params;
  coarse.cell_size = kGridCell;
  std::vector<double> coarse_ms;
  std::string error;
  GridMap map;
  for (int r = 0; r < std::max(3, reps / 2); ++r) {
    watershed_ms.push_back(time_ms([&] { mesh = NavMesh::build(bounds, obstacles, params, error); }));
    if (!mesh) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    std::unique_ptr<NavMesh> m2;
    monotone_ms.push_back(time_ms([&] { m2 = NavMesh::build(bounds, obstacles, monotone, error); }));
    monotone_polys = m2 ? m2->polygon_count() : -1;
    coarse_ms.push_back(time_ms([&] { m2 = NavMesh::build(bounds, obstacles, coarse, error); }));
    coarse_polys = m2 ? m2->polygon_count() : -1;
    grid_ms.push_back(time_ms([&] { map = rasterize(obstacles, params.agent_radius); }));
  }
  const auto& st = mesh->stats();
  std::printf("\nbuild, ms (median of %zu, best in brackets):\n", watershed_ms.size());
  print_row("watershed", stat_of(watershed_ms),
            std::to_string(st.polygons) + " polygons, " + std::to_string(st.vertices) + " vertices, " +
                std::to_string(st.regions) + " regions, grid " + std::to_string(st.grid_width) + " x " +
                std::to_string(st.grid_height) + " cells of " + std::to_string(params.cell_size).substr(0, 4) +
                " m, " + std::to_string(st.data_bytes / 1024) + " KiB",
            13);
  print_row("monotone", stat_of(monotone_ms), std::to_string(monotone_polys) + " polygons", 13);
  print_row("cell 0.5 m", stat_of(coarse_ms), std::to_string(coarse_polys) + " polygons (watershed, the grid's resolution)", 13);
  print_row("grid (0.5 m)", stat_of(grid_ms), "the baseline's GridMap: 400 x 400 cells", 13);

  // ---- the pairs ----
  NavMeshQuery query(*mesh);
  GridSearch search;
  struct Pair {
    Vec2 a, b;
  };
  std::vector<Pair> pairs;
  std::vector<Vec2> path;
  int tried = 0, mesh_only = 0, grid_only = 0;
  double mesh_length_sum = 0, grid_length_sum = 0;
  std::uint64_t corridor_sum = 0, corner_sum = 0, grid_cells_sum = 0;
  double least_clearance = 1e9;  // of the navmesh paths, sampled every 10 cm
  while (static_cast<int>(pairs.size()) < kPairs) {
    Vec2 a{uniform(rng, 1, kSize - 1), uniform(rng, 1, kSize - 1)};
    Vec2 b{uniform(rng, 1, kSize - 1), uniform(rng, 1, kSize - 1)};
    if (clearance(a, obstacles) < params.agent_radius + 0.25 || clearance(b, obstacles) < params.agent_radius + 0.25)
      continue;
    ++tried;
    double mesh_length = 0;
    bool by_mesh = query.find_path(a, b, path, &mesh_length);
    bool by_grid = search.find(map, map.cell_at(a), map.cell_at(b)) == SearchState::Found;
    if (by_mesh != by_grid) (by_mesh ? mesh_only : grid_only) += 1;
    if (!by_mesh || !by_grid) continue;
    pairs.push_back({a, b});
    mesh_length_sum += mesh_length;
    grid_length_sum += search.length() * kGridCell;
    for (std::size_t i = 1; i < path.size(); ++i) {
      int steps = std::max(1, static_cast<int>(thicket::world::distance(path[i - 1], path[i]) / 0.1));
      for (int k = 0; k <= steps; ++k)
        least_clearance = std::min(least_clearance, clearance(path[i - 1] + (path[i] - path[i - 1]) * (double(k) / steps), obstacles));
    }
    corridor_sum += static_cast<std::uint64_t>(query.last_corridor_size());
    corner_sum += path.size();
    grid_cells_sum += search.path().size();
  }
  std::printf("\npairs: %d reachable by both of %d tried (navmesh only %d, grid only %d)\n", kPairs, tried, mesh_only,
              grid_only);
  // The first search on a new map pays for what the grid search derives from the map (jump
  // point search's tables); a map has a new identity each time it is built.
  std::vector<double> first_ms;
  for (int r = 0; r < 3; ++r) {
    GridMap fresh = rasterize(obstacles, params.agent_radius);
    GridSearch cold;
    first_ms.push_back(time_ms([&] { cold.find(fresh, fresh.cell_at(pairs[0].a), fresh.cell_at(pairs[0].b)); }));
  }
  print_row("grid 1st find", stat_of(first_ms), "ms: the first GridSearch::find on a new GridMap (its derived tables)", 13, 2);
  std::printf("mean path length: navmesh %.2f m, grid 8-connected %.2f m (navmesh / grid %.3f)\n",
              mesh_length_sum / kPairs, grid_length_sum / kPairs, mesh_length_sum / grid_length_sum);
  std::printf("least clearance of the navmesh paths: %.3f m (agent radius %.2f m, max_edge_error %.2f m)\n",
              least_clearance, params.agent_radius, params.max_edge_error);
  std::printf("mean path size: navmesh %.1f polygons in the corridor, %.1f corners; grid %.1f cells\n",
              double(corridor_sum) / kPairs, double(corner_sum) / kPairs, double(grid_cells_sum) / kPairs);

  // ---- queries ----
  Checksum sink;
  Rows rows;
  rows.add("navmesh", "NavMeshQuery::find_path (snap, A* over polygons, funnel)", [&](int) {
    for (const Pair& p : pairs) sink.add(query.find_path(p.a, p.b, path) ? path.size() : 0);
  });
  rows.add("grid-jps", "GridSearch::find, Auto (jump point search)", [&](int) {
    for (const Pair& p : pairs) sink.add(static_cast<std::uint64_t>(search.find(map, map.cell_at(p.a), map.cell_at(p.b))));
  });
  thicket::nav::SearchOptions astar;
  astar.algorithm = thicket::nav::Algorithm::AStar;
  rows.add("grid-astar", "GridSearch::find, A*", [&](int) {
    for (const Pair& p : pairs)
      sink.add(static_cast<std::uint64_t>(search.find(map, map.cell_at(p.a), map.cell_at(p.b), astar)));
  });
  rows.measure(reps, 1, kPairs * 1000.0);  // samples: µs per query
  std::printf("\nµs per query, %d pairs (%d reps, interleaved; median, best in brackets):\n", kPairs, reps);
  rows.print(2);
  std::printf("  grid-jps / navmesh %.1fx, grid-astar / navmesh %.1fx (medians)\n", rows.ratio("grid-jps", "navmesh"),
              rows.ratio("grid-astar", "navmesh"));
  std::printf("\nload average at end: %s\n", load_average().c_str());
  const bool clear = least_clearance >= params.agent_radius - params.max_edge_error;
  return consistency(mesh_only == 0 && grid_only == 0 && mesh_length_sum <= grid_length_sum && clear,
                     "navmesh and grid agree on reachability; navmesh paths are no longer than the grid's and "
                     "keep their clearance",
                     "NAVMESH AND GRID DISAGREE (reachability or length), or a navmesh path comes too close")
             ? 0
             : 1;
}
