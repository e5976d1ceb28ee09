// A runtime for Lua tests: leaf files and brains written to a fresh temporary folder, the run's
// log kept in memory. Leaves report through thicket.log("@..."); marks() keeps each log line
// from its '@' on.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace thicket_test {
namespace fs = std::filesystem;

// A fresh folder under the system's temp dir, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("thicket_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& content) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p;
  }
  // Writes `name` again with its modification time moved 2 s past the old one, so a reload
  // sees the change within any file system's timestamp granularity.
  fs::path rewrite(const std::string& name, const std::string& content) const {
    fs::path p = path_ / name;
    const auto before = fs::exists(p) ? fs::last_write_time(p) : fs::file_time_type{};
    std::ofstream(p, std::ios::trunc) << content;
    fs::last_write_time(p, before + std::chrono::seconds(2));
    return p;
  }

 private:
  fs::path path_;
};

// Log lines; a type of its own so doctest prints it when a comparison fails.
struct LogLines : std::vector<std::string> {
  using std::vector<std::string>::vector;
  LogLines(std::vector<std::string> v) : std::vector<std::string>(std::move(v)) {}
  friend std::ostream& operator<<(std::ostream& os, const LogLines& l) {
    os << "{";
    for (size_t i = 0; i < l.size(); ++i) os << (i ? ", " : "") << '"' << l[i] << '"';
    return os << "}";
  }
};

class LuaRuntime {
 public:
  explicit LuaRuntime(thicket::RuntimeOptions options = {}) : rt(with_log(std::move(options))) {}

  fs::path write(const std::string& name, const std::string& content) { return dir.write(name, content); }
  std::optional<thicket::BrainHandle> try_load(const std::string& yaml, std::vector<thicket::Diagnostic>& d,
                                               const std::string& name = "brain.yaml") {
    return rt.load_string(yaml, (dir.path() / name).string(), d);
  }
  thicket::BrainHandle load(const std::string& yaml, const std::string& name = "brain.yaml") {
    std::vector<thicket::Diagnostic> d;
    auto b = try_load(yaml, d, name);
    std::string all;
    for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
    INFO(all);
    REQUIRE(b.has_value());
    return *b;
  }
  // Log lines that carry a '@' mark, from the mark on; clears them.
  LogLines marks() {
    LogLines out;
    for (const auto& l : log) {
      size_t at = l.find('@');
      if (at != std::string::npos) out.push_back(l.substr(at + 1));
    }
    log.clear();
    return out;
  }
  std::string joined_log() const {
    std::string s;
    for (const auto& l : log) s += l + "\n";
    return s;
  }

  ScratchDir dir;
  std::vector<std::string> log;
  thicket::Runtime rt;  // last: its log callback uses `log`

 private:
  thicket::RuntimeOptions with_log(thicket::RuntimeOptions o) {
    o.log = [this](const std::string& l) { log.push_back(l); };
    return o;
  }
};

}  // namespace thicket_test
