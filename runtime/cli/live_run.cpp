#include "live_run.hpp"
#include "numbers.hpp"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

namespace thicket::cli {

std::string parse_live_option(const std::string& option, const std::string& value, LiveOptions& o) {
  if (option == "--serve") {
    o.serve = true;
    return parse_live_address(value, o.address);
  }
  o.speed_set = true;
  if (!parse_decimal(value, o.speed) || !(o.speed >= 0) || o.speed > 1e6)
    return "--speed needs a number >= 0 (1 = the sim clock, 2 = twice as fast, 0 = as fast as it goes), got '" + value + "'";
  return {};
}

std::unique_ptr<LiveSession> LiveSession::start(const LiveOptions& options, std::string& error) {
  std::unique_ptr<LiveSession> session(new LiveSession(options));
  LiveDebugger* debugger = &session->debugger_;
  session->server_ = LiveServer::start(options.address, session->feed_, live_page(), error,
                                       [debugger](const std::string& method, const std::string& path,
                                                  const std::map<std::string, std::string>& params,
                                                  const std::string& body) { return debugger->request(method, path, params, body); });
  if (!session->server_) return nullptr;
  const std::string& host = options.address.host;
  session->url_ = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                  std::to_string(session->server_->port()) + "/";
  if (!options.address.loopback())
    std::cerr << "thicket: warning: --serve " << host
              << " is visible on the network: anyone who can reach this machine can watch the run, and control it "
                 "(pause, step, write blackboards, reload) through its debug API, which has no password\n";
  std::cerr << "thicket: serving " << session->url_ << std::endl;
  return session;
}

LiveSession::~LiveSession() {
  debugger_.close();  // a request waiting for the run is answered at once
  if (server_) server_->stop();
}

void LiveSession::pace(uint64_t done, double dt, const std::function<bool()>& stop) {
  using Clock = std::chrono::steady_clock;
  auto now = Clock::now();
  if (options_.speed > 0 && !started_set_) {
    // The clock starts at the first tick this call follows (the run's first, or a --resume's:
    // counted from tick 0, a run resumed at tick 50,000 stood still for 50,000 ticks' time),
    // shown now: the next is due one tick's time later (started at `done`, it ran at once).
    started_ = now;
    started_done_ = done > 0 ? done - 1 : 0;
    started_set_ = true;
  }
  debugger_.after_tick(done);  // a step done, a breakpoint hit: paused
  std::optional<Clock::time_point> paused_since;
  // Short naps, so that Ctrl-C is answered at once even at a slow clock or while paused; a
  // command wakes the nap and is served at once.
  for (;;) {
    debugger_.serve();
    if (stop && stop()) return;
    now = Clock::now();
    if (debugger_.paused()) {
      if (!paused_since) paused_since = now;
      debugger_.wait_for_job(std::chrono::milliseconds(100));
      continue;
    }
    if (paused_since) {  // the time paused does not count, nor the ticks stepped: no rush to catch up after it,
      started_ = now;    // nor a wait for the steps' time (they ran at once)
      started_done_ = done;
      paused_since.reset();
    }
    if (options_.speed <= 0 || debugger_.stepping()) return;  // a step runs its tick at once
    auto due = started_ + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(static_cast<double>(done - started_done_) * dt / options_.speed));
    if (now >= due) return;
    debugger_.wait_for_job(std::min<Clock::duration>(due - now, std::chrono::milliseconds(50)));
  }
}

void LiveSession::run_over(std::unique_ptr<Simulation> sim) {
  finished_ = std::move(sim);
  debugger_.run_over();
}

void LiveSession::finish(const std::function<bool()>& stop) {
  if (!options_.exit_when_done && !(stop && stop())) {
    std::cerr << "thicket: the run is over; still serving it at " << url_ << " (Ctrl-C to stop)" << std::endl;
    while (!(stop && stop())) {
      debugger_.serve();
      debugger_.wait_for_job(std::chrono::milliseconds(100));
    }
  }
  debugger_.close();
  const uint64_t dropped = feed_.dropped();
  if (dropped > 0)
    std::cerr << "thicket: --serve: slow viewers skipped " << dropped << " tick line(s)\n";
  server_->stop();
}

}  // namespace thicket::cli
