// The command line's decimal numbers (--dt, --leaf-timeout, --speed): one grammar for all of
// them, the same as the whole numbers' in spirit: digits, a point, an exponent; no sign, space or
// hex ("0x10" was 16 seconds through strtod, " 5" and "+5" were taken). A value too small to
// be a double (1e-400) is refused rather than read as 0, which for --leaf-timeout meant "no limit".
#pragma once
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

namespace thicket::cli {

inline bool parse_decimal(std::string_view s, double& out) {
  if (s.empty() || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.')) return false;  // no sign, space, inf or nan
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
  return ec == std::errc() && end == s.data() + s.size();
}

// A summary's figure (a metric's mean, min, max): two decimals, as 12.50; from 1e15 on the
// shortest exact form, as 1e+308, where two decimals printed 300 digits and more.
inline std::string summary_number(double v) {
  char buf[400];
  if (std::isfinite(v) && std::fabs(v) >= 1e15) {
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, ec == std::errc() ? end : buf);
  }
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace thicket::cli
