// YAML 1.2 core-schema typing of scalars (SPEC 7: `on`, `yes` are strings).
// yaml-cpp keeps every scalar as text; this decides what a plain scalar means.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <utility>

namespace thicket {

enum class ScalarKind : uint8_t { Null, Bool, Integer, Float, String };

struct Scalar {
  ScalarKind kind = ScalarKind::Null;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;  // set for Integer and Float
  std::string text;   // the scalar's text as written
};

// Classifies a scalar node. Quoted scalars (yaml-cpp tag "!") are always strings;
// plain ones follow the YAML 1.2 core schema: null ~ "" / true false (and
// True/TRUE) / decimal, 0o, 0x integers / floats with .inf .nan.
Scalar classify_scalar(const YAML::Node& node);

// strtod in the "C" locale whatever the process's (an embedder that calls setlocale(LC_ALL, "")
// under a German locale made `2.5` read as 2 and `wait: 0.5` as 0): '.' is the decimal point,
// a number past double's range is +-inf, as strtod gives.
double c_strtod(const char* text, char** end = nullptr);

// The YAML 1.2 core-schema name of a node's type, for messages: "a mapping",
// "a list", "a number", "text", "true/false", "nothing (null)".
const char* describe_node(const YAML::Node& node);
// Whether a mapping's key is a scalar that is not null: a key that can be a name. (`~: 1`, a
// list or a mapping as a key has Scalar() "", which messages had quoted as the name ''.)
bool scalar_key(const YAML::Node& key);
// describe_node with the scalar it got, as a number's message says it: "text ('3')" (a number
// in quotes is text), "an integer (0)", "a number (.inf)"; a mapping or list as describe_node.
std::string describe_value(const YAML::Node& node);

// For a "true or false" message: " ('yes' is text in YAML 1.2; write true or false)" when the
// node is one of YAML 1.1's words for a boolean (yes, no, on, off, y, n in any usual case),
// else "".
std::string yaml11_boolean_hint(const YAML::Node& node);

// For a "whole number" message: " (1e3 is written as a number with a fraction or an exponent,
// which YAML reads as no whole number: write 1000)" when the node is such a number with a whole
// value; " (99999999999999999999 is too large for a whole number: at most 9223372036854775807)"
// for a whole number past 64 bits (YAML reads it as a number with a fraction); else "".
std::string whole_number_hint(const YAML::Node& node);
// A whole number written past 64 bits (99999999999999999999), which YAML reads as a float.
bool too_large_integer(const YAML::Node& node);

// Where, in the file's text, byte `offset` of a scalar's value lies (1-based line and byte
// column): the scalar starts at `mark`, and its value is what YAML made of the text there
// (escapes in double quotes, '' in single quotes, lines folded, a block scalar's header and
// indentation). {0, 0} when the mark is not in the text.
std::pair<int, int> scalar_position(const std::string& text, const YAML::Mark& mark, size_t offset);

}  // namespace thicket
