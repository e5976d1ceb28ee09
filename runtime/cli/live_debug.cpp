#include "live_debug.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "json_shown.hpp"
#include "suggest.hpp"

namespace thicket::cli {

namespace {

// The most breakpoints one POST /api/breakpoints sets (each is matched against every live agent).
constexpr size_t kMaxBreakpoints = 1000;

using OrderedJson = nlohmann::ordered_json;

std::string dump(const OrderedJson& j) { return j.dump(-1, ' ', false, OrderedJson::error_handler_t::replace); }
// A submitted key or value as an error names it: its first 60 bytes and its length past that
// (a refused 1 MB string was echoed whole).
std::string excerpt(const std::string& text) { return clipped(text, 60); }

ApiReply reply(int status, const OrderedJson& j) { return {status, dump(j)}; }
ApiReply error_reply(int status, const std::string& why) { return reply(status, OrderedJson{{"error", why}}); }
ApiReply failed(const std::string& why) { return reply(200, OrderedJson{{"ok", false}, {"error", why}}); }

std::string normal_path(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::path(path), ec);
  return ec ? std::filesystem::path(path).lexically_normal().string() : p.string();
}

OrderedJson value_json(const Value& v) {
  if (auto d = std::get_if<double>(&v)) return std::isfinite(*d) ? OrderedJson(*d) : OrderedJson(std::to_string(*d));
  if (auto i = std::get_if<int64_t>(&v)) return OrderedJson(*i);
  if (auto b = std::get_if<bool>(&v)) return OrderedJson(*b);
  if (auto s = std::get_if<std::string>(&v)) return OrderedJson(*s);
  return OrderedJson(nullptr);
}

const char* type_name(const Value& v) {
  if (std::holds_alternative<double>(v)) return "a number";
  if (std::holds_alternative<int64_t>(v)) return "an integer";
  if (std::holds_alternative<bool>(v)) return "a boolean";
  if (std::holds_alternative<std::string>(v)) return "a string";
  return "nil";
}

// FNV-1a of the node ids: tells whether a reload changed a brain's node table.
uint64_t nodes_hash(const std::vector<NodeInfo>& nodes) {
  uint64_t h = 1469598103934665603ULL;
  for (const NodeInfo& n : nodes) {
    for (unsigned char c : n.id) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  }
  return h;
}

// Whether an agent entered a node in this tick, from its status at the end of the agent's
// previous tick and now (the rule of live_debug.hpp).
bool entered(char before, char now) {
  if (now == 'R') return before != 'R';
  if (now == 'S' || now == 'F') return before != 'R' && before != now;
  return false;
}

std::optional<uint64_t> parse_id(const OrderedJson& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  return std::nullopt;
}

}  // namespace

// ---- server threads ----

ApiReply LiveDebugger::submit(std::function<std::optional<ApiReply>()> work) {
  auto job = std::make_shared<Job>();
  job->work = std::move(work);
  std::unique_lock<std::mutex> lock(mutex_);
  if (closed_) return error_reply(503, "the run is no longer served");
  queue_.push_back(job);
  queued_.notify_all();
  if (!answered_.wait_for(lock, kAnswerWithin, [&] { return job->done; }))
    return error_reply(503, "the run did not answer within " + std::to_string(kAnswerWithin.count()) +
                                " s (it is loading, or a tick takes that long)");
  return job->reply;
}

