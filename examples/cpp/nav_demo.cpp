// Navigation from C++ (issue 12): load a Moving AI map, find a path with jump point search,
// smooth it, then plan the same trip time-sliced (a budget of nodes per frame) and with a
// danger zone, and compare.
//   build/nav_demo data/movingai/arena.map 4 4 44 44
#include <cstdio>
#include <cstdlib>

#include "thicket/nav.hpp"
#include "thicket/navigator.hpp"

using namespace thicket;

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: nav_demo MAP.map SX SY GX GY\n");
    return 64;
  }
  std::vector<Diagnostic> diags;
  std::optional<nav::GridMap> map = nav::load_grid_map(argv[1], diags);
  for (const Diagnostic& d : diags) std::fprintf(stderr, "%s\n", format_diagnostic(d).c_str());
  if (!map) return 2;
  nav::Cell from{std::atoi(argv[2]), std::atoi(argv[3])}, to{std::atoi(argv[4]), std::atoi(argv[5])};

  // One whole search; the GridSearch keeps its buffers for the next one.
  nav::GridSearch search;
  if (search.find(*map, from, to) != nav::SearchState::Found) {
    std::printf("no path from (%d, %d) to (%d, %d)\n", from.x, from.y, to.x, to.y);
    return 1;
  }
  std::printf("jps: %zu cells, length %.8f, %llu nodes expanded\n", search.path().size(), search.length(),
              static_cast<unsigned long long>(search.stats().expanded));
  std::vector<world::Vec2> smooth;
  nav::smooth_path(*map, search.path(), smooth);
  std::printf("smoothed to %zu points:", smooth.size());
  for (world::Vec2 p : smooth) std::printf(" (%g, %g)", p.x, p.y);
  std::printf("\n");

  // The same trip as plain A*, 50 nodes per "frame".
  nav::SearchOptions astar{.algorithm = nav::Algorithm::AStar};
  int frames = 1;
  nav::SearchState state = search.start(*map, from, to, astar);
  while ((state = search.step(50)) == nav::SearchState::Running) ++frames;
  std::printf("a*: length %.8f after %d frames of 50 nodes (%llu expanded)\n", search.length(), frames,
              static_cast<unsigned long long>(search.stats().expanded));

  // A danger zone in the middle of the map: the path bends around it when it can.
  nav::DangerZone zone{map->centre_of({map->width() / 2, map->height() / 2}), 6.0, 50.0};
  nav::SearchOptions tactical{.danger = std::span<const nav::DangerZone>(&zone, 1)};
  search.find(*map, from, to, tactical);
  std::printf("with a danger zone at (%g, %g) r %g: cost %.8f, length %.8f\n", zone.centre.x, zone.centre.y, zone.radius,
              search.cost(), search.length());

  // The world-level planner: what thicket.find_path uses in a scenario.
  nav::NavWorld world{.map = &*map, .walls = nav::Walls({}, &*map)};
  nav::PathRequest request;
  request.find(world, map->centre_of(from), map->centre_of(to));
  std::printf("planner (%s): %zu points, %.3f m\n", nav::method_name(request.method()), request.points().size(),
              request.length());
  return 0;
}
