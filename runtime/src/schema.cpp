// Schema checking with valijson (draft 7): valijson loads the schemas, resolves their $refs
// and decides, keyword by keyword, what holds. This file turns YAML into the JSON valijson
// reads (YAML 1.2 core-schema typing), and, when a document fails, walks valijson's parsed
// schema beside the document to say where and what in a modder's words: the yaml-cpp mark of
// the offending node, the schema's title ("sequence parameters"), did-you-mean for typos,
// and for a failed oneOf/anyOf the errors of the branch that got furthest.
#include "schema.hpp"

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "yaml_scalar.hpp"

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

namespace {

using Schema = SchemaStore::Schema;

enum TypeBit : uint8_t {
  kNull = 1, kBoolean = 2, kInteger = 4, kNumber = 8, kString = 16, kObject = 32, kArray = 64
};

uint8_t bit_of(vc::TypeConstraint::JsonType t) {
  switch (t) {
    case vc::TypeConstraint::kNull: return kNull;
    case vc::TypeConstraint::kBoolean: return kBoolean;
    case vc::TypeConstraint::kInteger: return kInteger;
    case vc::TypeConstraint::kNumber: return kNumber;
    case vc::TypeConstraint::kString: return kString;
    case vc::TypeConstraint::kObject: return kObject;
    case vc::TypeConstraint::kArray: return kArray;
    case vc::TypeConstraint::kAny: return 0x7F;
  }
  return 0;
}

// The words describe_node uses for the same type.
const char* type_phrase(uint8_t bit) {
  switch (bit) {
    case kNull: return "nothing (null)";
    case kBoolean: return "true/false";
    case kInteger: return "an integer";
    case kNumber: return "a number";
    case kString: return "text";
    case kObject: return "a mapping";
    case kArray: return "a list";
  }
  return "anything";
}

// ---------------------------------------------------------------- words for messages

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// "a", "a or b", "a, b or c"; ", or" when an item already holds an "or".
std::string join_alternatives(const std::vector<std::string>& items) {
  std::string out;
  bool nested_or = std::any_of(items.begin(), items.end(),
                               [](const std::string& s) { return s.find(" or ") != std::string::npos; });
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 < items.size() ? ", " : (nested_or ? ", or " : " or ");
    out += items[i];
  }
  return out;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// A title as a noun phrase: "node" -> "a node", "sequence parameters" stays plural.
std::string with_article(const std::string& title) {
  if (title.empty()) return title;
  bool plural = title.size() > 1 && title.back() == 's' && title[title.size() - 2] != 's' &&
                title.find(" of ") == std::string::npos;
  if (plural) return title;
  bool vowel = std::string_view("aeiouAEIOU").find(title[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + title;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate a typo most likely meant, or "" when none is close.
std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(word, c);
    size_t limit = c.size() <= 4 ? 1 : 2;
    if (d <= limit && d < word.size() && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// A schema-side literal (enum or const value) as a modder would write it.
std::string literal_text(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object()) return "a mapping";
  if (v.is_array()) return "a list";
  return v.dump();
}

// An instance value for "got ...": text quoted, numbers as written.
std::string value_text(const YAML::Node& x, const Json& j, bool is_key) {
  if (!is_key && j.is_null()) return "nothing (null)";
  if (j.is_object()) return "a mapping";
  if (j.is_array()) return "a list";
  if (j.is_string()) return in_quotes(is_key ? j.get<std::string>() : x.Scalar());
  return x.Scalar();
}

// ---------------------------------------------------------------- YAML -> JSON

// No brain nests this deep; stopping here keeps a hostile file from exhausting the stack.
constexpr int kMaxDepth = 128;

// The document as JSON, typed by the YAML 1.2 core schema; what lies deeper than kMaxDepth
// levels becomes null (the walk reports it).
Json to_json(const YAML::Node& n, int depth) {
  if (!n.IsDefined() || n.IsNull() || depth > kMaxDepth + 1) return nullptr;
  if (n.IsMap()) {
    Json out = Json::object();
    for (auto it = n.begin(); it != n.end(); ++it) out[it->first.Scalar()] = to_json(it->second, depth + 1);
    return out;
  }
  if (n.IsSequence()) {
    Json out = Json::array();
    for (const YAML::Node& item : n) out.push_back(to_json(item, depth + 1));
    return out;
  }
  Scalar s = classify_scalar(n);
  switch (s.kind) {
    case ScalarKind::Null: return nullptr;
    case ScalarKind::Bool: return s.boolean;
    case ScalarKind::Integer: return s.integer;
    case ScalarKind::Float: return s.number;
    case ScalarKind::String: return n.Scalar();
  }
  return n.Scalar();
}

uint8_t json_bits(const Json& j) {
  if (j.is_null()) return kNull;
  if (j.is_boolean()) return kBoolean;
  if (j.is_number_integer()) return kInteger | kNumber;
  if (j.is_number()) return kNumber;
  if (j.is_string()) return kString;
  if (j.is_object()) return kObject;
  return kArray;
}

// ---------------------------------------------------------------- loading

// Fills a Schema from one valijson subschema's constraints.
class Extract : public vc::ConstraintVisitor {
 public:
  Extract(Schema& s, std::function<int(const vj::Subschema*)> index) : s_(s), index_(std::move(index)) {}

  bool visit(const vc::AllOfConstraint& c) override {
    c.applyToSubschemas([&](unsigned, const vj::Subschema* sub) { s_.all_of.push_back(index_(sub)); return true; });
    return other();
  }
  bool visit(const vc::AnyOfConstraint& c) override {
    c.applyToSubschemas([&](unsigned, const vj::Subschema* sub) { s_.any_of.push_back(index_(sub)); return true; });
    return other();
  }
  bool visit(const vc::OneOfConstraint& c) override {
    c.applyToSubschemas([&](unsigned, const vj::Subschema* sub) { s_.one_of.push_back(index_(sub)); return true; });
    return other();
  }
  bool visit(const vc::NotConstraint& c) override {
    s_.not_schema = index_(c.getSubschema());
    return other();
  }
  bool visit(const vc::ConstConstraint& c) override {
    s_.const_c = &c;
    return other();
  }
  bool visit(const vc::EnumConstraint& c) override {
    s_.enum_c = &c;
    return other();
  }
  bool visit(const vc::MaximumConstraint& c) override {
    s_.maximums.push_back({&c, c.getMaximum(), c.getExclusiveMaximum()});
    return other();
  }
  bool visit(const vc::MinimumConstraint& c) override {
    s_.minimums.push_back({&c, c.getMinimum(), c.getExclusiveMinimum()});
    return other();
  }
  bool visit(const vc::MaxItemsConstraint& c) override {
    s_.max_items_c = &c;
    s_.max_items = c.getMaxItems();
    return other();
  }
  bool visit(const vc::MinItemsConstraint& c) override {
    s_.min_items_c = &c;
    s_.min_items = c.getMinItems();
    return other();
  }
  bool visit(const vc::MaxLengthConstraint& c) override {
    s_.max_length_c = &c;
    s_.max_length = c.getMaxLength();
    return other();
  }
  bool visit(const vc::MinLengthConstraint& c) override {
    s_.min_length_c = &c;
    s_.min_length = c.getMinLength();
    return other();
  }
  bool visit(const vc::MaxPropertiesConstraint& c) override {
    s_.max_properties_c = &c;
    s_.max_properties = c.getMaxProperties();
    return other();
  }
  bool visit(const vc::MinPropertiesConstraint& c) override {
    s_.min_properties_c = &c;
    s_.min_properties = c.getMinProperties();
    return other();
  }
  bool visit(const vc::PatternConstraint& c) override {
    s_.pattern_c = &c;
    s_.pattern = c.getPattern(std::allocator<char>()).c_str();
    return other();
  }
  bool visit(const vc::PropertiesConstraint& c) override {
    s_.has_properties = true;
    c.applyToProperties([&](const auto& name, const vj::Subschema* sub) {
      s_.properties.emplace_back(std::string(name.c_str()), index_(sub));
      return true;
    });
    c.applyToPatternProperties([&](const auto& pattern, const vj::Subschema* sub) {
      s_.pattern_properties.emplace_back(std::regex(pattern.c_str()), index_(sub));
      return true;
    });
    const vj::Subschema* extra = c.getAdditionalPropertiesSubschema();
    s_.additional = extra ? index_(extra) : -1;
    return true;  // still a "which keys" schema
  }
  bool visit(const vc::PropertyNamesConstraint& c) override {
    s_.property_names = index_(c.getSubschema());
    return other();
  }
  bool visit(const vc::RequiredConstraint& c) override {
    s_.required_constraint = &c;
    c.applyToRequiredProperties([&](const auto& name) {
      s_.required.emplace_back(name.c_str());
      return true;
    });
    return true;
  }
  bool visit(const vc::SingularItemsConstraint& c) override {
    s_.items = index_(c.getItemsSubschema());
    return other();
  }
  bool visit(const vc::TypeConstraint& c) override {
    s_.type = &c;
    c.applyToNamedTypes([&](vc::TypeConstraint::JsonType t) {
      s_.types.push_back(bit_of(t));
      return true;
    });
    // valijson keeps them alphabetical; messages name numbers first, null last.
    static constexpr uint8_t kOrder[] = {kInteger, kNumber, kBoolean, kString, kObject, kArray, kNull};
    auto rank = [](uint8_t t) { return std::find(std::begin(kOrder), std::end(kOrder), t) - std::begin(kOrder); };
    std::stable_sort(s_.types.begin(), s_.types.end(), [&](uint8_t a, uint8_t b) { return rank(a) < rank(b); });
    return other();
  }
  // Checked by valijson, worded generically; no brain schema uses them.
  bool visit(const vc::ConditionalConstraint& c) override { return unusual(c); }
  bool visit(const vc::ContainsConstraint& c) override { return unusual(c); }
  bool visit(const vc::DependenciesConstraint& c) override { return unusual(c); }
  bool visit(const vc::FormatConstraint& c) override { return unusual(c); }
  bool visit(const vc::LinearItemsConstraint& c) override { return unusual(c); }
  bool visit(const vc::MultipleOfDoubleConstraint& c) override { return unusual(c); }
  bool visit(const vc::MultipleOfIntConstraint& c) override { return unusual(c); }
  bool visit(const vc::PolyConstraint& c) override { return unusual(c); }
  bool visit(const vc::UniqueItemsConstraint& c) override { return unusual(c); }

 private:
  bool other() {
    s_.only_key_presence = false;
    return true;
  }
  bool unusual(const vc::Constraint& c) {
    s_.others.push_back(&c);
    return other();
  }

  Schema& s_;
  std::function<int(const vj::Subschema*)> index_;
};

// The message walk's record of `sub` and of everything under it.
int record(SchemaStore& store, const vj::Subschema* sub) {
  auto found = store.index_of.find(sub);
  if (found != store.index_of.end()) return found->second;
  int index = static_cast<int>(store.schemas.size());
  store.index_of[sub] = index;
  store.schemas.emplace_back();
  Schema s;
  s.sub = sub;
  s.always_invalid = sub->getAlwaysInvalid();
  s.title = sub->hasTitle() ? sub->getTitle() : "";
  Extract extract(s, [&](const vj::Subschema* child) { return record(store, child); });
  vj::Subschema::ApplyFunction visit_each = [&](const vc::Constraint& c) { return c.accept(extract); };
  sub->apply(visit_each);
  store.schemas[static_cast<size_t>(index)] = std::move(s);
  return index;
}

// Every enum list and const value in a schema document, to word enum and const messages
// (valijson keeps their values frozen, out of reach).
void collect_literals(const Json& n, std::vector<std::vector<Json>>& out) {
  if (n.is_object()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (it.key() == "enum" && it.value().is_array()) out.emplace_back(it.value().begin(), it.value().end());
      else if (it.key() == "const") out.push_back({it.value()});
      collect_literals(it.value(), out);
    }
  } else if (n.is_array()) {
    for (const Json& item : n) collect_literals(item, out);
  }
}

// Compiles every pattern up front: valijson would only find a bad one while validating.
void check_patterns(const Json& n, const std::string& where, std::vector<std::string>& errors) {
  if (n.is_object()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::vector<std::string> patterns;
      if (it.key() == "pattern" && it.value().is_string()) patterns.push_back(it.value().get<std::string>());
      if (it.key() == "patternProperties" && it.value().is_object())
        for (auto p = it.value().begin(); p != it.value().end(); ++p) patterns.push_back(p.key());
      for (const std::string& p : patterns) try {
          std::regex re(p, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          errors.push_back(where + ": bad pattern " + in_quotes(p) + ": " + e.what());
        }
      check_patterns(it.value(), where, errors);
    }
  } else if (n.is_array()) {
    for (const Json& item : n) check_patterns(item, where, errors);
  }
}

// A $ref that only leads back to itself ({"$ref": "#/a"} at /a, or a -> b -> a) would send
// valijson round for ever; such a chain is a load error.
void check_ref_cycles(const Json& doc, const Json& n, const std::string& where, std::vector<std::string>& errors) {
  if (n.is_array())
    for (const Json& item : n) check_ref_cycles(doc, item, where, errors);
  if (!n.is_object()) return;
  for (auto it = n.begin(); it != n.end(); ++it) check_ref_cycles(doc, it.value(), where, errors);
  const Json* at = &n;
  std::vector<std::string> seen;
  while (at->is_object() && at->contains("$ref") && (*at)["$ref"].is_string()) {
    const std::string ref = (*at)["$ref"].get<std::string>();
    if (ref.rfind("#", 0) != 0) return;  // to another file: not followed here
    if (std::find(seen.begin(), seen.end(), ref) != seen.end()) {
      errors.push_back(where + ": $ref " + in_quotes(ref) + " leads back to itself (a $ref cycle)");
      return;
    }
    seen.push_back(ref);
    try {
      at = &doc.at(Json::json_pointer(ref.substr(1)));
    } catch (const Json::exception&) {
      return;  // valijson reports it
    }
  }
}

// ---------------------------------------------------------------- validating

// Where an instance sits in the document: gives messages their subject ("'times'",
// "item 2 of 'weights'") and issues their depth.
struct Place {
  const Place* parent = nullptr;
  std::string_view key;                  // the key this value sits under (a property)
  int index = -1;                        // the position of a list item
  int depth = 0;
  const YAML::Node* key_node = nullptr;  // its key, where an empty value is reported
  bool is_key = false;                   // the instance is a mapping key (propertyNames)
};

struct Issue {
  YAML::Mark mark;
  int depth;
  std::string message;
};

// What validating one instance found out about the instance itself, so that a failed
// oneOf/anyOf can report the branch that got furthest.
struct Progress {
  bool type_ok = true;
  int known_keys = 0;
};

std::string subject(const Place& at) {
  if (at.is_key) return "key " + in_quotes(at.key);
  if (at.index >= 0) return "item " + std::to_string(at.index + 1) + " of " + subject(*at.parent);
  if (at.parent) return in_quotes(at.key);
  return "the document";
}

// What object-level messages call x's mapping: its schema's title, else where it sits.
std::string name_of(std::string_view title, const Place& at) {
  return title.empty() ? subject(at) : std::string(title);
}

YAML::Mark mark_of(const YAML::Node& x, const Place& at) {
  // yaml-cpp marks an empty value where the next token starts; its key is where it was meant.
  if ((!x.IsDefined() || x.IsNull()) && at.key_node) return at.key_node->Mark();
  return x.Mark();
}

bool has_key(const YAML::Node& map, std::string_view key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.Scalar() == key) return true;
  return false;
}

const Json& null_json() {
  static const Json null;
  return null;
}

class Validator {
 public:
  explicit Validator(const SchemaStore& store) : store_(store) {}

  // Whether valijson accepts j against schema `index`.
  bool valid(int index, const Json& j) {
    const Schema& s = schema(index);
    if (s.always_invalid) return false;
    Adapter target(j);
    vj::ValidationVisitor<Adapter> visitor(target, {"<root>"}, true, nullptr, regexes_);
    return visitor.validateSchema(*s.sub);
  }

  // Checks x (j as JSON) against schema `index`; issues go to `out`, what was learnt about x
  // to `progress`. `title` names x's mapping in messages when the schema itself has no title.
  void apply(int index, const YAML::Node& x, const Json& j, const Place& place, std::vector<Issue>& out,
             Progress& progress, std::string_view title);

 private:
  struct Trial {
    std::vector<Issue> issues;
    Progress progress;
  };

  // Whether valijson finds that the one constraint c holds for j.
  bool holds(const vc::Constraint* c, const Json& j) {
    if (!c) return true;
    Adapter target(j);
    vj::ValidationVisitor<Adapter> visitor(target, {"<root>"}, true, nullptr, regexes_);
    return c->accept(visitor);
  }

  void check_scalar(const Schema& s, const YAML::Node& x, const Json& j, const Place& place, uint8_t bits,
                    std::vector<Issue>& out);
  void check_object(const Schema& s, const YAML::Node& x, const Json& j, const Place& place,
                    std::vector<Issue>& out, Progress& progress, std::string_view title);
  void check_array(const Schema& s, const YAML::Node& x, const Json& j, const Place& place,
                   std::vector<Issue>& out);
  void check_alternatives(const std::vector<int>& branches, bool exactly_one, const YAML::Node& x, const Json& j,
                          const Place& place, std::vector<Issue>& out, Progress& progress,
                          std::string_view title);
  void check_not(int index, const YAML::Node& x, const Json& j, const Place& place, std::vector<Issue>& out,
                 std::string_view title);

  std::string expectation(int index, int depth = 0) const;
  std::string number_phrase(const Schema& s) const;
  std::vector<std::string> enum_names(const Schema& s);
  bool is_key_choice(const std::vector<int>& branches) const;

  const Schema& schema(int index) const { return store_.schemas[static_cast<size_t>(index)]; }

  // apply() on a child of x: a new instance, so the cycle count starts again. A child
  // valijson accepts has nothing to report.
  void descend(int index, const YAML::Node& child, const Json& j, const Place& place, std::vector<Issue>& out) {
    if (place.depth <= kMaxDepth && valid(index, j)) return;
    int saved = stalled_;
    stalled_ = 0;
    Progress unused;
    apply(index, child, j, place, out, unused, {});
    stalled_ = saved;
  }

  const SchemaStore& store_;
  std::unordered_map<std::string, std::regex> regexes_;  // valijson's cache of compiled patterns
  int stalled_ = 0;  // nested apply() calls on the same instance
};

// More schemas than this applied to one instance at once can only be a $ref cycle.
constexpr int kMaxStalled = 64;

void Validator::apply(int index, const YAML::Node& x, const Json& j, const Place& place, std::vector<Issue>& out,
                      Progress& progress, std::string_view title) {
  const Schema& s = schema(index);
  if (s.always_invalid) {
    out.push_back({mark_of(x, place), place.depth, subject(place) + " is not allowed here"});
    progress.type_ok = false;
    return;
  }
  if (place.depth > kMaxDepth) {
    if (place.depth == kMaxDepth + 1 && stalled_ == 0)
      out.push_back({mark_of(x, place), place.depth,
                     "nested more than " + std::to_string(kMaxDepth) + " levels deep; not checked further"});
    return;
  }
  if (stalled_ >= kMaxStalled) {
    out.push_back({mark_of(x, place), place.depth, "the schema nests too deeply (a $ref cycle?)"});
    return;
  }
  struct Nest {
    int& count;
    explicit Nest(int& c) : count(++c) {}
    ~Nest() { --count; }
  } nest(stalled_);

  if (!s.title.empty()) title = s.title;
  const uint8_t bits = json_bits(j);

  if (s.type && !holds(s.type, j)) {
    std::string message = "expected " + expectation(index) + ", got " + (place.is_key ? "text" : describe_node(x));
    bool wants_boolean = std::find(s.types.begin(), s.types.end(), kBoolean) != s.types.end();
    static const std::regex yaml11_boolean("y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
    if (wants_boolean && bits == kString && std::regex_match(x.Scalar(), yaml11_boolean))
      message += " (" + in_quotes(x.Scalar()) + " is text in YAML 1.2; write true or false)";
    out.push_back({mark_of(x, place), place.depth, message});
    progress.type_ok = false;
    return;
  }
  check_scalar(s, x, j, place, bits, out);
  if (bits & kObject) check_object(s, x, j, place, out, progress, title);
  if (bits & kArray) check_array(s, x, j, place, out);
  for (int sub : s.all_of) apply(sub, x, j, place, out, progress, title);
  if (!s.any_of.empty()) check_alternatives(s.any_of, false, x, j, place, out, progress, title);
  if (!s.one_of.empty()) check_alternatives(s.one_of, true, x, j, place, out, progress, title);
  if (s.not_schema >= 0) check_not(s.not_schema, x, j, place, out, title);
  for (const vc::Constraint* c : s.others) {  // no brain schema uses these: valijson's words
    vj::ValidationResults results;
    Adapter target(j);
    vj::ValidationVisitor<Adapter> visitor(target, {"<root>"}, true, &results, regexes_);
    vj::ValidationResults::Error error;
    if (!c->accept(visitor) && results.popError(error))
      out.push_back({mark_of(x, place), place.depth, subject(place) + ": " + error.description});
  }
}

// The enum's values as written in the schema file: the first enum list there whose values
// the constraint accepts, one for one.
std::vector<std::string> Validator::enum_names(const Schema& s) {
  size_t count = 0;
  s.enum_c->applyToValues([&](const auto&) { return ++count, true; });
  std::vector<std::string> names;
  for (const std::vector<Json>& values : store_.enum_texts) {
    if (values.size() != count ||
        !std::all_of(values.begin(), values.end(), [&](const Json& v) { return holds(s.enum_c, v); }))
      continue;
    for (const Json& v : values) names.push_back(literal_text(v));
    return names;
  }
  return {"one of " + std::to_string(count) + " values"};
}

void Validator::check_scalar(const Schema& s, const YAML::Node& x, const Json& j, const Place& place, uint8_t bits,
                             std::vector<Issue>& out) {
  const YAML::Mark mark = mark_of(x, place);
  if (s.enum_c && !holds(s.enum_c, j)) {
    std::vector<std::string> names = enum_names(s);
    std::string message = subject(place) + " must be " + join_alternatives(names) + ", got " + value_text(x, j, place.is_key);
    if (bits == kString) {
      std::string guess = closest(j.get<std::string>(), names);
      if (!guess.empty()) message += " (did you mean " + in_quotes(guess) + "?)";
    }
    out.push_back({mark, place.depth, message});
  }
  if (s.const_c && !holds(s.const_c, j)) {
    std::string wanted = "the value the schema names";
    for (const std::vector<Json>& values : store_.enum_texts)
      if (values.size() == 1 && holds(s.const_c, values[0])) {
        wanted = literal_text(values[0]);
        break;
      }
    out.push_back({mark, place.depth, subject(place) + " must be " + wanted + ", got " + value_text(x, j, place.is_key)});
  }

  if (bits & kNumber) {
    bool ok = true;
    for (const auto* bounds : {&s.minimums, &s.maximums})
      for (const SchemaStore::Bound& b : *bounds) ok = ok && holds(b.constraint, j);
    if (!ok) out.push_back({mark, place.depth, subject(place) + " must be " + number_phrase(s) + ", got " + x.Scalar()});
  }

  if (bits & kString) {
    const std::string text = j.get<std::string>();
    size_t length = 0;
    for (unsigned char c : text) length += (c & 0xC0) != 0x80;
    if (!holds(s.min_length_c, j))
      out.push_back({mark, place.depth,
                     *s.min_length == 1 ? subject(place) + " must not be empty"
                                        : subject(place) + " must be at least " + std::to_string(*s.min_length) +
                                              " characters long, got " + std::to_string(length)});
    if (!holds(s.max_length_c, j))
      out.push_back({mark, place.depth,
                     subject(place) + " must be at most " + std::to_string(*s.max_length) +
                         " characters long, got " + std::to_string(length)});
    if (!holds(s.pattern_c, j)) {
      std::string what = s.title.empty() ? "text" : with_article(s.title);
      std::string message = subject(place) + " must be " + what + " matching " + s.pattern;
      if (!place.is_key) message += ", got " + in_quotes(text);
      out.push_back({mark, place.depth, message});
    }
  }
}

void Validator::check_object(const Schema& s, const YAML::Node& x, const Json& j, const Place& place,
                             std::vector<Issue>& out, Progress& progress, std::string_view title) {
  std::vector<YAML::Node> unknown;
  for (auto it = x.begin(); it != x.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const std::string key_text = key.Scalar();
    auto found = j.find(key_text);
    const Json& child_json = found != j.end() ? *found : null_json();
    const Place child{&place, key_text, -1, place.depth + 1, &key, false};
    bool matched = false;
    for (const auto& [property, sub] : s.properties)
      if (property == key_text) {
        descend(sub, value, child_json, child, out);
        matched = true;
        break;
      }
    for (const auto& [re, sub] : s.pattern_properties)
      if (std::regex_search(key_text, re)) {
        descend(sub, value, child_json, child, out);
        matched = true;
      }
    if (!matched && s.has_properties) {
      if (s.additional < 0) {
        unknown.push_back(key);
      } else {
        descend(s.additional, value, child_json, child, out);
        matched = true;
      }
    }
    if (matched) ++progress.known_keys;
    if (s.property_names >= 0) {
      const Place as_key{&place, key_text, -1, place.depth + 1, &key, true};
      descend(s.property_names, key, Json(key_text), as_key, out);
    }
  }

  if (unknown.empty() && s.required.empty() && !s.min_properties && !s.max_properties) return;
  const std::string name = name_of(title, place);
  std::vector<std::string> allowed;
  for (const auto& property : s.properties) allowed.push_back(property.first);
  std::sort(allowed.begin(), allowed.end());
  for (const YAML::Node& key : unknown) {
    std::string message = "unknown key " + in_quotes(key.Scalar()) + " in " + name;
    std::string guess = closest(key.Scalar(), allowed);
    if (!allowed.empty() && (allowed.size() <= 10 || guess.empty()))
      message += " (allowed: " + join_list(allowed) + ")";
    else if (!guess.empty())
      message += " (did you mean " + in_quotes(guess) + "?)";
    out.push_back({key.Mark(), place.depth + 1, message});
  }

  if (!holds(s.required_constraint, j))
    for (const std::string& required : s.required) {
      if (has_key(x, required)) continue;
      // A misspelt required key is already reported as unknown, with the allowed names.
      bool misspelt = std::any_of(unknown.begin(), unknown.end(),
                                  [&](const YAML::Node& k) { return !closest(k.Scalar(), {required}).empty(); });
      if (!misspelt)
        out.push_back({mark_of(x, place), place.depth, "missing required key " + in_quotes(required) + " in " + name});
    }

  const size_t n = x.size();
  auto keys = [&] {
    std::vector<std::string> names;
    for (auto it = x.begin(); it != x.end(); ++it) names.push_back(it->first.Scalar());
    return n ? " (" + join_list(names) + ")" : std::string();
  };
  auto plural = [](size_t k) { return std::to_string(k) + (k == 1 ? " key" : " keys"); };
  const bool too_few = !holds(s.min_properties_c, j), too_many = !holds(s.max_properties_c, j);
  if (s.min_properties && s.max_properties && *s.min_properties == *s.max_properties && (too_few || too_many))
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have exactly " + plural(*s.min_properties) + ", got " + std::to_string(n) + keys()});
  else if (too_few)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at least " + plural(*s.min_properties) + ", got " + std::to_string(n)});
  else if (too_many)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at most " + plural(*s.max_properties) + ", got " + std::to_string(n) + keys()});
}

void Validator::check_array(const Schema& s, const YAML::Node& x, const Json& j, const Place& place,
                            std::vector<Issue>& out) {
  const size_t n = x.size();
  if (s.items >= 0)
    for (size_t i = 0; i < n; ++i) {
      const Place child{&place, {}, static_cast<int>(i), place.depth + 1, nullptr, false};
      descend(s.items, x[i], i < j.size() ? j[i] : null_json(), child, out);
    }
  auto items = [](size_t k) { return std::to_string(k) + (k == 1 ? " item" : " items"); };
  if (!holds(s.min_items_c, j))
    out.push_back({mark_of(x, place), place.depth,
                   *s.min_items == 1 ? subject(place) + " must not be empty"
                                     : subject(place) + " must have at least " + items(*s.min_items) + ", got " +
                                           std::to_string(n)});
  if (!holds(s.max_items_c, j))
    out.push_back({mark_of(x, place), place.depth,
                   subject(place) + " must have at most " + items(*s.max_items) + ", got " + std::to_string(n)});
}

bool Validator::is_key_choice(const std::vector<int>& branches) const {
  return std::all_of(branches.begin(), branches.end(),
                     [&](int b) { return !schema(b).always_invalid && schema(b).only_key_presence; });
}

void Validator::check_alternatives(const std::vector<int>& branches, bool exactly_one, const YAML::Node& x,
                                   const Json& j, const Place& place, std::vector<Issue>& out, Progress& progress,
                                   std::string_view title) {
  std::vector<Trial> trials(branches.size());
  std::vector<size_t> passing;
  for (size_t i = 0; i < branches.size(); ++i) {
    apply(branches[i], x, j, place, trials[i].issues, trials[i].progress, title);
    if (valid(branches[i], j)) passing.push_back(i);
  }
  if (passing.size() == 1 || (!exactly_one && !passing.empty())) {
    progress.known_keys += trials[passing[0]].progress.known_keys;
    return;
  }

  const std::string name = name_of(title, place);
  const bool key_choice = x.IsMap() && is_key_choice(branches);
  std::vector<std::string> key_names;  // each branch's keys, for "one of 'run' or 'tree'"
  for (int b : branches) key_names.push_back(in_quotes(join_list(schema(b).required)));

  if (!passing.empty()) {  // oneOf matched several
    if (key_choice) {
      std::vector<std::string> present;
      YAML::Mark mark = x.Mark();
      for (auto it = x.begin(); it != x.end(); ++it)
        for (size_t i : passing)
          for (const std::string& r : schema(branches[i]).required)
            if (it->first.Scalar() == r) {
              present.push_back(in_quotes(r));
              mark = it->first.Mark();  // the later of the clashing keys
            }
      out.push_back({mark, place.depth + 1, "only one of " + join_alternatives(present) + " is allowed in " + name});
    } else {
      std::vector<std::string> matched;
      for (size_t i : passing) matched.push_back(expectation(branches[i]));
      out.push_back({mark_of(x, place), place.depth,
                     subject(place) + " is ambiguous: it matches " + join_alternatives(matched)});
    }
    return;
  }

  if (key_choice) {
    bool any_present = false;
    for (int b : branches)
      any_present |= std::all_of(schema(b).required.begin(), schema(b).required.end(),
                                 [&](const std::string& r) { return has_key(x, r); });
    if (!any_present) {
      out.push_back({mark_of(x, place), place.depth,
                     std::string(exactly_one ? "missing one of " : "missing at least one of ") +
                         join_alternatives(key_names) + " in " + name});
      return;
    }
  }

  if (std::none_of(trials.begin(), trials.end(), [](const Trial& t) { return t.progress.type_ok; })) {
    std::vector<std::string> expected;
    for (int b : branches) expected.push_back(expectation(b));
    out.push_back({mark_of(x, place), place.depth,
                   "expected " + join_alternatives(expected) + ", got " + (place.is_key ? "text" : describe_node(x))});
    progress.type_ok = false;
    return;
  }

  // The branch that got furthest: its type fits, it knows most of the keys, its errors lie
  // deepest, it has the fewest; ties go to the earlier branch.
  auto score = [](const Trial& t) {
    int deepest = 0;
    for (const Issue& i : t.issues) deepest = std::max(deepest, i.depth);
    return std::make_tuple(t.progress.type_ok, t.progress.known_keys, deepest, -static_cast<int>(t.issues.size()));
  };
  size_t best = 0;
  for (size_t i = 1; i < trials.size(); ++i)
    if (score(trials[i]) > score(trials[best])) best = i;
  if (trials[best].issues.empty())  // valijson refuses what the walk has no words for
    out.push_back({mark_of(x, place), place.depth, subject(place) + " does not match " + expectation(branches[best])});
  out.insert(out.end(), trials[best].issues.begin(), trials[best].issues.end());
  progress.known_keys += trials[best].progress.known_keys;
}

void Validator::check_not(int index, const YAML::Node& x, const Json& j, const Place& place,
                          std::vector<Issue>& out, std::string_view title) {
  if (!valid(index, j)) return;
  const std::string name = name_of(title, place);
  if (x.IsMap() && is_key_choice({index})) {
    std::vector<std::string> present;
    YAML::Mark mark = x.Mark();
    for (auto it = x.begin(); it != x.end(); ++it)
      for (const std::string& r : schema(index).required)
        if (it->first.Scalar() == r) {
          present.push_back(in_quotes(r));
          mark = it->first.Mark();
        }
    std::string together;
    for (size_t i = 0; i < present.size(); ++i)
      together += (i == 0 ? "" : i + 1 < present.size() ? ", " : " and ") + present[i];
    out.push_back({mark, place.depth + 1,
                   together + (present.size() == 1 ? " is not allowed in " : " cannot be used together in ") + name});
    return;
  }
  out.push_back({mark_of(x, place), place.depth, subject(place) + " must not be " + expectation(index)});
}

std::string Validator::number_phrase(const Schema& s) const {
  bool integer = !s.types.empty() && std::all_of(s.types.begin(), s.types.end(), [](uint8_t t) { return t == kInteger; });
  std::string out = integer ? "an integer" : "a number";
  std::vector<std::string> limits;
  for (const SchemaStore::Bound& b : s.minimums) limits.push_back((b.exclusive ? "> " : ">= ") + number_text(b.value));
  for (const SchemaStore::Bound& b : s.maximums) limits.push_back((b.exclusive ? "< " : "<= ") + number_text(b.value));
  for (size_t i = 0; i < limits.size(); ++i) out += (i ? " and " : " ") + limits[i];
  return out;
}

// What a schema wants, as a noun phrase: "a list of nodes", "an integer >= 1", "text".
std::string Validator::expectation(int index, int depth) const {
  const Schema& s = schema(index);
  if (s.always_invalid) return "nothing";
  if (depth > 16) return "a valid value";
  if (!s.types.empty()) {
    bool numeric = std::all_of(s.types.begin(), s.types.end(), [](uint8_t t) { return t == kInteger || t == kNumber; });
    if (numeric) return number_phrase(s);
    if (!s.title.empty()) return with_article(s.title);
    std::vector<std::string> names;
    for (uint8_t t : s.types) names.push_back(type_phrase(t));
    return join_alternatives(names);
  }
  if (!s.title.empty()) return with_article(s.title);
  if (!s.minimums.empty() || !s.maximums.empty()) return number_phrase(s);
  const std::vector<int>& branches = !s.one_of.empty() ? s.one_of : s.any_of;
  if (!branches.empty()) {
    std::vector<std::string> names;
    for (int b : branches) names.push_back(expectation(b, depth + 1));
    return join_alternatives(names);
  }
  if (s.all_of.size() == 1) return expectation(s.all_of[0], depth + 1);
  return "a valid value";
}

// valijson's own findings, at the nodes their context paths name ("<root>", "[key]", "[0]"),
// the common ones put in our words. Only for what the walk above has no words for.
std::vector<Issue> valijson_findings(const vj::Subschema& root, const YAML::Node& doc, const Json& json) {
  vj::Validator validator(vj::Validator::kStrongTypes);
  vj::ValidationResults results;
  validator.validate(root, Adapter(json), &results);
  std::vector<Issue> issues;
  static const std::regex unknown_key("Object contains a property that could not be validated .*: '(.*)'\\.");
  static const std::regex missing_key("Missing required property '(.*)'\\.");
  for (const vj::ValidationResults::Error& error : results) {
    if (error.description.rfind("Failed to validate", 0) == 0) continue;  // sums of the others
    YAML::Node at;
    at.reset(doc);
    std::string where = "the document";
    for (size_t i = 1; i < error.context.size(); ++i) {
      const std::string step = error.context[i].substr(1, error.context[i].size() - 2);  // "[x]" -> x
      const YAML::Node& here = at;  // const: looking must not add keys
      if (here.IsSequence() && !step.empty() && std::all_of(step.begin(), step.end(), ::isdigit)) {
        at.reset(here[std::stoul(step)]);
        where = "item " + std::to_string(std::stoul(step) + 1) + " of " + where;
      } else if (here.IsMap() && here[step]) {
        at.reset(here[step]);
        where = in_quotes(step);
      }
    }
    std::smatch m;
    std::string message;
    if (std::regex_match(error.description, m, unknown_key)) message = "unknown key " + in_quotes(m[1].str()) + " in " + where;
    else if (std::regex_match(error.description, m, missing_key)) message = "missing required key " + in_quotes(m[1].str()) + " in " + where;
    else if (error.description == "Value type not permitted by 'type' constraint.") message = where + " is of the wrong type: " + describe_node(at);
    else if (error.description == "Failed to match against any enum values.") message = where + " is none of the values allowed";
    else message = where + ": " + error.description;
    issues.push_back({at.Mark(), static_cast<int>(error.context.size()), message});
  }
  if (issues.empty()) issues.push_back({doc.Mark(), 0, "the document does not match its schema"});
  return issues;
}

}  // namespace

// ---------------------------------------------------------------- SchemaSet

std::optional<SchemaSet> SchemaSet::parse(const std::map<std::string, std::string>& files, std::string& error) {
  auto store = std::make_shared<SchemaStore>();
  std::vector<std::string> errors;
  std::map<std::string, Json> docs;
  std::map<std::string, std::string> ids;  // a file's $id, without fragment -> the file
  for (const auto& [name, text] : files) {
    try {
      docs[name] = Json::parse(text);
    } catch (const Json::exception& e) {
      errors.push_back(name + ": " + e.what());
      continue;
    }
    const Json& doc = docs[name];
    if (doc.is_object() && doc.contains("$id") && doc["$id"].is_string()) {
      std::string id = doc["$id"].get<std::string>();
      ids[id.substr(0, id.find('#'))] = name;
    }
    collect_literals(doc, store->enum_texts);
    check_patterns(doc, name, errors);
  }
  for (const auto& [name, doc] : docs)  // a cycle would send valijson round for ever
    if (errors.empty()) check_ref_cycles(doc, doc, name, errors);
  // A $ref to another file: by its $id, by its name, or by a path ending in its name.
  auto fetch = [&](const std::string& uri) -> const Json* {
    auto id = ids.find(uri);
    std::string name = id != ids.end() ? id->second : uri.substr(uri.rfind('/') + 1);
    auto doc = docs.find(name);
    return doc == docs.end() ? nullptr : new Json(doc->second);
  };
  auto free_doc = [](const Json* doc) { delete doc; };
  const bool unreadable = !errors.empty();  // valijson gets only files that read cleanly
  for (const auto& [name, doc] : docs) {
    if (unreadable) break;
    auto schema = std::make_unique<vj::Schema>();
    try {
      vj::SchemaParser parser(vj::SchemaParser::kDraft7);
      parser.populateSchema(Adapter(doc), *schema, fetch, free_doc);
    } catch (const std::exception& e) {
      errors.push_back(name + ": " + e.what());
      continue;
    }
    store->roots[name] = record(*store, schema->root());
    store->owned.push_back(std::move(schema));
  }
  if (!errors.empty()) {
    error.clear();
    for (const std::string& e : errors) error += (error.empty() ? "" : "\n") + e;
    return std::nullopt;
  }
  SchemaSet set;
  set.store_ = std::move(store);
  return set;
}

std::optional<SchemaSet> SchemaSet::load(const std::string& dir, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::map<std::string, std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".schema.json";
    if (!entry.is_regular_file() || name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      error = entry.path().string() + ": cannot read";
      return std::nullopt;
    }
    files[name] = text.str();
  }
  if (ec) {
    error = dir + ": cannot read the schema folder: " + ec.message();
    return std::nullopt;
  }
  if (files.empty()) {
    error = dir + ": no *.schema.json files";
    return std::nullopt;
  }
  auto set = parse(files, error);
  if (!set) error = dir + ": " + error;
  return set;
}

bool SchemaSet::has(const std::string& schema_file) const {
  return store_ && store_->roots.count(schema_file) > 0;
}

void SchemaSet::validate(const YAML::Node& doc, const std::string& schema_file, std::vector<SchemaError>& out) const {
  if (!has(schema_file)) {
    out.push_back({1, 1, "no schema " + in_quotes(schema_file) + " is loaded"});
    return;
  }
  const int root = store_->roots.at(schema_file);
  const Json json = to_json(doc, 0);
  Validator validator(*store_);
  if (validator.valid(root, json)) return;  // the usual case: valijson accepts it, nothing to word

  std::vector<Issue> issues;
  Progress progress;
  validator.apply(root, doc, json, Place{}, issues, progress, {});
  if (issues.empty()) issues = valijson_findings(*store_->schemas[static_cast<size_t>(root)].sub, doc, json);

  std::stable_sort(issues.begin(), issues.end(), [](const Issue& a, const Issue& b) {
    return std::tie(a.mark.line, a.mark.column) < std::tie(b.mark.line, b.mark.column);
  });
  for (size_t i = 0; i < issues.size(); ++i) {
    const Issue& issue = issues[i];
    bool repeated = i > 0 && issues[i - 1].mark.line == issue.mark.line &&
                    issues[i - 1].mark.column == issue.mark.column && issues[i - 1].message == issue.message;
    if (repeated) continue;
    out.push_back({std::max(issue.mark.line, 0) + 1, std::max(issue.mark.column, 0) + 1, issue.message});
  }
}

std::string brain_schema_file(const YAML::Node& doc) {
  if (!doc.IsMap()) return "";
  std::string found;
  int kinds = 0;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key == "tree" || key == "fsm" || key == "machine" || key == "scenario") {
      found = key + ".schema.json";
      ++kinds;
    }
  }
  return kinds == 1 ? found : "";
}

}  // namespace thicket
