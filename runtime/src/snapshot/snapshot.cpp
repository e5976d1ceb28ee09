// Runtime::save / restore (issue 15): snapshots of a runtime's agents.
//
// The bytes (all little-endian, thicket/snapshot.hpp):
//   "thksnap" 0x1a   magic (8 bytes)
//   u32 version      kFormatVersion; any other is refused, never guessed at
//   u8  kind         kWhole (Runtime::save) or kOneAgent (save(agent, ...))
//   u64 length       of the payload
//   payload
//   u64 checksum     of the payload (a corrupt byte is caught before anything is read)
// The payload:
//   u64 run seed (informative); u32 brain count, per brain: str path, u64 hash (of `thicket
//   dump`'s text), str name, u32 nodes, per node: str id, u8 kind, u8 flags, u16 count, u32
//   child per child; u32 keys, per key: str name, u8 type.
//   kWhole: u32 agent slots, u32 next id, u32 free slots + each; the call clock: u64 tick_all
//   calls, f64 epoch, u64 steps, f64 dt (RuntimeImpl's: which calls tick a sliced agent, and
//   the time it sees; a whole restore takes it over exactly).
//   u32 agents, per agent: [kWhole: u32 slot], u32 id, u32 brain, f64 time, f64 dt, f64 epoch,
//   u64 random state, u32 steps, u32 ticks, u32 stamp; its slicing: u32 tick_every, u8 ticked
//   since sliced, f64 born, f64 last (kWhole: on the call clock; kOneAgent: from the saving
//   runtime's call time, so a sliced agent's clock goes on in the runtime it joins); per node its status (u8) then per node
//   its state by kind (node_state_bytes); per key its value by type; the script side
//   (snapshot_plain.hpp).
//
// A restore reads and checks everything first (parse), building each agent's block for the
// brain loaded now, and only then replaces the agents (commit): a snapshot that fails leaves
// the runtime as it was. A saved brain is matched by its file path with a loaded one; its
// node table is rebuilt from the snapshot and remapped by node id (BrainRemap, as a hot reload
// does), which for an unchanged brain is a copy.
#include <algorithm>
#include <exception>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <istream>
#include <iterator>
#include <map>
#include <ostream>
#include <set>

#include "fnv1a.hpp"
#include "remap.hpp"
#include "runtime_impl.hpp"

namespace thicket {

namespace {

constexpr char kSnapshotMagic[8] = {'t', 'h', 'k', 's', 'n', 'a', 'p', 0x1a};
// 2: hierarchical fsm states and event queues (SPEC 4.1); 3: task journals; 4: the call clock and
// each agent's slicing (a tick_every agent restarted its clock and phase at a restore)
constexpr uint32_t kFormatVersion = 4;
constexpr uint8_t kWhole = 1, kOneAgent = 2;

}  // namespace

// The checksum eight bytes at a time (a 10,000-agent payload is a few MB).
uint64_t snapshot_checksum(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w = 0;
    for (int k = 0; k < 8; ++k) w |= uint64_t(static_cast<unsigned char>(s[i + k])) << (8 * k);
    h = Rng::mix(h ^ w);
  }
  uint64_t w = 0;
  for (int k = 0; i < s.size(); ++i, ++k) w |= uint64_t(static_cast<unsigned char>(s[i])) << (8 * k);
  return Rng::mix(h ^ w ^ 0xff);
}

namespace {

// A compiled brain's identity: the hash of `thicket dump`'s text of it (node kinds, ids,
// parameters, leaf args, blackboard), made once per Program.
uint64_t brain_hash(const Program& p) {
  if (!p.snapshot_hash) p.snapshot_hash = fnv1a(dump_program(p)) | 1;
  return p.snapshot_hash;
}

void put_u16(SnapshotWriter& out, uint16_t v) {
  out.u8(static_cast<uint8_t>(v & 0xFF));
  out.u8(static_cast<uint8_t>(v >> 8));
}
uint16_t get_u16(SnapshotReader& in) {
  uint16_t lo = in.u8();
  return static_cast<uint16_t>(lo | (in.u8() << 8));
}

// Values in a block by memcpy: a saved brain's layout comes from the snapshot, and a
// corrupt one may put a value at an offset its type would not be aligned to.
template <class T>
T load(const uint8_t* block, uint32_t offset) {
  T v;
  std::memcpy(&v, block + offset, sizeof v);
  return v;
}
template <class T>
T store(uint8_t* block, uint32_t offset, T v) {
  std::memcpy(block + offset, &v, sizeof v);
  return v;
}

// ---- saving ----

void write_brain(const Brain& b, SnapshotWriter& out) {
  const Program& p = *b.program;
  out.str(b.path);
  out.u64(brain_hash(p));
  out.str(p.name);
  out.u32(static_cast<uint32_t>(p.nodes.size()));
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    out.str(p.ids[i]);
    out.u8(static_cast<uint8_t>(n.kind));
    out.u8(n.flags);
    put_u16(out, n.count);
    for (uint16_t c = 0; c < n.count; ++c) out.u32(p.child(n, c));
  }
  out.u32(static_cast<uint32_t>(p.blackboard.size()));
  for (const auto& key : p.blackboard) {
    out.str(key.name);
    out.u8(static_cast<uint8_t>(key.type));
  }
}

