// Text forms of a compiled brain: `thicket dump` (the node array, for golden tests and
// curious modders) and `thicket dot` (Graphviz).
#include <iomanip>
#include <algorithm>
#include <functional>
#include <sstream>

#include "compiler.hpp"
#include "runtime_impl.hpp"

namespace thicket {

void write_arg(std::ostream& out, const ArgValue& v) {
  switch (v.type) {
    case ArgValue::Type::Nil: out << "nil"; break;
    case ArgValue::Type::Bool: out << (v.boolean ? "true" : "false"); break;
    case ArgValue::Type::Integer: out << v.integer; break;
    case ArgValue::Type::Number: out << v.number; break;
    case ArgValue::Type::String: out << '"' << v.text << '"'; break;
    case ArgValue::Type::List:
      out << "[";
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out << ", ";
        write_arg(out, v.items[i]);
      }
      out << "]";
      break;
    case ArgValue::Type::Map:
      out << "{";
      for (size_t i = 0; i < v.entries.size(); ++i) {
        if (i) out << ", ";
        out << v.entries[i].first << ": ";
        write_arg(out, v.entries[i].second);
      }
      out << "}";
      break;
  }
}

namespace {
// A script's steps as `key = postfix; ...` (the expressions disassembled).
void dump_script(std::ostream& out, const Program& p, uint32_t script) {
  const Program::Range r = p.scripts[script];
  for (uint32_t k = r.begin; k < r.begin + r.count; ++k) {
    const Program::ScriptStep& step = p.script_steps[k];
    out << (k != r.begin ? "; " : "") << p.blackboard[step.slot].name << " = " << p.exprs[step.expr].disassemble();
  }
}

// The parameters of node i as `key=value` words. by_id: other nodes named by id, not by index
// (node_settings: the same words before and after a reload that moved nodes).
std::string params(const Program& p, uint32_t i, bool by_id = false) {
  const Node& n = p.nodes[i];
  std::ostringstream out;
  if (n.flags & kLowered) {  // runs as (lower_imported)
    const NodeKind written = written_kind(n);
    // (A ReactiveSequence: the active_selector's walk with success and failure exchanged.)
    out << " as=" << (written == NodeKind::BtReactiveSequence ? "active_sequence" : kind_info(n.kind).name);
    if (written == NodeKind::BtSubtree && !p.messages[n.a].empty()) out << " id=" << p.messages[n.a];
  }
  switch (n.kind) {
    case NodeKind::Sequence:
    case NodeKind::Selector:
    case NodeKind::Filter:
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence:
      if (n.abort() != AbortMode::None) {
        out << " abort=" << abort_mode_name(n.abort()) << " observes=[";
        for (uint32_t k = 0; k < n.b; ++k) {
          out << (k ? " " : "");
          if (by_id) out << p.ids[p.observed[n.a + k]];
          else out << p.observed[n.a + k];
        }
        out << "]";
      }
      if (n.kind == NodeKind::RandomSelector || n.kind == NodeKind::RandomSequence) {
        out << " weights=[";
        for (uint16_t k = 0; k < n.count; ++k) out << (k ? " " : "") << p.weights[n.children + k];
        out << "]";
      }
      break;
    case NodeKind::Parallel:
    case NodeKind::Monitor: out << " success=" << n.a << " failure=" << n.b; break;
    case NodeKind::Repeat:
      if (n.a) out << " times=" << n.a;
      break;
    case NodeKind::Limit: out << " times=" << n.a; break;
    case NodeKind::Timeout:
    case NodeKind::Cooldown:
    case NodeKind::Wait: out << " seconds=" << n.seconds; break;
    case NodeKind::Log:
      if (!p.messages[n.a].empty()) out << " message=\"" << p.messages[n.a] << "\"";
      break;
    // Imported trees' kinds (docs/import.md): the parameters as their YAML names them.
    case NodeKind::BtSequence:
    case NodeKind::BtFallback:
      if (n.a) out << " async";
      break;
    case NodeKind::BtParallel:
      out << " success_count=" << static_cast<int32_t>(n.a) << " failure_count=" << static_cast<int32_t>(n.b);
      break;
    case NodeKind::BtParallelAll: out << " max_failures=" << static_cast<int32_t>(n.a); break;
    case NodeKind::BtRepeat: out << " num_cycles=" << static_cast<int32_t>(n.a); break;
    case NodeKind::BtRetry: out << " num_attempts=" << static_cast<int32_t>(n.a); break;
    case NodeKind::BtRunOnce: out << " then_skip=" << (n.a ? "true" : "false"); break;
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay:
    case NodeKind::BtSleep:
    case NodeKind::B3MaxTime:
    case NodeKind::B3Wait: out << " seconds=" << n.seconds; break;
    case NodeKind::BtSwitch: {
      out << " variable=\"" << p.messages[n.b] << "\" cases=[";
      for (uint16_t k = 0; k + 1 < n.count; ++k) {
        out << (k ? " " : "");
        if (p.messages[n.b + n.count][k] == '1') out << "\"" << p.messages[n.b + 1 + k] << "\"";
        else out << "null";
      }
      out << "]";
      break;
    }
    case NodeKind::BtPrecondition:
      out << " if=(" << p.exprs[n.a].disassemble() << ") else=" << status_name(static_cast<Status>(n.b & 0xFF));
      break;
    case NodeKind::BtSubtree:
      if (!p.messages[n.a].empty()) out << " id=" << p.messages[n.a];
      break;
    case NodeKind::BtGuard: {
      static const char* keys[8] = {"failure_if", "success_if", "skip_if", "while", "on_success", "on_failure", "post", "on_halted"};
      for (int k = 0; k < 8; ++k) {
        const uint32_t g = p.guards[n.a][k];
        if (g == kNoNode) continue;
        out << " " << keys[k] << "=(";
        if (k < 4) out << p.exprs[g].disassemble();
        else dump_script(out, p, g);
        out << ")";
      }
      break;
    }
    case NodeKind::BtScript:
      out << " code=(";
      if (n.a != kNoNode) dump_script(out, p, n.a);
      out << ")";
      break;
    case NodeKind::Always: out << " status=" << (n.a == static_cast<uint32_t>(Status::Aborted) ? "error" : status_name(static_cast<Status>(n.a))); break;
    case NodeKind::B3Limiter:
    case NodeKind::B3Repeater:
    case NodeKind::B3RepeatUntilFailure:
    case NodeKind::B3RepeatUntilSuccess: out << " max_loop=" << static_cast<int32_t>(n.a); break;
    case NodeKind::Action:
    case NodeKind::Condition: {
      const LeafCall& call = p.calls[n.a];
      out << " leaf=" << call.leaf;
      if (n.flags & kNegate) out << " negate";
      if (!call.args.entries.empty()) {
        out << " args=";
        write_arg(out, call.args);
      }
      break;
    }
    case NodeKind::Check:
      out << " expr=(" << p.exprs[n.a].disassemble() << ")";
      if (n.flags & kNegate) out << " negate";
      break;
    case NodeKind::Fsm:
      if (n.a != kNoPos && n.a < p.fsm_states.size()) out << " initial=" << p.fsm_states[n.a].name;
      break;
    case NodeKind::Machine:  // (unset, -1: every tick; a reload's "changed" reads it too)
      if (n.seconds >= 0) out << " check_every=" << n.seconds;
      break;
    case NodeKind::State: {  // SPEC 4.1: what the state does besides its parts
      const FsmState& st = p.fsm_states[n.a];
      if (!st.children.empty()) out << " initial=" << (st.initial == kNoPos ? "(enter_if)" : p.fsm_states[st.initial].name);
      if (st.history) out << " history";
      if (st.final) out << " final";
      if (!st.transitions.empty()) {
        out << " on={";
        for (size_t k = 0; k < st.transitions.size(); ++k) {
          const FsmTransition& t = st.transitions[k];
          out << (k ? ", " : "") << t.name << "->" << p.fsm_states[t.target].name;
          if (t.guard != kNoNode) {
            if (by_id) out << " if " << p.ids[t.guard];
            else out << " if " << t.guard;
          }
        }
        out << "}";
      }
      // Its `when:` entries in order, each with its clock and its check (node index or id):
      // `after` alone used to be all it showed, as if a check beside it were not there.
      if (!st.when.empty()) {
        out << " when={";
        for (size_t k = 0; k < st.when.size(); ++k) {
          const FsmWhen& w = st.when[k];
          out << (k ? ", " : "");
          if (w.after >= 0) out << "after " << w.after << (w.cond != kNoNode ? " " : "");
          if (w.cond != kNoNode) out << "if " << (by_id ? p.ids[w.cond] : std::to_string(w.cond));
          out << "->" << p.fsm_states[w.target].name;
        }
        out << "}";
      }
      break;
    }
    default: break;
  }
  return out.str();
}

std::vector<int> depths(const Program& p) {
  std::vector<int> depth(p.nodes.size(), 0);
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    for (uint16_t c = 0; c < p.nodes[i].count; ++c) depth[p.child(p.nodes[i], c)] = depth[i] + 1;
  return depth;
}

}  // namespace

