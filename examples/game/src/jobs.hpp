// The game's job system: a few worker threads that run the jobs of one call together with the
// calling thread. thicket's tick_all(dt, executor) and the perception pass run on it (SPEC 8.2).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
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
      quit_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  Jobs(const Jobs&) = delete;
  Jobs& operator=(const Jobs&) = delete;

  size_t threads() const { return workers_.size() + 1; }

  // Runs job(i) for every i < n and returns when all have returned.
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
      busy_ = workers_.size();
      ++generation_;
    }
    wake_.notify_all();
    take(job, n);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void take(const std::function<void(size_t)>& job, size_t n) {
    for (size_t i; (i = next_.fetch_add(1)) < n;) job(i);
  }
  void work() {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(size_t)>* job;
      size_t n;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
        if (quit_) return;
        seen = generation_;
        job = job_;
        n = count_;
      }
      take(*job, n);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--busy_ == 0) done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0, busy_ = 0;
  std::atomic<size_t> next_{0};
  uint64_t generation_ = 0;
  bool quit_ = false;
};

}  // namespace game