void write_node_states(const Program& p, uint8_t* block, SnapshotWriter& out) {
  for (uint32_t i = 0; i < p.nodes.size(); ++i) out.u8(block[i]);
  for (const Node& n : p.nodes) {
    switch (n.kind) {
      case NodeKind::Sequence:
      case NodeKind::Selector:
      case NodeKind::ActiveSelector:
      case NodeKind::Filter: put_u16(out, load<uint16_t>(block, n.state)); break;
      case NodeKind::RandomSelector:
      case NodeKind::RandomSequence:
        for (uint32_t k = 0; k <= n.count; ++k) put_u16(out, load<uint16_t>(block, n.state + 2 * k));
        break;
      case NodeKind::Repeat:
      case NodeKind::Limit: out.u32(load<uint32_t>(block, n.state)); break;
      case NodeKind::Timeout:
      case NodeKind::Cooldown:
      case NodeKind::Wait: out.f64(load<double>(block, n.state)); break;
      case NodeKind::Machine:
        out.f64(load<double>(block, n.state));
        put_u16(out, load<uint16_t>(block, n.state + 8));
        out.u8(block[n.state + 10]);
        break;
      case NodeKind::Fsm: {
        const auto r = load<FsmRootState>(block, n.state);
        put_u16(out, r.active);
        out.u8(r.entered);
        out.u32(r.serial);
        break;
      }
      case NodeKind::State: {
        const auto x = load<FsmStateState>(block, n.state);
        out.f64(x.entered_at);
        out.u32(x.serial);
        put_u16(out, x.active);
        put_u16(out, x.history);
        break;
      }
      default: break;
    }
    if (n.flags & (kHolder | kObserved)) out.u32(load<uint32_t>(block, stamp_offset(n)));
  }
}

}  // namespace

// Everything save needs of the runtime's insides (a friend would do; a function keeps the
// public header free of them).
struct SnapshotSaver {
  RuntimeImpl& rt;
  SnapshotDrops drops;

  // origin: the call time its slicing's times are written from (one agent: the call time now).
  void agent(const AgentInfo& a, uint32_t brain, bool with_slot, uint32_t slot, SnapshotWriter& out,
             double origin = 0) {
    Brain& b = *rt.brains[a.brain];
    const Program& p = *b.program;
    uint8_t* block = b.block(a.row);
    if (with_slot) out.u32(slot);
    out.u32(a.id);
    out.u32(brain);
    out.f64(a.time);
    out.f64(a.dt);
    out.f64(a.epoch);
    out.u64(a.rng.state);
    out.u32(a.steps);
    out.u32(a.ticks);
    out.u32(a.stamp);
    const size_t index = static_cast<size_t>(&a - rt.agents.data());
    const AgentExtra x = index < rt.extras.size() ? rt.extras[index] : AgentExtra{};
    out.u32(x.every);
    out.u8(x.ticked ? 1 : 0);
    out.f64(x.born - origin);
    out.f64(x.last - origin);
    write_node_states(p, block, out);
    const Slot* slots = reinterpret_cast<const Slot*>(block + p.bb_offset);
    for (size_t k = 0; k < p.blackboard.size(); ++k) {
      switch (p.blackboard[k].type) {
        case ValueType::Number: out.f64(slots[k].num); break;
        case ValueType::Integer: out.i64(slots[k].i); break;
        case ValueType::Boolean: out.u8(slots[k].i != 0); break;
        case ValueType::String: out.str(rt.strings.get(slots[k].str)); break;
        case ValueType::Any: rt.script->save_any(a, slots[k].ref, out, drops); break;
      }
    }
    rt.script->save_agent(a, out, drops);
    // Its event queue (SPEC 4.1): names, and the state a runtime event is offered to first.
    static const std::vector<QueuedEvent> kEmpty;
    const std::vector<QueuedEvent>& q = index < rt.extras.size() ? rt.extras[index].events : kEmpty;
    out.u32(static_cast<uint32_t>(q.size()));
    for (const QueuedEvent& ev : q) {
      out.str(rt.strings.get(ev.name));
      out.str(ev.origin < p.fsm_states.size() ? p.fsm_states[ev.origin].name : std::string());
      out.u32(ev.serial);
    }
  }

  void call_clock(SnapshotWriter& out) const {
    out.u64(rt.calls);
    out.f64(rt.call_epoch);
    out.u64(rt.call_steps);
    out.f64(rt.call_dt);
  }

  // Wraps a payload: magic, version, kind, length, payload, checksum.
  static void envelope(uint8_t kind, const std::string& payload, SnapshotWriter& out) {
    out.raw(std::string_view(kSnapshotMagic, sizeof kSnapshotMagic));
    out.u32(kFormatVersion);
    out.u8(kind);
    out.u64(payload.size());
    out.raw(payload);
    out.u64(snapshot_checksum(payload));
  }

  // A save that cannot be exact (a running task's journal): the reason, and true.
  bool refused(std::vector<Diagnostic>& diagnostics) const {
    if (drops.refused.empty()) return false;
    diagnostics.push_back({Severity::Error, "", 0, 0, drops.refused});
    return true;
  }

  void report_drops() {
    if (!drops.count || rt.snapshot_drops_reported) return;
    rt.snapshot_drops_reported = true;  // once per runtime: checkpoints repeat it otherwise
    rt.log("warning: snapshot: " + std::to_string(drops.count) +
           " script value(s) that are not plain data were left out (first: " + drops.first +
           "); functions, userdata, coroutines, tables with metatables and cycles are not saved");
  }
};

void Runtime::save(SnapshotWriter& out) const {
  std::vector<Diagnostic> diagnostics;
  if (!save(out, diagnostics))
    for (const Diagnostic& d : diagnostics) impl_->log("error: snapshot not saved: " + d.message);
}

void Runtime::save(AgentHandle agent, SnapshotWriter& out) const {
  std::vector<Diagnostic> diagnostics;
  if (!save(agent, out, diagnostics))
    for (const Diagnostic& d : diagnostics) impl_->log("error: snapshot not saved: " + d.message);
}

bool Runtime::save(SnapshotWriter& out, std::vector<Diagnostic>& diagnostics) const {
  RuntimeImpl& rt = *impl_;
  // From a leaf, some agents would be saved as this tick left them and the rest as the last did.
  if (rt.refuse_mid_tick("save", "", &diagnostics)) return false;
  SnapshotSaver saver{rt, {}};
  SnapshotWriter payload;
  payload.u64(rt.options.seed);
  payload.u32(static_cast<uint32_t>(rt.brains.size()));
  for (const auto& b : rt.brains) write_brain(*b, payload);
  payload.u32(static_cast<uint32_t>(rt.agents.size()));
  payload.u32(rt.next_agent_id);
  payload.u32(static_cast<uint32_t>(rt.free_agents.size()));
  for (uint32_t f : rt.free_agents) payload.u32(f);
  saver.call_clock(payload);
  payload.u32(static_cast<uint32_t>(rt.live_agents));
  for (uint32_t i = 0; i < rt.agents.size(); ++i)
    if (rt.agents[i].alive) saver.agent(rt.agents[i], rt.agents[i].brain, true, i, payload);
  if (saver.refused(diagnostics)) return false;
  SnapshotSaver::envelope(kWhole, payload.bytes(), out);
  saver.report_drops();
  return true;
}

