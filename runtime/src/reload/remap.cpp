// A brain's YAML reloads (SPEC 10): the new program replaces the old, and every agent keeps
// the state of each node whose id and kind are unchanged. Running nodes that disappeared are
// aborted (stop hooks with "aborted"); new nodes start fresh; blackboard values survive.
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

#include "compiler.hpp"
#include "remap.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"

namespace thicket {

namespace {
// What a recompile changed besides the nodes, for its log line (SPEC 10: "what changed"):
// blackboard keys added and removed (values survive by key; new keys start at their default),
// defaults that changed (they count for agents spawned from now on), and tick_every (given at
// spawn: the agents there keep theirs).
std::string what_else_changed(const Program& before, const Program& after) {
  auto find = [](const Program& p, const std::string& name) -> const BlackboardKey* {
    for (const auto& k : p.blackboard)
      if (k.name == name) return &k;
    return nullptr;
  };
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  std::vector<std::string> added, removed, defaults;
  for (const auto& k : after.blackboard) {
    const BlackboardKey* old = find(before, k.name);
    if (!old) {
      added.push_back(k.name);
    } else if (old->type == k.type) {
      const bool same = k.type == ValueType::String ? old->text_default == k.text_default
                        : k.type == ValueType::Number ? old->initial.num == k.initial.num
                        : k.type == ValueType::Any    ? true
                                                      : old->initial.i == k.initial.i;
      if (!same) defaults.push_back(k.name);
    }
  }
  for (const auto& k : before.blackboard)
    if (!find(after, k.name)) removed.push_back(k.name);
  std::string out;
  if (!added.empty()) out += "; blackboard keys added: " + list(added);
  if (!removed.empty()) out += "; blackboard keys removed: " + list(removed);
  if (!defaults.empty()) out += "; new defaults (for agents spawned from now on): " + list(defaults);
  if (before.tick_every != after.tick_every)
    out += "; tick_every " + std::to_string(before.tick_every) + " -> " + std::to_string(after.tick_every) +
           " for agents spawned from now on (the agents there keep theirs)";
  return out;
}
// The kept nodes whose settings changed (leaf, args, seconds, times, abort mode, ...): an edit
// of a value alone is said too (SPEC 10: a reload is logged with what changed), by node id,
// the first eight and a count of the rest.
std::string changed_nodes(const Program& before, const Program& after, const BrainRemap& remap) {
  std::string names;
  size_t changed = 0;
  for (uint32_t i = 0; i < after.nodes.size(); ++i) {
    const uint32_t o = remap.to_old[i];
    if (o == kUnmapped || node_settings(before, o) == node_settings(after, i)) continue;
    if (++changed <= 8) names += (changed > 1 ? ", " : "") + after.ids[i];
  }
  if (!changed) return {};
  if (changed > 8) names += " and " + std::to_string(changed - 8) + " more";
  return "; " + std::to_string(changed) + " changed: " + names;
}
}  // namespace

namespace {

bool has_position(NodeKind k) {
  return k == NodeKind::Sequence || k == NodeKind::Selector || k == NodeKind::Filter ||
         k == NodeKind::ActiveSelector || k == NodeKind::RandomSelector || k == NodeKind::RandomSequence ||
         k == NodeKind::Machine || k == NodeKind::Fsm;
}

int find_position(const Program& p, const Node& n, uint32_t child) {
  for (uint16_t pos = 0; pos < n.count; ++pos)
    if (p.child(n, pos) == child) return pos;
  return -1;
}

// The child of old node n that a resumable node holds a position for (kUnmapped: none), the
// position read from its state, which the copy put at `state` (the new node's offset).
uint32_t running_child(const Program& p, const Node& n, const uint8_t* block, uint32_t state) {
  uint16_t pos = *reinterpret_cast<const uint16_t*>(block + state + (n.kind == NodeKind::Machine ? 8 : 0));
  if (pos == kNoPos) return kUnmapped;
  if (n.kind == NodeKind::RandomSelector || n.kind == NodeKind::RandomSequence) {
    if (pos >= n.count) return kUnmapped;
    pos = *reinterpret_cast<const uint16_t*>(block + state + 2 + 2 * pos);
  }
  if (n.kind == NodeKind::Machine) pos = static_cast<uint16_t>(2 * pos + 1);
  return pos < n.count ? p.child(n, pos) : kUnmapped;
}

// The old and new node have the same children, kept, in the same places.
bool same_children(const Program& old, const Program& p, const Node& on, const Node& n, const std::vector<uint32_t>& to_new) {
  if (on.count != n.count) return false;
  for (uint16_t k = 0; k < n.count; ++k)
    if (to_new[old.child(on, k)] != p.child(n, k)) return false;
  return true;
}

}  // namespace

int BrainRemap::position_after_kept(const Program& old, const Program& p, const Node& on, const Node& n, uint16_t old_pos) const {
  for (int k = std::min<int>(old_pos, on.count) - 1; k >= 0; --k) {
    const uint32_t c = to_new[old.child(on, static_cast<uint16_t>(k))];
    const int at = c == kUnmapped ? -1 : find_position(p, n, c);
    if (at >= 0) return at + 1;
  }
  return 0;
}

bool BrainRemap::same_children(const Program& old, const Program& p, const Node& on, const Node& n) const {
  return thicket::same_children(old, p, on, n, to_new);
}

// Whether running node `up` runs its child `i`: a sequence, selector or active_selector (and a
// random one, through its drawn order) holds the position of the one child it runs; any other
// running parent (a decorator, a parallel, an fsm state, a machine) runs the running children it has.
bool BrainRemap::runs_child(const Program& p, const uint8_t* block, uint32_t up, uint32_t i) {
  if (reinterpret_cast<const Status*>(block)[up] != Status::Running) return false;
  const Node& n = p.nodes[up];
  switch (n.kind) {
    case NodeKind::Sequence:
    case NodeKind::Selector:
    case NodeKind::Filter:
    case NodeKind::ActiveSelector:
    case NodeKind::RandomSelector:
    case NodeKind::RandomSequence: return running_child(p, n, block, n.state) == i;
    default: return true;  // (and the imported bt_* and b3_* kinds: a running one runs its running children)
  }
}

uint16_t BrainRemap::state_to_new(const Program& old, const Program& p, uint16_t s) const {
  if (s == kNoPos || s >= old.fsm_states.size()) return kNoPos;
  const uint32_t node = to_new[old.fsm_states[s].node];
  return node == kUnmapped ? kNoPos : static_cast<uint16_t>(p.nodes[node].a);
}

// An fsm's active configuration and history memory (SPEC 4.1), held as state indices of the old
// program, in the new one: the active path keeps its states while they exist and still nest as
// they did; where it breaks, the deepest surviving state stays and re-enters its descent on the
// next tick (FsmRootState::entered == 2), or, when no top-level state survives, the brain
// enters its initial descent again; an active top-level state made final ends the brain at the
// next tick (entered == 3). States that stay in the program but leave the path stop.
void BrainRemap::mend_fsm(const Program& old, const Program& p, uint32_t root, uint8_t* block,
                          std::vector<uint32_t>& restart) const {
  auto* status = reinterpret_cast<Status*>(block);
  auto& rs = *reinterpret_cast<FsmRootState*>(block + p.nodes[root].state);
  auto ss = [&](uint16_t s) -> FsmStateState& { return *reinterpret_cast<FsmStateState*>(block + p.nodes[p.fsm_states[s].node].state); };
  for (uint16_t s = 0; s < p.fsm_states.size(); ++s) {
    if (to_old[p.fsm_states[s].node] == kUnmapped) continue;  // a new state: blank
    FsmStateState& x = ss(s);
    x.active = state_to_new(old, p, x.active);
    x.history = state_to_new(old, p, x.history);
    if (x.history != kNoPos && p.fsm_states[x.history].parent != s) x.history = kNoPos;
  }
  rs.active = state_to_new(old, p, rs.active);
  std::vector<bool> on_path(p.fsm_states.size(), false);
  uint16_t deepest = kNoPos;
  for (uint16_t s = rs.active; s != kNoPos && p.fsm_states[s].parent == deepest &&
                               status[p.fsm_states[s].node] == Status::Running && !on_path[s];
       s = ss(s).active) {
    on_path[s] = true;
    deepest = s;
  }
  for (uint16_t s = 0; s < p.fsm_states.size(); ++s) {
    const FsmState& st = p.fsm_states[s];
    if (on_path[s] || status[st.node] != Status::Running) continue;
    status[st.node] = Status::Invalid;
    if (st.body != kNoNode && status[st.body] == Status::Running) restart.push_back(st.body);
  }
  if (!rs.entered) return;
  // An end an earlier reload set (a top-level state it made final): this version decides
  // again, below (a second reload that made the state plain again left the brain to end).
  if (rs.entered == 3) rs.entered = 1;
  if (deepest == kNoPos) {
    rs.active = kNoPos;
    rs.entered = 0;  // the initial descent, next tick
  } else if (!p.fsm_states[deepest].children.empty()) {
    const uint16_t child = ss(deepest).active;
    if (child == kNoPos || !on_path[child]) {
      ss(deepest).active = kNoPos;
      rs.entered = 2;  // its descent, next tick
    }
  } else {
    ss(deepest).active = kNoPos;
  }
  // A top-level state made final while it was active: a top-level final state is never active
  // at a tick's start (entering one ends the brain at once), so the brain ends at the next
  // tick, as if it had been entered (it sat in it, running, for ever).
  if (rs.active != kNoPos && rs.active == deepest && p.fsm_states[rs.active].final) rs.entered = 3;
}

void BrainRemap::mend_events(const Program& old, const Program& p, std::vector<QueuedEvent>& queue,
                             std::vector<QueuedEvent>& dropped) const {
  size_t kept = 0;
  for (QueuedEvent ev : queue) {
    if (ev.origin != kNoPos) {
      const uint16_t was = ev.origin;
      ev.origin = state_to_new(old, p, ev.origin);
      if (ev.origin == kNoPos) {  // its state is gone: it would be dropped as stale
        ev.origin = was;          // (the old program's state, for the caller's trace)
        dropped.push_back(ev);
        continue;
      }
    }
    queue[kept++] = ev;
  }
  queue.resize(kept);
}

BrainRemap BrainRemap::make(const Program& old, const Program& fresh, bool blackboard) {
  BrainRemap r;
  // Nodes match by id and kind: the kind they run as (their state's layout) and the kind their
  // file wrote (a lowered ReactiveFallback and ReactiveSequence both run as active_selector).
  using Key = std::tuple<std::string, NodeKind, NodeKind>;
  std::map<Key, uint32_t> by_id;
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i)
    by_id[{fresh.ids[i], fresh.nodes[i].kind, written_kind(fresh.nodes[i])}] = i;
  r.to_new.assign(old.nodes.size(), kUnmapped);
  r.to_old.assign(fresh.nodes.size(), kUnmapped);
  for (uint32_t i = 0; i < old.nodes.size(); ++i) {
    auto it = by_id.find({old.ids[i], old.nodes[i].kind, written_kind(old.nodes[i])});
    if (it == by_id.end()) continue;
    r.to_new[i] = it->second;
    r.to_old[it->second] = i;
    ++r.kept;
  }
  // The per-agent work is planned once: which byte ranges carry over (merged, so an
  // unchanged layout is one memcpy), which blackboard slots survive, and whether node
  // indices moved at all.
  auto add_range = [&](uint32_t from, uint32_t to, uint32_t bytes) {
    if (!bytes) return;
    if (!r.plan.empty() && r.plan.back().from + r.plan.back().bytes == from && r.plan.back().to + r.plan.back().bytes == to)
      r.plan.back().bytes += bytes;
    else
      r.plan.push_back({from, to, bytes});
  };
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i)
    if (r.to_old[i] != kUnmapped) add_range(r.to_old[i], i, 1);  // status bytes
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i) {
    uint32_t o = r.to_old[i];
    if (o == kUnmapped) continue;
    uint32_t bytes = node_state_bytes(fresh.nodes[i]);
    if (bytes && bytes == node_state_bytes(old.nodes[o])) {
      add_range(old.nodes[o].state, fresh.nodes[i].state, bytes);
      continue;
    }
    // A holder's or observed condition's stamp came or went (an `abort:` added or removed
    // here or around it): the kind's own state (a sequence's position...) sits first in both
    // layouts and carries over; the stamp starts at 0 or goes.
    const uint32_t base = base_state_bytes(fresh.nodes[i]);
    if (base && base == base_state_bytes(old.nodes[o])) add_range(old.nodes[o].state, fresh.nodes[i].state, base);
  }
  if (blackboard)
    for (size_t j = 0; j < old.blackboard.size(); ++j) {
      bool still = false;
      for (size_t k = 0; k < fresh.blackboard.size(); ++k)
        if (fresh.blackboard[k].name == old.blackboard[j].name) {
          add_range(old.bb_offset + 8 * static_cast<uint32_t>(j), fresh.bb_offset + 8 * static_cast<uint32_t>(k), 8);
          still = true;
        }
      if (!still && old.blackboard[j].type == ValueType::Any) r.removed_any_slots.push_back(static_cast<uint32_t>(j));
    }
  for (uint32_t i = 0; i < old.nodes.size(); ++i)
    if (r.to_new[i] == kUnmapped) r.removed.push_back(i);
  r.same_indices = old.nodes.size() == fresh.nodes.size() && r.removed.empty();
  for (uint32_t i = 0; r.same_indices && i < old.nodes.size(); ++i) r.same_indices = r.to_new[i] == i;
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i)
    if (has_position(fresh.nodes[i].kind) && r.to_old[i] != kUnmapped) r.positioned.push_back(i);
  // An imported composite (bt_*, b3_*) holds its place among its children in its library's own
  // ways (an index and a skipped count, a branch, a set of finished children): when its children
  // changed, that place is not mended but started afresh.
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i) {
    const Node& n = fresh.nodes[i];
    if (r.to_old[i] == kUnmapped || !is_imported_kind(n.kind) || kind_info(n.kind).shape != Shape::Composite) continue;
    if (!thicket::same_children(old, fresh, old.nodes[r.to_old[i]], n, r.to_new)) r.imported_changed.push_back(i);
  }
  // The kept nodes that now hang under another parent than before (a new one, or another
  // kept one): the only ones a running parent may have lost (mend looks at them alone, so a
  // reload of a big tree costs no pass over all its nodes per agent).
  r.parent.assign(fresh.nodes.size(), kUnmapped);
  for (uint32_t i = 0; i < fresh.nodes.size(); ++i)
    for (uint16_t k = 0; k < fresh.nodes[i].count; ++k) r.parent[fresh.child(fresh.nodes[i], k)] = i;
  std::vector<uint32_t> old_parent(old.nodes.size(), kUnmapped);
  for (uint32_t i = 0; i < old.nodes.size(); ++i)
    for (uint16_t k = 0; k < old.nodes[i].count; ++k) old_parent[old.child(old.nodes[i], k)] = i;
  for (uint32_t i = 1; i < fresh.nodes.size(); ++i) {
    if (r.to_old[i] == kUnmapped || r.parent[i] == kUnmapped) continue;
    const uint32_t was = old_parent[r.to_old[i]];
    if (was == kUnmapped || r.to_new[was] != r.parent[i]) r.moved.push_back(i);
  }
  return r;
}

