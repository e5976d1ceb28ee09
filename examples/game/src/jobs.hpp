// The game's job system: a few worker threads that run the jobs of one call together with the
// calling thread. thicket's tick_all(dt, executor) and the perception pass run on it (SPEC 8.2).
// Workers spin for a moment after a call before they sleep, so the calls of one frame (the
// perception pass, then the tick) find them awake: waking a sleeping thread costs tens of
// microseconds, as much as a thousand guards' tick saves on the second core.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace game {

class Jobs {
 public:
  // threads: how many threads run jobs at once, the caller's included (>= 1).
  explicit Jobs(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~Jobs() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_.store(true);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  Jobs(const Jobs&) = delete;
  Jobs& operator=(const Jobs&) = delete;

  size_t threads() const { return workers_.size() + 1; }

  // Runs job(i) for every i < n and returns when all have returned. One caller at a time.
  // The caller takes jobs too, and waits only for jobs a worker has taken: a worker still
  // asleep when the jobs run out holds nothing up, and finds nothing to do when it wakes.
  void run(size_t n, const std::function<void(size_t)>& job) {
    if (n == 0) return;
    if (workers_.empty() || n == 1) {
      for (size_t i = 0; i < n; ++i) job(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      count_ = n;
      next_.store(0);
      done_.store(0);
      generation_.fetch_add(1);
    }
    if (sleepers_.load() > 0) cv_.notify_all();
    take(job, n);
    while (done_.load() < n) pause();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = nullptr;  // a worker that wakes from now on finds nothing to do
    }
    while (inflight_.load() > 0) pause();  // workers still claiming (they find no index left)
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }
  void take(const std::function<void(size_t)>& job, size_t n) {
    for (size_t i; (i = next_.fetch_add(1)) < n;) {
      job(i);
      done_.fetch_add(1);
    }
  }
  void work() {
    uint64_t seen = 0;
    for (;;) {
      // Spin a while (~50 us), then sleep until the next call.
      for (int spin = 0; spin < 20000 && generation_.load() == seen && !quit_.load(); ++spin) pause();
      const std::function<void(size_t)>* job = nullptr;
      size_t n = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (generation_.load() == seen && !quit_.load()) {
          sleepers_.fetch_add(1);
          cv_.wait(lock, [&] { return quit_.load() || generation_.load() != seen; });
          sleepers_.fetch_sub(1);
        }
        if (quit_.load()) return;
        seen = generation_.load();
        job = job_;
        n = count_;
        if (job) inflight_.fetch_add(1);
      }
      if (!job) continue;
      take(*job, n);
      inflight_.fetch_sub(1);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0}, done_{0}, inflight_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> quit_{false};
};

}  // namespace game
