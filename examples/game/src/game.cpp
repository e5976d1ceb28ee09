#include "game.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

namespace game {

using thicket::AgentHandle;
using thicket::LeafContext;
using thicket::Status;
using thicket::world::EntityId;
namespace nav = thicket::nav;
namespace perception = thicket::perception;

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Playing: return "playing";
    case Outcome::Escaped: return "escaped";
    case Outcome::Caught: return "caught";
  }
  return "?";
}

namespace {

constexpr uint32_t kPlayerId = 1;  // the player's id in perception (guards: 2, 3, ...)
constexpr double kReplanEvery = 0.25;  // s: MoveTo re-plans no oftener when its goal moves
constexpr double kReplanDistance = 0.75;  // m the goal must move to be re-planned

Vec2 centre(nav::Cell c) { return {c.x + 0.5, c.y + 0.5}; }

Status move_to_tick(LeafContext& c, void* user) { return static_cast<Game*>(user)->move_guard(c); }
void move_to_start(LeafContext& c, void* user) { static_cast<Game*>(user)->start_move(c); }

// One path request per thread: MoveTo runs on the game's threads (tick_all with an executor).
nav::PathRequest& path_request() {
  thread_local nav::PathRequest request;
  return request;
}

// The keys the game writes and reads by slot, and whether each is a boolean (else a number).
constexpr std::pair<const char*, bool> kDrivenKeys[] = {
    {"x", false},           {"y", false},           {"last_x", false},      {"last_y", false},
    {"goal_x", false},      {"goal_y", false},      {"speed", false},       {"sight_range", false},
    {"sight_angle", false}, {"hearing", false},     {"look", false},        {"sees_player", true}};

// What the game cannot drive in a version of guard.yaml whose keys have these types ("" when
// nothing): a key it needs missing or of another type. The round each guard is given at
// spawn is text ("x,y x,y ..."): without a `route` key of type string every guard stood still
// without a word (spawn keeps a value only where its type is the declared one).
std::string keys_the_game_lacks(const std::function<std::optional<thicket::ValueType>(const char*)>& type_of) {
  std::string problem;
  auto say = [&](const std::string& what) { problem += (problem.empty() ? "" : "; ") + what; };
  for (const auto& [key, boolean] : kDrivenKeys) {
    const auto type = type_of(key);
    const thicket::ValueType want = boolean ? thicket::ValueType::Boolean : thicket::ValueType::Number;
    if (!type)
      say(std::string("guard.yaml declares no blackboard key '") + key + "' (" + (boolean ? "a boolean" : "a number") +
          ") and the game needs it");
    else if (*type != want)
      say(std::string("guard.yaml's blackboard key '") + key + "' is " + std::string(thicket::value_type_name(*type)) +
          "; the game needs " + (boolean ? "a boolean" : "a number") + " there");
  }
  const auto route = type_of("route");
  if (!route) say("guard.yaml declares no blackboard key 'route' (a string) and the game gives each guard its round there");
  else if (*route != thicket::ValueType::String)
    say("guard.yaml's blackboard key 'route' is " + std::string(thicket::value_type_name(*route)) +
        "; the game gives each guard its round there as text");
  return problem;
}

}  // namespace

Game::Game(Options options) : options_(std::move(options)) {
  jobs_ = std::make_unique<Jobs>(std::max(1, options_.threads));
  executor_ = [this](size_t n, const std::function<void(size_t)>& job) { jobs_->run(n, job); };
}

