// GridMap and the Moving AI files (grid_map.cpp, movingai_files.cpp): every load error at its
// line and column, all of a file's at once.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>  // mkfifo
#include <unistd.h>

#include "thicket/nav.hpp"

using namespace thicket;
using namespace thicket::nav;

namespace {

std::vector<Diagnostic> parse_errors(std::string_view text) {
  std::vector<Diagnostic> diags;
  auto map = parse_grid_map(text, "m.map", diags);
  CHECK_FALSE(map.has_value());
  return diags;
}

bool has(const std::vector<Diagnostic>& diags, int line, int column, const std::string& words) {
  for (const auto& d : diags)
    if (d.line == line && d.column == column && d.message.find(words) != std::string::npos) return true;
  return false;
}

std::string dump(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += format_diagnostic(d) + "\n";
  return s;
}

// A file in a fresh temporary folder, removed afterwards.
struct TempFile {
  std::filesystem::path path;
  TempFile(const std::string& name, const std::string& text) {
    path = std::filesystem::temp_directory_path() / ("thicket_nav_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

const char* kSmall =
    "type octile\n"
    "height 3\n"
    "width 4\n"
    "map\n"
    "..@.\n"
    "GS.T\n"
    "OW..\n";

}  // namespace

TEST_CASE("nav map: a small map parses, with symbols, passability and placement") {
  std::vector<Diagnostic> diags;
  auto map = parse_grid_map(kSmall, "m.map", diags);
  REQUIRE(map.has_value());
  CHECK(diags.empty());
  CHECK(map->width() == 4);
  CHECK(map->height() == 3);
  CHECK(map->passable({0, 0}));
  CHECK_FALSE(map->passable({2, 0}));
  CHECK(map->passable({0, 1}));
  CHECK(map->symbol({0, 1}) == 'G');
  CHECK_FALSE(map->passable({3, 1}));
  CHECK_FALSE(map->passable({0, 2}));
  CHECK_FALSE(map->passable({1, 2}));
  CHECK_FALSE(map->passable({-1, 0}));
  CHECK_FALSE(map->passable({4, 0}));
  CHECK(map->uniform_cost());

  map->origin = {10, 20};
  map->cell_size = 2;
  CHECK(map->cell_at({10, 20}) == Cell{0, 0});
  CHECK(map->cell_at({11.9, 21.9}) == Cell{0, 0});
  CHECK(map->cell_at({12, 22}) == Cell{1, 1});
  CHECK(map->cell_at({9.9, 20}) == Cell{-1, 0});
  CHECK(map->centre_of({1, 2}).x == 13);
  CHECK(map->centre_of({1, 2}).y == 25);
  auto b = map->world_bounds();
  CHECK(b.min.x == 10);
  CHECK(b.max.x == 18);
  CHECK(b.max.y == 26);
}

TEST_CASE("nav map: CRLF line ends and trailing blank lines are accepted") {
  std::vector<Diagnostic> diags;
  auto map = parse_grid_map("type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n..\r\n.@\r\n\r\n", "m.map", diags);
  REQUIRE(map.has_value());
  CHECK_FALSE(map->passable({1, 1}));
}

TEST_CASE("nav files: CR-only line ends are said as such, in maps and scenarios") {
  // Classic Mac OS line ends read as one long line: the first-line errors quoted all of it.
  std::vector<Diagnostic> diags;
  CHECK_FALSE(parse_grid_map("type octile\rheight 2\rwidth 2\rmap\r..\r.@\r", "m.map", diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].line == 1);
  CHECK(diags[0].message ==
        "the file's lines end in CR alone (classic Mac OS line ends); save it with LF or CR LF line ends");
  TempFile scen("cr.scen", "version 1\r0 m.map 2 2 0 0 1 0 1\r");
  diags.clear();
  CHECK_FALSE(load_scen(scen.path.string(), nullptr, diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message.find("lines end in CR alone") != std::string::npos);
  // One line ending in CR (no other line) is an ordinary one-line file: its CR is dropped.
  diags.clear();
  TempFile one("one.scen", "version 1\r");
  auto entries = load_scen(one.path.string(), nullptr, diags);
  CHECK(diags.empty());
  CHECK((entries.has_value() && entries->empty()));
}

TEST_CASE("nav map: set_cost keeps the lowest cost and makes the map non-uniform") {
  GridMap map(3, 3);
  const auto stamp = map.stamp();
  map.set_cost({1, 1}, 1.0f);
  CHECK(map.uniform_cost());
  map.set_cost({1, 1}, 4.0f);
  CHECK_FALSE(map.uniform_cost());
  CHECK(map.min_cost() == 1.0f);
  map.set_cost({0, 0}, 0.5f);
  CHECK(map.min_cost() == 0.5f);
  CHECK(map.cost({1, 1}) == 4.0f);
  CHECK(map.cost({2, 2}) == 1.0f);
  map.set_cost({2, 2}, -1.0f);  // refused
  CHECK(map.cost({2, 2}) == 1.0f);
  CHECK(map.stamp() != stamp);
  const auto before = map.stamp();
  map.set_passable({2, 1}, false);
  CHECK(map.stamp() != before);
  GridMap other(3, 3);
  CHECK(other.stamp() != map.stamp());
}

TEST_CASE("nav map: header errors, each at its line and column") {
  auto d = parse_errors("type octagon\nheight 0\nwidth abc\nmapp\n");
  CHECK(has(d, 1, 6, "'octile'"));
  CHECK(has(d, 2, 8, "between 1 and 8192, found 0"));
  CHECK(has(d, 3, 7, "whole number"));
  CHECK(has(d, 4, 1, "expected 'map'"));
  CHECK(d.size() == 4);

  d = parse_errors("hello\nheight 9000\nwidth 3\nmap\n...\n");
  CHECK(has(d, 1, 1, "expected 'type octile'"));
  CHECK(has(d, 2, 8, "found 9000"));

  d = parse_errors("type octile\nheight 2\n");
  CHECK(has(d, 3, 1, "header ends early"));

  d = parse_errors("type octile\nheight 2\nwidth -4\nmap\n..\n..\n");
  CHECK(has(d, 3, 7, "found -4"));

  d = parse_errors("type octile\nheight\nwidth 2\nmap\n..\n");
  CHECK(has(d, 2, 7, "needs a number"));
}

TEST_CASE("nav map: empty file, unreadable file") {
  auto d = parse_errors("");
  REQUIRE(d.size() == 1);
  CHECK(has(d, 1, 1, "empty"));
  d = parse_errors("\n\n  \n");
  CHECK(has(d, 1, 1, "empty"));

  std::vector<Diagnostic> diags;
  CHECK_FALSE(load_grid_map("/nonexistent/thicket/x.map", diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].line == 0);
  CHECK(diags[0].message.find("cannot read") != std::string::npos);
}

TEST_CASE("nav map: short and long rows, unknown characters, too few rows: all at once") {
  auto d = parse_errors(
      "type octile\nheight 4\nwidth 5\nmap\n"
      ".....\n"
      "...\n"     // short: row 1, line 6
      "......\n"  // long: row 2, line 7
      ".x.?.\n"); // two unknown characters, line 8
  INFO(dump(d));
  CHECK(has(d, 6, 4, "row 1 has 3 characters, the map is 5 wide"));
  CHECK(has(d, 7, 6, "row 2 has 6 characters, the map is 5 wide"));
  CHECK(has(d, 8, 2, "unknown character 'x'"));
  CHECK(has(d, 8, 2, "'@' 'O' 'T' 'W'"));
  CHECK(has(d, 8, 4, "1 more unknown character"));  // at the second one

  // A UTF-8 character typed into a row is one character, shown as itself; a row's errors come
  // in column order. (It counted 4 characters, showed \xC3, and a "more" at column 1.)
  d = parse_errors("type octile\nheight 1\nwidth 3\nmap\n.\xc3\xa9x.\n");
  INFO(dump(d));
  REQUIRE(d.size() == 3);
  CHECK(has(d, 5, 2, "unknown character '\xc3\xa9'"));
  CHECK(has(d, 5, 3, "row 0 has 1 more unknown character"));
  CHECK(has(d, 5, 4, "row 0 has 4 characters, the map is 3 wide"));
  CHECK(d[0].column == 2);
  CHECK(d[1].column == 3);
  CHECK(d[2].column == 4);

  d = parse_errors("type octile\nheight 3\nwidth 2\nmap\n..\n..\n");
  CHECK(has(d, 7, 1, "too few rows: the map has 2, the header says 3"));

  d = parse_errors("type octile\nheight 1\nwidth 2\nmap\n..\n..\n");
  CHECK(has(d, 6, 1, "too many rows"));

  d = parse_errors("type octile\nheight 1\nwidth 2\nmap\n.\t\n");
  CHECK(has(d, 5, 2, "unknown character \\x09 in the map"));
}

TEST_CASE("nav map: a garbage file gives a bounded list of errors") {
  std::string text = "type octile\nheight 200\nwidth 3\nmap\n";
  for (int i = 0; i < 200; ++i) text += "abc\n";
  auto d = parse_errors(text);
  CHECK(d.size() <= 51);
  CHECK(d.back().message.find("too many errors") != std::string::npos);
}

TEST_CASE("nav scen: a good file and every error at its field") {
  GridMap map(10, 8);
  TempFile good("good.scen", "version 1\n0\tm.map\t10\t8\t1\t2\t3\t4\t2.82842712\n\n1 m.map 10 8 0 0 9 7 11.0\n");
  std::vector<Diagnostic> diags;
  auto entries = load_scen(good.path.string(), &map, diags);
  REQUIRE(entries.has_value());
  CHECK(diags.empty());
  REQUIRE(entries->size() == 2);
  CHECK((*entries)[0].start == Cell{1, 2});
  CHECK((*entries)[0].goal == Cell{3, 4});
  CHECK((*entries)[0].optimal_length == doctest::Approx(2.82842712));
  CHECK((*entries)[0].line == 2);
  CHECK((*entries)[1].bucket == 1);
  CHECK((*entries)[1].map == "m.map");

  TempFile bad("bad.scen",
               "version 1\r\n"
               "0\tm.map\t10\t8\t1\t2\tx3\t4\t2.8\r\n"     // line 2: bad number at column 18
               "0\tm.map\t10\t8\t1\t2\r\n"                 // line 3: too few fields
               "0\tm.map\t12\t8\t1\t2\t3\t4\t2.8\r\n"      // line 4: width differs
               "0\tm.map\t10\t8\t10\t2\t3\t8\t2.8\r\n"     // line 5: start x 10, goal y 8 outside
               "0\tm.map\t10\t8\t1\t2\t3\t4\tfar\r\n"      // line 6: bad length
               "0\tm.map\t10\t8\t1\t2\t3\t4\t2.8\t9\r\n"   // line 7: too many fields
               "0\tm.map\t10\t9\t1\t2\t3\t4\t2.8\r\n"      // line 8: height differs
               "0\t\tm.map\t10\t8\t1\t2\t3\t4\t2.8\r\n"    // line 9: an empty field (two tabs)
               "0\tm.map\t10\t8\t1\t2\t3\t4\t2.8\t \t1\r\n");  // line 10: an empty 10th field
  diags.clear();
  CHECK_FALSE(load_scen(bad.path.string(), &map, diags).has_value());
  INFO(dump(diags));
  CHECK(has(diags, 2, 18, "goal x must be a whole number"));
  CHECK(has(diags, 3, 17, "too few fields: 6 of 9"));
  CHECK(has(diags, 4, 9, "map width 12 differs from the map's 10"));
  CHECK(has(diags, 5, 14, "start x 10 is outside the map"));
  CHECK(has(diags, 5, 21, "goal y 8 is outside the map"));
  CHECK(has(diags, 6, 22, "optimal length must be a number"));
  CHECK(has(diags, 7, 26, "too many fields"));
  CHECK(has(diags, 8, 12, "map height 9 differs from the map's 8"));
  CHECK(has(diags, 9, 3, "field 2 (the map name) is empty: two tabs in a row"));
  CHECK(has(diags, 10, 26, "field 10 is empty: two tabs in a row"));
  CHECK(diags.size() == 10);

  TempFile noversion("nover.scen", "0\tm.map\t10\t8\t1\t2\t3\t4\t2.8\n");
  diags.clear();
  CHECK_FALSE(load_scen(noversion.path.string(), &map, diags).has_value());
  CHECK(has(diags, 1, 1, "expected 'version 1'"));

  TempFile empty("empty.scen", "");
  diags.clear();
  CHECK_FALSE(load_scen(empty.path.string(), &map, diags).has_value());
  CHECK(has(diags, 1, 1, "empty"));

  diags.clear();
  CHECK_FALSE(load_scen("/nonexistent/thicket/x.scen", &map, diags).has_value());
  CHECK(has(diags, 0, 0, "cannot read"));
}

TEST_CASE("nav files: the Moving AI maps and scenarios of data/movingai load") {
  for (const char* name : {"arena", "AR0500SR", "random512-20-0", "maze512-2-5"}) {
    const std::string base = std::string(THICKET_SOURCE_DIR) + "/data/movingai/" + name + ".map";
    std::vector<Diagnostic> diags;
    auto map = load_grid_map(base, diags);
    INFO(name, dump(diags));
    REQUIRE(map.has_value());
    auto scen = load_scen(base + ".scen", &*map, diags);
    REQUIRE(scen.has_value());
    CHECK(scen->size() > 50);
  }
}

TEST_CASE("nav files: a directory or a pipe is not a map; width before height is read too") {
  std::vector<Diagnostic> diags;
  CHECK_FALSE(load_grid_map(std::filesystem::temp_directory_path().string(), diags).has_value());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == "cannot read the file: it is a directory");
  diags.clear();
  // A pipe nothing writes to is refused, not read (the read would wait for ever).
  const std::string fifo = (std::filesystem::temp_directory_path() / ("thicket_map_fifo_" + std::to_string(::getpid()))).string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(load_grid_map(fifo, diags).has_value());
  CHECK_FALSE(load_scen(fifo, nullptr, diags).has_value());
  std::filesystem::remove(fifo);
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].message == "cannot read the file: it is not a plain file (a pipe or a socket)");
  diags.clear();
  auto swapped = parse_grid_map("type octile\nwidth 3\nheight 2\nmap\n.@.\n...\n", "s.map", diags);
  REQUIRE(swapped.has_value());
  CHECK(swapped->width() == 3);
  CHECK(swapped->height() == 2);
  CHECK_FALSE(swapped->passable({1, 0}));
}

TEST_CASE("nav files: a file past 80 MB is refused before it is split into lines") {
  // A sparse file of 81 MB of zero bytes (nothing written to disk): 100 MB of blank lines took
  // 3.3 GB as lines before.
  const std::string big = (std::filesystem::temp_directory_path() / ("thicket_big_map_" + std::to_string(::getpid()))).string();
  { std::ofstream(big) << "type octile\n"; }
  REQUIRE(::truncate(big.c_str(), 81 << 20) == 0);
  std::vector<Diagnostic> diags;
  CHECK_FALSE(load_grid_map(big, diags).has_value());
  CHECK_FALSE(load_scen(big, nullptr, diags).has_value());
  std::filesystem::remove(big);
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].message == "cannot read the file: larger than 80 MB; a .map or .scen file may be at most 80 MB (is it the right file?)");
  CHECK(diags[0].line == 0);
}
