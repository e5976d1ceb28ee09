// The runtime: loading (all-or-nothing), agents, ticking, tracing.
#include "thicket/runtime.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cxxabi.h>
#include <exception>
#include <limits>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <tuple>

#include "file_watcher.hpp"
#include "plain_file.hpp"
#include "runtime_impl.hpp"
#include "sent_events.hpp"
#include "suggest.hpp"
#include "yaml_limits.hpp"

namespace thicket {

namespace {
// Forwards the engine's abort explanations to the runtime's trace sink.
struct AbortTracer : TraceSink {
  explicit AbortTracer(RuntimeImpl& rt) : rt(rt) {}
  // A trace event of this type for agent a, at its tick.
  static TraceEvent start(TraceEvent::Type type, const AgentInfo& a) {
    TraceEvent ev;
    ev.type = type;
    ev.tick = a.ticks;
    ev.agent = a.id;
    return ev;
  }
  void on_abort(const Program& p, const AgentInfo& a, const AbortEvent& e) override {
    if (!rt.trace_sink) return;
    TraceEvent ev = start(TraceEvent::Type::Abort, a);
    ev.composite = p.ids[e.composite];
    ev.condition = p.ids[e.condition];
    ev.aborted = p.ids[e.aborted];
    ev.condition_label = p.labels[e.condition];
    ev.aborted_label = p.labels[e.aborted];
    ev.from = e.from;
    ev.to = e.to;
    rt.emit_trace(ev);
  }
  void on_transition(const Program& p, const AgentInfo& a, const TransitionEvent& e) override {
    if (!rt.trace_sink) return;
    TraceEvent ev = start(TraceEvent::Type::Transition, a);
    ev.brain = p.name;
    if (e.from != kNoPos) ev.from_name = p.fsm_states[e.from].name;
    if (e.to != kNoPos) ev.to_name = p.fsm_states[e.to].name;
    ev.transition = std::string(e.transition);
    if (e.by_event) ev.event = ev.transition;
    ev.reload = e.reload;
    ev.ended = e.ended;
    if (e.cause != kNoNode) {
      ev.cause = p.ids[e.cause];
      const Node& n = p.nodes[e.cause];  // a reason is an action node: name its leaf
      ev.cause_label = n.kind == NodeKind::Action ? p.calls[n.a].leaf : p.labels[e.cause];
    }
    if (e.when_entry >= 0 && e.from != kNoPos) {  // a `when` entry: its id, and its clock if it has one
      const FsmWhen& w = p.fsm_states[e.from].when[static_cast<size_t>(e.when_entry)];
      ev.cause = p.fsm_states[e.from].name + "/when/" + std::to_string(e.when_entry);
      if (w.after >= 0) {
        std::ostringstream clock;
        clock << "after " << w.after << " s";
        ev.cause_label = w.cond == kNoNode ? clock.str() : clock.str() + " and " + p.labels[w.cond];
      }
    }
    for (uint32_t k = 0; k < e.exited_count; ++k) ev.exited.push_back(p.fsm_states[e.exited[k]].name);
    for (uint32_t k = 0; k < e.entered_count; ++k) ev.entered.push_back(p.fsm_states[e.entered[k]].name);
    rt.emit_trace(ev);
  }
  void on_event(const Program& p, const AgentInfo& a, const QueueEvent& e) override {
    if (!rt.trace_sink) return;
    TraceEvent ev = start(TraceEvent::Type::Event, a);
    ev.brain = p.name;
    ev.event = std::string(e.name);
    if (e.taken_by != kNoPos) ev.taken_by = p.fsm_states[e.taken_by].name;
    if (e.refused_by != kNoPos) ev.refused_by = p.fsm_states[e.refused_by].name;
    ev.guard_failed = e.guard_failed;
    ev.stale = e.stale;
    rt.emit_trace(ev);
  }
  void on_switch(const Program& p, const AgentInfo& a, const SwitchEvent& e) override {
    if (!rt.trace_sink) return;
    TraceEvent ev = start(TraceEvent::Type::Switch, a);
    ev.brain = e.machine == 0 ? p.name : p.name + "/" + p.ids[e.machine];  // a state's machine: its id
    const uint32_t first = p.nodes[e.machine].b;  // its behaviors in Program::behaviors
    if (e.from != kNoPos && first + e.from < p.behaviors.size()) ev.from_name = p.behaviors[first + e.from];
    if (first + e.to < p.behaviors.size()) ev.to_name = p.behaviors[first + e.to];
    ev.cause = p.ids[e.check];
    ev.cause_label = p.labels[e.check];
    rt.emit_trace(ev);
  }
  RuntimeImpl& rt;
};
}  // namespace

namespace {
ScriptBinding& binding_slot() {
  static ScriptBinding binding;
  return binding;
}

// The script host of a program without a script binding: native leaves only.
class NoScriptHost final : public ScriptHost {
 public:
  Status condition(const CallSite&) override { return Status::Invalid; }
  Status start(const CallSite&) override { return Status::Failure; }
  Status tick(const CallSite&) override { return Status::Failure; }
  bool stop(const CallSite&, Status, bool) override { return true; }
  void drop_mem(const CallSite&) override {}
  void call_plain(const CallSite&) override {}
  bool reason(const CallSite&, std::string_view&) override { return false; }
  void unmapped_transition(const CallSite&, const std::string&, std::string_view) override {}
  void set_loading_files(std::vector<std::string>) override {}
  bool stage_leaf_file(const std::string& path, std::vector<LeafDef>&, std::vector<Diagnostic>& diags) override {
    diags.push_back({Severity::Error, path, 0, 0,
                     "this program has no script binding: Lua leaf files need the thicket_lua library "
                     "(link it, or register the leaves as native C++ leaves; linked as a static library by hand, "
                     "it must be linked whole, -Wl,--whole-archive -lthicket_lua -Wl,--no-whole-archive, which the "
                     "CMake package and pkg-config do)"});
    return false;
  }
  void release_leaf(LeafDef&) override {}
  void install_args(Program&) override {}
  void release_args(Program&) override {}
  void install_brain(Brain&, uint32_t) override {}
  void create_agent(AgentInfo&) override {}
  void destroy_agent(AgentInfo&) override {}
  void remap_mem(AgentInfo&, const std::vector<uint32_t>&) override {}
  void call_on_reload(const LeafDef&, const std::string&) override {}
  void release_ref(const AgentInfo&, int) override {}
  // `any` blackboard values live here, a reference being an index.
  Value any_value(const AgentInfo&, int ref) override {
    return ref >= 0 && static_cast<size_t>(ref) < values_.size() ? values_[ref] : Value(std::monostate{});
  }
  int set_any_value(const AgentInfo&, int old_ref, const Value& v) override {
    if (old_ref >= 0 && static_cast<size_t>(old_ref) < values_.size()) {
      values_[old_ref] = v;
      return old_ref;
    }
    values_.push_back(v);
    return static_cast<int>(values_.size() - 1);
  }
  uint64_t script_errors() const override { return 0; }
  void save_agent(const AgentInfo&, SnapshotWriter& out, SnapshotDrops&) override {
    out.u8(static_cast<uint8_t>(PlainTag::Nil));  // no agent table
    out.u32(0);                                   // no script state per node
  }
  void save_any(const AgentInfo& a, int ref, SnapshotWriter& out, SnapshotDrops&) override {
    PlainValue p;
    std::visit([&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, double>) {
        p.tag = PlainTag::Number;
        p.number = x;
      } else if constexpr (std::is_same_v<T, int64_t>) {
        p.tag = PlainTag::Integer;
        p.integer = x;
      } else if constexpr (std::is_same_v<T, bool>) {
        p.tag = x ? PlainTag::True : PlainTag::False;
      } else if constexpr (std::is_same_v<T, std::string>) {
        p.tag = PlainTag::String;
        p.text = x;
      }
    }, any_value(a, ref));
    write_plain(out, p);
  }
  void restore_agent(AgentInfo&, const ScriptAgentState&) override {}
  int any_from_plain(const AgentInfo& a, const PlainValue& p) override {
    Value v;
    switch (p.tag) {
      case PlainTag::False: v = false; break;
      case PlainTag::True: v = true; break;
      case PlainTag::Integer: v = p.integer; break;
      case PlainTag::Number: v = p.number; break;
      case PlainTag::String: v = p.text; break;
      default: break;  // nil; tables need a script host
    }
    return set_any_value(a, -2, v);
  }

