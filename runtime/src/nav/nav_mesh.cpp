// Building a navmesh with Recast: the world's ground as one flat quad, obstacles marked as holes,
// eroded by the agent's radius, then Recast's regions → contours → polygons, and Detour's tile
// data made from those (one tile: a world of up to max_cells cells).
//
// Obstacles are marked on the compact heightfield cell by cell with the world's own geometry
// (world::distance_to_obstacle) instead of Recast's rcMark*Area helpers: circles, boxes and
// concave polygons then all mean exactly what they mean to steering and to Walls, and a concave
// polygon needs no triangulation. A cell is marked when the obstacle touches any part of it
// (its centre is within half a cell diagonal), not only its centre: the mesh may then lose a
// sliver of floor but never overlaps an obstacle, before the erosion adds the agent's radius.
#include "thicket/nav_mesh.hpp"

#include <DetourNavMeshBuilder.h>
#include <Recast.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "nav/nav_mesh_detour.hpp"

namespace thicket::nav {

namespace {

// Recast's own units: the ground at height 0 inside a thin slab. The height axis only needs room
// for one span, so its resolution is arbitrary; walkable height and climb must merely be valid.
constexpr float kCellHeight = 0.2f;
constexpr float kSlabBottom = -1.0f, kSlabTop = 1.0f;
constexpr int kWalkableHeightCells = 10;  // 2 m: nothing hangs over the ground anyway
constexpr int kWalkableClimbCells = 1;
// Detour reads polygon flags through its query filter, which rejects polygons with none set.
constexpr unsigned short kWalkableFlag = 1;

// Recast reports failures through its context's log; keep the first error as the build's reason.
// Timers stay off (the base context's timer hooks are empty): a build reads no clock.
class BuildContext : public rcContext {
 public:
  BuildContext() : rcContext(true) { enableTimer(false); }
  std::string first_error;

