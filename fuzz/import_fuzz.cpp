// Fuzz target: the tree importers of `thicket import` (runtime/cli/import_btcpp.cpp and
// import_b3.cpp), which read files from other tools: untrusted input. The input is a
// BehaviorTree.CPP XML file when its first byte that is not a space is '<', else a behavior3
// JSON export. The importer either imports it or reports errors: never both, never a crash.
#include <cctype>
#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "import_tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > thicket::fuzz::kMaxInput) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  const bool xml = first < text.size() && text[first] == '<';
  thicket::cli::ImportedBrain brain;
  std::vector<thicket::cli::ImportError> errors;
  const bool ok = xml ? thicket::cli::import_btcpp("input.xml", text, "", brain, errors)
                      : thicket::cli::import_b3("input.json", text, "", brain, errors);
  if (ok && !errors.empty()) __builtin_trap();  // imported despite an error
  for (const auto& e : errors)
    if (e.message.empty()) __builtin_trap();  // an error says what is wrong
  return 0;
}
