// cli::BasicWallPacer (--watch's pacing) on a clock the test moves: no wall time is read.
#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include "../../../runtime/cli/wall_pacer.hpp"

namespace {

struct TestClock {
  using duration = std::chrono::milliseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<TestClock>;
  static inline time_point t{};
  static time_point now() { return t; }
};

}  // namespace

TEST_CASE("wall pacer: one tick per dt; a tick more than a dt late starts the schedule again, with no burst") {
  TestClock::t = {};
  thicket::cli::BasicWallPacer<TestClock> pacer(0.1);
  std::vector<long> ran;  // the ms each tick ran at
  auto tick = [&] {
    REQUIRE(pacer.wait([] { return false; }, [] { TestClock::t += std::chrono::milliseconds(1); }));
    ran.push_back(static_cast<long>(TestClock::t.time_since_epoch().count()));
  };
  tick();
  tick();
  tick();
  CHECK(ran == std::vector<long>{0, 100, 200});
  // A tick of 30 ms: late by less than a dt, the schedule holds.
  TestClock::t += std::chrono::milliseconds(130);  // now 330, the next was due at 300
  tick();
  tick();
  CHECK(ran.back() == 400);
  // A stop of 1.5 s (Ctrl-Z, a slow reload): the next tick at once, then one per dt again.
  // (The due time was start + t dt: fifteen ticks ran back to back.)
  TestClock::t += std::chrono::milliseconds(1500);  // now 1900
  tick();
  tick();
  tick();
  CHECK(std::vector<long>(ran.end() - 3, ran.end()) == std::vector<long>{1900, 2000, 2100});
}

TEST_CASE("wall pacer: stop() while waiting ends the wait, and the tick is not run") {
  TestClock::t = {};
  thicket::cli::BasicWallPacer<TestClock> pacer(5.0);
  CHECK(pacer.wait([] { return false; }, [] {}));  // the first tick: at once
  int naps = 0;
  CHECK_FALSE(pacer.wait([&] { return naps == 3; }, [&] { ++naps; TestClock::t += std::chrono::milliseconds(1); }));
  CHECK(naps == 3);
}
