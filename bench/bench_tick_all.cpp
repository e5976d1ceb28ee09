// bench_tick_all: tick_all(dt, executor) on the game's threads (SPEC 8.2, issue 17), beside
// tick_all(dt) in the same run; and time slicing's frame costs.
//
// Brains: T31 (the 31-node tree of bench_t31, leaves a pure function of tick + agent id) with
// native leaves and with Lua leaves, and the guard example (scripts/examples/guard: Lua leaves
// with state, hooks and checks). The executor is a small job system of the kind a game has:
// persistent worker threads that take job indices from an atomic counter; the calling thread
// works too. For Lua brains the runtime gets as many script states as the executor has threads.
//
// Printed per brain and agent count: ns per agent-tick of tick_all(dt), then for 1, 2, 4, 8 and
// 16 threads ns per agent-tick, the speed-up over tick_all(dt) and the efficiency (speed-up /
// threads; above the machine's core count it can only fall). Time slicing: 10k agents with
// tick_every k = 1, 2, 5, 10: the mean frame, the worst frame, worst / mean (a stutter would
// show as a worst frame far above the mean), and the mean beside the k = 1 row's divided by k
// (what skipping the other phases' agents costs). `--slicing` prints that table alone.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "runtime_impl.hpp"
#include "thicket/runtime.hpp"

namespace {

using thicket::LeafContext;
using thicket::Status;

// ---- a job system: persistent threads, jobs taken from an atomic counter ----
class JobSystem {
 public:
  explicit JobSystem(unsigned threads) {
    for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { loop(); });
  }
  ~JobSystem() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      published_.store(~uint64_t{0}, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }
  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void run(size_t n, const std::function<void(size_t)>& job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      n_ = n;
      next_ = 0;
      done_ = 0;
      ++generation_;
      published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_ == n_; });
    job_ = nullptr;
  }
  thicket::Executor executor() {
    return [this](size_t n, const std::function<void(size_t)>& job) { run(n, job); };
  }

 private:
  void work() {
    size_t finished = 0;
    for (size_t i; (i = next_.fetch_add(1)) < n_;) {
      (*job_)(i);
      ++finished;
    }
    if (finished > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ += finished;
      if (done_ == n_) finished_.notify_all();
    }
  }
  // A worker spins a little for the next frame's jobs before it sleeps, as game job systems
  // do: waking a sleeping thread costs tens of microseconds, a tenth of a 10k-agent frame.
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      for (int spin = 0; spin < 4000 && published_.load(std::memory_order_acquire) == seen; ++spin)
        std::this_thread::yield();  // yields: more threads than cores must not starve the others
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work();
    }
  }
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t n_ = 0, done_ = 0;
  std::atomic<size_t> next_{0};
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_{0};
  bool stop_ = false;
};

