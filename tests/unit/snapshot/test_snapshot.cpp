// Snapshots (issue 15): Runtime::save / restore. A run of 2T ticks and a run of T ticks, saved,
// restored into a fresh runtime and run T more give the same statuses, blackboards and traces;
// tasks restart with thicket.restored(); changed brains remap by node id; bad bytes are
// refused and leave the runtime as it was.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "lua_fixture.hpp"
#include "agent.hpp"
#include "snapshot_plain.hpp"
#include "thicket/runtime.hpp"
#include "sanitizer_sample.hpp"

using namespace thicket;
using thicket_test::ScratchDir;

namespace {

const char* kLeaves = R"LUA(
local thicket = require("thicket")
local leaves = {}

-- A hook table whose mem holds plain data (and one function, which a snapshot leaves out).
leaves.Patrol = {
  start = function(agent, args, mem)
    mem.steps = 0
    mem.route = {1, 2, {x = 3.5, tag = "gate"}}
    mem.say = function() end
  end,
  tick = function(agent, args, mem)
    mem.steps = mem.steps + 1
    mem.route[#mem.route + 1] = thicket.random(1, 100)
    agent.bb.steps = agent.bb.steps + 1
    if mem.steps >= args.n then return thicket.SUCCESS end
    return thicket.RUNNING
  end,
}

-- Restart-safe: everything it counts lives on the blackboard.
leaves.Work = thicket.task(function(agent, args)
  while true do
    agent.bb.n = agent.bb.n + 1
    if agent.bb.n % args.every == 0 then return thicket.SUCCESS end
    coroutine.yield()
  end
end)

function leaves.Count(agent, args)
  agent.visits = (agent.visits or 0) + 1          -- the agent table's own field
  agent.bb.memo = {visits = agent.visits, last = thicket.tick(), tag = "c"}
  agent.bb.label = "count" .. agent.visits
  return thicket.random() < 0.7
end

function leaves.Alert(agent, args)
  return agent.bb.steps % 4 < 2
end

function leaves.Say(agent, args) agent.bb.label = args.text end

function leaves.Bored(agent, args)
  if agent.bb.n >= 3 and thicket.random() < 0.5 then return "bored" end
end

return leaves
)LUA";

const char* kTree = R"YAML(
tree: guard
leaves: [leaves.lua]
blackboard:
  steps: 0
  n: {type: integer, default: 0}
  memo: null
  label: "none"
  flag: false
root:
  selector:
    - sequence:
        abort: lower_priority
        children:
          - condition: Alert
          - cooldown:
              seconds: 0.5
              child: {action: {leaf: Work, args: {every: 3}}}
    - sequence:
        - random_selector:
            weights: [1, 2, 1]
            children:
              - action: {leaf: Patrol, args: {n: 3}}
              - action: Count
              - wait: 0.3
        - repeat:
            times: 2
            child: {action: {leaf: Patrol, args: {n: 2}}}
        - timeout:
            seconds: 0.4
            child: {action: {leaf: Work, args: {every: 5}}}
)YAML";

const char* kFsm = R"YAML(
fsm: shop
leaves: [leaves.lua]
initial: idle
blackboard:
  steps: 0
  n: {type: integer, default: 0}
  memo: null
  label: "none"
states:
  idle:
    enter: {leaf: Say, args: {text: "idle"}}
    reason: Bored
    act: {leaf: Work, args: {every: 4}}
    transitions: {bored: busy}
  busy:
    enter: {leaf: Say, args: {text: "busy"}}
    when:
      - {check: "steps >= 6", go: idle}
    tree: chores
trees:
  chores:
    sequence:
      - action: {leaf: Patrol, args: {n: 2}}
      - wait: 0.2
)YAML";

const char* kMachine = R"YAML(
machine: villager
leaves: [leaves.lua]
check_every: 0.3
blackboard:
  steps: 0
  n: {type: integer, default: 0}
  memo: null
  label: "none"
behaviors:
  - {name: alert, check: Alert, run: {leaf: Work, args: {every: 2}}}
  - {name: walk, check: {check: "n >= 0"}, run: {leaf: Patrol, args: {n: 3}}}
)YAML";

