// thicket-game's simulation: one level, the player, and the guards, whose brains thicket runs.
// No drawing and no clock here: step() advances one fixed frame, so a run is the same every
// time (main.cpp paces it for a person, draw.cpp draws it).
//
// Each frame (step): (1) thicket's hot reload is polled: a saved mod file changes the guards
// from this frame on; (2) the player moves (keyboard or the scripted autoplay) and, running,
// makes a noise; (3) perception (thicket::perception) senses for every guard, with the senses
// its brain asked for on the frame before; what it perceives goes into the guard's blackboard
// and becomes events (seen, lost_sight, heard); (4) thicket ticks every guard's brain
// (tick_all on the game's threads); the native leaf MoveTo walks a guard along thicket's paths
// (thicket::nav); (5) a guard within reach of the player catches it; the player on the exit escapes.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jobs.hpp"
#include "level.hpp"
#include "thicket/navigator.hpp"
#include "thicket/perception.hpp"
#include "thicket/runtime.hpp"
#include "thicket/world.hpp"

namespace game {

using thicket::world::Vec2;

constexpr double kDt = 1.0 / 30.0;      // seconds per frame (fixed step)
constexpr double kCatchReach = 0.7;     // m: a guard this close catches the player
constexpr double kPlayerRadius = 0.3;   // m
constexpr double kWalkSpeed = 2.2;      // m/s
constexpr double kRunSpeed = 3.6;       // m/s
constexpr double kStepLoudness = 4.0;   // a running step's sound at 1 m
constexpr double kStepEvery = 0.3;      // s between running steps

enum class Outcome { Playing, Escaped, Caught };
const char* outcome_name(Outcome outcome);

struct Input {
  Vec2 move;          // a direction (any length; zero: stand)
  bool run = false;
};

// The blackboard slots the game reads and writes (guard.yaml's keys), looked up after every
// load and reload. kNone when the brain does not declare the key as the game needs it.
struct Slots {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t x = kNone, y = kNone, last_x = kNone, last_y = kNone, goal_x = kNone, goal_y = kNone,
           speed = kNone, sight_range = kNone, sight_angle = kNone, hearing = kNone, look = kNone,
           sees_player = kNone;
};

struct Guard {
  uint32_t id = 0;                       // agent id in thicket and in perception (2, 3, ...)
  thicket::AgentHandle agent;
  thicket::world::EntityId entity;
  Vec2 position, heading{1, 0};
  std::vector<thicket::nav::Cell> route;
  thicket::perception::Senses senses;    // the perception manager points at it
  // MoveTo's walk: the planned path and where it was planned to.
  std::vector<Vec2> path;
  size_t next = 0;
  Vec2 planned_goal;
  double planned_at = -1e9;
  bool has_path = false;
  double steps = 0;                      // metres walked (for the log)
};

struct Options {
  std::string mods;                  // folder with guard.yaml and guard.lua
  int threads = 2;
  uint64_t seed = 1;
  int extra_guards = 0;              // --bench: this many guards at random cells instead of the level's
  bool no_catch = false;             // --bench: guards never catch the player (the run goes on)
  double leaf_timeout = 0.01;        // --leaf-timeout: RuntimeOptions::leaf_timeout
  long lua_memory_mb = 512;          // --lua-memory: RuntimeOptions::lua_memory_limit, in MiB (0: none)
  uint64_t budget = 100'000;         // --budget: RuntimeOptions::instruction_budget (0: none)
};

// A mod file's trouble as the screen shows it.
struct ModMessage {
  std::string file;
  std::vector<std::string> lines;  // every error of the file: "FILE:LINE:COL: error: message"
};

class Game {
 public:
  explicit Game(Options options);
  ~Game();

  // Loads the guards' brain into a fresh runtime (at start-up, and again at each restart: R,
  // Tab), and a level, spawning its guards. false with `error` set (every problem, one per
  // line) when either fails; a failed load_brain leaves the runtime that ran (none at first).
  bool load_brain(std::string& error);
  bool start_level(const Level& level, std::string& error);

  void step(const Input& input);
  // Reloads the mod files that changed (step does it first; main calls it when no frame is
  // stepped: paused, caught, escaped).
  void poll_mods();
  // The scripted player (--autoplay): walks the shortest way to the exit, running while a guard
  // is near.
  Input autoplay();