// ---- T31 ----
constexpr int kConds = 6, kActs = 15;
std::string t31_yaml(bool lua) {
  std::string y = "tree: t31\n";
  if (lua) y += "leaves: [t31.lua]\n";
  y += "root:\n  active_selector:\n";
  for (int b = 0; b < 3; ++b) {
    y += "    - sequence:\n";
    for (int j = 0; j < 2; ++j) y += "        - condition: C" + std::to_string(2 * b + j) + "\n";
    y += "        - selector:\n";
    for (int k = 0; k < 3; ++k) y += "            - action: A" + std::to_string(5 * b + k) + "\n";
    y += "        - sequence:\n";
    for (int k = 3; k < 5; ++k) y += "            - action: A" + std::to_string(5 * b + k) + "\n";
  }
  return y;
}
// Condition j fails one tick in mask+1; action k runs a tick or two, sometimes fails.
constexpr uint32_t kCondMask[kConds] = {7, 3, 15, 7, 3, 7};
constexpr uint32_t kActMask[kActs] = {3, 7, 3, 3, 1, 7, 3, 3, 1, 3, 3, 7, 3, 1, 3};
std::string t31_lua() {
  std::string s = "local thicket = require('thicket')\nlocal S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING\nlocal L = {}\n";
  for (int j = 0; j < kConds; ++j)
    s += "function L.C" + std::to_string(j) + "(agent) return (thicket.tick() + agent.id + " + std::to_string(j) +
         ") & " + std::to_string(kCondMask[j]) + " ~= 0 end\n";
  for (int k = 0; k < kActs; ++k)
    s += "function L.A" + std::to_string(k) + "(agent) local v = (((thicket.tick() + agent.id) >> 1) + " +
         std::to_string(k) + ") & " + std::to_string(kActMask[k]) +
         "\n  if v == 0 then return R elseif v == 2 then return F else return S end end\n";
  return s + "return L\n";
}
void register_t31(thicket::Runtime& rt) {
  for (int j = 0; j < kConds; ++j) {
    thicket::NativeLeafFn f;
    f.user = reinterpret_cast<void*>(static_cast<uintptr_t>(j));
    f.tick = [](LeafContext& c, void* u) {
      const auto j = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(u));
      return ((c.tick() + c.agent_id() + j) & kCondMask[j]) != 0 ? Status::Success : Status::Failure;
    };
    rt.register_leaf(std::string(1, 'C').append(std::to_string(j)), f);  // not "C" + ...: gcc 12's false -Wrestrict
  }
  for (int k = 0; k < kActs; ++k) {
    thicket::NativeLeafFn f;
    f.user = reinterpret_cast<void*>(static_cast<uintptr_t>(k));
    f.tick = [](LeafContext& c, void* u) {
      const auto k = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(u));
      const uint64_t v = (((c.tick() + c.agent_id()) >> 1) + k) & kActMask[k];
      return v == 0 ? Status::Running : v == 2 ? Status::Failure : Status::Success;
    };
    rt.register_leaf(std::string(1, 'A').append(std::to_string(k)), f);  // not "A" + ...: gcc 12's false -Wrestrict
  }
}

enum class Brain { T31Native, T31Lua, Guard };
const char* brain_name(Brain b) {
  return b == Brain::T31Native ? "T31 native" : b == Brain::T31Lua ? "T31 Lua" : "guard (Lua)";
}

std::unique_ptr<thicket::Runtime> make_world(Brain brain, size_t agents, uint32_t states, const bench::TempDir& dir,
                                             uint32_t every = 1) {
  thicket::RuntimeOptions o;
  o.script_states = states;
  o.log = [](const std::string&) {};
  auto rt = std::make_unique<thicket::Runtime>(o);
  rt->impl().print_sink = [](const std::string&) {};  // the guard's story is not what is timed
  std::vector<thicket::Diagnostic> d;
  std::optional<thicket::BrainHandle> b;
  if (brain == Brain::T31Native) {
    register_t31(*rt);
    b = rt->load_string(t31_yaml(false), "t31.yaml", d);
  } else if (brain == Brain::T31Lua) {
    b = rt->load_file(dir / "t31.yaml", d);
  } else {
    b = rt->load_file(std::string(THICKET_SOURCE_DIR) + "/scripts/examples/guard/guard.yaml", d);
  }
  if (!b) bench::fail_load(d);
  for (size_t i = 0; i < agents; ++i) {
    auto a = rt->spawn(*b);
    if (every > 1) rt->set_tick_every(a, every);
  }
  return rt;
}

