// The noise-averaged loss (noise_average.h): for one design it equals the
// mean over label draws; over designs it has the exact finite-D mean with a
// smaller standard error than simulated labels.
#include "lib/gaussian/noise_average.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lib/core/rng.h"
#include "lib/core/stats.h"
#include "lib/gaussian/test_model.h"

namespace potts::gaussian {
namespace {

constexpr arma::uword kL = 31, kD = kL - 1, kMasked = 7;

// For one fixed design, 20000 label draws: their mean ε, m and q agree with
// the exact noise average within 4 standard errors, at n > D and n < D, with
// and without a ridge.
TEST(NoiseAverage, EqualsTheMeanOverLabelDrawsForOneDesign) {
  const test_support::TestModel s = test_support::test_model(kL, kMasked, 3);
  for (arma::uword n : {20u, 45u})
    for (double lambda : {0.0, 0.5}) {
      Rng rng(9, streams::kGaussianData + n);
      const arma::mat X = sample_gaussian(s.factor_C, n, rng).rows(s.rest).t();
      const Overlaps exact = noise_averaged_loss(s.teacher, X, lambda);
      std::vector<double> eps, m, q;
      const double sigma = std::sqrt(s.teacher.noise_sigma2);
      for (int r = 0; r < 20000; ++r) {
        arma::vec y = X * s.teacher.teacher_w;
        for (arma::uword i = 0; i < n; ++i) y(i) += sigma * rng.normal();
        const Overlaps o = generalisation_loss(s.teacher, ridge(X, y, lambda));
        eps.push_back(o.eps_g), m.push_back(o.m), q.push_back(o.q);
      }
      const MeanSe e = mean_se(eps), mm = mean_se(m), qq = mean_se(q);
      EXPECT_NEAR(e.mean, exact.eps_g, 4 * e.se) << "n = " << n << ", lambda = " << lambda;
      EXPECT_NEAR(mm.mean, exact.m, 4 * mm.se) << "n = " << n << ", lambda = " << lambda;
      EXPECT_NEAR(qq.mean, exact.q, 4 * qq.se) << "n = " << n << ", lambda = " << lambda;
    }
}

// Over 3000 designs at λ = 0, n = 45 (n − D − 1 = 14): the noise-averaged
// estimator has the exact mean σ²(1 + D/(n − D − 1)) within 4 standard
// errors, and a smaller standard error than simulating one label draw per
// design (the label noise's share of the variance is gone).
TEST(NoiseAverage, UnbiasedWithLessVarianceOverDesigns) {
  const test_support::TestModel s = test_support::test_model(kL, kMasked, 3);
  const arma::uword n = 45;
  Rng rng(13, streams::kGaussianData);
  std::vector<double> averaged, simulated;
  const double sigma = std::sqrt(s.teacher.noise_sigma2);
  for (int r = 0; r < 3000; ++r) {
    const arma::mat X = sample_gaussian(s.factor_C, n, rng).rows(s.rest).t();
    averaged.push_back(noise_averaged_loss(s.teacher, X, 0.0).eps_g);
    arma::vec y = X * s.teacher.teacher_w;
    for (arma::uword i = 0; i < n; ++i) y(i) += sigma * rng.normal();
    simulated.push_back(generalisation_loss(s.teacher, ridge(X, y, 0.0)).eps_g);
  }
  const double exact = s.teacher.noise_sigma2 * (1 + double(kD) / double(n - kD - 1));
  const MeanSe a = mean_se(averaged), b = mean_se(simulated);
  std::printf("n = %u: noise-averaged %.5f +- %.5f, simulated labels %.5f +- %.5f, exact %.5f\n", unsigned(n), a.mean,
              a.se, b.mean, b.se, exact);
  EXPECT_NEAR(a.mean, exact, 4 * a.se);
  EXPECT_LT(a.se, b.se);
}

}  // namespace
}  // namespace potts::gaussian
