#include "lib/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "lib/core/parallel.h"
#include "lib/linalg/vexp.h"
#include "lib/core/isa.h"

namespace potts {
namespace nn {

// ---------------------------------------------------------------------------
// The per-sequence products are L x L x d multiply-adds (8000 for the
// synthetic data, 506 000 for the protein family): hand-written loops whose
// vector lanes are independent elements (keys, or features), so that no sum
// is reordered, beat a gemm call per sequence.
//
// Kt: the keys of sequence b transposed (L x d, column c = feature c of all
// keys), so that a score column is a sum of contiguous columns.
// The sequences of a batch split into contiguous ranges over the action's
// threads (lib/core/parallel.h). Each sequence's outputs are its own columns,
// computed by the same operations whichever thread runs it, so the bits do
// not depend on the number of threads.

template <class T>
static void transpose_block(T* out, const T* in, arma::uword d, arma::uword L) {
  // in: d x L column-major -> out: L x d column-major
  for (arma::uword k = 0; k < L; ++k)
    for (arma::uword c = 0; c < d; ++c) out[c * L + k] = in[k * d + c];
}

// The kernels are templates on (L, d): with sizes known at compile time the
// loops are unrolled; kL = 0 (or kD = 0) is the general case. Queries are
// taken R = 4 at a time (fewer at the end of Lq), so that every key and value
// loaded serves R queries and the R serial sums of a softmax run side by side.
// Scores are summed over the d features in registers, a block of keys at a
// time (key_sums); a row of dK or dV takes its R updates in registers
// (add_rows). Per query (and per accumulated element of dK, dV, in query
// order) these are the same operations in the same order for every R, key
// block, kL and kD: the same numbers (bench/train's BM_Attention times them).
constexpr int kQueryGroup = 4;

// 32 bytes of T (GCC vector extension): lane-wise IEEE operations, the same
// values as the scalar ones; two SSE2 halves in the baseline clone.
template <class T>
struct Vec32 {
  typedef T type __attribute__((vector_size(32)));
};

// out[r * L + k] = sum over c = 0..d-1, in order, of w[r * d + c] Xt[c * L + k]
// (Xt: L x d column-major, column c = feature c of all keys), for the NV
// vectors of keys from k0 on, summed in registers.
template <class T, arma::uword kD, int R, int NV>
__attribute__((always_inline)) inline void key_block(T* out, const T* Xt, const T* w, arma::uword L, arma::uword d_rt,
                                                     arma::uword k0) {
  typedef typename Vec32<T>::type V;
  constexpr int W = int(sizeof(V) / sizeof(T));
  const arma::uword d = kD ? kD : d_rt;
  V a[R][NV];
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < NV; ++n) a[r][n] = V{};
  for (arma::uword c = 0; c < d; ++c) {
    V x[NV];
    for (int n = 0; n < NV; ++n) std::memcpy(&x[n], Xt + c * L + k0 + n * W, sizeof(V));
    for (int r = 0; r < R; ++r) {
      const T wr = w[r * d + c];
      for (int n = 0; n < NV; ++n) a[r][n] += wr * x[n];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int n = 0; n < NV; ++n) std::memcpy(out + r * L + k0 + n * W, &a[r][n], sizeof(V));
}

template <class T, arma::uword kD, int R>
__attribute__((always_inline)) inline void key_sums(T* out, const T* Xt, const T* w, arma::uword L, arma::uword d_rt) {
  constexpr arma::uword W = sizeof(typename Vec32<T>::type) / sizeof(T);
  const arma::uword d = kD ? kD : d_rt;
  arma::uword k = 0;
  for (; k + 2 * W <= L; k += 2 * W) key_block<T, kD, R, 2>(out, Xt, w, L, d, k);
  for (; k + W <= L; k += W) key_block<T, kD, R, 1>(out, Xt, w, L, d, k);
  if (k < L && L >= W) {  // the last W keys again: each key's sum is its own
    key_block<T, kD, R, 1>(out, Xt, w, L, d, L - W);
    k = L;
  }
  for (; k < L; ++k) {  // fewer than W keys in all
    T a[R] = {};
    for (arma::uword c = 0; c < d; ++c)
      for (int r = 0; r < R; ++r) a[r] += w[r * d + c] * Xt[c * L + k];
    for (int r = 0; r < R; ++r) out[r * L + k] = a[r];
  }
}

template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void attention_forward_group(const T* const* qv, T* p0, T* const* o, const T* Kt,
                                                                   const T* Vb, arma::uword L_rt, arma::uword d_rt,
                                                                   arma::uword dv_rt, T scale, T* w, T* acc_o) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : d_rt, dv = kD ? kD : dv_rt;
  // S[:, q] = K_b^T q / sqrt(d); the R columns of S (then P) are adjacent (p0)
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < d; ++c) w[r * d + c] = qv[r][c] * scale;
  key_sums<T, kD, R>(p0, Kt, w, L, d);
  // P[:, q] = softmax(S[:, q]): probabilities, R columns at once and one
  // vector exp, not log_softmax.h's log-sum-exp (on purpose: speed and float)
  T mx[R], z[R];
  for (int r = 0; r < R; ++r) mx[r] = p0[r * L];
  for (arma::uword k = 1; k < L; ++k)
    for (int r = 0; r < R; ++r) mx[r] = std::max(mx[r], p0[r * L + k]);
  for (int r = 0; r < R; ++r)
    for (arma::uword k = 0; k < L; ++k) p0[r * L + k] -= mx[r];
  exp_nonpositive(p0, R * L);
  for (int r = 0; r < R; ++r) z[r] = 0;
  for (arma::uword k = 0; k < L; ++k)
    for (int r = 0; r < R; ++r) z[r] += p0[r * L + k];
  for (int r = 0; r < R; ++r) {
    const T inv = T(1) / z[r];
    for (arma::uword k = 0; k < L; ++k) p0[r * L + k] *= inv;
  }
  // O[:, q] = V_b P[:, q]
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < dv; ++c) acc_o[r * dv + c] = 0;
  for (arma::uword k = 0; k < L; ++k) {
    const T* v = Vb + k * dv;
    for (int r = 0; r < R; ++r) {
      const T pk = p0[r * L + k];
      for (arma::uword c = 0; c < dv; ++c) acc_o[r * dv + c] += pk * v[c];
    }
  }
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < dv; ++c) o[r][c] = acc_o[r * dv + c];
}

