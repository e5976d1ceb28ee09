// Perception (issue 13): each sense, the memory, the manager and the pickups, at known ticks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "thicket/nav.hpp"
#include "thicket/perception.hpp"
#include "thicket/snapshot.hpp"
#include "thicket/world.hpp"

using namespace thicket;
using namespace thicket::perception;
using world::Vec2;

namespace {

constexpr double kDegree = std::numbers::pi / 180;

// A world, its hash, the agent table and a manager, ticked the way a simulation does: rebuild
// the hash, begin_tick, sense every agent with a sensor.
struct Scene {
  world::World world{world::Bounds{{0, 0}, {100, 100}}};
  world::SpatialHash hash{8};
  std::vector<std::uint32_t> agent_of_slot;
  std::vector<world::EntityId> entity_of;  // by agent id - 1
  std::optional<nav::GridMap> map;
  std::optional<nav::Walls> walls;
  std::unique_ptr<Manager> manager;
  std::uint64_t tick = 0;

  std::uint32_t spawn(Vec2 p, std::int32_t team, Vec2 heading = {1, 0}, double radius = 0.5) {
    world::Vehicle v;
    v.radius = radius;
    world::EntityId id = world.spawn(p, v, team, heading);
    REQUIRE_FALSE(id.is_none());
    if (agent_of_slot.size() <= id.index()) agent_of_slot.resize(id.index() + 1, 0);
    entity_of.push_back(id);
    agent_of_slot[id.index()] = std::uint32_t(entity_of.size());
    return std::uint32_t(entity_of.size());
  }
  world::Entity& body(std::uint32_t agent) { return *world.entity(entity_of[agent - 1]); }
  void place(std::uint32_t agent, Vec2 p) { body(agent).position = p; }
  // Call after every obstacle is added (Walls keeps a view of them).
  void start(bool with_walls = true, double dt = 0.1) {
    if (with_walls) walls.emplace(world.obstacles(), map ? &*map : nullptr);
    manager = std::make_unique<Manager>(world, hash, walls ? &*walls : nullptr, agent_of_slot, dt);
  }
  void begin() {
    hash.rebuild(world);
    manager->begin_tick(++tick);
  }
  void step(Stats* stats = nullptr) {
    begin();
    for (std::uint32_t a = 1; a <= entity_of.size(); ++a) manager->sense(a, stats);
  }
  std::vector<Percept> of(std::uint32_t agent, Sense sense) const {
    std::vector<Percept> out;
    for (const Percept& p : manager->percepts(agent))
      if (p.sense == sense) out.push_back(p);
    return out;
  }
  const Percept* find(std::uint32_t agent, Sense sense, Kind kind, std::uint32_t id) const {
    for (const Percept& p : manager->percepts(agent))
      if (p.sense == sense && p.kind == kind && p.id == id) return &p;
    return nullptr;
  }
};

Senses two_cones() {
  Senses s;
  s.sight.cones = {{5, 80 * kDegree}, {20, 20 * kDegree}};  // near and wide, far and narrow
  return s;
}

bool same_percept(const Percept& a, const Percept& b) {
  return a.sense == b.sense && a.kind == b.kind && a.phase == b.phase && a.cone == b.cone &&
         a.id == b.id && a.sound == b.sound && a.position == b.position && a.distance == b.distance &&
         a.strength == b.strength && a.taken == b.taken;
}
bool same_memory(const MemoryEntry& a, const MemoryEntry& b) {
  return a.kind == b.kind && a.id == b.id && a.sense == b.sense && a.position == b.position &&
         a.last_tick == b.last_tick && a.forget_tick == b.forget_tick;
}

}  // namespace

TEST_SUITE("perception") {

TEST_CASE("names and the sound law") {
  CHECK(std::string(sense_name(Sense::Hearing)) == "hearing");
  CHECK(std::string(kind_name(Kind::Pickup)) == "pickup");
  CHECK(std::string(phase_name(Phase::Exit)) == "exit");
  CHECK(sound_strength(10, 10) == doctest::Approx(0.1));
  CHECK(sound_strength(10, 0.5) == 10);  // never louder than at 1 m
}

TEST_CASE("sight: near cone only, far cone only, both, outside both") {
  Scene sc;
  Senses senses = two_cones();
  std::uint32_t eye = sc.spawn({10, 10}, 0);
  std::uint32_t near_only = sc.spawn({12, 13}, 1);   // 3.6 m, 56 deg off: only the wide cone
  std::uint32_t far_only = sc.spawn({25, 11}, 1);    // 15 m, 4 deg off: only the narrow one
  std::uint32_t both = sc.spawn({13, 10}, 1);        // dead ahead, 3 m: both, the first is its cone
  std::uint32_t beside = sc.spawn({10, 20}, 1);      // 90 deg off
  std::uint32_t behind = sc.spawn({8, 10}, 1);       // right behind
  std::uint32_t too_far = sc.spawn({35, 10}, 1);     // 25 m, beyond both
  sc.start(false);
  sc.manager->add_sensor(eye, senses);
  sc.step();
  auto seen = sc.of(eye, Sense::Sight);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].id == near_only);
  CHECK(seen[0].cone == 0);
  CHECK(seen[1].id == far_only);
  CHECK(seen[1].cone == 1);
  CHECK(seen[1].strength == doctest::Approx(1 - std::hypot(15.0, 1.0) / 20));
  CHECK(seen[2].id == both);
  CHECK(seen[2].cone == 0);
  CHECK(seen[2].distance == doctest::Approx(3));
  // Strength is the best view over the cones that hold it: the far cone (20 m) sees it better.
  CHECK(seen[2].strength == doctest::Approx(1 - 3.0 / 20));
  CHECK(seen[0].strength == doctest::Approx(1 - std::hypot(2.0, 3.0) / 5));  // the near cone only
  for (const Percept& p : seen) CHECK(p.phase == Phase::Enter);
  CHECK(sc.manager->sees(eye, far_only));
  CHECK_FALSE(sc.manager->sees(eye, beside));
  CHECK_FALSE(sc.manager->sees(eye, behind));
  CHECK_FALSE(sc.manager->sees(eye, too_far));
  CHECK_FALSE(sc.manager->sees(eye, eye));
}

