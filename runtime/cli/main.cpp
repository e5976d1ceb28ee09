// thicket: run | check | dot | dump | path | view | version (SPEC 9; path: path_command.cpp,
// view: view_command.cpp).
//
// Standard output carries only what Lua prints; the run's log and the summary go to
// standard error (or --log FILE). Exit: 0 clean, 1 script errors, 2 load failure, 64 usage.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch_runs.hpp"
#include "batch_summary.hpp"
#include "checkpoint.hpp"
#include "compiler.hpp"  // dot_escaped, dot_quote
#include "live_run.hpp"
#include "merge_command.hpp"
#include "import_tree.hpp"
#include "mpi_runs.hpp"
#include "output_target.hpp"
#include "numbers.hpp"
#include "path_command.hpp"
#include "record_file.hpp"
#include "record_tee.hpp"
#include "run_results.hpp"
#include "view_command.hpp"
#include "edit_command.hpp"
#include "schema_findings.hpp"
#include "schema.hpp"
#include "yaml_limits.hpp"
#include "runtime_impl.hpp"
#include "simulation.hpp"
#include "suggest.hpp"
#include "sweep.hpp"
#include "sweep_plan.hpp"
#include "sweep_summary.hpp"
#include "thicket/runtime.hpp"
#include "thicket/version.hpp"
#include "trace_format.hpp"
#include "yaml_limits.hpp"

using namespace thicket;

namespace thicket {
const std::map<std::string, std::string>& embedded_schemas();  // generated from schemas/
}

