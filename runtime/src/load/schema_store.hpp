// What schema.cpp (loading, with valijson) and schema_words.cpp (wording what valijson
// refuses) share: the schemas as valijson parsed them, with what the words need of each.
#pragma once
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/schema.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace thicket {

namespace vj = valijson;
namespace vc = valijson::constraints;
using Json = nlohmann::json;
using Adapter = vj::adapters::NlohmannJsonAdapter;

// What the message walk needs to know of one valijson subschema: its title and the
// constraints it carries, with what they say (for the words) and the constraint itself
// (valijson decides whether it holds).
struct SchemaStore {
  struct Bound {
    const vc::Constraint* constraint = nullptr;
    double value = 0;
    bool exclusive = false;
  };
  struct Schema {
    const vj::Subschema* sub = nullptr;
    bool always_invalid = false;  // the schema `false`
    std::string title;
    const vc::TypeConstraint* type = nullptr;
    std::vector<uint8_t> types;  // TypeBit values; empty: no `type`
    bool has_properties = false;  // properties, patternProperties or additionalProperties
    std::vector<std::pair<std::string, int>> properties;
    std::vector<std::pair<std::regex, int>> pattern_properties;
    int additional = -1;  // -1: additionalProperties is false
    int property_names = -1, items = -1, not_schema = -1;
    const vc::RequiredConstraint* required_constraint = nullptr;
    std::vector<std::string> required;
    const vc::Constraint *min_items_c = nullptr, *max_items_c = nullptr;
    const vc::Constraint *min_properties_c = nullptr, *max_properties_c = nullptr;
    const vc::Constraint *min_length_c = nullptr, *max_length_c = nullptr;
    std::optional<size_t> min_items, max_items, min_properties, max_properties, min_length, max_length;
    std::vector<Bound> minimums, maximums;
    const vc::EnumConstraint* enum_c = nullptr;
    std::vector<Json> enum_values;
    const vc::ConstConstraint* const_c = nullptr;
    Json const_value;
    const vc::PatternConstraint* pattern_c = nullptr;
    std::string pattern;
    std::vector<int> all_of, any_of, one_of;
    std::vector<const vc::Constraint*> others;  // anything else valijson checks
    // Only `required` (and `properties`) constrain it: a "which keys are present" choice,
    // reported as "needs one of 'run' or 'tree'" instead of through its branches.
    bool only_key_presence = true;
  };

  std::vector<std::unique_ptr<vj::Schema>> owned;  // valijson's parsed schemas
  std::vector<Schema> schemas;
  std::map<const vj::Subschema*, int> index_of;
  std::map<std::string, int> roots;  // schema file name -> its root schema
  std::vector<std::vector<Json>> enum_texts;  // every enum list and const value, as written
};

enum TypeBit : uint8_t {
  kNull = 1, kBoolean = 2, kInteger = 4, kNumber = 8, kString = 16, kObject = 32, kArray = 64
};

// Deeper than the YAML reader lets any file nest (kMaxYamlDepth, 300: a tree may be 256
// levels deep), so the schema checks every file the loader reads; the bound keeps a
// hostile document from exhausting the stack all the same.
constexpr int kMaxDepth = 320;

inline std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// One finding in a document, at a yaml-cpp mark; depth orders a oneOf's branches.
struct Issue {
  YAML::Mark mark;
  int depth;
  std::string message;
  std::vector<int> other_lines = {};  // (0-based) lines of the mapping's keys, for a "cannot be used together"
};

// Whether valijson accepts `json` against the schema `root` (an index in store.schemas).
bool schema_accepts(const SchemaStore& store, int root, const Json& json);

// What is wrong with `doc` (`json` is the same document as JSON), in a modder's words, at
// the offending nodes' marks; unsorted. Only for a document schema_accepts refuses.
// text: the document's text, if known (an empty list item is then placed at its dash).
std::vector<Issue> schema_findings(const SchemaStore& store, int root, const YAML::Node& doc, const Json& json,
                                   const std::string* text = nullptr);

}  // namespace thicket
