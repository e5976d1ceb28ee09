// FSMState / AdvancedFSM (SPEC 4): every method, every error path, the order of hooks tick by
// tick, and seed 003's NPC built from C++ states alone.
#include <doctest/doctest.h>

#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thicket/fsm.hpp"
#include "thicket/runtime.hpp"

using namespace thicket;

namespace {

// The context of the test machines: a log of every hook call and a script of what Reason returns.
struct Probe {
  std::vector<std::string> log;
  std::map<StateId, TransitionId> next;  // what each state's Reason returns (kNoTransition if absent)
  std::function<void(Probe&, StateId, const char*)> on_hook;  // optional extra behaviour per hook

  TransitionId NextFor(StateId id) {
    auto it = next.find(id);
    return it == next.end() ? kNoTransition : it->second;
  }
  std::string Joined() const {
    std::string s;
    for (const auto& e : log) s += (s.empty() ? "" : " ") + e;
    return s;
  }
};

class Logged : public FSMState<Probe> {
 public:
  Logged(StateId id, std::string_view name, int* destroyed = nullptr)
      : FSMState(id, name), destroyed_(destroyed) {}
  ~Logged() override {
    if (destroyed_) ++*destroyed_;
  }
  TransitionId Reason(Probe& p) override {
    Hook(p, "reason");
    return p.NextFor(ID());
  }
  void Act(Probe& p) override { Hook(p, "act"); }
  void DoBeforeEntering(Probe& p) override { Hook(p, "enter"); }
  void DoBeforeLeaving(Probe& p) override { Hook(p, "leave"); }

 private:
  void Hook(Probe& p, const char* what) {
    p.log.push_back(std::string(Name()) + "." + what);
    if (p.on_hook) p.on_hook(p, ID(), what);
  }
  int* destroyed_;
};

enum : StateId { kA, kB, kC };
enum : TransitionId { kGo, kBack, kLoop, kNowhere };

// A -go-> B, B -back-> A, B -loop-> B, A -nowhere-> C (C is never added).
AdvancedFSM<Probe> MakeAB() {
  AdvancedFSM<Probe> fsm;
  auto a = std::make_unique<Logged>(kA, "A");
  a->AddTransition(kGo, kB);
  a->AddTransition(kNowhere, kC);
  auto b = std::make_unique<Logged>(kB, "B");
  b->AddTransition(kBack, kA);
  b->AddTransition(kLoop, kB);
  fsm.AddFSMState(std::move(a));
  fsm.AddFSMState(std::move(b));
  fsm.SetTransitionName(kGo, "go");
  fsm.SetTransitionName(kBack, "back");
  return fsm;
}

}  // namespace

TEST_CASE("fsm: every result code has a distinct name and a meaning") {
  std::vector<std::string_view> names;
#define NAME_OF(name, snake, meaning) names.push_back(fsm_result_name(FsmResult::name));
  THICKET_FSM_RESULTS(NAME_OF)
#undef NAME_OF
  CHECK(names.size() == 12);
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = i + 1; j < names.size(); ++j) CHECK(names[i] != names[j]);
  CHECK(fsm_result_name(FsmResult::Ok) == "ok");
  CHECK(fsm_result_name(FsmResult::UnmappedTransition) == "unmapped_transition");
  CHECK(fsm_result_meaning(FsmResult::Ok) == "no error");
  CHECK(!fsm_result_meaning(FsmResult::Reentrant).empty());
}

