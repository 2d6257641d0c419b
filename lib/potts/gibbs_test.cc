// Tests of the Gibbs sampler (lib/potts/gibbs.h) against exact enumeration.
#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lib/core/io.h"
#include "lib/core/isa.h"
#include "lib/potts/gibbs.h"
#include "lib/potts/model.h"

namespace potts {
namespace {

// A model of the tests below: its colour kind and inverse temperature.
struct Case {
  ColourKind kind;
  double beta;
};

// All C^L sequences of a small model, index = sum_i s_i C^i.
std::vector<arma::irowvec> all_states(arma::uword L, arma::uword C) {
  std::vector<arma::irowvec> out;
  arma::uword n = 1;
  for (arma::uword i = 0; i < L; ++i) n *= C;
  for (arma::uword k = 0; k < n; ++k) {
    arma::irowvec s(L);
    arma::uword r = k;
    for (arma::uword i = 0; i < L; ++i, r /= C) s(i) = r % C;
    out.push_back(s);
  }
  return out;
}

arma::uword index_of(const arma::irowvec& s, arma::uword C) {
  arma::uword k = 0, p = 1;
  for (arma::uword i = 0; i < s.n_elem; ++i, p *= C) k += s(i) * p;
  return k;
}

// Exact Boltzmann probabilities exp(-beta H) / Z (eq. 1).
arma::vec boltzmann(const PottsModel& m, const std::vector<arma::irowvec>& states) {
  arma::vec w(states.size());
  for (std::size_t k = 0; k < states.size(); ++k) w(k) = -m.beta * energy(m, states[k]);
  w = arma::exp(w - w.max());
  return w / arma::accu(w);
}

// Pearson chi-square statistic, bins with expected count < 5 pooled.
double chi_square(const arma::vec& counts, const arma::vec& p, double n, int* dof) {
  double stat = 0, pooled_obs = 0, pooled_exp = 0;
  int bins = 0;
  for (arma::uword k = 0; k < p.n_elem; ++k) {
    const double e = n * p(k);
    if (e < 5) {
      pooled_obs += counts(k);
      pooled_exp += e;
      continue;
    }
    stat += (counts(k) - e) * (counts(k) - e) / e;
    ++bins;
  }
  if (pooled_exp > 0) {
    stat += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / pooled_exp;
    ++bins;
  }
  *dof = bins - 1;
  return stat;
}

// Eq. 5 equals the ratio of exact probabilities, for every state and site
// of the enumerable model, both from model.h and from the sampler's
// incrementally maintained fields.
TEST(Gibbs, ConditionalEqualsRatioOfExactProbabilities) {
  for (auto kind : {ColourKind::kGaussian, ColourKind::kIdentity}) {
    PottsModel m = make_potts_model(4, 3, kind, 0.9, 21);
    auto states = all_states(4, 3);
    arma::vec P = boltzmann(m, states);
    GibbsSampler g(m, 1, 3);
    double worst = 0, worst_sampler = 0;
    for (const auto& s : states) {
      g.set_sequence(s);
      arma::mat F = g.fields();
      for (arma::uword i = 0; i < 4; ++i) {
        arma::vec exact(3);
        for (int a = 0; a < 3; ++a) {
          arma::irowvec t = s;
          t(i) = a;
          exact(a) = P(index_of(t, 3));
        }
        exact /= arma::accu(exact);
        worst = std::max(worst, arma::abs(conditional(m, s, i) - exact).max());
        arma::vec f = F.row(i).t();
        arma::vec q = arma::exp(f - f.max());
        q /= arma::accu(q);
        worst_sampler = std::max(worst_sampler, arma::abs(q - exact).max());
      }
    }
    EXPECT_LT(worst, 1e-12) << to_string(kind);
    EXPECT_LT(worst_sampler, 1e-12) << to_string(kind);
  }
}

// The sampler's histogram against the exact Boltzmann distribution (81
// states). N = 100 000 configurations 10 sweeps apart (the integrated
// autocorrelation at these temperatures is below one sweep, so they are
// effectively independent). Threshold: reject when p < 1e-4 (the test is
// deterministic: fixed seed). Power check: the same histogram must be
// rejected against the distribution at 1.15 beta.
TEST(Gibbs, HistogramMatchesBoltzmannDistribution) {
  for (Case c : {Case{ColourKind::kGaussian, 0.8}, Case{ColourKind::kIdentity, 1.2}, Case{ColourKind::kGram, 1.5}}) {
    PottsModel m = make_potts_model(4, 3, c.kind, c.beta, 4);
    auto states = all_states(4, 3);
    arma::vec P = boltzmann(m, states);
    GibbsSampler g(m, 7, 3);
    g.sweeps(100);
    const int N = 100000;
    arma::vec counts(states.size(), arma::fill::zeros);
    for (int n = 0; n < N; ++n) {
      g.sweeps(10);
      counts(index_of(g.sequence(), 3)) += 1;
    }
    int dof = 0;
    const double stat = chi_square(counts, P, N, &dof);
    const double pval = boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), stat));
    EXPECT_GT(pval, 1e-4) << to_string(c.kind) << ": chi2 = " << stat << " with " << dof << " dof";
    PottsModel hotter = m;
    hotter.beta = 1.15 * c.beta;
    const double stat_wrong = chi_square(counts, boltzmann(hotter, states), N, &dof);
    const double p_wrong = boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), stat_wrong));
    EXPECT_LT(p_wrong, 1e-4) << to_string(c.kind) << ": the test has no power";
  }
}

