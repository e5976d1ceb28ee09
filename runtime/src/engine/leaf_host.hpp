// The core's face to leaf code. The tick loop calls native leaves itself (NativeLeaf, a
// direct call); every other leaf belongs to a script host, an implementation of ScriptHost
// that lives outside the core (bindings/lua: LuaHost). The core includes nothing from a
// binding: the binding includes this file and registers itself (make_script_host).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler.hpp"
#include "snapshot_plain.hpp"
#include "thicket/diagnostic.hpp"
#include "thicket/runtime.hpp"
#include "thicket/status.hpp"

namespace thicket {

struct Program;
struct AgentInfo;
struct Brain;
class RuntimeImpl;

// Where a leaf call happens: the tick loop hands this to the leaf (native or scripted).
struct CallSite {
  const Program* program;
  uint32_t node;
  AgentInfo* agent;
  uint8_t* block;
};

// A leaf as the runtime knows it: native (a C++ callable) or scripted (the script host's
// references, e.g. Lua registry references).
struct LeafDef {
  std::string name;
  LeafShape shape = LeafShape::Function;
  std::string file;  // the script file that defined it ("" for native)
  int line = 0, column = 0;  // where that file names it (0: not known)
  int fn = -2, start = -2, tick = -2, stop = -2;  // script references (LUA_NOREF = -2: none)
  NativeLeaf native;     // registered as callables (called through thunks), or
  NativeLeafFn native_fn;  // registered as plain functions (native_fn.tick set)
  bool declares_args = false;  // the leaf file gave `args = {name = "type", ...}`
  LeafArgs args;
  // The references of script lanes 1.. (lane 0's are fn, start, tick, stop above).
  struct Refs {
    int fn = -2, start = -2, tick = -2, stop = -2;
  };
  std::vector<Refs> lane_refs;
};

// A script host: runs the leaves that are not native, and keeps the script side of brains,
// agents and blackboard `any` values. Owned by RuntimeImpl; the tick-path calls (condition
// .. reason) are only ever made at call sites whose leaf is not native (HotCall::native.tick is
// null); the host finds its leaf from the call site (CallSite -> LeafCall::leaf_id).
class ScriptHost {
 public:
  virtual ~ScriptHost() = default;

  // ---- the tick path (script leaves only) ----
  // condition: Success, Failure, or Invalid when the leaf raised an error (the node then
  // fails, negate or not).
  virtual Status condition(const CallSite& at) = 0;
  virtual Status start(const CallSite& at) = 0;  // Running, or Failure on an error
  virtual Status tick(const CallSite& at) = 0;
  // false when the stop hook raised an error: a leaf that finished with success then fails for
  // that tick (SPEC 7: a Lua error in a leaf makes it fail for that tick). keep_mem: the run's
  // mem stays for a later stop of the same run (behavior3's node memory, which its second
  // close() sees; the next start replaces it).
  virtual bool stop(const CallSite& at, Status s, bool keep_mem) = 0;
  // Lets go of a finished run's mem that stop kept (keep_mem), once no stop of that run can
  // follow: a mem left in place was taken by a later run for its own, its start skipped.
  virtual void drop_mem(const CallSite& at) = 0;
  // fsm calls: enter/exit (results ignored) and reason (a transition name, or false).
  virtual void call_plain(const CallSite& at) = 0;
  virtual bool reason(const CallSite& at, std::string_view& transition) = 0;
  virtual void unmapped_transition(const CallSite& at, const std::string& state, std::string_view transition) = 0;