// A runtime with the three brains loaded from files in `dir` (the same paths every time, so
// a snapshot finds them), its trace and log kept.
struct SavedRun {
  explicit SavedRun(const ScratchDir& dir, uint64_t seed = 7) : rt(options(seed)) {
    for (const char* name : {"tree.yaml", "fsm.yaml", "machine.yaml"}) {
      std::vector<Diagnostic> d;
      auto b = rt.load_file((dir.path() / name).string(), d);
      std::string all;
      for (const auto& x : d) all += format_diagnostic(x) + "\n";
      INFO(all);
      REQUIRE(b.has_value());
      brains.push_back(*b);
    }
    rt.on_trace([this](const TraceEvent& e) {
      std::ostringstream out;
      out << e.tick << " a" << e.agent << " ";
      switch (e.type) {
        case TraceEvent::Type::Tick:
          out << status_name(e.status);
          for (const auto& r : e.running) out << " " << r;
          break;
        case TraceEvent::Type::Abort: out << "abort " << e.composite << " " << e.condition << " " << e.aborted; break;
        case TraceEvent::Type::Transition: out << "transition " << e.from_name << "->" << e.to_name; break;
        case TraceEvent::Type::Switch: out << "switch " << e.from_name << "->" << e.to_name; break;
        case TraceEvent::Type::Event: out << "event " << e.event << " " << e.taken_by; break;
      }
      trace.push_back(out.str());
    });
  }
  RuntimeOptions options(uint64_t seed) {
    RuntimeOptions o;
    o.seed = seed;
    o.log = [this](const std::string& line) { log.push_back(line); };
    return o;
  }
  void spawn_all() {
    for (int k = 0; k < 4; ++k)
      for (size_t b = 0; b < brains.size(); ++b) rt.spawn(brains[b], {{"steps", Value(double(k))}});
  }
  // What an outside observer can read of every agent.
  std::string state() {
    std::ostringstream out;
    for (AgentHandle h : rt.agents()) {
      out << "agent " << rt.agent_id(h) << " " << status_name(rt.status(h)) << " [";
      std::string s;
      rt.node_statuses(h, s);
      out << s << "]";
      for (const char* key : {"steps", "n", "label", "flag"}) {
        auto v = rt.get(h, key);
        if (!v) continue;
        out << " " << key << "=";
        std::visit([&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) out << "nil";
          else out << x;
        }, *v);
      }
      out << "\n";
    }
    return out.str();
  }
  std::string save() {
    SnapshotWriter w;
    rt.save(w);
    return w.take();
  }

  Runtime rt;
  std::vector<BrainHandle> brains;
  std::vector<std::string> trace, log;
};

void write_brains(const ScratchDir& dir) {
  dir.write("leaves.lua", kLeaves);
  dir.write("tree.yaml", kTree);
  dir.write("fsm.yaml", kFsm);
  dir.write("machine.yaml", kMachine);
}

std::string all_diags(const std::vector<Diagnostic>& d) {
  std::string all;
  for (const auto& x : d) all += format_diagnostic(x) + "\n";
  return all;
}

}  // namespace

TEST_CASE("snapshot: 2T ticks = T ticks, save, restore into a fresh runtime, T ticks") {
  ScratchDir dir;
  write_brains(dir);
  const int T = 37;
  const double dt = 0.1;

  SavedRun whole(dir);
  whole.spawn_all();
  for (int t = 0; t < 2 * T; ++t) whole.rt.tick_all(dt);
  auto first = whole.trace.begin() + static_cast<long>(std::find_if(whole.trace.begin(), whole.trace.end(),
                                                                     [&](const std::string& l) {
                                                                       return l.rfind(std::to_string(T + 1) + " ", 0) == 0;
                                                                     }) -
                                                        whole.trace.begin());
  std::vector<std::string> second_half(first, whole.trace.end());
  REQUIRE(!second_half.empty());

  SavedRun half(dir);
  half.spawn_all();
  for (int t = 0; t < T; ++t) half.rt.tick_all(dt);
  std::string bytes = half.save();
  CHECK(bytes.size() < 1024 * half.rt.agent_count());
  // The hook table's function was left out, and the log says so once.
  size_t said = std::count_if(half.log.begin(), half.log.end(),
                              [](const std::string& l) { return l.find("warning: snapshot: ") == 0 && l.find("not plain data were left out") != std::string::npos; });
  CHECK(said == 1);

  SavedRun resumed(dir);
  resumed.spawn_all();       // agents that the restore replaces
  resumed.rt.tick_all(dt);
  resumed.trace.clear();
  SnapshotReader in(bytes);
  std::vector<Diagnostic> diags;
  REQUIRE_MESSAGE(resumed.rt.restore(in, diags), all_diags(diags));
  CHECK(diags.empty());
  CHECK(in.at_end());
  CHECK(resumed.state() == half.state());
  CHECK(resumed.save() == bytes);  // the same state gives the same bytes
  for (int t = 0; t < T; ++t) resumed.rt.tick_all(dt);
  CHECK(resumed.trace == second_half);
  CHECK(resumed.state() == whole.state());
  CHECK(resumed.save() == whole.save());
  CHECK(whole.rt.script_errors() == 0);
  CHECK(resumed.rt.script_errors() == 0);
}

