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
#include <filesystem>
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
#include "run_command.hpp"
#include "json_text.hpp"  // escaped_utf8
#include "view_command.hpp"
#include "wall_pacer.hpp"
#include "edit_command.hpp"
#include "schema_findings.hpp"
#include "schema.hpp"
#include "plain_file.hpp"  // read_limited
#include "yaml_limits.hpp"
#include "runtime_impl.hpp"
#include "simulation.hpp"
#include "suggest.hpp"
#include "sweep.hpp"
#include "thicket/runtime.hpp"
#include "thicket/version.hpp"
#include "trace_format.hpp"

using namespace thicket;

namespace thicket {
const std::map<std::string, std::string>& embedded_schemas();  // generated from schemas/
}

namespace {

// The parsed command line and what scenario_command.cpp shares with this file (run_command.hpp).
using run_command::cmd_scenario;
using run_command::g_interrupted;
using run_command::kExitLoad;
using run_command::kExitOk;
using run_command::kExitScriptErrors;
using run_command::kExitUsage;
using run_command::on_sigint;
using run_command::Options;
using run_command::print_diagnostics;
using run_command::usage_error;
using run_command::option_error;
using run_command::written_in_full;

}  // namespace

volatile std::sig_atomic_t thicket::run_command::g_interrupted = 0;
volatile std::sig_atomic_t thicket::run_command::g_whole_ticks = 0;
// Ctrl-C: the run stops after the current tick, with its summary; a Lua call in progress is
// stopped where it is (an endless loop cannot hold the run), unless the run saves checkpoints
// (g_whole_ticks). A second Ctrl-C ends at once.
void thicket::run_command::on_sigint(int sig) {
  if (g_interrupted) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_interrupted = 1;
  if (!run_command::g_whole_ticks) interrupt_scripts();
}

namespace {
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
    "                            (--threads: default every core)\n"
    "                            [--record FILE.jsonl[.gz]] [--record-every N] [--record-keys KEY,...]\n"
    "                            [--ticks T] [--dt S] [--seed S] [--log FILE] [--quiet] [--trusted] [--budget N]\n"
    "                            [--budget-all] [--leaf-timeout S] [--lua-memory MB]   as for a brain file\n"
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




// The lines of kUsage about one command ("usage: " on the first): `thicket import --help` is
// the four lines of import, not the forty of every command. A block starts at a line whose
// words begin "thicket CMD" (or "mpirun ... thicket CMD", shown with run); the lines indented
// under it belong to it. Empty when no line names the command.
std::string command_usage(const std::string& command) {
  std::istringstream in(kUsage);
  std::string line, out;
  bool in_block = false;
  while (std::getline(in, line)) {
    std::string text = line.rfind("usage: ", 0) == 0 ? line.substr(7) : line;
    const size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    text = text.substr(start);
    const bool starts_block = start <= 7 && (text.rfind("thicket ", 0) == 0 || text.rfind("mpirun ", 0) == 0);
    if (starts_block) {
      const size_t at = text.find("thicket ");
      std::string word = text.substr(at + 8);
      word = word.substr(0, word.find(' '));
      in_block = word == command || (command == "version" && word == "--version");
      if (in_block) out += (out.empty() ? "usage: " : "       ") + text + "\n";
    }
    else if (in_block)
      out += line + "\n";
  }
  return out;
}

}  // namespace

int thicket::run_command::usage_error(const std::string& message) {
  // One write: under mpirun, stderr is forwarded in the pieces it was written in, and mpirun's
  // own notices could land between "thicket: " and the message.
  // A known option's bad value is said alone: the 36 lines of usage after it pushed it off
  // the screen. A missing file, an unknown command or option still get the usage.
  if (message.rfind("--", 0) == 0) return option_error(message);
  std::cerr << "thicket: " + message + "\n" + kUsage;
  return kExitUsage;
}

int thicket::run_command::option_error(const std::string& message) {
  std::cerr << "thicket: " + message + "\n(thicket --help lists the options)\n";
  return kExitUsage;
}

