#include "schema_findings.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "plain_file.hpp"
#include "schema.hpp"
#include "yaml_limits.hpp"
#include "yaml_merge.hpp"

namespace thicket::cli {

void add_schema_findings(const std::string& file, std::vector<Diagnostic>& diags) {
  std::string text, why;
  if (!read_limited(file, kMaxYamlBytes, text, why)) return;  // the loader says why
  add_schema_findings_text(file, text, diags);
}

// Schema findings at places the compiler did not already report (the compiler's messages
// are the more precise; the schema is what editors check against, so both must agree).
void add_schema_findings_text(const std::string& file, const std::string& text, std::vector<Diagnostic>& diags) {
  static std::optional<SchemaSet> schemas = [] {
    std::string error;
    auto set = SchemaSet::parse(embedded_schemas(), error);
    if (!set) std::cerr << "thicket: the built-in schemas failed to load: " << error << "\n";
    return set;
  }();
  if (!schemas) return;
  YAML::Node doc;
  try {
    // Too deep, or an alias bomb: the loader has refused it; a walk of it would not end.
    if (find_deep_nesting(text) || find_alias_bomb(text)) return;
    doc = YAML::Load(text);
    std::vector<Diagnostic> merge_errors;  // the loader reports them
    expand_merge_keys(doc, file, merge_errors);
  } catch (const std::exception&) {
    return;  // not YAML: the loader has said so
  }
  std::string schema = brain_schema_file(doc);
  if (schema.empty() || !schemas->has(schema)) return;
  std::vector<SchemaError> found;
  schemas->validate(doc, schema, found, &text);  // (the text: where values left out belong)
  // Lines the loader already gave an error (a warning there, e.g. an unreachable state, says
  // nothing of what is wrong with it: the schema's error still counts).
  std::set<int> lines_reported;  // a set: a file with many errors must not take n^2 time here
  for (const auto& d : diags)
    if (d.file == file && d.severity == Severity::Error) lines_reported.insert(d.line);
  const size_t first = diags.size();
  for (const auto& e : found) {
    bool reported = lines_reported.count(e.line) > 0;
    for (int other : e.other_lines) reported = reported || lines_reported.count(other) > 0;
    if (!reported) diags.push_back({Severity::Error, file, e.line, e.column, e.message + " (schema " + schema + ")"});
  }
  columns_in_characters(text, file, diags, first);  // as the loader's
}

}  // namespace thicket::cli
