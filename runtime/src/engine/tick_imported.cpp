// The tick of imported trees' kinds (SPEC 13, docs/import.md): BehaviorTree.CPP 4's nodes
// (bt_*) and behavior3js 0.2.2's (b3_*), each transcribed from its library's source
// (docs/design/import-semantics.md has the pseudo-code this follows, line by line).
//
// BT.CPP keeps a status per node until the parent resets it to IDLE; here a node's status
// byte is that status, and IDLE is Invalid or Aborted. A SKIPPED result travels as Invalid
// and is never stored otherwise than as idle, as in BT.CPP. BT.CPP's wake-up signal (a node
// that finished a fresh child and has more to do returns RUNNING) is followed as
// tickExactlyOnce does: the rest waits for the next tick. Timers run on sim time, tested at
// the tick.
//
// behavior3 opens a node when it is entered closed, closes it when it returns anything but
// RUNNING, and after each tick closes the nodes left open last tick that this tick did not
// reach, comparing the two open lists position by position with its off-by-one (the node at
// the first difference stays open). Here a node is open while its status is Running; ERROR
// travels as Aborted.
#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "tick.hpp"
#include "tick_ctx.hpp"

namespace thicket {

namespace {
inline bool active(Status s) { return s == Status::Running || s == Status::Success || s == Status::Failure; }
inline bool completed(Status s) { return s == Status::Success || s == Status::Failure; }
constexpr Status kSkipped = Status::Invalid;
constexpr Status kError = Status::Aborted;
// behavior3's repeaters loop within a tick while their child completes; with max_loop -1 and a
// child that never runs, behavior3 never returns. Here a tick stops looping after this many
// completions and returns RUNNING; the next tick goes on counting.
constexpr uint32_t kB3LoopCap = 100000;

// BT.CPP's CheckStringEquality: equal texts, or both whole integers that are equal, or both
// whole reals within float epsilon.
bool bt_case_equal(std::string_view a, std::string_view b) {
  if (a == b) return true;
  auto whole_int = [](std::string_view s, int64_t& v) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
  };
  auto whole_real = [](std::string_view s, double& v) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
  };
  int64_t ia, ib;
  if (whole_int(a, ia) && whole_int(b, ib)) return ia == ib;
  double da, db;
  if (whole_real(a, da) && whole_real(b, db)) return std::fabs(da - db) <= FLT_EPSILON;
  return false;
}
}  // namespace

// BT.CPP's haltChild / resetChild: a running child is halted, then the child is idle.
void Engine::bt_reset(Ctx& c, uint32_t ch) {
  if (c.status(ch) == Status::Running) abort(c, ch);
  c.status(ch) = Status::Invalid;
}

// A child of a BT.CPP node, ticked as BT.CPP's executeTick would: an action is a
// StatefulActionNode there, which ticked again while it still holds a finished status (its
// parent did not reset it: WhileDoElse's condition while a branch runs, a two-child
// IfThenElse's failed condition) returns that status without a call (action_node.cpp).
Status Engine::bt_child(Ctx& c, uint32_t ch) {
  if (c.nodes[ch].kind == NodeKind::Action && completed(c.status(ch))) return c.status(ch);
  return tick_node(c, ch);
}

void Engine::bt_reset_children(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  for (uint16_t pos = 0; pos < n.count; ++pos) bt_reset(c, c.kids[n.children + pos]);
}

// What an imported node does when halted (Engine::abort, after its running children): BT.CPP's
// halt() of each kind; every child is idle afterwards (ControlNode::halt, DecoratorNode::halt).
void Engine::imported_halt(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  switch (n.kind) {
    case NodeKind::BtSequence:
    case NodeKind::BtFallback: c.state<uint32_t>(n) = 0; break;  // index and skipped count
    case NodeKind::BtTryCatch:  // index, skipped count and the catch flag (catch_on_halt false)
      c.state<uint32_t>(n) = 0;
      c.state<uint16_t>(n, 4) = 0;
      break;
    case NodeKind::BtIfThenElse:
    case NodeKind::BtSwitch: c.state<uint16_t>(n) = 0; break;
    case NodeKind::BtRepeat:
    case NodeKind::BtRetry: c.state<uint32_t>(n) = 0; break;
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay: c.state<uint8_t>(n, 8) = 0; break;  // the timer is cancelled
    case NodeKind::BtGuard:  // haltNode: the node's halt (its running child, above), then its _onHalted
      if (c.p.guards[n.a][7] != kNoNode) run_script(c, i, c.p.guards[n.a][7]);
      break;
    default: break;  // SequenceWithMemory keeps its index; RunOnce and Precondition their flags
  }
  if (is_bt_kind(n.kind))
    for (uint16_t pos = 0; pos < n.count; ++pos) c.status(c.kids[n.children + pos]) = Status::Invalid;
}