 private:
  std::vector<Value> values_;
};
}  // namespace

void register_script_binding(const ScriptBinding& binding) { binding_slot() = binding; }
const ScriptBinding& script_binding() { return binding_slot(); }
std::unique_ptr<ScriptHost> make_script_host(RuntimeImpl& rt) {
  if (binding_slot().make_host) return binding_slot().make_host(rt);
  return std::make_unique<NoScriptHost>();
}

RuntimeImpl::RuntimeImpl(RuntimeOptions opts) : options(std::move(opts)) {
  const uint32_t states = std::clamp<uint32_t>(options.script_states, 1, RuntimeOptions::kMaxScriptStates);
  if (states != options.script_states)
    log("warning: script_states " + std::to_string(options.script_states) + " is outside 1 to " +
        std::to_string(RuntimeOptions::kMaxScriptStates) + ": " + std::to_string(states) + " made");
  script = make_script_hosts(*this, states, lane_hosts);
  engine = std::make_unique<Engine>(*this, script.get(), strings);
  abort_tracer = std::make_unique<AbortTracer>(*this);
  ev_success = strings.intern("success");
  ev_failure = strings.intern("failure");
  ev_done = strings.intern("done");
}

RuntimeImpl::~RuntimeImpl() {
  // Running leaves are not stopped at shutdown: the Lua state goes with everything in it.
  for (auto& b : brains) script->release_args(*b->program);
}

Engine* RuntimeImpl::lane_engine(size_t job) {
  if (job_engines.size() <= job) job_engines.resize(job + 1);
  if (!job_engines[job])
    job_engines[job] = std::make_unique<Engine>(*this, lane_hosts[job < lane_hosts.size() ? job : 0], strings);
  return job_engines[job].get();
}

std::optional<BrainHandle> RuntimeImpl::load(const std::optional<std::string>& text, const std::string& path,
                                             std::vector<Diagnostic>& diags) {
  // A bug in the loader must not take the game down: it becomes a diagnostic.
  try {
    return load_checked(text, path, diags);
  } catch (const std::exception& e) {
    diags.push_back({Severity::Error, path, 0, 0, std::string("internal error while loading (please report it): ") + e.what()});
    return std::nullopt;
  }
}

