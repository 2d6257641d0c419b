#include "lib/linalg/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "lib/core/parallel.h"
#include "lib/core/isa.h"

namespace potts {

// C = alpha op(A) op(B) + beta C, column-major as BLAS xGEMM, hand-written so
// that the bits do not depend on the CPU. Every element is the plain loop
//   s = 0;  for p = 0, ..., k-1:  s += op(A)[i, p] op(B)[p, j];
//   C[i, j] = alpha s + beta C[i, j]        (alpha s when beta == 0: C unread)
// with one rounding per product and per sum (no FMA: -ffp-contract=off).
// BLAS libraries pick their kernels by CPU (FMA or not, sums split into
// partial sums blocked differently), so their last bits vary between
// machines. These kernels vectorise ACROSS output rows (one independent sum
// per vector lane) and block rows, columns and p without ever regrouping a
// sum: any blocking, vector width or clone (AVX2, baseline SSE2) gives the
// bits of the loop above. lib/linalg:gemm_test checks that bit for bit
// at every level (tools/isa.bzl).
//
// Register blocking: a tile of MV 32-byte vectors (plus HV = 0 or 1 16-byte
// half, so that 20 floats need no padding) of rows by NR columns of C stays
// in registers for the whole sum; step p loads the tile's piece of column p
// of op(A), broadcasts NR scalars of row p of op(B) and does the MV NR
// independent multiply-adds. op(A) is read in place when not transposed (its
// columns are contiguous); transposed, or when its rows do not fill the
// tile, it is first copied into a panel (the tile's rows contiguous per p,
// zero-padded). op(B) is read in place through its two strides. Sums longer
// than KC are cut into slices of p, so that a slice of op(A) stays in the L1
// cache while every column tile uses it; between slices the running sums wait
// in memory (stored and reloaded exactly: the same bits). Sized for the
// training shapes: 20 or 40 rows (model width d, feed-forward width 2d) by
// thousands of token columns with k = 20 or 40; thousands of rows (factored
// attention); k = thousands of tokens (weight gradients).
template <class T>
struct Vecs;
template <>
struct Vecs<double> {
  typedef double Full __attribute__((vector_size(32)));
  typedef double Half __attribute__((vector_size(16)));
  typedef long long FullMask __attribute__((vector_size(32)));  // lane indices for __builtin_shuffle
  typedef long long HalfMask __attribute__((vector_size(16)));
};
template <>
struct Vecs<float> {
  typedef float Full __attribute__((vector_size(32)));
  typedef float Half __attribute__((vector_size(16)));
  typedef int FullMask __attribute__((vector_size(32)));
  typedef int HalfMask __attribute__((vector_size(16)));
};

// Unaligned loads and stores. Out-parameters: returning a 32-byte vector
// from a function compiled without AVX would change the ABI.
template <class V, class T>
__attribute__((always_inline)) inline void vload(V& v, const T* p) {
  std::memcpy(&v, p, sizeof v);
}
template <class V, class T>
__attribute__((always_inline)) inline void vstore(T* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

// How a finished sum s enters C (decided once per product):
//   kSet: C = s (alpha = 1, beta = 0);  kAdd: C = s + C (alpha = beta = 1);
//   kScale: C = alpha s + beta C, or alpha s when beta = 0 (C unread);
//   kBias: C[i, j] = s + bias[i] (linear layers: the bits of C = bias 1^T,
//   then kAdd, without the extra pass over C).
// kSet and kAdd are kScale without its exact multiplications by 1.
enum class Update { kSet, kAdd, kBias, kScale };

// What every tile of one product shares: op(B)[p, j] = B[p brs + j bcs].
template <class T>
struct GemmOperands {
  const T* B;
  arma::uword brs, bcs;
  T alpha, beta;
  Update update;
  const T* bias;  // kBias only
  T* C;
  arma::uword ldc;
};

// c = the update of c by s, lane-wise, for a vector (V) or a scalar (V = T);
// bias: the bias of c's row(s) (kBias only).
template <Update U, class V, class T>
__attribute__((always_inline)) inline void finish(T* c, const V& sum, T alpha, T beta, const T* bias) {
  V s = sum;
  if (U == Update::kScale) s = alpha * s;
  if (U == Update::kAdd || U == Update::kBias || (U == Update::kScale && beta != T(0))) {
    V y;
    vload(y, U == Update::kBias ? bias : c);
    s += U == Update::kScale ? beta * y : y;
  }
  vstore(c, s);
}

// One tile: rows i0 .. i0 + mr - 1 (mr <= MR) and columns j0 .. j0 + NR - 1
// of C, summed over p = p0 .. p0 + kk - 1, with op(A)[i0 + r, p0 + q] =
// a[r + q acs]. Unless `first`, the running sums start from `part` (MR x NR,
// column-major); unless `last`, they go back there instead of into C.
template <class T, int MV, int HV, int NR>
__attribute__((always_inline)) inline void gemm_tile(const GemmOperands<T>& g, arma::uword p0, arma::uword kk,
                                                     const T* a, arma::uword acs, arma::uword i0, arma::uword j0,
                                                     arma::uword mr, T* part, bool first, bool last) {
  using V = typename Vecs<T>::Full;
  using H = typename Vecs<T>::Half;
  constexpr int W = sizeof(V) / sizeof(T), MR = MV * W + HV * W / 2, MVA = MV ? MV : 1;
  V acc[MVA][NR] = {};
  H acch[NR] = {};
  if (!first) {
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 8
      for (int v = 0; v < MV; ++v) vload(acc[v][j], part + j * MR + v * W);
      if (HV) vload(acch[j], part + j * MR + MV * W);
    }
  }
  const T* b = g.B + p0 * g.brs + j0 * g.bcs;
  for (arma::uword q = 0; q < kk; ++q) {
    const T* ap = a + q * acs;
    const T* bp = b + q * g.brs;
    // Each acc += x y is a multiplication, then an addition. The order of the
    // statements only steers which operands GCC keeps in registers: the
    // smaller set, NR broadcasts or MV + HV pieces of column q.
    if constexpr (NR <= MV + HV) {
      T bs[NR];
#pragma GCC unroll 8
      for (int j = 0; j < NR; ++j) bs[j] = bp[j * g.bcs];
#pragma GCC unroll 8
      for (int v = 0; v < MV; ++v) {
        V av;
        vload(av, ap + v * W);
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) acc[v][j] += av * bs[j];
      }
      if (HV) {
        H ah;
        vload(ah, ap + MV * W);
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) acch[j] += ah * bs[j];
      }
    } else {
      V av[MVA];
      H ah;
#pragma GCC unroll 8
      for (int v = 0; v < MV; ++v) vload(av[v], ap + v * W);
      if (HV) vload(ah, ap + MV * W);
#pragma GCC unroll 8
      for (int j = 0; j < NR; ++j) {
        const T bj = bp[j * g.bcs];
#pragma GCC unroll 8
        for (int v = 0; v < MV; ++v) acc[v][j] += av[v] * bj;
        if (HV) acch[j] += ah * bj;
      }
    }
  }
  if (!last) {
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 8
      for (int v = 0; v < MV; ++v) vstore(part + j * MR + v * W, acc[v][j]);
      if (HV) vstore(part + j * MR + MV * W, acch[j]);
    }
    return;
  }
  auto store = [&](auto update) {
    constexpr Update U = decltype(update)::value;
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      T* c = g.C + i0 + (j0 + j) * g.ldc;
      auto bias = [&](arma::uword r) { return U == Update::kBias ? g.bias + i0 + r : nullptr; };
      if (mr == MR) {
#pragma GCC unroll 8
        for (int v = 0; v < MV; ++v) finish<U>(c + v * W, acc[v][j], g.alpha, g.beta, bias(v * W));
        if (HV) finish<U>(c + MV * W, acch[j], g.alpha, g.beta, bias(MV * W));
      } else {  // the panel's last rows: the same operations lane by lane
        T s[MR];
#pragma GCC unroll 8
        for (int v = 0; v < MV; ++v) vstore(s + v * W, acc[v][j]);  // copies: acc stays in registers
        if (HV) vstore(s + MV * W, acch[j]);
        for (arma::uword r = 0; r < mr; ++r) finish<U>(c + r, s[r], g.alpha, g.beta, bias(r));
      }
    }
  };
  switch (g.update) {
    case Update::kSet:
      return store(std::integral_constant<Update, Update::kSet>());
    case Update::kAdd:
      return store(std::integral_constant<Update, Update::kAdd>());
    case Update::kBias:
      return store(std::integral_constant<Update, Update::kBias>());
    case Update::kScale:
      return store(std::integral_constant<Update, Update::kScale>());
  }
}