bool Runtime::save(AgentHandle agent, SnapshotWriter& out, std::vector<Diagnostic>& diagnostics) const {
  RuntimeImpl& rt = *impl_;
  if (rt.refuse_mid_tick("save", "", &diagnostics)) return false;
  const AgentInfo* a = rt.agent_ptr(agent);
  if (!a) {  // (it said yes and wrote nothing: a game wrote an empty save file)
    diagnostics.push_back({Severity::Error, "", 0, 0,
                           "the agent handle is stale (its agent was despawned, or the handle is from before a restore): "
                           "nothing saved"});
    return false;
  }
  SnapshotSaver saver{rt, {}};
  SnapshotWriter payload;
  payload.u64(rt.options.seed);
  payload.u32(1);
  write_brain(*rt.brains[a->brain], payload);
  payload.u32(1);
  saver.agent(*a, 0, false, 0, payload, rt.call_time());
  if (saver.refused(diagnostics)) return false;
  SnapshotSaver::envelope(kOneAgent, payload.bytes(), out);
  saver.report_drops();
  return true;
}

// ---- restoring ----

namespace {

// A saved brain: its node table rebuilt from the snapshot, and how it maps onto the brain of
// the same file loaded now.
struct SavedBrain {
  std::string path, name;
  uint64_t hash = 0;
  Program skeleton;  // nodes (kind, flags, count, children, state layout), ids, blackboard keys
  uint32_t target = kUnmapped;   // the loaded brain (kUnmapped: none of that path)
  BrainRemap remap;
  std::vector<uint32_t> key_to;  // saved key -> key of the loaded brain (kUnmapped: gone)
  // What restoring its agents would meet: said only when some agent has this brain (a brain
  // nobody uses need not be loaded).
  std::vector<std::string> errors;
  std::string note;
  bool used = false;
  uint64_t dropped_running = 0;  // running nodes of its agents that the edit removed
};

// One agent, read and checked, its block built for the loaded brain.
struct ParsedAgent {
  uint32_t slot = 0, id = 0, brain = 0;  // brain: index in the runtime
  AgentInfo clock;                       // time, dt, epoch, rng, steps, ticks, stamp
  uint32_t every = 1;                    // its slicing (AgentExtra), on the saved call clock
  bool ticked = false;
  double born = 0, last = 0;
  std::vector<uint8_t> block;            // the loaded program's layout
  std::vector<std::pair<uint32_t, std::string>> strings;  // string keys (interned at commit)
  std::vector<std::pair<uint32_t, PlainValue>> anys;      // `any` keys
  ScriptAgentState script;               // mem nodes mapped to the loaded program
  std::vector<uint32_t> restart;         // nodes to abort at commit (they cannot resume)
  struct Event {
    std::string name, origin;  // origin: the state's name ("" none)
    uint32_t serial = 0;
  };
  std::vector<Event> events;             // its queue, oldest first
};

struct Parsed {
  uint8_t kind = 0;
  std::vector<SavedBrain> brains;
  uint32_t slots = 0, next_id = 1;
  std::vector<uint32_t> free_slots;
  uint64_t calls = 0, call_steps = 0;  // the call clock (kWhole)
  double call_epoch = 0, call_dt = 0;
  double call_time() const { return call_epoch + static_cast<double>(call_steps) * call_dt; }
  std::vector<ParsedAgent> agents;
};

class SnapshotParser {
 public:
  SnapshotParser(RuntimeImpl& rt, std::vector<Diagnostic>& diags) : rt_(rt), diags_(diags) {}

  // Reads the envelope and the payload; false (with diagnostics) on any problem.
  bool parse(SnapshotReader& in, Parsed& out) {
    std::string_view magic = in.raw(sizeof kSnapshotMagic);
    if (!in.ok() || magic != std::string_view(kSnapshotMagic, sizeof kSnapshotMagic))
      return byte_error(in, "this is not a thicket snapshot (its first bytes are not thicket's snapshot mark)");
    uint32_t version = in.u32();
    if (in.ok() && version != kFormatVersion)
      return byte_error(in, "the snapshot has format version " + std::to_string(version) + "; this thicket reads version " +
                                std::to_string(kFormatVersion) + " only (restore it with the thicket that wrote it)");
    out.kind = in.u8();
    uint64_t length = in.u64();
    if (in.ok() && out.kind != kWhole && out.kind != kOneAgent)
      return byte_error(in, "the snapshot is of an unknown kind " + std::to_string(out.kind));
    if (in.ok() && length + 8 > in.remaining())
      return byte_error(in, "the snapshot is truncated: it announces " + std::to_string(length) +
                                " bytes of agents and an 8-byte checksum, and " + std::to_string(in.remaining()) +
                                " bytes are left");
    std::string_view payload = in.raw(static_cast<size_t>(length));
    uint64_t sum = in.u64();
    if (!in.ok()) return byte_error(in, in.error());
    if (sum != snapshot_checksum(payload))
      return byte_error(in, "the snapshot is damaged: its checksum does not match its contents");
    SnapshotReader body(payload);
    if (!parse_payload(body, out)) return false;
    if (body.ok() && !body.at_end()) body.fail("the snapshot has bytes past its last agent");
    if (!body.ok()) return byte_error(in, "the snapshot is corrupt: " + body.error());
    return true;
  }

 private:
  bool byte_error(SnapshotReader& in, const std::string& message) {
    in.fail(message);
    error(message);
    return false;
  }
  void error(const std::string& message) { diags_.push_back({Severity::Error, "", 0, 0, message}); }
  void note(const std::string& message) { diags_.push_back({Severity::Note, "", 0, 0, message}); }