void BrainRemap::copy(const uint8_t* src, uint8_t* dst) const {
  for (const Range& r : plan) std::memcpy(dst + r.to, src + r.from, r.bytes);
}

void BrainRemap::mend(const Program& old, const Program& p, uint8_t* block, std::vector<uint32_t>& restart) const {
  auto* status = reinterpret_cast<Status*>(block);
  for (uint32_t i : positioned) {
    const Node& n = p.nodes[i];
    const bool random_kind = n.kind == NodeKind::RandomSelector || n.kind == NodeKind::RandomSequence;
    if (status[i] != Status::Running) {
      // A finished random composite keeps its last drawn order for the re-checks of its
      // holder (SPEC 3.5: the order its run evaluated its conditions in). When its children
      // changed, that order names their old places: it is cleared, and its re-checks go in
      // the list's order (Engine::drawn_order) until it draws again.
      if (random_kind && n.state && !same_children(old, p, old.nodes[to_old[i]], n))
        std::memset(block + n.state + 2, 0, 2 * size_t(n.count));
      continue;
    }
    const Node& on = old.nodes[to_old[i]];
    // The old position named a child of the old node; find that child's new position.
    if (n.kind == NodeKind::Fsm) {
      mend_fsm(old, p, i, block, restart);
      continue;
    }
    const bool random = n.kind == NodeKind::RandomSelector || n.kind == NodeKind::RandomSequence;
    if (random && !same_children(old, p, on, n)) {
      // Its drawn order names children by their old places (and a new count gave it a blank
      // state): it cannot resume, it restarts and draws again.
      restart.push_back(i);
      continue;
    }
    uint32_t old_child = running_child(old, on, block, n.state);
    if (old_child == kUnmapped) continue;  // nothing was running below it
    int pos = to_new[old_child] == kUnmapped ? -1 : find_position(p, n, to_new[old_child]);
    if (n.kind == NodeKind::Machine) {
      auto* cur = reinterpret_cast<uint16_t*>(block + n.state + 8);
      if (pos >= 0 && pos % 2 == 1) *cur = static_cast<uint16_t>(pos / 2);
      else {
        // Its running behavior is gone: it picks again at its next tick (its checks run then),
        // not at its next check_every, idle until then.
        *cur = kNoPos;
        block[n.state + 10] = 0;
        *reinterpret_cast<double*>(block + n.state) = -1e300;  // the last check: long ago
      }
      continue;
    }
    if (random) continue;  // same children in the same places: the drawn order holds
    // Its running child is gone from its children (removed, replaced, or moved under another
    // parent): it goes on after the last child before that one which is still its child (the
    // children it had finished are not run again; the node now in that place starts fresh), or
    // at its first child when none is. With no child left there, it cannot resume: it restarts.
    if (pos < 0) pos = position_after_kept(old, p, on, n, *reinterpret_cast<const uint16_t*>(block + n.state));
    if (pos >= 0 && pos < n.count) *reinterpret_cast<uint16_t*>(block + n.state) = static_cast<uint16_t>(pos);
    else restart.push_back(i);
  }
  // An imported composite whose children changed forgets its place among them (a finished
  // SequenceWithMemory kept its index to resume at, and its halt keeps it too), and a running
  // one restarts.
  for (uint32_t i : imported_changed) {
    if (const uint32_t bytes = base_state_bytes(p.nodes[i])) std::memset(block + p.nodes[i].state, 0, bytes);
    if (status[i] == Status::Running) restart.push_back(i);
  }
  // A running node whose parent does not run it any more (it moved under another parent, or
  // its decorator's subtree shifted) would be left running on its own, resumed mid-way when its
  // new parent reached it: it stops (its stop hook gets "aborted", its task closes). A finished
  // one has not finished in its new place: its status is blank (a parallel ticks the children
  // that have not finished in its run, and counted a moved one's old result).
  for (uint32_t i : moved) {
    if (status[i] == Status::Running && !runs_child(p, block, parent[i], i)) restart.push_back(i);
    else if (status[i] != Status::Running) status[i] = Status::Invalid;
  }
  // Outer nodes first (depth-first order), each once: an outer abort stops what runs below it.
  std::sort(restart.begin(), restart.end());
  restart.erase(std::unique(restart.begin(), restart.end()), restart.end());
}

