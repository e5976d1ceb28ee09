#include "live_run.hpp"

#include <cstdlib>
#include <iostream>
#include <thread>

namespace thicket::cli {

std::string parse_live_option(const std::string& option, const std::string& value, LiveOptions& o) {
  if (option == "--serve") {
    o.serve = true;
    return parse_live_address(value, o.address);
  }
  char* end = nullptr;
  o.speed = std::strtod(value.c_str(), &end);
  o.speed_set = true;
  if (value.empty() || *end || !(o.speed >= 0) || o.speed > 1e6)
    return "--speed needs a number >= 0 (1 = the sim clock, 2 = twice as fast, 0 = as fast as it goes), got '" + value + "'";
  return {};
}

std::unique_ptr<LiveSession> LiveSession::start(const LiveOptions& options, std::string& error) {
  std::unique_ptr<LiveSession> session(new LiveSession(options));
  session->server_ = LiveServer::start(options.address, session->feed_, live_page(), error);
  if (!session->server_) return nullptr;
  const std::string& host = options.address.host;
  session->url_ = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                  std::to_string(session->server_->port()) + "/";
  if (!options.address.loopback())
    std::cerr << "thicket: warning: --serve " << host
              << " is visible on the network: anyone who can reach this machine can watch the run\n";
  std::cerr << "thicket: serving " << session->url_ << std::endl;
  return session;
}

LiveSession::~LiveSession() {
  if (server_) server_->stop();
}

void LiveSession::pace(uint64_t done, double dt, const std::function<bool()>& stop) {
  if (options_.speed <= 0) return;
  auto now = std::chrono::steady_clock::now();
  if (!started_set_) {
    // The first tick ran before this call: the clock starts one tick back.
    started_ = now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(dt / options_.speed));
    started_set_ = true;
  }
  auto due = started_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(static_cast<double>(done) * dt / options_.speed));
  // Short naps, so that Ctrl-C is answered at once even at a slow clock.
  while (std::chrono::steady_clock::now() < due && !(stop && stop()))
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(due - std::chrono::steady_clock::now(),
                                                                               std::chrono::milliseconds(50)));
}

void LiveSession::finish(const std::function<bool()>& stop) {
  if (!options_.exit_when_done && !(stop && stop())) {
    std::cerr << "thicket: the run is over; still serving it at " << url_ << " (Ctrl-C to stop)" << std::endl;
    while (!(stop && stop())) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const uint64_t dropped = feed_.dropped();
  if (dropped > 0)
    std::cerr << "thicket: --serve: slow viewers skipped " << dropped << " tick line(s)\n";
  server_->stop();
}

}  // namespace thicket::cli
