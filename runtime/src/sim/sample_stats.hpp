// Summary statistics of a small sample (the runs of one parameter set, issue 15): mean, min,
// max and the 95% confidence interval of the mean from Student's t distribution.
#pragma once
#include <cstdint>
#include <vector>

namespace thicket {

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (t_0.975,df): a table of
// the standard values for df 1..30 (to 4 decimals), beyond that the Cornish-Fisher expansion
// about the normal quantile (Abramowitz & Stegun 26.7.5, four terms), within 1e-4 of the exact
// value for df > 30. df 0 has none: returns 0.
double t_quantile_975(uint64_t df);

struct SampleStats {
  uint64_t n = 0;
  double mean = 0, min = 0, max = 0;
  double half_width = 0;  // of the 95% interval of the mean: t_0.975,n-1 * s / sqrt(n); 0 for n < 2
};

// Over the values in order (the same bytes whatever the threads: the order is the runs').
SampleStats sample_stats(const std::vector<double>& values);

}  // namespace thicket
