#include "lib/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "lib/core/vexp.h"

namespace potts {
namespace nn {

// The hand-written kernels are compiled twice (AVX2 and baseline x86-64; the
// loader picks one for the CPU). Without FMA contraction or reassociation,
// both run the same IEEE operations per element in the same order: the same
// bits on every machine. POTTS_NN_BASELINE_ONLY builds the baseline alone
// (lib/nn:same_bits_test compares the two builds). The fused factored-
// attention kernel is the exception that proves the rule: it multiplies and
// adds with one rounding (fma), by the FMA instruction where the CPU has AVX2
// and FMA and by glibc's correctly rounded fma() elsewhere, the same bits.
#ifdef POTTS_NN_BASELINE_ONLY
#define POTTS_NN_KERNEL
#else
#define POTTS_NN_KERNEL __attribute__((target_clones("avx2", "default")))
#endif

// exp(x) for x <= 0, in place over an array (softmax weights after the
// maximum is subtracted): simd::exp4 of lib/core/vexp.h, the same bits on
// every x86-64 machine (libm's exp dispatches on the CPU) and in both clones.
// x < -708 is clamped to -708 (a weight of 1e-308 next to the maximum's 1,
// i.e. zero for every purpose here).
POTTS_NN_KERNEL void exp_nonpositive(double* x, arma::uword n) { simd::exp_in_place(x, n); }

// The float version: x = k ln2 + r with |r| <= ln2/2, exp(r) by its Taylor
// series to r^7 (truncation below 6e-9 relative, under half a float ulp),
// times 2^k built in the exponent bits; x clamped at -87 (2^-126, the
// smallest normal float).
POTTS_NN_KERNEL void exp_nonpositive(float* x, arma::uword n) {
  const float log2e = 1.44269504f, ln2_hi = 0.693145751953125f, ln2_lo = 1.42860676533018704e-6f;
  const float shifter = 12582912.0f;  // 1.5 * 2^23
  for (arma::uword k = 0; k < n; ++k) {
    const float xc = x[k] < -87.0f ? -87.0f : x[k];
    const float t = xc * log2e + shifter;
    const float kf = t - shifter;
    const float r = (xc - kf * ln2_hi) - kf * ln2_lo;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    bits = (bits + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    x[k] = p * scale;
  }
}

// ---------------------------------------------------------------------------
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
// bits of the loop above. lib/nn:gemm_test checks that bit for bit,
// lib/nn:same_bits_test the two builds against each other.
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
POTTS_NN_KERNEL __attribute__((noinline)) static void gemm_panel(const GemmOperands<T>& g, bool ta, const T* A,
                                                                 arma::uword lda, arma::uword n, arma::uword i0,
                                                                 arma::uword mr, arma::uword p0, arma::uword kk,
                                                                 std::vector<T>& panel, T* part, bool first,
                                                                 bool last) {
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
static void gemm_impl(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, T alpha, const T* A,
                      arma::uword lda, const T* B, arma::uword ldb, T beta, T* C, arma::uword ldc,
                      const T* bias = nullptr) {  // bias: C = op(A) op(B) + bias 1^T (alpha = 1, beta = 0)
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

void gemm(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, double alpha, const double* A, arma::uword lda,
          const double* B, arma::uword ldb, double beta, double* C, arma::uword ldc) {
  gemm_impl<double>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool ta, bool tb, arma::uword m, arma::uword n, arma::uword k, float alpha, const float* A, arma::uword lda,
          const float* B, arma::uword ldb, float beta, float* C, arma::uword ldc) {
  gemm_impl<float>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// ---------------------------------------------------------------------------
template <class T>
void linear_forward(Mat<T>& Y, const Mat<T>& X, const Mat<T>& W, const Mat<T>& b) {
  // X: in x T, W: out x in, b: out x 1 -> Y: out x T. Each element is the sum
  // W[o, :] X[:, t] first, then plus b[o]: the same rounding as W X + b 1^T.
  Y.set_size(W.n_rows, X.n_cols);
  gemm_impl(false, false, W.n_rows, X.n_cols, W.n_cols, T(1), W.memptr(), W.n_rows, X.memptr(), X.n_rows, T(0),
            Y.memptr(), Y.n_rows, b.memptr());
}

template <class T>
POTTS_NN_KERNEL void linear_backward(Mat<T>* dX, Mat<T>& dW, Mat<T>& db, const Mat<T>& dY, const Mat<T>& X,
                                     const Mat<T>& W) {
  // in the forward pass this was: Y = W X + b 1^T, so now we have:
  // dL/dW += dY X^T
  gemm(false, true, dY.n_rows, X.n_rows, dY.n_cols, T(1), dY.memptr(), dY.n_rows, X.memptr(), X.n_rows, T(1),
       dW.memptr(), dW.n_rows);
  // dL/db += dY 1
  T* dbp = db.memptr();
  for (arma::uword t = 0; t < dY.n_cols; ++t) {
    const T* dy = dY.colptr(t);
    for (arma::uword o = 0; o < dY.n_rows; ++o) dbp[o] += dy[o];
  }
  // dL/dX += W^T dY
  if (dX)
    gemm(true, false, W.n_cols, dY.n_cols, W.n_rows, T(1), W.memptr(), W.n_rows, dY.memptr(), dY.n_rows, T(1),
         dX->memptr(), dX->n_rows);
}

// ---------------------------------------------------------------------------
template <class T>
POTTS_NN_KERNEL void relu_forward(Mat<T>& Y, const Mat<T>& X) {
  Y.set_size(X.n_rows, X.n_cols);
  const T* x = X.memptr();
  T* y = Y.memptr();
  for (arma::uword k = 0; k < X.n_elem; ++k) y[k] = x[k] > T(0) ? x[k] : T(0);
}

template <class T>
POTTS_NN_KERNEL void relu_backward(Mat<T>& dX, const Mat<T>& dY, const Mat<T>& Y, Grad mode) {
  // forward: y = max(0, x), so dx += dy [y > 0]
  if (mode == Grad::kOverwrite) dX.set_size(Y.n_rows, Y.n_cols);
  const T* dy = dY.memptr();
  const T* y = Y.memptr();
  T* dx = dX.memptr();
  // dy is loaded unconditionally: the loops become vector selects, not branches
  if (mode == Grad::kOverwrite)
    for (arma::uword k = 0; k < Y.n_elem; ++k) {
      const T g = dy[k];
      dx[k] = y[k] > T(0) ? g : T(0);
    }
  else
    for (arma::uword k = 0; k < Y.n_elem; ++k) {
      const T g = dy[k];
      dx[k] += y[k] > T(0) ? g : T(0);
    }
}

// ---------------------------------------------------------------------------
// Templates on d: with the paper's d = 20 known at compile time the
// per-column loops unroll into straight-line code, and the out-of-order core
// overlaps the (sequential, latency-bound) sums of successive columns; kD = 0
// is the general case. Same operations in the same order either way.
template <class T, arma::uword kD>
POTTS_NN_KERNEL static void layernorm_forward_impl(Mat<T>& Y, LayerNormCacheT<T>& cache, const Mat<T>& X,
                                                   const Mat<T>& gamma, const Mat<T>& beta, double eps) {
  const arma::uword d = kD ? kD : X.n_rows, n = X.n_cols;
  Y.set_size(d, n);
  cache.xhat.set_size(d, n);
  cache.rstd.set_size(n);
  const T* __restrict__ g = gamma.memptr();
  const T* __restrict__ be = beta.memptr();
  T* __restrict__ rs = cache.rstd.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const T* __restrict__ x = X.colptr(t);
    T mean = 0;
    for (arma::uword k = 0; k < d; ++k) mean += x[k];
    mean /= T(d);
    T var = 0;
    for (arma::uword k = 0; k < d; ++k) var += (x[k] - mean) * (x[k] - mean);
    var /= T(d);  // biased variance, as in LayerNorm
    const T rstd = T(1) / std::sqrt(var + T(eps));
    T* __restrict__ xh = cache.xhat.colptr(t);
    T* __restrict__ y = Y.colptr(t);
    for (arma::uword k = 0; k < d; ++k) {
      xh[k] = (x[k] - mean) * rstd;
      y[k] = g[k] * xh[k] + be[k];
    }
    rs[t] = rstd;
  }
}

template <class T, arma::uword kD>
POTTS_NN_KERNEL static void layernorm_backward_impl(Mat<T>& dX, Mat<T>& dgamma, Mat<T>& dbeta, const Mat<T>& dY,
                                                    const LayerNormCacheT<T>& cache, const Mat<T>& gamma,
                                                    bool overwrite) {
  // forward: y = gamma xhat + beta, xhat = (x - mean) rstd, so now we have
  //   dxhat = dy gamma,
  //   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
  const arma::uword d = kD ? kD : dY.n_rows, n = dY.n_cols;
  const T* __restrict__ g = gamma.memptr();
  T* __restrict__ dg = dgamma.memptr();
  T* __restrict__ db = dbeta.memptr();
  const T* __restrict__ rs = cache.rstd.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const T* __restrict__ dy = dY.colptr(t);
    const T* __restrict__ xh = cache.xhat.colptr(t);
    T mean_dxhat = 0, mean_dxhat_xhat = 0;
    for (arma::uword k = 0; k < d; ++k) {
      const T dxh = dy[k] * g[k];
      mean_dxhat += dxh;
      mean_dxhat_xhat += dxh * xh[k];
      dg[k] += dy[k] * xh[k];
      db[k] += dy[k];
    }
    mean_dxhat /= T(d);
    mean_dxhat_xhat /= T(d);
    const T rstd = rs[t];
    T* __restrict__ dx = dX.colptr(t);
    if (overwrite)
      for (arma::uword k = 0; k < d; ++k) dx[k] = rstd * (dy[k] * g[k] - mean_dxhat - xh[k] * mean_dxhat_xhat);
    else
      for (arma::uword k = 0; k < d; ++k) dx[k] += rstd * (dy[k] * g[k] - mean_dxhat - xh[k] * mean_dxhat_xhat);
  }
}

template <class T>
void layernorm_forward(Mat<T>& Y, LayerNormCacheT<T>& cache, const Mat<T>& X, const Mat<T>& gamma, const Mat<T>& beta,
                       double eps) {
  if (X.n_rows == 20)
    layernorm_forward_impl<T, 20>(Y, cache, X, gamma, beta, eps);
  else
    layernorm_forward_impl<T, 0>(Y, cache, X, gamma, beta, eps);
}

template <class T>
void layernorm_backward(Mat<T>& dX, Mat<T>& dgamma, Mat<T>& dbeta, const Mat<T>& dY, const LayerNormCacheT<T>& cache,
                        const Mat<T>& gamma, Grad mode) {
  if (mode == Grad::kOverwrite) dX.set_size(dY.n_rows, dY.n_cols);
  if (dY.n_rows == 20)
    layernorm_backward_impl<T, 20>(dX, dgamma, dbeta, dY, cache, gamma, mode == Grad::kOverwrite);
  else
    layernorm_backward_impl<T, 0>(dX, dgamma, dbeta, dY, cache, gamma, mode == Grad::kOverwrite);
}

// ---------------------------------------------------------------------------
// The per-sequence products are L x L x d = 8000 multiply-adds at paper
// size: hand-written loops in "axpy" form (inner loops run over contiguous
// memory with independent elements, so the compiler vectorises them without
// reordering any sum) beat a gemm call per sequence.
//
// Kt: the keys of sequence b transposed (L x d, column c = feature c of all
// keys), so that a score column is a sum of contiguous columns.
template <class T>
static void transpose_block(T* out, const T* in, arma::uword d, arma::uword L) {
  // in: d x L column-major -> out: L x d column-major
  for (arma::uword k = 0; k < L; ++k)
    for (arma::uword c = 0; c < d; ++c) out[c * L + k] = in[k * d + c];
}

// The kernels are templates on (L, d): with the paper's sizes known at
// compile time the loops are unrolled and kept in registers; kL = 0 is the
// general case. Queries are taken R = 2 at a time (one at the end of an odd
// Lq), so that every key and value loaded serves two queries. Per query (and
// per accumulated element of dK, dV, in query order) these are the same
// operations in the same order for every R, kL and kD: the same numbers.
template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void attention_forward_group(const T* const* qv, T* p0, T* const* o, const T* Kt,
                                                                   const T* Vb, arma::uword L_rt, arma::uword d_rt,
                                                                   arma::uword dv_rt, T scale, T* acc, T* acc_o) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : d_rt, dv = kD ? kD : dv_rt;
  // S[:, q] = K_b^T q / sqrt(d), accumulated in a local buffer
  for (int r = 0; r < R; ++r)
    for (arma::uword k = 0; k < L; ++k) acc[r * L + k] = 0;
  for (arma::uword c = 0; c < d; ++c) {
    const T* kt = Kt + c * L;
    for (int r = 0; r < R; ++r) {
      const T w = qv[r][c] * scale;
      for (arma::uword k = 0; k < L; ++k) acc[r * L + k] += w * kt[k];
    }
  }
  // P[:, q] = softmax(S[:, q]); the R columns of P are adjacent (p0)
  for (int r = 0; r < R; ++r) {
    T* p = p0 + r * L;
    for (arma::uword k = 0; k < L; ++k) p[k] = acc[r * L + k];
    T mx = p[0];
    for (arma::uword k = 1; k < L; ++k) mx = std::max(mx, p[k]);
    for (arma::uword k = 0; k < L; ++k) p[k] -= mx;
  }
  exp_nonpositive(p0, R * L);
  for (int r = 0; r < R; ++r) {
    T* p = p0 + r * L;
    T z = 0;
    for (arma::uword k = 0; k < L; ++k) z += p[k];
    const T inv = T(1) / z;
    for (arma::uword k = 0; k < L; ++k) p[k] *= inv;
  }
  // O[:, q] = V_b P[:, q]
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < dv; ++c) acc_o[r * dv + c] = 0;
  for (arma::uword k = 0; k < L; ++k) {
    const T* v = Vb + k * dv;
    for (int r = 0; r < R; ++r) {
      const T w = p0[r * L + k];
      for (arma::uword c = 0; c < dv; ++c) acc_o[r * dv + c] += w * v[c];
    }
  }
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < dv; ++c) o[r][c] = acc_o[r * dv + c];
}

template <class T, arma::uword kL, arma::uword kD>
POTTS_NN_KERNEL static void attention_forward_impl(Mat<T>& O, Mat<T>& P, const Mat<T>& Q, const Mat<T>& K,
                                                   const Mat<T>& V, arma::uword L_rt, arma::uword Lq) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows, B = K.n_cols / L;
  const T scale = T(1.0 / std::sqrt(double(d)));
  O.set_size(dv, B * Lq);
  P.set_size(L, B * Lq);
  std::vector<T> Kt(L * d), heap_acc(kL ? 0 : 2 * L), heap_acc_o(kD ? 0 : 2 * dv);
  T local_acc[kL ? 2 * kL : 1], local_acc_o[kD ? 2 * kD : 1];
  T* acc = kL ? local_acc : heap_acc.data();
  T* acc_o = kD ? local_acc_o : heap_acc_o.data();
  for (arma::uword b = 0; b < B; ++b) {
    transpose_block(Kt.data(), K.colptr(b * L), d, L);
    const T* Vb = V.colptr(b * L);
    arma::uword q = 0;
    for (; q + 1 < Lq; q += 2) {
      const T* qv[2] = {Q.colptr(b * Lq + q), Q.colptr(b * Lq + q + 1)};
      T* o[2] = {O.colptr(b * Lq + q), O.colptr(b * Lq + q + 1)};
      attention_forward_group<T, kL, kD, 2>(qv, P.colptr(b * Lq + q), o, Kt.data(), Vb, L, d, dv, scale, acc, acc_o);
    }
    if (q < Lq) {
      const T* qv[1] = {Q.colptr(b * Lq + q)};
      T* o[1] = {O.colptr(b * Lq + q)};
      attention_forward_group<T, kL, kD, 1>(qv, P.colptr(b * Lq + q), o, Kt.data(), Vb, L, d, dv, scale, acc, acc_o);
    }
  }
}