namespace {

constexpr int kExitOk = 0, kExitScriptErrors = 1, kExitLoad = 2, kExitUsage = 64;
constexpr uint64_t kMaxCliAgents = 10000000;  // --agents

const char* kUsage =
    "usage: thicket run FILE [--agents N] [--ticks T] [--dt S] [--seed S] [--watch]\n"
    "                        [--trace OUT.jsonl] [--log FILE] [--explain] [--strict] [--quiet] [--trusted]\n"
    "                        [--budget N]   Lua instructions a task may run per resume (default 10000000; 0 = off)\n"
    "                        [--budget-all] the budget guards plain function leaves too (slower Lua)\n"
    "                        [--leaf-timeout S] seconds one Lua call may run before it is stopped\n"
    "                                           (default 0.05; 0 = no limit)\n"
    "                        [--lua-memory MB]  cap of each Lua heap (default 512; 0 = no cap)\n"
    "                        [--max-agents N]   agents leaves' thicket.spawn may bring the run to\n"
    "                                           (default 100000; 0 = no cap)\n"
    "       thicket run SCENARIO [--threads K] [--runs N] [--out FILE.csv|FILE.jsonl]\n"
    "                            [--record FILE.jsonl[.gz]] [--record-every N] [--record-keys KEY,...]\n"
    "                            [--ticks T] [--dt S] [--seed S] [--log FILE] [--quiet] [--trusted] [--budget N]\n"
    "                            [--trace OUT.jsonl] [--explain]   brain and percept events (first run)\n"
    "                            [--series FILE.csv|FILE.jsonl] [--series-every N]   metrics per tick\n"
    "                            [--strict] [--watch]   (--watch: one run)\n"
    "                            [--set KEY=V1,V2,...]   a parameter sweep (repeatable; keys as in 'sweep:')\n"
    "                            [--checkpoint FILE --every T] [--resume FILE]   save the run, go on from a save\n"
    "                            [--serve [ADDR:]PORT] [--speed F] [--serve-exit]   watch it live in a browser\n"
    "                            [--shard I/K --out PART.jsonl]   only runs i with i % K = I - 1, for merge\n"
    "       mpirun -n K thicket run SCENARIO ...   the runs over K ranks (a build with -DTHICKET_MPI=ON)\n"
    "       thicket merge OUT.csv|OUT.jsonl PART.jsonl... [--series FILE.csv|FILE.jsonl]   --shard's parts as one\n"
    "                            --out (and --series), and the summary\n"
    "       thicket check FILE...\n"
    "       thicket dot FILE|SCENARIO\n"
    "       thicket dump FILE|SCENARIO\n"
    "       thicket path MAP.map SCEN.scen [--paths] [--algorithm auto|astar|jps]\n"
    "       thicket path MAP.map --from X,Y --to X,Y [--paths] [--algorithm auto|astar|jps]\n"
    "       thicket view RECORD.jsonl[.gz] [-o OUT.html]   a record as a replay page (offline)\n"
    "       thicket import FILE.xml|FILE.json [-o OUT.yaml] [--tree ID] [--leaves LUA]...   a BehaviorTree.CPP 4\n"
    "                            or behavior3 tree as a thicket brain (docs/import.md)\n"
    "       thicket export FILE --to btcpp [-o OUT.xml]   a tree brain as BehaviorTree.CPP 4 XML\n"
    "       thicket edit FILE.yaml [--port P] [--attach HOST:PORT]   the brain in a browser editor on\n"
    "                            localhost (--attach: a 'thicket run ... --serve' to debug; docs/editor.md)\n"
    "       thicket --version\n";

// A batch whose runs have fewer agents than this runs several runs at once (one per thread)
// rather than one run at a time over all threads (run_scenario).
constexpr uint64_t kSpreadAgents = 1000;

volatile std::sig_atomic_t g_interrupted = 0;
// Ctrl-C: the run stops after the current tick, with its summary; a Lua call in progress is
// stopped where it is (an endless loop cannot hold the run). A second Ctrl-C ends at once.
void on_sigint(int sig) {
  if (g_interrupted) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_interrupted = 1;
  interrupt_scripts();
}

struct Options {
  std::string command;
  std::vector<std::string> files;
  uint64_t agents = 1, ticks = 10, seed = 1, budget = 10'000'000, threads = 0, runs = 1, lua_memory_mb = 512,
           max_agents = 100'000;
  double leaf_timeout = 0.05;
  bool ticks_set = false, dt_set = false, seed_set = false, agents_set = false, max_agents_set = false;
  std::string out, record, series;
  uint64_t series_every = 1;
  uint64_t record_every = 0;          // --record-every (0: the scenario's)
  std::vector<std::string> record_keys;  // --record-keys
  std::vector<std::string> sets;         // --set KEY=V1,V2,... (a sweep: sweep_plan.hpp)
  uint32_t shard = 0, shards = 0;        // --shard I/K (batch_runs.hpp); shards 0: not sharded
  bool record_keys_set = false;
  double dt = 0.1;
  bool watch = false, strict = false, quiet = false, trusted = false, explain = false, budget_all = false;
  std::string trace, log;
  cli::LiveOptions live;  // --serve, --speed, --serve-exit
  std::string checkpoint, resume;  // --checkpoint FILE --every T, --resume FILE (checkpoint.hpp)
  uint64_t checkpoint_every = 0;
};

int usage_error(const std::string& message) {
  // One write: under mpirun, stderr is forwarded in the pieces it was written in, and mpirun's
  // own notices could land between "thicket: " and the message.
  std::cerr << "thicket: " + message + "\n" + kUsage;
  return kExitUsage;
}

// An output file's format follows its extension, so any other extension is a usage error
// rather than a file silently written in the wrong format. A device (/dev/stdout) is accepted.
std::string output_file_error(const std::string& option, const std::string& value) {
  if (value.rfind("/dev/", 0) == 0) return {};
  if (option == "--series") {
    if (cli::named_with_extension(value, ".csv") || cli::named_with_extension(value, ".jsonl")) return {};
    return "--series writes CSV or JSON lines as its extension says: it needs FILE.csv or FILE.jsonl, got '" + value + "'";
  }
  if (option == "--out") {
    if (cli::named_with_extension(value, ".csv") || cli::named_with_extension(value, ".jsonl")) return {};
    return "--out writes CSV or JSON lines as its extension says: it needs FILE.csv or FILE.jsonl, got '" + value + "'";
  }
  if (cli::named_with_extension(value, ".jsonl")) return {};
  return option + " writes JSON lines: it needs FILE.jsonl, got '" + value + "'";
}

bool parse_uint(const std::string& s, uint64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return false;
  out = std::stoull(s);
  return true;
}
// What parse_uint's message adds when the value was refused for its length alone.
std::string digits_note(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() > 18
             ? " (whole numbers here have at most 18 digits)"
             : "";
}

// Parses argv; returns 0 or an exit code.
int parse_args(int argc, char** argv, Options& o) {
  if (argc < 2) return usage_error("missing command");
  o.command = argv[1];
  if (o.command == "help") {  // (--help and -h anywhere: thicket_main)
    std::cout << kUsage;
    return -1;
  }
  if (o.command == "--version" || o.command == "version") {
    if (argc > 2) return usage_error("'thicket " + o.command + "' takes no arguments");
    std::cout << "thicket " << THICKET_VERSION_STRING << "\n";
    return -1;
  }
  if (o.command != "run" && o.command != "check" && o.command != "dot" && o.command != "dump") {
    const std::vector<std::string> commands = {"run", "check", "dot", "dump", "path", "view", "merge", "import", "export", "edit", "version"};
    return usage_error("unknown command '" + o.command + "'" + did_you_mean(o.command, commands) + " (commands: " +
                       join_names(commands) + ")");
  }
  std::map<std::string, int> valued = {{"--agents", 0}, {"--ticks", 0}, {"--dt", 0},
                                       {"--seed", 0},   {"--trace", 0}, {"--log", 0}, {"--budget", 0},
                                       {"--threads", 0}, {"--runs", 0},  {"--out", 0}, {"--record", 0},
                                       {"--record-every", 0}, {"--record-keys", 0}, {"--leaf-timeout", 0}, {"--lua-memory", 0}, {"--max-agents", 0},
                                       {"--series", 0}, {"--series-every", 0},
                                       {"--serve", 0}, {"--speed", 0}, {"--set", 0}, {"--shard", 0},
                                       {"--checkpoint", 0}, {"--every", 0}, {"--resume", 0}};
  const std::vector<std::string> flags = {"--watch", "--strict", "--quiet", "--trusted", "--explain", "--budget-all", "--serve-exit"};
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && a[1] != '-' && !(a[1] >= '0' && a[1] <= '9'))  // -t: not a file
      return usage_error("unknown option '" + a + "'" +
                         (o.command == "run" ? " (options start with --, e.g. --ticks)" : " ('thicket " + o.command + "' takes FILE only)"));
    if (a.empty()) return usage_error("an empty FILE ('')");  // (it was a load error of no file, exit 2)
    if (a.rfind("--", 0) != 0) {
      o.files.push_back(a);
      continue;
    }
    std::string value;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    if (valued.count(a)) {
      if (eq == std::string::npos) {
        if (i + 1 >= argc) return usage_error(a + " needs a value");
        value = argv[++i];
      }
      if (o.command != "run") return usage_error(a + " is an option of 'thicket run'");
      if (a == "--agents" && (!parse_uint(value, o.agents) || o.agents == 0))
        return usage_error("--agents needs a whole number >= 1, got '" + value + "'" + digits_note(value));
      // Each agent is a few hundred bytes of state and a Lua table: 99,999,999,999 took the
      // machine's memory before the first tick.
      if (a == "--agents" && o.agents > kMaxCliAgents)
        return usage_error("--agents is at most " + std::to_string(kMaxCliAgents) + " (each agent takes a few hundred bytes and its "
                           "Lua table), got " + value);
      if (a == "--ticks" && !parse_uint(value, o.ticks))
        return usage_error("--ticks needs a whole number >= 0, got '" + value + "'" + digits_note(value));
      if (a == "--seed" && !parse_uint(value, o.seed)) return usage_error("--seed needs a whole number >= 0, got '" + value + "'" + digits_note(value));
      if (a == "--dt") {
        if (!cli::parse_decimal(value, o.dt) || !(o.dt > 0) || o.dt > kMaxDt)
          return usage_error("--dt needs a number of seconds > 0 and at most 1000000, got '" + value + "'");
      }
      if (a == "--budget" && !parse_uint(value, o.budget))
        return usage_error("--budget needs a whole number of Lua instructions (0 = no budget), got '" + value + "'" + digits_note(value));
      if (a == "--leaf-timeout") {
        if (!cli::parse_decimal(value, o.leaf_timeout) || !(o.leaf_timeout >= 0) || o.leaf_timeout > 1e6)
          return usage_error("--leaf-timeout needs a number of seconds >= 0 (0 = no limit), got '" + value + "'");
      }
      if (a == "--lua-memory" && (!parse_uint(value, o.lua_memory_mb) || o.lua_memory_mb > (uint64_t(1) << 30)))
        return usage_error("--lua-memory needs a whole number of MiB (0 = no cap), got '" + value + "'" + digits_note(value));
      if (a == "--max-agents" && (!parse_uint(value, o.max_agents) || o.max_agents > (uint64_t(1) << 32)))
        return usage_error("--max-agents needs a whole number of agents (0 = no cap), got '" + value + "'" + digits_note(value));
      if (a == "--threads" && (!parse_uint(value, o.threads) || o.threads == 0 || o.threads > 256))
        return usage_error("--threads needs a whole number from 1 to 256, got '" + value + "'" + digits_note(value));
      // (at most 1,000,000: a batch keeps a result per run; --runs 1e11 asked for terabytes)
      if (a == "--runs" && (!parse_uint(value, o.runs) || o.runs == 0 || o.runs > 1'000'000))
        return usage_error("--runs needs a whole number from 1 to 1000000, got '" + value + "'" + digits_note(value));
      if (a == "--series-every" && (!parse_uint(value, o.series_every) || o.series_every == 0))
        return usage_error("--series-every needs a whole number of ticks >= 1, got '" + value + "'" + digits_note(value));
      if (a == "--out" || a == "--trace" || a == "--series")
        if (std::string why = output_file_error(a, value); !why.empty()) return usage_error(why);
      if (a == "--record")
        if (std::string why = record_file_name_error(value); !why.empty()) return usage_error(why);
      if (a == "--record-every" && (!parse_uint(value, o.record_every) || o.record_every == 0 || o.record_every > 1'000'000))
        return usage_error("--record-every needs a whole number of ticks from 1 to 1000000, got '" + value + "'" + digits_note(value));
      if (a == "--record-keys") {
        o.record_keys_set = true;
        std::stringstream list(value);
        for (std::string key; std::getline(list, key, ',');) {
          if (key.empty()) return usage_error("--record-keys needs blackboard key names separated by commas, e.g. health,target; got '" + value + "'");
          o.record_keys.push_back(key);
        }
        if (o.record_keys.empty()) return usage_error("--record-keys needs blackboard key names separated by commas, e.g. health,target");
      }
      if (a == "--serve" || a == "--speed")
        if (std::string why = cli::parse_live_option(a, value, o.live); !why.empty()) return usage_error(why);
      if (a == "--every" && (!parse_uint(value, o.checkpoint_every) || o.checkpoint_every == 0))
        return usage_error("--every needs a whole number of ticks >= 1, got '" + value + "'" + digits_note(value));
      if (a == "--checkpoint") o.checkpoint = value;
      if (a == "--resume") o.resume = value;
      if (a == "--out") o.out = value;
      if (a == "--set") o.sets.push_back(value);
      if (a == "--shard")
        if (std::string why; !cli::parse_shard(value, o.shard, o.shards, why)) return usage_error(why);
      if (a == "--series") o.series = value;
      if (a == "--record") o.record = value;
      if (a == "--ticks") o.ticks_set = true;
      if (a == "--dt") o.dt_set = true;
      if (a == "--seed") o.seed_set = true;
      if (a == "--agents") o.agents_set = true;
      if (a == "--max-agents") o.max_agents_set = true;
      if (a == "--trace") o.trace = value;
      if (a == "--log" && value.empty()) return usage_error("--log needs a file");  // ('--log ""' logged to stderr)
      if (a == "--log") o.log = value;
      continue;
    }
    if (eq != std::string::npos) return usage_error(a + " takes no value");
    if (a == "--watch") o.watch = true;
    else if (a == "--strict") o.strict = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--trusted") o.trusted = true;
    else if (a == "--explain") o.explain = true;
    else if (a == "--budget-all") o.budget_all = true;
    else if (a == "--serve-exit") o.live.exit_when_done = true;
    else {
      std::vector<std::string> known = flags;
      for (const auto& [name, unused] : valued) known.push_back(name);
      return usage_error("unknown option '" + a + "'" + did_you_mean(a, known));
    }
    if (o.command != "run") return usage_error(a + " is an option of 'thicket run'");
  }
  if (o.files.empty()) return usage_error("missing FILE");
  if (o.command != "check" && o.files.size() > 1) return usage_error("'thicket " + o.command + "' takes one FILE");
  return 0;
}

