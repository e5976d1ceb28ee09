// A crowd of 10,000 villagers with native leaves declared agent_local (guide 9: "Many agents"):
// each leaf reads and writes only its own villager's blackboard and random stream, so tick_all
// may tick the villagers together, node by node (the batched walk). The crowd runs twice, with
// the leaves declared agent_local and without, and the two runs must end in the same state:
// the batched walk changes the order of calls between villagers, never what any villager does.
//
// A villager eats when hungry, sleeps when tired, and otherwise works, which makes it hungry
// and tired; an active_selector re-decides every tick, so hunger interrupts work or sleep.
// Time is the sim clock and randomness each agent's own stream: the output is the same on every
// run. Standard output: what the villagers did; standard error: the time each run took.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "thicket/runtime.hpp"

namespace {

constexpr int kVillagers = 10000;
constexpr int kTicks = 200;
constexpr double kDt = 0.1;

const char* kBrain = R"(
tree: villager
blackboard:
  hunger: 0
  fatigue: 0
  meals: 0
  work: 0
root:
  active_selector:
    - sequence: [{condition: Hungry}, {action: Eat}]
    - sequence: [{condition: Tired}, {action: Sleep}]
    - action: Work
)";

// Blackboard slots, resolved once after loading; the leaves get them as their user data.
struct Slots {
  uint32_t hunger, fatigue, meals, work;
};

using thicket::LeafContext;
using thicket::Status;

Status hungry(LeafContext& c, void* u) {
  return c.get_number(static_cast<Slots*>(u)->hunger) >= 5 ? Status::Success : Status::Failure;
}
Status tired(LeafContext& c, void* u) {
  return c.get_number(static_cast<Slots*>(u)->fatigue) >= 8 ? Status::Success : Status::Failure;
}
// Eating takes a few ticks; the meal ends when hunger is gone.
Status eat(LeafContext& c, void* u) {
  const Slots& s = *static_cast<Slots*>(u);
  const double hunger = std::fmax(0, c.get_number(s.hunger) - 20 * c.dt());
  c.set_number(s.hunger, hunger);
  if (hunger > 0) return Status::Running;
  c.set_number(s.meals, c.get_number(s.meals) + 1);
  return Status::Success;
}
Status rest(LeafContext& c, void* u) {
  const Slots& s = *static_cast<Slots*>(u);
  const double fatigue = std::fmax(0, c.get_number(s.fatigue) - 10 * c.dt());
  c.set_number(s.fatigue, fatigue);
  c.set_number(s.hunger, c.get_number(s.hunger) + 0.5 * c.dt());
  return fatigue > 0 ? Status::Running : Status::Success;
}
// Work never ends by itself; each villager tires and hungers at its own pace (its random stream).
Status work(LeafContext& c, void* u) {
  const Slots& s = *static_cast<Slots*>(u);
  c.set_number(s.work, c.get_number(s.work) + c.dt());
  c.set_number(s.hunger, c.get_number(s.hunger) + (1 + 2 * c.random()) * c.dt());
  c.set_number(s.fatigue, c.get_number(s.fatigue) + (0.5 + c.random()) * c.dt());
  return Status::Running;
}

struct Outcome {
  double meals = 0, work = 0;
  int eating = 0, sleeping = 0, working = 0;
  uint64_t checksum = 1469598103934665603ULL;  // FNV-1a over every villager's blackboard
  double ns_per_agent_tick = 0;
};

Outcome run(bool agent_local) {
  thicket::Runtime rt;
  Slots slots{};
  auto leaf = [&](const char* name, Status (*tick)(LeafContext&, void*)) {
    thicket::NativeLeafFn fn;
    fn.tick = tick;
    fn.user = &slots;
    fn.agent_local = agent_local;  // true: only its own villager's blackboard and random stream
    rt.register_leaf(name, fn);
  };
  leaf("Hungry", hungry);
  leaf("Tired", tired);
  leaf("Eat", eat);
  leaf("Sleep", rest);
  leaf("Work", work);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(kBrain, "villager.yaml", diags);
  for (const auto& d : diags) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) std::exit(2);
  slots = {*rt.blackboard_slot(*brain, "hunger"), *rt.blackboard_slot(*brain, "fatigue"),
           *rt.blackboard_slot(*brain, "meals"), *rt.blackboard_slot(*brain, "work")};
  std::vector<thicket::AgentHandle> crowd;
  for (int i = 0; i < kVillagers; ++i) crowd.push_back(rt.spawn(*brain, {{"hunger", double(i % 5)}}));

  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kTicks; ++t) rt.tick_all(kDt);
  const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;

  Outcome out;
  out.ns_per_agent_tick = took.count() / (double(kVillagers) * kTicks);
  for (auto a : crowd) {
    for (uint32_t slot : {slots.hunger, slots.fatigue, slots.meals, slots.work}) {
      const double v = rt.get_number(a, slot);
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      out.checksum = (out.checksum ^ bits) * 1099511628211ULL;
    }
    out.meals += rt.get_number(a, slots.meals);
    out.work += rt.get_number(a, slots.work);
    for (const auto& id : rt.running_nodes(a)) {
      out.eating += id == "root/0/1";
      out.sleeping += id == "root/1/1";
      out.working += id == "root/2";
    }
  }
  return out;
}

}  // namespace

int main() {
  const Outcome batched = run(true), single = run(false);
  std::printf("crowd: %d villagers, %d ticks at dt %.1f s\n", kVillagers, kTicks, kDt);
  for (const Outcome* o : {&batched, &single}) {
    std::printf("  %-28s meals %.0f, hours of work %.1f; now eating %d, sleeping %d, working %d; checksum %016llx\n",
                o == &batched ? "agent_local (batched walk):" : "not agent_local (one by one):", o->meals,
                o->work / 3600, o->eating, o->sleeping, o->working, static_cast<unsigned long long>(o->checksum));
    std::fprintf(stderr, "  %s %.1f ns per agent-tick\n", o == &batched ? "batched:   " : "one by one:",
                 o->ns_per_agent_tick);
  }
  const bool same = batched.checksum == single.checksum && batched.eating == single.eating &&
                    batched.sleeping == single.sleeping && batched.working == single.working;
  std::printf("  the two runs ended in the same state: %s\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}
