// Navigation meshes for the 2D world: Recast builds one from the world's bounds and obstacles,
// Detour finds paths on it. Recast and Detour stay behind this header (no Recast type appears
// here), so users need neither their headers nor their build settings.
//
// Coordinates. The world's (x, y) is Recast's (x, z); Recast's up axis (y) is the height, which
// is always 0 here: the ground is one flat quad. Everything below is in world metres.
//
// What the mesh covers: the bounds, minus every point within agent_radius (rounded up to whole
// cells) of an obstacle. Recast's simplified walls may cut back into that margin by up to
// max_edge_error, so every point of the mesh is at least agent_radius − max_edge_error from an
// obstacle, usually more: a cell that an obstacle touches at all counts as blocked. The world
// clamps an entity's centre into its bounds, so the mesh reaches the bounds themselves: the
// ground Recast rasterizes overhangs them by the erosion radius, and the erosion that keeps
// polygons off the obstacles eats exactly that overhang.
//
// Threads. A NavMesh is immutable once built and may be read by any number of threads. A
// NavMeshQuery holds Detour's search state (node pool, open list, buffers) and belongs to one
// thread at a time: make one per worker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "thicket/export.hpp"
#include "thicket/world.hpp"

namespace thicket::nav {

using world::Vec2;

// How Recast splits the walkable area into regions before turning them into polygons.
enum class MeshPartition : std::uint8_t {
  Watershed,  // the best polygons (fewest slivers); the slowest build
  Monotone,   // the fastest; long thin polygons
  Layers,     // between the two
};

struct NavMeshParams {
  double cell_size = 0.2;        // m, > 0: the voxel size; finer follows obstacles more closely
  double agent_radius = 0.5;     // m, >= 0: the mesh keeps this far from obstacles
  double max_edge_length = 12;   // m, >= 0: longest polygon edge along a wall (0: no limit)
  double max_edge_error = 0.2;   // m, >= 0: how far a simplified wall may stray from the voxels
  // m², >= 0: walkable islands smaller than this are dropped (a goal in such a pocket then
  // snaps to the mesh outside it, if that is within the snap distance).
  double min_region_area = 1.0;
  double merge_region_area = 10; // m², >= 0: regions smaller than this merge into a neighbour
  int max_verts_per_poly = 6;    // 3..6: 6 gives fewer, rounder polygons
  MeshPartition partition = MeshPartition::Watershed;
  // Build guard: a world whose cell grid exceeds this many cells is refused (memory grows with
  // it; a larger world wants tiles, which this does not build yet).
  std::int64_t max_cells = std::int64_t{4096} * 4096;
};

// What a build made (counts, not times: the caller times the build if it wants to).
struct NavMeshStats {
  std::int32_t grid_width = 0, grid_height = 0;  // cells, including the overhang
  std::int32_t erosion_cells = 0;   // agent_radius in cells, rounded up
  std::int64_t blocked_cells = 0;   // cells marked unwalkable by obstacles (before erosion)
  std::int32_t regions = 0;
  std::int32_t polygons = 0;
  std::int32_t vertices = 0;
  std::int32_t detail_triangles = 0;
  std::size_t data_bytes = 0;       // Detour's tile data
};

class THICKET_API NavMesh {
 public:
  // Builds the mesh. On failure returns nullptr and says why in error (a bad parameter, a world
  // too large for max_cells, Recast running out of memory); nothing throws. An obstacle whose
  // numbers are not finite is an error. A world with no walkable area left gives a mesh with no
  // polygons, on which every query fails.
  static std::unique_ptr<NavMesh> build(const world::Bounds& bounds,
                                        std::span<const world::Obstacle> obstacles,
                                        const NavMeshParams& params, std::string& error);
  ~NavMesh();
  NavMesh(const NavMesh&) = delete;
  NavMesh& operator=(const NavMesh&) = delete;

  std::int32_t polygon_count() const { return stats_.polygons; }
  std::int32_t vertex_count() const { return stats_.vertices; }
  const NavMeshStats& stats() const { return stats_; }
  const NavMeshParams& params() const { return params_; }
  const world::Bounds& bounds() const { return bounds_; }

