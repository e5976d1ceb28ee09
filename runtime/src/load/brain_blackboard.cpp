// Stage one of loading, continued: a brain or import file's blackboard declarations (key:
// default, or key: {type, default}), checked and merged into the brain's blackboard.
#include <algorithm>
#include <cmath>
#include <cctype>

#include "source_reader.hpp"
#include "suggest.hpp"
#include "yaml_scalar.hpp"

namespace thicket {

void SourceReader::read_blackboard(const SourceRef& ref, const YAML::Node& bb) {
  if (!bb) return;
  if (!bb.IsMap()) {
    ref.error(bb, std::string("'blackboard' is a mapping of key: default, got ") + describe_node(bb));
    return;
  }
  static const std::vector<std::string> types = {"number", "integer", "boolean", "string", "any"};
  // A key whose declaration has an error is still declared (with its type when it was given,
  // else as any): the file fails to load anyway, and its uses must not add "unknown key" errors
  // that point at the wrong mistake.
  auto declare_anyway = [&](BlackboardKey key, ValueType type) {
    if (src_.bb_index.count(key.name)) return;
    key.type = type;
    key.broken = true;
    key.initial = Slot{};
    key.text_default.clear();
    src_.bb_index[key.name] = static_cast<uint32_t>(src_.blackboard.size());
    src_.blackboard.push_back(std::move(key));
  };
  for (auto it = bb.begin(); it != bb.end(); ++it) {
    BlackboardKey key;
    key.name = it->first.Scalar();
    key.pos = {ref.file, it->first.Mark().line + 1, it->first.Mark().column + 1};
    const YAML::Node v = it->second;
    if (!scalar_key(it->first)) {
      ref.error(it->first, std::string("a blackboard key must be a name (letters, digits, _; not starting with a digit), got ") +
                               describe_node(it->first) + " as a key");
      continue;
    }
    if (!is_identifier(key.name)) {
      ref.error(it->first, "blackboard key '" + key.name + "' must be a name (letters, digits, _; not starting with a digit)");
      continue;
    }
    YAML::Node def = v;
    bool explicit_type = false;
    if (v.IsMap()) {
      for (auto p = v.begin(); p != v.end(); ++p) {
        std::string k = p->first.Scalar();
        if (k != "type" && k != "default")
          ref.error(p->first, "unknown key '" + k + "' in the declaration of '" + key.name + "'" +
                                  did_you_mean(k, {"type", "default"}) + " (allowed: type, default)");
      }
      const YAML::Node t = v["type"];
      if (!t) {
        ref.error(v, "the declaration of '" + key.name + "' needs a type: {type: number|integer|boolean|string|any, default: ...}");
        declare_anyway(key, ValueType::Any);
        continue;
      }
      std::string tn = t.IsScalar() ? t.Scalar() : "";
      auto found = std::find(types.begin(), types.end(), tn);
      if (found == types.end()) {
        ref.error(t, "unknown type '" + tn + "' for '" + key.name + "'" + did_you_mean_type(tn, types) +
                         " (types: number, integer, boolean, string, any)");
        declare_anyway(key, ValueType::Any);
        continue;
      }
      key.type = static_cast<ValueType>(found - types.begin());
      if (v["default"]) def.reset(v["default"]);
      else def.reset(YAML::Node());
      explicit_type = true;
    } else if (!v.IsScalar() && !v.IsNull()) {
      ref.error(v, "the default of '" + key.name + "' must be a number, true/false or text, or {type: ..., default: ...}; got " +
                       std::string(describe_node(v)));
      declare_anyway(key, ValueType::Any);
      continue;
    }
    Scalar s = classify_scalar(def);
    if (!explicit_type) {
      switch (s.kind) {
        case ScalarKind::Null: key.type = ValueType::Any; break;
        case ScalarKind::Bool: key.type = ValueType::Boolean; break;
        case ScalarKind::Integer:
        case ScalarKind::Float: key.type = ValueType::Number; break;
        case ScalarKind::String: key.type = ValueType::String; break;
      }
    }
    if (!explicit_type && s.kind == ScalarKind::String && def.Tag() != "!") {
      std::string lower = s.text;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "yes" || lower == "no" || lower == "on" || lower == "off" || lower == "y" || lower == "n")
        src_.yaml11_bools.push_back({key.name, s.text, {ref.file, def.Mark().line + 1, def.Mark().column + 1}});
    }
    if (s.kind == ScalarKind::Float && std::isnan(s.number)) {  // (as agent:signal refuses it: nan compares false to all)
      ref.error(def, "the default of '" + key.name + "' is nan, which is no number to compare or count with (a health of nan "
                         "never reaches 0): give it a number");
      declare_anyway(key, key.type);
      continue;
    }
    if (!set_default(key, s)) {
      if (key.type == ValueType::Any)  // an any key starts as nil: it takes no default
        ref.error(def, "'" + key.name + "' is an any key, which starts as nil: leave its default out (got " +
                           describe_node(def) + "), or give it a type");
      else
        ref.error(def, "the default of '" + key.name + "' must be " + type_phrase(key.type) + ", got " + describe_node(def) +
                           (key.type == ValueType::Integer ? whole_number_hint(def) : std::string()));
      declare_anyway(key, key.type);
      continue;
    }
    auto existing = src_.bb_index.find(key.name);
    if (existing != src_.bb_index.end()) {
      const BlackboardKey& old = src_.blackboard[existing->second];
      if (old.type != key.type)
        ref.error(it->first, "blackboard key '" + key.name + "' is declared as " + std::string(value_type_name(key.type)) +
                                 " here but as " + std::string(value_type_name(old.type)) + " in " +
                                 src_.files[old.pos.file].path);
      continue;
    }
    src_.bb_index[key.name] = static_cast<uint32_t>(src_.blackboard.size());
    src_.blackboard.push_back(std::move(key));
  }
}

std::string SourceReader::type_phrase(ValueType t) {
  switch (t) {
    case ValueType::Number: return "a number";
    case ValueType::Integer: return "an integer";
    case ValueType::Boolean: return "true or false";
    case ValueType::String: return "text";
    case ValueType::Any: return "any value";
  }
  return "";
}

bool SourceReader::set_default(BlackboardKey& key, const Scalar& s) {
  switch (key.type) {
    case ValueType::Number:
      key.initial.num = s.kind == ScalarKind::Null ? 0.0 : s.number;
      return s.kind == ScalarKind::Null || s.kind == ScalarKind::Integer || s.kind == ScalarKind::Float;
    case ValueType::Integer:
      key.initial.i = s.kind == ScalarKind::Null ? 0 : s.integer;
      return s.kind == ScalarKind::Null || s.kind == ScalarKind::Integer;
    case ValueType::Boolean:
      key.initial.i = s.boolean ? 1 : 0;
      return s.kind == ScalarKind::Null || s.kind == ScalarKind::Bool;
    case ValueType::String:
      key.text_default = s.kind == ScalarKind::Null ? "" : s.text;
      return s.kind == ScalarKind::Null || s.kind == ScalarKind::String;
    case ValueType::Any:
      key.initial.ref = -2;  // nil; scalar defaults of `any` keys are not supported
      return s.kind == ScalarKind::Null;
  }
  return false;
}

bool SourceReader::is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace thicket
