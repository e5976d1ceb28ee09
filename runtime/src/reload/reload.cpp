// Hot reload (SPEC 10): watching loaded files, reloading Lua leaf files in place, and
// recompiling brains while every agent keeps the state of the nodes that still exist.
// A reload is all or nothing: a file that fails leaves the old version running.
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "file_watcher.hpp"
#include "runtime_impl.hpp"
#include "suggest.hpp"

namespace thicket {
namespace fs = std::filesystem;

namespace {
bool is_lua(const std::string& f) { return f.size() > 4 && f.compare(f.size() - 4, 4, ".lua") == 0; }
}  // namespace

void RuntimeImpl::watch_brain(const Brain& b) {
  if (!watcher) watcher = std::make_unique<FileWatcher>();
  for (const auto& f : b.program->yaml_files) watcher->add(f);
  for (const auto& f : b.program->leaf_files) watcher->add(f);
  // The modules its leaf files require (watched for all brains: a module serves any).
  for (const auto& [module, users] : script->module_users()) watcher->add(module);
  if (b.stale)  // files the failed version names, which may not exist yet
    for (const auto& f : b.stale->files) watcher->add(f);
}

std::vector<std::string> RuntimeImpl::files_read() const {
  std::set<std::string> files;
  if (script)
    for (const auto& [module, users] : script->module_users()) files.insert(module);
  for (const auto& b : brains) {
    if (b->from_text) continue;
    files.insert(b->program->yaml_files.begin(), b->program->yaml_files.end());
    files.insert(b->program->leaf_files.begin(), b->program->leaf_files.end());
    if (b->stale) files.insert(b->stale->files.begin(), b->stale->files.end());
  }
  return {files.begin(), files.end()};
}

std::vector<std::string> RuntimeImpl::lua_files_read() const {
  std::set<std::string> files;
  if (script)
    for (const auto& [module, users] : script->module_users()) files.insert(module);
  for (const auto& b : brains)
    if (!b->from_text) files.insert(b->program->leaf_files.begin(), b->program->leaf_files.end());
  return {files.begin(), files.end()};
}

size_t RuntimeImpl::reload_changed() {
  if (!watcher) return 0;
  std::vector<std::string> touched;
  std::vector<std::string> changed = watcher->changed(&touched);
  // A watched file deleted or moved away: nothing reloads (the running version stays), said once.
  for (const auto& f : watcher->take_gone()) {
    // A path that names a loop of symbolic links is there, but leads nowhere: said so.
    struct stat st;
    const bool loop = ::stat(f.c_str(), &st) != 0 && errno == ELOOP;
    const std::string why = std::string(loop ? "the file is a loop of symbolic links (it leads to no file)"
                                             : "the file is gone (deleted or moved away)") +
                            ": the running version stays, and it reloads when the file is back";
    log(reload_clock() + ": " + f + (loop ? " is a loop of symbolic links (it leads to no file)" : " is gone (deleted or moved away)") +
        ": the running version stays, and it reloads when the file is back");
    // A report too, as a failed reload's: a game shows it where it shows those (it showed
    // nothing on screen), and the file's next good reload clears it.
    report_reload(f, false, {{Severity::Error, f, 0, 0, why}});
  }
  // One back as it was: nothing to reload, but its "gone" report is over (one back with other
  // content reloads below, and reports that).
  for (const auto& f : watcher->take_back())
    if (std::find(changed.begin(), changed.end(), f) == changed.end()) {
      log(reload_clock() + ": " + f + " is back, as it was: the running version is its own");
      report_reload(f, true, {});
    }
  return reload_paths(changed, std::move(touched));
}

void RuntimeImpl::report_reload(const std::string& file, bool ok, const std::vector<Diagnostic>& diags) {
  if (!reload_reports) return;
  ReloadReport r;
  r.file = file;
  r.ok = ok;
  if (!ok) r.first_error = "it failed to load";
  bool first = true;
  for (const auto& d : diags) {
    r.diagnostics.push_back(d);
    if (d.severity != Severity::Error || !first) continue;
    first = false;
    r.first_error = format_diagnostic(d);
    if (size_t at = r.first_error.find(": error: "); at != std::string::npos) r.first_error.replace(at, 9, ": ");
  }
  reload_reports->push_back(std::move(r));
}

size_t RuntimeImpl::reload_paths(const std::vector<std::string>& changed, std::vector<std::string> touched) {
  if (!watcher) return 0;
  bool any_stale = false;
  for (const auto& b : brains) any_stale = any_stale || b->stale.has_value();
  if (!any_stale) touched.clear();
  if (changed.empty() && touched.empty()) return 0;
  std::set<std::string> pending(changed.begin(), changed.end());
  // What triggers a brain's recompile: every changed file, for every brain that reads it (two
  // brains may be loaded from one file, e.g. two groups of a scenario; `pending` loses a file
  // once the first of them has recompiled).
  const std::set<std::string> yaml_changed(changed.begin(), changed.end());
  // A touched file (same content) only retries brains whose last reload failed.
  std::set<std::string> retry(touched.begin(), touched.end());
  retry.insert(changed.begin(), changed.end());
  size_t reloaded = 0;
  std::set<std::string> said;
  reload_said = &said;
  struct Forget {
    std::set<std::string>*& said;
    ~Forget() { said = nullptr; }
  } forget{reload_said};
  std::set<const Brain*> failed;  // their failure is in the log already
  for (auto& b : brains) {
    if (b->from_text) continue;
    // A brain recompiles when its YAML changed, or, while its last YAML reload is waiting
    // (stale), when any file that version reads changed: a leaf added to a Lua file may be
    // the one it was missing.
    std::string trigger;
    for (const auto& f : b->program->yaml_files)
      if (trigger.empty() && yaml_changed.count(f)) trigger = f;
    if (trigger.empty() && b->stale)
      for (const auto& f : b->stale->files)
        if (trigger.empty() && retry.count(f)) trigger = f;
    if (trigger.empty()) continue;
    if (reload_brain(*b, trigger)) {
      ++reloaded;
      // The brain recompiled with its leaf files, so those are done too: a changed one is
      // reported loaded (a report of its earlier failure would otherwise stand for good).
      for (const auto& lf : b->program->leaf_files)
        if (pending.erase(lf) && lf != b->path) report_reload(lf, true, {});
      for (const auto& yf : b->program->yaml_files) pending.erase(yf);
    } else {
      failed.insert(b.get());
      // Its YAML is done (the failure is reported); its Lua files still reload on their
      // own below, for the version that keeps running.
      for (const auto& yf : b->program->yaml_files) pending.erase(yf);
      if (b->stale)
        for (const auto& f : b->stale->files)
          if (!is_lua(f)) pending.erase(f);
    }
  }
  // A Lua file reloads on its own only for the versions that run: a file named only by a
  // failed version (a new leaf file the failed YAML lists) must not put its leaves live.
  std::set<std::string> running_leaf_files;
  for (const auto& b : brains)
    running_leaf_files.insert(b->program->leaf_files.begin(), b->program->leaf_files.end());
  // A changed module (a file leaf files require, not a leaf file itself): its loaded copy is
  // forgotten and the leaf files that required it reload, requiring the new version (once:
  // the first loads it, the others share it). If none loads it, the old copy stays.
  std::vector<std::string> lua_files = changed, modules;
  const auto users_of = script->module_users();
  for (const auto& f : changed) {
    auto m = users_of.find(f);
    if (m == users_of.end() || running_leaf_files.count(f)) continue;
    script->forget_module(f);
    modules.push_back(f);
    log(reload_clock() + ": module " + f + " changed; the leaf files that require it reload");
    for (const auto& user : m->second)
      if (running_leaf_files.count(user) && !std::count(lua_files.begin(), lua_files.end(), user)) {
        lua_files.push_back(user);
        pending.insert(user);
      }
  }
  for (const auto& f : lua_files)
    if (pending.count(f) && is_lua(f) && running_leaf_files.count(f) && reload_lua_file(f)) ++reloaded;
  for (const auto& m : modules) script->settle_module(m);
  // Say which other brains still run an old version, and why: a reload that did not reach
  // them must not look like one that did.
  for (const auto& b : brains)
    if (b->stale && !failed.count(b.get()))
      reload_log(reload_clock() + ": brain " + b->path + " still runs its previous version: " + b->stale->why +
          " (the reload failed at " + b->stale->since + "; it is retried when its files change)");
  for (auto& b : brains)
    if (!b->from_text) watch_brain(*b);  // a reload may have added files
  return reloaded;
}

std::string RuntimeImpl::reload_clock() const {
  // The next tick_all's sim time and number (from 1): a reload done now takes effect there,
  // whichever agents that call ticks (time-sliced ones skip calls, late spawns count their
  // own ticks from their spawn). Without tick_all (agents ticked one by one with
  // Runtime::tick), the next tick of the agent furthest along.
  uint64_t ticks = calls;
  double time = call_time();
  if (calls == 0)
    for (const auto& a : agents)
      if (a.alive && a.ticks >= ticks) {
        ticks = a.ticks;
        time = a.time;
      }
  std::ostringstream out;
  out << "t=" << time << " tick " << ticks + 1;
  return out.str();
}

namespace {
std::string describe_failure(const std::string& clock, const std::string& file, std::vector<Diagnostic> diags) {
  sort_diagnostics(diags);  // as `thicket check` lists them
  std::ostringstream out;
  out << clock << ": reload of " << file << " failed; the old version keeps running:";
  for (const auto& d : diags) out << "\n  " << format_diagnostic(d);
  return out.str();
}

// The leaves a program calls where they must stay plain functions (a condition, an fsm state's
// enter, exit or reason: the compiler refuses a task or a hook table there), each with how the
// brain uses it and where (FILE:LINE:COL of that use).
struct LeafUse {
  std::string plain_use;
  std::string plain_where;  // FILE:LINE:COL of that use
};
std::map<std::string, LeafUse> leaves_used(const Program& p) {
  std::map<std::string, LeafUse> used;
  auto place = [&](uint32_t node) {
    if (node >= p.positions.size() || p.positions[node].line <= 0) return std::string();
    const SourcePos& pos = p.positions[node];
    return p.files[pos.file] + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  };
  auto use = [&](uint32_t node) -> LeafUse& { return used[p.calls[p.nodes[node].a].leaf]; };
  auto plain = [&](uint32_t node, std::string how) {
    LeafUse& u = use(node);
    u.plain_use = std::move(how);
    u.plain_where = place(node);
  };
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind == NodeKind::Condition) plain(i, "as a condition");
  for (const FsmState& st : p.fsm_states)
    for (const auto& [node, key] : {std::pair{st.enter, "enter"}, std::pair{st.exit, "exit"}, std::pair{st.reason, "reason"}})
      if (node != kNoNode && p.nodes[node].kind == NodeKind::Action)
        plain(node, std::string("as state '") + st.name + "''s '" + key + "', which calls a plain function (agent, args)");
  return used;
}
}  // namespace

