// The Moving AI benchmark formats (https://movingai.com/benchmarks): .map grids and .scen
// scenario lists. Every problem of a file is reported, each at the line and column of the
// thing that is wrong, so that one run shows a map's author everything to fix.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "json_text.hpp"  // escaped_utf8
#include "plain_file.hpp"  // read_limited
#include "thicket/nav.hpp"

namespace thicket::nav {
namespace {

constexpr std::int32_t kMaxSide = 8192;  // larger maps are almost surely a typo or garbage
// A file's bytes: an 8192 x 8192 map with CR LF line ends is about 64 MB.
constexpr std::size_t kMaxFileBytes = std::size_t(80) << 20;
// A garbage file (a binary, the wrong file) would give an error per character; past this many
// the rest would only bury the first ones.
constexpr std::size_t kMaxDiagnostics = 50;

struct Line {
  std::string_view text;  // without the line break (and without a '\r' before it)
  int number = 0;         // 1-based
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  int number = 1;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, number++});
    pos = end + 1;
  }
  return lines;
}

// True when the text's lines end in CR alone (classic Mac OS): no LF anywhere, and a CR with
// more after it. Such a file reads as one long line; better to say why than what that line holds.
// A UTF-8 byte-order mark, which some Windows editors put first: not part of the text (YAML
// files skip it too). It was read as part of the first word: "expected 'type octile' on line 1,
// found 'type octile'", the difference invisible.
std::string_view without_bom(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

bool cr_line_ends(std::string_view text) {
  const std::size_t cr = text.find('\r');
  return text.find('\n') == std::string_view::npos && cr != std::string_view::npos && cr + 1 < text.size();
}
constexpr const char* kCrLineEnds =
    "the file's lines end in CR alone (classic Mac OS line ends); save it with LF or CR LF line ends";

// 'x', or \xNN for what would not print.
std::string show_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", u);
  return buf;
}

// A field as a message shows it: at most 40 bytes, and control characters and bytes that are
// not UTF-8 as \xHH (a NUL, an ESC or a lone CR went into the message as they were).
std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out(1, '\'');  // appends, not "'" + ...: GCC 12's false -Wstringop-overflow
  out += escaped_utf8(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  return out + "'";
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

// A field of a line and where it starts (1-based column).
struct Field {
  std::string_view text;
  int column = 0;
};

// Fields separated by tabs when the line has any (map names may hold spaces), else by runs of
// whitespace.
std::vector<Field> split_fields(std::string_view line) {
  std::vector<Field> fields;
  if (line.find('\t') != std::string_view::npos) {
    std::size_t pos = 0;
    for (;;) {
      std::size_t end = line.find('\t', pos);
      if (end == std::string_view::npos) end = line.size();
      fields.push_back({line.substr(pos, end - pos), int(pos) + 1});
      if (end == line.size()) break;
      pos = end + 1;
    }
    // Trailing tabs and spaces are not an empty last field.
    while (!fields.empty() && fields.back().text.find_first_not_of(" \t") == std::string_view::npos)
      fields.pop_back();
    return fields;
  }
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    if (pos == line.size()) break;
    std::size_t end = pos;
    while (end < line.size() && !is_space(line[end])) ++end;
    fields.push_back({line.substr(pos, end - pos), int(pos) + 1});
    pos = end;
  }
  return fields;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;  // from_chars refuses a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last && first != last;
}

struct Reporter {
  const std::string& path;
  std::vector<Diagnostic>& diags;
  std::size_t count = 0;
  bool capped = false;
  void error(int line, int column, std::string message) {
    if (capped) return;
    if (++count > kMaxDiagnostics) {
      capped = true;
      diags.push_back({Severity::Error, path, line, column, "too many errors; stopping here"});
      return;
    }
    diags.push_back({Severity::Error, path, line, column, std::move(message)});
  }
};

