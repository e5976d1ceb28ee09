// nav::PathRequest (navigator.cpp): what thicket.find_path and move_to plan with.
#include <doctest/doctest.h>

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
