// Perception's own index of bodies for sight (private to runtime/src/perception): a dense grid
// over the world's bounds, one per team, rebuilt from the spatial hash at each begin_tick.
//
// Why beside the hash: sight is most of perception's cost, and most of that was the hash's
// cone walk examining bodies one by one (half of them of the sensing agent's own team, each
// checked for its cell because buckets are shared). Here a row of kept cells is one
// contiguous stretch of one team's bodies (positions stored apart from ids), so a query reads
// only the teams its filter accepts and no cell test per body. The answers are those of
// SpatialHash::in_cones exactly: the same bodies (from the hash's entries), the same per-body
// tests in the same arithmetic, over the cells of the wedges' bounding box (the output is not
// sorted).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "thicket/world.hpp"

namespace thicket::perception {

class SightIndex {
 public:
  // From the hash's entries that are agents' bodies (agent_of_slot[slot] != 0: only agents
  // are perceived, and only they make a sensor look harder under LOD); bounds: the world's
  // (bodies outside it are kept on a side list that every query reads).
  void rebuild(const world::SpatialHash& hash, const world::Bounds& bounds, const std::vector<std::uint32_t>& agent_of_slot);
  // As hash.in_cones(eye, heading, cones, out, filter, cost) but in no particular order (the
  // manager sorts its percepts anyway, and most sightings fail line of sight: sorting them all
  // cost more than the cone tests). Returns false (out untouched) when
  // this index does not handle the query (too many teams or cones, a cone that is no narrow
  // wedge): the caller asks the hash then.
  bool in_cones(world::Vec2 eye, world::Vec2 heading, std::span<const world::SpatialHash::ViewCone> cones,
                std::vector<world::SpatialHash::Sighting>& out, const world::QueryFilter& filter,
                world::QueryCost* cost) const;

  // As hash.any_within(point, radius, filter) (LOD's "anything of interest near?"): sets
  // `found` and returns true, or returns false when this index does not handle the query.
  bool any_within(world::Vec2 point, double radius, const world::QueryFilter& filter, bool& found) const;

 private:
  static constexpr std::size_t kMaxTeams = 4;
  bool usable_ = false;
  double cell_ = 8.0, inverse_cell_ = 1.0 / 8.0;
  world::Vec2 origin_;
  std::int32_t columns_ = 0, rows_ = 0;
  std::vector<std::int32_t> teams_;         // distinct teams present, ascending (<= kMaxTeams)
  std::vector<std::uint32_t> cell_start_;   // team t, cell c: [start[t*(cells+1)+c], ..+1)
  std::vector<double> xs_, ys_;             // bodies grouped by team, then cell
  std::vector<world::EntityId> ids_;
  // Bodies outside the grid (or not finite): every query examines them.
  struct Stray {
    world::Vec2 position;
    world::EntityId id;
    std::int32_t team;
  };
  std::vector<Stray> strays_;
  // rebuild scratch
  std::vector<std::uint32_t> key_scratch_, cursor_scratch_;
};

}  // namespace thicket::perception