TEST_CASE("FSMState: id, name and the transition map") {
  FSMState<Probe> s(7, "seven");
  CHECK(s.ID() == 7);
  CHECK(s.Name() == "seven");
  CHECK(FSMState<Probe>(3).Name().empty());
  CHECK(s.Transitions().empty());

  CHECK(s.AddTransition(1, 10) == FsmResult::Ok);
  CHECK(s.AddTransition(2, 7) == FsmResult::Ok);  // to itself
  CHECK(s.GetOutputState(1) == 10);
  CHECK(s.GetOutputState(2) == 7);
  CHECK(s.GetOutputState(3) == kNoState);
  CHECK(s.GetOutputState(kNoTransition) == kNoState);

  SUBCASE("duplicate transition is rejected and the first mapping kept") {
    CHECK(s.AddTransition(1, 11) == FsmResult::DuplicateTransition);
    CHECK(s.GetOutputState(1) == 10);
    CHECK(s.Transitions().size() == 2);
  }
  SUBCASE("invalid ids are rejected") {
    CHECK(s.AddTransition(kNoTransition, 10) == FsmResult::InvalidTransition);
    CHECK(s.AddTransition(-5, 10) == FsmResult::InvalidTransition);
    CHECK(s.AddTransition(4, kNoState) == FsmResult::InvalidState);
    CHECK(s.AddTransition(4, -9) == FsmResult::InvalidState);
    CHECK(s.Transitions().size() == 2);
    CHECK(s.DeleteTransition(kNoTransition) == FsmResult::InvalidTransition);
  }
  SUBCASE("delete keeps the others in insertion order; a deleted transition can be re-added") {
    CHECK(s.AddTransition(3, 30) == FsmResult::Ok);
    CHECK(s.DeleteTransition(1) == FsmResult::Ok);
    CHECK(s.GetOutputState(1) == kNoState);
    REQUIRE(s.Transitions().size() == 2);
    CHECK(s.Transitions()[0].transition == 2);
    CHECK(s.Transitions()[1].transition == 3);
    CHECK(s.Transitions()[1].target == 30);
    CHECK(s.DeleteTransition(1) == FsmResult::UnknownTransition);
    CHECK(s.DeleteTransition(99) == FsmResult::UnknownTransition);
    CHECK(s.AddTransition(1, 12) == FsmResult::Ok);
    CHECK(s.GetOutputState(1) == 12);
  }
}

TEST_CASE("FSMState: the default hooks do nothing and Reason stays") {
  FSMState<Probe> s(0, "idle");
  Probe p;
  CHECK(s.Reason(p) == kNoTransition);
  s.Act(p);
  s.DoBeforeEntering(p);
  s.DoBeforeLeaving(p);

  AdvancedFSM<Probe> fsm;
  fsm.AddFSMState(std::make_unique<FSMState<Probe>>(0, "idle"));
  for (int i = 0; i < 3; ++i) CHECK(fsm.Update(p) == FsmResult::Ok);
  CHECK(fsm.CurrentStateID() == 0);
  CHECK(fsm.Errors().empty());
}

TEST_CASE("AdvancedFSM: an empty machine reports, never crashes") {
  AdvancedFSM<Probe> fsm;
  Probe p;
  CHECK(fsm.CurrentStateID() == kNoState);
  CHECK(fsm.CurrentState() == nullptr);
  CHECK(fsm.StateCount() == 0);
  CHECK(!fsm.Started());
  CHECK(fsm.Start(p) == FsmResult::NoCurrentState);
  CHECK(fsm.Update(p) == FsmResult::NoCurrentState);
  CHECK(fsm.PerformTransition(kGo, p) == FsmResult::NoCurrentState);
  CHECK(fsm.Stop(p) == FsmResult::Ok);  // nothing to leave
  CHECK(fsm.DeleteState(kA) == FsmResult::UnknownState);
  CHECK(fsm.Validate() == 0);
  CHECK(!fsm.Started());
  CHECK(p.log.empty());
  // Start and Update report the same failure: one entry, counted twice; PerformTransition names
  // its transition, so it is a different entry.
  REQUIRE(fsm.Errors().size() == 3);
  CHECK(fsm.Errors()[0].code == FsmResult::NoCurrentState);
  CHECK(fsm.Errors()[0].count == 2);
  CHECK(fsm.Errors()[1].code == FsmResult::NoCurrentState);
  CHECK(fsm.Errors()[1].transition == kGo);
  CHECK(fsm.Errors()[2].code == FsmResult::UnknownState);
  CHECK(fsm.Describe(fsm.Errors()[0]) == "the machine has no states (x2)");
}

