// The command line's decimal numbers (--dt, --leaf-timeout, --speed): one grammar for all of
// them, the same as the whole numbers' in spirit: digits, a point, an exponent; no sign, space or
// hex ("0x10" was 16 seconds through strtod, " 5" and "+5" were taken). A value too small to
// be a double (1e-400) is refused rather than read as 0, which for --leaf-timeout meant "no limit".
#pragma once
#include <charconv>
#include <string_view>
#include <system_error>

namespace thicket::cli {

inline bool parse_decimal(std::string_view s, double& out) {
  if (s.empty() || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.')) return false;  // no sign, space, inf or nan
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace thicket::cli
