// A run's outcome as a JSON line and back: see batch_result.hpp.
#include "batch_result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <nlohmann/json.hpp>

namespace thicket::cli {

namespace {

using nlohmann::json;

// The format's version: a part file from another version is refused, never misread.
constexpr int kPartVersion = 2;  // 2: "options"; the map and leaf files in the fingerprint

json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

bool read_number(const json& j, double& v) {
  if (j.is_number()) {
    v = j.get<double>();
    return true;
  }
  if (!j.is_string()) return false;
  const auto& s = j.get_ref<const std::string&>();
  if (s == "nan") v = std::nan("");
  else if (s == "inf") v = INFINITY;
  else if (s == "-inf") v = -INFINITY;
  else return false;
  return true;
}

// Field readers that say which field is wrong, instead of throwing.
struct Reader {
  const json& j;
  std::string& why;
  bool u64(const char* key, uint64_t& v) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) return fail(key);
    v = it->get<uint64_t>();
    return true;
  }
  bool u32(const char* key, uint32_t& v) {
    uint64_t w = 0;
    if (!u64(key, w) || w > UINT32_MAX) return fail(key);
    v = static_cast<uint32_t>(w);
    return true;
  }
  bool real(const char* key, double& v) {
    auto it = j.find(key);
    if (it == j.end() || !read_number(*it, v)) return fail(key);
    return true;
  }
  bool boolean(const char* key, bool& v) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_boolean()) return fail(key);
    v = it->get<bool>();
    return true;
  }
  bool text(const char* key, std::string& v) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return fail(key);
    v = it->get<std::string>();
    return true;
  }
  const json* object(const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_object()) return fail(key), nullptr;
    return &*it;
  }
  bool fail(const char* key) {
    if (why.empty()) why = std::string("the field '") + key + "' is missing or of the wrong type";
    return false;
  }
};

bool parse_line(const std::string& line, json& j, std::string& why) {
  j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    why = "not a JSON object";
    return false;
  }
  return true;
}

}  // namespace