// What an imported node keeps as its status after a tick that returned `s` (BT.CPP stores
// every result but SKIPPED; most of its nodes set themselves RUNNING before they tick a
// child, so a skipped result leaves them RUNNING, and a parent halts them as running ones).
Status Engine::tick_imported(Ctx& c, uint32_t i, Status& kept) {
  const Status before = c.status(i);
  const bool once_done = c.nodes[i].kind == NodeKind::BtRunOnce && (c.state<uint16_t>(c.nodes[i]) & 1);
  const Status s = tick_kind(c, i);
  kept = s;
  if (s != kSkipped) return s;
  const NodeKind k = c.nodes[i].kind;
  switch (k) {
    case NodeKind::BtSwitch:
    case NodeKind::BtPrecondition: kept = before; break;  // no setStatus(RUNNING) in their tick
    case NodeKind::BtRunOnce: kept = once_done ? before : Status::Running; break;  // done: returns at once
    case NodeKind::BtSubtree:
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay: kept = active(before) ? before : Status::Running; break;  // RUNNING when entered
    case NodeKind::BtGuard: kept = c.status(i + 1); break;  // as the node it holds keeps (idle when skipped by it)
    default: kept = is_bt_kind(k) && k != NodeKind::BtSleep ? Status::Running : s; break;
  }
  return s;
}