ApiReply LiveDebugger::request(const std::string& method, const std::string& path,
                               const std::map<std::string, std::string>& params, const std::string& body) {
  static const std::map<std::string, std::string> kMethods = {
      {"/api/agents", "GET"}, {"/api/agent", "GET"},   {"/api/debug", "GET"},   {"/api/blackboard", "POST"},
      {"/api/breakpoints", "POST"}, {"/api/pause", "POST"}, {"/api/resume", "POST"}, {"/api/step", "POST"},
      {"/api/reload", "POST"}};
  auto known = kMethods.find(path);
  if (known == kMethods.end()) return error_reply(404, "no API endpoint " + path);
  if (method != known->second) return error_reply(405, path + " takes " + known->second);
  OrderedJson in;
  if (method == "POST") {
    in = OrderedJson::parse(body.empty() ? std::string("{}") : body, nullptr, false);
    if (in.is_discarded()) return reply(400, OrderedJson{{"ok", false}, {"error", "the body is not JSON"}});
    if (!in.is_object()) return reply(400, OrderedJson{{"ok", false}, {"error", "the body must be a JSON object"}});
  }

  if (path == "/api/agents") {
    // ?file=PATH: only the agents whose brain is that file (the same file, not one of the same
    // name in another folder), listed up to kMaxListed of them: an editor's picker found none
    // of its file's agents when the first 2,000 of the run were of other brains.
    auto f = params.find("file");
    std::optional<std::string> only;
    if (f != params.end()) only = normal_path(f->second);
    return submit([this, only]() -> std::optional<ApiReply> {
      OrderedJson agents = OrderedJson::array();
      if (sim_) sim_->live_agents(refs_);
      std::map<std::string, bool> same;  // a brain's path, as the run gives it: the file's?
      uint64_t matched = 0;
      for (const auto& a : refs_) {
        const BrainHandle b = a.runtime->brain_of(a.handle);
        if (only) {
          const std::string& file = a.runtime->brain_path(b);
          auto at = same.find(file);
          if (at == same.end()) at = same.emplace(file, normal_path(file) == *only).first;
          if (!at->second) continue;
          ++matched;
        }
        if (agents.size() >= kMaxListed) {
          if (only) continue;  // (counted)
          break;
        }
        agents.push_back({{"id", a.id},
                          {"brain", a.runtime->brain_name(b)},
                          {"file", a.runtime->brain_path(b)},
                          {"status", std::string(status_name(a.runtime->status(a.handle)))}});
      }
      OrderedJson out{{"tick", tick_}, {"paused", paused_}, {"done", done_}, {"count", refs_.size()}};
      if (only) out["matched"] = matched;
      out["agents"] = std::move(agents);
      return reply(200, out);
    });
  }

  if (path == "/api/agent") {
    auto p = params.find("id");
    uint64_t id = 0;
    if (p == params.end() || p->second.empty() || p->second.size() > 10 ||
        p->second.find_first_not_of("0123456789") != std::string::npos)
      return error_reply(400, "/api/agent needs ?id=N (an agent id)");
    id = std::stoull(p->second);
    return submit([this, id]() -> std::optional<ApiReply> {
      if (sim_) sim_->live_agents(refs_);
      for (const auto& a : refs_) {
        if (a.id != id) continue;
        const BrainHandle b = a.runtime->brain_of(a.handle);
        statuses_.clear();
        a.runtime->node_statuses(a.handle, statuses_);
        OrderedJson bb = OrderedJson::object();
        for (const std::string& key : a.runtime->blackboard_keys(b))
          if (auto v = a.runtime->get(a.handle, key)) bb[key] = value_json(*v);
        return reply(200, OrderedJson{{"id", a.id},
                               {"brain", a.runtime->brain_name(b)},
                               {"file", a.runtime->brain_path(b)},
                               {"tick", tick_},
                               {"status", std::string(status_name(a.runtime->status(a.handle)))},
                               {"statuses", statuses_},
                               {"blackboard", std::move(bb)}});
      }
      return error_reply(404, "no agent " + std::to_string(id));
    });
  }

  if (path == "/api/debug")
    return submit([this]() -> std::optional<ApiReply> {
      OrderedJson hit = nullptr;
      if (hit_)
        hit = OrderedJson{{"agent", hit_->agent}, {"file", hit_->file}, {"brain", hit_->brain}, {"node", hit_->node}, {"tick", hit_->tick}};
      // The breakpoints themselves too, as they were set: a page loaded again (or another
      // client) shows the ones the run holds, rather than a count it cannot clear.
      OrderedJson list = OrderedJson::array();
      for (const Breakpoint& bp : breakpoints_)
        list.push_back(bp.file.empty() ? OrderedJson{{"brain", bp.brain}, {"node", bp.node}}
                                       : OrderedJson{{"file", bp.given}, {"node", bp.node}});
      return reply(200, OrderedJson{{"paused", paused_}, {"tick", tick_}, {"done", done_}, {"breakpoints", breakpoints_.size()},
                             {"breakpoint_list", std::move(list)}, {"hit", std::move(hit)}});
    });

  if (path == "/api/blackboard") {
    auto id = in.contains("id") ? parse_id(in["id"]) : std::nullopt;
    if (!id) return reply(400, OrderedJson{{"ok", false}, {"error", "/api/blackboard needs \"id\": an agent id"}});
    if (!in.contains("key") || !in["key"].is_string())
      return reply(400, OrderedJson{{"ok", false}, {"error", "/api/blackboard needs \"key\": a blackboard key"}});
    if (!in.contains("value")) return reply(400, OrderedJson{{"ok", false}, {"error", "/api/blackboard needs \"value\""}});
    const OrderedJson& j = in["value"];
    if (j.is_structured())
      return reply(400, OrderedJson{{"ok", false}, {"error", "a blackboard value is a number, a boolean, a string or null (null: for an 'any' key)"}});
    std::string key = in["key"].get<std::string>();
    return submit([this, id = *id, key, j]() -> std::optional<ApiReply> {
      if (done_) return failed("the run is over");
      if (sim_) sim_->live_agents(refs_);
      for (const auto& a : refs_) {
        if (a.id != id) continue;
        const BrainHandle b = a.runtime->brain_of(a.handle);
        const std::vector<std::string> keys = a.runtime->blackboard_keys(b);
        auto now = a.runtime->get(a.handle, key);
        if (!now)
          return failed("brain " + a.runtime->brain_name(b) + " declares no blackboard key '" + excerpt(key) + "'" +
                        did_you_mean(key, keys));
        Value v;
        if (j.is_boolean()) v = j.get<bool>();
        else if (j.is_string()) v = j.get<std::string>();
        else if (j.is_number_integer() && !j.is_number_unsigned()) v = j.get<int64_t>();
        else if (j.is_number_unsigned() && j.get<uint64_t>() <= uint64_t(INT64_MAX)) v = static_cast<int64_t>(j.get<uint64_t>());
        else if (j.is_number()) v = j.get<double>();
        if (std::holds_alternative<int64_t>(*now) && std::holds_alternative<double>(v)) {  // an integer key
          const double d = std::get<double>(v);
          if (d != std::floor(d))
            return failed("'" + key + "' is an integer key: " + excerpt(shown_json(j, std::string::npos)) + " is not a whole number");
          if (!(std::fabs(d) < 9.2e18))  // (a whole number all the same: out of range, not "not whole")
            return failed("'" + key + "' is an integer key: " + excerpt(shown_json(j, std::string::npos)) +
                          " is out of its range (-9223372036854775808 to 9223372036854775807)");
          v = static_cast<int64_t>(d);
        }
        if (!a.runtime->set(a.handle, key, v))
          return failed("'" + key + "' holds " + type_name(*now) + ", not " + type_name(v) + " (" + excerpt(shown_json(j, std::string::npos)) + ")");
        return reply(200, OrderedJson{{"ok", true}});
      }
      return failed("no agent " + std::to_string(id));
    });
  }

  if (path == "/api/breakpoints") {
    if (!in.contains("breakpoints") || !in["breakpoints"].is_array())
      return reply(400, OrderedJson{{"ok", false}, {"error", "/api/breakpoints needs \"breakpoints\": [{\"file\": ..., \"node\": ...}, ...]"}});
    // Each is matched against every live agent on the run's own thread: 100,000 of them held
    // the run for seconds (and the reply came too late, as a 503, though they were set).
    if (in["breakpoints"].size() > kMaxBreakpoints)
      return reply(400, OrderedJson{{"ok", false},
                             {"error", "at most " + std::to_string(kMaxBreakpoints) + " breakpoints, got " +
                                           std::to_string(in["breakpoints"].size())}});
    std::vector<Breakpoint> set;
    for (const OrderedJson& b : in["breakpoints"]) {
      const bool file = b.is_object() && b.contains("file") && b["file"].is_string();
      const bool brain = b.is_object() && b.contains("brain") && b["brain"].is_string();
      if (!b.is_object() || !b.contains("node") || !b["node"].is_string() || (!file && !brain))
        return reply(400, OrderedJson{{"ok", false},
                               {"error", "a breakpoint is {\"file\": BRAIN.yaml, \"node\": ID} or {\"brain\": NAME, \"node\": ID}, got " +
                                             excerpt(shown_json(b, std::string::npos))}});
      set.push_back({file ? normal_path(b["file"].get<std::string>()) : "", file ? "" : b["brain"].get<std::string>(),
                     b["node"].get<std::string>(), file ? b["file"].get<std::string>() : ""});
    }
    return submit([this, set = std::move(set)]() -> std::optional<ApiReply> {
      breakpoints_ = set;
      seen_.clear();
      if (!done_) scan(false);  // what the agents run now is the "before" of the next tick
      // Each breakpoint that names no node of a running brain is set all the same (a hot reload
      // may bring its node) and listed, with why: no running brain of that file or name, or no
      // such node in it (with the closest node id).
      OrderedJson unmatched = OrderedJson::array();
      if (sim_) sim_->live_agents(refs_);
      for (const Breakpoint& bp : breakpoints_) {
        std::vector<std::string> brains, ids;
        bool found = false, brain_found = false;
        std::set<std::pair<Runtime*, uint32_t>> done;
        for (const auto& a : sim_ ? refs_ : std::vector<Simulation::AgentRef>{}) {
          const BrainHandle b = a.runtime->brain_of(a.handle);
          if (!done.insert({a.runtime, b.index}).second) continue;
          const std::string path = a.runtime->brain_path(b), name = a.runtime->brain_name(b);
          if (bp.file.empty() ? bp.brain != name : bp.file != normal_path(path)) {
            brains.push_back(bp.file.empty() ? name : path);
            continue;
          }
          brain_found = true;
          for (const NodeInfo& n : a.runtime->nodes(b)) {
            if (n.id == bp.node) found = true;
            ids.push_back(n.id);
          }
        }
        if (found) continue;
        std::sort(brains.begin(), brains.end());
        brains.erase(std::unique(brains.begin(), brains.end()), brains.end());
        const std::string what = bp.file.empty() ? "brain '" + bp.brain + "'" : "brain file '" + excerpt(bp.given) + "'";
        const std::string why =
            brain_found ? "no node '" + bp.node + "' in " + what + did_you_mean(bp.node, ids)
                        : "no agent runs " + what + (bp.file.empty() ? did_you_mean(bp.brain, brains) : "") +
                              (brains.empty() ? "" : " (running: " + join_names(brains) + ")");
        unmatched.push_back(OrderedJson{{"node", bp.node}, {"why", why}});
      }
      return reply(200, OrderedJson{{"ok", true}, {"count", breakpoints_.size()}, {"unmatched", unmatched}});
    });
  }

  if (path == "/api/pause" || path == "/api/resume")
    return submit([this, pause = path == "/api/pause"]() -> std::optional<ApiReply> {
      if (done_) return control_reply(false, "the run is over");
      paused_ = pause;
      if (!pause) hit_.reset();
      while (!step_jobs_.empty()) {  // a step not taken yet gives way to the newer command
        answer(step_jobs_.front(), control_reply(false, std::string("cancelled by ") + (pause ? "/api/pause" : "/api/resume")));
        step_jobs_.pop_front();
      }
      return control_reply(true);
    });

  if (path == "/api/step")
    return submit([this]() -> std::optional<ApiReply> {
      if (done_) return control_reply(false, "the run is over");
      paused_ = false;  // for one tick: after_tick pauses again and answers
      hit_.reset();
      return std::nullopt;
    });

  // /api/reload
  return submit([this]() -> std::optional<ApiReply> {
    if (done_ || !sim_) return reply(200, OrderedJson{{"ok", false}, {"error", "the run is over"}, {"reports", OrderedJson::array()}});
    OrderedJson reports = OrderedJson::array();
    bool ok = true;
    auto add = [&](const ReloadReport& r, bool watched) {
      OrderedJson diagnostics = OrderedJson::array();
      for (const Diagnostic& d : r.diagnostics) diagnostics.push_back(format_diagnostic(d));
      reports.push_back({{"file", r.file},
                         {"ok", r.ok},
                         {"first_error", r.first_error},
                         {"diagnostics", std::move(diagnostics)},
                         {"watch", watched}});
      ok = ok && r.ok;
    };
    // The run's own --watch reloads of the last seconds first (each file's latest), then this one's.
    const auto now = std::chrono::steady_clock::now();
    std::vector<const ReloadReport*> latest;
    for (const auto& watched : watch_reloads_) {
      if (now - watched.first > kWatchReloadsKept) continue;
      const ReloadReport& r = watched.second;  // (a structured binding: clang captures none in a lambda)
      auto same = std::find_if(latest.begin(), latest.end(), [&](const ReloadReport* l) { return l->file == r.file; });
      if (same != latest.end()) *same = &r;
      else latest.push_back(&r);
    }
    for (const ReloadReport* r : latest) add(*r, true);
    const std::vector<ReloadReport> fresh = sim_->reload_and_report();
    for (const ReloadReport& r : fresh) add(r, false);
    watch_reloads_.clear();  // (this reload's own came through watch_reloaded too)
    return reply(200, OrderedJson{{"ok", ok}, {"reports", std::move(reports)}});
  });
}

