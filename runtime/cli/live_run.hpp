// `thicket run SCENARIO --serve [ADDR:]PORT [--speed F] [--serve-exit]` (issue 14): the run's
// record goes to a LiveFeed that a LiveServer streams to browsers, the run is paced at the sim
// clock so that a person can watch it, and the finished record stays served until Ctrl-C.
// main.cpp only parses the options into LiveOptions and calls these at the three moments.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "live_debug.hpp"
#include "live_feed.hpp"
#include "live_server.hpp"

namespace thicket::cli {

struct LiveOptions {
  bool serve = false;
  LiveAddress address;
  double speed = 1;       // sim seconds per wall second; 0 = as fast as it goes
  bool speed_set = false;
  bool exit_when_done = false;  // --serve-exit: stop serving when the run ends
};

// Parses the value of --serve or --speed into `o`; empty on success, else the usage error.
std::string parse_live_option(const std::string& option, const std::string& value, LiveOptions& o);

class LiveSession {
 public:
  // Starts serving (prints the address to stderr, with a warning when it is not loopback);
  // nullptr and `error` when the address cannot be listened on.
  static std::unique_ptr<LiveSession> start(const LiveOptions& options, std::string& error);
  ~LiveSession();
  RecordSink* sink() { return &feed_; }
  // The run the debug API serves (live_debug.hpp), before its run().
  void attach(Simulation* sim) { debugger_.attach(sim); }
  // What a reload the run made of its own (--watch) did, on the run's thread: what the debug
  // API's next POST /api/reload answers with its own (an editor's save that --watch saw first).
  void reloaded(const std::vector<ReloadReport>& reports) { debugger_.watch_reloaded(reports); }
  // After tick number `done` (1-based), on the run's thread: serves the debug API's commands;
  // stays while the run is paused (a breakpoint, /api/pause) until it is resumed or stepped;
  // then waits until the tick's time on the sim clock, `done * dt / speed` wall seconds after
  // the first call, not counting the time spent paused. Returns at once when `stop()`.
  void pace(uint64_t done, double dt, const std::function<bool()>& stop);
  // After run() returned: the run is over for the debug API, whose GETs go on reading the
  // finished run, kept here until the session ends.
  void run_over(std::unique_ptr<Simulation> sim);
  // After the run and its summary: keeps serving the finished record (and the debug API) until
  // `stop()` (Ctrl-C), unless --serve-exit.
  void finish(const std::function<bool()>& stop);

 private:
  LiveSession(const LiveOptions& options) : options_(options) {}
  LiveOptions options_;
  LiveFeed feed_;
  LiveDebugger debugger_;
  std::unique_ptr<LiveServer> server_;
  std::unique_ptr<Simulation> finished_;  // run_over's, destroyed after the server stopped
  std::string url_;
  std::chrono::steady_clock::time_point started_{};
  uint64_t started_done_ = 0;  // the tick count the clock was started (or restarted, after a pause) at
  bool started_set_ = false;
};

// The page served at `/`: the viewer in live mode.
std::string live_page();

}  // namespace thicket::cli
