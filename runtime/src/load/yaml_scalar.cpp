#include "yaml_scalar.hpp"
#include "c_locale.hpp"
#include "suggest.hpp"

#include <locale.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace thicket {
namespace {

bool any_of(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

// The YAML 1.2 core schema's number forms, scanned by hand: std::regex matched them by
// recursion, one stack frame per character, and a number of some 30,000 digits overflowed the
// stack.
bool digits(const std::string& s, size_t& i, int (*is)(int)) {
  const size_t from = i;
  while (i < s.size() && is(static_cast<unsigned char>(s[i]))) ++i;
  return i > from;
}
int is_octal(int c) { return c >= '0' && c <= '7'; }
int is_decimal(int c) { return c >= '0' && c <= '9'; }
int is_hex(int c) { return is_decimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// How an integer is written (YAML 1.2 core schema: decimal, 0o octal, 0x hex); `range`: also
// whether it fits 64 bits.
bool parse_integer(const std::string& s, int64_t& out, bool* range = nullptr) {
  int base = 0;
  const char* begin = s.c_str();
  size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o') {  // 0o[0-7]+
    i = 2;
    if (digits(s, i, is_octal) && i == s.size()) base = 8, begin += 2;
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'x') {  // 0x[0-9a-fA-F]+
    i = 2;
    if (digits(s, i, is_hex) && i == s.size()) base = 16, begin += 2;
  } else {  // [-+]?[0-9]+
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits(s, i, is_decimal) && i == s.size()) base = 10;
  }
  if (base == 0) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(begin, &end, base);
  if (range) *range = errno != ERANGE;
  if (errno == ERANGE) return false;  // too large for an integer: read as a float
  out = v;
  return true;
}

// A 0x or 0o integer past 64 bits, as a float (as a decimal one past them is read by
// parse_float): 0x8000000000000000 is a number, not the text it was.
bool radix_float(const std::string& s, double& out) {
  if (s.size() <= 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'o')) return false;
  const int base = s[1] == 'x' ? 16 : 8;
  size_t i = 2;
  if (!digits(s, i, base == 16 ? is_hex : is_octal) || i != s.size()) return false;
  long double v = 0;
  for (size_t k = 2; k < s.size(); ++k) {
    const int c = static_cast<unsigned char>(s[k]);
    v = v * base + (is_decimal(c) ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  out = static_cast<double>(v);  // (inf past double's range, as strtod gives for a decimal one)
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool plain_float(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits(s, i, is_decimal)) return false;
  } else {
    if (!digits(s, i, is_decimal)) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits(s, i, is_decimal);
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!digits(s, i, is_decimal)) return false;
  }
  return i == s.size();
}

