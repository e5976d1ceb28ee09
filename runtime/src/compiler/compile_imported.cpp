// The kinds that give trees brought from BehaviorTree.CPP 4 (bt_*) and behavior3 (b3_*) their
// source library's exact semantics (SPEC 13; docs/import.md): their parameters, their leaves
// and the rules that span nodes (a b3_* node only under a b3_tree, child counts).
#include <algorithm>
#include <cmath>

#include "tree_compiler.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

std::vector<std::string> imported_params_of(NodeKind k) {
  switch (k) {
    case NodeKind::BtSequence:
    case NodeKind::BtFallback: return {"children", "name", "async"};
    case NodeKind::BtParallel: return {"children", "name", "success_count", "failure_count"};
    case NodeKind::BtParallelAll: return {"children", "name", "max_failures"};
    case NodeKind::BtSwitch: return {"children", "name", "variable", "cases"};
    case NodeKind::BtRepeat: return {"child", "name", "num_cycles"};
    case NodeKind::BtRetry: return {"child", "name", "num_attempts"};
    case NodeKind::BtRunOnce: return {"child", "name", "then_skip"};
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay:
    case NodeKind::B3MaxTime: return {"child", "name", "seconds"};
    case NodeKind::BtPrecondition: return {"child", "name", "if", "else"};
    case NodeKind::BtSubtree: return {"child", "name", "id"};
    case NodeKind::BtGuard:
      return {"child", "name", "failure_if", "success_if", "skip_if", "while", "on_success", "on_failure", "post", "on_halted"};
    case NodeKind::BtScript: return {"name", "code"};
    case NodeKind::BtSleep:
    case NodeKind::B3Wait: return {"name", "seconds"};
    case NodeKind::Always: return {"name", "status"};
    case NodeKind::B3Limiter:
    case NodeKind::B3Repeater:
    case NodeKind::B3RepeatUntilFailure:
    case NodeKind::B3RepeatUntilSuccess: return {"child", "name", "max_loop"};
    default: break;
  }
  if (kind_info(k).shape == Shape::Composite) return {"children", "name"};
  return {"child", "name"};
}

std::optional<int64_t> TreeCompiler::read_int(const YAML::Node& v, const char* what, int64_t lo, int64_t hi) {
  auto i = yaml_integer(v);
  if (!i || *i < lo || *i > hi) {
    error(v, std::string("'") + what + "' must be a whole number from " + std::to_string(lo) + " to " +
                 std::to_string(hi) + ", got " + (v.IsScalar() ? "'" + v.Scalar() + "'" : std::string(describe_node(v))) +
                 whole_number_hint(v));
    return std::nullopt;
  }
  return i;
}

namespace {
std::optional<bool> read_bool(const YAML::Node& v) {
  Scalar s = classify_scalar(v);
  if (!v.IsScalar() || s.kind != ScalarKind::Bool) return std::nullopt;
  return s.boolean;
}
// A status a node may be told to return: success, failure, running, skipped (BT.CPP) or
// error (behavior3), as the tick loop holds them (skipped: Invalid, error: Aborted).
std::optional<Status> read_status(const YAML::Node& v, const std::vector<std::string>& allowed) {
  if (!v.IsScalar()) return std::nullopt;
  const std::string& t = v.Scalar();
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) return std::nullopt;
  if (t == "success") return Status::Success;
  if (t == "failure") return Status::Failure;
  if (t == "running") return Status::Running;
  if (t == "error") return Status::Aborted;
  return Status::Invalid;  // skipped
}
}  // namespace