std::optional<std::string> read_whole_file(const std::string& path, std::vector<Diagnostic>& diags) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    diags.push_back({Severity::Error, path, 0, 0, "cannot read the file: it is a directory"});
    return std::nullopt;
  }
  if (std::filesystem::is_character_file(path, ec) || std::filesystem::is_block_file(path, ec)) {
    diags.push_back({Severity::Error, path, 0, 0, "cannot read the file: it is a device, not a file"});  // /dev/zero: no end
    return std::nullopt;
  }
  if (const auto st = std::filesystem::status(path, ec); !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    // A pipe nothing writes to would block for ever.
    diags.push_back({Severity::Error, path, 0, 0, "cannot read the file: it is not a plain file (a pipe or a socket)"});
    return std::nullopt;
  }
  if (!std::filesystem::exists(path, ec) && !ec) {
    diags.push_back({Severity::Error, path, 0, 0, "cannot read the file: there is no such file"});
    return std::nullopt;
  }
  if (::access(path.c_str(), R_OK) != 0) {
    const int why = errno;  // (a folder on the way not searchable, a file not readable)
    diags.push_back({Severity::Error, path, 0, 0, std::string("cannot read the file: ") + std::strerror(why)});
    return std::nullopt;
  }
  // Read within a bound (a 100 MB file of blank lines took 3.3 GB as lines), from what was
  // opened (a file swapped for a pipe after the looks above is told apart, not waited on).
  std::string text, why;
  if (!read_limited(path, kMaxFileBytes, text, why, "a .map or .scen file")) {
    diags.push_back({Severity::Error, path, 0, 0, "cannot read the file: " + why});
    return std::nullopt;
  }
  return text;
}

// "height 12": the size, or -1 after reporting what is wrong. `word` is "height" or "width".
std::int32_t parse_size_line(const Line& line, std::string_view word, Reporter& report) {
  const auto fields = split_fields(line.text);
  if (fields.empty() || fields[0].text != word) {
    report.error(line.number, fields.empty() ? 1 : fields[0].column,
                 "expected '" + std::string(word) + " N' on line " + std::to_string(line.number) +
                     " of the header, found " + quoted(line.text));
    return -1;
  }
  if (fields.size() < 2) {
    report.error(line.number, int(line.text.size()) + 1, "'" + std::string(word) + "' needs a number");
    return -1;
  }
  if (fields.size() > 2) {
    report.error(line.number, fields[2].column, "unexpected " + quoted(fields[2].text) + " after the " +
                                                    std::string(word));
    return -1;
  }
  long long value = 0;
  if (!parse_number(fields[1].text, value)) {
    report.error(line.number, fields[1].column,
                 "the " + std::string(word) + " must be a whole number, found " + quoted(fields[1].text));
    return -1;
  }
  if (value <= 0 || value > kMaxSide) {
    report.error(line.number, fields[1].column,
                 "the " + std::string(word) + " must be between 1 and " + std::to_string(kMaxSide) +
                     ", found " + std::to_string(value));
    return -1;
  }
  return std::int32_t(value);
}

}  // namespace

// ---- .map ------------------------------------------------------------------------------------