template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void attention_backward_group(const T* const* p, const T* const* dout,
                                                                    const T* const* qv, T* const* dq, const T* Vt,
                                                                    const T* Kb, T* dKb, T* dVb, arma::uword L_rt,
                                                                    arma::uword d_rt, arma::uword dv_rt, T scale, T* ds,
                                                                    T* dq_acc, bool overwrite) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : d_rt, dv = kD ? kD : dv_rt;
  // forward: O[:, q] = V_b P[:, q], so dV_b[:, k] += P[k, q] dO[:, q] and dP[:, q] = V_b^T dO[:, q]
  for (arma::uword k = 0; k < L; ++k) {
    T* dv_k = dVb + k * dv;
    for (int r = 0; r < R; ++r) {
      const T w = p[r][k];
      for (arma::uword c = 0; c < dv; ++c) dv_k[c] += w * dout[r][c];
    }
  }
  for (int r = 0; r < R; ++r)
    for (arma::uword k = 0; k < L; ++k) ds[r * L + k] = 0;
  for (arma::uword c = 0; c < dv; ++c) {
    const T* vt = Vt + c * L;
    for (int r = 0; r < R; ++r) {
      const T w = dout[r][c];
      for (arma::uword k = 0; k < L; ++k) ds[r * L + k] += w * vt[k];
    }
  }
  // forward: P = softmax(S), so dS = P (dP - <P, dP>); times 1/sqrt(d) from S = K^T Q / sqrt(d)
  for (int r = 0; r < R; ++r) {
    T dot = 0;
    for (arma::uword k = 0; k < L; ++k) dot += p[r][k] * ds[r * L + k];
    for (arma::uword k = 0; k < L; ++k) ds[r * L + k] = scale * p[r][k] * (ds[r * L + k] - dot);
  }
  // forward: S[k, q] = K_b[:, k] . Q[:, q], so dQ[:, q] += sum_k dS[k] K_b[:, k], dK_b[:, k] += dS[k] Q[:, q]
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < d; ++c) dq_acc[r * d + c] = 0;
  for (arma::uword k = 0; k < L; ++k) {
    const T* kv = Kb + k * d;
    T* dk = dKb + k * d;
    for (int r = 0; r < R; ++r) {
      const T w = ds[r * L + k];
      for (arma::uword c = 0; c < d; ++c) dq_acc[r * d + c] += w * kv[c];
      for (arma::uword c = 0; c < d; ++c) dk[c] += w * qv[r][c];
    }
  }
  for (int r = 0; r < R; ++r) {
    if (overwrite)
      for (arma::uword c = 0; c < d; ++c) dq[r][c] = dq_acc[r * d + c];
    else
      for (arma::uword c = 0; c < d; ++c) dq[r][c] += dq_acc[r * d + c];
  }
}