void print_diagnostics(const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
}

size_t count_errors(const std::vector<Diagnostic>& diags) {
  size_t n = 0;
  for (const auto& d : diags) n += d.severity == Severity::Error;
  return n;
}

using cli::json_escape;
using cli::add_schema_findings;

bool is_scenario(const std::string& path);

// False, said on stderr, when an output file could not be written in full (a full disk): the
// run's exit status then says so (2), as a failed checkpoint's does.
bool written_in_full(std::ofstream& f, const std::string& path, const char* what) {
  if (!f.is_open()) return true;
  f.flush();
  if (f) return true;
  std::cerr << "thicket: error: the " << what << " file '" << path << "' could not be written in full (a full disk?)\n";
  return false;
}

// A scenario checks as it loads: the file, then every group's brain (in one worker).
bool check_scenario(const std::string& file, std::vector<Diagnostic>& diags) {
  ScenarioSpec partial;
  auto spec = load_scenario(file, diags, &partial);
  if (!spec) {
    check_groups_of_failed_load(partial, diags);  // all of the file's errors at once
    return false;
  }
  check_sweep_blackboard(*spec, spec->sweep, false, diags);  // swept blackboard values against the brains
  std::string why;
  if (!spec->sweep.empty() && !sweep_sets(*spec, spec->sweep, why))  // e.g. too many agents in some set
    diags.push_back({Severity::Error, file, spec->sweep.front().line, spec->sweep.front().column, why});
  SimOptions so;
  so.ticks = 0;
  so.log = [](const std::string& line) { std::cerr << line << "\n"; };
  return Simulation::create(*spec, so, diags) != nullptr;
}

int cmd_check(const Options& o) {
  int worst = kExitOk;
  for (const auto& file : o.files) {
    if (is_scenario(file)) {
      std::vector<Diagnostic> diags;
      bool ok = check_scenario(file, diags);
      add_schema_findings(file, diags);
      print_diagnostics(diags);
      if (!ok || has_errors(diags)) {
        std::cerr << file << ": " << count_errors(diags) << " error(s)\n";
        worst = kExitLoad;
      } else {
        std::cerr << file << ": ok\n";
      }
      continue;
    }
    Runtime rt;
    std::vector<Diagnostic> diags;
    auto brain = rt.load_file(file, diags);
    add_schema_findings(file, diags);
    std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return a.file == b.file && (a.line < b.line || (a.line == b.line && a.column < b.column));
    });
    if (brain && has_errors(diags)) brain.reset();
    print_diagnostics(diags);
    if (!brain) {
      std::cerr << file << ": " << count_errors(diags) << " error(s)\n";
      worst = kExitLoad;
    } else {
      std::cerr << file << ": ok\n";
    }
  }
  return worst;
}

int cmd_scenario_text(const Options& o);
std::string output_over_input(const Options& o, const std::vector<std::string>& inputs);

int cmd_text(const Options& o) {
  if (is_scenario(o.files[0])) return cmd_scenario_text(o);
  Runtime rt;
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  print_diagnostics(diags);
  if (!brain) return kExitLoad;
  std::cout << (o.command == "dot" ? rt.dot(*brain) : rt.dump(*brain));
  return kExitOk;
}

// A scenario file's top level has `scenario:`.
// (Read within the loaders' bounds: a device or a huge file is left to the brain loader,
// which reports it.)
bool is_scenario(const std::string& path) { return has_top_level_key(path, "scenario"); }

// A brain's DOT graph with every node id (n3, s1, start) prefixed, so that several brains can
// be drawn in one graph; quoted labels are left alone. Returns the body (the lines between
// `digraph ... {` and `}`, less graph-wide attributes) and sets `entry` to the first node.
std::string dot_body(const std::string& dot, const std::string& prefix, std::string& entry) {
  std::istringstream in(dot);
  std::ostringstream body;
  std::string line;
  std::getline(in, line);  // digraph NAME {
  while (std::getline(in, line)) {
    if (line == "}" || line.rfind("  rankdir=", 0) == 0) continue;
    std::string out;
    bool quoted = false;
    for (size_t i = 0; i < line.size();) {
      char c = line[i];
      if (quoted) {
        out += c;
        if (c == '\\' && i + 1 < line.size()) out += line[++i];
        else if (c == '"') quoted = false;
        ++i;
      } else if (c == '"') {
        quoted = true;
        out += c;
        ++i;
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i;
        while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
        std::string word = line.substr(i, j - i);
        bool id = word == "start" || (word.size() > 1 && (word[0] == 'n' || word[0] == 's') &&
                                      word.find_first_not_of("0123456789", 1) == std::string::npos);
        if (id && entry.empty() && out.find_first_not_of(' ') == std::string::npos) entry = prefix + word;
        out += id ? prefix + word : word;
        i = j;
      } else {
        out += c;
        ++i;
      }
    }
    body << out << "\n";
  }
  return body.str();
}

std::string dot_quoted(const std::string& s) { return dot_quote(dot_escaped(s)); }

