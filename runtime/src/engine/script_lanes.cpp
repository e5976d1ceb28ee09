// Script lanes (SPEC 8.2): a script state is not thread-safe, so a runtime that should tick Lua
// brains on several threads at once keeps several (RuntimeOptions::script_states). Every lane
// loads every leaf file, so each has every leaf; an agent lives in one lane for its whole life
// (its agent table, mem tables, tasks and `any` values are there), chosen by its id. tick_all(dt,
// executor) gives each lane one job; the same calls reach the same leaves as with one lane.
//
// LanedHost is the runtime's script host when there are several lanes: loading is done by
// every lane (lane k keeps its references in the lane vectors of LeafDef, LeafCall and Brain),
// and every call about an agent goes to the agent's lane.
#include <algorithm>
#include <map>

#include "runtime_impl.hpp"

namespace thicket {

namespace {

class LanedHost final : public ScriptHost {
 public:
  explicit LanedHost(std::vector<std::unique_ptr<ScriptHost>> lanes) : lanes_(std::move(lanes)) {
    for (uint32_t k = 0; k < lanes_.size(); ++k) lanes_[k]->set_lane(k);
  }
  ScriptHost& of(const AgentInfo& a) { return *lanes_[a.lane]; }
  ScriptHost& at(const CallSite& c) { return *lanes_[c.agent->lane]; }

  // ---- the tick path: the agent's lane ----
  Status condition(const CallSite& c) override { return at(c).condition(c); }
  Status start(const CallSite& c) override { return at(c).start(c); }
  Status tick(const CallSite& c) override { return at(c).tick(c); }
  bool stop(const CallSite& c, Status s, bool keep_mem) override { return at(c).stop(c, s, keep_mem); }
  void drop_mem(const CallSite& c) override { at(c).drop_mem(c); }
  void call_plain(const CallSite& c) override { at(c).call_plain(c); }
  bool reason(const CallSite& c, std::string_view& transition) override { return at(c).reason(c, transition); }
  void unmapped_transition(const CallSite& c, const std::string& state, std::string_view transition) override {
    at(c).unmapped_transition(c, state, transition);
  }

  // ---- loading: every lane ----
  void set_loading_files(std::vector<std::string> files) override {
    for (auto& h : lanes_) h->set_loading_files(files);
  }
  std::map<std::string, std::set<std::string>> module_users() const override { return lanes_[0]->module_users(); }
  void forget_module(const std::string& path) override {
    for (auto& h : lanes_) h->forget_module(path);
  }
  std::map<std::string, std::string> data_entries(const std::string& path) const override {
    return lanes_[0]->data_entries(path);
  }
  void settle_module(const std::string& path) override {
    for (auto& h : lanes_) h->settle_module(path);
  }
  // Lane 0 stages into `out`; every other lane stages the same file, and its references join
  // the lane-0 definitions (a file must define the same leaves in every lane: it is the same
  // file, run the same way).
  bool stage_leaf_file(const std::string& path, std::vector<LeafDef>& out, std::vector<Diagnostic>& diags) override {
    const size_t first = out.size();
    if (!lanes_[0]->stage_leaf_file(path, out, diags)) return false;
    for (uint32_t k = 1; k < lanes_.size(); ++k) {
      std::vector<LeafDef> mine;
      std::vector<Diagnostic> lane_diags;
      const bool ok = lanes_[k]->stage_leaf_file(path, mine, lane_diags);
      // The same leaves by name (a state iterates a leaf table in an order of its own).
      std::map<std::string, size_t> by_name;
      for (size_t j = 0; j < mine.size(); ++j) by_name[mine[j].name] = j;
      bool same = ok && mine.size() == out.size() - first && by_name.size() == mine.size();
      for (size_t j = first; same && j < out.size(); ++j) same = by_name.count(out[j].name) > 0;
      if (!same) {
        for (auto& def : mine) lanes_[k]->release_leaf(def);
        for (size_t j = first; j < out.size(); ++j) release_leaf(out[j]);
        out.resize(first);
        diags.push_back({Severity::Error, path, 0, 0,
                         "the leaf file defined other leaves in script state " + std::to_string(k) +
                             " than in state 0 (a leaf file must define the same leaves each time it runs)" +
                             (lane_diags.empty() ? std::string() : ": " + lane_diags.front().message)});
        return false;
      }
      for (size_t j = first; j < out.size(); ++j) {
        LeafDef& def = out[j];
        const LeafDef& lane_def = mine[by_name[def.name]];
        def.lane_refs.resize(lanes_.size() - 1);
        def.lane_refs[k - 1] = {lane_def.fn, lane_def.start, lane_def.tick, lane_def.stop};
      }
    }
    return true;
  }
  void release_leaf(LeafDef& def) override {
    for (auto& h : lanes_) h->release_leaf(def);
  }
  void install_args(Program& p) override {
    for (auto& h : lanes_) h->install_args(p);
  }
  void release_args(Program& p) override {
    for (auto& h : lanes_) h->release_args(p);
  }
  void install_brain(Brain& b, uint32_t brain_index) override {
    for (auto& h : lanes_) h->install_brain(b, brain_index);
  }
  void call_on_reload(const LeafDef& hook, const std::string& file) override {
    for (auto& h : lanes_) h->call_on_reload(hook, file);
  }

  // ---- agents: their lane ----
  void create_agent(AgentInfo& a) override { of(a).create_agent(a); }
  void destroy_agent(AgentInfo& a) override { of(a).destroy_agent(a); }
  void remap_mem(AgentInfo& a, const std::vector<uint32_t>& to_new) override { of(a).remap_mem(a, to_new); }
  void release_ref(const AgentInfo& a, int ref) override { of(a).release_ref(a, ref); }
  Value any_value(const AgentInfo& a, int ref) override { return of(a).any_value(a, ref); }
  int set_any_value(const AgentInfo& a, int old_ref, const Value& v) override { return of(a).set_any_value(a, old_ref, v); }
  void save_agent(const AgentInfo& a, SnapshotWriter& out, SnapshotDrops& drops) override {
    of(a).save_agent(a, out, drops);
  }
  void save_any(const AgentInfo& a, int ref, SnapshotWriter& out, SnapshotDrops& drops) override {
    of(a).save_any(a, ref, out, drops);
  }
  void restore_agent(AgentInfo& a, const ScriptAgentState& s) override { of(a).restore_agent(a, s); }
  int any_from_plain(const AgentInfo& a, const PlainValue& v) override { return of(a).any_from_plain(a, v); }

  uint64_t script_errors() const override {
    uint64_t n = 0;
    for (const auto& h : lanes_) n += h->script_errors();
    return n;
  }

 private:
  std::vector<std::unique_ptr<ScriptHost>> lanes_;
};

}  // namespace

std::unique_ptr<ScriptHost> make_script_hosts(RuntimeImpl& rt, uint32_t lanes, std::vector<ScriptHost*>& hosts) {
  hosts.clear();
  if (lanes <= 1) {
    auto host = make_script_host(rt);
    hosts.push_back(host.get());
    return host;
  }
  std::vector<std::unique_ptr<ScriptHost>> made;
  for (uint32_t k = 0; k < lanes; ++k) {
    made.push_back(make_script_host(rt));
    hosts.push_back(made.back().get());
  }
  return std::make_unique<LanedHost>(std::move(made));
}

}  // namespace thicket
