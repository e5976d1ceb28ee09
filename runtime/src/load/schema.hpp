// JSON Schema checking of YAML documents, with valijson (draft 7) deciding what holds.
// schemas/*.schema.json load with nlohmann-json into valijson; a document is turned into JSON
// by the YAML 1.2 core schema (yaml_scalar.hpp: `on`, `yes` are text, `0x1F` an integer).
// `thicket check` calls it before compiling a brain, so a modder sees "unknown key 'chidren'
// in sequence parameters" rather than a compiler error about what the typo caused.
//
// valijson says whether a document, a subschema or a single constraint holds; when the
// document fails, schema_words.cpp walks valijson's parsed schema beside the yaml-cpp nodes to
// word each finding at the offending node's line:col: the schema's `title` names mappings,
// typos get a did-you-mean, and a failed oneOf/anyOf reports the branch that got furthest.
// The schemas say draft 2020-12 for editors; they use only what draft 7 means the same way
// ($defs is reached by JSON pointer). A $ref may name a sibling file, by name or by $id.
// Load refuses unreadable JSON, bad patterns, $ref cycles and whatever valijson refuses;
// unknown keywords are ignored, as JSON Schema says.
#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace thicket {

// (Here, not in schema_store.hpp: a test that includes valijson's headers compiles its inline
// error functions without the core's VALIJSON_USE_EXCEPTIONS, and the linker may keep that
// copy, which aborts instead of throwing.)
// Texts and keys longer than this are matched against patterns as their first this-many
// bytes, plus the first later byte that is no letter, digit or '_' (so an identifier pattern,
// with or without '.', gives the whole text's answer). std::regex recurses once per character.
constexpr size_t kPatternSafeLength = 1024;
std::string pattern_safe(const std::string& text);

// One problem in an instance document. line and column are 1-based, taken from the
// offending node's Mark() (for an empty value, the mark of its key; for an empty list item,
// with the document's text given to validate, its dash).
struct SchemaError {
  int line;
  int column;
  std::string message;
  // The lines of the other keys the finding is about ("'size' and 'map' cannot be used
  // together" is said at one of them): a loader's error at any of them says it already.
  std::vector<int> other_lines = {};
};

struct SchemaStore;  // the schemas as valijson parsed them (schema_store.hpp)

class SchemaSet {
 public:
  // Loads every *.schema.json in dir. On failure returns nothing and sets error to every
  // problem found (unreadable JSON, a $ref cycle within a file, unresolved $ref, bad pattern),
  // one per line; valijson's own load errors stop at its first.
  static std::optional<SchemaSet> load(const std::string& dir, std::string& error);

  // The same from in-memory texts: file name (e.g. "tree.schema.json") -> JSON text.
  static std::optional<SchemaSet> parse(const std::map<std::string, std::string>& files,
                                        std::string& error);

  // Validates `doc` against the schema whose file is `schema_file` (e.g. "tree.schema.json")
  // and appends its errors to `out`, sorted by position. For a failed oneOf/anyOf the errors
  // of the branch that got furthest are reported, not "matched none of N schemas".
  void validate(const YAML::Node& doc, const std::string& schema_file,
                std::vector<SchemaError>& out, const std::string* text = nullptr) const;

  // Whether a schema file of that name was loaded.
  bool has(const std::string& schema_file) const;

 private:
  std::shared_ptr<const SchemaStore> store_;
};

// The schema file a document names by its top-level key: "tree.schema.json",
// "fsm.schema.json", "machine.schema.json" or "scenario.schema.json"; "" unless `doc` is a
// mapping with exactly one of `tree`, `fsm`, `machine`, `scenario`.
std::string brain_schema_file(const YAML::Node& doc);

}  // namespace thicket