// A single update draws from the exact conditional (eq. 5) at the paper's
// size L = C = 20 (and C = 18, padded to 20), where the kernels specialised
// for 5 vectors of 4 colours run: the state
// is reset before every draw, so the N draws are i.i.d. from
// p(s_i = . | s_\i); Pearson chi-square against conditional() (p < 1e-4
// rejects; deterministic: fixed seed). Dense U within and beyond the bound
// that skips the overflow checks, and the diagonal path; at every level
// (tools/isa.bzl).
TEST(Gibbs, SingleUpdateDrawsFromTheConditionalAtPaperSize) {
  struct SizedCase {
    ColourKind kind;
    double beta;
    arma::uword C;
  };
  for (SizedCase c : {SizedCase{ColourKind::kGaussian, 0.85, 20}, SizedCase{ColourKind::kGaussian, 0.12, 20},
                      SizedCase{ColourKind::kGaussian, 40.0, 20}, SizedCase{ColourKind::kGaussian, 0.85, 18},
                      SizedCase{ColourKind::kIdentity, 1.0, 20}}) {
    {
      PottsModel m = make_potts_model(20, c.C, c.kind, c.beta, 5);
      GibbsSampler g(m, 11, 3);
      g.sweeps(50);
      const arma::irowvec s = g.sequence();
      const arma::uword i = 7;
      arma::vec p = conditional(m, s, i);
      const int N = 60000;
      arma::vec counts(c.C, arma::fill::zeros);
      for (int n = 0; n < N; ++n) {
        g.set_sequence(s);
        g.update(i);
        counts(g.sequence()(i)) += 1;
      }
      int dof = 0;
      const double stat = chi_square(counts, p, N, &dof);
      const double pval =
          dof > 0 ? boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), stat)) : 1.0;
      EXPECT_GT(pval, 1e-4) << to_string(c.kind) << " C " << c.C << " beta " << c.beta << " at "
                            << isa_name(isa_level()) << ": chi2 = " << stat << " with " << dof << " dof";
      // Power: the distribution at 1.3 beta is rejected when the
      // conditional is spread out enough to tell.
      if (p.max() < 0.9) {
        PottsModel hotter = m;
        hotter.beta = 1.3 * c.beta;
        const double stat_wrong = chi_square(counts, conditional(hotter, s, i), N, &dof);
        EXPECT_LT(boost::math::cdf(boost::math::complement(boost::math::chi_squared(dof), stat_wrong)), 1e-4)
            << to_string(c.kind) << " beta " << c.beta << ": the test has no power";
      }
    }
  }
}

