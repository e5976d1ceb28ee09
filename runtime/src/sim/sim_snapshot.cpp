// Checkpoints of a scenario run (issue 15): Simulation::save / restore. The file:
//
//   "THKTSIM\n"  magic, 8 bytes
//   u32          format version (kFormat); another version is refused, never misread
//   u64          body length        } truncation and flipped bytes are caught here, before
//   u32          CRC-32 of the body } anything is parsed or any output file is opened
//   body:        thicket version, scenario file + content hash, seed, dt, tick, threads,
//                agents, the groups' brain files + content hashes (the header, SnapshotInfo);
//                then metrics and gauge statistics, agent-ticks and script errors so far, the
//                agents (alive, wander state and stream, its time-sliced path search if one is
//                in progress, noise counter), the world's entity slots, perception, the
//                recorder's pending events, and the agents' brains (Runtime snapshots, per
//                worker). From format 4, between the agents and the world: the damage and
//                signals the stop hooks of the tick's dead made, which land with the next
//                tick's effects (u32 count; each u32 source, seq, target, u8 kind, f64 amount,
//                str key, a value: u8 tag 0 none 1 bool 2 number 3 integer 4 text, then it).
//                From format 6, after the script errors so far: the book of which leaf errors
//                were printed (ScriptErrorBook: u32 count, each str brain, u32 node, str
//                message, u64 times; u32 count, each str brain, u32 node, u32 printed), so a
//                resumed run prints the errors the uninterrupted run would, no repeats again.
//                From format 7, after it: the warnings said (u32 count, each str brain, u32
//                node, str key), which are said once. From format 8, in the header after the
//                groups' brains: u64 the map's content hash (0: none), u32 count and a u64 each:
//                the content hashes of the Lua files the brains read, sorted (format 7 is
//                still read: it has neither, and a resume of it checks neither). From format
//                9: a metric's gauge flag is 2 for a counter reported at least once (its total
//                may be 0), and after the warnings said, the refused effects' messages said so
//                far (u32 count, each str key, u32 times), so a resumed run says no more of them
//                than the uninterrupted one (formats 7 and 8 are still read: a counter is one
//                with a total, the effects' messages start their count again).
//   an agent:    u8 alive, u32 entity, f64 x2 wander target, u64 wander stream, u8 searching;
//                if searching (agent:path_to with a budget, not done): f64 x4 from and goal,
//                u8 algorithm, u8 smooth, u32 zones + f64 x4 each (the call's own danger
//                zones: centre, radius, cost), u64 nodes expanded so far; then u64 the tick
//                the search was last stepped in, u64 noise tick, u32 noises, u8 sensed.
//
// Little-endian fixed-width throughout (SnapshotWriter). What is not saved, and why:
// - the spatial hash, perception's indexes, forces: rebuilt at the start of every tick;
// - a search's open and closed lists (thousands of nodes): a grid search's state depends only
//   on what it was started with and how many nodes it has expanded in all, whatever the
//   budgets of its steps, and on the map, the world's danger zones and terrain costs, which a
//   run never changes (they are the scenario's). Restore starts it again from the saved start
//   and expands as many nodes: its next step is exactly the uninterrupted run's.
// - bounds, obstacles, maps, navmesh: from the scenario, whose content hash must match.
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fnv1a.hpp"
#include "runtime_impl.hpp"
#include "sim_internal.hpp"
#include "thicket/snapshot.hpp"
#include "thicket/version.hpp"
#include "world/world_snapshot.hpp"