Status Engine::tick_kind(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  if (is_b3_kind(n.kind)) return n.kind == NodeKind::B3Tree ? b3_tree(c, i) : b3_execute(c, i);
  if (n.kind == NodeKind::Always) return static_cast<Status>(n.a);
  if (kind_info(n.kind).shape == Shape::Decorator && n.kind != NodeKind::BtGuard) {
    Status s = bt_decorator(c, i);
    if (completed(c.status(i + 1))) c.status(i + 1) = Status::Invalid;  // DecoratorNode::executeTick
    return s;
  }
  // The status BT.CPP's node holds when ticked; the root's is idle again after it finished
  // (Tree::tickRoot resets it), so its pre-conditions and counts start afresh.
  const Status own = i == 0 && completed(c.status(i)) ? Status::Invalid : c.status(i);
  auto kid = [&](uint32_t pos) { return c.kids[n.children + pos]; };
  const uint16_t count = n.count;
  switch (n.kind) {
    case NodeKind::BtSequence:
    case NodeKind::BtFallback:
    case NodeKind::BtSequenceMemory: {
      uint16_t* idx = &c.state<uint16_t>(n);
      uint16_t* skipped = idx + 1;
      const bool fallback = n.kind == NodeKind::BtFallback;
      const bool memory = n.kind == NodeKind::BtSequenceMemory;
      const bool yields = memory || n.a != 0;  // every node of a factory-built tree requires wake-up
      const Status go_on = fallback ? Status::Failure : Status::Success;
      const Status ends = fallback ? Status::Success : Status::Failure;
      if (!active(own)) *skipped = 0;
      while (*idx < count) {
        const uint32_t ch = kid(*idx);
        const bool was_idle = !active(c.status(ch));
        const Status s = bt_child(c, ch);
        if (s == Status::Running) return s;
        if (s == ends) {
          if (memory) {
            for (uint16_t k = *idx; k < count; ++k) bt_reset(c, kid(k));
          } else {
            bt_reset_children(c, i);
            *idx = 0;
          }
          return s;
        }
        ++*idx;
        if (s == go_on) {
          if (yields && was_idle && *idx < count) return Status::Running;
        } else {  // skipped
          ++*skipped;
        }
      }
      const bool all_skipped = *skipped == count;
      bt_reset_children(c, i);
      *idx = 0;
      *skipped = 0;
      return all_skipped ? kSkipped : go_on;
    }
    case NodeKind::BtTryCatch: {
      // TryCatchNode::tick (BT.CPP 4.10, controls/try_catch_node.cpp): the children but the
      // last as a Sequence (the try block; resumes at its running child); a failure in it
      // resets them and ticks the last child (the catch) in the same tick, until it completes;
      // then the node fails, whatever the catch returned. All try children skipped: skipped.
      uint16_t* idx = &c.state<uint16_t>(n);
      uint16_t* skipped = idx + 1;
      uint16_t* in_catch = idx + 2;
      if (!active(own)) {
        *skipped = 0;
        *in_catch = 0;
      }
      const uint16_t tries = static_cast<uint16_t>(count - 1);
      if (!*in_catch) {
        while (*idx < tries) {
          const Status s = bt_child(c, kid(*idx));
          if (s == Status::Running) return s;
          if (s == Status::Failure) {
            bt_reset_children(c, i);
            *idx = 0;
            *in_catch = 1;
            break;
          }
          ++*idx;
          if (s == kSkipped) ++*skipped;
        }
        if (!*in_catch) {
          const bool all_skipped = *skipped == tries;
          bt_reset_children(c, i);
          *idx = 0;
          *skipped = 0;
          return all_skipped ? kSkipped : Status::Success;
        }
      }
      const Status s = bt_child(c, kid(tries));  // the catch
      if (s == Status::Running) return s;
      bt_reset_children(c, i);
      *idx = 0;
      *in_catch = 0;
      return Status::Failure;
    }
    case NodeKind::BtReactiveSequence:
    case NodeKind::BtReactiveFallback: {
      const bool fallback = n.kind == NodeKind::BtReactiveFallback;
      const Status ends = fallback ? Status::Success : Status::Failure;
      bool all_skipped = true;
      for (uint16_t pos = 0; pos < count; ++pos) {
        const Status s = bt_child(c, kid(pos));
        all_skipped = all_skipped && s == kSkipped;
        if (s == Status::Running) {
          for (uint16_t k = 0; k < count; ++k)
            if (k != pos) bt_reset(c, kid(k));
          return s;
        }
        if (s == ends) {
          bt_reset_children(c, i);
          return s;
        }
        if (s == kSkipped) bt_reset(c, kid(pos));
      }
      bt_reset_children(c, i);
      return all_skipped ? kSkipped : (fallback ? Status::Failure : Status::Success);
    }
    case NodeKind::BtParallel: {
      const int32_t sa = static_cast<int32_t>(n.a), fa = static_cast<int32_t>(n.b);
      const int32_t req = sa < 0 ? std::max<int32_t>(count + sa + 1, 0) : sa;
      const int32_t fail_t = fa < 0 ? std::max<int32_t>(count + fa + 1, 0) : fa;
      int32_t successes = 0, failures = 0, skipped = 0;
      for (uint16_t pos = 0; pos < count; ++pos) {  // the completed list: children finished in this run
        const Status s = c.status(kid(pos));
        successes += s == Status::Success;
        failures += s == Status::Failure;
      }
      for (uint16_t pos = 0; pos < count; ++pos) {
        const uint32_t ch = kid(pos);
        if (!completed(c.status(ch))) {
          const Status s = bt_child(c, ch);
          skipped += s == kSkipped;
          successes += s == Status::Success;
          failures += s == Status::Failure;
        }
        if (successes >= req || (sa < 0 && successes + skipped >= req)) {
          bt_reset_children(c, i);
          return Status::Success;
        }
        if (count - failures < req || failures == fail_t) {
          bt_reset_children(c, i);
          return Status::Failure;
        }
      }
      return skipped == count ? kSkipped : Status::Running;
    }
    case NodeKind::BtParallelAll: {
      const int32_t ma = static_cast<int32_t>(n.a);
      const int32_t threshold = ma < 0 ? std::max<int32_t>(count + ma + 1, 0) : ma;
      int32_t skipped = 0;
      for (uint16_t pos = 0; pos < count; ++pos) {
        const uint32_t ch = kid(pos);
        if (completed(c.status(ch))) continue;
        skipped += bt_child(c, ch) == kSkipped;
      }
      if (skipped == count) return kSkipped;
      int32_t done = 0, failures = 0;
      for (uint16_t pos = 0; pos < count; ++pos) {
        const Status s = c.status(kid(pos));
        done += completed(s);
        failures += s == Status::Failure;
      }
      if (skipped + done >= count) {
        bt_reset_children(c, i);
        return failures >= threshold ? Status::Failure : Status::Success;
      }
      return Status::Running;
    }
    case NodeKind::BtIfThenElse: {
      uint16_t& branch = c.state<uint16_t>(n);
      if (branch >= count) branch = 0;  // a hot reload took its branch away
      if (branch == 0) {
        const Status s = bt_child(c, kid(0));
        if (s == Status::Running) return s;
        if (s == Status::Success) branch = 1;
        else if (s == Status::Failure && count == 3) branch = 2;
        else return Status::Failure;  // 2 children: no reset (BT.CPP); a skipped condition: BT.CPP throws
      }
      const Status s = bt_child(c, kid(branch));
      if (s == Status::Running) return s;
      bt_reset_children(c, i);
      branch = 0;
      return s;
    }
    case NodeKind::BtWhileDoElse: {
      const Status cond = bt_child(c, kid(0));
      if (cond == Status::Running) return cond;
      Status s = Status::Failure;  // a skipped condition: BT.CPP throws
      if (cond == Status::Success) {
        if (count == 3) bt_reset(c, kid(2));
        s = bt_child(c, kid(1));
      } else if (cond == Status::Failure && count == 3) {
        bt_reset(c, kid(1));
        s = bt_child(c, kid(2));
      }
      if (s == Status::Running) return s;
      bt_reset_children(c, i);
      return s;
    }
    case NodeKind::BtSwitch: {
      uint16_t& running = c.state<uint16_t>(n);  // running child + 1; 0: none
      if (running > count) running = 0;           // a hot reload took it away
      // The variable as BT.CPP's text (a number as std::to_string writes it), in place: no
      // string is built on the tick path.
      char text[512];
      std::string_view value;
      if (n.a == kNoNode) {
        value = c.p.messages[n.b];
      } else {
        const Slot& slot = reinterpret_cast<const Slot*>(c.block + c.p.bb_offset)[n.a];
        switch (c.p.blackboard[n.a].type) {
          case ValueType::Number:
            value = std::string_view(text, static_cast<size_t>(std::snprintf(text, sizeof text, "%f", slot.num)));
            break;
          case ValueType::Integer:
            value = std::string_view(text, static_cast<size_t>(std::to_chars(text, text + sizeof text, slot.i).ptr - text));
            break;
          case ValueType::Boolean: value = slot.i ? "1" : "0"; break;
          case ValueType::String: value = strings_.get(slot.str); break;
          case ValueType::Any: break;
        }
      }
      uint16_t match = count - 1;
      const std::string& present = c.p.messages[n.b + count];
      for (uint16_t k = 0; k + 1 < count; ++k)
        if (present[k] == '1' && bt_case_equal(value, c.p.messages[n.b + 1 + k])) {
          match = k;
          break;
        }
      if (running != 0 && running - 1 != match) bt_reset(c, kid(running - 1));
      const Status s = bt_child(c, kid(match));
      if (s == kSkipped) {
        running = 0;
      } else if (s == Status::Running) {
        running = match + 1;
      } else {
        bt_reset_children(c, i);
        running = 0;
      }
      return s;
    }
    case NodeKind::BtGuard: {
      // TreeNode::executeTick: the pre-conditions (checkPreConditions) or the node's tick, then,
      // when that completed, the post-conditions (checkPostConditions).
      const auto& g = c.p.guards[n.a];
      const Status r = bt_guarded(c, i, own);
      if (r == Status::Success && g[4] != kNoNode) run_script(c, i, g[4]);
      if (r == Status::Failure && g[5] != kNoNode) run_script(c, i, g[5]);
      if (completed(r) && g[6] != kNoNode) run_script(c, i, g[6]);
      return r;
    }
    case NodeKind::BtScript:  // ScriptNode::tick: the code, then SUCCESS
      if (n.a != kNoNode) run_script(c, i, n.a);
      return Status::Success;
    case NodeKind::BtSleep: {
      double& started = c.state<double>(n);
      if (own == Status::Running) return c.now - started >= n.seconds - kTimeEpsilon ? Status::Success : Status::Running;
      if (completed(own)) return own;  // StatefulActionNode: not reset since, it repeats its status
      if (n.seconds <= 0) return Status::Success;
      started = c.now;
      return Status::Running;
    }
    default: return Status::Failure;
  }
}