// `thicket dot SCENARIO`: one graph with a node per group (its team and agent count) and a
// cluster per brain file, holding that brain's own graph; each group points at its brain.
// `thicket dump SCENARIO`: a header line per group, then its brain's dump (once per brain file).
int cmd_scenario_text(const Options& o) {
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(o.files[0], diags);
  print_diagnostics(diags);
  if (!spec) return kExitLoad;
  Runtime rt;
  std::vector<std::string> files;  // distinct brain files, in group order
  std::vector<BrainHandle> brains;
  std::vector<size_t> brain_of;    // per group, its index in files
  for (const AgentGroup& g : spec->groups) {
    size_t k = std::find(files.begin(), files.end(), g.brain) - files.begin();
    if (k == files.size()) {
      std::vector<Diagnostic> brain_diags;
      auto brain = rt.load_file(g.brain, brain_diags);
      print_diagnostics(brain_diags);
      if (!brain) return kExitLoad;
      files.push_back(g.brain);
      brains.push_back(*brain);
    }
    brain_of.push_back(k);
  }
  auto describe = [](const AgentGroup& g) {
    return "team " + g.team + ", " + std::to_string(g.count) + (g.count == 1 ? " agent" : " agents");
  };
  if (o.command == "dump") {
    std::cout << "scenario " << spec->name << ": " << spec->groups.size() << " group(s), " << files.size()
              << " brain file(s)\n";
    std::vector<bool> shown(files.size(), false);
    for (size_t i = 0; i < spec->groups.size(); ++i) {
      const AgentGroup& g = spec->groups[i];
      const size_t k = brain_of[i];
      std::cout << "group " << g.name << " (" << describe(g) << "): brain " << g.brain
                << (shown[k] ? ", dumped above\n" : "\n");
      if (!shown[k]) std::cout << rt.dump(brains[k]);
      shown[k] = true;
    }
    return kExitOk;
  }
  std::ostringstream out;
  // The file is a scenario, not a brain: said in a comment for readers of the text, and in
  // the graph's title for readers of the drawing.
  const std::string what = "scenario " + spec->name + ": " + std::to_string(spec->groups.size()) + " group(s), " +
                           std::to_string(files.size()) + " brain file(s)";
  out << "// " << o.files[0] << " is a scenario file: its groups and their brains\n";
  out << "digraph " << dot_quoted(spec->name) << " {\n  label=" << dot_quoted(what)
      << ";\n  labelloc=t;\n  fontname=\"Helvetica\";\n  compound=true;\n  node [fontname=\"Helvetica\"];\n";
  for (size_t i = 0; i < spec->groups.size(); ++i) {
    const AgentGroup& g = spec->groups[i];
    out << "  g" << i << " [label=" << dot_quote(dot_escaped(g.name) + "\\n" + dot_escaped(describe(g))) << ", shape=house, style=filled, fillcolor=lightgrey];\n";
  }
  std::vector<std::string> entries(files.size());
  for (size_t k = 0; k < files.size(); ++k) {
    out << "  subgraph cluster_b" << k << " {\n    label=" << dot_quoted(files[k]) << ";\n    fontname=\"Helvetica\";\n";
    std::string body = dot_body(rt.dot(brains[k]), "b" + std::to_string(k) + "_", entries[k]);
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
    out << "  }\n";
  }
  for (size_t i = 0; i < spec->groups.size(); ++i) {
    const size_t k = brain_of[i];
    if (!entries[k].empty()) out << "  g" << i << " -> " << entries[k] << " [lhead=cluster_b" << k << "];\n";
  }
  out << "}\n";
  std::cout << out.str();
  return kExitOk;
}

