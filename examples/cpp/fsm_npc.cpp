// The FSM framework's NPC as a finite state machine built from C++ states alone (no YAML, no Lua):
// it patrols, chases the player once it sees them, attacks in range, chases again when the player
// steps out of range and goes back to patrolling when the player is lost.
//
// The world is one line: the player's position is scripted per tick, the NPC moves by its own
// Act. Every tick prints: tick, positions, distance, the state (and the transition that fired),
// and what the NPC did. Output is deterministic.
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>

#include "thicket/fsm.hpp"

using thicket::AdvancedFSM;
using thicket::FSMState;
using thicket::FsmResult;
using thicket::kNoTransition;
using thicket::StateId;
using thicket::TransitionId;

namespace {

enum : StateId { kPatrol, kChase, kAttack };
enum : TransitionId { kSawPlayer, kReachPlayer, kOutOfRange, kLostPlayer };

constexpr int kSightRange = 12;   // metres: patrol -> chase at or below this distance
constexpr int kAttackRange = 3;   // metres: chase -> attack at or below, attack -> chase above
constexpr int kLoseRange = 20;    // metres: chase -> patrol above this distance
constexpr int kPatrolStep = 2;    // metres per tick
constexpr int kChaseStep = 3;     // metres per tick
constexpr int kWaypointA = 0, kWaypointB = 10;

// The context every state receives: the NPC itself plus what it did this tick (for printing).
struct Npc {
  int x = 0;
  int player_x = 0;
  int heading = +1;  // patrol direction
  int shots = 0;
  TransitionId fired = kNoTransition;
  std::string did;

  int Distance() const { return std::abs(player_x - x); }
  void StepToward(int target, int step) {
    if (std::abs(target - x) <= step) x = target;
    else x += target > x ? step : -step;
  }
  TransitionId Fire(TransitionId t) { return fired = t; }
  void Note(const std::string& text) { did += did.empty() ? text : "; " + text; }
};

class PatrolState : public FSMState<Npc> {
 public:
  PatrolState() : FSMState(kPatrol, "patrol") { AddTransition(kSawPlayer, kChase); }
  TransitionId Reason(Npc& npc) override {
    return npc.Distance() <= kSightRange ? npc.Fire(kSawPlayer) : kNoTransition;
  }
  void DoBeforeEntering(Npc& npc) override { npc.Note("back on the beat"); }
  void Act(Npc& npc) override {
    int goal = npc.heading > 0 ? kWaypointB : kWaypointA;
    npc.StepToward(goal, kPatrolStep);
    if (npc.x == goal) npc.heading = -npc.heading;
    npc.Note("walks to " + std::to_string(npc.x));
  }
};

class ChaseState : public FSMState<Npc> {
 public:
  ChaseState() : FSMState(kChase, "chase") {
    AddTransition(kReachPlayer, kAttack);
    AddTransition(kLostPlayer, kPatrol);
  }
  TransitionId Reason(Npc& npc) override {
    if (npc.Distance() <= kAttackRange) return npc.Fire(kReachPlayer);
    if (npc.Distance() > kLoseRange) return npc.Fire(kLostPlayer);
    return kNoTransition;
  }
  void DoBeforeEntering(Npc& npc) override { npc.Note("shouts \"there!\""); }
  void Act(Npc& npc) override {
    npc.StepToward(npc.player_x, kChaseStep);
    npc.Note("runs to " + std::to_string(npc.x));
  }
};

class AttackState : public FSMState<Npc> {
 public:
  AttackState() : FSMState(kAttack, "attack") { AddTransition(kOutOfRange, kChase); }
  TransitionId Reason(Npc& npc) override {
    return npc.Distance() > kAttackRange ? npc.Fire(kOutOfRange) : kNoTransition;
  }
  void DoBeforeEntering(Npc& npc) override {
    npc.shots = 0;
    npc.Note("draws");
  }
  void DoBeforeLeaving(Npc& npc) override { npc.Note("holsters after " + std::to_string(npc.shots)); }
  void Act(Npc& npc) override { npc.Note("shoots (#" + std::to_string(++npc.shots) + ")"); }
};

}  // namespace

int main() {
  AdvancedFSM<Npc> fsm;
  fsm.AddFSMState(std::make_unique<PatrolState>());  // first added: the initial state
  fsm.AddFSMState(std::make_unique<ChaseState>());
  fsm.AddFSMState(std::make_unique<AttackState>());
  fsm.SetTransitionName(kSawPlayer, "saw_player");
  fsm.SetTransitionName(kReachPlayer, "reach_player");
  fsm.SetTransitionName(kOutOfRange, "out_of_range");
  fsm.SetTransitionName(kLostPlayer, "lost_player");
  if (fsm.Validate() != 0) {
    for (const auto& e : fsm.Errors()) std::printf("error: %s\n", fsm.Describe(e).c_str());
    return 1;
  }

  // The player walks in, stands still, sidesteps twice, then runs away faster than the NPC.
  const int player_x[] = {30, 27, 24, 21, 18, 16, 15, 15, 15, 19, 19, 19, 25, 31, 37, 43, 49, 55, 61, 61};

  Npc npc;
  std::printf("tick  player  npc  dist  state                           did\n");
  for (int tick = 1; tick <= static_cast<int>(std::size(player_x)); ++tick) {
    npc.player_x = player_x[tick - 1];
    npc.fired = kNoTransition;
    npc.did.clear();
    const int npc_x = npc.x;               // where Reason sees it, before Act moves it
    const int distance = npc.Distance();
    const std::string from(fsm.CurrentState()->Name());

    FsmResult result = fsm.Update(npc);

    std::string state(fsm.CurrentState()->Name());
    if (npc.fired != kNoTransition)
      state = from + " -> " + state + " (" + std::string(fsm.TransitionName(npc.fired)) + ")";
    std::printf("%4d  %6d  %3d  %4d  %-30s  %s\n", tick, npc.player_x, npc_x, distance,
                state.c_str(), npc.did.c_str());
    if (result != FsmResult::Ok) std::printf("      error: %s\n", fsm.Describe(fsm.Errors().back()).c_str());
  }
  return 0;
}
