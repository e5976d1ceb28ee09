// Finite state machines in plain C++ (SPEC 4): FSMState and AdvancedFSM, after the framework of
// seed 003. Usable with no YAML and no Lua. (The `fsm:` YAML brains are compiled into the node
// array instead, so they tick with no per-agent objects; both follow SPEC 4.)
//
//   struct Npc { float distance; };                        // your agent: the Context
//   enum : thicket::StateId { kPatrol, kChase };
//   enum : thicket::TransitionId { kSawPlayer, kLostPlayer };
//
//   class Patrol : public thicket::FSMState<Npc> {
//    public:
//     Patrol() : FSMState(kPatrol, "patrol") { AddTransition(kSawPlayer, kChase); }
//     thicket::TransitionId Reason(Npc& npc) override {
//       return npc.distance < 10 ? kSawPlayer : thicket::kNoTransition;
//     }
//     void Act(Npc& npc) override { /* walk the waypoints */ }
//   };
//
//   thicket::AdvancedFSM<Npc> fsm;
//   fsm.AddFSMState(std::make_unique<Patrol>());  // the first one added is the initial one
//   fsm.AddFSMState(std::make_unique<Chase>());
//   fsm.Update(npc);                              // once per tick
//
// Rules shared by every method:
// - Ids are plain integers chosen by the user (usually enums). Negative ids are invalid;
//   kNoState / kNoTransition (-1) mean "none".
// - Nothing here throws (an exception thrown by your own hook passes through, and the machine
//   stays usable: the state switch, if it happened, stands). A method that can fail returns an FsmResult; the machine also appends
//   each distinct failure to its error log (Errors()) and calls the error handler once for it.
//   A repeat of the same failure (same code, state, transition and target) only bumps its count,
//   so an agent that fires an unmapped transition every tick is reported once and never allocates
//   again. FSMState's own methods (used before the state joins a machine) only return the result.
// - Enter/leave hooks are always balanced: every DoBeforeEntering is followed by exactly one
//   DoBeforeLeaving of that state before any other state is entered.
// - The tick path (Update, PerformTransition) does not allocate except to log a first-seen error.
//   Lookups are linear scans over small flat vectors: machines are meant to have a handful to a few
//   dozen states and transitions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "thicket/export.hpp"

namespace thicket {

using StateId = int32_t;
using TransitionId = int32_t;
inline constexpr StateId kNoState = -1;            // "none": GetOutputState of an unmapped transition
inline constexpr TransitionId kNoTransition = -1;  // "none": what Reason returns to stay

// Every outcome of an FSM call: X(Name, "snake_name", "meaning").
#define THICKET_FSM_RESULTS(X)                                                            \
  X(Ok, "ok", "no error")                                                                \
  X(InvalidState, "invalid_state", "a negative state id or a null state")                \
  X(InvalidTransition, "invalid_transition", "a negative transition id")                 \
  X(DuplicateTransition, "duplicate_transition", "the state already maps the transition") \
  X(UnknownTransition, "unknown_transition", "the state does not map the transition")    \
  X(DuplicateState, "duplicate_state", "the machine already has a state with that id")   \
  X(UnknownState, "unknown_state", "the machine has no state with that id")              \
  X(DeleteCurrentState, "delete_current_state", "the current state cannot be deleted")   \
  X(NoCurrentState, "no_current_state", "the machine has no states")                     \
  X(UnmappedTransition, "unmapped_transition", "the current state has no output for it") \
  X(MissingTargetState, "missing_target_state", "the output state is not in the machine") \
  X(Reentrant, "reentrant", "called from an enter/leave hook, or Update inside Update")

enum class FsmResult : uint8_t {
#define THICKET_FSM_ENUM(name, snake, meaning) name,
  THICKET_FSM_RESULTS(THICKET_FSM_ENUM)
#undef THICKET_FSM_ENUM
};

// "ok", "unmapped_transition", ...
THICKET_API std::string_view fsm_result_name(FsmResult r);
// The one-line meaning from THICKET_FSM_RESULTS.
THICKET_API std::string_view fsm_result_meaning(FsmResult r);

// One logged failure of a machine. Fields that do not apply hold kNoState / kNoTransition.
struct FsmError {
  FsmResult code = FsmResult::Ok;
  StateId state = kNoState;                 // the state involved; for transitions, the current one
  TransitionId transition = kNoTransition;  // the transition involved
  StateId target = kNoState;                // the output state involved (MissingTargetState)
  uint32_t count = 1;                       // how many times this exact failure happened
};

// One entry of a state's transition map.
struct TransitionEdge {
  TransitionId transition;
  StateId target;
};

// ---------------------------------------------------------------------------------------------
// The context-free half of a state: its id, an optional display name and its transition map.
// The YAML layer, `dot` and diagnostics inspect states through this type.
class THICKET_API FSMStateBase {
 public:
  explicit FSMStateBase(StateId id, std::string_view name = {});
  virtual ~FSMStateBase() = default;

  StateId ID() const { return id_; }
  // The display name given at construction; empty when none was given.
  std::string_view Name() const { return name_; }

