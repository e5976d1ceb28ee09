// SPEC 11, "no heap allocation per node tick": tick_all's calls allocate nothing once warm, in
// the C++ runtime (the Lua heap is the scripts' own, and goes through lua_heap_alloc, not
// operator new). Counted with a replaced global operator new, switched on around the ticks.
// Not in a sanitizer build: the sanitizer's own operator new serves what was bound to it
// before this one, and its checks take the two for a mismatch.
#include <doctest/doctest.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define THICKET_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define THICKET_SANITIZED 1
#endif
#ifndef THICKET_SANITIZED

#include <atomic>
#include <cstdlib>
#include <new>

#include "lua_fixture.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<size_t> g_news{0};

// The operator news of the ticks between on and off.
template <class F>
size_t news_in(F&& f) {
  g_news = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_news.load();
}
// Ten agents of the FSM `brain` (its leaves in l.lua, `leaves`), ticked `warm` times: their
// queues, lists and buffers at their size.
void ten_warm_agents(thicket_test::LuaRuntime& t, const char* leaves, const char* brain, int warm) {
  t.write("l.lua", leaves);
  auto b = t.load(brain);
  for (int i = 0; i < 10; ++i) t.rt.spawn(b);
  for (int i = 0; i < warm; ++i) t.rt.tick_all(0.1);
}

// The operator news of 50 more tick_all calls (with the executor, if one is given).
size_t news_in_50_ticks(thicket_test::LuaRuntime& t, const thicket::Executor* executor = nullptr) {
  return news_in([&] {
    for (int i = 0; i < 50; ++i) executor ? t.rt.tick_all(0.1, *executor) : t.rt.tick_all(0.1);
  });
}
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

TEST_CASE("tick_all allocates nothing once warm: events sent to other agents and to self, and the executor's jobs") {
  // A send holds the event's name interned, not as a std::string: a name past a short
  // string's 15 bytes cost an allocation a send before.
  thicket_test::LuaRuntime t;
  ten_warm_agents(t, R"(
local thicket = require("thicket")
return {
  -- each agent sends its neighbour events every tick (deferred calls of tick_all), and itself one
  SendOther = function(agent, args)
    thicket.send(agent.id % 10 + 1, "poke")
    thicket.send(agent.id % 10 + 1, "enemy_spotted_by_the_watchtower")
    agent:send("reinforcements_are_on_their_way")  -- its own queue, at once
    return thicket.RUNNING
  end,
}
)", R"(
fsm: so
leaves: [l.lua]
initial: a
states:
  a: {act: SendOther, transitions: {poke: b}}
  b: {act: SendOther, transitions: {enemy_spotted_by_the_watchtower: c}}
  c: {act: SendOther, transitions: {reinforcements_are_on_their_way: a}}
)", 20);
  CHECK(news_in_50_ticks(t) == 0);
  // The executor form (SPEC 8.2): its list of jobs, their started flags and the function it is
  // handed are kept or held without an allocation.
  const thicket::Executor in_turn = [](size_t n, const std::function<void(size_t)>& job) {
    for (size_t j = 0; j < n; ++j) job(j);
  };
  for (int i = 0; i < 20; ++i) t.rt.tick_all(0.1, in_turn);
  CHECK(news_in_50_ticks(t, &in_turn) == 0);
  CHECK(t.rt.script_errors() == 0);
}

TEST_CASE("tick_all allocates nothing once warm when sends overflow an agent's event queue") {
  // Every agent sends agent 1 more events than its queue holds: after the first drop, which is
  // logged, a dropped send made its trace event and its log line each time (~3x a delivered
  // send), only for the log to say nothing.
  thicket_test::LuaRuntime t;
  // 200 sends a tick, 64 handled: its queue of 4,096 is full from tick 30 on.
  ten_warm_agents(t, R"(
local thicket = require("thicket")
return {
  Flood = function(agent, args)
    for i = 1, 20 do thicket.send(1, "report_to_the_captain") end
    return thicket.RUNNING
  end,
}
)", R"(
fsm: flood
leaves: [l.lua]
initial: a
states:
  a: {act: Flood, transitions: {report_to_the_captain: a}}
)", 40);
  CHECK(t.joined_log().find("its event queue holds 4096 events") != std::string::npos);  // the first drop, said once
  CHECK(news_in_50_ticks(t) == 0);
}

#endif  // THICKET_SANITIZED