// ---- the run's thread ----

ApiReply LiveDebugger::control_reply(bool ok, const std::string& error) const {
  OrderedJson j{{"ok", ok}};
  if (!ok) j["error"] = error;
  j["paused"] = paused_;
  j["tick"] = tick_;
  return reply(200, j);
}

void LiveDebugger::answer(const std::shared_ptr<Job>& job, ApiReply reply) {
  std::lock_guard<std::mutex> lock(mutex_);
  job->reply = std::move(reply);
  job->done = true;
  answered_.notify_all();
}

void LiveDebugger::watch_reloaded(const std::vector<ReloadReport>& reports) {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(watch_reloads_, [&](const auto& w) { return now - w.first > kWatchReloadsKept; });
  for (const ReloadReport& r : reports) watch_reloads_.emplace_back(now, r);
}

void LiveDebugger::attach(Simulation* sim) {
  sim_ = sim;
  tick_ = sim ? sim->ticks_done() : 0;
}

void LiveDebugger::serve() {
  std::deque<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return;
    jobs.swap(queue_);
  }
  for (auto& job : jobs) {
    std::optional<ApiReply> r;
    try {
      r = job->work();
    } catch (const std::exception& e) {  // a bug here must not end the run
      r = error_reply(500, std::string("internal error: ") + e.what());
    }
    if (r) answer(job, std::move(*r));
    else step_jobs_.push_back(job);
  }
}