template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void forward_queries(Mat<T>& O, Mat<T>& P, const Mat<T>& Q, arma::uword j,
                                                           const T* Kt, const T* Vb, arma::uword L, arma::uword d,
                                                           arma::uword dv, T scale, T* w, T* acc_o) {
  const T* qv[R];
  T* o[R];
  for (int r = 0; r < R; ++r) {
    qv[r] = Q.colptr(j + r);
    o[r] = O.colptr(j + r);
  }
  attention_forward_group<T, kL, kD, R>(qv, P.colptr(j), o, Kt, Vb, L, d, dv, scale, w, acc_o);
}

template <class T, arma::uword kL, arma::uword kD>
POTTS_ISA_CLONED_AVX2 static void attention_forward_impl(Mat<T>& O, Mat<T>& P, const Mat<T>& Q, const Mat<T>& K,
                                                         const Mat<T>& V, arma::uword L_rt, arma::uword Lq,
                                                         arma::uword b_begin, arma::uword b_end) {
  constexpr int G = kQueryGroup;
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows;
  const T scale = T(1.0 / std::sqrt(double(d)));
  std::vector<T> Kt(L * d), heap_w(kD ? 0 : G * d), heap_o(kD ? 0 : G * dv);
  T local_w[kD ? G * kD : 1], local_o[kD ? G * kD : 1];
  T* w = kD ? local_w : heap_w.data();
  T* acc_o = kD ? local_o : heap_o.data();
  for (arma::uword b = b_begin; b < b_end; ++b) {
    transpose_block(Kt.data(), K.colptr(b * L), d, L);
    const T* Vb = V.colptr(b * L);
    const arma::uword j0 = b * Lq;
    arma::uword q = 0;
#define POTTS_NN_FORWARD(R) forward_queries<T, kL, kD, R>(O, P, Q, j0 + q, Kt.data(), Vb, L, d, dv, scale, w, acc_o)
    for (; q + G <= Lq; q += G) POTTS_NN_FORWARD(G);
    switch (Lq - q) {
      case 3:
        POTTS_NN_FORWARD(3);
        break;
      case 2:
        POTTS_NN_FORWARD(2);
        break;
      case 1:
        POTTS_NN_FORWARD(1);
        break;
      default:
        break;
    }
#undef POTTS_NN_FORWARD
  }
}

// y[c] += a[0] x[0][c], then += a[1] x[1][c], ... (c < n): the R updates of
// one row in query order, each piece of the row loaded and stored once.
template <class T, int R, class U>
__attribute__((always_inline)) inline void add_rows_piece(T* y, const T* a, const T* const* x, arma::uword c) {
  U t, u;
  std::memcpy(&t, y + c, sizeof(U));
  for (int r = 0; r < R; ++r) {
    std::memcpy(&u, x[r] + c, sizeof(U));
    t += a[r] * u;
  }
  std::memcpy(y + c, &t, sizeof(U));
}

