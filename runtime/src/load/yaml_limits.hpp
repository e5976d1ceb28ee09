// Limits on untrusted YAML (brain, import and scenario files), checked before a document is
// built or walked: a file nested too deep, or whose aliases expand to too many nodes (an
// "alias bomb", each anchor holding two aliases of the previous one), is refused at once
// with its position instead of exhausting the stack, the time or the memory of a walk.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket {

// Most bytes a brain, import or scenario file may have (a hand-written one is a few KB; a
// generated 100,000-node brain about 4 MB).
constexpr size_t kMaxYamlBytes = 16u << 20;

// True when the file holds a YAML mapping with `key` among its top-level keys (a scenario's
// `scenario:`), read within read_limited's bounds and found from the parser's events without
// building the document; false otherwise, also for a file that cannot be read or parsed (the
// loader then reports why).
bool has_top_level_key(const std::string& path, const std::string& key);

// Deepest nesting a YAML file may have: indentation levels, list dashes and flow brackets,
// counted together (yaml-cpp itself gives up, with "bad file", around 500).
constexpr int kMaxYamlDepth = 300;
// Most nodes (keys, values, list items) a file may have once every alias is expanded: a
// walk of the document visits an aliased node once per alias. Counted in every file, with
// aliases or without (yaml-cpp takes ~1 KB of memory per node).
constexpr uint64_t kMaxYamlNodes = 250000;

struct YamlDepthHit {
  int depth = 0;
  int line = 0, column = 0;  // 1-based: where the nesting passes the limit
};

// A quick scan of the text (no parsing): the first place nested deeper than `limit`.
std::optional<YamlDepthHit> find_deep_nesting(const std::string& text, int limit = kMaxYamlDepth);

struct YamlSizeHit {
  uint64_t nodes = 0;        // the expanded count when the limit was passed
  int line = 0, column = 0;  // the node or alias that passed it
  bool by_alias = false;     // an alias passed it
  bool recursive = false;    // an alias inside the node its anchor names (`&a [*a]`): endless
};

// The number of nodes of the first document with aliases expanded, counted from the parser's
// events (each anchor's size is remembered, so this is linear in the file, not in the
// expansion); the first node or alias that takes it past `limit`. Syntax errors are left to
// the loader. An alias inside the node its anchor names is a hit at once (`recursive`). The
// text load_yaml_checked last loaded on this thread (up to 4 MB) is within the limit already:
// it is not parsed again.
std::optional<YamlSizeHit> find_alias_bomb(const std::string& text, uint64_t limit = kMaxYamlNodes);


// Quoted scalars that run on past their line to a line indented no deeper than their own (a
// missing closing quote: `mood: 'calm` takes the keys below it into its text, up to the next
// quote; YAML calls such a line the start of a new key, yaml-cpp reads on): an error each, at
// the opening quote, naming the line it ran on to.
void find_runaway_quotes(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags);

// YAML::Load with both limits, duplicate keys, runaway quotes, a second document and syntax
// errors reported as diagnostics at FILE:LINE:COL (the checks in one pass of parser events first),
// and merge keys (`<<: *defaults`) expanded (yaml_merge.hpp);
// nullopt when the file was refused.
std::optional<YAML::Node> load_yaml_checked(const std::string& text, const std::string& path,
                                            std::vector<Diagnostic>& diags);

// yaml-cpp counts a column in bytes; editors and terminals count characters. Rewrites the
// columns of diags[from..] that point into `text` (the file `path`) as characters of their
// line (UTF-8), so `FILE:LINE:COL` lands on the character meant after non-ASCII text. Each
// loader calls it once on the diagnostics it made, at the end.
void columns_in_characters(const std::string& text, const std::string& path, std::vector<Diagnostic>& diags,
                           size_t from);

// The byte offset of each line's start (line 1 at [0]).
std::vector<size_t> line_starts(const std::string& text);
// A value left out (`action:` or a bare `-`) is a null node that yaml-cpp marks at the next
// token, often on a later line. Given that mark's byte offset, sets line and column (1-based,
// in bytes) to the key the value belongs to, or to the dash; false for a null written out
// (`~`, `null`) or when the text before the mark ends in neither ':' nor '-'. `starts`: the
// text's line_starts.
bool empty_value_at(const std::string& text, const std::vector<size_t>& starts, size_t pos, int& line, int& column);

}  // namespace thicket