 protected:
  void doLog(const rcLogCategory category, const char* msg, const int len) override {
    if (category == RC_LOG_ERROR && first_error.empty()) first_error.assign(msg, static_cast<std::size_t>(len));
  }
};

struct RecastDeleter {
  void operator()(rcHeightfield* p) const { rcFreeHeightField(p); }
  void operator()(rcCompactHeightfield* p) const { rcFreeCompactHeightfield(p); }
  void operator()(rcContourSet* p) const { rcFreeContourSet(p); }
  void operator()(rcPolyMesh* p) const { rcFreePolyMesh(p); }
  void operator()(rcPolyMeshDetail* p) const { rcFreePolyMeshDetail(p); }
};
template <class T>
using RecastPtr = std::unique_ptr<T, RecastDeleter>;

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// Empty when the parameters make sense, else what is wrong with them.
std::string check_params(const world::Bounds& bounds, const NavMeshParams& p) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  auto non_negative = [](double v) { return std::isfinite(v) && v >= 0; };
  if (!finite(bounds.min) || !finite(bounds.max) || !(bounds.min.x < bounds.max.x) ||
      !(bounds.min.y < bounds.max.y))
    return "bounds must be finite with min < max on both axes";
  if (!positive(p.cell_size)) return "cell_size must be > 0";
  if (!non_negative(p.agent_radius)) return "agent_radius must be >= 0";
  // Recast erodes by a distance field of bytes (two per cell): past 127 cells its threshold
  // wraps, and the mesh was left uneroded, reaching past the world and through narrow walls.
  if (std::ceil(p.agent_radius / p.cell_size - 1e-9) > 127) {
    char said[160];
    std::snprintf(said, sizeof said,
                  "agent_radius %g m is %.0f cells of %g m; Recast erodes at most 127 cells: a larger cell or a "
                  "smaller agent_radius",
                  p.agent_radius, std::ceil(p.agent_radius / p.cell_size - 1e-9), p.cell_size);
    return said;
  }
  if (!non_negative(p.max_edge_length)) return "max_edge_length must be >= 0";
  if (!non_negative(p.max_edge_error)) return "max_edge_error must be >= 0";
  if (!non_negative(p.min_region_area)) return "min_region_area must be >= 0";
  if (!non_negative(p.merge_region_area)) return "merge_region_area must be >= 0";
  if (p.max_verts_per_poly < 3 || p.max_verts_per_poly > DT_VERTS_PER_POLYGON)
    return "max_verts_per_poly must be 3.." + std::to_string(DT_VERTS_PER_POLYGON);
  return {};
}

// Empty when the obstacle can be marked, else what is wrong with it.
std::string check_obstacle(const world::Obstacle& o) {
  if (!finite(o.centre) || !std::isfinite(o.radius) || !finite(o.half_extents))
    return "its numbers are not finite";
  if (o.shape == world::ObstacleShape::Polygon) {
    if (o.vertices.size() < 3) return "a polygon needs at least 3 corners";
    for (Vec2 v : o.vertices)
      if (!finite(v)) return "its numbers are not finite";
  }
  return {};
}

// The obstacle's bounding box in world coordinates.
world::Bounds box_of(const world::Obstacle& o) {
  switch (o.shape) {
    case world::ObstacleShape::Circle:
      return {o.centre - Vec2{o.radius, o.radius}, o.centre + Vec2{o.radius, o.radius}};
    case world::ObstacleShape::Box:
      return {o.centre - o.half_extents, o.centre + o.half_extents};
    case world::ObstacleShape::Polygon: {
      // From the corners themselves: half_extents may be stale if the corners were edited.
      world::Bounds b{o.vertices[0], o.vertices[0]};
      for (Vec2 v : o.vertices) {
        b.min = {std::min(b.min.x, v.x), std::min(b.min.y, v.y)};
        b.max = {std::max(b.max.x, v.x), std::max(b.max.y, v.y)};
      }
      return b;
    }
  }
  return {o.centre, o.centre};
}

// The cell index of world offset `metres` from the grid's origin, clamped to [-1, cells] before
// the conversion (an obstacle far outside the world must not overflow an int).
int cell_index(double metres, double cell_size, int cells) {
  return static_cast<int>(std::clamp(std::floor(metres / cell_size), -1.0, static_cast<double>(cells)));
}

// Sets every span of every cell the obstacle touches to RC_NULL_AREA; returns the cells marked.
// origin: the world position of the grid's corner.
std::int64_t mark_obstacle(const world::Obstacle& o, Vec2 origin, rcCompactHeightfield& chf) {
  const double cs = chf.cs;
  const double reach = cs * std::sqrt(0.5);  // half a cell diagonal
  world::Bounds box = box_of(o);
  int x0 = std::max(0, cell_index(box.min.x - reach - origin.x, cs, chf.width));
  int x1 = std::min(chf.width - 1, cell_index(box.max.x + reach - origin.x, cs, chf.width));
  int z0 = std::max(0, cell_index(box.min.y - reach - origin.y, cs, chf.height));
  int z1 = std::min(chf.height - 1, cell_index(box.max.y + reach - origin.y, cs, chf.height));
  std::int64_t marked = 0;
  for (int z = z0; z <= z1; ++z)
    for (int x = x0; x <= x1; ++x) {
      Vec2 centre{origin.x + (x + 0.5) * cs, origin.y + (z + 0.5) * cs};
      if (world::distance_to_obstacle(o, centre) > reach) continue;
      const rcCompactCell& cell = chf.cells[x + z * chf.width];
      for (unsigned i = cell.index, end = cell.index + cell.count; i < end; ++i) {
        if (chf.areas[i] != RC_NULL_AREA) ++marked;
        chf.areas[i] = RC_NULL_AREA;
      }
    }
  return marked;
}

// Whole cells, rounding up, with a little slack so that 0.5 m / 0.1 m is 5 cells and not 6.
int cells_up(double metres, double cell_size) {
  return static_cast<int>(std::ceil(metres / cell_size - 1e-9));
}

}  // namespace

NavMesh::~NavMesh() = default;

