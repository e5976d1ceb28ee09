// bench_hsm: what does the hierarchy of a hierarchical state machine (SPEC 4.1, issue 28) cost
// per agent-tick, beside a flat fsm with the same act in the same run; and what does an event
// cost, and does handling one allocate?
//
// Brains (built with FsmBuilder; native leaves only, so the engine is what is timed):
//   flat         one state, act Hold (a native leaf returning running): the baseline
//   hsm          12 states, depth 3; the active configuration alive > combat > engage stays put;
//                engage's act is Hold, the composites have no bodies. Every state maps events
//                and the composites' siblings are real states, none of which fire.
//   hsm-bodies   the same with Hold as the body of alive and combat too: three acts a tick
//                where the others make one (so it is no like-for-like with flat; shown for scale)
// Events: every agent handles one event a tick that moves its leaf state to a sibling and back
// (engage <-> reload; flat: a <-> b), sent two ways:
//   *-send       Runtime::send(agent, "go_b" / "go_a") for every agent before each tick_all (a
//                game's messages); the timed block includes the sends
//   *-self       the state's act (a native leaf) sends the event that moves it away to its own
//                agent (Runtime::send from inside the tick: joins the queue at once), handled in
//                the next tick's event phase
// Printed: ns per agent-tick at 1 agent and at 10,000 agents (median of interleaved reps, best in
// brackets), the ratios to flat, and heap allocations counted by this program's global operator
// new (a bench executable may replace it) over 64 warm ticks: per tick in the steady state and per
// handled event in the event rows, split into the send phase and the tick (handling) phase.
// `bench_hsm ROW AGENTS TICKS` runs one row alone, untimed (for perf record).
// A verification pass first checks, with a trace sink, that every agent in the event rows takes
// exactly one event and makes one transition per tick, and that the steady rows make none.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "harness.hpp"
#include "thicket/builder.hpp"
#include "thicket/runtime.hpp"