std::unique_ptr<Program> RuntimeImpl::build(const std::optional<std::string>& text, const std::string& path,
                                            std::vector<Diagnostic>& diags, std::vector<LeafDef>& staged,
                                            BrainKind& kind, std::vector<std::string>* read) {
  SuggestBudget suggestions;  // did-you-means of this brain's files: a bounded amount of work
  size_t first_diag = diags.size();
  auto src = text ? parse_brain_text(*text, path, diags) : parse_brain(path, diags);
  if (read) read->push_back(path);
  if (!src) return nullptr;
  // The columns of what the compile reports, in characters (parse_brain did its own).
  struct Columns {
    std::vector<Diagnostic>& diags;
    const BrainSource& src;
    size_t from;
    ~Columns() {
      // A node reached twice through a YAML alias (`*name`) is compiled twice: its findings,
      // all at the anchor, are said once.
      std::set<std::tuple<Severity, std::string, int, int, std::string>> said;
      size_t kept = from;
      for (size_t i = from; i < diags.size(); ++i) {
        const Diagnostic& d = diags[i];
        if (!said.emplace(d.severity, d.file, d.line, d.column, d.message).second) continue;
        if (kept != i) diags[kept] = std::move(diags[i]);
        ++kept;
      }
      diags.resize(kept);
      for (const auto& [file, file_text] : src.texts) columns_in_characters(file_text, file, diags, from);
    }
  } columns{diags, *src, diags.size()};
  if (read) {  // what it read, and the files it names that may not exist yet
    for (const auto& f : src->files) {
      read->push_back(f.path);
      if (!f.doc.IsMap()) continue;
      for (const char* key : {"leaves", "import"}) {
        const YAML::Node list = f.doc[key];
        if (!list || !list.IsSequence()) continue;
        for (const auto& item : list) {
          if (!item.IsScalar()) continue;
          std::filesystem::path named(item.Scalar());
          if (!named.is_absolute()) named = std::filesystem::path(f.path).parent_path() / named;
          read->push_back(named.lexically_normal().string());
        }
      }
    }
    for (const auto& f : src->leaf_files) read->push_back(f);
  }
  kind = src->kind;
  // Stage the leaf files: nothing is installed until the whole brain compiles.
  bool leaves_ok = true;
  script->set_loading_files(src->leaf_files);
  for (const auto& file : src->leaf_files) {
    if (!script->stage_leaf_file(file, staged, diags)) {
      leaves_ok = false;
      src->failed_leaf_files.push_back(file);
    }
    for (auto& [name, what] : script->data_entries(file)) src->data_entries[name] = what;
  }
  script->set_loading_files({});
  src->leaf_files_failed = src->leaf_files_failed || !leaves_ok;  // (the loader sets it for an empty file name)
  // What the brain may call: the game's native leaves and the leaves of its own leaf files
  // (its `leaves:`, and its imports'). Another brain's Lua leaves are not: a brain that named
  // one loaded or not by the order of the loads, and a hot reload took it where a fresh run
  // refused the brain.
  LeafNames names;
  for (const auto& def : leaves) {
    if (!def.file.empty()) continue;
    names[def.name] = def.shape;
    if (def.declares_args) src->leaf_args[def.name] = def.args;
  }
  std::map<std::string, std::string> defined_in;
  std::vector<size_t> replacing;  // the warnings that a leaf replaces another: only if it loads
  for (const auto& def : staged) {
    // on_reload is each file's own hook, not a leaf (dropped below): one in every file is meant,
    // and replaces no other file's (its name still reaches the compiler, which refuses a node
    // that calls it).
    const bool hook = def.name == "on_reload";
    if (!hook) {
      auto [it, fresh] = defined_in.emplace(def.name, def.file);
      if (!fresh && it->second != def.file)
        diags.push_back({Severity::Warning, def.file, def.line, def.column,
                         "leaf '" + def.name + "' is also defined in " + it->second + "; this file's definition is used"});
      it->second = def.file;
    }
    names[def.name] = def.shape;
    if (def.declares_args) src->leaf_args[def.name] = def.args;
    else src->leaf_args.erase(def.name);
    // Leaf names are one name space (SPEC 8): say so when another file's leaf is replaced.
    auto known = hook ? leaf_ids.end() : leaf_ids.find(def.name);
    if (known != leaf_ids.end() && (!leaves[known->second].file.empty() ? leaves[known->second].file != def.file
                                                                        : leaves[known->second].shape == LeafShape::Native))
      replacing.push_back(diags.size());
    if (known != leaf_ids.end() && !leaves[known->second].file.empty() && leaves[known->second].file != def.file)
      diags.push_back({Severity::Warning, def.file, def.line, def.column,
                       "leaf '" + def.name + "' replaces the one from " + leaves[known->second].file +
                           " for every brain of this runtime (leaf names are shared)"});
    else if (known != leaf_ids.end() && leaves[known->second].shape == LeafShape::Native)
      diags.push_back({Severity::Warning, def.file, def.line, def.column,
                       "leaf '" + def.name + "' replaces the native leaf the game registered, for every brain of this "
                           "runtime (leaf names are shared: rename one of them)"});
  }
  std::unique_ptr<Program> program;
  if (src->kind == BrainKind::Tree) {
    auto root = src->trees.find(src->name);
    if (root != src->trees.end())
      program = compile_tree(*src, root->second.root, root->second.file, src->name, names, strings, diags);
  } else if (src->kind == BrainKind::Machine) {
    program = compile_machine(*src, names, strings, diags);
  } else {
    program = compile_fsm(*src, names, strings, diags);
  }
  bool failed = !leaves_ok || !program;
  for (size_t i = first_diag; i < diags.size(); ++i) failed = failed || diags[i].severity == Severity::Error;
  if (failed) {
    // Nothing was replaced: a failed load leaves the runtime's leaves as they were.
    for (auto at = replacing.rbegin(); at != replacing.rend(); ++at) diags.erase(diags.begin() + static_cast<std::ptrdiff_t>(*at));
    for (auto& def : staged) script->release_leaf(def);
    staged.clear();
    return nullptr;
  }
  for (auto it = staged.begin(); it != staged.end();) {  // on_reload is a hook, not a leaf
    if (it->name == "on_reload") {
      script->release_leaf(*it);
      it = staged.erase(it);
    } else {
      ++it;
    }
  }
  // An fsm's leaf files sending their own agent a literal name a letter or two from one its
  // states take, and taken by none (`agent:send("alarm")` beside a transition 'alrm'): a
  // warning at the send, which `thicket check` shows before any run sends it.
  if (!program->fsm_events.empty())
    for (const auto& file : src->leaf_files) {
      std::string lua, why;
      if (!read_limited(file, size_t(16) << 20, lua, why, "a leaf file")) continue;
      for (const SentEvent& sent : self_sent_events(lua)) {
        const auto& taken = program->fsm_events;
        if (std::binary_search(taken.begin(), taken.end(), sent.name)) continue;
        const std::string near = closest_name(sent.name, taken);
        // (names that differ only in their digits, wave2 beside wave3, are each meant)
        auto letters = [](std::string_view t) {
          std::string o;
          for (char ch : t)
            if (!std::isdigit(static_cast<unsigned char>(ch))) o += ch;
          return o;
        };
        if (near.empty() || letters(near) == letters(sent.name)) continue;
        diags.push_back({Severity::Warning, file, sent.line, sent.column,
                         "the event '" + sent.name + "' sent here to the leaf's own agent is taken by no state of brain " +
                             program->name + "; a state takes '" + near + "': is one of the two misspelt?"});
      }
    }
  // Node positions in characters too (the editor, dump, later reports from them), as the
  // diagnostics above are (the Columns guard, at return).
  for (uint32_t f = 0; f < program->files.size(); ++f) {
    auto text = src->texts.find(program->files[f]);
    if (text == src->texts.end()) continue;
    std::vector<Diagnostic> at;
    std::vector<size_t> index;
    for (size_t i = 0; i < program->positions.size(); ++i)
      if (program->positions[i].file == f) {
        at.push_back({Severity::Note, program->files[f], program->positions[i].line, program->positions[i].column, ""});
        index.push_back(i);
      }
    columns_in_characters(text->second, program->files[f], at, 0);
    for (size_t k = 0; k < at.size(); ++k) program->positions[index[k]].column = at[k].column;
  }
  return program;
}