int cmd_scenario(const Options& o) {
  // Which runs this process runs (all of them, a --shard's, an MPI rank's): batch_runs.hpp.
  cli::BatchRuns batch(o.shard, o.shards, cli::mpi_world());
  if (o.shards) {
    if (!cli::named_with_extension(o.out, ".jsonl"))
      return usage_error("--shard writes its runs to a part file of JSON lines for thicket merge: it needs --out PART.jsonl");
    if (!o.record.empty() || !o.trace.empty() || o.explain || o.watch || o.live.serve)
      return usage_error("--record, --trace, --explain, --watch and --serve do not go with --shard (run them unsharded or under mpirun)");
  }
  std::ofstream log_file;  // opened (emptied) with the other outputs, once the batch can start
  if (o.agents_set) return usage_error("--agents is for brain files; a scenario's groups say how many agents there are");
  if (o.max_agents_set)
    return usage_error("--max-agents is for brain files; a scenario's leaves cannot spawn (its groups make its agents)");
  if (o.watch && o.runs > 1) return usage_error("--watch runs one run in real time; it cannot go with --runs " + std::to_string(o.runs));
  if ((o.live.speed_set || o.live.exit_when_done) && !o.live.serve) return usage_error("--speed and --serve-exit go with --serve");
  if (o.live.serve && o.runs > 1) return usage_error("--serve shows one run as it goes: it takes no --runs");
  std::vector<Diagnostic> diags;
  ScenarioSpec partial;
  auto spec = load_scenario(o.files[0], diags, &partial);
  if (!spec) check_groups_of_failed_load(partial, diags);  // all of the file's errors at once
  print_diagnostics(diags);
  if (!spec) return kExitLoad;
  // The batch: every parameter set x seed, in index order (run_plan.hpp); no sweep: --runs seeds.
  std::string sweep_why;
  bool sweep_usage = false;
  std::vector<Diagnostic> sweep_diags;
  auto sets = cli::sweep_param_sets(*spec, o.sets, o.trusted, sweep_why, sweep_usage, sweep_diags);
  if (!sets) {
    if (sweep_usage) {  // a bad --set: the message says what to write; the usage text would bury it
      std::cerr << "thicket: error: " << sweep_why << "\n";
      return kExitUsage;
    }
    print_diagnostics(sweep_diags);
    return kExitLoad;
  }
  spec->sweep.clear();  // planned: a run's spec (a copy for each run of a sweep) needs it no more
  // --watch and --serve show one run: a --set (or a file's `sweep:`) of one value each, and one
  // seed at most, is one run, with its values (it was refused as a sweep).
  const bool one_run = sets->values.size() == 1 && sets->seeds.size() <= 1;
  if (!one_run && (o.watch || o.live.serve))
    return usage_error("--watch and --serve show one run; a sweep (a scenario's 'sweep:', --set with several values) has many");
  if ((o.record_every || o.record_keys_set) && o.record.empty())
    return usage_error("--record-every and --record-keys say what --record FILE keeps; give --record too");
  if (o.series_every != 1 && o.series.empty())  // (it was ignored without a word)
    return usage_error("--series-every says how often --series FILE samples; give --series too");
  if (o.checkpoint.empty() != (o.checkpoint_every == 0))
    return usage_error("--checkpoint FILE and --every T go together: the file is replaced every T ticks");
  if ((!o.checkpoint.empty() || !o.resume.empty()) && (o.runs > 1 || o.watch))
    return usage_error("--checkpoint and --resume save and continue one run: they take no --runs and no --watch");
  std::optional<cli::ResumePoint> resume;  // read and checked before any output file is opened
  if (!o.resume.empty()) {
    SimOptions probe;
    probe.ticks = o.ticks_set ? o.ticks : spec->ticks;
    probe.dt = o.dt_set ? o.dt : spec->dt;
    if (o.seed_set) probe.seed = o.seed;
    resume = cli::open_resume(o.resume, *spec, probe, o.seed_set);
    if (!resume) return kExitLoad;
  }
  if ((!o.checkpoint.empty() || !o.resume.empty()) && cli::is_sweep(*sets))
    return usage_error("--checkpoint and --resume save and continue one run; a sweep (a scenario's 'sweep:', --set) has many");
  // A resumed run goes on with the seed it was saved with.
  const uint64_t first_seed = o.seed_set ? o.seed : resume ? resume->info.seed : spec->seed;
  if (cli::planned_runs(*sets, o.runs) > cli::kMaxBatchRuns) {  // (the usage text would bury it)
    std::cerr << "thicket: error: " << cli::too_many_runs(*sets, o.runs) << ": fewer runs or fewer values to sweep\n";
    return kExitUsage;
  }
  const std::vector<cli::RunSpec> plan = cli::plan_runs(*sets, first_seed, o.runs);
  std::optional<cli::Checkpointer> checkpointer;
  if (!o.checkpoint.empty()) checkpointer.emplace(o.checkpoint, o.checkpoint_every);
  bool checkpoint_failed = false;
  SimOptions so;
  // Default: every core, shared by the MPI ranks on this machine.
  so.threads = static_cast<uint32_t>(o.threads ? o.threads
                                               : std::max(1u, std::thread::hardware_concurrency() / cli::mpi_world().local_size));
  so.ticks = o.ticks_set ? o.ticks : spec->ticks;
  so.dt = o.dt_set ? o.dt : spec->dt;
  so.trusted = o.trusted;
  so.instruction_budget = o.budget;
  so.budget_all_leaves = o.budget_all;
  so.leaf_timeout = o.leaf_timeout;
  so.lua_memory_limit = static_cast<size_t>(o.lua_memory_mb) << 20;
  so.journal_tasks = !o.checkpoint.empty() || !o.resume.empty();  // running tasks saved exactly (guide 11.6)
  so.log = [&](const std::string& line) {
    if (batch.capturing()) batch.log(line);  // under MPI: printed by rank 0 in run order
    else if (log_file.is_open()) log_file << line << "\n";
    else std::cerr << line << "\n";
  };
  so.strict = o.strict;
  so.watch = o.watch;
  if (o.watch && so.ticks == 0) so.ticks = UINT64_MAX;  // as for a brain: until Ctrl-C
  so.record_keys = o.record_keys;
  // The first run is made once before any output file is opened, and dropped: a brain that
  // does not load (an unknown leaf, broken YAML, a Lua file with an error), a blackboard value
  // or a sense that does not fit it, --record-keys it lacks, or a --resume it cannot take stops
  // the batch here, with the run's diagnostics (exit 2), and --out, --series, --record and
  // --trace keep what they held. (A --shard goes on: its part file carries the failure to
  // thicket merge, which then writes nothing.)
  if (!batch.sharded() && !plan.empty()) {
    SimOptions probe = so;
    probe.threads = 1;
    probe.seed = plan.front().seed;
    probe.log = [](const std::string&) {};    // the run says it again
    probe.print = [](const std::string&) {};  // (a leaf file's prints as it loads)
    probe.watch = false;
    std::vector<Diagnostic> probe_diags;
    std::string set_why;
    auto probe_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan.front().param_set], set_why)
                                           : std::optional<ScenarioSpec>(*spec);
    if (!probe_spec) probe_diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
    auto sim = probe_spec ? Simulation::create(*probe_spec, probe, probe_diags) : nullptr;
    if (!sim) {
      if (batch.prints()) print_diagnostics(probe_diags);
      return kExitLoad;
    }
    if (std::string why = output_over_input(o, sim->files_read()); !why.empty()) return usage_error(why);
    if (resume) {
      std::vector<Diagnostic> resume_diags;
      if (!sim->restore(resume->bytes, o.resume, resume_diags)) {
        if (batch.prints())
          for (const Diagnostic& d : resume_diags) std::cerr << "thicket: " << format_diagnostic(d) << "\n";
        return kExitLoad;
      }
    }
  }
  std::unique_ptr<cli::LiveSession> live;
  if (o.live.serve) {
    std::string why;
    live = cli::LiveSession::start(o.live, why);
    if (!live) {
      std::cerr << "thicket: " << why << "\n";
      return kExitUsage;
    }
  }
  // Every output this process writes is checked before any is opened (which empties it), so
  // that one that cannot be written leaves the others as they were.
  const bool writes_series = !o.series.empty() && batch.prints() && !batch.sharded();  // a shard's go into its part
  {
    std::vector<std::string> paths, whats;
    auto add = [&](bool writes, const std::string& path, const std::string& what) {
      if (writes && !path.empty()) paths.push_back(path), whats.push_back(what);
    };
    add(batch.prints(), o.record, "record");
    add(batch.prints(), o.trace, "trace");
    add(writes_series, o.series, "series");
    add(batch.prints(), o.out, "output");
    add(batch.prints(), o.log, "log");
    add(batch.prints(), o.checkpoint, "checkpoint");  // (its folder: found at the first save, after the run, before)
    std::error_code ec;
    const bool checkpoint_was = !o.checkpoint.empty() && std::filesystem::exists(o.checkpoint, ec);
    if (size_t bad = cli::first_unwritable(paths); bad < paths.size()) return cli::cannot_write(whats[bad], paths[bad]);
    // The check made the checkpoint empty if it was not there: gone again, so that until the
    // first save there is no file (an empty one is no checkpoint: a `--resume` of it failed,
    // and "resume if the file exists" scripts broke on a run stopped before its first save).
    if (!o.checkpoint.empty() && !checkpoint_was && batch.prints()) std::filesystem::remove(o.checkpoint, ec);
  }
  if (!o.log.empty() && batch.prints()) {
    log_file.open(o.log);
    if (!log_file) return cli::cannot_write("log", o.log);
  }
  std::ofstream out, series;
  bool output_failed = false;  // an output not written in full (the run goes on; exit 2)
  std::unique_ptr<RecordFile> record;
  if (!o.record.empty() && batch.prints()) {  // run 1 is rank 0's
    std::string why;
    record = RecordFile::open(o.record, why);
    if (!record) {  // the file cannot be made: its reason, no usage text (as output_error)
      std::cerr << "thicket: " + why + "\n";
      return kExitUsage;
    }
  }
  std::ofstream trace;
  if (!o.trace.empty() && batch.prints()) {
    trace.open(o.trace);
    if (!trace) return cli::cannot_write("trace", o.trace);
  }
  std::optional<SeriesFormat> series_fmt;
  if (!o.series.empty()) {
    if (writes_series) series.open(o.series);
    if (writes_series && !series) return cli::cannot_write("series", o.series);
    series_fmt = series_format(o.series);
  }
  const bool jsonl = o.out.size() > 6 && o.out.compare(o.out.size() - 6, 6, ".jsonl") == 0;
  if (!o.out.empty() && batch.prints()) {  // with --shard: the part file
    out.open(o.out);
    if (!out) return cli::cannot_write("output", o.out);
  }
  RecordTee record_tee(record.get(), live ? live->sink() : nullptr);
  const bool progress = !o.quiet && isatty(STDERR_FILENO) && !o.watch && batch.prints();
  std::vector<RunResult> results;
  // Under MPI every rank has now opened what it needs: one that could not stops them all.
  if (int status = cli::mpi_agree_setup(0); status != 0) return status;
  // SIGTERM (how Slurm ends a job at its time limit, and `kill`'s default) as Ctrl-C: the runs
  // done are written (--out, a shard's part) rather than lost with the process.
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  // Many small runs (a sweep, --runs N) go to the threads whole: each run on one thread, with
  // one worker, several runs at once; big runs go one after another, their agents over the
  // threads. Either way every run is the same as on any thread count (SPEC 8.2), and what the
  // runs write (their log, Lua prints, diagnostics, series, rows) is written in run order.
  uint64_t agents_per_run = 0;
  for (const auto& g : spec->groups) agents_per_run += g.count;
  const bool spread = plan.size() > 1 && so.threads > 1 && !o.watch && !live && !checkpointer && !resume &&
                      !batch.collects() && (agents_per_run < kSpreadAgents || plan.size() >= 4 * so.threads);
  if (spread) {
    struct Done {
      bool done = false, failed = false;
      std::string diags;
      // The run's log lines (false) and Lua prints (true) in the order it made them, so that
      // standard output and error sent to one file read as one run at a time would write them.
      std::vector<std::pair<bool, std::string>> said;
      std::optional<SeriesBuffer> series;
      RunResult res;
    };
    std::vector<Done> runs(plan.size());
    std::atomic<uint64_t> next{0}, stop_at{UINT64_MAX};
    std::mutex m;
    uint64_t written = 0, finished = 0;
    std::set<std::string> warned;  // each warning once (every run loads the same brains)
    auto write = [&](uint64_t r) {  // under m, in run order
      Done& d = runs[r];
      std::cerr << cli::unseen_warnings(d.diags, warned);
      for (const auto& [printed, text] : d.said) {
        if (printed) {
          std::fwrite(text.data(), 1, text.size(), stdout);
        } else if (log_file.is_open()) {
          log_file << text;
        } else {
          std::fflush(stdout);
          std::cerr << text;
        }
      }
      std::fflush(stdout);
      if (r == 0 && record && d.failed && o.record.rfind("/dev/", 0) != 0) {  // no empty record left behind
        record.reset();
        std::remove(o.record.c_str());
      } else if (r == 0 && record) {
        std::string why;
        if (!record->close(why)) {
          std::cerr << "thicket: " << why << " (" << o.record << " is cut short)\n";
          output_failed = true;
        }
      }
      if (d.failed) return;
      results.push_back(d.res);
      if (d.series) {
        if (r == 0) series << d.series->header();
        series << d.series->text();
      }
    };
    auto work = [&] {
      for (;;) {
        const uint64_t r = next.fetch_add(1);
        if (r >= plan.size() || r > stop_at.load() || g_interrupted) return;
        Done& d = runs[r];
        SimOptions sr = so;
        sr.threads = 1;
        sr.seed = plan[r].seed;
        sr.log = [&d](const std::string& line) { d.said.emplace_back(false, line + "\n"); };
        sr.print = [&d](const std::string& line) { d.said.emplace_back(true, line + "\n"); };
        sr.record = r == 0 && record ? &record_tee : nullptr;
        sr.record_every = static_cast<uint32_t>(o.record_every);
        sr.record_keys = o.record_keys;
        sr.trace = r == 0 && trace.is_open() ? &trace : nullptr;
        sr.explain = r == 0 && o.explain;
        sr.brain_events = nullptr;
        if (sr.trace || sr.explain)
          sr.brain_events = [&d, explain = sr.explain, to = sr.trace](const TraceEvent& e) {
            if (to) cli::write_trace_event(*to, e);
            if (explain && e.type != TraceEvent::Type::Tick) d.said.emplace_back(false, cli::explain_event(e) + "\n");
          };
        sr.brain_event_ticks = sr.trace != nullptr;
        if (series_fmt) d.series.emplace(*series_fmt, o.series_every, r + 1, sr.seed);
        sr.series = d.series ? &*d.series : nullptr;
        std::vector<Diagnostic> diags;
        std::string set_why;
        auto run_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan[r].param_set], set_why)
                                             : std::optional<ScenarioSpec>(*spec);
        if (!run_spec) diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
        auto sim = run_spec ? Simulation::create(*run_spec, sr, diags) : nullptr;
        for (const auto& x : diags) d.diags += format_diagnostic(x) + "\n";
        if (sim) d.res = sim->run({}, [] { return g_interrupted != 0; });
        else d.failed = true;
        sim.reset();
        std::lock_guard<std::mutex> lock(m);
        d.done = true;
        ++finished;
        if (d.failed || d.res.stopped_strict || d.res.stopped_reload) stop_at = std::min<uint64_t>(stop_at.load(), r);
        while (written < plan.size() && written <= stop_at.load() && runs[written].done) write(written++);
        if (progress)
          std::fprintf(stderr, "\r runs %llu/%llu done (%u at once)", static_cast<unsigned long long>(finished),
                       static_cast<unsigned long long>(plan.size()), static_cast<unsigned>(so.threads));
      }
    };
    std::vector<std::thread> pool;
    for (uint64_t k = 0; k < std::min<uint64_t>(so.threads, plan.size()); ++k) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    if (progress) std::fprintf(stderr, "\n");
    if (stop_at.load() < plan.size() && runs[stop_at.load()].failed) {  // a run that failed to load ends the batch
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs before it
      return kExitLoad;
    }
  }
  std::vector<std::string> files_read;  // by the first run that loaded: the scenario, its map, brains, leaf files
  for (uint64_t r = 0; r < plan.size() && !g_interrupted && !spread; ++r) {
    if (!batch.mine(r)) continue;
    batch.begin(r);
    so.seed = plan[r].seed;
    so.record = r == 0 && (record || live) ? &record_tee : nullptr;  // the file and the live monitor
    so.record_every = static_cast<uint32_t>(o.record_every);
    so.record_keys = o.record_keys;
    so.trace = r == 0 && trace.is_open() ? &trace : nullptr;  // percept and brain events, first run
    so.explain = r == 0 && o.explain;
    so.brain_events = nullptr;
    if (so.trace || so.explain)
      so.brain_events = [&, explain = so.explain, to = so.trace](const TraceEvent& e) {
        if (to) cli::write_trace_event(*to, e);
        if (explain && e.type != TraceEvent::Type::Tick) so.log(cli::explain_event(e));
      };
    so.brain_event_ticks = so.trace != nullptr;
    std::optional<SeriesBuffer> run_series;  // this run's samples (runs are written in run order)
    if (series_fmt) run_series.emplace(*series_fmt, o.series_every, r + 1, so.seed);
    so.series = run_series ? &*run_series : nullptr;
    std::vector<Diagnostic> sim_diags;
    std::string set_why;  // the sets were checked when planned; a failure here is a bug, said as an error
    auto run_spec = cli::is_sweep(*sets) ? apply_param_set(*spec, sets->names, sets->values[plan[r].param_set], set_why)
                                         : std::optional<ScenarioSpec>(*spec);
    if (!run_spec) sim_diags.push_back({Severity::Error, o.files[0], 0, 0, set_why});
    auto sim = run_spec ? Simulation::create(*run_spec, so, sim_diags) : nullptr;
    if (sim && batch.collects() && files_read.empty()) files_read = sim->files_read();  // for the part's hash
    batch.diagnostics(sim_diags);  // printed (under MPI: kept for rank 0)
    if (sim && resume && !cli::resume(*sim, *resume, o.resume)) sim.reset();
    if (!sim) {
      if (r == 0 && record && o.record.rfind("/dev/", 0) != 0) {  // no empty record left behind
        record.reset();
        std::remove(o.record.c_str());
      }
      if (batch.collects()) {  // the batch ends here, as on one process, once the others are in
        batch.load_failed();
        break;
      }
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs done so far
      return kExitLoad;
    }
    if (live) live->attach(sim.get());  // the debug API (live_debug.hpp) serves this run
    RunResult res = sim->run(
        [&](uint64_t done, uint64_t total) {
          if (checkpointer)
            if (std::string why = checkpointer->after_tick(*sim, done); !why.empty()) {
              std::cerr << "thicket: " << o.checkpoint << ": error: " << why << " (the run goes on without checkpoints)\n";
              checkpoint_failed = true;
            }
          if (live) live->pace(done, so.dt, [] { return g_interrupted != 0; });
          if (!progress || (done % 16 != 0 && done != total)) return;
          int width = 30, filled = static_cast<int>(width * done / std::max<uint64_t>(total, 1));
          std::fprintf(stderr, "\r run %llu/%llu [%s%s] %llu/%llu ticks", static_cast<unsigned long long>(r + 1),
                       static_cast<unsigned long long>(plan.size()), std::string(filled, '#').c_str(),
                       std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(done),
                       static_cast<unsigned long long>(total));
        },
        [&, started = std::chrono::steady_clock::now(), begun = uint64_t(0)]() mutable {
          // --watch paces the run at the sim clock, one tick per dt of wall time (as for a brain);
          // with --serve the live session paces it (at --speed).
          auto due = started + std::chrono::duration<double>(so.dt * static_cast<double>(begun++));
          while (o.watch && !live && std::chrono::steady_clock::now() < due && !g_interrupted) usleep(1000);
          return g_interrupted != 0;
        });
    if (progress) std::fprintf(stderr, "\n");
    if (checkpointer && g_interrupted)  // Ctrl-C: what ran is saved, for --resume
      if (std::string why = checkpointer->at_stop(*sim, res.ticks); !why.empty()) {
        std::cerr << "thicket: " << o.checkpoint << ": error: " << why << "\n";
        checkpoint_failed = true;
      }
    if (r == 0 && record) {  // complete before the summary: a viewer may open it right away
      std::string why;
      if (!record->close(why)) {
        std::cerr << "thicket: " << why << " (" << o.record << " is cut short)\n";
        output_failed = true;
      }
    }
    if (g_interrupted && batch.sharded() && res.ticks < so.ticks) {  // not a whole run: not in the part
      batch.interrupted(res.ticks);
      break;
    }
    results.push_back(res);
    batch.done(res);
    if (run_series && batch.collects()) batch.series((r == 0 ? run_series->header() : "") + run_series->text());
    else if (run_series) {
      if (r == 0) series << run_series->header();
      series << run_series->text();
    }
    if (live) live->run_over(std::move(sim));  // still read by the debug API until the end
    if (res.stopped_strict || res.stopped_reload) break;
  }
  if (batch.collects()) {  // a shard's part file; under MPI, every rank's runs to rank 0
    // The files the batch reads, hashed: the scenario, its map, its brains and their leaf files
    // (a part made from other bytes does not merge). A process none of whose runs loaded (it
    // had none, or they failed) loads the scenario once to know them.
    std::vector<std::string> files = files_read;
    if (files.empty() && batch.sharded()) {  // (MPI ranks send results, not a part)
      SimOptions probe;
      probe.seed = so.seed;
      probe.dt = so.dt;
      probe.trusted = so.trusted;
      probe.log = probe.print = [](const std::string&) {};
      std::vector<Diagnostic> ignored;
      if (auto sim = Simulation::create(*spec, probe, ignored)) files = sim->files_read();
    }
    if (files.empty()) {
      files.push_back(spec->path);
      for (const auto& g : spec->groups) files.push_back(g.brain);
    }
    const std::string series_kind = !series_fmt ? "" : *series_fmt == SeriesFormat::Jsonl ? "jsonl" : "csv";
    const std::string options = cli::batch_run_options(so, series_fmt ? o.series_every : 0, o.lua_memory_mb);
    const cli::BatchInfo info{spec->name, cli::batch_fingerprint(files), options, so.ticks, first_seed,
                              o.runs, plan.size(), so.dt, series_kind, so.threads, *sets,
                              o.shards ? o.shard : 1, o.shards ? o.shards : 1};
    std::ostream& log_to = log_file.is_open() ? static_cast<std::ostream&>(log_file) : std::cerr;
    auto end = batch.finish(info, out.is_open() ? &out : nullptr, std::cerr, log_to, series.is_open() ? &series : nullptr);
    if (!end.goes_on) return end.status;
    results = std::move(end.results);
    if (end.load_failed || results.empty()) {
      if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // the runs before it
      return kExitLoad;
    }
  }
  if (out.is_open()) cli::write_run_rows(out, jsonl, results, *sets, plan);  // at the end: gauge columns are the union over runs
  const uint64_t ticks = o.watch ? results.back().ticks : so.ticks;  // --watch --ticks 0 runs until Ctrl-C
  const cli::BatchFacts facts{.scenario = spec->name, .ticks = ticks, .dt = so.dt, .threads = so.threads,
                              .interrupted = g_interrupted != 0};
  std::cerr << cli::batch_summary(facts, results, *sets, plan) << "\n";
  if (live) live->finish([] { return g_interrupted != 0; });
  // Every output is checked and reported (a braced list is evaluated in order, all of it).
  const bool written[] = {written_in_full(out, o.out, "output"), written_in_full(series, o.series, "series"),
                          written_in_full(trace, o.trace, "trace"), written_in_full(log_file, o.log, "log")};
  if (std::find(std::begin(written), std::end(written), false) != std::end(written)) output_failed = true;
  if (checkpoint_failed || output_failed) return kExitLoad;
  return cli::batch_exit_status(results);
}