  bool parse_payload(SnapshotReader& in, Parsed& out) {
    in.u64();  // the run seed: agents carry their own random streams
    uint32_t brains = in.u32();
    if (in.ok() && brains > in.remaining() / 16) in.fail("the brain count is larger than the snapshot");
    out.brains.reserve(std::min<uint32_t>(brains, 64));
    for (uint32_t b = 0; b < brains && in.ok(); ++b) {
      out.brains.emplace_back();
      read_brain(in, out.brains.back());
    }
    if (!in.ok()) return true;  // the caller reports the byte error
    match_brains(out.brains);
    uint32_t agents = 1;
    if (out.kind == kWhole) {
      out.slots = in.u32();
      out.next_id = in.u32();
      uint32_t free = in.u32();
      if (in.ok() && free > in.remaining() / 4) in.fail("the free slot count is larger than the snapshot");
      for (uint32_t f = 0; f < free && in.ok(); ++f) out.free_slots.push_back(in.u32());
      out.calls = in.u64();
      out.call_epoch = in.f64();
      out.call_steps = in.u64();
      out.call_dt = in.f64();
      if (in.ok() && (!std::isfinite(out.call_epoch) || !std::isfinite(out.call_dt) || out.call_dt < 0 ||
                      !std::isfinite(out.call_time())))
        in.fail("the call clock is not a time");
    }
    agents = in.u32();
    if (in.ok() && out.kind == kOneAgent && agents != 1) in.fail("a one-agent snapshot holds " + std::to_string(agents) + " agents");
    if (in.ok() && agents > in.remaining() / 40) in.fail("the agent count is larger than the snapshot");
    out.agents.reserve(in.ok() ? agents : 0);
    for (uint32_t k = 0; k < agents && in.ok(); ++k) {
      out.agents.emplace_back();
      read_agent(in, out, out.agents.back());
    }
    if (in.ok() && out.kind == kWhole) check_slots(in, out);
    if (!in.ok()) return true;  // the caller reports the byte error
    bool ok = true;
    for (const auto& sb : out.brains) {
      if (!sb.used) continue;
      for (const auto& e : sb.errors)
        if (!e.empty()) error(e);  // (an empty one: said with another brain)
      ok = ok && sb.errors.empty();
    }
    // How changed brains are remapped: only for a restore that goes ahead.
    if (ok)
      for (const auto& sb : out.brains)
        if (sb.used && !sb.note.empty())
          note(sb.note + (sb.dropped_running == 0 ? std::string()
                          : "; " + std::to_string(sb.dropped_running) +
                                " running node(s) it removed are dropped without their stop hooks (a restore has no "
                                "old version to call them on, as a hot reload has)"));
    return ok;
  }

  void read_brain(SnapshotReader& in, SavedBrain& b) {
    b.path = in.str();
    b.hash = in.u64();
    b.name = in.str();
    Program& p = b.skeleton;
    uint32_t nodes = in.u32();
    if (in.ok() && (nodes == 0 || nodes > in.remaining() / 8)) {
      in.fail("brain " + b.path + " has " + std::to_string(nodes) + " nodes");
      return;
    }
    p.nodes.reserve(in.ok() ? nodes : 0);
    for (uint32_t i = 0; i < nodes && in.ok(); ++i) {
      p.ids.push_back(in.str());
      Node n{};
      uint8_t kind = in.u8();
      n.flags = in.u8();
      n.count = get_u16(in);
      if (in.ok() && kind >= kKindCount) {
        in.fail("brain " + b.path + ": node " + std::to_string(i) + " has an unknown kind " + std::to_string(kind));
        return;
      }
      n.kind = static_cast<NodeKind>(kind);
      n.children = static_cast<uint32_t>(p.child_index.size());
      if (in.ok() && n.count > in.remaining() / 4) {
        in.fail("brain " + b.path + ": node " + std::to_string(i) + " claims more children than the snapshot holds");
        return;
      }
      for (uint16_t c = 0; c < n.count && in.ok(); ++c) {
        uint32_t child = in.u32();
        // Children come after their parent in depth-first order: no cycles, no self.
        if (in.ok() && (child <= i || child >= nodes)) {
          in.fail("brain " + b.path + ": node " + std::to_string(i) + " has a bad child " + std::to_string(child));
          return;
        }
        p.child_index.push_back(child);
      }
      p.nodes.push_back(n);
    }
    uint32_t keys = in.u32();
    if (in.ok() && keys > in.remaining() / 5) in.fail("brain " + b.path + " claims more blackboard keys than the snapshot holds");
    for (uint32_t k = 0; k < keys && in.ok(); ++k) {
      BlackboardKey key;
      key.name = in.str();
      uint8_t type = in.u8();
      if (in.ok() && type > static_cast<uint8_t>(ValueType::Any))
        in.fail("brain " + b.path + ": blackboard key '" + key.name + "' has an unknown type " + std::to_string(type));
      key.type = static_cast<ValueType>(type);
      p.blackboard.push_back(std::move(key));
    }
    if (in.ok()) layout_state(p);
    if (in.ok() && p.nodes[0].kind == NodeKind::Fsm) outline_states(in, b);
  }

  // An fsm's states (SPEC 4.1) as the skeleton's State nodes say: the k-th State node in
  // depth-first order is state k, its parent the State node (or the Fsm root) holding it.
  static void outline_states(SnapshotReader& in, SavedBrain& b) {
    Program& p = b.skeleton;
    std::vector<uint16_t> index_of(p.nodes.size(), kNoPos);
    for (uint32_t i = 0; i < p.nodes.size(); ++i) {
      if (p.nodes[i].kind != NodeKind::State) continue;
      if (p.fsm_states.size() >= kNoPos - 1) return in.fail("brain " + b.path + " has too many states");
      index_of[i] = static_cast<uint16_t>(p.fsm_states.size());
      p.nodes[i].a = index_of[i];
      FsmState st;
      st.node = i;
      st.name = p.ids[i];
      p.fsm_states.push_back(std::move(st));
    }
    for (uint32_t i = 0; i < p.nodes.size(); ++i) {
      const Node& n = p.nodes[i];
      if (n.kind != NodeKind::State && n.kind != NodeKind::Fsm) continue;
      for (uint16_t c = 0; c < n.count; ++c) {
        const uint32_t child = p.child(n, c);
        if (p.nodes[child].kind != NodeKind::State) continue;
        FsmState& cs = p.fsm_states[index_of[child]];
        cs.parent = index_of[i];
        if (n.kind == NodeKind::Fsm) p.fsm_top.push_back(index_of[child]);
        else p.fsm_states[index_of[i]].children.push_back(index_of[child]);
      }
    }
  }