std::unique_ptr<thicket::Runtime> Game::make_runtime() {
  thicket::RuntimeOptions ro;
  ro.seed = options_.seed;
  ro.script_states = uint32_t(std::max(1, options_.threads));
  ro.leaf_timeout = options_.leaf_timeout;
  // A task's resume may run 100,000 Lua instructions (a guard's does a few hundred): the budget
  // stops a spinning task within a millisecond, and the time limit of a call that the budget
  // counts (100 ns an instruction of it: 10 ms) is no longer than a plain leaf's.
  ro.instruction_budget = options_.budget;  // 100,000 unless --budget says
  ro.lua_memory_limit = size_t(std::max(0L, options_.lua_memory_mb)) << 20;
  ro.log = [this](const std::string& raw) {
    const std::string line = printable(raw);
    log_.push_back(line);
    if (line.rfind("error: ", 0) == 0) {
      last_script_error_ = line.substr(0, line.find('\n'));
      last_script_error_frame_ = frame_;
      last_error_is_game_ = false;
    }
  };
  auto rt = std::make_unique<thicket::Runtime>(std::move(ro));
  // A mod's print: to standard output, as the runtime's own would, without control characters.
  rt->on_print([](const std::string& line) { std::printf("%s\n", printable(line).c_str()); });
  // A reload of guard.yaml that lacks a key the game drives is refused as a broken file is:
  // its reason on screen, the guards going on with the last good version (taken, it stopped
  // every guard).
  rt->on_reload_check([](const thicket::ReloadCandidate& c) {
    return keys_the_game_lacks([&](const char* key) -> std::optional<thicket::ValueType> {
      for (const auto& [name, type] : c.blackboard)
        if (name == key) return type;
      return std::nullopt;
    });
  });
  // The native leaf the brain's trees call to walk: MoveTo (guard.yaml). It touches only its
  // own guard and the map, which no leaf changes (agent_local).
  thicket::NativeLeafFn move{};
  move.tick = move_to_tick;
  move.start = move_to_start;
  move.user = this;
  move.agent_local = true;
  rt->register_leaf("MoveTo", move);
  return rt;
}

Game::~Game() = default;

bool Game::load_brain(std::string& error) {
  // Into a runtime of its own, which replaces the one running only once the mod loads: a
  // failed load leaves the game as it was, a retry (the start-up screen, twice a second) or a
  // restart (R, Tab) leaves no brain behind in it (each kept one: 180 after a minute's wait),
  // and a restart begins with fresh Lua states (a mod that filled the Lua heap could not be
  // fixed by a save, whose compile found no memory left).
  std::vector<thicket::Diagnostic> diags;
  std::string file = (std::filesystem::path(options_.mods) / "guard.yaml").string();
  std::unique_ptr<thicket::Runtime> fresh = make_runtime();
  auto brain = fresh->load_file(file, diags);
  if (!brain) {
    error.clear();
    for (auto& d : diags) error += thicket::format_diagnostic(d) + "\n";
    return false;
  }
  std::string lacks = keys_the_game_lacks([&](const char* key) { return fresh->blackboard_type(*brain, key); });
  if (!lacks.empty()) {  // said as a reload's refusal says it: "FILE: error: ..."
    error = file + ": error: " + lacks + "\n";
    return false;
  }
  if (rt_) clear_level();  // the old runtime's agents go with it
  rt_ = std::move(fresh);
  brain_ = *brain;
  resolve_slots();
  std::erase_if(mod_errors_, [](const ModMessage& m) { return m.file != "(level)"; });  // each loaded
  reloads_.clear();
  last_script_error_.clear();
  last_script_error_frame_ = 0;
  return true;
}

void Game::resolve_slots() {
  nodes_ = rt_->nodes(brain_);  // the brain's node table, for states_of (a reload may change it)
  slot_problem_ = keys_the_game_lacks([&](const char* key) { return rt_->blackboard_type(brain_, key); });
  uint32_t* const slots[] = {&slots_.x,      &slots_.y,           &slots_.last_x,      &slots_.last_y,
                             &slots_.goal_x, &slots_.goal_y,      &slots_.speed,       &slots_.sight_range,
                             &slots_.sight_angle, &slots_.hearing, &slots_.look,       &slots_.sees_player};
  for (size_t k = 0; k < std::size(kDrivenKeys); ++k) {
    const auto [key, boolean] = kDrivenKeys[k];
    const auto type = rt_->blackboard_type(brain_, key);
    const auto slot = rt_->blackboard_slot(brain_, key);
    const bool fits = type && *type == (boolean ? thicket::ValueType::Boolean : thicket::ValueType::Number);
    *slots[k] = slot && fits ? *slot : Slots::kNone;
  }
}

