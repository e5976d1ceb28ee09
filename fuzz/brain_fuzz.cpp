// Fuzz target: the brain loader. The input is the text of a brain file (tree, fsm or
// machine), loaded with Runtime::load_string as if it were fuzz/files/input.yaml, so its
// `leaves:` and `import:` can name the example leaf and library files linked there. A brain
// that loads is then dumped, drawn, and run: two agents, a few ticks, a despawn.
// Native leaves Succeed, Fail, Run and Flip exist besides the Lua ones, and so does a native
// stand-in for every leaf name the seed corpus uses (a Lua leaf of the same name replaces it).
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "thicket/runtime.hpp"

namespace {

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;

void register_stubs(thicket::Runtime& rt) {
  rt.register_leaf("Succeed", {[](LeafContext&) { return Status::Success; }, {}, {}});
  rt.register_leaf("Fail", {[](LeafContext&) { return Status::Failure; }, {}, {}});
  rt.register_leaf("Run", {[](LeafContext&) { return Status::Running; }, {}, {}});
  // Success every other tick; touches the blackboard and the random stream.
  rt.register_leaf("Flip", {[](LeafContext& ctx) {
                              thicket::Value v;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  static const std::string path = std::string(THICKET_FUZZ_FILES) + "/input.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);

  thicket::RuntimeOptions options;
  options.instruction_budget = 200'000;  // the example leaves never need more
  options.budget_all_leaves = true;
  options.log = [](const std::string&) {};
  thicket::Runtime rt(options);
  register_stubs(rt);
  size_t events = 0;
  rt.on_trace([&](const thicket::TraceEvent& e) { events += e.running.size() + e.composite.size(); });

  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(text, path, diags);
  std::string messages;
  for (const auto& d : diags) messages += thicket::format_diagnostic(d);
  thicket::fuzz::fail_on_internal_error(diags);
  static const bool verbose = std::getenv("THICKET_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s%s\n", messages.c_str(), brain ? "loaded" : "not loaded");
  if (!brain) return 0;

  (void)rt.dump(*brain);
  (void)rt.dot(*brain);
  (void)rt.bytes_per_agent(*brain);
  auto a = rt.spawn(*brain);
  auto b = rt.spawn(*brain);
  for (int i = 0; i < 4; ++i) rt.tick_all(0.25);
  (void)rt.running_nodes(a);
  (void)rt.status(b);
  rt.despawn(a);
  rt.tick_all(0.25);
  (void)rt.script_errors();
  return 0;
}
