// The inverse-size fit and its bootstrap on synthetic sizes whose answer is
// known: an exact c + a/D recovers (c, a); noisy realisations with c = 0
// give a c within its resampled interval, and a shifted truth (c = 0.15)
// is found outside it.
#include "lib/gaussian/finite_size.h"

#include <cmath>

#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts::gaussian {
namespace {

TEST(FitInverseSize, RecoversExactCoefficients) {
  const std::vector<double> D = {50, 100, 200, 400};
  std::vector<double> y, se(4, 0.01);
  for (double d : D) y.push_back(0.02 + 3.0 / d - 40.0 / (d * d));
  const auto f2 = fit_inverse_size(D, y, se, 2);
  EXPECT_NEAR(f2.c, 0.02, 1e-10);
  EXPECT_NEAR(f2.a, 3.0, 1e-8);
  EXPECT_NEAR(f2.b, -40.0, 1e-6);
  EXPECT_NEAR(f2.chi2, 0.0, 1e-12);
  EXPECT_EQ(f2.dof, 1);
  // A first-order fit of second-order data leaves a residual.
  EXPECT_GT(fit_inverse_size(D, y, se, 1).chi2, 0.0);
}

TEST(FitInverseSize, RejectsTooFewSizesAndBadErrors) {
  EXPECT_THROW(fit_inverse_size({100, 200}, {0, 0}, {1, 1}, 2), StageError);
  EXPECT_THROW(fit_inverse_size({100, 200, 400}, {0, 0, 0}, {1, 0, 1}, 1), StageError);
  EXPECT_THROW(fit_inverse_size({100, 200, 400}, {0, 0}, {1, 1, 1}, 1), StageError);
}

// Realisations with mean theory·(1 + c + a/D) and relative noise 0.3.
std::vector<SizeSample> synthetic(double c, double a, std::uint64_t seed) {
  Rng rng(seed, 7);
  std::vector<SizeSample> out;
  for (double D : {50.0, 100.0, 200.0, 400.0}) {
    SizeSample s{D, 2.0, {}};
    for (int r = 0; r < 400; ++r) s.values.push_back(2.0 * (1 + c + a / D) * (1 + 0.3 * rng.normal()));
    out.push_back(s);
  }
  return out;
}

TEST(Extrapolate, NoOffsetIsCompatibleWithZeroAndAnOffsetIsFound) {
  // s.e. of a mean: 0.3 / sqrt(400) = 1.5 % per size; c's s.e. follows from
  // the fit (about 2-4 %): a 15 % offset is several s.e., and the interval of a
  // zero offset contains 0 in 95 % of data sets (this one is fixed by seed).
  const auto zero = extrapolate(synthetic(0.0, 5.0, 1), 1, 400, 11);
  EXPECT_LT(zero.c_lo, 0.0);
  EXPECT_GT(zero.c_hi, 0.0);
  EXPECT_GT(zero.c_se, 0.005);
  EXPECT_LT(zero.c_se, 0.05);
  const auto shifted = extrapolate(synthetic(0.15, 5.0, 1), 1, 400, 11);
  EXPECT_GT(shifted.c_lo, 0.0);
  // Same data and seed: the same bytes.
  const auto again = extrapolate(synthetic(0.0, 5.0, 1), 1, 400, 11);
  EXPECT_EQ(again.c_se, zero.c_se);
  EXPECT_EQ(again.c_lo, zero.c_lo);
}

}  // namespace
}  // namespace potts::gaussian
