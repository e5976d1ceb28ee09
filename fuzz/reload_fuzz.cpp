// Fuzz target: hot reload (SPEC 10). The input is two versions of one brain file, split at the
// first line that is exactly `#reload` (without one, the file reloads unchanged), optionally
// followed, after a line `#lua`, by two versions of a Lua leaf file split the same way. The
// first brain is written to input.yaml in a scratch folder of this process, beside links to
// fuzz/files (so `leaves:` and `import:` reach the example leaf and library files) and the
// first Lua version as fuzz_leaves.lua, and loaded; three agents are spawned and ticked (each
// sent an event), then the brain file is rewritten with the second version and reloaded with
// the agents mid-run; they tick on, the Lua file is rewritten and reloaded, one agent is
// despawned, one spawned, and the first brain is reloaded again (the way back). What is
// checked besides the sanitizers:
//   - a reload that fails leaves everything as it was: the runtime's snapshot and the brain's
//     dump are byte for byte those from before it;
//   - a reload that succeeds keeps every agent;
//   - a loader bug, which a reload turns into an "internal error" diagnostic so that the game
//     survives it, is a crash here.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <optional>
#include <utility>
#include <vector>

#include "fuzz_target.hpp"
#include "stub_leaves.hpp"
#include "thicket/runtime.hpp"

namespace {

namespace fs = std::filesystem;

// This process's scratch folder (libFuzzer's -jobs workers are processes: one each), removed at
// exit: links to every file of fuzz/files, and the brain file the inputs are written to.
const fs::path& scratch() {
  // Never destroyed: the exit handler below needs it after static destructors have run.
  static const fs::path* const dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "thicket-reload-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::perror("reload fuzz: mkdtemp");
      std::abort();
    }
    for (const auto& e : fs::directory_iterator(THICKET_FUZZ_FILES))
      fs::create_symlink(e.path(), fs::path(tmpl) / e.path().filename());
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch(), ec);
    });
    return new fs::path(tmpl);
  }();
  return *dir;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) {
    std::perror("reload fuzz: writing the brain file");
    std::abort();
  }
}

// Everything a failed reload must leave as it was.
std::string state_of(thicket::Runtime& rt, thicket::BrainHandle brain) {
  std::ostringstream snapshot;
  rt.save(snapshot);
  return rt.dump(brain) + "\n" + snapshot.str();
}

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "reload fuzz: %s\n", what);
  std::abort();
}

// Rewrites `path` (the brain's YAML, or a Lua leaf file) with `text` and reloads it; true when
// the reload took. A Lua file the running brain does not use reloads nothing (no report): that
// too must change nothing.
bool reload(thicket::Runtime& rt, thicket::BrainHandle brain, const fs::path& path, const std::string& text) {
  const std::string before = state_of(rt, brain);
  const size_t agents = rt.agent_count();
  write_file(path, text);
  std::vector<thicket::ReloadReport> reports;
  rt.reload_files({path.string()}, &reports);
  bool ok = false, reported = false;
  for (const auto& r : reports) {
    thicket::fuzz::fail_on_internal_error(r.diagnostics);
    if (r.file != path.string()) continue;
    reported = true;
    ok = r.ok;
  }
  check(reported || path.extension() == ".lua", "the reload of the brain file made no report");
  static const bool verbose = std::getenv("THICKET_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    for (const auto& r : reports)
      for (const auto& d : r.diagnostics) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
    std::fprintf(stderr, "reload %s\n", ok ? "took" : "failed");
  }
  if (ok) {
    check(rt.agent_count() == agents, "a reload lost or added agents");
  } else {
    check(state_of(rt, brain) == before, "a failed reload changed the running brain or its agents");
  }
  return ok;
}

void run(thicket::Runtime& rt, int ticks) {
  for (int i = 0; i < ticks; ++i) rt.tick_all(0.25);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  const std::string input(reinterpret_cast<const char*>(data), size);
  // The text before and after the first line that is exactly `marker`, if there is one.
  auto split = [](const std::string& text, const std::string& marker) -> std::optional<std::pair<std::string, std::string>> {
    for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1))
      if (at == 0 || text[at - 1] == '\n') return std::pair{text.substr(0, at), text.substr(at + marker.size())};
    return std::nullopt;
  };
  const auto lua_part = split(input, "#lua\n");
  const std::string brains = lua_part ? lua_part->first : input, lua = lua_part ? lua_part->second : "";
  const bool has_lua = lua_part.has_value();
  const auto [first, second] = split(brains, "#reload\n").value_or(std::pair{brains, brains});
  const auto [lua_first, lua_second] = split(lua, "#reload\n").value_or(std::pair{lua, lua});

  thicket::Runtime rt(thicket::fuzz::runtime_options());
  thicket::fuzz::register_stubs(rt);
  rt.on_print([](const std::string&) {});

  const fs::path path = scratch() / "input.yaml", lua_path = scratch() / "fuzz_leaves.lua";
  std::error_code no_file;
  fs::remove(lua_path, no_file);  // the last input's
  if (has_lua) write_file(lua_path, lua_first);
  write_file(path, first);
  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_file(path.string(), diags);
  thicket::fuzz::fail_on_internal_error(diags);
  if (!brain) return 0;

  std::vector<thicket::AgentHandle> agents;
  for (int i = 0; i < 3; ++i) agents.push_back(rt.spawn(*brain));
  run(rt, 2);
  for (auto a : agents) rt.send(a, "alarm");
  run(rt, 3);

  reload(rt, *brain, path, second);
  run(rt, 3);
  if (has_lua) {
    reload(rt, *brain, lua_path, lua_second);
    run(rt, 2);
  }
  rt.despawn(agents[0]);
  agents.push_back(rt.spawn(*brain));
  for (auto a : agents) rt.send(a, "done");
  run(rt, 2);
  (void)rt.dump(*brain);
  for (auto a : agents) (void)rt.running_nodes(a);

  reload(rt, *brain, path, first);
  run(rt, 2);
  for (auto a : agents) rt.despawn(a);
  run(rt, 1);
  return 0;
}
