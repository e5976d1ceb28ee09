// Shared by the fuzz targets: the libFuzzer entry point each defines, and the checks that turn
// a swallowed bug into a crash the fuzzer can see.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

#ifndef THICKET_FUZZ_FILES
#error "THICKET_FUZZ_FILES must name fuzz/files (leaf and brain files beside the fuzzed input)"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace thicket::fuzz {

// Inputs larger than this are skipped: the loaders' cost on big files is not what is fuzzed.
constexpr size_t kMaxInput = 64 * 1024;

// The loaders turn an exception thrown by a bug into an "internal error" diagnostic, so that
// a game survives it; the fuzzer must see it as a crash.
inline void fail_on_internal_error(const std::vector<Diagnostic>& diags) {
  for (const Diagnostic& d : diags)
    if (d.message.rfind("internal error while loading", 0) == 0 ||
        d.message.rfind("internal error reading the scenario", 0) == 0) {
      std::fprintf(stderr, "fuzz: loader reported a bug: %s\n", format_diagnostic(d).c_str());
      std::abort();
    }
}

}  // namespace thicket::fuzz