void Game::clear_level() {
  for (thicket::AgentHandle a : rt_->agents()) rt_->despawn(a);  // a mod's spawns too
  guards_.clear();
  perception_.reset();
  hash_.reset();
  walls_.reset();
  world_.reset();
  agent_of_slot_.clear();
  outcome_ = Outcome::Playing;
  caught_by_ = 0;
  frame_ = 0;
  // (The script-error banner is timed in frames: the last level's would stay up.)
  last_script_error_.clear();
  last_script_error_frame_ = 0;
  player_path_.clear();
  player_next_ = 0;
  next_step_sound_ = 0;
}

// The guard's agent, where it stands, its route in its blackboard ("13,12 27,10 ...").
thicket::AgentHandle Game::spawn_guard(const Guard& g) {
  std::ostringstream route;
  for (size_t k = 0; k < g.route.size(); ++k) route << (k ? " " : "") << g.route[k].x << "," << g.route[k].y;
  return rt_->spawn(brain_, {{"route", route.str()}, {"x", g.position.x}, {"y", g.position.y}}, g.id);
}

bool Game::start_level(const Level& level, std::string& error) {
  clear_level();
  level_ = &level;
  const nav::GridMap& map = level.map;
  nav::prepare_search_tables(map);  // no frame pays for the jump tables
  world_ = std::make_unique<thicket::world::World>(map.world_bounds());
  walls_ = std::make_unique<nav::Walls>(std::span<const thicket::world::Obstacle>{}, &map);
  nav_ = nav::NavWorld{};
  nav_.map = &map;
  nav_.walls = *walls_;
  hash_ = std::make_unique<thicket::world::SpatialHash>(4.0);

  // The routes: the level's, or (--bench) random ones over the map's open cells.
  std::vector<std::vector<nav::Cell>> routes = level.routes;
  if (options_.extra_guards > 0) {
    std::vector<nav::Cell> open;
    for (int y = 0; y < map.height(); ++y)
      for (int x = 0; x < map.width(); ++x)
        if (map.passable({x, y})) open.push_back({x, y});
    std::mt19937_64 rng(options_.seed);
    routes.clear();
    for (int i = 0; i < options_.extra_guards; ++i) {
      std::vector<nav::Cell> r;
      for (int k = 0; k < 3; ++k) r.push_back(open[rng() % open.size()]);
      routes.push_back(r);
    }
  }

  thicket::world::Vehicle body;
  body.radius = kPlayerRadius;
  body.max_speed = kRunSpeed;
  player_ = centre(level.player);
  player_entity_ = world_->spawn(player_, body, 1);
  agent_of_slot_.assign(world_->entities().size(), 0);
  agent_of_slot_[player_entity_.index()] = kPlayerId;
  guards_.reserve(routes.size());  // the manager keeps pointers to each guard's senses
  for (size_t i = 0; i < routes.size(); ++i) {
    Guard g;
    g.id = uint32_t(i) + 2;
    g.route = routes[i];
    g.position = centre(routes[i][0]);
    g.entity = world_->spawn(g.position, body, 0);
    g.agent = spawn_guard(g);
    if (!g.agent.valid()) {
      error = "cannot spawn guard " + std::to_string(g.id);
      return false;
    }
    guards_.push_back(std::move(g));
  }
  agent_of_slot_.resize(world_->entities().size(), 0);
  for (Guard& g : guards_) agent_of_slot_[g.entity.index()] = g.id;

  perception_ = std::make_unique<perception::Manager>(*world_, *hash_, walls_.get(), agent_of_slot_, kDt);
  perception_->set_queues(1);
  for (Guard& g : guards_) {
    g.senses.sight.cones = {perception::SightCone{7.0, 40.0 * M_PI / 180.0}};
    g.senses.sight.walls = true;
    g.senses.hearing.enabled = true;
    g.senses.hearing.threshold = 0.06;
    g.senses.hearing.walls = 0.5;
    g.senses.targets = perception::Targets::Enemies;
    g.senses.memory = 3.0;
    perception_->add_sensor(g.id, g.senses);
  }

  // The autoplayed player's way out (the same thicket paths the guards walk).
  nav::PathRequest request;
  if (request.find(nav_, player_, centre(level.exit)) == nav::SearchState::Found)
    player_path_.assign(request.points().begin(), request.points().end());
  return true;
}