TEST_CASE("snapshot: streams, one agent, ids and handles") {
  ScratchDir dir;
  write_brains(dir);
  SavedRun a(dir);
  a.spawn_all();
  for (int t = 0; t < 5; ++t) a.rt.tick_all(0.1);
  std::stringstream stream;
  REQUIRE(a.rt.save(stream));
  SavedRun b(dir);
  std::vector<Diagnostic> diags;
  REQUIRE(b.rt.restore(stream, diags));
  CHECK(b.state() == a.state());
  CHECK(b.rt.agent_count() == 12);
  REQUIRE(b.rt.find_agent(5).has_value());
  CHECK(!b.rt.find_agent(99).has_value());

  // One agent: added beside the others with its id, refused while that id lives.
  AgentHandle five = *a.rt.find_agent(5);
  SnapshotWriter one;
  a.rt.save(five, one);
  SavedRun c(dir);
  SnapshotReader r1(one.bytes());
  auto h = c.rt.restore_agent(r1, diags);
  REQUIRE_MESSAGE(h.has_value(), all_diags(diags));
  CHECK(c.rt.agent_id(*h) == 5);
  CHECK(c.rt.get(*h, "steps") == a.rt.get(five, "steps"));
  SnapshotReader r2(one.bytes());
  diags.clear();
  CHECK(!c.rt.restore_agent(r2, diags).has_value());
  REQUIRE(!diags.empty());
  CHECK(diags[0].message.find("alive in this runtime already") != std::string::npos);
  AgentHandle next = c.rt.spawn(c.brains[0]);
  CHECK(c.rt.agent_id(next) == 6);
  // A whole snapshot is not one agent's, and the other way round.
  SnapshotReader r3(one.bytes());
  diags.clear();
  CHECK(!c.rt.restore(r3, diags));
  CHECK(diags.at(0).message.find("restore_agent") != std::string::npos);
}

TEST_CASE("snapshot: a running task restarts with thicket.restored(); its cleanup runs once") {
  ScratchDir dir;
  dir.write("task.lua", R"LUA(
local thicket = require("thicket")
return {
  Cook = thicket.task(function(agent, args)
    local stove <close> = thicket.defer(function() thicket.log("@cleanup " .. tostring(thicket.restored())) end)
    thicket.log("@start " .. tostring(thicket.restored()))
    for i = 1, 3 do coroutine.yield() end
    return thicket.SUCCESS
  end),
}
)LUA");
  dir.write("cook.yaml", "tree: cook\nleaves: [task.lua]\nroot: {action: Cook}\n");
  auto make = [&](std::vector<std::string>& log) {
    RuntimeOptions o;
    o.log = [&log](const std::string& l) {
      if (auto at = l.find('@'); at != std::string::npos) log.push_back(l.substr(at));
    };
    return o;
  };
  std::vector<std::string> log_a, log_b;
  Runtime a(make(log_a));
  std::vector<Diagnostic> diags;
  auto brain = a.load_file((dir.path() / "cook.yaml").string(), diags);
  REQUIRE(brain);
  a.spawn(*brain);
  a.tick_all(0.1);
  a.tick_all(0.1);
  SnapshotWriter w;
  a.save(w);
  for (int t = 0; t < 3; ++t) a.tick_all(0.1);
  CHECK(log_a == std::vector<std::string>{"@start false", "@cleanup false", "@start false"});

  Runtime b(make(log_b));
  REQUIRE(b.load_file((dir.path() / "cook.yaml").string(), diags));
  SnapshotReader in(w.bytes());
  REQUIRE(b.restore(in, diags));
  CHECK(log_b.empty());  // restoring runs no Lua: no cleanup of the run it replaces
  for (int t = 0; t < 6; ++t) b.tick_all(0.1);
  // The restarted run knows it; its cleanup runs once; the next run is a plain one.
  CHECK(log_b == std::vector<std::string>{"@start true", "@cleanup true", "@start false"});
  // A snapshot taken before the restarted run resumed keeps it a restarted task.
  Runtime c(make(log_b));
  REQUIRE(c.load_file((dir.path() / "cook.yaml").string(), diags));
  SnapshotReader again(w.bytes());
  REQUIRE(c.restore(again, diags));
  SnapshotWriter w2;
  c.save(w2);
  CHECK(w2.bytes() == w.bytes());
}

TEST_CASE("snapshot: a changed brain is remapped by node id, with a note") {
  ScratchDir dir;
  dir.write("count.lua", R"LUA(
local thicket = require("thicket")
return { Step = { start = function(agent, args, mem) mem.k = 0 end,
                  tick = function(agent, args, mem) mem.k = mem.k + 1; agent.bb.k = mem.k
                                                    if mem.k >= 10 then return thicket.SUCCESS end
                                                    return thicket.RUNNING end } }
)LUA");
  const std::string v1 = R"YAML(
tree: t
leaves: [count.lua]
blackboard: {k: 0, gone: 1, kind: 2}
root:
  sequence:
    - repeat: {name: rep, times: 5, child: {action: {leaf: Step, name: first}}}
    - action: {leaf: Step, name: second}
)YAML";
  const std::string v2 = R"YAML(
