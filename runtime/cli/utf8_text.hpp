// Whether a text is UTF-8 (thicket import refuses XML that is not; thicket edit a brain file
// that is not: its page works in Unicode and would save the bytes changed).
#pragma once
#include <cstdint>
#include <string>

namespace thicket::cli {

// The offset of the first byte of s that starts no well-formed UTF-8 sequence (a stray byte,
// a truncated or overlong sequence, a surrogate, past U+10FFFF), or npos.
inline size_t first_non_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    const size_t n = b0 >= 0xF0 && b0 <= 0xF4 ? 4 : b0 >= 0xE0 && b0 < 0xF0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return i;
    uint32_t v = b0 & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return i;
      v = (v << 6) | (b & 0x3F);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return i;
    i += n;
  }
  return std::string::npos;
}

}  // namespace thicket::cli