// BT.CPP's pre-conditions of the node a bt_guard holds (TreeNode::checkPreConditions), or,
// when none decides, the node's tick. `_failureIf`, `_successIf` and `_skipIf` are tested
// only while the node is idle; `_while` also while it runs, and false then halts it (haltNode:
// its halt, then its `_onHalted` script).
Status Engine::bt_guarded(Ctx& c, uint32_t i, Status own) {
  const Node& n = c.nodes[i];
  const uint32_t child = i + 1;
  const bool idle = !active(own);
  if (idle && c.status(child) != Status::Running) c.status(child) = Status::Invalid;
  const auto& g = c.p.guards[n.a];
  const Slot* slots = reinterpret_cast<const Slot*>(c.block + c.p.bb_offset);
  for (int k = 0; k < 4; ++k) {
    if (g[k] == kNoNode) continue;
    if (idle) {
      const bool v = c.p.exprs[g[k]].eval(slots, strings_);
      if (v && k < 3) {
        const Status r = k == 0 ? Status::Failure : k == 1 ? Status::Success : kSkipped;
        if (r != kSkipped) c.status(child) = r;
        return r;
      }
      if (!v && k == 3) return kSkipped;
    } else if (own == Status::Running && k == 3 && !c.p.exprs[g[k]].eval(slots, strings_)) {
      bt_reset(c, child);
      if (g[7] != kNoNode) run_script(c, i, g[7]);
      return kSkipped;
    }
  }
  return bt_child(c, child);
}