// Reads the parameters of an imported composite or decorator (after its children, for
// composites) into its node record.
void TreeCompiler::imported_params(NodeKind kind, const YAML::Node& v, uint32_t index) {
  Node& n = p_.nodes[index];
  auto set_int = [&](const char* key, int64_t fallback, int64_t lo, int64_t hi, bool required) {
    int64_t value = fallback;
    if (v[key]) {
      if (auto i = read_int(v[key], key, lo, hi)) value = *i;
    } else if (required && !v.Mark().is_null()) {  // (the short form said so already)
      error(v, std::string(kind_info(kind).name) + " needs '" + key + "'");
    }
    p_.nodes[index].a = static_cast<uint32_t>(static_cast<int32_t>(value));
  };
  switch (kind) {
    case NodeKind::BtSequence:
    case NodeKind::BtFallback:
      n.a = 0;
      if (v["async"]) {
        if (auto b = read_bool(v["async"])) n.a = *b;
        else error(v["async"], std::string("'async' must be true or false, got ") + describe_node(v["async"]) + yaml11_boolean_hint(v["async"]));
      }
      break;
    case NodeKind::BtParallel: {
      const int64_t count = n.count;
      int32_t t[2] = {-1, 1};
      const char* keys[2] = {"success_count", "failure_count"};
      for (int k = 0; k < 2; ++k) {
        if (!v[keys[k]]) continue;
        if (auto i = read_int(v[keys[k]], keys[k], -count - 1, count)) t[k] = static_cast<int32_t>(*i);
      }
      p_.nodes[index].a = static_cast<uint32_t>(t[0]);
      p_.nodes[index].b = static_cast<uint32_t>(t[1]);
      break;
    }
    case NodeKind::BtParallelAll: set_int("max_failures", 1, -int64_t(n.count) - 1, n.count, false); break;
    case NodeKind::BtRepeat: set_int("num_cycles", -1, -1, 0x7FFFFFFF, true); break;
    case NodeKind::BtRetry: set_int("num_attempts", -1, -1, 0x7FFFFFFF, true); break;
    case NodeKind::B3Limiter: set_int("max_loop", 1, 0, 0x7FFFFFFF, true); break;  // 0: a negative maxLoop (FAILURE, child never run)
    case NodeKind::B3Repeater:
    case NodeKind::B3RepeatUntilFailure:
    case NodeKind::B3RepeatUntilSuccess: set_int("max_loop", -1, -1, 0x7FFFFFFF, false); break;
    case NodeKind::BtRunOnce:
      n.a = 1;
      if (v["then_skip"]) {
        if (auto b = read_bool(v["then_skip"])) n.a = *b;
        else error(v["then_skip"], std::string("'then_skip' must be true or false, got ") + describe_node(v["then_skip"]) +
                                   yaml11_boolean_hint(v["then_skip"]));
      }
      break;
    case NodeKind::BtTimeout:
    case NodeKind::BtDelay:
    case NodeKind::B3MaxTime:
      if (!v["seconds"]) error(v, std::string(kind_info(kind).name) + " needs 'seconds'");
      else if (auto s = read_seconds(v["seconds"], "'seconds'")) n.seconds = *s;
      break;
    case NodeKind::BtPrecondition: {
      if (!v["if"]) error(v, "bt_precondition needs 'if', a check expression");
      uint32_t e = v["if"] ? expr_of(v["if"], "'if'") : kNoNode;
      Status otherwise = Status::Failure;
      if (v["else"]) {
        if (auto s = read_status(v["else"], {"success", "failure", "running", "skipped"})) otherwise = *s;
        else error(v["else"], "'else' must be success, failure, running or skipped, got " +
                                  (v["else"].IsScalar() ? "'" + v["else"].Scalar() + "'" : std::string(describe_node(v["else"]))) +
                                  did_you_mean(v["else"].IsScalar() ? v["else"].Scalar() : "", {"success", "failure", "running", "skipped"}));
      }
      p_.nodes[index].a = e;  // b: the else status, and above its low byte where `if` is written (export)
      p_.nodes[index].b = static_cast<uint32_t>(otherwise) |
                          (add_message(v["if"] && v["if"].IsScalar() ? v["if"].Scalar() : "") << 8);
      break;
    }
    case NodeKind::BtSubtree:
      if (v["id"] && !v["id"].IsScalar()) error(v["id"], std::string("'id' must be a tree's name, got ") + describe_node(v["id"]));
      n.a = add_message(v["id"] && v["id"].IsScalar() ? v["id"].Scalar() : "");
      break;
    case NodeKind::BtGuard: {
      std::array<uint32_t, 8> g;
      g.fill(kNoNode);
      // Checks before the node (BT.CPP's pre-conditions), then scripts after it (its post-conditions).
      const char* keys[8] = {"failure_if", "success_if", "skip_if", "while", "on_success", "on_failure", "post", "on_halted"};
      bool any = false;
      p_.nodes[index].b = static_cast<uint32_t>(p_.messages.size());  // the eight texts, for export
      for (int k = 0; k < 8; ++k) add_message(v[keys[k]] && v[keys[k]].IsScalar() ? v[keys[k]].Scalar() : "");
      for (int k = 0; k < 8; ++k)
        if (v[keys[k]]) {
          const std::string what = std::string("'") + keys[k] + "'";
          g[k] = k < 4 ? expr_of(v[keys[k]], what) : script_of(v[keys[k]], what);
          any = true;
        }
      if (!any) error(v, "bt_guard needs one of failure_if, success_if, skip_if, while, on_success, on_failure, post, on_halted");
      p_.nodes[index].a = static_cast<uint32_t>(p_.guards.size());
      p_.guards.push_back(g);
      break;
    }
    case NodeKind::BtSwitch: {
      // messages[b] is the variable (a literal, or {key} for a blackboard key), then the cases.
      const YAML::Node var = v["variable"], cases = v["cases"];
      n.b = static_cast<uint32_t>(p_.messages.size());
      n.a = kNoNode;
      std::string text;
      if (!var) error(v, "bt_switch needs 'variable', a text or {key}");
      else if (!var.IsScalar()) error(var, std::string("'variable' must be text or {key}, got ") + describe_node(var));
      else text = var.Scalar();
      p_.messages.push_back(text);
      if (text.size() >= 3 && text.front() == '{' && text.back() == '}') {
        const std::string key = text.substr(1, text.size() - 2);
        auto it = std::find_if(expr_keys_.begin(), expr_keys_.end(), [&](const ExprKey& k) { return k.name == key; });
        std::vector<std::string> names;
        for (const auto& k : expr_keys_) names.push_back(k.name);
        if (it == expr_keys_.end()) error(var, "'" + key + "' is not a declared blackboard key" + did_you_mean(key, names));
        else if (it->type == ValueType::Any) error(var, "'" + key + "' has type any; bt_switch reads a number, integer, boolean or string");
        else p_.nodes[index].a = it->slot;
      }
      if (!cases || !cases.IsSequence()) {
        error(cases ? cases : v, "bt_switch needs 'cases', a list of texts, one per child but the last (the default)");
        break;
      }
      // Then one text of a '1' per case, or a '0' for a null case (BT.CPP's case_N left out),
      // which never matches.
      std::string present;
      for (const auto& c : cases) {
        if (!c.IsScalar() && !c.IsNull()) error(c, std::string("a case must be text (or null: never matches), got ") + describe_node(c));
        p_.messages.push_back(c.IsScalar() ? c.Scalar() : "");
        present += c.IsNull() ? '0' : '1';
      }
      p_.messages.push_back(present);
      if (cases.size() + 1 != p_.nodes[index].count)
        error(cases, "bt_switch with " + std::to_string(cases.size()) + " cases needs " + std::to_string(cases.size() + 1) +
                         " children (the last is the default), got " + std::to_string(p_.nodes[index].count));
      break;
    }
    case NodeKind::B3Tree: break;  // its subtree's size is set by check_imported
    default: break;
  }
}