// The last nr < NR columns: one tile of exactly that width.
template <class T, int MV, int HV, int R>
__attribute__((always_inline)) inline void gemm_tail(arma::uword nr, const GemmOperands<T>& g, arma::uword p0,
                                                     arma::uword kk, const T* a, arma::uword acs, arma::uword i0,
                                                     arma::uword j0, arma::uword mr, T* part, bool first, bool last) {
  if constexpr (R > 0) {
    if (nr == R)
      gemm_tile<T, MV, HV, R>(g, p0, kk, a, acs, i0, j0, mr, part, first, last);
    else
      gemm_tail<T, MV, HV, R - 1>(nr, g, p0, kk, a, acs, i0, j0, mr, part, first, last);
  }
}

// In-register transpose of a w x w block of vectors V of w lanes (x[c]
// holds column c; afterwards x[r] holds row r): log2(w) rounds, each
// exchanging the off-diagonal b x b blocks of every 2b x 2b block. Moves
// data only.
template <class V, class M, int w>
__attribute__((always_inline)) inline void transpose_round(V (&x)[w], int b, const M& lo, const M& hi) {
#pragma GCC unroll 8
  for (int i = 0; i < w; ++i)
    if ((i & b) == 0) {
      const V u = x[i], v = x[i + b];
      x[i] = __builtin_shuffle(u, v, lo);
      x[i + b] = __builtin_shuffle(u, v, hi);
    }
}
template <class M, class V>
__attribute__((always_inline)) inline void transpose_square(V (&x)[2]) {
  transpose_round(x, 1, M{0, 2}, M{1, 3});
}
template <class M, class V>
__attribute__((always_inline)) inline void transpose_square(V (&x)[4]) {
  transpose_round(x, 2, M{0, 1, 4, 5}, M{2, 3, 6, 7});
  transpose_round(x, 1, M{0, 4, 2, 6}, M{1, 5, 3, 7});
}
template <class M, class V>
__attribute__((always_inline)) inline void transpose_square(V (&x)[8]) {
  transpose_round(x, 4, M{0, 1, 2, 3, 8, 9, 10, 11}, M{4, 5, 6, 7, 12, 13, 14, 15});
  transpose_round(x, 2, M{0, 1, 8, 9, 4, 5, 12, 13}, M{2, 3, 10, 11, 6, 7, 14, 15});
  transpose_round(x, 1, M{0, 8, 2, 10, 4, 12, 6, 14}, M{1, 9, 3, 11, 5, 13, 7, 15});
}