template <class T, arma::uword kL, arma::uword kD>
POTTS_NN_KERNEL static void attention_backward_impl(Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, const Mat<T>& dO,
                                                    const Mat<T>& P, const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V,
                                                    arma::uword L_rt, arma::uword Lq, Grad mode) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows, B = K.n_cols / L;
  const bool overwrite = mode == Grad::kOverwrite;
  if (overwrite) {
    dQ.set_size(arma::size(Q));
    dK.set_size(arma::size(K));
    dV.set_size(arma::size(V));
  }
  const T scale = T(1.0 / std::sqrt(double(d)));
  std::vector<T> Vt(L * dv), heap_ds(kL ? 0 : 2 * L), heap_dq(kD ? 0 : 2 * d);
  T local_ds[kL ? 2 * kL : 1], local_dq[kD ? 2 * kD : 1];
  T* ds = kL ? local_ds : heap_ds.data();
  T* dq_acc = kD ? local_dq : heap_dq.data();
  for (arma::uword b = 0; b < B; ++b) {
    transpose_block(Vt.data(), V.colptr(b * L), dv, L);
    const T* Kb = K.colptr(b * L);
    T* dKb = dK.colptr(b * L);
    T* dVb = dV.colptr(b * L);
    if (overwrite) {  // this sequence's blocks, zeroed while they are in cache
      std::fill(dKb, dKb + L * d, T(0));
      std::fill(dVb, dVb + L * dv, T(0));
    }
    arma::uword q = 0;
    for (; q + 1 < Lq; q += 2) {
      const arma::uword j = b * Lq + q;
      const T* p[2] = {P.colptr(j), P.colptr(j + 1)};
      const T* dout[2] = {dO.colptr(j), dO.colptr(j + 1)};
      const T* qv[2] = {Q.colptr(j), Q.colptr(j + 1)};
      T* dq[2] = {dQ.colptr(j), dQ.colptr(j + 1)};
      attention_backward_group<T, kL, kD, 2>(p, dout, qv, dq, Vt.data(), Kb, dKb, dVb, L, d, dv, scale, ds, dq_acc,
                                             overwrite);
    }
    if (q < Lq) {
      const arma::uword j = b * Lq + q;
      const T* p[1] = {P.colptr(j)};
      const T* dout[1] = {dO.colptr(j)};
      const T* qv[1] = {Q.colptr(j)};
      T* dq[1] = {dQ.colptr(j)};
      attention_backward_group<T, kL, kD, 1>(p, dout, qv, dq, Vt.data(), Kb, dKb, dVb, L, d, dv, scale, ds, dq_acc,
                                             overwrite);
    }
  }
}