const Guard* Game::guard(uint32_t id) const {
  if (id < 2 || id - 2 >= guards_.size()) return nullptr;
  return &guards_[id - 2];
}

double Game::number(const Guard& g, uint32_t slot) const {
  return slot == Slots::kNone ? std::nan("") : rt_->get_number(g.agent, slot);
}

std::vector<std::string> Game::states_of(const Guard& g) const {
  std::vector<std::string> out;
  std::string statuses;
  rt_->node_statuses(g.agent, statuses);
  for (size_t i = 0; i < nodes_.size() && i < statuses.size(); ++i)
    if (nodes_[i].kind == "state" && statuses[i] == 'R') out.push_back(nodes_[i].id);
  return out;
}

// ---- One frame ----

void Game::poll_mods() {
  reloads_.clear();
  if (rt_->reload_changed(&reloads_) == 0 && reloads_.empty()) return;
  auto take = [&](const std::vector<thicket::ReloadReport>& reports) {
    for (const auto& r : reports) {
      // A file that loads clears its message; one that fails shows its first error (the old
      // version goes on running).
      std::erase_if(mod_errors_, [&](const ModMessage& m) { return m.file == r.file; });
      if (r.ok) continue;
      ModMessage m{r.file, {}};
      for (const thicket::Diagnostic& d : r.diagnostics)
        if (d.severity == thicket::Severity::Error) m.lines.push_back(thicket::format_diagnostic(d));
      if (m.lines.empty()) m.lines.push_back(r.first_error);
      // A mod that filled the Lua heap leaves no room to compile its fix: a restart does.
      if (r.first_error.find("the Lua heap reached its cap") != std::string::npos)
        m.lines.push_back("(the Lua heap is full: fix the file, save it, then press R to restart the level with the "
                          "mod as saved, in fresh Lua states)");
      if (r.first_error.find("restart the run to change kinds") != std::string::npos)
        m.lines.push_back("(press R: the level restarts with the brain as saved)");
      mod_errors_.push_back(std::move(m));
    }
  };
  take(reloads_);
  // A file refused because of another (guard.lua's leaf renamed while guard.yaml still named
  // it) may load now that the other has: tried again once, so that its message does not stay
  // up over a game that runs fine until the file is saved again.
  if (std::any_of(reloads_.begin(), reloads_.end(), [](const auto& r) { return r.ok; })) {
    std::vector<std::string> failed;
    for (const ModMessage& m : mod_errors_)
      if (m.file != "(blackboard)" && m.file != "(level)" && m.file != "(restart)" &&
          std::none_of(reloads_.begin(), reloads_.end(), [&](const auto& r) { return r.file == m.file; }))
        failed.push_back(m.file);
    if (!failed.empty()) {
      std::vector<thicket::ReloadReport> again;
      rt_->reload_files(failed, &again);
      take(again);
      reloads_.insert(reloads_.end(), again.begin(), again.end());
    }
  }
  resolve_slots();
  std::erase_if(mod_errors_, [](const ModMessage& m) { return m.file == "(blackboard)"; });
  if (!slot_problem_.empty()) mod_errors_.push_back({"(blackboard)", {slot_problem_}});
}

void Game::show_restart_error(const std::string& error) {
  ModMessage m{"(restart)", {}};
  std::istringstream in(error);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) m.lines.push_back(line);
  std::erase_if(mod_errors_, [](const ModMessage& x) { return x.file == "(restart)"; });
  mod_errors_.push_back(std::move(m));
}