  // ---- loading ----
  // The leaf files of the brain being loaded (require() may look beside them); cleared after.
  virtual void set_loading_files(std::vector<std::string> files) = 0;
  // Runs a leaf file and collects its leaves without installing them (nothing changes on
  // error). Appends diagnostics; returns false on any error.
  virtual bool stage_leaf_file(const std::string& path, std::vector<LeafDef>& out, std::vector<Diagnostic>& diags) = 0;
  virtual void release_leaf(LeafDef& def) = 0;  // drops the references of a leaf no longer used
  // The entries of the table a leaf file returned, at its last staging, that are data beside
  // the leaves (a number, a text): name -> "FILE:LINE makes it a number". A brain that names one as a
  // leaf is told what it is, not that no such leaf exists.
  virtual std::map<std::string, std::string> data_entries(const std::string& path) const {
    (void)path;
    return {};
  }
  // Modules (files a leaf file require()s as it loads), for hot reload: each module file with
  // the leaf files that required it; forget_module drops a module's loaded copy, so that the
  // next require runs the file again, and settle_module puts the old copy back if no require
  // loaded a new one since (the new version failed: what runs keeps the old one).
  virtual std::map<std::string, std::set<std::string>> module_users() const { return {}; }
  virtual void forget_module(const std::string& /*path*/) {}
  virtual void settle_module(const std::string& /*path*/) {}
  // The args of a program's call sites, made once at load, and freed.
  virtual void install_args(Program& p) = 0;
  virtual void release_args(Program& p) = 0;
  // Per-brain and per-agent script objects.
  virtual void install_brain(Brain& b, uint32_t brain_index) = 0;
  virtual void create_agent(AgentInfo& a) = 0;
  virtual void destroy_agent(AgentInfo& a) = 0;

  // ---- hot reload ----
  // Moves per-node script state to new node indices (to_new[old] = new index or 0xFFFFFFFF).
  virtual void remap_mem(AgentInfo& a, const std::vector<uint32_t>& to_new) = 0;
  virtual void call_on_reload(const LeafDef& hook, const std::string& file) = 0;
  virtual void release_ref(const AgentInfo& a, int ref) = 0;  // an `any` value of the agent's

  // ---- blackboard `any` values (a reference held by the host) ----
  virtual Value any_value(const AgentInfo& a, int ref) = 0;
  // Stores v for the agent, releasing the old reference; returns the new one.
  virtual int set_any_value(const AgentInfo& a, int old_ref, const Value& v) = 0;

  // Script errors so far (run summaries).
  virtual uint64_t script_errors() const = 0;

  // ---- snapshots (snapshot.cpp; the bytes: snapshot_plain.hpp) ----
  // Writes the agent's script side: its agent table's plain fields, then one entry per node
  // with script state (a hook table's mem as plain data, or a running task). What is not
  // plain data is left out and counted in `drops`.
  virtual void save_agent(const AgentInfo& a, SnapshotWriter& out, SnapshotDrops& drops) = 0;
  // Writes an `any` blackboard value as a plain value.
  virtual void save_any(const AgentInfo& a, int ref, SnapshotWriter& out, SnapshotDrops& drops) = 0;
  // Gives a restored agent (made with create_agent) its script side; `s.mem` names nodes of
  // the agent's current program. A task entry restarts from its beginning at its next tick,
  // knowing it was restored.
  virtual void restore_agent(AgentInfo& a, const ScriptAgentState& s) = 0;
  // A new reference holding v (an `any` blackboard value).
  virtual int any_from_plain(const AgentInfo& a, const PlainValue& v) = 0;
  // Script lanes (SPEC 8.2, script_lanes.cpp): this host is lane `lane` of `lanes`; a host of
  // lane k > 0 keeps its references in the lane's slots (LeafDef::lane_refs, ...).
  virtual void set_lane(uint32_t /*lane*/) {}
};

// The script binding registers itself here (bindings/lua does, from a static initializer in
// lua_host.cpp, when the program links the thicket_lua library). A runtime makes its script
// host with the registered factory; without one (a program linking only thicket_core, with
// native leaves alone) it gets a host that refuses script leaf files with a clear error.
struct SimWorker;
struct ScriptBinding {
  std::unique_ptr<ScriptHost> (*make_host)(RuntimeImpl& rt) = nullptr;
  void (*install_world)(SimWorker& worker) = nullptr;  // the scenario world API for scripts
};
void register_script_binding(const ScriptBinding& binding);
const ScriptBinding& script_binding();
std::unique_ptr<ScriptHost> make_script_host(RuntimeImpl& rt);  // the registered one, or none
// The runtime's script host over `lanes` script lanes (script_lanes.cpp): the host itself for
// one; for more, a host that fans loading out to every lane and sends each agent's calls to its
// own lane's host. `hosts` gets each lane's host.
std::unique_ptr<ScriptHost> make_script_hosts(RuntimeImpl& rt, uint32_t lanes, std::vector<ScriptHost*>& hosts);

}  // namespace thicket
