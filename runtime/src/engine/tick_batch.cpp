// The batched walk: many agents of one brain ticked together, node by node.
//
// The per-agent walk (tick.cpp) pays, at every node of every agent, a dispatch on the node's
// op and a branch on each child's result, and those branches follow the leaves' answers, which
// a branch predictor can guess only so well. Here each node is visited once for a whole batch
// of agents: the dispatch is paid once per batch, a leaf is a tight loop of calls to one
// function, and a composite sorts its agents by their child's result without branching on it.
//
// It applies to brains made only of plain sequences, filters, selectors and active_selectors
// and native leaves on the shortcuts whose leaves are agent_local (Program::batchable), and
// gives each agent exactly the leaf calls, node states and root status of its own tick:
//   - a visit to node i with the agents `in` leaves each agent's result in its status byte
//     for node i, as the per-agent walk does when it finishes node i;
//   - a composite visits child k with the agents that reach child k this tick (those resuming
//     there and those the previous child let through), so each agent meets its nodes in the
//     depth-first order of its own walk;
//   - node state is written only where the per-agent walk writes it, so agent blocks come out
//     byte for byte the same (snapshots cannot tell the walks apart).
// The order of calls between agents differs; agent_local leaves promise that cannot be seen.
// A leaf that throws ends its agent's walk there, as it ends the per-agent walk: the agent is
// marked gone and left out of every visit after (no status written for it above that leaf);
// the others go on, and the exception of the lowest agent comes out of tick_batch at its end.
// tests/unit/engine/test_tick_batch.cpp compares the two walks on random trees.
#include <cxxabi.h>

#include <cstring>
#include <exception>

#include "leaf_host.hpp"
#include "runtime_impl.hpp"
#include "tick.hpp"

