// Coupling models fitted by weighted pseudo-likelihood
// (lib/couplings/coupling_models.h): every form's gradient against finite
// differences, the forms that exist elsewhere against their existing
// objectives, weights against repeated sequences, and the fit.
#include "lib/couplings/coupling_fits.h"
#include "lib/couplings/coupling_models.h"

#include <gtest/gtest.h>

#include "lib/core/isa.h"
#include "lib/core/parallel.h"

#include <algorithm>
#include <cmath>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "tests/util/test_util.h"
#include "lib/factored/factored_fit.h"
#include "lib/plm/pseudo_likelihood.h"
#include "lib/nn/mlm_model.h"

namespace potts {
namespace {

arma::imat random_sequences(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  return testing_util::random_states(M, L, C, seed, 77);
}

arma::vec random_weights(arma::uword M, std::uint64_t seed) {
  Rng rng(seed, 78);
  arma::vec w(M);
  for (auto& v : w) v = 0.2 + rng.uniform();
  return w;
}

arma::vec random_point(const CouplingSpec& s, std::uint64_t seed, double scale) {
  Rng rng(seed, 79);
  arma::vec x(s.parameter_count());
  for (auto& v : x) v = scale * rng.normal();
  return x;
}

// Relative error of the analytic gradient against central differences.
// Step 1e-5: truncation error ~1e-10 for these smooth objectives of O(1)
// values, rounding ~1e-16 / 1e-5 = 1e-11; the tolerance 1e-6 leaves orders
// of magnitude to spare while a wrong term (a missing factor, a transposed
// block) shows up at O(1).
double gradient_error(const CouplingSpec& s, const arma::vec& x, const arma::imat& seqs, const arma::vec& w,
                      const CouplingPenalty& pen) {
  arma::vec g;
  coupling_objective(s, x, seqs, w, pen, &g);
  arma::vec fd(x.n_elem);
  const double h = 1e-5;
  for (arma::uword k = 0; k < x.n_elem; ++k) {
    arma::vec y = x;
    y(k) = x(k) + h;
    const double fp = coupling_objective(s, y, seqs, w, pen, nullptr);
    y(k) = x(k) - h;
    const double fm = coupling_objective(s, y, seqs, w, pen, nullptr);
    fd(k) = (fp - fm) / (2 * h);
  }
  return arma::norm(fd - g) / arma::norm(g);
}

// A build pinned to a level this CPU lacks (tools/isa.bzl) skips.
#define SKIP_WITHOUT_THE_KERNELS_TARGET() \
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level"

CouplingSpec spec(CouplingForm form, arma::uword L, arma::uword C) {
  CouplingSpec s;
  s.form = form;
  s.L = L;
  s.C = C;
  return s;
}

const CouplingPenalty kPenalty{0.03, 0.05};

TEST(CouplingModels, FullFormGradient) {
  CouplingSpec s = spec(CouplingForm::kFull, 4, 3);
  s.fields = true;
  const arma::imat seqs = random_sequences(20, s.L, s.C, 1);
  EXPECT_LT(gradient_error(s, random_point(s, 2, 0.5), seqs, random_weights(20, 3), kPenalty), 1e-6);
}

TEST(CouplingModels, FactoredFormGradientWithHeadsFieldsAndSymmetry) {
  for (bool sym : {false, true})
    for (arma::uword rank : {0u, 2u}) {
      CouplingSpec s = spec(CouplingForm::kFactored, 5, 3);
      s.heads = 3;
      s.value_rank = rank;
      s.fields = true;
      s.symmetrise = sym;
      const arma::imat seqs = random_sequences(15, s.L, s.C, 4);
      EXPECT_LT(gradient_error(s, random_point(s, 5, 0.5), seqs, random_weights(15, 6), kPenalty), 1e-6)
          << s.describe();
    }
}

TEST(CouplingModels, SoftmaxFormGradient) {
  for (arma::uword rank : {0u, 2u}) {
    CouplingSpec s = spec(CouplingForm::kSoftmax, 5, 3);
    s.heads = 2;
    s.head_dim = 2;
    s.value_rank = rank;
    s.fields = true;
    s.symmetrise = true;
    const arma::imat seqs = random_sequences(15, s.L, s.C, 7);
    EXPECT_LT(gradient_error(s, random_point(s, 8, 0.7), seqs, random_weights(15, 9), kPenalty), 1e-6) << s.describe();
  }
}

// A penalty on the couplings W: the gradient of every form against finite
// differences, the penalty's value lambda_w ||W||^2 on top of the objective
// without it, and the heads path refused (it never forms W).
TEST(CouplingModels, CouplingsPenaltyGradientAndValue) {
  CouplingPenalty pen = kPenalty;
  pen.lambda_w = 0.07;
  for (CouplingForm form : {CouplingForm::kFull, CouplingForm::kFactored, CouplingForm::kSoftmax}) {
    CouplingSpec s = spec(form, 5, 3);
    s.fields = true;
    if (form != CouplingForm::kFull) s.heads = 2;
    if (form == CouplingForm::kSoftmax) s.head_dim = 2, s.symmetrise = true;
    const arma::imat seqs = random_sequences(15, s.L, s.C, 41);
    const arma::vec w = random_weights(15, 42), x = random_point(s, 43, 0.6);
    EXPECT_LT(gradient_error(s, x, seqs, w, pen), 1e-6) << s.describe();
    arma::mat W, h;
    couplings_of(s, x, W, h);
    const double with = coupling_objective(s, x, seqs, w, pen, nullptr);
    const double without = coupling_objective(s, x, seqs, w, kPenalty, nullptr, CouplingPath::kCouplings);
    EXPECT_NEAR(with - without, pen.lambda_w * arma::accu(W % W), 1e-12) << s.describe();
  }
  CouplingSpec s = spec(CouplingForm::kFactored, 4, 3);
  EXPECT_THROW(coupling_objective(s, random_point(s, 44, 0.5), random_sequences(5, 4, 3, 45), random_weights(5, 46),
                                  pen, nullptr, CouplingPath::kHeads),
               StageError);
}

// The heads path (no W) against the couplings path: the same objective and
// gradient to rounding for every factored form it serves (both forms,
// values full or of low rank, fields, weights, a zero weight), and its
// gradient against finite differences.
TEST(CouplingModels, HeadsPathIsTheCouplingsPath) {
  for (CouplingForm form : {CouplingForm::kFactored, CouplingForm::kSoftmax})
    for (arma::uword rank : {0u, 2u})
      for (arma::uword heads : {1u, 5u}) {
        CouplingSpec s = spec(form, 6, 4);
        s.heads = heads;
        s.head_dim = form == CouplingForm::kSoftmax ? 2 : 0;
        s.value_rank = rank;
        s.fields = true;
        const arma::imat seqs = random_sequences(25, s.L, s.C, 30);
        arma::vec w = random_weights(25, 31);
        w(3) = 0.0;
        const arma::vec x = random_point(s, 32, 0.6);
        arma::vec gh, gc;
        const double fh = coupling_objective(s, x, seqs, w, kPenalty, &gh, CouplingPath::kHeads);
        const double fc = coupling_objective(s, x, seqs, w, kPenalty, &gc, CouplingPath::kCouplings);
        EXPECT_NEAR(fh, fc, 1e-13 * std::abs(fc)) << s.describe();
        EXPECT_LT(arma::norm(gh - gc), 1e-12 * arma::norm(gc)) << s.describe();
        EXPECT_EQ(coupling_objective(s, x, seqs, w, kPenalty, nullptr, CouplingPath::kHeads), fh) << s.describe();
        // Finite differences through the heads path (auto: H <= 4).
        if (heads <= kHeadsPathMaxHeads) {
          EXPECT_LT(gradient_error(s, x, seqs, w, kPenalty), 1e-6) << s.describe();
        }
      }
}

// The diagonal of the factored form's A is not a parameter: zero gradient,
// and the objective (penalty included) does not change with it (to the
// rounding of the penalty's sum, which subtracts the diagonal's squares).
TEST(CouplingModels, FactoredDiagonalIsNotAParameter) {
  CouplingSpec s = spec(CouplingForm::kFactored, 4, 3);
  s.heads = 2;
  const arma::imat seqs = random_sequences(10, s.L, s.C, 10);
  const arma::vec w(10, arma::fill::ones);
  arma::vec x = random_point(s, 11, 0.5), g;
  const double f0 = coupling_objective(s, x, seqs, w, kPenalty, &g);
  const arma::uword per_head = s.L * s.L + s.C * s.C;
  for (arma::uword h = 0; h < s.heads; ++h)
    for (arma::uword i = 0; i < s.L; ++i) {
      EXPECT_EQ(g(h * per_head + i + i * s.L), 0.0);
      arma::vec y = x;
      y(h * per_head + i + i * s.L) += 3.0;
      EXPECT_NEAR(coupling_objective(s, y, seqs, w, kPenalty, nullptr), f0, 1e-14 * std::abs(f0));
    }
}

// The full form with fields and unit weights is lib/plm's
// pseudo-likelihood model: the same packing, objective and gradient (to
// rounding: the sums run in another order).
TEST(CouplingModels, FullFormIsThePseudoLikelihoodModel) {
  CouplingSpec s = spec(CouplingForm::kFull, 5, 4);
  s.fields = true;
  const arma::imat seqs = random_sequences(30, s.L, s.C, 12);
  const arma::vec x = random_point(s, 13, 0.4), ones(30, arma::fill::ones);
  ASSERT_EQ(x.n_elem, make_plm_model(s.L, s.C).parameter_count());
  PlmPenalty pp;
  pp.lambda_h = 0.02;
  pp.lambda_W = 0.03;
  arma::vec g_plm, g;
  const double f_plm = plm_objective(unpack_plm(x, s.L, s.C), seqs, pp, &g_plm);
  const double f = coupling_objective(s, x, seqs, ones, CouplingPenalty{0.02, 0.03}, &g);
  EXPECT_NEAR(f, f_plm, 1e-13 * std::abs(f_plm));
  EXPECT_LT(arma::norm(g - g_plm), 1e-12 * arma::norm(g_plm));
}

// Factored, H = 1, no fields, unit weights: today's single-head model (lib/nn
// FactoredAttention through factored_objective), same loss and gradient to
// rounding, with and without the penalty.
TEST(CouplingModels, OneHeadIsTodaysFactoredAttention) {
  CouplingSpec s = spec(CouplingForm::kFactored, 6, 4);
  const arma::imat seqs = random_sequences(40, s.L, s.C, 14);
  const nn::SequenceSet data = nn::to_sequence_set(seqs, s.C, "test data");
  arma::vec x = random_point(s, 15, 0.5);
  for (arma::uword i = 0; i < s.L; ++i) x(i + i * s.L) = 0.0;
  const arma::mat A = arma::reshape(x.head(s.L * s.L), s.L, s.L), V = arma::reshape(x.tail(s.C * s.C), s.C, s.C);
  const arma::vec ones(40, arma::fill::ones);
  for (double lambda : {0.0, 0.01}) {
    arma::vec g_ref, g;
    const double f_ref = factored_objective(A, V, data, s.C, lambda, &g_ref);
    const double f = coupling_objective(s, x, seqs, ones, CouplingPenalty{0.0, lambda}, &g);
    EXPECT_NEAR(f, f_ref, 1e-13 * std::abs(f_ref)) << "lambda " << lambda;
    EXPECT_LT(arma::norm(g - g_ref), 1e-12 * arma::norm(g_ref)) << "lambda " << lambda;
  }
}

// The data term, blocked by rows of W, against its plain definition summed
// in the same order (per sequence: logits over j in order; gradients over
// sequences in order): the same bits, with one block and with several and a
// partial last block (LC = 35 and 100 against blocks of 16 rows), and with
// a zero weight.
TEST(CouplingModels, BlockedDataTermIsThePlainLoopsBitForBit) {
  SKIP_WITHOUT_THE_KERNELS_TARGET();
  for (arma::uword L : {7u, 20u, 60u}) {
    const arma::uword C = 5, n = L * C, M = 13;
    const arma::imat seqs = random_sequences(M, L, C, 30 + L);
    arma::vec w = random_weights(M, 31);
    w(4) = 0.0;
    Rng rng(32, 0);
    arma::mat W(n, n), h(C, L);
    for (auto& v : W) v = rng.normal();
    for (arma::uword i = 0; i < L; ++i) W.submat(i * C, i * C, i * C + C - 1, i * C + C - 1).zeros();
    for (auto& v : h) v = rng.normal();
    // Plain loops.
    double wsum = 0.0;
    for (arma::uword mu = 0; mu < M; ++mu) wsum += w(mu);
    const double norm = 1.0 / (wsum * double(L));
    arma::mat G(n, n, arma::fill::zeros), dh_ref(C, L, arma::fill::zeros);
    double loss = 0.0;
    for (arma::uword mu = 0; mu < M; ++mu) {
      if (w(mu) == 0.0) continue;
      arma::vec z(n), dz(n);
      for (arma::uword r = 0; r < n; ++r) {
        z(r) = h(r);
        for (arma::uword j = 0; j < L; ++j) z(r) += W(r, j * C + seqs(mu, j));
      }
      double seq = 0.0;
      for (arma::uword i = 0; i < L; ++i) {
        double mx = z(i * C);
        for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, z(i * C + a));
        double sum = 0.0;
        for (arma::uword a = 0; a < C; ++a) sum += std::exp(z(i * C + a) - mx);
        const double lse = mx + std::log(sum);
        seq += lse - z(i * C + seqs(mu, i));
        for (arma::uword a = 0; a < C; ++a) dz(i * C + a) = norm * w(mu) * std::exp(z(i * C + a) - lse);
        dz(i * C + seqs(mu, i)) -= norm * w(mu);
      }
      loss += w(mu) * seq;
      for (arma::uword r = 0; r < n; ++r) {
        dh_ref(r) += dz(r);
        for (arma::uword j = 0; j < L; ++j) G(r, j * C + seqs(mu, j)) += dz(r);
      }
    }
    loss *= norm;
    // 1 to 16 threads: one panel per round, rounds of 16 and 24 panels
    // (L = 60: 19 panels, two rounds at 2 threads), and one round.
    for (int threads : {1, 2, 3, 16}) {
      set_parallel_threads(threads);
      arma::mat dW, dh;
      const double f = weighted_pl_data_term(W, h, seqs, w, &dW, &dh);
      EXPECT_EQ(f, loss) << "L = " << L << ", " << threads << " threads";
      EXPECT_TRUE(arma::approx_equal(dW, G, "absdiff", 0.0)) << "L = " << L << ", " << threads << " threads";
      EXPECT_TRUE(arma::approx_equal(dh, dh_ref, "absdiff", 0.0)) << "L = " << L << ", " << threads << " threads";
      EXPECT_EQ(weighted_pl_data_term(W, h, seqs, w, nullptr, nullptr), loss) << "L = " << L;
    }
    set_parallel_threads(1);
  }
}

// The full form's objective in panels (coupling_panels.h) against the
// same model through the LC x LC matrices: couplings_of, the data term,
// the penalty over ordered pairs and the gradient packed by hand. The same
// bits, with a partial last panel, a zero weight, and one workspace reused
// by two points.
TEST(CouplingModels, FullFormInPanelsIsTheMatrixPathBitForBit) {
  SKIP_WITHOUT_THE_KERNELS_TARGET();
  for (arma::uword L : {7u, 20u, 60u}) {
    const arma::uword C = 5, M = 14;  // 13 of nonzero weight: the last forward pair is a single sequence
    CouplingSpec s = spec(CouplingForm::kFull, L, C);
    s.fields = true;
    const arma::imat seqs = random_sequences(M, L, C, 40 + L);
    arma::vec w = random_weights(M, 41);
    w(4) = 0.0;
    const CouplingPenalty pen{0.003, 0.002};
    CouplingWorkspace work;
    for (int point = 0; point < 2; ++point) {
      Rng rng(42 + point, 0);
      arma::vec x(s.parameter_count());
      for (auto& v : x) v = 0.5 * rng.normal();
      arma::mat W, h, dW, dh;
      couplings_of(s, x, W, h);
      double ref = weighted_pl_data_term(W, h, seqs, w, &dW, &dh);
      const arma::uword nf = s.field_count();
      double pc = 0.0, ph = 0.0;
      for (arma::uword k = 0; k < nf; ++k) ph += x(k) * x(k);
      for (arma::uword k = nf; k < x.n_elem; ++k) pc += x(k) * x(k);
      ref += pen.lambda_h * ph + pen.lambda_c * (2.0 * pc);
      arma::vec g_ref(x.n_elem);
      for (arma::uword k = 0; k < nf; ++k) g_ref(k) = dh(k) + 2.0 * pen.lambda_h * x(k);
      arma::uword k = nf;
      for (arma::uword i = 0; i < L; ++i)
        for (arma::uword j = i + 1; j < L; ++j)
          for (arma::uword b = 0; b < C; ++b)
            for (arma::uword a = 0; a < C; ++a, ++k)
              g_ref(k) = dW(i * C + a, j * C + b) + dW(j * C + b, i * C + a) + 4.0 * pen.lambda_c * x(k);
      // The packed drain at 1, 2 and 3 threads (L = 60: several rounds).
      for (int threads : {1, 2, 3}) {
        set_parallel_threads(threads);
        arma::vec g;
        EXPECT_EQ(coupling_objective(s, x, seqs, w, pen, &g, CouplingPath::kAuto, &work), ref) << "L = " << L;
        EXPECT_TRUE(arma::approx_equal(g, g_ref, "absdiff", 0.0))
            << "L = " << L << ", point " << point << ", " << threads << " threads";
        EXPECT_EQ(coupling_objective(s, x, seqs, w, pen, nullptr), ref) << "L = " << L;
      }
      set_parallel_threads(1);
    }
  }
}

// A weight of 2 is the sequence twice, a weight of 0 the sequence absent.
TEST(CouplingModels, WeightsCountSequences) {
  CouplingSpec s = spec(CouplingForm::kFactored, 4, 3);
  s.heads = 2;
  s.fields = true;
  const arma::imat seqs = random_sequences(6, s.L, s.C, 16);
  const arma::vec x = random_point(s, 17, 0.6);
  const arma::vec w = {2, 1, 0, 1, 2, 1};
  arma::imat repeated(0, s.L);
  for (arma::uword mu = 0; mu < seqs.n_rows; ++mu)
    for (int k = 0; k < int(w(mu)); ++k) repeated = arma::join_cols(repeated, seqs.row(mu));
  arma::vec g_w, g_r;
  const double f_w = coupling_objective(s, x, seqs, w, kPenalty, &g_w);
  const double f_r = coupling_objective(s, x, repeated, arma::vec(repeated.n_rows, arma::fill::ones), kPenalty, &g_r);
  EXPECT_NEAR(f_w, f_r, 1e-13 * std::abs(f_r));
  EXPECT_LT(arma::norm(g_w - g_r), 1e-12 * arma::norm(g_r));
}

// Symmetrised couplings satisfy W_ji = W_ij^T; the softmax form's attention
// rows are distributions over the other sites.
TEST(CouplingModels, SymmetrisedAndSoftmaxCouplingsHaveTheirStructure) {
  CouplingSpec s = spec(CouplingForm::kSoftmax, 5, 3);
  s.heads = 1;
  s.head_dim = 2;
  s.symmetrise = true;
  arma::mat W, h;
  couplings_of(s, random_point(s, 18, 0.8), W, h);
  EXPECT_LT(arma::abs(W - W.t()).max(), 1e-15);
  for (arma::uword i = 0; i < s.L; ++i)
    EXPECT_EQ(arma::abs(W.submat(i * s.C, i * s.C, i * s.C + s.C - 1, i * s.C + s.C - 1)).max(), 0.0);
  // Unsymmetrised, one head with V = I: W_ij(a, a) = A_ij, rows summing to 1.
  s.symmetrise = false;
  arma::vec x = random_point(s, 19, 0.8);
  const arma::uword nqk = 2 * s.L * s.head_dim;
  arma::mat I = arma::eye(s.C, s.C);
  for (arma::uword t = 0; t < s.C * s.C; ++t) x(nqk + t) = I(t);
  couplings_of(s, x, W, h);
  for (arma::uword i = 0; i < s.L; ++i) {
    double row = 0.0;
    for (arma::uword j = 0; j < s.L; ++j) row += W(i * s.C, j * s.C);
    EXPECT_NEAR(row, 1.0, 1e-14);
  }
}

// Softmax attention with q = k = 0: every map uniform (largest weight
// 1 / (L - 1)), and a stationary point in q and k: their gradient is zero to
// rounding (the data term's through q_i . k_j vanishes with k and q, the
// penalty's with them), while V's is not. Away from it, a planted query-key
// pair draws row 0's weight to one position, and the summary sees it.
TEST(CouplingModels, UniformAttentionIsStationaryInQueriesAndKeys) {
  CouplingSpec s = spec(CouplingForm::kSoftmax, 6, 3);
  s.heads = 2;
  s.head_dim = 2;
  s.fields = true;
  s.symmetrise = true;
  const arma::imat seqs = random_sequences(25, s.L, s.C, 31);
  const arma::vec w = random_weights(25, 32);
  arma::vec x = random_point(s, 33, 0.7);
  const arma::uword per_head = 2 * s.L * s.head_dim + s.C * s.C, qk = 2 * s.L * s.head_dim;
  for (arma::uword k = 0; k < s.heads; ++k)
    for (arma::uword t = 0; t < qk; ++t) x(s.field_count() + k * per_head + t) = 0.0;
  const AttentionSummary a = attention_summary(s, x);
  EXPECT_EQ(a.query_key_rms, 0.0);
  EXPECT_NEAR(a.largest_weight, 1.0 / double(s.L - 1), 1e-15);
  EXPECT_EQ(a.uniform_weight, 1.0 / double(s.L - 1));
  arma::vec g;
  coupling_objective(s, x, seqs, w, kPenalty, &g);
  double g_qk = 0.0, g_v = 0.0;
  for (arma::uword k = 0; k < s.heads; ++k)
    for (arma::uword t = 0; t < per_head; ++t) {
      const double v = std::abs(g(s.field_count() + k * per_head + t));
      (t < qk ? g_qk : g_v) = std::max(t < qk ? g_qk : g_v, v);
    }
  EXPECT_LT(g_qk, 1e-15);
  EXPECT_GT(g_v, 1e-3);

  // Head 0: q_0 = k_3 = (4, 4), so q_0 . k_3 / sqrt(2) = 32 / 1.41: row 0's
  // weight on position 3 is 1 - O(e^-22).
  const arma::uword base = s.field_count();
  for (arma::uword c = 0; c < s.head_dim; ++c) {
    x(base + c * s.L + 0) = 4.0;
    x(base + s.L * s.head_dim + c * s.L + 3) = 4.0;
  }
  const AttentionSummary b = attention_summary(s, x);
  EXPECT_GT(b.largest_weight, 1.0 - 1e-9);
  EXPECT_NEAR(b.query_key_rms, std::sqrt(4 * 16.0 / double(s.heads * qk)), 1e-15);
  EXPECT_THROW(attention_summary(spec(CouplingForm::kFactored, 4, 3), arma::vec(4 * 4 + 9)), StageError);
}

TEST(CouplingModels, ProfileFieldsAreTheLogFrequencies) {
  const arma::imat seqs = {{0, 1}, {0, 2}, {1, 2}};
  const arma::vec w = {1, 1, 2};
  const arma::mat h = profile_fields(seqs, w, 3);
  // Column 0: weighted counts (2, 2, 0) plus 1/3 each, over 5.
  const arma::vec f = arma::vec{7.0 / 3, 7.0 / 3, 1.0 / 3} / 5.0;
  const arma::vec lf = arma::log(f);
  for (arma::uword a = 0; a < 3; ++a) EXPECT_NEAR(h(a, 0), lf(a) - arma::mean(lf), 1e-14);
  EXPECT_NEAR(arma::accu(h.col(1)), 0.0, 1e-14);
}

TEST(CouplingModels, BadInputIsAClearError) {
  CouplingSpec s = spec(CouplingForm::kSoftmax, 4, 3);
  s.heads = 2;
  EXPECT_THROW(s.check(), StageError);  // no head dimension
  s.head_dim = 2;
  const arma::imat seqs = random_sequences(5, s.L, s.C, 20);
  const arma::vec x = random_point(s, 21, 0.5);
  EXPECT_THROW(coupling_objective(s, x, seqs, arma::vec(4, arma::fill::ones), kPenalty, nullptr), StageError);
  EXPECT_THROW(coupling_objective(s, x, seqs, arma::vec(5, arma::fill::zeros), kPenalty, nullptr), StageError);
  EXPECT_THROW(coupling_objective(s, x.head(3), seqs, arma::vec(5, arma::fill::ones), kPenalty, nullptr), StageError);
  EXPECT_THROW(coupling_form_from_string("factorised"), StageError);
  CouplingSpec full = spec(CouplingForm::kFull, 4, 3);
  full.symmetrise = true;
  EXPECT_THROW(full.check(), StageError);
}

// The fit: deterministic (the same bits twice), the kept restart has the
// lowest training objective, and the result is a stationary point
// (gradient recomputed independently of the optimiser).
TEST(CouplingModels, FitIsDeterministicRankedByObjectiveAndStationary) {
  CouplingSpec s = spec(CouplingForm::kFactored, 5, 3);
  s.heads = 2;
  s.fields = true;
  const arma::imat seqs = random_sequences(40, s.L, s.C, 22);
  const arma::vec w = random_weights(40, 23);
  LbfgsOptions o;
  o.max_iterations = 500;
  o.gradient_tolerance = 1e-7;
  const CouplingPenalty pen{0.01, 0.01};
  const CouplingFit a = fit_couplings(s, seqs, w, pen, CouplingInit{}, o, 7, 3);
  const CouplingFit b = fit_couplings(s, seqs, w, pen, CouplingInit{}, o, 7, 3);
  ASSERT_EQ(a.restarts.size(), 3u);
  EXPECT_EQ(arma::approx_equal(a.x, b.x, "absdiff", 0.0), true);
  for (const auto& r : a.restarts) EXPECT_LE(a.objective, r.objective);
  EXPECT_EQ(a.objective, a.restarts[a.best_restart].objective);
  arma::vec g;
  coupling_objective(s, a.x, seqs, w, pen, &g);
  EXPECT_LT(arma::norm(g), 1e-6);
  // The data term is below the independent-sites model's (fields only).
  CouplingSpec profile = spec(CouplingForm::kFull, 5, 3);
  profile.fields = true;
  arma::vec xp(profile.parameter_count(), arma::fill::zeros);
  const arma::mat hp = profile_fields(seqs, w, 3);
  for (arma::uword k = 0; k < hp.n_elem; ++k) xp(k) = hp(k);
  arma::mat W, h;
  couplings_of(profile, xp, W, h);
  EXPECT_LT(a.train_loss, weighted_pl_data_term(W, h, seqs, w, nullptr, nullptr));
}

// The full form is convex: the lean L-BFGS (5 pairs, the PLM's setting)
// reaches the strong-Wolfe fit's optimum, deterministically, and its fit
// reports its own iterations and status.
TEST(CouplingModels, LeanFitReachesTheFullFormsOptimum) {
  CouplingSpec s = spec(CouplingForm::kFull, 6, 3);
  s.fields = true;
  const arma::imat seqs = random_sequences(50, s.L, s.C, 24);
  const arma::vec w = random_weights(50, 25);
  LbfgsOptions o;
  o.max_iterations = 1000;
  o.gradient_tolerance = 1e-9;
  o.memory = 5;
  const CouplingPenalty pen{0.01, 0.01};
  CouplingInit init;
  init.fields_from_profile = false;
  const CouplingFit wolfe = fit_couplings(s, seqs, w, pen, init, o, 1, 1);
  const CouplingFit lean = fit_couplings(s, seqs, w, pen, init, o, 1, 1, {}, LbfgsVariant::kLean);
  const CouplingFit again = fit_couplings(s, seqs, w, pen, init, o, 1, 1, {}, LbfgsVariant::kLean);
  EXPECT_EQ(lean.restarts[0].status, LbfgsStatus::kGradientConverged) << to_string(lean.restarts[0].status);
  EXPECT_TRUE(arma::approx_equal(lean.x, again.x, "absdiff", 0.0));
  // Strongly convex with modulus at least 2 lambda = 0.02: ||x - x*|| <= ||g|| / 0.02 <= 5e-8 for each fit.
  EXPECT_LT(arma::norm(lean.x - wolfe.x), 1e-7);
  EXPECT_NEAR(lean.objective, wolfe.objective, 1e-12);
}

// SGD as lib/train runs it: one full batch for one epoch is one step of lr0
// times L along the objective's gradient (the cosine schedule
// starts at lr0); runs are deterministic, depend on the seed, and a longer
// run lowers the objective from the initial point.
TEST(CouplingModels, SgdStepsAreLibTrainsAndDeterministic) {
  CouplingSpec s = spec(CouplingForm::kFactored, 5, 3);
  s.heads = 1;
  const arma::imat seqs = random_sequences(40, s.L, s.C, 24);
  const arma::vec w = random_weights(40, 25);
  const CouplingPenalty pen{0.0, 0.01};
  SgdOptions o;
  o.epochs = 1;
  o.batch_size = 40;
  o.lr0 = 0.05;
  const CouplingFit one = fit_couplings_sgd(s, seqs, w, pen, CouplingInit{}, o, 9);
  const arma::vec x0 = coupling_initial_point(s, CouplingInit{}, seqs, w, 9, 0);
  arma::vec g;
  coupling_objective(s, x0, seqs, w, pen, &g);
  const arma::vec x1 = x0 - (0.05 * double(s.L)) * g;
  // To rounding: the batch holds the sequences in shuffled order, so the
  // gradient's sums run in another order (the step is about 0.1).
  EXPECT_LT(arma::abs(one.x - x1).max(), 1e-13);
  EXPECT_GT(arma::abs(one.x - x0).max(), 1e-3);
  EXPECT_EQ(one.restarts.at(0).evaluations, 1);

  o.epochs = 60;
  o.batch_size = 7;  // 6 batches per epoch, the last of 5
  std::vector<int> reported;
  o.on_epoch = [&](int epoch, double) { reported.push_back(epoch); };
  const CouplingFit a = fit_couplings_sgd(s, seqs, w, pen, CouplingInit{}, o, 9);
  EXPECT_EQ(reported, (std::vector<int>{25, 50, 60}));
  o.on_epoch = nullptr;
  const CouplingFit b = fit_couplings_sgd(s, seqs, w, pen, CouplingInit{}, o, 9);
  const CouplingFit c = fit_couplings_sgd(s, seqs, w, pen, CouplingInit{}, o, 10);
  EXPECT_TRUE(arma::approx_equal(a.x, b.x, "absdiff", 0.0));
  EXPECT_FALSE(arma::approx_equal(a.x, c.x, "absdiff", 0.0));
  EXPECT_EQ(a.restarts.at(0).evaluations, 6 * 60);
  EXPECT_LT(a.objective, coupling_objective(s, x0, seqs, w, pen, nullptr));
  EXPECT_EQ(a.objective, coupling_objective(s, a.x, seqs, w, pen, nullptr));

  o.lr0 = 1e6;  // diverges: a clear error, no result
  EXPECT_THROW(fit_couplings_sgd(s, seqs, w, pen, CouplingInit{}, o, 9), StageError);
}

}  // namespace
}  // namespace potts
