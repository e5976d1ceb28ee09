// Fuzz target: the scenario loader (runtime/src/sim/scenario.cpp). The input is the text of
// a scenario file, read as if it were fuzz/files/scenario.yaml, so that its groups' `brain:`
// can name the example brains linked there (only their existence is checked at this stage).
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  static const std::string path = std::string(THICKET_FUZZ_FILES) + "/scenario.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<thicket::Diagnostic> diags;
  auto spec = thicket::load_scenario_text(text, path, diags);
  std::string messages;
  for (const auto& d : diags) messages += thicket::format_diagnostic(d);
  thicket::fuzz::fail_on_internal_error(diags);
  if (spec && !diags.empty())
    for (const auto& d : diags)
      if (d.severity == thicket::Severity::Error) __builtin_trap();  // loaded despite an error
  return 0;
}