// Copies the w x w blocks of rows r0, r0 + w, ... < r1 and columns q0 = 0,
// w, ... < kk - kk % w of a transposed op(A) (op(A)[i, p] = A[p + i lda])
// into the panel, through vectors V of w lanes. Returns the rows done.
template <class V, class M, class T>
__attribute__((always_inline)) inline arma::uword pack_transposed(T* panel, arma::uword MR, const T* A, arma::uword lda,
                                                                  arma::uword i0, arma::uword r0, arma::uword r1,
                                                                  arma::uword p0, arma::uword kk) {
  constexpr int w = sizeof(V) / sizeof(T);
  arma::uword r = r0;
  for (; r + w <= r1; r += w)
    for (arma::uword q = 0; q + w <= kk; q += w) {
      V x[w];
#pragma GCC unroll 8
      for (int c = 0; c < w; ++c) vload(x[c], A + p0 + q + (i0 + r + c) * lda);
      transpose_square<M>(x);
#pragma GCC unroll 8
      for (int c = 0; c < w; ++c) vstore(panel + r + (q + c) * MR, x[c]);
    }
  return r;
}

// panel[r + q MR] = op(A)[i0 + r, p0 + q] for r < mr, q < kk; zero for
// mr <= r < MR. Transposed, blocks are transposed in registers (W x W, then
// W/2 x W/2), the rest copied one by one.
template <class T>
__attribute__((always_inline)) inline void pack_panel(T* panel, arma::uword MR, bool ta, const T* A, arma::uword lda,
                                                      arma::uword i0, arma::uword mr, arma::uword p0, arma::uword kk) {
  using Vs = Vecs<T>;
  for (arma::uword q = 0; q < kk; ++q)
    for (arma::uword r = mr; r < MR; ++r) panel[r + q * MR] = T(0);
  if (!ta) {
    for (arma::uword q = 0; q < kk; ++q) std::copy_n(A + i0 + (p0 + q) * lda, mr, panel + q * MR);
    return;
  }
  constexpr arma::uword W = 32 / sizeof(T);
  const arma::uword rf =
      pack_transposed<typename Vs::Full, typename Vs::FullMask>(panel, MR, A, lda, i0, 0, mr, p0, kk);
  const arma::uword rh =
      pack_transposed<typename Vs::Half, typename Vs::HalfMask>(panel, MR, A, lda, i0, rf, mr, p0, kk);
  for (arma::uword r = 0; r < mr; ++r) {  // what the blocks left: columns past the last whole block, rows past rh
    const arma::uword q0 = r < rf ? kk - kk % W : r < rh ? kk - kk % (W / 2) : 0;
    for (arma::uword q = q0; q < kk; ++q) panel[r + q * MR] = A[p0 + q + (i0 + r) * lda];
  }
}

