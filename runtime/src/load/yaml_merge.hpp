// YAML merge keys (`<<: *defaults`, YAML 1.1's merge type), which yaml-cpp 0.7 reads as a plain
// key named "<<". Every loader of untrusted YAML expands them right after parsing, so a brain,
// a scenario and the schema check see the merged mapping.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "thicket/diagnostic.hpp"

namespace thicket {

// Replaces each plain `<<` key of every mapping in doc by the entries of the mapping it names
// (or of each mapping of the list it names, the earlier ones first), in place and where the
// `<<` stood; a key the mapping gives itself, or an earlier source gave, wins. A merged entry
// keeps its own key and value nodes, so an error in it points where it is written (under the
// anchor). A `<<` naming anything but a mapping or a list of mappings is an error at FILE:LINE:COL
// and is dropped. A quoted "<<" is an ordinary key, as YAML says.
void expand_merge_keys(YAML::Node doc, const std::string& path, std::vector<Diagnostic>& diags);

}  // namespace thicket