// A script's steps in order (BT.CPP's statements; ExprAssignment::evaluate): each evaluates its
// expression against the blackboard as the steps before it left it and writes its key. The
// expressions read only the agent's own slots and strings interned at load: no allocation.
// A value its key cannot hold (nan for a number key; for an integer key anything but a whole
// number in int64's range, as a Lua write is refused) is an error, counted with the script
// errors; the key keeps its value and the next steps run.
void Engine::run_script(Ctx& c, uint32_t i, uint32_t script) {
  Slot* slots = reinterpret_cast<Slot*>(c.block + c.p.bb_offset);
  const Program::Range r = c.p.scripts[script];
  for (uint32_t k = r.begin; k < r.begin + r.count; ++k) {
    const Program::ScriptStep& step = c.p.script_steps[k];
    const Slot v = c.p.exprs[step.expr].value(slots, strings_);
    Slot& out = slots[step.slot];
    switch (step.type) {
      case ValueType::Number:
        if (std::isnan(v.num)) [[unlikely]]
          bad_script_value(rt_, c.p, c.agent, i, step, v.num);
        else
          out.num = v.num;
        break;
      case ValueType::Integer:
        if (!(v.num >= -9.2233720368547758e18 && v.num < 9.2233720368547758e18) || v.num != std::trunc(v.num)) [[unlikely]]
          bad_script_value(rt_, c.p, c.agent, i, step, v.num);
        else
          out.i = static_cast<int64_t>(v.num);
        break;
      case ValueType::Boolean: out.i = v.i != 0; break;
      case ValueType::String: out.str = static_cast<uint32_t>(v.i); break;
      case ValueType::Any: break;  // refused at load
    }
  }
}

