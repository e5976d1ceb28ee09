// nav::PathRequest (navigator.cpp): what thicket.find_path and move_to plan with.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "thicket/nav_mesh.hpp"
#include "thicket/navigator.hpp"

using namespace thicket;
using namespace thicket::nav;

namespace {

// The least distance from the zone's centre to any point of the path, sampled every 5 cm.
double closest_approach(std::span<const Vec2> points, Vec2 centre) {
  double best = 1e300;
  for (std::size_t i = 1; i < points.size(); ++i)
    for (int k = 0; k <= 200; ++k) {
      Vec2 p = points[i - 1] + (points[i] - points[i - 1]) * (k / 200.0);
      best = std::min(best, world::distance(p, centre));
    }
  return best;
}

}  // namespace

TEST_CASE("navigator: smoothing does not cut across the danger zones the search went round") {
  // Open ground: walls cannot force the detour, only the zone's cost can.
  GridMap map(30, 30);
  const DangerZone zone{{15.5, 15.5}, 5, 1000};
  const Vec2 from{2.5, 2.5}, to{28.5, 28.5};
  NavWorld plain{.map = &map, .walls = Walls({}, &map)};
  NavWorld guarded = plain;
  guarded.danger = std::span<const DangerZone>(&zone, 1);

  PathRequest request;
  REQUIRE(request.find(plain, from, to) == SearchState::Found);
  CHECK(request.points().size() == 2);  // straight across, with no zone
  CHECK(closest_approach(request.points(), zone.centre) < 1);

  for (bool smooth : {true, false}) {
    CAPTURE(smooth);
    PathOptions options;
    options.smooth = smooth;
    REQUIRE(request.find(guarded, from, to, options) == SearchState::Found);
    // No cell centre of the grid path is inside the zone; a leg between them may pass within
    // half a cell diagonal of the edge.
    CHECK(closest_approach(request.points(), zone.centre) > zone.radius - 0.75);
    CHECK(request.length() > 26.2);
  }
  // The zone given with the request instead of the world: the same.
  PathOptions per_call;
  per_call.danger = std::span<const DangerZone>(&zone, 1);
  REQUIRE(request.find(plain, from, to, per_call) == SearchState::Found);
  CHECK(closest_approach(request.points(), zone.centre) > zone.radius - 0.75);
  CHECK(request.points().size() < 10);  // still smoothed, not every cell
}

TEST_CASE("navigator: a path through a cheap danger zone goes from the start to the goal, not back to cell centres") {
  // The zone costs less than going round it, so the search goes through; the ends' danger is 0
  // but the legs cross the zone. The path went back to the start cell's centre and past the goal.
  GridMap map(7, 3);
  const DangerZone zone{{3.5, 1.5}, 0.6, 0.5};
  NavWorld world{.map = &map, .walls = Walls({}, &map)};
  PathOptions options;
  options.danger = std::span<const DangerZone>(&zone, 1);
  PathRequest request;
  REQUIRE(request.find(world, {0.9, 1.5}, {6.1, 1.5}, options) == SearchState::Found);
  REQUIRE(request.points().size() == 2);
  CHECK(request.points()[0] == Vec2{0.9, 1.5});
  CHECK(request.points()[1] == Vec2{6.1, 1.5});
  CHECK(request.length() == doctest::Approx(5.2));
  // From and to cell centres: no step of length 0 (a point given twice).
  REQUIRE(request.find(world, {0.5, 1.5}, {6.5, 1.5}, options) == SearchState::Found);
  CHECK(request.points().size() == 2);
  CHECK(request.length() == doctest::Approx(6.0));
  // Start and goal in one cell: still two points.
  REQUIRE(request.find(world, {0.5, 1.5}, {0.5, 1.5}, options) == SearchState::Found);
  CHECK(request.points().size() == 2);
}

