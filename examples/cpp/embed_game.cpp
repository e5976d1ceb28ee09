// A game embedding thicket (SPEC 8) with nothing but the public headers: native C++ leaves over
// the game's own world struct, a brain built in code with the fluent builder (no YAML file, no
// Lua), a thousand soldiers with per-agent blackboard overrides, a fixed-step game loop, trace
// events, and a report read back through the runtime's API.
//
// The world: each soldier guards a 20 m stretch of its own lane; an enemy walks in from further
// down the lane at 1 m/s, stops 1.5 m short of the soldier and shoots it from 6 m. A soldier patrols; when the
// enemy comes within 8 m it shoots (reloading after six shots); when its health drops below 30
// it breaks off and retreats, healing, until it is back at 80. A killed enemy respawns further
// away. Time is the sim clock (fixed dt), so the output is the same on every run.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "thicket/builder.hpp"
#include "thicket/runtime.hpp"

namespace {

constexpr int kAgents = 1000;
constexpr int kFrames = 600;
constexpr double kDt = 0.1;             // seconds per frame
constexpr double kSightRange = 8.0;     // metres: the enemy is "near"
constexpr double kContactRange = 1.5;   // metres: the enemy walks no closer
constexpr double kEnemyRange = 6.0;     // metres: the enemy hurts the soldier
constexpr double kEnemySpeed = 1.0;     // m/s
constexpr double kEnemyDps = 8.0;       // health per second while in the enemy's range
constexpr double kShotDamage = 15.0;    // enemy hp per shot; an enemy has 150
constexpr double kPatrolSpeed = 1.5;    // m/s
constexpr double kRetreatSpeed = 2.0;   // m/s
constexpr double kHealPerSecond = 10.0;
constexpr double kHealedAt = 80.0;
constexpr int64_t kMagazine = 6;

// The game's side of each soldier: what the engine, not the AI, owns.
struct Soldier {
  thicket::AgentHandle agent;
  double x = 0;          // position along its lane, metres
  int heading = +1;      // patrol direction
  double enemy_x = 0;    // the lane's enemy
  double enemy_hp = 150;
  int shots = 0, reloads = 0, kills = 0;
};

struct World {
  std::vector<Soldier> soldiers;
  std::vector<uint32_t> soldier_of;  // agent id -> index into soldiers

  Soldier& of(thicket::LeafContext& c) { return soldiers[soldier_of[c.agent_id()]]; }
  void respawn_enemy(Soldier& s, int wave) {
    s.enemy_x = s.x + 20.0 + static_cast<double>((wave * 7 + static_cast<int>(s.x)) % 15);
    s.enemy_hp = 150;
  }
};

// Blackboard slots of the number keys the leaves touch every tick: resolved once after loading,
// so a leaf reads them without a string lookup.
struct Slots {
  uint32_t health = 0;
};

// A leaf with a tick only (no start/stop hooks).
thicket::NativeLeaf ticking(std::function<thicket::Status(thicket::LeafContext&)> tick) {
  thicket::NativeLeaf leaf;
  leaf.tick = std::move(tick);
  return leaf;
}

void register_leaves(thicket::Runtime& rt, World& world, const Slots& slots) {
  using thicket::LeafContext;
  using thicket::Status;

  rt.register_leaf("EnemyNear", ticking([&world](LeafContext& c) {
                     const Soldier& s = world.of(c);
                     return s.enemy_x - s.x <= kSightRange ? Status::Success : Status::Failure;
                   }));

  rt.register_leaf("Patrol", ticking([&world](LeafContext& c) {
                     Soldier& s = world.of(c);
                     s.x += s.heading * kPatrolSpeed * c.dt();
                     if (s.x >= 20.0) s.heading = -1;
                     if (s.x <= 0.0) s.heading = +1;
                     return Status::Running;  // patrolling never ends by itself
                   }));

  // One shot per call; the tree paces them with a Wait. Typed blackboard access by key for the
  // integer keys (ammo, kills); the game's own counters live in the world.
  rt.register_leaf("Shoot", ticking([&world](LeafContext& c) {
                     Soldier& s = world.of(c);
                     thicket::Value ammo, kills;
                     c.get("ammo", ammo);
                     c.set("ammo", std::get<int64_t>(ammo) - 1);
                     ++s.shots;
                     s.enemy_hp -= kShotDamage;
                     if (s.enemy_hp <= 0) {
                       ++s.kills;
                       c.get("kills", kills);
                       c.set("kills", std::get<int64_t>(kills) + 1);
                       world.respawn_enemy(s, s.kills);
                     }
                     return Status::Success;
                   }));

  rt.register_leaf("Refill", ticking([&world](LeafContext& c) {
                     ++world.of(c).reloads;
                     c.set("ammo", kMagazine);
                     return Status::Success;
                   }));

  // Backs off down the lane and heals; the fast path: a number key by slot.
  rt.register_leaf("Retreat", ticking([&world, &slots](LeafContext& c) {
                     Soldier& s = world.of(c);
                     s.x -= kRetreatSpeed * c.dt();
                     double health = c.get_number(slots.health) + kHealPerSecond * c.dt();
                     c.set_number(slots.health, health);
                     return health >= kHealedAt ? Status::Success : Status::Running;
                   }));
}

// The soldier's brain, in the seed's builder style. Named nodes are what running_nodes and the
// trace report.
thicket::TreeBuilder soldier_brain() {
  using thicket::Abort;
  thicket::TreeBuilder b("soldier");
  b.Blackboard("health", 100.0).Blackboard("ammo", kMagazine).Blackboard("kills", int64_t{0});
  b.Selector()
      ->Named("flee")->Sequence(Abort::LowerPriority)
          ->Check("health < 30")
          ->Named("retreat")->Action("Retreat")
      ->Back()
      ->Named("fight")->Sequence(Abort::LowerPriority)
          ->Condition("EnemyNear")
          ->Selector()
              ->Sequence()->Check("ammo > 0")->Named("shoot")->Action("Shoot")->Wait(0.3)->Back()
              ->Named("reload")->Sequence()->Wait(1.0)->Action("Refill")->Back()
          ->Back()
      ->Back()
      ->Named("patrol")->Action("Patrol")
      ->End();
  return b;
}

bool contains(const std::vector<std::string>& ids, const char* id) {
  for (const auto& s : ids)
    if (s == id) return true;
  return false;
}

}  // namespace