bool RuntimeImpl::reload_lua_file(const std::string& path) {
  std::vector<Diagnostic> diags;
  std::vector<LeafDef> staged;
  script->set_loading_files({path});
  const bool staged_ok = script->stage_leaf_file(path, staged, diags);
  script->set_loading_files({});
  // Every error at once, as `thicket check` gives them (a hook typo hid the args that no longer
  // fit): the file's own, then what the brains' calls make of the leaves it still defines.
  std::set<std::string> fresh;
  std::vector<std::string> fresh_names;
  for (const auto& def : staged)
    if (fresh.insert(def.name).second) fresh_names.push_back(def.name);
  auto place_of = [](const Program& p, uint32_t node) {
    const bool placed = node < p.positions.size() && p.positions[node].line > 0;
    return std::tuple<std::string, int, int>{placed ? p.files[p.positions[node].file] : std::string(),
                                             placed ? p.positions[node].line : 0, placed ? p.positions[node].column : 0};
  };
  for (const auto& b : brains) {
    const Program& p = *b->program;
    // A leaf of this file that the brain calls and the file no longer defines: at each call, with
    // the leaves it does define near its name (a rename). (Not when the file did not load: the
    // leaves it failed on are not staged.)
    if (staged_ok)
      for (uint32_t i = 0; i < p.nodes.size(); ++i) {
        if (p.nodes[i].kind != NodeKind::Action && p.nodes[i].kind != NodeKind::Condition) continue;
        const std::string& name = p.calls[p.nodes[i].a].leaf;
        auto id = leaf_ids.find(name);
        if (id == leaf_ids.end() || leaves[id->second].file != path || fresh.count(name)) continue;
        auto [file, line, column] = place_of(p, i);
        diags.push_back({Severity::Error, file.empty() ? b->path : file, line, column,
                         "unknown leaf '" + name + "'" + did_you_mean(name, fresh_names) + " (" + path +
                             " no longer defines it, and " + b->path + " still calls it here)"});
      }
    for (const auto& [name, leaf_use] : leaves_used(p)) {
      const std::string& plain_use = leaf_use.plain_use;
      for (const auto& def : staged)
        if (def.name == name && !plain_use.empty() && (def.shape == LeafShape::Hooks || def.shape == LeafShape::Task))
          diags.push_back({Severity::Error, path, 0, 0,
                           "leaf '" + name + "' is now a " + (def.shape == LeafShape::Task ? "task" : "hook table") + " but " +
                               b->path + " uses it " + plain_use +
                               (leaf_use.plain_where.empty() ? std::string() : " (at " + leaf_use.plain_where + ")")});
    }
  }
  // The args of each call of a leaf that declares them, against the new declarations (as a load
  // checks them): a leaf must not start running with an arg missing or of another type.
  std::map<std::string, const LeafDef*> declaring;
  for (const auto& def : staged)
    if (def.declares_args) declaring[def.name] = &def;
  if (!declaring.empty())
    for (const auto& b : brains) {
      const Program& p = *b->program;
      for (uint32_t i = 0; i < p.nodes.size(); ++i) {
        if (p.nodes[i].kind != NodeKind::Action && p.nodes[i].kind != NodeKind::Condition) continue;
        const LeafCall& call = p.calls[p.nodes[i].a];
        auto def = declaring.find(call.leaf);
        if (def == declaring.end()) continue;
        auto [file, line, column] = place_of(p, i);
        for (std::string& message : call_args_errors(call.leaf, def->second->args, call.args))
          diags.push_back({Severity::Error, file.empty() ? b->path : file, line, column,
                           std::move(message) + " (the new " + path + " declares it so)"});
      }
    }
  if (!staged_ok || has_errors(diags)) {
    for (auto& def : staged) script->release_leaf(def);
    log(describe_failure(reload_clock(), path, diags));
    report_reload(path, false, diags);
    return false;
  }
  LeafDef on_reload;
  for (auto it = staged.begin(); it != staged.end(); ++it)
    if (it->name == "on_reload") {
      on_reload = std::move(*it);
      staged.erase(it);
      break;
    }
  std::vector<std::string> names = commit_leaves(staged);
  std::sort(names.begin(), names.end());  // (the Lua table's order changes from run to run)
  std::ostringstream out;
  out << reload_clock() << ": reloaded " << path << ": " << names.size() << " leaves replaced (" << join_names(names) << ")";
  log(out.str());
  report_reload(path, true, {});
  if (on_reload.fn != -2) {
    script->call_on_reload(on_reload, path);
    script->release_leaf(on_reload);
  }
  return true;
}

}  // namespace thicket