std::optional<GridMap> parse_grid_map(std::string_view text, const std::string& path,
                                      std::vector<Diagnostic>& diags) {
  Reporter report{path, diags};
  text = without_bom(text);
  if (cr_line_ends(text)) {
    report.error(1, 1, kCrLineEnds);
    return std::nullopt;
  }
  std::vector<Line> lines = split_lines(text);
  // Blank lines at the end are an editor's habit, not extra rows.
  while (!lines.empty() && lines.back().text.find_first_not_of(" \t") == std::string_view::npos)
    lines.pop_back();
  if (lines.empty()) {
    report.error(1, 1, "the file is empty; a map starts with 'type octile', 'height H', 'width W', 'map'");
    return std::nullopt;
  }

  // The header: type, then height and width (in either order: some tools swap them), then map.
  const auto missing = [&](int number, const char* what) {
    report.error(number, 1, std::string("the header ends early: expected ") + what + " on line " +
                                std::to_string(number));
  };
  if (split_fields(lines[0].text).size() != 2 ||
      split_fields(lines[0].text)[0].text != "type") {
    report.error(1, 1, "expected 'type octile' on line 1, found " + quoted(lines[0].text));
  } else if (split_fields(lines[0].text)[1].text != "octile") {
    const Field f = split_fields(lines[0].text)[1];
    report.error(1, f.column, "the map type must be 'octile', found " + quoted(f.text));
  }
  std::int32_t height = -1, width = -1;
  if (lines.size() < 3) {
    missing(int(lines.size()) + 1, lines.size() < 2 ? "'height H'" : "'width W'");
  } else {
    const bool swapped = lines[1].text.starts_with("width");
    height = parse_size_line(lines[swapped ? 2 : 1], "height", report);
    width = parse_size_line(lines[swapped ? 1 : 2], "width", report);
  }
  if (lines.size() >= 3) {
    if (lines.size() < 4)
      missing(4, "'map'");
    else if (split_fields(lines[3].text).size() != 1 || split_fields(lines[3].text)[0].text != "map")
      report.error(4, 1, "expected 'map' on line 4, found " + quoted(lines[3].text));
  }

  // The rows: checked even when the header is broken, so that every problem shows at once.
  const std::size_t first_row = 4;
  const std::size_t rows = lines.size() > first_row ? lines.size() - first_row : 0;
  // The cells are made only when the rows are all there: a header claiming 8192 x 8192 over
  // three rows is reported without first allocating 64 MB.
  // Nor over rows too short to hold the width (a row has at least as many bytes as characters):
  // 8,192 rows of one character under a header of 8192 x 8192 allocated 64 MB for 16 KB.
  const bool sized = height > 0 && width > 0 && std::int32_t(rows) == height &&
                     std::all_of(lines.begin() + std::ptrdiff_t(first_row), lines.end(),
                                 [&](const Line& l) { return l.text.size() >= std::size_t(width); });
  GridMap map = sized ? GridMap(width, height) : GridMap();
  for (std::size_t r = 0; r < rows; ++r) {
    const Line& line = lines[first_row + r];
    const std::int32_t y = std::int32_t(r);
    if (height > 0 && y >= height) {
      report.error(line.number, 1,
                   "too many rows: the header says the map is " + std::to_string(height) + " high, this is row " +
                       std::to_string(y) + " (rows count from 0)");
      break;
    }
    // The row's errors in column order: its first unknown character, the rest counted at the
    // second, then a width that is not the header's. Columns and the width count characters:
    // a map is ASCII, but a UTF-8 character typed into it (an 'é') is one, shown as itself.
    std::vector<std::pair<int, std::string>> row_errors;
    int more_bad = 0, second_bad = 0;
    std::int32_t x = 0;  // the character's index in the row
    for (std::size_t at = 0; at < line.text.size(); ++x) {
      std::size_t n = 1;
      if (static_cast<unsigned char>(line.text[at]) >= 0xC0)
        while (at + n < line.text.size() && n < 4 && (static_cast<unsigned char>(line.text[at + n]) & 0xC0) == 0x80) ++n;
      const std::string_view ch = std::string_view(line.text).substr(at, n);
      at += n;
      if (ch.size() != 1 || !is_known_symbol(ch[0])) {
        if (row_errors.empty())
          row_errors.emplace_back(x + 1, "unknown character " + (ch.size() == 1 ? show_char(ch[0]) : quoted(ch)) +
                                             " in the map; allowed: '.' 'G' 'S' (passable), '@' 'O' 'T' 'W' (blocked)");
        else if (more_bad++ == 0)
          second_bad = x + 1;
        continue;
      }
      if (sized && x < width && y < height) {
        const Cell cell{x, y};
        map.set_symbol(cell, ch[0]);
        map.set_passable(cell, is_passable_symbol(ch[0]));
      }
    }
    if (more_bad > 0)
      row_errors.emplace_back(second_bad, "row " + std::to_string(y) + " has " + std::to_string(more_bad) +
                                              " more unknown character" + (more_bad == 1 ? "" : "s"));
    if (width > 0 && x != width) {
      const bool short_row = x < width;
      row_errors.emplace_back(short_row ? x + 1 : width + 1,
                              "row " + std::to_string(y) + " has " + std::to_string(x) +
                                  " characters, the map is " + std::to_string(width) + " wide");
    }
    std::stable_sort(row_errors.begin(), row_errors.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [column, message] : row_errors) report.error(line.number, column, message);
  }
  if (height > 0 && std::int32_t(rows) < height) {
    const int after = lines.back().number + 1;
    report.error(after, 1,
                 "too few rows: the map has " + std::to_string(rows) + ", the header says " + std::to_string(height));
  }
  if (report.count > 0) return std::nullopt;
  return map;
}

std::optional<GridMap> load_grid_map(const std::string& path, std::vector<Diagnostic>& diags) {
  auto text = read_whole_file(path, diags);
  if (!text) return std::nullopt;
  return parse_grid_map(*text, path, diags);
}

// ---- .scen -----------------------------------------------------------------------------------

