// A validator of the JSON Schema subset that schemas/*.schema.json use, run over yaml-cpp
// nodes (JSON is YAML, so the schemas load with yaml-cpp too). `thicket check` calls it
// before compiling a brain, so a modder sees "unknown key 'chidren' in sequence parameters"
// rather than a compiler error about what the typo caused.
//
// Supported keywords (draft 2020-12 meaning):
//   type (a name or a list; "integer" is a YAML 1.2 core-schema integer, "number" any number),
//   properties, required, additionalProperties (bool or schema), patternProperties,
//   propertyNames, minProperties, maxProperties, items (one schema for every item), minItems,
//   maxItems, enum, const, oneOf, anyOf, allOf, not, $ref (to "#/json/pointer", to a sibling
//   file "node.schema.json#/$defs/node", or to a loaded file's absolute $id), $defs,
//   minimum, exclusiveMinimum, maximum, exclusiveMaximum, minLength, maxLength,
//   pattern (std::regex ECMAScript, searched, not anchored).
// Annotations are ignored: title (used in messages), description, default, examples,
// $comment, $schema, $id, deprecated, readOnly, writeOnly, markdownDescription.
// Any other keyword makes load() fail, so a schema never silently means less than it says.
#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace thicket {

// One problem in an instance document. line and column are 1-based, taken from the
// offending node's Mark() (for an empty value, the mark of its key).
struct SchemaError {
  int line;
  int column;
  std::string message;
};

struct SchemaStore;  // the compiled schemas (schema.cpp)

class SchemaSet {
 public:
  // Loads every *.schema.json in dir. On failure returns nothing and sets error to every
  // problem found (unreadable JSON, unsupported keyword, unresolved $ref, bad pattern),
  // one per line.
  static std::optional<SchemaSet> load(const std::string& dir, std::string& error);

  // The same from in-memory texts: file name (e.g. "tree.schema.json") -> JSON text.
  static std::optional<SchemaSet> parse(const std::map<std::string, std::string>& files,
                                        std::string& error);

  // Validates `doc` against the schema whose file is `schema_file` (e.g. "tree.schema.json")
  // and appends its errors to `out`, sorted by position. For a failed oneOf/anyOf the errors
  // of the branch that got furthest are reported, not "matched none of N schemas".
  void validate(const YAML::Node& doc, const std::string& schema_file,
                std::vector<SchemaError>& out) const;

  // Whether a schema file of that name was loaded.
  bool has(const std::string& schema_file) const;

 private:
  std::shared_ptr<const SchemaStore> store_;
};

// The schema file a brain document names by its top-level key: "tree.schema.json",
// "fsm.schema.json" or "machine.schema.json"; "" unless `doc` is a mapping with exactly one
// of `tree`, `fsm`, `machine`.
std::string brain_schema_file(const YAML::Node& doc);

}  // namespace thicket
