// What NavMesh hides from its users: the Detour navmesh it owns (shared by nav_mesh.cpp, which
// builds it, and nav_mesh_query.cpp, which searches it).
#pragma once
#include <DetourNavMesh.h>

#include "thicket/nav_mesh.hpp"

namespace thicket::nav {

struct NavMesh::Detour {
  dtNavMesh* mesh = nullptr;  // owns its one tile's data (DT_TILE_FREE_DATA)
  // Where Recast's (0, 0, 0) is in the world. Recast and Detour compute in float; placing their
  // origin at the world's corner keeps a cell's precision the same wherever the world lies.
  world::Vec2 origin;
  void to_recast(world::Vec2 p, float* out) const {
    out[0] = static_cast<float>(p.x - origin.x);
    out[1] = 0.0f;
    out[2] = static_cast<float>(p.y - origin.y);
  }
  world::Vec2 to_world(const float* p) const { return {origin.x + p[0], origin.y + p[2]}; }
  ~Detour() { dtFreeNavMesh(mesh); }
};

}  // namespace thicket::nav