// Tiles by the number h = 1 ... 6 of half vectors (of W / 2 rows) of a row
// panel: MV = h / 2 full vectors and HV = h % 2 halves; NR as wide as the 16
// vector registers allow with the accumulators, the smaller set of operands
// (MV + HV column pieces or NR broadcasts) and a product. (Taller tiles, up to
// 10 halves, measured slower: GCC then reloads op(A) for every column.)
constexpr int tile_columns(int h) {
  const int u = h / 2 + h % 2;
  return u <= 2 ? 4 : u == 3 ? 3 : 2;
}

// One row panel of h half vectors (MR rows, of which the first mr are C's),
// all column tiles, one slice of p. part: this panel's running sums (MR x n).
// A function of its own (and clones of its own): one register allocation per
// tile shape.
template <class T, int h>
POTTS_ISA_CLONED_AVX2 static void gemm_panel(const GemmOperands<T>& g, bool ta, const T* A, arma::uword lda,
                                             arma::uword n, arma::uword i0, arma::uword mr, arma::uword p0,
                                             arma::uword kk, std::vector<T>& panel, T* part, bool first, bool last) {
  constexpr int MV = h / 2, HV = h % 2, NR = tile_columns(h);
  constexpr arma::uword MR = arma::uword(h) * (16 / sizeof(T));
  const T* a = A + i0 + p0 * lda;  // op(A)[i0 + r, p0 + q] = a[r + q acs]
  arma::uword acs = lda;
  if (ta || mr < MR) {
    panel.resize(MR * kk);
    pack_panel(panel.data(), MR, ta, A, lda, i0, mr, p0, kk);
    a = panel.data();
    acs = MR;
  }
  auto tile_part = [&](arma::uword j0) { return part ? part + j0 * MR : nullptr; };
  arma::uword j0 = 0;
  for (; j0 + NR <= n; j0 += NR) gemm_tile<T, MV, HV, NR>(g, p0, kk, a, acs, i0, j0, mr, tile_part(j0), first, last);
  gemm_tail<T, MV, HV, NR - 1>(n - j0, g, p0, kk, a, acs, i0, j0, mr, tile_part(j0), first, last);
}

