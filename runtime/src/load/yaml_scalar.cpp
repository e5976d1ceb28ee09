#include "yaml_scalar.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

namespace thicket {
namespace {

bool any_of(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

bool parse_integer(const std::string& s, int64_t& out) {
  static const std::regex dec("[-+]?[0-9]+"), oct("0o[0-7]+"), hex("0x[0-9a-fA-F]+");
  int base = 0;
  const char* begin = s.c_str();
  if (std::regex_match(s, dec)) base = 10;
  else if (std::regex_match(s, oct)) { base = 8; begin += 2; }
  else if (std::regex_match(s, hex)) { base = 16; begin += 2; }
  else return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(begin, &end, base);
  if (errno == ERANGE) return false;  // too large for an integer: read as a float
  out = v;
  return true;
}

bool parse_float(const std::string& s, double& out) {
  static const std::regex num("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, num)) {
    out = std::strtod(s.c_str(), nullptr);
    return true;
  }
  if (any_of(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (any_of(s, {"-.inf", "-.Inf", "-.INF"})) {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (any_of(s, {".nan", ".NaN", ".NAN"})) {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

}  // namespace

Scalar classify_scalar(const YAML::Node& node) {
  Scalar out;
  if (!node || node.IsNull()) return out;
  out.text = node.Scalar();
  // Quoted ("!" to yaml-cpp) or tagged !!str (YAML 1.2's core schema): always text.
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {
    out.kind = ScalarKind::String;
    return out;
  }
  const std::string& s = out.text;
  if (any_of(s, {"null", "Null", "NULL", "~", ""})) return out;
  if (any_of(s, {"true", "True", "TRUE", "false", "False", "FALSE"})) {
    out.kind = ScalarKind::Bool;
    out.boolean = s[0] == 't' || s[0] == 'T';
    return out;
  }
  if (parse_integer(s, out.integer)) {
    out.kind = ScalarKind::Integer;
    out.number = static_cast<double>(out.integer);
    return out;
  }
  if (parse_float(s, out.number)) {
    out.kind = ScalarKind::Float;
    return out;
  }
  out.kind = ScalarKind::String;
  return out;
}

const char* describe_node(const YAML::Node& node) {
  if (!node || node.IsNull()) return "nothing (null)";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  switch (classify_scalar(node).kind) {
    case ScalarKind::Null: return "nothing (null)";
    case ScalarKind::Bool: return "true/false";
    case ScalarKind::Integer: return "an integer";
    case ScalarKind::Float: return "a number";
    case ScalarKind::String: return "text";
  }
  return "text";
}

}  // namespace thicket
