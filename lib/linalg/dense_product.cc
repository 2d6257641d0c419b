// Packed products (dense_product.h), one register tile per instruction-set
// level.
#include "lib/linalg/dense_product.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/core/parallel.h"

namespace potts {
namespace {

// The register tile of C: RV vectors of rows (VB bytes each) by NR columns,
// sized per instruction-set level so that its accumulators, the column of A
// and a broadcast element of B fit the level's registers without spilling:
//   AVX-512 (32 zmm): 2 x 12 = 24 accumulators;
//   AVX2 (16 ymm) and baseline (16 xmm): 2 x 6 = 12 accumulators.
// Each element of C is still its own sum in p's order with a separate
// multiplication and addition (no FMA: -ffp-contract=off), so every shape
// and every level gives the same bits.
template <class T, unsigned VB, unsigned RV, unsigned NC>
struct Tile {
  typedef T V __attribute__((vector_size(VB), aligned(sizeof(T)), may_alias));
  static constexpr arma::uword W = VB / sizeof(T), MR = RV * W, NR = NC;

  // C[0..MR-1, 0..NR-1] (leading dimension ldc) = its running sums (unless
  // `first`: from zero) plus sum_p ap[MR p + r] bp[NR p + j], p in order.
  static inline __attribute__((always_inline)) void body(const T* ap, const T* bp, arma::uword kc, T* C,
                                                         arma::uword ldc, bool first) {
    V c[NC][RV];
    for (arma::uword j = 0; j < NC; ++j)
      for (arma::uword r = 0; r < RV; ++r) c[j][r] = first ? V{} : *reinterpret_cast<const V*>(C + j * ldc + r * W);
    for (arma::uword p = 0; p < kc; ++p) {
      V a[RV];
      for (arma::uword r = 0; r < RV; ++r) a[r] = *reinterpret_cast<const V*>(ap + MR * p + r * W);
      const T* b = bp + NC * p;
      for (arma::uword j = 0; j < NC; ++j)
        for (arma::uword r = 0; r < RV; ++r) c[j][r] += a[r] * b[j];
    }
    for (arma::uword j = 0; j < NC; ++j)
      for (arma::uword r = 0; r < RV; ++r) *reinterpret_cast<V*>(C + j * ldc + r * W) = c[j][r];
  }
};

template <class T>
using Avx512Tile = Tile<T, 64, 2, 12>;
template <class T>
using Avx2Tile = Tile<T, 32, 2, 6>;
template <class T>
using BaselineTile = Tile<T, 16, 2, 6>;

// Each level's tile.
template <IsaLevel L, class T>
struct TileAt;
template <class T>
struct TileAt<IsaLevel::kAvx512, T> : Avx512Tile<T> {};
template <class T>
struct TileAt<IsaLevel::kAvx2, T> : Avx2Tile<T> {};
template <class T>
struct TileAt<IsaLevel::kBaseline, T> : BaselineTile<T> {};

// One kernel per level and type (lib/core/isa.h), each compiled for its own
// instruction set.
#define POTTS_DP_TILE_CLONE(level, suffix, attrs)                                                                     \
  attrs void tile_##suffix(const double* ap, const double* bp, arma::uword kc, double* C, arma::uword ldc,            \
                           bool first) {                                                                              \
    TileAt<level, double>::body(ap, bp, kc, C, ldc, first);                                                           \
  }                                                                                                                   \
  attrs void tile_##suffix(const float* ap, const float* bp, arma::uword kc, float* C, arma::uword ldc, bool first) { \
    TileAt<level, float>::body(ap, bp, kc, C, ldc, first);                                                            \
  }
POTTS_ISA_CLONES(POTTS_DP_TILE_CLONE)
#undef POTTS_DP_TILE_CLONE

// A level's tile shape with its kernel.
template <class T, class TileT, void (*kKernel)(const T*, const T*, arma::uword, T*, arma::uword, bool)>
struct Level {
  static constexpr arma::uword MR = TileT::MR, NR = TileT::NR;
  static void kernel(const T* ap, const T* bp, arma::uword kc, T* C, arma::uword ldc, bool first) {
    kKernel(ap, bp, kc, C, ldc, first);
  }
};

constexpr arma::uword KC = 256;            // a slice of the sum (packed operands stay in cache)
constexpr arma::uword kBlockColumns = 96;  // columns of op(B) per block of panels (wide products)
constexpr arma::uword kWholeB = 1024;      // up to this many columns, a slice of op(B) is packed whole

// bp[(q - q0) KC NR + NR p + j] = op(B)[pc + p, q NR + j] for panels q0 .. q1 - 1,
// p < kc; zero beyond column n.
template <arma::uword NR, class T>
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