TEST_CASE("AdvancedFSM: AddFSMState") {
  AdvancedFSM<Probe> fsm;
  int destroyed = 0;
  CHECK(fsm.AddFSMState(std::make_unique<Logged>(kA, "A", &destroyed)) == FsmResult::Ok);
  CHECK(fsm.CurrentStateID() == kA);  // the first state added is the initial one
  CHECK(fsm.AddFSMState(std::make_unique<Logged>(kB, "B", &destroyed)) == FsmResult::Ok);
  CHECK(fsm.CurrentStateID() == kA);
  CHECK(fsm.StateCount() == 2);
  CHECK(!fsm.Started());

  SUBCASE("duplicate id: rejected and the rejected state destroyed") {
    CHECK(fsm.AddFSMState(std::make_unique<Logged>(kB, "B2", &destroyed)) == FsmResult::DuplicateState);
    CHECK(destroyed == 1);
    CHECK(fsm.StateCount() == 2);
    CHECK(fsm.FindState(kB)->Name() == "B");
    REQUIRE(fsm.Errors().size() == 1);
    CHECK(fsm.Errors()[0].code == FsmResult::DuplicateState);
    CHECK(fsm.Errors()[0].state == kB);
    CHECK(fsm.Describe(fsm.Errors()[0]) == "duplicate state B");
  }
  SUBCASE("null state and negative id") {
    CHECK(fsm.AddFSMState(nullptr) == FsmResult::InvalidState);
    CHECK(fsm.AddFSMState(std::make_unique<Logged>(-4, "neg", &destroyed)) == FsmResult::InvalidState);
    CHECK(destroyed == 1);
    CHECK(fsm.StateCount() == 2);
    REQUIRE(fsm.Errors().size() == 2);
    CHECK(fsm.Describe(fsm.Errors()[0]) == "invalid state: null or id -1");
    CHECK(fsm.Describe(fsm.Errors()[1]) == "invalid state id -4");
  }
  SUBCASE("typed lookups") {
    CHECK(fsm.FindState(kA) == fsm.CurrentState());
    CHECK(fsm.FindState(kC) == nullptr);
    CHECK(fsm.StateAt(0)->ID() == kA);
    CHECK(fsm.StateAt(1)->ID() == kB);
    const AdvancedFSM<Probe>& cfsm = fsm;
    CHECK(cfsm.CurrentState()->Name() == "A");
    CHECK(cfsm.FindState(kB)->Name() == "B");
    CHECK(cfsm.StateAt(1)->Name() == "B");
    CHECK(cfsm.FindState(kC) == nullptr);
    const AdvancedFSMBase& base = fsm;  // the context-free view used by tools
    CHECK(base.CurrentState()->ID() == kA);
    CHECK(base.FindState(kB)->Name() == "B");
  }
  const int before = destroyed;
  fsm = AdvancedFSM<Probe>();  // destroys the owned states
  CHECK(destroyed == before + 2);
}

TEST_CASE("AdvancedFSM: DeleteState") {
  int destroyed = 0;
  AdvancedFSM<Probe> fsm;
  fsm.AddFSMState(std::make_unique<Logged>(kA, "A", &destroyed));
  auto b = std::make_unique<Logged>(kB, "B", &destroyed);
  b->AddTransition(kBack, kA);
  fsm.AddFSMState(std::move(b));
  fsm.FindState(kA)->AddTransition(kGo, kB);
  Probe p;

  CHECK(fsm.DeleteState(kC) == FsmResult::UnknownState);
  CHECK(fsm.DeleteState(kNoState) == FsmResult::InvalidState);
  CHECK(fsm.DeleteState(kA) == FsmResult::DeleteCurrentState);
  CHECK(fsm.StateCount() == 2);
  CHECK(destroyed == 0);
  CHECK(fsm.Validate() == 0);

  CHECK(fsm.DeleteState(kB) == FsmResult::Ok);
  CHECK(destroyed == 1);
  CHECK(fsm.StateCount() == 1);
  CHECK(fsm.FindState(kB) == nullptr);

  // A's transition to the deleted state dangles: Validate finds it, firing it reports and stays.
  CHECK(fsm.Validate() == 1);
  CHECK(fsm.PerformTransition(kGo, p) == FsmResult::MissingTargetState);
  CHECK(fsm.CurrentStateID() == kA);
  CHECK(p.log.empty());  // nothing ran: not even the implicit Start
  CHECK(!fsm.Started());

  std::vector<std::string> described;
  for (const FsmError& e : fsm.Errors()) described.push_back(fsm.Describe(e));
  CHECK(described == std::vector<std::string>{
                         "no state #2 to delete", "invalid state: null or id -1",
                         "cannot delete the current state A",
                         "transition #0 in state A leads to missing state #1 (x2)"});

  SUBCASE("deleting the current state is rejected even when stopped or after it changed") {
    CHECK(fsm.AddFSMState(std::make_unique<Logged>(kB, "B", &destroyed)) == FsmResult::Ok);
    CHECK(fsm.PerformTransition(kGo, p) == FsmResult::Ok);
    CHECK(fsm.DeleteState(kB) == FsmResult::DeleteCurrentState);
    CHECK(fsm.DeleteState(kA) == FsmResult::Ok);  // the initial state may go once it is not current
    CHECK(fsm.Stop(p) == FsmResult::Ok);
    CHECK(fsm.DeleteState(kB) == FsmResult::DeleteCurrentState);
    CHECK(fsm.CurrentStateID() == kB);
  }
}