TEST_CASE("sight: a target behind a box obstacle is hidden; x-ray sees it") {
  for (bool walls : {true, false}) {
    CAPTURE(walls);
    Scene sc;
    sc.world.add_obstacle(world::Obstacle::box({14, 9}, {16, 11}));
    Senses senses = two_cones();
    senses.sight.walls = walls;
    std::uint32_t eye = sc.spawn({10, 10}, 0);
    std::uint32_t hidden = sc.spawn({20, 10}, 1);
    std::uint32_t open = sc.spawn({20, 13}, 1);  // the line passes above the box
    sc.start();
    sc.manager->add_sensor(eye, senses);
    Stats stats;
    sc.step(&stats);
    CHECK(sc.manager->sees(eye, hidden) == !walls);
    CHECK(sc.manager->sees(eye, open));
    CHECK(stats.los_tests == (walls ? 2u : 0u));
  }
}

TEST_CASE("sight: a blocked grid-map cell hides a target") {
  std::vector<Diagnostic> diags;
  Scene sc;
  sc.map = nav::parse_grid_map(
      "type octile\nheight 5\nwidth 30\nmap\n"
      "..............................\n"
      "..............................\n"
      "...............@..............\n"
      "..............................\n"
      "..............................\n",
      "wall.map", diags);
  REQUIRE(sc.map.has_value());
  Senses senses = two_cones();
  std::uint32_t eye = sc.spawn({5.5, 2.5}, 0);
  std::uint32_t hidden = sc.spawn({20.5, 2.5}, 1);   // straight through cell (15, 2)
  std::uint32_t visible = sc.spawn({20.5, 4.2}, 1);  // passes cell (15, 3)
  sc.start();
  sc.manager->add_sensor(eye, senses);
  sc.step();
  CHECK_FALSE(sc.manager->sees(eye, hidden));
  CHECK(sc.manager->sees(eye, visible));
  // The same without walls: x-ray.
  senses.sight.walls = false;
  sc.step();
  CHECK(sc.manager->sees(eye, hidden));
  CHECK(sc.find(eye, Sense::Sight, Kind::Agent, hidden)->phase == Phase::Enter);
  CHECK(sc.find(eye, Sense::Sight, Kind::Agent, visible)->phase == Phase::Stay);
}

TEST_CASE("sight over open ground: every line counted, answered at once or one by one") {
  // A wall far off in the map's last 8 x 8 block: the eye's box of sightings lies in open
  // blocks (its lines answered at once, Walls::region_clear), then a second eye whose box holds
  // the wall (each line walked). Both count every line they ask about.
  std::vector<Diagnostic> diags;
  Scene sc;
  std::string rows;
  for (int y = 0; y < 32; ++y) rows.append(y == 28 ? std::string(27, '.').append("@....") : std::string(32, '.')).append(1, '\n');  // (appends: GCC 12's false -Warray-bounds)
  sc.map = nav::parse_grid_map("type octile\nheight 32\nwidth 32\nmap\n" + rows, "open.map", diags);
  REQUIRE(sc.map.has_value());
  Senses senses = two_cones();
  std::uint32_t eye = sc.spawn({2.5, 2.5}, 0);
  std::uint32_t near = sc.spawn({9.5, 2.5}, 1), farther = sc.spawn({14.5, 3.5}, 1);
  std::uint32_t corner = sc.spawn({20.5, 28.5}, 0);              // faces +x, along the wall's row
  std::uint32_t hidden = sc.spawn({30.5, 28.5}, 1), shown = sc.spawn({25.5, 28.5}, 1);
  sc.start();
  REQUIRE(sc.walls->may_have_clear_regions());
  CHECK(sc.walls->region_clear({2.5, 2.5}, {14.5, 3.5}));
  CHECK_FALSE(sc.walls->region_clear({20.5, 28.5}, {30.5, 28.5}));
  sc.manager->add_sensor(eye, senses);
  Stats stats;
  sc.step(&stats);
  CHECK(sc.manager->sees(eye, near));
  CHECK(sc.manager->sees(eye, farther));
  CHECK(stats.los_tests == 2);
  sc.manager->remove_sensor(eye);
  sc.manager->add_sensor(corner, senses);
  Stats corner_stats;
  sc.step(&corner_stats);
  CHECK(sc.manager->sees(corner, shown));
  CHECK_FALSE(sc.manager->sees(corner, hidden));  // behind the wall at cell (27, 28)
  CHECK(corner_stats.los_tests == 2);
}

TEST_CASE("sight: team filters") {
  Scene sc;
  Senses enemies = two_cones(), friends = two_cones(), all = two_cones();
  friends.targets = Targets::Friends;
  all.targets = Targets::All;
  // Three watchers of team 0 in three rows, each with a team-mate and a foe ahead of it.
  std::uint32_t watcher[3], mate[3], foe[3];
  for (int row = 0; row < 3; ++row) {
    double y = 10 + 20 * row;
    watcher[row] = sc.spawn({10, y}, 0);
    mate[row] = sc.spawn({13, y}, 0);
    foe[row] = sc.spawn({14, y + 0.5}, 1);
  }
  sc.start(false);
  sc.manager->add_sensor(watcher[0], enemies);
  sc.manager->add_sensor(watcher[1], friends);
  sc.manager->add_sensor(watcher[2], all);
  sc.step();
  auto ids = [&](std::uint32_t agent) {
    std::vector<std::uint32_t> out;
    for (const Percept& p : sc.of(agent, Sense::Sight)) out.push_back(p.id);
    return out;
  };
  CHECK(ids(watcher[0]) == std::vector<std::uint32_t>{foe[0]});
  CHECK(ids(watcher[1]) == std::vector<std::uint32_t>{mate[1]});  // never itself
  CHECK(ids(watcher[2]) == std::vector<std::uint32_t>{mate[2], foe[2]});
}

