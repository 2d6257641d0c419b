#include "lib/core/rank.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

#include "lib/core/error.h"

namespace potts {

double median(std::vector<double> x) {
  if (x.empty()) throw StageError("the median of no values");
  const std::size_t n = x.size(), h = n / 2;
  std::nth_element(x.begin(), x.begin() + h, x.end());
  const double upper = x[h];
  if (n % 2 == 1) return upper;
  return 0.5 * (*std::max_element(x.begin(), x.begin() + h) + upper);
}

std::vector<double> ranks(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (std::size_t a = 0; a < order.size();) {
    std::size_t b = a;
    while (b < order.size() && x[order[b]] == x[order[a]]) ++b;
    const double mean_rank = 0.5 * double(a + 1 + b);  // ranks a+1 .. b
    for (std::size_t k = a; k < b; ++k) r[order[k]] = mean_rank;
    a = b;
  }
  return r;
}

RankCorrelation spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 3)
    throw std::invalid_argument("spearman: expected two series of one length n >= 3");
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = double(x.size()), mean = 0.5 * (n + 1.0);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0.0 || syy == 0.0) throw std::invalid_argument("spearman: a constant series has no rank correlation");
  RankCorrelation c;
  c.n = x.size();
  c.rho = sxy / std::sqrt(sxx * syy);
  if (std::fabs(c.rho) >= 1.0) {
    c.p_two_sided = 0.0;
    return c;
  }
  const double dof = n - 2.0, t = c.rho * std::sqrt(dof / (1.0 - c.rho * c.rho));
  c.p_two_sided = 2.0 * boost::math::cdf(boost::math::complement(boost::math::students_t(dof), std::fabs(t)));
  return c;
}

}  // namespace potts
