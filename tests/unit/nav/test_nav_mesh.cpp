// Navmeshes: Recast's build over the 2D world (walls, circles, concave polygons, the bounds) and
// Detour's queries (paths, raycasts, snapping), with the failures reported as values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "nav_fixture.hpp"
#include "thicket/nav_mesh.hpp"

using namespace thicket;
using nav::NavMesh;
using nav::NavMeshParams;
using nav::NavMeshQuery;
using world::Obstacle;
using world::Vec2;
using nav_fixture::polyline_length;

namespace {

const world::Bounds kRoom{{0, 0}, {20, 20}};

std::unique_ptr<NavMesh> build(std::span<const Obstacle> obstacles, const NavMeshParams& params = {},
                               world::Bounds bounds = kRoom) {
  std::string error;
  auto mesh = NavMesh::build(bounds, obstacles, params, error);
  INFO(error);
  REQUIRE(mesh);
  CHECK(error.empty());
  return mesh;
}

// The least clearance (m) between any point of the path, sampled every 5 cm, and any obstacle.
double clearance(std::span<const Vec2> path, std::span<const Obstacle> obstacles) {
  double least = 1e9;
  for (std::size_t i = 1; i < path.size(); ++i) {
    double len = world::distance(path[i - 1], path[i]);
    int steps = std::max(1, static_cast<int>(len / 0.05));
    for (int s = 0; s <= steps; ++s) {
      Vec2 p = path[i - 1] + (path[i] - path[i - 1]) * (double(s) / steps);
      for (const Obstacle& o : obstacles) least = std::min(least, world::distance_to_obstacle(o, p));
    }
  }
  return least;
}

// A wall across x = 10 (boxes 1 m thick, 2 m long) with a 4 m gap between y = 8 and y = 12.
std::vector<Obstacle> wall_with_gap() {
  std::vector<Obstacle> wall;
  for (double y = 0; y < 8; y += 2) wall.push_back(Obstacle::box({9.5, y}, {10.5, y + 2}));
  for (double y = 12; y < 20; y += 2) wall.push_back(Obstacle::box({9.5, y}, {10.5, y + 2}));
  return wall;
}

}  // namespace