void Engine::bad_script_value(RuntimeImpl& rt, const Program& p, const AgentInfo& a, uint32_t i,
                              const Program::ScriptStep& step, double value) {
  const std::string& key = p.blackboard[step.slot].name;
  char shown[64];
  std::snprintf(shown, sizeof shown, "%.17g", value);
  const std::string first =
      "'" + key + "' is " +
      (step.type == ValueType::Integer ? "an integer key, which takes whole numbers only" : "a number key, which takes no nan") +
      ": '" + key + " = " + std::string(p.exprs[step.expr].source()) + "' gave " +
      (std::isnan(value) ? std::string("nan") : std::string(shown)) + ", not written (the key keeps its value)";
  ++rt.brain_errors;
  if (rt.script_error_silenced(p, i, first)) return;
  std::ostringstream out;
  out << "error: " << first << "\n  in the script at node " << p.ids[i] << ", agent " << a.id << ", tick " << a.ticks;
  rt.script_error(p, i, first, out.str());
}

// BT.CPP's decorators; the caller resets a child that finished (DecoratorNode::executeTick).
Status Engine::bt_decorator(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  const uint32_t child = i + 1;
  switch (n.kind) {
    case NodeKind::BtInverter: {
      const Status s = bt_child(c, child);
      return s == Status::Success ? Status::Failure : s == Status::Failure ? Status::Success : s;
    }
    case NodeKind::BtForceSuccess: {
      const Status s = bt_child(c, child);
      return completed(s) ? Status::Success : s;
    }
    case NodeKind::BtForceFailure: {
      const Status s = bt_child(c, child);
      return completed(s) ? Status::Failure : s;
    }
    case NodeKind::BtSubtree: return bt_child(c, child);
    case NodeKind::BtRepeat:
    case NodeKind::BtRetry: {
      const bool retry = n.kind == NodeKind::BtRetry;
      const int32_t limit = static_cast<int32_t>(n.a);
      uint32_t& done = c.state<uint32_t>(n);
      const Status again = retry ? Status::Failure : Status::Success;  // the result that loops
      bool loop = static_cast<int64_t>(done) < limit || limit == -1;
      while (loop) {
        const bool was_idle = !active(c.status(child));
        const Status s = bt_child(c, child);
        if (s == again) {
          ++done;
          loop = static_cast<int64_t>(done) < limit || limit == -1;
          bt_reset(c, child);
          if (was_idle && loop) return Status::Running;  // wake-up: the next cycle next tick
        } else if (s == Status::Running) {
          return s;
        } else if (s == kSkipped) {
          bt_reset(c, child);
          return s;
        } else {  // the other completion ends it
          done = 0;
          bt_reset(c, child);
          return s;
        }
      }
      done = 0;
      return retry ? Status::Failure : Status::Success;
    }
    case NodeKind::BtKeepRunning: {
      const Status s = bt_child(c, child);
      if (s == Status::Failure) {
        bt_reset(c, child);
        return s;
      }
      if (s == Status::Success) bt_reset(c, child);
      return Status::Running;  // success, running, and skipped (status() is RUNNING there)
    }
    case NodeKind::BtRunOnce: {
      uint16_t& once = c.state<uint16_t>(n);  // low byte: done; high byte: the status it ended with
      if (once & 1) return n.a ? kSkipped : static_cast<Status>(once >> 8);
      const Status s = bt_child(c, child);
      if (completed(s)) {
        once = static_cast<uint16_t>(1 | (static_cast<uint16_t>(s) << 8));
        bt_reset(c, child);
      }
      return s;
    }
    case NodeKind::BtTimeout: {
      double& started_at = c.state<double>(n);
      uint8_t& started = c.state<uint8_t>(n, 8);
      uint8_t& fired = c.state<uint8_t>(n, 9);
      if (!started) {
        started = 1;
        fired = 0;
        started_at = c.now;
      }
      if (n.seconds > 0 && !fired && c.now - started_at >= n.seconds - kTimeEpsilon) {
        fired = 1;  // the timer fired since the last tick: it halts a running child
        if (c.status(child) == Status::Running) {
          bt_reset(c, child);
          started = 0;
          return Status::Failure;
        }
      }
      const Status s = bt_child(c, child);
      if (completed(s)) {
        started = 0;
        bt_reset(c, child);
      }
      return s;
    }
    case NodeKind::BtDelay: {
      double& started_at = c.state<double>(n);
      uint8_t& started = c.state<uint8_t>(n, 8);
      if (!started) {  // the timer starts; it cannot have fired within this tick
        started = 1;
        started_at = c.now;
        return Status::Running;
      }
      if (c.now - started_at < n.seconds - kTimeEpsilon) return Status::Running;
      const Status s = bt_child(c, child);
      if (completed(s)) {
        started = 0;
        bt_reset(c, child);
      }
      return s;
    }
    case NodeKind::BtPrecondition: {
      uint16_t& running = c.state<uint16_t>(n);  // not cleared by a halt, as in BT.CPP
      if (!running)
        running = c.p.exprs[n.a].eval(reinterpret_cast<const Slot*>(c.block + c.p.bb_offset), strings_) ? 1 : 0;
      if (!running) return static_cast<Status>(n.b & 0xFF);
      const Status s = bt_child(c, child);
      if (completed(s)) {
        bt_reset(c, child);
        running = 0;
      }
      return s;
    }
    default: return Status::Failure;
  }
}

