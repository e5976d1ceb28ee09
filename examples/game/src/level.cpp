#include "level.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace game {
namespace {

using thicket::Diagnostic;
using thicket::nav::Cell;

// The words of a line with the column each starts at (1-based).
struct Word {
  std::string text;
  int column = 0;
};
std::vector<Word> words_of(const std::string& line) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    out.push_back({line.substr(start, i - start), int(start) + 1});
  }
  return out;
}

// A cell's column or row: a whole number within ±kMaxCell. Returns "" or what is wrong.
constexpr long kMaxCell = 1000000;
std::string to_int(const std::string& text, int& out) {
  size_t at = text[0] == '-' || text[0] == '+' ? 1 : 0;
  if (at == text.size() || text.find_first_not_of("0123456789", at) != std::string::npos)
    return "not a whole number: '" + text + "'";
  // (The digits after leading zeros: 00000002 is 2.)
  const size_t digits = text.size() - std::min(text.find_first_not_of('0', at), text.size());
  if (digits > 7 || std::abs(std::stol(text)) > kMaxCell)
    return "'" + text + "' is too far: a cell's column and row are from -1000000 to 1000000";
  out = int(std::stol(text));
  return {};
}

// A text of the file as a message shows it: control characters as '?' (a level file must not
// write escape sequences to the player's terminal), at most `max` bytes.
std::string shown(const std::string& text, size_t max = 60) {
  std::string out = printable(text.substr(0, max));
  std::replace(out.begin(), out.end(), '\n', '?');
  std::replace(out.begin(), out.end(), '\t', '?');
  return text.size() > max ? out + "..." : out;
}

// Whether `to` can be walked to from `from` over passable cells. thicket's paths cut no
// corners (a diagonal step needs both cells beside it free), so steps along rows and columns
// reach the same cells.
bool reachable(const thicket::nav::GridMap& map, Cell from, Cell to) {
  std::vector<char> seen(size_t(map.width()) * size_t(map.height()), 0);
  std::vector<Cell> todo{from};
  seen[size_t(from.y) * size_t(map.width()) + size_t(from.x)] = 1;
  while (!todo.empty()) {
    const Cell c = todo.back();
    todo.pop_back();
    if (c.x == to.x && c.y == to.y) return true;
    for (Cell n : {Cell{c.x + 1, c.y}, Cell{c.x - 1, c.y}, Cell{c.x, c.y + 1}, Cell{c.x, c.y - 1}}) {
      if (!map.passable(n)) continue;
      char& s = seen[size_t(n.y) * size_t(map.width()) + size_t(n.x)];
      if (!s) {
        s = 1;
        todo.push_back(n);
      }
    }
  }
  return false;
}

}  // namespace