  // Polygon i's corners in world (x, y), convex, clockwise when plotted with y up (Recast's
  // winding). For viewers and tests.
  std::size_t outline_count() const { return outline_start_.empty() ? 0 : outline_start_.size() - 1; }
  std::span<const Vec2> outline(std::size_t i) const {
    return {outline_points_.data() + outline_start_[i], outline_start_[i + 1] - outline_start_[i]};
  }

  // Detour's navmesh (defined in runtime/src/nav/nav_mesh_detour.hpp, for NavMeshQuery); null
  // inside when the mesh has no polygons.
  struct Detour;
  const Detour& detour() const { return *detour_; }

 private:
  NavMesh() = default;
  std::unique_ptr<Detour> detour_;
  NavMeshParams params_;
  world::Bounds bounds_;
  NavMeshStats stats_;
  std::vector<Vec2> outline_points_;
  std::vector<std::size_t> outline_start_;  // polygon i: [start[i], start[i + 1])
};

// Searches on one NavMesh (which must outlive it). One per thread. Buffers are allocated once, in
// the constructor; a query allocates nothing except while `out` grows past its capacity (and
// `why` may allocate to hold a failure's reason).
class THICKET_API NavMeshQuery {
 public:
  // max_nodes: Detour's node pool (4..65535): a search that needs more polygons than this fails
  // with why = "search ran out of nodes". The longest corridor kept is max_nodes polygons too.
  explicit NavMeshQuery(const NavMesh& mesh, int max_nodes = 4096);
  ~NavMeshQuery();
  NavMeshQuery(const NavMeshQuery&) = delete;
  NavMeshQuery& operator=(const NavMeshQuery&) = delete;

  // False when the constructor could not set Detour up (an empty mesh, max_nodes out of range,
  // no memory); every query then fails.
  bool ok() const { return ok_; }

  // How far (m, > 0; a distance, not a box) from a point the queries look for the mesh when the
  // point is off it (inside an obstacle, or within agent_radius of one). Default:
  // 2·agent_radius + 1 m: enough for a point on an obstacle's surface, not for the middle of a
  // large obstacle.
  void set_snap_distance(double metres);
  double snap_distance() const { return snap_distance_; }

  // A path on the mesh from `from` to `to`: Detour's A* picks a corridor of polygons (costed
  // between edge midpoints, so not always the corridor of the shortest path) and its funnel
  // (findStraightPath) pulls it taut: out gets the corners, the first the start and the last
  // the goal. An end
  // that is off the mesh is first moved to the nearest point of the mesh within snap_distance,
  // so out.front() / out.back() may differ from `from` / `to`: compare them to tell. Same
  // points: out = {start, goal}, two equal points. length (optional) gets the sum of the
  // segments in metres.
  //
  // Returns false (out cleared, length 0) with why (optional) set to:
  //   "start is off the mesh" / "goal is off the mesh": nothing within snap_distance;
  //   "unreachable": the goal lies on a part of the mesh the start cannot reach. Detour then
  //     returns a path to the reachable point nearest the goal (DT_PARTIAL_RESULT); that is a
  //     guess at a detour, not a path, so it is refused rather than followed;
  //   "search ran out of nodes": the corridor is longer than max_nodes allows (also partial);
  //   "path too long": more corners than the buffers hold (max_nodes);
  //   "the navmesh has nothing walkable": it has no polygon (see ok());
  //   "query not initialised": see ok().
  bool find_path(Vec2 from, Vec2 to, std::vector<Vec2>& out, double* length = nullptr,
                 std::string* why = nullptr);

  // True when an agent (its centre) walks straight from a to b without leaving the mesh: a must
  // be on the mesh (not only near it) and the segment must not cross a mesh border.
  bool raycast(Vec2 a, Vec2 b);

  // The point of the mesh nearest p (p itself when p is on it). When no polygon lies within
  // snap_distance, returns p and sets *found (optional) to false.
  Vec2 nearest_point(Vec2 p, bool* found = nullptr);

  // What the last find_path did: polygons in its corridor (0 when it failed early).
  int last_corridor_size() const { return last_corridor_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool ok_ = false;
  double snap_distance_ = 2.0;
  int last_corridor_ = 0;
};

}  // namespace thicket::nav