template <class T>
void attention_forward(Mat<T>& O, Mat<T>& P, const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, arma::uword L,
                       arma::uword Lq) {
  if (L == 20 && Q.n_rows == 20 && V.n_rows == 20)
    attention_forward_impl<T, 20, 20>(O, P, Q, K, V, L, Lq);
  else
    attention_forward_impl<T, 0, 0>(O, P, Q, K, V, L, Lq);
}

template <class T>
void attention_backward(Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, const Mat<T>& dO, const Mat<T>& P, const Mat<T>& Q,
                        const Mat<T>& K, const Mat<T>& V, arma::uword L, arma::uword Lq, Grad mode) {
  if (L == 20 && Q.n_rows == 20 && V.n_rows == 20)
    attention_backward_impl<T, 20, 20>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode);
  else
    attention_backward_impl<T, 0, 0>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode);
}

// ---------------------------------------------------------------------------
template <class T>
POTTS_NN_KERNEL void embedding_forward(Mat<T>& X, const std::vector<int>& tokens, const Mat<T>& W_emb,
                                       const Mat<T>& b_emb, const Mat<T>& PE, arma::uword L) {
  const arma::uword d = W_emb.n_rows, n = tokens.size();
  X.set_size(d, n);
  const T* be = b_emb.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const T* w = W_emb.colptr(tokens[t]);
    const T* pe = PE.colptr(t % L);
    T* x = X.colptr(t);
    for (arma::uword k = 0; k < d; ++k) x[k] = w[k] + be[k] + pe[k];
  }
}

