// One tick per dt of wall time, for `--watch` (a brain file or a scenario): the modder edits
// while the run goes at the sim clock's pace.
#pragma once
#include <unistd.h>

#include <chrono>

namespace thicket::cli {

// Clock: steady_clock, or a test's clock that its nap moves on.
template <class Clock = std::chrono::steady_clock>
class BasicWallPacer {
 public:
  explicit BasicWallPacer(double dt)
      : dt_(std::chrono::duration_cast<typename Clock::duration>(std::chrono::duration<double>(dt))) {}

  // Waits until the next tick is due, calling nap() meanwhile; false when stop() said so (the
  // tick is not run). A tick late by less than a dt keeps the schedule (the next ones come
  // sooner, so the pace stays one tick per dt on average); one later than that (the process was
  // stopped, a reload or a tick took long) starts the schedule again from now. (The due time
  // was the start plus t dt: after a pause of 1.5 s at dt 0.1, fifteen ticks ran in one
  // millisecond.)
  template <class Stop, class Nap>
  bool wait(Stop stop, Nap nap) {
    if (!begun_) due_ = Clock::now();
    begun_ = true;
    while (Clock::now() < due_ && !stop()) nap();
    // (Looked at after the wait: the process may have been stopped while it waited.)
    if (const auto now = Clock::now(); now > due_ + dt_) due_ = now;
    due_ += dt_;
    return !stop();
  }
  template <class Stop>
  bool wait(Stop stop) {
    return wait(stop, [] { usleep(1000); });
  }

 private:
  typename Clock::duration dt_;
  typename Clock::time_point due_{};
  bool begun_ = false;
};

using WallPacer = BasicWallPacer<>;

}  // namespace thicket::cli