TEST_CASE("hearing: threshold, walls, length, source, next tick") {
  Scene sc;
  sc.world.add_obstacle(world::Obstacle::box({49, 19}, {51, 21}));
  Senses ears;
  ears.hearing.enabled = true;
  ears.hearing.threshold = 0.1;
  ears.hearing.walls = 0.5;
  std::uint32_t listener = sc.spawn({40, 10}, 0);
  std::uint32_t shouter = sc.spawn({60, 60}, 1);
  std::uint32_t behind_wall = sc.spawn({40, 20}, 0);  // a box lies between it and (60, 20)
  sc.start();
  sc.manager->add_sensor(listener, ears);
  sc.manager->add_sensor(shouter, ears);
  sc.manager->add_sensor(behind_wall, ears);

  SUBCASE("below the threshold unheard, at it heard") {
    sc.begin();
    sc.manager->emit_sound(0, {50, 10}, 9.99, 0.1, 0);   // 0.0999 at 10 m
    sc.manager->emit_sound(0, {40, 0}, 10, 0.1, 0);      // exactly 0.1 at 10 m
    sc.step();
    auto heard = sc.of(listener, Sense::Hearing);
    REQUIRE(heard.size() == 1);
    CHECK(heard[0].position == Vec2{40, 0});
    CHECK(heard[0].strength == 0.1);
    CHECK(heard[0].id == 0);
    CHECK(heard[0].sound == 1);  // anonymous sounds take serials in content order: x 40 < 50
  }
  SUBCASE("damped by a wall") {
    sc.begin();
    sc.manager->emit_sound(0, {60, 20}, 80, 0.1, 0);  // 0.2 at 20 m: 0.1 behind the wall
    sc.manager->emit_sound(0, {60, 20.5}, 60, 0.1, 0);  // 0.15 at ~20 m: 0.075 behind the wall
    sc.step();
    auto heard = sc.of(behind_wall, Sense::Hearing);
    REQUIRE(heard.size() == 1);
    CHECK(heard[0].position == Vec2{60, 20});
    CHECK(heard[0].strength == doctest::Approx(0.1));
    // The listener at (40, 10) has a clear line to both: undamped.
    CHECK(sc.of(listener, Sense::Hearing).size() == 2);
  }
  SUBCASE("emitted during tick t: heard from t+1 for exactly its ticks, never by its source") {
    sc.step();                                                      // tick 1
    sc.manager->emit_sound(0, {50, 30}, 100, 0.3, shouter);         // 3 ticks: 2, 3, 4
    CHECK(sc.of(listener, Sense::Hearing).empty());
    for (std::uint64_t t = 2; t <= 5; ++t) {
      sc.step();
      CAPTURE(t);
      bool audible = t <= 4;
      CHECK(sc.manager->sounds().size() == (audible ? 1u : 0u));
      auto heard = sc.of(listener, Sense::Hearing);
      if (audible) {
        REQUIRE(heard.size() == 1);
        CHECK(heard[0].id == shouter);
        CHECK(heard[0].sound == 1);
        CHECK(heard[0].phase == (t == 2 ? Phase::Enter : Phase::Stay));
        CHECK(sc.manager->sounds()[0].last_tick == 4);
      } else {
        REQUIRE(heard.size() == 1);
        CHECK(heard[0].phase == Phase::Exit);
      }
      CHECK(sc.of(shouter, Sense::Hearing).empty());  // its own noise
    }
  }
  SUBCASE("targets: a friend's noise is not an enemy's; a dead source is anonymous") {
    ears.targets = Targets::Enemies;
    sc.begin();
    sc.manager->emit_sound(0, {40, 15}, 100, 0.2, behind_wall);  // team 0, as the listener
    sc.manager->emit_sound(0, {40, 16}, 100, 0.2, shouter);      // team 1
    sc.step();
    auto heard = sc.of(listener, Sense::Hearing);
    REQUIRE(heard.size() == 1);
    CHECK(heard[0].id == shouter);
    // A friend dies before its noise is merged: it counts as anonymous, so enemies hear it.
    sc.manager->emit_sound(0, {40, 15}, 100, 0.2, behind_wall);
    sc.world.despawn(sc.entity_of[behind_wall - 1]);
    sc.step();
    CHECK(sc.find(listener, Sense::Hearing, Kind::Sound, behind_wall) != nullptr);
  }
}