template <class T>
POTTS_NN_KERNEL void embedding_backward(Mat<T>& dW_emb, Mat<T>& db_emb, const Mat<T>& dX,
                                        const std::vector<int>& tokens) {
  // forward: x_t = W_emb onehot(token_t) + b_emb + pe, so dW_emb[:, token_t] += dx_t, db_emb += dx_t
  const arma::uword d = dX.n_rows;
  T* db = db_emb.memptr();
  for (arma::uword t = 0; t < tokens.size(); ++t) {
    const T* dx = dX.colptr(t);
    T* dw = dW_emb.colptr(tokens[t]);
    for (arma::uword k = 0; k < d; ++k) {
      dw[k] += dx[k];
      db[k] += dx[k];
    }
  }
}

arma::mat sinusoidal_positions(arma::uword d, arma::uword L) {
  arma::mat PE(d, L);
  for (arma::uword j = 0; j < L; ++j)
    for (arma::uword k = 0; k < d; ++k) {
      const double freq = std::pow(10000.0, -double(k - k % 2) / double(d));
      PE(k, j) = (k % 2 == 0) ? std::sin(double(j) * freq) : std::cos(double(j) * freq);
    }
  return PE;
}

// ---------------------------------------------------------------------------
template <class T>
void gather_forward(Mat<T>& Xq, const Mat<T>& X, const std::vector<arma::uword>& cols) {
  Xq.set_size(X.n_rows, cols.size());
  for (arma::uword k = 0; k < cols.size(); ++k)
    std::copy(X.colptr(cols[k]), X.colptr(cols[k]) + X.n_rows, Xq.colptr(k));
}

template <class T>
POTTS_NN_KERNEL void gather_backward(Mat<T>& dX, const Mat<T>& dXq, const std::vector<arma::uword>& cols) {
  for (arma::uword k = 0; k < cols.size(); ++k) {
    const T* src = dXq.colptr(k);
    T* dst = dX.colptr(cols[k]);
    for (arma::uword r = 0; r < dX.n_rows; ++r) dst[r] += src[r];
  }
}

