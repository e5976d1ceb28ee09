// The fsm brain's tick (SPEC 4, 4.1): hierarchical states, events and the tick's phases.
//
// Per agent, the fsm root keeps its active top-level state and each State node its entry time,
// entry number, active child and history child (program.hpp: FsmRootState, FsmStateState); an
// active state's node has status Running. A tick: (1) the initial descent on the first tick,
// (2) the event phase (the agent's queue, oldest first, at most kEventsPerTick taken), (3) the
// check phase (reason, then `when`, innermost state outward; the first target is taken), (4) the
// act phase (every active state's body, outermost first). A transition selects the whole
// descent first (enter_if, initial, history) and is not taken if it cannot; then leaves the
// active states inside the domain innermost first and enters outermost first. Nothing here
// allocates: paths live in fixed arrays (the compiler bounds the nesting), events are interned.
#include <algorithm>
#include <map>
#include <sstream>

#include "tick_ctx.hpp"

namespace thicket {

struct Engine::Hsm {
  Engine& e;
  Ctx& c;
  const Program& p;
  uint32_t fsm;  // the Fsm node
  FsmRootState& rs;
  std::vector<QueuedEvent>& queue;
  bool ended = false;  // a top-level final state was entered: the brain ends this tick

  // A descent to enter, outermost first, and the transition's domain.
  struct Plan {
    uint16_t states[kMaxStateDepth];
    uint32_t n = 0;
    uint16_t domain = kNoPos;  // kNoPos: the brain itself
    uint16_t target = kNoPos;  // the state the transition names
  };

  const FsmState& st(uint16_t s) const { return p.fsm_states[s]; }
  FsmStateState& ss(uint16_t s) { return *reinterpret_cast<FsmStateState*>(c.block + c.nodes[st(s).node].state); }
  bool active(uint16_t s) { return c.status(st(s).node) == Status::Running; }
  uint16_t& active_child(uint16_t s) { return s == kNoPos ? rs.active : ss(s).active; }
  uint16_t innermost() {
    const uint16_t cached = rs.innermost;
    if (cached < p.fsm_states.size() && st(cached).children.empty() && active(cached)) return cached;
    uint16_t s = rs.active;
    while (s != kNoPos && ss(s).active != kNoPos) s = ss(s).active;
    rs.innermost = s;
    return s;
  }
  bool passes(uint32_t node) { return node == kNoNode || e.condition_at(c, node) == Status::Success; }
  bool proper_ancestor(uint16_t a, uint16_t s) const {
    for (uint16_t k = st(s).parent; k != kNoPos; k = st(k).parent)
      if (k == a) return true;
    return false;
  }
  static const FsmTransition* find(const FsmState& s, std::string_view name) {
    for (const FsmTransition& t : s.transitions)
      if (t.name == name) return &t;
    return nullptr;
  }

  // Selects the child of `parent` (kNoPos: the brain) to enter and its descent, into out.
  bool select_child(uint16_t parent, Plan& out) {
    if (parent != kNoPos) {
      const FsmState& s = st(parent);
      // A history state this transition leaves (an active state in a descent is inside the
      // domain) remembers the child it is left with: that child, selected before anything is left.
      const uint16_t remembered = active(parent) && ss(parent).active != kNoPos ? ss(parent).active : ss(parent).history;
      if (s.history && remembered != kNoPos) return descend(remembered, false, out);
      if (s.initial != kNoPos) return descend(s.initial, true, out);
    } else if (p.nodes[fsm].a != kNoPos) {
      return descend(static_cast<uint16_t>(p.nodes[fsm].a), true, out);
    }
    // No initial: the first child, in order, whose enter_if passes and whose own descent can
    // be selected (StateTree's selection: a child whose descent fails is passed over, and the
    // next one tried).
    for (uint16_t k : parent == kNoPos ? p.fsm_top : st(parent).children) {
      if (!passes(st(k).enter_if)) continue;
      const uint32_t mark = out.n;
      if (descend(k, false, out)) return true;
      out.n = mark;
    }
    return false;
  }
  // State s and its descent; `test`: s's enter_if must pass first.
  bool descend(uint16_t s, bool test, Plan& out) {
    if (test && !passes(st(s).enter_if)) return false;
    if (out.n == kMaxStateDepth) return false;  // the compiler bounds the nesting: not reached
    out.states[out.n++] = s;
    if (st(s).children.empty()) return true;
    return select_child(s, out);
  }
  // The transition from state `from` to `to`: its domain and what it enters.
  bool plan(uint16_t from, uint16_t to, Plan& out) {
    out.n = 0;
    out.domain = kNoPos;
    out.target = to;
    if (from != kNoPos) {
      if (proper_ancestor(from, to)) {
        out.domain = from;
      } else {
        for (uint16_t a = st(from).parent; a != kNoPos; a = st(a).parent)
          if (proper_ancestor(a, to)) {
            out.domain = a;
            break;
          }
      }
    }
    uint16_t path[kMaxStateDepth];
    uint32_t len = 0;
    for (uint16_t k = to; k != out.domain && k != kNoPos && len < kMaxStateDepth; k = st(k).parent) path[len++] = k;
    for (uint32_t j = len; j-- > 1;) {  // the states above the target, outermost first
      if (!passes(st(path[j]).enter_if)) return false;
      out.states[out.n++] = path[j];
    }
    return descend(to, true, out);
  }