tree: t
leaves: [count.lua]
blackboard: {k: 0, fresh: 5, kind: 2}
root:
  sequence:
    - action: {leaf: Step, name: zeroth}
    - repeat: {name: rep, times: 5, child: {action: {leaf: Step, name: first}}}
    - action: {leaf: Step, name: second}
)YAML";
  auto path = dir.write("t.yaml", v1).string();
  Runtime a;
  std::vector<Diagnostic> diags;
  auto b1 = a.load_file(path, diags);
  REQUIRE(b1);
  AgentHandle h = a.spawn(*b1);
  for (int t = 0; t < 4; ++t) a.tick(h, 0.1);
  SnapshotWriter w;
  a.save(w);

  dir.write("t.yaml", v2);
  Runtime b;
  REQUIRE(b.load_file(path, diags));
  SnapshotReader in(w.bytes());
  REQUIRE_MESSAGE(b.restore(in, diags), all_diags(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].severity == Severity::Note);
  CHECK(diags[0].message.find("changed since the snapshot") != std::string::npos);
  CHECK(diags[0].message.find("4 nodes kept, 1 added, 0 removed") != std::string::npos);
  AgentHandle r = b.agents().at(0);
  // The running nodes (kept) go on, `first` with its mem; the blackboard follows by key.
  CHECK(b.running_nodes(r) == a.running_nodes(h));
  CHECK(b.get(r, "k") == a.get(h, "k"));
  CHECK(b.get(r, "fresh") == std::optional<Value>(Value(5.0)));
  b.tick(r, 0.1);
  a.tick(h, 0.1);
  CHECK(b.get(r, "k") == a.get(h, "k"));

  // A key that changed type is refused, and the runtime keeps what it had.
  dir.write("t.yaml", "tree: t\nleaves: [count.lua]\nblackboard: {k: \"text\"}\nroot: {action: Step}\n");
  Runtime c;
  REQUIRE(c.load_file(path, diags));
  AgentHandle mine = c.spawn(BrainHandle{0});
  diags.clear();
  SnapshotReader again(w.bytes());
  CHECK(!c.restore(again, diags));
  CHECK(all_diags(diags).find("blackboard key 'k' is string now and was number") != std::string::npos);
  CHECK(c.agent_count() == 1);
  CHECK(c.agent_id(mine) == 1);

  // A brain that is not loaded is named, with those that are.
  Runtime d;
  diags.clear();
  SnapshotReader third(w.bytes());
  CHECK(!d.restore(third, diags));
  CHECK(all_diags(diags).find("is not loaded in this runtime: load it before restoring (loaded: none)") != std::string::npos);

  // A file the snapshot's runtime loaded twice (two brains), loaded once here: said so (it said
  // the brain "is not loaded", naming it among those loaded).
  {
    Runtime twice;
    auto t1 = twice.load_file(path, diags), t2 = twice.load_file(path, diags);
    REQUIRE(t1);
    REQUIRE(t2);
    twice.spawn(*t1);
    twice.spawn(*t2);
    SnapshotWriter both;
    twice.save(both);
    Runtime once;
    REQUIRE(once.load_file(path, diags));
    diags.clear();
    SnapshotReader in2(both.bytes());
    CHECK(!once.restore(in2, diags));
    CHECK(all_diags(diags).find("the snapshot has 2 brains loaded from " + path + ", and this runtime loaded it 1 time(s)") !=
          std::string::npos);
    CHECK(all_diags(diags).find("is not loaded") == std::string::npos);
  }

  // The same file under another spelling is the same brain (it "was not loaded").
  dir.write("t.yaml", v2);
  Runtime e;
  const std::string spelled = (dir.path() / "." / ".." / dir.path().filename() / "t.yaml").string();
  REQUIRE(spelled != path);
  REQUIRE(e.load_file(spelled, diags));
  diags.clear();
  SnapshotReader fourth(w.bytes());
  CHECK_MESSAGE(e.restore(fourth, diags), all_diags(diags));
  CHECK(e.agent_count() == 1);
}

