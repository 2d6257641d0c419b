// dense_product (dense_product.h) bit for bit against lib/nn's gemm (alpha
// 1, beta 0: each element the sequential sum), for every transposition,
// shapes with edge tiles and sums longer than one slice, at 1 and 3 threads,
// at every instruction-set level this CPU runs (each its own tile shape).
#include "lib/linalg/dense_product.h"

#include <cstring>

#include <gtest/gtest.h>

#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/linalg/gemm.h"

namespace potts {
namespace {

template <class T>
arma::Mat<T> random_mat(arma::uword r, arma::uword c, std::uint64_t seed) {
  Rng rng(seed, 3);
  arma::Mat<T> m(r, c);
  for (auto& v : m) v = T(rng.uniform() - 0.5);
  return m;
}

template <class T>
void check_shape(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k) {
  const arma::Mat<T> A = ta ? random_mat<T>(k, m, 1) : random_mat<T>(m, k, 1);
  const arma::Mat<T> B = tb ? random_mat<T>(n, k, 2) : random_mat<T>(k, n, 2);
  arma::Mat<T> ref(m + 3, n), mine(m + 3, n);  // ldc > m: rows below m untouched
  ref.fill(T(7));
  mine.fill(T(7));
  gemm(ta, tb, m, n, k, T(1), A.memptr(), A.n_rows, B.memptr(), B.n_rows, T(0), ref.memptr(), m + 3);
  for (int level = 0; level <= int(isa_level()); ++level)
    for (int threads : {1, 3}) {
      set_parallel_threads(threads);
      arma::Mat<T> out = mine;
      dense_product_at(IsaLevel(level), ta, tb, m, n, k, A.memptr(), A.n_rows, B.memptr(), B.n_rows, out.memptr(),
                       m + 3);
      EXPECT_EQ(std::memcmp(out.memptr(), ref.memptr(), out.n_elem * sizeof(T)), 0)
          << isa_name(IsaLevel(level)) << " ta " << ta << " tb " << tb << " m " << m << " n " << n << " k " << k
          << " threads " << threads << ": largest difference " << arma::abs(out - ref).max();
    }
  arma::Mat<T> out = mine;  // the level the CPU picks
  dense_product(ta, tb, m, n, k, A.memptr(), A.n_rows, B.memptr(), B.n_rows, out.memptr(), m + 3);
  EXPECT_EQ(std::memcmp(out.memptr(), ref.memptr(), out.n_elem * sizeof(T)), 0);
  set_parallel_threads(1);
}

TEST(DenseProduct, BitsOfTheSequentialSumForEveryTransposition) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      for (int f = 0; f < 2; ++f) {
        auto check = f ? check_shape<float> : check_shape<double>;
        check(ta, tb, 16, 12, 5);      // one full AVX-512 double tile
        check(ta, tb, 32, 12, 7);      // one full AVX-512 float tile
        check(ta, tb, 8, 6, 3);        // one full AVX2 double tile, two baseline ones
        check(ta, tb, 16, 6, 9);       // one full AVX2 float tile
        check(ta, tb, 37, 29, 300);    // edge tiles, two slices of the sum
        check(ta, tb, 64, 1100, 513);  // wide: several blocks of panels, three slices
        check(ta, tb, 1100, 40, 260);  // tall
        check(ta, tb, 3, 1, 1);
      }
    }
}

TEST(DenseProduct, ALevelAboveTheCpuIsRefused) {
  if (isa_level() == IsaLevel::kAvx512) GTEST_SKIP() << "this CPU runs every level";
  double a = 1.0, c = 0.0;
  EXPECT_THROW(dense_product_at(IsaLevel::kAvx512, false, false, 1, 1, 1, &a, 1, &a, 1, &c, 1), std::invalid_argument);
}

TEST(DenseProduct, EmptySumWritesZeros) {
  arma::mat C(4, 5);
  C.fill(3.0);
  const double dummy = 1.0;
  dense_product(false, false, 4, 5, 0, &dummy, 4, &dummy, 1, C.memptr(), 4);
  EXPECT_EQ(arma::abs(C).max(), 0.0);
}

}  // namespace
}  // namespace potts