TEST_CASE("navigator: a sliced search comes back exactly from options(), from(), to() and expanded()") {
  // What a checkpoint saves of a search in progress (sim_snapshot.cpp): a fresh request started
  // with the same and stepped by the nodes expanded so far goes on exactly as the first, whatever
  // the budgets of the first's steps.
  GridMap map(40, 30);
  for (int x = 4; x < 40; x += 4)  // a serpentine: walls across, open at the top and the bottom in turn
    for (int y = 0; y < 30; ++y) map.set_passable({x, y}, (x / 4) % 2 ? y >= 28 : y <= 1);
  const DangerZone world_zone{{10.5, 20.5}, 4, 200};
  const DangerZone own_zone{{30.5, 5.5}, 3, 80};
  const Vec2 from{2.5, 2.5}, to{37.5, 27.5};
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    NavWorld world{.map = &map, .walls = Walls({}, &map)};
    if (variant & 1) world.danger = std::span<const DangerZone>(&world_zone, 1);
    PathOptions options;
    options.algorithm = variant == 2 ? Algorithm::Jps : Algorithm::Auto;
    options.smooth = variant != 3;
    if (variant >= 2) options.danger = std::span<const DangerZone>(&own_zone, 1);
    PathRequest whole;
    REQUIRE(whole.find(world, from, to, options) == SearchState::Found);
    const std::uint64_t budgets[] = {1, 2, 1, 3, 2};
    for (int cut = 1; cut <= 5; ++cut) {
      CAPTURE(cut);
      PathRequest first;
      REQUIRE(first.start(world, from, to, options) == SearchState::Running);
      for (int k = 0; k < cut; ++k) REQUIRE(first.step(budgets[k]) == SearchState::Running);
      const PathOptions saved = first.options();
      CHECK(saved.algorithm == options.algorithm);
      CHECK(saved.smooth == options.smooth);
      REQUIRE(saved.danger.size() == options.danger.size());  // its own zones, not the world's
      std::vector<DangerZone> zones(saved.danger.begin(), saved.danger.end());
      PathOptions again = saved;
      again.danger = zones;
      PathRequest second;
      REQUIRE(second.start(world, first.from(), first.to(), again) == SearchState::Running);
      REQUIRE(second.step(first.expanded()) == SearchState::Running);
      CHECK(second.expanded() == first.expanded());
      SearchState a = SearchState::Running, b = SearchState::Running;
      while (a == SearchState::Running) {
        a = first.step(4);
        b = second.step(4);
        REQUIRE(a == b);
        REQUIRE(first.expanded() == second.expanded());
      }
      REQUIRE(a == SearchState::Found);
      CHECK(std::vector<Vec2>(first.points().begin(), first.points().end()) ==
            std::vector<Vec2>(second.points().begin(), second.points().end()));
      CHECK(first.length() == second.length());
      CHECK(first.length() == whole.length());
    }
  }
}

TEST_CASE("navigator: a goal inside an obstacle is refused on a navmesh and on waypoints, as on a grid") {
  // A thin wall (2 m): its middle lies within the navmesh's snapping reach of either side, which
  // gave a path to the wall's side (and move_to walked there, then said "stuck").
  const world::Obstacle wall[] = {world::Obstacle::box({20, 0}, {22, 30})};
  std::string error;
  auto mesh = NavMesh::build(world::Bounds{{0, 0}, {60, 40}}, wall, {}, error);
  REQUIRE(mesh);
  WaypointGraph graph({{2, 2}, {10, 35}, {30, 35}, {55, 35}});
  const Walls walls(wall, nullptr);
  graph.connect(walls);
  for (NavWorld world : {NavWorld{.navmesh = mesh.get(), .walls = walls}, NavWorld{.waypoints = &graph, .walls = walls}}) {
    CAPTURE(method_name(method_of(world)));
    PathRequest request;
    CHECK(request.find(world, {2, 2}, {21, 10}) == SearchState::Invalid);
    CHECK(request.reason() == "the goal (21, 10) is inside an obstacle");
    CHECK(request.points().empty());
    // Beside the wall: planned, and round it.
    REQUIRE(request.find(world, {2, 2}, {55, 35}) == SearchState::Found);
    CHECK(request.length() > world::distance({2, 2}, {55, 35}) + 1);
  }
}

TEST_CASE("navigator: a goal walled in on a navmesh is 'unreachable: ...' as on a grid and a waypoint graph") {
  // Three walls and the world's edge close a room round the goal (a script matching
  // "^unreachable:" missed the navmesh's bare "unreachable").
  const world::Obstacle walls[] = {world::Obstacle::box({30, 5}, {40, 7}), world::Obstacle::box({30, 12}, {40, 14}),
                                   world::Obstacle::box({30, 5}, {32, 14}), world::Obstacle::box({38, 5}, {40, 14})};
  std::string error;
  auto mesh = NavMesh::build(world::Bounds{{0, 0}, {60, 40}}, walls, {}, error);
  REQUIRE(mesh);
  NavWorld world{.navmesh = mesh.get(), .walls = Walls(walls, nullptr)};
  PathRequest request;
  CHECK(request.find(world, {5, 5}, {35, 9.5}) == SearchState::NoPath);
  CHECK(request.reason() == "unreachable: no way over the navmesh from (5, 5) to (35, 9.5)");
}