TEST_CASE("AdvancedFSM: Start and Stop") {
  auto fsm = MakeAB();
  Probe p;
  CHECK(fsm.Start(p) == FsmResult::Ok);
  CHECK(fsm.Started());
  CHECK(fsm.Start(p) == FsmResult::Ok);  // idempotent: entered once
  CHECK(p.Joined() == "A.enter");
  CHECK(fsm.Stop(p) == FsmResult::Ok);
  CHECK(!fsm.Started());
  CHECK(fsm.Stop(p) == FsmResult::Ok);  // idempotent: left once
  CHECK(p.Joined() == "A.enter A.leave");
  CHECK(fsm.CurrentStateID() == kA);  // Stop keeps the current state...
  CHECK(fsm.Update(p) == FsmResult::Ok);  // ...and the next tick re-enters it
  CHECK(p.Joined() == "A.enter A.leave A.enter A.reason A.act");
  CHECK(fsm.Errors().empty());
}

TEST_CASE("AdvancedFSM: PerformTransition") {
  auto fsm = MakeAB();
  Probe p;
  fsm.Start(p);
  p.log.clear();

  SUBCASE("mapped: leave the old state, then enter the new one") {
    CHECK(fsm.PerformTransition(kGo, p) == FsmResult::Ok);
    CHECK(fsm.CurrentStateID() == kB);
    CHECK(fsm.CurrentState()->Name() == "B");
    CHECK(p.Joined() == "A.leave B.enter");
    CHECK(fsm.PerformTransition(kBack, p) == FsmResult::Ok);
    CHECK(fsm.CurrentStateID() == kA);
    CHECK(p.Joined() == "A.leave B.enter B.leave A.enter");
    CHECK(fsm.Errors().empty());
  }
  SUBCASE("self-transition leaves and re-enters") {
    fsm.PerformTransition(kGo, p);
    p.log.clear();
    CHECK(fsm.PerformTransition(kLoop, p) == FsmResult::Ok);
    CHECK(fsm.CurrentStateID() == kB);
    CHECK(p.Joined() == "B.leave B.enter");
  }
  SUBCASE("unmapped: reported, no hook runs, the state stays") {
    CHECK(fsm.PerformTransition(kBack, p) == FsmResult::UnmappedTransition);
    CHECK(fsm.CurrentStateID() == kA);
    CHECK(p.log.empty());
    REQUIRE(fsm.Errors().size() == 1);
    const FsmError& e = fsm.Errors()[0];
    CHECK(e.code == FsmResult::UnmappedTransition);
    CHECK(e.state == kA);
    CHECK(e.transition == kBack);
    CHECK(e.target == kNoState);
    CHECK(e.count == 1);
    CHECK(fsm.Describe(e) == "unmapped transition back in state A");
  }
  SUBCASE("invalid transition ids") {
    CHECK(fsm.PerformTransition(kNoTransition, p) == FsmResult::InvalidTransition);
    CHECK(fsm.PerformTransition(-3, p) == FsmResult::InvalidTransition);
    CHECK(fsm.CurrentStateID() == kA);
    CHECK(p.log.empty());
    REQUIRE(fsm.Errors().size() == 2);
    CHECK(fsm.Describe(fsm.Errors()[1]) == "invalid transition id -3 in state A");
  }
  SUBCASE("target missing from the machine") {
    CHECK(fsm.PerformTransition(kNowhere, p) == FsmResult::MissingTargetState);
    CHECK(fsm.CurrentStateID() == kA);
    CHECK(p.log.empty());
    REQUIRE(fsm.Errors().size() == 1);
    CHECK(fsm.Errors()[0].target == kC);
    CHECK(fsm.Describe(fsm.Errors()[0]) == "transition #3 in state A leads to missing state #2");
  }
}

TEST_CASE("AdvancedFSM: PerformTransition before Start starts first, so hooks stay balanced") {
  auto fsm = MakeAB();
  Probe p;
  CHECK(fsm.PerformTransition(kGo, p) == FsmResult::Ok);
  CHECK(fsm.Started());
  CHECK(p.Joined() == "A.enter A.leave B.enter");
  p.log.clear();
  CHECK(fsm.Update(p) == FsmResult::Ok);  // already started: no second enter
  CHECK(p.Joined() == "B.reason B.act");
}