namespace {

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
// "unknown command 'X'; did you mean 'Y'? (commands: ...)".
std::string unknown_command(const std::string& command) {
  const std::vector<std::string> commands = {"run", "check", "dot", "dump", "path", "view", "merge", "import", "export", "edit", "version"};
  // An option in the command's place is near the options that may stand there (--versio).
  const std::string near = command.rfind("--", 0) == 0 ? did_you_mean(command, {"--version", "--help"})
                                                       : did_you_mean(command, commands);
  return "unknown command '" + command + "'" + (near.empty() ? did_you_mean(command, commands) : near) +
         " (commands: " + join_names(commands) + ")";
}

int parse_args(int argc, char** argv, Options& o) {
  if (argc < 2) return usage_error("missing command");
  o.command = argv[1];
  if (o.command == "--version" || o.command == "version") {
    if (argc > 2) return usage_error("'thicket " + o.command + "' takes no arguments");
    std::cout << "thicket " << THICKET_VERSION_STRING << "\n";
    return -1;
  }
  if (o.command != "run" && o.command != "check" && o.command != "dot" && o.command != "dump")
    return usage_error(unknown_command(o.command));
  std::map<std::string, int> valued = {{"--agents", 0}, {"--ticks", 0}, {"--dt", 0},
                                       {"--seed", 0},   {"--trace", 0}, {"--log", 0}, {"--budget", 0},
                                       {"--threads", 0}, {"--runs", 0},  {"--out", 0}, {"--record", 0},
                                       {"--record-every", 0}, {"--record-keys", 0}, {"--leaf-timeout", 0}, {"--lua-memory", 0}, {"--max-agents", 0},
                                       {"--series", 0}, {"--series-every", 0},
                                       {"--serve", 0}, {"--speed", 0}, {"--set", 0}, {"--shard", 0},
                                       {"--checkpoint", 0}, {"--every", 0}, {"--resume", 0}};
  const std::vector<std::string> flags = {"--watch", "--strict", "--quiet", "--trusted", "--explain", "--budget-all", "--serve-exit"};
  bool files_only = false;  // after `--`: every argument is a FILE (one named -x.yaml)
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (!files_only && a == "--") {
      files_only = true;
      continue;
    }
    if (files_only) {
      if (a.empty()) return usage_error("an empty FILE ('')");
      o.files.push_back(a);
      continue;
    }
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
      if (a == "--seed") {  // 0 .. 2^63 - 1, as the scenario's `seed:` (it took 18 digits, and rows carry 19)
        const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || value.size() > 19 || (value.size() == 19 && value > "9223372036854775807"))
          return usage_error("--seed needs a whole number from 0 to 9223372036854775807, got '" + value + "'");
        o.seed = std::stoull(value);
      }
      if (a == "--dt") {
        if (!cli::parse_decimal(value, o.dt) || !(o.dt > 0) || o.dt > kMaxDt)
          return usage_error("--dt needs a number of seconds > 0 and at most 1000000, got '" + value + "'");
      }
      if (a == "--budget" && !parse_uint(value, o.budget))
        return usage_error("--budget needs a whole number of Lua instructions (0 = no budget), got '" + value + "'" + digits_note(value));
      if (a == "--leaf-timeout") {
        if (!cli::parse_decimal(value, o.leaf_timeout) || !(o.leaf_timeout >= 0) || o.leaf_timeout > 1e6)
          return usage_error("--leaf-timeout needs a number of seconds from 0 (no limit) to 1000000, got '" + value + "'");
      }
      if (a == "--lua-memory" && (!parse_uint(value, o.lua_memory_mb) || o.lua_memory_mb > (uint64_t(1) << 30)))
        return usage_error("--lua-memory needs a whole number of MiB from 0 (no cap) to 1073741824, got '" + value + "'" + digits_note(value));
      if (a == "--max-agents" && (!parse_uint(value, o.max_agents) || o.max_agents > (uint64_t(1) << 32)))
        return usage_error("--max-agents needs a whole number of agents from 0 (no cap) to 4294967296, got '" + value + "'" + digits_note(value));
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
          // (as the scenario's `record: {keys: [...]}` refuses it: the header listed it twice)
          if (std::find(o.record_keys.begin(), o.record_keys.end(), key) != o.record_keys.end())
            return usage_error("--record-keys lists '" + escaped_utf8(key) + "' twice");
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

}  // namespace