// ---- counting heap allocations ---------------------------------------------------------------------
// Every operator new of the program (the runtime's std::vector, std::string, std::function ...)
// lands here. malloc called directly (yaml-cpp, Lua) is not counted; no such call is on the
// paths measured here (native leaves only).
namespace {
std::atomic<uint64_t> g_allocations{0};
void* counted(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* counted_aligned(std::size_t n, std::align_val_t a) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using namespace bench;
using thicket::FsmBuilder;
using thicket::LeafContext;
using thicket::Status;

// ---- the brains --------------------------------------------------------------------------------

enum class Events { None, Send, Self };

// The flat baseline: one state; with events, two states a <-> b.
FsmBuilder flat_brain(Events ev) {
  FsmBuilder b("flat");
  if (ev == Events::None) {
    b.State("hold")->Act("Hold")->End();
    return b;
  }
  const bool self = ev == Events::Self;
  b.Initial("a")
   ->State("a")->Act(self ? "SendB" : "Hold")->On("go_b", "b")->End()
   ->State("b")->Act(self ? "SendA" : "Hold")->On("go_a", "a")->End();
  return b;
}

// 12 states, depth 3: alive > {combat > {engage, reload, cover}, roam > {patrol, rest, search},
// hide}, idle, dead. The active configuration is alive > combat > engage.
FsmBuilder hsm_brain(Events ev, bool bodies) {
  const bool self = ev == Events::Self;
  FsmBuilder b("hsm");
  FsmBuilder* s = b.Initial("alive")->State("alive");
  if (bodies) s->Act("Hold");  // running bodies on the two composites of the active path
  s = s->Initial("combat")->On("sleep", "idle")->On("die", "dead")->State("combat");
  if (bodies) s->Act("Hold");
  s->Initial("engage")->On("calm_down", "roam")->On("flee", "hide")
       ->State("engage")->Act(self ? "SendB" : "Hold")->On("go_b", "reload")->On("exposed", "cover")->End()
       ->State("reload")->Act(self ? "SendA" : "Hold")->On("go_a", "engage")->End()
       ->State("cover")->Act("Hold")->On("clear", "engage")->End()
   ->End()
   ->State("roam")->Initial("patrol")->On("alarm", "combat")
       ->State("patrol")->Act("Hold")->On("tired", "rest")->End()
       ->State("rest")->Act("Hold")->On("noise", "search")->End()
       ->State("search")->Act("Hold")->On("nothing", "patrol")->End()
   ->End()
   ->State("hide")->Act("Hold")->On("safe", "roam")->End()
  ->End()
  ->State("idle")->Act("Hold")->On("wake", "alive")->End()
  ->State("dead")->Final()->End();
  return b;
}

// ---- native leaves -------------------------------------------------------------------------------

Status hold(LeafContext&, void*) { return Status::Running; }

// A leaf that sends `event` to its own agent, then keeps running.
struct SelfSend {
  thicket::Runtime* rt;
  std::string event;  // built once: send() takes a std::string, so no temporary per call
};
Status self_send(LeafContext& c, void* user) {
  auto* s = static_cast<SelfSend*>(user);
  s->rt->send(c.handle(), s->event);
  return Status::Running;
}

// A world: one runtime, one brain, n agents.
struct World {
  std::unique_ptr<thicket::Runtime> rt = std::make_unique<thicket::Runtime>();
  std::unique_ptr<SelfSend> send_a, send_b;
  thicket::BrainHandle brain;
  std::vector<thicket::AgentHandle> agents;
  Events events;
  const std::string go_a = "go_a", go_b = "go_b";
  uint64_t ticks = 0;

  World(const FsmBuilder& b, Events ev, size_t n) : events(ev) {
    thicket::NativeLeafFn h;
    h.tick = hold;
    h.agent_local = true;
    rt->register_leaf("Hold", h);
    send_a = std::make_unique<SelfSend>(SelfSend{rt.get(), "go_a"});
    send_b = std::make_unique<SelfSend>(SelfSend{rt.get(), "go_b"});
    thicket::NativeLeafFn sa, sb;
    sa.tick = sb.tick = self_send;
    sa.user = send_a.get();
    sb.user = send_b.get();
    rt->register_leaf("SendA", sa);
    rt->register_leaf("SendB", sb);
    std::vector<thicket::Diagnostic> d;
    auto loaded = b.Load(*rt, d);
    if (!loaded) fail_load(d);
    brain = *loaded;
    for (size_t i = 0; i < n; ++i) agents.push_back(rt->spawn(brain));
  }
  // One tick of every agent; `send` phase first for the Send rows. Tick 1 enters the initial
  // descent (engage / a), so the event for tick t >= 2 is go_b when t is even, go_a when odd.
  void send() {
    if (events != Events::Send || ticks == 0) return;
    const std::string& ev = (ticks + 1) % 2 == 0 ? go_b : go_a;
    for (const auto& a : agents) rt->send(a, ev);
  }
  void tick() {
    rt->tick_all(0.1);
    ++ticks;
  }
  void step(int n) {
    for (int k = 0; k < n; ++k) {
      send();
      tick();
    }
  }
};

struct Impl {
  const char* name;
  const char* what;
  std::function<FsmBuilder()> brain;
  Events events;
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Impl> impls = {
      {"flat", "fsm, 1 state, act Hold (the baseline)", [] { return flat_brain(Events::None); }, Events::None},
      {"hsm", "12 states, depth 3, leaf state engage acts, composites bare", [] { return hsm_brain(Events::None, false); }, Events::None},
      {"hsm-bodies", "the same, alive and combat run Hold too (3 acts/tick)", [] { return hsm_brain(Events::None, true); }, Events::None},
      {"flat-send", "flat a <-> b, Runtime::send before each tick", [] { return flat_brain(Events::Send); }, Events::Send},
      {"hsm-send", "engage <-> reload, Runtime::send before each tick", [] { return hsm_brain(Events::Send, false); }, Events::Send},
      {"flat-self", "flat a <-> b, the act sends to its own agent", [] { return flat_brain(Events::Self); }, Events::Self},
      {"hsm-self", "engage <-> reload, the act sends to its own agent", [] { return hsm_brain(Events::Self, false); }, Events::Self},
  };
  if (argc == 4) {  // bench_hsm ROW AGENTS TICKS: one row, untimed, for perf
    for (const Impl& im : impls)
      if (im.name == std::string(argv[1])) {
        World w(im.brain(), im.events, std::strtoul(argv[2], nullptr, 10));
        w.step(std::atoi(argv[3]));
        return 0;
      }
    std::fprintf(stderr, "bench_hsm: no row named %s\n", argv[1]);
    return 1;
  }
  std::printf(
      "bench_hsm: a depth-3, 12-state HSM whose leaf state stays put, beside a flat fsm with the same\n"
      "act (native leaves); one event per agent-tick moving the leaf state to a sibling and back.\n"
      "(load average at start: %s)\n\n",
      load_average().c_str());

  // Verification: with a trace sink, count events taken and transitions per agent-tick.
  bool all_ok = true;
  {
    const size_t vn = 100;
    const int vticks = 16;
    std::printf("consistency (%zu agents x %d ticks, traced):\n", vn, vticks);
    for (const Impl& im : impls) {
      World w(im.brain(), im.events, vn);
      uint64_t taken = 0, dropped = 0, transitions = 0;
      w.rt->on_trace(
          [&](const thicket::TraceEvent& e) {
            if (e.type == thicket::TraceEvent::Type::Event) (e.taken_by.empty() ? dropped : taken) += 1;
            if (e.type == thicket::TraceEvent::Type::Transition && !e.from_name.empty()) ++transitions;
          },
          false);
      w.step(vticks);
      const uint64_t want = im.events == Events::None ? 0 : vn * (vticks - 1);  // tick 1 enters the initial states
      const bool ok = taken == want && transitions == want && dropped == 0 && w.rt->script_errors() == 0;
      std::printf("  %-11s %s: %llu events taken, %llu dropped, %llu transitions (want %llu each taken and transitions)\n",
                  im.name, match(ok), u(taken), u(dropped), u(transitions), u(want));
      all_ok = all_ok && ok;
    }
  }

  // Allocations over warm ticks, per tick (steady rows) and per handled event (event rows).
  {
    const size_t an = 1000;
    const int warm = 8, counted_ticks = 64;
    std::printf("\nheap allocations (operator new), %zu agents, %d ticks after %d warm-up ticks:\n", an, counted_ticks, warm);
    for (const Impl& im : impls) {
      World w(im.brain(), im.events, an);
      w.step(warm);
      uint64_t in_send = 0, in_tick = 0;
      for (int t = 0; t < counted_ticks; ++t) {
        uint64_t a0 = g_allocations.load();
        w.send();
        uint64_t a1 = g_allocations.load();
        w.tick();
        uint64_t a2 = g_allocations.load();
        in_send += a1 - a0;
        in_tick += a2 - a1;
      }
      const double events = im.events == Events::None ? 0 : double(an) * counted_ticks;
      if (events > 0)
        std::printf("  %-11s send phase %llu, tick phase %llu: %.3f per handled event\n", im.name, u(in_send), u(in_tick),
                    (in_send + in_tick) / events);
      else
        std::printf("  %-11s tick phase %llu (%.3f per tick)\n", im.name, u(in_tick), double(in_tick) / counted_ticks);
      all_ok = all_ok && in_send + in_tick == 0;
    }
  }

  for (size_t n : {size_t(1), size_t(10000)}) {
    std::vector<std::unique_ptr<World>> worlds;
    for (const Impl& im : impls) worlds.push_back(std::make_unique<World>(im.brain(), im.events, n));
    std::printf("\n%zu agent%s: bytes per agent flat %zu, hsm %zu\n", n, n == 1 ? "" : "s",
                worlds[0]->rt->bytes_per_agent(worlds[0]->brain), worlds[1]->rt->bytes_per_agent(worlds[1]->brain));
    for (auto& w : worlds) w->step(16);  // warm-up
    // A block: about 40,000 agent-ticks, so one agent's block is long enough to time.
    const int block = static_cast<int>(std::max<size_t>(8, 80000 / n));
    const int reps = 41;
    Rows timed;
    for (size_t k = 0; k < impls.size(); ++k)
      timed.add(impls[k].name, impls[k].what, [w = worlds[k].get()](int t) { w->step(t); }, 0);
    timed.measure(reps, block, double(n) * block);
    std::printf("ns per agent-tick (%d reps of %d ticks, interleaved; median, best in brackets):\n", reps, block);
    timed.print();
    auto ratio = [&](const char* x, const char* y) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.2fx (%.2fx)", timed.ratio(x, y), timed.ratio(x, y, true));
      return std::string(buf);
    };
    std::printf("  ratios of medians (of bests):\n");
    std::printf("    hsm / flat            %-16s  goal: within 1.5x: %s\n", ratio("hsm", "flat").c_str(),
                timed.ratio("hsm", "flat") <= 1.5 ? "met" : "MISSED");
    std::printf("    hsm-bodies / flat     %s\n", ratio("hsm-bodies", "flat").c_str());
    std::printf("    hsm-send / flat-send  %-16s  hsm-self / flat-self  %s\n", ratio("hsm-send", "flat-send").c_str(),
                ratio("hsm-self", "flat-self").c_str());
    std::printf("    flat-send / flat      %-16s  hsm-send / hsm        %s\n", ratio("flat-send", "flat").c_str(),
                ratio("hsm-send", "hsm").c_str());
  }
  std::printf("\nload average at end: %s\n", load_average().c_str());
  return consistency(all_ok, "every event taken, one transition per agent-tick, no allocation once warm",
                     "EVENTS LOST OR ALLOCATIONS ON THE TICK PATH") ? 0 : 1;
}
