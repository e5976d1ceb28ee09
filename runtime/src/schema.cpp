// JSON Schema subset over yaml-cpp nodes: compile the schema files once into a flat array
// (refs resolved to indices, patterns compiled), then walk a document against it.
#include "schema.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>

#include "yaml_scalar.hpp"

namespace thicket {

// The compiled schemas of one SchemaSet. A schema refers to others by index.
struct SchemaStore {
  struct Bound {
    double value = 0;
    std::string text;  // as written, for messages
  };
  struct Schema {
    std::string where;  // "file#/json/pointer", for load errors
    bool is_bool = false;
    bool bool_value = true;
    std::string title;
    std::vector<uint8_t> types;  // TypeBit values in the order written; empty: no `type`
    std::vector<std::pair<std::string, int>> properties;
    std::vector<std::pair<int, int>> pattern_properties;  // regex index, schema index
    int additional = -1, property_names = -1, items = -1, not_schema = -1, ref = -1;
    int pattern = -1;  // regex index
    std::vector<std::string> required;
    std::optional<size_t> min_items, max_items, min_properties, max_properties;
    std::optional<size_t> min_length, max_length;
    std::optional<Bound> minimum, exclusive_minimum, maximum, exclusive_maximum;
    bool has_enum = false;
    std::vector<YAML::Node> enum_values;
    bool has_const = false;
    YAML::Node const_value;
    std::vector<int> all_of, any_of, one_of;
    // Only `required` (and `properties`) constrain it: a "which keys are present" choice,
    // reported as "needs one of 'run' or 'tree'" instead of through its branches.
    bool only_key_presence = true;
  };