TEST_CASE("touch: enter, stay and exit with bodies, areas and pickups") {
  Scene sc;
  Senses skin;
  skin.touch.enabled = true;
  skin.touch.reach = 0.1;
  skin.targets = Targets::All;
  std::uint32_t a = sc.spawn({10, 10}, 0);
  std::uint32_t b = sc.spawn({11.05, 10}, 1);  // 1.05 apart: within 0.5 + 0.5 + 0.1
  sc.start(false);
  sc.manager->add_area({"zone", world::Obstacle::box({12, 9}, {14, 11})});
  sc.manager->add_pickup({"pack", "health", {10, 12}, 0.5, 10, {}});
  sc.manager->add_sensor(a, skin);
  sc.step();  // 1
  REQUIRE(sc.of(a, Sense::Touch).size() == 1);
  CHECK(sc.find(a, Sense::Touch, Kind::Agent, b)->phase == Phase::Enter);
  sc.step();  // 2
  CHECK(sc.find(a, Sense::Touch, Kind::Agent, b)->phase == Phase::Stay);
  sc.place(b, {13, 13});
  sc.place(a, {11.5, 10});  // 0.5 from the zone's edge: 0.5 + 0.1 reaches it
  sc.step();  // 3
  auto touch = sc.of(a, Sense::Touch);
  REQUIRE(touch.size() == 2);
  CHECK(touch[0].kind == Kind::Area);  // current ones first, then exits
  CHECK(touch[0].id == 1);
  CHECK(touch[0].phase == Phase::Enter);
  CHECK(touch[1].kind == Kind::Agent);
  CHECK(touch[1].phase == Phase::Exit);
  CHECK(touch[1].position == Vec2{11.05, 10});  // where it was last touched
  sc.place(a, {10, 11.2});  // pickup centre 0.8 away: 0.5 + 0.5 overlaps, it is taken
  sc.step();  // 4
  REQUIRE(sc.manager->takes().size() == 1);
  CHECK(sc.manager->takes()[0].agent == a);
  const Percept* pack = sc.find(a, Sense::Touch, Kind::Pickup, 1);
  REQUIRE(pack != nullptr);
  CHECK(pack->taken);
  CHECK(pack->phase == Phase::Enter);
  CHECK(sc.find(a, Sense::Touch, Kind::Area, 1)->phase == Phase::Exit);
  sc.step();  // 5: inactive now
  CHECK(sc.find(a, Sense::Touch, Kind::Pickup, 1)->phase == Phase::Exit);
  CHECK_FALSE(sc.find(a, Sense::Touch, Kind::Pickup, 1)->taken);
  sc.step();  // 6
  CHECK(sc.of(a, Sense::Touch).empty());
}

TEST_CASE("memory: an entry expires on the exact tick") {
  Scene sc;
  Senses senses = two_cones();
  senses.memory = 1.0;  // 10 ticks at dt 0.1
  std::uint32_t eye = sc.spawn({10, 10}, 0);
  std::uint32_t target = sc.spawn({20, 10}, 1);
  sc.start(false, 0.1);
  sc.manager->add_sensor(eye, senses);
  for (int t = 1; t <= 5; ++t) sc.step();
  sc.place(target, {10, 30});  // out of sight from tick 6
  for (std::uint64_t t = 6; t <= 16; ++t) {
    sc.step();
    CAPTURE(t);
    CHECK_FALSE(sc.manager->sees(eye, target));
    auto memory = sc.manager->memory(eye);
    if (t <= 14) {
      REQUIRE(memory.size() == 1);
      CHECK(memory[0].kind == Kind::Agent);
      CHECK(memory[0].id == target);
      CHECK(memory[0].sense == Sense::Sight);
      CHECK(memory[0].position == Vec2{20, 10});
      CHECK(memory[0].last_tick == 5);
      CHECK(memory[0].forget_tick == 15);
    } else {
      CHECK(memory.empty());
    }
  }
}

TEST_CASE("memory: heard agents and anonymous sounds, sorted by (kind, id)") {
  Scene sc;
  Senses senses = two_cones();
  senses.hearing.enabled = true;
  senses.targets = Targets::All;
  std::uint32_t ear = sc.spawn({10, 10}, 0);
  std::uint32_t seen = sc.spawn({15, 10}, 1);
  std::uint32_t noisy = sc.spawn({10, 90}, 1);
  sc.start(false);
  sc.manager->add_sensor(ear, senses);
  sc.begin();
  // Serials follow the source: anonymous 1, then `seen` (agent 2) 2, then `noisy` 3.
  sc.manager->emit_sound(0, {10, 12}, 10, 1, 0);
  sc.manager->emit_sound(0, {10, 13}, 10, 1, noisy);
  sc.manager->emit_sound(0, {16, 10}, 10, 1, seen);  // seen too: sight's place wins
  sc.step();
  auto memory = sc.manager->memory(ear);
  REQUIRE(memory.size() == 3);
  CHECK(memory[0].kind == Kind::Agent);
  CHECK(memory[0].id == seen);
  CHECK(memory[0].sense == Sense::Sight);
  CHECK(memory[0].position == Vec2{15, 10});
  CHECK(memory[1].id == noisy);
  CHECK(memory[1].sense == Sense::Hearing);
  CHECK(memory[1].position == Vec2{10, 13});
  CHECK(memory[2].kind == Kind::Sound);
  CHECK(memory[2].id == 1);
  // Percept order: sight, then hearing by (source id, serial).
  auto all = sc.manager->percepts(ear);
  REQUIRE(all.size() == 4);
  CHECK(all[0].sense == Sense::Sight);
  CHECK(all[1].id == 0);
  CHECK(all[2].id == seen);
  CHECK(all[3].id == noisy);
}