void Game::show_level_error(const std::vector<std::string>& lines) {
  std::erase_if(mod_errors_, [](const ModMessage& m) { return m.file == "(level)"; });
  if (!lines.empty()) mod_errors_.push_back({"(level)", lines});
}

void Game::move_player(const Input& input) {
  double length = input.move.length();
  if (length < 1e-9) return;
  double speed = input.run ? kRunSpeed : kWalkSpeed;
  Vec2 step = input.move / length * (speed * kDt);
  const nav::GridMap& map = level_->map;
  // A square body: each axis moves on its own and stops at walls, so the player slides along them.
  auto free = [&](Vec2 p) {
    for (double dx : {-kPlayerRadius, kPlayerRadius})
      for (double dy : {-kPlayerRadius, kPlayerRadius})
        if (!map.passable(map.cell_at({p.x + dx, p.y + dy}))) return false;
    return true;
  };
  Vec2 p = player_;
  if (free({p.x + step.x, p.y})) p.x += step.x;
  if (free({p.x, p.y + step.y})) p.y += step.y;
  player_ = p;
  if (input.run) {
    if (time() >= next_step_sound_) {
      perception_->emit_sound(0, player_, kStepLoudness, kDt, kPlayerId);
      next_step_sound_ = time() + kStepEvery;
    }
  }
}

void Game::sense() {
  // The world as it stands at the frame's start: bodies where they are, the senses each brain
  // asked for on its last tick.
  for (thicket::world::Entity& e : world_->entities()) {
    if (!e.alive) continue;
    uint32_t id = agent_of_slot_[e.id.index()];
    if (id == kPlayerId) {
      e.position = player_;
    } else if (const Guard* g = guard(id)) {
      e.position = g->position;
      e.heading = g->heading;
    }
  }
  for (Guard& g : guards_) {
    double range = number(g, slots_.sight_range), angle = number(g, slots_.sight_angle),
           hearing = number(g, slots_.hearing);
    if (std::isfinite(range) && range > 0) g.senses.sight.cones[0].range = std::min(range, 1000.0);
    if (std::isfinite(angle) && angle > 0) g.senses.sight.cones[0].half_angle = std::min(angle, 180.0) * M_PI / 180.0;
    if (std::isfinite(hearing) && hearing > 0) g.senses.hearing.threshold = hearing;
  }
  hash_->rebuild(*world_);
  perception_->begin_tick(frame_);
  // In chunks of 256 guards (~0.1 ms): smaller ones would cost more in handing out than sensing.
  constexpr size_t kChunk = 256;
  jobs_->run((guards_.size() + kChunk - 1) / kChunk, [this](size_t chunk) {
    for (size_t i = chunk * kChunk; i < std::min(guards_.size(), (chunk + 1) * kChunk); ++i) perception_->sense(guards_[i].id);
  });
  // What each guard perceived goes into its blackboard, and becomes events.
  for (Guard& g : guards_) {
    bool sees = false, heard = false;
    Vec2 last{number(g, slots_.last_x), number(g, slots_.last_y)};
    for (const perception::Percept& p : perception_->percepts(g.id)) {
      if (p.sense == perception::Sense::Sight && p.kind == perception::Kind::Agent && p.id == kPlayerId) {
        if (p.phase == perception::Phase::Exit) {
          rt_->send(g.agent, "lost_sight");
        } else {
          sees = true;
          last = p.position;
          if (p.phase == perception::Phase::Enter) rt_->send(g.agent, "seen");
        }
      } else if (p.sense == perception::Sense::Hearing && p.id == kPlayerId && p.phase == perception::Phase::Enter) {
        if (!heard) last = p.position;
        heard = true;
      }
    }
    if (heard && !sees) rt_->send(g.agent, "heard");
    if (slots_.sees_player != Slots::kNone) rt_->set_bool(g.agent, slots_.sees_player, sees);
    if (slots_.last_x != Slots::kNone && std::isfinite(last.x)) rt_->set_number(g.agent, slots_.last_x, last.x);
    if (slots_.last_y != Slots::kNone && std::isfinite(last.y)) rt_->set_number(g.agent, slots_.last_y, last.y);
    if (slots_.x != Slots::kNone) rt_->set_number(g.agent, slots_.x, g.position.x);
    if (slots_.y != Slots::kNone) rt_->set_number(g.agent, slots_.y, g.position.y);
  }
}

