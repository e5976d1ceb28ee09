// The live monitor's fan-out (live_feed.hpp): readers get the header first, lines in order,
// late readers the kept history; a slow reader loses its oldest tick lines, never a header,
// brains or end line; the writer never waits.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "live_feed.hpp"

using namespace thicket;
using Kind = RecordSink::Kind;
using namespace std::chrono_literals;

namespace {

// Everything queued for the reader now (a zero wait: no test decides on wall time).
std::vector<std::string> drain(LiveFeed& feed, LiveFeed::Reader* reader) {
  std::vector<std::string> out;
  while (auto line = feed.next(reader, 0ms)) out.push_back(*line);
  return out;
}

}  // namespace

TEST_CASE("live feed: a reader gets the header, then every line in order, then the end") {
  LiveFeed feed(8);
  LiveFeed::Reader* reader = feed.connect();
  feed.write(Kind::Header, "H");
  feed.write(Kind::Tick, "t0");
  feed.write(Kind::Brains, "B");
  feed.write(Kind::Tick, "t1");
  feed.write(Kind::End, "E");
  CHECK(drain(feed, reader) == std::vector<std::string>{"H", "t0", "B", "t1", "E"});
  CHECK(feed.dropped() == 0);
  CHECK(feed.lines() == 5);
  CHECK(feed.ended());
}

TEST_CASE("live feed: a late reader gets what is kept, a later one after the end too") {
  LiveFeed feed(2);
  feed.write(Kind::Header, "H");
  for (int t = 0; t < 5; ++t) feed.write(Kind::Tick, std::string("t").append(std::to_string(t)));
  LiveFeed::Reader* late = feed.connect();
  feed.write(Kind::Tick, "t5");
  feed.write(Kind::End, "E");
  // The history it joined with is not "being slow": nothing of it is dropped.
  CHECK(drain(feed, late) == std::vector<std::string>{"H", "t0", "t1", "t2", "t3", "t4", "t5", "E"});
  LiveFeed::Reader* after = feed.connect();
  CHECK(drain(feed, after) == std::vector<std::string>{"H", "t0", "t1", "t2", "t3", "t4", "t5", "E"});
  CHECK(feed.readers_seen() == 2);
}

TEST_CASE("live feed: a slow reader loses its oldest tick lines, counted, never brains or end") {
  LiveFeed feed(3);
  LiveFeed::Reader* slow = feed.connect();
  feed.write(Kind::Header, "H");
  feed.write(Kind::Tick, "t0");
  feed.write(Kind::Brains, "B");
  for (int t = 1; t < 6; ++t) feed.write(Kind::Tick, std::string("t").append(std::to_string(t)));
  feed.write(Kind::End, "E");
  CHECK(drain(feed, slow) == std::vector<std::string>{"H", "B", "t3", "t4", "t5", "E"});
  CHECK(feed.dropped() == 3);
}

TEST_CASE("live feed: the history is bounded in bytes, keeping the brains line its ticks need") {
  LiveFeed feed(64, 6);  // room for three two-byte lines
  feed.write(Kind::Header, "H");
  feed.write(Kind::Brains, "B1");
  for (int t = 0; t < 5; ++t) feed.write(Kind::Tick, std::string("t").append(std::to_string(t)));
  CHECK(drain(feed, feed.connect()) == std::vector<std::string>{"H", "B1", "t2", "t3", "t4"});
}

TEST_CASE("live feed: close wakes a waiting reader, and a reader on another thread sees every line") {
  LiveFeed feed(1000);
  LiveFeed::Reader* reader = feed.connect();
  std::vector<std::string> got;
  std::thread consumer([&] {
    for (;;) {
      auto line = feed.next(reader, 10s);
      if (!line) break;
      got.push_back(*line);
      if (*line == "E") break;
    }
  });
  feed.write(Kind::Header, "H");
  for (int t = 0; t < 100; ++t) feed.write(Kind::Tick, std::string("t").append(std::to_string(t)));
  feed.write(Kind::End, "E");
  consumer.join();
  REQUIRE(got.size() == 102);
  CHECK(got.front() == "H");
  CHECK(got[50] == "t49");
  feed.disconnect(reader);
  LiveFeed::Reader* waiting = feed.connect();
  drain(feed, waiting);
  std::thread waiter([&] { CHECK(feed.next(waiting, 60s) == nullptr); });
  feed.close();
  waiter.join();
  CHECK(feed.closed());
}