template <class T>
static void gemm_serial(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, T alpha, const T* A,
                        arma::uword lda, const T* B, arma::uword ldb, T beta, T* C, arma::uword ldc,
                        const T* bias) {  // bias: C = op(A) op(B) + bias 1^T (alpha = 1, beta = 0)
  constexpr arma::uword KC = 128, HW = 16 / sizeof(T), kMaxH = 6;  // HW: rows per half vector
  const Update update = bias            ? Update::kBias
                        : alpha != T(1) ? Update::kScale
                        : beta == T(0)  ? Update::kSet
                        : beta == T(1)  ? Update::kAdd
                                        : Update::kScale;
  const GemmOperands<T> g{B, tb ? ldb : 1, tb ? 1 : ldb, alpha, beta, update, bias, C, ldc};
  std::vector<T> panel, part(k > KC ? (m + HW) * n : 0);   // part: the running sums, MR x n per row panel
  for (arma::uword p0 = 0; p0 < k || p0 == 0; p0 += KC) {  // (k = 0: one empty slice)
    const arma::uword kk = std::min(KC, k - p0);
    const bool first = p0 == 0, last = p0 + kk == k;
    for (arma::uword i0 = 0; i0 < m;) {
      const arma::uword h = std::min<arma::uword>(kMaxH, (m - i0 + HW - 1) / HW), mr = std::min(h * HW, m - i0);
      T* pp = part.empty() ? nullptr : &part[i0 * n];
      switch (h) {
#define POTTS_NN_PANEL(H)                                                       \
  case H:                                                                       \
    gemm_panel<T, H>(g, ta, A, lda, n, i0, mr, p0, kk, panel, pp, first, last); \
    break;
        POTTS_NN_PANEL(1)
        POTTS_NN_PANEL(2)
        POTTS_NN_PANEL(3)
        POTTS_NN_PANEL(4)
        POTTS_NN_PANEL(5)
        POTTS_NN_PANEL(6)
#undef POTTS_NN_PANEL
      }
      i0 += h * HW;
    }
  }
}

// The columns of C split into contiguous ranges over the action's threads
// (lib/core/parallel.h), each range at least 2^20 multiply-adds (about 0.3
// ms; smaller pieces lose more to waking a thread than they gain, measured on
// the training shapes). Each element is still the loop above, whichever range
// computes it, so the bits do not depend on the number of threads.
template <class T>
static void gemm_impl(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, T alpha, const T* A,
                      arma::uword lda, const T* B, arma::uword ldb, T beta, T* C, arma::uword ldc,
                      const T* bias = nullptr) {
  constexpr arma::uword kMinRangeWork = arma::uword(1) << 20;
  const arma::uword column_work = std::max<arma::uword>(1, m * k);
  const arma::uword min_columns = std::max<arma::uword>(4, (kMinRangeWork + column_work - 1) / column_work);
  const arma::uword bcs = tb ? 1 : ldb;  // op(B)[p, j] = B[p brs + j bcs]
  parallel_ranges(
      n,
      [&](std::size_t j0, std::size_t j1) {
        gemm_serial(ta, tb, m, arma::uword(j1 - j0), k, alpha, A, lda, B + j0 * bcs, ldb, beta, C + j0 * ldc, ldc,
                    bias);
      },
      min_columns);
}

void gemm(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, double alpha, const double* A, arma::uword lda,
          const double* B, arma::uword ldb, double beta, double* C, arma::uword ldc) {
  gemm_impl<double>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, float alpha, const float* A, arma::uword lda,
          const float* B, arma::uword ldb, float beta, float* C, arma::uword ldc) {
  gemm_impl<float>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_bias(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, const double* A, arma::uword lda,
               const double* B, arma::uword ldb, double* C, arma::uword ldc, const double* bias) {
  gemm_impl<double>(ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc, bias);
}

void gemm_bias(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, const float* A, arma::uword lda,
               const float* B, arma::uword ldb, float* C, arma::uword ldc, const float* bias) {
  gemm_impl<float>(ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc, bias);
}

}  // namespace potts