bool parse_float(const std::string& s, double& out) {
  if (plain_float(s)) {
    out = c_strtod(s.c_str());
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

locale_t c_locale() {
  static const locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return c;
}

double c_strtod(const char* text, char** end) {
  const locale_t c = c_locale();
  return c ? strtod_l(text, end, c) : std::strtod(text, end);
}

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
  if (parse_float(s, out.number) || radix_float(s, out.number)) {
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

bool scalar_key(const YAML::Node& key) {
  return key && key.IsScalar() && classify_scalar(key).kind != ScalarKind::Null;
}

std::string describe_value(const YAML::Node& node) {
  std::string out = describe_node(node);
  if (!node || !node.IsScalar() || node.Scalar().empty()) return out;
  if (classify_scalar(node).kind == ScalarKind::String) return out + " ('" + shown_name(node.Scalar()) + "')";
  return out + " (" + node.Scalar() + ")";
}

std::string yaml11_boolean_hint(const YAML::Node& node) {
  if (!node || !node.IsScalar()) return "";
  const std::string& s = node.Scalar();
  // ("true" in quotes: asked only of a value that is no boolean, so it was quoted.)
  if (any_of(s, {"true", "True", "TRUE", "false", "False", "FALSE"}))
    return " ('" + s + "' in quotes is text; write " + (s[0] == 't' || s[0] == 'T' ? "true" : "false") + " without them)";
  if (!any_of(s, {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"})) return "";
  return " ('" + s + "' is text in YAML 1.2; write true or false)";
}

bool too_large_integer(const YAML::Node& node) {
  const Scalar s = classify_scalar(node);
  bool fits = true;
  int64_t ignored = 0;
  return s.kind == ScalarKind::Float && !parse_integer(s.text, ignored, &fits) && !fits;
}

std::string whole_number_hint(const YAML::Node& node) {
  const Scalar s = classify_scalar(node);
  if (too_large_integer(node))
    return s.text.find('-') == 0 ? " (" + s.text + " is too small for a whole number: at least -9223372036854775808)"
                                 : " (" + s.text + " is too large for a whole number: at most 9223372036854775807)";
  if (s.kind != ScalarKind::Float || !std::isfinite(s.number) || s.number != std::floor(s.number) || std::fabs(s.number) > 9e15)
    return "";
  return " (" + s.text + " is written as a number with a fraction or an exponent, which YAML reads as no whole number: write " +
         std::to_string(static_cast<long long>(s.number)) + ")";
}

std::pair<int, int> scalar_position(const std::string& text, const YAML::Mark& mark, size_t offset) {
  if (mark.pos < 0 || static_cast<size_t>(mark.pos) >= text.size()) return {0, 0};
  size_t i = static_cast<size_t>(mark.pos);
  int line = mark.line + 1, column = mark.column + 1;
  auto step = [&] {  // one byte of the text forward, keeping line and column
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  };
  auto blank = [&](size_t k) { return k < text.size() && (text[k] == ' ' || text[k] == '\t'); };
  const char style = text[i];
  size_t produced = 0;  // bytes of the value made so far
  if (style == '|' || style == '>') {  // a block scalar: its header, then lines at an indentation
    while (i < text.size() && text[i] != '\n') step();
    if (i < text.size()) step();
    size_t indent = 0;  // of the first line with text
    for (size_t k = i; k < text.size() && text[k] == ' '; ++k) ++indent;
    while (i < text.size()) {
      for (size_t n = 0; n < indent && i < text.size() && text[i] == ' '; ++n) step();
      while (i < text.size() && text[i] != '\n') {
        if (produced == offset) return {line, column};
        ++produced;
        step();
      }
      if (produced == offset) return {line, column};
      ++produced;  // the line break: a newline (|) or a space (>)
      if (i < text.size()) step();
    }
    return {line, column};
  }
  const bool single = style == '\'', dbl = style == '"';
  if (single || dbl) step();
  while (i < text.size()) {
    if (produced == offset) return {line, column};
    const char c = text[i];
    if ((single && c == '\'' && !(i + 1 < text.size() && text[i + 1] == '\'')) || (dbl && c == '"')) break;
    if (c == '\n' || c == '\r') {  // a folded line break: one space, the next line's indentation dropped
      while (i < text.size() && (text[i] == '\n' || text[i] == '\r')) step();
      while (blank(i)) step();
      ++produced;
      continue;
    }
    if (single && c == '\'') {  // '' is one quote
      step();
      step();
      ++produced;
      continue;
    }
    if (dbl && c == '\\' && i + 1 < text.size()) {
      const char e = text[i + 1];
      size_t raw = 2, made = 1;
      if (e == 'x' || e == 'u' || e == 'U') {  // a code point, made into its UTF-8 bytes
        raw = e == 'x' ? 4 : e == 'u' ? 6 : 10;
        const unsigned long code = std::strtoul(text.substr(i + 2, raw - 2).c_str(), nullptr, 16);
        made = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      } else if (e == '\n') {
        made = 0;  // an escaped line break joins the lines
      }
      for (size_t n = 0; n < raw && i < text.size(); ++n) step();
      if (e == '\n')
        while (blank(i)) step();
      produced += made;
      continue;
    }
    step();
    ++produced;
  }
  return {line, column};
}

}  // namespace thicket
