// The workers' barrier (spin_barrier.hpp): no party leaves a phase before every party has
// arrived in it, what each wrote before arriving is seen by all after, and it works whether the
// waiters catch the phase change while spinning (many spins), only asleep (no spins) or either.
// Nothing here reads a clock: the checks are on the data the threads exchange.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "spin_barrier.hpp"

using namespace thicket;

namespace {

// Under a sanitizer (test.sh: ASan's whole suite, TSan's thicket_threads_test, which checks the
// slots' plain reads and writes for races) a tenth of the rounds: there every phase costs the
// sanitizer's work on each atomic and, with more parties than cores, a wake-up of a preempted
// thread (milliseconds on a loaded 2-core machine: 2000 rounds took 13-33 s a test).
#if defined(THICKET_UNDER_SANITIZER)
constexpr std::uint32_t kRoundsDivisor = 10;
#else
constexpr std::uint32_t kRoundsDivisor = 1;
#endif

// Each of `parties` threads, round after round: writes its slot, meets the others, checks that
// every slot holds this round's value (all arrived, their writes visible), meets them again (so
// nobody overwrites a slot while another still reads it). Returns the number of bad reads.
std::uint64_t rounds(std::uint32_t parties, std::uint32_t spins, std::uint32_t count) {
  count /= kRoundsDivisor;
  SpinBarrier barrier(parties, spins);
  std::vector<std::uint64_t> slots(parties, 0);  // plain data: the barrier orders it
  std::atomic<std::uint64_t> bad{0};
  auto body = [&](std::uint32_t me) {
    std::uint64_t seen_bad = 0;
    for (std::uint32_t r = 1; r <= count; ++r) {
      slots[me] = r;
      barrier.arrive_and_wait();
      for (std::uint64_t v : slots) seen_bad += v != r;
      barrier.arrive_and_wait();
    }
    bad += seen_bad;
  };
  std::vector<std::thread> threads;
  for (std::uint32_t t = 1; t < parties; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();
  return bad.load();
}

}  // namespace

TEST_CASE("spin barrier: one party never waits") {
  CHECK(rounds(1, SpinBarrier::kDefaultSpins, 1000) == 0);
}

TEST_CASE("spin barrier: every party arrives, and its writes are seen, before any leaves") {
  for (std::uint32_t parties : {2u, 3u, 4u, 8u}) {
    CAPTURE(parties);
    CHECK(rounds(parties, SpinBarrier::kDefaultSpins, 2000) == 0);
  }
}

TEST_CASE("spin barrier: waiters that never spin sleep and are woken every phase") {
  for (std::uint32_t parties : {2u, 4u}) {
    CAPTURE(parties);
    CHECK(rounds(parties, 0, 2000) == 0);
  }
}

TEST_CASE("spin barrier: a few spins, so waiters sometimes catch the phase spinning, sometimes asleep") {
  CHECK(rounds(3, 16, 3000) == 0);
}

TEST_CASE("spin barrier: one party late by many rounds of the others' spinning") {
  // Party 0 does a long stretch of work before each arrival, so the others run out of spins
  // and sleep; every phase must still release all of them exactly once.
  constexpr int kLate = 200 / static_cast<int>(kRoundsDivisor);
  SpinBarrier barrier(3, 64);
  std::atomic<std::uint32_t> passed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < kLate; ++r) {
        barrier.arrive_and_wait();
        passed.fetch_add(1);
        barrier.arrive_and_wait();
      }
    });
  std::uint32_t wrong = 0;
  volatile std::uint64_t sink = 0;
  for (int r = 0; r < kLate; ++r) {
    for (int k = 0; k < 20000; ++k) sink = sink + static_cast<std::uint64_t>(k);
    barrier.arrive_and_wait();
    barrier.arrive_and_wait();  // both others passed the first barrier of round r by now
    wrong += passed.load() != static_cast<std::uint32_t>(2 * (r + 1));
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}