// Two outputs given the same file would write over each other, and an input given as an
// output would be emptied before it is read: a usage error (cli::same_file says what is the
// same; a device such as /dev/null may take several outputs). --resume and --checkpoint may
// be the same file: the run goes on from the checkpoint and keeps replacing it.
std::string clashing_files(const Options& o) {
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--out", &o.out},     {"--series", &o.series}, {"--record", &o.record},
      {"--trace", &o.trace}, {"--log", &o.log},       {"--checkpoint", &o.checkpoint}};
  for (size_t a = 0; a < std::size(outputs); ++a) {
    if (outputs[a].second->empty()) continue;
    const std::string& path = *outputs[a].second;
    for (size_t b = a + 1; b < std::size(outputs); ++b)
      if (!outputs[b].second->empty() && cli::same_file(path, *outputs[b].second))
        return std::string(outputs[a].first) + " and " + outputs[b].first + " are given the same file '" + path + "'" +
               (path == *outputs[b].second ? "" : " (as '" + *outputs[b].second + "')") +
               ": each would overwrite the other";
    if (!o.files.empty() && cli::same_file(path, o.files[0]))
      return "'" + o.files[0] + "' is given as the file to run and as " + outputs[a].first + ": it would be overwritten";
    if (!o.resume.empty() && outputs[a].second != &o.checkpoint && cli::same_file(path, o.resume))
      return "'" + o.resume + "' is given as --resume and as " + outputs[a].first + ": it would be overwritten";
  }
  return {};
}