TEST_CASE("snapshot: other versions, truncations and damaged bytes are refused; the runtime stays as it was") {
  ScratchDir dir;
  write_brains(dir);
  SavedRun src(dir);
  src.rt.spawn(src.brains[0]);
  src.rt.spawn(src.brains[1]);
  src.rt.spawn(src.brains[2]);
  for (int t = 0; t < 6; ++t) src.rt.tick_all(0.1);
  const std::string bytes = src.save();

  SavedRun target(dir);
  target.spawn_all();
  target.rt.tick_all(0.1);
  const std::string before = target.save();
  auto refused = [&](std::string_view b) {
    SnapshotReader in(b);
    std::vector<Diagnostic> diags;
    bool ok = target.rt.restore(in, diags);
    if (!ok) {
      CHECK(has_errors(diags));
      CHECK(!in.ok());
      CHECK(target.save() == before);
    }
    return !ok;
  };

  std::string other = bytes;
  for (char version : {3, 5}) {  // 3: before each agent's slicing; 5: a newer thicket's
    other[8] = version;
    SnapshotReader in(other);
    std::vector<Diagnostic> diags;
    CHECK(!target.rt.restore(in, diags));
    CHECK(all_diags(diags).find("format version " + std::to_string(version) + "; this thicket reads version 4 only") !=
          std::string::npos);
  }
  CHECK(refused("not a snapshot at all"));
  {  // one byte short (21 bytes of header before the payload): said with the checksum counted
     // (without it, the bytes left read as more than announced)
    SnapshotReader in(std::string_view(bytes).substr(0, bytes.size() - 1));
    std::vector<Diagnostic> diags;
    CHECK(!target.rt.restore(in, diags));
    CHECK(all_diags(diags).find("bytes of agents and an 8-byte checksum, and " + std::to_string(bytes.size() - 1 - 21) +
                                " bytes are left") != std::string::npos);
  }
  // Every length in the Release build. The sanitizer build (ten times slower; this loop alone
  // took 35 s there) takes every length of the header and every 7th after it, the last few
  // included: fuzz/checkpoint_fuzz.cpp cuts snapshots far more thoroughly under the same sanitizers.
#if defined(THICKET_UNDER_SANITIZER)
  constexpr size_t kCutStride = 7;
#else
  constexpr size_t kCutStride = 1;
#endif
  for (size_t n = 0; n < bytes.size(); ++n)
    if (n < 64 || n % kCutStride == 0 || n + 8 > bytes.size()) CHECK(refused(std::string_view(bytes).substr(0, n)));

  // Damaged bytes: the checksum catches them.
  uint64_t rng = 12345;
  auto next = [&]() { return rng = Rng::mix(rng + 0x9e3779b97f4a7c15ULL); };
  for (int k = 0; k < 300; ++k) {
    std::string damaged = bytes;
    damaged[next() % damaged.size()] ^= static_cast<char>(1 + next() % 255);
    CHECK(refused(damaged));
  }
  // Damage behind a good checksum reaches the checks of the contents: whatever they let
  // through must tick without harm (this is what ASan watches).
  // A refused snapshot leaves its runtime as it was (agentless here), so the next one is
  // restored into the same runtime; a runtime that took one is replaced (2,000 runtimes made
  // and torn down took 53 s of the ASan build's unit tests; now one per accepted snapshot).
  const size_t payload = 8 + 4 + 1 + 8;
  size_t accepted = 0;
  auto fresh = std::make_unique<SavedRun>(dir);
  const std::string empty = fresh->save();
  const int forgeries = sanitizer_sample(2000);
  for (int k = 0; k < forgeries; ++k) {
    std::string damaged = bytes;
    int flips = 1 + static_cast<int>(next() % 3);
    for (int f = 0; f < flips; ++f)
      damaged[payload + next() % (damaged.size() - payload - 8)] ^= static_cast<char>(1 << (next() % 8));
    std::string_view body(damaged.data() + payload, damaged.size() - payload - 8);
    uint64_t sum = snapshot_checksum(body);
    for (int i = 0; i < 8; ++i) damaged[damaged.size() - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xFF);
    SnapshotReader in(damaged);
    std::vector<Diagnostic> diags;
    if (fresh->rt.restore(in, diags)) {
      ++accepted;
      for (int t = 0; t < 5; ++t) fresh->rt.tick_all(0.1);
      fresh = std::make_unique<SavedRun>(dir);
    } else {
      CHECK(fresh->rt.agent_count() == 0);
      CHECK(fresh->save() == empty);
    }
  }
  MESSAGE("damaged snapshots with good checksums accepted: " << accepted << " of " << forgeries);
}

TEST_CASE("snapshot: plain values round-trip; bad ones are refused") {
  PlainValue t;
  t.tag = PlainTag::Table;
  PlainValue k, v;
  k.tag = PlainTag::String;
  k.text = "x";
  v.tag = PlainTag::Number;
  v.number = 2.5;
  t.entries.push_back({k, v});
  SnapshotWriter w;
  write_plain(w, t);
  SnapshotReader r(w.bytes());
  PlainValue back;
  read_plain(r, back);
  CHECK(r.ok());
  REQUIRE(back.entries.size() == 1);
  CHECK(back.entries[0].value.number == 2.5);
  // A table nested past the limit, a nil key.
  SnapshotWriter deep;
  for (int d = 0; d < kPlainMaxDepth + 2; ++d) {
    deep.u8(static_cast<uint8_t>(PlainTag::Table));
    deep.u32(1);
    deep.u8(static_cast<uint8_t>(PlainTag::True));
  }
  SnapshotReader rd(deep.bytes());
  PlainValue p;
  read_plain(rd, p);
  CHECK(!rd.ok());
  SnapshotWriter nil_key;
  write_plain_table(nil_key, 1);
  nil_key.u8(static_cast<uint8_t>(PlainTag::Nil));
  nil_key.u8(static_cast<uint8_t>(PlainTag::True));
  SnapshotReader rn(nil_key.bytes());
  read_plain(rn, p);
  CHECK(!rn.ok());
}

