// Packed products (dense_product.h).
#include "lib/estimators/dense_product.h"

#include <algorithm>
#include <vector>

#include "lib/core/parallel.h"

namespace potts {
namespace {

// The tile kernels are compiled for AVX-512, AVX2 and baseline x86-64; each
// lane runs the same IEEE multiplications and additions in the same order
// (no FMA: -ffp-contract=off), so every clone gives the same bits.
#if defined(POTTS_DP_BASELINE_ONLY)
#define POTTS_DP_KERNEL __attribute__((noinline))
#elif defined(POTTS_DP_AVX2_ONLY)  // a benchmark's build of the AVX2 clone alone
#define POTTS_DP_KERNEL __attribute__((target("avx2"), noinline))
#else
#define POTTS_DP_KERNEL __attribute__((target_clones("avx512f", "avx2", "default"), noinline))
#endif
// 64 bytes of T at any T boundary: a zmm register, two ymm or four xmm.
typedef double Lanes8 __attribute__((vector_size(64), aligned(8), may_alias));
typedef float Lanes16 __attribute__((vector_size(64), aligned(4), may_alias));

template <class T>
struct Shape;
template <>
struct Shape<double> {
  typedef Lanes8 V;
  static constexpr arma::uword W = 8;
};
template <>
struct Shape<float> {
  typedef Lanes16 V;
  static constexpr arma::uword W = 16;
};

// The register tile of C: two vectors of rows (16 doubles, 32 floats) by NR columns.
template <class T>
constexpr arma::uword MR = 2 * Shape<T>::W;
constexpr arma::uword NR = 12;
constexpr arma::uword KC = 256;        // a slice of the sum (packed operands stay in cache)
constexpr arma::uword NB = 8;          // column panels per block
constexpr arma::uword kWholeB = 1024;  // up to this many columns, a slice of op(B) is packed whole

// The tile C[0..MR-1, 0..NR-1] (leading dimension ldc) = its running sums
// (unless `first`: from zero) plus sum_p ap[MR p + r] bp[NR p + j], p in order.
template <class T>
inline __attribute__((always_inline)) void tile_body(const T* ap, const T* bp, arma::uword kc, T* C, arma::uword ldc,
                                                     bool first) {
  typedef typename Shape<T>::V V;
  constexpr arma::uword W = Shape<T>::W, M = MR<T>;
  V c[NR][2];
  for (arma::uword j = 0; j < NR; ++j) {
    if (first) {
      c[j][0] = V{};
      c[j][1] = V{};
    } else {
      c[j][0] = *reinterpret_cast<const V*>(C + j * ldc);
      c[j][1] = *reinterpret_cast<const V*>(C + j * ldc + W);
    }
  }
  for (arma::uword p = 0; p < kc; ++p) {
    const V a0 = *reinterpret_cast<const V*>(ap + M * p);
    const V a1 = *reinterpret_cast<const V*>(ap + M * p + W);
    const T* b = bp + NR * p;
    for (arma::uword j = 0; j < NR; ++j) {
      c[j][0] += a0 * b[j];
      c[j][1] += a1 * b[j];
    }
  }
  for (arma::uword j = 0; j < NR; ++j) {
    *reinterpret_cast<V*>(C + j * ldc) = c[j][0];
    *reinterpret_cast<V*>(C + j * ldc + W) = c[j][1];
  }
}

POTTS_DP_KERNEL void tile_kernel(const double* ap, const double* bp, arma::uword kc, double* C, arma::uword ldc,
                                 bool first) {
  tile_body(ap, bp, kc, C, ldc, first);
}
POTTS_DP_KERNEL void tile_kernel(const float* ap, const float* bp, arma::uword kc, float* C, arma::uword ldc,
                                 bool first) {
  tile_body(ap, bp, kc, C, ldc, first);
}

// bp[(q - q0) KC NR + NR p + j] = op(B)[pc + p, q NR + j] for panels q0 .. q1 - 1,
// p < kc; zero beyond column n.
template <class T>
void pack_b(bool trans_b, const T* B, arma::uword ldb, arma::uword n, arma::uword pc, arma::uword kc, arma::uword q0,
            arma::uword q1, T* bp) {
  for (arma::uword q = q0; q < q1; ++q) {
    T* dst = bp + (q - q0) * NR * KC;
    const arma::uword nr = std::min(NR, n - q * NR);
    for (arma::uword j = nr; j < NR; ++j)
      for (arma::uword p = 0; p < kc; ++p) dst[NR * p + j] = T(0);
    if (!trans_b) {
      for (arma::uword j = 0; j < nr; ++j) {
        const T* src = B + pc + ldb * (q * NR + j);
        for (arma::uword p = 0; p < kc; ++p) dst[NR * p + j] = src[p];
      }
    } else {
      for (arma::uword p = 0; p < kc; ++p) {
        const T* src = B + (pc + p) * ldb + q * NR;
        for (arma::uword j = 0; j < nr; ++j) dst[NR * p + j] = src[j];
      }
    }
  }
}

// ap[MR p + r] = op(A)[i0 + r, pc + p], p < kc; zero beyond row m.
template <class T>
void pack_a(bool trans_a, const T* A, arma::uword lda, arma::uword m, arma::uword i0, arma::uword pc, arma::uword kc,
            T* ap) {
  constexpr arma::uword M = MR<T>;
  const arma::uword mr = std::min(M, m - i0);
  if (!trans_a) {
    for (arma::uword p = 0; p < kc; ++p) {
      const T* src = A + i0 + lda * (pc + p);
      T* dst = ap + M * p;
      for (arma::uword r = 0; r < mr; ++r) dst[r] = src[r];
      for (arma::uword r = mr; r < M; ++r) dst[r] = T(0);
    }
  } else {
    for (arma::uword r = 0; r < M; ++r) {
      if (r >= mr) {
        for (arma::uword p = 0; p < kc; ++p) ap[M * p + r] = T(0);
        continue;
      }
      const T* src = A + pc + lda * (i0 + r);
      for (arma::uword p = 0; p < kc; ++p) ap[M * p + r] = src[p];
    }
  }
}

// The tile of C at C (mr x nr of it inside C).
template <class T>
void run_tile(const T* ap, const T* bq, arma::uword kc, T* C, arma::uword ldc, arma::uword mr, arma::uword nr,
              bool first, T* tmp) {
  constexpr arma::uword M = MR<T>;
  if (mr == M && nr == NR) {
    tile_kernel(ap, bq, kc, C, ldc, first);
    return;
  }
  // An edge tile: through a full-size copy (exact: values stored and reloaded).
  if (!first)
    for (arma::uword j = 0; j < nr; ++j)
      for (arma::uword r = 0; r < mr; ++r) tmp[r + M * j] = C[r + ldc * j];
  tile_kernel(ap, bq, kc, tmp, M, first);
  for (arma::uword j = 0; j < nr; ++j)
    for (arma::uword r = 0; r < mr; ++r) C[r + ldc * j] = tmp[r + M * j];
}

template <class T>
void product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const T* A, arma::uword lda,
             const T* B, arma::uword ldb, T* C, arma::uword ldc) {
  constexpr arma::uword M = MR<T>;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (arma::uword j = 0; j < n; ++j) std::fill(C + j * ldc, C + j * ldc + m, T(0));
    return;
  }
  // Packing buffers live per thread for the life of the process: a fresh
  // allocation per call would fault its pages in every time.
  const arma::uword panels = (n + NR - 1) / NR, tiles = (m + M - 1) / M;
  if (tiles > panels || n <= kWholeB) {
    // Tall or narrow C: every slice of op(B) packed once, whole; the threads
    // split the row tiles, each packing its A tile once per slice.
    // (The caller's buffer, shared by pointer: a thread_local named inside
    // the lambdas would be each worker's own.)
    thread_local std::vector<T> whole_b;
    whole_b.resize(panels * NR * KC);
    T* const bp = whole_b.data();
    for (arma::uword pc = 0; pc < k; pc += KC) {
      const arma::uword kc = std::min(KC, k - pc);
      parallel_ranges(panels,
                      [&](std::size_t q0, std::size_t q1) { pack_b(trans_b, B, ldb, n, pc, kc, q0, q1, bp + q0 * NR * KC); });
      parallel_ranges(tiles, [&](std::size_t t0, std::size_t t1) {
        thread_local std::vector<T> ap(M * KC), tmp(M * NR);
        for (arma::uword t = t0; t < t1; ++t) {
          const arma::uword i0 = t * M, mr = std::min(M, m - i0);
          pack_a(trans_a, A, lda, m, i0, pc, kc, ap.data());
          for (arma::uword q = 0; q < panels; ++q)
            run_tile(ap.data(), bp + q * NR * KC, kc, C + i0 + ldc * q * NR, ldc, mr, std::min(NR, n - q * NR),
                     pc == 0, tmp.data());
        }
      });
    }
    return;
  }
  // Wide C: the threads split the column panels, in blocks of NB whose
  // slice of op(B) stays in cache while every row tile passes over it.
  parallel_ranges(panels, [&](std::size_t q0, std::size_t q1) {
    thread_local std::vector<T> ap(M * KC), bp(NB * NR * KC), tmp(M * NR);
    for (arma::uword b0 = q0; b0 < q1; b0 += NB) {
      const arma::uword b1 = std::min<arma::uword>(q1, b0 + NB);
      for (arma::uword pc = 0; pc < k; pc += KC) {
        const arma::uword kc = std::min(KC, k - pc);
        pack_b(trans_b, B, ldb, n, pc, kc, b0, b1, bp.data());
        for (arma::uword i0 = 0; i0 < m; i0 += M) {
          pack_a(trans_a, A, lda, m, i0, pc, kc, ap.data());
          for (arma::uword q = b0; q < b1; ++q)
            run_tile(ap.data(), bp.data() + (q - b0) * NR * KC, kc, C + i0 + ldc * q * NR, ldc, std::min(M, m - i0),
                     std::min(NR, n - q * NR), pc == 0, tmp.data());
        }
      }
    }
  });
}

}  // namespace

void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const double* A,
                   arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc) {
  product(trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const float* A,
                   arma::uword lda, const float* B, arma::uword ldb, float* C, arma::uword ldc) {
  product(trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

}  // namespace potts