namespace {
// NativeLeaf (std::function) leaves are called through these, with user = the NativeLeaf.
Status native_tick_thunk(LeafContext& c, void* u) { return static_cast<NativeLeaf*>(u)->tick(c); }
void native_start_thunk(LeafContext& c, void* u) { static_cast<NativeLeaf*>(u)->start(c); }
void native_stop_thunk(LeafContext& c, Status s, void* u) { static_cast<NativeLeaf*>(u)->stop(c, s); }
// A native leaf registered without a tick function fails, rather than calling nothing.
Status no_tick(LeafContext&, void*) { return Status::Failure; }
}  // namespace

void RuntimeImpl::refresh_brain(Brain& b) {
  Program& p = *b.program;
  p.hot.resize(p.calls.size());
  for (size_t k = 0; k < p.calls.size(); ++k) {
    LeafDef& def = leaves[p.calls[k].leaf_id];
    HotCall& h = p.hot[k];
    h.native = {};
    if (def.shape == LeafShape::Native) {
      if (def.native_fn.tick) {
        h.native = def.native_fn;
      } else if (!def.native.tick) {
        h.native = def.native_fn;  // its start/stop, if any
        h.native.tick = no_tick;
      } else {
        h.native.tick = native_tick_thunk;
        if (def.native.start) h.native.start = native_start_thunk;
        if (def.native.stop) h.native.stop = native_stop_thunk;
        h.native.user = &def.native;
        h.native.agent_local = def.native.agent_local;
      }
      h.hooked = h.native.start || h.native.stop;
    } else {
      h.hooked = def.shape == LeafShape::Hooks || def.shape == LeafShape::Task;
    }
  }
  Engine::prepare_ops(p, fast_ops);
  b.scripted = false;
  for (const HotCall& h : p.hot) b.scripted |= h.native.tick == nullptr;
  for (const BlackboardKey& k : p.blackboard) b.scripted |= k.type == ValueType::Any;
}

void RuntimeImpl::refresh_callers(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return;
  std::vector<bool> changed(leaves.size(), false);
  for (uint32_t id : ids) changed[id] = true;
  for (auto& b : brains)
    for (const LeafCall& call : b->program->calls)
      if (changed[call.leaf_id]) {
        refresh_brain(*b);
        break;
      }
}

void RuntimeImpl::refresh_layout() {
  ++layout_version;
  // The batched walk's buffers, sized here so that tick_all allocates nothing.
  any_batchable = false;
  uint16_t depth = 0;
  for (auto& b : brains) {
    any_batchable |= b->program->batchable;
    depth = std::max(depth, b->program->composite_depth);
  }
  if (any_batchable) {
    batches.resize(brains.size());
    engine->reserve_batches(depth);
  }
}

std::vector<std::string> RuntimeImpl::commit_leaves(std::vector<LeafDef>& staged) {
  std::vector<std::string> names;
  std::vector<uint32_t> replaced;  // a new leaf has no caller yet; a replaced one may have many
  for (auto& def : staged) {
    names.push_back(def.name);
    if (!def.file.empty()) scripts_loaded = true;
    auto it = leaf_ids.find(def.name);
    if (it == leaf_ids.end()) {
      leaf_ids[def.name] = static_cast<uint32_t>(leaves.size());
      leaves.push_back(std::move(def));
    } else {  // a new definition replaces the old by name, from the next call on
      script->release_leaf(leaves[it->second]);
      leaves[it->second] = std::move(def);
      replaced.push_back(it->second);
    }
  }
  staged.clear();
  refresh_callers(replaced);
  refresh_layout();
  return names;
}

std::optional<BrainHandle> RuntimeImpl::load_checked(const std::optional<std::string>& text, const std::string& path,
                                                     std::vector<Diagnostic>& diags) {
  std::vector<LeafDef> staged;
  BrainKind kind = BrainKind::Tree;
  auto program = build(text, path, diags, staged, kind);
  if (!program) return std::nullopt;
  commit_leaves(staged);
  for (auto& call : program->calls) call.leaf_id = leaf_ids.at(call.leaf);
  script->install_args(*program);
  auto brain = std::make_unique<Brain>();
  brain->path = path;
  brain->kind = kind;
  brain->from_text = text.has_value();
  brain->program = std::move(program);
  auto index = static_cast<uint32_t>(brains.size());
  script->install_brain(*brain, index);
  brains.push_back(std::move(brain));
  refresh_brain(*brains.back());
  refresh_layout();
  if (!text) watch_brain(*brains.back());
  return BrainHandle{index};
}