  // Leaves every active state strictly inside d, innermost first.
  uint32_t exit_inside(uint16_t d, uint16_t* exited) {
    uint16_t chain[kMaxStateDepth];
    uint32_t n = 0;
    for (uint16_t s = active_child(d); s != kNoPos && n < kMaxStateDepth; s = ss(s).active) chain[n++] = s;
    for (uint32_t j = n; j-- > 0;) {
      const uint16_t s = chain[j];
      const FsmState& info = st(s);
      if (info.body != kNoNode) e.abort(c, info.body);
      if (info.exit != kNoNode) e.leaf_plain(c, info.exit);
      c.status(info.node) = Status::Invalid;
      FsmStateState& x = ss(s);
      if (info.history) x.history = x.active;
      x.active = kNoPos;
      exited[n - 1 - j] = s;
    }
    active_child(d) = kNoPos;
    rs.innermost = d;
    return n;
  }

  void send_own(uint32_t name, uint16_t origin) {
    QueuedEvent ev;
    ev.name = name;
    ev.origin = origin;
    ev.serial = origin == kNoPos ? 0 : ss(origin).serial;
    if (queue.size() >= kMaxQueuedEvents) return;  // a storm: RuntimeImpl::queue_event reports it
    queue.push_back(ev);
  }

  void enter(const Plan& plan) {
    for (uint32_t j = 0; j < plan.n; ++j) {
      const uint16_t s = plan.states[j];
      const FsmState& info = st(s);
      active_child(info.parent) = s;
      c.status(info.node) = Status::Running;
      FsmStateState& x = ss(s);
      x.entered_at = c.now;
      x.serial = ++rs.serial;
      x.active = kNoPos;
      if (info.body != kNoNode) c.status(info.body) = Status::Invalid;  // a body starts afresh on entry
      rs.innermost = s;  // the deepest state entered so far
      if (info.enter != kNoNode) e.leaf_plain(c, info.enter);
      if (info.final) {
        if (info.parent == kNoPos) ended = true;
        else send_own(e.rt_.ev_done, info.parent);
      }
    }
  }

  void take(uint16_t from, const Plan& plan, uint32_t cause, std::string_view name, bool by_event, int32_t when_entry = -1) {
    uint16_t exited[kMaxStateDepth];
    const uint32_t n_exited = exit_inside(plan.domain, exited);
    enter(plan);
    if (e.trace) {
      TransitionEvent t{fsm, from, plan.target, cause, name, by_event, exited, n_exited, plan.states, plan.n, when_entry};
      e.trace->on_transition(p, c.agent, t);
    }
  }

  // The brain ends (a top-level final state was entered): the final state is left, the queue
  // and the history memory are cleared, and the next tick starts as the first. The trace gets
  // a transition record of the leaving (`ended`), its exit as any transition's.
  void end_brain() {
    uint16_t exited[kMaxStateDepth];
    const uint32_t n_exited = exit_inside(kNoPos, exited);
    if (e.trace && n_exited > 0) {
      TransitionEvent t{fsm, exited[n_exited - 1], kNoPos, kNoNode, {}, false, exited, n_exited, nullptr, 0};
      t.ended = true;
      e.trace->on_transition(p, c.agent, t);
    }
    queue.clear();
    for (const FsmState& s : p.fsm_states)
      if (!s.children.empty()) ss(static_cast<uint16_t>(&s - p.fsm_states.data())).history = kNoPos;
    rs.entered = 0;
  }