  // Each saved brain goes to the loaded brain of the same file (the n-th of a path to the
  // n-th loaded from it), remapped by node id; the blackboard by key name.
  void match_brains(std::vector<SavedBrain>& saved) {
    // One file under two spellings (mix.yaml, ./mix.yaml, its absolute path) is one file. A
    // spelling is resolved once per working folder for the runtime's life (RuntimeImpl::path_keys).
    std::error_code cwd_error;
    const std::string cwd = std::filesystem::current_path(cwd_error).string() + '\n';  // (a path holds no '\n' here)
    std::map<std::string, std::string>& keys = rt_.path_keys;
    auto file_key = [&keys, &cwd](const std::string& path) -> const std::string& {
      auto [it, fresh] = keys.try_emplace(cwd + path);
      if (fresh) {
        std::error_code ec;
        const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
        it->second = ec ? std::filesystem::path(path).lexically_normal().string() : p.string();
      }
      return it->second;
    };
    std::map<std::string, std::vector<uint32_t>> loaded;
    for (uint32_t i = 0; i < rt_.brains.size(); ++i) loaded[file_key(rt_.brains[i]->path)].push_back(i);
    std::map<std::string, size_t> used;
    auto saved_key = [&](const std::string& path) -> std::string {  // through restore_paths
      const auto alias = rt_.restore_paths.find(path);
      return file_key(alias != rt_.restore_paths.end() ? alias->second : path);
    };
    for (auto& sb : saved) {
      const std::string key = saved_key(sb.path);
      auto it = loaded.find(key);
      size_t nth = used[key]++;
      sb.key_to.assign(sb.skeleton.blackboard.size(), kUnmapped);
      if (it != loaded.end() && nth >= it->second.size()) {
        // The file is loaded, fewer times than the snapshot's runtime had loaded it.
        const size_t wanted = static_cast<size_t>(std::count_if(saved.begin(), saved.end(), [&](const SavedBrain& other) {
          return saved_key(other.path) == key;
        }));
        if (nth == it->second.size())  // said once, at the first brain past those loaded
          sb.errors.push_back("the snapshot has " + std::to_string(wanted) + " brains loaded from " + sb.path +
                              ", and this runtime loaded it " + std::to_string(it->second.size()) +
                              " time(s): load it as many times before restoring (each load is a brain of its own)");
        else
          sb.errors.push_back("");
        continue;
      }
      if (it == loaded.end()) {
        std::string have;
        for (const auto& b : rt_.brains) have += (have.empty() ? "" : ", ") + b->path;
        sb.errors.push_back("the snapshot's brain " + sb.path + " (" + sb.name +
                            ") is not loaded in this runtime: load it before restoring (loaded: " +
                            (have.empty() ? std::string("none") : have) + ")");
        continue;
      }
      const Program& p = *rt_.brains[it->second[nth]]->program;
      // A brain's kind cannot change under its agents (a hot reload refuses it too): the root
      // of an fsm is its Fsm node, of a machine brain its Machine node.
      auto kind_of = [](const Program& q) {
        if (q.nodes.empty()) return BrainKind::Tree;
        return q.nodes[0].kind == NodeKind::Fsm ? BrainKind::Fsm : q.nodes[0].kind == NodeKind::Machine ? BrainKind::Machine : BrainKind::Tree;
      };
      if (kind_of(sb.skeleton) != kind_of(p)) {
        sb.errors.push_back("brain " + sb.path + " is " + (kind_of(p) == BrainKind::Fsm ? "an " : "a ") + brain_kind_name(kind_of(p)) +
                            " now and was " + (kind_of(sb.skeleton) == BrainKind::Fsm ? "an " : "a ") +
                            brain_kind_name(kind_of(sb.skeleton)) + " in the snapshot; its agents cannot change kinds " +
                            "(as a hot reload refuses it): restore with the brain as it was, or start the run afresh");
        continue;  // no target: its agents are read as a brain not loaded (the restore fails)
      }
      sb.target = it->second[nth];
      sb.remap = BrainRemap::make(sb.skeleton, p, false);
      for (size_t j = 0; j < sb.skeleton.blackboard.size(); ++j)
        for (size_t k = 0; k < p.blackboard.size(); ++k) {
          const BlackboardKey& was = sb.skeleton.blackboard[j];
          if (p.blackboard[k].name != was.name) continue;
          if (p.blackboard[k].type != was.type) {
            sb.errors.push_back("brain " + sb.path + ": blackboard key '" + was.name + "' is " +
                                std::string(value_type_name(p.blackboard[k].type)) + " now and was " +
                                std::string(value_type_name(was.type)) + " in the snapshot; the saved agents hold " +
                                std::string(value_type_name(was.type)) + " values");
            continue;
          }
          sb.key_to[j] = static_cast<uint32_t>(k);
        }
      if (sb.hash != brain_hash(p)) {
        const size_t added = p.nodes.size() - sb.remap.kept, removed = sb.skeleton.nodes.size() - sb.remap.kept;
        sb.note = ("brain " + sb.path + " changed since the snapshot: its agents are remapped by node id as a hot reload would: " +
             std::to_string(sb.remap.kept) + " nodes kept, " + std::to_string(added) + " added, " + std::to_string(removed) +
             " removed");
      }
    }
  }

