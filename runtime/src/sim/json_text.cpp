// JSON strings (json_text.hpp): escapes, and UTF-8 checked byte by byte; a JSON text's shape.
#include "sim/json_text.hpp"

#include <algorithm>
#include <cstdio>

namespace thicket {

size_t utf8_sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const auto tail = [](unsigned c) { return c >= 0x80 && c <= 0xBF; };
  const unsigned c = byte(0), c1 = byte(1);
  if (c >= 0xC2 && c <= 0xDF) return tail(c1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const bool second = c == 0xE0 ? (c1 >= 0xA0 && c1 <= 0xBF) : c == 0xED ? (c1 >= 0x80 && c1 <= 0x9F) : tail(c1);
    return second && tail(byte(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const bool second = c == 0xF0 ? (c1 >= 0x90 && c1 <= 0xBF) : c == 0xF4 ? (c1 >= 0x80 && c1 <= 0x8F) : tail(c1);
    return second && tail(byte(2)) && tail(byte(3)) ? 4 : 0;
  }
  return 0;
}

std::string hex_byte(char byte) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(byte)));
  return hex;
}

size_t first_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_sequence(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

namespace {

// s with each byte that belongs to no well-formed UTF-8 sequence, and each control character
// when `controls`, written by `bad` instead.
template <typename Bad>
std::string recoded(std::string_view s, bool controls, Bad bad) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t n = b < 0x80 ? ((controls && (b < 0x20 || b == 0x7f)) ? 0 : 1) : utf8_sequence(s, i);
    if (n == 0) {
      bad(out, s[i]);
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  if (first_invalid_utf8(s) == std::string_view::npos) return std::string(s);
  return recoded(s, false, [](std::string& out, char) { out.append("\xef\xbf\xbd"); });  // U+FFFD
}

std::string escaped_utf8(std::string_view s) {
  return recoded(s, true, [](std::string& out, char c) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
    out += hex;
  });
}

void append_json_escaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out.append("\\ufffd");
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out.append(buf);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
}

JsonShape json_shape(std::string_view text, int limit) {
  JsonShape shape;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == ',') {
      ++shape.values;
    } else if (c == '[' || c == '{') {
      ++shape.values;
      shape.deepest = std::max(shape.deepest, ++depth);
      if (shape.deepest > limit) {
        shape.deep_at = i;
        return shape;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return shape;
}

}  // namespace thicket