  // One event off the queue: offered to the active states from its first (the innermost, or
  // the state a runtime event names) outward.
  void handle(const QueuedEvent& ev) {
    const std::string_view name = e.strings_.get(ev.name);
    uint16_t from = innermost();
    bool stale = false;
    if (ev.origin != kNoPos) {
      stale = !active(ev.origin) || ss(ev.origin).serial != ev.serial;
      from = ev.origin;
    }
    QueueEvent dropped{name, kNoPos};
    dropped.stale = stale;
    if (!stale)
      for (uint16_t s = from; s != kNoPos; s = st(s).parent) {
        const FsmTransition* t = find(st(s), name);
        if (!t) continue;
        const bool guard_ok = passes(t->guard);
        Plan pl;
        if (!guard_ok || !plan(s, t->target, pl)) {
          if (dropped.refused_by == kNoPos) {
            dropped.refused_by = s;
            dropped.guard_failed = !guard_ok;
          }
          continue;
        }
        if (e.trace) e.trace->on_event(p, c.agent, QueueEvent{name, s});
        take(s, pl, kNoNode, name, true);
        return;
      }
    if (e.trace) e.trace->on_event(p, c.agent, dropped);
  }

  void event_phase() {
    size_t k = 0;
    while (k < queue.size() && k < kEventsPerTick) {
      const QueuedEvent ev = queue[k++];  // a copy: handling may append to the queue
      handle(ev);
      if (ended) return;  // end_brain clears the queue
    }
    if (k == 0) return;
    queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(k));
    // (Asked first: a storm lasts many ticks, and its line was built on each.)
    if (k == kEventsPerTick && !queue.empty() && !e.rt_.reported_before(p, "event storm")) {
      // Which event is waiting most: the loop's, as a rule.
      std::map<uint32_t, size_t> waiting;
      for (const QueuedEvent& q : queue) ++waiting[q.name];
      const auto most = std::max_element(waiting.begin(), waiting.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      std::ostringstream out;
      const SourcePos& pos = p.positions[fsm];
      out << p.files[pos.file] << ":" << pos.line << ":" << pos.column << ": warning: agent " << c.agent.id
          << " has more than " << kEventsPerTick
          << " events to handle in one tick (events sent in a loop, by a leaf or the game, or transitions whose enter leaves send"
             " events?); the rest wait for the next tick: "
          << queue.size() << " event(s), the most of them '" << e.rt_.strings.get(most->first) << "' (" << most->second
          << ")\n  reported once; first at tick " << c.agent.ticks;
      e.rt_.report_once(p, "event storm", out.str());
    }
  }

  void check_phase() {
    for (uint16_t s = innermost(); s != kNoPos; s = st(s).parent) {
      const FsmState& info = st(s);
      if (info.reason != kNoNode) {
        std::string_view name;
        if (e.leaf_reason(c, info.reason, name)) {
          const FsmTransition* t = find(info, name);
          if (!t) {
            e.script_->unmapped_transition(c.site(info.reason), info.name, name);
            continue;  // its `when` list is not tried
          }
          if (!passes(t->guard)) continue;
          Plan pl;
          if (plan(s, t->target, pl)) {
            take(s, pl, info.reason, name, false);
            return;
          }
          // Not selectable: as if the reason had returned nil.
        }
      }
      for (const FsmWhen& w : info.when) {
        const auto entry = static_cast<int32_t>(&w - info.when.data());
        if (w.after >= 0 && c.now - ss(s).entered_at < w.after - kTimeEpsilon) continue;
        if (!passes(w.cond)) continue;
        Plan pl;
        if (plan(s, w.target, pl)) {
          take(s, pl, w.cond, {}, false, entry);
          return;
        }
      }
    }
  }

