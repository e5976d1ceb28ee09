// The tick loop. One function per node shape; each reads its node record and its slice of
// the agent block, and never allocates, throws or looks up a string.
#include "json_text.hpp"  // utf8_sequence
#include "tick.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>

#include <sstream>
#include <optional>
#include <utility>

#include "leaf_answer.hpp"
#include "tick_ctx.hpp"

namespace thicket {
namespace {


static_assert(kKindCount == 63, "a node kind was added: give it a case in tick_node and abort");

bool is_condition(NodeKind k) { return k == NodeKind::Condition || k == NodeKind::Check; }
bool is_selector(NodeKind k) { return k == NodeKind::Selector || k == NodeKind::RandomSelector; }

}  // namespace

thread_local std::vector<RawLeafAnswer> tl_raw_leaf_answers;

Status Engine::bad_native_status(RuntimeImpl& rt, const Program& p, const AgentInfo& a, uint32_t i, Status s,
                                 bool condition) {
  const std::string& leaf = p.calls[p.nodes[i].a].leaf;
  const auto value = static_cast<unsigned>(s);
  // A C leaf's int that no Status holds, as this agent's call returned it.
  std::optional<int64_t> raw;
  auto& raws = tl_raw_leaf_answers;
  for (size_t k = 0; k < raws.size(); ++k)
    if (raws[k].agent == a.id) {
      raw = raws[k].value;
      raws.erase(raws.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  if (raws.size() > 4096) raws.clear();  // (answers never reported: a bound, not a leak)
  std::string first;
  if (condition && s == Status::Running) {
    first = "condition '" + leaf + "' returned running; a condition answers success or failure in the tick it is called";
  } else {
    first = std::string(condition ? "condition '" : "action '") + leaf + "' returned " +
            (raw                                              ? "the value " + std::to_string(*raw)
             : value <= static_cast<unsigned>(Status::Aborted) ? std::string(status_name(s))
                                                               : "the value " + std::to_string(value)) +
            (condition ? ", not success or failure" : ", not success, failure or running") + "; taken as failure";
  }
  ++rt.brain_errors;
  if (rt.script_error_silenced(p, i, first)) return Status::Failure;
  std::ostringstream out;
  out << "error: " << first << "\n  in leaf '" << leaf << "' at node " << p.ids[i] << ", agent " << a.id << ", tick "
      << a.ticks;
  rt.script_error(p, i, first, out.str());
  return Status::Failure;
}

// A log node's line is one line whatever its message holds: a line break in it (`message:
// |` in YAML, or "a\nb") is written as \n, other control characters but the tab as \xNN, so
// the next line of the log is always the next entry.
void Engine::log_node(const CallSite& at, const std::string& what, const char* event) {
  std::ostringstream out;
  out << "t=" << at.agent->time << " agent " << at.agent->id << " log " << at.program->ids[at.node] << ": ";
  static const char kHex[] = "0123456789abcdef";
  for (size_t k = 0; k < what.size(); ++k) {
    const char ch = what[k];
    const auto byte = static_cast<unsigned char>(ch);
    const auto next = [&](size_t d) { return k + d < what.size() ? static_cast<unsigned char>(what[k + d]) : 0u; };
    // Unicode's line breaks too, which some tools split lines at: NEL and the other C1 controls
    // (U+0080 to U+009F, C2 80 to C2 9F), the line and paragraph separators (E2 80 A8/A9).
    if (byte == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) {
      out << "\\u00" << kHex[next(1) >> 4] << kHex[next(1) & 15];
      k += 1;
    } else if (byte == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) {
      out << (next(2) == 0xA8 ? "\\u2028" : "\\u2029");
      k += 2;
    } else if (byte == '\n') {
      out << "\\n";
    } else if (byte == '\r') {
      out << "\\r";
    } else if ((byte < 0x20 && byte != '\t') || byte == 0x7f) {
      out << "\\x" << kHex[byte >> 4] << kHex[byte & 15];
    } else if (byte >= 0x80) {  // a byte of no well-formed UTF-8 sequence as \xNN (the log is UTF-8 text)
      if (const size_t n = utf8_sequence(what, k); n > 0) {
        out << std::string_view(what).substr(k, n);
        k += n - 1;
      } else {
        out << "\\x" << kHex[byte >> 4] << kHex[byte & 15];
      }
    } else {
      out << ch;
    }
  }
  out << ": " << event;
  rt_.log(out.str());
}

void Engine::init_block(const Program& p, uint8_t* block, const StringTable* strings) {
  std::memset(block, 0, p.block_size);  // every status Invalid, counters 0
  for (const Node& n : p.nodes) {
    if (n.kind == NodeKind::Cooldown)  // never fired: no cooldown at the start
      *reinterpret_cast<double*>(block + n.state) = -std::numeric_limits<double>::infinity();
    if (n.kind == NodeKind::Fsm) {
      auto* r = reinterpret_cast<FsmRootState*>(block + n.state);
      r->active = kNoPos;
      r->innermost = kNoPos;
    }
    if (n.kind == NodeKind::State) {  // no active child, no history yet
      auto* x = reinterpret_cast<FsmStateState*>(block + n.state);
      x->active = kNoPos;
      x->history = kNoPos;
    }
  }
  auto* slots = reinterpret_cast<Slot*>(block + p.bb_offset);
  for (size_t k = 0; k < p.blackboard.size(); ++k) {
    slots[k] = p.blackboard[k].initial;
    if (p.blackboard[k].type == ValueType::String && strings)
      slots[k].str = const_cast<StringTable*>(strings)->intern(p.blackboard[k].text_default);
  }
}

void Engine::prepare_ops(Program& p, bool fast) {
  ++p.prepared;
  p.ops.assign(p.nodes.size(), NodeOp{});
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    NodeOp& o = p.ops[i];
    o.count = n.count;
    o.state = n.state;
    o.children = n.children;
    const bool plain = !(n.flags & (kRechecks | kHolder));
    switch (n.kind) {
      case NodeKind::Sequence:
      case NodeKind::Filter: o.op = plain ? Op::Sequence : Op::General; break;
      case NodeKind::Selector: o.op = plain ? Op::Selector : Op::General; break;
      case NodeKind::ActiveSelector: o.op = n.a ? Op::ActiveSeq : Op::Active; break;  // (a: lower_imported)
      case NodeKind::Check: o.op = Op::Cond; break;
      case NodeKind::Condition: {
        const HotCall& h = p.hot[n.a];
        o.op = h.native.tick && !(n.flags & (kNegate | kObserved)) ? Op::NativeCond : Op::Cond;
        o.tick = h.native.tick;
        o.user = h.native.user;
        break;
      }
      case NodeKind::Action: {
        const HotCall& h = p.hot[n.a];
        o.op = h.native.tick && !h.hooked ? Op::NativeAction : Op::Action;
        o.tick = h.native.tick;
        o.user = h.native.user;
        break;
      }
      default: o.op = Op::General; break;
    }
    if (!fast) o.op = Op::General;
  }
  p.plain_walk = fast;
  for (const NodeOp& o : p.ops) p.plain_walk = p.plain_walk && o.op != Op::Cond && o.op != Op::Action;
  p.span_abort = p.plain_walk;  // every action is a native one without hooks: no stop to call
  // (An imported node has its halt to do, a bt_guard its _onHalted script: Engine::abort.
  // `always` has none.)
  for (const Node& n : p.nodes)
    p.span_abort = p.span_abort && n.kind != NodeKind::Log && (!is_imported_kind(n.kind) || n.kind == NodeKind::Always);
  // The batched walk takes plain composites and agent_local native leaves only.
  p.batchable = fast && !p.nodes.empty();
  std::vector<uint16_t> depth(p.nodes.size(), 0);  // composites above each node
  p.composite_depth = 0;
  for (size_t i = 0; i < p.nodes.size() && p.batchable; ++i) {
    const Node& n = p.nodes[i];
    const NodeOp& o = p.ops[i];
    switch (o.op) {
      case Op::NativeCond:
      case Op::NativeAction: p.batchable = p.hot[n.a].native.agent_local; break;
      case Op::Sequence:
      case Op::Selector:
      case Op::Active: break;
      default: p.batchable = false; break;
    }
    if (kind_info(n.kind).shape != Shape::Composite) continue;
    const uint16_t d = depth[i] + 1;
    if (d > kBatchDepth) p.batchable = false;
    p.composite_depth = std::max(p.composite_depth, d);
    for (uint16_t k = 0; k < n.count; ++k) depth[p.child(n, k)] = d;
  }
  if (!p.batchable) p.composite_depth = 0;
}

Status Engine::tick(const Program& p, AgentInfo& agent, uint8_t* block) {
  Ctx c(*this, p, agent, block);
  if (agent.resume_leaf != kNoNode) {
    // Event-driven resume: only the running action can act this tick. If it goes on running
    // nothing else changes; if it finishes, the walk below hands it this result instead of
    // calling it again, so the calls are exactly those of the full walk.
    const uint32_t leaf = agent.resume_leaf;
    agent.resume_leaf = kNoNode;
    Status s = leaf_tick(c, leaf);
    if (s == Status::Running) {
      agent.resume_leaf = leaf;
      return Status::Running;
    }
    c.pending_leaf = leaf;
    c.pending_status = s;
  }
  Status s = c.p.plain_walk ? walk_child<0>(c, 0, 0) : tick_node(c, 0);
  if (s == Status::Running && (c.nodes[0].flags & kPassive)) agent.resume_leaf = passive_running_leaf(c);
  return s;
}

// The running action at the end of the running path, if every node on the path is passive.
uint32_t Engine::passive_running_leaf(Ctx& c) {
  uint32_t i = 0;
  for (;;) {
    const Node& n = c.nodes[i];
    if (!(n.flags & kPassive) || c.status(i) != Status::Running) return kNoNode;
    if (n.kind == NodeKind::Action) return i;
    i = kind_info(n.kind).shape == Shape::Decorator ? i + 1 : c.child_at(n, c.state<uint16_t>(n));
  }
}

void Engine::abort_all(const Program& p, AgentInfo& agent, uint8_t* block) {
  agent.resume_leaf = kNoNode;
  Ctx c(*this, p, agent, block);
  abort(c, 0);
}

void Engine::abort_node(const Program& p, AgentInfo& agent, uint8_t* block, uint32_t node) {
  agent.resume_leaf = kNoNode;
  Ctx c(*this, p, agent, block);
  abort(c, node);
}

[[gnu::always_inline]] inline Status Engine::evaluate_condition(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  bool truth;
  if (n.kind == NodeKind::Check) {
    truth = c.p.exprs[n.a].eval(reinterpret_cast<const Slot*>(c.block + c.p.bb_offset), strings_);
  } else {
    Status s = leaf_condition(c, i);
    if (s == Status::Invalid) {  // a script error fails the leaf for this tick, negated or not
      if (n.flags & kObserved) c.stamp(n) = ++c.agent.stamp;
      return Status::Failure;
    }
    truth = s == Status::Success;
  }
  if (n.flags & kNegate) truth = !truth;
  if (n.flags & kObserved) c.stamp(n) = ++c.agent.stamp;
  return truth ? Status::Success : Status::Failure;
}

[[gnu::always_inline]] inline Status Engine::tick_action(Ctx& c, uint32_t i, bool starting) {
  const HotCall& h = c.hot(i);
  const bool hooked = h.hooked;  // plain functions have no start/stop work
  Status s = starting && hooked ? leaf_start(c, i) : Status::Running;
  if (i == c.pending_leaf) {
    s = c.pending_status;
    c.pending_leaf = kNoNode;
  } else if (s == Status::Running) {
    s = leaf_tick(c, i);
  }
  // A stop hook that raises after a success fails the leaf for this tick (SPEC 7).
  if (s != Status::Running && hooked && !leaf_stop(c, i, s) && s == Status::Success) s = Status::Failure;
  return s;
}

// An active_selector re-ticks from its first child each tick (the walk above); when a child
// decided (`decided`, kNoPos: none did), a higher-priority one interrupts the one running before.
[[gnu::always_inline]] inline Status Engine::finish_active_selector(Ctx& c, uint32_t i, Status result, uint16_t decided) {
  const Node& n = c.nodes[i];
  uint16_t& last = c.state<uint16_t>(n);
  if (last != kNoPos && last != decided) abort(c, c.child_at(n, last));
  last = result == Status::Running ? decided : kNoPos;
  return result;
}

// The tree walk (SPEC 3.1), iterative: the composites and decorators between `i` and the node
// being ticked sit on a small stack of (node, child position) frames, so a node costs a switch
// on its op and no call; only leaves and the rare kinds (parallel, fsm, machine) are calls.
// Each node's status is written when it finishes its visit, after its children's, exactly as
// a recursive walk would. Trees deeper than the stack continue in a nested walk.
// The common nodes (Program::ops: plain sequences and selectors, native leaves without flags
// or hooks) are handled where they are entered and left, reading their NodeOp only; the rest go
// through the general switch on the node's kind.
namespace {
enum class FrameOp : uint8_t { Plain, Composite, Active, Decorator };
struct Frame {
  uint32_t node;
  uint16_t pos;  // position of the child being ticked, in evaluation order
  FrameOp op;    // what the node does with its child's result
  Status stop;   // composites: the child result that ends the node (success ends a selector)
};
constexpr uint32_t kFrames = 32;
}  // namespace

Status Engine::tick_node(Ctx& c, uint32_t i) {
  Frame stack[kFrames];
  uint32_t sp = 0;
  Status s;
  // Copies the compiler may keep in registers across leaf calls (the leaf gets a pointer into c).
  const NodeOp* const ops = c.ops;
  const uint32_t* const kids = c.kids;
  Status* const st = c.statuses;
  uint8_t* const block = c.block;
  uint32_t ch = i;  // the child to enter
  goto enter;
descend : {
  const Node& n = c.nodes[i];
  const bool starting = st[i] != Status::Running;
  switch (n.kind) {
    case NodeKind::Action: s = tick_action(c, i, starting); goto finished;
    case NodeKind::Condition:
    case NodeKind::Check: s = evaluate_condition(c, i); goto finished;
    case NodeKind::Sequence:
    case NodeKind::Selector:
    case NodeKind::Filter:
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence: {
      // Resume at the running child, after re-checking the conditions aborts observe (SPEC 3.5).
      uint16_t pos = 0;
      if (starting) {
        if (is_random(n.kind)) draw_order(c, i);
        if (n.flags & kHolder) c.stamp(n) = ++c.agent.stamp;  // conditions evaluated before now cannot abort
      } else {
        pos = c.state<uint16_t>(n);
        if (n.flags & kRechecks) {
          uint16_t from = recheck(c, i, pos);
          if (from != kNoPos) {
            abort(c, c.child_at(n, pos));
            pos = from;
          }
        }
      }
      if (pos >= n.count) {
        s = is_selector(n.kind) ? Status::Failure : Status::Success;
        goto finished;
      }
      stack[sp++] = Frame{i, pos, FrameOp::Composite,
                          is_selector(n.kind) ? Status::Success : Status::Failure};
      ch = c.child_at(n, pos);
      goto enter;
    }
    case NodeKind::ActiveSelector: {
      // The result that moves on to the next child: failure, or success for a lowered
      // ReactiveSequence (a = 1); the last child's is the node's.
      const Status go_on = n.a ? Status::Success : Status::Failure;
      if (starting) c.state<uint16_t>(n) = kNoPos;
      if (n.count == 0) {
        s = finish_active_selector(c, i, go_on, kNoPos);
        goto finished;
      }
      stack[sp++] = Frame{i, 0, FrameOp::Active, go_on};
      ch = c.child_at(n, 0);
      goto enter;
    }
    case NodeKind::Parallel:
    case NodeKind::Monitor: s = tick_parallel(c, i, starting); goto finished;
    case NodeKind::Fsm: s = tick_fsm(c, i, starting); goto finished;
    case NodeKind::Machine: s = tick_machine(c, i, starting); goto finished;
    case NodeKind::Wait: s = tick_leaf(c, i, starting); goto finished;
    default:
      if (is_imported_kind(n.kind)) {
        Status kept;
        s = tick_imported(c, i, kept);
        st[i] = kept;
        goto returned;
      }
      if (kind_info(n.kind).shape != Shape::Decorator) {
        s = tick_leaf(c, i, starting);
        goto finished;
      }
      if (!decorator_enter(c, i, starting, s)) goto finished;
      stack[sp++] = Frame{i, 0, FrameOp::Decorator, Status::Invalid};
      ch = i + 1;
      goto enter;
  }
}
finished:  // node i finished this visit with s
  st[i] = s;
returned:  // s is the result of the child of the frame on top
  if (sp == 0) return s;
  {
    Frame& f = stack[sp - 1];
    i = f.node;
    if (f.op == FrameOp::Plain) {
      const NodeOp& o = ops[i];
      if (s == Status::Running) {
        *reinterpret_cast<uint16_t*>(block + o.state) = f.pos;
      } else if (s != f.stop) {
        if (++f.pos < o.count) {
          ch = kids[o.children + f.pos];
          goto enter;
        }
        s = f.stop == Status::Success ? Status::Failure : Status::Success;
      }
      --sp;
      goto finished;
    }
    const Node& n = c.nodes[i];
    if (f.op == FrameOp::Composite) {
      if (s == Status::Running) {
        c.state<uint16_t>(n) = f.pos;
      } else if (s != f.stop) {
        if (++f.pos < n.count) {
          ch = c.child_at(n, f.pos);
          goto enter;
        }
        s = f.stop == Status::Success ? Status::Failure : Status::Success;
      }
    } else if (f.op == FrameOp::Active) {
      if (s == f.stop) {  // (an active frame's stop: the result that moves on)
        if (++f.pos < n.count) {
          ch = c.child_at(n, f.pos);
          goto enter;
        }
        s = finish_active_selector(c, i, f.stop, kNoPos);
      } else {
        s = finish_active_selector(c, i, s, f.pos);
      }
    } else {
      s = decorator_leave(c, i, s);
    }
    --sp;
    goto finished;
  }
enter: {
  // Leaves, most children, are ticked here, and plain composites entered: no frame for a leaf.
  const NodeOp& o = ops[ch];
  if (o.op == Op::NativeCond) {
    s = c.native_condition(o, ch);
    st[ch] = s;
    goto returned;
  }
  if (o.op == Op::NativeAction) {
    s = c.native_action(o, ch);
    st[ch] = s;
    goto returned;
  }
  switch (o.op) {
    case Op::NativeCond:
    case Op::NativeAction: break;
    case Op::Cond:
      s = evaluate_condition(c, ch);
      st[ch] = s;
      goto returned;
    case Op::Action:
      s = tick_action(c, ch, st[ch] != Status::Running);
      st[ch] = s;
      goto returned;
    case Op::Sequence:
    case Op::Selector: {
      if (sp == kFrames) break;
      const bool selector = o.op == Op::Selector;
      const uint16_t pos = st[ch] == Status::Running ? *reinterpret_cast<const uint16_t*>(block + o.state) : 0;
      if (pos >= o.count) {
        i = ch;
        s = selector ? Status::Failure : Status::Success;
        goto finished;
      }
      stack[sp++] = Frame{ch, pos, FrameOp::Plain, selector ? Status::Success : Status::Failure};
      ch = kids[o.children + pos];
      goto enter;
    }
    case Op::Active:
    case Op::ActiveSeq:
    case Op::General: break;
  }
}
  if (sp < kFrames) {
    i = ch;
    goto descend;
  }
  s = tick_node(c, ch);  // a tree deeper than the stack: a nested walk
  goto returned;
}

// The plain walk: plain sequences, selectors and active_selectors (Op::Sequence, Selector,
// Active, and ActiveSeq: a lowered ReactiveSequence) tick their children by recursion, native
// leaves on the shortcuts are called in place, and any other node goes to the general walk
// (tick_node). The same steps as tick_node's for
// these ops, with the composite's loop in a C++ loop and its position in a register.
constexpr uint32_t kPlainDepth = 32;
// The first levels of composites are walked in place (each level a copy of walk_plain inlined
// into the one above), deeper ones by calls (walk_deep): no call, prologue or epilogue for the
// composites of a tree as deep as T31 (root, branch, group: levels 1 to 3) and one level more
// (T31 with each branch a BT.CPP SubTree, which runs as a one-child filter: 1.2x T31's time,
// 1.3x with only T31's levels in place; the fifth level costs ~13 KB of code).
constexpr int kInlineLevels = 5;

template <int kLevel>
[[gnu::always_inline]] inline Status Engine::walk_child(Ctx& c, uint32_t i, uint32_t depth) {
  const NodeOp& o = c.ops[i];
  Status s;
  switch (o.op) {
    case Op::NativeCond: s = c.native_condition(o, i); break;
    case Op::NativeAction: s = c.native_action(o, i); break;
    case Op::Sequence:
    case Op::Selector:
    case Op::Active:
    case Op::ActiveSeq:
      if (depth >= kPlainDepth) return tick_node(c, i);
      if constexpr (kLevel + 1 < kInlineLevels)
        return walk_plain<kLevel + 1>(c, i, depth + 1);
      else
        return walk_deep(c, i, depth + 1);
    default: return tick_node(c, i);
  }
  c.statuses[i] = s;
  return s;
}

template <int kLevel>
[[gnu::always_inline]] inline Status Engine::walk_plain(Ctx& c, uint32_t i, uint32_t depth) {
  // The node's fields and the arrays, copied: a leaf gets a pointer into c, so whatever is
  // read through c or the node record would be read again after each child.
  const NodeOp& o = c.ops[i];
  const Op op = o.op;
  const uint16_t count = o.count;
  const uint32_t* const children = c.kids + o.children;
  Status* const st = c.statuses;
  uint16_t* const at = reinterpret_cast<uint16_t*>(c.block + o.state);
  Status s;
  if (op == Op::Active || op == Op::ActiveSeq) {
    // The result that moves on: failure, or success for a lowered ReactiveSequence.
    const Status go_on = op == Op::Active ? Status::Failure : Status::Success;
    if (st[i] != Status::Running) *at = kNoPos;
    const uint16_t before = *at;  // the child that ran last tick (no child's walk changes it)
    uint16_t pos = 0;
    for (; pos < count; ++pos) {
      s = walk_child<kLevel>(c, children[pos], depth);
      if (s != go_on) break;
    }
    if (pos == count) {
      s = go_on;
      pos = kNoPos;
    }
    if (before != kNoPos && before != pos) {
      const uint32_t aborted = children[before];
      if (c.p.span_abort)
        abort_span(c.nodes, st, aborted);
      else
        abort(c, aborted);
    }
    *at = s == Status::Running ? pos : kNoPos;
  } else {
    const Status stop = op == Op::Selector ? Status::Success : Status::Failure;
    s = op == Op::Selector ? Status::Failure : Status::Success;  // past the last child
    for (uint16_t pos = st[i] == Status::Running ? *at : 0; pos < count; ++pos) {
      const Status r = walk_child<kLevel>(c, children[pos], depth);
      if (r == Status::Running) {
        *at = pos;
        s = r;
        break;
      }
      if (r == stop) {
        s = r;
        break;
      }
    }
  }
  st[i] = s;
  return s;
}

Status Engine::walk_deep(Ctx& c, uint32_t i, uint32_t depth) { return walk_plain<kInlineLevels>(c, i, depth); }

// Re-checks the observed conditions that lie before the running child; returns the position
// of the child holding the first one whose result changed, or kNoPos.
uint16_t Engine::recheck(Ctx& c, uint32_t i, uint16_t running_pos) {
  const Node& n = c.nodes[i];
  const bool random = is_random(n.kind);
  for (uint16_t pos = 0; pos < running_pos; ++pos) {
    // The plan made at load says which conditions this child holds for us (often none).
    const uint32_t entry = n.children + (random ? c.state<uint16_t>(n, 2 + 2 * pos) : pos);
    const Program::Range range = c.p.recheck_ranges[entry];
    if (range.count == 0) continue;
    const uint32_t ch = c.kids[entry];
    const Node& cn = c.nodes[ch];
    const uint32_t* conds = &c.p.recheck_conds[range.begin];
    if (range.drawn) [[unlikely]] conds = drawn_order(c, ch, conds, range.count);
    for (uint32_t k = 0; k < range.count; ++k) {
      const uint32_t cond = conds[k];
      const bool direct = cond == ch;
      Status remembered = c.status(cond);
      if (remembered != Status::Success && remembered != Status::Failure) continue;  // never evaluated
      // A direct condition before the running child was evaluated in this run; a nested one
      // counts only if evaluated since its holder (this child) last started.
      if (!direct && static_cast<int32_t>(c.stamp(c.nodes[cond]) - c.stamp(cn)) <= 0) continue;
      Status now = evaluate_condition(c, cond);
      c.status(cond) = now;
      if (now != remembered) {
        if (trace) trace->on_abort(c.p, c.agent, AbortEvent{i, cond, remembered, now, c.child_at(n, running_pos)});
        return pos;
      }
    }
  }
  return kNoPos;
}

// SPEC 3.5 re-checks "in child order"; under a random composite that is the order it drew for
// its run (guide 3.9), as a `self` abort of a random composite re-checks its own children: the
// conditions a lower_priority child holds under a random composite came in list order, not in
// the order that child's last run evaluated them. A walk from the holder down, each random
// composite's children in the order its run drew, into only the children that hold some of the
// conditions. Node indices are depth first, so the range's conditions are in ascending order and
// a child's subtree is [child, end): entering a node splits its conditions among its children
// in one pass, so each node on the way and each condition is looked at once.
const uint32_t* Engine::drawn_order(Ctx& c, uint32_t holder, const uint32_t* conds, uint32_t n) {
  // Whether x takes its children in a drawn order: a random composite that has drawn one (one
  // that never ran holds zeros, no order: its conditions were not evaluated, so none is
  // re-checked, and the list's order does).
  auto drawn = [&](const Node& xn) {
    if (!is_random(xn.kind)) return false;
    drawn_seen_.assign(xn.count, 0);
    for (uint16_t d = 0; d < xn.count; ++d) {
      const uint16_t pos = c.state<uint16_t>(xn, 2 + 2 * d);
      if (pos >= xn.count || drawn_seen_[pos]) return false;
      drawn_seen_[pos] = 1;
    }
    return true;
  };
  // Enters x with its conditions [lo, hi): each child's share, by list position.
  auto enter = [&](uint32_t x, uint32_t lo, uint32_t hi) {
    const Node& xn = c.nodes[x];
    const auto at = static_cast<uint32_t>(drawn_shares_.size());
    for (uint16_t p = 0; p < xn.count; ++p) {
      const uint32_t end = c.nodes[c.kids[xn.children + p]].end, from = lo;
      while (lo < hi && conds[lo] < end) ++lo;
      drawn_shares_.push_back({from, lo});
    }
    drawn_walk_.push_back({x, at, 0, drawn(xn)});
  };
  drawn_conds_.clear();
  drawn_walk_.clear();
  drawn_shares_.clear();
  enter(holder, 0, n);
  while (!drawn_walk_.empty()) {
    DrawnStep& step = drawn_walk_.back();
    const Node& xn = c.nodes[step.node];
    if (step.next >= xn.count) {
      drawn_shares_.resize(step.shares);
      drawn_walk_.pop_back();
      continue;
    }
    const uint16_t d = step.next++;
    const uint16_t pos = step.drawn ? c.state<uint16_t>(xn, 2 + 2 * d) : d;
    const auto [lo, hi] = drawn_shares_[step.shares + pos];
    if (lo == hi) continue;  // holds none of them
    const uint32_t y = c.kids[xn.children + pos];
    if (conds[lo] == y) drawn_conds_.push_back(y);  // the condition itself
    else enter(y, lo, hi);  // (step is not used past here)
  }
  return drawn_conds_.size() == n ? drawn_conds_.data() : conds;  // (n: always, each is reached once)
}

// A behavior machine (SPEC 5): on a check tick the first passing check picks the behavior;
// a different pick cancels the current one. Then the current behavior is resumed once.
Status Engine::tick_machine(Ctx& c, uint32_t i, bool starting) {
  const Node& n = c.nodes[i];
  double& last_check = c.state<double>(n);
  uint16_t& current = c.state<uint16_t>(n, 8);
  uint8_t& active = c.state<uint8_t>(n, 10);  // the current behavior has not finished
  if (starting) {
    current = kNoPos;
    active = 0;
  }
  const bool check_tick = starting || n.seconds < 0 || c.now - last_check >= n.seconds - kTimeEpsilon;
  if (check_tick) {
    last_check = c.now;
    for (uint16_t b = 0; b * 2 < n.count; ++b) {
      const uint32_t check = c.kids[n.children + 2 * b];
      if (evaluate_condition(c, check) != Status::Success) continue;
      if (b != current) {
        if (trace) trace->on_switch(c.p, c.agent, SwitchEvent{i, current, b, check});
        if (current != kNoPos) abort(c, c.kids[n.children + 2 * current + 1]);
        current = b;
      }
      active = 1;  // the winner goes on, restarts if it had finished, or starts
      break;
    }
  }
  if (active) {
    Status s = tick_node(c, c.kids[n.children + 2 * current + 1]);
    if (s != Status::Running) active = 0;
  }
  return Status::Running;
}

// A condition or check at node i, for the fsm's guards (tick_fsm.cpp).
Status Engine::condition_at(Ctx& c, uint32_t i) {
  Status s = evaluate_condition(c, i);
  c.status(i) = s;
  return s;
}

Status Engine::tick_parallel(Ctx& c, uint32_t i, bool starting) {
  const Node& n = c.nodes[i];
  const bool monitor = n.kind == NodeKind::Monitor;
  if (starting)  // a new run: no child has finished in it yet
    for (uint16_t pos = 0; pos < n.count; ++pos) c.status(c.child_at(n, pos)) = Status::Invalid;
  uint32_t successes = 0, failures = 0;
  Status result = Status::Running;
  for (uint16_t pos = 0; pos < n.count; ++pos) {
    uint32_t ch = c.child_at(n, pos);
    Status s = c.status(ch);
    if ((monitor && is_condition(c.nodes[ch].kind)) || (s != Status::Success && s != Status::Failure))
      s = tick_node(c, ch);
    if (s == Status::Success) ++successes;
    if (s == Status::Failure) ++failures;
    if (successes >= n.a) {
      result = Status::Success;
      break;
    }
    if (failures >= n.b) {
      result = Status::Failure;
      break;
    }
  }
  if (result == Status::Running && successes + failures == n.count) result = Status::Failure;
  if (result != Status::Running)
    for (uint16_t pos = 0; pos < n.count; ++pos) abort(c, c.child_at(n, pos));
  return result;
}

// A decorator's work before its child is ticked; false when it finishes without ticking the
// child (result in s).
bool Engine::decorator_enter(Ctx& c, uint32_t i, bool starting, Status& s) {
  const Node& n = c.nodes[i];
  const uint32_t child = i + 1;
  switch (n.kind) {
    case NodeKind::Repeat:
      if (starting) c.state<uint32_t>(n) = 0;
      return true;
    case NodeKind::Limit: {
      uint32_t& starts = c.state<uint32_t>(n);  // over the agent's life: never reset
      if (c.status(child) != Status::Running) {
        if (starts >= n.a) {
          s = Status::Failure;
          return false;
        }
        ++starts;
      }
      return true;
    }
    case NodeKind::Timeout: {
      double& started = c.state<double>(n);
      if (starting) started = c.now;
      if (c.now - started >= n.seconds - kTimeEpsilon) {
        abort(c, child);
        s = Status::Failure;
        return false;
      }
      return true;
    }
    case NodeKind::Cooldown:
      if (c.now - c.state<double>(n) < n.seconds - kTimeEpsilon) {
        s = Status::Failure;
        return false;
      }
      return true;
    case NodeKind::Log:
      if (c.status(child) != Status::Running) log_node(c.site(i), log_what(c, i), "start");
      return true;
    case NodeKind::Invert:
    case NodeKind::ForceSuccess:
    case NodeKind::ForceFailure:
    case NodeKind::UntilFail:
    case NodeKind::UntilSuccess: return true;
    default: s = Status::Failure; return false;
  }
}

// A decorator's result from its child's result s.
Status Engine::decorator_leave(Ctx& c, uint32_t i, Status s) {
  const Node& n = c.nodes[i];
  switch (n.kind) {
    case NodeKind::Invert: return s == Status::Success ? Status::Failure : s == Status::Failure ? Status::Success : s;
    case NodeKind::ForceSuccess: return s == Status::Running ? s : Status::Success;
    case NodeKind::ForceFailure: return s == Status::Running ? s : Status::Failure;
    case NodeKind::Repeat: {
      if (s != Status::Success) return s;  // running, or failure ends the repeat
      uint32_t& done = c.state<uint32_t>(n);
      ++done;
      if (n.a != 0 && done >= n.a) return Status::Success;
      return Status::Running;  // the child restarts next tick: one completion per tick
    }
    case NodeKind::UntilFail: return s == Status::Failure ? Status::Success : Status::Running;
    case NodeKind::UntilSuccess: return s == Status::Success ? Status::Success : Status::Running;
    case NodeKind::Cooldown:
      if (s == Status::Success || s == Status::Failure) c.state<double>(n) = c.now;
      return s;
    case NodeKind::Log:
      if (s != Status::Running) log_node(c.site(i), log_what(c, i), status_name(s).data());
      return s;
    default: return s;  // limit, timeout
  }
}

const std::string& Engine::log_what(Ctx& c, uint32_t i) {
  const std::string& message = c.p.messages[c.nodes[i].a];
  return message.empty() ? c.p.ids[i + 1] : message;
}

Status Engine::tick_leaf(Ctx& c, uint32_t i, bool starting) {
  const Node& n = c.nodes[i];
  switch (n.kind) {
    case NodeKind::Action: return tick_action(c, i, starting);
    case NodeKind::Condition:
    case NodeKind::Check: return evaluate_condition(c, i);
    case NodeKind::Wait: {
      double& started = c.state<double>(n);
      if (starting) started = c.now;
      return c.now - started >= n.seconds - kTimeEpsilon ? Status::Success : Status::Running;
    }
    default: return Status::Failure;
  }
}

// Aborts a running node: its running descendants first, in post-order, then the node itself.
// A native stop hook that throws does not cut the abort short: every other running node below
// i is still stopped, once, and marked aborted, and then the first exception is rethrown by the
// outermost abort (a despawn that stopped half the agent's leaves, or an abort that left its
// branch running and stopped it again next tick, is worse than a late exception).
void Engine::abort(Ctx& c, uint32_t i) {
  if (c.status(i) != Status::Running) return;
  struct Depth {  // (left by an exception from elsewhere, std::bad_alloc in a log node's line: none kept)
    Engine& e;
    explicit Depth(Engine& engine) : e(engine) { ++e.abort_depth_; }
    ~Depth() {
      if (--e.abort_depth_ == 0) e.abort_error_ = nullptr;
    }
  } depth(*this);
  const Node& n = c.nodes[i];
  for (uint16_t pos = 0; pos < n.count; ++pos) {
    const uint32_t ch = c.kids[n.children + pos];
    if (c.status(ch) == Status::Running) abort(c, ch);  // most children are not: no call
  }
  if (n.kind == NodeKind::Action) {
    try {
      leaf_stop(c, i, Status::Aborted);
    } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
      throw;
    } catch (...) {
      if (!abort_error_) abort_error_ = std::current_exception();
    }
  }
  if (n.kind == NodeKind::Log) log_node(c.site(i), log_what(c, i), "aborted");
  if (is_imported_kind(n.kind)) imported_halt(c, i);
  c.status(i) = Status::Aborted;
  if (abort_depth_ == 1 && abort_error_) [[unlikely]] {
    std::exception_ptr e = std::move(abort_error_);
    abort_error_ = nullptr;
    std::rethrow_exception(e);
  }
}

// Weighted draw without replacement from the agent's stream (SPEC 3.2: random_*).
void Engine::draw_order(Ctx& c, uint32_t i) {
  const Node& n = c.nodes[i];
  uint16_t* order = &c.state<uint16_t>(n, 2);
  for (uint16_t k = 0; k < n.count; ++k) order[k] = k;
  const double* w = c.p.weights.data() + n.children;
  // Every weight 1 (no `weights:`): the remaining total is count - k exactly, and the walk
  // below stops at k + floor(r) (r - 1 is exact for r < 2^53), so the pick is found at once.
  // The same draws give the same order, in time linear in the children, not quadratic: a
  // random_selector of 1,000 children took ~0.7 ms a start.
  if (std::all_of(w, w + n.count, [](double x) { return x == 1.0; })) {
    for (uint16_t k = 0; k < n.count; ++k) {
      const uint16_t left = static_cast<uint16_t>(n.count - k);
      const double r = c.agent.rng.uniform() * static_cast<double>(left);
      const double skip = std::min(std::floor(r), static_cast<double>(left - 1));
      std::swap(order[k], order[k + static_cast<uint16_t>(skip)]);
    }
    return;
  }
  for (uint16_t k = 0; k < n.count; ++k) {
    double total = 0;
    for (uint16_t m = k; m < n.count; ++m) total += w[order[m]];
    double r = c.agent.rng.uniform() * total;
    uint16_t pick = k;
    for (uint16_t m = k; m < n.count; ++m) {
      r -= w[order[m]];
      pick = m;
      if (r < 0) break;
    }
    std::swap(order[k], order[pick]);
  }
}

}  // namespace thicket
