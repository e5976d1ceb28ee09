// bench/harness.hpp: what every benchmark does the same way, so each bench_*.cpp keeps only what
// it measures.
//   timing       Clock, time_ns(f) / time_ms(f): the wall time of one call of a callable
//   statistics   Stat {median, best}, stat_of(samples), median_of(samples)
//   interleaving Rows: named rows timed rep by rep, each rep running every row once, so a burst
//                of other work on the machine spoils one rep of every row, not one row
//   the table    print_row / Rows::print: name, median, [best], note; ratio(a, b) of medians or bests
//   checking     Checksum (FNV-1a over statuses or counters), match(ok) "match"/"MISMATCH",
//                consistency(ok, ...): the last line every benchmark prints
//   the machine  load_average(), CpuClock (CPU seconds of the machine and of this process),
//                heap_in_use() (malloc'd bytes), TempDir (files for brains and leaf files),
//                fail_load(diagnostics)
//   bare Lua     bare_lua_state(): a plain lua_State whose require("thicket") gives tick() and the
//                status strings, for the baselines that call the same Lua functions without thicket;
//                run_chunk(L, text, name): load and run a chunk, its one result left on the stack
#pragma once

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <lua.hpp>
#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace bench {

using Clock = std::chrono::steady_clock;

// ---- timing ------------------------------------------------------------------------------------

template <class F>
double time_ns(F&& f) {
  auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}
template <class F>
double time_ms(F&& f) {
  return time_ns(std::forward<F>(f)) / 1e6;
}

// ---- statistics --------------------------------------------------------------------------------

struct Stat {
  double median = 0, best = 0;
};
inline Stat stat_of(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front()};
}
inline double median_of(std::vector<double> v) { return stat_of(std::move(v)).median; }

// a / b of medians (or of bests).
inline double ratio(const Stat& a, const Stat& b, bool best = false) {
  return best ? a.best / b.best : a.median / b.median;
}

// ---- the table ---------------------------------------------------------------------------------

// One row: "  name   median  [best]   note", the name padded to `width`.
inline void print_row(const std::string& name, const Stat& s, const std::string& note, int width = 9,
                      int decimals = 1) {
  std::printf("  %-*s %9.*f  [%8.*f]%s%s\n", width, name.c_str(), decimals, s.median, decimals, s.best,
              note.empty() ? "" : "   ", note.c_str());
}

// ---- interleaved measurements ------------------------------------------------------------------

// Named rows, each a callable running `n` units of work (ticks, usually), timed rep by rep: every
// rep runs each row in turn, `settle` units of it untimed (1 unless the row says otherwise), then
// `block` units timed. The untimed units mean no row pays for the cache misses the row before it
// left behind. Samples are ns per `per_block` (agent-ticks in a block, usually).
struct Rows {
  struct Row {
    std::string name, note;
    std::function<void(int)> run;
    int settle = 1;
    std::vector<double> samples;
    Stat stat() const { return stat_of(samples); }
  };
  std::vector<Row> rows;

  Row& add(std::string name, std::string note, std::function<void(int)> run, int settle = 1) {
    rows.push_back({std::move(name), std::move(note), std::move(run), settle, {}});
    return rows.back();
  }
  void measure(int reps, int block, double per_block) {
    for (int r = 0; r < reps; ++r)
      for (Row& row : rows) {
        if (row.settle) row.run(row.settle);
        row.samples.push_back(time_ns([&] { row.run(block); }) / per_block);
      }
  }
  const Row& operator[](const std::string& name) const {
    for (const Row& r : rows)
      if (r.name == name) return r;
    std::fprintf(stderr, "bench: no row named %s\n", name.c_str());
    std::abort();
  }
  Stat stat(const std::string& name) const { return (*this)[name].stat(); }
  double ratio(const std::string& a, const std::string& b, bool best = false) const {
    return bench::ratio(stat(a), stat(b), best);
  }
  // Every row, the names padded to the longest.
  void print(int decimals = 1) const {
    int width = 0;
    for (const Row& r : rows) width = std::max(width, static_cast<int>(r.name.size()));
    for (const Row& r : rows) print_row(r.name, r.stat(), r.note, width, decimals);
  }
};

