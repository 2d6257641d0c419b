#include "lib/gaussian/finite_size.h"

#include <algorithm>
#include <cmath>

#include <armadillo>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/core/stats.h"

namespace potts::gaussian {

InverseSizeFit fit_inverse_size(const std::vector<double>& D, const std::vector<double>& y,
                                const std::vector<double>& se, int order) {
  if (order != 1 && order != 2) throw StageError("fit_inverse_size: order must be 1 or 2");
  const std::size_t k = D.size(), p = std::size_t(order) + 1;
  if (y.size() != k || se.size() != k) throw StageError("fit_inverse_size: D, y and se differ in length");
  if (k < p)
    throw StageError("fit_inverse_size: " + std::to_string(k) + " sizes cannot fit " + std::to_string(p) +
                     " coefficients");
  arma::mat A(k, p);
  arma::vec b(k);
  for (std::size_t i = 0; i < k; ++i) {
    if (!(D[i] > 0) || !(se[i] > 0) || !std::isfinite(y[i]))
      throw StageError("fit_inverse_size: size " + std::to_string(i) + " needs D > 0, se > 0 and a finite value");
    const double w = 1.0 / se[i];
    for (std::size_t j = 0; j < p; ++j) A(i, j) = w * std::pow(1.0 / D[i], double(j));
    b(i) = w * y[i];
  }
  arma::vec coef;
  if (!arma::solve(coef, A, b, arma::solve_opts::no_approx)) throw StageError("fit_inverse_size: singular fit");
  InverseSizeFit f;
  f.c = coef(0);
  f.a = coef(1);
  f.b = order == 2 ? coef(2) : 0.0;
  const arma::vec r = A * coef - b;
  for (arma::uword i = 0; i < r.n_elem; ++i) f.chi2 += r(i) * r(i);
  f.dof = int(k) - int(p);
  return f;
}

namespace {

// Relative deviation of each size's mean from its theory, and its s.e.
void deviations(const std::vector<SizeSample>& sizes, const std::vector<std::vector<double>>& values,
                std::vector<double>& dev, std::vector<double>& se) {
  dev.resize(sizes.size());
  se.resize(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const MeanSe m = mean_se(values[i]);
    dev[i] = (m.mean - sizes[i].theory) / sizes[i].theory;
    se[i] = m.se / std::abs(sizes[i].theory);
  }
}

}  // namespace

ExtrapolationResult extrapolate(const std::vector<SizeSample>& sizes, int order, int resamples, std::uint64_t seed) {
  if (resamples < 100) throw StageError("extrapolate: at least 100 resamples");
  std::vector<double> D;
  std::vector<std::vector<double>> values;
  for (const auto& s : sizes) {
    if (s.values.size() < 2) throw StageError("extrapolate: every size needs 2 or more realisations");
    if (!(s.theory != 0) || !std::isfinite(s.theory)) throw StageError("extrapolate: theory must be finite, not 0");
    D.push_back(s.D);
    values.push_back(s.values);
  }
  ExtrapolationResult out;
  deviations(sizes, values, out.deviation, out.deviation_se);
  out.fit = fit_inverse_size(D, out.deviation, out.deviation_se, order);

  Rng rng(seed, streams::kBootstrap);
  std::vector<double> cs;
  std::vector<std::vector<double>> draw(values.size());
  std::vector<double> dev, se;
  for (int b = 0; b < resamples; ++b) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto n = values[i].size();
      draw[i].resize(n);
      for (std::size_t j = 0; j < n; ++j) draw[i][j] = values[i][rng.below(n)];
    }
    deviations(sizes, draw, dev, se);
    cs.push_back(fit_inverse_size(D, dev, se, order).c);
  }
  out.c_se = mean_se(cs).se * std::sqrt(double(cs.size()));  // the standard deviation
  std::sort(cs.begin(), cs.end());
  out.c_lo = cs[std::size_t(0.025 * (cs.size() - 1))];
  out.c_hi = cs[std::size_t(0.975 * (cs.size() - 1))];
  return out;
}

}  // namespace potts::gaussian
