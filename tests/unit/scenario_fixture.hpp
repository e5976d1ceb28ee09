// Scenario files for the unit tests (test_scenario*.cpp): a temporary directory holding the
// files a test's scenarios name, scenario text loaded as if it were a file there, and the
// diagnostics as the CLI prints them, with the directory cut off.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario.hpp"

namespace scenario_fixture {

inline const char* const kIdleBrain = "tree: t\nroot: {action: Idle}\n";

// A 6 x 5 map: row 2 has walls at x = 2, 3; the T at (3, 1) is a tree (blocked).
//   @@@@@@
//   @..T.@     row 1
//   @.@@.@     row 2
//   @....@     row 3
//   @@@@@@
inline const char* const kRoomMap = "type octile\nheight 5\nwidth 6\nmap\n@@@@@@\n@..T.@\n@.@@.@\n@....@\n@@@@@@\n";

class Dir {
 public:
  // name: the directory under the system's temp directory; files: (relative path, text);
  // scenario_file: the name scenario text is loaded under.
  Dir(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files, const std::string& scenario_file)
      : dir_(std::filesystem::temp_directory_path() / name), scenario_(dir_ / scenario_file) {
    for (const auto& [file, text] : files) {
      std::filesystem::create_directories((dir_ / file).parent_path());
      std::ofstream(dir_ / file) << text;
    }
    std::filesystem::create_directories(dir_);
  }
  const std::filesystem::path& path() const { return dir_; }
  std::string scenario_path() const { return scenario_.string(); }

  std::optional<thicket::ScenarioSpec> load(const std::string& text, std::vector<thicket::Diagnostic>& diags) const {
    return thicket::load_scenario_text(text, scenario_path(), diags);
  }
  // The diagnostics of text that must not load, one a line.
  std::string errors_of(const std::string& text) const {
    std::vector<thicket::Diagnostic> diags;
    auto spec = load(text, diags);
    CHECK_FALSE(spec.has_value());
    std::string out;
    const std::string prefix = dir_.string() + "/";
    for (const thicket::Diagnostic& d : diags) {
      std::string line = thicket::format_diagnostic(d);
      for (size_t at; (at = line.find(prefix)) != std::string::npos;) line.erase(at, prefix.size());
      out += line + "\n";
    }
    return out;
  }

 private:
  std::filesystem::path dir_, scenario_;
};

}  // namespace scenario_fixture