  // Node statuses and state as saved, into a block laid out as the saved brain was; values
  // the tick loop would follow (positions, orders, current states) are checked.
  void read_node_states(SnapshotReader& in, const Program& p, uint8_t* block) {
    for (uint32_t i = 0; i < p.nodes.size(); ++i) {
      uint8_t s = in.u8();
      if (s > static_cast<uint8_t>(Status::Aborted)) in.fail("a node status is " + std::to_string(s));
      block[i] = s;
    }
    for (uint32_t i = 0; i < p.nodes.size() && in.ok(); ++i) {
      const Node& n = p.nodes[i];
      const bool running = block[i] == static_cast<uint8_t>(Status::Running);
      auto bad = [&](const char* what) { in.fail("node " + std::to_string(i) + " (" + p.ids[i] + ") has a bad " + what); };
      switch (n.kind) {
        case NodeKind::Sequence:
        case NodeKind::Selector:
        case NodeKind::Filter: {
          uint16_t pos = store<uint16_t>(block, n.state, get_u16(in));
          if (running && pos >= n.count) bad("running child");
          break;
        }
        case NodeKind::ActiveSelector: {
          uint16_t last = store<uint16_t>(block, n.state, get_u16(in));
          if (running && last != kNoPos && last >= n.count) bad("running child");
          break;
        }
        case NodeKind::RandomSelector:
        case NodeKind::RandomSequence: {
          uint16_t pos = store<uint16_t>(block, n.state, get_u16(in));
          if (running && pos >= n.count) bad("running child");
          std::vector<bool> seen(n.count, false);
          for (uint32_t k = 0; k < n.count; ++k) {
            uint16_t c = store<uint16_t>(block, n.state + 2 + 2 * k, get_u16(in));
            if (in.ok() && (c >= n.count || (running && seen[c]))) bad("drawn order");
            if (c < n.count) seen[c] = true;
          }
          break;
        }
        case NodeKind::Repeat:
        case NodeKind::Limit: store<uint32_t>(block, n.state, in.u32()); break;
        case NodeKind::Timeout:
        case NodeKind::Cooldown:
        case NodeKind::Wait: store<double>(block, n.state, in.f64()); break;
        case NodeKind::Machine: {
          store<double>(block, n.state, in.f64());
          uint16_t cur = store<uint16_t>(block, n.state + 8, get_u16(in));
          uint8_t active = block[n.state + 10] = in.u8();
          if (running && ((cur != kNoPos && 2u * cur + 1 >= n.count) || active > 1 || (active && cur == kNoPos)))
            bad("current behavior");
          break;
        }
        case NodeKind::Fsm: {
          // Copied, not referenced in place: a damaged snapshot's flags can lay a record out
          // unaligned (this reads what the file says, checked below).
          auto r = load<FsmRootState>(block, n.state);
          r.active = get_u16(in);
          r.entered = in.u8();
          r.serial = in.u32();
          store<FsmRootState>(block, n.state, r);
          if (running && ((r.active != kNoPos && r.active >= p.fsm_states.size()) || r.entered > 3)) bad("active state");
          break;
        }
        case NodeKind::State: {
          auto x = load<FsmStateState>(block, n.state);
          x.entered_at = in.f64();
          x.serial = in.u32();
          x.active = get_u16(in);
          x.history = get_u16(in);
          store<FsmStateState>(block, n.state, x);
          const FsmState* st = n.a < p.fsm_states.size() ? &p.fsm_states[n.a] : nullptr;
          auto child = [&](uint16_t c) {
            return c == kNoPos || (st && std::find(st->children.begin(), st->children.end(), c) != st->children.end());
          };
          if (!child(x.active)) bad("active child state");
          if (!child(x.history)) bad("history state");
          break;
        }
        default: break;
      }
      if (n.flags & (kHolder | kObserved)) store<uint32_t>(block, stamp_offset(n), in.u32());
    }
  }

  void read_agent(SnapshotReader& in, Parsed& parsed, ParsedAgent& a) {
    if (parsed.kind == kWhole) a.slot = in.u32();
    a.id = in.u32();
    uint32_t brain = in.u32();
    a.clock.time = in.f64();
    a.clock.dt = in.f64();
    a.clock.epoch = in.f64();
    a.clock.rng.state = in.u64();
    a.clock.steps = in.u32();
    a.clock.ticks = in.u32();
    a.clock.stamp = in.u32();
    a.every = in.u32();
    a.ticked = in.u8() != 0;
    a.born = in.f64();
    a.last = in.f64();
    if (in.ok() && (a.every == 0 || !std::isfinite(a.born) || !std::isfinite(a.last)))
      in.fail("agent " + std::to_string(a.id) + "'s slicing is not a tick_every and two times");
    if (!in.ok()) return;
    if (brain >= parsed.brains.size() || a.id == 0) {
      in.fail("agent " + std::to_string(a.id) + " names brain " + std::to_string(brain) + " of " +
              std::to_string(parsed.brains.size()));
      return;
    }
    SavedBrain& sb = parsed.brains[brain];
    sb.used = true;
    a.brain = sb.target;
    const Program& old = sb.skeleton;
    // A brain that is not loaded: the agent is read (the bytes are checked) and the restore
    // fails after the parse, naming the brain.
    static const Program kNone;
    const bool loaded = sb.target != kUnmapped;
    const Program& p = loaded ? *rt_.brains[sb.target]->program : kNone;
    saved_block_.assign(old.block_size, 0);
    read_node_states(in, old, saved_block_.data());
    a.block.resize(p.block_size);
    if (loaded) Engine::init_block(p, a.block.data(), nullptr);
    for (size_t j = 0; j < old.blackboard.size() && in.ok(); ++j) {
      const uint32_t k = sb.key_to[j];
      Slot* slot = k == kUnmapped ? nullptr : reinterpret_cast<Slot*>(a.block.data() + p.bb_offset + 8 * k);
      switch (old.blackboard[j].type) {
        case ValueType::Number: {
          double v = in.f64();
          if (slot) slot->num = v;
          break;
        }
        case ValueType::Integer: {
          int64_t v = in.i64();
          if (slot) slot->i = v;
          break;
        }
        case ValueType::Boolean: {
          uint8_t v = in.u8();
          if (v > 1) in.fail("blackboard key '" + old.blackboard[j].name + "' holds a boolean " + std::to_string(v));
          if (slot) slot->i = v;
          break;
        }
        case ValueType::String: {
          std::string v = in.str();
          if (slot) a.strings.emplace_back(k, std::move(v));
          break;
        }
        case ValueType::Any: {
          PlainValue v;
          read_plain(in, v);
          if (slot) a.anys.emplace_back(k, std::move(v));
          break;
        }
      }
    }
    read_script_state(in, a.script, static_cast<uint32_t>(old.nodes.size()));
    const uint32_t queued = in.u32();
    if (in.ok() && (queued > kMaxQueuedEvents || queued > in.remaining() / 12)) in.fail("agent " + std::to_string(a.id) + " has " + std::to_string(queued) + " queued events");
    for (uint32_t k = 0; k < queued && in.ok(); ++k) {
      ParsedAgent::Event ev;
      ev.name = in.str();
      ev.origin = in.str();
      ev.serial = in.u32();
      if (in.ok() && ev.name.empty()) in.fail("agent " + std::to_string(a.id) + " has an event without a name");
      a.events.push_back(std::move(ev));
    }
    if (!in.ok() || !loaded) return;
    for (uint32_t i : sb.remap.removed) sb.dropped_running += saved_block_[i] == static_cast<uint8_t>(Status::Running);
    // Onto the loaded brain: kept nodes keep status and state, positions follow their child.
    sb.remap.copy(saved_block_.data(), a.block.data());
    sb.remap.mend(old, p, a.block.data(), a.restart);
    auto& mem = a.script.mem;
    mem.erase(std::remove_if(mem.begin(), mem.end(), [&](ScriptAgentState::Mem& m) {
                m.node = sb.remap.to_new[m.node];
                return m.node == kUnmapped;
              }),
              mem.end());
  }