  std::vector<Schema> schemas;
  std::vector<std::regex> regexes;
  std::vector<std::string> regex_texts;
  std::map<std::string, int> roots;  // schema file name -> its root schema
};

namespace {

using Schema = SchemaStore::Schema;

enum TypeBit : uint8_t {
  kNull = 1, kBoolean = 2, kInteger = 4, kNumber = 8, kString = 16, kObject = 32, kArray = 64
};

struct TypeName {
  const char* name;
  uint8_t bit;
  const char* phrase;  // the words describe_node uses for the same type
};
constexpr TypeName kTypeNames[] = {
    {"null", kNull, "nothing (null)"}, {"boolean", kBoolean, "true/false"},
    {"integer", kInteger, "an integer"}, {"number", kNumber, "a number"},
    {"string", kString, "text"},       {"object", kObject, "a mapping"},
    {"array", kArray, "a list"},
};

const TypeName* type_named(std::string_view name) {
  for (const TypeName& t : kTypeNames)
    if (name == t.name) return &t;
  return nullptr;
}

const TypeName& type_of_bit(uint8_t bit) {
  for (const TypeName& t : kTypeNames)
    if (t.bit == bit) return t;
  return kTypeNames[0];
}

constexpr std::string_view kAnnotations[] = {
    "description", "default", "examples", "$comment", "$schema", "$id",
    "deprecated", "readOnly", "writeOnly", "markdownDescription"};

bool is_annotation(std::string_view key) {
  return std::find(std::begin(kAnnotations), std::end(kAnnotations), key) != std::end(kAnnotations);
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

// A schema-side literal (enum or const value) as a modder would write it.
std::string literal_text(const YAML::Node& v) {
  if (!v.IsDefined() || v.IsNull()) return "null";
  if (v.IsScalar()) return v.Scalar();
  return v.IsMap() ? "a mapping" : "a list";
}

// An instance value for "got ...": text quoted, numbers as written.
std::string value_text(const YAML::Node& x, bool is_key) {
  if (!is_key && (!x.IsDefined() || x.IsNull())) return "nothing (null)";
  if (x.IsMap()) return "a mapping";
  if (x.IsSequence()) return "a list";
  if (is_key || classify_scalar(x).kind == ScalarKind::String) return in_quotes(x.Scalar());
  return x.Scalar();
}

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pointer_escape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// ---------------------------------------------------------------- loading

class SchemaCompiler {
 public:
  SchemaCompiler(SchemaStore& store, std::vector<std::string>& errors)
      : store_(store), errors_(errors) {}

  // Compiles the schema `n` found at `file#pointer` and everything under it.
  int compile(const YAML::Node& n, const std::string& file, const std::string& pointer);

  // Points every $ref at its schema; `ids` maps an absolute $id to its file.
  void resolve_refs(const std::map<std::string, std::string>& ids);

 private:
  struct PendingRef {
    int schema;
    std::string ref, file;
  };

  void fail(const std::string& where, const std::string& what) { errors_.push_back(where + ": " + what); }
  int regex(const std::string& text, const std::string& where);
  std::optional<size_t> count(const YAML::Node& v, const std::string& where);
  std::optional<SchemaStore::Bound> bound(const YAML::Node& v, const std::string& where);
  std::vector<int> schema_list(const YAML::Node& v, const std::string& file, const std::string& here);

  SchemaStore& store_;
  std::vector<std::string>& errors_;
  std::map<std::string, int> at_;  // "file#pointer" -> schema index
  std::vector<PendingRef> refs_;
};

int SchemaCompiler::regex(const std::string& text, const std::string& where) {
  auto found = std::find(store_.regex_texts.begin(), store_.regex_texts.end(), text);
  if (found != store_.regex_texts.end()) return static_cast<int>(found - store_.regex_texts.begin());
  try {
    store_.regexes.emplace_back(text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fail(where, "bad pattern " + in_quotes(text) + ": " + e.what());
    return -1;
  }
  store_.regex_texts.push_back(text);
  return static_cast<int>(store_.regexes.size()) - 1;
}

std::optional<size_t> SchemaCompiler::count(const YAML::Node& v, const std::string& where) {
  Scalar s = classify_scalar(v);
  if (v.IsScalar() && s.kind == ScalarKind::Integer && s.integer >= 0) return static_cast<size_t>(s.integer);
  fail(where, "expected a non-negative integer");
  return std::nullopt;
}

std::optional<SchemaStore::Bound> SchemaCompiler::bound(const YAML::Node& v, const std::string& where) {
  Scalar s = classify_scalar(v);
  if (v.IsScalar() && (s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float))
    return SchemaStore::Bound{s.number, s.text};
  fail(where, "expected a number");
  return std::nullopt;
}

std::vector<int> SchemaCompiler::schema_list(const YAML::Node& v, const std::string& file,
                                             const std::string& here) {
  std::vector<int> out;
  if (!v.IsSequence() || v.size() == 0) {
    fail(file + "#" + here, "expected a non-empty list of schemas");
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) out.push_back(compile(v[i], file, here + "/" + std::to_string(i)));
  return out;
}

int SchemaCompiler::compile(const YAML::Node& n, const std::string& file, const std::string& pointer) {
  int index = static_cast<int>(store_.schemas.size());
  store_.schemas.emplace_back();  // reserve the index; filled in below (recursion may grow the array)
  Schema s;
  s.where = file + "#" + pointer;
  at_[s.where] = index;

  Scalar flag = classify_scalar(n);
  if (n.IsScalar() && flag.kind == ScalarKind::Bool) {
    s.is_bool = true;
    s.bool_value = flag.boolean;
    store_.schemas[index] = std::move(s);
    return index;
  }
  if (!n.IsMap()) {
    fail(s.where, "a schema must be a mapping, true or false");
    store_.schemas[index] = std::move(s);
    return index;
  }

  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.Scalar();
    const YAML::Node v = it->second;
    const std::string here = pointer + "/" + pointer_escape(key);
    const std::string where = file + "#" + here;
    if (key != "required" && key != "properties" && key != "title" && !is_annotation(key))
      s.only_key_presence = false;

    if (key == "title") {
      s.title = v.Scalar();
    } else if (is_annotation(key)) {
      // ignored
    } else if (key == "type") {
      std::vector<std::string> names;
      if (v.IsScalar()) names.push_back(v.Scalar());
      else if (v.IsSequence())
        for (const YAML::Node& t : v) names.push_back(t.Scalar());
      if (names.empty()) fail(where, "expected a type name or a list of them");
      for (const std::string& name : names) {
        if (const TypeName* t = type_named(name)) s.types.push_back(t->bit);
        else fail(where, "unknown type " + in_quotes(name));
      }
    } else if (key == "properties" || key == "patternProperties" || key == "$defs" || key == "definitions") {
      if (!v.IsMap()) {
        fail(where, "expected a mapping of schemas");
        continue;
      }
      for (auto p = v.begin(); p != v.end(); ++p) {
        const std::string name = p->first.Scalar();
        int sub = compile(p->second, file, here + "/" + pointer_escape(name));
        if (key == "properties") s.properties.emplace_back(name, sub);
        else if (key == "patternProperties") s.pattern_properties.emplace_back(regex(name, where), sub);
      }
      s.pattern_properties.erase(
          std::remove_if(s.pattern_properties.begin(), s.pattern_properties.end(),
                         [](const auto& p) { return p.first < 0; }),
          s.pattern_properties.end());
    } else if (key == "additionalProperties") {
      s.additional = compile(v, file, here);
    } else if (key == "propertyNames") {
      s.property_names = compile(v, file, here);
    } else if (key == "items") {
      s.items = compile(v, file, here);
    } else if (key == "not") {
      s.not_schema = compile(v, file, here);
    } else if (key == "allOf") {
      s.all_of = schema_list(v, file, here);
    } else if (key == "anyOf") {
      s.any_of = schema_list(v, file, here);
    } else if (key == "oneOf") {
      s.one_of = schema_list(v, file, here);
    } else if (key == "required") {
      if (!v.IsSequence()) fail(where, "expected a list of key names");
      else
        for (const YAML::Node& r : v) s.required.push_back(r.Scalar());
    } else if (key == "enum") {
      if (!v.IsSequence()) fail(where, "expected a list of values");
      s.has_enum = true;
      for (const YAML::Node& e : v) s.enum_values.push_back(e);
    } else if (key == "const") {
      s.has_const = true;
      s.const_value = v;
    } else if (key == "$ref") {
      refs_.push_back({index, v.Scalar(), file});
    } else if (key == "pattern") {
      s.pattern = regex(v.Scalar(), where);
    } else if (key == "minItems") {
      s.min_items = count(v, where);
    } else if (key == "maxItems") {
      s.max_items = count(v, where);
    } else if (key == "minProperties") {
      s.min_properties = count(v, where);
    } else if (key == "maxProperties") {
      s.max_properties = count(v, where);
    } else if (key == "minLength") {
      s.min_length = count(v, where);
    } else if (key == "maxLength") {
      s.max_length = count(v, where);
    } else if (key == "minimum") {
      s.minimum = bound(v, where);
    } else if (key == "exclusiveMinimum") {
      s.exclusive_minimum = bound(v, where);
    } else if (key == "maximum") {
      s.maximum = bound(v, where);
    } else if (key == "exclusiveMaximum") {
      s.exclusive_maximum = bound(v, where);
    } else {
      fail(where, "unsupported keyword " + in_quotes(key));
    }
  }
  if (s.required.empty()) s.only_key_presence = false;
  store_.schemas[index] = std::move(s);
  return index;
}

void SchemaCompiler::resolve_refs(const std::map<std::string, std::string>& ids) {
  for (const PendingRef& r : refs_) {
    const std::string where = store_.schemas[r.schema].where;
    size_t hash = r.ref.find('#');
    std::string base = r.ref.substr(0, hash);
    std::string fragment = hash == std::string::npos ? "" : percent_decode(r.ref.substr(hash + 1));
    std::string file = r.file;
    if (base.find("://") != std::string::npos) {
      auto id = ids.find(base);
      file = id != ids.end() ? id->second : base.substr(base.rfind('/') + 1);
    } else if (!base.empty()) {
      file = base.rfind("./", 0) == 0 ? base.substr(2) : base;
    }
    if (!store_.roots.count(file)) {
      fail(where, "$ref " + in_quotes(r.ref) + " names a schema file that is not loaded");
      continue;
    }
    if (!fragment.empty() && fragment[0] != '/') {
      fail(where, "$ref " + in_quotes(r.ref) + ": only JSON-pointer fragments (#/...) are supported");
      continue;
    }
    auto target = at_.find(file + "#" + fragment);
    if (target == at_.end()) {
      fail(where, "$ref " + in_quotes(r.ref) + " does not point at a schema");
      continue;
    }
    store_.schemas[r.schema].ref = target->second;
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

uint8_t instance_bits(const YAML::Node& x, bool is_key) {
  if (is_key) return kString;  // a property name is text, as in JSON
  if (!x.IsDefined() || x.IsNull()) return kNull;
  if (x.IsMap()) return kObject;
  if (x.IsSequence()) return kArray;
  switch (classify_scalar(x).kind) {
    case ScalarKind::Null: return kNull;
    case ScalarKind::Bool: return kBoolean;
    case ScalarKind::Integer: return kInteger | kNumber;
    case ScalarKind::Float: return kNumber;
    case ScalarKind::String: return kString;
  }
  return kString;
}

bool same_value(const YAML::Node& x, bool is_key, const YAML::Node& literal) {
  uint8_t a = instance_bits(x, is_key), b = instance_bits(literal, false);
  if ((a & kNumber) && (b & kNumber)) {
    Scalar sx = classify_scalar(x), sl = classify_scalar(literal);
    if (sx.kind == ScalarKind::Integer && sl.kind == ScalarKind::Integer) return sx.integer == sl.integer;
    return sx.number == sl.number;
  }
  if (a != b) return false;
  switch (a) {
    case kNull: return true;
    case kBoolean: return classify_scalar(x).boolean == classify_scalar(literal).boolean;
    case kString: return x.Scalar() == literal.Scalar();
    case kArray:
      if (x.size() != literal.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_value(x[i], false, literal[i])) return false;
      return true;
    case kObject:
      if (x.size() != literal.size()) return false;
      for (auto it = x.begin(); it != x.end(); ++it) {
        bool found = false;
        for (auto jt = literal.begin(); jt != literal.end() && !found; ++jt)
          found = it->first.Scalar() == jt->first.Scalar() && same_value(it->second, false, jt->second);
        if (!found) return false;
      }
      return true;
  }
  return false;
}

bool has_key(const YAML::Node& map, std::string_view key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.Scalar() == key) return true;
  return false;
}

class Validator {
 public:
  explicit Validator(const SchemaStore& store) : store_(store) {}

  // Checks x against schema `index`; issues go to `out`, what was learnt about x to `progress`.
  // `title` names x's mapping in messages when the schema itself has no title.
  void apply(int index, const YAML::Node& x, const Place& place, std::vector<Issue>& out,
             Progress& progress, std::string_view title);

 private:
  struct Trial {
    std::vector<Issue> issues;
    Progress progress;
  };

  void check_scalar(const Schema& s, const YAML::Node& x, const Place& place, uint8_t bits, std::vector<Issue>& out);
  void check_object(const Schema& s, const YAML::Node& x, const Place& place, std::vector<Issue>& out,
                    Progress& progress, std::string_view title);
  void check_array(const Schema& s, const YAML::Node& x, const Place& place, std::vector<Issue>& out);
  void check_alternatives(const std::vector<int>& branches, bool exactly_one, const YAML::Node& x,
                          const Place& place, std::vector<Issue>& out, Progress& progress,
                          std::string_view title);
  void check_not(int index, const YAML::Node& x, const Place& place, std::vector<Issue>& out, std::string_view title);

  std::string expectation(int index, int depth = 0) const;
  std::string number_phrase(const Schema& s) const;
  bool is_key_choice(const std::vector<int>& branches) const;

  const Schema& schema(int index) const { return store_.schemas[static_cast<size_t>(index)]; }

  // apply() on a child of x: a new instance, so the cycle count starts again.
  void descend(int index, const YAML::Node& child, const Place& place, std::vector<Issue>& out) {
    int saved = stalled_;
    stalled_ = 0;
    Progress unused;
    apply(index, child, place, out, unused, {});
    stalled_ = saved;
  }

  const SchemaStore& store_;
  int stalled_ = 0;  // nested apply() calls on the same instance
};

// More schemas than this applied to one instance at once can only be a $ref cycle.
constexpr int kMaxStalled = 64;
// No brain nests this deep; stopping here keeps a hostile file from exhausting the stack.
constexpr int kMaxDepth = 128;

void Validator::apply(int index, const YAML::Node& x, const Place& place, std::vector<Issue>& out,
                      Progress& progress, std::string_view title) {
  const Schema& s = schema(index);
  if (s.is_bool) {
    if (!s.bool_value) {
      out.push_back({mark_of(x, place), place.depth, subject(place) + " is not allowed here"});
      progress.type_ok = false;
    }
    return;
  }
  if (place.depth > kMaxDepth) {
    if (place.depth == kMaxDepth + 1 && stalled_ == 0)
      out.push_back({mark_of(x, place), place.depth,
                     "nested more than " + std::to_string(kMaxDepth) + " levels deep; not checked further"});
    return;
  }
  if (stalled_ >= kMaxStalled) {
    out.push_back({mark_of(x, place), place.depth, "schema " + s.where + " nests too deeply (a $ref cycle?)"});
    return;
  }
  struct Nest {
    int& count;
    explicit Nest(int& c) : count(++c) {}
    ~Nest() { --count; }
  } nest(stalled_);

  if (!s.title.empty()) title = s.title;
  const uint8_t bits = instance_bits(x, place.is_key);

  if (!s.types.empty()) {
    bool allowed = std::any_of(s.types.begin(), s.types.end(), [&](uint8_t t) { return (bits & t) != 0; });
    if (!allowed) {
      std::string message = "expected " + expectation(index) + ", got " + (place.is_key ? "text" : describe_node(x));
      bool wants_boolean = std::find(s.types.begin(), s.types.end(), kBoolean) != s.types.end();
      static const std::regex yaml11_boolean("y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
      if (wants_boolean && bits == kString && std::regex_match(x.Scalar(), yaml11_boolean))
        message += " (" + in_quotes(x.Scalar()) + " is text in YAML 1.2; write true or false)";
      out.push_back({mark_of(x, place), place.depth, message});
      progress.type_ok = false;
      return;
    }
  }
  if (s.ref >= 0) apply(s.ref, x, place, out, progress, title);
  check_scalar(s, x, place, bits, out);
  if (bits & kObject) check_object(s, x, place, out, progress, title);
  if (bits & kArray) check_array(s, x, place, out);
  for (int sub : s.all_of) apply(sub, x, place, out, progress, title);
  if (!s.any_of.empty()) check_alternatives(s.any_of, false, x, place, out, progress, title);
  if (!s.one_of.empty()) check_alternatives(s.one_of, true, x, place, out, progress, title);
  if (s.not_schema >= 0) check_not(s.not_schema, x, place, out, title);
}

void Validator::check_scalar(const Schema& s, const YAML::Node& x, const Place& place, uint8_t bits,
                             std::vector<Issue>& out) {
  const YAML::Mark mark = mark_of(x, place);
  if (s.has_enum) {
    bool found = std::any_of(s.enum_values.begin(), s.enum_values.end(),
                             [&](const YAML::Node& v) { return same_value(x, place.is_key, v); });
    if (!found) {
      std::vector<std::string> names;
      for (const YAML::Node& v : s.enum_values) names.push_back(literal_text(v));
      std::string message = subject(place) + " must be " + join_alternatives(names) + ", got " + value_text(x, place.is_key);
      if (bits == kString) {
        std::string guess = closest(x.Scalar(), names);
        if (!guess.empty()) message += " (did you mean " + in_quotes(guess) + "?)";
      }
      out.push_back({mark, place.depth, message});
    }
  }
  if (s.has_const && !same_value(x, place.is_key, s.const_value))
    out.push_back({mark, place.depth,
                   subject(place) + " must be " + literal_text(s.const_value) + ", got " + value_text(x, place.is_key)});

  if (bits & kNumber) {
    double v = classify_scalar(x).number;
    bool ok = (!s.minimum || v >= s.minimum->value) && (!s.exclusive_minimum || v > s.exclusive_minimum->value) &&
              (!s.maximum || v <= s.maximum->value) && (!s.exclusive_maximum || v < s.exclusive_maximum->value);
    if (!ok) out.push_back({mark, place.depth, subject(place) + " must be " + number_phrase(s) + ", got " + x.Scalar()});
  }

  if (bits & kString) {
    const std::string& text = x.Scalar();
    size_t length = utf8_length(text);
    if (s.min_length && length < *s.min_length)
      out.push_back({mark, place.depth,
                     *s.min_length == 1 ? subject(place) + " must not be empty"
                                        : subject(place) + " must be at least " + std::to_string(*s.min_length) +
                                              " characters long, got " + std::to_string(length)});
    if (s.max_length && length > *s.max_length)
      out.push_back({mark, place.depth,
                     subject(place) + " must be at most " + std::to_string(*s.max_length) +
                         " characters long, got " + std::to_string(length)});
    if (s.pattern >= 0 && !std::regex_search(text, store_.regexes[static_cast<size_t>(s.pattern)])) {
      std::string what = s.title.empty() ? "text" : with_article(s.title);
      std::string message = subject(place) + " must be " + what + " matching " +
                            store_.regex_texts[static_cast<size_t>(s.pattern)];
      if (!place.is_key) message += ", got " + in_quotes(text);
      out.push_back({mark, place.depth, message});
    }
  }
}

void Validator::check_object(const Schema& s, const YAML::Node& x, const Place& place, std::vector<Issue>& out,
                             Progress& progress, std::string_view title) {
  std::vector<YAML::Node> unknown;
  for (auto it = x.begin(); it != x.end(); ++it) {
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const std::string key_text = key.Scalar();
    const Place child{&place, key_text, -1, place.depth + 1, &key, false};
    bool matched = false;
    for (const auto& [property, sub] : s.properties)
      if (property == key_text) {
        descend(sub, value, child, out);
        matched = true;
        break;
      }
    for (const auto& [re, sub] : s.pattern_properties)
      if (std::regex_search(key_text, store_.regexes[static_cast<size_t>(re)])) {
        descend(sub, value, child, out);
        matched = true;
      }
    if (!matched && s.additional >= 0) {
      const Schema& extra = schema(s.additional);
      if (extra.is_bool && !extra.bool_value) {
        unknown.push_back(key);
      } else {
        descend(s.additional, value, child, out);
        matched = true;
      }
    }
    if (matched) ++progress.known_keys;
    if (s.property_names >= 0) {
      const Place as_key{&place, key_text, -1, place.depth + 1, &key, true};
      descend(s.property_names, key, as_key, out);
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

  for (const std::string& required : s.required) {
    if (has_key(x, required)) continue;
    // A misspelt required key is already reported as unknown, with the allowed names.
    bool misspelt = std::any_of(unknown.begin(), unknown.end(),
                                [&](const YAML::Node& k) { return !closest(k.Scalar(), {required}).empty(); });
    if (!misspelt) out.push_back({mark_of(x, place), place.depth, "missing required key " + in_quotes(required) + " in " + name});
  }

  const size_t n = x.size();
  auto keys = [&] {
    std::vector<std::string> names;
    for (auto it = x.begin(); it != x.end(); ++it) names.push_back(it->first.Scalar());
    return n ? " (" + join_list(names) + ")" : std::string();
  };
  auto plural = [](size_t k) { return std::to_string(k) + (k == 1 ? " key" : " keys"); };
  if (s.min_properties && s.max_properties && *s.min_properties == *s.max_properties && n != *s.min_properties)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have exactly " + plural(*s.min_properties) + ", got " + std::to_string(n) + keys()});
  else if (s.min_properties && n < *s.min_properties)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at least " + plural(*s.min_properties) + ", got " + std::to_string(n)});
  else if (s.max_properties && n > *s.max_properties)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at most " + plural(*s.max_properties) + ", got " + std::to_string(n) + keys()});
}

void Validator::check_array(const Schema& s, const YAML::Node& x, const Place& place, std::vector<Issue>& out) {
  const size_t n = x.size();
  if (s.items >= 0)
    for (size_t i = 0; i < n; ++i) {
      const Place child{&place, {}, static_cast<int>(i), place.depth + 1, nullptr, false};
      descend(s.items, x[i], child, out);
    }
  auto items = [](size_t k) { return std::to_string(k) + (k == 1 ? " item" : " items"); };
  if (s.min_items && n < *s.min_items)
    out.push_back({mark_of(x, place), place.depth,
                   *s.min_items == 1 ? subject(place) + " must not be empty"
                                     : subject(place) + " must have at least " + items(*s.min_items) + ", got " +
                                           std::to_string(n)});
  if (s.max_items && n > *s.max_items)
    out.push_back({mark_of(x, place), place.depth,
                   subject(place) + " must have at most " + items(*s.max_items) + ", got " + std::to_string(n)});
}

bool Validator::is_key_choice(const std::vector<int>& branches) const {
  return std::all_of(branches.begin(), branches.end(),
                     [&](int b) { return !schema(b).is_bool && schema(b).only_key_presence; });
}

void Validator::check_alternatives(const std::vector<int>& branches, bool exactly_one, const YAML::Node& x,
                                   const Place& place, std::vector<Issue>& out, Progress& progress,
                                   std::string_view title) {
  std::vector<Trial> trials(branches.size());
  std::vector<size_t> passing;
  for (size_t i = 0; i < branches.size(); ++i) {
    apply(branches[i], x, place, trials[i].issues, trials[i].progress, title);
    if (trials[i].issues.empty()) passing.push_back(i);
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
  out.insert(out.end(), trials[best].issues.begin(), trials[best].issues.end());
  progress.known_keys += trials[best].progress.known_keys;
}

void Validator::check_not(int index, const YAML::Node& x, const Place& place, std::vector<Issue>& out,
                          std::string_view title) {
  Trial trial;
  apply(index, x, place, trial.issues, trial.progress, {});
  if (!trial.issues.empty()) return;
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
  if (s.minimum) limits.push_back(">= " + s.minimum->text);
  if (s.exclusive_minimum) limits.push_back("> " + s.exclusive_minimum->text);
  if (s.maximum) limits.push_back("<= " + s.maximum->text);
  if (s.exclusive_maximum) limits.push_back("< " + s.exclusive_maximum->text);
  for (size_t i = 0; i < limits.size(); ++i) out += (i ? " and " : " ") + limits[i];
  return out;
}

// What a schema wants, as a noun phrase: "a list of nodes", "an integer >= 1", "text".
std::string Validator::expectation(int index, int depth) const {
  const Schema& s = schema(index);
  if (s.is_bool) return s.bool_value ? "anything" : "nothing";
  if (depth > 16) return "a valid value";
  if (!s.types.empty()) {
    bool numeric = std::all_of(s.types.begin(), s.types.end(), [](uint8_t t) { return t == kInteger || t == kNumber; });
    if (numeric) return number_phrase(s);
    if (!s.title.empty()) return with_article(s.title);
    if (s.has_enum) {
      std::vector<std::string> names;
      for (const YAML::Node& v : s.enum_values) names.push_back(literal_text(v));
      return join_alternatives(names);
    }
    std::vector<std::string> names;
    for (uint8_t t : s.types) names.push_back(type_of_bit(t).phrase);
    return join_alternatives(names);
  }
  if (!s.title.empty()) return with_article(s.title);
  if (s.ref >= 0) return expectation(s.ref, depth + 1);
  if (s.minimum || s.exclusive_minimum || s.maximum || s.exclusive_maximum) return number_phrase(s);
  if (s.has_const) return literal_text(s.const_value);
  const std::vector<int>& branches = !s.one_of.empty() ? s.one_of : s.any_of;
  if (!branches.empty()) {
    std::vector<std::string> names;
    for (int b : branches) names.push_back(expectation(b, depth + 1));
    return join_alternatives(names);
  }
  return "a valid value";
}

}  // namespace

// ---------------------------------------------------------------- SchemaSet

std::optional<SchemaSet> SchemaSet::parse(const std::map<std::string, std::string>& files, std::string& error) {
  auto store = std::make_shared<SchemaStore>();
  std::vector<std::string> errors;
  std::map<std::string, std::string> ids;
  SchemaCompiler compiler(*store, errors);
  for (const auto& [name, text] : files) {
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      errors.push_back(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                       ": " + e.msg);
      continue;
    }
    if (doc.IsMap()) {
      const YAML::Node id = doc["$id"];
      if (id && id.IsScalar()) ids[id.Scalar().substr(0, id.Scalar().find('#'))] = name;
    }
    store->roots[name] = compiler.compile(doc, name, "");
  }
  compiler.resolve_refs(ids);
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
  Validator validator(*store_);
  std::vector<Issue> issues;
  Progress progress;
  validator.apply(store_->roots.at(schema_file), doc, Place{}, issues, progress, {});

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
