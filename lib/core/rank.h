// Order statistics of a sample: its median, and Spearman's rank correlation
// of paired values: Pearson's correlation of
// their ranks, tied values sharing the mean of their ranks, with the
// two-sided p-value of the usual t approximation,
//   t = rho sqrt((n - 2) / (1 - rho^2)),  t ~ Student t with n - 2 d.o.f.,
// adequate for n >= 10 without ties of note. Descriptive (the panel's
// table); no verdict rests on it. Tested by //lib/core:rank_test.
#pragma once
#include <vector>

namespace potts {

// The median of x: its middle value, or the mean of the two middle values
// for an even count (StageError when x is empty).
double median(std::vector<double> x);

// Ranks 1..n of x, ties given the mean of the ranks they span.
std::vector<double> ranks(const std::vector<double>& x);

struct RankCorrelation {
  double rho = 0.0;
  double p_two_sided = 1.0;
  std::size_t n = 0;
};

// x and y of one length n >= 3, neither constant (else an error).
RankCorrelation spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace potts