bool RuntimeImpl::reload_brain(Brain& b, const std::string& changed) {
  std::vector<Diagnostic> diags;
  std::vector<LeafDef> staged;
  BrainKind kind = b.kind;
  // What is reloaded: the changed YAML, or the brain retried because another file changed.
  std::string what = changed;
  if (std::find(b.program->yaml_files.begin(), b.program->yaml_files.end(), changed) == b.program->yaml_files.end())
    what = b.path + " (retried: " + changed + " changed)";
  std::vector<std::string> read;
  std::unique_ptr<Program> fresh;
  try {
    fresh = build(std::nullopt, b.path, diags, staged, kind, &read);
  } catch (const std::exception& e) {
    // A bug in the loader must not take the game down, as in load(): it becomes a diagnostic,
    // and the old version keeps running (what was staged is released below).
    diags.push_back({Severity::Error, b.path, 0, 0, std::string("internal error while loading (please report it): ") + e.what()});
  }
  const Program& old = *b.program;
  if (fresh && kind != b.kind)
    diags.push_back({Severity::Error, b.path, 1, 1, std::string("the brain changed kind from ") + brain_kind_name(b.kind) +
                                                        " to " + brain_kind_name(kind) + "; restart the run to change kinds"});
  if (fresh) {
    for (const auto& key : fresh->blackboard)
      for (const auto& was : old.blackboard)
        if (key.name == was.name && key.type != was.type)
          diags.push_back({Severity::Error, fresh->files[key.pos.file], key.pos.line, key.pos.column,
                           "blackboard key '" + key.name + "' changed type from " + std::string(value_type_name(was.type)) +
                               " to " + std::string(value_type_name(key.type)) + "; live agents hold " +
                               std::string(value_type_name(was.type)) + " values"});
  }
  if (fresh && !has_errors(diags) && reload_check) {  // the embedder's say (Runtime::on_reload_check)
    ReloadCandidate candidate{b.path, fresh->name, {}};
    for (const auto& key : fresh->blackboard) candidate.blackboard.emplace_back(key.name, key.type);
    std::string refused;
    try {
      HookScope scope(ticking);  // a load, reload or tick from the check is refused, as from a leaf
      refused = reload_check(candidate);
    } catch (const std::exception& e) {
      refused = std::string("the host's reload check failed: ") + e.what();
    }
    if (!refused.empty()) diags.push_back({Severity::Error, b.path, 0, 0, refused});
  }
  if (!fresh || has_errors(diags)) {
    sort_diagnostics(diags);  // as `thicket check` lists them (the stale reason is the first)
    for (auto& def : staged) script->release_leaf(def);
    // Remember the failure: the brain is retried when any file it reads, old or new, changes.
    Brain::Stale stale;
    stale.since = reload_clock();
    for (const auto& d : diags)
      if (d.severity == Severity::Error) {
        stale.why = format_diagnostic(d);
        stale.why.replace(stale.why.find(": error: "), 9, ": ");
        break;
      }
    if (stale.why.empty()) stale.why = "it failed to load";
    stale.files = read;
    for (const auto& f : old.yaml_files) stale.files.push_back(f);
    for (const auto& f : old.leaf_files) stale.files.push_back(f);
    b.stale = std::move(stale);
    report_reload(b.path, false, diags);
    reload_log(reload_clock() + ": reload of " + what + " failed; the old version keeps running:" + [&] {
      std::string s;
      for (const auto& d : diags) s += "\n  " + format_diagnostic(d);
      return s;
    }());
    return false;
  }
  b.stale.reset();
  // From here stop hooks run (of removed and restarted nodes): what they spawn, despawn and
  // send waits for the end, while this loop holds the brain's rows and the agents.
  HookScope hooks(ticking);
  commit_leaves(staged);
  for (auto& call : fresh->calls) call.leaf_id = leaf_ids.at(call.leaf);
  script->install_args(*fresh);

  const BrainRemap remap = BrainRemap::make(old, *fresh, true);
  std::vector<uint8_t> blank(fresh->block_size);
  Engine::init_block(*fresh, blank.data(), &strings);

  std::vector<uint8_t> storage(b.row_agent.size() * size_t(fresh->block_size));
  size_t aborted = 0;
  for (uint32_t row = 0; row < b.row_agent.size(); ++row) {
    uint8_t* dst = storage.data() + size_t(row) * fresh->block_size;
    std::memcpy(dst, blank.data(), blank.size());
    if (b.row_agent[row] == UINT32_MAX) continue;
    AgentInfo& a = agents[b.row_agent[row]];
    a.resume_leaf = kNoNode;  // node indices change: walk the tree next tick
    uint8_t* src = b.block(row);
    auto* old_status = reinterpret_cast<Status*>(src);
    // 1. Running nodes that are gone stop now, on the old program (at the clock of the agent's
    //    last tick, as a despawn's do).
    {
      LastTickClock last(a, is_sliced(b.row_agent[row]));
      reload_agent = a.id;
      for (uint32_t i : remap.removed)
        if (old_status[i] == Status::Running) {
          engine->abort_node(old, a, src, i);
          ++aborted;
        }
      reload_agent = 0;
    }
    // 2. Kept nodes keep their status and state; blackboard values survive by key (new keys
    //    have their defaults, from the blank block).
    remap.copy(src, dst);
    auto* old_slots = reinterpret_cast<Slot*>(src + old.bb_offset);
    for (uint32_t j : remap.removed_any_slots) script->release_ref(a, old_slots[j].ref);
    // 3. Per-node Lua state (mem tables, task coroutines) follows the node to its new index.
    if (!remap.same_indices) script->remap_mem(a, remap.to_new);
  }
  // Install, then mend positions that point at children which moved or vanished.
  script->release_args(*b.program);
  std::unique_ptr<Program> previous = std::move(b.program);
  b.program = std::move(fresh);
  b.storage = std::move(storage);
  script->install_brain(b, 0);
  refresh_brain(b);
  refresh_layout();
  const Program& p = *b.program;
  std::vector<uint32_t> restart;
  std::vector<QueuedEvent> dropped;
  for (uint32_t row = 0; row < b.row_agent.size(); ++row) {
    if (b.row_agent[row] == UINT32_MAX) continue;
    AgentInfo& a = agents[b.row_agent[row]];
    uint8_t* block = b.block(row);
    restart.clear();
    remap.mend(*previous, p, block, restart);
    if (b.row_agent[row] < extras.size()) {  // queued events name states by index (SPEC 4.1)
      // (only an fsm's events name states: pending_events does not count them)
      dropped.clear();
      remap.mend_events(*previous, p, extras[b.row_agent[row]].events, dropped);
      // An event its state's removal made stale is dropped now, and traced as the tick would
      // have (SPEC 4.1: taken_by null), at the agent's last tick.
      if (trace_sink)
        for (const QueuedEvent& ev : dropped) {
          TraceEvent t;
          t.type = TraceEvent::Type::Event;
          t.tick = a.ticks;
          t.agent = a.id;
          t.brain = p.name;
          t.event = strings.get(ev.name);
          t.stale = true;
          t.reload = true;
          t.from_name = previous->fsm_states[ev.origin].name;
          emit_trace(t);
        }
    }
    // Outer nodes come first (depth-first order): aborting one stops what runs below it, and
    // a later abort of a node that no longer runs does nothing.
    LastTickClock last(a, is_sliced(b.row_agent[row]));
    reload_agent = a.id;
    for (uint32_t i : restart) {
      // A running node that cannot resume where it was (its running child moved, or an fsm
      // state left the active path) stops: an abort as a removed node's is, and counted so.
      if (reinterpret_cast<const Status*>(block)[i] == Status::Running) ++aborted;
      engine->abort_node(p, a, block, i);
    }
    reload_agent = 0;
  }
  const bool outer = hooks.outer();
  hooks.end();
  const size_t kept = remap.kept;
  std::ostringstream out;
  out << reload_clock() << ": reloaded " << what << ": brain " << p.name << " recompiled: " << kept << " nodes kept, "
      << p.nodes.size() - kept << " added, " << previous->nodes.size() - kept << " removed";
  uint32_t index = 0;
  while (index < brains.size() && brains[index].get() != &b) ++index;
  reload_aborted[index] += aborted;
  if (auto other = reload_aborted_elsewhere.find(index); other != reload_aborted_elsewhere.end()) aborted += other->second;
  if (aborted) out << " (" << aborted << " running node(s) aborted)";
  out << changed_nodes(*previous, p, remap) << what_else_changed(*previous, p);
  reload_log(out.str());
  report_reload(b.path, true, {});
  if (outer) run_hook_calls();
  return true;
}

}  // namespace thicket
