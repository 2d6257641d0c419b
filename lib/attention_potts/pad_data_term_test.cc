// pad_data_term against a direct evaluation that adds every sum in the order
// the header states (each site's logits over its partners in ascending order,
// sums over sequences in batch order): the same bits, for the alphabet of 20
// (the kernels' constant size) and another, with pads, at 1 and 3 threads,
// with the transposed blocks made inside or given. Built three times: the
// clone this CPU picks, the baseline x86-64 clone and the AVX2 clone.
#include "lib/attention_potts/pad_data_term.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "lib/core/isa.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/linalg/exp.h"

namespace potts {
namespace {

struct Direct {
  double ce = 0.0;
  arma::uword targets = 0;
  arma::mat dblocks;
  arma::mat db;
};

// W_ij(a, c) for i != j from the pair blocks (W_ji = W_ij^T).
double coupling(const arma::mat& blocks, arma::uword L, arma::uword A, arma::uword i, arma::uword j, arma::uword a,
                arma::uword c) {
  return i < j ? blocks(a + A * c, pair_index(i, j, L)) : blocks(c + A * a, pair_index(j, i, L));
}

Direct direct(arma::uword L, arma::uword A, const arma::mat& blocks, const arma::mat& b, const arma::imat& batch,
              double scale) {
  const arma::uword B = batch.n_rows, P = L * (L - 1) / 2;
  auto s = [&](arma::uword n, arma::uword i) { return arma::uword(batch(n, i)); };
  arma::mat r(A, L * B);
  std::vector<double> seq_loss(B, 0.0);
  std::vector<arma::uword> seq_targets(B, 0);
  for (arma::uword n = 0; n < B; ++n)
    for (arma::uword i = 0; i < L; ++i) {
      std::vector<double> z(A), e(A);
      for (arma::uword a = 0; a < A; ++a) z[a] = b(a, i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i && s(n, j) < A)
          for (arma::uword a = 0; a < A; ++a) z[a] += coupling(blocks, L, A, i, j, a, s(n, j));
      const arma::uword t = s(n, i);
      if (t >= A) {
        r.col(i + L * n).zeros();
        continue;
      }
      double mx = z[0];
      for (arma::uword a = 1; a < A; ++a) mx = std::max(mx, z[a]);
      for (arma::uword a = 0; a < A; ++a) e[a] = z[a] - mx;
      exp_nonpositive(e.data(), A);
      double sum = 0.0;
      for (arma::uword a = 0; a < A; ++a) sum += e[a];
      seq_loss[n] += mx + std::log(sum) - z[t];
      seq_targets[n] += 1;
      const double inv = 1.0 / sum;
      for (arma::uword a = 0; a < A; ++a) r(a, i + L * n) = e[a] * inv * scale;
      r(t, i + L * n) -= scale;
    }
  Direct d;
  for (arma::uword n = 0; n < B; ++n) {
    d.ce += seq_loss[n];
    d.targets += seq_targets[n];
  }
  d.db.zeros(A, L);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword a = 0; a < A; ++a) {
      double acc = 0.0;
      for (arma::uword n = 0; n < B; ++n) acc += r(a, i + L * n);
      d.db(a, i) = acc;
    }
  // dWs_p = sum_n r_i 1(s_j)^T + (sum_n r_j 1(s_i)^T)^T, each share over n in order.
  d.dblocks.zeros(A * A, P);
  for (arma::uword i = 0; i + 1 < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j) {
      arma::mat d1(A, A, arma::fill::zeros), d2(A, A, arma::fill::zeros);
      for (arma::uword n = 0; n < B; ++n) {
        if (s(n, j) < A)
          for (arma::uword a = 0; a < A; ++a) d1(a, s(n, j)) += r(a, i + L * n);
        if (s(n, i) < A)
          for (arma::uword c = 0; c < A; ++c) d2(c, s(n, i)) += r(c, j + L * n);
      }
      const arma::uword p = pair_index(i, j, L);
      for (arma::uword c = 0; c < A; ++c)
        for (arma::uword a = 0; a < A; ++a) d.dblocks(a + A * c, p) = d1(a, c) + d2(c, a);
    }
  return d;
}

bool same_bits(const double* x, const double* y, arma::uword n) { return std::memcmp(x, y, n * sizeof(double)) == 0; }

void check(arma::uword L, arma::uword A, arma::uword B, int threads, bool give_transposed) {
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level";
  Rng rng(11 + A, 4);
  const arma::uword P = L * (L - 1) / 2;
  arma::mat blocks(A * A, P), b(A, L);
  for (auto& v : blocks) v = rng.uniform() - 0.5;
  for (auto& v : b) v = 2.0 * rng.uniform() - 1.0;
  arma::imat batch(B, L);
  for (auto& v : batch) {
    const double u = rng.uniform();
    v = u < 0.15 ? arma::sword(A + (u < 0.05 ? 1 : 0)) : arma::sword(rng.uniform() * double(A));  // pads: A, A + 1
  }
  const double scale = 1.0 / double(B);
  const Direct want = direct(L, A, blocks, b, batch, scale);

  set_parallel_threads(threads);
  PadDataWorkspace work;
  arma::mat blocks_t(A * A, P);
  for (arma::uword p = 0; p < P; ++p)
    for (arma::uword c = 0; c < A; ++c)
      for (arma::uword a = 0; a < A; ++a) blocks_t(c + A * a, p) = blocks(a + A * c, p);
  arma::uword targets = 0;
  arma::mat dblocks;
  arma::mat db(A, L);
  const double ce =
      give_transposed
          ? pad_data_term(L, A, blocks, blocks_t, b.memptr(), batch, scale, work, &targets, &dblocks, db.memptr())
          : pad_data_term(L, A, blocks, b.memptr(), batch, scale, work, &targets, &dblocks, db.memptr());
  set_parallel_threads(1);
  if (!give_transposed) EXPECT_TRUE(arma::all(arma::vectorise(work.blocks_t == blocks_t))) << "the transposes made";
  EXPECT_TRUE(same_bits(&ce, &want.ce, 1)) << ce << " against " << want.ce;
  EXPECT_EQ(targets, want.targets);
  EXPECT_TRUE(same_bits(dblocks.memptr(), want.dblocks.memptr(), dblocks.n_elem))
      << "max |diff| " << arma::abs(dblocks - want.dblocks).max();
  EXPECT_TRUE(same_bits(db.memptr(), want.db.memptr(), db.n_elem)) << "max |diff| " << arma::abs(db - want.db).max();
  // The loss alone, with no gradient.
  arma::uword t2 = 0;
  const double ce2 = pad_data_term(L, A, blocks, b.memptr(), batch, scale, work, &t2, nullptr, nullptr);
  EXPECT_TRUE(same_bits(&ce2, &want.ce, 1));
}

TEST(PadDataTerm, TwentyStatesTheDirectBits) { check(9, 20, 13, 1, false); }
// 24 sites: 276 pairs, so that three threads split the pair gradient's
// pairs (ranges of at least 16) in the middle of a site's.
TEST(PadDataTerm, TwentyStatesTheDirectBitsAtThreeThreads) { check(24, 20, 13, 3, false); }
TEST(PadDataTerm, TwentyStatesTransposedBlocksGiven) { check(24, 20, 13, 3, true); }
TEST(PadDataTerm, FiveStatesTheDirectBits) { check(70, 5, 7, 1, false); }  // more than one block of 64 pairs
TEST(PadDataTerm, FiveStatesTheDirectBitsAtThreeThreads) { check(70, 5, 7, 3, true); }

TEST(PadDataTerm, GivenTransposedBlocksOfTheWrongSizeAreRefused) {
  const arma::uword L = 4, A = 3;
  arma::mat blocks(A * A, L * (L - 1) / 2, arma::fill::zeros), b(A, L, arma::fill::zeros);
  arma::imat batch(2, L, arma::fill::zeros);
  PadDataWorkspace work;
  const arma::mat blocks_t(A * A, 1, arma::fill::zeros);
  arma::uword targets = 0;
  EXPECT_THROW(pad_data_term(L, A, blocks, blocks_t, b.memptr(), batch, 1.0, work, &targets, nullptr, nullptr),
               std::logic_error);
}

}  // namespace
}  // namespace potts