TEST_CASE("snapshot: scripts' values saved by value past the heap's cap refuse the save, at once and with the reason") {
  // Tables and texts are saved once for each field that reaches them: one 4 MB text in five
  // fields of two agents is 40 MB of a 16 MiB heap; tables sharing tables thirty levels deep
  // would be a billion copies. Both refuse the save (it held 524 MB for two agents, and the
  // shared tables did not end), and the runtime goes on.
  ScratchDir dir;
  dir.write("hoard.lua", R"LUA(
local big = string.rep("x", 4 << 20)
local shared = {1}
for i = 1, 30 do shared = {shared, shared} end
return { Text = function(agent) agent.a = {big, big, big, big, big}; return true end,
         Tables = function(agent) agent.d = shared; return true end,
         BbText = function(agent) agent.bb.v = {big, big, big, big, big}; return true end,
         BbTables = function(agent) agent.bb.v = shared; return true end }
)LUA");
  // (The same in an `any` blackboard key: its values are written before the agent table, which
  // set the budget, so they had none: the save held 15 GB and ended in bad_alloc.)
  for (const char* leaf : {"Text", "Tables", "BbText", "BbTables"}) {
    CAPTURE(leaf);
    const auto path = dir.write(std::string(leaf) + ".yaml", std::string("tree: t\nleaves: [hoard.lua]\n") +
                                                                "blackboard: {v: {type: any}}\nroot: {action: " + leaf + "}\n");
    RuntimeOptions o;
    o.lua_memory_limit = size_t(16) << 20;
    o.log = [](const std::string&) {};
    Runtime rt(o);
    std::vector<Diagnostic> diags;
    REQUIRE(rt.load_file(path.string(), diags));
    rt.spawn(BrainHandle{0});
    rt.spawn(BrainHandle{0});
    rt.tick_all(0.1);
    SnapshotWriter w;
    diags.clear();
    CHECK_FALSE(rt.save(w, diags));
    REQUIRE(!diags.empty());
    CHECK(diags[0].message.find("the scripts' values would take more than 16 MiB in the snapshot, the Lua heap's cap "
                                "(tables and texts are saved by value, once for each field that reaches them") !=
          std::string::npos);
    CHECK(w.bytes().size() < (size_t(40) << 20));
    rt.tick_all(0.1);  // goes on
  }
}

TEST_CASE("snapshot: a running position follows its child when the brain's state layout moved") {
  // v2 adds a wait (8 bytes of state), so the sequence's position moves in the block; the
  // restore (and a hot reload, the same remap) must read it where the copy put it.
  ScratchDir dir;
  dir.write("ab.lua", R"LUA(
local thicket = require("thicket")
return { A = function(agent) agent.bb.a_runs = agent.bb.a_runs + 1; return true end,
         B = function(agent) return thicket.RUNNING end }
)LUA");
  auto path = dir.write("ab.yaml", "tree: ab\nleaves: [ab.lua]\nblackboard: {a_runs: 0}\n"
                                   "root: {sequence: [{action: {leaf: A, name: a}}, {action: {leaf: B, name: b}}]}\n")
                  .string();
  std::vector<std::string> log;
  RuntimeOptions quiet;
  quiet.log = [&log](const std::string& l) { log.push_back(l); };
  Runtime a(quiet);
  std::vector<Diagnostic> diags;
  REQUIRE(a.load_file(path, diags));
  AgentHandle h = a.spawn(BrainHandle{0});
  a.tick(h, 0.1);
  a.tick(h, 0.1);
  CHECK(a.get(h, "a_runs") == std::optional<Value>(Value(1.0)));
  SnapshotWriter w;
  a.save(w);
  dir.write("ab.yaml", "tree: ab\nleaves: [ab.lua]\nblackboard: {a_runs: 0}\n"
                       "root: {sequence: [{action: {leaf: A, name: a}}, {action: {leaf: B, name: b}}, {wait: {name: w, seconds: 1}}]}\n");
  Runtime b;
  REQUIRE(b.load_file(path, diags));
  SnapshotReader in(w.bytes());
  REQUIRE(b.restore(in, diags));
  AgentHandle r = b.agents().at(0);
  b.tick(r, 0.1);
  CHECK(b.get(r, "a_runs") == std::optional<Value>(Value(1.0)));  // b goes on; a is not run again
  CHECK(b.running_nodes(r) == std::vector<std::string>{"root", "b"});
  // The same change as a hot reload of the running runtime.
  REQUIRE(a.reload_files({path}) == 1);
  a.tick(h, 0.1);
  CHECK(a.get(h, "a_runs") == std::optional<Value>(Value(1.0)));
  CHECK(a.running_nodes(h) == std::vector<std::string>{"root", "b"});
}

TEST_CASE("snapshot: a brain that no saved agent uses need not be loaded") {
  ScratchDir dir;
  write_brains(dir);
  SavedRun a(dir);
  a.rt.spawn(a.brains[1]);
  a.rt.tick_all(0.1);
  SnapshotWriter w;
  a.rt.save(w);
  Runtime b;
  std::vector<Diagnostic> diags;
  REQUIRE(b.load_file((dir.path() / "fsm.yaml").string(), diags));
  SnapshotReader in(w.bytes());
  REQUIRE_MESSAGE(b.restore(in, diags), all_diags(diags));
  CHECK(diags.empty());
  CHECK(b.agent_count() == 1);
}