TEST_CASE("AdvancedFSM: Update runs Reason, then the transition, then Act, tick by tick") {
  auto fsm = MakeAB();
  Probe p;
  auto tick = [&] {
    p.log.clear();
    FsmResult r = fsm.Update(p);
    return std::make_pair(r, p.Joined());
  };

  // Tick 1: the initial state is entered just before the first tick.
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("A.enter A.reason A.act")));
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("A.reason A.act")));
  p.next[kA] = kGo;
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("A.reason A.leave B.enter B.act")));
  CHECK(fsm.CurrentStateID() == kB);
  // The new state's Reason waits for the next tick.
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("B.reason B.act")));
  p.next[kB] = kLoop;
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("B.reason B.leave B.enter B.act")));
  // An unmapped transition: reported, the state stays and its Act still runs.
  p.next[kB] = kGo;
  CHECK(tick() == std::make_pair(FsmResult::UnmappedTransition, std::string("B.reason B.act")));
  CHECK(tick() == std::make_pair(FsmResult::UnmappedTransition, std::string("B.reason B.act")));
  CHECK(fsm.CurrentStateID() == kB);
  p.next[kB] = kBack;
  CHECK(tick() == std::make_pair(FsmResult::Ok, std::string("B.reason B.leave A.enter A.act")));
  CHECK(fsm.CurrentStateID() == kA);
  REQUIRE(fsm.Errors().size() == 1);
  CHECK(fsm.Errors()[0].count == 2);
}

TEST_CASE("AdvancedFSM: an error is logged once per (state, transition) with a count") {
  auto fsm = MakeAB();
  Probe p;
  std::vector<std::string> reported;
  fsm.SetErrorHandler([&](const FsmError& e) { reported.push_back(fsm.Describe(e)); });

  p.next[kA] = kBack;  // unmapped in A
  for (int i = 0; i < 100; ++i) CHECK(fsm.Update(p) == FsmResult::UnmappedTransition);
  CHECK(fsm.PerformTransition(kLoop, p) == FsmResult::UnmappedTransition);  // a second pair
  CHECK(reported == std::vector<std::string>{"unmapped transition back in state A",
                                             "unmapped transition #2 in state A"});
  REQUIRE(fsm.Errors().size() == 2);
  CHECK(fsm.Errors()[0].count == 100);
  CHECK(fsm.Describe(fsm.Errors()[0]) == "unmapped transition back in state A (x100)");

  SUBCASE("the same transition in another state is a new pair") {
    p.next[kA] = kGo;
    fsm.Update(p);
    p.next[kB] = kBack;
    fsm.PerformTransition(kNowhere, p);  // unmapped in B
    CHECK(fsm.Errors().size() == 3);
    CHECK(reported.back() == "unmapped transition #3 in state B");
  }
  SUBCASE("ClearErrors forgets, so the next occurrence is reported again") {
    fsm.ClearErrors();
    CHECK(fsm.Errors().empty());
    fsm.Update(p);
    CHECK(reported.size() == 3);
    CHECK(fsm.Errors()[0].count == 1);
  }
  SUBCASE("the handler can be removed") {
    fsm.SetErrorHandler({});
    fsm.ClearErrors();
    fsm.Update(p);
    CHECK(reported.size() == 2);
    CHECK(fsm.Errors().size() == 1);
  }
}

TEST_CASE("AdvancedFSM: transition names") {
  AdvancedFSM<Probe> fsm;
  CHECK(fsm.TransitionName(4).empty());
  fsm.SetTransitionName(4, "four");
  fsm.SetTransitionName(5, "five");
  fsm.SetTransitionName(4, "FOUR");  // renaming replaces
  CHECK(fsm.TransitionName(4) == "FOUR");
  CHECK(fsm.TransitionName(5) == "five");
  CHECK(fsm.Describe({FsmResult::DuplicateTransition, 9, 4, 1, 1}) ==
        "duplicate transition FOUR in state #9");
  CHECK(fsm.Describe({FsmResult::UnknownTransition, 9, 6, kNoState, 1}) ==
        "state #9 has no transition #6 to delete");
  CHECK(fsm.Describe({FsmResult::Ok, kNoState, kNoTransition, kNoState, 1}) == "no error");
  CHECK(fsm.Describe({FsmResult::Reentrant, 2, kNoTransition, kNoState, 1}) ==
        "FSM called from inside an enter/leave hook or from inside Update (state #2)");
}

