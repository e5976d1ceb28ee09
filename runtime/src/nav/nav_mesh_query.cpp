// Searching a navmesh with Detour: snap both ends onto the mesh, A* over polygons (findPath),
// then the funnel (findStraightPath) for the corners. Every buffer is sized in the constructor.
#include <DetourNavMeshQuery.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "nav/nav_mesh_detour.hpp"
#include "thicket/nav_mesh.hpp"

namespace thicket::nav {

namespace {

// The half height of the box findNearestPoly searches: the ground is at 0 and Recast puts the
// polygons within a cell height or two of it.
constexpr float kSnapHalfHeight = 1.0f;

}  // namespace

struct NavMeshQuery::Impl {
  const NavMesh::Detour* mesh = nullptr;
  dtNavMeshQuery* query = nullptr;
  dtQueryFilter filter;  // every polygon (flag 1), every area at cost 1
  std::vector<dtPolyRef> corridor;
  std::vector<float> corners;  // (x, y, z) per corner
  int max_corners = 0;
  ~Impl() { dtFreeNavMeshQuery(query); }

  // The polygon nearest p within `reach` metres on each axis (0 when none), and the nearest
  // point of it.
  dtPolyRef snap(Vec2 p, double reach, float* nearest, bool* over = nullptr) const {
    // Detour would turn a NaN into a bounding-volume index: undefined, so refused here.
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return 0;
    float centre[3], extents[3] = {static_cast<float>(reach), kSnapHalfHeight, static_cast<float>(reach)};
    mesh->to_recast(p, centre);
    dtPolyRef ref = 0;
    bool over_poly = false;
    if (dtStatusFailed(query->findNearestPoly(centre, extents, &filter, &ref, nearest, &over_poly))) return 0;
    // Detour gathers candidates through its bounding-volume tree, whose boxes are rounded to
    // whole cells, so its "nearest" may lie outside the box asked for; hold it to the distance.
    float dx = nearest[0] - centre[0], dz = nearest[2] - centre[2];
    if (ref && dx * dx + dz * dz > reach * reach) return 0;
    if (over) *over = over_poly;
    return ref;
  }
};

NavMeshQuery::NavMeshQuery(const NavMesh& mesh, int max_nodes) : impl_(std::make_unique<Impl>()) {
  snap_distance_ = 2 * mesh.params().agent_radius + 1.0;
  impl_->mesh = &mesh.detour();
  const dtNavMesh* nav = mesh.detour().mesh;
  // Detour's node indices are 16-bit, and its node pool hashes into max_nodes / 4 buckets: fewer
  // than 4 nodes would make that table empty (and Detour would index into it anyway).
  if (!nav || max_nodes < 4 || max_nodes > 65535) return;
  impl_->query = dtAllocNavMeshQuery();
  if (!impl_->query || dtStatusFailed(impl_->query->init(nav, max_nodes))) return;
  impl_->filter.setIncludeFlags(0xFFFF);
  // A corridor visits each polygon at most once, and only polygons the search reached; the
  // funnel adds at most one corner per portal plus the two ends.
  impl_->corridor.resize(static_cast<std::size_t>(max_nodes));
  impl_->max_corners = max_nodes + 2;
  impl_->corners.resize(static_cast<std::size_t>(impl_->max_corners) * 3);
  ok_ = true;
}

NavMeshQuery::~NavMeshQuery() = default;

void NavMeshQuery::set_snap_distance(double metres) {
  if (std::isfinite(metres) && metres > 0) snap_distance_ = metres;
}

bool NavMeshQuery::find_path(Vec2 from, Vec2 to, std::vector<Vec2>& out, double* length, std::string* why) {
  out.clear();
  if (length) *length = 0;
  last_corridor_ = 0;
  auto fail = [&](const char* reason) {
    if (why) *why = reason;
    out.clear();
    return false;
  };
  if (!ok_) return fail(impl_->mesh && !impl_->mesh->mesh ? "the navmesh has nothing walkable" : "query not initialised");
  Impl& m = *impl_;
  float start[3], goal[3];
  dtPolyRef start_ref = m.snap(from, snap_distance_, start);
  if (!start_ref) return fail("start is off the mesh");
  dtPolyRef goal_ref = m.snap(to, snap_distance_, goal);
  if (!goal_ref) return fail("goal is off the mesh");

  int corridor_size = 0;
  dtStatus status = m.query->findPath(start_ref, goal_ref, start, goal, &m.filter, m.corridor.data(),
                                      &corridor_size, static_cast<int>(m.corridor.size()));
  if (dtStatusFailed(status) || corridor_size == 0) return fail("unreachable");
  // A partial result ends at the polygon nearest the goal that the search reached: when the
  // node pool ran out that is a search limit, otherwise the goal is cut off from the start.
  // (Running out of nodes on the way to a goal still reached is no failure.)
  if (status & DT_PARTIAL_RESULT)
    return fail(dtStatusDetail(status, DT_OUT_OF_NODES) ? "search ran out of nodes" : "unreachable");
  if (dtStatusDetail(status, DT_BUFFER_TOO_SMALL)) return fail("path too long");
  last_corridor_ = corridor_size;

  int corner_count = 0;
  status = m.query->findStraightPath(start, goal, m.corridor.data(), corridor_size, m.corners.data(), nullptr,
                                     nullptr, &corner_count, m.max_corners);
  if (dtStatusFailed(status) || corner_count == 0) return fail("unreachable");
  if (dtStatusDetail(status, DT_BUFFER_TOO_SMALL)) return fail("path too long");
  for (int i = 0; i < corner_count; ++i) out.push_back(m.mesh->to_world(&m.corners[static_cast<std::size_t>(i) * 3]));
  // Detour merges equal corners, so start == goal comes back as one point; a path always has
  // both ends, so followers need no special case.
  if (out.size() == 1) out.push_back(out.front());
  if (length) {
    double sum = 0;
    for (std::size_t i = 1; i < out.size(); ++i) sum += world::distance(out[i - 1], out[i]);
    *length = sum;
  }
  return true;
}

bool NavMeshQuery::raycast(Vec2 a, Vec2 b) {
  if (!ok_) return false;
  Impl& m = *impl_;
  float start[3], end[3];
  bool over = false;
  // A small box: a must be on the mesh, not merely near it. The nearest point on the polygon
  // under a has a's own x and z.
  dtPolyRef ref = m.snap(a, 1e-3, start, &over);
  if (!ref || !over || !std::isfinite(b.x) || !std::isfinite(b.y)) return false;
  m.mesh->to_recast(b, end);
  end[1] = start[1];
  dtRaycastHit hit{};  // no polygon list wanted: hit.path stays null with maxPath 0
  if (dtStatusFailed(m.query->raycast(ref, start, end, &m.filter, 0, &hit))) return false;
  // Detour's t: FLT_MAX when the ray reached b, else the fraction of a→b at the first wall.
  return hit.t == FLT_MAX;
}

Vec2 NavMeshQuery::nearest_point(Vec2 p, bool* found) {
  if (found) *found = false;
  if (!ok_) return p;
  float nearest[3];
  if (!impl_->snap(p, snap_distance_, nearest)) return p;
  if (found) *found = true;
  return impl_->mesh->to_world(nearest);
}

}  // namespace thicket::nav