  void check_slots(SnapshotReader& in, const Parsed& out) {
    if (out.agents.size() + out.free_slots.size() != out.slots) {
      in.fail("the snapshot's agent slots do not add up (" + std::to_string(out.agents.size()) + " agents, " +
              std::to_string(out.free_slots.size()) + " free, " + std::to_string(out.slots) + " slots)");
      return;
    }
    std::vector<bool> used(out.slots, false);
    std::set<uint32_t> ids;
    auto take = [&](uint32_t slot) {
      if (slot >= out.slots || used[slot]) return false;
      used[slot] = true;
      return true;
    };
    for (const auto& a : out.agents)
      if (!take(a.slot) || !ids.insert(a.id).second || a.id >= out.next_id) {
        in.fail("agent " + std::to_string(a.id) + " has a bad slot or a repeated id");
        return;
      }
    for (uint32_t f : out.free_slots)
      if (!take(f)) {
        in.fail("the snapshot's free agent slots are bad");
        return;
      }
  }

  RuntimeImpl& rt_;
  std::vector<Diagnostic>& diags_;
  std::vector<uint8_t> saved_block_;  // reused per agent
};

// Makes a parsed agent live in slot `index` (agents[index] is free and sized).
// `moved`: the time to add to its slicing's times (restore_agent: this runtime's call time, as
// they were written from the saving one's; a whole restore takes the clock over, 0).
AgentHandle install_agent(RuntimeImpl& rt, uint32_t index, ParsedAgent& pa, double moved) {
  AgentInfo& a = rt.agents[index];
  uint32_t generation = a.generation;
  a = pa.clock;
  a.generation = generation;
  a.id = pa.id;
  a.brain = static_cast<uint16_t>(pa.brain);
  a.alive = true;
  a.lane = rt.lane_for(a.id);
  a.resume_leaf = kNoNode;  // the next tick walks the tree (the same calls as a resume)
  Brain& b = *rt.brains[pa.brain];
  a.row = b.take_row(index);
  rt.by_id[a.id] = index;
  rt.reset_extra(index, *b.program);
  // Its slicing as saved (tick_every is the agent's, as at a reload), its clock from this one's.
  AgentExtra& x = rt.extras[index];
  rt.sliced_agents -= x.sliced;
  x.every = pa.every;
  x.sliced = x.every > 1;
  rt.sliced_agents += x.sliced;
  x.ticked = pa.ticked;
  x.born = pa.born + moved;
  x.last = pa.last + moved;
  for (const auto& ev : pa.events) {
    QueuedEvent q;
    q.name = rt.strings.intern(ev.name);
    q.serial = ev.serial;
    if (!ev.origin.empty()) {
      const auto& states = b.program->fsm_states;
      auto it = std::find_if(states.begin(), states.end(), [&](const FsmState& s) { return s.name == ev.origin; });
      if (it == states.end()) {  // its state is gone: dropped now, and traced, as a hot reload drops it
        if (rt.trace_sink) {
          TraceEvent t;
          t.type = TraceEvent::Type::Event;
          t.tick = a.ticks;
          t.agent = a.id;
          t.brain = b.program->name;
          t.event = ev.name;
          t.stale = true;
          t.reload = true;
          t.from_name = ev.origin;
          rt.emit_trace(t);
        }
        continue;
      }
      q.origin = static_cast<uint16_t>(it - states.begin());
    }
    rt.extras[index].events.push_back(q);
    if (!RuntimeImpl::takes_events(*b.program)) ++rt.pending_events;
  }
  uint8_t* block = b.block(a.row);
  std::memcpy(block, pa.block.data(), pa.block.size());
  Slot* slots = reinterpret_cast<Slot*>(block + b.program->bb_offset);
  for (auto& [k, text] : pa.strings) slots[k].str = rt.strings.intern(text);
  for (auto& [k, value] : pa.anys) slots[k].ref = rt.script->any_from_plain(a, value);
  rt.script->create_agent(a);
  rt.script->restore_agent(a, pa.script);
  ++rt.live_agents;
  ++rt.layout_version;
  return AgentHandle{index, a.generation};
}

// The nodes of the installed agents that cannot resume where they were (a changed brain's),
// stopped once every agent is in: a stop hook that throws stops neither the others nor the
// restore (it was thrown halfway through installing, the runtime left with some agents and a
// count that disagreed). The first exception comes out at the end (Engine::abort's rule).
void abort_restarted(RuntimeImpl& rt, std::vector<std::pair<uint32_t, ParsedAgent*>>& installed, std::exception_ptr& first) {
  for (auto& [index, pa] : installed) {
    AgentInfo& a = rt.agents[index];
    Brain& b = *rt.brains[a.brain];
    // Outer nodes first (depth-first order): what runs below an aborted node is aborted with it.
    for (uint32_t i : pa->restart) try {
        rt.engine->abort_node(*b.program, a, b.block(a.row), i);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
  }
}

}  // namespace

bool Runtime::restore(SnapshotReader& in, std::vector<Diagnostic>& diagnostics) {
  RuntimeImpl& rt = *impl_;
  if (rt.refuse_mid_tick("restore", "", &diagnostics)) return false;
  CLocaleScope c_numbers(rt.scripts_loaded);  // the stop hooks of nodes a changed brain restarts
  Parsed parsed;
  SnapshotParser parser(rt, diagnostics);
  if (!parser.parse(in, parsed)) return false;
  if (parsed.kind != kWhole) {
    diagnostics.push_back({Severity::Error, "", 0, 0, "this is a snapshot of one agent: add it with restore_agent"});
    return false;
  }
  // Commit: the agents there are go as they are (no stop hooks, no task cleanups: their world
  // is being replaced too); then the snapshot's, in their slots.
  for (auto& a : rt.agents)
    if (a.alive) {
      rt.script->destroy_agent(a);
      a.alive = false;
    }
  for (auto& b : rt.brains) {
    b->storage.clear();
    b->row_agent.clear();
    b->free_rows.clear();
  }
  rt.agents.resize(parsed.slots);
  rt.extras.assign(parsed.slots, AgentExtra{});
  rt.by_id.clear();
  rt.sliced_agents = 0;
  rt.pending_events = 0;
  for (auto& a : rt.agents) ++a.generation;  // handles from before the restore are stale
  rt.free_agents = parsed.free_slots;
  rt.next_agent_id = parsed.next_id;
  rt.calls = parsed.calls;  // which calls tick each sliced agent, and the time they see
  rt.call_epoch = parsed.call_epoch;
  rt.call_steps = parsed.call_steps;
  rt.call_dt = parsed.call_dt;
  rt.live_agents = 0;
  bool outer;
  std::exception_ptr thrown;
  {
    HookScope hooks(rt.ticking);  // the stop hooks of restarted nodes: their calls wait for the end
    outer = hooks.outer();
    std::vector<std::pair<uint32_t, ParsedAgent*>> installed;
    for (auto& pa : parsed.agents) {
      install_agent(rt, pa.slot, pa, 0);
      installed.emplace_back(pa.slot, &pa);
    }
    abort_restarted(rt, installed, thrown);
  }
  if (outer) rt.run_hook_calls();
  if (thrown) std::rethrow_exception(thrown);
  return true;
}

std::optional<AgentHandle> Runtime::restore_agent(SnapshotReader& in, std::vector<Diagnostic>& diagnostics) {
  RuntimeImpl& rt = *impl_;
  if (rt.refuse_mid_tick("restore_agent", "", &diagnostics)) return std::nullopt;
  CLocaleScope c_numbers(rt.scripts_loaded);
  Parsed parsed;
  SnapshotParser parser(rt, diagnostics);
  if (!parser.parse(in, parsed)) return std::nullopt;
  if (parsed.kind != kOneAgent) {
    diagnostics.push_back({Severity::Error, "", 0, 0, "this is a snapshot of a whole runtime: restore it with restore"});
    return std::nullopt;
  }
  ParsedAgent& pa = parsed.agents.front();
  if (rt.find_index(pa.id)) {
    diagnostics.push_back({Severity::Error, "", 0, 0,
                           "agent " + std::to_string(pa.id) + " of the snapshot is alive in this runtime already"});
    return std::nullopt;
  }
  uint32_t index;
  if (!rt.free_agents.empty()) {
    index = rt.free_agents.back();
    rt.free_agents.pop_back();
  } else {
    index = static_cast<uint32_t>(rt.agents.size());
    rt.agents.emplace_back();
  }
  rt.next_agent_id = std::max(rt.next_agent_id, pa.id + 1);
  AgentHandle made;
  bool outer;
  std::exception_ptr thrown;
  {
    HookScope hooks(rt.ticking);
    outer = hooks.outer();
    made = install_agent(rt, index, pa, rt.call_time());
    std::vector<std::pair<uint32_t, ParsedAgent*>> installed{{index, &pa}};
    abort_restarted(rt, installed, thrown);
  }
  if (outer) rt.run_hook_calls();
  if (thrown) std::rethrow_exception(thrown);
  return made;
}

bool Runtime::save(std::ostream& out) const {
  SnapshotWriter w;
  std::vector<Diagnostic> diagnostics;
  if (!save(w, diagnostics)) {
    for (const Diagnostic& d : diagnostics) impl_->log("error: snapshot not saved: " + d.message);
    return false;
  }
  out.write(w.bytes().data(), static_cast<std::streamsize>(w.bytes().size()));
  return static_cast<bool>(out);
}

std::string snapshot_extra_bytes(std::string_view bytes) {
  SnapshotReader in(bytes);
  in.raw(sizeof kSnapshotMagic);
  in.u32();  // version
  in.u8();   // kind
  const uint64_t length = in.u64();
  if (!in.ok() || length > in.remaining() || in.remaining() - length <= 8) return "";
  const uint64_t size = in.offset() + length + 8;
  return "the bytes go on past the snapshot: it is " + std::to_string(size) + " bytes long and " +
         std::to_string(bytes.size()) + " were given (a wrong length, or two snapshots joined?)";
}

bool Runtime::restore(std::istream& in, std::vector<Diagnostic>& diagnostics) {
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    diagnostics.push_back({Severity::Error, "", 0, 0, "the snapshot could not be read"});
    return false;
  }
  // The stream is one snapshot, whole: bytes after it are refused before anything changes.
  if (std::string extra = snapshot_extra_bytes(bytes); !extra.empty()) {
    diagnostics.push_back({Severity::Error, "", 0, 0, std::move(extra)});
    return false;
  }
  SnapshotReader r(bytes);
  return restore(r, diagnostics);
}

}  // namespace thicket