void LiveDebugger::wait_for_job(std::chrono::steady_clock::duration at_most) {
  std::unique_lock<std::mutex> lock(mutex_);
  queued_.wait_for(lock, at_most, [&] { return !queue_.empty() || closed_; });
}

void LiveDebugger::after_tick(uint64_t done) {
  tick_ = done;
  if (!step_jobs_.empty()) {
    paused_ = true;
    auto job = step_jobs_.front();
    step_jobs_.pop_front();
    if (!step_jobs_.empty()) paused_ = false;  // another step asked for: one more tick first
    answer(job, control_reply(true));
  }
  if (!breakpoints_.empty()) scan(true);
}

void LiveDebugger::scan(bool detect) {
  if (!sim_) return;
  sim_->live_agents(refs_);
  struct Resolved {
    std::vector<uint32_t> nodes;  // breakpoint nodes, in dump order
    std::vector<std::string> ids;
    uint64_t hash = 0;
  };
  std::map<std::pair<Runtime*, uint32_t>, Resolved> brains;
  std::map<std::string, std::string> canonical;  // brain_path -> weakly_canonical
  for (const auto& a : refs_) {
    const BrainHandle b = a.runtime->brain_of(a.handle);
    auto [it, fresh] = brains.try_emplace({a.runtime, b.index});
    Resolved& r = it->second;
    if (fresh) {
      const std::string path = a.runtime->brain_path(b), name = a.runtime->brain_name(b);
      auto c = canonical.find(path);
      if (c == canonical.end()) c = canonical.emplace(path, normal_path(path)).first;
      std::vector<NodeInfo> nodes;
      for (const Breakpoint& bp : breakpoints_) {
        if (bp.file.empty() ? bp.brain != name : bp.file != c->second) continue;
        if (nodes.empty()) nodes = a.runtime->nodes(b);
        for (uint32_t i = 0; i < nodes.size(); ++i)
          if (nodes[i].id == bp.node) r.nodes.push_back(i);
      }
      std::sort(r.nodes.begin(), r.nodes.end());
      r.nodes.erase(std::unique(r.nodes.begin(), r.nodes.end()), r.nodes.end());
      for (uint32_t i : r.nodes) r.ids.push_back(nodes[i].id);
      if (!r.nodes.empty()) r.hash = nodes_hash(nodes);
    }
    if (r.nodes.empty()) continue;
    if (seen_.size() <= a.id) seen_.resize(a.id + 1);
    Seen& s = seen_[a.id];
    statuses_.clear();
    a.runtime->node_statuses(a.handle, statuses_);
    const bool first = s.runtime == nullptr;  // new since the last tick: nothing ran before
    const bool same = s.runtime == a.runtime && s.brain == b.index && s.nodes_hash == r.hash &&
                      s.statuses.size() == statuses_.size();
    if (detect && !hit_ && (first || same)) {
      for (size_t k = 0; k < r.nodes.size(); ++k) {
        const uint32_t i = r.nodes[k];
        if (i >= statuses_.size() || !entered(first ? '.' : s.statuses[i], statuses_[i])) continue;
        hit_ = Hit{a.id, a.runtime->brain_path(b), a.runtime->brain_name(b), r.ids[k], tick_};
        paused_ = true;
        break;
      }
    }
    s.runtime = a.runtime;
    s.brain = b.index;
    s.nodes_hash = r.hash;
    s.statuses = statuses_;
  }
}

void LiveDebugger::run_over() {
  done_ = true;
  paused_ = false;
  if (sim_) tick_ = sim_->ticks_done();
  while (!step_jobs_.empty()) {
    answer(step_jobs_.front(), control_reply(false, "the run is over"));
    step_jobs_.pop_front();
  }
}

void LiveDebugger::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  for (auto& job : queue_) {
    job->reply = error_reply(503, "the run is no longer served");
    job->done = true;
  }
  queue_.clear();
  for (auto& job : step_jobs_) {
    job->reply = error_reply(503, "the run is no longer served");
    job->done = true;
  }
  step_jobs_.clear();
  answered_.notify_all();
  queued_.notify_all();
}

}  // namespace thicket::cli