template <class T, arma::uword kN, int R>
__attribute__((always_inline)) inline void add_rows(T* y, const T* a, const T* const* x, arma::uword n_rt) {
  typedef typename Vec32<T>::type V;
  typedef T H __attribute__((vector_size(16)));
  constexpr arma::uword W = sizeof(V) / sizeof(T), WH = sizeof(H) / sizeof(T);
  const arma::uword n = kN ? kN : n_rt;
  arma::uword c = 0;
  for (; c + W <= n; c += W) add_rows_piece<T, R, V>(y, a, x, c);
  for (; c + WH <= n; c += WH) add_rows_piece<T, R, H>(y, a, x, c);
  for (; c < n; ++c) add_rows_piece<T, R, T>(y, a, x, c);
}

template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void attention_backward_group(const T* const* p, const T* const* dout,
                                                                    const T* const* qv, T* const* dq, const T* Vt,
                                                                    const T* Kb, T* dKb, T* dVb, arma::uword L_rt,
                                                                    arma::uword d_rt, arma::uword dv_rt, T scale, T* ds,
                                                                    T* w, T* dq_acc, bool overwrite) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : d_rt, dv = kD ? kD : dv_rt;
  // forward: O[:, q] = V_b P[:, q], so dV_b[:, k] += P[k, q] dO[:, q] and dP[:, q] = V_b^T dO[:, q]
  for (arma::uword k = 0; k < L; ++k) {
    T pk[R];
    for (int r = 0; r < R; ++r) pk[r] = p[r][k];
    add_rows<T, kD, R>(dVb + k * dv, pk, dout, dv);
  }
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < dv; ++c) w[r * dv + c] = dout[r][c];
  key_sums<T, kD, R>(ds, Vt, w, L, dv);
  // forward: P = softmax(S), so dS = P (dP - <P, dP>); times 1/sqrt(d) from S = K^T Q / sqrt(d)
  T dot[R];
  for (int r = 0; r < R; ++r) dot[r] = 0;
  for (arma::uword k = 0; k < L; ++k)
    for (int r = 0; r < R; ++r) dot[r] += p[r][k] * ds[r * L + k];
  for (int r = 0; r < R; ++r)
    for (arma::uword k = 0; k < L; ++k) ds[r * L + k] = scale * p[r][k] * (ds[r * L + k] - dot[r]);
  // forward: S[k, q] = K_b[:, k] . Q[:, q], so dQ[:, q] += sum_k dS[k] K_b[:, k], dK_b[:, k] += dS[k] Q[:, q]
  for (int r = 0; r < R; ++r)
    for (arma::uword c = 0; c < d; ++c) dq_acc[r * d + c] = 0;
  for (arma::uword k = 0; k < L; ++k) {
    const T* kv = Kb + k * d;
    T dsk[R];
    for (int r = 0; r < R; ++r) dsk[r] = ds[r * L + k];
    for (int r = 0; r < R; ++r)
      for (arma::uword c = 0; c < d; ++c) dq_acc[r * d + c] += dsk[r] * kv[c];
    add_rows<T, kD, R>(dKb + k * d, dsk, qv, d);
  }
  for (int r = 0; r < R; ++r) {
    if (overwrite)
      for (arma::uword c = 0; c < d; ++c) dq[r][c] = dq_acc[r * d + c];
    else
      for (arma::uword c = 0; c < d; ++c) dq[r][c] += dq_acc[r * d + c];
  }
}

template <class T, arma::uword kL, arma::uword kD, int R>
__attribute__((always_inline)) inline void backward_queries(Mat<T>& dQ, const Mat<T>& dO, const Mat<T>& P,
                                                            const Mat<T>& Q, arma::uword j, const T* Vt, const T* Kb,
                                                            T* dKb, T* dVb, arma::uword L, arma::uword d,
                                                            arma::uword dv, T scale, T* ds, T* w, T* dq_acc,
                                                            bool overwrite) {
  const T* p[R];
  const T* dout[R];
  const T* qv[R];
  T* dq[R];
  for (int r = 0; r < R; ++r) {
    p[r] = P.colptr(j + r);
    dout[r] = dO.colptr(j + r);
    qv[r] = Q.colptr(j + r);
    dq[r] = dQ.colptr(j + r);
  }
  attention_backward_group<T, kL, kD, R>(p, dout, qv, dq, Vt, Kb, dKb, dVb, L, d, dv, scale, ds, w, dq_acc, overwrite);
}