std::string node_settings(const Program& p, uint32_t i) { return params(p, i, true); }

std::string dump_program(const Program& p) {
  std::ostringstream out;
  // The brain's kind, as its file says it: tree, fsm or machine.
  const NodeKind root = p.nodes.empty() ? NodeKind::Sequence : p.nodes[0].kind;
  const char* brain_kind = root == NodeKind::Fsm ? "fsm" : root == NodeKind::Machine ? "machine" : "tree";
  out << brain_kind << " " << p.name << ": " << p.nodes.size() << " nodes, " << p.block_size << " bytes per agent ("
      << p.state_size << " node state, " << p.blackboard.size() << " blackboard keys)\n";
  for (const auto& key : p.blackboard) out << "  bb " << key.name << ": " << value_type_name(key.type) << "\n";
  std::vector<int> depth = depths(p);
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    // A lowered node (compile_imported.cpp) by the kind its file gives, and what it runs as.
    std::string kind = std::string(depth[i] * 2, ' ') + kind_info(written_kind(n)).name;
    out << std::setw(4) << i << " " << std::left << std::setw(24) << kind << std::right << " id=" << p.ids[i]
        << " end=" << n.end;
    if (n.state) out << " state@" << n.state;
    out << params(p, i) << "\n";
  }
  return out.str();
}