// The incremental fields equal fields recomputed from scratch (eq. 5's
// sum) after many updates, with the periodic refresh switched off.
// Tolerance 1e-12: rounding of ~1e4 increments of size ~1 accumulates to
// ~1e-14..1e-13.
TEST(Gibbs, IncrementalFieldsEqualRecomputedFields) {
  for (Case c : {Case{ColourKind::kGaussian, 0.7}, Case{ColourKind::kIdentity, 5.0}, Case{ColourKind::kGram, 2.0}}) {
    PottsModel m = make_potts_model(20, 20, c.kind, c.beta, 3);
    GibbsSampler g(m, 2, 3);
    g.set_refresh_sweeps(0);
    g.sweeps(5000);
    ASSERT_GT(g.changes(), 10000u) << "too few changes to test anything";
    arma::irowvec s = g.sequence();
    arma::mat F = g.fields();
    double worst = 0;
    for (arma::uword i = 0; i < 20; ++i) worst = std::max(worst, arma::abs(F.row(i).t() - local_fields(m, s, i)).max());
    EXPECT_LT(worst, 1e-12) << to_string(c.kind);
    EXPECT_GT(worst, 0.0) << "fields identical to the bit: was anything updated incrementally?";
  }
}

TEST(Gibbs, SameSeedAndStreamSameChain) {
  PottsModel m = make_potts_model(12, 7, ColourKind::kGaussian, 0.6, 1);
  GibbsSampler a(m, 5, 3), b(m, 5, 3), c(m, 5, 4);
  a.sweeps(333);
  b.sweeps(100);
  b.sweeps(233);  // chunking does not matter
  c.sweeps(333);
  EXPECT_TRUE(arma::all(a.sequence() == b.sequence()));
  EXPECT_EQ(a.changes(), b.changes());
  EXPECT_FALSE(arma::all(a.sequence() == c.sequence()));
  // Single-site updates are the same as sweeps.
  GibbsSampler d(m, 5, 3), e(m, 5, 3);
  d.sweeps(3);
  for (int r = 0; r < 3; ++r)
    for (arma::uword i = 0; i < 12; ++i) e.update(i);
  EXPECT_TRUE(arma::all(d.sequence() == e.sequence()));
}

// Every level's kernel gives the recorded chain, bit for bit (both U paths):
// a SHA-256 over the states after every 150 sweeps and the final fields'
// bits. Run at every level by tools/isa.bzl; recorded from the three levels
// (AVX-512, AVX2, baseline), which agreed.
TEST(Gibbs, EveryLevelGivesTheRecordedChain) {
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level";
  const char* recorded[] = {"b0895b13b4b15d3bc52fbeebba74de72e549c0096487cb3c4c0ad997abf79d99",
                            "c91eae741f0f4ae915a5e43f2f04148b35f0f70726d3d7da7a44a1bd07b82b68"};
  int n = 0;
  for (auto kind : {ColourKind::kGaussian, ColourKind::kIdentity}) {
    PottsModel m = make_potts_model(20, 20, kind, kind == ColourKind::kIdentity ? 8.0 : 0.7, 3);
    GibbsSampler a(m, 9, 3);
    std::string bytes;
    for (int k = 0; k < 20; ++k) {
      a.sweeps(150);
      const arma::irowvec s = a.sequence();
      bytes.append(reinterpret_cast<const char*>(s.memptr()), s.n_elem * sizeof(arma::sword));
    }
    const arma::mat F = a.fields();
    bytes.append(reinterpret_cast<const char*>(F.memptr()), F.n_elem * sizeof(double));
    EXPECT_GT(a.changes(), 1000u);
    EXPECT_EQ(sha256_text(bytes), recorded[n++]) << to_string(kind) << " at " << isa_name(isa_level());
  }
}

}  // namespace
}  // namespace potts