  // Maps `transition` to the output state `target` (which may be this state: a self-transition
  // leaves and re-enters it). Ok, InvalidTransition, InvalidState or DuplicateTransition
  // (the existing mapping is kept).
  FsmResult AddTransition(TransitionId transition, StateId target);
  // Ok, InvalidTransition or UnknownTransition.
  FsmResult DeleteTransition(TransitionId transition);
  // The output state for `transition`, kNoState when it is unmapped (or invalid).
  StateId GetOutputState(TransitionId transition) const;
  // The map in insertion order (deterministic for graphs and dumps).
  std::span<const TransitionEdge> Transitions() const { return map_; }

 private:
  StateId id_;
  std::string name_;
  std::vector<TransitionEdge> map_;  // flat and tiny: a linear scan beats a hash map here
};

// A state of a machine driving a `Context` (your agent, NPC controller, blackboard view...).
// Every hook receives the context the machine was ticked with; the defaults do nothing, so a
// state without Reason never leaves by itself and one without Act only waits.
template <class Context>
class FSMState : public FSMStateBase {
 public:
  using FSMStateBase::FSMStateBase;

  // Decides whether to leave: returns the transition to fire, or kNoTransition to stay.
  virtual TransitionId Reason(Context&) { return kNoTransition; }
  // What the agent does this tick while in this state.
  virtual void Act(Context&) {}
  // Called when this state becomes current (also for the initial state, see Start).
  virtual void DoBeforeEntering(Context&) {}
  // Called when this state stops being current.
  virtual void DoBeforeLeaving(Context&) {}
};

// ---------------------------------------------------------------------------------------------
// The context-free half of a machine: the owned states, the current one, the error log.
class THICKET_API AdvancedFSMBase {
 public:
  using ErrorHandler = std::function<void(const FsmError&)>;

  AdvancedFSMBase() = default;
  AdvancedFSMBase(AdvancedFSMBase&& other) noexcept;
  AdvancedFSMBase& operator=(AdvancedFSMBase&& other) noexcept;
  AdvancedFSMBase(const AdvancedFSMBase&) = delete;
  AdvancedFSMBase& operator=(const AdvancedFSMBase&) = delete;
  ~AdvancedFSMBase() = default;

  // Removes and destroys the state with id `id`. Ok, UnknownState, DeleteCurrentState (the
  // current state can never be deleted, started or not) or Reentrant (from inside a hook).
  // Transitions of other states that led to it stay; firing one reports MissingTargetState.
  FsmResult DeleteState(StateId id);

  // The current state's id; kNoState only while the machine has no states.
  StateId CurrentStateID() const { return current_ ? current_->ID() : kNoState; }
  FSMStateBase* CurrentState() { return current_; }
  const FSMStateBase* CurrentState() const { return current_; }
  // True between Start (explicit or by the first Update/PerformTransition) and Stop.
  bool Started() const { return started_; }

  std::size_t StateCount() const { return states_.size(); }
  // States in the order they were added.
  FSMStateBase* StateAt(std::size_t index) { return states_[index].get(); }
  const FSMStateBase* StateAt(std::size_t index) const { return states_[index].get(); }
  FSMStateBase* FindState(StateId id);
  const FSMStateBase* FindState(StateId id) const;

  // Reports (MissingTargetState) every transition that leads to a state the machine lacks;
  // returns how many there are. Call after building, as a load-time check.
  std::size_t Validate();

  // Distinct failures in the order first seen, each with its repeat count.
  std::span<const FsmError> Errors() const { return errors_; }
  void ClearErrors() { errors_.clear(); }
  // Called once per distinct failure, when first logged (not on repeats). {} removes it.
  void SetErrorHandler(ErrorHandler handler) { handler_ = std::move(handler); }

  // Optional display names for transitions, used by Describe.
  void SetTransitionName(TransitionId id, std::string_view name);
  std::string_view TransitionName(TransitionId id) const;  // empty when unnamed
  // One line for an error, with names where known:
  // "unmapped transition lost_player in state patrol" (a repeat count is appended as " (xN)").
  std::string Describe(const FsmError& error) const;

 protected:
  FsmResult AddStateBase(std::unique_ptr<FSMStateBase> state);
  // Logs and returns `code` (deduplicated; see the header comment).
  FsmResult Report(FsmResult code, StateId state = kNoState,
                   TransitionId transition = kNoTransition, StateId target = kNoState);
  // Checks a transition from the current state; on Ok, `*to` is the state to enter.
  FsmResult ResolveTransition(TransitionId transition, FSMStateBase** to);
  // True inside an enter/leave hook, or (with also_updating) inside Update: such calls are rejected.
  bool Busy(bool also_updating) const { return in_hook_ || (also_updating && in_update_); }

  // Sets a flag for the lifetime of a scope, even if a user hook throws.
  class FlagScope {
   public:
    explicit FlagScope(bool& flag) : flag_(flag) { flag_ = true; }
    ~FlagScope() { flag_ = false; }
    FlagScope(const FlagScope&) = delete;
    FlagScope& operator=(const FlagScope&) = delete;

