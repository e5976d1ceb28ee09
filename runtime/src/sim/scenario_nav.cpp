// Scenario files, the navigation part of `world:` (scenario_reader.hpp): a grid map and its
// terrain, danger zones, waypoints and navmeshes.

#include "scenario_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "suggest.hpp"

namespace thicket::scenario_read {

void ScenarioReader::read_map(const YAML::Node& world, const Field& map, ScenarioSpec& spec) {
  double cell = 1.0;
  world::Vec2 origin{0, 0};
  read_measure(world, "cell", /*positive=*/true, cell, /*at_most=*/1e6);
  if (Field c = field(world, "cell"); c && cell < 1e-3) {  // (1e-300 made a world of 1e-300 m)
    error(c, "'cell' must be at least 0.001 (metres), got " + shown(c.value));
    cell = 1.0;
  }
  if (Field o = field(world, "origin"))
    if (auto p = point(o)) {
      if (std::abs(p->x) <= kMaxWorldSide && std::abs(p->y) <= kMaxWorldSide) origin = *p;
      else  // (1e300 + 4 == 1e300: the world had no width)
        error(o, "'origin' must be within 1000000000 m of (0, 0) on each axis, got " + shown(o.value));
    }
  const std::optional<std::string> found = file_beside(map, "a Moving AI .map file", "map file", {".map"});
  if (!found) return;
  const std::string& path = *found;
  size_t before = diags_.size();
  std::optional<nav::GridMap> grid = nav::load_grid_map(path, diags_);
  if (!grid) {
    if (diags_.size() == before) error(map, "map file '" + map.value.Scalar() + "' could not be read");
    error(map, "the map '" + map.value.Scalar() + "' has errors (above)");
    return;
  }
  grid->cell_size = cell;
  grid->origin = origin;
  if (Field terrain = field(world, "terrain")) read_terrain(terrain, *grid);
  spec.bounds = grid->world_bounds();
  spec.nav.map_path = path;
  spec.nav.map = std::make_shared<const nav::GridMap>(std::move(*grid));
  known_bounds_ = spec.bounds;
  world_known_ = true;
}

void ScenarioReader::read_terrain(const Field& terrain, nav::GridMap& grid) {
  if (!terrain.value.IsMap()) {
    error(terrain, "'terrain' must be a mapping {SYMBOL: cost, ...}, e.g. {T: 3, W: blocked}, got " + shown(terrain.value));
    return;
  }
  std::vector<std::pair<char, float>> rules;  // cost < 0: blocked
  for (auto it = terrain.value.begin(); it != terrain.value.end(); ++it) {
    const std::string sym = it->first.IsScalar() ? it->first.Scalar() : "";
    if (sym.size() != 1 || !nav::is_known_symbol(sym[0])) {
      error(it->first, "a terrain key is one map symbol (. G S @ O T W), got " + shown(it->first));
      continue;
    }
    if (it->second.IsScalar() && it->second.Scalar() == "blocked") {
      rules.emplace_back(sym[0], -1.0f);
      continue;
    }
    auto v = finite_number(it->second);
    if (!v || *v <= 0 || *v > 1e6) {
      const bool text = it->second.IsScalar() && !v;
      error(it->second, "the terrain cost of '" + sym + "' must be a number > 0 and at most 1000000 (a multiplier of "
                        "the move's length) or 'blocked', got " + shown(it->second) +
                            (text ? did_you_mean(it->second.Scalar(), {"blocked"}) : std::string()), it->first);
      continue;
    }
    rules.emplace_back(sym[0], static_cast<float>(*v));
  }
  for (int32_t y = 0; y < grid.height(); ++y)
    for (int32_t x = 0; x < grid.width(); ++x) {
      nav::Cell c{x, y};
      for (auto [sym, cost] : rules)
        if (grid.symbol(c) == sym) {
          grid.set_passable(c, cost > 0);
          if (cost > 0) grid.set_cost(c, cost);
        }
    }
}

void ScenarioReader::read_danger(const Field& list, NavSpec& nav) {
  if (!list.value.IsSequence()) {
    error(list, "'danger' must be a list of zones {centre: [x, y], radius: R, cost: 50}, got " + shown(list.value));
    return;
  }
  for (const YAML::Node& item : list.value) {
    if (!item.IsMap()) {
      error(item, "a danger zone is {centre: [x, y], radius: R, cost: 50}, got " + shown(item), list.key);
      continue;
    }
    reject_unknown_keys(item, {"centre", "radius", "cost"}, "key", " in a danger zone", {"center"});
    nav::DangerZone zone;
    Field centre = field(item, "centre") ? field(item, "centre") : field(item, "center");
    bool good = true;
    if (!centre) {
      error(item, "a danger zone needs 'centre: [x, y]'");
      good = false;
    } else if (auto p = point(centre)) {
      zone.centre = *p;
    } else {
      good = false;
    }
    if (Field r = required(item, "radius", "a danger zone needs 'radius: R'")) {
      if (auto v = measure(r, /*positive=*/true)) zone.radius = *v; else good = false;
    } else {
      good = false;
    }
    read_measure(item, "cost", /*positive=*/false, zone.cost);
    if (good) nav.danger.push_back(zone);
  }
}

void ScenarioReader::read_waypoints(const Field& wp, const std::vector<world::Obstacle>& obstacles, NavSpec& nav) {
  const YAML::Node* points = nullptr;
  Field points_field = field(wp.value, "points");
  if (wp.value.IsSequence()) {
    points = &wp.value;
  } else if (wp.value.IsMap()) {
    reject_unknown_keys(wp.value, {"points", "max_length", "edges"}, "key", " in 'waypoints'");
    if (!points_field) {
      error(wp, "'waypoints' needs 'points: [[x, y], ...]'");
      return;
    }
    points = &points_field.value;
    read_measure(wp.value, "max_length", /*positive=*/false, nav.waypoint_max_length);
  } else {
    error(wp, "'waypoints' must be a list of points [[x, y], ...] or {points: [...], max_length: L, edges: [[i, j], ...]}, got " +
                  shown(wp.value));
    return;
  }
  if (!points->IsSequence() || points->size() == 0) {
    error(points_field ? points_field.value : wp.value, "the waypoints must be a non-empty list of points [[x, y], ...]", wp.key);
    return;
  }
  for (const YAML::Node& item : *points) {
    auto p = as_point(item);
    if (!p) {
      error(item, "waypoint " + std::to_string(nav.waypoints.size()) + " must be a point [x, y] of two finite numbers, got " +
                      shown(item), wp.key);
      // (Its place kept, so that the next ones keep their numbers, and the count said below is
      // the list's: a point that is no number equals none.)
      nav.waypoints.push_back({std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()});
      continue;
    }
    const std::string which = "waypoint " + std::to_string(nav.waypoints.size()) + " at " + point_text(*p);
    auto same = std::find(nav.waypoints.begin(), nav.waypoints.end(), *p);
    if (world_known_ && !world_bounds_contains(*p))
      error(item, which + " is outside the world");
    else if (same != nav.waypoints.end())
      error(item, which + " is where waypoint " + std::to_string(same - nav.waypoints.begin()) + " is: list each place once");
    else if (std::string in = inside_wall(*p, obstacles, nav); !in.empty())
      error(item, which + " is " + in + ": no route could reach it");
    nav.waypoints.push_back(*p);
  }
  nav.has_waypoints = true;
  Field edges = field(wp.value, "edges");
  if (!edges) return;
  if (field(wp.value, "max_length")) error(edges.key, "'edges' lists the links by hand; 'max_length' only limits automatic ones: give one of them");
  if (!edges.value.IsSequence()) {
    error(edges, "'edges' must be a list of pairs of waypoint indices [[0, 1], ...], got " + shown(edges.value));
    return;
  }
  for (const YAML::Node& item : edges.value) {
    bool good = item.IsSequence() && item.size() == 2;
    int64_t ends[2] = {-1, -1};
    for (size_t k = 0; good && k < 2; ++k) {
      Scalar sc = classify_scalar(item[k]);
      if (!item[k].IsScalar() || sc.kind != ScalarKind::Integer) good = false;
      else ends[k] = sc.integer;
    }
    if (!good) {
      error(item, "an edge is a pair of waypoint indices [i, j] (whole numbers from 0), got " + shown(item), edges.key);
      continue;
    }
    bool in_range = true;
    for (int64_t e : ends)
      if (e < 0 || e >= static_cast<int64_t>(nav.waypoints.size())) in_range = false;
    if (!in_range) {
      error(item, "edge " + shown(item[0]) + "-" + shown(item[1]) + " names a waypoint that does not exist (there are " +
                      std::to_string(nav.waypoints.size()) + ", numbered from 0)");
      continue;
    }
    const std::string name = "edge " + std::to_string(ends[0]) + "-" + std::to_string(ends[1]);
    const std::pair<uint32_t, uint32_t> edge{static_cast<uint32_t>(std::min(ends[0], ends[1])),
                                             static_cast<uint32_t>(std::max(ends[0], ends[1]))};
    if (ends[0] == ends[1]) {
      error(item, name + " joins waypoint " + std::to_string(ends[0]) + " to itself");
      continue;
    }
    if (std::find(nav.waypoint_edges.begin(), nav.waypoint_edges.end(), edge) != nav.waypoint_edges.end()) {
      error(item, name + " is listed twice (an edge goes both ways: " + std::to_string(edge.first) + "-" +
                      std::to_string(edge.second) + " and " + std::to_string(edge.second) + "-" +
                      std::to_string(edge.first) + " are one edge)");
      continue;
    }
    nav.waypoint_edges.push_back(edge);
  }
}

std::string ScenarioReader::inside_wall(world::Vec2 p, const std::vector<world::Obstacle>& obstacles, const NavSpec& nav) {
  for (const world::Obstacle& o : obstacles)
    if (world::obstacle_contains(o, p)) return "inside an obstacle";
  if (nav.map && !nav.map->passable(nav.map->cell_at(p))) return "in a blocked cell of the map";
  return "";
}

void ScenarioReader::read_navmesh(const Field& f, ScenarioSpec& spec) {
  std::tie(spec.nav.navmesh_line, spec.nav.navmesh_column) = place(f.key);
  Scalar sc = classify_scalar(f.value);
  if (f.value.IsScalar() && sc.kind == ScalarKind::Bool) {
    spec.nav.navmesh = sc.boolean;
  } else if (f.value.IsMap()) {
    reject_unknown_keys(f.value, {"cell", "agent_radius"}, "key", " in 'navmesh'");
    read_measure(f.value, "cell", /*positive=*/true, spec.nav.navmesh_cell);
    read_measure(f.value, "agent_radius", /*positive=*/false, spec.nav.navmesh_agent_radius);
    spec.nav.navmesh = true;
  } else {
    error(f, "'navmesh' must be true/false or {cell: 0.2, agent_radius: 0.5}, got " + shown(f.value));
    return;
  }
  if (spec.nav.navmesh && field(f.value, "cell") && spec.nav.navmesh_cell < 0.01)
    error(field(f.value, "cell").value, "'cell' of a navmesh must be >= 0.01 m (a finer voxel grid is huge)");
  // Recast erodes at most 127 cells (nav_mesh.cpp): said here, at its place, not when the run builds it.
  else if (spec.nav.navmesh && field(f.value, "agent_radius") && spec.nav.navmesh_cell > 0 &&
           std::ceil(spec.nav.navmesh_agent_radius / spec.nav.navmesh_cell - 1e-9) > 127) {
    char said[200];
    std::snprintf(said, sizeof said,
                  "'agent_radius' %g m is %.0f cells of %g m; the navmesh erodes at most 127 cells: give a larger "
                  "'cell' or a smaller 'agent_radius'",
                  spec.nav.navmesh_agent_radius, std::ceil(spec.nav.navmesh_agent_radius / spec.nav.navmesh_cell - 1e-9),
                  spec.nav.navmesh_cell);
    error(field(f.value, "agent_radius").value, said);
  }
}

}  // namespace thicket::scenario_read