int main() {
  thicket::RuntimeOptions options;
  options.seed = 42;  // agents' random streams (unused by these leaves, fixed all the same)
  thicket::Runtime rt(options);
  World world;
  Slots slots;
  register_leaves(rt, world, slots);  // before loading: the loader checks leaf names

  thicket::TreeBuilder brain_builder = soldier_brain();
  std::vector<thicket::Diagnostic> diagnostics;
  auto brain = brain_builder.Load(rt, diagnostics);
  for (const auto& d : diagnostics) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) return 1;
  slots.health = *rt.blackboard_slot(*brain, "health");

  // Spawn: each soldier starts with its own health (a per-agent blackboard override).
  world.soldiers.resize(kAgents);
  for (int i = 0; i < kAgents; ++i) {
    Soldier& s = world.soldiers[i];
    s.x = static_cast<double>(i % 20);
    world.respawn_enemy(s, i);
    s.agent = rt.spawn(*brain, {{"health", 40.0 + 10.0 * (i % 7)}});
    uint32_t id = rt.agent_id(s.agent);
    if (world.soldier_of.size() <= id) world.soldier_of.resize(id + 1);
    world.soldier_of[id] = static_cast<uint32_t>(i);
  }

  // Trace: count agent ticks and explain every conditional abort.
  uint64_t traced_ticks = 0;
  std::map<std::string, int> aborts;
  rt.on_trace([&](const thicket::TraceEvent& e) {
    if (e.type == thicket::TraceEvent::Type::Tick) {
      ++traced_ticks;
      return;
    }
    aborts[e.composite + ": " + e.condition_label + " " + std::string(thicket::status_name(e.from)) + " -> " +
           std::string(thicket::status_name(e.to)) + " interrupts " + e.aborted]++;
  });

  // The game loop: the world moves, then every brain thinks once.
  for (int frame = 1; frame <= kFrames; ++frame) {
    for (Soldier& s : world.soldiers) {
      if (s.enemy_x - s.x > kContactRange) s.enemy_x -= kEnemySpeed * kDt;
      if (s.enemy_x - s.x <= kEnemyRange) {  // the game writes the damage to the blackboard
        double health = std::get<double>(*rt.get(s.agent, "health"));
        rt.set(s.agent, "health", health - kEnemyDps * kDt);
      }
    }
    rt.tick_all(kDt);
  }

  // The report, read back through the API.
  std::map<std::string, int> statuses;
  int fleeing = 0, fighting = 0, patrolling = 0;
  int64_t kills = 0, shots = 0, reloads = 0;
  double health_sum = 0;
  for (const Soldier& s : world.soldiers) {
    statuses[std::string(thicket::status_name(rt.status(s.agent)))]++;
    std::vector<std::string> running = rt.running_nodes(s.agent);
    fleeing += contains(running, "flee");
    fighting += contains(running, "fight");
    patrolling += contains(running, "patrol");
    kills += std::get<int64_t>(*rt.get(s.agent, "kills"));
    health_sum += std::get<double>(*rt.get(s.agent, "health"));
    shots += s.shots;
    reloads += s.reloads;
  }

  std::printf("embed_game: %d soldiers, %d frames at dt %.1f s (%.0f s of sim time), %llu agent ticks traced\n",
              kAgents, kFrames, kDt, kFrames * kDt, static_cast<unsigned long long>(traced_ticks));
  std::printf("statuses after the last frame:");
  for (const auto& [name, n] : statuses) std::printf(" %s %d", name.c_str(), n);
  std::printf("\nbranches running: flee %d, fight %d, patrol %d\n", fleeing, fighting, patrolling);
  std::printf("shots %lld, reloads %lld, kills %lld (blackboard), mean health %.1f\n", static_cast<long long>(shots),
              static_cast<long long>(reloads), static_cast<long long>(kills), health_sum / kAgents);
  std::printf("conditional aborts:\n");
  for (const auto& [what, n] : aborts) std::printf("  %6d  %s\n", n, what.c_str());
  for (int i : {0, 1, 2}) {
    const Soldier& s = world.soldiers[i];
    std::printf("soldier %d: %s, health %.1f, ammo %lld, kills %lld, x %.1f, enemy at %.1f, running:", i,
                std::string(thicket::status_name(rt.status(s.agent))).c_str(), std::get<double>(*rt.get(s.agent, "health")),
                static_cast<long long>(std::get<int64_t>(*rt.get(s.agent, "ammo"))),
                static_cast<long long>(std::get<int64_t>(*rt.get(s.agent, "kills"))), s.x, s.enemy_x);
    for (const auto& id : rt.running_nodes(s.agent)) std::printf(" %s", id.c_str());
    std::printf("\n");
  }
  return 0;
}