std::string dot_escaped(std::string_view text) {
  std::string r;
  for (char c : text) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') r += "\\n";
    else if (c != '\r') r += c;
  }
  return r;
}

// An fsm is drawn as its states and transitions: that graph is the design. A composite state
// (SPEC 4.1) is a cluster holding its children, with a point for the state itself: edges to or
// from the composite meet that point and are clipped at the cluster's border; a dotted edge
// from the point leads to its `initial` child (or, without one, to each child it may select).
static std::string dot_fsm(const Program& p) {
  std::ostringstream out;
  const bool nested = std::any_of(p.fsm_states.begin(), p.fsm_states.end(), [](const FsmState& s) { return !s.children.empty(); });
  out << "digraph " << dot_quote(dot_escaped(p.name)) << " {\n" << (nested ? "  compound=true;\n" : "")
      << "  rankdir=LR;\n  node [shape=ellipse, fontname=\"Helvetica\"];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=10];\n  start [shape=point];\n";
  // A state whose entry always succeeds: no enter_if, and a leaf, or a composite whose initial
  // child's entry always does or (without one) one of whose children's does. One whose doesn't
  // may be passed over for the next child (7.3: a composite of guarded children).
  std::function<bool(uint16_t)> always_entered = [&](uint16_t c) {
    const FsmState& st = p.fsm_states[c];
    if (st.enter_if != kNoNode) return false;
    if (st.children.empty()) return true;
    if (st.initial != kNoPos) return always_entered(st.initial);
    return std::any_of(st.children.begin(), st.children.end(), [&](uint16_t k) { return always_entered(k); });
  };
  // Without `initial`, the children a selection may pick: in order, up to the first whose entry
  // always succeeds (the ones after it are never selected).
  auto selectable = [&](const std::vector<uint16_t>& kids, const std::string& from) {
    for (uint16_t c : kids) {
      const bool guarded = p.fsm_states[c].enter_if != kNoNode;
      out << from << " -> s" << c << " [style=dotted" << (guarded ? ", label=\"enter_if\"" : "") << "];\n";
      if (always_entered(c)) break;
    }
  };
  std::function<void(uint16_t, const std::string&)> state = [&](uint16_t s, const std::string& indent) {
    const FsmState& st = p.fsm_states[s];
    std::string label = dot_escaped(st.name);
    if (st.body != kNoNode) label += "\\n" + dot_escaped(p.labels[st.body]);
    if (st.history) label += "\\n(history)";
    if (st.children.empty()) {
      out << indent << "s" << s << " [label=" << dot_quote(label) << (st.final ? ", shape=doublecircle" : "") << "];\n";
      return;
    }
    out << indent << "subgraph cluster_s" << s << " {\n" << indent << "  label=" << dot_quote(label) << ";\n"
        << indent << "  style=rounded;\n" << indent << "  s" << s << " [shape=point, label=\"\"];\n";
    for (uint16_t c : st.children) state(c, indent + "  ");
    if (st.initial != kNoPos) out << indent << "  s" << s << " -> s" << st.initial << " [style=dotted];\n";
    else selectable(st.children, indent + "  s" + std::to_string(s));
    out << indent << "}\n";
  };
  for (uint16_t top : p.fsm_top) state(top, "  ");
  auto clip = [&](const char* key, uint16_t s) -> std::string {
    std::string text;
    if (!p.fsm_states[s].children.empty()) {
      text = ", ";
      text += key;
      text += "=cluster_s";
      text += std::to_string(s);
    }
    return text;
  };
  if (p.nodes[0].a != kNoPos) {
    // Clipped at the border when the initial state is composite (a leaf initial beside a
    // composite state has nothing to clip: that took substr(2) of "" and aborted `thicket dot`).
    const std::string head = clip("lhead", p.nodes[0].a);
    out << "  start -> s" << p.nodes[0].a << (head.empty() ? "" : " [" + head.substr(2) + "]") << ";\n";
  }
  else
    selectable(p.fsm_top, "  start");
  for (size_t s = 0; s < p.fsm_states.size(); ++s) {
    const auto from = static_cast<uint16_t>(s);
    for (const FsmTransition& t : p.fsm_states[s].transitions)
      out << "  s" << s << " -> s" << t.target << " [label=" << dot_quote(dot_escaped(t.guard == kNoNode ? t.name : t.name + " [" + p.labels[t.guard] + "]"))
          << clip("ltail", from) << clip("lhead", t.target) << "];\n";
    for (const FsmWhen& w : p.fsm_states[s].when) {
      std::string label = "when";
      if (w.after >= 0) {
        std::ostringstream a;
        a << " after " << w.after << " s";
        label += a.str();
      }
      if (w.cond != kNoNode) label += " " + p.labels[w.cond];
      label = dot_escaped(label);
      out << "  s" << s << " -> s" << w.target << " [label=" << dot_quote(label) << ", style=dashed" << clip("ltail", from)
          << clip("lhead", w.target) << "];\n";
    }
  }
  out << "}\n";
  return out.str();
}