std::optional<std::vector<ScenarioEntry>> load_scen(const std::string& path, const GridMap* map,
                                                    std::vector<Diagnostic>& diags) {
  auto text = read_whole_file(path, diags);
  if (!text) return std::nullopt;
  Reporter report{path, diags};
  const std::string_view body = without_bom(*text);
  if (cr_line_ends(body)) {
    report.error(1, 1, kCrLineEnds);
    return std::nullopt;
  }
  const std::vector<Line> lines = split_lines(body);

  std::size_t first = 0;
  while (first < lines.size() && lines[first].text.find_first_not_of(" \t") == std::string_view::npos) ++first;
  if (first == lines.size()) {
    report.error(1, 1, "the file is empty; a scenario file starts with 'version 1'");
    return std::nullopt;
  }
  {
    const Line& head = lines[first];
    const auto f = split_fields(head.text);
    double version = 0;
    if (f.size() != 2 || f[0].text != "version" || !parse_number(f[1].text, version))
      report.error(head.number, 1, "expected 'version 1' on the first line, found " + quoted(head.text));
    else if (version != 1.0)
      report.error(head.number, f[1].column, "only version 1 is known, found " + quoted(f[1].text));
  }

  static constexpr const char* kNames[9] = {"bucket",  "map name", "map width", "map height",
                                             "start x", "start y",  "goal x",    "goal y",
                                             "optimal length"};
  std::vector<ScenarioEntry> entries;
  for (std::size_t i = first + 1; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const auto f = split_fields(line.text);
    if (f.empty()) continue;  // blank lines carry nothing
    // Two tabs in a row make an empty field (whitespace-separated lines have none): said where
    // it is, not as one field too many at the end of the line.
    const auto empty = std::find_if(f.begin(), f.end(), [](const Field& x) {
      return x.text.find_first_not_of(' ') == std::string_view::npos;
    });
    if (empty != f.end()) {
      const std::size_t k = std::size_t(empty - f.begin());
      report.error(line.number, empty->column,
                   "field " + std::to_string(k + 1) + (k < 9 ? std::string(" (the ") + kNames[k] + ")" : std::string()) +
                       " is empty: two tabs in a row");
      continue;
    }
    if (f.size() < 9) {
      report.error(line.number, int(line.text.size()) + 1,
                   "too few fields: " + std::to_string(f.size()) + " of 9 (missing the " + kNames[f.size()] +
                       ")");
      continue;
    }
    if (f.size() > 9) {
      report.error(line.number, f[9].column, "too many fields: a scenario line has 9, found " + quoted(f[9].text));
      continue;
    }
    ScenarioEntry e;
    e.line = line.number;
    e.map = std::string(f[1].text);
    bool ok = true;
    long long ints[9] = {};
    for (int k : {0, 2, 3, 4, 5, 6, 7}) {
      if (!parse_number(f[k].text, ints[k]) || ints[k] < 0 || ints[k] > 1000000000) {
        report.error(line.number, f[k].column,
                     std::string("the ") + kNames[k] + " must be a whole number from 0 to 1000000000, found " +
                         quoted(f[k].text));
        ok = false;
      }
    }
    if (!parse_number(f[8].text, e.optimal_length) || !(e.optimal_length >= 0) ||
        !std::isfinite(e.optimal_length)) {
      report.error(line.number, f[8].column, std::string("the optimal length must be a number >= 0, found ") +
                                                 quoted(f[8].text));
      ok = false;
    }
    if (!ok) continue;
    e.bucket = int(ints[0]);
    e.map_width = std::int32_t(ints[2]);
    e.map_height = std::int32_t(ints[3]);
    e.start = {std::int32_t(ints[4]), std::int32_t(ints[5])};
    e.goal = {std::int32_t(ints[6]), std::int32_t(ints[7])};
    if (map) {
      if (e.map_width != map->width()) {
        report.error(line.number, f[2].column, "the map width " + std::to_string(e.map_width) +
                                                   " differs from the map's " + std::to_string(map->width()));
        ok = false;
      }
      if (e.map_height != map->height()) {
        report.error(line.number, f[3].column, "the map height " + std::to_string(e.map_height) +
                                                   " differs from the map's " + std::to_string(map->height()));
        ok = false;
      }
    }
    // Coordinates are checked against the map when there is one, else against the line's size.
    const std::int32_t w = map ? map->width() : e.map_width;
    const std::int32_t h = map ? map->height() : e.map_height;
    for (int k : {4, 5, 6, 7}) {
      const bool is_x = (k % 2) == 0;
      const long long limit = is_x ? w : h;
      if (ints[k] >= limit) {
        report.error(line.number, f[k].column,
                     std::string("the ") + kNames[k] + " " + std::to_string(ints[k]) + " is outside the map (" +
                         (is_x ? "width " : "height ") + std::to_string(limit) + ")");
        ok = false;
      }
    }
    if (ok) entries.push_back(std::move(e));
  }
  if (report.count > 0) return std::nullopt;
  return entries;
}

}  // namespace thicket::nav
