// The context-free core of FSMState and AdvancedFSM (SPEC 4): transition maps, the state
// registry, transition lookup and the deduplicated error log. Hook calls live in the templates.
#include "thicket/fsm.hpp"

#include <algorithm>

namespace thicket {

std::string_view fsm_result_name(FsmResult r) {
  switch (r) {
#define THICKET_FSM_NAME(name, snake, meaning) \
  case FsmResult::name: return snake;
    THICKET_FSM_RESULTS(THICKET_FSM_NAME)
#undef THICKET_FSM_NAME
  }
  return "unknown";
}

std::string_view fsm_result_meaning(FsmResult r) {
  switch (r) {
#define THICKET_FSM_MEANING(name, snake, meaning) \
  case FsmResult::name: return meaning;
    THICKET_FSM_RESULTS(THICKET_FSM_MEANING)
#undef THICKET_FSM_MEANING
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// FSMStateBase

FSMStateBase::FSMStateBase(StateId id, std::string_view name) : id_(id), name_(name) {}

FsmResult FSMStateBase::AddTransition(TransitionId transition, StateId target) {
  if (transition < 0) return FsmResult::InvalidTransition;
  if (target < 0) return FsmResult::InvalidState;
  if (GetOutputState(transition) != kNoState) return FsmResult::DuplicateTransition;
  map_.push_back({transition, target});
  return FsmResult::Ok;
}

FsmResult FSMStateBase::DeleteTransition(TransitionId transition) {
  if (transition < 0) return FsmResult::InvalidTransition;
  auto it = std::find_if(map_.begin(), map_.end(),
                         [&](const TransitionEdge& e) { return e.transition == transition; });
  if (it == map_.end()) return FsmResult::UnknownTransition;
  map_.erase(it);  // erase, not swap-and-pop: keeps insertion order for dumps
  return FsmResult::Ok;
}

StateId FSMStateBase::GetOutputState(TransitionId transition) const {
  for (const TransitionEdge& e : map_)
    if (e.transition == transition) return e.target;
  return kNoState;
}

// ---------------------------------------------------------------------------------------------
// AdvancedFSMBase

// Moves keep state pointers valid (the states live on the heap); the source is left empty.
AdvancedFSMBase::AdvancedFSMBase(AdvancedFSMBase&& other) noexcept
    : states_(std::move(other.states_)),
      current_(std::exchange(other.current_, nullptr)),
      started_(std::exchange(other.started_, false)),
      in_hook_(std::exchange(other.in_hook_, false)),
      in_update_(std::exchange(other.in_update_, false)),
      errors_(std::move(other.errors_)),
      handler_(std::move(other.handler_)),
      transition_names_(std::move(other.transition_names_)) {
  other.states_.clear();
  other.errors_.clear();
  other.transition_names_.clear();
}

AdvancedFSMBase& AdvancedFSMBase::operator=(AdvancedFSMBase&& other) noexcept {
  if (this == &other) return *this;
  states_ = std::move(other.states_);
  current_ = std::exchange(other.current_, nullptr);
  started_ = std::exchange(other.started_, false);
  in_hook_ = std::exchange(other.in_hook_, false);
  in_update_ = std::exchange(other.in_update_, false);
  errors_ = std::move(other.errors_);
  handler_ = std::move(other.handler_);
  transition_names_ = std::move(other.transition_names_);
  other.states_.clear();
  other.errors_.clear();
  other.transition_names_.clear();
  return *this;
}

FsmResult AdvancedFSMBase::AddStateBase(std::unique_ptr<FSMStateBase> state) {
  if (!state) return Report(FsmResult::InvalidState);
  StateId id = state->ID();
  if (id < 0) return Report(FsmResult::InvalidState, id);
  if (FindState(id)) return Report(FsmResult::DuplicateState, id);
  states_.push_back(std::move(state));
  if (!current_) current_ = states_.back().get();  // the first state added is the initial one
  return FsmResult::Ok;
}

FsmResult AdvancedFSMBase::DeleteState(StateId id) {
  if (Busy(false)) return Report(FsmResult::Reentrant, id);
  if (id < 0) return Report(FsmResult::InvalidState, id);
  auto it = std::find_if(states_.begin(), states_.end(),
                         [&](const std::unique_ptr<FSMStateBase>& s) { return s->ID() == id; });
  if (it == states_.end()) return Report(FsmResult::UnknownState, id);
  // A machine always has a current state once it has any, so hooks always have a state to run.
  if (it->get() == current_) return Report(FsmResult::DeleteCurrentState, id);
  states_.erase(it);
  return FsmResult::Ok;
}

FSMStateBase* AdvancedFSMBase::FindState(StateId id) {
  for (auto& s : states_)
    if (s->ID() == id) return s.get();
  return nullptr;
}

const FSMStateBase* AdvancedFSMBase::FindState(StateId id) const {
  for (const auto& s : states_)
    if (s->ID() == id) return s.get();
  return nullptr;
}

FsmResult AdvancedFSMBase::ResolveTransition(TransitionId transition, FSMStateBase** to) {
  if (!current_) return Report(FsmResult::NoCurrentState, kNoState, transition);
  StateId from = current_->ID();
  if (transition < 0) return Report(FsmResult::InvalidTransition, from, transition);
  StateId target = current_->GetOutputState(transition);
  if (target == kNoState) return Report(FsmResult::UnmappedTransition, from, transition);
  *to = FindState(target);
  if (!*to) return Report(FsmResult::MissingTargetState, from, transition, target);
  return FsmResult::Ok;
}

std::size_t AdvancedFSMBase::Validate() {
  std::size_t missing = 0;
  for (const auto& s : states_) {
    for (const TransitionEdge& e : s->Transitions()) {
      if (FindState(e.target)) continue;
      Report(FsmResult::MissingTargetState, s->ID(), e.transition, e.target);
      ++missing;
    }
  }
  return missing;
}

FsmResult AdvancedFSMBase::Report(FsmResult code, StateId state, TransitionId transition,
                                  StateId target) {
  for (FsmError& e : errors_) {
    if (e.code == code && e.state == state && e.transition == transition && e.target == target) {
      ++e.count;  // seen before: no allocation, no second report
      return code;
    }
  }
  errors_.push_back({code, state, transition, target, 1});
  if (handler_) handler_(errors_.back());
  return code;
}

void AdvancedFSMBase::SetTransitionName(TransitionId id, std::string_view name) {
  for (auto& [known, text] : transition_names_) {
    if (known == id) {
      text = name;
      return;
    }
  }
  transition_names_.emplace_back(id, std::string(name));
}

std::string_view AdvancedFSMBase::TransitionName(TransitionId id) const {
  for (const auto& [known, text] : transition_names_)
    if (known == id) return text;
  return {};
}

std::string AdvancedFSMBase::StateLabel(StateId id) const {
  if (const FSMStateBase* s = FindState(id); s && !s->Name().empty()) return std::string(s->Name());
  return std::string(1, '#').append(std::to_string(id));  // not "#" + ...: GCC 12's false -Wstringop-overflow
}

std::string AdvancedFSMBase::TransitionLabel(TransitionId id) const {
  if (std::string_view name = TransitionName(id); !name.empty()) return std::string(name);
  return std::string(1, '#').append(std::to_string(id));
}

std::string AdvancedFSMBase::Describe(const FsmError& e) const {
  const std::string state = StateLabel(e.state);
  const std::string transition = TransitionLabel(e.transition);
  std::string text;
  switch (e.code) {
    case FsmResult::Ok: text = "no error"; break;
    case FsmResult::InvalidState:
      text = e.state == kNoState ? std::string("invalid state: null or id -1")
                                 : "invalid state id " + std::to_string(e.state);
      break;
    case FsmResult::InvalidTransition:
      text = "invalid transition id " + std::to_string(e.transition) + " in state " + state;
      break;
    case FsmResult::DuplicateTransition:
      text = "duplicate transition " + transition + " in state " + state;
      break;
    case FsmResult::UnknownTransition:
      text = "state " + state + " has no transition " + transition + " to delete";
      break;
    case FsmResult::DuplicateState: text = "duplicate state " + state; break;
    case FsmResult::UnknownState: text = "no state " + state + " to delete"; break;
    case FsmResult::DeleteCurrentState: text = "cannot delete the current state " + state; break;
    case FsmResult::NoCurrentState: text = "the machine has no states"; break;
    case FsmResult::UnmappedTransition:
      text = "unmapped transition " + transition + " in state " + state;
      break;
    case FsmResult::MissingTargetState:
      text = "transition " + transition + " in state " + state + " leads to missing state #" +
             std::to_string(e.target);
      break;
    case FsmResult::Reentrant:
      text = "FSM called from inside an enter/leave hook or from inside Update (state " + state +
             ")";
      break;
  }
  if (e.count > 1) text += " (x" + std::to_string(e.count) + ")";
  return text;
}

}  // namespace thicket