bool load_level(const std::string& path, Level& level, std::vector<Diagnostic>& diags) {
  size_t first = diags.size();
  auto error = [&](int line, int column, std::string message) {
    Diagnostic d;
    d.file = path;
    d.line = line;
    d.column = column;
    d.message = std::move(message);
    diags.push_back(std::move(d));
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error(0, 0, "a folder, not a level file");
    return false;
  }
  // A pipe nothing writes to would block the game here for ever, and a device such as /dev/zero
  // never ends (one endless line took all the memory): a level is a plain file, as a map is.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    error(0, 0, "not a plain file (a pipe, a device or a socket); a level is a text file");
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    error(0, 0, "cannot open the level file");
    return false;
  }
  level = Level{};
  level.path = path;
  bool has_map = false, has_player = false, has_exit = false;
  int player_line = 0, exit_line = 0;
  int map_line = 0;
  struct Point {
    Cell cell;
    int line, column;
  };
  std::vector<std::pair<std::string, Point>> points;  // checked against the map at the end
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::vector<Word> w = words_of(line);
    if (w.empty()) continue;
    const std::string& key = w[0].text;
    // Reads the cells after the keyword: pairs of integers.
    auto cells = [&](size_t at, std::vector<Point>& out) {
      if ((w.size() - at) % 2 != 0) {
        error(number, w.back().column, "'" + key + "' takes cells as pairs of numbers: column row");
        return false;
      }
      for (size_t i = at; i + 1 < w.size(); i += 2) {
        int x = 0, y = 0;
        if (std::string why = to_int(w[i].text, x); !why.empty()) return error(number, w[i].column, why), false;
        if (std::string why = to_int(w[i + 1].text, y); !why.empty()) return error(number, w[i + 1].column, why), false;
        out.push_back({{x, y}, number, w[i].column});
      }
      return true;
    };
    if (key == "name") {
      level.name = line.substr(size_t(w.size() > 1 ? w[1].column - 1 : line.size()));
      while (!level.name.empty() && (level.name.back() == '\r' || level.name.back() == ' ')) level.name.pop_back();
      level.name = shown(level.name);
    } else if (key == "map") {
      if (w.size() != 2) {
        error(number, w[0].column, "'map' takes one file name");
        continue;
      }
      if (map_line != 0) {
        error(number, w[0].column, "a second 'map' line: the level's map is named at line " + std::to_string(map_line));
        continue;
      }
      std::filesystem::path file = std::filesystem::path(path).parent_path() / w[1].text;
      map_line = number;  // named, even when it does not load: no "names no map" below
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec)) {  // said at the level's line, where the fix is
        error(number, w[1].column,
              "map file '" + w[1].text + "' " + (std::filesystem::exists(file, ec) ? "is not a file" : "not found") +
                  " (looked for " + file.string() + ")");
        continue;
      }
      std::vector<Diagnostic> map_diags;
      auto map = thicket::nav::load_grid_map(file.string(), map_diags);
      if (!map) {
        for (auto& d : map_diags) diags.push_back(d);
        if (map_diags.empty()) error(number, w[1].column, "cannot read the map " + file.string());
        continue;
      }
      if (map->width() > kMaxMapWidth || map->height() > kMaxMapHeight) {
        error(number, w[1].column,
              "the map is " + std::to_string(map->width()) + " x " + std::to_string(map->height()) +
                  " cells; the game shows at most " + std::to_string(kMaxMapWidth) + " x " + std::to_string(kMaxMapHeight) +
                  " (a pixel a cell, no scrolling)");
        continue;
      }
      level.map = std::move(*map);
      has_map = true;
      map_line = number;
    } else if (key == "player" || key == "exit") {
      // One of each, as one map: a second was taken instead of the first without a word.
      int& given_at = key == "player" ? player_line : exit_line;
      if (given_at) {
        error(number, w[0].column, "a second '" + key + "' line: the level's " + key + " cell is given at line " +
                                       std::to_string(given_at));
        continue;
      }
      given_at = number;
      // Given, even when its cell is wrong: that line's error is the one to read, not "the
      // level has no 'player' cell" besides.
      (key == "player" ? has_player : has_exit) = true;
      std::vector<Point> out;
      if (!cells(1, out)) continue;
      if (out.size() != 1) {
        error(number, w[0].column, "'" + key + "' takes one cell: column row");
        continue;
      }
      (key == "player" ? level.player : level.exit) = out[0].cell;
      points.push_back({key, out[0]});
    } else if (key == "guard") {
      std::vector<Point> out;
      if (!cells(1, out)) continue;
      if (out.empty()) {
        error(number, w[0].column, "'guard' takes its route: one cell or more (column row ...)");
        continue;
      }
      std::vector<Cell> route;
      for (auto& p : out) {
        route.push_back(p.cell);
        points.push_back({"guard", p});
      }
      level.routes.push_back(std::move(route));
    } else {
      error(number, w[0].column, "unknown keyword '" + shown(key, 40) + "' (a level has: name, map, player, exit, guard)");
    }
  }
  if (!has_map && map_line == 0) error(1, 1, "the level names no map ('map FILE.map')");
  if (!has_player) error(1, 1, "the level has no 'player' cell");
  if (!has_exit) error(1, 1, "the level has no 'exit' cell");
  if (has_map) {
    for (auto& [what, p] : points) {
      if (!level.map.passable(p.cell))
        error(p.line, p.column, what + " cell (" + std::to_string(p.cell.x) + ", " + std::to_string(p.cell.y) +
                                    ") is " + (level.map.in_bounds(p.cell) ? "a wall" : "outside the map"));
    }
    // A level won before it is played: the exit on the player's cell.
    for (auto& [what, p] : points)
      if (what == "exit" && level.exit == level.player)
        error(p.line, p.column, "exit cell (" + std::to_string(level.exit.x) + ", " + std::to_string(level.exit.y) +
                                    ") is the player's cell: the level would be escaped at its first frame");
    // A level that cannot be won: walls between the player and the exit.
    for (auto& [what, p] : points)
      if (what == "exit" && level.map.passable(level.player) && level.map.passable(level.exit) &&
          !reachable(level.map, level.player, level.exit))
        error(p.line, p.column, "exit cell (" + std::to_string(level.exit.x) + ", " + std::to_string(level.exit.y) +
                                    ") cannot be reached from the player's cell (" + std::to_string(level.player.x) + ", " +
                                    std::to_string(level.player.y) + "): walls close it off");
  }
  if (level.name.empty()) level.name = std::filesystem::path(path).stem().string();
  // In the file's order, whatever check found them.
  std::stable_sort(diags.begin() + std::ptrdiff_t(first), diags.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    bool a_here = a.file == path, b_here = b.file == path;
    if (a_here != b_here) return b_here;  // the map's own errors first
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  return diags.size() == first;
}

}  // namespace game
