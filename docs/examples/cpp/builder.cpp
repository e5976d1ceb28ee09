// The fluent builder: a tree written in C++ compiles to the same node array as its YAML.
//
// Build (from the repository root, after building the library):
//   g++ -std=c++20 -Iruntime/include docs/examples/cpp/builder.cpp build/libthicket_core.a \
//       -lyaml-cpp -o /tmp/builder && /tmp/builder
#include <cstdio>
#include <vector>

#include "thicket/builder.hpp"
#include "thicket/runtime.hpp"

int main() {
  thicket::Runtime rt;
  thicket::NativeLeaf say_hello{.tick = [](thicket::LeafContext& ctx) {
    std::printf("agent %u says hello at t=%.2f\n", ctx.agent_id(), ctx.time());
    return thicket::Status::Success;
  }};
  rt.register_leaf("Hello", say_hello);

  thicket::TreeBuilder b("greeter");
  b.Blackboard("shy", false);
  b.Sequence()
      ->Check("not shy")
      ->Action("Hello")
      ->Wait(0.5)
    ->End();
  std::printf("%s", b.Yaml().c_str());  // the brain as YAML text

  std::vector<thicket::Diagnostic> diags;
  auto brain = b.Load(rt, diags);
  for (const auto& d : diags) std::printf("%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) return 2;
  std::printf("%s", rt.dump(*brain).c_str());

  thicket::AgentHandle a = rt.spawn(*brain);
  for (int tick = 0; tick < 4; ++tick) rt.tick(a, 0.25);
  return 0;
}