TEST_CASE("memory: an agent seen and heard in one tick is one entry, sight's; entries expire apart") {
  Scene sc;
  Senses senses = two_cones();
  senses.hearing.enabled = true;
  senses.targets = Targets::All;
  senses.memory = 1.0;  // 10 ticks at dt 0.1
  std::uint32_t ear = sc.spawn({10, 10}, 0);
  std::uint32_t near = sc.spawn({13, 10}, 1);
  std::uint32_t far = sc.spawn({16, 10}, 1);
  sc.start(false, 0.1);
  sc.manager->add_sensor(ear, senses);
  sc.begin();
  // The last agent seen is also the first agent heard: its memory key comes twice in a row.
  sc.manager->emit_sound(0, {16, 11}, 10, 0.1, far);  // audible at tick 2 only
  sc.step();
  REQUIRE(sc.tick == 2);
  REQUIRE(sc.of(ear, Sense::Hearing).size() == 1);
  auto memory = sc.manager->memory(ear);
  REQUIRE(memory.size() == 2);
  CHECK(memory[0].id == near);
  CHECK(memory[1].id == far);
  CHECK(memory[1].sense == Sense::Sight);
  CHECK(memory[1].position == Vec2{16, 10});
  // `far` is last perceived at tick 2, `near` at tick 4: forgotten at ticks 12 and 14.
  sc.place(far, {10, 60});
  for (std::uint64_t t = 3; t <= 15; ++t) {
    if (t == 5) sc.place(near, {60, 10});
    sc.step();
    REQUIRE(sc.tick == t);
    CAPTURE(t);
    memory = sc.manager->memory(ear);
    const std::size_t want = t < 12 ? 2 : t < 14 ? 1 : 0;
    REQUIRE(memory.size() == want);
    if (want == 1) CHECK(memory[0].id == near);
  }
}

TEST_CASE("pickups: the lowest id takes it; it comes back on the exact tick; teams") {
  Scene sc;
  std::uint32_t second = sc.spawn({50.4, 50}, 1);  // agent 1, team 1
  std::uint32_t first = sc.spawn({49.6, 50}, 0);   // agent 2
  (void)first;
  sc.start(false, 0.1);
  sc.manager->add_pickup({"pack", "health", {50, 50}, 0.5, 0.5, {}});   // back 5 ticks later
  sc.manager->add_pickup({"ammo", "ammo", {50, 50}, 0.5, 0, {0}});      // team 0 only; next tick
  sc.step();  // 1
  REQUIRE(sc.manager->takes().size() == 2);
  CHECK(sc.manager->takes()[0].pickup == 0);
  CHECK(sc.manager->takes()[0].agent == second);  // agent 1: the lowest id
  CHECK(sc.manager->takes()[1].agent == 2);       // only team 0 may take the ammo
  CHECK_FALSE(sc.manager->pickup_states()[0].active);
  CHECK(sc.manager->pickup_states()[0].back_tick == 6);
  CHECK(sc.manager->pickup_states()[0].taken_by == 1);
  sc.place(1, {80, 80});
  sc.place(2, {80, 82});
  for (std::uint64_t t = 2; t <= 6; ++t) {
    sc.step();
    CAPTURE(t);
    CHECK(sc.manager->takes().empty());
    CHECK(sc.manager->pickup_states()[0].active == (t >= 6));
    CHECK(sc.manager->pickup_states()[1].active);  // respawn 0: back on tick 2
  }
  sc.place(2, {50, 50});
  sc.step();  // 7
  REQUIRE(sc.manager->takes().size() == 2);
  CHECK(sc.manager->takes()[0].agent == 2);
  CHECK(sc.manager->pickup_states()[0].back_tick == 12);
  CHECK(sc.manager->pickup_states()[1].back_tick == 8);
}

TEST_CASE("no sensor yet: pickups still reach the widest body, queued sounds still know their team") {
  // begin_tick skips its pass over the bodies only when nothing reads it: no sensor, no sound
  // queued and no pickup. Each of the last two alone must keep the pass.
  SUBCASE("a pickup reaches a body whose centre lies outside the pickup's radius") {
    Scene sc;
    const std::uint32_t agent = sc.spawn({50.8, 50}, 0, {1, 0}, 0.5);  // 0.8 m: within 0.5 + 0.5
    sc.start(false);
    sc.manager->add_pickup({"pack", "health", {50, 50}, 0.5, 1, {}});
    sc.step();
    REQUIRE(sc.manager->takes().size() == 1);
    CHECK(sc.manager->takes()[0].agent == agent);
  }
  SUBCASE("a sound merged before any sensor exists carries its source's team") {
    Scene sc;
    const std::uint32_t ally = sc.spawn({40, 10}, 0);
    const std::uint32_t enemy = sc.spawn({60, 10}, 1);
    const std::uint32_t listener = sc.spawn({50, 10}, 0);
    sc.start(false);
    sc.step();  // 1
    sc.manager->emit_sound(0, {40, 10}, 100, 1.0, ally);
    sc.manager->emit_sound(0, {60, 10}, 100, 1.0, enemy);
    sc.step();  // 2: the sounds join, with no sensor anywhere
    Senses ears;
    ears.hearing.enabled = true;  // targets: enemies
    sc.manager->add_sensor(listener, ears);
    sc.step();  // 3
    const auto heard = sc.of(listener, Sense::Hearing);
    REQUIRE(heard.size() == 1);
    CHECK(heard[0].id == enemy);
  }
}

TEST_CASE("LOD: checks skipped far from targets, sightings stand as Stay, stats") {
  Scene sc;
  Senses senses = two_cones();
  senses.sight.lod_distance = 5;
  senses.sight.lod_every = 4;
  std::uint32_t eye = sc.spawn({10, 10}, 0);       // agent 1: checks when (tick + 1) % 4 == 0
  std::uint32_t target = sc.spawn({20, 10}, 1);
  sc.start(false);
  sc.manager->add_sensor(eye, senses);
  Stats stats;
  sc.step(&stats);  // 1: skipped, nothing seen yet
  CHECK_FALSE(sc.manager->sees(eye, target));
  sc.step(&stats);  // 2: skipped
  sc.step(&stats);  // 3: checked
  CHECK(stats.lod_skips == 2);
  CHECK(stats.sight_checks == 1);
  REQUIRE(sc.manager->sees(eye, target));
  CHECK(sc.find(eye, Sense::Sight, Kind::Agent, target)->phase == Phase::Enter);
  sc.place(target, {10, 40});  // out of view, and not within 5 m
  sc.step(&stats);  // 4: skipped; the sighting stands
  const Percept* p = sc.find(eye, Sense::Sight, Kind::Agent, target);
  REQUIRE(p != nullptr);
  CHECK(p->phase == Phase::Stay);
  CHECK(p->position == Vec2{20, 10});
  sc.step(&stats);  // 5
  sc.step(&stats);  // 6
  CHECK(sc.manager->sees(eye, target));
  sc.step(&stats);  // 7: checked: it exits
  CHECK(sc.find(eye, Sense::Sight, Kind::Agent, target)->phase == Phase::Exit);
  CHECK(stats.lod_skips == 5);
  CHECK(stats.sight_checks == 2);
  // A target within lod_distance: every tick is checked.
  sc.place(target, {13, 10});
  sc.step(&stats);  // 8
  CHECK(stats.sight_checks == 3);
  CHECK(sc.manager->sees(eye, target));
  CHECK(stats.sensed == 8);
}

