// The runtime's insides, shared by the runtime, the engine, the script host and the CLI.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent.hpp"
#include "compiler.hpp"
#include "leaf_host.hpp"
#include "program.hpp"
#include "string_table.hpp"
#include "thicket/runtime.hpp"
#include "tick.hpp"

namespace thicket {

struct Brain {
  std::string path;
  BrainKind kind = BrainKind::Tree;
  std::unique_ptr<Program> program;
  std::vector<uint8_t> storage;     // one block of program->block_size bytes per row
  std::vector<uint32_t> row_agent;  // agent index of each row (UINT32_MAX = free)
  std::vector<uint32_t> free_rows;
  int bb_meta = -2;                 // script host's metatable of this brain's blackboard objects
  bool from_text = false;           // loaded from a string: nothing to watch
  // A YAML reload that failed (SPEC 10): the brain keeps running its previous version, and
  // the reload is tried again whenever one of `files` (its YAML and leaf files, old and as
  // the failed version named them) changes.
  struct Stale {
    std::string why;                 // the first error
    std::string since;               // when it failed: "t=T tick K"
    std::vector<std::string> files;
  };
  std::optional<Stale> stale;
  uint8_t* block(uint32_t row) { return storage.data() + size_t(row) * program->block_size; }
  // A row for agent `index`: a freed one if any, else a new block at the end (spawn, restore).
  uint32_t take_row(uint32_t index) {
    uint32_t row;
    if (!free_rows.empty()) {
      row = free_rows.back();
      free_rows.pop_back();
    } else {
      row = static_cast<uint32_t>(row_agent.size());
      row_agent.push_back(index);
      storage.resize(storage.size() + program->block_size);
    }
    row_agent[row] = index;
    return row;
  }
};

class RuntimeImpl {
 public:
  explicit RuntimeImpl(RuntimeOptions options);
  ~RuntimeImpl();

  std::optional<BrainHandle> load(const std::optional<std::string>& text, const std::string& path,
                                  std::vector<Diagnostic>& diags);
  // Parses, stages leaves and compiles; nothing is installed. nullptr on any error.
  // `read` (optional) gets the YAML and leaf files the source named, even when it fails.
  std::unique_ptr<Program> build(const std::optional<std::string>& text, const std::string& path,
                                 std::vector<Diagnostic>& diags, std::vector<LeafDef>& staged, BrainKind& kind,
                                 std::vector<std::string>* read = nullptr);
  // Installs staged leaves by name; returns their names.
  std::vector<std::string> commit_leaves(std::vector<LeafDef>& staged);
  // Marks which call sites need start/stop and points native call sites at their leaf
  // (after leaves change: `leaves` may have moved).
  void refresh_hooked();
  void register_native(LeafDef def);  // Runtime::register_leaf, both forms
  // Hot reload (SPEC 10): reload.cpp.
  void watch_brain(const Brain& b);
  size_t reload_changed();
  // The reload of these files (changed: new content; touched: same content, retries failed brains).
  size_t reload_paths(const std::vector<std::string>& changed, std::vector<std::string> touched);
  std::vector<ReloadReport>* reload_reports = nullptr;  // while a reload runs: where its outcomes go
  void report_reload(const std::string& file, bool ok, const std::vector<Diagnostic>& diags);
  bool reload_lua_file(const std::string& path);
  bool reload_brain(Brain& b, const std::string& changed);
  // "t=T tick K": the sim time and tick from which a reload done now takes effect.
  std::string reload_clock() const;
  std::optional<BrainHandle> load_checked(const std::optional<std::string>& text, const std::string& path,
                                          std::vector<Diagnostic>& diags);
  AgentHandle spawn(BrainHandle brain, const std::vector<std::pair<std::string, Value>>& bb);
  void despawn(AgentHandle agent);
  Status tick(uint32_t agent, double dt);
  void tick_all(double dt);  // every live agent, in index order
  std::vector<std::string> running_nodes(uint32_t agent) const;

  AgentInfo* agent_ptr(AgentHandle h) {
    if (h.index >= agents.size() || !agents[h.index].alive || agents[h.index].generation != h.generation) return nullptr;
    return &agents[h.index];
  }
  const AgentInfo* agent_ptr(AgentHandle h) const { return const_cast<RuntimeImpl*>(this)->agent_ptr(h); }
  uint8_t* block_of(const AgentInfo& a) { return brains[a.brain]->block(a.row); }
  Slot* slots_of(const AgentInfo& a) {
    Brain& b = *brains[a.brain];
    return reinterpret_cast<Slot*>(b.block(a.row) + b.program->bb_offset);
  }
  const Program& program_of(const AgentInfo& a) const { return *brains[a.brain]->program; }

  // Blackboard access from C++ (Value) with type checks.
  bool get_value(const AgentInfo& a, const std::string& key, Value& out);
  bool set_value(const AgentInfo& a, const std::string& key, const Value& v);

  void log(const std::string& line) const;

  RuntimeOptions options;
  StringTable strings;
  std::vector<LeafDef> leaves;
  std::map<std::string, uint32_t> leaf_ids;
  std::vector<std::unique_ptr<Brain>> brains;
  std::vector<AgentInfo> agents;
  std::vector<uint32_t> free_agents;
  uint32_t next_agent_id = 1;
  size_t live_agents = 0;
  std::unique_ptr<ScriptHost> script;  // Lua leaves (bindings/lua); made before the engine
  std::unique_ptr<Engine> engine;
  std::function<void(const TraceEvent&)> trace_sink;
  bool trace_ticks = true;  // deliver a Tick record per agent tick (false: events only)
  // The walk's shortcuts for common nodes (Program::ops); false sends every node through the
  // general path, which tests compare the shortcuts with.
  bool fast_ops = true;
  // tick_all ticks the agents of a batchable brain (Program::batchable) together
  // (Engine::tick_batch) when the brain has at least this many live agents, in batches of up to
  // Engine::kBatchMax; a last batch smaller than this goes one by one. Below ~24 agents the
  // batched walk is slower than one agent at a time on T31. 0: never batch (tests compare the
  // two walks).
  uint32_t batch_min = 32;
  struct BrainBatch {
    bool on = false;  // this tick_all batches the brain's agents
    uint32_t size = 0;
    Engine::BatchAgent agents[Engine::kBatchMax];
  };
  std::vector<BrainBatch> batches;  // tick_all's batch per brain
  bool any_batchable = false;       // some brain's program is batchable (refresh_hooked)
  std::unique_ptr<TraceSink> abort_tracer;
  std::unique_ptr<class FileWatcher> watcher;
  bool snapshot_drops_reported = false;  // a save left script values out, and said so (snapshot.cpp)
};

}  // namespace thicket
