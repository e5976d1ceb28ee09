// thicket path MAP.map SCEN.scen [--paths] [--algorithm auto|astar|jps]
// thicket path MAP.map --from X,Y --to X,Y [--paths] [--algorithm auto|astar|jps]
//
// One line per search on standard output, "sx sy gx gy length" (8 decimals, or "none" when
// there is no path), with --paths a sixth field "x,y;x,y;..." (the cells from start to goal;
// "-" when there is no path, so every line has six fields).
// With a scenario file, the summary goes to standard error: the count, how many lengths match
// the file's optimal ones (relative 1e-6), the wall-clock time per search, nodes expanded.
//
// Exit: 0 every length matches (a --from/--to search: it ran, path or not); 1 some length
// differs; 2 a load error (a malformed map or scenario file, FILE:LINE:COL; a --from/--to
// point outside the map); 64 a usage error. A --from/--to point on a blocked cell is a
// question with an answer, not a mistake in the input: it prints "none" and exits 0.
#include "path_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "json_text.hpp"  // escaped_utf8
#include "suggest.hpp"
#include "thicket/nav.hpp"

namespace thicket::cli {

namespace {

using nav::Algorithm;
using nav::Cell;
using nav::GridMap;
using nav::GridSearch;
using nav::SearchState;

constexpr int kExitOk = 0, kExitMismatch = 1, kExitLoad = 2, kExitUsage = 64;

// Relative tolerance for "matches the optimal length": the files round to 8 decimals.
constexpr double kLengthTolerance = 1e-6;

// A --from/--to point as typed: whole numbers, a sign allowed, so that -1,0 or 99999,0 reads
// and is then reported as outside the map (a load error, like a scenario's) rather than as a
// malformed option.
struct Point {
  std::int64_t x = 0, y = 0;
  std::string text;  // as typed (a number past 18 digits is said as typed)
};

struct PathOptions {
  std::vector<std::string> files;
  bool paths = false;
  Algorithm algorithm = Algorithm::Auto;
  std::optional<Point> from, to;
};

// "X,Y"; nullopt when either is not a whole number. One of more than 18 digits stands as the
// largest number of its sign: outside any map, and said so (it was a usage error).
std::optional<Point> parse_point(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) return std::nullopt;
  auto number = [](const std::string& s) -> std::optional<std::int64_t> {
    const std::size_t digits_from = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (s.size() == digits_from || s.find_first_not_of("0123456789", digits_from) != std::string::npos)
      return std::nullopt;
    if (s.size() > digits_from + 18)
      return s[0] == '-' ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return std::stoll(s);
  };
  auto x = number(text.substr(0, comma)), y = number(text.substr(comma + 1));
  if (!x || !y) return std::nullopt;
  return Point{*x, *y, text};
}

int usage_error(const char* usage, const std::string& message) {
  // A known option's bad value is said alone, as `thicket run` says it (the 37 lines of usage
  // after it pushed it off the screen); a missing file or an unknown option still get the usage.
  if (message.rfind("--", 0) == 0 || message.rfind("unknown algorithm", 0) == 0) {
    std::cerr << "thicket: " << message << "\n(thicket --help lists the options)\n";
    return kExitUsage;
  }
  std::cerr << "thicket: " << message << "\n" << usage;
  return kExitUsage;
}

// Parses argv[2..]; returns 0 or an exit status.
int parse_path_args(int argc, char** argv, const char* usage, PathOptions& o) {
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      o.files.push_back(a);
      continue;
    }
    std::string value;
    const std::size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    if (a == "--algorithm" || a == "--from" || a == "--to") {
      if (eq == std::string::npos) {
        if (i + 1 >= argc) return usage_error(usage, a + " needs a value");
        value = argv[++i];
      }
      if (a == "--from" || a == "--to") {
        auto point = parse_point(value);
        if (!point) return usage_error(usage, a + " needs X,Y (whole numbers), got '" + value + "'");
        (a == "--from" ? o.from : o.to) = point;
      }
      if (a == "--algorithm") {
        if (value == "auto") o.algorithm = Algorithm::Auto;
        else if (value == "astar") o.algorithm = Algorithm::AStar;
        else if (value == "jps") o.algorithm = Algorithm::Jps;
        else
          return usage_error(usage, "unknown algorithm '" + value + "'" +
                                        did_you_mean(value, {"auto", "astar", "jps"}) +
                                        " (algorithms: auto, astar, jps)");
      }
      continue;
    }
    if (a == "--paths") {
      if (eq != std::string::npos) return usage_error(usage, "--paths takes no value");
      o.paths = true;
      continue;
    }
    return usage_error(usage, "unknown option '" + a + "'" +
                                  did_you_mean(a, {"--paths", "--algorithm", "--from", "--to"}) +
                                  " (options of 'thicket path': --paths, --algorithm, --from, --to)");
  }
  if (o.files.empty()) return usage_error(usage, "'thicket path' needs MAP.map");
  if (o.from.has_value() != o.to.has_value())
    return usage_error(usage, o.from ? "--from needs --to" : "--to needs --from");
  if (o.from) {
    if (o.files.size() > 1)
      return usage_error(usage, "'thicket path' takes either SCEN.scen or --from and --to, not both");
  } else if (o.files.size() < 2) {
    return usage_error(usage, "'thicket path' needs SCEN.scen (or --from X,Y --to X,Y) after MAP.map");
  } else if (o.files.size() > 2) {
    return usage_error(usage, "'thicket path' takes one MAP.map and one SCEN.scen");
  }
  return 0;
}