AgentHandle RuntimeImpl::spawn(BrainHandle bh, const std::vector<std::pair<std::string, Value>>& bb) {
  if (bh.index >= brains.size()) return {};
  // Ids run from 1 to kMaxAgentId: 0 is "no agent", and a snapshot records the next id to give.
  // Past the largest (a spawn chose an id near it, and the count goes on after the largest id
  // given), ids no live agent has are given, from 1 up: reused, rather than no agent at all.
  uint32_t id = next_agent_id;
  if (id == 0 || id > kMaxAgentId) {
    if (!reusing_ids) {
      reusing_ids = true;
      log("warning: spawn: automatic agent ids have passed the largest, " + std::to_string(kMaxAgentId) +
          " (they go on after the largest id given, also a chosen one); from now on they reuse ids no live agent has, "
          "from 1 up");
    }
    while (reuse_cursor <= kMaxAgentId && by_id.count(reuse_cursor)) ++reuse_cursor;
    if (reuse_cursor > kMaxAgentId) {
      log("error: spawn: every agent id (1 to " + std::to_string(kMaxAgentId) + ") is in use; no agent spawned");
      return {};
    }
    id = reuse_cursor;
  }
  Brain& b = *brains[bh.index];
  uint32_t index;
  if (!free_agents.empty()) {
    index = free_agents.back();
    free_agents.pop_back();
  } else {
    index = static_cast<uint32_t>(agents.size());
    agents.emplace_back();
  }
  AgentInfo& a = agents[index];
  uint32_t generation = a.generation;
  a = AgentInfo{};
  a.generation = generation;
  a.id = id;
  if (id == next_agent_id) ++next_agent_id;
  else ++reuse_cursor;
  a.brain = static_cast<uint16_t>(bh.index);
  a.alive = true;
  a.rng = Rng::seeded(options.seed, a.id);
  a.lane = lane_for(a.id);
  a.row = b.take_row(index);
  by_id[a.id] = index;
  reset_extra(index, *b.program);
  Engine::init_block(*b.program, b.block(a.row), &strings);
  script->create_agent(a);
  for (const auto& [key, value] : bb) set_value(a, key, value);
  ++live_agents;
  ++layout_version;
  return AgentHandle{index, a.generation};
}

void RuntimeImpl::despawn(AgentHandle h) {
  AgentInfo* a = agent_ptr(h);
  if (!a) return;
  Brain& b = *brains[a->brain];
  bool outer;
  std::exception_ptr thrown;  // a native stop hook's: the agent is despawned all the same, then it comes out
  {
    HookScope hooks(ticking);
    outer = hooks.outer();
    LastTickClock last(*a, is_sliced(h.index));
    try {
      engine->abort_all(*b.program, *a, b.block(a->row));  // running leaves get stop("aborted")
    } catch (abi::__forced_unwind&) {
      throw;
    } catch (...) {
      thrown = std::current_exception();
    }
  }
  script->destroy_agent(*a);
  by_id.erase(a->id);
  AgentExtra& x = extras[h.index];
  sliced_agents -= x.sliced;
  if (!takes_events(*b.program)) pending_events -= static_cast<int64_t>(x.events.size());
  x = AgentExtra{};
  b.row_agent[a->row] = UINT32_MAX;
  b.free_rows.push_back(a->row);
  a->alive = false;
  ++a->generation;
  free_agents.push_back(h.index);
  ++layout_version;
  --live_agents;
  if (outer) run_hook_calls();  // what the stop hooks spawned, despawned and sent
  if (thrown) std::rethrow_exception(thrown);
}

Status RuntimeImpl::tick(uint32_t index, double dt) {
  // One agent now, whatever its slicing, as a job (deferred calls included): tick_all(dt)'s
  // job, kept from call to call (a tick during a tick is refused by Runtime::tick).
  SinkErrors sink_errors(*this);
  TickJob& job = call_job;
  job.rt = this;
  job.engine = engine.get();
  Status s;
  {
    JobScope scope(job);
    TickingFlag in_tick(ticking);  // as in tick_all: no locked exchange
    s = tick_in_job(job, index, dt, call_time(), /*forced=*/true);
  }
  end_call(job);
  sink_errors.rethrow();
  return s;
}

std::vector<std::string> RuntimeImpl::running_nodes(uint32_t index) const {
  const AgentInfo& a = agents[index];
  const Brain& b = *brains[a.brain];
  const auto* statuses = reinterpret_cast<const Status*>(const_cast<Brain&>(b).block(a.row));
  std::vector<std::string> out;
  for (size_t i = 0; i < b.program->nodes.size(); ++i)
    if (statuses[i] == Status::Running) out.push_back(b.program->ids[i]);
  return out;
}

namespace {
const BlackboardKey* find_key(const Program& p, const std::string& key, uint32_t& slot) {
  for (size_t k = 0; k < p.blackboard.size(); ++k)
    if (p.blackboard[k].name == key) {
      slot = static_cast<uint32_t>(k);
      return &p.blackboard[k];
    }
  return nullptr;
}
}  // namespace

bool RuntimeImpl::get_value(const AgentInfo& a, const std::string& key, Value& out) {
  uint32_t slot;
  const BlackboardKey* k = find_key(program_of(a), key, slot);
  if (!k) return false;
  const Slot& v = slots_of(a)[slot];
  switch (k->type) {
    case ValueType::Number: out = v.num; break;
    case ValueType::Integer: out = v.i; break;
    case ValueType::Boolean: out = v.i != 0; break;
    case ValueType::String: out = std::string(strings.get(v.str)); break;
    case ValueType::Any: {
      out = script->any_value(a, v.ref);
      break;
    }
  }
  return true;
}

bool value_fits(ValueType t, const Value& v) {
  switch (t) {
    case ValueType::Number: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case ValueType::Integer: return std::holds_alternative<int64_t>(v);
    case ValueType::Boolean: return std::holds_alternative<bool>(v);
    case ValueType::String: return std::holds_alternative<std::string>(v);
    case ValueType::Any: return true;
  }
  return false;
}

bool RuntimeImpl::set_value(const AgentInfo& a, const std::string& key, const Value& v) {
  uint32_t slot;
  const BlackboardKey* k = find_key(program_of(a), key, slot);
  if (!k || !value_fits(k->type, v)) return false;
  Slot& s = slots_of(a)[slot];
  switch (k->type) {
    case ValueType::Number: {
      const double d = std::holds_alternative<double>(v) ? std::get<double>(v) : static_cast<double>(std::get<int64_t>(v));
      if (d != d) return false;  // nan, refused as a Lua write of it is (it compares false with everything)
      s.num = d;
      return true;
    }
    case ValueType::Integer: s.i = std::get<int64_t>(v); return true;
    case ValueType::Boolean: s.i = std::get<bool>(v); return true;
    case ValueType::String: s.str = strings.intern(std::get<std::string>(v)); return true;
    case ValueType::Any: s.ref = script->set_any_value(a, s.ref, v); return true;
  }
  return false;
}