std::string encode_outcome(const RunOutcome& o) {
  const RunResult& r = o.result;
  json j = {{"index", o.index}, {"load_failed", o.load_failed}};
  if (!o.load_failed) {
    j["seed"] = r.seed;
    j["ticks"] = r.ticks;
    j["agent_ticks"] = r.agent_ticks;
    j["wall_s"] = number(r.wall_seconds);
    j["script_errors"] = r.script_errors;
    j["agents_start"] = r.agents_at_start;
    j["agents_end"] = r.agents_at_end;
    json metrics = json::object(), statuses = json::object(), gauges = json::object();
    for (const auto& [name, v] : r.metrics) metrics[name] = number(v);
    for (const auto& [name, n] : r.statuses) statuses[name] = n;
    for (const auto& [name, g] : r.gauges)
      gauges[name] = {{"last", number(g.last)}, {"mean", number(g.mean)}, {"min", number(g.min)},
                      {"max", number(g.max)}, {"ticks", g.ticks}};
    j["metrics"] = std::move(metrics);
    j["statuses"] = std::move(statuses);
    j["gauges"] = std::move(gauges);
    j["stopped_strict"] = r.stopped_strict;
    j["stopped_reload"] = r.stopped_reload;
  }
  if (!o.diagnostics.empty()) j["diagnostics"] = o.diagnostics;
  if (!o.log.empty()) j["log"] = o.log;
  if (!o.series.empty()) j["series"] = o.series;
  // Invalid UTF-8 (a Lua script may log any bytes) is written as U+FFFD rather than thrown at.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

int decode_end_line(const std::string& line, uint64_t& outcomes, std::string& why) {
  json j;
  std::string not_json;
  if (!parse_line(line, j, not_json) || !j.contains("end")) return 0;
  const json& n = j.contains("outcomes") ? j["outcomes"] : json();
  if (j.size() != 2 || j["end"] != true || !n.is_number_unsigned()) {
    why = "an end line is {\"end\":true,\"outcomes\":N} (N: the count of runs above it)";
    return -1;
  }
  outcomes = n.get<uint64_t>();
  return 1;
}

bool decode_outcome(const std::string& line, RunOutcome& o, std::string& why) {
  json j;
  if (!parse_line(line, j, why)) return false;
  Reader in{j, why};
  o = RunOutcome{};
  if (!in.u64("index", o.index) || !in.boolean("load_failed", o.load_failed)) return false;
  if (!o.load_failed) {
    RunResult& r = o.result;
    if (!in.u64("seed", r.seed) || !in.u64("ticks", r.ticks) || !in.u64("agent_ticks", r.agent_ticks) ||
        !in.real("wall_s", r.wall_seconds) || !in.u64("script_errors", r.script_errors) ||
        !in.u32("agents_start", r.agents_at_start) || !in.u32("agents_end", r.agents_at_end) ||
        !in.boolean("stopped_strict", r.stopped_strict) || !in.boolean("stopped_reload", r.stopped_reload))
      return false;
    const json* metrics = in.object("metrics");
    const json* statuses = in.object("statuses");
    const json* gauges = in.object("gauges");
    if (!metrics || !statuses || !gauges) return false;
    for (const auto& [name, v] : metrics->items())
      if (!read_number(v, r.metrics[name])) return in.fail("metrics");
    for (const auto& [name, n] : statuses->items()) {
      if (!n.is_number_unsigned()) return in.fail("statuses");
      r.statuses[name] = n.get<uint64_t>();
    }
    for (const auto& [name, g] : gauges->items()) {
      if (!g.is_object()) return in.fail("gauges");
      Reader gin{g, why};
      GaugeStats& s = r.gauges[name];
      if (!gin.real("last", s.last) || !gin.real("mean", s.mean) || !gin.real("min", s.min) ||
          !gin.real("max", s.max) || !gin.u64("ticks", s.ticks))
        return false;
    }
  }
  for (auto [key, field] : {std::pair{"diagnostics", &o.diagnostics}, {"log", &o.log}, {"series", &o.series}})
    if (j.contains(key) && !in.text(key, *field)) return false;
  return true;
}

std::string encode_batch_info(const BatchInfo& b) {
  json j = {{"thicket_part", kPartVersion},
            {"shard", b.shard},
            {"shards", b.shards},
            {"scenario", b.scenario},
            {"fingerprint", b.fingerprint},
            {"options", b.options},
            {"series", b.series},
            {"ticks", b.ticks},
            {"dt", number(b.dt)},
            {"first_seed", b.first_seed},
            {"runs", b.runs},
            {"plan_size", b.plan_size},
            {"threads", b.threads},
            {"params", b.sets.names},
            {"param_values", b.sets.values},
            {"text_params", b.sets.text_keys},
            {"base_seeds", b.sets.seeds}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool decode_batch_info(const std::string& line, BatchInfo& b, std::string& why) {
  json j;
  if (!parse_line(line, j, why) || !j.contains("thicket_part")) {
    why = "it does not start with a part header: is it a file written by 'thicket run --shard'?";
    return false;
  }
  if (j["thicket_part"] != kPartVersion) {
    why = "it is a part of format " + j["thicket_part"].dump() + "; this thicket reads format " +
          std::to_string(kPartVersion) + " (merge parts with the thicket that wrote them)";
    return false;
  }
  Reader in{j, why};
  b = BatchInfo{};
  if (!in.u32("shard", b.shard) || !in.u32("shards", b.shards) || !in.text("scenario", b.scenario) ||
      !in.text("fingerprint", b.fingerprint) || !in.text("options", b.options) || !in.text("series", b.series) ||
      !in.u64("ticks", b.ticks) || !in.real("dt", b.dt) || !in.u64("first_seed", b.first_seed) ||
      !in.u64("runs", b.runs) || !in.u64("plan_size", b.plan_size) || !in.u32("threads", b.threads))
    return false;
  try {  // the types of the lists; nlohmann throws on a mismatch, caught here and said
    b.sets.names = j.at("params").get<std::vector<std::string>>();
    b.sets.values = j.at("param_values").get<std::vector<std::vector<std::string>>>();
    b.sets.text_keys = j.value("text_params", std::vector<std::string>{});  // (absent from older parts)
    b.sets.seeds = j.at("base_seeds").get<std::vector<uint64_t>>();
  } catch (const json::exception&) {
    why = "its parameter lists (params, param_values, base_seeds) are malformed";
    return false;
  }
  // (K as --shard bounds it: a part edited to say 4294967295 shards made merge allocate a slot
  // for each and list every missing one, or end on std::bad_alloc.)
  if (b.shards == 0 || b.shards > 1'000'000 || b.shard == 0 || b.shard > b.shards) {
    why = "its shard " + std::to_string(b.shard) + "/" + std::to_string(b.shards) + " is not I/K with 1 <= I <= K <= 1000000";
    return false;
  }
  return true;
}

bool same_batch(const BatchInfo& a, const BatchInfo& b, std::string& why) {
  auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    why = what + " " + x + " against " + y;
    return false;
  };
  if (a.scenario != b.scenario) return differ("scenario", a.scenario, b.scenario);
  if (a.fingerprint != b.fingerprint)
    return differ("the scenario, its map, brain or leaf files were edited between the shards: fingerprint",
                  a.fingerprint, b.fingerprint);
  if (a.options != b.options) return differ("the run options", "'" + a.options + "'", "'" + b.options + "'");
  if (a.shards != b.shards) return differ("shard count", std::to_string(a.shards), std::to_string(b.shards));
  if (a.ticks != b.ticks) return differ("--ticks", std::to_string(a.ticks), std::to_string(b.ticks));
  if (a.dt != b.dt) return differ("--dt", json(a.dt).dump(), json(b.dt).dump());
  if (a.first_seed != b.first_seed) return differ("--seed", std::to_string(a.first_seed), std::to_string(b.first_seed));
  if (a.series != b.series)
    return differ("--series", a.series.empty() ? "(none)" : a.series, b.series.empty() ? "(none)" : b.series);
  if (a.runs != b.runs) return differ("--runs", std::to_string(a.runs), std::to_string(b.runs));
  if (a.sets.names != b.sets.names || a.sets.values != b.sets.values || a.sets.seeds != b.sets.seeds) {
    // Said as the sweep would be given: KEY=V1,V2 for each key, seed=S1,S2 for the base seeds.
    auto said = [](const BatchInfo& x) {
      std::string text;
      for (size_t k = 0; k < x.sets.names.size(); ++k) {
        std::vector<std::string> values;  // axis k's values, in order of first appearance
        for (const auto& set : x.sets.values)
          if (k < set.size() && std::find(values.begin(), values.end(), set[k]) == values.end()) values.push_back(set[k]);
        text += (text.empty() ? "" : " ") + x.sets.names[k] + "=";
        for (size_t v = 0; v < values.size(); ++v) text += (v ? "," : "") + values[v];
      }
      if (!x.sets.seeds.empty()) {
        text += std::string(text.empty() ? "" : " ") + "seed=";
        for (size_t v = 0; v < x.sets.seeds.size(); ++v) {  // appended piece by piece: gcc 12 warns falsely at "," + string
          if (v) text += ',';
          text += std::to_string(x.sets.seeds[v]);
        }
      }
      return text.empty() ? std::string("(none)") : text;
    };
    return differ("sweep", said(a), said(b));
  }
  // The same runs and sweep make the same plan: a part whose count differs was edited.
  if (a.plan_size != b.plan_size)
    return differ("the batch's run count (plan_size: an edited part?)", std::to_string(a.plan_size), std::to_string(b.plan_size));
  return true;
}

std::string batch_fingerprint(const std::vector<std::string>& files) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  };
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    mix(in ? std::string(std::istreambuf_iterator<char>(in), {}) : f);
    mix(std::string(1, '\0'));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string batch_run_options(const SimOptions& so, uint64_t series_every, uint64_t lua_memory_mb) {
  std::ostringstream text;
  // (0: no --series; said so, not as an option no one gave)
  text << (series_every == 0 ? std::string("no --series") : "--series-every " + std::to_string(series_every))
       << (so.strict ? " --strict" : "") << (so.trusted ? " --trusted" : "")
       << " --budget " << so.instruction_budget << (so.budget_all_leaves ? " --budget-all" : "") << " --leaf-timeout "
       << so.leaf_timeout << " --lua-memory " << lua_memory_mb;
  return text.str();
}

void keep_batch_prefix(std::vector<RunOutcome>& outcomes) {
  std::sort(outcomes.begin(), outcomes.end(), [](const RunOutcome& a, const RunOutcome& b) { return a.index < b.index; });
  size_t kept = 0;
  while (kept < outcomes.size() && outcomes[kept].index == kept) {
    const RunOutcome& o = outcomes[kept++];
    if (o.load_failed || o.result.stopped_strict || o.result.stopped_reload) break;
  }
  outcomes.resize(kept);
}

}  // namespace thicket::cli