TEST_CASE("AdvancedFSM: calls from inside enter/leave hooks are rejected") {
  auto fsm = MakeAB();
  Probe p;
  std::vector<FsmResult> inner;
  SUBCASE("PerformTransition from DoBeforeEntering") {
    p.on_hook = [&](Probe& q, StateId id, const char* what) {
      if (std::string(what) == "enter" && id == kB) inner.push_back(fsm.PerformTransition(kBack, q));
    };
    CHECK(fsm.PerformTransition(kGo, p) == FsmResult::Ok);
    CHECK(inner == std::vector<FsmResult>{FsmResult::Reentrant});
    CHECK(fsm.CurrentStateID() == kB);
    CHECK(p.Joined() == "A.enter A.leave B.enter");
  }
  SUBCASE("DeleteState of the state about to be entered, from DoBeforeLeaving") {
    p.on_hook = [&](Probe&, StateId id, const char* what) {
      if (std::string(what) == "leave" && id == kA) inner.push_back(fsm.DeleteState(kB));
    };
    CHECK(fsm.PerformTransition(kGo, p) == FsmResult::Ok);
    CHECK(inner == std::vector<FsmResult>{FsmResult::Reentrant});
    CHECK(fsm.CurrentStateID() == kB);
    CHECK(fsm.StateCount() == 2);
  }
  SUBCASE("Start, Stop and Update from the initial DoBeforeEntering") {
    p.on_hook = [&](Probe& q, StateId, const char* what) {
      if (std::string(what) != "enter") return;
      inner.push_back(fsm.Start(q));
      inner.push_back(fsm.Stop(q));
      inner.push_back(fsm.Update(q));
    };
    CHECK(fsm.Start(p) == FsmResult::Ok);
    CHECK(inner == std::vector<FsmResult>(3, FsmResult::Reentrant));
    CHECK(fsm.Started());
    CHECK(p.Joined() == "A.enter");
    REQUIRE(fsm.Errors().size() == 1);  // one (Reentrant, A) entry, seen three times
    CHECK(fsm.Errors()[0].count == 3);
  }
  SUBCASE("Update from Act (inside Update)") {
    p.on_hook = [&](Probe& q, StateId, const char* what) {
      if (std::string(what) == "act") inner.push_back(fsm.Update(q));
    };
    CHECK(fsm.Update(p) == FsmResult::Ok);
    CHECK(inner == std::vector<FsmResult>{FsmResult::Reentrant});
    CHECK(p.Joined() == "A.enter A.reason A.act");
  }
  // After every case the machine still works.
  p.on_hook = nullptr;
  p.log.clear();
  CHECK(fsm.Update(p) == FsmResult::Ok);
}

TEST_CASE("AdvancedFSM: Reason and Act may drive the machine directly, seed style") {
  auto fsm = MakeAB();
  Probe p;
  fsm.Start(p);
  SUBCASE("PerformTransition from Reason: the new state acts this tick") {
    std::vector<FsmResult> inner;
    p.on_hook = [&](Probe& q, StateId id, const char* what) {
      if (std::string(what) == "reason" && id == kA) inner.push_back(fsm.PerformTransition(kGo, q));
    };
    p.log.clear();
    CHECK(fsm.Update(p) == FsmResult::Ok);
    CHECK(inner == std::vector<FsmResult>{FsmResult::Ok});
    CHECK(p.Joined() == "A.reason A.leave B.enter B.act");
  }
  SUBCASE("PerformTransition from Act") {
    p.on_hook = [&](Probe& q, StateId id, const char* what) {
      if (std::string(what) == "act" && id == kA) fsm.PerformTransition(kGo, q);
    };
    p.log.clear();
    CHECK(fsm.Update(p) == FsmResult::Ok);
    CHECK(p.Joined() == "A.reason A.act A.leave B.enter");
    CHECK(fsm.CurrentStateID() == kB);
  }
  SUBCASE("Stop from Reason skips Act; DeleteState of another state from Act is fine") {
    p.on_hook = [&](Probe& q, StateId, const char* what) {
      if (std::string(what) == "reason") fsm.Stop(q);
    };
    p.log.clear();
    CHECK(fsm.Update(p) == FsmResult::Ok);
    CHECK(p.Joined() == "A.reason A.leave");
    CHECK(!fsm.Started());
    std::vector<FsmResult> inner;
    p.on_hook = [&](Probe&, StateId, const char* what) {
      if (std::string(what) == "act") inner.push_back(fsm.DeleteState(kB));
    };
    p.log.clear();
    CHECK(fsm.Update(p) == FsmResult::Ok);
    CHECK(p.Joined() == "A.enter A.reason A.act");
    CHECK(inner == std::vector<FsmResult>{FsmResult::Ok});
    CHECK(fsm.StateCount() == 1);
  }
  CHECK(fsm.Errors().empty());
}

