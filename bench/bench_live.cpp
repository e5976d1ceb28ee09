// bench_live: what does the live monitor (`thicket run SCENARIO --serve`) cost the simulation?
// (issue 14: "never slows the simulation by more than 10% at 1,000 agents (drop frames for slow
// clients rather than block)")
//
// Scenario: scripts/examples/arena with its groups scaled to 1,000 agents (largest remainder),
// 300 ticks, one thread, unpaced (as `--speed 0`). Three rows, reps interleaved, creation
// untimed, ns per agent-tick = run() wall time / agent-ticks:
//   none    no record at all (the baseline);
//   record  the recorder writing into a sink that drops every line (what recording itself costs,
//           whatever the lines are for);
//   live    the recorder writing to a LiveFeed served by a LiveServer on its own thread, with
//           one SSE client (an httplib client on a thread) reading /record slowly (a nap per
//           chunk it gets), so that it falls behind and loses tick lines.
// The goal is live <= 1.10 x none. On a 2-core machine the server and the client threads take
// CPU time from the same cores; the load average is printed at start and end.
// Checks (untimed, first): the three rows' results are identical (the record does not change
// the run), and the slow client got lines and lost some (the feed dropped, never waited).
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "harness.hpp"
#include "live_feed.hpp"
#include "live_server.hpp"
#include "sim_harness.hpp"
#include "sim/scenario.hpp"
#include "sim/simulation.hpp"

namespace {

using namespace bench;

constexpr uint32_t kAgents = 1000;
constexpr uint64_t kTicks = 300;
constexpr int kReps = 5;

struct NullSink final : thicket::RecordSink {
  uint64_t bytes = 0;
  void write(Kind, std::string_view line) override { bytes += line.size(); }
};

// A reader of /record that takes its time: a nap after every piece it receives.
struct SlowClient {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bytes{0}, pieces{0};
  std::thread thread;
  SlowClient(int port, std::chrono::microseconds nap) {
    thread = std::thread([this, port, nap] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(600, 0);
      client.Get("/record", [&](const char*, size_t n) {
        bytes += n;
        ++pieces;
        std::this_thread::sleep_for(nap);
        return !stop.load();
      });
    });
  }
  ~SlowClient() {
    stop = true;
    thread.join();
  }
};

}  // namespace

int main() {
  std::printf("bench_live: the live monitor's cost, arena scaled to %u agents, %llu ticks, 1 thread, unpaced\n",
              kAgents, u(kTicks));
  std::printf("load average at start: %s\n", load_average().c_str());
  std::vector<thicket::Diagnostic> diags;
  auto spec = thicket::load_scenario(std::string(THICKET_SOURCE_DIR) + "/scripts/examples/arena/arena.yaml", diags);
  if (!spec) fail_load(diags);
  scale_groups(*spec, kAgents);
  thicket::SimOptions options;
  options.threads = 1;
  options.ticks = kTicks;
  options.dt = spec->dt;

  NullSink null_sink;
  thicket::LiveFeed feed;
  std::string error;
  auto server = thicket::cli::LiveServer::start({}, feed, "<!doctype html><title>bench</title>", error);
  if (!server) {
    std::fprintf(stderr, "bench_live: %s\n", error.c_str());
    return 1;
  }
  SlowClient client(server->port(), std::chrono::microseconds(2000));
  // The client is connected once the feed has seen it.
  while (feed.readers_seen() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  auto run = [&](thicket::RecordSink* sink) {
    options.record = sink;
    return simulate(*spec, options, false);
  };
  // Checks.
  SimRun none = run(nullptr), recorded = run(&null_sink), live = run(&feed);
  bool same = same_result(none.result, recorded.result) && same_result(none.result, live.result);
  std::printf("record: %.1f bytes per agent-tick (%.2f MB per run)\n",
              static_cast<double>(null_sink.bytes) / static_cast<double>(none.result.agent_ticks),
              static_cast<double>(null_sink.bytes) / 1e6);

  Rows rows;
  std::vector<uint64_t> agent_ticks;
  for (auto [name, sink, note] : {std::tuple<const char*, thicket::RecordSink*, const char*>{"none", nullptr, "no record"},
                                  {"record", &null_sink, "recorder, lines dropped"},
                                  {"live", &feed, "recorder -> LiveFeed -> SSE, one slow client"}})
    rows.add(name, note, [&, sink = sink](int) { run(sink); }, 0);
  rows.measure(kReps, 1, static_cast<double>(none.result.agent_ticks));
  std::printf("ns per agent-tick, median [best] of %d reps:\n", kReps);
  rows.print();
  std::printf("slowdown: record %.3fx, live %.3fx (best: %.3fx, %.3fx); goal live <= 1.10x\n",
              rows.ratio("record", "none"), rows.ratio("live", "none"), rows.ratio("record", "none", true),
              rows.ratio("live", "none", true));
  const uint64_t lines = feed.lines(), dropped = feed.dropped();
  std::printf("slow client: %llu lines written, %llu tick lines dropped for it, %.1f MB read in %llu pieces\n",
              u(lines), u(dropped), static_cast<double>(client.bytes.load()) / 1e6, u(client.pieces.load()));
  std::printf("load average at end: %s\n", load_average().c_str());
  server->stop();
  return consistency(same && dropped > 0 && client.bytes > 0,
                     "the record did not change the run; the slow client lost lines, the run never waited")
             ? 0
             : 1;
}