// ap[M p + r] = op(A)[i0 + r, pc + p], p < kc; zero beyond row m.
template <arma::uword M, class T>
void pack_a(bool trans_a, const T* A, arma::uword lda, arma::uword m, arma::uword i0, arma::uword pc, arma::uword kc,
            T* ap) {
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
template <class Lv, class T>
void run_tile(const T* ap, const T* bq, arma::uword kc, T* C, arma::uword ldc, arma::uword mr, arma::uword nr,
              bool first, T* tmp) {
  constexpr arma::uword M = Lv::MR, NR = Lv::NR;
  if (mr == M && nr == NR) {
    Lv::kernel(ap, bq, kc, C, ldc, first);
    return;
  }
  // An edge tile: through a full-size copy (exact: values stored and reloaded).
  if (!first)
    for (arma::uword j = 0; j < nr; ++j)
      for (arma::uword r = 0; r < mr; ++r) tmp[r + M * j] = C[r + ldc * j];
  Lv::kernel(ap, bq, kc, tmp, M, first);
  for (arma::uword j = 0; j < nr; ++j)
    for (arma::uword r = 0; r < mr; ++r) C[r + ldc * j] = tmp[r + M * j];
}

template <class Lv, class T>
void product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const T* A, arma::uword lda,
             const T* B, arma::uword ldb, T* C, arma::uword ldc) {
  constexpr arma::uword M = Lv::MR, NR = Lv::NR, NB = kBlockColumns / NR;
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
      parallel_ranges(panels, [&](std::size_t q0, std::size_t q1) {
        pack_b<NR>(trans_b, B, ldb, n, pc, kc, q0, q1, bp + q0 * NR * KC);
      });
      parallel_ranges(tiles, [&](std::size_t t0, std::size_t t1) {
        thread_local std::vector<T> ap(M * KC), tmp(M * NR);
        for (arma::uword t = t0; t < t1; ++t) {
          const arma::uword i0 = t * M, mr = std::min(M, m - i0);
          pack_a<M>(trans_a, A, lda, m, i0, pc, kc, ap.data());
          for (arma::uword q = 0; q < panels; ++q)
            run_tile<Lv>(ap.data(), bp + q * NR * KC, kc, C + i0 + ldc * q * NR, ldc, mr, std::min(NR, n - q * NR),
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
        pack_b<NR>(trans_b, B, ldb, n, pc, kc, b0, b1, bp.data());
        for (arma::uword i0 = 0; i0 < m; i0 += M) {
          pack_a<M>(trans_a, A, lda, m, i0, pc, kc, ap.data());
          for (arma::uword q = b0; q < b1; ++q)
            run_tile<Lv>(ap.data(), bp.data() + (q - b0) * NR * KC, kc, C + i0 + ldc * q * NR, ldc, std::min(M, m - i0),
                         std::min(NR, n - q * NR), pc == 0, tmp.data());
        }
      }
    }
  });
}

template <class T>
void product_at(IsaLevel level, bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const T* A,
                arma::uword lda, const T* B, arma::uword ldb, T* C, arma::uword ldc) {
  typedef void (*Kernel)(const T*, const T*, arma::uword, T*, arma::uword, bool);
  switch (level) {
    case IsaLevel::kAvx512:
      return product<Level<T, Avx512Tile<T>, static_cast<Kernel>(tile_avx512)>>(trans_a, trans_b, m, n, k, A, lda, B,
                                                                                ldb, C, ldc);
    case IsaLevel::kAvx2:
      return product<Level<T, Avx2Tile<T>, static_cast<Kernel>(tile_avx2)>>(trans_a, trans_b, m, n, k, A, lda, B, ldb,
                                                                            C, ldc);
    case IsaLevel::kBaseline:
      break;
  }
  product<Level<T, BaselineTile<T>, static_cast<Kernel>(tile_baseline)>>(trans_a, trans_b, m, n, k, A, lda, B, ldb, C,
                                                                         ldc);
}

void check_level(IsaLevel level) {
  if (int(level) > int(isa_level()))
    throw std::invalid_argument(std::string("dense_product_at: level ") + isa_name(level) + " above this CPU's " +
                                isa_name(isa_level()));
}

}  // namespace

void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const double* A,
                   arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc) {
  product_at(isa_level(), trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

void dense_product(bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k, const float* A,
                   arma::uword lda, const float* B, arma::uword ldb, float* C, arma::uword ldc) {
  product_at(isa_level(), trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

void dense_product_at(IsaLevel level, bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k,
                      const double* A, arma::uword lda, const double* B, arma::uword ldb, double* C, arma::uword ldc) {
  check_level(level);
  product_at(level, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

void dense_product_at(IsaLevel level, bool trans_a, bool trans_b, arma::uword m, arma::uword n, arma::uword k,
                      const float* A, arma::uword lda, const float* B, arma::uword ldb, float* C, arma::uword ldc) {
  check_level(level);
  product_at(level, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc);
}

}  // namespace potts