TEST_CASE("LOD: a sensor whose every tick is a check saves the bytes of one without LOD") {
  // Only sensors with LOD keep their last check's sightings; the snapshot writes the others'
  // from the tick's percepts. With a target always within lod_distance, LOD never skips: both
  // sensors see the same, and their snapshots must be byte for byte the same.
  auto run = [](bool lod) {
    Scene sc;
    Senses senses = two_cones();
    senses.hearing.enabled = true;
    senses.memory = 0.3;  // three ticks: entries expire within the run
    if (lod) {
      senses.sight.lod_distance = 1000;
      senses.sight.lod_every = 3;
    }
    const std::uint32_t eye = sc.spawn({10, 10}, 0);
    const std::uint32_t near = sc.spawn({13, 10}, 1);
    const std::uint32_t far = sc.spawn({25, 11}, 1);
    sc.start(false);
    sc.manager->add_sensor(eye, senses);
    Stats stats;
    std::vector<std::string> bytes;
    for (int t = 0; t < 9; ++t) {
      // The far target walks out of the far cone and back; the near one circles the eye.
      sc.place(far, {25, 11 + 3.0 * (t % 4)});
      sc.place(near, {10 + 3 * std::cos(t * 0.9), 10 + 3 * std::sin(t * 0.9)});
      sc.step(&stats);
      SnapshotWriter w;
      sc.manager->save(w);
      bytes.push_back(w.bytes());
    }
    CHECK(stats.lod_skips == 0);
    CHECK(stats.sight_checks == 9);
    return bytes;
  };
  const std::vector<std::string> off = run(false), on = run(true);
  REQUIRE(off.size() == on.size());
  for (std::size_t t = 0; t < off.size(); ++t) {
    CAPTURE(t);
    CHECK(off[t] == on[t]);
  }
}

TEST_CASE("restore refuses a percept no sense makes: a sighting of a sound, a cone it lacks, a place not a number") {
  // One watcher sees one target; its snapshot's first percept starts at byte 17 (tick u64,
  // sensor count u32, present u8, percept count u32): sense, kind, phase, cone, id, ...
  auto saved = [] {
    Scene sc;
    std::uint32_t me = sc.spawn({10, 10}, 0);
    sc.spawn({14, 10}, 1, {-1, 0});
    sc.start(false);
    const Senses senses = two_cones();  // (the manager keeps a pointer to it)
    sc.manager->add_sensor(me, senses);
    sc.step();
    REQUIRE(sc.manager->percepts(me).size() == 1);
    SnapshotWriter w;
    sc.manager->save(w);
    return w.bytes();
  };
  const std::string good = saved();
  REQUIRE(good.size() > 30);
  REQUIRE(good[17] == char(Sense::Sight));
  REQUIRE(good[18] == char(Kind::Agent));
  auto restore = [](const std::string& bytes) {
    Scene sc;
    std::uint32_t me = sc.spawn({10, 10}, 0);
    sc.spawn({14, 10}, 1, {-1, 0});
    sc.start(false);
    Senses senses = two_cones();
    sc.manager->add_sensor(me, senses);
    SnapshotReader in(bytes);
    sc.manager->restore(in);
    return in.error();
  };
  CHECK(restore(good).empty());
  std::string sound = good;
  sound[18] = char(Kind::Sound);  // a sighting of a sound: sight sees agents only
  CHECK(restore(sound).find("agent 1 has a percept of something the scenario does not have") != std::string::npos);
  std::string cone = good;
  cone[20] = 2;  // the watcher has cones 0 and 1
  CHECK(restore(cone).find("has a percept of something") != std::string::npos);
  std::string heard = good;
  heard[17] = char(Sense::Hearing);  // hearing of an agent: hearing perceives sounds
  CHECK(restore(heard).find("has a percept of something") != std::string::npos);
  std::string place = good;
  const double nan = std::nan("");
  std::memcpy(&place[17 + 12], &nan, sizeof nan);  // the position's x
  CHECK(restore(place).find("has a percept of something") != std::string::npos);
}

TEST_CASE("remove_sensor: its percepts and memory go; others go on") {
  Scene sc;
  Senses senses = two_cones();
  std::uint32_t a = sc.spawn({10, 10}, 0);
  std::uint32_t b = sc.spawn({15, 10}, 1, {-1, 0});
  sc.start(false);
  sc.manager->add_sensor(a, senses);
  sc.manager->add_sensor(b, senses);
  sc.step();
  CHECK(sc.manager->sees(a, b));
  CHECK(sc.manager->sees(b, a));
  sc.manager->remove_sensor(a);
  CHECK_FALSE(sc.manager->has_sensor(a));
  CHECK(sc.manager->percepts(a).empty());
  CHECK(sc.manager->memory(a).empty());
  sc.step();
  CHECK(sc.manager->percepts(a).empty());
  CHECK(sc.manager->sees(b, a));
  sc.manager->remove_sensor(a);  // twice, and unknown ids: harmless
  sc.manager->remove_sensor(99);
  sc.manager->remove_sensor(0);
  sc.manager->sense(99);
}