TEST_CASE("AdvancedFSM: a throwing hook leaves the machine usable") {
  auto fsm = MakeAB();
  Probe p;
  fsm.Start(p);
  p.on_hook = [](Probe&, StateId id, const char* what) {
    if (std::string(what) == "enter" && id == kB) throw std::runtime_error("boom");
  };
  CHECK_THROWS_AS(fsm.PerformTransition(kGo, p), std::runtime_error);
  CHECK(fsm.CurrentStateID() == kB);  // the switch happened before the hook threw
  p.on_hook = nullptr;
  CHECK(fsm.PerformTransition(kBack, p) == FsmResult::Ok);  // not stuck "inside a hook"
  CHECK(fsm.CurrentStateID() == kA);
}

TEST_CASE("AdvancedFSM: moving a machine keeps its states and current state") {
  auto fsm = MakeAB();
  Probe p;
  fsm.PerformTransition(kGo, p);
  fsm.PerformTransition(kNowhere, p);  // one logged error
  AdvancedFSM<Probe> moved(std::move(fsm));
  CHECK(moved.CurrentStateID() == kB);
  CHECK(moved.Started());
  CHECK(moved.StateCount() == 2);
  CHECK(moved.Errors().size() == 1);
  CHECK(moved.TransitionName(kGo) == "go");
  CHECK(fsm.CurrentStateID() == kNoState);  // NOLINT(bugprone-use-after-move): defined as empty
  CHECK(fsm.StateCount() == 0);
  CHECK(!fsm.Started());
  CHECK(fsm.Errors().empty());
  CHECK(fsm.Update(p) == FsmResult::NoCurrentState);

  std::vector<AdvancedFSM<Probe>> herd;
  herd.push_back(std::move(moved));
  herd.push_back(MakeAB());  // may reallocate: the machines move
  p.log.clear();
  CHECK(herd[0].PerformTransition(kBack, p) == FsmResult::Ok);
  CHECK(p.Joined() == "B.leave A.enter");
  herd[1] = std::move(herd[0]);
  CHECK(herd[1].CurrentStateID() == kA);
  CHECK(herd[0].StateCount() == 0);
}

// ---------------------------------------------------------------------------------------------
// Seed 003's NPC, from C++ states alone: patrol; chase when the player is near; attack in range;
// back to chase when out of range and to patrol when the player is lost.

namespace {

enum : StateId { kPatrol, kChase, kAttack };
enum : TransitionId { kSawPlayer, kReachPlayer, kOutOfRange, kLostPlayer };

struct Npc {
  int distance = 100;  // to the player, metres (scripted by the test)
  int shots = 0;
  int waypoint = 0;
  std::string last;  // what the last Act did
};

constexpr int kSight = 15, kAttackRange = 5, kLoseRange = 25;

class PatrolState : public FSMState<Npc> {
 public:
  PatrolState() : FSMState(kPatrol, "patrol") { AddTransition(kSawPlayer, kChase); }
  TransitionId Reason(Npc& n) override { return n.distance <= kSight ? kSawPlayer : kNoTransition; }
  void Act(Npc& n) override {
    n.waypoint = (n.waypoint + 1) % 4;
    n.last = "walk to waypoint " + std::to_string(n.waypoint);
  }
};

class ChaseState : public FSMState<Npc> {
 public:
  ChaseState() : FSMState(kChase, "chase") {
    AddTransition(kReachPlayer, kAttack);
    AddTransition(kLostPlayer, kPatrol);
  }
  TransitionId Reason(Npc& n) override {
    if (n.distance <= kAttackRange) return kReachPlayer;
    if (n.distance > kLoseRange) return kLostPlayer;
    return kNoTransition;
  }
  void Act(Npc& n) override { n.last = "run toward player"; }
};

class AttackState : public FSMState<Npc> {
 public:
  AttackState() : FSMState(kAttack, "attack") { AddTransition(kOutOfRange, kChase); }
  TransitionId Reason(Npc& n) override {
    return n.distance > kAttackRange ? kOutOfRange : kNoTransition;
  }
  void DoBeforeEntering(Npc& n) override { n.shots = 0; }  // a fresh volley on every entry
  void Act(Npc& n) override { n.last = "shoot #" + std::to_string(++n.shots); }
};

}  // namespace