// An output given a file the run reads (a brain, a leaf file, a module, the map) would empty
// it: the next run, or a reload, would find it gone. Known once the run has loaded.
std::string output_over_input(const Options& o, const std::vector<std::string>& inputs) {
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--out", &o.out},     {"--series", &o.series}, {"--record", &o.record},
      {"--trace", &o.trace}, {"--log", &o.log},       {"--checkpoint", &o.checkpoint}};
  for (const auto& [option, path] : outputs) {
    if (path->empty()) continue;
    for (const std::string& input : inputs)
      if (cli::same_file(*path, input))
        return "'" + *path + "' is given as " + option + " but the run reads it" +
               (*path == input ? std::string() : " (as '" + input + "')") + ": it would be overwritten";
  }
  return {};
}

int cmd_run(const Options& o) {
  if (std::string why = clashing_files(o); !why.empty()) return usage_error(why);
  const cli::MpiWorld& world = cli::mpi_world();
  if (world.launched && world.size > 1) {
    if (!world.built)
      return usage_error("this thicket is built without MPI: under mpirun each of the " + std::to_string(world.size) +
                         " processes would run the whole batch into the same files (build with -DTHICKET_MPI=ON, or use --shard I/K)");
    if (!is_scenario(o.files[0])) return usage_error("mpirun spreads the runs of a scenario; a brain file runs on one process");
    if (o.shards) return usage_error("--shard is for processes started one by one; under mpirun the ranks share the runs themselves");
    if (o.watch || o.live.serve) return usage_error("--watch and --serve show one run live; they do not go with mpirun -n " + std::to_string(world.size));
  }
  if (is_scenario(o.files[0])) {
    int status = cmd_scenario(o);
    // MPI: a rank that stopped before the ranks compared their setup tells them so; after the
    // batch, every rank exits with rank 0's status (mpirun's exit status is a single process's).
    if (!cli::mpi_setup_compared()) return cli::mpi_agree_setup(status == 0 ? kExitLoad : status);
    return cli::mpi_share_status(status);
  }
  if (o.shards) return usage_error("--shard is for scenario files");
  if (o.threads || o.runs != 1 || !o.out.empty() || !o.record.empty() || o.record_every || o.record_keys_set ||
      !o.series.empty() || o.series_every != 1 || !o.sets.empty())
    return usage_error("--threads, --runs, --out, --record (with --record-every, --record-keys), --series and --set are for scenario files");
  if (o.live.serve || o.live.speed_set || o.live.exit_when_done)
    return usage_error("--serve, --speed and --serve-exit are for scenario files");
  if (!o.checkpoint.empty() || o.checkpoint_every || !o.resume.empty())
    return usage_error("--checkpoint, --every and --resume save and continue a scenario's run; a brain file's run has no checkpoint "
                       "(from C++, Runtime::save saves one)");
  // The log file is emptied when the run starts, not before the brain loads: a brain that does
  // not load leaves the last run's log as it was, and a log given a file the brain reads is
  // refused before it is opened. (Checked for writing now; lines logged while loading wait
  // for it, and go to standard error if the brain does not load.)
  std::ofstream log_file;
  if (!o.log.empty() && cli::first_unwritable({o.log}) == 0) return cli::cannot_write("log", o.log);
  bool log_may_open = false;
  std::vector<std::string> early_lines;
  auto open_log = [&] {
    if (!o.log.empty() && !log_file.is_open() && log_may_open) log_file.open(o.log);
    return log_file.is_open();
  };
  RuntimeOptions ro;
  ro.seed = o.seed;
  ro.trusted = o.trusted;
  ro.instruction_budget = o.budget;
  ro.budget_all_leaves = o.budget_all;
  ro.leaf_timeout = o.leaf_timeout;
  ro.lua_memory_limit = static_cast<size_t>(o.lua_memory_mb) << 20;
  ro.max_script_agents = static_cast<size_t>(o.max_agents);
  ro.log = [&](const std::string& line) {
    if (!o.log.empty() && !log_may_open) early_lines.push_back(line);
    else if (open_log()) log_file << line << "\n";
    else std::cerr << line << "\n";
  };
  Runtime rt(ro);
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  if (!brain)
    for (const std::string& line : early_lines) std::cerr << line << "\n";
  print_diagnostics(diags);
  if (!brain) return kExitLoad;
  if (std::string why = output_over_input(o, rt.impl().files_read()); !why.empty()) {
    for (const std::string& line : early_lines) std::cerr << line << "\n";  // (the log is not opened)
    return usage_error(why);
  }
  log_may_open = true;
  if (!o.log.empty() && !open_log()) return cli::cannot_write("log", o.log);
  for (const std::string& line : early_lines) log_file << line << "\n";

  std::ofstream trace;
  if (!o.trace.empty()) {
    trace.open(o.trace);
    if (!trace) return cli::cannot_write("trace", o.trace);
  }
  std::map<Status, uint64_t> final_status;
  std::vector<AgentHandle> agents;
  for (uint64_t i = 0; i < o.agents; ++i) agents.push_back(rt.spawn(*brain));
  if (trace.is_open() || o.explain) {
    rt.on_trace([&](const TraceEvent& e) {
      if (o.explain && e.type != TraceEvent::Type::Tick) ro.log(cli::explain_event(e));
      if (trace.is_open()) cli::write_trace_event(trace, e);
    }, trace.is_open());  // --explain alone needs no per-tick records
  }
  std::signal(SIGINT, on_sigint);
  const bool progress = !o.quiet && isatty(STDERR_FILENO) && o.ticks * o.agents >= 200000 && !o.watch;
  auto started = std::chrono::steady_clock::now();
  uint64_t ticks_done = 0;
  bool stopped_on_error = false;
  for (uint64_t t = 0; (o.ticks == 0 || t < o.ticks) && !g_interrupted; ++t) {
    if (o.watch) {
      rt.reload_changed();
      auto due = started + std::chrono::duration<double>(o.dt * static_cast<double>(t));
      while (std::chrono::steady_clock::now() < due && !g_interrupted) usleep(1000);
      if (g_interrupted) break;  // Ctrl-C while waiting for the tick: it is not run
    }
    rt.tick_all(o.dt);
    ++ticks_done;
    std::cout.flush();
    if (o.strict && rt.script_errors() > 0) {
      stopped_on_error = true;
      break;
    }
    if (progress && (t % 64 == 0 || t + 1 == o.ticks)) {
      int width = 30, filled = static_cast<int>(width * (t + 1) / o.ticks);
      std::fprintf(stderr, "\r[%s%s] %llu/%llu ticks", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(t + 1),
                   static_cast<unsigned long long>(o.ticks));
    }
  }
  if (progress) std::fprintf(stderr, "\n");
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& a : rt.agents()) ++final_status[rt.status(a)];  // spawned and despawned by leaves too
  std::fflush(stdout);
  {
    const uint64_t agent_ticks = rt.agent_ticks();  // a time-sliced agent counts when it ticks
    std::ostringstream s;
    s << "thicket: " << o.agents << " agent(s)";
    // Leaves that spawned or despawned: the count at the end too (the root statuses count those).
    if (const size_t live = rt.agents().size(); live != o.agents) s << " (" << live << " at the end)";
    s << ", " << ticks_done << " tick(s) at dt " << o.dt << " s, wall " << std::fixed;
    s.precision(3);
    s << wall << " s, ";
    s.precision(0);
    s << (wall > 0 ? static_cast<double>(agent_ticks) / wall : 0.0) << " agent-ticks/s\n";
    s << "thicket: root status:";
    for (const auto& [st, n] : final_status) s << " " << status_name(st) << "=" << n;
    s << "; script errors: " << rt.script_errors();
    if (stopped_on_error) s << " (stopped: --strict)";
    if (g_interrupted) s << " (interrupted)";
    std::cerr << s.str() << "\n";
  }
  const bool trace_written = written_in_full(trace, o.trace, "trace");  // both checked and reported
  if (!written_in_full(log_file, o.log, "log") || !trace_written) return kExitLoad;
  return rt.script_errors() > 0 ? kExitScriptErrors : kExitOk;
}

}  // namespace