uint32_t TreeCompiler::imported_leaf(NodeKind kind, const YAML::Node& v, const std::string& path, const std::string& prefix) {
  const std::string kind_name = kind_info(kind).name;
  // Each of these leaves has one parameter, in the short form (`kind: value`, v itself) or a
  // mapping (`{key: value, name: ...}`): the node emitted, its value, and whether it was given.
  // (A missing key is a node yaml-cpp will not let another Node be reset to: asked first.)
  const char* key = kind == NodeKind::Always ? "status" : kind == NodeKind::BtScript ? "code" : "seconds";
  YAML::Node value = v;
  bool given = true;
  std::string name;
  if (v.IsMap()) {
    check_params(kind, v, kind_name);
    name = read_name(v, prefix, path);
    given = static_cast<bool>(v[key]);
    if (given) value.reset(v[key]);
  }
  const uint32_t index = emit(kind, v, path, name, kind_name);
  p_.nodes[index].end = index + 1;
  if (kind == NodeKind::Always) {
    const std::vector<std::string> allowed = {"success", "failure", "running", "error"};
    p_.nodes[index].a = static_cast<uint32_t>(Status::Success);
    if (!given) {
      error(v, "always needs 'status': success, failure, running or error");
    } else if (auto s = read_status(value, allowed)) {
      p_.nodes[index].a = static_cast<uint32_t>(*s);
      p_.labels[index] = "always " + value.Scalar();
    } else {
      error(value, "always takes success, failure, running or error, got " +
                       (value.IsScalar() ? "'" + value.Scalar() + "'" : std::string(describe_node(value))) +
                       did_you_mean(value.IsScalar() ? value.Scalar() : "", allowed));
    }
  } else if (kind == NodeKind::BtScript) {
    p_.nodes[index].a = kNoNode;
    p_.nodes[index].b = add_message(given && value.IsScalar() ? value.Scalar() : "");  // the text, for export
    if (!given) error(v, "bt_script needs 'code': statements `key = expression` separated by ';'");
    else p_.nodes[index].a = script_of(value, "bt_script's code");
  } else {  // bt_sleep, b3_wait
    if (!given) error(v, kind_name + " needs 'seconds'");
    else if (auto s = read_seconds(value, "'seconds'")) p_.nodes[index].seconds = *s;
  }
  return index;
}

