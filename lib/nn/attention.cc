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
#include "lib/core/vexp.h"
#include "lib/nn/kernel.h"

namespace potts {
namespace nn {

// ---------------------------------------------------------------------------
// The per-sequence products are L x L x d = 8000 multiply-adds at paper
// size: hand-written loops in "axpy" form (inner loops run over contiguous
// memory with independent elements, so the compiler vectorises them without
// reordering any sum) beat a gemm call per sequence.
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
                                                   const Mat<T>& V, arma::uword L_rt, arma::uword Lq,
                                                   arma::uword b_begin, arma::uword b_end) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows;
  const T scale = T(1.0 / std::sqrt(double(d)));
  std::vector<T> Kt(L * d), heap_acc(kL ? 0 : 2 * L), heap_acc_o(kD ? 0 : 2 * dv);
  T local_acc[kL ? 2 * kL : 1], local_acc_o[kD ? 2 * kD : 1];
  T* acc = kL ? local_acc : heap_acc.data();
  T* acc_o = kD ? local_acc_o : heap_acc_o.data();
  for (arma::uword b = b_begin; b < b_end; ++b) {
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
                                                    arma::uword L_rt, arma::uword Lq, Grad mode,
                                                    arma::uword b_begin, arma::uword b_end) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows;
  const bool overwrite = mode == Grad::kOverwrite;
  const T scale = T(1.0 / std::sqrt(double(d)));
  std::vector<T> Vt(L * dv), heap_ds(kL ? 0 : 2 * L), heap_dq(kD ? 0 : 2 * d);
  T local_ds[kL ? 2 * kL : 1], local_dq[kD ? 2 * kD : 1];
  T* ds = kL ? local_ds : heap_ds.data();
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
  O.set_size(V.n_rows, K.n_cols / L * Lq);
  P.set_size(L, K.n_cols / L * Lq);
  const bool paper = L == 20 && Q.n_rows == 20 && V.n_rows == 20;
  parallel_ranges(K.n_cols / L, [&](std::size_t b0, std::size_t b1) {
    if (paper)
      attention_forward_impl<T, 20, 20>(O, P, Q, K, V, L, Lq, b0, b1);
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
  const bool paper = L == 20 && Q.n_rows == 20 && V.n_rows == 20;
  parallel_ranges(K.n_cols / L, [&](std::size_t b0, std::size_t b1) {
    if (paper)
      attention_backward_impl<T, 20, 20>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode, b0, b1);
    else
      attention_backward_impl<T, 0, 0>(dQ, dK, dV, dO, P, Q, K, V, L, Lq, mode, b0, b1);
  });
}

// The two instantiations.
#define POTTS_NN_INSTANTIATE(T)                                                                                \
  template void attention_forward(Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, arma::uword,  \
                                  arma::uword);                                                                \
  template void attention_backward(Mat<T>&, Mat<T>&, Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,     \
                                   const Mat<T>&, const Mat<T>&, arma::uword, arma::uword, Grad);

POTTS_NN_INSTANTIATE(double)
POTTS_NN_INSTANTIATE(float)
#undef POTTS_NN_INSTANTIATE

}  // namespace nn
}  // namespace potts