// ---- behavior3 ----

// BaseNode._execute: enter (the tick's open list), open when closed, tick, close unless running.
Status Engine::b3_execute(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  b3_open_.push_back(i);
  const bool opening = c.status(i) != Status::Running;
  Status s = Status::Running;
  if (n.kind == NodeKind::Action) {
    const bool hooked = c.hot(i).hooked;
    if (opening && hooked) s = leaf_start(c, i);
    if (s == Status::Running) s = leaf_tick(c, i);
    if (s != Status::Running && s != Status::Success && s != Status::Failure) s = Status::Failure;
    if (s != Status::Running) {
      if (!b3_open_.empty()) b3_open_.pop_back();
      // (As tick_action. The mem stays: the end-of-tick pass may close the node again, and
      // behavior3's close() sees the node's memory; the next open replaces it.)
      if (hooked && !c.hot(i).native.tick) b3_kept_.push_back(i);
      if (hooked && !leaf_stop(c, i, s, true) && s == Status::Success) s = Status::Failure;
      c.status(i) = s;
      return s;
    }
    c.status(i) = s;
    return s;
  }
  if (opening) {
    switch (n.kind) {
      case NodeKind::B3MemSequence:
      case NodeKind::B3MemPriority: c.state<uint16_t>(n) = 0; break;
      case NodeKind::B3Limiter:
      case NodeKind::B3Repeater:
      case NodeKind::B3RepeatUntilFailure:
      case NodeKind::B3RepeatUntilSuccess: c.state<uint32_t>(n) = 0; break;
      case NodeKind::B3MaxTime:
      case NodeKind::B3Wait: c.state<double>(n) = c.now; break;
      default: break;
    }
  }
  s = b3_tick(c, i);
  if (s != Status::Running && !b3_open_.empty()) b3_open_.pop_back();  // pops the last, whichever it is
  c.status(i) = s;
  return s;
}