void print_diagnostics(const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
}

// One output line: "sx sy gx gy length|none[ x,y;x,y;...]".
void append_line(std::string& out, Cell from, Cell to, const GridSearch& search, bool found,
                 bool paths) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d %d %d %d ", from.x, from.y, to.x, to.y);
  out += buf;
  if (!found) {
    out += "none";
  } else {
    std::snprintf(buf, sizeof buf, "%.8f", search.length());
    out += buf;
  }
  if (paths) {
    out += ' ';
    if (!found) out += '-';
    bool first = true;
    for (Cell c : found ? search.path() : std::span<const Cell>{}) {
      if (!first) out += ';';
      first = false;
      std::snprintf(buf, sizeof buf, "%d,%d", c.x, c.y);
      out += buf;
    }
  }
  out += '\n';
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Auto: return "auto";
    case Algorithm::AStar: return "A*";
    case Algorithm::Jps: return "jump point search";
  }
  return "?";
}

bool lengths_match(double found, double optimal) {
  return std::abs(found - optimal) <= kLengthTolerance * std::max(1.0, std::abs(optimal));
}

// Writes the result lines to standard output; false, said on stderr, when they could not be
// written (a full disk: the answer was lost with exit status 0).
bool written_out(const std::string& out) {
  std::cout << out;
  std::cout.flush();
  if (std::cout) return true;
  std::cerr << "thicket: error: cannot write to standard output: the paths were not written in full\n";
  std::cout.clear();  // said: main's check of standard output at the end does not say it again
  std::clearerr(stdout);
  return false;
}

int one_search(const GridMap& map, const std::string& map_file, const PathOptions& o) {
  bool outside = false;
  for (auto [name, p] : {std::pair{"--from", *o.from}, std::pair{"--to", *o.to}})
    if (p.x < 0 || p.y < 0 || p.x >= map.width() || p.y >= map.height()) {
      std::cerr << "thicket: error: " << name << " " << escaped_utf8(p.text) << " is outside "
                << map_file << " (width " << map.width() << ", height " << map.height() << ")\n";
      outside = true;
    }
  if (outside) return kExitLoad;
  const Cell from{std::int32_t(o.from->x), std::int32_t(o.from->y)};
  const Cell to{std::int32_t(o.to->x), std::int32_t(o.to->y)};
  GridSearch search;
  nav::SearchOptions options;
  options.algorithm = o.algorithm;
  const SearchState state = search.find(map, from, to, options);
  std::string out;
  append_line(out, from, to, search, state == SearchState::Found, o.paths);
  return written_out(out) ? kExitOk : kExitMismatch;
}

