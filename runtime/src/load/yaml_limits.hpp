// Limits on untrusted YAML (brain, import and scenario files), checked before a document is
// built or walked: a file nested too deep, or whose aliases expand to too many nodes (an
// "alias bomb", each anchor holding two aliases of the previous one), is refused at once
// with its position instead of exhausting the stack, the time or the memory of a walk.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket {

// Deepest nesting a YAML file may have: indentation levels, list dashes and flow brackets,
// counted together (yaml-cpp itself gives up, with "bad file", around 500).
constexpr int kMaxYamlDepth = 300;
// Most nodes (keys, values, list items) a file may have once every alias is expanded: a
// walk of the document visits an aliased node once per alias.
constexpr uint64_t kMaxYamlNodes = 250000;

struct YamlDepthHit {
  int depth = 0;
  int line = 0, column = 0;  // 1-based: where the nesting passes the limit
};

// A quick scan of the text (no parsing): the first place nested deeper than `limit`.
std::optional<YamlDepthHit> find_deep_nesting(const std::string& text, int limit = kMaxYamlDepth);

struct YamlSizeHit {
  uint64_t nodes = 0;        // the expanded count when the limit was passed
  int line = 0, column = 0;  // the alias that passed it
};

// The number of nodes of the first document with aliases expanded, counted from the parser's
// events (each anchor's size is remembered, so this is linear in the file, not in the
// expansion); the first alias that takes it past `limit`. Syntax errors are left to the loader.
std::optional<YamlSizeHit> find_alias_bomb(const std::string& text, uint64_t limit = kMaxYamlNodes);

// Keys given twice in one mapping, anywhere in doc: an error at the second, naming the first.
// (From the parser's events: linear in the file; aliases are not expanded.)
void find_duplicate_keys(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags);

// YAML::Load with both limits, duplicate keys and syntax errors reported as diagnostics at FILE:LINE:COL;
// nullopt when the file was refused.
std::optional<YAML::Node> load_yaml_checked(const std::string& text, const std::string& path,
                                            std::vector<Diagnostic>& diags);

}  // namespace thicket
