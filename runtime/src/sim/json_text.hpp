// JSON strings for what thicket writes as JSON (records, traces, series, results): one escaper,
// which also makes text that is not UTF-8 valid. A script's text may hold any bytes (a
// blackboard string, a node name from a file), and every line must stay JSON a reader takes.
#pragma once
#include <string>
#include <string_view>

namespace thicket {

// Appends s escaped for the inside of a JSON string (no quotes): `"` and `\` with a backslash,
// control characters as \n, \r, \t or \u00XX, and each byte that does not belong to a
// well-formed UTF-8 sequence as \ufffd (the replacement character).
void append_json_escaped(std::string& out, std::string_view s);

// The length of the well-formed UTF-8 sequence that starts s[i] (2 to 4), or 0 when none does
// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short).
size_t utf8_sequence(std::string_view s, size_t i);
// The offset of the first byte of s that belongs to no well-formed UTF-8 sequence, or
// std::string_view::npos when s is UTF-8 text.
size_t first_invalid_utf8(std::string_view s);
// s with each byte that belongs to no well-formed UTF-8 sequence replaced by U+FFFD: a message
// that quotes a file's or a script's raw bytes, made fit for a reader that takes UTF-8 only
// (Python's str).
std::string valid_utf8(std::string_view s);
// s with each byte that belongs to no well-formed UTF-8 sequence, and each control character,
// written as \xHH: a message that echoes what the user typed or a file held (a --set key or
// value, a scenario file's field) without passing raw bytes on to the terminal.
std::string escaped_utf8(std::string_view s);
// A byte as messages about bytes that are not UTF-8 name it: "0xff".
std::string hex_byte(char byte);

// How deep arrays and objects nest in a JSON text (strings skipped) and about how many values it
// holds (commas and containers outside strings: an upper bound), found in one pass before it is
// parsed; the pass stops where the nesting first passes `limit` (deep_at: that bracket's offset,
// else npos). nlohmann parses without recursing but copies, prints and compares values by
// recursion: a 2 MB line of brackets overflowed the stack. And a parse builds a tree of ~16 bytes
// a value: a 100 MB array of zeros (a gzip of 100 KB) took gigabytes.
struct JsonShape {
  int deepest = 0;
  size_t values = 1;
  size_t deep_at = std::string_view::npos;
};
JsonShape json_shape(std::string_view text, int limit);

// s as a JSON string, quotes included.
inline void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  append_json_escaped(out, s);
  out.push_back('"');
}
inline std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

}  // namespace thicket