// ---------------------------------------------------------------------------
// The softmax of each column is a short reduction over C values, which the
// compiler cannot vectorise without reordering it. Blocks of kBlock columns
// are transposed into a local buffer so that the same sequential reductions
// run for kBlock columns at once (one per vector lane): the same operations
// in the same order per column as the plain loop, hence the same bits.
template <class T>
POTTS_NN_KERNEL double cross_entropy_forward(Mat<T>& probs, const Mat<T>& Z, const std::vector<int>& targets) {
  constexpr arma::uword kBlock = 16;
  const arma::uword C = Z.n_rows, n = Z.n_cols;
  probs.set_size(C, n);
  std::vector<T> buf(C * kBlock);  // buf[a kBlock + w] = Z[a, k0 + w]
  T mx[kBlock], sum[kBlock];
  double loss = 0.0;
  for (arma::uword k0 = 0; k0 < n; k0 += kBlock) {
    const arma::uword nw = std::min(kBlock, n - k0);
    for (arma::uword w = 0; w < kBlock; ++w) {
      const T* z = Z.colptr(k0 + std::min(w, nw - 1));  // padding lanes repeat the last column
      for (arma::uword a = 0; a < C; ++a) buf[a * kBlock + w] = z[a];
    }
    // shifted logits z - max(z) <= 0, one exp over the block, normalisation
    for (arma::uword w = 0; w < kBlock; ++w) mx[w] = buf[w];
    for (arma::uword a = 1; a < C; ++a)
      for (arma::uword w = 0; w < kBlock; ++w) mx[w] = std::max(mx[w], buf[a * kBlock + w]);
    for (arma::uword a = 0; a < C; ++a)
      for (arma::uword w = 0; w < kBlock; ++w) buf[a * kBlock + w] -= mx[w];
    exp_nonpositive(buf.data(), C * kBlock);
    for (arma::uword w = 0; w < kBlock; ++w) sum[w] = 0;
    for (arma::uword a = 0; a < C; ++a)
      for (arma::uword w = 0; w < kBlock; ++w) sum[w] += buf[a * kBlock + w];
    for (arma::uword w = 0; w < kBlock; ++w) {
      const T inv = T(1) / sum[w];
      for (arma::uword a = 0; a < C; ++a) buf[a * kBlock + w] *= inv;
    }
    for (arma::uword w = 0; w < nw; ++w) {
      T* p = probs.colptr(k0 + w);
      const int target = targets[k0 + w];
      if (target < 0) {  // unused column: weight 0
        for (arma::uword a = 0; a < C; ++a) p[a] = 0;
        continue;
      }
      for (arma::uword a = 0; a < C; ++a) p[a] = buf[a * kBlock + w];
      // -log softmax(z)[target] = max + log(sum) - z[target]
      loss += double(mx[w] + std::log(sum[w]) - Z(target, k0 + w));
    }
  }
  return loss;
}

template <class T>
POTTS_NN_KERNEL void cross_entropy_backward(Mat<T>& dZ, const Mat<T>& probs, const std::vector<int>& targets,
                                            double scale) {
  // forward: loss = logsumexp(z) - z[y], so dz = p - onehot(y)
  const arma::uword C = probs.n_rows;
  const T s = T(scale);
  for (arma::uword k = 0; k < probs.n_cols; ++k) {
    if (targets[k] < 0) continue;
    const T* p = probs.colptr(k);
    T* dz = dZ.colptr(k);
    for (arma::uword a = 0; a < C; ++a) dz[a] += s * p[a];
    dz[targets[k]] -= s;
  }
}

template <class T>
POTTS_NN_KERNEL double cross_entropy_rows_forward(Mat<T>& probs_t, const Mat<T>& Zt, const std::vector<int>& targets) {
  const arma::uword n = Zt.n_rows, C = Zt.n_cols;
  probs_t.set_size(n, C);
  std::vector<T> mx(Zt.colptr(0), Zt.colptr(0) + n), sum(n, T(0));
  for (arma::uword a = 1; a < C; ++a) {
    const T* z = Zt.colptr(a);
    for (arma::uword k = 0; k < n; ++k) mx[k] = std::max(mx[k], z[k]);
  }
  // shifted logits z - max(z) <= 0, one exp over the block, normalisation
  for (arma::uword a = 0; a < C; ++a) {
    const T* z = Zt.colptr(a);
    T* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) p[k] = z[k] - mx[k];
  }
  exp_nonpositive(probs_t.memptr(), probs_t.n_elem);
  for (arma::uword a = 0; a < C; ++a) {
    const T* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) sum[k] += p[k];
  }
  std::vector<T> inv(n);
  for (arma::uword k = 0; k < n; ++k) inv[k] = targets[k] < 0 ? T(0) : T(1) / sum[k];  // unused rows: zero
  for (arma::uword a = 0; a < C; ++a) {
    T* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) p[k] *= inv[k];
  }
  double loss = 0.0;
  for (arma::uword k = 0; k < n; ++k)
    if (targets[k] >= 0) loss += double(mx[k] + std::log(sum[k]) - Zt(k, arma::uword(targets[k])));
  return loss;
}

template <class T>
POTTS_NN_KERNEL void cross_entropy_rows_backward(Mat<T>& dZt, const Mat<T>& probs_t, const std::vector<int>& targets,
                                                 double scale) {
  // forward: loss = logsumexp(z) - z[y], so dz = p - onehot(y); unused rows of p are zero
  const arma::uword n = probs_t.n_rows, C = probs_t.n_cols;
  const T s = T(scale);
  for (arma::uword a = 0; a < C; ++a) {
    const T* p = probs_t.colptr(a);
    T* dz = dZt.colptr(a);
    for (arma::uword k = 0; k < n; ++k) dz[k] += s * p[k];
  }
  for (arma::uword k = 0; k < n; ++k)
    if (targets[k] >= 0) dZt(k, arma::uword(targets[k])) -= s;
}

