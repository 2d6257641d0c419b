// Summary statistics over independent repetitions (seeds, realisations):
// mean and standard error of the mean, s / sqrt(n) with the sample standard
// deviation s (n - 1 in the denominator). With one value the standard error
// is undefined and reported as NaN, never as 0.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

namespace potts {

struct MeanSe {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double se = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0;
};

inline MeanSe mean_se(const std::vector<double>& x) {
  MeanSe r;
  r.n = x.size();
  if (x.empty()) return r;
  double sum = 0.0;
  for (double v : x) sum += v;
  r.mean = sum / double(x.size());
  if (x.size() < 2) return r;
  double ss = 0.0;
  for (double v : x) ss += (v - r.mean) * (v - r.mean);
  r.se = std::sqrt(ss / double(x.size() - 1) / double(x.size()));
  return r;
}

}  // namespace potts
