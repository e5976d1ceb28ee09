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

// A mod's (or a level file's) text as the game shows it (terminal, overlay, --log, the
// debugger): control characters but line breaks and tabs as '?', so a script cannot write escape sequences to the player's
// terminal (clear it, retitle it, colour it) nor draw boxes in the overlay. The C1 controls
// too (U+0080 to U+009F, UTF-8 C2 80 to C2 9F: U+009B is a terminal's CSI, as ESC [ is).
inline std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      out += '?';
      ++i;
    } else {
      out += (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : s[i];
    }
  }
  return out;
}

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
