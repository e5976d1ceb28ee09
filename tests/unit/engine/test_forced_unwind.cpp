// A thread ended inside a leaf (pthread_exit, or a cancellation: glibc ends it by a "forced
// unwind", an exception no catch may swallow; Python 3.11 ends a thread that takes the GIL at
// exit so) unwinds through tick_all: the tick loop catches a leaf's exceptions to keep them,
// but rethrows this one. Swallowed, glibc aborts the process ("FATAL: exception not rethrown").
#include <doctest/doctest.h>

#include <pthread.h>

#include <atomic>
#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace {

std::atomic<int> g_calls{0};

struct Ticker {
  thicket::Runtime* rt = nullptr;
  bool returned = false;
};

void* tick_on_thread(void* p) {
  auto* t = static_cast<Ticker*>(p);
  t->rt->tick_all(0.1);
  t->returned = true;  // not reached: the leaf ended the thread
  return nullptr;
}

}  // namespace

TEST_CASE("a thread ended inside a native leaf (pthread_exit) unwinds through tick_all, on each path") {
  // 0: the plain loop; 1: traced (the loop that also delivers events and trace records);
  // 2: the batched walk of agent_local leaves (64 agents, past the batch's 32).
  for (int path = 0; path < 3; ++path) {
    CAPTURE(path);
    g_calls = 0;
    thicket::Runtime rt;
    thicket::NativeLeafFn leave;
    leave.tick = [](thicket::LeafContext&, void*) -> thicket::Status {
      ++g_calls;
      pthread_exit(nullptr);
    };
    leave.agent_local = path == 2;
    rt.register_leaf("Leave", leave);
    std::vector<thicket::Diagnostic> d;
    auto brain = rt.load_string("tree: t\nroot:\n  action: Leave\n", "t.yaml", d);
    REQUIRE(brain);
    for (int k = 0; k < (path == 2 ? 64 : 1); ++k) rt.spawn(*brain);
    if (path == 1) rt.on_trace([](const thicket::TraceEvent&) {});
    Ticker t{&rt};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, nullptr, tick_on_thread, &t) == 0);
    REQUIRE(pthread_join(thread, nullptr) == 0);
    CHECK(g_calls == 1);  // the first agent's leaf ended the thread
    CHECK_FALSE(t.returned);
  }
}