int thicket_main(int argc, char** argv) {
  // --help (or -h) anywhere: the usage, whatever the command (before the commands that parse
  // their own arguments, which would call it an unknown option).
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return kExitOk;
    }
  // path has options of its own and none of run's: it parses its arguments itself.
  if (argc >= 2 && std::strcmp(argv[1], "path") == 0) return cli::path_command(argc, argv, kUsage);
  if (argc >= 2 && std::strcmp(argv[1], "view") == 0) return cli::view_command(argc, argv, kUsage);
  if (argc >= 2 && std::strcmp(argv[1], "merge") == 0) return cli::merge_command(argc, argv, kUsage);
  if (argc >= 2 && std::strcmp(argv[1], "edit") == 0) return cli::edit_command(argc, argv, kUsage);
  if (argc >= 2 && std::strcmp(argv[1], "import") == 0) return cli::import_command(argc, argv, kUsage);
  if (argc >= 2 && std::strcmp(argv[1], "export") == 0) return cli::export_command(argc, argv, kUsage);
  Options o;
  int rc = parse_args(argc, argv, o);
  if (rc == -1) return kExitOk;
  if (rc != 0) return rc;
  if (o.command == "check") return cmd_check(o);
  if (o.command == "run") return cmd_run(o);
  return cmd_text(o);
}

int main(int argc, char** argv) {
  cli::mpi_start(&argc, &argv);  // joins an MPI job when mpirun / srun started this process
  int status = thicket_main(argc, argv);
  cli::mpi_end();
  return status;
}