// ---- checking that implementations agree before timing them ---------------------------------------

// FNV-1a, one value at a time (a root status, a counter).
struct Checksum {
  uint64_t h = 1469598103934665603ULL;
  void add(uint64_t v) { h = (h ^ v) * 1099511628211ULL; }
  template <class E>
  void add_status(E s) {
    add(static_cast<uint64_t>(s));
  }
  bool operator==(const Checksum&) const = default;
};

inline const char* match(bool ok) { return ok ? "match" : "MISMATCH"; }
inline unsigned long long u(uint64_t v) { return static_cast<unsigned long long>(v); }

// The verdict line at the end of a run; returns ok.
inline bool consistency(bool ok, const char* agreed = "all implementations made the same decisions",
                        const char* disagreed = "IMPLEMENTATIONS DISAGREE") {
  std::printf("consistency: %s\n", ok ? agreed : disagreed);
  return ok;
}

// ---- the machine and the files -----------------------------------------------------------------

// CPU seconds used by the whole machine (busy, all cores) and by this process so far: the
// difference over timed runs is what other processes took from the cores.
struct CpuClock {
  double machine_busy = 0, self = 0;
  static CpuClock now() {
    CpuClock c;
    std::ifstream in("/proc/stat");
    std::string cpu;
    unsigned long long v[8] = {};
    in >> cpu;
    for (auto& x : v) in >> x;
    const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait
    c.machine_busy = static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    c.self = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return c;
  }
};

// Bytes the process has malloc'd and not freed: arena chunks in use + mmapped blocks (a vector
// of more than 128 KiB, e.g. 10k entities, is mmapped and not in uordblks).
inline size_t heap_in_use() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// The machine's load while the benchmark ran (other work skews wall-clock figures).
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a.empty() ? "unknown" : a + " " + b + " " + c;
}

// A temporary folder, removed with everything in it when it goes out of scope.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() / ("thicket_" + name + "_" + std::to_string(getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Writes path/name (name may hold a sub-folder) and returns its path; with bump, sets its
  // mtime that many seconds ahead, so even a same-size rewrite within the file system's
  // timestamp granularity is seen as a change.
  std::string write(const std::string& name, const std::string& text, int bump = 0) const {
    std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    if (bump)
      std::filesystem::last_write_time(p, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(bump));
    return p.string();
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

[[noreturn]] inline void fail_load(const std::vector<thicket::Diagnostic>& diags) {
  for (const auto& d : diags) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  std::exit(1);
}

// ---- bare Lua: the baselines that call the same Lua code with no thicket around it -------------

// What the bare `thicket.tick()` returns; the baseline's tick loop sets it.
inline uint64_t bare_tick = 0;

inline int bare_thicket_tick(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(bare_tick));
  return 1;
}
inline int bare_thicket_open(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, bare_thicket_tick);
  lua_setfield(L, -2, "tick");
  const char* names[][2] = {{"SUCCESS", "success"}, {"FAILURE", "failure"}, {"RUNNING", "running"}};
  for (const auto& n : names) {
    lua_pushstring(L, n[1]);
    lua_setfield(L, -2, n[0]);
  }
  return 1;
}
// A plain lua_State with the standard libraries, where require("thicket") gives a module of
// tick() (bare_tick) and SUCCESS/FAILURE/RUNNING (thicket's status strings).
inline lua_State* bare_lua_state() {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, bare_thicket_open);
  lua_setfield(L, -2, "thicket");
  lua_pop(L, 1);
  return L;
}
// Loads and runs a chunk; its one result is left on the stack. Exits on an error.
inline void run_chunk(lua_State* L, const std::string& text, const char* name) {
  if (luaL_loadbuffer(L, text.data(), text.size(), name) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    std::fprintf(stderr, "bare lua: %s\n", lua_tostring(L, -1));
    std::exit(1);
  }
}

}  // namespace bench