  // The active path's bodies, outermost first: found from the innermost state up through the
  // program's parent links (no chase through the agent's records).
  void act_phase() {
    uint16_t path[kMaxStateDepth];
    uint32_t n = 0;
    for (uint16_t s = innermost(); s != kNoPos && n < kMaxStateDepth; s = st(s).parent)
      if (st(s).body != kNoNode) path[n++] = s;
    while (n > 0) {
      const uint16_t s = path[--n];
      const FsmState& info = st(s);
      const Status r = e.tick_node(c, info.body);
      if (r == Status::Success) send_own(e.rt_.ev_success, s);
      else if (r == Status::Failure) send_own(e.rt_.ev_failure, s);
    }
  }
};

Status Engine::tick_fsm(Ctx& c, uint32_t i, bool starting) {
  const Node& n = c.nodes[i];
  auto& rs = c.state<FsmRootState>(n);
  Hsm h{*this, c, c.p, i, rs, rt_.queue_of(c.agent)};
  if (starting) {  // the first tick, or the one after the brain ended or was aborted
    rs.active = kNoPos;
    rs.innermost = kNoPos;
    rs.entered = 0;
    for (const FsmState& s : c.p.fsm_states) {
      FsmStateState& x = h.ss(static_cast<uint16_t>(&s - c.p.fsm_states.data()));
      x.active = kNoPos;
      x.history = kNoPos;
      c.status(s.node) = Status::Invalid;
    }
  }
  if (!rs.entered) {
    Hsm::Plan pl;
    if (!h.select_child(kNoPos, pl)) {
      const SourcePos& pos = c.p.positions[i];
      std::ostringstream out;
      out << c.p.files[pos.file] << ":" << pos.line << ":" << pos.column << ": error: fsm '" << c.p.name
          << "' cannot enter its initial states: an 'enter_if' on the way down fails; no state is entered, and the"
             " descent is tried again next tick\n  reported once; first by agent "
          << c.agent.id << " at tick " << c.agent.ticks;
      rt_.report_once(c.p, "initial descent", out.str(), true);  // counted once, as reported
      return Status::Running;
    }
    rs.entered = 1;
    h.enter(pl);
    if (trace) {
      TransitionEvent t{i, kNoPos, pl.states[0], kNoNode, {}, false, nullptr, 0, pl.states, pl.n};
      trace->on_transition(c.p, c.agent, t);
    }
    if (h.ended) {
      h.end_brain();
      return Status::Success;
    }
  }
  if (rs.entered == 3) {  // a reload made the active top-level state final: ended, as if entered
    h.end_brain();
    return Status::Success;
  }
  if (rs.entered == 2) {  // a reload removed the active child of the innermost state: its descent
    const uint16_t s = h.innermost();
    Hsm::Plan pl;
    pl.target = s;
    if (s != kNoPos && h.select_child(s, pl)) {
      rs.entered = 1;
      h.enter(pl);
      if (trace) {
        TransitionEvent t{i, s, s, kNoNode, {}, false, nullptr, 0, pl.states, pl.n, -1, true};
        trace->on_transition(c.p, c.agent, t);
      }
    } else if (s == kNoPos || c.p.fsm_states[s].children.empty()) {
      rs.entered = 1;
    } else if (const std::string key = "reload " + std::to_string(s); !rt_.reported_before(c.p, key)) {
      // As the initial descent: said once, counted, tried again next tick.
      const SourcePos& pos = c.p.positions[c.p.fsm_states[s].node];
      std::ostringstream out;
      out << c.p.files[pos.file] << ":" << pos.line << ":" << pos.column << ": error: fsm '" << c.p.name << "': state '"
          << c.p.ids[c.p.fsm_states[s].node] << "' lost its active child in a reload and cannot enter another: an 'enter_if' on the"
             " way down fails; it stays without one (its act and transitions go on), and the descent is tried again next tick\n"
             "  reported once; first by agent "
          << c.agent.id << " at tick " << c.agent.ticks;
      rt_.report_once(c.p, key, out.str(), true);
    }
    if (h.ended) {
      h.end_brain();
      return Status::Success;
    }
  }
  h.event_phase();
  if (!h.ended) h.check_phase();
  if (h.ended) {
    h.end_brain();
    return Status::Success;
  }
  h.act_phase();
  return Status::Running;
}

}  // namespace thicket
