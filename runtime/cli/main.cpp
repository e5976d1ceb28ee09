// thicket: run | check | dot | dump (SPEC 9).
//
// Standard output carries only what Lua prints; the run's log and the summary go to
// standard error (or --log FILE). Exit: 0 clean, 1 script errors, 2 load failure, 64 usage.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "schema.hpp"
#include "thicket/runtime.hpp"

using namespace thicket;

namespace thicket {
const std::map<std::string, std::string>& embedded_schemas();  // generated from schemas/
}

namespace {

constexpr int kExitOk = 0, kExitScriptErrors = 1, kExitLoad = 2, kExitUsage = 64;

const char* kUsage =
    "usage: thicket run FILE [--agents N] [--ticks T] [--dt S] [--seed S] [--watch]\n"
    "                        [--trace OUT.jsonl] [--log FILE] [--explain] [--strict] [--quiet] [--trusted]\n"
    "                        [--budget N]   Lua instructions a leaf call may run (default 10000000; 0 = off)\n"
    "       thicket check FILE...\n"
    "       thicket dot FILE\n"
    "       thicket dump FILE\n";

volatile std::sig_atomic_t g_interrupted = 0;
void on_sigint(int) { g_interrupted = 1; }

struct Options {
  std::string command;
  std::vector<std::string> files;
  uint64_t agents = 1, ticks = 10, seed = 1, budget = 10'000'000;
  double dt = 0.1;
  bool watch = false, strict = false, quiet = false, trusted = false, explain = false;
  std::string trace, log;
};

int usage_error(const std::string& message) {
  std::cerr << "thicket: " << message << "\n" << kUsage;
  return kExitUsage;
}

bool parse_uint(const std::string& s, uint64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return false;
  out = std::stoull(s);
  return true;
}

// Parses argv; returns 0 or an exit code.
int parse_args(int argc, char** argv, Options& o) {
  if (argc < 2) return usage_error("missing command");
  o.command = argv[1];
  if (o.command == "--help" || o.command == "-h" || o.command == "help") {
    std::cout << kUsage;
    return -1;
  }
  if (o.command != "run" && o.command != "check" && o.command != "dot" && o.command != "dump")
    return usage_error("unknown command '" + o.command + "' (commands: run, check, dot, dump)");
  std::map<std::string, int> valued = {{"--agents", 0}, {"--ticks", 0}, {"--dt", 0},
                                       {"--seed", 0},   {"--trace", 0}, {"--log", 0}, {"--budget", 0}};
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
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
        return usage_error("--agents needs a whole number >= 1, got '" + value + "'");
      if (a == "--ticks" && !parse_uint(value, o.ticks))
        return usage_error("--ticks needs a whole number >= 0, got '" + value + "'");
      if (a == "--seed" && !parse_uint(value, o.seed)) return usage_error("--seed needs a whole number, got '" + value + "'");
      if (a == "--dt") {
        char* end = nullptr;
        o.dt = std::strtod(value.c_str(), &end);
        if (value.empty() || *end || !(o.dt > 0) || o.dt > 1e6)
          return usage_error("--dt needs a number of seconds > 0, got '" + value + "'");
      }
      if (a == "--budget" && !parse_uint(value, o.budget))
        return usage_error("--budget needs a whole number of Lua instructions (0 = no budget), got '" + value + "'");
      if (a == "--trace") o.trace = value;
      if (a == "--log") o.log = value;
      continue;
    }
    if (eq != std::string::npos) return usage_error(a + " takes no value");
    if (a == "--watch") o.watch = true;
    else if (a == "--strict") o.strict = true;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--trusted") o.trusted = true;
    else if (a == "--explain") o.explain = true;
    else return usage_error("unknown option '" + a + "'");
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

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out;
}

