// The node table of a loaded brain and the per-node statuses of an agent, for viewers: the
// record's header and tick lines (docs/record-format.md) and `thicket view` draw brains from
// these, so they must not need the compiled Program's layout.
#include <sstream>

#include "runtime_impl.hpp"

namespace thicket {
namespace {

// A node's parameters as the brain file would write them ("seconds: 2", "times: 3"), so a
// viewer can show why a cooldown fails without opening the file.
std::string node_params(const Program& p, uint32_t i) {
  const Node& n = p.nodes[i];
  std::ostringstream out;
  switch (n.kind) {
    case NodeKind::Sequence:
    case NodeKind::Selector:
    case NodeKind::Filter:
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence:
      if (n.abort() != AbortMode::None) out << "abort: " << abort_mode_name(n.abort());
      if (n.kind == NodeKind::RandomSelector || n.kind == NodeKind::RandomSequence) {
        out << (n.abort() != AbortMode::None ? ", " : "") << "weights: [";
        for (uint16_t k = 0; k < n.count; ++k) out << (k ? ", " : "") << p.weights[n.children + k];
        out << "]";
      }
      break;
    case NodeKind::Parallel:
    case NodeKind::Monitor: out << "success: " << n.a << ", failure: " << n.b; break;
    case NodeKind::Repeat:
      if (n.a) out << "times: " << n.a;
      break;
    case NodeKind::Limit: out << "times: " << n.a; break;
    case NodeKind::Timeout:
    case NodeKind::Cooldown:
    case NodeKind::Wait: out << "seconds: " << n.seconds; break;
    case NodeKind::Log:
      if (n.a < p.messages.size() && !p.messages[n.a].empty()) out << "message: " << p.messages[n.a];
      break;
    case NodeKind::Action:
    case NodeKind::Condition: {
      const LeafCall& call = p.calls[n.a];
      // The args as `thicket dump` prints them, without the outer braces.
      for (size_t k = 0; k < call.args.entries.size(); ++k) {
        out << (k ? ", " : "") << call.args.entries[k].first << ": ";
        write_arg(out, call.args.entries[k].second);
      }
      if (n.flags & kNegate) out << (call.args.entries.empty() ? "" : ", ") << "negate: true";
      break;
    }
    case NodeKind::Check:
      out << "check: " << p.exprs[n.a].source();
      if (n.flags & kNegate) out << ", negate: true";
      break;
    case NodeKind::Machine:
      if (n.seconds >= 0) out << "check_every: " << n.seconds;
      break;
    default: break;
  }
  return out.str();
}

}  // namespace

std::vector<NodeInfo> Runtime::nodes(BrainHandle brain) const {
  if (brain.index >= impl_->brains.size()) return {};
  const Program& p = *impl_->brains[brain.index]->program;
  std::vector<NodeInfo> out(p.nodes.size());
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    NodeInfo& info = out[i];
    info.id = p.ids[i];
    info.kind = kind_info(written_kind(p.nodes[i])).name;  // as the file says
    info.label = p.labels[i];
    info.params = node_params(p, i);
    if (i < p.positions.size()) {
      const SourcePos& at = p.positions[i];
      if (at.file < p.files.size()) info.file = p.files[at.file];
      info.line = at.line;
      info.column = at.column;
    }
    for (uint16_t c = 0; c < p.nodes[i].count; ++c) out[p.child(p.nodes[i], c)].parent = static_cast<int32_t>(i);
  }
  if (p.nodes.empty()) return out;
  const Node& root = p.nodes[0];
  if (root.kind == NodeKind::Fsm) {
    // Each state links to the states its transitions and `when` entries lead to.
    for (const FsmState& st : p.fsm_states) {
      if (st.node >= out.size()) continue;
      NodeInfo& state = out[st.node];
      for (const FsmTransition& t : st.transitions) state.links.emplace_back(p.fsm_states[t.target].node, t.name);
      for (const FsmWhen& w : st.when) state.links.emplace_back(p.fsm_states[w.target].node, "when");
    }
  }
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    // A machine's children are (check, run) pairs, one per behavior in priority order.
    const Node& m = p.nodes[i];
    if (m.kind != NodeKind::Machine) continue;
    for (uint32_t k = 0; k + 1 < m.count; k += 2) {
      const size_t b = m.b + k / 2;
      const std::string& behavior = b < p.behaviors.size() ? p.behaviors[b] : std::string();
      out[p.child(m, k)].links.emplace_back(p.child(m, k + 1), behavior);
    }
  }
  return out;
}

std::vector<LeafInfo> Runtime::leaves() const {
  std::vector<LeafInfo> out;
  out.reserve(impl_->leaf_ids.size());
  for (const auto& [name, id] : impl_->leaf_ids) out.push_back({name, impl_->leaves[id].file});
  return out;
}

std::string Runtime::brain_type(BrainHandle brain) const {
  if (brain.index >= impl_->brains.size()) return {};
  return brain_kind_name(impl_->brains[brain.index]->kind);
}

void Runtime::node_statuses(AgentHandle agent, std::string& out) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  if (!a) return;
  const Brain& b = *impl_->brains[a->brain];
  // The block starts with one status byte per node (program.hpp: statuses first).
  const auto* statuses = b.storage.data() + size_t(a->row) * b.program->block_size;
  const size_t n = b.program->nodes.size();
  const size_t at = out.size();
  out.resize(at + n);
  for (size_t i = 0; i < n; ++i) {
    switch (static_cast<Status>(statuses[i])) {
      case Status::Running: out[at + i] = 'R'; break;
      case Status::Success: out[at + i] = 'S'; break;
      case Status::Failure: out[at + i] = 'F'; break;
      default: out[at + i] = '.'; break;
    }
  }
}

}  // namespace thicket
