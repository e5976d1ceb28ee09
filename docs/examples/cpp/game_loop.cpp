// A game loop that ticks its agents on the game's own threads: tick_all(dt, executor) over a
// small thread pool, native leaves over the game's own data, blackboard values at spawn, time
// slicing for the agents far from the camera, a spawn from a leaf during a tick, and hot reload.
//
// Build (from the repository root, after building the library):
//   g++ -std=c++20 -Iruntime/include docs/examples/cpp/game_loop.cpp build/libthicket_core.a
//       -lyaml-cpp -pthread -o /tmp/game_loop && /tmp/game_loop
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "thicket/runtime.hpp"

// A fixed set of helper threads that run the jobs of one call at a time, together with the
// calling thread: the smallest job system that fits thicket::Executor.
class JobPool {
 public:
  explicit JobPool(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this] { help(); });
  }
  ~JobPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  // Runs job(0) .. job(n - 1), each once, and returns when all have returned.
  void run(size_t n, const std::function<void(size_t)>& job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      count_ = n;
      next_ = 0;
      busy_ = threads_.size();
      ++round_;
    }
    wake_.notify_all();
    work();  // this thread takes jobs too
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
  }

 private:
  void work() {
    for (size_t i; (i = next_.fetch_add(1)) < count_;) (*job_)(i);
  }
  void help() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return quit_ || round_ != seen; });
        if (quit_) return;
        seen = round_;
      }
      work();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0, busy_ = 0;
  std::atomic<size_t> next_{0};
  uint64_t round_ = 0;
  bool quit_ = false;
};

namespace {

constexpr int kGrazers = 1000;
constexpr int kFrames = 60;
constexpr double kDt = 0.1;       // seconds per frame
constexpr uint32_t kFawn = 2000;  // the id agent 5 gives the fawn it spawns

// The game's side of the grazers. `thinks` is indexed by agent id and sized before the first
// frame: during a tick each agent's leaves write only their own entry, and nobody resizes it.
struct Game {
  thicket::Runtime* rt = nullptr;
  thicket::BrainHandle grazer;
  uint32_t hunger = 0, meals = 0;  // blackboard slots, resolved after loading
  std::vector<uint32_t> thinks;    // leaf calls per agent
};

void register_leaves(thicket::Runtime& rt, Game& game) {
  using thicket::LeafContext;
  using thicket::Status;
  thicket::NativeLeaf graze;
  graze.tick = [&game](LeafContext& c) {
    ++game.thinks[c.agent_id()];
    c.set_number(game.hunger, c.get_number(game.hunger) + 1.0 * c.dt());
    return Status::Success;
  };
  rt.register_leaf("Graze", graze);

  thicket::NativeLeaf eat;
  eat.tick = [&game](LeafContext& c) {
    ++game.thinks[c.agent_id()];
    const double hunger = c.get_number(game.hunger) - 2.5 * c.dt();
    if (hunger > 0) {
      c.set_number(game.hunger, hunger);
      return Status::Running;
    }
    c.set_number(game.hunger, 0);
    const double meals = c.get_number(game.meals) + 1;
    c.set_number(game.meals, meals);
    // During tick_all a spawn waits for its end and returns no handle: choose the id.
    if (c.agent_id() == 5 && meals == 1) game.rt->spawn(game.grazer, {{"hunger", 4.5}}, kFawn);
    return Status::Success;
  };
  rt.register_leaf("Eat", eat);
}

void show(thicket::Runtime& rt, const Game& game, thicket::AgentHandle a) {
  const uint32_t id = rt.agent_id(a);
  std::printf("agent %u: every %u, %u leaf calls, hunger %.2f, meals %.0f, %s, running:", id, rt.tick_every(a),
              game.thinks[id], rt.get_number(a, game.hunger), rt.get_number(a, game.meals),
              std::string(thicket::status_name(rt.status(a))).c_str());
  for (const std::string& node : rt.running_nodes(a)) std::printf(" %s", node.c_str());
  std::printf("\n");
}

}  // namespace

int main() {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  thicket::RuntimeOptions options;
  options.seed = 7;
  options.script_states = threads;  // Lua brains on every worker (these leaves are C++)
  options.log = [](const std::string& line) { std::fprintf(stderr, "[ai] %s\n", line.c_str()); };
  thicket::Runtime rt(options);

  Game game;
  game.rt = &rt;
  game.thinks.assign(kFawn + 1, 0);
  register_leaves(rt, game);  // before loading: the loader checks every leaf name

  std::vector<thicket::Diagnostic> diagnostics;
  auto brain = rt.load_file("docs/examples/cpp/grazer.yaml", diagnostics);
  for (const auto& d : diagnostics) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) return 1;
  game.grazer = *brain;
  game.hunger = *rt.blackboard_slot(*brain, "hunger");
  game.meals = *rt.blackboard_slot(*brain, "meals");

  // Spawn: hunger from 0 to 4 at the start. Grazers more than 50 m from the camera think on
  // every 4th frame only (the AI's level of detail).
  for (int i = 0; i < kGrazers; ++i) {
    thicket::AgentHandle a = rt.spawn(*brain, {{"hunger", double(i % 5)}});
    const double distance = double((i * 37) % 100);
    if (distance > 50) rt.set_tick_every(a, 4);
  }

  JobPool pool(threads - 1);
  const thicket::Executor executor = [&pool](size_t n, const std::function<void(size_t)>& job) {
    pool.run(n, job);
  };
  std::optional<thicket::AgentHandle> fawn;
  for (int frame = 1; frame <= kFrames; ++frame) {
    rt.reload_changed();  // files edited since the last frame; a failed reload keeps the old version
    // ... the game moves the world here ...
    rt.tick_all(kDt, executor);
    if (!fawn && (fawn = rt.find_agent(kFawn)))
      std::printf("frame %d: agent %u was spawned during this frame's tick_all\n", frame, kFawn);
  }

  std::printf("%zu agents after %d frames (%.1f s)\n", rt.agent_count(), kFrames, kFrames * kDt);
  for (uint32_t id : {1u, 3u, 5u, kFawn}) show(rt, game, *rt.find_agent(id));
  return 0;
}
