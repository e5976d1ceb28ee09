// The tick loop's per-tick context and its leaf calls, shared by the files of the tick loop
// (tick.cpp: the tree walk; tick_fsm.cpp: the fsm and its hierarchical states). Private to them.
#pragma once
#include "leaf_host.hpp"
#include "runtime_impl.hpp"
#include "tick.hpp"

namespace thicket {

// Elapsed-time tests tolerate float error (SPEC 3.1: 1e-9).
inline constexpr double kTimeEpsilon = 1e-9;

inline bool is_random(NodeKind k) { return k == NodeKind::RandomSelector || k == NodeKind::RandomSequence; }

// Everything a tick reads is one load away: raw pointers into the program's arrays and the
// agent block, cached here, rather than Program -> vector -> element chains that the compiler
// must reload after every opaque leaf call.
struct Engine::Ctx {
  Ctx(Engine& e, const Program& prog, AgentInfo& a, uint8_t* blk)
      : p(prog),
        agent(a),
        block(blk),
        nodes(prog.nodes.data()),
        kids(prog.child_index.data()),
        hots(prog.hot.data()),
        ops(prog.ops.data()),
        statuses(reinterpret_cast<Status*>(blk)),
        now(a.time),
        cs{&prog, 0, &a, blk} {
    lc.agent_ = &a;
    lc.rt_ = &e.rt_;
    lc.site_ = &cs;
  }
  const Program& p;
  AgentInfo& agent;
  uint8_t* block;
  const Node* nodes;
  const uint32_t* kids;
  const HotCall* hots;
  const NodeOp* ops;
  Status* statuses;
  double now;
  uint32_t pending_leaf = kNoNode;  // an action already ticked this tick (the fast path)
  Status pending_status = Status::Invalid;
  CallSite cs;     // the leaf call in progress (its node set per call)
  LeafContext lc;  // what native leaves get: points at cs and the agent

  Status& status(uint32_t i) { return statuses[i]; }
  template <class T>
  T& state(const Node& n, uint32_t extra = 0) {
    return *reinterpret_cast<T*>(block + n.state + extra);
  }
  // Child at position `pos` in evaluation order (random composites follow their drawn order).
  uint32_t child_at(const Node& n, uint32_t pos) {
    if (is_random(n.kind)) pos = state<uint16_t>(n, 2 + 2 * pos);
    return kids[n.children + pos];
  }
  const CallSite& site(uint32_t i) {
    cs.node = i;
    return cs;
  }
  const HotCall& hot(uint32_t i) { return hots[nodes[i].a]; }
  // Native leaves on the shortcuts (Op::NativeCond, Op::NativeAction) at node i.
  [[gnu::always_inline]] Status native_condition(const NodeOp& o, uint32_t i) {
    cs.node = i;
    const Status s = o.tick(lc, o.user);
    if (static_cast<uint8_t>(s) - 1u > 1u) [[unlikely]]  // not success (1) or failure (2)
      return Engine::bad_native_status(*lc.rt_, p, agent, i, s, true);
    return s;
  }
  [[gnu::always_inline]] Status native_action(const NodeOp& o, uint32_t i) {
    if (i == pending_leaf) {  // finished in this tick's resume (Engine::tick)
      pending_leaf = kNoNode;
      return pending_status;
    }
    cs.node = i;
    const Status s = o.tick(lc, o.user);
    if (static_cast<uint8_t>(s) - 1u > 2u) [[unlikely]]  // not success (1), failure (2) or running (3)
      return Engine::bad_native_status(*lc.rt_, p, agent, i, s, false);
    return s;
  }
  uint32_t& stamp(const Node& n) { return *reinterpret_cast<uint32_t*>(block + stamp_offset(n)); }
};

// ---- Leaf calls: native leaves here, through plain function pointers; scripted ones to the
// script host. (inline: the tick loop pays one call, to the native function or the host.)

inline Status Engine::leaf_condition(Ctx& c, uint32_t i) {
  const HotCall& h = c.hot(i);
  c.cs.node = i;
  if (!h.native.tick) return script_->condition(c.cs);
  const Status s = h.native.tick(c.lc, h.native.user);
  if (static_cast<uint8_t>(s) - 1u > 1u) [[unlikely]]
    return bad_native_status(rt_, c.p, c.agent, i, s, true);
  return s;
}

inline Status Engine::leaf_start(Ctx& c, uint32_t i) {
  const HotCall& h = c.hot(i);
  c.cs.node = i;
  if (!h.native.tick) return script_->start(c.cs);
  if (h.native.start) h.native.start(c.lc, h.native.user);
  return Status::Running;
}

inline Status Engine::leaf_tick(Ctx& c, uint32_t i) {
  const HotCall& h = c.hot(i);
  c.cs.node = i;
  if (!h.native.tick) return script_->tick(c.cs);
  const Status s = h.native.tick(c.lc, h.native.user);
  if (static_cast<uint8_t>(s) - 1u > 2u) [[unlikely]]
    return bad_native_status(rt_, c.p, c.agent, i, s, false);
  return s;
}

inline bool Engine::leaf_stop(Ctx& c, uint32_t i, Status s, bool keep_mem) {
  const HotCall& h = c.hot(i);
  c.cs.node = i;
  if (!h.native.tick) return script_->stop(c.cs, s, keep_mem);
  if (h.native.stop) h.native.stop(c.lc, s, h.native.user);
  return true;
}

inline void Engine::leaf_plain(Ctx& c, uint32_t i) {
  const HotCall& h = c.hot(i);
  c.cs.node = i;
  if (!h.native.tick) return script_->call_plain(c.cs);
  h.native.tick(c.lc, h.native.user);
}

inline bool Engine::leaf_reason(Ctx& c, uint32_t i, std::string_view& transition) {
  const HotCall& h = c.hot(i);
  if (h.native.tick) return false;  // native reasons: not supported (use when: checks)
  c.cs.node = i;
  return script_->reason(c.cs, transition);
}


}  // namespace thicket
