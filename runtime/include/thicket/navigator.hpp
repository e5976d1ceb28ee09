// One way to ask a world for a path, whatever it is made of (issue 12): a navmesh, a waypoint
// graph, a grid map, or nothing (a straight line). The scenario runner and the Lua API
// (thicket.find_path, thicket.move_to) go through it; so can a game embedding thicket.
//
//   nav::NavWorld world{.map = &grid, .walls = nav::Walls(obstacles, &grid)};
//   nav::PathRequest request;                       // one per thread (or per sliced search)
//   request.start(world, from, to, {});             // then step(budget) until it is done ...
//   while (request.step(500) == nav::SearchState::Running) { /* next frame */ }
//   request.points();                               // ... or find() for a whole search at once
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "thicket/export.hpp"
#include "thicket/nav.hpp"

namespace thicket::nav {

class NavMesh;
class NavMeshQuery;

// What a world offers for finding paths. Everything pointed at must outlive the requests.
struct NavWorld {
  const GridMap* map = nullptr;
  const WaypointGraph* waypoints = nullptr;
  const NavMesh* navmesh = nullptr;
  Walls walls = {};                         // obstacles and the map's walls (line of sight)
  std::span<const DangerZone> danger = {};  // the world's danger zones: in every grid search
  // The world's rectangle, when it has one: a goal outside it is refused whatever plans (a
  // straight line or a waypoint route led there, and an agent walking it stopped at the edge).
  const world::Bounds* bounds = nullptr;
};

// Which structure plans, in this order of preference: navmesh, waypoints, grid, straight line.
enum class PathMethod : std::uint8_t { Straight, Grid, Waypoints, NavMesh };
THICKET_API PathMethod method_of(const NavWorld& world);
THICKET_API const char* method_name(PathMethod method);

struct PathOptions {
  Algorithm algorithm = Algorithm::Auto;    // grid searches
  std::span<const DangerZone> danger = {};  // added to the world's for this request (copied)
  bool smooth = true;                       // grid paths: line-of-sight smoothing (else cell centres)
};

// One path request and its buffers (a GridSearch, a Detour query). Reuse it: it stops
// allocating once warm. Grid searches can be time-sliced with step(); the other methods finish
// inside start().
class THICKET_API PathRequest {
 public:
  PathRequest();
  ~PathRequest();
  PathRequest(PathRequest&&) noexcept;
  PathRequest& operator=(PathRequest&&) noexcept;

  // Returns Found, NoPath, Invalid or Running (grid only).
  SearchState start(const NavWorld& world, Vec2 from, Vec2 to, const PathOptions& options = {});
  // Expands up to max_expansions grid nodes (0: to the end).
  SearchState step(std::uint64_t max_expansions = 0);
  // start + step(0).
  SearchState find(const NavWorld& world, Vec2 from, Vec2 to, const PathOptions& options = {});

  SearchState state() const;
  PathMethod method() const;
  // Found: the path in world coordinates, from `from` to `to` exactly; its length in metres.
  std::span<const Vec2> points() const;
  double length() const;
  // NoPath / Invalid: why, in words ("the goal (3, 4) is inside a wall", "unreachable", ...).
  const std::string& reason() const;
  // Grid nodes expanded by this request so far.
  std::uint64_t expanded() const;
  Vec2 from() const;
  Vec2 to() const;
  // What start() was given besides the world and the ends: its algorithm, its smoothing and its
  // own danger zones (not the world's; a view into the request, valid until the next start()).
  // A search in progress is brought back exactly by start() with these and step(expanded()):
  // a grid search's state after any steps depends only on the nodes expanded in all
  // (the checkpoints of a scenario run save searches so, sim_snapshot.cpp).
  PathOptions options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace thicket::nav