TEST_CASE("snapshot: time-sliced agents keep their turn, their clock and their tick_every") {
  // A brain ticked by every 3rd tick_all, one agent set to every 2nd, a wait of 0.5 s: a run of
  // 2T calls and a run of T calls, saved, restored into a fresh runtime and run T more tick the
  // same agents at the same calls with the same clocks (format 3 restarted each sliced agent's
  // clock at 0 and the call count, so the turns moved and waits ended late).
  ScratchDir dir;
  dir.write("sliced.yaml", "tree: sliced\ntick_every: 3\nroot:\n  sequence:\n    - action: Clock\n"
                           "    - wait: 0.5\n    - action: Clock\n");
  struct Sliced {
    explicit Sliced(const ScratchDir& dir) {
      NativeLeaf clock;
      clock.tick = [this](LeafContext& x) {
        std::ostringstream line;
        line << "a" << x.agent_id() << " tick " << x.tick() << " time " << x.time() << " dt " << x.dt();
        seen.push_back(line.str());
        return Status::Success;
      };
      rt.register_leaf("Clock", clock);
      std::vector<Diagnostic> d;
      auto b = rt.load_file((dir.path() / "sliced.yaml").string(), d);
      REQUIRE_MESSAGE(b.has_value(), all_diags(d));
      brain = *b;
    }
    void spawn() {
      for (int k = 0; k < 5; ++k) rt.spawn(brain);
      REQUIRE(rt.set_tick_every(*rt.find_agent(4), 2));
    }
    Runtime rt;
    BrainHandle brain;
    std::vector<std::string> seen;
  };
  const int T = 8;
  const double dt = 0.1;
  Sliced whole(dir);
  whole.spawn();
  for (int t = 0; t < T; ++t) whole.rt.tick_all(dt);
  const size_t first_half = whole.seen.size();
  for (int t = 0; t < T; ++t) whole.rt.tick_all(dt);
  std::vector<std::string> second_half(whole.seen.begin() + static_cast<long>(first_half), whole.seen.end());
  REQUIRE(second_half.size() > 4);

  Sliced half(dir);
  half.spawn();
  for (int t = 0; t < T; ++t) half.rt.tick_all(dt);
  SnapshotWriter w;
  half.rt.save(w);
  const std::string bytes = w.take();

  Sliced resumed(dir);
  resumed.rt.tick_all(dt);  // its own call count and clock, which the restore replaces
  SnapshotReader in(bytes);
  std::vector<Diagnostic> diags;
  REQUIRE_MESSAGE(resumed.rt.restore(in, diags), all_diags(diags));
  CHECK(resumed.rt.tick_every(*resumed.rt.find_agent(4)) == 2);
  CHECK(resumed.rt.tick_every(*resumed.rt.find_agent(5)) == 3);
  resumed.seen.clear();
  for (int t = 0; t < T; ++t) resumed.rt.tick_all(dt);
  CHECK(resumed.seen == second_half);

  // One agent into another runtime, whose call clock is elsewhere: its clock goes on from its
  // own time (its turn is the new runtime's).
  SnapshotWriter one;
  half.rt.save(*half.rt.find_agent(2), one);
  const std::string agent_bytes = one.take();
  Sliced other(dir);
  for (int t = 0; t < 4; ++t) other.rt.tick_all(dt);
  SnapshotReader agent_in(agent_bytes);
  auto restored = other.rt.restore_agent(agent_in, diags);
  REQUIRE_MESSAGE(restored.has_value(), all_diags(diags));
  // The time of agent 2's last tick in a list of lines.
  auto last_time = [](const std::vector<std::string>& lines) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
      if (it->rfind("a2 ", 0) == 0) return std::stod(it->substr(it->find(" time ") + 6));
    return -1.0;
  };
  const double time_at_save = last_time(half.seen);
  CHECK(time_at_save == doctest::Approx(0.2));  // its first Clock; then it waits from 0.2 to 0.7
  for (int t = 0; t < 3; ++t) other.rt.tick_all(dt);
  // Saved at call time 0.8, 0.8 s after its spawn; restored at the other runtime's call time 0.4
  // and ticked at its call 5 (0.5): 0.9 s after its spawn, so its wait is over.
  CHECK(last_time(other.seen) == doctest::Approx(0.9));
}