TEST_CASE("navigator: on a navmesh a start inside an obstacle plans from the mesh within reach, not beyond") {
  // An agent pushed into an obstacle still plans: from the nearest point of the mesh, when that
  // lies within 2 x agent_radius + 1 m (2 m here); from deeper inside, "start is off the mesh".
  const world::Obstacle block[] = {world::Obstacle::box({20, 0}, {30, 30})};
  std::string error;
  auto mesh = NavMesh::build(world::Bounds{{0, 0}, {60, 40}}, block, {}, error);
  REQUIRE(mesh);
  const Walls walls(block, nullptr);
  const NavWorld world{.navmesh = mesh.get(), .walls = walls};
  PathRequest request;
  REQUIRE(request.find(world, {21, 10}, {5, 10}) == SearchState::Found);
  REQUIRE(!request.points().empty());
  CHECK(request.points().front().x < 20);  // the nearest point of the mesh, west of the block
  CHECK(request.points().front().x > 19);
  CHECK(request.points().back().x == doctest::Approx(5).epsilon(1e-5));
  CHECK(request.points().back().y == doctest::Approx(10).epsilon(1e-5));
  CHECK(request.find(world, {25, 10}, {5, 10}) == SearchState::NoPath);
  CHECK(request.reason() == "start is off the mesh");
  CHECK(request.points().empty());
}

TEST_CASE("navigator: zones off a leg are not asked at its samples; the path is the same however many there are") {
  // Each sample of each candidate leg asked every zone: 200 zones far off a 1,000-cell path
  // made its smoothing take seconds, past the leaf time limit. Only the zones that may hold a
  // point of the leg are asked now, which gives the same points: here one zone the path goes
  // round, then the same with 2,000 more far from it (each prices a few cells of their own).
  GridMap map(400, 60);
  std::vector<DangerZone> zones = {{{200.5, 30.5}, 12, 1000}};
  const Vec2 from{2.5, 30.5}, to{397.5, 30.5};
  NavWorld world{.map = &map, .walls = Walls({}, &map)};
  PathRequest request;
  PathOptions options;
  options.danger = zones;
  REQUIRE(request.find(world, from, to, options) == SearchState::Found);
  const std::vector<Vec2> one(request.points().begin(), request.points().end());
  CHECK(one.size() > 2);  // round the zone
  CHECK(closest_approach(one, zones[0].centre) > zones[0].radius - 0.75);
  for (int i = 0; i < 2000; ++i) zones.push_back({{0.5 + (i % 400), i < 1000 ? 0.5 : 59.5}, 0.3, 5});
  options.danger = zones;
  REQUIRE(request.find(world, from, to, options) == SearchState::Found);
  const std::vector<Vec2> many(request.points().begin(), request.points().end());
  REQUIRE(many.size() == one.size());
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(many[i] == one[i]);
}

TEST_CASE("navigator: a start or goal that is no finite number is refused, naming which") {
  GridMap map(10, 10);
  NavWorld world{.map = &map, .walls = Walls({}, &map)};
  PathRequest request;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  CHECK(request.find(world, {1.5, nan}, {5.5, 5.5}) == SearchState::Invalid);
  CHECK(request.reason() == "the start and goal must be finite numbers; the start's y is nan");
  CHECK(request.find(world, {1.5, 1.5}, {-inf, 5.5}) == SearchState::Invalid);
  CHECK(request.reason() == "the start and goal must be finite numbers; the goal's x is -inf");
}

TEST_CASE("navigator: smoothing around danger is bounded by its work; past it the path keeps the search's cells") {
  // A straight corridor of 3,000 cells through 400 cheap zones: each leg tried from the start
  // asks every zone along it at every quarter cell, some billions of steps to the end. The
  // bound stops the extending: the rest of the path is the search's own cells (one point
  // each), a path as valid, only less smoothed, found in some tens of milliseconds.
  GridMap map(3000, 3);
  std::vector<DangerZone> zones;
  for (int i = 0; i < 400; ++i) zones.push_back({{3.5 + 7.5 * i, 1.5}, 1.0, 1e-6});
  NavWorld world{.map = &map, .walls = Walls({}, &map)};
  PathRequest request;
  PathOptions options;
  options.danger = zones;
  REQUIRE(request.find(world, {0.5, 1.5}, {2999.5, 1.5}, options) == SearchState::Found);
  CHECK(request.points().size() > 1000);  // unbounded: 2 points, after 11 s
  CHECK(request.length() == doctest::Approx(2999.0));
  for (const Vec2& p : request.points()) CHECK(p.y == 1.5);  // the corridor's row, never cut through
}
