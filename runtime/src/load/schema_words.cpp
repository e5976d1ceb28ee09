// Wording what valijson refuses: walks valijson's parsed schema beside the yaml-cpp document,
// asking valijson whether each constraint or oneOf branch holds, and says where and what in a
// modder's words: the offending node's mark, the schema's title ("sequence parameters"),
// did-you-mean for typos, and for a failed oneOf/anyOf the errors of the branch that got
// furthest.
#if defined(__GNUC__) && !defined(__clang__)
// gcc 12 warns of an overlapping memcpy in libstdc++'s string::replace inlined into valijson's
// json_pointer.hpp (a false positive, GCC bug 105329); the code is neither ours nor wrong.
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <unordered_map>

#include "suggest.hpp"
#include "schema.hpp"
#include "schema_store.hpp"
#include "yaml_limits.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

namespace {

using Schema = SchemaStore::Schema;

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

// Levenshtein distance, case-sensitive (suggest.hpp's edit_distance, for the loader's own
// messages, also counts a swap of neighbours as one edit and ignores case).
size_t levenshtein(std::string_view a, std::string_view b) {
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
    size_t d = levenshtein(word, c);
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

uint8_t json_bits(const Json& j) {
  if (j.is_null()) return kNull;
  if (j.is_boolean()) return kBoolean;
  if (j.is_number_integer()) return kInteger | kNumber;
  if (j.is_number()) return kNumber;
  if (j.is_string()) return kString;
  if (j.is_object()) return kObject;
  return kArray;
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
  // The root's only: the document's text and its line starts, if known (empty list items).
  const std::string* text = nullptr;
  const std::vector<size_t>* starts = nullptr;
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
  // An empty list item (a bare `-`): at its dash, as the loader says it (empty_value_at).
  if (x.IsDefined() && x.IsNull() && x.Mark().pos >= 0) {
    const Place* root = &at;
    while (root->parent) root = root->parent;
    int line = 0, column = 0;
    if (root->text && root->starts && empty_value_at(*root->text, *root->starts, static_cast<size_t>(x.Mark().pos), line, column)) {
      YAML::Mark m = x.Mark();
      m.line = line - 1;
      m.column = column - 1;
      return m;
    }
  }
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
    // 1e3 for an integer (YAML reads it as no whole number), or one past 64 bits.
    if (!place.is_key && std::find(s.types.begin(), s.types.end(), kInteger) != s.types.end()) message += whole_number_hint(x);
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
    const size_t length = utf8_characters(text);
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
    auto found = j.find(pattern_safe(key_text));  // (to_json's key)
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
      if (std::regex_search(pattern_safe(key_text), re)) {
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
      descend(s.property_names, key, Json(pattern_safe(key_text)), as_key, out);
    }
  }

  if (unknown.empty() && s.required.empty() && !s.min_properties && !s.max_properties) return;
  const std::string name = name_of(title, place);
  std::vector<std::string> allowed;
  for (const auto& property : s.properties) allowed.push_back(property.first);
  std::sort(allowed.begin(), allowed.end());
  // The lines of this mapping's keys (and of where it starts): a finding about its keys is one
  // the compiler's own message on any of those lines already covers (a node with two kinds,
  // written one key a line, had the compiler's error on the second key's line and the schema's
  // on the first's: both were printed).
  std::vector<int> key_lines = {mark_of(x, place).line};
  for (auto it = x.begin(); it != x.end(); ++it) key_lines.push_back(it->first.Mark().line);
  for (const YAML::Node& key : unknown) {
    std::string message = "unknown key " + in_quotes(key.Scalar()) + " in " + name;
    std::string guess = closest(key.Scalar(), allowed);
    if (!allowed.empty() && (allowed.size() <= 10 || guess.empty()))
      message += " (allowed: " + join_list(allowed) + ")";
    else if (!guess.empty())
      message += " (did you mean " + in_quotes(guess) + "?)";
    out.push_back({key.Mark(), place.depth + 1, message, key_lines});
  }

  if (!holds(s.required_constraint, j))
    for (const std::string& required : s.required) {
      if (has_key(x, required)) continue;
      // A misspelt required key is already reported as unknown, with the allowed names.
      bool misspelt = std::any_of(unknown.begin(), unknown.end(),
                                  [&](const YAML::Node& k) { return !closest(k.Scalar(), {required}).empty(); });
      if (!misspelt)
        out.push_back({mark_of(x, place), place.depth, "missing required key " + in_quotes(required) + " in " + name, key_lines});
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
                   name + " must have exactly " + plural(*s.min_properties) + ", got " + std::to_string(n) + keys(), key_lines});
  else if (too_few)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at least " + plural(*s.min_properties) + ", got " + std::to_string(n), key_lines});
  else if (too_many)
    out.push_back({mark_of(x, place), place.depth,
                   name + " must have at most " + plural(*s.max_properties) + ", got " + std::to_string(n) + keys(), key_lines});
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
    bool wants_integer = false;
    for (int b : branches) {
      expected.push_back(expectation(b));
      wants_integer |= expected.back().find("integer") != std::string::npos;
    }
    out.push_back({mark_of(x, place), place.depth,
                   "expected " + join_alternatives(expected) + ", got " + (place.is_key ? "text" : describe_node(x)) +
                       (wants_integer && !place.is_key ? whole_number_hint(x) : std::string())});
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
    std::vector<int> lines;  // every key's of the mapping: a loader's error at a sibling ('size' and 'map') says it
    YAML::Mark mark = x.Mark();
    for (auto it = x.begin(); it != x.end(); ++it) {
      lines.push_back(it->first.Mark().line);
      for (const std::string& r : schema(index).required)
        if (it->first.Scalar() == r) {
          present.push_back(in_quotes(r));
          mark = it->first.Mark();
        }
    }
    std::string together;
    for (size_t i = 0; i < present.size(); ++i)
      together += (i == 0 ? "" : i + 1 < present.size() ? ", " : " and ") + present[i];
    out.push_back({mark, place.depth + 1,
                   together + (present.size() == 1 ? " is not allowed in " : " cannot be used together in ") + name,
                   std::move(lines)});
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

bool schema_accepts(const SchemaStore& store, int root, const Json& json) {
  return Validator(store).valid(root, json);
}

std::vector<Issue> schema_findings(const SchemaStore& store, int root, const YAML::Node& doc, const Json& json,
                                   const std::string* text) {
  Validator validator(store);
  std::vector<Issue> issues;
  Progress progress;
  const std::vector<size_t> starts = text ? line_starts(*text) : std::vector<size_t>{};
  Place top;
  top.text = text;
  top.starts = text ? &starts : nullptr;
  validator.apply(root, doc, json, top, issues, progress, {});
  if (issues.empty()) issues = valijson_findings(*store.schemas[static_cast<size_t>(root)].sub, doc, json);
  return issues;
}

}  // namespace thicket
