// Embedding thicket in a game: load a brain from a string, give it a native (C++) leaf,
// spawn two agents, tick them, and read and write their blackboards.
//
// Build (from the repository root, after building the library):
//   g++ -std=c++20 -Iruntime/include docs/examples/cpp/embed.cpp build/libthicket_core.a \
//       -lyaml-cpp -o /tmp/embed && /tmp/embed
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "thicket/runtime.hpp"

int main() {
  thicket::Runtime rt;  // default options: seed 1, sandboxed Lua (when linked), logs to stderr

  // A native leaf: C++ in the same name space as Lua leaves. It spends one unit of stamina
  // per tick and keeps running until the stamina is gone; then it fails.
  rt.register_leaf("Train", thicket::NativeLeaf{
      .tick = [](thicket::LeafContext& ctx) {
        thicket::Value v;
        ctx.get("stamina", v);
        double stamina = std::get<double>(v) - 1;
        ctx.set("stamina", stamina);
        std::printf("  agent %u trains at t=%.1f (stamina %.0f)\n", ctx.agent_id(), ctx.time(), stamina);
        return stamina <= 0 ? thicket::Status::Failure : thicket::Status::Running;
      },
      .stop = [](thicket::LeafContext& ctx, thicket::Status s) {
        std::printf("  agent %u stops training (%s)\n", ctx.agent_id(), std::string(thicket::status_name(s)).c_str());
      },
  });

  // The brain, as YAML text. Leaf files (none here) would resolve against the name's folder.
  const std::string yaml = R"(
tree: trainee
blackboard:
  stamina: 3
  resting: false
root:
  selector:
    - sequence:
        abort: self
        children:
          - condition: {check: "not resting"}
          - action: Train
    - wait: 1.0
)";
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(yaml, "trainee.yaml", diags);
  for (const auto& d : diags) std::printf("%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) return 2;

  // Two agents; the second starts with more stamina (a per-agent blackboard override).
  thicket::AgentHandle a = rt.spawn(*brain);
  thicket::AgentHandle b = rt.spawn(*brain, {{"stamina", 5.0}});

  for (int tick = 1; tick <= 3; ++tick) {
    std::printf("tick %d\n", tick);
    rt.tick_all(0.5);
  }
  // The game tells agent b to rest: its sequence re-checks the condition (abort: self)
  // and interrupts the training.
  rt.set(b, "resting", true);
  std::printf("tick 4\n");
  thicket::Status s = rt.tick(b, 0.5);  // one agent only
  std::printf("agent %u: root %s, running:", rt.agent_id(b), std::string(thicket::status_name(s)).c_str());
  for (const auto& id : rt.running_nodes(b)) std::printf(" %s", id.c_str());
  auto stamina = rt.get(b, "stamina");
  std::printf(", stamina %.0f\n", std::get<double>(*stamina));

  // A brain with a mistake loads as nothing, with every problem listed.
  diags.clear();
  auto broken = rt.load_string("tree: broken\nroot: {action: Trian}\n", "broken.yaml", diags);
  for (const auto& d : diags) std::printf("%s\n", thicket::format_diagnostic(d).c_str());
  std::printf("broken brain loaded: %s\n", broken ? "yes" : "no");
  return 0;
}