// ns per agent-tick of `ticks` calls after `warm` untimed ones, median of 3 rounds.
template <class Tick>
double per_agent_tick(thicket::Runtime& rt, size_t agents, int warm, int ticks, Tick tick) {
  for (int t = 0; t < warm; ++t) tick(rt);
  std::vector<double> rounds;
  for (int r = 0; r < 3; ++r)
    rounds.push_back(bench::time_ns([&] {
                       for (int t = 0; t < ticks; ++t) tick(rt);
                     }) /
                     (static_cast<double>(ticks) * static_cast<double>(agents)));
  return bench::median_of(rounds);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const bool slicing_only = argc > 1 && std::string(argv[1]) == "--slicing";  // the last table alone
  bench::TempDir dir("tick_all");
  dir.write("t31.yaml", t31_yaml(true));
  dir.write("t31.lua", t31_lua());
  std::printf("bench_tick_all: tick_all(dt, executor) on a job system of N threads vs tick_all(dt), same run\n");
  std::printf("machine: %u hardware threads, load average %s\n", std::thread::hardware_concurrency(),
              bench::load_average().c_str());
  const std::vector<unsigned> thread_counts = quick ? std::vector<unsigned>{1, 2} : std::vector<unsigned>{1, 2, 4, 8, 16};
  const std::vector<size_t> sizes = quick ? std::vector<size_t>{1000} : std::vector<size_t>{1000, 10000, 100000};
  bool all_match = true;
  for (Brain brain : {Brain::T31Native, Brain::T31Lua, Brain::Guard}) {
    if (slicing_only) break;
    for (size_t n : sizes) {
      if (brain != Brain::T31Native && n > 10000 && quick) continue;
      // Fewer ticks for the big, slow configurations; the budget is ~2 s of ticking per row.
      const double guess_ns = brain == Brain::T31Native ? 40.0 : 600.0;
      const int ticks = std::max(3, std::min(200, static_cast<int>(2e8 / (guess_ns * static_cast<double>(n)))));
      auto serial_rt = make_world(brain, n, 1, dir);
      const double serial = per_agent_tick(*serial_rt, n, 2, ticks, [](thicket::Runtime& rt) { rt.tick_all(0.1); });
      std::printf("\n%s, %zu agents: tick_all(dt) %.1f ns per agent-tick (%d ticks timed)\n", brain_name(brain), n,
                  serial, ticks);
      std::printf("  threads  ns/agent-tick  speed-up  efficiency\n");
      for (unsigned threads : thread_counts) {
        JobSystem jobs(threads);
        const auto ex = jobs.executor();
        auto rt = make_world(brain, n, brain == Brain::T31Native ? 1 : threads, dir);
        const double ns = per_agent_tick(*rt, n, 2, ticks, [&](thicket::Runtime& r) { r.tick_all(0.1, ex); });
        std::printf("  %7u  %13.1f  %8.2fx  %9.0f%%\n", threads, ns, serial / ns, 100.0 * serial / ns / threads);
        // Same statuses as the serial world after the same number of ticks.
        auto a = serial_rt->agents(), b = rt->agents();
        bool same = a.size() == b.size();
        for (size_t i = 0; same && i < a.size(); ++i) same = serial_rt->status(a[i]) == rt->status(b[i]);
        all_match = all_match && same;
      }
    }
  }
  // Time slicing: 10k T31 native agents (and guard), 100 frames, tick_every k.
  std::printf("\ntime slicing, 10000 agents, 100 frames of tick_all(dt) (2 thread job system in the last column)\n");
  std::printf("  brain         k  mean frame us  worst frame us  worst/mean  vs k=1's / k  mean frame us (2 threads)\n");
  for (Brain brain : {Brain::T31Native, Brain::Guard}) {
    double unsliced = 0;  // the k = 1 row's mean frame: k = 2, 5, 10 would ideally take 1/k of it
    for (uint32_t k : {1u, 2u, 5u, 10u}) {
      auto rt = make_world(brain, 10000, 1, dir, k);
      for (int t = 0; t < 10; ++t) rt->tick_all(0.1);
      std::vector<double> frames;
      for (int t = 0; t < (quick ? 20 : 100); ++t) frames.push_back(bench::time_ns([&] { rt->tick_all(0.1); }) / 1e3);
      double mean = 0, worst = 0;
      for (double f : frames) {
        mean += f / static_cast<double>(frames.size());
        worst = std::max(worst, f);
      }
      JobSystem jobs(2);
      const auto ex = jobs.executor();
      auto prt = make_world(brain, 10000, 2, dir, k);
      for (int t = 0; t < 10; ++t) prt->tick_all(0.1, ex);
      double pmean = 0;
      const int pframes = quick ? 20 : 100;
      for (int t = 0; t < pframes; ++t) pmean += bench::time_ns([&] { prt->tick_all(0.1, ex); }) / 1e3 / pframes;
      if (k == 1) unsliced = mean;
      std::printf("  %-12s %2u  %13.1f  %14.1f  %10.2f  %11.2fx  %13.1f\n", brain_name(brain), k, mean, worst, worst / mean,
                  mean / (unsliced / k), pmean);
    }
  }
  bench::consistency(all_match, "every threaded world ends its ticks with the statuses of the tick_all(dt) world");
  return 0;
}
