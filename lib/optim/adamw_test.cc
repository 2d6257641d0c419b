#include "lib/optim/adamw.h"

#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "lib/core/isa.h"

namespace potts {
namespace {

// Two steps written out: after step 1, m = 0.1 g, v = 0.001 g², and the
// bias-corrected ratio is g / (|g| + eps / ...), a step of about lr·sign(g);
// the decay multiplies x by 1 − lr λ first.
TEST(Adamw, TwoStepsByHand) {
  AdamwOptions o;
  o.lr = 0.01;
  o.weight_decay = 0.5;
  Adamw opt(2, o);
  arma::vec x = {1.0, -2.0};
  const arma::vec g1 = {0.5, -4.0}, g2 = {1.0, 2.0};
  opt.step(x, g1);
  std::vector<double> m(2), v(2), want(2);
  for (int k = 0; k < 2; ++k) {
    m[k] = 0.1 * g1(k);
    v[k] = 0.001 * g1(k) * g1(k);
    const double x0 = k == 0 ? 1.0 : -2.0;
    want[k] = x0 * (1.0 - 0.005) - (0.01 / 0.1) * m[k] / (std::sqrt(v[k]) / std::sqrt(0.001) + 1e-8);
    EXPECT_NEAR(x(k), want[k], 1e-15);
  }
  opt.step(x, g2);
  for (int k = 0; k < 2; ++k) {
    m[k] = 0.9 * m[k] + 0.1 * g2(k);
    v[k] = 0.999 * v[k] + 0.001 * g2(k) * g2(k);
    const double bc1 = 1.0 - 0.81, bc2 = 1.0 - 0.999 * 0.999;
    want[k] = want[k] * (1.0 - 0.005) - (0.01 / bc1) * m[k] / (std::sqrt(v[k]) / std::sqrt(bc2) + 1e-8);
    EXPECT_NEAR(x(k), want[k], 1e-14);
  }
  EXPECT_EQ(opt.steps(), 2);
  arma::vec wrong(3);
  EXPECT_THROW(opt.step(wrong, g1), std::invalid_argument);
}

// The update runs in vector lanes of whatever width the CPU has, then a
// scalar tail: every element must get the bits of the scalar formula in
// PyTorch's order, wherever it sits. 37 elements cover a 512-bit body, a
// 256-bit remainder and scalar ones; the same (x, g) at every position must
// give one result.
TEST(Adamw, EveryPositionTheScalarBits) {
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level";
  AdamwOptions o;
  o.lr = 0.005;
  o.weight_decay = 0.01;
  const arma::uword n = 37;
  Adamw opt(n, o), same(n, o);
  arma::vec x(n), y(n, arma::fill::value(0.3)), m(n, arma::fill::zeros), v(n, arma::fill::zeros);
  for (arma::uword k = 0; k < n; ++k) x(k) = std::sin(1.0 + double(k));
  arma::vec want = x;
  for (int t = 1; t <= 3; ++t) {
    arma::vec g(n);
    for (arma::uword k = 0; k < n; ++k) g(k) = std::cos(double(t * 7 + k)) * std::pow(10.0, double(k % 5) - 3.0);
    opt.step(x, g);
    same.step(y, arma::vec(n, arma::fill::value(g(0))));
    const double bc1 = 1.0 - std::pow(0.9, t), bc2 = 1.0 - std::pow(0.999, t);
    for (arma::uword k = 0; k < n; ++k) {
      double xk = want(k) * (1.0 - o.lr * o.weight_decay);
      m(k) = m(k) * 0.9 + g(k) * (1.0 - 0.9);
      v(k) = v(k) * 0.999 + (1.0 - 0.999) * g(k) * g(k);
      const double denom = std::sqrt(v(k)) / std::sqrt(bc2) + o.eps;
      want(k) = xk + (-(o.lr / bc1)) * (m(k) / denom);
    }
  }
  for (arma::uword k = 0; k < n; ++k) {
    EXPECT_EQ(x(k), want(k)) << "element " << k;
    EXPECT_EQ(y(k), y(0)) << "element " << k;
  }
}

TEST(BatchStream, EachEpochAPermutationCutInOrder) {
  BatchStream s(10, 4, 7);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    std::vector<arma::uword> seen;
    for (arma::uword size : {4u, 4u, 2u}) {
      const arma::uvec b = s.next();
      ASSERT_EQ(b.n_elem, size);
      seen.insert(seen.end(), b.begin(), b.end());
      EXPECT_EQ(s.epoch(), epoch);
    }
    EXPECT_EQ(std::set<arma::uword>(seen.begin(), seen.end()).size(), 10u);
  }
}

TEST(BatchStream, SeededAndEpochsDiffer) {
  BatchStream a(50, 50, 3), b(50, 50, 3), c(50, 50, 4);
  const arma::uvec a1 = a.next(), b1 = b.next(), c1 = c.next(), a2 = a.next();
  EXPECT_TRUE(arma::all(a1 == b1));
  EXPECT_FALSE(arma::all(a1 == c1));
  EXPECT_FALSE(arma::all(a1 == a2));
}

}  // namespace
}  // namespace potts
