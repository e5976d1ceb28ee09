// A game linking the installed thicket through its CMake package (thicket::thicket): loads
// tests/consumer/data/counter.yaml, whose leaf is Lua, spawns three agents with different
// targets, ticks them five times and checks what each one did. Exit 0 when all is as expected.
//   consumer PATH/TO/counter.yaml
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "thicket/fsm.hpp"
#include "thicket/nav.hpp"
#include "thicket/navigator.hpp"
#include "thicket/runtime.hpp"
#include "thicket/version.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what.c_str());
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer PATH/TO/counter.yaml\n");
    return 64;
  }
  std::printf("thicket %s (headers %d.%d.%d)\n", thicket::version(), THICKET_VERSION_MAJOR,
              THICKET_VERSION_MINOR, THICKET_VERSION_PATCH);
  expect(std::strcmp(thicket::version(), THICKET_VERSION_STRING) == 0, "thicket::version()");

  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> diagnostics;
  auto brain = rt.load_file(argv[1], diagnostics);
  for (const auto& d : diagnostics) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  if (!brain) {
    std::fprintf(stderr, "consumer: FAILED: %s did not load\n", argv[1]);
    return 1;
  }

  // After five ticks of 0.1 s: target 3 succeeded on tick 3 and fails its check since; target 5
  // succeeds on tick 5; target 8 is still counting.
  struct Case {
    double target;
    thicket::Status status;
    double count;
  };
  const Case cases[] = {{3, thicket::Status::Failure, 3},
                        {5, thicket::Status::Success, 5},
                        {8, thicket::Status::Running, 5}};
  std::vector<thicket::AgentHandle> agents;
  for (const Case& c : cases) agents.push_back(rt.spawn(*brain, {{"target", c.target}}));
  for (int tick = 0; tick < 5; ++tick) rt.tick_all(0.1);

  for (size_t i = 0; i < agents.size(); ++i) {
    const Case& c = cases[i];
    auto count = rt.get(agents[i], "count");
    double got = count && std::holds_alternative<double>(*count) ? std::get<double>(*count) : -1;
    thicket::Status status = rt.status(agents[i]);
    std::printf("agent %u: target %g, count %g, %s\n", rt.agent_id(agents[i]), c.target, got,
                std::string(thicket::status_name(status)).c_str());
    expect(status == c.status, "agent " + std::to_string(i) + " status " + std::string(thicket::status_name(status)) +
                                   ", expected " + std::string(thicket::status_name(c.status)));
    expect(got == c.count, "agent " + std::to_string(i) + " count " + std::to_string(got));
  }
  expect(rt.script_errors() == 0, "script errors");

  // Native leaves in both forms, written as the guide writes them (designated initializers
  // naming only the callables a leaf has): this file compiles with -Wall -Wextra -Werror.
  int ready_calls = 0;
  rt.register_leaf("Ready", thicket::NativeLeafFn{.tick = [](thicket::LeafContext&, void* user) {
                                                    ++*static_cast<int*>(user);
                                                    return thicket::Status::Success;
                                                  },
                                                  .user = &ready_calls});
  rt.register_leaf("Wave", thicket::NativeLeaf{.tick = [](thicket::LeafContext&) { return thicket::Status::Success; }});
  auto native = rt.load_string("tree: native\nroot:\n  sequence:\n    - condition: Ready\n    - action: Wave\n",
                               "native.yaml", diagnostics);
  for (const auto& d : diagnostics) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
  expect(native.has_value(), "the native brain loads");
  if (native) {
    auto agent = rt.spawn(*native);
    rt.tick_all(0.1);
    expect(rt.status(agent) == thicket::Status::Success && ready_calls == 1, "the native leaves ran");
    std::printf("native leaves: %s after one tick\n", std::string(thicket::status_name(rt.status(agent))).c_str());
  }
  // Navigation's option structs, likewise named field by field.
  thicket::nav::GridMap map(8, 8);
  thicket::nav::GridSearch grid;
  expect(grid.find(map, {0, 0}, {7, 7}, {.algorithm = thicket::nav::Algorithm::AStar}) ==
             thicket::nav::SearchState::Found,
         "a grid search on an open map");
  thicket::nav::PathRequest request;
  const thicket::nav::NavWorld world{.map = &map};
  expect(request.find(world, {0.5, 0.5}, {7.5, 0.5}, {.smooth = false}) == thicket::nav::SearchState::Found &&
             request.length() > 6.9 && request.length() < 7.1,
         "a path request on an open map");
  std::printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