// Rules that span nodes: every b3_* node lies under a b3_tree, whose nodes are all b3_* nodes,
// actions, conditions (leaf or check) or always; IfThenElse and WhileDoElse take 2 or 3
// children, TryCatch at least 2. Sets each b3_tree's subtree size (the bound of its open-node lists).
void check_imported(Program& p, const std::vector<std::string>& files, std::vector<Diagnostic>& diags) {
  auto report = [&](uint32_t i, const std::string& msg) {
    const SourcePos& at = p.positions[i];
    diags.push_back({Severity::Error, files[at.file], at.line, at.column, msg});
  };
  std::vector<uint32_t> b3_root(p.nodes.size(), kNoNode);  // the b3_tree above each node
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    Node& n = p.nodes[i];
    if (n.kind == NodeKind::B3Tree) {
      if (b3_root[i] != kNoNode) report(i, "a b3_tree inside a b3_tree: a behavior3 tree is one b3_tree at its top");
      n.a = n.end - i;
      for (uint32_t k = i + 1; k < n.end; ++k) {
        b3_root[k] = i;
        const NodeKind kk = p.nodes[k].kind;
        if (!is_b3_kind(kk) && kk != NodeKind::Action && kk != NodeKind::Condition && kk != NodeKind::Check &&
            kk != NodeKind::Always)
          report(k, std::string("a b3_tree holds behavior3 nodes (b3_*), actions, conditions and always, not ") +
                        kind_info(kk).name);
      }
    } else if (is_b3_kind(n.kind) && b3_root[i] == kNoNode) {
      report(i, std::string(kind_info(n.kind).name) + " works only inside a b3_tree (behavior3 opens and closes its nodes from the tree's top)");
    }
    if (n.kind == NodeKind::BtTryCatch && n.count < 2)
      report(i, "bt_try_catch takes at least 2 children (the try block's, then the catch), got " + std::to_string(n.count));
    if ((n.kind == NodeKind::BtIfThenElse || n.kind == NodeKind::BtWhileDoElse) && (n.count < 2 || n.count > 3))
      report(i, std::string(kind_info(n.kind).name) + " takes 2 or 3 children (condition, then, else), got " + std::to_string(n.count));
  }
}