int scenario_searches(const GridMap& map, const std::string& scen_file, const PathOptions& o) {
  std::vector<Diagnostic> diags;
  auto entries = nav::load_scen(scen_file, &map, diags);
  // A scenario names its map (Moving AI's "maps/dao/arena.map"): one for another map of the
  // same size was taken without a word. Said once, at the first line that names another.
  const std::string map_name = std::filesystem::path(o.files[0]).filename().string();
  if (entries)
    for (const nav::ScenarioEntry& e : *entries)
      if (std::filesystem::path(e.map).filename().string() != map_name) {
        diags.push_back({Severity::Warning, scen_file, e.line, 0,
                         "the scenario names the map '" + escaped_utf8(e.map) + "', not '" + escaped_utf8(map_name) +
                             "' (their sizes agree: is it the right map?)"});
        break;
      }
  print_diagnostics(diags);
  if (!entries || has_errors(diags)) return kExitLoad;

  // The tables searches derive from the map (~0.2 s for 512 x 512) are built before the
  // timing starts, so that the first search's time is a search's.
  nav::prepare_search_tables(map);
  GridSearch search;
  nav::SearchOptions options;
  options.algorithm = o.algorithm;
  std::string out;
  std::size_t matched = 0, without_path = 0;
  std::uint64_t expanded = 0;
  double total_us = 0, worst_us = 0;
  Algorithm used = o.algorithm;
  int landmarks = 0;  // of the searches that used them (the same for every such search of one map)
  std::vector<std::string> differences;
  for (const nav::ScenarioEntry& e : *entries) {
    // Wall-clock timing is what this summary is for; nothing else here depends on it.
    const auto t0 = std::chrono::steady_clock::now();
    const SearchState state = search.find(map, e.start, e.goal, options);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    total_us += us;
    worst_us = std::max(worst_us, us);
    expanded += search.stats().expanded;
    used = search.stats().used;
    // (A search answered before it looked at landmarks, a goal walled off, reports none: the
    // summary named none when the file's last line was such a one.)
    landmarks = std::max(landmarks, search.stats().landmarks);
    const bool found = state == SearchState::Found;
    append_line(out, e.start, e.goal, search, found, o.paths);
    if (found && lengths_match(search.length(), e.optimal_length)) {
      ++matched;
      continue;
    }
    without_path += !found;
    // (The path in a fixed buffer was cut off, line and lengths with it, past 160 bytes.)
    char lengths[96];
    if (found)
      std::snprintf(lengths, sizeof lengths, "length %.8f, the file's optimal length is %.8f", search.length(),
                    e.optimal_length);
    else
      std::snprintf(lengths, sizeof lengths, "no path found, the file's optimal length is %.8f", e.optimal_length);
    differences.push_back(scen_file + ":" + std::to_string(e.line) + ": note: " + lengths);
  }
  const bool written = written_out(out);

  constexpr std::size_t kNotesShown = 10;  // a broken search must not bury the summary
  for (std::size_t i = 0; i < differences.size() && i < kNotesShown; ++i)
    std::cerr << differences[i] << "\n";
  if (differences.size() > kNotesShown)
    std::cerr << "thicket: ... and " << differences.size() - kNotesShown << " more\n";
  const std::size_t n = entries->size();
  // (No search ran in a file with no scenario: "(auto)" named no algorithm.)
  std::cerr << "thicket: " << n << " scenario" << (n == 1 ? "" : "s") << " ("
            << (n == 0 ? std::string("the file has none") : algorithm_name(used))
            << (n > 0 && landmarks > 0 ? ", guided by " + std::to_string(landmarks) + " landmarks" : std::string())
            << "): " << matched
            << " match the optimal length, " << n - matched << " differ";
  if (without_path) std::cerr << " (" << without_path << " without a path)";
  std::cerr << "\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, "thicket: search time: mean %.1f us, worst %.1f us (wall clock)\n",
                n ? total_us / double(n) : 0.0, worst_us);
  std::cerr << buf;
  std::snprintf(buf, sizeof buf, "thicket: nodes expanded: %llu, mean %.1f per search\n",
                static_cast<unsigned long long>(expanded), n ? double(expanded) / double(n) : 0.0);
  std::cerr << buf;
  return matched == n && written ? kExitOk : kExitMismatch;
}

}  // namespace

int path_command(int argc, char** argv, const char* usage) {
  PathOptions o;
  if (int rc = parse_path_args(argc, argv, usage, o); rc != 0) return rc;
  std::vector<Diagnostic> diags;
  auto map = nav::load_grid_map(o.files[0], diags);
  print_diagnostics(diags);
  if (!map || has_errors(diags)) return kExitLoad;
  if (o.from) return one_search(*map, o.files[0], o);
  return scenario_searches(*map, o.files[1], o);
}

}  // namespace thicket::cli
