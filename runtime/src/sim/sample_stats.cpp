// Sample statistics and Student's t quantiles: see sample_stats.hpp.
#include "sample_stats.hpp"

#include <algorithm>
#include <cmath>

namespace thicket {

double t_quantile_975(uint64_t df) {
  // t_0.975 for df = 1..30, the standard table values.
  static constexpr double kTable[30] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                        2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                        2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df == 0) return 0;
  if (df <= 30) return kTable[df - 1];
  // t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4 with z the normal 0.975 quantile.
  const double z = 1.959963984540054, v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

SampleStats sample_stats(const std::vector<double>& values) {
  SampleStats s;
  s.n = values.size();
  if (values.empty()) return s;
  s.min = s.max = values.front();
  double mean = 0;
  uint64_t k = 0;
  for (double v : values) {
    mean += (v - mean) / static_cast<double>(++k);  // a running mean: a sum of 1e308s would be inf
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = mean;
  if (s.n < 2) return s;
  // About the mean (two passes, no cancellation of large sums), in units of the largest
  // magnitude, so that values near 1e308 give their spread and not inf (or a NaN interval).
  double scale = std::max(std::fabs(s.min), std::fabs(s.max));
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1;
  double squares = 0;
  for (double v : values) {
    const double d = v / scale - s.mean / scale;
    squares += d * d;
  }
  const double sd = std::sqrt(squares / static_cast<double>(s.n - 1)) * scale;
  s.half_width = t_quantile_975(s.n - 1) * (sd / std::sqrt(static_cast<double>(s.n)));
  return s;
}

}  // namespace thicket
