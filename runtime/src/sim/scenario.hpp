// Scenario files (issue 7): a world, teams, groups of agents with brains, and run settings.
// Parsed and validated here; run by simulation.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace thicket {

// Where a group's agents appear: uniformly at random (from the run seed) in a disc or a box.
struct SpawnArea {
  enum class Shape { Disc, Box } shape = Shape::Disc;
  world::Vec2 centre{0, 0};
  double radius = 0;                    // Disc
  world::Vec2 min{0, 0}, max{0, 0};     // Box
};

struct AgentGroup {
  std::string name;
  std::string team;                     // one of ScenarioSpec::teams
  uint32_t count = 1;
  std::string brain;                    // brain file path, resolved relative to the scenario file
  SpawnArea spawn;
  world::Vehicle vehicle;               // mass, max_speed, max_force, radius
  std::vector<std::pair<std::string, Value>> blackboard;  // initial values (checked against the brain at load)
};

struct ScenarioSpec {
  std::string name;
  std::string path;                     // the scenario file as named
  uint64_t ticks = 600;                 // default when the file says nothing and the CLI neither
  double dt = 0.1;
  uint64_t seed = 1;
  bool has_ticks = false, has_dt = false, has_seed = false;  // written in the file
  world::Bounds bounds{{0, 0}, {100, 100}};
  std::vector<world::Obstacle> obstacles;
  std::vector<std::string> teams;       // team names; a team's index is its id in the world
  std::vector<AgentGroup> groups;
  std::vector<std::string> metrics;     // metric names the run reports (others are errors at run time)
};

// Reads and validates a scenario file; nullopt with every diagnostic on error.
std::optional<ScenarioSpec> load_scenario(const std::string& path, std::vector<Diagnostic>& diags);
std::optional<ScenarioSpec> load_scenario_text(const std::string& text, const std::string& path,
                                               std::vector<Diagnostic>& diags);

}  // namespace thicket