void Game::step(const Input& input) {
  if (!level_) return;
  ++frame_;
  poll_mods();
  if (outcome_ != Outcome::Playing) return;
  move_player(input);
  auto t0 = std::chrono::steady_clock::now();  // the benchmark's figure only; nothing depends on it
  sense();
  auto t1 = std::chrono::steady_clock::now();
  const uint64_t errors_before = rt_->script_errors();
  rt_->tick_all(kDt, executor_);
  // A leaf that fails every tick is printed a few times, then only counted (the runtime keeps a
  // log readable): its error stays on screen while the count grows, not five seconds after its
  // last printed line.
  if (rt_->script_errors() > errors_before && !last_script_error_.empty()) last_script_error_frame_ = frame_;
  keep_own_agents();
  auto t2 = std::chrono::steady_clock::now();
  sense_seconds_ = std::chrono::duration<double>(t1 - t0).count();
  ai_seconds_ = std::chrono::duration<double>(t2 - t0).count();
  // Heads: a guard looking round turns to its brain's `look`; otherwise it faces where it walks.
  for (Guard& g : guards_) {
    double look = number(g, slots_.look);
    if (std::isfinite(look) && look >= 0) g.heading = {std::cos(look * M_PI / 180.0), std::sin(look * M_PI / 180.0)};
  }
  for (const Guard& g : guards_) {
    if (options_.no_catch) break;
    if (thicket::world::distance(g.position, player_) <= kCatchReach) {
      outcome_ = Outcome::Caught;
      caught_by_ = g.id;
      return;
    }
  }
  if (level_->map.cell_at(player_) == level_->exit) outcome_ = Outcome::Escaped;
}

// The guards are the level's: a mod script may call thicket.spawn and thicket.despawn (the
// sandbox has them), but an agent the game did not spawn has no body, and a guard without its
// agent would stand frozen. After each tick: the first are despawned, then the second spawned
// again where they stand (with their route: they start their brain afresh). Either is reported.
// In that order: a mod that despawned a guard and spawned an agent with its id had the guard's
// respawn refused (the id in use) and the stranger kept as the guard's brain, told "spawned
// again" each frame.
void Game::keep_own_agents() {
  bool lost = false;
  for (const Guard& g : guards_) lost = lost || rt_->agent_id(g.agent) != g.id;
  if (lost || rt_->agent_count() != guards_.size()) {
    // Each said, up to 3 a frame, then how many more (a mod spawning 1,000 a frame printed
    // 6,000 lines a frame).
    constexpr size_t kSaid = 3;
    size_t strangers = 0;
    for (thicket::AgentHandle a : rt_->agents()) {
      const uint32_t id = rt_->agent_id(a);
      const Guard* g = guard(id);
      if (g && g->agent.index == a.index && g->agent.generation == a.generation) continue;
      rt_->despawn(a);
      if (++strangers <= kSaid)
        report_mod("error: a mod spawned agent " + std::to_string(id) +
                   " (thicket.spawn): the guards are the level's, so the game despawned it");
    }
    if (strangers > kSaid)
      report_mod("error: ... and " + std::to_string(strangers - kSaid) + " more agents a mod spawned this frame, despawned");
  }
  for (Guard& g : guards_) {
    if (rt_->agent_id(g.agent) == g.id) continue;
    g.agent = spawn_guard(g);
    g.has_path = false;
    report_mod(rt_->agent_id(g.agent) == g.id
                   ? "error: a mod despawned guard " + std::to_string(g.id) +
                         " (thicket.despawn): the guards are the level's, so the game spawned it again where it stood"
                   : "error: a mod despawned guard " + std::to_string(g.id) +
                         " (thicket.despawn), and the game could not spawn it again (the log says why)");
  }
}