Status Engine::b3_tick(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  auto kid = [&](uint32_t pos) { return c.kids[n.children + pos]; };
  switch (n.kind) {
    case NodeKind::Condition:
    case NodeKind::Check: return condition_at(c, i);
    case NodeKind::Always: return static_cast<Status>(n.a);
    case NodeKind::B3Sequence:
    case NodeKind::B3Priority: {
      const Status go_on = n.kind == NodeKind::B3Sequence ? Status::Success : Status::Failure;
      for (uint16_t pos = 0; pos < n.count; ++pos) {
        const Status s = b3_execute(c, kid(pos));
        if (s != go_on) return s;
      }
      return go_on;
    }
    case NodeKind::B3MemSequence:
    case NodeKind::B3MemPriority: {
      const Status go_on = n.kind == NodeKind::B3MemSequence ? Status::Success : Status::Failure;
      uint16_t& running = c.state<uint16_t>(n);
      for (uint16_t pos = running; pos < n.count; ++pos) {
        const Status s = b3_execute(c, kid(pos));
        if (s != go_on) {
          if (s == Status::Running) running = pos;
          return s;
        }
      }
      return go_on;
    }
    case NodeKind::B3Inverter: {
      const Status s = b3_execute(c, i + 1);
      return s == Status::Success ? Status::Failure : s == Status::Failure ? Status::Success : s;
    }
    case NodeKind::B3Limiter: {
      uint32_t& done = c.state<uint32_t>(n);
      if (static_cast<int64_t>(done) >= static_cast<int32_t>(n.a)) return Status::Failure;
      const Status s = b3_execute(c, i + 1);
      if (completed(s)) ++done;
      return s;
    }
    case NodeKind::B3MaxTime: {
      const double opened = c.state<double>(n);
      const double now = c.now;  // read before the child ticks, as behavior3 does
      const Status s = b3_execute(c, i + 1);
      return now - opened > n.seconds + kTimeEpsilon ? Status::Failure : s;
    }
    case NodeKind::B3Repeater:
    case NodeKind::B3RepeatUntilFailure:
    case NodeKind::B3RepeatUntilSuccess: {
      const int32_t limit = static_cast<int32_t>(n.a);
      uint32_t& done = c.state<uint32_t>(n);
      Status s = n.kind == NodeKind::B3Repeater ? Status::Success : kError;
      for (uint32_t rounds = 0; limit < 0 || static_cast<int64_t>(done) < limit; ++rounds) {
        if (rounds == kB3LoopCap) return Status::Running;
        s = b3_execute(c, i + 1);
        const bool again = n.kind == NodeKind::B3Repeater ? completed(s)
                           : n.kind == NodeKind::B3RepeatUntilFailure ? s == Status::Success
                                                                      : s == Status::Failure;
        if (!again) break;
        ++done;
      }
      return s;
    }
    case NodeKind::B3Wait: return c.now - c.state<double>(n) > n.seconds + kTimeEpsilon ? Status::Success : Status::Running;
    default: return Status::Failure;
  }
}

// BehaviorTree.tick: the root runs, then the nodes open after the last tick are closed, deepest
// first, from one past the first place where that list and this tick's open list differ (those
// that closed themselves in this tick included: they are closed twice).
Status Engine::b3_tree(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  b3_open_.clear();
  b3_kept_.clear();
  const Status s = b3_execute(c, i + 1);
  uint32_t* saved = &c.state<uint32_t>(n);  // [count, nodes...], at most n.a nodes
  uint32_t last = saved[0];
  // A hot reload keeps this state when the tree kept its size; its nodes must still be ours.
  for (uint32_t k = 0; k < last; ++k)
    if (last > n.a || saved[1 + k] <= i || saved[1 + k] >= n.end) last = 0;
  const uint32_t common = std::min<uint32_t>(last, static_cast<uint32_t>(b3_open_.size()));
  uint32_t start = 0;
  for (uint32_t k = 0; k < common; ++k) {
    start = k + 1;
    if (saved[1 + k] != b3_open_[k]) break;
  }
  for (uint32_t k = last; k-- > start;) {
    const uint32_t node = saved[1 + k];
    const bool hooked_action = c.nodes[node].kind == NodeKind::Action && c.hot(node).hooked;
    if (c.status(node) != Status::Running) {
      // Closed already, most often by itself in this tick: behavior3js's pass closes it again
      // all the same (`lastOpenNodes[i]._close(tick)` skips no node), so a custom node's
      // close() runs twice in that tick. A leaf's stop hook is its close(): called again, with
      // the status it finished with. (A leaf this pass closed before, `aborted`, is not told a
      // second time: its run is over and no halt follows.)
      const Status done = c.status(node);
      if (hooked_action && (done == Status::Success || done == Status::Failure)) {
        leaf_stop(c, node, done, true);
        if (!c.hot(node).native.tick) b3_kept_.push_back(node);
      }
      continue;
    }
    if (hooked_action) leaf_stop(c, node, Status::Aborted);
    c.status(node) = Status::Aborted;
  }
  // No close of those runs follows: their mem goes (a leaf opened again in this tick, a
  // Repeater's child, runs on with a mem of its own).
  for (const uint32_t node : b3_kept_)
    if (c.status(node) != Status::Running) {
      c.cs.node = node;
      script_->drop_mem(c.cs);
    }
  const uint32_t keep = std::min<uint32_t>(static_cast<uint32_t>(b3_open_.size()), n.a);
  saved[0] = keep;
  std::memcpy(saved + 1, b3_open_.data(), keep * sizeof(uint32_t));
  return s;
}

}  // namespace thicket