TEST_CASE("phases and order: sight, hearing, touch; current before exits") {
  Scene sc;
  Senses all = two_cones();
  all.hearing.enabled = true;
  all.touch.enabled = true;
  all.targets = Targets::All;
  std::uint32_t me = sc.spawn({10, 10}, 0);
  std::uint32_t x = sc.spawn({12, 10}, 1);
  std::uint32_t y = sc.spawn({14, 10}, 1);
  sc.start(false);
  sc.manager->add_sensor(me, all);
  sc.step();  // 1
  sc.manager->emit_sound(0, {11, 11}, 10, 1, y);
  sc.place(x, {10, 30});    // x leaves sight
  sc.place(y, {10.9, 10});  // y touches
  sc.step();  // 2
  auto ps = sc.manager->percepts(me);
  REQUIRE(ps.size() == 4);
  CHECK((ps[0].sense == Sense::Sight && ps[0].id == y && ps[0].phase == Phase::Stay));
  CHECK((ps[1].sense == Sense::Sight && ps[1].id == x && ps[1].phase == Phase::Exit));
  CHECK((ps[2].sense == Sense::Hearing && ps[2].id == y && ps[2].phase == Phase::Enter));
  CHECK((ps[3].sense == Sense::Touch && ps[3].id == y && ps[3].phase == Phase::Enter));
}

TEST_CASE("a crowd: more percepts in a tick than any list holds inline, phases kept across ticks") {
  // One watcher facing a crowd of 90 in its near cone (more than the 64 a tick is built in
  // before its heap, and the 16 an agent keeps inline); then half of them step out of sight,
  // then the crowd shrinks to 10 (the kept list back inline).
  Scene sc;
  Senses eye;
  eye.sight.cones = {{20, 80 * kDegree}};
  eye.touch.enabled = true;
  eye.touch.reach = 100;  // touches every body too: two long lists in one tick
  std::uint32_t me = sc.spawn({10, 50}, 0);
  std::vector<std::uint32_t> crowd;
  for (int i = 0; i < 90; ++i) crowd.push_back(sc.spawn({15.0 + (i % 10), 45.0 + (i / 10)}, 1));
  sc.start(false);
  sc.manager->add_sensor(me, eye);
  auto check = [&](Sense sense, const std::vector<std::uint32_t>& ids, Phase phase) {
    std::vector<Percept> got = sc.of(me, sense);
    std::vector<std::uint32_t> now;
    for (const Percept& p : got)
      if (p.phase == phase) now.push_back(p.id);
    CHECK(now == ids);
  };
  sc.step();
  check(Sense::Sight, crowd, Phase::Enter);
  check(Sense::Touch, crowd, Phase::Enter);
  CHECK(sc.manager->percepts(me).size() == 180);
  sc.step();
  check(Sense::Sight, crowd, Phase::Stay);
  check(Sense::Touch, crowd, Phase::Stay);
  // Every odd one steps behind the watcher: out of sight, still touched.
  std::vector<std::uint32_t> even, odd;
  for (std::size_t i = 0; i < crowd.size(); ++i) {
    (i % 2 ? odd : even).push_back(crowd[i]);
    if (i % 2) sc.place(crowd[i], {5, 40 + double(i) / 10});
  }
  sc.step();
  check(Sense::Sight, even, Phase::Stay);
  check(Sense::Sight, odd, Phase::Exit);
  check(Sense::Touch, crowd, Phase::Stay);
  // All but ten leave the world's reach: the list shrinks below its inline room.
  for (std::size_t i = 10; i < crowd.size(); ++i) sc.place(crowd[i], {95, 95});
  eye.touch.reach = 0;
  sc.step();
  std::vector<std::uint32_t> first_ten(crowd.begin(), crowd.begin() + 10), seen_ten;
  for (std::uint32_t id : first_ten)
    if (std::find(even.begin(), even.end(), id) != even.end()) seen_ten.push_back(id);
  check(Sense::Sight, seen_ten, Phase::Stay);
  std::vector<std::uint32_t> left_sight;
  for (std::size_t i = 10; i < crowd.size(); i += 2) left_sight.push_back(crowd[i]);
  check(Sense::Sight, left_sight, Phase::Exit);
  check(Sense::Touch, {}, Phase::Stay);
  check(Sense::Touch, crowd, Phase::Exit);
  sc.step();
  CHECK(sc.manager->percepts(me).size() == seen_ten.size());
  CHECK(sc.manager->memory(me).size() == 90);  // all remembered (5 s)
}

