// Schema loading and checking with valijson (draft 7): valijson loads the schemas, resolves
// their $refs and decides what holds. This file loads them (with nlohmann-json), refuses what
// valijson would loop on or find only later (a $ref cycle, a bad pattern), turns a YAML
// document into the JSON valijson reads (YAML 1.2 core-schema typing) and asks valijson.
// What it refuses is worded by schema_words.cpp.
#if defined(__GNUC__) && !defined(__clang__)
// gcc 12 warns of an overlapping memcpy in libstdc++'s string::replace inlined into valijson's
// json_pointer.hpp (a false positive, GCC bug 105329); the code is neither ours nor wrong.
// (Before any include: the unity build puts this file and schema_words.cpp in one unit.)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "schema.hpp"

#include <valijson/schema_parser.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "schema_store.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

std::string pattern_safe(const std::string& text) {
  if (text.size() <= kPatternSafeLength) return text;
  std::string out = text.substr(0, kPatternSafeLength);
  for (size_t i = kPatternSafeLength; i < text.size(); ++i) {
    const char c = text[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      out.push_back(c);
      break;
    }
  }
  return out;
}

namespace {

using Schema = SchemaStore::Schema;

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

// ---------------------------------------------------------------- YAML -> JSON

// The document as JSON, typed by the YAML 1.2 core schema; what lies deeper than kMaxDepth
// levels becomes null (the walk reports it). Long texts and keys are cut (pattern_safe): the
// patterns are matched by std::regex, which recursed once per character and overflowed the
// stack on a 30,000-character name.
Json to_json(const YAML::Node& n, int depth) {
  if (!n.IsDefined() || n.IsNull() || depth > kMaxDepth + 1) return nullptr;
  if (n.IsMap()) {
    Json out = Json::object();
    for (auto it = n.begin(); it != n.end(); ++it) out[pattern_safe(it->first.Scalar())] = to_json(it->second, depth + 1);
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
    case ScalarKind::String: return pattern_safe(n.Scalar());
  }
  return pattern_safe(n.Scalar());
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
    // `{type: object, required: [...]}` still asks only which keys are there (a `not` of it
    // lets a null state through, which a bare `required` would refuse).
    if (!(s_.types.size() == 1 && s_.types[0] == kObject)) s_.only_key_presence = false;
    return true;
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

// A $ref that only leads back to itself ({"$ref": "#/a"} at /a, a -> b -> a, or across files:
// a.json -> b.json -> a.json) would send valijson round for ever (or down the stack); such a
// chain is a load error. `file_of` names the file a $ref's file part means (by $id or name).
using FileOf = std::function<std::string(const std::string&)>;
void check_ref_cycles(const std::map<std::string, Json>& docs, const FileOf& file_of, const std::string& name,
                      const Json& n, std::vector<std::string>& errors) {
  if (n.is_array())
    for (const Json& item : n) check_ref_cycles(docs, file_of, name, item, errors);
  if (!n.is_object()) return;
  for (auto it = n.begin(); it != n.end(); ++it) check_ref_cycles(docs, file_of, name, it.value(), errors);
  const Json* at = &n;
  std::string file = name;
  std::vector<std::string> seen;
  while (at->is_object() && at->contains("$ref") && (*at)["$ref"].is_string()) {
    const std::string ref = (*at)["$ref"].get<std::string>();
    const size_t hash = ref.find('#');
    if (hash != 0) {  // to another file (or to the whole of one)
      file = file_of(ref.substr(0, hash));
      if (file.empty()) return;  // not one of these files: the parser reports it
    }
    const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
    const std::string key = file + "#" + pointer;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      errors.push_back(name + ": $ref " + in_quotes(ref) + " leads back to itself (a $ref cycle)");
      return;
    }
    seen.push_back(key);
    auto doc = docs.find(file);
    if (doc == docs.end()) return;
    try {
      at = &doc->second.at(Json::json_pointer(pointer));
    } catch (const Json::exception&) {
      return;  // valijson reports it
    }
  }
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
  // A $ref to another file: by its $id, by its name, or by a path ending in its name.
  const FileOf file_of = [&](const std::string& uri) -> std::string {
    auto id = ids.find(uri);
    std::string name = id != ids.end() ? id->second : uri.substr(uri.rfind('/') + 1);
    return docs.count(name) ? name : std::string();
  };
  for (const auto& [name, doc] : docs)  // a cycle would send valijson round for ever
    if (errors.empty()) check_ref_cycles(docs, file_of, name, doc, errors);
  auto fetch = [&](const std::string& uri) -> const Json* {
    const std::string name = file_of(uri);
    return name.empty() ? nullptr : new Json(docs.at(name));
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

void SchemaSet::validate(const YAML::Node& doc, const std::string& schema_file, std::vector<SchemaError>& out,
                         const std::string* text) const {
  if (!has(schema_file)) {
    out.push_back({1, 1, "no schema " + in_quotes(schema_file) + " is loaded"});
    return;
  }
  const int root = store_->roots.at(schema_file);
  const Json json = to_json(doc, 0);
  if (schema_accepts(*store_, root, json)) return;  // the usual case: nothing to word
  std::vector<Issue> issues = schema_findings(*store_, root, doc, json, text);

  std::stable_sort(issues.begin(), issues.end(), [](const Issue& a, const Issue& b) {
    return std::tie(a.mark.line, a.mark.column) < std::tie(b.mark.line, b.mark.column);
  });
  for (size_t i = 0; i < issues.size(); ++i) {
    const Issue& issue = issues[i];
    bool repeated = i > 0 && issues[i - 1].mark.line == issue.mark.line &&
                    issues[i - 1].mark.column == issue.mark.column && issues[i - 1].message == issue.message;
    if (repeated) continue;
    std::vector<int> others;
    for (int l : issue.other_lines) others.push_back(std::max(l, 0) + 1);
    out.push_back({std::max(issue.mark.line, 0) + 1, std::max(issue.mark.column, 0) + 1, issue.message, std::move(others)});
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