void Game::report_mod(const std::string& raw) {
  const std::string line = printable(raw);
  log_.push_back(line);
  last_script_error_ = line;
  last_script_error_frame_ = frame_;
  last_error_is_game_ = true;
}

Input Game::autoplay() {
  Input in;
  // Every second it plans again with thicket's tactical paths: each guard, and the ground just
  // ahead of it, is a danger zone that the way out goes round when it can.
  if (frame_ % 30 == 0 || player_next_ >= player_path_.size()) {
    std::vector<nav::DangerZone> danger;
    for (const Guard& g : guards_) {
      danger.push_back({g.position, 3.0, 40.0});
      danger.push_back({g.position + g.heading * 3.0, 3.0, 40.0});
    }
    nav::PathOptions options;
    options.danger = danger;
    nav::PathRequest request;
    if (request.find(nav_, player_, centre(level_->exit), options) == nav::SearchState::Found) {
      player_path_.assign(request.points().begin(), request.points().end());
      player_next_ = 1;
    }
  }
  while (player_next_ < player_path_.size() && thicket::world::distance(player_, player_path_[player_next_]) < 0.15)
    ++player_next_;
  if (player_next_ >= player_path_.size()) return in;
  in.move = player_path_[player_next_] - player_;
  // Runs (and is heard) while a guard is close behind; walks quietly otherwise.
  for (const Guard& g : guards_)
    if (thicket::world::distance(g.position, player_) < 4.0) in.run = true;
  // The last bit of a waypoint: no overshoot past it.
  double speed = in.run ? kRunSpeed : kWalkSpeed;
  double d = in.move.length();
  if (d < speed * kDt) in.move = in.move * (d / (speed * kDt));
  return in;
}

// ---- The native leaf MoveTo ----

void Game::start_move(LeafContext& c) {
  uint32_t id = c.agent_id();  // an agent a mod spawned is no guard (see keep_own_agents)
  if (id < 2 || id - 2 >= guards_.size()) return;
  guards_[id - 2].has_path = false;
}

Status Game::move_guard(LeafContext& c) {
  uint32_t id = c.agent_id();
  if (id < 2 || id - 2 >= guards_.size()) return Status::Failure;
  Guard& g = guards_[id - 2];
  const Slots& s = slots_;
  if (s.goal_x == Slots::kNone || s.goal_y == Slots::kNone || s.speed == Slots::kNone) return Status::Failure;
  Vec2 goal{c.get_number(s.goal_x), c.get_number(s.goal_y)};
  double speed = c.get_number(s.speed);
  if (!std::isfinite(goal.x) || !std::isfinite(goal.y) || !std::isfinite(speed)) return Status::Failure;
  speed = std::clamp(speed, 0.0, 10.0);
  bool moved_goal = thicket::world::distance(goal, g.planned_goal) > kReplanDistance;
  if (!g.has_path || (moved_goal && c.time() - g.planned_at >= kReplanEvery)) {
    nav::PathRequest& request = path_request();
    if (request.find(nav_, g.position, goal) != nav::SearchState::Found) return Status::Failure;
    g.path.assign(request.points().begin(), request.points().end());
    g.next = 1;
    g.planned_goal = goal;
    g.planned_at = c.time();
    g.has_path = true;
  }
  double budget = speed * c.dt();
  while (budget > 0 && g.next < g.path.size()) {
    Vec2 to = g.path[g.next] - g.position;
    double d = to.length();
    if (d > 1e-9) g.heading = to / d;
    if (d <= budget) {
      g.position = g.path[g.next++];
      budget -= d;
      g.steps += d;
    } else {
      g.position += to * (budget / d);
      g.steps += budget;
      budget = 0;
    }
  }
  if (g.next >= g.path.size()) {
    g.has_path = false;
    return Status::Success;
  }
  return Status::Running;
}

}  // namespace game