// Schema findings at places the compiler did not already report (the compiler's messages
// are the more precise; the schema is what editors check against, so both must agree).
void add_schema_findings(const std::string& file, std::vector<Diagnostic>& diags) {
  static std::optional<SchemaSet> schemas = [] {
    std::string error;
    auto set = SchemaSet::parse(embedded_schemas(), error);
    if (!set) std::cerr << "thicket: the built-in schemas failed to load: " << error << "\n";
    return set;
  }();
  if (!schemas) return;
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file);
  } catch (const std::exception&) {
    return;  // unreadable or not YAML: the loader has said so
  }
  std::string schema = brain_schema_file(doc);
  if (schema.empty() || !schemas->has(schema)) return;
  std::vector<SchemaError> found;
  schemas->validate(doc, schema, found);
  for (const auto& e : found) {
    bool reported = false;
    for (const auto& d : diags) reported = reported || (d.file == file && d.line == e.line);
    if (!reported) diags.push_back({Severity::Error, file, e.line, e.column, e.message + " (schema " + schema + ")"});
  }
}

int cmd_check(const Options& o) {
  int worst = kExitOk;
  for (const auto& file : o.files) {
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

int cmd_text(const Options& o) {
  Runtime rt;
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  print_diagnostics(diags);
  if (!brain) return kExitLoad;
  std::cout << (o.command == "dot" ? rt.dot(*brain) : rt.dump(*brain));
  return kExitOk;
}

int cmd_run(const Options& o) {
  std::ofstream log_file;
  if (!o.log.empty()) {
    log_file.open(o.log);
    if (!log_file) return usage_error("cannot write the log file '" + o.log + "'");
  }
  RuntimeOptions ro;
  ro.seed = o.seed;
  ro.trusted = o.trusted;
  ro.instruction_budget = o.budget;
  ro.log = [&](const std::string& line) {
    if (log_file.is_open()) log_file << line << "\n";
    else std::cerr << line << "\n";
  };
  Runtime rt(ro);
  std::vector<Diagnostic> diags;
  auto brain = rt.load_file(o.files[0], diags);
  print_diagnostics(diags);
  if (!brain) return kExitLoad;

  std::ofstream trace;
  if (!o.trace.empty()) {
    trace.open(o.trace);
    if (!trace) return usage_error("cannot write the trace file '" + o.trace + "'");
  }
  std::map<Status, uint64_t> final_status;
  std::vector<AgentHandle> agents;
  for (uint64_t i = 0; i < o.agents; ++i) agents.push_back(rt.spawn(*brain));
  if (trace.is_open() || o.explain) {
    rt.on_trace([&](const TraceEvent& e) {
      if (e.type == TraceEvent::Type::Tick) {
        if (!trace.is_open()) return;
        trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << ",\"status\":\"" << status_name(e.status)
              << "\",\"running\":[";
        for (size_t k = 0; k < e.running.size(); ++k) trace << (k ? "," : "") << '"' << json_escape(e.running[k]) << '"';
        trace << "]}\n";
      } else {
        std::ostringstream why;
        why << "tick " << e.tick << " agent " << e.agent << ": " << e.composite << " aborted " << e.aborted << " ("
            << e.aborted_label << "): " << e.condition << " (" << e.condition_label << ") changed from "
            << status_name(e.from) << " to " << status_name(e.to);
        if (o.explain) ro.log(why.str());
        if (trace.is_open())
          trace << "{\"tick\":" << e.tick << ",\"agent\":" << e.agent << ",\"abort\":{\"at\":\"" << json_escape(e.composite)
                << "\",\"condition\":\"" << json_escape(e.condition) << "\",\"from\":\"" << status_name(e.from)
                << "\",\"to\":\"" << status_name(e.to) << "\",\"interrupted\":\"" << json_escape(e.aborted) << "\"}}\n";
      }
    });
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
  for (const auto& a : agents) ++final_status[rt.status(a)];
  std::fflush(stdout);
  {
    uint64_t agent_ticks = ticks_done * o.agents;
    std::ostringstream s;
    s << "thicket: " << o.agents << " agent(s), " << ticks_done << " tick(s) at dt " << o.dt << " s, wall "
      << std::fixed;
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
  return rt.script_errors() > 0 ? kExitScriptErrors : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int rc = parse_args(argc, argv, o);
  if (rc == -1) return kExitOk;
  if (rc != 0) return rc;
  if (o.command == "check") return cmd_check(o);
  if (o.command == "run") return cmd_run(o);
  return cmd_text(o);
}
