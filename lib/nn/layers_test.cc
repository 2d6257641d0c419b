// Tests of lib/nn's layers: finite-difference gradient checks of every
// layer (central differences, double precision, relative error below 1e-6),
// the attention kernels against plain loops bit for bit and at any thread
// count, and the fused factored kernel against the two-step path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/gradient_check.h"
#include "lib/nn/layers.h"

namespace potts {
namespace nn {
namespace {

using gradient_check::fd_error;
using gradient_check::gaussian;
using gradient_check::kTol;

TEST(Layers, LinearGradients) {
  Rng rng(1, 0);
  arma::mat X = gaussian(3, 7, rng), W = gaussian(4, 3, rng), b = gaussian(4, 1, rng), R = gaussian(4, 7, rng);
  auto f = [&] {
    arma::mat Y;
    linear_forward(Y, X, W, b);
    return arma::accu(R % Y);
  };
  arma::mat dX(arma::size(X), arma::fill::zeros), dW(arma::size(W), arma::fill::zeros),
      db(arma::size(b), arma::fill::zeros);
  linear_backward(&dX, dW, db, R, X, W);
  EXPECT_LT(fd_error(X, dX, f), kTol);
  EXPECT_LT(fd_error(W, dW, f), kTol);
  EXPECT_LT(fd_error(b, db, f), kTol);
}

TEST(Layers, ReluGradients) {
  Rng rng(2, 0);
  arma::mat X = gaussian(5, 6, rng), R = gaussian(5, 6, rng);
  for (auto& x : X) x += (x > 0 ? 0.1 : -0.1);  // keep away from the kink
  auto f = [&] {
    arma::mat Y;
    relu_forward(Y, X);
    return arma::accu(R % Y);
  };
  arma::mat Y, dX(arma::size(X), arma::fill::zeros);
  relu_forward(Y, X);
  relu_backward(dX, R, Y);
  EXPECT_LT(fd_error(X, dX, f), kTol);
  arma::mat dX_over(2, 2, arma::fill::value(7.0));  // wrong shape and stale values: overwritten
  relu_backward(dX_over, R, Y, Grad::kOverwrite);
  EXPECT_TRUE(arma::approx_equal(dX_over, dX, "absdiff", 0.0));
}

TEST(Layers, LayerNormGradients) {
  Rng rng(3, 0);
  arma::mat X = gaussian(6, 5, rng), g = gaussian(6, 1, rng), be = gaussian(6, 1, rng), R = gaussian(6, 5, rng);
  auto f = [&] {
    arma::mat Y;
    LayerNormCache c;
    layernorm_forward(Y, c, X, g, be, 1e-6);
    return arma::accu(R % Y);
  };
  arma::mat Y;
  LayerNormCache c;
  layernorm_forward(Y, c, X, g, be, 1e-6);
  arma::mat dX(arma::size(X), arma::fill::zeros), dg(arma::size(g), arma::fill::zeros),
      db(arma::size(be), arma::fill::zeros);
  layernorm_backward(dX, dg, db, R, c, g);
  EXPECT_LT(fd_error(X, dX, f), kTol);
  EXPECT_LT(fd_error(g, dg, f), kTol);
  EXPECT_LT(fd_error(be, db, f), kTol);
  arma::mat dX_over(2, 2, arma::fill::value(7.0)), dg2(arma::size(g), arma::fill::zeros),
      db2(arma::size(be), arma::fill::zeros);
  layernorm_backward(dX_over, dg2, db2, R, c, g, Grad::kOverwrite);
  EXPECT_TRUE(arma::approx_equal(dX_over, dX, "absdiff", 0.0));
  EXPECT_TRUE(arma::approx_equal(dg2, dg, "absdiff", 0.0));
  // each output column has mean beta-weighted... check normalisation itself
  arma::mat ones_g(6, 1, arma::fill::ones), zero_b(6, 1, arma::fill::zeros);
  layernorm_forward(Y, c, X, ones_g, zero_b, 0.0);
  EXPECT_LT(arma::abs(arma::mean(Y, 0)).max(), 1e-14);
  EXPECT_LT(arma::abs(arma::mean(Y % Y, 0) - 1.0).max(), 1e-12);
}

// (d, L, Lq): the general kernels and the ones specialised for L = d = 20.
class AttentionGradients : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(AttentionGradients, MatchFiniteDifferences) {
  const arma::uword d = std::get<0>(GetParam()), L = std::get<1>(GetParam()), Lq = std::get<2>(GetParam());
  const arma::uword B = d == 20 ? 1 : 3;
  Rng rng(4, Lq);
  arma::mat Q = gaussian(d, B * Lq, rng), K = gaussian(d, B * L, rng), V = gaussian(d, B * L, rng),
            R = gaussian(d, B * Lq, rng);
  auto f = [&] {
    arma::mat O, P;
    attention_forward(O, P, Q, K, V, L, Lq);
    return arma::accu(R % O);
  };
  arma::mat O, P;
  attention_forward(O, P, Q, K, V, L, Lq);
  EXPECT_LT(arma::abs(arma::sum(P, 0) - 1.0).max(), 1e-14);  // rows of softmax sum to one
  arma::mat dQ(arma::size(Q), arma::fill::zeros), dK(arma::size(K), arma::fill::zeros),
      dV(arma::size(V), arma::fill::zeros);
  attention_backward(dQ, dK, dV, R, P, Q, K, V, L, Lq);
  EXPECT_LT(fd_error(Q, dQ, f), kTol);
  EXPECT_LT(fd_error(K, dK, f), kTol);
  EXPECT_LT(fd_error(V, dV, f), kTol);
  arma::mat oQ(1, 1, arma::fill::value(7.0)), oK = 7.0 * dK, oV(3, 2, arma::fill::value(7.0));
  attention_backward(oQ, oK, oV, R, P, Q, K, V, L, Lq, Grad::kOverwrite);
  EXPECT_TRUE(arma::approx_equal(oQ, dQ, "absdiff", 0.0));
  EXPECT_TRUE(arma::approx_equal(oK, dK, "absdiff", 0.0));
  EXPECT_TRUE(arma::approx_equal(oV, dV, "absdiff", 0.0));
}
INSTANTIATE_TEST_SUITE_P(AllAndOneQuery, AttentionGradients,
                         ::testing::Values(std::make_tuple(4, 5, 5), std::make_tuple(4, 5, 1),
                                           std::make_tuple(20, 20, 20), std::make_tuple(20, 20, 1)));

// Splitting a batch's sequences over threads changes no bit, for the
// general and the specialised kernels, forward and backward.
TEST(Layers, AttentionBitsDoNotDependOnThreads) {
  for (arma::uword L : {7, 20}) {
    const arma::uword d = L == 20 ? 20 : 5, B = 11;
    Rng rng(6, L);
    arma::fmat Q = arma::conv_to<arma::fmat>::from(gaussian(d, B * L, rng)),
               K = arma::conv_to<arma::fmat>::from(gaussian(d, B * L, rng)),
               V = arma::conv_to<arma::fmat>::from(gaussian(d, B * L, rng)),
               R = arma::conv_to<arma::fmat>::from(gaussian(d, B * L, rng));
    std::vector<std::vector<arma::fmat>> runs;
    for (int threads : {1, 2, 3, 16}) {
      set_parallel_threads(threads);
      arma::fmat O, P, dQ, dK, dV;
      attention_forward(O, P, Q, K, V, L, L);
      attention_backward(dQ, dK, dV, R, P, Q, K, V, L, L, Grad::kOverwrite);
      runs.push_back({O, P, dQ, dK, dV});
    }
    set_parallel_threads(1);
    for (std::size_t r = 1; r < runs.size(); ++r)
      for (std::size_t k = 0; k < runs[0].size(); ++k) {
        ASSERT_EQ(runs[r][k].n_elem, runs[0][k].n_elem);
        EXPECT_EQ(0, std::memcmp(runs[r][k].memptr(), runs[0][k].memptr(), runs[0][k].n_elem * sizeof(float)))
            << "L = " << L << ", run " << r << ", output " << k;
      }
  }
}

// The attention kernels against plain loops that state their order of
// operations: per query, the scores summed over the features in order from
// zero, the softmax's maximum and sum in key order, O summed in key order;
// backward, each element of dK and dV accumulated in query order. Bit for
// bit, at lengths below, at and above a vector's width and with tails
// (L = 3 ... 159), in both precisions, the general and the d = 20 kernels,
// all queries and one, overwriting and accumulating. A reordered sum or a
// key block at a wrong offset fails it.
template <class T>
void plain_attention(Mat<T>& O, Mat<T>& P, Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, const Mat<T>& Q, const Mat<T>& K,
                     const Mat<T>& V, const Mat<T>& dO, arma::uword L, arma::uword Lq, bool overwrite) {
  const arma::uword d = Q.n_rows, B = K.n_cols / L;
  const T scale = T(1.0 / std::sqrt(double(d)));
  O.set_size(d, B * Lq);
  P.set_size(L, B * Lq);
  if (overwrite) {
    dQ.zeros(arma::size(Q));
    dK.zeros(arma::size(K));
    dV.zeros(arma::size(V));
  }
  for (arma::uword b = 0; b < B; ++b)
    for (arma::uword q = 0; q < Lq; ++q) {
      const arma::uword j = b * Lq + q;
      T* p = P.colptr(j);
      for (arma::uword k = 0; k < L; ++k) {
        T s = 0;
        for (arma::uword c = 0; c < d; ++c) s += (Q(c, j) * scale) * K(c, b * L + k);
        p[k] = s;
      }
      T mx = p[0];
      for (arma::uword k = 1; k < L; ++k) mx = std::max(mx, p[k]);
      for (arma::uword k = 0; k < L; ++k) p[k] -= mx;
      exp_nonpositive(p, L);
      T z = 0;
      for (arma::uword k = 0; k < L; ++k) z += p[k];
      const T inv = T(1) / z;
      for (arma::uword k = 0; k < L; ++k) p[k] *= inv;
      for (arma::uword c = 0; c < d; ++c) {
        T o = 0;
        for (arma::uword k = 0; k < L; ++k) o += p[k] * V(c, b * L + k);
        O(c, j) = o;
      }
      std::vector<T> ds(L);
      for (arma::uword k = 0; k < L; ++k) {
        for (arma::uword c = 0; c < d; ++c) dV(c, b * L + k) += p[k] * dO(c, j);
        T s = 0;
        for (arma::uword c = 0; c < d; ++c) s += dO(c, j) * V(c, b * L + k);
        ds[k] = s;
      }
      T dot = 0;
      for (arma::uword k = 0; k < L; ++k) dot += p[k] * ds[k];
      for (arma::uword k = 0; k < L; ++k) ds[k] = scale * p[k] * (ds[k] - dot);
      for (arma::uword c = 0; c < d; ++c) {
        T g = 0;
        for (arma::uword k = 0; k < L; ++k) g += ds[k] * K(c, b * L + k);
        dQ(c, j) += g;
      }
      for (arma::uword k = 0; k < L; ++k)
        for (arma::uword c = 0; c < d; ++c) dK(c, b * L + k) += ds[k] * Q(c, j);
    }
}

template <class T>
void expect_attention_is_plain(arma::uword d, arma::uword L, arma::uword Lq, bool overwrite) {
  const arma::uword B = 3;
  Rng rng(7, 1000 * d + L + Lq);
  auto draw = [&](arma::uword cols) { return arma::conv_to<Mat<T>>::from(gaussian(d, cols, rng)); };
  const Mat<T> Q = draw(B * Lq), K = draw(B * L), V = draw(B * L), dO = draw(B * Lq);
  Mat<T> O, P, dQ, dK, dV, rO, rP, rdQ = draw(B * Lq), rdK = draw(B * L), rdV = draw(B * L);
  dQ = rdQ, dK = rdK, dV = rdV;  // accumulating: the same starting values
  attention_forward(O, P, Q, K, V, L, Lq);
  attention_backward(dQ, dK, dV, dO, P, Q, K, V, L, Lq, overwrite ? Grad::kOverwrite : Grad::kAccumulate);
  plain_attention(rO, rP, rdQ, rdK, rdV, Q, K, V, dO, L, Lq, overwrite);
  const std::pair<const Mat<T>*, const Mat<T>*> pairs[] = {{&O, &rO}, {&P, &rP}, {&dQ, &rdQ}, {&dK, &rdK}, {&dV, &rdV}};
  const char* names[] = {"O", "P", "dQ", "dK", "dV"};
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(pairs[i].first->n_elem, pairs[i].second->n_elem) << names[i];
    EXPECT_EQ(0, std::memcmp(pairs[i].first->memptr(), pairs[i].second->memptr(), pairs[i].first->n_elem * sizeof(T)))
        << names[i] << " d = " << d << " L = " << L << " Lq = " << Lq << (overwrite ? " overwrite" : " accumulate");
  }
}

TEST(Layers, AttentionIsThePlainLoopsBitForBit) {
  for (arma::uword d : {5, 20})
    for (arma::uword L : {3, 7, 8, 9, 17, 20, 37, 159})
      for (arma::uword Lq : {L, arma::uword(1), L > 6 ? arma::uword(6) : arma::uword(2)})
        for (bool overwrite : {true, false}) {
          if (Lq > L) continue;
          expect_attention_is_plain<float>(d, L, Lq, overwrite);
          expect_attention_is_plain<double>(d, L, Lq, overwrite);
        }
}

// The two forms of a sequence set convert into each other, and a colour
// outside 0..C-1 is named.
TEST(SequenceSets, ImatRoundTrip) {
  arma::imat x = {{0, 1, 2}, {2, 2, 0}};
  const SequenceSet s = to_sequence_set(x, 3, "test sequences");
  EXPECT_EQ(2u, s.M);
  EXPECT_EQ(3u, s.L);
  EXPECT_EQ(2, s.row(1)[0]);
  EXPECT_TRUE(arma::all(arma::vectorise(to_imat(s) == x)));
  x(1, 2) = 3;
  EXPECT_THROW(to_sequence_set(x, 3, "test sequences"), StageError);
}

TEST(Layers, AttentionMatchesDirectFormula) {
  const arma::uword d = 3, L = 4;
  Rng rng(5, 0);
  arma::mat Q = gaussian(d, L, rng), K = gaussian(d, L, rng), V = gaussian(d, L, rng), O, P;
  attention_forward(O, P, Q, K, V, L, L);
  arma::mat S = Q.t() * K / std::sqrt(double(d));  // L x L, row = query
  for (arma::uword q = 0; q < L; ++q) {
    arma::rowvec p = arma::exp(S.row(q));
    p /= arma::accu(p);
    EXPECT_LT(arma::abs(V * p.t() - O.col(q)).max(), 1e-14);
  }
}

TEST(Layers, EmbeddingAndGatherGradients) {
  const arma::uword d = 3, C = 4, L = 5, B = 2;  // B sequences of L tokens
  Rng rng(6, 0);
  arma::mat W = gaussian(d, C + 1, rng), b = gaussian(d, 1, rng), PE = sinusoidal_positions(d, L);
  std::vector<int> tokens = {0, 4, 2, 2, 1, 3, 3, 0, 4, 1};
  ASSERT_EQ(tokens.size(), B * L);
  std::vector<arma::uword> cols = {1, 7, 7};
  arma::mat R = gaussian(d, cols.size(), rng);
  auto f = [&] {
    arma::mat X, Xq;
    embedding_forward(X, tokens, W, b, PE, L);
    gather_forward(Xq, X, cols);
    return arma::accu(R % Xq);
  };
  arma::mat X, Xq;
  embedding_forward(X, tokens, W, b, PE, L);
  arma::mat dX(arma::size(X), arma::fill::zeros), dW(arma::size(W), arma::fill::zeros),
      db(arma::size(b), arma::fill::zeros);
  gather_backward(dX, R, cols);
  embedding_backward(dW, db, dX, tokens);
  EXPECT_LT(fd_error(W, dW, f), kTol);
  EXPECT_LT(fd_error(b, db, f), kTol);
  EXPECT_NEAR(PE(0, 3), std::sin(3.0), 1e-15);
  EXPECT_NEAR(PE(1, 3), std::cos(3.0), 1e-15);
  EXPECT_NEAR(PE(2, 3), std::sin(3.0 / std::pow(10000.0, 2.0 / 3.0)), 1e-15);
}

TEST(Layers, CrossEntropyGradients) {
  Rng rng(7, 0);
  arma::mat Z = gaussian(5, 4, rng, 3.0);
  std::vector<int> targets = {0, 4, -1, 2};  // column 2 is not used
  auto f = [&] {
    arma::mat P;
    return cross_entropy_forward(P, Z, targets);
  };
  arma::mat P, dZ(arma::size(Z), arma::fill::zeros);
  const double loss = cross_entropy_forward(P, Z, targets);
  cross_entropy_backward(dZ, P, targets, 1.0);
  EXPECT_LT(fd_error(Z, dZ, f), kTol);
  double direct = 0.0;
  for (int k : {0, 1, 3}) direct -= std::log(std::exp(Z(targets[k], k)) / arma::accu(arma::exp(Z.col(k))));
  EXPECT_NEAR(loss, direct, 1e-12);
  EXPECT_EQ(arma::accu(arma::abs(dZ.col(2))), 0.0);

  // The row layout: the same operations per prediction, hence the same bits.
  arma::mat Zt = Z.t(), Pt, dZt(arma::size(Zt), arma::fill::zeros);
  EXPECT_EQ(cross_entropy_rows_forward(Pt, Zt, targets), loss);
  cross_entropy_rows_backward(dZt, Pt, targets, 1.0);
  EXPECT_EQ(arma::abs(dZt - dZ.t()).max(), 0.0);
  for (arma::uword k : {0, 1, 3}) EXPECT_EQ(arma::abs(Pt.row(k) - P.col(k).t()).max(), 0.0);
  auto ft = [&] {
    arma::mat Q;
    return cross_entropy_rows_forward(Q, Zt, targets);
  };
  EXPECT_LT(fd_error(Zt, dZt, ft), kTol);
}

// More columns than one block of the column layout (16), with a ragged end.
TEST(Layers, CrossEntropyLayoutsAgreeOnManyColumns) {
  Rng rng(17, 0);
  arma::mat Z = gaussian(7, 37, rng, 4.0);
  std::vector<int> targets(37);
  for (auto& t : targets) t = int(rng.below(8)) - 1;  // some -1: unused
  arma::mat P, Pt;
  const double loss = cross_entropy_forward(P, Z, targets);
  const arma::mat Zt = Z.t();
  EXPECT_EQ(cross_entropy_rows_forward(Pt, Zt, targets), loss);
  double direct = 0.0;
  for (arma::uword k = 0; k < Z.n_cols; ++k) {
    if (targets[k] < 0) continue;
    direct -= std::log(std::exp(Z(targets[k], k)) / arma::accu(arma::exp(Z.col(k))));
    EXPECT_EQ(arma::abs(Pt.row(k) - P.col(k).t()).max(), 0.0);
    EXPECT_NEAR(arma::accu(P.col(k)), 1.0, 1e-14);
  }
  EXPECT_NEAR(loss, direct, 1e-12 * direct);
}

TEST(Layers, FactoredAttentionGradients) {
  const arma::uword L = 6, C = 4, B = 3;
  Rng rng(8, 0);
  arma::mat A = gaussian(L, L, rng), V = gaussian(C, C, rng);
  std::vector<int> seqs(B * L);
  for (auto& s : seqs) s = int(rng.below(C));
  arma::mat R = gaussian(B * L, C, rng);
  auto f = [&] {
    arma::mat Zt, Ht;
    factored_attention_forward(Zt, Ht, seqs, A, V, L);
    return arma::accu(R % Zt);
  };
  arma::mat Zt, Ht, dA(L, L, arma::fill::zeros), dV(C, C, arma::fill::zeros);
  factored_attention_forward(Zt, Ht, seqs, A, V, L);
  factored_attention_backward(dA, dV, R, Ht, seqs, V, L);
  EXPECT_LT(fd_error(A, dA, f), kTol);
  EXPECT_LT(fd_error(V, dV, f), kTol);
  EXPECT_EQ(arma::accu(arma::abs(dA.diag())), 0.0);  // A_ii never enters
  // direct formula of eq. 4
  for (arma::uword b = 0; b < B; ++b)
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword a = 0; a < C; ++a) {
        double z = 0.0;
        for (arma::uword j = 0; j < L; ++j)
          if (j != i) z += A(i, j) * V(a, seqs[b * L + j]);
        EXPECT_NEAR(Zt(b * L + i, a), z, 1e-13);
      }
}

// The fused kernel (the models' fast path) against the two-step reference
// (forward, cross-entropy, backward), for every vector count it is compiled
// for that the shapes reach (C = 4, 8, 12, 20, 32), odd and even numbers of
// used rows, unused rows and a sequence with none used. The two sum the same
// terms in another order with another rounding (one fma against a product
// and a sum), so they agree to a few ulp of the sums: 1e-12 relative in
// double (O(L C) terms of O(1)), 1e-4 in float (24-bit mantissa); a wrong
// term or index gives O(1).
// colours: the sequences use colours 0 .. colours - 1 only (the kernel's work
// follows the number of distinct colours of each sequence); 0: all C.
template <class T>
void check_fused_against_reference(arma::uword L, arma::uword C, double tol, arma::uword colours = 0) {
  const arma::uword B = 5;
  Rng rng(L * 100 + C + 1000 * colours, 4);
  const Mat<T> A = arma::conv_to<Mat<T>>::from(gaussian(L, L, rng, 0.5));
  const Mat<T> V = arma::conv_to<Mat<T>>::from(gaussian(C, C, rng, 1.0));
  std::vector<int> seqs(B * L), targets(B * L);
  for (arma::uword k = 0; k < B * L; ++k) {
    seqs[k] = int(rng.below(colours ? colours : C));
    const arma::uword b = k / L;
    // b = 0: all rows; b = 1: none; b >= 2: about two thirds
    const bool used = b == 0 || (b >= 2 && rng.below(3) != 0);
    targets[k] = used ? seqs[k] : -1;
  }
  Mat<T> Zt, Ht, P, dZt, dA_ref(L, L, arma::fill::zeros), dV_ref(C, C, arma::fill::zeros);
  factored_attention_forward(Zt, Ht, seqs, A, V, L);
  const double loss_ref = cross_entropy_rows_forward(P, Zt, targets);
  dZt.zeros(arma::size(Zt));
  cross_entropy_rows_backward(dZt, P, targets, 1.0);
  factored_attention_backward(dA_ref, dV_ref, dZt, Ht, seqs, V, L);
  Mat<T> dA(L, L, arma::fill::zeros), dV(C, C, arma::fill::zeros);
  const double loss = factored_attention_fused(seqs, targets, A, V, L, &dA, &dV);
  EXPECT_NEAR(loss, loss_ref, tol * std::abs(loss_ref)) << "L " << L << " C " << C;
  EXPECT_EQ(factored_attention_fused<T>(seqs, targets, A, V, L, nullptr, nullptr), loss);
  const double ga = arma::abs(arma::conv_to<arma::mat>::from(dA_ref)).max();
  const double gv = arma::abs(arma::conv_to<arma::mat>::from(dV_ref)).max();
  EXPECT_LT(arma::abs(arma::conv_to<arma::mat>::from(dA - dA_ref)).max(), tol * ga) << "dA, L " << L << " C " << C;
  EXPECT_LT(arma::abs(arma::conv_to<arma::mat>::from(dV - dV_ref)).max(), tol * gv) << "dV, L " << L << " C " << C;
  EXPECT_EQ(arma::accu(arma::abs(dA.diag())), T(0));
}

TEST(Layers, FusedFactoredAttentionMatchesTheTwoStepPath) {
  for (auto [L, C] : std::vector<std::pair<arma::uword, arma::uword>>{{20, 20}, {5, 4}, {7, 8}, {6, 12}, {9, 32}}) {
    ASSERT_TRUE(factored_attention_fused_supports(C));
    check_fused_against_reference<double>(L, C, 1e-12);
    check_fused_against_reference<float>(L, C, 1e-4);
  }
  // one colour in every sequence, two, and L = C with colours up to C
  for (arma::uword colours : {1, 2, 7}) {
    check_fused_against_reference<double>(20, 20, 1e-12, colours);
    check_fused_against_reference<float>(20, 20, 1e-4, colours);
  }
  check_fused_against_reference<double>(4, 4, 1e-12, 4);
  EXPECT_FALSE(factored_attention_fused_supports(5));  // the models fall back to the two steps
  EXPECT_FALSE(factored_attention_fused_supports(36));
}

}  // namespace
}  // namespace nn
}  // namespace potts