std::unique_ptr<NavMesh> NavMesh::build(const world::Bounds& bounds,
                                        std::span<const world::Obstacle> obstacles,
                                        const NavMeshParams& params, std::string& error) {
  error.clear();
  if (std::string bad = check_params(bounds, params); !bad.empty()) {
    error = "navmesh: " + bad;
    return nullptr;
  }
  for (std::size_t i = 0; i < obstacles.size(); ++i)
    if (std::string bad = check_obstacle(obstacles[i]); !bad.empty()) {
      error = "navmesh: obstacle " + std::to_string(i) + ": " + bad;
      return nullptr;
    }

  const double cs = params.cell_size;
  const int erosion = cells_up(params.agent_radius, cs);
  // The ground overhangs the bounds by the erosion, which then eats the overhang (top of file).
  const double overhang = erosion * cs;
  const Vec2 origin = bounds.min - Vec2{overhang, overhang};  // Recast's (0, 0): see Detour::origin
  const double cells_x = std::ceil((bounds.max.x - bounds.min.x + 2 * overhang) / cs);
  const double cells_z = std::ceil((bounds.max.y - bounds.min.y + 2 * overhang) / cs);
  // (Written so that an infinite size fails too.)
  if (!(cells_x <= 0xFFFF && cells_z <= 0xFFFF && cells_x * cells_z <= static_cast<double>(params.max_cells))) {
    char size[64];
    std::snprintf(size, sizeof size, "%.0f x %.0f", cells_x, cells_z);
    error = std::string("navmesh: the world is ") + size + " cells, more than max_cells (" +
            std::to_string(params.max_cells) + ") or 65535 a side; raise cell_size";
    return nullptr;
  }
  const int width = static_cast<int>(cells_x), height = static_cast<int>(cells_z);
  // Recast's grid is whole cells: its far edge is where the last cell ends.
  const float bmin[3] = {0, kSlabBottom, 0};
  const float bmax[3] = {static_cast<float>(width * cs), kSlabTop, static_cast<float>(height * cs)};

  BuildContext ctx;
  auto recast_failed = [&](const char* step) {
    error = std::string("navmesh: ") + step + " failed" +
            (ctx.first_error.empty() ? std::string(" (out of memory?)") : ": " + ctx.first_error);
    return nullptr;
  };
  std::unique_ptr<NavMesh> mesh(new NavMesh());
  mesh->detour_ = std::make_unique<Detour>();  // its navmesh stays null while there are no polygons
  mesh->detour_->origin = origin;
  mesh->params_ = params;
  mesh->bounds_ = bounds;
  NavMeshStats& stats = mesh->stats_;
  stats.grid_width = width;
  stats.grid_height = height;
  stats.erosion_cells = erosion;

  // 1. The ground: a quad over the whole grid, walkable.
  RecastPtr<rcHeightfield> solid(rcAllocHeightfield());
  if (!solid || !rcCreateHeightfield(&ctx, *solid, width, height, bmin, bmax, static_cast<float>(cs), kCellHeight))
    return recast_failed("rcCreateHeightfield");
  const float ground[] = {bmin[0], 0, bmin[2], bmax[0], 0, bmin[2], bmax[0], 0, bmax[2], bmin[0], 0, bmax[2]};
  const int ground_tris[] = {0, 2, 1, 0, 3, 2};
  const unsigned char ground_areas[] = {RC_WALKABLE_AREA, RC_WALKABLE_AREA};
  if (!rcRasterizeTriangles(&ctx, ground, 4, ground_tris, ground_areas, 2, *solid))
    return recast_failed("rcRasterizeTriangles");
  // No rcFilter* pass: the ground is one flat span per cell, so there are no low obstacles,
  // no low ceilings, and the ledge filter would only mistake the grid's edge for a cliff.

  // 2. Open space over the ground; obstacles punched out of it; then the agent's radius.
  RecastPtr<rcCompactHeightfield> chf(rcAllocCompactHeightfield());
  if (!chf || !rcBuildCompactHeightfield(&ctx, kWalkableHeightCells, kWalkableClimbCells, *solid, *chf))
    return recast_failed("rcBuildCompactHeightfield");
  solid.reset();
  for (const world::Obstacle& o : obstacles) stats.blocked_cells += mark_obstacle(o, origin, *chf);
  if (erosion > 0 && !rcErodeWalkableArea(&ctx, erosion, *chf)) return recast_failed("rcErodeWalkableArea");

  // 3. Regions, contours, polygons.
  const double cell_area = cs * cs;
  const int min_region = static_cast<int>(std::ceil(params.min_region_area / cell_area));
  const int merge_region = static_cast<int>(std::ceil(params.merge_region_area / cell_area));
  switch (params.partition) {
    case MeshPartition::Watershed:
      if (!rcBuildDistanceField(&ctx, *chf)) return recast_failed("rcBuildDistanceField");
      if (!rcBuildRegions(&ctx, *chf, 0, min_region, merge_region)) return recast_failed("rcBuildRegions");
      break;
    case MeshPartition::Monotone:
      if (!rcBuildRegionsMonotone(&ctx, *chf, 0, min_region, merge_region))
        return recast_failed("rcBuildRegionsMonotone");
      break;
    case MeshPartition::Layers:
      if (!rcBuildLayerRegions(&ctx, *chf, 0, min_region)) return recast_failed("rcBuildLayerRegions");
      break;
  }
  stats.regions = chf->maxRegions;
  RecastPtr<rcContourSet> contours(rcAllocContourSet());
  const int max_edge = cells_up(params.max_edge_length, cs);
  if (!contours || !rcBuildContours(&ctx, *chf, static_cast<float>(params.max_edge_error / cs), max_edge, *contours))
    return recast_failed("rcBuildContours");
  RecastPtr<rcPolyMesh> polys(rcAllocPolyMesh());
  if (!polys || !rcBuildPolyMesh(&ctx, *contours, params.max_verts_per_poly, *polys))
    return recast_failed("rcBuildPolyMesh");
  contours.reset();
  RecastPtr<rcPolyMeshDetail> detail(rcAllocPolyMeshDetail());
  // Flat ground: the detail mesh only triangulates the polygons. Recast's usual sampling distance
  // (6 cells) is kept: with 0 (no sampling) this Recast read uninitialised memory and crashed.
  if (!detail || !rcBuildPolyMeshDetail(&ctx, *polys, *chf, static_cast<float>(cs * 6), kCellHeight, *detail))
    return recast_failed("rcBuildPolyMeshDetail");
  chf.reset();
  stats.polygons = polys->npolys;
  stats.vertices = polys->nverts;
  stats.detail_triangles = detail->ntris;
  if (polys->npolys == 0) return mesh;  // nothing walkable: queries on it fail (see the header)
  for (int i = 0; i < polys->npolys; ++i) polys->flags[i] = kWalkableFlag;

  // 4. Detour's tile data and the navmesh that owns it.
  dtNavMeshCreateParams create{};
  create.verts = polys->verts;
  create.vertCount = polys->nverts;
  create.polys = polys->polys;
  create.polyFlags = polys->flags;
  create.polyAreas = polys->areas;
  create.polyCount = polys->npolys;
  create.nvp = polys->nvp;
  create.detailMeshes = detail->meshes;
  create.detailVerts = detail->verts;
  create.detailVertsCount = detail->nverts;
  create.detailTris = detail->tris;
  create.detailTriCount = detail->ntris;
  create.walkableHeight = static_cast<float>(kWalkableHeightCells * kCellHeight);
  create.walkableRadius = static_cast<float>(params.agent_radius);
  create.walkableClimb = static_cast<float>(kWalkableClimbCells * kCellHeight);
  std::copy(polys->bmin, polys->bmin + 3, create.bmin);
  std::copy(polys->bmax, polys->bmax + 3, create.bmax);
  create.cs = polys->cs;
  create.ch = polys->ch;
  create.buildBvTree = true;  // findNearestPoly on one big tile walks a tree, not every polygon
  unsigned char* data = nullptr;
  int data_size = 0;
  if (!dtCreateNavMeshData(&create, &data, &data_size)) {
    error = "navmesh: dtCreateNavMeshData failed (more than 65535 vertices? raise cell_size)";
    return nullptr;
  }
  stats.data_bytes = static_cast<std::size_t>(data_size);
  mesh->detour_->mesh = dtAllocNavMesh();
  if (!mesh->detour_->mesh) {
    dtFree(data);
    error = "navmesh: dtAllocNavMesh failed (out of memory)";
    return nullptr;
  }
  // DT_TILE_FREE_DATA: the navmesh owns data once init succeeds (not when it fails).
  if (dtStatusFailed(mesh->detour_->mesh->init(data, data_size, DT_TILE_FREE_DATA))) {
    dtFree(data);
    error = "navmesh: dtNavMesh::init failed";
    return nullptr;
  }

  // 5. The outlines, read back from the tile so they are what queries see.
  const Detour& detour = *mesh->detour_;
  const dtNavMesh* nav = detour.mesh;
  const dtMeshTile* tile = nav->getTile(0);
  mesh->outline_start_.push_back(0);
  for (int i = 0; i < tile->header->polyCount; ++i) {
    const dtPoly& poly = tile->polys[i];
    for (int j = 0; j < poly.vertCount; ++j) {
      mesh->outline_points_.push_back(detour.to_world(&tile->verts[poly.verts[j] * 3]));
    }
    mesh->outline_start_.push_back(mesh->outline_points_.size());
  }
  return mesh;
}

}  // namespace thicket::nav