TEST_SUITE("nav_mesh") {

TEST_CASE("nav mesh: an empty room is crossed in one straight segment") {
  auto mesh = build({});
  CHECK(mesh->polygon_count() >= 1);
  // 0.5 m of radius is 3 cells of 0.2 m (rounded up); the grid overhangs each side by them.
  CHECK(mesh->stats().erosion_cells == 3);
  CHECK(mesh->stats().grid_width == 106);
  CHECK(mesh->stats().grid_height == 106);
  CHECK(mesh->stats().blocked_cells == 0);
  CHECK(mesh->stats().data_bytes > 0);
  CHECK(mesh->outline_count() == static_cast<std::size_t>(mesh->polygon_count()));
  for (std::size_t i = 0; i < mesh->outline_count(); ++i) {
    auto corners = mesh->outline(i);
    REQUIRE(corners.size() >= 3);
    double twice_area = 0;  // the shoelace formula: negative when clockwise (y up)
    for (std::size_t j = 0; j < corners.size(); ++j) {
      Vec2 p = corners[j], q = corners[(j + 1) % corners.size()];
      twice_area += p.x * q.y - q.x * p.y;
    }
    CHECK(twice_area < 0);
  }
  NavMeshQuery query(*mesh);
  REQUIRE(query.ok());

  std::vector<Vec2> path;
  double length = -1;
  std::string why;
  REQUIRE(query.find_path({2, 3}, {18, 15}, path, &length, &why));
  REQUIRE(path.size() == 2);
  CHECK(path[0].x == doctest::Approx(2).epsilon(1e-5));
  CHECK(path[0].y == doctest::Approx(3).epsilon(1e-5));
  CHECK(path[1].x == doctest::Approx(18).epsilon(1e-5));
  CHECK(path[1].y == doctest::Approx(15).epsilon(1e-5));
  CHECK(length == doctest::Approx(20).epsilon(1e-5));
  CHECK(query.raycast({2, 3}, {18, 15}));

  // The mesh reaches the bounds themselves (an entity's centre may stand on them)...
  bool found = false;
  Vec2 edge = query.nearest_point({0.01, 10}, &found);
  CHECK(found);
  CHECK(edge.x == doctest::Approx(0.01).epsilon(1e-3));
  // ...and no farther: a point outside them snaps back onto them.
  Vec2 outside = query.nearest_point({-0.4, 10}, &found);
  CHECK(found);
  CHECK(outside.x >= -0.01);
  CHECK(outside.x <= 0.21);

  // The same point twice: a two-point path of length 0.
  REQUIRE(query.find_path({5, 5}, {5, 5}, path, &length));
  CHECK(path.size() == 2);
  CHECK(length == 0);
}

TEST_CASE("nav mesh: a path through the gap of a wall keeps the agent's radius from it") {
  const auto wall = wall_with_gap();
  NavMeshParams params;
  auto mesh = build(wall, params);
  NavMeshQuery query(*mesh);

  std::vector<Vec2> path;
  double length = 0;
  REQUIRE(query.find_path({3, 3}, {17, 3}, path, &length));
  CHECK(path.size() >= 3);  // it has to turn at least twice
  CHECK(length == doctest::Approx(polyline_length(path)));
  CHECK(length > 14.5);
  // It crosses x = 10 inside the gap.
  bool through_gap = false;
  for (std::size_t i = 1; i < path.size(); ++i)
    if ((path[i - 1].x - 10) * (path[i].x - 10) <= 0) {
      double t = (10 - path[i - 1].x) / (path[i].x - path[i - 1].x);
      double y = path[i - 1].y + t * (path[i].y - path[i - 1].y);
      through_gap = y > 8 && y < 12;
    }
  CHECK(through_gap);
  CHECK(clearance(path, wall) >= params.agent_radius - params.cell_size);

  // The wall blocks the straight line; the gap does not.
  CHECK_FALSE(query.raycast({3, 3}, {17, 3}));
  CHECK(query.raycast({3, 10}, {17, 10}));
  // Every corner of every polygon keeps off the wall too.
  for (std::size_t i = 0; i < mesh->outline_count(); ++i)
    CHECK(clearance(mesh->outline(i), wall) >= params.agent_radius - params.cell_size);
}

TEST_CASE("nav mesh: a goal walled in by a ring of boxes is unreachable") {
  // A 5 m square room (inside 12.5..17.5) with 1 m walls: its floor is a mesh island.
  const Obstacle ring[] = {Obstacle::box({11.5, 11.5}, {18.5, 12.5}), Obstacle::box({11.5, 17.5}, {18.5, 18.5}),
                           Obstacle::box({11.5, 11.5}, {12.5, 18.5}), Obstacle::box({17.5, 11.5}, {18.5, 18.5})};
  auto mesh = build(ring);
  NavMeshQuery query(*mesh);
  std::vector<Vec2> path{{1, 1}};
  double length = 7;
  std::string why;
  CHECK_FALSE(query.find_path({3, 3}, {15, 15}, path, &length, &why));
  CHECK(why == "unreachable");
  CHECK(path.empty());
  CHECK(length == 0);
  // Inside the ring, the room's own floor is walkable.
  REQUIRE(query.find_path({14, 14}, {16, 16}, path, &length, &why));
  CHECK(path.size() == 2);
}

TEST_CASE("nav mesh: circles and concave polygons are walls; a concave pocket stays walkable") {
  // A U open to the north (+y): a 6 m wide, 5 m deep pocket between two arms, and a circle.
  const std::vector<Obstacle> obstacles = {
      Obstacle::polygon({{4, 4}, {14, 4}, {14, 14}, {12, 14}, {12, 6}, {6, 6}, {6, 14}, {4, 14}}),
      Obstacle::circle({16.5, 17}, 1.5)};
  NavMeshParams params;
  auto mesh = build(obstacles, params);
  NavMeshQuery query(*mesh);
  std::vector<Vec2> path_probe;

  // The pocket's floor is on the mesh (a convex hull would have filled it).
  bool found = false;
  Vec2 in_pocket{9, 10};
  Vec2 snapped = query.nearest_point(in_pocket, &found);
  CHECK(found);
  CHECK(world::distance(snapped, in_pocket) < 1e-3);
  // Inside the polygon's solid base and at the circle's centre (2.1 m or more from the mesh, past
  // the default snap distance of 2 m): snapped out to the mesh.
  CHECK_FALSE(query.find_path({16.5, 17}, {1, 1}, path_probe, nullptr));
  query.set_snap_distance(3);
  for (Vec2 inside : {Vec2{9, 5}, Vec2{16.5, 17}}) {
    snapped = query.nearest_point(inside, &found);
    CHECK(found);
    for (const Obstacle& o : obstacles)
      CHECK(world::distance_to_obstacle(o, snapped) >= params.agent_radius - params.cell_size);
  }

  // From south of the U into its pocket: around an arm, never through the base.
  std::vector<Vec2> path;
  double length = 0;
  REQUIRE(query.find_path({9, 1.5}, in_pocket, path, &length));
  CHECK(path.size() >= 4);
  CHECK(length > 16);
  CHECK(clearance(path, obstacles) >= params.agent_radius - params.cell_size);
  CHECK_FALSE(query.raycast({9, 1.5}, in_pocket));
  // Past the circle to the corner behind it.
  REQUIRE(query.find_path({19, 12}, {14, 19}, path, &length));
  CHECK(clearance(path, obstacles) >= params.agent_radius - params.cell_size);
  CHECK_FALSE(query.raycast({16.5, 13}, {16.5, 19.5}));
  for (std::size_t i = 0; i < mesh->outline_count(); ++i)
    CHECK(clearance(mesh->outline(i), obstacles) >= params.agent_radius - params.cell_size);
}

TEST_CASE("nav mesh: a goal inside an obstacle is moved to the nearest point of the mesh") {
  const Obstacle block[] = {Obstacle::box({8, 8}, {12, 12})};
  auto mesh = build(block);
  NavMeshQuery query(*mesh);
  std::vector<Vec2> path;
  std::string why;
  REQUIRE(query.find_path({2, 10}, {9, 10}, path, nullptr, &why));
  // Snapped west of the box, about agent_radius from its face at x = 8.
  CHECK(path.back().x < 8);
  CHECK(path.back().x > 7.2);
  CHECK(path.back().y == doctest::Approx(10).epsilon(1e-3));
  // Beyond the snap distance there is no mesh to move to.
  query.set_snap_distance(0.5);
  CHECK_FALSE(query.find_path({2, 10}, {10, 10}, path, nullptr, &why));
  CHECK(why == "goal is off the mesh");
  CHECK_FALSE(query.find_path({10, 10}, {2, 10}, path, nullptr, &why));
  CHECK(why == "start is off the mesh");
  // A raycast must start on the mesh.
  CHECK_FALSE(query.raycast({10, 10}, {2, 10}));
}

TEST_CASE("nav mesh: a search that needs more nodes than it has says so") {
  const auto wall = wall_with_gap();
  auto mesh = build(wall, {.cell_size = 0.2, .max_edge_length = 2});
  REQUIRE(mesh->polygon_count() > 8);
  NavMeshQuery query(*mesh, 4);
  std::vector<Vec2> path;
  std::string why;
  CHECK_FALSE(query.find_path({1, 1}, {19, 1}, path, nullptr, &why));
  CHECK(why == "search ran out of nodes");
  // Below Detour's smallest node pool the query refuses to set up.
  NavMeshQuery tiny(*mesh, 3);
  CHECK_FALSE(tiny.ok());
  CHECK_FALSE(tiny.find_path({1, 1}, {2, 1}, path, nullptr, &why));
  CHECK(why == "query not initialised");
}

TEST_CASE("nav mesh: two builds of the same world give the same polygons") {
  const std::vector<Obstacle> obstacles = {
      Obstacle::circle({5, 5}, 1.3), Obstacle::box({9, 2}, {11, 15}),
      Obstacle::polygon({{14, 14}, {18, 15}, {16, 16}, {17, 19}})};
  auto a = build(obstacles);
  auto b = build(obstacles);
  REQUIRE(a->outline_count() == b->outline_count());
  CHECK(a->vertex_count() == b->vertex_count());
  for (std::size_t i = 0; i < a->outline_count(); ++i) {
    auto pa = a->outline(i), pb = b->outline(i);
    REQUIRE(pa.size() == pb.size());
    CHECK(std::equal(pa.begin(), pa.end(), pb.begin()));
  }
  NavMeshQuery qa(*a), qb(*b);
  std::vector<Vec2> path_a, path_b;
  REQUIRE(qa.find_path({1, 1}, {19, 19}, path_a));
  REQUIRE(qb.find_path({1, 1}, {19, 19}, path_b));
  CHECK(path_a == path_b);
}

TEST_CASE("nav mesh: a world far from the origin gets the same mesh, moved") {
  // Recast computes in float, where 1e6 m leaves about 6 cm between neighbours; the mesh is
  // built around the world's own corner, so it keeps its 0.2 m cells.
  const Vec2 far{1e6, -2e6};
  const auto near_wall = wall_with_gap();
  std::vector<Obstacle> far_wall;
  for (const Obstacle& o : near_wall)
    far_wall.push_back(Obstacle::box(o.centre - o.half_extents + far, o.centre + o.half_extents + far));
  auto near_mesh = build(near_wall);
  auto far_mesh = build(far_wall, {}, {kRoom.min + far, kRoom.max + far});
  REQUIRE(far_mesh->outline_count() == near_mesh->outline_count());
  for (std::size_t i = 0; i < near_mesh->outline_count(); ++i) {
    auto a = near_mesh->outline(i), b = far_mesh->outline(i);
    REQUIRE(a.size() == b.size());
    for (std::size_t j = 0; j < a.size(); ++j) CHECK(world::distance(a[j] + far, b[j]) < 1e-6);
  }
  NavMeshQuery query(*far_mesh);
  std::vector<Vec2> path;
  double length = 0;
  REQUIRE(query.find_path(Vec2{3, 3} + far, Vec2{17, 3} + far, path, &length));
  CHECK(clearance(path, far_wall) >= NavMeshParams{}.agent_radius - NavMeshParams{}.cell_size);
  CHECK(length > 14.5);
}

TEST_CASE("nav mesh: one mesh, a query per thread, the same paths as one thread finds") {
  const auto wall = wall_with_gap();
  auto mesh = build(wall);
  std::vector<std::pair<Vec2, Vec2>> pairs;
  for (int i = 0; i < 40; ++i)
    pairs.push_back({{1.0 + (i % 5), 1.0 + i * 0.45}, {19.0 - (i % 7) * 0.5, 19.0 - i * 0.45}});
  auto run = [&](std::vector<std::vector<Vec2>>& paths) {
    NavMeshQuery query(*mesh);
    std::vector<Vec2> path;
    for (auto [a, b] : pairs) {
      path.clear();
      query.find_path(a, b, path);
      paths.push_back(path);
    }
  };
  std::vector<std::vector<Vec2>> alone, first, second;
  run(alone);
  std::thread t1([&] { run(first); }), t2([&] { run(second); });
  t1.join();
  t2.join();
  CHECK(first == alone);
  CHECK(second == alone);
}

TEST_CASE("nav mesh: bad input is an error, not a crash") {
  std::string error;
  CHECK_FALSE(NavMesh::build(kRoom, {}, {.cell_size = 0}, error));
  CHECK(error == "navmesh: cell_size must be > 0");
  CHECK_FALSE(NavMesh::build({{0, 0}, {0, 5}}, {}, {}, error));
  CHECK(error.find("bounds") != std::string::npos);
  CHECK_FALSE(NavMesh::build(kRoom, {}, {.max_verts_per_poly = 9}, error));
  CHECK(error.find("max_verts_per_poly") != std::string::npos);
  CHECK_FALSE(NavMesh::build({{0, 0}, {1e5, 1e5}}, {}, {}, error));
  CHECK(error.find("max_cells") != std::string::npos);
  const Obstacle flat[] = {Obstacle::circle({1, 1}, 1), Obstacle::polygon({{1, 1}, {2, 2}})};
  CHECK_FALSE(NavMesh::build(kRoom, flat, {}, error));
  CHECK(error == "navmesh: obstacle 1: a polygon needs at least 3 corners");
  const Obstacle nan[] = {Obstacle::circle({std::nan(""), 1}, 1)};
  CHECK_FALSE(NavMesh::build(kRoom, nan, {}, error));
  CHECK(error == "navmesh: obstacle 0: its numbers are not finite");

  // Points that are not numbers are off the mesh.
  auto room = NavMesh::build(kRoom, {}, {}, error);
  REQUIRE(room);
  NavMeshQuery room_query(*room);
  std::vector<Vec2> room_path;
  std::string room_why;
  const double nan_value = std::nan("");
  CHECK_FALSE(room_query.find_path({nan_value, 1}, {2, 2}, room_path, nullptr, &room_why));
  CHECK(room_why == "start is off the mesh");
  CHECK_FALSE(room_query.find_path({1, 1}, {2, INFINITY}, room_path, nullptr, &room_why));
  CHECK(room_why == "goal is off the mesh");
  CHECK_FALSE(room_query.raycast({1, 1}, {nan_value, 2}));
  CHECK_FALSE(room_query.raycast({nan_value, 1}, {2, 2}));

  // A world with no floor left builds an empty mesh on which every query fails.
  const Obstacle everything[] = {Obstacle::box({-1, -1}, {21, 21})};
  auto empty = NavMesh::build(kRoom, everything, {}, error);
  REQUIRE(empty);
  CHECK(empty->polygon_count() == 0);
  CHECK(empty->outline_count() == 0);
  NavMeshQuery query(*empty);
  CHECK_FALSE(query.ok());
  std::vector<Vec2> path;
  std::string why;
  CHECK_FALSE(query.find_path({1, 1}, {2, 2}, path, nullptr, &why));
  CHECK(why == "the navmesh has nothing walkable");
  CHECK_FALSE(query.raycast({1, 1}, {2, 2}));
  bool found = true;
  CHECK(query.nearest_point({1, 1}, &found) == Vec2{1, 1});
  CHECK_FALSE(found);
}

}  // TEST_SUITE