// ---- LeafContext ----
static const CallSite& site(const void* p) { return *static_cast<const CallSite*>(p); }
const std::string& LeafContext::node_id() const { return site(site_).program->ids[site(site_).node]; }
bool LeafContext::get(const std::string& key, Value& out) const { return rt_->get_value(*site(site_).agent, key, out); }
bool LeafContext::set(const std::string& key, const Value& v) { return rt_->set_value(*site(site_).agent, key, v); }
// A slot past the brain's keys, or of a key that is not a number, would read or write another
// key's bytes or another agent's block: refused, as Runtime::get_number/set_number refuse it.
double LeafContext::get_number(uint32_t slot) const {
  const CallSite& s = site(site_);
  const Program& p = *s.program;
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Number) [[unlikely]]
    return std::numeric_limits<double>::quiet_NaN();
  return reinterpret_cast<const Slot*>(s.block + p.bb_offset)[slot].num;
}
bool LeafContext::set_number(uint32_t slot, double v) {
  const CallSite& s = site(site_);
  const Program& p = *s.program;
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Number || v != v) [[unlikely]]
    return false;
  reinterpret_cast<Slot*>(s.block + p.bb_offset)[slot].num = v;
  return true;
}
double LeafContext::random() { return site(site_).agent->rng.uniform(); }
AgentHandle LeafContext::handle() const {
  // agent_ points into the runtime's agent array, which no tick resizes (spawns wait for its end).
  const AgentInfo* a = static_cast<const AgentInfo*>(agent_);
  return AgentHandle{static_cast<uint32_t>(a - rt_->agents.data()), a->generation};
}

// ---- Runtime: the public face forwards to the impl ----
Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<RuntimeImpl>(std::move(options))) {}
Runtime::~Runtime() = default;

// Loading, restoring and reloading change the brains and agents a tick is walking: a leaf
// that asks for one during a tick is refused (the game does it between ticks).
void RuntimeImpl::say_mid_tick(const char* what, std::string_view file, std::vector<Diagnostic>* diagnostics) {
  const std::string message = std::string(what) + " cannot be called during a tick (from a leaf): call it before or after tick_all";
  if (diagnostics) diagnostics->push_back({Severity::Error, std::string(file), 0, 0, message});
  else log("error: " + message);
}
namespace {
// A load's diagnostics in the order of their files' lines, as `thicket check` prints them (the
// stages find them in their own order: keys, then nodes, then leaves); those the caller
// passed in stay first, as they were.
std::optional<BrainHandle> in_file_order(std::optional<BrainHandle> brain, std::vector<Diagnostic>& diagnostics, size_t before) {
  std::vector<Diagnostic> added(std::make_move_iterator(diagnostics.begin() + static_cast<std::ptrdiff_t>(before)),
                                std::make_move_iterator(diagnostics.end()));
  sort_diagnostics(added);
  std::move(added.begin(), added.end(), diagnostics.begin() + static_cast<std::ptrdiff_t>(before));
  return brain;
}
}  // namespace