  // Reads for drawing, the debugger and the log.
  const Level& level() const { return *level_; }
  const std::vector<Guard>& guards() const { return guards_; }
  Vec2 player() const { return player_; }
  Outcome outcome() const { return outcome_; }
  uint32_t caught_by() const { return caught_by_; }
  uint64_t frame() const { return frame_; }
  double time() const { return double(frame_) * kDt; }
  const std::vector<ModMessage>& mod_errors() const { return mod_errors_; }
  // A level that did not load (R, Tab): its errors, shown with the mods' (none: cleared).
  void show_level_error(const std::vector<std::string>& lines);
  // Why a restart's fresh load of the mod failed (load_brain's error text), shown until one loads.
  void show_restart_error(const std::string& error);
  // Reloads done in the frame just stepped ("guard.lua reloaded"), and which failed.
  const std::vector<thicket::ReloadReport>& reloads() const { return reloads_; }
  thicket::Runtime& runtime() { return *rt_; }
  const thicket::Runtime& runtime() const { return *rt_; }
  thicket::BrainHandle brain() const { return brain_; }
  const thicket::perception::Manager& perception() const { return *perception_; }
  const Slots& slots() const { return slots_; }
  const Guard* guard(uint32_t id) const;
  // The guard's active states, outermost first ("duty", "calm", "patrol").
  std::vector<std::string> states_of(const Guard& g) const;
  double number(const Guard& g, uint32_t slot) const;
  // Seconds spent in perception + thicket's tick in the last step (the benchmark's "AI").
  double ai_seconds() const { return ai_seconds_; }
  double sense_seconds() const { return sense_seconds_; }  // of which perception
  // The last Lua error a leaf raised ("error: FILE:LINE: ..."; the game goes on, the leaf fails
  // for that tick) and the frame it came in (0: none yet).
  const std::string& last_script_error() const { return last_script_error_; }
  uint64_t last_script_error_frame() const { return last_script_error_frame_; }
  // The last error is the game's own report of a mod that broke its rules (a spawn, a despawn),
  // not a Lua error of a leaf.
  bool last_error_is_game() const { return last_error_is_game_; }
  // The run's log lines since the last call (reloads, script errors), oldest first.
  std::vector<std::string> take_log() { return std::exchange(log_, {}); }

  // MoveTo's work for guard `id` (the native leaf; game.cpp).
  thicket::Status move_guard(thicket::LeafContext& c);
  void start_move(thicket::LeafContext& c);

 private:
  std::unique_ptr<thicket::Runtime> make_runtime();
  void resolve_slots();
  void move_player(const Input& input);
  void sense();
  void clear_level();
  void keep_own_agents();
  thicket::AgentHandle spawn_guard(const Guard& g);
  void report_mod(const std::string& line);

  Options options_;
  std::unique_ptr<Jobs> jobs_;
  thicket::Executor executor_;
  std::unique_ptr<thicket::Runtime> rt_;
  thicket::BrainHandle brain_;
  Slots slots_;
  std::string slot_problem_;
  std::vector<ModMessage> mod_errors_;
  std::vector<thicket::ReloadReport> reloads_;
  std::vector<std::string> log_;
  std::string last_script_error_;
  uint64_t last_script_error_frame_ = 0;
  bool last_error_is_game_ = false;

  const Level* level_ = nullptr;
  std::unique_ptr<thicket::world::World> world_;
  std::unique_ptr<thicket::world::SpatialHash> hash_;
  std::unique_ptr<thicket::nav::Walls> walls_;
  std::unique_ptr<thicket::perception::Manager> perception_;
  thicket::nav::NavWorld nav_;
  std::vector<uint32_t> agent_of_slot_;
  std::vector<Guard> guards_;          // by id - 2
  thicket::world::EntityId player_entity_;
  Vec2 player_;
  double next_step_sound_ = 0;
  std::vector<Vec2> player_path_;      // autoplay's way to the exit
  size_t player_next_ = 0;
  Outcome outcome_ = Outcome::Playing;
  uint32_t caught_by_ = 0;
  uint64_t frame_ = 0;
  double ai_seconds_ = 0, sense_seconds_ = 0;
  std::vector<thicket::NodeInfo> nodes_;
};

}  // namespace game