void thicket::run_command::print_diagnostics(const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
}

namespace {

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
}  // namespace

bool thicket::run_command::written_in_full(std::ofstream& f, const std::string& path, const char* what) {
  if (!f.is_open()) return true;
  f.flush();
  if (f) return true;
  std::cerr << "thicket: error: the " << what << " file '" << path << "' could not be written in full (a full disk?)\n";
  return false;
}

namespace {

// A file of another kind given as the brain or scenario (`thicket check guard.lua`): said as
// such, not as YAML that reads wrong (a Lua file is often no YAML at all). "" when it is none.
std::string other_kind_of_file(const std::string& path) {
  auto named = [&](const std::string& e) { return path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0; };
  if (named(".lua")) return path + ": error: this is a Lua file: give thicket the brain (.yaml) that lists it under 'leaves:'";
  if (named(".xml"))
    return path + ": error: this is an XML file: a BehaviorTree.CPP tree is brought in with 'thicket import " +
           std::filesystem::path(path).filename().string() + "', which writes a brain";
  // A checkpoint (sim_snapshot.cpp's magic): it was said as a file that is not UTF-8. (Opened
  // as a plain file only: a pipe nothing writes to would be waited on for ever.)
  PathKind kind = PathKind::Missing;
  const int fd = open_plain(path, kind);
  if (fd < 0) return "";
  char magic[8] = {};
  ssize_t got = 0;
  while (got < ssize_t(sizeof magic)) {
    const ssize_t n = ::read(fd, magic + got, sizeof magic - size_t(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += n;
  }
  ::close(fd);
  if (got == ssize_t(sizeof magic) && std::string_view(magic, sizeof magic) == "THKTSIM\n")
    return path + ": error: this is a checkpoint (a saved run): go on from it with 'thicket run SCENARIO --resume " +
           std::filesystem::path(path).filename().string() + "'";
  return "";
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
  so.log = [](const std::string& line) { std::cerr << line + '\n'; };  // one write, not two
  return Simulation::create(*spec, so, diags) != nullptr;
}

int cmd_check(const Options& o) {
  int worst = kExitOk;
  for (const auto& file : o.files) {
    if (const std::string other = other_kind_of_file(file); !other.empty()) {
      std::cerr << other << "\n" << file << ": 1 error(s)\n";
      worst = kExitLoad;
      continue;
    }
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
    sort_diagnostics(diags);
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
using run_command::output_over_input;

int cmd_text(const Options& o) {
  if (const std::string other = other_kind_of_file(o.files[0]); !other.empty()) return std::cerr << other << "\n", kExitLoad;
  if (is_scenario(o.files[0])) return cmd_scenario_text(o);
  Runtime rt;
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  sort_diagnostics(diags);
  print_diagnostics(diags);
  if (!brain) return kExitLoad;
  std::cout << (o.command == "dot" ? rt.dot(*brain) : rt.dump(*brain));
  return kExitOk;
}

// A scenario file's top level has `scenario:`.
// (Read within the loaders' bounds: a device or a huge file is left to the brain loader,
// which reports it.)
bool is_scenario(const std::string& path) { return has_top_level_key(path, "scenario"); }

// A brain's DOT graph with every node id (n3, s1, start) and cluster prefixed, so that several brains can
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
        // A composite state's cluster (subgraph cluster_s1, lhead=cluster_s1) is prefixed as its
        // nodes are: two brains' cluster_s0 were one name, and Graphviz drew the second's
        // edges to the first's cluster.
        if (!id && word.rfind("cluster_", 0) == 0) word = "cluster_" + prefix + word.substr(8);
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
  // Checked first as `check` checks it, so that every error of the file and of its groups'
  // brains and values comes at once (the load below stopped at the file's own errors, or at
  // the first brain that failed); then loaded again, its diagnostics said already.
  {
    std::vector<Diagnostic> diags;
    const bool ok = check_scenario(o.files[0], diags);
    print_diagnostics(diags);
    if (!ok || has_errors(diags)) return kExitLoad;
  }
  std::vector<Diagnostic> diags;
  auto spec = load_scenario(o.files[0], diags);
  if (!spec) {
    print_diagnostics(diags);
    return kExitLoad;
  }
  Runtime rt;
  std::vector<std::string> files;  // distinct brain files, in group order
  std::vector<BrainHandle> brains;
  std::vector<size_t> brain_of;    // per group, its index in files
  for (const AgentGroup& g : spec->groups) {
    size_t k = std::find(files.begin(), files.end(), g.brain) - files.begin();
    if (k == files.size()) {
      std::vector<Diagnostic> brain_diags;
      auto brain = rt.load_file(g.brain, brain_diags);
      if (!brain) {  // (a file changed since the check)
        print_diagnostics(brain_diags);
        return kExitLoad;
      }
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
}  // namespace

std::string thicket::run_command::output_over_input(const Options& o, const std::vector<std::string>& inputs) {
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

namespace {

// A file that cannot be read is neither a brain nor a scenario: the loader says why (no such
// file, a folder; with a near name), as `thicket check` does, rather than a usage error about
// the options of the kind it was taken for.
bool unreadable(const std::string& path) {
  std::string text, why;  // (read_limited: a pipe is refused, not waited on, as an ifstream did)
  return !read_limited(path, kMaxYamlBytes, text, why);
}

int run_file(const Options& o);

int cmd_run(const Options& o) {
  const int status = run_file(o);
  // MPI: a rank that stopped before the ranks compared their setup (a usage error, a file it
  // cannot see) tells them so, and they all stop, rather than wait for it; after the batch,
  // every rank exits with rank 0's status (mpirun's exit status is a single process's).
  const cli::MpiWorld& world = cli::mpi_world();
  if (!world.built || world.size < 2) return status;
  if (!cli::mpi_setup_compared()) return cli::mpi_agree_setup(status == 0 ? kExitLoad : status);
  return cli::mpi_share_status(status);
}

int run_file(const Options& o) {
  if (std::string why = clashing_files(o); !why.empty()) return option_error(why);  // (the usage after it buried it)
  if (const std::string other = other_kind_of_file(o.files[0]); !other.empty()) return std::cerr << other << "\n", kExitLoad;
  if (unreadable(o.files[0])) {
    Runtime rt;
    std::vector<Diagnostic> diags;
    rt.load_file(o.files[0], diags);
    print_diagnostics(diags);
    return kExitLoad;
  }
  const cli::MpiWorld& world = cli::mpi_world();
  if (world.launched && world.size > 1) {
    if (!world.built)
      return usage_error("this thicket is built without MPI: under mpirun each of the " + std::to_string(world.size) +
                         " processes would run the whole batch into the same files (build with -DTHICKET_MPI=ON, or use --shard I/K)");
    if (!is_scenario(o.files[0])) return usage_error("mpirun spreads the runs of a scenario; a brain file runs on one process");
    if (o.shards) return usage_error("--shard is for processes started one by one; under mpirun the ranks share the runs themselves");
    if (o.watch || o.live.serve) return usage_error("--watch and --serve show one run live; they do not go with mpirun -n " + std::to_string(world.size));
  }
  if (is_scenario(o.files[0])) return cmd_scenario(o);
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
    if (!o.log.empty() && !log_file.is_open() && log_may_open) log_file.open(o.log, cli::output_mode(o.log));
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
    else std::cerr << line + '\n';  // one write, not two (std::cerr is unbuffered)
  };
  Runtime rt(ro);
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  if (!brain)
    for (const std::string& line : early_lines) std::cerr << line << "\n";
  sort_diagnostics(diags);
  print_diagnostics(diags);
  if (!brain) return kExitLoad;
  if (std::string why = output_over_input(o, rt.impl().files_read()); !why.empty()) {
    for (const std::string& line : early_lines) std::cerr << line << "\n";  // (the log is not opened)
    return option_error(why);  // (the usage after it buried it)
  }
  log_may_open = true;
  if (!o.log.empty() && !open_log()) return cli::cannot_write("log", o.log);
  for (const std::string& line : early_lines) log_file << line << "\n";

  std::ofstream trace;
  if (!o.trace.empty()) {
    trace.open(o.trace, cli::output_mode(o.trace));
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
  const uint64_t progress_step = std::max<uint64_t>(1, o.ticks / 1000);
  auto started = std::chrono::steady_clock::now();
  uint64_t ticks_done = 0;
  bool stopped_on_error = false;
  cli::WallPacer pacer(o.dt);
  for (uint64_t t = 0; (o.ticks == 0 || t < o.ticks) && !g_interrupted; ++t) {
    if (o.watch) {
      if (!pacer.wait([] { return g_interrupted != 0; })) break;  // Ctrl-C while waiting: the tick is not run
      // After the wait, right before the tick: a file saved while the run waited for this
      // tick is in it (SPEC 10: at the next tick boundary), not one tick later.
      rt.reload_changed();
    }
    rt.tick_all(o.dt);
    ++ticks_done;
    std::cout.flush();
    if (o.strict && rt.script_errors() > 0) {
      stopped_on_error = true;
      break;
    }
    // At most ~1,000 redraws a run, whatever its length: each writes to the terminal, and
    // one every 64 ticks cost a long run of a small brain a third of its speed.
    if (progress && (t == 0 || (t + 1) % progress_step == 0 || t + 1 == o.ticks)) {
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
  // After a command (`thicket import --help`, `thicket help import`): that command's lines.
  // Not after `--`: what follows it is files (a file named -h).
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        (i == 1 && std::strcmp(argv[i], "help") == 0)) {
      const char* command = std::strcmp(argv[1], "help") == 0 ? (argc > 2 ? argv[2] : nullptr) : (i > 1 ? argv[1] : nullptr);
      const std::string lines = command ? command_usage(command) : std::string();
      // `thicket help bogus` printed the whole usage and succeeded, as if bogus were a command.
      // (An option before --help, `thicket --trace x --help`, is no command: the usage.)
      if (command && lines.empty() && command[0] != '-') return usage_error(unknown_command(command));
      std::cout << (lines.empty() ? std::string(kUsage) : lines + "(thicket --help lists every command)\n");
      return kExitOk;
    }
  // Under mpirun only `run` shares its work among the ranks; any other command would run once
  // per rank (`merge` writing one file from every rank at once, `dump` printed K times).
  if (const cli::MpiWorld& world = cli::mpi_world(); world.launched && world.size > 1 && argc >= 2 && std::strcmp(argv[1], "run") != 0)
    return std::cerr << "thicket: under mpirun only 'thicket run SCENARIO' shares its runs among the ranks; run 'thicket " +
                            std::string(argv[1]) + "' as one process (each of the " + std::to_string(world.size) +
                            " would run it)\n",
           kExitUsage;
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
  // What went to standard output (dump, dot, check's lines, Lua prints, a run's rows) and could
  // not be written is an error, not a success with the output lost: `thicket dump b.yaml >
  // /dev/full` said nothing and exited 0. (A command that failed already said why.)
  std::cout.flush();
  const bool out_failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (out_failed && (status == kExitOk || status == kExitScriptErrors)) {
    std::cerr << "thicket: error: cannot write to standard output (a full disk, a closed pipe?): what it printed is lost\n";
    status = kExitLoad;
  }
  cli::mpi_end();
  return status;
}
