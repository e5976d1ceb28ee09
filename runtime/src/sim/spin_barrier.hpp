// A reusable barrier for the simulation's workers that spins briefly before it sleeps.
//
// std::barrier (libstdc++ 12) polls only a handful of times before it blocks in the kernel. A
// scenario tick at 1,000 agents is ~0.4 ms on each of two threads, and its workers meet four
// times a tick; a futex sleep and wake-up costs tens of microseconds on a VM, mostly the
// sleeper's wake-up latency, so at that size the barriers, not the work, capped the speed-up.
// Here a waiter first polls the phase with a pause instruction for a bounded number of rounds
// (tens of microseconds: long enough to cover the usual imbalance between workers and the
// serial work between phases, short enough not to hold a shared core for long), and only then
// blocks on the phase with std::atomic::wait (a futex on Linux). The last to arrive wakes
// sleepers only when there are any, so a tick whose workers all arrive while spinning makes
// no system call.
#pragma once
#include <atomic>
#include <cstdint>

namespace thicket {

class SpinBarrier {
 public:
  // Pause rounds before sleeping: ~40 us on the Xeon VM of the README (a pause is ~10 ns there).
  // That covers the serial work between phases of a 1,000-agent tick (~40 us: the hash rebuild,
  // the effects), so the pool thread does not fall asleep at every tick; 512 rounds gained
  // nothing over sleeping at once there (bench_scenario), 2,048-8,192 gave 1.8-2.0x.
  static constexpr std::uint32_t kDefaultSpins = 4096;

  explicit SpinBarrier(std::uint32_t parties, std::uint32_t spins = kDefaultSpins)
      : parties_(parties > 0 ? parties : 1), spins_(spins) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  // Blocks until all parties have arrived in this phase; everything each party wrote before
  // arriving is visible to every party after it returns.
  void arrive_and_wait() {
    const std::uint32_t phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
      // Reset before the phase moves on: nobody arrives for the next phase before seeing it.
      arrived_.store(0, std::memory_order_relaxed);
      // seq_cst here and on sleepers_ (both sides): either this load sees a sleeper, or that
      // sleeper's recheck of the phase sees the new one (store-load ordering, as Dekker's).
      phase_.fetch_add(1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) != 0) phase_.notify_all();
      return;
    }
    for (std::uint32_t k = 0; k < spins_; ++k) {
      if (phase_.load(std::memory_order_acquire) != phase) return;
      pause();
    }
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (phase_.load(std::memory_order_seq_cst) == phase) phase_.wait(phase, std::memory_order_acquire);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
  }

  const std::uint32_t parties_;
  const std::uint32_t spins_;
  // Apart, so that arriving (a write) does not take the line the spinners are reading.
  alignas(64) std::atomic<std::uint32_t> arrived_{0};
  alignas(64) std::atomic<std::uint32_t> phase_{0};
  alignas(64) std::atomic<std::uint32_t> sleepers_{0};
};

}  // namespace thicket
