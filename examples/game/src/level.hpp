// A level of thicket-game: a Moving AI grid map (thicket::nav reads it), where the player starts,
// the exit, and each guard's patrol route. Read from a small text file (levels/*.level):
//
//   # comment
//   name Warehouse
//   map warehouse.map            (beside the .level file)
//   player 2 2                   (cells: column, row; (0, 0) is the map's top left)
//   exit 45 27
//   guard 15 1  28 1  28 7       (starts at the first point, patrols them in order, round)
#pragma once
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"
#include "thicket/nav.hpp"

namespace game {

// The largest map the game shows: a pixel a cell in the map's area of the window (draw.hpp).
constexpr int kMaxMapWidth = 960, kMaxMapHeight = 720;

struct Level {
  std::string name;
  std::string path;  // the .level file
  thicket::nav::GridMap map;
  thicket::nav::Cell player, exit;
  std::vector<std::vector<thicket::nav::Cell>> routes;  // one per guard, >= 1 point each
};

// Reads a level and its map. Every problem is a diagnostic at FILE:LINE:COL (all of them);
// false when there is any.
bool load_level(const std::string& path, Level& level, std::vector<thicket::Diagnostic>& diags);

}  // namespace game
