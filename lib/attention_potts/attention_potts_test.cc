// Factored attention in the observation's protocol (attention_potts.h):
// the loss against a direct evaluation of eq. O1, the gradient against
// central differences (pads in inputs and targets, the penalty on W and b
// under the T / B scaling), the same bits at 1 and 3 threads, the start.
#include "lib/attention_potts/attention_potts.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"

namespace potts {
namespace {

// A batch with pads (state A) at a fifth of the entries, one all-pad row.
arma::imat make_batch(arma::uword B, arma::uword L, arma::uword C, std::uint64_t seed) {
  Rng rng(seed, 99);
  arma::imat s(B, L);
  for (arma::uword n = 0; n < B; ++n)
    for (arma::uword i = 0; i < L; ++i)
      s(n, i) = rng.uniform() < 0.2 ? arma::sword(C) : arma::sword(rng.uniform() * double(C));
  s.row(B - 1).fill(arma::sword(C));
  return s;
}

// Eq. O1 the slow way: A^h from q, k; W as an (L A) x (L A) matrix; its
// symmetrisation; each conditional; the unsquared norms.
double direct_loss(const AttentionPottsSpec& s, const arma::vec& x, const arma::imat& batch,
                   const AttentionPottsPenalty& pen) {
  const arma::uword L = s.L, C = s.C, d = s.head_dim;
  arma::mat W(L * C, L * C, arma::fill::zeros);
  for (arma::uword h = 0; h < s.heads; ++h) {
    arma::mat q(x.memptr() + s.q_offset() + h * d * L, d, L);
    arma::mat k(x.memptr() + s.k_offset() + h * d * L, d, L);
    arma::mat V(x.memptr() + s.v_offset() + h * C * C, C, C);
    for (arma::uword i = 0; i < L; ++i) {
      arma::vec logit(L);
      for (arma::uword j = 0; j < L; ++j) logit(j) = arma::dot(q.col(i), k.col(j)) / std::sqrt(double(d));
      logit(i) = -1e300;
      logit -= logit.max();
      arma::vec att = arma::exp(logit);
      att(i) = 0.0;
      att /= arma::accu(att);
      for (arma::uword j = 0; j < L; ++j) W.submat(i * C, j * C, i * C + C - 1, j * C + C - 1) += att(j) * V;
    }
  }
  W = 0.5 * (W + W.t());
  arma::mat b(x.memptr(), C, L);
  double ce = 0.0;
  double Real = 0.0;
  for (arma::uword n = 0; n < batch.n_rows; ++n)
    for (arma::uword i = 0; i < L; ++i) {
      if (batch(n, i) >= arma::sword(C)) continue;
      arma::vec z = b.col(i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i && batch(n, j) < arma::sword(C))
          z += W.submat(i * C, j * C + batch(n, j), i * C + C - 1, j * C + batch(n, j));
      const double mx = z.max();
      ce += mx + std::log(arma::accu(arma::exp(z - mx))) - z(batch(n, i));
      Real += 1.0;
    }
  const double B = double(batch.n_rows);
  if (!s.fields) {
    EXPECT_EQ(arma::norm(b, "inf"), 0.0);
  }
  if (pen.squared) {  // eq. O1s, mogwai a24d741's loss
    const double N = double(pen.family_size);
    const double reg = pen.lambda * double(C) / (2.0 * B) * std::pow(arma::norm(W, "fro"), 2) +
                       (s.fields ? pen.lambda / (B * double(L)) * std::pow(arma::norm(b, "fro"), 2) : 0.0);
    return N / B * ce + Real * reg;
  }
  const double cw = pen.lambda * double(L - 1) * double(C - 1) / double(pen.family_size);
  const double cb = pen.lambda / double(pen.family_size);
  return ce / B + Real / B * (cw * arma::norm(W, "fro") + cb * arma::norm(b, "fro"));
}

struct Problem {
  AttentionPottsSpec spec;
  arma::imat batch;
  arma::vec x;
  AttentionPottsPenalty pen;
};

Problem small_problem() {
  Problem p;
  p.spec.L = 6;
  p.spec.C = 4;
  p.spec.heads = 2;
  p.spec.head_dim = 3;
  p.batch = make_batch(5, 6, 4, 3);
  p.x = attention_potts_start(p.spec, p.batch, 0.01, 7);
  // A start far from uniform attention and large values, so that every term matters.
  Rng rng(11, 5);
  for (arma::uword e = p.spec.q_offset(); e < p.x.n_elem; ++e) p.x(e) += rng.uniform() - 0.5;
  p.pen.lambda = 0.3;
  p.pen.family_size = 7;
  return p;
}

// The largest relative gap between g and central differences of the loss
// over the entries of x from `from` on. Step 1e-5: truncation error ~ f'''
// h^2 ~ 1e-10, rounding ~ 1e-16 / 1e-5 = 1e-11, against gradient entries of
// ~1e-2-1.
double worst_central_difference(const Problem& p, const arma::vec& g, arma::uword from) {
  AttentionPottsWorkspace work;
  const double step = 1e-5;
  double worst = 0.0;
  for (arma::uword e = from; e < p.x.n_elem; ++e) {
    arma::vec xp = p.x, xm = p.x;
    xp(e) += step;
    xm(e) -= step;
    const double fd = (attention_potts_loss(p.spec, xp, p.batch, p.pen, nullptr, work) -
                       attention_potts_loss(p.spec, xm, p.batch, p.pen, nullptr, work)) /
                      (2 * step);
    worst = std::max(worst, std::abs(fd - g(e)) / std::max(1.0, std::abs(fd)));
  }
  return worst;
}

TEST(AttentionPotts, LossIsEqO1) {
  const Problem p = small_problem();
  AttentionPottsWorkspace work;
  const double f = attention_potts_loss(p.spec, p.x, p.batch, p.pen, nullptr, work);
  const double direct = direct_loss(p.spec, p.x, p.batch, p.pen);
  // Two summation orders of a few hundred terms of size ~1: 1e-12 relative.
  EXPECT_NEAR(f, direct, 1e-12 * std::abs(direct));
  // The penalty is not negligible here (else this test would not see it).
  AttentionPottsPenalty none;
  none.family_size = 7;
  EXPECT_GT(f - attention_potts_loss(p.spec, p.x, p.batch, none, nullptr, work), 0.05);
}

TEST(AttentionPotts, GradientMatchesCentralDifferences) {
  const Problem p = small_problem();
  AttentionPottsWorkspace work;
  arma::vec g;
  attention_potts_loss(p.spec, p.x, p.batch, p.pen, &g, work);
  ASSERT_EQ(g.n_elem, p.x.n_elem);
  EXPECT_LT(worst_central_difference(p, g, 0), 1e-7);
  // Every block of parameters has a gradient (fields, q, k, V).
  for (arma::uword off : {arma::uword(0), p.spec.q_offset(), p.spec.k_offset(), p.spec.v_offset()})
    EXPECT_GT(std::abs(g(off)) + std::abs(g(off + 1)) + std::abs(g(off + 2)), 1e-6) << "offset " << off;
}

TEST(AttentionPotts, PadsAreNeitherInputsNorTargets) {
  Problem p = small_problem();
  AttentionPottsWorkspace work;
  // A pad at (0, 2) with any value of V's pad-free entries: the loss of the
  // batch equals that of the batch with sequence 0's site 2 removed from
  // both roles, i.e. changing the pad to another pad code changes nothing...
  arma::imat other = p.batch;
  other(0, 2) = arma::sword(p.spec.C) + 3;
  p.batch(0, 2) = arma::sword(p.spec.C);
  arma::vec g1, g2;
  const double f1 = attention_potts_loss(p.spec, p.x, p.batch, p.pen, &g1, work);
  const double f2 = attention_potts_loss(p.spec, p.x, other, p.pen, &g2, work);
  EXPECT_EQ(f1, f2);
  EXPECT_EQ(arma::abs(g1 - g2).max(), 0.0);
  // ...while a real state there changes the loss.
  other(0, 2) = 1;
  EXPECT_NE(attention_potts_loss(p.spec, p.x, other, p.pen, nullptr, work), f1);
  // A batch of pads only: no targets, no loss.
  arma::imat pads(3, p.spec.L);
  pads.fill(arma::sword(p.spec.C));
  EXPECT_EQ(attention_potts_loss(p.spec, p.x, pads, p.pen, &g1, work), 0.0);
  EXPECT_EQ(arma::abs(g1).max(), 0.0);
}

TEST(AttentionPotts, FloatProductsAgreeWithDoubleToFloatRounding) {
  Problem p = small_problem();
  AttentionPottsWorkspace work;
  arma::vec gd, gf;
  const double fd = attention_potts_loss(p.spec, p.x, p.batch, p.pen, &gd, work);
  p.spec.float_products = true;
  const double ff = attention_potts_loss(p.spec, p.x, p.batch, p.pen, &gf, work);
  // Sums of at most 2H = 4 (forward) or P = 15 (gradient) float products of
  // values ~1: relative errors of a few 6e-8 per entry, amplified by no more
  // than the logits' range: 1e-5 relative leaves two orders of margin, and a
  // wrong conversion or layout (an error of order 1) fails.
  EXPECT_NEAR(ff, fd, 1e-5 * std::abs(fd));
  EXPECT_NE(ff, fd);  // the float path did run
  EXPECT_LT(arma::abs(gf - gd).max(), 1e-5 * std::max(1.0, arma::abs(gd).max()));
}

TEST(AttentionPotts, SameBitsAtAnyThreadCount) {
  for (bool fl : {false, true}) {
    AttentionPottsSpec s;
    s.float_products = fl;
    s.L = 23;
    s.C = 20;
    s.heads = 5;
    s.head_dim = 4;
    const arma::imat batch = make_batch(9, s.L, s.C, 5);
    const arma::vec x = attention_potts_start(s, batch, 1e-3, 3);
    AttentionPottsPenalty pen;
    pen.lambda = 1e-3;
    pen.family_size = 100;
    arma::vec g1, g3;
    AttentionPottsWorkspace work;
    set_parallel_threads(1);
    const double f1 = attention_potts_loss(s, x, batch, pen, &g1, work);
    set_parallel_threads(3);
    const double f3 = attention_potts_loss(s, x, batch, pen, &g3, work);
    set_parallel_threads(1);
    EXPECT_EQ(std::memcmp(&f1, &f3, sizeof f1), 0);
    ASSERT_EQ(g1.n_elem, g3.n_elem);
    EXPECT_EQ(std::memcmp(g1.memptr(), g3.memptr(), g1.n_elem * sizeof(double)), 0);
  }
}

TEST(AttentionPotts, StartIsXavierAndTheRegularisedProfile) {
  AttentionPottsSpec s;
  s.L = 7;
  s.C = 20;
  s.heads = 4;
  s.head_dim = 3;
  arma::imat seqs(10, s.L);
  seqs.fill(2);
  seqs(0, 0) = 20;  // a pad: not counted
  const double lambda = 0.01;
  const arma::vec x = attention_potts_start(s, seqs, lambda, 1);
  // Site 0: 9 counts of state 2; the others lambda log 10 each.
  const double pc = lambda * std::log(10.0);
  const double mean = (std::log(9.0 + pc) + 19.0 * std::log(pc)) / 20.0;
  EXPECT_NEAR(x(2), std::log(9.0 + pc) - mean, 1e-12);
  EXPECT_NEAR(x(0), std::log(pc) - mean, 1e-12);
  EXPECT_NEAR(arma::accu(x.head(s.C)), 0.0, 1e-12);
  const double a_qk = std::sqrt(6.0 / (4.0 * 3.0 + 7.0 * 3.0)), a_v = std::sqrt(6.0 / (400.0 + 80.0));
  const arma::vec qk = x.subvec(s.q_offset(), s.v_offset() - 1), v = x.subvec(s.v_offset(), x.n_elem - 1);
  EXPECT_LE(arma::abs(qk).max(), a_qk);
  EXPECT_GT(arma::abs(qk).max(), 0.8 * a_qk);  // 168 uniform draws reach the edge
  EXPECT_LE(arma::abs(v).max(), a_v);
  EXPECT_GT(arma::abs(v).max(), 0.9 * a_v);
  // Xavier's start is far from uniform attention; q = k = 0 is uniform.
  arma::vec zero = x;
  zero.subvec(s.q_offset(), s.v_offset() - 1).zeros();
  EXPECT_DOUBLE_EQ(attention_potts_median_row_max(s, zero), 1.0 / 6.0);
  EXPECT_GT(attention_potts_median_row_max(s, x), 1.0 / 6.0);
}

TEST(AttentionPotts, BlockNormsAreTheSymmetricWsBlocks) {
  const Problem p = small_problem();
  const arma::mat F = attention_potts_block_norms(p.spec, p.x);
  EXPECT_TRUE(F.is_symmetric());
  EXPECT_EQ(arma::accu(arma::abs(F.diag())), 0.0);
  EXPECT_GT(F.min() + F.max(), 0.0);
}

TEST(AttentionPotts, BadInputsAreRefused) {
  const Problem p = small_problem();
  AttentionPottsWorkspace work;
  EXPECT_THROW(attention_potts_loss(p.spec, p.x.head(5), p.batch, p.pen, nullptr, work), StageError);
  EXPECT_THROW(attention_potts_loss(p.spec, p.x, p.batch.cols(0, 3), p.pen, nullptr, work), StageError);
  arma::imat neg = p.batch;
  neg(0, 0) = -1;
  EXPECT_THROW(attention_potts_loss(p.spec, p.x, neg, p.pen, nullptr, work), StageError);
}

// The pinned code's protocol (eq. O1s, fields off, full batches).
Problem pinned_problem(bool fields) {
  Problem p = small_problem();
  p.spec.fields = fields;
  p.pen.squared = true;
  if (!fields) p.x.head(p.spec.q_offset()).zeros();
  return p;
}

TEST(AttentionPotts, LossIsEqO1sWithAndWithoutFields) {
  for (bool fields : {true, false}) {
    const Problem p = pinned_problem(fields);
    AttentionPottsWorkspace work;
    const double f = attention_potts_loss(p.spec, p.x, p.batch, p.pen, nullptr, work);
    const double direct = direct_loss(p.spec, p.x, p.batch, p.pen);
    EXPECT_NEAR(f, direct, 1e-12 * std::abs(direct)) << "fields " << fields;
    // It is not eq. O1 (N / B = 1.4 on the data term, the norms squared).
    AttentionPottsPenalty o1 = p.pen;
    o1.squared = false;
    EXPECT_GT(std::abs(f - attention_potts_loss(p.spec, p.x, p.batch, o1, nullptr, work)), 0.05);
  }
}

// Central differences as above; without fields the fields' gradient is
// exactly 0, so AdamW leaves them at 0.
TEST(AttentionPotts, PinnedGradientMatchesCentralDifferences) {
  for (bool fields : {true, false}) {
    const Problem p = pinned_problem(fields);
    AttentionPottsWorkspace work;
    arma::vec g;
    attention_potts_loss(p.spec, p.x, p.batch, p.pen, &g, work);
    EXPECT_LT(worst_central_difference(p, g, fields ? 0 : p.spec.q_offset()), 1e-7) << "fields " << fields;
    if (!fields) {
      EXPECT_EQ(arma::norm(g.head(p.spec.q_offset()), "inf"), 0.0);
    } else {
      EXPECT_GT(arma::norm(g.head(p.spec.q_offset()), "inf"), 1e-6);
    }
  }
}

// Without fields the start's fields are 0 and q, k, V are the same draws.
TEST(AttentionPotts, StartWithoutFields) {
  Problem p = small_problem();
  const arma::vec with = attention_potts_start(p.spec, p.batch, 0.01, 7);
  p.spec.fields = false;
  const arma::vec without = attention_potts_start(p.spec, p.batch, 0.01, 7);
  EXPECT_EQ(arma::norm(without.head(p.spec.q_offset()), "inf"), 0.0);
  EXPECT_GT(arma::norm(with.head(p.spec.q_offset()), "inf"), 0.0);
  EXPECT_TRUE(arma::all(with.tail(with.n_elem - p.spec.q_offset()) == without.tail(with.n_elem - p.spec.q_offset())));
}

// Full batches: every batch holds B indices, and read one after another
// they are BatchStream's epochs end to end (N = 10, B = 4: epochs of
// 4 + 4 + 2 become batches of 4 across them).
TEST(AttentionPotts, FullBatchesCutTheEpochsAcrossTheirEnds) {
  BatchStream epochs(10, 4, 3);
  std::vector<arma::uword> expected;
  while (expected.size() < 40) {
    const arma::uvec b = epochs.next();
    expected.insert(expected.end(), b.begin(), b.end());
  }
  FullBatches full(10, 4, 3);
  std::vector<arma::uword> got;
  for (int k = 0; k < 10; ++k) {
    const arma::uvec b = full.next();
    ASSERT_EQ(b.n_elem, 4u);
    got.insert(got.end(), b.begin(), b.end());
  }
  EXPECT_EQ(got, std::vector<arma::uword>(expected.begin(), expected.begin() + 40));
  EXPECT_EQ(full.epoch(), 4);
}

// A short fit without fields keeps them at 0.
TEST(AttentionPotts, FitWithoutFieldsKeepsThemZero) {
  Problem p = pinned_problem(false);
  AttentionPottsFitOptions o;
  o.steps = 5;
  o.batch_size = 4;
  o.full_batches = true;
  o.adamw.lr = 0.01;
  const AttentionPottsFit fit = fit_attention_potts(p.spec, p.batch, p.pen, o, 5);
  EXPECT_EQ(arma::norm(fit.x.head(p.spec.q_offset()), "inf"), 0.0);
  EXPECT_EQ(fit.steps, 5);
}

}  // namespace
}  // namespace potts