TEST_CASE("snapshot: a stop hook that throws in a restore stops neither the others nor the restore") {
  // The edit moves the running native `hold` under a new sequence: the restore stops it in each
  // agent. The first hook threw halfway through installing them: one agent in, a count of 0,
  // the others gone.
  ScratchDir dir;
  const std::string v1 = "tree: t\nroot:\n  sequence:\n    - action: {leaf: Hold, name: hold}\n";
  const std::string v2 = "tree: t\nroot:\n  sequence:\n    - sequence: {name: wrap, children: [{action: {leaf: Hold, name: hold}}]}\n";
  const std::string path = dir.write("t.yaml", v1).string();
  int stops = 0;
  auto hold = [&stops](bool throws) {
    NativeLeaf leaf;
    leaf.tick = [](LeafContext&) { return Status::Running; };
    leaf.stop = [&stops, throws](LeafContext& c, Status) {
      ++stops;
      if (throws && c.agent_id() == 1) throw std::runtime_error("stop hook of agent 1");
    };
    return leaf;
  };
  Runtime a;
  a.register_leaf("Hold", hold(false));
  std::vector<Diagnostic> diags;
  auto b1 = a.load_file(path, diags);
  REQUIRE(b1);
  for (int k = 0; k < 3; ++k) a.spawn(*b1);
  a.tick_all(0.1);
  SnapshotWriter w;
  a.save(w);
  dir.write("t.yaml", v2);
  Runtime b;
  b.register_leaf("Hold", hold(true));
  REQUIRE(b.load_file(path, diags));
  SnapshotReader in(w.bytes());
  CHECK_THROWS_WITH(b.restore(in, diags), "stop hook of agent 1");
  CHECK(stops == 3);
  CHECK(b.agent_count() == 3);
  CHECK(b.agents().size() == 3);
  b.tick_all(0.1);
  for (AgentHandle h : b.agents()) CHECK(b.running_nodes(h) == std::vector<std::string>{"root", "wrap", "hold"});
}

TEST_CASE("snapshot: a restore says the running nodes an edit removed, and traces the events it drops") {
  ScratchDir dir;
  dir.write("l.lua", "local thicket = require('thicket')\nlocal L = {}\n"
                     "function L.Done(agent) if thicket.tick() >= 2 then return 'success' end return 'running' end\n"
                     "L.Hold = {tick = function() return 'running' end}\nreturn L\n");
  // `work` succeeds in tick 2: its `success` waits in the queue; `other` runs Hold.
  const std::string v1 = "fsm: f\nleaves: [l.lua]\nstates:\n  work:\n    act: {leaf: Done}\n    transitions: {success: other}\n"
                         "  other: {act: {leaf: Hold}}\n";
  const std::string path = dir.write("f.yaml", v1).string();
  Runtime a;
  std::vector<Diagnostic> diags;
  auto b1 = a.load_file(path, diags);
  REQUIRE(b1);
  a.spawn(*b1);
  a.tick_all(0.1);
  a.tick_all(0.1);
  SnapshotWriter w;
  a.save(w);
  // `work` renamed: the event its state sent is stale.
  std::string v2 = v1;
  v2.replace(v2.find("  work:"), 7, "  job:");
  dir.write("f.yaml", v2);
  Runtime b;
  std::vector<TraceEvent> events;
  b.on_trace([&](const TraceEvent& e) {
    if (e.type == TraceEvent::Type::Event) events.push_back(e);
  });
  REQUIRE(b.load_file(path, diags));
  diags.clear();
  SnapshotReader in(w.bytes());
  REQUIRE_MESSAGE(b.restore(in, diags), all_diags(diags));
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == "success");
  CHECK(events[0].stale);
  CHECK(events[0].reload);
  CHECK(events[0].from_name == "work");

  // A running node the edit removed: dropped without its stop hook, and the note says so.
  a.tick_all(0.1);  // now in `other`, Hold running
  SnapshotWriter w2;
  a.save(w2);
  dir.write("f.yaml", "fsm: f\nleaves: [l.lua]\nstates:\n  work:\n    act: {leaf: Done}\n    transitions: {success: other}\n"
                      "  other: {}\n");
  Runtime c;
  REQUIRE(c.load_file(path, diags));
  diags.clear();
  SnapshotReader in2(w2.bytes());
  REQUIRE_MESSAGE(c.restore(in2, diags), all_diags(diags));
  CHECK(all_diags(diags).find("1 running node(s) it removed are dropped without their stop hooks") != std::string::npos);
}

TEST_CASE("snapshot: saving an agent through a stale handle is refused with the reason") {
  ScratchDir dir;
  dir.write("l.lua", "return {Hold = function() return 'running' end}\n");
  const std::string path = dir.write("t.yaml", "tree: t\nleaves: [l.lua]\nroot: {action: Hold}\n").string();
  Runtime rt;
  std::vector<Diagnostic> diags;
  auto b = rt.load_file(path, diags);
  REQUIRE(b);
  AgentHandle h = rt.spawn(*b);
  rt.despawn(h);
  SnapshotWriter w;
  diags.clear();
  CHECK_FALSE(rt.save(h, w, diags));  // it said yes and wrote nothing
  CHECK(w.bytes().empty());
  CHECK(all_diags(diags).find("the agent handle is stale") != std::string::npos);
}
