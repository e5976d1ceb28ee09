// Shared by the brain and reload fuzz targets: their runtime's options, and the native leaves
// their inputs may name.
// Succeed, Fail, Run and Flip besides the Lua ones, and a native stand-in for every leaf name
// the seed corpus uses (a Lua leaf of the same name replaces it).
#pragma once
#include <cstddef>
#include <iterator>
#include <string>
#include <variant>

#include "thicket/runtime.hpp"

namespace thicket::fuzz {

// A Lua leaf that loops is stopped by the instruction budget (the example leaves never need
// more), whatever the machine's speed; the log goes nowhere.
inline RuntimeOptions runtime_options() {
  RuntimeOptions options;
  options.instruction_budget = 200'000;
  options.budget_all_leaves = true;
  options.log = [](const std::string&) {};
  return options;
}

inline void register_stubs(Runtime& rt) {
  rt.register_leaf("Succeed", {[](LeafContext&) { return Status::Success; }, {}, {}});
  rt.register_leaf("Fail", {[](LeafContext&) { return Status::Failure; }, {}, {}});
  rt.register_leaf("Run", {[](LeafContext&) { return Status::Running; }, {}, {}});
  // Success every other tick; touches the blackboard and the random stream.
  rt.register_leaf("Flip", {[](LeafContext& ctx) {
                              Value v;
                              if (ctx.get("n", v) && std::holds_alternative<double>(v))
                                ctx.set("n", std::get<double>(v) + 1);
                              (void)ctx.random();
                              return ctx.tick() % 2 ? Status::Success : Status::Running;
                            },
                            [](LeafContext& ctx) { (void)ctx.node_id(); },
                            [](LeafContext&, Status) {}});
  // Stand-ins: each cycles through success, failure and running from a different start.
  static const char* const kNames[] = {
      "A", "Act", "AnswerDoor", "At", "Attack", "BadResult", "Broken", "Bump", "Chase", "ChaseAndAttack",
      "Cond", "Confused", "Cook", "CustomerAt", "Doorbell", "Doze", "Eat", "EnemyDead", "EnemyNear", "Enter",
      "Escape", "Exit", "FarFromHome", "FarFromSpawn", "Flaky", "Flee", "Flock", "Gather", "Glow", "Hungry",
      "Hunt", "Job", "Knock", "Loop", "MinionNear", "Nap", "Nil", "NotSure", "Nothing", "Offer", "Patrol",
      "Peck", "PlayerNear", "Reason", "Report", "Rest", "ReturnHome", "RunAway", "Say", "Search", "SeeEnemy",
      "SeesEnemy", "Shoot", "Show", "ShowArgs", "Spinner", "Spot", "Track", "Undeclared", "Update", "Wait",
      "Waiter", "Walk", "Wander", "WolfNear", "WrongType"};
  for (size_t i = 0; i < std::size(kNames); ++i)
    rt.register_leaf(kNames[i], {[i](LeafContext& ctx) {
                                   static constexpr Status kCycle[] = {Status::Success, Status::Failure, Status::Running};
                                   return kCycle[(i + ctx.tick()) % 3];
                                 },
                                 {}, {}});
}

}  // namespace thicket::fuzz
