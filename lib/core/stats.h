// Summary statistics over independent repetitions (seeds, realisations):
// mean and standard error of the mean, s / sqrt(n) with the sample standard
// deviation s (n - 1 in the denominator). With one value the standard error
// is undefined and reported as NaN, never as 0. And the position of a
// curve's peak. Tested by //lib/core:stats_test.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
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

// The index of the largest value (the first one if several are equal): the
// peak of a loss curve over its grid (figures 3 left and right).
inline std::size_t argmax(const std::vector<double>& x) {
  if (x.empty()) throw std::invalid_argument("argmax of an empty curve");
  return std::size_t(std::max_element(x.begin(), x.end()) - x.begin());
}

// The index of the smallest value (the first one if several are equal): the
// restart with the lowest training loss.
inline std::size_t argmin(const std::vector<double>& x) {
  if (x.empty()) throw std::invalid_argument("argmin of an empty list");
  return std::size_t(std::min_element(x.begin(), x.end()) - x.begin());
}

}  // namespace potts