// ---------------------------------------------------------------------------
template <class T>
POTTS_NN_KERNEL void factored_attention_forward(Mat<T>& Zt, Mat<T>& Ht, const std::vector<int>& sequences,
                                                const Mat<T>& A, const Mat<T>& V, arma::uword L) {
  const arma::uword C = V.n_rows, B = sequences.size() / L, n = B * L;
  Mat<T> Ad = A;  // the masked position does not attend to itself: A_jj = 0
  Ad.diag().zeros();
  Ht.zeros(n, V.n_cols);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword j = 0; j < L; ++j) {
      // Ht[bL + i, s_j] += A_ij for all i: a contiguous column update
      T* h = Ht.colptr(s[j]) + b * L;
      const T* a = Ad.colptr(j);
      for (arma::uword i = 0; i < L; ++i) h[i] += a[i];
    }
  }
  // logits_i(a) = sum_{j != i} A_ij V[a, s_j]   (eq. 4):  Zt = Ht V^T
  Zt.set_size(n, C);
  gemm(false, true, n, C, V.n_cols, T(1), Ht.memptr(), n, V.memptr(), V.n_rows, T(0), Zt.memptr(), n);
}

template <class T>
POTTS_NN_KERNEL void factored_attention_backward(Mat<T>& dA, Mat<T>& dV, const Mat<T>& dZt, const Mat<T>& Ht,
                                                 const std::vector<int>& sequences, const Mat<T>& V, arma::uword L) {
  const arma::uword B = sequences.size() / L, n = B * L;
  // forward: Zt = Ht V^T, so dV += dZt^T Ht and dHt = dZt V
  gemm(true, false, V.n_rows, Ht.n_cols, n, T(1), dZt.memptr(), n, Ht.memptr(), n, T(1), dV.memptr(), dV.n_rows);
  Mat<T> dHt(n, V.n_cols);
  gemm(false, false, n, V.n_cols, V.n_rows, T(1), dZt.memptr(), n, V.memptr(), V.n_rows, T(0), dHt.memptr(), n);
  // forward: Ht[bL + i, s_j] += A_ij, so dA_ij += dHt[bL + i, s_j]
  Mat<T> dAb(L, L, arma::fill::zeros);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword j = 0; j < L; ++j) {
      const T* g = dHt.colptr(s[j]) + b * L;
      T* da = dAb.colptr(j);
      for (arma::uword i = 0; i < L; ++i) da[i] += g[i];
    }
  }
  for (arma::uword j = 0; j < L; ++j)
    for (arma::uword i = 0; i < L; ++i)
      if (i != j) dA(i, j) += dAb(i, j);
}

// ---------------------------------------------------------------------------
// Four lanes of T as a GCC vector: 32 bytes for double (one AVX2 register, two
// SSE2 registers in the baseline clone), 16 for float. Lane-wise operations
// only, so every element sees the same IEEE operations in either clone.
template <class T>
struct Lanes4;
template <>
struct Lanes4<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct Lanes4<float> {
  typedef float type __attribute__((vector_size(16)));
};

