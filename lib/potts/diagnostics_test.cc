// Tests of lib/potts/diagnostics.h: exact counts on small tables, the
// autocorrelation time of AR(1) series against its closed form, and the
// verdict on a trapped and a freely mixing Potts chain.
#include "lib/potts/diagnostics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/rng.h"

namespace potts {
namespace {

TEST(Diagnostics, DistinctRowsAndOverlap) {
  const arma::imat train = {{0, 1, 2}, {0, 1, 2}, {2, 1, 0}, {1, 1, 1}};
  const arma::imat test = {{0, 1, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}};
  EXPECT_EQ(distinct_rows(train), 3u);
  EXPECT_EQ(distinct_rows(test), 4u);
  EXPECT_DOUBLE_EQ(share_of_rows_in(test, train), 0.5);
  EXPECT_DOUBLE_EQ(share_of_rows_in(train, test), 0.75);
}

std::vector<double> ar1(double phi, std::size_t n, std::uint64_t seed) {
  Rng rng(seed, 1);
  std::vector<double> x(n);
  double v = 0.0;
  for (std::size_t i = 0; i < n; ++i) x[i] = v = phi * v + rng.normal();
  return x;
}

// AR(1): tau = (1 + phi) / (2 (1 - phi)). With N values and a window W ~ 6 tau
// the estimate's standard deviation is about tau sqrt(2 (2W + 1) / N)
// (Sokal 1997): 0.10 for phi = 0.8 (tau = 4.5, N = 2e5), 0.003 for white noise.
// Tolerances are 4 of those; the truncation bias phi^(W+1) / (1 - phi) is 0.01.
TEST(Diagnostics, AutocorrelationTimeOfAr1MatchesTheClosedForm) {
  bool lb = true;
  EXPECT_NEAR(integrated_autocorrelation_time(ar1(0.8, 200000, 7), 4000, 6.0, &lb), 4.5, 0.4);
  EXPECT_FALSE(lb);
  EXPECT_NEAR(integrated_autocorrelation_time(ar1(0.0, 200000, 8), 4000, 6.0, &lb), 0.5, 0.02);
  EXPECT_FALSE(lb);
}

TEST(Diagnostics, AutocorrelationTimeBeyondTheWindowIsALowerBound) {
  bool lb = false;
  // tau = 999.5 cannot be seen through a window of 100 steps.
  const double tau = integrated_autocorrelation_time(ar1(0.999, 20000, 9), 100, 6.0, &lb);
  EXPECT_TRUE(lb);
  EXPECT_GT(tau, 16.0);  // ... but it is at least 100 / 6
}

// Ferromagnetic identity-U model at low temperature: each chain freezes into
// one colour basin (few distinct sequences, test set inside the training set).
// At beta = 0 every sequence is uniform: distinct, no overlap, chains agree.
TEST(Diagnostics, TrappedChainIsFlaggedAndFreeChainIsNot) {
  const arma::uword L = 8, C = 4;
  PottsModel m;
  m.couplings_J = arma::mat(L, L, arma::fill::ones);
  m.couplings_J.diag().zeros();
  m.colour_similarity_U = arma::eye(C, C);
  ChainProtocol p;
  p.burn_in_sweeps = 50;
  p.sweeps_between = 2;
  DiagnosticSettings s;
  s.samples_per_chain = 100;
  s.autocorrelation_sweeps = 2000;
  auto sample = [&](double beta, arma::imat* train, arma::imat* test) {
    m.beta = beta;
    p.n_saved = 400;
    split_interleaved(run_chain(m, p, 3), 300, 100, 4, train, test);
  };
  arma::imat train, test;
  sample(3.0, &train, &test);
  const DataDiagnostics cold = diagnose_data(m, p, train, test, s, 3);
  EXPECT_GT(cold.test_in_train, 0.5);
  EXPECT_LT(cold.distinct_train, 100u);
  EXPECT_FALSE(cold.warnings.empty());
  EXPECT_TRUE(cold.json()["degenerate"].get<bool>());

  sample(0.0, &train, &test);
  const DataDiagnostics hot = diagnose_data(m, p, train, test, s, 3);
  // 4^8 = 65536 sequences: a repeat among 400 uniform draws has probability ~1.
  EXPECT_GE(hot.distinct_train, 295u);
  EXPECT_LT(hot.test_in_train, 0.05);
  // Each chain's mean distance is 0.75 with s.d. ~0.003 (100 samples).
  EXPECT_LT(hot.chain_spread, 0.03);
  EXPECT_NEAR(hot.tau_energy_sweeps, 0.5, 0.2);
  EXPECT_TRUE(hot.warnings.empty()) << hot.json().dump();
}

}  // namespace
}  // namespace potts
