// The debug API of a served run (issue 34: `thicket run SCENARIO --serve PORT`, which `thicket
// edit --attach` drives; docs/guide.md 1.10): GET /api/agents, /api/agent?id=N, /api/debug;
// POST /api/blackboard, /api/breakpoints, /api/pause, /api/resume, /api/step, /api/reload. JSON
// in, JSON out.
//
// Threads: a request arrives on a server thread, which parses it, queues a job and waits (at
// most kAnswerWithin) for its answer. Jobs run on the run's own thread between ticks
// (LiveSession::pace, and LiveSession::finish once the run is over), the only thread that
// touches the Simulation and its runtimes. While the run is paused, that thread waits for jobs
// and serves each at once.
//
// Breakpoints (the rule, as built): a breakpoint names a node (its id, as `thicket dump` lists
// it) of a brain (its file, compared after std::filesystem::weakly_canonical, or its name).
// After each tick, for every live agent whose brain has breakpoints, the node statuses
// (Runtime::node_statuses) are compared with those at the end of the agent's previous tick (for
// an agent new since then: all '.'). The agent ENTERED node i in this tick when
//   - i is R now and was not R before (it started, and is still running), or
//   - i is S or F now, was not R before, and differs from before (it started and finished
//     within the tick: '.' -> S, F -> S, S -> F, ...).
// R -> S/F is a node that finished, not one entered. A node that ran again within a tick and
// returned what it returned the last time it ran (S -> S, F -> F, e.g. a condition an active
// selector checks every tick) leaves no trace in the statuses and is not seen as entered. On
// the tick a hot reload changes an agent's node table, its statuses are not compared. When
// some agent entered a breakpoint node, the run pauses before its next tick and /api/debug
// reports the hit: the first such agent in tick (id) order, its first such node in dump order.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "live_server.hpp"
#include "simulation.hpp"

namespace thicket::cli {

class LiveDebugger {
 public:
  static constexpr std::chrono::seconds kAnswerWithin{5};
  static constexpr size_t kMaxListed = 2000;  // GET /api/agents lists at most this many

  // A server thread: one request of the API (LiveServer's ApiHandler).
  ApiReply request(const std::string& method, const std::string& path, const std::map<std::string, std::string>& params,
                   const std::string& body);

  // The run's thread.
  void attach(Simulation* sim);      // before run(): the run to serve
  void after_tick(uint64_t done);    // after tick `done`: a step finished, breakpoints
  // A reload the run made of its own (--watch) before a POST /api/reload asked: kept for
  // kWatchReloadsKept, and answered with that POST's reports (an editor saves, the run's
  // --watch reloads the file at its next tick, then the editor asks: the answer was "nothing").
  void watch_reloaded(const std::vector<ReloadReport>& reports);
  static constexpr std::chrono::seconds kWatchReloadsKept{5};
  void serve();                      // runs the queued jobs
  void wait_for_job(std::chrono::steady_clock::duration at_most);
  bool paused() const { return paused_; }
  bool stepping() const { return !step_jobs_.empty(); }
  void run_over();                   // run() returned: commands that need a tick answer an error
  // Any thread: answers every job queued or waiting, and every later request, with an error
  // (the session is ending).
  void close();

 private:
  struct Job {
    std::function<std::optional<ApiReply>()> work;  // nullopt: answered later (a step)
    ApiReply reply;
    bool done = false;
  };
  struct Breakpoint {
    std::string file;   // weakly_canonical; "" when given by brain name
    std::string brain;  // the brain's name; "" when given by file
    std::string node;   // node id
    std::string given;  // the file as the client wrote it: what replies name (the canonical
                        // path told a client where /proc/self/cwd or a link leads)
  };
  struct Hit {
    uint32_t agent = 0;
    std::string file, brain, node;
    uint64_t tick = 0;
  };
  struct Seen {  // an agent's node statuses at the end of its previous tick
    Runtime* runtime = nullptr;
    uint32_t brain = UINT32_MAX;
    uint64_t nodes_hash = 0;
    std::string statuses;
  };

  ApiReply submit(std::function<std::optional<ApiReply>()> work);
  void answer(const std::shared_ptr<Job>& job, ApiReply reply);
  ApiReply control_reply(bool ok, const std::string& error = {}) const;
  // Compares the statuses with those seen (when `detect`), records the hit, keeps them.
  void scan(bool detect);

  // Run's thread only.
  Simulation* sim_ = nullptr;
  uint64_t tick_ = 0;
  bool paused_ = false, done_ = false;
  std::deque<std::shared_ptr<Job>> step_jobs_;
  std::vector<Breakpoint> breakpoints_;
  std::optional<Hit> hit_;
  std::vector<Seen> seen_;  // by agent id
  std::vector<Simulation::AgentRef> refs_;
  std::vector<std::pair<std::chrono::steady_clock::time_point, ReloadReport>> watch_reloads_;
  std::string statuses_;

  // Shared with the server threads.
  std::mutex mutex_;
  std::condition_variable queued_, answered_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool closed_ = false;
};

}  // namespace thicket::cli