// Why the lowered kinds make the same calls (docs/design/import-semantics.md has BT.CPP's code):
// - Sequence and Fallback resume at their running child and start from the first otherwise,
//   as thicket's sequence and selector do (BT.CPP's index is 0 whenever the node is not
//   running: a completion and a halt reset it). ReactiveFallback ticks every child from the
//   first each tick and halts the one that ran before when another decides, after that one's
//   tick, as active_selector does.
// - BT.CPP resets (halts) a node's children when the node completes, and a reactive node all
//   but the running child after each tick, so no leaf of such a subtree is ever ticked while it
//   holds a finished status (the one case where an action returns without a call, bt_child).
// - ReactiveSequence is ReactiveFallback with SUCCESS and FAILURE exchanged (the first child
//   that does not succeed decides): an active_selector whose a is 1, which its walks read so.
// - Inverter, ForceSuccess and ForceFailure pass RUNNING on, map a completion as invert,
//   force_success and force_failure do, and reset their child when it completes.
// - SubTree passes its child's result on and resets the child when it completes: a filter
//   with one child (thicket's sequence) does the same. (filter, which no other kind lowers to,
//   keeps the subtree's kind known: lowered_from.)
// - Leaves never return SKIPPED (nor do AlwaysSuccess, AlwaysFailure and Script), so neither
//   does such a subtree, and no async node yields. A Script (a SyncActionNode) runs its code and
//   succeeds at every tick, whatever status it held: a parent that does not reset it makes the
//   same calls.
// A parent of any kind sees the same results and halts it the same way (its running action's
// stop). A BT.CPP node without children is SKIPPED (all of its none were): not lowered.
void lower_imported(Program& p) {
  std::vector<char> plain(p.nodes.size(), 0);  // the node is a leaf or lowered
  for (size_t i = p.nodes.size(); i-- > 0;) {  // children come after their parent
    Node& n = p.nodes[i];
    NodeKind to;
    switch (n.kind) {
      case NodeKind::Action:
      case NodeKind::Condition:
      case NodeKind::Check: plain[i] = 1; continue;
      case NodeKind::BtScript: plain[i] = 1; continue;  // Script: its code, then SUCCESS, whatever its status
      case NodeKind::Always:  // AlwaysSuccess, AlwaysFailure: a leaf of a fixed result
        plain[i] = n.a == static_cast<uint32_t>(Status::Success) || n.a == static_cast<uint32_t>(Status::Failure);
        continue;
      case NodeKind::BtSequence: to = NodeKind::Sequence; break;
      case NodeKind::BtFallback: to = NodeKind::Selector; break;
      case NodeKind::BtReactiveFallback:
      case NodeKind::BtReactiveSequence: to = NodeKind::ActiveSelector; break;
      case NodeKind::BtInverter: to = NodeKind::Invert; break;
      case NodeKind::BtForceSuccess: to = NodeKind::ForceSuccess; break;
      case NodeKind::BtForceFailure: to = NodeKind::ForceFailure; break;
      case NodeKind::BtSubtree: to = NodeKind::Filter; break;
      default: continue;
    }
    const bool async = (n.kind == NodeKind::BtSequence || n.kind == NodeKind::BtFallback) && n.a != 0;
    if (n.count == 0 || async) continue;
    bool leaves_only = true;
    for (uint16_t k = 0; k < n.count && leaves_only; ++k) leaves_only = plain[p.child(n, k)];
    if (!leaves_only) continue;
    // A subtree keeps its id's message (dump); a ReactiveSequence is an active_selector whose a
    // is 1 (success and failure exchanged).
    if (to != NodeKind::Filter) n.a = n.kind == NodeKind::BtReactiveSequence;
    n.kind = to;
    n.b = 0;  // no aborts: nothing observed (a composite reads a and b only with an abort)
    n.flags = kLowered;
    plain[i] = 1;
  }
}

}  // namespace thicket