namespace thicket {

namespace {

constexpr char kCheckpointMagic[8] = {'T', 'H', 'K', 'T', 'S', 'I', 'M', '\n'};
// 2: perception-event state per agent, runtime snapshots of format 2; 3: path searches in
// progress; 4: the stop hooks' pending damage and signals; 5: runtime snapshots of format 4
// (each agent's slicing: a tick_every brain's clock restarted at a resume); 6: the script error
// book; 7: the warnings said, in the book; 8: the map's and the Lua files' content hashes
constexpr uint32_t kFormat = 9;
constexpr uint32_t kOldestFormat = 7;  // read too: the same but for the header's hashes of format 8
constexpr size_t kPrefix = 8 + 4 + 8 + 4;  // magic, format, body length, CRC

uint64_t file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  std::ostringstream text;
  text << in.rdbuf();
  return fnv1a(text.str());
}

// The content hashes of the Lua files the brains read (leaf files, required modules): sorted,
// so that a resume from another folder (other paths, the same files) compares them as equal.
std::vector<std::pair<uint64_t, std::string>> lua_files(const Simulation::Impl& s) {
  std::vector<std::pair<uint64_t, std::string>> files;
  if (!s.workers.empty())
    for (const std::string& path : s.workers[0]->rt->impl().lua_files_read()) files.emplace_back(file_hash(path), path);
  std::sort(files.begin(), files.end());
  return files;
}
std::vector<uint64_t> lua_hashes(const Simulation::Impl& s) {
  std::vector<uint64_t> hashes;
  for (const auto& [hash, path] : lua_files(s)) hashes.push_back(hash);
  return hashes;
}
// A resume whose Lua files are not the saving run's is allowed (a leaf fixed between the two
// halves), as a changed brain is, and said: the run is no longer the uninterrupted one.
void note_edited_lua(const Simulation::Impl& s, const std::vector<uint64_t>& saved, const std::string& name,
                     std::vector<Diagnostic>& diags) {
  std::multiset<uint64_t> left(saved.begin(), saved.end());
  std::vector<std::string> edited;
  for (const auto& [hash, path] : lua_files(s)) {
    auto at = left.find(hash);
    if (at != left.end()) left.erase(at);
    else edited.push_back(path);
  }
  if (edited.empty() && left.empty()) return;
  std::string what;
  for (size_t k = 0; k < edited.size() && k < 5; ++k) what += (k ? ", " : "") + edited[k];
  if (edited.size() > 5) what += ", ...";
  diags.push_back({Severity::Note, name, 0, 0,
                   (edited.empty() ? std::string("the brains read fewer Lua files than when it was saved")
                                   : std::string(edited.size() == 1 ? "Lua file " : "Lua files ") + what +
                                         (edited.size() == 1 ? " was edited since the checkpoint (or is new)" : " were edited since the checkpoint (or are new)")) +
                       ": the resumed run calls the leaves as they are now, so it is not the run the saving one would have "
                       "gone on to"});
}

uint32_t crc_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes lengths as uInt: feed it in pieces below 4 GiB.
  for (size_t at = 0; at < bytes.size(); at += 1u << 30) {
    size_t n = std::min<size_t>(bytes.size() - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

void put_raw_u32(std::string& out, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) out[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
}
void put_raw_u64(std::string& out, size_t at, uint64_t v) {
  for (int k = 0; k < 8; ++k) out[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
}
uint64_t raw_u(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= uint64_t(static_cast<unsigned char>(in[at + k])) << (8 * k);
  return v;
}

// An agent's time-sliced path search in progress (agent:path_to with a budget, in
// bindings/lua/world/lua_world.cpp: it holds one between calls only while it runs): what it
// was started with and the nodes it has expanded. See the file's comment.
void save_search(const Simulation::Impl& s, const SimAgent& a, SnapshotWriter& out) {
  const nav::PathRequest* request = a.pending_path >= 0 ? s.workers[a.worker]->path_pool[a.pending_path].get() : nullptr;
  if (!request || request->state() != nav::SearchState::Running) {
    out.u8(0);
    return;
  }
  out.u8(1);
  const nav::PathOptions o = request->options();
  out.f64(request->from().x);
  out.f64(request->from().y);
  out.f64(request->to().x);
  out.f64(request->to().y);
  out.u8(static_cast<uint8_t>(o.algorithm));
  out.u8(o.smooth ? 1 : 0);
  out.u32(static_cast<uint32_t>(o.danger.size()));
  for (const nav::DangerZone& z : o.danger) {
    out.f64(z.centre.x);
    out.f64(z.centre.y);
    out.f64(z.radius);
    out.f64(z.cost);
  }
  out.u64(request->expanded());
}

// The damage and signals the stop hooks of the last tick's dead made: in the workers' lists
// until the next tick's gather_effects (their order there is by source and seq, whatever the
// worker holds them).
void save_pending_effects(const Simulation::Impl& s, SnapshotWriter& out) {
  uint32_t n = 0;
  for (const auto& w : s.workers) n += static_cast<uint32_t>(w->effects.size());
  out.u32(n);
  for (const auto& w : s.workers)
    for (const Effect& e : w->effects) {
      out.u32(e.source);
      out.u32(e.seq);
      out.u32(e.target);
      out.u8(e.kind == Effect::Kind::Damage ? 0 : 1);
      out.f64(e.amount);
      out.str(e.key);
      if (const auto* b = std::get_if<bool>(&e.value)) {
        out.u8(1);
        out.u8(*b ? 1 : 0);
      } else if (const auto* d = std::get_if<double>(&e.value)) {
        out.u8(2);
        out.f64(*d);
      } else if (const auto* i = std::get_if<int64_t>(&e.value)) {
        out.u8(3);
        out.i64(*i);
      } else if (const auto* t = std::get_if<std::string>(&e.value)) {
        out.u8(4);
        out.str(*t);
      } else {
        out.u8(0);
      }
      out.str(e.where);
    }
}

void restore_pending_effects(Simulation::Impl& s, SnapshotReader& in) {
  for (auto& w : s.workers) w->effects.clear();
  const uint32_t n = in.u32();
  for (uint32_t k = 0; k < n && in.ok(); ++k) {
    Effect e;
    e.source = in.u32();
    e.seq = in.u32();
    e.target = in.u32();
    const uint8_t kind = in.u8();
    e.amount = in.f64();
    e.key = in.str();
    switch (in.u8()) {
      case 0: break;
      case 1: e.value = in.u8() != 0; break;
      case 2: e.value = in.f64(); break;
      case 3: e.value = in.i64(); break;
      case 4: e.value = in.str(); break;
      default: in.fail("a pending effect has a bad value type");
    }
    e.where = in.str();
    if (!in.ok()) break;
    if (kind > 1 || !s.agent(e.source) || !s.agent(e.target)) {
      in.fail("a pending effect is bad (agent " + std::to_string(e.source) + " on " + std::to_string(e.target) + ")");
      break;
    }
    e.kind = kind == 0 ? Effect::Kind::Damage : Effect::Kind::Signal;
    s.workers[s.agent(e.source)->worker]->effects.push_back(std::move(e));
  }
}

// Brings the search back in a request of the worker that ticks the agent now: started as it
// was, then stepped by as many nodes as it had expanded (in one step: the same state).
bool restore_search(Simulation::Impl& s, SimAgent& a, SnapshotReader& in) {
  const uint8_t searching = in.u8();
  if (!in.ok() || searching == 0) return in.ok();
  const std::string who = "agent " + std::to_string(a.id) + "'s path search";
  if (searching != 1) {
    in.fail(who + ": a bad flag (" + std::to_string(searching) + ")");
    return false;
  }
  world::Vec2 from, to;
  from.x = in.f64();
  from.y = in.f64();
  to.x = in.f64();
  to.y = in.f64();
  const uint8_t algorithm = in.u8();
  const uint8_t smooth = in.u8();
  const uint32_t zones = in.u32();
  if (in.ok() && zones > in.remaining() / 32) {
    in.fail(who + ": " + std::to_string(zones) + " danger zones run past the end");
    return false;
  }
  std::vector<nav::DangerZone> danger(zones);
  for (nav::DangerZone& z : danger) {
    z.centre.x = in.f64();
    z.centre.y = in.f64();
    z.radius = in.f64();
    z.cost = in.f64();
  }
  const uint64_t expanded = in.u64();
  if (!in.ok()) return false;
  const nav::NavWorld& nw = s.nav.world;
  if (nav::method_of(nw) != nav::PathMethod::Grid) {
    in.fail(who + ": the world plans without a grid map, so nothing is time-sliced");
    return false;
  }
  if (algorithm > static_cast<uint8_t>(nav::Algorithm::Jps) || smooth > 1) {
    in.fail(who + ": a bad algorithm or smoothing flag");
    return false;
  }
  const uint64_t cells = uint64_t(nw.map->width()) * uint64_t(nw.map->height());
  if (expanded == 0 || expanded > cells) {
    in.fail(who + ": " + std::to_string(expanded) + " nodes expanded, on a map of " + std::to_string(cells) + " cells");
    return false;
  }
  SimWorker& w = *s.workers[a.worker];
  if (w.free_paths.empty()) {
    w.free_paths.push_back(static_cast<int32_t>(w.path_pool.size()));
    w.path_pool.push_back(std::make_unique<nav::PathRequest>());
  }
  a.pending_path = w.free_paths.back();
  w.free_paths.pop_back();
  nav::PathRequest& request = *w.path_pool[a.pending_path];
  nav::PathOptions o;
  o.algorithm = static_cast<nav::Algorithm>(algorithm);
  o.smooth = smooth != 0;
  o.danger = danger;  // start() copies them
  if (request.start(nw, from, to, o) != nav::SearchState::Running || request.step(expanded) != nav::SearchState::Running ||
      request.expanded() != expanded) {
    release_path(w, a);
    in.fail(who + " does not come back as it was saved (" + std::to_string(expanded) + " nodes expanded, still running)");
    return false;
  }
  return true;
}

}  // namespace

// The brains: each worker's Runtime snapshot (saved in parallel, one thread per worker), in
// worker order, each with its length. Restored with the same --threads, each worker takes its
// own back whole (the agents are split over workers the same way for the same scenario and
// thread count). With another count, worker 0's runtime takes each saved worker's in turn and
// hands every agent to the worker that ticks it now, one agent snapshot at a time: slower (each
// one-agent snapshot carries its brain's node table), but any count resumes any other.
std::string Simulation::save_brains(SnapshotWriter& out) const {
  const Impl& s = *impl_;
  std::vector<SnapshotWriter> blobs(s.workers.size());
  // A worker whose runtime refuses the save (a running task it cannot keep exactly: Runtime::
  // save with RuntimeOptions::journal_tasks) says why; the first worker's reason is given.
  std::vector<std::vector<Diagnostic>> refused(s.workers.size());
  std::vector<std::thread> pool;
  for (size_t w = 1; w < s.workers.size(); ++w) pool.emplace_back([&, w] { s.workers[w]->rt->save(blobs[w], refused[w]); });
  s.workers[0]->rt->save(blobs[0], refused[0]);
  for (auto& th : pool) th.join();
  for (const auto& r : refused)
    if (!r.empty()) return r.front().message;
  out.u32(static_cast<uint32_t>(blobs.size()));
  for (const SnapshotWriter& b : blobs) {
    out.u64(b.bytes().size());
    out.raw(b.bytes());
  }
  return {};
}

namespace {

// Keeps the first of equal messages: restoring thousands of agents of a changed brain must
// not print a note for each.
void add_unique(std::vector<Diagnostic>& diags, std::vector<Diagnostic>& found, const std::string& name) {
  for (Diagnostic& d : found) {
    if (d.file.empty()) d.file = name;  // the runtime's messages are about the checkpoint
    bool seen = false;
    for (const Diagnostic& e : diags) seen = seen || (e.message == d.message && e.file == d.file);
    if (!seen) diags.push_back(std::move(d));
  }
  found.clear();
}

}  // namespace

bool Simulation::restore_brains(SnapshotReader& in, const std::string& name, std::vector<Diagnostic>& diags) {
  Impl& s = *impl_;
  const uint32_t saved = in.u32();
  if (in.ok() && (saved == 0 || saved > 4096)) in.fail("a bad worker count (" + std::to_string(saved) + ")");
  std::vector<std::string_view> blobs;
  for (uint32_t w = 0; w < saved && in.ok(); ++w) {
    const uint64_t n = in.u64();
    if (n > in.remaining()) {
      in.fail("a worker's brains run past the end");
      break;
    }
    blobs.push_back(in.raw(n));
  }
  if (!in.ok()) return false;
  std::vector<Diagnostic> found;
  auto failed = [&](const std::string& why) {
    add_unique(diags, found, name);
    if (!has_errors(diags)) in.fail(why);
    return false;
  };
  for (SimAgent& a : s.agents) a.handle = AgentHandle{};
  // Every live agent of the checkpoint comes back once, in the worker that ticks it.
  auto adopt = [&](uint32_t worker, AgentHandle h) {
    SimAgent* a = s.agent(s.workers[worker]->rt->agent_id(h));
    if (!a || !a->alive || a->worker != worker || a->handle.valid()) return false;
    a->handle = h;
    return true;
  };
  if (saved == s.workers.size()) {
    for (uint32_t w = 0; w < saved; ++w) {
      Runtime& rt = *s.workers[w]->rt;
      SnapshotReader r(blobs[w]);
      if (!rt.restore(r, found) || !r.at_end()) return failed("worker " + std::to_string(w) + "'s brains could not be restored");
      for (AgentHandle h : rt.agents())
        if (!adopt(w, h)) return failed("worker " + std::to_string(w) + " holds an agent it does not tick");
    }
  } else {
    Runtime& first = *s.workers[0]->rt;
    for (auto& w : s.workers)
      for (AgentHandle h : w->rt->agents()) w->rt->despawn(h);  // fresh agents: nothing runs yet
    SnapshotWriter empty;  // worker 0 without agents: restoring it drops what it holds, no hooks run
    first.save(empty);
    std::vector<std::string> kept;  // worker 0's own, one agent snapshot each
    for (std::string_view blob : blobs) {
      SnapshotReader r(blob);
      if (!first.restore(r, found) || !r.at_end()) return failed("a worker's brains could not be restored");
      for (AgentHandle h : first.agents()) {
        SimAgent* a = s.agent(first.agent_id(h));
        if (!a || !a->alive) return failed("the brains hold an agent the checkpoint has no body for");
        SnapshotWriter one;
        first.save(h, one);
        if (a->worker == 0) {
          kept.push_back(one.take());
          continue;
        }
        Runtime& rt = *s.workers[a->worker]->rt;
        SnapshotReader r1(one.bytes());
        std::optional<AgentHandle> moved = rt.restore_agent(r1, found);
        if (!moved || !adopt(a->worker, *moved)) return failed("agent " + std::to_string(a->id) + "'s brain could not be moved to its worker");
      }
    }
    SnapshotReader none(empty.bytes());
    if (!first.restore(none, found)) return failed("worker 0 could not be emptied");
    for (const std::string& one : kept) {
      SnapshotReader r1(one);
      std::optional<AgentHandle> h = first.restore_agent(r1, found);
      if (!h || !adopt(0, *h)) return failed("an agent's brain could not be restored in worker 0");
    }
  }
  for (const SimAgent& a : s.agents)
    if (a.alive && !a.handle.valid()) return failed("agent " + std::to_string(a.id) + " is alive but its brain is not in the checkpoint");
  add_unique(diags, found, name);
  return true;
}

std::optional<SnapshotInfo> Simulation::read_header(std::string_view bytes, std::string& error) {
  if (bytes.size() < 8 || bytes.substr(0, 8) != std::string_view(kCheckpointMagic, 8)) {
    // Said in the user's words ("magic" said nothing): most often the scenario itself was given.
    const bool text = !bytes.empty() && std::all_of(bytes.begin(), bytes.begin() + std::min<size_t>(bytes.size(), 64), [](char c) {
      return c == '\n' || c == '\r' || c == '\t' || static_cast<unsigned char>(c) >= 0x20;
    });
    error = std::string("not a thicket checkpoint: ") + (text ? "it is text (a scenario or brain file?)" : "it does not start as one") +
            "; --resume takes the file a run's --checkpoint FILE wrote";
    return std::nullopt;
  }
  if (bytes.size() < kPrefix) {
    error = "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than a checkpoint's header";
    return std::nullopt;
  }
  SnapshotInfo info;
  info.format = static_cast<uint32_t>(raw_u(bytes, 8, 4));
  if (info.format < kOldestFormat || info.format > kFormat) {
    error = "checkpoint format version " + std::to_string(info.format) +
            (info.format > kFormat ? " is newer than this thicket's (" + std::to_string(kFormat) + ")"
                                   : " is older than those this thicket reads (" + std::to_string(kOldestFormat) + " to " +
                                         std::to_string(kFormat) + ")") +
            "; this thicket (" THICKET_VERSION_STRING ") cannot read it";
    return std::nullopt;
  }
  const uint64_t length = raw_u(bytes, 12, 8);
  const uint32_t crc = static_cast<uint32_t>(raw_u(bytes, 20, 4));
  if (bytes.size() - kPrefix != length) {
    // A length no file holds (a damaged header: length + the header would wrap past 2^64) is
    // said as such, not as "truncated: 86668 bytes of 23".
    error = length > (uint64_t{1} << 48) ? "corrupt: its header announces " + std::to_string(length) + " bytes"
            : bytes.size() - kPrefix < length
                ? "truncated: " + std::to_string(bytes.size()) + " bytes of " + std::to_string(length + kPrefix)
                : "has " + std::to_string(bytes.size() - kPrefix - length) + " bytes after its end";
    return std::nullopt;
  }
  std::string_view body = bytes.substr(kPrefix);
  if (crc_of(body) != crc) {
    error = "corrupt: its checksum does not match its content";
    return std::nullopt;
  }
  SnapshotReader in(body);
  info.thicket_version = in.str();
  info.scenario = in.str();
  info.scenario_hash = in.u64();
  info.seed = in.u64();
  info.dt = in.f64();
  info.tick = in.u64();
  info.threads = in.u32();
  info.agents = in.u32();
  uint32_t groups = in.u32();
  for (uint32_t g = 0; g < groups && in.ok(); ++g) {
    std::string file = in.str();
    uint64_t hash = in.u64();
    info.brains.emplace_back(std::move(file), hash);
  }
  if (info.format >= 8 && in.ok()) {
    info.map_hash = in.u64();
    const uint32_t n = in.u32();
    if (in.ok() && n > in.remaining() / 8) in.fail("a Lua file count of " + std::to_string(n) + " runs past the end");
    for (uint32_t k = 0; k < n && in.ok(); ++k) info.lua_hashes.push_back(in.u64());
  }
  if (!in.ok()) {
    error = "corrupt header: " + in.error();
    return std::nullopt;
  }
  info.body_offset = kPrefix + in.offset();
  return info;
}

std::string Simulation::mismatch(const SnapshotInfo& info, const ScenarioSpec& spec, const SimOptions& options) {
  if (info.scenario_hash != file_hash(spec.path))
    return "it was made from scenario " + info.scenario + ", not from " + spec.path + " as it is now (their content differs)";
  if (info.seed != options.seed)
    return "it was made with seed " + std::to_string(info.seed) + ", not " + std::to_string(options.seed);
  if (info.dt != options.dt) {
    // In the shortest form that reads back exactly: at six digits 0.1 and 0.10000001 both read
    // "0.1" ("made with dt 0.1 s, not 0.1 s").
    auto exact = [](double v) {
      char buf[32];
      return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    };
    return "it was made with dt " + exact(info.dt) + " s, not " + exact(options.dt) + " s";
  }
  uint64_t agents = 0;
  for (const AgentGroup& g : spec.groups) agents += g.count;
  if (info.agents != agents)
    return "it holds " + std::to_string(info.agents) + " agents, the scenario makes " + std::to_string(agents);
  if (info.tick > options.ticks)
    return "it was made at tick " + std::to_string(info.tick) + ", past the run's end (--ticks " + std::to_string(options.ticks) + ")";
  if (info.brains.size() != spec.groups.size())
    return "it has " + std::to_string(info.brains.size()) + " groups, the scenario " + std::to_string(spec.groups.size());
  // The map is the scenario's (its walls are not saved): an edited one is another world.
  if (info.format >= 8 && info.map_hash != (spec.nav.map_path.empty() ? 0 : file_hash(spec.nav.map_path)))
    return spec.nav.map_path.empty() ? std::string("it was made with a map, and the scenario has none now")
                                     : "its map " + spec.nav.map_path + " differs from the one it was made with (a map is read once, when a run starts: "
                                       "resume with the map as it was, or start the run afresh)";
  return {};
}

namespace {

// The script error book (format 6): which errors were said how often, and how many each node
// printed; (format 7) which warnings were said.
void save_error_book(const ScriptErrorBook& book, SnapshotWriter& out) {
  out.u32(static_cast<uint32_t>(book.repeats.size()));
  for (const auto& [key, times] : book.repeats) {
    out.str(std::get<0>(key));
    out.u32(std::get<1>(key));
    out.str(std::get<2>(key));
    out.u64(times);
  }
  out.u32(static_cast<uint32_t>(book.printed_at.size()));
  for (const auto& [key, printed] : book.printed_at) {
    out.str(key.first);
    out.u32(key.second);
    out.u32(printed);
  }
  out.u32(static_cast<uint32_t>(book.warned.size()));
  for (const auto& [brain, node, message] : book.warned) {
    out.str(brain);
    out.u32(node);
    out.str(message);
  }
}

void restore_error_book(ScriptErrorBook& book, SnapshotReader& in) {
  book = ScriptErrorBook{};
  const uint32_t repeats = in.u32();
  for (uint32_t i = 0; i < repeats && in.ok(); ++i) {
    std::string brain = in.str();
    const uint32_t node = in.u32();
    std::string message = in.str();
    const uint64_t times = in.u64();
    if (in.ok()) book.repeats[{std::move(brain), node, std::move(message)}] = times;
  }
  const uint32_t nodes = in.u32();
  for (uint32_t i = 0; i < nodes && in.ok(); ++i) {
    std::string brain = in.str();
    const uint32_t node = in.u32();
    const uint32_t printed = in.u32();
    if (in.ok()) book.printed_at[{std::move(brain), node}] = printed;
  }
  const uint32_t warned = in.u32();
  for (uint32_t i = 0; i < warned && in.ok(); ++i) {
    std::string brain = in.str();
    const uint32_t node = in.u32();
    std::string message = in.str();
    if (in.ok()) book.warned.insert({std::move(brain), node, std::move(message)});
  }
}

}  // namespace

std::string Simulation::save(std::string& bytes) const {
  const Impl& s = *impl_;
  SnapshotWriter out;
  out.str(THICKET_VERSION_STRING);
  out.str(s.spec.path);
  out.u64(file_hash(s.spec.path));
  out.u64(s.options.seed);
  out.f64(s.options.dt);
  out.u64(s.tick);
  out.u32(static_cast<uint32_t>(s.workers.size()));
  out.u32(static_cast<uint32_t>(s.agents.size()));
  out.u32(static_cast<uint32_t>(s.spec.groups.size()));
  for (const AgentGroup& g : s.spec.groups) {
    out.str(g.brain);
    out.u64(file_hash(g.brain));
  }
  out.u64(s.spec.nav.map_path.empty() ? 0 : file_hash(s.spec.nav.map_path));
  const std::vector<uint64_t> lua = lua_hashes(s);
  out.u32(static_cast<uint32_t>(lua.size()));
  for (uint64_t h : lua) out.u64(h);
  // Metrics: names (checked on restore), totals, gauge flags and statistics.
  out.u32(static_cast<uint32_t>(s.metric_names.size()));
  for (size_t m = 0; m < s.metric_names.size(); ++m) {
    out.str(s.metric_names[m]);
    out.f64(s.metric_totals[m]);
    out.u8(s.metric_is_gauge[m] ? 1 : s.metric_counted[m] ? 2 : 0);
    GaugeStats g = m < s.gauge_stats.size() ? s.gauge_stats[m] : GaugeStats{};
    out.f64(g.last);
    out.f64(g.mean);
    out.f64(g.min);
    out.f64(g.max);
    out.u64(g.ticks);
  }
  uint64_t agent_ticks = 0, script_errors = s.script_errors_before + s.errors.once_errors;
  for (const auto& w : s.workers) {
    agent_ticks += w->agent_ticks;
    script_errors += w->rt->script_errors();
  }
  out.u64(agent_ticks);
  out.u64(script_errors);
  save_error_book(s.errors, out);
  out.u32(static_cast<uint32_t>(s.effect_errors_said.size()));
  for (const auto& [key, times] : s.effect_errors_said) {
    out.str(key);
    out.u32(times);
  }
  for (const SimAgent& a : s.agents) {
    out.u8(a.alive ? 1 : 0);
    out.u32(a.entity.bits);
    out.f64(a.wander.local_target.x);
    out.f64(a.wander.local_target.y);
    out.u64(a.wander_rng);
    save_search(s, a, out);
    out.u64(a.pending_tick);
    out.u64(a.noise_tick);
    out.u32(a.noises);
    out.u8(a.sensed);
  }
  save_pending_effects(s, out);
  world::save_world(s.world, out);
  s.perception->save(out);
  if (s.recorder) s.recorder->save(out);
  else Recorder::save_none(out);
  if (std::string why = save_brains(out); !why.empty()) return why;

  std::string body = out.take();
  const size_t start = bytes.size();
  bytes.resize(start + kPrefix);
  std::copy(kCheckpointMagic, kCheckpointMagic + 8, bytes.begin() + static_cast<std::ptrdiff_t>(start));
  put_raw_u32(bytes, start + 8, kFormat);
  put_raw_u64(bytes, start + 12, body.size());
  put_raw_u32(bytes, start + 20, crc_of(body));
  bytes.append(body);
  return {};
}

bool Simulation::restore(std::string_view bytes, const std::string& name, std::vector<Diagnostic>& diags) {
  Impl& s = *impl_;
  auto fail = [&](const std::string& why) {
    diags.push_back({Severity::Error, name, 0, 0, why});
    return false;
  };
  std::string error;
  std::optional<SnapshotInfo> info = read_header(bytes, error);
  if (!info) return fail(error);
  if (std::string why = mismatch(*info, s.spec, s.options); !why.empty()) return fail(why);
  // A brain changed since the checkpoint is the runtime's to tell (Runtime::restore notes it,
  // with the nodes kept, added and removed); the header's file hashes are for readers.

  SnapshotReader in(bytes.substr(info->body_offset));
  const uint32_t metrics = in.u32();
  if (metrics != s.metric_names.size()) return fail("it has " + std::to_string(metrics) + " metrics, the scenario " + std::to_string(s.metric_names.size()));
  s.gauge_stats.assign(metrics, GaugeStats{});
  for (uint32_t m = 0; m < metrics && in.ok(); ++m) {
    const std::string metric = in.str();
    if (in.ok() && metric != s.metric_names[m])
      return fail("its metric " + std::to_string(m + 1) + " is '" + metric + "', the scenario's '" + s.metric_names[m] + "'");
    s.metric_totals[m] = in.f64();
    const uint8_t kind = in.u8();
    s.metric_is_gauge[m] = kind == 1;
    s.metric_counted[m] = info->format >= 9 ? kind == 2 : !s.metric_is_gauge[m] && s.metric_totals[m] != 0;
    GaugeStats& g = s.gauge_stats[m];
    g.last = in.f64();
    g.mean = in.f64();
    g.min = in.f64();
    g.max = in.f64();
    g.ticks = in.u64();
  }
  const uint64_t agent_ticks = in.u64();
  const uint64_t script_errors = in.u64();
  ScriptErrorBook errors;
  restore_error_book(errors, in);
  std::map<std::string, uint32_t> effect_errors_said;
  if (info->format >= 9) {
    const uint32_t said = in.u32();
    for (uint32_t i = 0; i < said && in.ok(); ++i) {
      std::string key = in.str();
      const uint32_t times = in.u32();
      if (in.ok()) effect_errors_said[std::move(key)] = times;
    }
  }
  for (SimAgent& a : s.agents) {
    const bool alive = in.u8() != 0;
    const uint32_t entity = in.u32();
    a.wander.local_target.x = in.f64();
    a.wander.local_target.y = in.f64();
    a.wander_rng = in.u64();
    release_path(*s.workers[a.worker], a);
    if (!restore_search(s, a, in)) break;
    a.pending_tick = in.u64();
    a.noise_tick = in.u64();
    a.noises = in.u32();
    a.sensed = in.u8();
    if (!in.ok()) break;
    if (entity != a.entity.bits) return fail("agent " + std::to_string(a.id) + " has another world entity in the checkpoint");
    if (!std::isfinite(a.wander.local_target.x) || !std::isfinite(a.wander.local_target.y))
      return fail("corrupt: agent " + std::to_string(a.id) + "'s wander target is not a number");
    a.alive = alive;
  }
  if (in.ok()) restore_pending_effects(s, in);
  if (in.ok()) world::restore_world(s.world, in);
  // An agent is alive exactly when its body is in the world, and of its group's team (the Lua
  // world API counts on both).
  for (const SimAgent& a : s.agents) {
    if (!in.ok()) break;
    if ((s.world.entity(a.entity) != nullptr) != a.alive)
      in.fail("agent " + std::to_string(a.id) + (a.alive ? " is alive without a body" : " is dead with a body in the world"));
    const std::string& team = s.spec.groups[a.group].team;
    const auto index = std::find(s.spec.teams.begin(), s.spec.teams.end(), team) - s.spec.teams.begin();
    if (s.world.entities()[a.entity.index()].team != index) in.fail("agent " + std::to_string(a.id) + " is on another team");
  }
  if (in.ok()) s.perception->restore(in);
  if (in.ok()) {
    if (s.recorder) s.recorder->restore(in, info->tick);
    else Recorder::skip(in);
  }
  // The groups' brains as the saving run named them are this run's (the scenario's content
  // is the same, so group by group): a resume from another working folder spells them otherwise.
  for (auto& w : s.workers) {
    auto& paths = w->rt->impl().restore_paths;
    paths.clear();
    for (size_t g = 0; g < info->brains.size() && g < s.spec.groups.size(); ++g)
      paths.emplace(info->brains[g].first, s.spec.groups[g].brain);
  }
  const bool brains_ok = !in.ok() || restore_brains(in, name, diags);
  for (auto& w : s.workers) w->rt->impl().restore_paths.clear();
  if (!brains_ok && in.ok()) return false;  // the brains' own errors, in diags
  if (!in.ok()) return fail("corrupt: " + in.error());
  if (!in.at_end()) return fail("corrupt: bytes left over after its end");
  if (info->format >= 8) note_edited_lua(s, info->lua_hashes, name, diags);
  s.tick = info->tick;
  // Replacing the fresh agents must leave no trace of them in the resumed run's events.
  for (auto& w : s.workers) w->brain_events.clear();
  for (auto& w : s.workers) w->agent_ticks = 0;
  s.workers[0]->agent_ticks = agent_ticks;
  s.script_errors_before = script_errors;
  s.errors = std::move(errors);
  s.effect_errors_said = std::move(effect_errors_said);
  for (auto& w : s.workers) s.script_errors_before -= std::min(s.script_errors_before, w->rt->script_errors());
  return true;
}

}  // namespace thicket