namespace thicket {

struct Engine::Batch {
  const NodeOp* ops;
  const uint32_t* kids;
  const Node* nodes;
  const BatchAgent* agents;
  Status* results;  // a leaf's results, agent by agent (kBatchMax)
  CallSite cs;     // the leaf call in progress: its node per visit, its agent per call
  LeafContext lc;  // what native leaves get: points at cs and the agent
  // Agents whose leaf threw (by index into agents; zeroed when the first one does): their walk
  // has ended, and every visit after leaves them out.
  uint8_t* gone;
  bool any_gone = false;
  std::exception_ptr error;  // the lowest agent's exception
  const AgentInfo* error_agent = nullptr;
  void went(uint16_t idx) {
    if (!any_gone) std::memset(gone, 0, kBatchMax);
    any_gone = true;
    gone[idx] = 1;
    if (!error || agents[idx].agent < error_agent) {
      error = std::current_exception();
      error_agent = agents[idx].agent;
    }
  }
};

namespace {

inline Status& status_of(uint8_t* block, uint32_t i) { return reinterpret_cast<Status*>(block)[i]; }
inline uint16_t& u16_at(uint8_t* block, uint32_t offset) { return *reinterpret_cast<uint16_t*>(block + offset); }

}  // namespace

// A plain sequence or selector's part in a child's visit, per agent: the child's result `s`
// is the composite's own when the agent stops here (running or `stop`), a running child's
// position is kept, and agents the child lets through go on to the next child, the composite's
// status left as the tick found it until it is decided (as the per-agent walk leaves it, which
// an agent whose leaf throws further on keeps). No branch on `s`: which agents go on varies
// from agent to agent.
struct Engine::Fuse {
  uint32_t parent, state;  // the composite and its state offset
  uint16_t pos;            // the child's position
  Status stop;             // the child result that ends the composite
  uint16_t* next;          // the agents that go on
  uint32_t nn;
  [[gnu::always_inline]] void take(uint8_t* block, Status s, uint16_t agent) {
    const bool goes_on = s != Status::Running && s != stop;
    Status& own = status_of(block, parent);
    own = goes_on ? own : s;
    uint16_t& at = u16_at(block, state);
    at = s == Status::Running ? pos : at;
    next[nn] = agent;
    nn += goes_on;
  }
};

// A native leaf at node i for the agents `in`: one call each; with `f`, its parent's part too,
// in a second pass without calls, where everything stays in registers.
template <bool kCondition, bool kFused>
void Engine::batch_leaf(Batch& b, uint32_t i, const uint16_t* in, uint32_t n, Fuse* f) {
  const NodeOp& o = b.ops[i];
  Status (*const tick)(LeafContext&, void*) = o.tick;
  void* const user = o.user;
  const BatchAgent* const ag = b.agents;
  Status* const results = b.results;
  b.cs.node = i;
  // Statuses the leaf's kind does not give, noted without a branch in the loop and mended after
  // it (Engine::bad_native_status): a condition gives success (1) or failure (2), an action
  // also running (3).
  constexpr unsigned kLast = kCondition ? 1u : 2u;
  bool bad = false;
  for (uint32_t k = 0; k < n; ++k) {
    const BatchAgent& a = ag[in[k]];
    b.lc.agent_ = a.agent;
    b.cs.agent = a.agent;
    b.cs.block = a.block;
    try {
      results[k] = tick(b.lc, user);
    } catch (abi::__forced_unwind&) {  // the thread is being ended (pthread_exit): let it
      throw;
    } catch (...) {
      results[k] = Status::Failure;  // (not read: the agent is gone)
      b.went(in[k]);
    }
    bad |= static_cast<uint8_t>(results[k]) - 1u > kLast;
  }
  if (bad) [[unlikely]] {
    for (uint32_t k = 0; k < n; ++k)
      if (static_cast<uint8_t>(results[k]) - 1u > kLast)
        results[k] = bad_native_status(rt_, *b.cs.program, *ag[in[k]].agent, i, results[k], kCondition);
  }
  // The results written, and with `f` the parent's part taken; kSkip: without the agents gone.
  auto write = [&](auto skip) {
    constexpr bool kSkip = decltype(skip)::value;
    if (kFused) {
      Fuse fuse = *f;
      for (uint32_t k = 0; k < n; ++k) {
        const uint16_t idx = in[k];
        if (kSkip && b.gone[idx]) continue;
        uint8_t* block = ag[idx].block;
        Status s = results[k];
        if (kCondition) s = s == Status::Success ? Status::Success : Status::Failure;
        status_of(block, i) = s;
        fuse.take(block, s, idx);
      }
      f->nn = fuse.nn;
    } else {
      for (uint32_t k = 0; k < n; ++k) {
        if (kSkip && b.gone[in[k]]) continue;
        Status s = results[k];
        if (kCondition) s = s == Status::Success ? Status::Success : Status::Failure;
        status_of(ag[in[k]].block, i) = s;
      }
    }
  };
  if (b.any_gone) [[unlikely]]
    write(std::true_type{});
  else
    write(std::false_type{});
}

// Three lists of up to n agents per composite level (batch_visit), plus the root's list.
static size_t scratch_size(uint16_t composite_depth, uint32_t n) { return (size_t(composite_depth) * 3 + 1) * n; }

void Engine::reserve_batches(uint16_t composite_depth) {
  const size_t need = scratch_size(composite_depth, kBatchMax);
  if (batch_scratch_.size() < need) batch_scratch_.resize(need);
}

void Engine::tick_batch(const Program& p, const BatchAgent* agents, uint32_t n) {
  if (n == 0) return;
  reserve_batches(p.composite_depth);  // done at load already: no allocation here
  uint16_t* all = batch_scratch_.data();
  for (uint32_t k = 0; k < n; ++k) all[k] = static_cast<uint16_t>(k);
  Status results[kBatchMax];
  uint8_t gone[kBatchMax];
  Batch b{p.ops.data(), p.child_index.data(), p.nodes.data(), agents, results, CallSite{&p, 0, nullptr, nullptr}, {}, gone, false, {}, nullptr};
  b.lc.rt_ = &rt_;
  b.lc.site_ = &b.cs;
  batch_error_agent_ = nullptr;
  batch_visit(b, 0, all, n, all + n);
  if (b.error) [[unlikely]] {
    batch_error_agent_ = b.error_agent;
    std::rethrow_exception(b.error);
  }
}

void Engine::batch_visit(Batch& b, uint32_t i, const uint16_t* in, uint32_t n, uint16_t* scratch) {
  const NodeOp& o = b.ops[i];
  const BatchAgent* const ag = b.agents;
  switch (o.op) {
    case Op::NativeCond: return batch_leaf<true, false>(b, i, in, n, nullptr);
    case Op::NativeAction: return batch_leaf<false, false>(b, i, in, n, nullptr);
    case Op::Sequence:
    case Op::Selector: {
      // stop: the child result that ends the composite; any other result but running moves
      // the agent to the next child (as in tick.cpp's frames).
      const Status stop = o.op == Op::Selector ? Status::Success : Status::Failure;
      const Status done = o.op == Op::Selector ? Status::Failure : Status::Success;  // past the last child
      uint16_t* cur = scratch;         // the agents to tick child k with
      uint16_t* next = scratch + n;    // those child k lets through
      uint16_t* resume = scratch + 2 * n;  // those resuming a running child after the first
      uint32_t nc = 0, nr = 0;
      for (uint32_t k = 0; k < n; ++k) {
        uint8_t* block = ag[in[k]].block;
        if (status_of(block, i) == Status::Running && u16_at(block, o.state) != 0)
          resume[nr++] = in[k];
        else
          cur[nc++] = in[k];
      }
      // Resuming agents join at their running child's position, in order of position.
      for (uint32_t k = 1; k < nr; ++k) {
        const uint16_t a = resume[k];
        const uint16_t pos = u16_at(ag[a].block, o.state);
        uint32_t j = k;
        for (; j > 0 && u16_at(ag[resume[j - 1]].block, o.state) > pos; --j) resume[j] = resume[j - 1];
        resume[j] = a;
      }
      uint32_t r = 0;
      for (uint16_t pos = 0; pos < o.count; ++pos) {
        while (r < nr && u16_at(ag[resume[r]].block, o.state) == pos) cur[nc++] = resume[r++];
        if (nc == 0) {
          if (r == nr) break;  // every agent has finished this node
          continue;
        }
        const uint32_t child = b.kids[o.children + pos];
        Fuse f{i, o.state, pos, stop, next, 0};
        const Op child_op = b.ops[child].op;
        if (child_op == Op::NativeCond) {  // most children: the leaf loop does the parent's part
          batch_leaf<true, true>(b, child, cur, nc, &f);
        } else if (child_op == Op::NativeAction) {
          batch_leaf<false, true>(b, child, cur, nc, &f);
        } else {
          batch_visit(b, child, cur, nc, scratch + 3 * n);
          if (b.any_gone) [[unlikely]] {
            for (uint32_t k = 0; k < nc; ++k)
              if (!b.gone[cur[k]]) f.take(ag[cur[k]].block, status_of(ag[cur[k]].block, child), cur[k]);
          } else {
            for (uint32_t k = 0; k < nc; ++k) f.take(ag[cur[k]].block, status_of(ag[cur[k]].block, child), cur[k]);
          }
        }
        std::swap(cur, next);
        nc = f.nn;
      }
      while (r < nr) cur[nc++] = resume[r++];  // a running position past the children (never made)
      for (uint32_t k = 0; k < nc; ++k) status_of(ag[cur[k]].block, i) = done;
      return;
    }
    default: {
      // Op::Active (Program::batchable admits no other op here): every agent starts
      // at the first child each tick; the first child not to fail decides, and a running child
      // of an earlier tick that did not decide is aborted (Engine::finish_active_selector).
      const Node& node = b.nodes[i];
      uint16_t* cur = scratch;
      uint16_t* next = scratch + n;
      uint32_t nc = n;
      for (uint32_t k = 0; k < n; ++k) {
        uint8_t* block = ag[in[k]].block;
        if (status_of(block, i) != Status::Running) u16_at(block, o.state) = kNoPos;
        cur[k] = in[k];
      }
      auto finish = [&](uint8_t* block, Status result, uint16_t decided) {
        uint16_t& last = u16_at(block, o.state);
        if (last != kNoPos && last != decided) abort_span(b.nodes, &status_of(block, 0), b.kids[node.children + last]);  // no hooks here
        last = result == Status::Running ? decided : kNoPos;
        status_of(block, i) = result;
      };
      for (uint16_t pos = 0; pos < o.count && nc > 0; ++pos) {
        const uint32_t child = b.kids[o.children + pos];
        batch_visit(b, child, cur, nc, scratch + 3 * n);
        uint32_t nn = 0;
        const bool any_gone = b.any_gone;
        for (uint32_t k = 0; k < nc; ++k) {
          if (any_gone && b.gone[cur[k]]) [[unlikely]]
            continue;
          uint8_t* block = ag[cur[k]].block;
          const Status s = status_of(block, child);
          if (s == Status::Failure)
            next[nn++] = cur[k];
          else
            finish(block, s, pos);
        }
        std::swap(cur, next);
        nc = nn;
      }
      for (uint32_t k = 0; k < nc; ++k) finish(ag[cur[k]].block, Status::Failure, kNoPos);
      return;
    }
  }
}

}  // namespace thicket