   private:
    bool& flag_;
  };

  std::vector<std::unique_ptr<FSMStateBase>> states_;
  FSMStateBase* current_ = nullptr;
  bool started_ = false;
  bool in_hook_ = false;    // inside DoBeforeEntering / DoBeforeLeaving
  bool in_update_ = false;  // inside Update

 private:
  std::string StateLabel(StateId id) const;
  std::string TransitionLabel(TransitionId id) const;

  std::vector<FsmError> errors_;
  ErrorHandler handler_;
  std::vector<std::pair<TransitionId, std::string>> transition_names_;
};

// A machine whose states are FSMState<Context>. It owns its states; each agent owns its machine
// (states may keep per-agent data). Context is passed to every call that may run a hook.
template <class Context>
class AdvancedFSM : public AdvancedFSMBase {
 public:
  using State = FSMState<Context>;

  // Takes ownership of `state`. The first state added becomes the current (initial) state; it is
  // entered by Start, not here. Ok, InvalidState (null or negative id) or DuplicateState; on
  // failure the state is destroyed.
  FsmResult AddFSMState(std::unique_ptr<State> state) { return AddStateBase(std::move(state)); }

  State* CurrentState() { return static_cast<State*>(current_); }
  const State* CurrentState() const { return static_cast<const State*>(current_); }
  State* FindState(StateId id) { return static_cast<State*>(AdvancedFSMBase::FindState(id)); }
  const State* FindState(StateId id) const {
    return static_cast<const State*>(AdvancedFSMBase::FindState(id));
  }
  State* StateAt(std::size_t index) { return static_cast<State*>(AdvancedFSMBase::StateAt(index)); }
  const State* StateAt(std::size_t index) const {
    return static_cast<const State*>(AdvancedFSMBase::StateAt(index));
  }

  // Enters the current state (DoBeforeEntering) if the machine has not started. Called by the
  // first Update (so the initial state is entered just before the first tick, SPEC 4); call it
  // yourself to enter earlier. Ok (also when already started), NoCurrentState or Reentrant.
  FsmResult Start(Context& ctx) {
    if (Busy(false)) return Report(FsmResult::Reentrant, CurrentStateID());
    if (!current_) return Report(FsmResult::NoCurrentState);
    if (started_) return FsmResult::Ok;
    started_ = true;
    FlagScope hook(in_hook_);
    CurrentState()->DoBeforeEntering(ctx);
    return FsmResult::Ok;
  }

  // Leaves the current state (DoBeforeLeaving) without entering another, e.g. on despawn or
  // before a reload. The current state stays; the next Start/Update re-enters it.
  // Ok (also when not started) or Reentrant.
  FsmResult Stop(Context& ctx) {
    if (Busy(false)) return Report(FsmResult::Reentrant, CurrentStateID());
    if (!started_) return FsmResult::Ok;
    started_ = false;
    FlagScope hook(in_hook_);
    CurrentState()->DoBeforeLeaving(ctx);
    return FsmResult::Ok;
  }

  // Fires `transition` from the current state: current DoBeforeLeaving, switch, new
  // DoBeforeEntering. A self-transition leaves and re-enters the same state. If the machine has
  // not started it is started first, so hooks stay balanced. On any error nothing runs and the
  // state stays: NoCurrentState, InvalidTransition, UnmappedTransition, MissingTargetState,
  // Reentrant (from inside an enter/leave hook; calling it from Reason or Act is fine).
  FsmResult PerformTransition(TransitionId transition, Context& ctx) {
    if (Busy(false)) return Report(FsmResult::Reentrant, CurrentStateID(), transition);
    FSMStateBase* to = nullptr;
    if (FsmResult r = ResolveTransition(transition, &to); r != FsmResult::Ok) return r;
    if (FsmResult r = Start(ctx); r != FsmResult::Ok) return r;
    FlagScope hook(in_hook_);
    CurrentState()->DoBeforeLeaving(ctx);
    current_ = to;
    CurrentState()->DoBeforeEntering(ctx);
    return FsmResult::Ok;
  }

  // One tick (SPEC 4): Start if not started; the current state's Reason; if it returned a
  // transition, PerformTransition (an error leaves the state as it is); then the Act of the
  // state that is current now (skipped only if Reason called Stop). Returns Ok or the error of
  // Start / the transition (Act still runs after a failed transition, not after a failed Start).
  // Reentrant when called from an enter/leave hook or from inside Update.
  FsmResult Update(Context& ctx) {
    if (Busy(true)) return Report(FsmResult::Reentrant, CurrentStateID());
    FlagScope ticking(in_update_);
    if (FsmResult r = Start(ctx); r != FsmResult::Ok) return r;
    FsmResult result = FsmResult::Ok;
    TransitionId fired = CurrentState()->Reason(ctx);
    if (fired != kNoTransition) result = PerformTransition(fired, ctx);
    if (started_) CurrentState()->Act(ctx);  // not started only if Reason called Stop
    return result;
  }
};

}  // namespace thicket
