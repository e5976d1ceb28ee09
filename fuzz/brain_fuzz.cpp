// Fuzz target: the brain loader. The input is the text of a brain file (tree, fsm or
// machine), loaded with Runtime::load_string as if it were fuzz/files/input.yaml, so its
// `leaves:` and `import:` can name the example leaf and library files linked there. A brain
// that loads is then dumped, drawn, and run: two agents, a few ticks, a despawn.
// The native leaves it may name besides the Lua ones: stub_leaves.hpp.
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "stub_leaves.hpp"
#include "thicket/runtime.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  static const std::string path = std::string(THICKET_FUZZ_FILES) + "/input.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);

  thicket::Runtime rt(thicket::fuzz::runtime_options());
  thicket::fuzz::register_stubs(rt);
  size_t events = 0;
  rt.on_trace([&](const thicket::TraceEvent& e) { events += e.running.size() + e.composite.size(); });

  std::vector<thicket::Diagnostic> diags;
  auto brain = rt.load_string(text, path, diags);
  std::string messages;
  for (const auto& d : diags) messages += thicket::format_diagnostic(d);
  thicket::fuzz::fail_on_internal_error(diags);
  static const bool verbose = std::getenv("THICKET_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s%s\n", messages.c_str(), brain ? "loaded" : "not loaded");
  if (!brain) return 0;

  (void)rt.dump(*brain);
  (void)rt.dot(*brain);
  (void)rt.bytes_per_agent(*brain);
  auto a = rt.spawn(*brain);
  auto b = rt.spawn(*brain);
  for (int i = 0; i < 4; ++i) rt.tick_all(0.25);
  (void)rt.running_nodes(a);
  (void)rt.status(b);
  rt.despawn(a);
  rt.tick_all(0.25);
  (void)rt.script_errors();
  return 0;
}