std::optional<BrainHandle> Runtime::load_file(const std::string& path, std::vector<Diagnostic>& diagnostics) {
  if (impl_->refuse_mid_tick("load_file", path, &diagnostics)) return std::nullopt;
  // The system reads a path up to its first NUL: "a.yaml\0x" would load a.yaml (again) unsaid.
  if (const size_t nul = path.find('\0'); nul != std::string::npos) {
    diagnostics.push_back({Severity::Error, path.substr(0, nul), 0, 0,
                           "the path holds a NUL byte after '" + path.substr(0, nul) + "': no file has such a name"});
    return std::nullopt;
  }
  CLocaleScope c_numbers(true);  // a leaf file's chunk runs at its load
  const size_t before = diagnostics.size();
  return in_file_order(impl_->load(std::nullopt, path, diagnostics), diagnostics, before);
}
std::optional<BrainHandle> Runtime::load_string(const std::string& yaml, const std::string& name,
                                                std::vector<Diagnostic>& diagnostics) {
  if (impl_->refuse_mid_tick("load_string", name, &diagnostics)) return std::nullopt;
  // The limit a file has (read_limited): a text from a game's mod or a network is as untrusted.
  if (yaml.size() > kMaxYamlBytes) {
    diagnostics.push_back({Severity::Error, name, 0, 0,
                           "the text is " + std::to_string(yaml.size() >> 20) + " MB; a brain may be at most " +
                               std::to_string(kMaxYamlBytes >> 20) + " MB, as a brain file may"});
    return std::nullopt;
  }
  CLocaleScope c_numbers(true);
  const size_t before = diagnostics.size();
  return in_file_order(impl_->load(yaml, name, diagnostics), diagnostics, before);
}
// A leaf with no tick, or no name, is refused (logged): it loaded, then failed every tick
// without a word.
bool RuntimeImpl::refuse_native(const std::string& name, bool has_tick) {
  if (name.empty()) {
    log("error: register_leaf: a leaf needs a name; nothing registered");
    return true;
  }
  if (!has_tick) {
    log("error: register_leaf: leaf '" + name + "' has no tick (it is required); nothing registered");
    return true;
  }
  return false;
}
void Runtime::register_leaf(const std::string& name, NativeLeaf leaf) {
  if (impl_->refuse_mid_tick("register_leaf", "", nullptr)) return;
  if (impl_->refuse_native(name, static_cast<bool>(leaf.tick))) return;
  LeafDef def;
  def.name = name;
  def.shape = LeafShape::Native;
  def.native = std::move(leaf);
  impl_->register_native(std::move(def));
}
void Runtime::register_leaf(const std::string& name, NativeLeafFn leaf) {
  if (impl_->refuse_mid_tick("register_leaf", "", nullptr)) return;
  if (impl_->refuse_native(name, leaf.tick != nullptr)) return;
  LeafDef def;
  def.name = name;
  def.shape = LeafShape::Native;
  def.native_fn = leaf;
  impl_->register_native(std::move(def));
}
void RuntimeImpl::register_native(LeafDef def) {
  auto it = leaf_ids.find(def.name);
  if (it == leaf_ids.end()) {
    leaf_ids[def.name] = static_cast<uint32_t>(leaves.size());
    leaves.push_back(std::move(def));
  } else {
    if (!leaves[it->second].file.empty())  // a Lua leaf: every brain that calls it gets the native one
      log("warning: register_leaf: '" + def.name + "' replaces the Lua leaf from " + leaves[it->second].file +
          " for every brain of this runtime (leaf names are shared)");
    script->release_leaf(leaves[it->second]);
    leaves[it->second] = std::move(def);
    refresh_callers({it->second});
  }
  refresh_layout();
}
AgentHandle Runtime::spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb) {
  return impl_->spawn_or_defer(brain, bb, 0);
}
AgentHandle Runtime::spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb, uint32_t id) {
  if (id == 0) {  // (said, as an id in use or past the largest is: it returned nothing without a word)
    impl_->log("error: spawn: agent id 0 is no agent's (ids run from 1); no agent spawned (the form without an id chooses one)");
    return {};
  }
  return impl_->spawn_or_defer(brain, bb, id);
}
void Runtime::despawn(AgentHandle agent) {
  CLocaleScope c_numbers(impl_->scripts_loaded);  // its running leaves' stop hooks
  impl_->despawn_or_defer(agent);
}
bool Runtime::defers_spawns() const { return impl_->ticking.load(std::memory_order_acquire); }
bool Runtime::send(AgentHandle agent, const std::string& event) { return impl_->send_or_defer(agent, event); }
bool Runtime::set_tick_every(AgentHandle agent, uint32_t every) {
  AgentInfo* a = impl_->agent_ptr(agent);
  if (!a || every == 0) return false;
  AgentExtra& x = impl_->extras[agent.index];
  x.every = every;
  x.due = AgentExtra::kDueUnknown;  // its next call, worked out anew
  if (every > 1 && !x.sliced) {  // from now on its clock is the call clock
    x.sliced = true;
    ++impl_->sliced_agents;
    x.ticked = a->ticks > 0;
    x.last = impl_->call_time() - impl_->call_dt;
    x.born = impl_->call_time() - a->time;
  } else if (every == 1 && x.sliced) {  // ticked by every call again: its own clock goes on
    if (x.ticked && x.last != impl_->last_call_now) {
      // Its last tick was calls ago: its next tick (sliced, every call) gives it the sim time
      // since then, and the next call's start unslices it (unslice_ready). Unsliced now, its
      // next dt was one call's, and the time between was lost to it for good.
      impl_->unslicing.push_back(agent.index);
      return true;
    }
    impl_->unslice(agent.index);
  }
  return true;
}
uint32_t Runtime::tick_every(AgentHandle agent) const {
  return impl_->agent_ptr(agent) ? impl_->extras[agent.index].every : 0;
}
size_t Runtime::brain_count() const { return impl_->brains.size(); }
std::string Runtime::brain_name(BrainHandle brain) const {
  return brain.index < impl_->brains.size() ? impl_->brains[brain.index]->program->name : std::string();
}
std::string Runtime::brain_path(BrainHandle brain) const {
  return brain.index < impl_->brains.size() ? impl_->brains[brain.index]->path : std::string();
}
void Runtime::on_log(std::function<void(const std::string&)> sink) { impl_->options.log = std::move(sink); }
void Runtime::on_print(std::function<void(const std::string&)> sink) { impl_->print_sink = std::move(sink); }
void Runtime::on_reload_check(std::function<std::string(const ReloadCandidate&)> check) {
  impl_->reload_check = std::move(check);
}
uint64_t Runtime::agent_ticks() const { return impl_->agent_ticks; }
size_t Runtime::agent_count() const { return impl_->live_agents; }
std::vector<AgentHandle> Runtime::agents() const {
  std::vector<AgentHandle> out;
  out.reserve(impl_->live_agents);
  for (uint32_t i = 0; i < impl_->agents.size(); ++i)
    if (impl_->agents[i].alive) out.push_back(AgentHandle{i, impl_->agents[i].generation});
  return out;
}
std::optional<AgentHandle> Runtime::find_agent(uint32_t id) const {
  const auto index = impl_->find_index(id);
  if (!index) return std::nullopt;
  return AgentHandle{*index, impl_->agents[*index].generation};
}
// A frame timer's 0/0 or a paused clock's 0 must not reach the clocks: one NaN would stay in
// the call clock for good, and every wait, cooldown and timeout would never end.
void RuntimeImpl::log_bad_dt(const char* what, double dt) {
  char v[32];  // the shortest text that reads back as dt: 1000000.5, not 1e+06
  const auto written = std::to_chars(v, v + sizeof v, dt);
  log(std::string("error: ") + what + ": dt must be a positive number of seconds, at most 1000000, got " +
      std::string(v, written.ptr) + "; nothing ticked");
}
namespace {
// The ticks in the "C" locale (c_locale.hpp), out of line and called with plain values: the
// ticks of a runtime without leaf files keep their few instructions (Runtime::tick_all took 21
// a call, not 12, with the scope or a lambda's call in line: callgrind, native T31, 1 agent).
[[gnu::noinline]] Status tick_in_c_locale(RuntimeImpl& rt, uint32_t index, double dt) {
  CLocaleScope c_numbers(true);
  return rt.tick(index, dt);
}
[[gnu::noinline]] void tick_all_in_c_locale(RuntimeImpl& rt, double dt) {
  CLocaleScope c_numbers(true);
  rt.tick_all(dt);
}
[[gnu::noinline]] void tick_all_in_c_locale(RuntimeImpl& rt, double dt, const Executor& executor) {
  CLocaleScope c_numbers(true);  // and in each job, on the executor's threads (tick_all.cpp)
  rt.tick_all(dt, executor);
}
}  // namespace