template <class T>
static inline __attribute__((always_inline)) typename Lanes4<T>::type load_lanes(const T* p) {
  typename Lanes4<T>::type v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
static inline __attribute__((always_inline)) void store_lanes(T* p, typename Lanes4<T>::type v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T>
static inline __attribute__((always_inline)) typename Lanes4<T>::type splat_lanes(T x) {
  return typename Lanes4<T>::type{x, x, x, x};
}

bool factored_attention_fused_supports(arma::uword C) { return C >= 4 && C <= 32 && C % 4 == 0; }

// Multiply-add of the fused kernel, a * b + c rounded once (IEEE fma): the FMA
// instruction on CPUs with AVX2 and FMA, glibc's fma() lane by lane
// elsewhere (correctly rounded in software where the CPU has no FMA). Both
// give the same bits, so the fused kernel does not depend on the CPU.
template <class T>
static inline __attribute__((always_inline)) typename Lanes4<T>::type madd_lanes(typename Lanes4<T>::type a,
                                                                                 typename Lanes4<T>::type b,
                                                                                 typename Lanes4<T>::type c) {
  typename Lanes4<T>::type r;
  for (int l = 0; l < 4; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
}
struct SoftwareFma {
  template <class V>
  static inline __attribute__((always_inline)) V madd(V a, V b, V c) {
    typedef std::remove_reference_t<decltype(a[0])> T;
    return madd_lanes<T>(a, b, c);
  }
};
struct HardwareFma {
  static inline __attribute__((always_inline, target("avx2,fma"))) Lanes4<double>::type madd(
      Lanes4<double>::type a, Lanes4<double>::type b, Lanes4<double>::type c) {
    return (Lanes4<double>::type)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
  }
  static inline __attribute__((always_inline, target("avx2,fma"))) Lanes4<float>::type madd(
      Lanes4<float>::type a, Lanes4<float>::type b, Lanes4<float>::type c) {
    return (Lanes4<float>::type)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
  }
};

// The kernel, once per multiply-add (lib/nn/factored_fused.inc).
#define POTTS_FUSED_NAME factored_fused_fma
#define POTTS_FUSED_ROWS factored_fused_fma_rows
#define POTTS_FUSED_ATTR __attribute__((noinline, target("avx2,fma")))
#define POTTS_FUSED_INLINE inline __attribute__((always_inline, target("avx2,fma")))
#define POTTS_FUSED_MADD HardwareFma::madd
#include "lib/nn/factored_fused.inc"
#undef POTTS_FUSED_NAME
#undef POTTS_FUSED_ROWS
#undef POTTS_FUSED_ATTR
#undef POTTS_FUSED_INLINE
#undef POTTS_FUSED_MADD
#define POTTS_FUSED_NAME factored_fused_baseline
#define POTTS_FUSED_ROWS factored_fused_baseline_rows
#define POTTS_FUSED_ATTR __attribute__((noinline))
#define POTTS_FUSED_INLINE inline __attribute__((always_inline))
#define POTTS_FUSED_MADD SoftwareFma::madd
#include "lib/nn/factored_fused.inc"
#undef POTTS_FUSED_NAME
#undef POTTS_FUSED_ROWS
#undef POTTS_FUSED_ATTR
#undef POTTS_FUSED_INLINE
#undef POTTS_FUSED_MADD

template <class T, int NV>
static double factored_fused_impl(const int* s, const int* t, arma::uword B, const T* A, const T* V, arma::uword L,
                                  T* dA, T* dV) {
#ifndef POTTS_NN_BASELINE_ONLY
  static const bool hardware = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (hardware) return factored_fused_fma<T, NV>(s, t, B, A, V, L, dA, dV);
#endif
  return factored_fused_baseline<T, NV>(s, t, B, A, V, L, dA, dV);
}

template <class T>
double factored_attention_fused(const std::vector<int>& sequences, const std::vector<int>& targets, const Mat<T>& A,
                                const Mat<T>& V, arma::uword L, Mat<T>* dA, Mat<T>* dV) {
  const arma::uword C = V.n_rows, B = sequences.size() / L;
  if (!factored_attention_fused_supports(C) || V.n_cols != C || A.n_rows != L || A.n_cols != L ||
      targets.size() != sequences.size() || (dA == nullptr) != (dV == nullptr))
    throw std::invalid_argument("factored_attention_fused: unsupported shapes");
  T* ga = dA ? dA->memptr() : nullptr;
  T* gv = dV ? dV->memptr() : nullptr;
  const int* s = sequences.data();
  const int* t = targets.data();
  switch (C / 4) {
    case 1: return factored_fused_impl<T, 1>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 2: return factored_fused_impl<T, 2>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 3: return factored_fused_impl<T, 3>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 4: return factored_fused_impl<T, 4>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 5: return factored_fused_impl<T, 5>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 6: return factored_fused_impl<T, 6>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    case 7: return factored_fused_impl<T, 7>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
    default: return factored_fused_impl<T, 8>(s, t, B, A.memptr(), V.memptr(), L, ga, gv);
  }
}

// ---------------------------------------------------------------------------
// The two instantiations.
#define POTTS_NN_INSTANTIATE(T)                                                                                        \
  template void linear_forward(Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&);                                  \
  template void linear_backward(Mat<T>*, Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&);               \
  template void relu_forward(Mat<T>&, const Mat<T>&);                                                                  \
  template void relu_backward(Mat<T>&, const Mat<T>&, const Mat<T>&, Grad);                                            \
  template void layernorm_forward(Mat<T>&, LayerNormCacheT<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, double);  \
  template void layernorm_backward(Mat<T>&, Mat<T>&, Mat<T>&, const Mat<T>&, const LayerNormCacheT<T>&, const Mat<T>&, \
                                   Grad);                                                                              \
  template void attention_forward(Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, arma::uword,          \
                                  arma::uword);                                                                        \
  template void attention_backward(Mat<T>&, Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,             \
                                   const Mat<T>&, const Mat<T>&, arma::uword, arma::uword, Grad);                      \
  template void embedding_forward(Mat<T>&, const std::vector<int>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,       \
                                  arma::uword);                                                                        \
  template void embedding_backward(Mat<T>&, Mat<T>&, const Mat<T>&, const std::vector<int>&);                          \
  template void gather_forward(Mat<T>&, const Mat<T>&, const std::vector<arma::uword>&);                               \
  template void gather_backward(Mat<T>&, const Mat<T>&, const std::vector<arma::uword>&);                              \
  template double cross_entropy_forward(Mat<T>&, const Mat<T>&, const std::vector<int>&);                              \
  template void cross_entropy_backward(Mat<T>&, const Mat<T>&, const std::vector<int>&, double);                       \
  template double cross_entropy_rows_forward(Mat<T>&, const Mat<T>&, const std::vector<int>&);                         \
  template void cross_entropy_rows_backward(Mat<T>&, const Mat<T>&, const std::vector<int>&, double);                  \
  template void factored_attention_forward(Mat<T>&, Mat<T>&, const std::vector<int>&, const Mat<T>&, const Mat<T>&,    \
                                           arma::uword);                                                               \
  template void factored_attention_backward(Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const std::vector<int>&,   \
                                            const Mat<T>&, arma::uword);                                               \
  template double factored_attention_fused(const std::vector<int>&, const std::vector<int>&, const Mat<T>&,            \
                                           const Mat<T>&, arma::uword, Mat<T>*, Mat<T>*);

POTTS_NN_INSTANTIATE(double)
POTTS_NN_INSTANTIATE(float)
#undef POTTS_NN_INSTANTIATE

}  // namespace nn
}  // namespace potts