TEST_CASE("1 vs 2 threads, any order: identical percepts and memory") {
  // A 60 x 60 map with random blocks, 300 agents of two teams, sounds every tick.
  auto run = [](int mode) {
    Scene sc;
    sc.world = world::World({{0, 0}, {60, 60}});
    std::string text = "type octile\nheight 60\nwidth 60\nmap\n";
    std::uint64_t rng = 7;
    for (int y = 0; y < 60; ++y) {
      for (int x = 0; x < 60; ++x) text += world::splitmix64(rng) % 100 < 10 ? '@' : '.';
      text += '\n';
    }
    std::vector<Diagnostic> diags;
    sc.map = nav::parse_grid_map(text, "r.map", diags);
    REQUIRE(sc.map.has_value());
    Senses senses = two_cones();
    senses.hearing.enabled = true;
    senses.hearing.walls = 0.5;
    senses.touch.enabled = true;
    senses.sight.lod_distance = 3;
    senses.sight.lod_every = 3;
    senses.memory = 0.5;
    auto uni = [&](double lo, double hi) { return lo + (world::random_signed_unit(rng) + 1) / 2 * (hi - lo); };
    const int n = 300;
    for (int i = 0; i < n; ++i)
      sc.spawn({uni(1, 59), uni(1, 59)}, i % 2, {uni(-1, 1), uni(-1, 1)});
    sc.start();
    sc.manager->add_pickup({"p", "x", {30, 30}, 2, 0.3, {}});
    sc.manager->set_queues(2);
    for (int i = 1; i <= n; ++i) sc.manager->add_sensor(std::uint32_t(i), senses);
    std::vector<std::vector<Percept>> percepts;
    std::vector<std::vector<MemoryEntry>> memory;
    for (int t = 0; t < 12; ++t) {
      for (int i = 1; i <= n; ++i) {
        world::Entity& e = sc.body(std::uint32_t(i));
        e.position = {std::clamp(e.position.x + uni(-1, 1), 0.5, 59.5),
                      std::clamp(e.position.y + uni(-1, 1), 0.5, 59.5)};
        e.heading = Vec2{uni(-1, 1), uni(-1, 1)}.normalized();
        if (e.heading == Vec2{}) e.heading = {1, 0};
      }
      sc.begin();
      // Each agent's "brain" runs on the thread that senses it and queues there.
      auto work = [&](std::uint32_t agent, std::uint32_t queue) {
        sc.manager->sense(agent);
        if ((agent + t) % 7 == 0)
          sc.manager->emit_sound(queue, sc.body(agent).position, 5 + agent % 10, 0.2, agent);
        if ((agent + t) % 50 == 0) sc.manager->emit_sound(queue, {double(agent % 60), 20}, 30, 0.1, 0);
      };
      if (mode == 0) {
        for (int i = 1; i <= n; ++i) work(std::uint32_t(i), 0);
      } else if (mode == 1) {
        for (int i = n; i >= 1; --i) work(std::uint32_t(i), 0);
      } else {
        std::thread other([&] {
          for (int i = 2; i <= n; i += 2) work(std::uint32_t(i), 1);
        });
        for (int i = 1; i <= n; i += 2) work(std::uint32_t(i), 0);
        other.join();
      }
      for (int i = 1; i <= n; ++i) {
        auto p = sc.manager->percepts(std::uint32_t(i));
        auto m = sc.manager->memory(std::uint32_t(i));
        percepts.emplace_back(p.begin(), p.end());
        memory.emplace_back(m.begin(), m.end());
      }
    }
    return std::pair{percepts, memory};
  };
  auto one = run(0), reversed = run(1), two = run(2);
  std::size_t total = 0, heard = 0;
  for (const auto& ps : one.first)
    for (const Percept& p : ps) {
      ++total;
      heard += p.sense == Sense::Hearing;
    }
  CHECK(total > 1000);
  CHECK(heard > 100);
  for (const auto* other : {&reversed, &two}) {
    REQUIRE(other->first.size() == one.first.size());
    bool same = true;
    for (std::size_t i = 0; i < one.first.size() && same; ++i) {
      same = one.first[i].size() == other->first[i].size() && one.second[i].size() == other->second[i].size();
      for (std::size_t k = 0; same && k < one.first[i].size(); ++k)
        same = same_percept(one.first[i][k], other->first[i][k]);
      for (std::size_t k = 0; same && k < one.second[i].size(); ++k)
        same = same_memory(one.second[i][k], other->second[i][k]);
    }
    CHECK(same);
  }
}

TEST_CASE("bad input: no crash, nothing perceived from it") {
  Scene sc;
  Senses senses = two_cones();
  senses.hearing.enabled = true;
  senses.touch.enabled = true;
  senses.hearing.threshold = 0;  // hears everything: every sound is "loud"
  std::uint32_t a = sc.spawn({10, 10}, 0);
  sc.start(false, -1);  // a bad dt counts as 1 s
  CHECK(sc.manager->ticks_for(2.4) == 2);
  CHECK(sc.manager->ticks_for(NAN) == 1);
  sc.manager->add_sensor(0, senses);  // ids are 1-based
  sc.manager->add_sensor(a, senses);
  sc.manager->add_sensor(7, senses);  // an agent with no body yet
  sc.begin();
  sc.manager->emit_sound(5, {1, 1}, 10, 1, 0);  // no such queue: dropped
  sc.manager->emit_sound(0, {NAN, 1}, 10, 1, 0);
  sc.manager->emit_sound(0, {1e300, -1e300}, INFINITY, 1, 0);
  sc.manager->emit_sound(0, {12, 10}, NAN, 1, 0);
  sc.step();
  sc.manager->sense(7);
  CHECK(sc.manager->sounds().size() == 3);
  // Only the sound of infinite loudness is heard (a NaN position or loudness has no strength).
  REQUIRE(sc.manager->percepts(a).size() == 1);
  CHECK(sc.manager->percepts(a)[0].sense == Sense::Hearing);
  CHECK(sc.manager->percepts(a)[0].phase == Phase::Enter);
  CHECK(sc.manager->percepts(7).empty());
  CHECK(sc.manager->percepts(1234).empty());
  CHECK(sc.manager->memory(0).empty());
  CHECK_FALSE(sc.manager->sees(1234, a));
  sc.place(a, {NAN, NAN});
  sc.step();  // a body at no place sees and touches nothing; the one-tick sound is gone
  for (const Percept& p : sc.manager->percepts(a)) CHECK(p.phase == Phase::Exit);
  CHECK_FALSE(sc.manager->percepts(a).empty());
}

}  // TEST_SUITE
