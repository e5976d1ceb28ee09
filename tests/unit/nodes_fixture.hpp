// The fixture of the node tests (tests/unit/compiler/nodes/): every node kind of SPEC 3.2-3.4, the abort
// rules of 3.1 and the conditional aborts of 3.5, tick by tick. Each test states its tree inline,
// ticks it with native leaves that write every call to a log in the examples' format
// (`3 start a`, `3 tick a running`, `3 stop a aborted`, `3 eval c true`), and compares that log
// and the root's status after each tick (`status K S`, at the end, as in
// tests/spec_examples/*.expected). Time is the sim clock; randomness a fixed seed.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "thicket/runtime.hpp"

namespace thicket_test {

using thicket::LeafContext;
using thicket::NativeLeaf;
using thicket::Status;


// Drops the newline that follows R"( so expectations can start on their own line.
inline std::string text(const char* s) {
  std::string t = s;
  if (!t.empty() && t[0] == '\n') t.erase(0, 1);
  return t;
}

inline std::string status_str(Status s) { return std::string(thicket::status_name(s)); }

// A runtime with scripted native leaves that log every call.
//   cond(name, ticks)  a condition, true on the agent ticks listed; logs `K eval NAME true|false`
//                      (its raw result, before `negate`, as the examples do).
//   act(name, script)  an action whose n-th tick of a run returns script[n] ('S', 'F', 'R'; the
//                      last entry repeats); logs start, tick and stop.
// Log decorator lines whose message was passed to watch() are folded into the same log as
// `K log MESSAGE EVENT`, so their order against the leaf calls can be checked.
class Bt {
 public:
  explicit Bt(uint64_t seed = 1)
      : rt(thicket::RuntimeOptions{.seed = seed, .log = [this](const std::string& line) { on_log(line); }}) {}

  void cond(const std::string& name, std::set<uint64_t> at) {
    rt.register_leaf(name, NativeLeaf{
                               .tick =
                                   [this, name, at](LeafContext& c) {
                                     bool r = at.count(c.tick()) > 0;
                                     emit(c, "eval " + name + (r ? " true" : " false"));
                                     return r ? Status::Success : Status::Failure;
                                   },
                               // A condition has no start/stop hooks (SPEC 3.4): these must never run.
                               .start = [this, name](LeafContext& c) { emit(c, "HOOK start " + name); },
                               .stop = [this, name](LeafContext& c, Status s) {
                                 emit(c, "HOOK stop " + name + " " + status_str(s));
                               }});
  }

  void act(const std::string& name, std::string script) {
    rt.register_leaf(name, NativeLeaf{
                               .tick =
                                   [this, name, script](LeafContext& c) {
                                     int& n = runs[run_key(c)];
                                     ++n;
                                     char s = script[std::min<size_t>(static_cast<size_t>(n), script.size()) - 1];
                                     Status st = s == 'S' ? Status::Success : s == 'F' ? Status::Failure : Status::Running;
                                     emit(c, "tick " + name + " " + status_str(st));
                                     return st;
                                   },
                               .start =
                                   [this, name](LeafContext& c) {
                                     runs[run_key(c)] = 0;
                                     node_of[name] = c.node_id();
                                     emit(c, "start " + name);
                                   },
                               .stop = [this, name](LeafContext& c, Status s) {
                                 emit(c, "stop " + name + " " + status_str(s));
                               }});
  }

  void watch(const std::string& message) { watched.push_back(message); }

  thicket::BrainHandle load(const std::string& yaml, const std::string& name = "nodes_test.yaml") {
    std::vector<thicket::Diagnostic> d;
    auto b = rt.load_string(yaml, name, d);
    std::string all;
    for (const auto& x : d) all += thicket::format_diagnostic(x) + "\n";
    INFO(all);
    REQUIRE(b.has_value());
    brain = *b;
    return *b;
  }

  // Ticks the test's agent (spawned on first use) `ticks` times; returns the calls made in those
  // ticks followed by the root's status after each.
  std::string run(int ticks, double dt = 0.5) {
    if (!agent.valid()) agent = rt.spawn(brain);
    std::string statuses;
    size_t from = calls.size();
    for (int i = 0; i < ticks; ++i) {
      ++k;
      Status s = rt.tick(agent, dt);
      statuses += "status " + std::to_string(k) + " " + status_str(s) + "\n";
    }
    return calls.substr(from) + statuses;
  }

  // The order in which actions were started in `log` (the names after "start ").
  static std::vector<std::string> starts(const std::string& log) {
    std::vector<std::string> out;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
      size_t p = line.find(" start ");
      if (p != std::string::npos) out.push_back(line.substr(p + 7));
    }
    return out;
  }

  std::string calls;
  std::vector<std::string> log_lines;
  std::map<std::string, std::string> node_of;  // action name -> node id of its latest start
  std::vector<std::string> watched;
  thicket::BrainHandle brain;
  thicket::AgentHandle agent;
  uint64_t k = 0;
  bool prefix_agent = false;
  std::map<std::string, int> runs;
  thicket::Runtime rt;  // last: its log callback uses the members above

 private:
  static std::string run_key(LeafContext& c) { return std::to_string(c.agent_id()) + "|" + c.node_id(); }
  void emit(LeafContext& c, const std::string& what) {
    if (prefix_agent) calls += "a" + std::to_string(c.agent_id()) + " ";
    calls += std::to_string(c.tick()) + " " + what + "\n";
  }
  void on_log(const std::string& line) {
    log_lines.push_back(line);
    for (const auto& m : watched) {
      size_t p = line.find(m);
      if (p == std::string::npos) continue;
      std::string rest = line.substr(p + m.size());
      const char* event = nullptr;
      for (const char* e : {"aborted", "success", "failure", "running", "start"})
        if (!event && rest.find(e) != std::string::npos) event = e;
      calls += std::to_string(k) + " log " + m + " " + (event ? event : "?") + "\n";
      return;
    }
  }
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace thicket_test