template <class T, arma::uword kL, arma::uword kD>
POTTS_ISA_CLONED_AVX2 static void attention_backward_impl(Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, const Mat<T>& dO,
                                                          const Mat<T>& P, const Mat<T>& Q, const Mat<T>& K,
                                                          const Mat<T>& V, arma::uword L_rt, arma::uword Lq, Grad mode,
                                                          arma::uword b_begin, arma::uword b_end) {
  constexpr int G = kQueryGroup;
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows;
  const bool overwrite = mode == Grad::kOverwrite;
  const T scale = T(1.0 / std::sqrt(double(d)));
  std::vector<T> Vt(L * dv), ds(G * L), heap_w(kD ? 0 : G * dv), heap_dq(kD ? 0 : G * d);
  T local_w[kD ? G * kD : 1], local_dq[kD ? G * kD : 1];
  T* w = kD ? local_w : heap_w.data();
  T* dq_acc = kD ? local_dq : heap_dq.data();
  for (arma::uword b = b_begin; b < b_end; ++b) {
    transpose_block(Vt.data(), V.colptr(b * L), dv, L);
    const T* Kb = K.colptr(b * L);
    T* dKb = dK.colptr(b * L);
    T* dVb = dV.colptr(b * L);
    if (overwrite) {  // this sequence's blocks, zeroed while they are in cache
      std::fill(dKb, dKb + L * d, T(0));
      std::fill(dVb, dVb + L * dv, T(0));
    }
    const arma::uword j0 = b * Lq;
    arma::uword q = 0;
#define POTTS_NN_BACKWARD(R)                                                                                           \
  backward_queries<T, kL, kD, R>(dQ, dO, P, Q, j0 + q, Vt.data(), Kb, dKb, dVb, L, d, dv, scale, ds.data(), w, dq_acc, \
                                 overwrite)
    for (; q + G <= Lq; q += G) POTTS_NN_BACKWARD(G);
    switch (Lq - q) {
      case 3:
        POTTS_NN_BACKWARD(3);
        break;
      case 2:
        POTTS_NN_BACKWARD(2);
        break;
      case 1:
        POTTS_NN_BACKWARD(1);
        break;
      default:
        break;
    }
#undef POTTS_NN_BACKWARD
  }
}

template <class T>
void attention_forward(Mat<T>& O, Mat<T>& P, const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, arma::uword L,
                       arma::uword Lq) {
  O.set_size(V.n_rows, K.n_cols / L * Lq);
  P.set_size(L, K.n_cols / L * Lq);
  const bool d20 = Q.n_rows == 20 && V.n_rows == 20, paper = d20 && L == 20;
  parallel_ranges(K.n_cols / L, [&](std::size_t b0, std::size_t b1) {
    if (paper)
      attention_forward_impl<T, 20, 20>(O, P, Q, K, V, L, Lq, b0, b1);
    else if (d20)
      attention_forward_impl<T, 0, 20>(O, P, Q, K, V, L, Lq, b0, b1);
    else
      attention_forward_impl<T, 0, 0>(O, P, Q, K, V, L, Lq, b0, b1);
  });
}

template <class T>
void attention_backward(Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, const Mat<T>& dO, const Mat<T>& P, const Mat<T>& Q,
                        const Mat<T>& K, const Mat<T>& V, arma::uword L, arma::uword Lq, Grad mode) {
  if (mode == Grad::kOverwrite) {
    dQ.set_size(arma::size(Q));
    dK.set_size(arma::size(K));
    dV.set_size(arma::size(V));
  }
  const bool d20 = Q.n_rows == 20 && V.n_rows == 20, paper = d20 && L == 20;
  parallel_ranges(K.n_cols / L, [&](std::size_t b0, std::size_t b1) {
    if (paper)
      attention_backward_impl<T, 20, 20>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode, b0, b1);
    else if (d20)
      attention_backward_impl<T, 0, 20>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode, b0, b1);
    else
      attention_backward_impl<T, 0, 0>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode, b0, b1);
  });
}

// The two instantiations.
#define POTTS_NN_INSTANTIATE(T)                                                                               \
  template void attention_forward(Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, arma::uword, \
                                  arma::uword);                                                               \
  template void attention_backward(Mat<T>&, Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,    \
                                   const Mat<T>&, const Mat<T>&, arma::uword, arma::uword, Grad);

POTTS_NN_INSTANTIATE(double)
POTTS_NN_INSTANTIATE(float)
#undef POTTS_NN_INSTANTIATE

}  // namespace nn
}  // namespace potts