TEST_CASE("fsm: seed 003's NPC, tick by tick") {
  AdvancedFSM<Npc> fsm;
  REQUIRE(fsm.AddFSMState(std::make_unique<PatrolState>()) == FsmResult::Ok);
  REQUIRE(fsm.AddFSMState(std::make_unique<ChaseState>()) == FsmResult::Ok);
  REQUIRE(fsm.AddFSMState(std::make_unique<AttackState>()) == FsmResult::Ok);
  CHECK(fsm.Validate() == 0);

  const int distance[] = {40, 30, 14, 10, 5, 3, 4, 8, 4, 20, 30, 30};
  const char* expected[][2] = {
      {"patrol", "walk to waypoint 1"}, {"patrol", "walk to waypoint 2"},
      {"chase", "run toward player"},   {"chase", "run toward player"},
      {"attack", "shoot #1"},           {"attack", "shoot #2"},
      {"attack", "shoot #3"},           {"chase", "run toward player"},
      {"attack", "shoot #1"},           {"chase", "run toward player"},
      {"patrol", "walk to waypoint 3"}, {"patrol", "walk to waypoint 0"},
  };
  Npc npc;
  for (size_t t = 0; t < std::size(distance); ++t) {
    CAPTURE(t);
    npc.distance = distance[t];
    CHECK(fsm.Update(npc) == FsmResult::Ok);
    CHECK(fsm.CurrentState()->Name() == expected[t][0]);
    CHECK(npc.last == expected[t][1]);
  }
  CHECK(fsm.Errors().empty());
}

TEST_CASE("trace: fsm transitions and machine switches are trace events, before the tick's record") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  auto fsm = rt.load_string(R"(
fsm: door
blackboard: {open: false}
initial: shut
states:
  shut: {when: [{check: "open", go: ajar}]}
  ajar: {when: [{check: "not open", go: shut}]}
)", "door.yaml", d);
  REQUIRE(fsm);
  auto machine = rt.load_string(R"(
machine: m
blackboard: {near: false}
behaviors:
  - {name: hunt, check: {check: "near"}, tree: {wait: 10}}
  - {name: idle, check: {check: "true"}, tree: {wait: 10}}
)", "m.yaml", d);
  REQUIRE(machine);
  auto a = rt.spawn(*fsm);
  auto b = rt.spawn(*machine);
  std::vector<std::string> seen;
  rt.on_trace([&](const thicket::TraceEvent& e) {
    using T = thicket::TraceEvent::Type;
    if (e.type == T::Tick) seen.push_back("tick " + std::to_string(e.tick));
    if (e.type == T::Transition) seen.push_back("fsm " + e.brain + " " + e.from_name + ">" + e.to_name + " " + e.cause + " (" + e.cause_label + ")");
    if (e.type == T::Switch) seen.push_back("machine " + e.brain + " " + e.from_name + ">" + e.to_name + " " + e.cause);
  });
  rt.tick(a, 0.1);
  rt.set(a, "open", true);
  rt.tick(a, 0.1);
  rt.tick(b, 0.1);
  rt.set(b, "near", true);
  rt.tick(b, 0.1);
  CHECK(seen == std::vector<std::string>{"fsm door >shut  ()", "tick 1", "fsm door shut>ajar shut/when/0 (check open)", "tick 2",
                                         "machine m >idle idle/check", "tick 1", "machine m idle>hunt hunt/check", "tick 2"});
  CHECK(rt.running_nodes(a) == std::vector<std::string>{"root", "ajar"});
  CHECK(rt.running_nodes(b) == std::vector<std::string>{"root", "hunt"});
  CHECK(rt.dump(*fsm).rfind("fsm door:", 0) == 0);
  CHECK(rt.dump(*machine).rfind("machine m:", 0) == 0);
}

TEST_CASE("fsm: a trace sink without ticks gets the transitions and no per-agent tick records") {
  thicket::Runtime rt;
  std::vector<thicket::Diagnostic> d;
  auto fsm = rt.load_string("fsm: door\nblackboard: {open: false}\ninitial: shut\nstates:\n"
                            "  shut: {when: [{check: \"open\", go: ajar}]}\n  ajar: {}\n", "door.yaml", d);
  REQUIRE(fsm);
  auto a = rt.spawn(*fsm);
  std::vector<std::string> seen;
  rt.on_trace([&](const thicket::TraceEvent& e) {
    using T = thicket::TraceEvent::Type;
    seen.push_back(e.type == T::Tick ? "tick" : e.type == T::Transition ? "to " + e.to_name : "other");
  }, false);
  rt.tick(a, 0.1);
  rt.set(a, "open", true);
  rt.tick(a, 0.1);
  CHECK(seen == std::vector<std::string>{"to shut", "to ajar"});
}