// A node's parameters in words, for its label in `dot`: what a reader of the drawing needs
// to know how the node behaves ("" when it has none).
static std::string dot_params(const Program& p, uint32_t i) {
  const Node& n = p.nodes[i];
  std::ostringstream out;
  auto seconds = [&] { out << n.seconds << " s"; };
  auto threshold = [&](uint32_t k) {
    if (k == n.count) out << "all";
    else out << k;
  };
  switch (n.kind) {
    case NodeKind::Cooldown:
    case NodeKind::Timeout:
    case NodeKind::Wait: seconds(); break;
    case NodeKind::Repeat:
      if (n.a) out << n.a << (n.a == 1 ? " time" : " times");
      else out << "forever";
      break;
    case NodeKind::Limit: out << n.a << (n.a == 1 ? " time" : " times"); break;
    case NodeKind::Parallel:
    case NodeKind::Monitor:
      out << "success: ";
      threshold(n.a);
      out << ", failure: ";
      threshold(n.b);
      break;
    default: break;
  }
  return out.str();
}

std::string dot_program(const Program& p) {
  if (!p.nodes.empty() && p.nodes[0].kind == NodeKind::Fsm) return dot_fsm(p);
  std::ostringstream out;
  auto quote = dot_quote;
  out << "digraph " << quote(dot_escaped(p.name)) << " {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    Shape shape = kind_info(written_kind(n)).shape;  // a lowered node drawn as its file wrote it
    std::string label = dot_escaped(p.labels[i]);
    if (std::string words = dot_params(p, i); !words.empty()) label += "\\n" + dot_escaped(words);
    if (n.abort() != AbortMode::None && shape == Shape::Composite) label += "\\nabort: " + std::string(abort_mode_name(n.abort()));
    // Named: a `name:` (inside a subtree too, its id prefixed by the use) or a machine's behavior.
    const bool named = (i < p.named.size() && p.named[i]) || (p.ids[i].find('/') == std::string::npos && p.ids[i] != "root");
    if (named) label += "\\n(" + dot_escaped(p.ids[i]) + ")";
    const char* style = shape == Shape::Leaf ? (n.kind == NodeKind::Action || n.kind == NodeKind::Wait ? "shape=box, style=rounded"
                                                                                                       : "shape=ellipse")
                        : shape == Shape::Decorator ? "shape=diamond" : "shape=box, style=bold";
    out << "  n" << i << " [label=" << quote(label) << ", " << style << "];\n";
  }
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    for (uint16_t c = 0; c < p.nodes[i].count; ++c) out << "  n" << i << " -> n" << p.child(p.nodes[i], c) << ";\n";
  // A machine's children come in pairs, (check, behavior): a dashed edge says which check
  // picks which behavior.
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind == NodeKind::Machine)
      for (uint16_t c = 0; c + 1 < p.nodes[i].count; c += 2)
        out << "  n" << p.child(p.nodes[i], c) << " -> n" << p.child(p.nodes[i], c + 1)
            << " [style=dashed, constraint=false, label=\"picks\"];\n";
  out << "}\n";
  return out.str();
}

std::string Runtime::dump(BrainHandle brain) const {
  if (brain.index >= impl_->brains.size()) return {};
  return dump_program(*impl_->brains[brain.index]->program);
}

std::string Runtime::dot(BrainHandle brain) const {
  if (brain.index >= impl_->brains.size()) return {};
  return dot_program(*impl_->brains[brain.index]->program);
}

}  // namespace thicket
