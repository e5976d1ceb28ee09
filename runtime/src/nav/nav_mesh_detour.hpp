// What NavMesh hides from its users: the Detour navmesh it owns (shared by nav_mesh.cpp, which
// builds it, and nav_mesh_query.cpp, which searches it).
#pragma once
#include <DetourNavMesh.h>

#include "thicket/nav_mesh.hpp"

namespace thicket::nav {

struct NavMesh::Detour {
  dtNavMesh* mesh = nullptr;  // owns its one tile's data (DT_TILE_FREE_DATA)
  ~Detour() { dtFreeNavMesh(mesh); }
};

}  // namespace thicket::nav
