#include "lib/potts/strength.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"

namespace potts {
namespace {

arma::mat symmetric_J() {
  arma::mat J = {{0, 1.0, -2.0, 0.5}, {1.0, 0, 0.1, -1.5}, {-2.0, 0.1, 0, 0.3}, {0.5, -1.5, 0.3, 0}};
  return J;
}

TEST(StrengthCorrelation, SignAndScaleOfTheMapDoNotMatter) {
  const arma::mat J = symmetric_J();
  EXPECT_NEAR(strength_correlation(J, J), 1.0, 1e-12);
  EXPECT_NEAR(strength_correlation(J, -3.0 * J), 1.0, 1e-12);            // the gauge A -> -A
  EXPECT_NEAR(strength_correlation(J, arma::abs(J) + 0.2), 1.0, 1e-12);  // a positive map
}

TEST(StrengthCorrelation, ASoftmaxLikeMapThatIgnoresJScoresNearZeroOrBelow) {
  const arma::mat J = symmetric_J();
  // Strong where |J| is weak: anti-correlated.
  arma::mat M = 1.0 / (arma::abs(J) + 0.1);
  EXPECT_LT(strength_correlation(J, M), -0.5);
  // The map is symmetrised: an asymmetric map scores like its mean.
  arma::mat A = arma::abs(J);
  A(0, 1) = 0.4, A(1, 0) = 1.6;  // mean 1.0 = |J_01|
  EXPECT_NEAR(strength_correlation(J, A), 1.0, 1e-12);
}

TEST(StrengthCorrelation, Errors) {
  const arma::mat J = symmetric_J();
  EXPECT_THROW(strength_correlation(J, arma::mat(3, 3, arma::fill::ones)), StageError);
  EXPECT_THROW(strength_correlation(J, arma::mat(4, 4, arma::fill::ones)), StageError);  // constant map
  EXPECT_THROW(strength_correlation(arma::mat(2, 2, arma::fill::zeros), arma::mat(2, 2)), StageError);
}

}  // namespace
}  // namespace potts
