// The record's fixed-point numbers (recorder.cpp put_fixed): its integer fast path must write
// exactly what to_chars(fixed, 3) writes, ties and near-ties included, and keep the record's
// own rules (no "-0.000", null for what is not finite).
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "recorder.hpp"

namespace {

std::string fixed(double v) {
  std::string out;
  thicket::put_fixed(out, v);
  return out;
}

std::string reference(double v) {
  if (std::fabs(v) < 0.0005) v = 0;
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
  return std::string(buf, r.ptr);
}

}  // namespace

TEST_CASE("record numbers: put_fixed writes what to_chars(fixed, 3) writes") {
  CHECK(fixed(12.3456) == "12.346");
  CHECK(fixed(-0.0004) == "0.000");
  CHECK(fixed(-0.0006) == "-0.001");
  CHECK(fixed(-3.14159) == "-3.142");
  CHECK(fixed(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(fixed(std::numeric_limits<double>::infinity()) == "null");
  CHECK(fixed(1e15) == reference(1e15));  // beyond the integer path
  // Exact binary ties (k/16000 and the like) and values a hair either side of them: where the
  // product v * 1000 rounds, to_chars must still decide.
  size_t differ = 0, checked = 0;
  for (int k = -200000; k <= 200000; ++k) {
    const double tie = (k + 0.5) / 1000.0;
    for (double v : {tie, std::nextafter(tie, 0.0), std::nextafter(tie, 1e9), k / 16.0 / 1000.0}) {
      ++checked;
      differ += fixed(v) != reference(v);
    }
  }
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> metres(-2000.0, 2000.0);
  for (int i = 0; i < 200000; ++i) {
    const double v = metres(random);
    ++checked;
    differ += fixed(v) != reference(v);
  }
  CHECK(checked > 1000000);
  CHECK(differ == 0);
}