// A tick from inside a tick (a leaf's or a callback's call) is refused: it would tick the
// calling agent inside its own walk, and a leaf that always does would recurse until the stack
// overflows.
Status Runtime::tick(AgentHandle agent, double dt) {
  if (!impl_->agent_ptr(agent) || impl_->refuse_dt("tick", dt) || impl_->refuse_mid_tick("tick", "", nullptr))
    return Status::Invalid;
  if (impl_->scripts_loaded) return tick_in_c_locale(*impl_, agent.index, dt);
  return impl_->tick(agent.index, dt);
}
void Runtime::tick_all(double dt) {
  if (impl_->refuse_dt("tick_all", dt) || impl_->refuse_mid_tick("tick_all", "", nullptr)) return;
  if (impl_->scripts_loaded) return tick_all_in_c_locale(*impl_, dt);
  impl_->tick_all(dt);
}
void Runtime::tick_all(double dt, const Executor& executor) {
  if (impl_->refuse_dt("tick_all", dt) || impl_->refuse_mid_tick("tick_all", "", nullptr)) return;
  if (impl_->scripts_loaded) return tick_all_in_c_locale(*impl_, dt, executor);
  impl_->tick_all(dt, executor);
}
Status Runtime::status(AgentHandle agent) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  if (!a) return Status::Invalid;
  return reinterpret_cast<const Status*>(impl_->brains[a->brain]->block(a->row))[0];
}
uint32_t Runtime::agent_id(AgentHandle agent) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  return a ? a->id : 0;
}
std::vector<std::string> Runtime::running_nodes(AgentHandle agent) const {
  if (!impl_->agent_ptr(agent)) return {};
  return impl_->running_nodes(agent.index);
}
std::optional<Value> Runtime::get(AgentHandle agent, const std::string& key) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  Value v;
  if (!a || !impl_->get_value(*a, key, v)) return std::nullopt;
  return v;
}
bool Runtime::set(AgentHandle agent, const std::string& key, const Value& v) {
  const AgentInfo* a = impl_->agent_ptr(agent);
  return a && impl_->set_value(*a, key, v);
}
std::optional<uint32_t> Runtime::blackboard_slot(BrainHandle brain, const std::string& key) const {
  if (brain.index >= impl_->brains.size()) return std::nullopt;
  uint32_t slot;
  if (!find_key(*impl_->brains[brain.index]->program, key, slot)) return std::nullopt;
  return slot;
}
BrainHandle Runtime::brain_of(AgentHandle agent) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  return a ? BrainHandle{a->brain} : BrainHandle{};
}
std::vector<std::string> Runtime::blackboard_keys(BrainHandle brain) const {
  std::vector<std::string> keys;
  if (brain.index >= impl_->brains.size()) return keys;
  for (const BlackboardKey& k : impl_->brains[brain.index]->program->blackboard) keys.push_back(k.name);
  return keys;
}
std::optional<ValueType> Runtime::blackboard_type(BrainHandle brain, const std::string& key) const {
  if (brain.index >= impl_->brains.size()) return std::nullopt;
  for (const BlackboardKey& k : impl_->brains[brain.index]->program->blackboard)
    if (k.name == key) return k.type;
  return std::nullopt;
}
bool Runtime::set_number(AgentHandle agent, uint32_t slot, double value) {
  AgentInfo* a = impl_->agent_ptr(agent);
  if (!a || value != value) return false;
  const Program& p = impl_->program_of(*a);
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Number) return false;
  impl_->slots_of(*a)[slot].num = value;
  return true;
}
bool Runtime::set_bool(AgentHandle agent, uint32_t slot, bool value) {
  AgentInfo* a = impl_->agent_ptr(agent);
  if (!a) return false;
  const Program& p = impl_->program_of(*a);
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Boolean) return false;
  impl_->slots_of(*a)[slot].i = value ? 1 : 0;
  return true;
}
bool Runtime::set_integer(AgentHandle agent, uint32_t slot, int64_t value) {
  AgentInfo* a = impl_->agent_ptr(agent);
  if (!a) return false;
  const Program& p = impl_->program_of(*a);
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Integer) return false;
  impl_->slots_of(*a)[slot].i = value;
  return true;
}
double Runtime::get_number(AgentHandle agent, uint32_t slot) const {
  const AgentInfo* a = impl_->agent_ptr(agent);
  if (!a) return std::numeric_limits<double>::quiet_NaN();
  const Program& p = impl_->program_of(*a);
  if (slot >= p.blackboard.size() || p.blackboard[slot].type != ValueType::Number) return std::numeric_limits<double>::quiet_NaN();
  return impl_->slots_of(*const_cast<AgentInfo*>(a))[slot].num;
}
void Runtime::on_trace(std::function<void(const TraceEvent&)> sink, bool ticks) {
  if (impl_->trace_calls > 0) {  // from the sink itself: when its call returns
    impl_->trace_next.emplace(std::move(sink), ticks);
    return;
  }
  impl_->trace_sink = std::move(sink);
  impl_->trace_ticks = ticks;
}
size_t Runtime::reload_changed() {
  if (impl_->refuse_mid_tick("reload_changed", "", nullptr)) return 0;
  CLocaleScope c_numbers(true);
  return impl_->reload_changed();
}
size_t Runtime::reload_changed(std::vector<ReloadReport>* reports) {
  if (impl_->refuse_mid_tick("reload_changed", "", nullptr)) return 0;
  CLocaleScope c_numbers(true);
  impl_->reload_reports = reports;
  size_t n = impl_->reload_changed();
  impl_->reload_reports = nullptr;
  return n;
}
size_t Runtime::reload_files(const std::vector<std::string>& files, std::vector<ReloadReport>* reports) {
  if (impl_->refuse_mid_tick("reload_files", "", nullptr)) return 0;
  CLocaleScope c_numbers(true);
  impl_->reload_reports = reports;
  size_t n = impl_->reload_paths(files, {});
  impl_->reload_reports = nullptr;
  return n;
}
size_t Runtime::bytes_per_agent(BrainHandle brain) const {
  if (brain.index >= impl_->brains.size()) return 0;
  return impl_->brains[brain.index]->program->block_size + sizeof(AgentInfo);
}
uint64_t Runtime::script_errors() const {
  // The brains' errors said once (report_once) are the book's; a simulation's workers share
  // one, which the simulation counts once for all (not this worker's to count).
  const uint64_t once = impl_->errors == &impl_->own_errors ? impl_->own_errors.once_errors : 0;
  return impl_->script->script_errors() + impl_->brain_errors.load() + once;
}

}  // namespace thicket
