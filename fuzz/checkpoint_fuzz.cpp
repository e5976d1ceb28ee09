// Fuzz target: restoring a checkpoint (runtime/src/sim/sim_snapshot.cpp and the parts it reads:
// the runtime's agents, the world, perception, metrics). The input is a checkpoint's bytes for
// fuzz/files/checkpoint.yaml; the target writes their checksum before restoring, so mutations
// reach past the CRC into the parts' readers. A damaged checkpoint must be refused with a
// diagnostic, or restored into a run that then goes on; never a crash, a hang or a leak.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "scenario.hpp"
#include "simulation.hpp"

namespace {

uint32_t crc32_of(const uint8_t* p, size_t n) {  // the checkpoint's CRC-32 (IEEE, reflected)
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4 * thicket::fuzz::kMaxInput) return -1;
  // In the repository's root, as the seed checkpoints were made (`thicket run
  // fuzz/files/checkpoint.yaml --checkpoint ...`): a checkpoint names its brains by path. The
  // working folder is the fuzzer's again on return (it writes its corpus relative to it).
  static const std::string path = "fuzz/files/checkpoint.yaml";
  struct InRoot {
    char was[4096];
    InRoot() {
      if (!getcwd(was, sizeof was) || chdir(THICKET_FUZZ_FILES "/../..") != 0) std::abort();
    }
    ~InRoot() {
      if (chdir(was) != 0) std::abort();
    }
  } in_root;
  static std::unique_ptr<thicket::ScenarioSpec> spec = [] {
    std::vector<thicket::Diagnostic> diags;
    auto s = thicket::load_scenario(path, diags);
    if (!s) {
      for (const auto& d : diags) std::fprintf(stderr, "%s\n", thicket::format_diagnostic(d).c_str());
      std::abort();
    }
    return std::make_unique<thicket::ScenarioSpec>(*s);
  }();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  constexpr size_t kBody = 24;  // magic, format, length, CRC; the CRC covers what follows
  if (bytes.size() > kBody) {
    const uint32_t crc = crc32_of(reinterpret_cast<const uint8_t*>(bytes.data()) + kBody, bytes.size() - kBody);
    for (int k = 0; k < 4; ++k) bytes[20 + k] = static_cast<char>((crc >> (8 * k)) & 0xFF);
  }
  thicket::SimOptions options;
  options.seed = spec->seed;
  options.ticks = spec->ticks;
  options.dt = spec->dt;
  options.log = [](const std::string&) {};
  options.print = [](const std::string&) {};
  options.journal_tasks = true;  // as --resume: the running tasks' journals are replayed (damaged ones too)
  std::vector<thicket::Diagnostic> diags;
  auto sim = thicket::Simulation::create(*spec, options, diags);
  if (!sim) std::abort();  // the scenario itself loads
  diags.clear();
  static const bool verbose = std::getenv("THICKET_FUZZ_VERBOSE") != nullptr;
  if (sim->restore(bytes, "fuzz.snap", diags)) {
    if (verbose) std::fprintf(stderr, "restored\n");
    sim->run();  // what was restored must run on
  } else {
    if (verbose)
      for (const auto& d : diags) std::fprintf(stderr, "refused: %s\n", thicket::format_diagnostic(d).c_str());
    bool said = false;
    for (const auto& d : diags) said = said || d.severity == thicket::Severity::Error;
    if (!said) __builtin_trap();  // refused without saying why
  }
  return 0;
}
