// Tests of gemm (lib/linalg/gemm.h), the fixed-order matrix product that
// replaces BLAS in lib/nn, in double and float, for the four transpose
// combinations, odd and training sizes, strided operands and alpha/beta:
//  * bit for bit equal to the plain loop it documents (s = 0; s += a b for
//    p = 0, 1, ...; then alpha s + beta c, or alpha s when beta = 0), whatever
//    its blocking, vectors, slicing of long sums and split over threads;
//  * close to a long-double reference: |c - c_ref| <= tol (|alpha| sum_p
//    |a_p b_p| + |beta c|), the standard bound for a recursive sum being
//    (k + 2) u with u = 2^-53 (double) or 2^-24 (float). For k <= 33 that is
//    below 35 u = 3.9e-15 and 2.1e-6: tol = 1e-14 (double) and 1e-5 (float)
//    leave a margin of 2.5 to 5 and still catch any wrong term (O(1) error);
//  * C outside its m x n block (the ldc padding) untouched, and C not read
//    when beta = 0 (NaNs there do not leak);
//  * gemm_bias (the bias added after the sum, inside the product).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/linalg/gemm.h"

namespace potts {
namespace {

struct Case {
  bool ta, tb;
  arma::uword m, n, k;
  double alpha, beta;
};

// Operands with leading dimensions 3 larger than needed (strided access), C
// padded with a sentinel.
template <class T>
struct Operands {
  arma::uword lda, ldb, ldc;
  std::vector<T> A, B, C;
  Operands(const Case& c, Rng& rng, T c_fill) {                      // c_fill: NaN, or random values
    const arma::uword ar = c.ta ? c.k : c.m, ac = c.ta ? c.m : c.k;  // A is ar x ac
    const arma::uword br = c.tb ? c.n : c.k, bc = c.tb ? c.k : c.n;
    lda = ar + 3;
    ldb = br + 3;
    ldc = c.m + 3;
    A.resize(lda * std::max<arma::uword>(ac, 1));
    B.resize(ldb * std::max<arma::uword>(bc, 1));
    C.assign(ldc * std::max<arma::uword>(c.n, 1), T(7.5));  // sentinel in the padding
    for (auto& x : A) x = T(rng.normal());
    for (auto& x : B) x = T(rng.normal());
    for (arma::uword j = 0; j < c.n; ++j)
      for (arma::uword i = 0; i < c.m; ++i) C[i + j * ldc] = std::isnan(c_fill) ? c_fill : T(rng.normal());
  }
  T a(const Case& c, arma::uword i, arma::uword p) const { return c.ta ? A[p + i * lda] : A[i + p * lda]; }
  T b(const Case& c, arma::uword p, arma::uword j) const { return c.tb ? B[j + p * ldb] : B[p + j * ldb]; }
};

template <class T>
void check(const Case& c, std::uint64_t seed, double tol) {
  SCOPED_TRACE(::testing::Message() << (sizeof(T) == 8 ? "double" : "float") << " ta=" << c.ta << " tb=" << c.tb
                                    << " m=" << c.m << " n=" << c.n << " k=" << c.k << " alpha=" << c.alpha
                                    << " beta=" << c.beta);
  Rng rng(seed, 9);
  // beta = 0: C starts as NaN, which must not be read
  Operands<T> o(c, rng, c.beta == 0.0 ? std::numeric_limits<T>::quiet_NaN() : T(0));
  const std::vector<T> C0 = o.C;
  const T alpha = T(c.alpha), beta = T(c.beta);
  gemm(c.ta, c.tb, c.m, c.n, c.k, alpha, o.A.data(), o.lda, o.B.data(), o.ldb, beta, o.C.data(), o.ldc);
  int wrong_bits = 0, inaccurate = 0;
  double worst = 0.0;
  for (arma::uword j = 0; j < c.n; ++j)
    for (arma::uword i = 0; i < c.m; ++i) {
      const T c0 = C0[i + j * o.ldc], got = o.C[i + j * o.ldc];
      // the documented plain loop, in T
      T s = 0;
      for (arma::uword p = 0; p < c.k; ++p) s += o.a(c, i, p) * o.b(c, p, j);
      const T want = beta == T(0) ? alpha * s : alpha * s + beta * c0;
      if (std::memcmp(&got, &want, sizeof(T)) != 0) ++wrong_bits;
      // long double reference and the scale of its terms
      long double r = 0, scale = 0;
      for (arma::uword p = 0; p < c.k; ++p) {
        const long double t = (long double)o.a(c, i, p) * o.b(c, p, j);
        r += t;
        scale += std::fabs(t);
      }
      r *= c.alpha;
      scale *= std::fabs(c.alpha);
      if (beta != T(0)) {
        r += (long double)c.beta * c0;
        scale += std::fabs(c.beta * c0);
      }
      const double err = double(std::fabs((long double)got - r) / std::max(scale, (long double)1e-300));
      worst = std::max(worst, err);
      if (!(err <= tol)) ++inaccurate;
    }
  EXPECT_EQ(wrong_bits, 0) << "elements differing from the plain loop";
  EXPECT_EQ(inaccurate, 0) << "worst relative error " << worst;
  int padding_changed = 0;
  for (arma::uword j = 0; j < c.n; ++j)
    for (arma::uword i = c.m; i < o.ldc; ++i) padding_changed += o.C[i + j * o.ldc] != T(7.5);
  EXPECT_EQ(padding_changed, 0);
}

const double kAlphaBeta[][2] = {{1, 0}, {1, 1}, {0.5, 0}, {-1.25, 0.75}, {1, -2}};

TEST(Gemm, OddSizesAllTransposesMatchPlainLoopAndLongDouble) {
  const arma::uword sizes[] = {1, 3, 17, 20, 33};
  std::uint64_t seed = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (arma::uword m : sizes)
        for (arma::uword n : sizes)
          for (arma::uword k : sizes)
            for (const auto& ab : kAlphaBeta) {
              const Case c{ta, tb, m, n, k, ab[0], ab[1]};
              check<double>(c, seed, 1e-14);
              check<float>(c, seed++, 1e-5);
            }
}

// The shapes of one training batch (d = 20, feed-forward width 40, 100
// sequences of 20 tokens) and long sums cut into slices (k > 128): still the
// plain loop bit for bit; accuracy to the bound (k + 2) u, times 2.
TEST(Gemm, TrainingShapesMatchPlainLoop) {
  const arma::uword shapes[][3] = {{20, 2000, 20}, {40, 2000, 20}, {20, 2000, 40}, {20, 20, 2000}, {40, 20, 2000},
                                   {2000, 20, 20}, {20, 100, 20},  {21, 7, 300},   {5, 9, 129},    {44, 5, 1000}};
  std::uint64_t seed = 100;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const auto& s : shapes)
        for (const auto& ab : {kAlphaBeta[0], kAlphaBeta[1], kAlphaBeta[3]}) {
          const Case c{ta, tb, s[0], s[1], s[2], ab[0], ab[1]};
          check<double>(c, seed, 2.0 * (double(s[2]) + 2) * std::ldexp(1.0, -53));
          check<float>(c, seed++, 2.0 * (double(s[2]) + 2) * std::ldexp(1.0, -24));
        }
}

// Large products split C's columns over threads, each range at least 2^20
// multiply-adds: the shapes of a protein batch (100 sequences of 159 tokens,
// d = 20, feed-forward width 40) split into 2 to 7 ranges; each element is
// still the plain loop, bit for bit.
TEST(Gemm, ProteinBatchShapesMatchPlainLoopOnThreads) {
  const arma::uword shapes[][3] = {{20, 15900, 20}, {40, 15900, 20}, {20, 15900, 40}, {20, 20, 15900}, {40, 20, 15900}};
  for (int threads : {1, 2, 3, 7}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    set_parallel_threads(threads);
    std::uint64_t seed = 300;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (const auto& s : shapes) {
          const Case c{ta, tb, s[0], s[1], s[2], 1.0, threads % 2 ? 0.0 : 1.0};
          check<float>(c, seed++, 2.0 * (double(s[2]) + 2) * std::ldexp(1.0, -24));
        }
  }
  set_parallel_threads(1);
}

// gemm_bias adds the bias in the product's last step: Y[o, t] =
// (sum_i W[o, i] X[i, t], summed in order) + b[o] (lib/nn's linear layer).
template <class T>
void check_linear(arma::uword out, arma::uword in, arma::uword n, std::uint64_t seed) {
  Rng rng(seed, 10);
  arma::Mat<T> X(in, n), W(out, in), b(out, 1), Y(out, n);
  for (auto* m : {&X, &W, &b})
    for (auto& x : *m) x = T(rng.normal());
  gemm_bias(false, false, out, n, in, W.memptr(), out, X.memptr(), in, Y.memptr(), out, b.memptr());
  int wrong_bits = 0;
  for (arma::uword t = 0; t < n; ++t)
    for (arma::uword o = 0; o < out; ++o) {
      T s = 0;
      for (arma::uword i = 0; i < in; ++i) s += W(o, i) * X(i, t);
      const T want = s + b(o);
      wrong_bits += std::memcmp(&want, &Y(o, t), sizeof(T)) != 0;
    }
  EXPECT_EQ(wrong_bits, 0) << out << " x " << in << ", " << n << " columns";
}

TEST(Gemm, BiasAddedAfterTheSum) {
  const arma::uword shapes[][3] = {{20, 20, 2000}, {40, 20, 2000}, {20, 40, 100}, {7, 13, 5}, {1, 1, 1}};
  std::uint64_t seed = 200;
  for (const auto& s : shapes) {
    check_linear<double>(s[0], s[1], s[2], seed);
    check_linear<float>(s[0], s[1], s[2], seed++);
  }
}

// Degenerate sizes: nothing to do for m = 0 or n = 0; k = 0 gives beta C.
TEST(Gemm, EmptyProducts) {
  std::vector<double> A(4, 1.0), B(4, 1.0), C = {1.0, 2.0, 3.0, 4.0};
  gemm(false, false, 0, 2, 2, 1.0, A.data(), 1, B.data(), 2, 0.0, C.data(), 1);
  gemm(false, false, 2, 0, 2, 1.0, A.data(), 2, B.data(), 2, 0.0, C.data(), 2);
  EXPECT_EQ(C, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  gemm(false, false, 2, 2, 0, 1.0, A.data(), 2, B.data(), 1, 0.5, C.data(), 2);
  EXPECT_EQ(C, (std::vector<double>{0.5, 1.0, 1.5, 2.0}));
  for (const auto& ab : kAlphaBeta) check<double>(Case{true, false, 5, 6, 0, ab[0], ab[1]}, 3, 1e-14);
}

}  // namespace
}  // namespace potts
