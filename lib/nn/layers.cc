#include "lib/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "lib/core/isa.h"

namespace potts {
namespace nn {

// ---------------------------------------------------------------------------
template <class Real>
void linear_forward(Mat<Real>& Y, const Mat<Real>& X, const Mat<Real>& W, const Mat<Real>& b) {
  // X: in x T, W: out x in, b: out x 1 -> Y: out x T. Each element is the sum
  // W[o, :] X[:, t] first, then plus b[o]: the same rounding as W X + b 1^T.
  Y.set_size(W.n_rows, X.n_cols);
  gemm_bias(false, false, W.n_rows, X.n_cols, W.n_cols, W.memptr(), W.n_rows, X.memptr(), X.n_rows, Y.memptr(),
            Y.n_rows, b.memptr());
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void linear_backward(Mat<Real>* dX, Mat<Real>& dW, Mat<Real>& db, const Mat<Real>& dY,
                                           const Mat<Real>& X, const Mat<Real>& W) {
  // in the forward pass this was: Y = W X + b 1^T, so now we have:
  // dL/dW += dY X^T
  gemm(false, true, dY.n_rows, X.n_rows, dY.n_cols, Real(1), dY.memptr(), dY.n_rows, X.memptr(), X.n_rows, Real(1),
       dW.memptr(), dW.n_rows);
  // dL/db += dY 1
  Real* dbp = db.memptr();
  for (arma::uword t = 0; t < dY.n_cols; ++t) {
    const Real* dy = dY.colptr(t);
    for (arma::uword o = 0; o < dY.n_rows; ++o) dbp[o] += dy[o];
  }
  // dL/dX += W^T dY
  if (dX)
    gemm(true, false, W.n_cols, dY.n_cols, W.n_rows, Real(1), W.memptr(), W.n_rows, dY.memptr(), dY.n_rows, Real(1),
         dX->memptr(), dX->n_rows);
}

// ---------------------------------------------------------------------------
template <class Real>
POTTS_ISA_CLONED_AVX2 void relu_forward(Mat<Real>& Y, const Mat<Real>& X) {
  Y.set_size(X.n_rows, X.n_cols);
  const Real* x = X.memptr();
  Real* y = Y.memptr();
  for (arma::uword k = 0; k < X.n_elem; ++k) y[k] = x[k] > Real(0) ? x[k] : Real(0);
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void relu_backward(Mat<Real>& dX, const Mat<Real>& dY, const Mat<Real>& Y, Grad mode) {
  // forward: y = max(0, x), so dx += dy [y > 0]
  if (mode == Grad::kOverwrite) dX.set_size(Y.n_rows, Y.n_cols);
  const Real* dy = dY.memptr();
  const Real* y = Y.memptr();
  Real* dx = dX.memptr();
  // dy is loaded unconditionally: the loops become vector selects, not branches
  if (mode == Grad::kOverwrite)
    for (arma::uword k = 0; k < Y.n_elem; ++k) {
      const Real g = dy[k];
      dx[k] = y[k] > Real(0) ? g : Real(0);
    }
  else
    for (arma::uword k = 0; k < Y.n_elem; ++k) {
      const Real g = dy[k];
      dx[k] += y[k] > Real(0) ? g : Real(0);
    }
}

// ---------------------------------------------------------------------------
// Templates on d: with the paper's d = 20 known at compile time the
// per-column loops unroll into straight-line code, and the out-of-order core
// overlaps the (sequential, latency-bound) sums of successive columns; kD = 0
// is the general case. Same operations in the same order either way.
template <class Real, arma::uword kD>
POTTS_ISA_CLONED_AVX2 static void layernorm_forward_impl(Mat<Real>& Y, LayerNormCacheT<Real>& cache, const Mat<Real>& X,
                                                         const Mat<Real>& gamma, const Mat<Real>& beta, double eps) {
  const arma::uword d = kD ? kD : X.n_rows, n = X.n_cols;
  Y.set_size(d, n);
  cache.xhat.set_size(d, n);
  cache.rstd.set_size(n);
  const Real* __restrict__ g = gamma.memptr();
  const Real* __restrict__ be = beta.memptr();
  Real* __restrict__ rs = cache.rstd.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const Real* __restrict__ x = X.colptr(t);
    Real mean = 0;
    for (arma::uword k = 0; k < d; ++k) mean += x[k];
    mean /= Real(d);
    Real var = 0;
    for (arma::uword k = 0; k < d; ++k) var += (x[k] - mean) * (x[k] - mean);
    var /= Real(d);  // biased variance, as in LayerNorm
    const Real rstd = Real(1) / std::sqrt(var + Real(eps));
    Real* __restrict__ xh = cache.xhat.colptr(t);
    Real* __restrict__ y = Y.colptr(t);
    for (arma::uword k = 0; k < d; ++k) {
      xh[k] = (x[k] - mean) * rstd;
      y[k] = g[k] * xh[k] + be[k];
    }
    rs[t] = rstd;
  }
}

template <class Real, arma::uword kD>
POTTS_ISA_CLONED_AVX2 static void layernorm_backward_impl(Mat<Real>& dX, Mat<Real>& dgamma, Mat<Real>& dbeta,
                                                          const Mat<Real>& dY, const LayerNormCacheT<Real>& cache,
                                                          const Mat<Real>& gamma, bool overwrite) {
  // forward: y = gamma xhat + beta, xhat = (x - mean) rstd, so now we have
  //   dxhat = dy gamma,
  //   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
  const arma::uword d = kD ? kD : dY.n_rows, n = dY.n_cols;
  const Real* __restrict__ g = gamma.memptr();
  Real* __restrict__ dg = dgamma.memptr();
  Real* __restrict__ db = dbeta.memptr();
  const Real* __restrict__ rs = cache.rstd.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const Real* __restrict__ dy = dY.colptr(t);
    const Real* __restrict__ xh = cache.xhat.colptr(t);
    Real mean_dxhat = 0, mean_dxhat_xhat = 0;
    for (arma::uword k = 0; k < d; ++k) {
      const Real dxh = dy[k] * g[k];
      mean_dxhat += dxh;
      mean_dxhat_xhat += dxh * xh[k];
      dg[k] += dy[k] * xh[k];
      db[k] += dy[k];
    }
    mean_dxhat /= Real(d);
    mean_dxhat_xhat /= Real(d);
    const Real rstd = rs[t];
    Real* __restrict__ dx = dX.colptr(t);
    if (overwrite)
      for (arma::uword k = 0; k < d; ++k) dx[k] = rstd * (dy[k] * g[k] - mean_dxhat - xh[k] * mean_dxhat_xhat);
    else
      for (arma::uword k = 0; k < d; ++k) dx[k] += rstd * (dy[k] * g[k] - mean_dxhat - xh[k] * mean_dxhat_xhat);
  }
}

template <class Real>
void layernorm_forward(Mat<Real>& Y, LayerNormCacheT<Real>& cache, const Mat<Real>& X, const Mat<Real>& gamma,
                       const Mat<Real>& beta, double eps) {
  if (X.n_rows == 20)
    layernorm_forward_impl<Real, 20>(Y, cache, X, gamma, beta, eps);
  else
    layernorm_forward_impl<Real, 0>(Y, cache, X, gamma, beta, eps);
}

template <class Real>
void layernorm_backward(Mat<Real>& dX, Mat<Real>& dgamma, Mat<Real>& dbeta, const Mat<Real>& dY,
                        const LayerNormCacheT<Real>& cache, const Mat<Real>& gamma, Grad mode) {
  if (mode == Grad::kOverwrite) dX.set_size(dY.n_rows, dY.n_cols);
  if (dY.n_rows == 20)
    layernorm_backward_impl<Real, 20>(dX, dgamma, dbeta, dY, cache, gamma, mode == Grad::kOverwrite);
  else
    layernorm_backward_impl<Real, 0>(dX, dgamma, dbeta, dY, cache, gamma, mode == Grad::kOverwrite);
}

// ---------------------------------------------------------------------------
template <class Real>
POTTS_ISA_CLONED_AVX2 void embedding_forward(Mat<Real>& X, const std::vector<int>& tokens, const Mat<Real>& W_emb,
                                             const Mat<Real>& b_emb, const Mat<Real>& PE, arma::uword L) {
  const arma::uword d = W_emb.n_rows, n = tokens.size();
  X.set_size(d, n);
  const Real* be = b_emb.memptr();
  for (arma::uword t = 0; t < n; ++t) {
    const Real* w = W_emb.colptr(tokens[t]);
    const Real* pe = PE.colptr(t % L);
    Real* x = X.colptr(t);
    for (arma::uword k = 0; k < d; ++k) x[k] = w[k] + be[k] + pe[k];
  }
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void embedding_backward(Mat<Real>& dW_emb, Mat<Real>& db_emb, const Mat<Real>& dX,
                                              const std::vector<int>& tokens) {
  // forward: x_t = W_emb onehot(token_t) + b_emb + pe, so dW_emb[:, token_t] += dx_t, db_emb += dx_t
  const arma::uword d = dX.n_rows;
  Real* db = db_emb.memptr();
  for (arma::uword t = 0; t < tokens.size(); ++t) {
    const Real* dx = dX.colptr(t);
    Real* dw = dW_emb.colptr(tokens[t]);
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
template <class Real>
void gather_forward(Mat<Real>& Xq, const Mat<Real>& X, const std::vector<arma::uword>& cols) {
  Xq.set_size(X.n_rows, cols.size());
  for (arma::uword k = 0; k < cols.size(); ++k)
    std::copy(X.colptr(cols[k]), X.colptr(cols[k]) + X.n_rows, Xq.colptr(k));
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void gather_backward(Mat<Real>& dX, const Mat<Real>& dXq, const std::vector<arma::uword>& cols) {
  for (arma::uword k = 0; k < cols.size(); ++k) {
    const Real* src = dXq.colptr(k);
    Real* dst = dX.colptr(cols[k]);
    for (arma::uword r = 0; r < dX.n_rows; ++r) dst[r] += src[r];
  }
}

// ---------------------------------------------------------------------------
// The softmax of each column is a short reduction over C values, which the
// compiler cannot vectorise without reordering it. Blocks of kBlock columns
// are transposed into a local buffer so that the same sequential reductions
// run for kBlock columns at once (one per vector lane): the same operations
// in the same order per column as the plain loop, hence the same bits.
template <class Real>
POTTS_ISA_CLONED_AVX2 double cross_entropy_forward(Mat<Real>& probs, const Mat<Real>& Z,
                                                   const std::vector<int>& targets) {
  constexpr arma::uword kBlock = 16;
  const arma::uword C = Z.n_rows, n = Z.n_cols;
  probs.set_size(C, n);
  std::vector<Real> buf(C * kBlock);  // buf[a kBlock + w] = Z[a, k0 + w]
  Real mx[kBlock], sum[kBlock];
  double loss = 0.0;
  for (arma::uword k0 = 0; k0 < n; k0 += kBlock) {
    const arma::uword nw = std::min(kBlock, n - k0);
    for (arma::uword w = 0; w < kBlock; ++w) {
      const Real* z = Z.colptr(k0 + std::min(w, nw - 1));  // padding lanes repeat the last column
      for (arma::uword a = 0; a < C; ++a) buf[a * kBlock + w] = z[a];
    }
    // shifted logits z - max(z) <= 0, one exp over the block, normalisation
    // (not log_softmax.h's order on purpose: one vector exp for kBlock
    // columns, in float or double, and p kept for the backward pass)
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
      const Real inv = Real(1) / sum[w];
      for (arma::uword a = 0; a < C; ++a) buf[a * kBlock + w] *= inv;
    }
    for (arma::uword w = 0; w < nw; ++w) {
      Real* p = probs.colptr(k0 + w);
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

template <class Real>
POTTS_ISA_CLONED_AVX2 void cross_entropy_backward(Mat<Real>& dZ, const Mat<Real>& probs,
                                                  const std::vector<int>& targets, double scale) {
  // forward: loss = logsumexp(z) - z[y], so dz = p - onehot(y)
  const arma::uword C = probs.n_rows;
  const Real s = Real(scale);
  for (arma::uword k = 0; k < probs.n_cols; ++k) {
    if (targets[k] < 0) continue;
    const Real* p = probs.colptr(k);
    Real* dz = dZ.colptr(k);
    for (arma::uword a = 0; a < C; ++a) dz[a] += s * p[a];
    dz[targets[k]] -= s;
  }
}

template <class Real>
POTTS_ISA_CLONED_AVX2 double cross_entropy_rows_forward(Mat<Real>& probs_t, const Mat<Real>& Zt,
                                                        const std::vector<int>& targets) {
  const arma::uword n = Zt.n_rows, C = Zt.n_cols;
  probs_t.set_size(n, C);
  std::vector<Real> mx(Zt.colptr(0), Zt.colptr(0) + n), sum(n, Real(0));
  for (arma::uword a = 1; a < C; ++a) {
    const Real* z = Zt.colptr(a);
    for (arma::uword k = 0; k < n; ++k) mx[k] = std::max(mx[k], z[k]);
  }
  // shifted logits z - max(z) <= 0, one exp over the block, normalisation
  // (not log_softmax.h's order on purpose: rows side by side, one vector exp)
  for (arma::uword a = 0; a < C; ++a) {
    const Real* z = Zt.colptr(a);
    Real* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) p[k] = z[k] - mx[k];
  }
  exp_nonpositive(probs_t.memptr(), probs_t.n_elem);
  for (arma::uword a = 0; a < C; ++a) {
    const Real* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) sum[k] += p[k];
  }
  std::vector<Real> inv(n);
  for (arma::uword k = 0; k < n; ++k) inv[k] = targets[k] < 0 ? Real(0) : Real(1) / sum[k];  // unused rows: zero
  for (arma::uword a = 0; a < C; ++a) {
    Real* p = probs_t.colptr(a);
    for (arma::uword k = 0; k < n; ++k) p[k] *= inv[k];
  }
  double loss = 0.0;
  for (arma::uword k = 0; k < n; ++k)
    if (targets[k] >= 0) loss += double(mx[k] + std::log(sum[k]) - Zt(k, arma::uword(targets[k])));
  return loss;
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void cross_entropy_rows_backward(Mat<Real>& dZt, const Mat<Real>& probs_t,
                                                       const std::vector<int>& targets, double scale) {
  // forward: loss = logsumexp(z) - z[y], so dz = p - onehot(y); unused rows of p are zero
  const arma::uword n = probs_t.n_rows, C = probs_t.n_cols;
  const Real s = Real(scale);
  for (arma::uword a = 0; a < C; ++a) {
    const Real* p = probs_t.colptr(a);
    Real* dz = dZt.colptr(a);
    for (arma::uword k = 0; k < n; ++k) dz[k] += s * p[k];
  }
  for (arma::uword k = 0; k < n; ++k)
    if (targets[k] >= 0) dZt(k, arma::uword(targets[k])) -= s;
}

// ---------------------------------------------------------------------------
template <class Real>
POTTS_ISA_CLONED_AVX2 void factored_attention_forward(Mat<Real>& Zt, Mat<Real>& Ht, const std::vector<int>& sequences,
                                                      const Mat<Real>& A, const Mat<Real>& V, arma::uword L) {
  const arma::uword C = V.n_rows, B = sequences.size() / L, n = B * L;
  Mat<Real> Ad = A;  // the masked position does not attend to itself: A_jj = 0
  Ad.diag().zeros();
  Ht.zeros(n, V.n_cols);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword j = 0; j < L; ++j) {
      // Ht[bL + i, s_j] += A_ij for all i: a contiguous column update
      Real* h = Ht.colptr(s[j]) + b * L;
      const Real* a = Ad.colptr(j);
      for (arma::uword i = 0; i < L; ++i) h[i] += a[i];
    }
  }
  // logits_i(a) = sum_{j != i} A_ij V[a, s_j]   (eq. 4):  Zt = Ht V^T
  Zt.set_size(n, C);
  gemm(false, true, n, C, V.n_cols, Real(1), Ht.memptr(), n, V.memptr(), V.n_rows, Real(0), Zt.memptr(), n);
}

template <class Real>
POTTS_ISA_CLONED_AVX2 void factored_attention_backward(Mat<Real>& dA, Mat<Real>& dV, const Mat<Real>& dZt,
                                                       const Mat<Real>& Ht, const std::vector<int>& sequences,
                                                       const Mat<Real>& V, arma::uword L) {
  const arma::uword B = sequences.size() / L, n = B * L;
  // forward: Zt = Ht V^T, so dV += dZt^T Ht and dHt = dZt V
  gemm(true, false, V.n_rows, Ht.n_cols, n, Real(1), dZt.memptr(), n, Ht.memptr(), n, Real(1), dV.memptr(), dV.n_rows);
  Mat<Real> dHt(n, V.n_cols);
  gemm(false, false, n, V.n_cols, V.n_rows, Real(1), dZt.memptr(), n, V.memptr(), V.n_rows, Real(0), dHt.memptr(), n);
  // forward: Ht[bL + i, s_j] += A_ij, so dA_ij += dHt[bL + i, s_j]
  Mat<Real> dAb(L, L, arma::fill::zeros);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword j = 0; j < L; ++j) {
      const Real* g = dHt.colptr(s[j]) + b * L;
      Real* da = dAb.colptr(j);
      for (arma::uword i = 0; i < L; ++i) da[i] += g[i];
    }
  }
  for (arma::uword j = 0; j < L; ++j)
    for (arma::uword i = 0; i < L; ++i)
      if (i != j) dA(i, j) += dAb(i, j);
}

// ---------------------------------------------------------------------------
// The two instantiations.
#define POTTS_NN_INSTANTIATE(Real)                                                                                     \
  template void linear_forward(Mat<Real>&, const Mat<Real>&, const Mat<Real>&, const Mat<Real>&);                      \
  template void linear_backward(Mat<Real>*, Mat<Real>&, Mat<Real>&, const Mat<Real>&, const Mat<Real>&,                \
                                const Mat<Real>&);                                                                     \
  template void relu_forward(Mat<Real>&, const Mat<Real>&);                                                            \
  template void relu_backward(Mat<Real>&, const Mat<Real>&, const Mat<Real>&, Grad);                                   \
  template void layernorm_forward(Mat<Real>&, LayerNormCacheT<Real>&, const Mat<Real>&, const Mat<Real>&,              \
                                  const Mat<Real>&, double);                                                           \
  template void layernorm_backward(Mat<Real>&, Mat<Real>&, Mat<Real>&, const Mat<Real>&, const LayerNormCacheT<Real>&, \
                                   const Mat<Real>&, Grad);                                                            \
  template void embedding_forward(Mat<Real>&, const std::vector<int>&, const Mat<Real>&, const Mat<Real>&,             \
                                  const Mat<Real>&, arma::uword);                                                      \
  template void embedding_backward(Mat<Real>&, Mat<Real>&, const Mat<Real>&, const std::vector<int>&);                 \
  template void gather_forward(Mat<Real>&, const Mat<Real>&, const std::vector<arma::uword>&);                         \
  template void gather_backward(Mat<Real>&, const Mat<Real>&, const std::vector<arma::uword>&);                        \
  template double cross_entropy_forward(Mat<Real>&, const Mat<Real>&, const std::vector<int>&);                        \
  template void cross_entropy_backward(Mat<Real>&, const Mat<Real>&, const std::vector<int>&, double);                 \
  template double cross_entropy_rows_forward(Mat<Real>&, const Mat<Real>&, const std::vector<int>&);                   \
  template void cross_entropy_rows_backward(Mat<Real>&, const Mat<Real>&, const std::vector<int>&, double);            \
  template void factored_attention_forward(Mat<Real>&, Mat<Real>&, const std::vector<int>&, const Mat<Real>&,          \
                                           const Mat<Real>&, arma::uword);                                             \
  template void factored_attention_backward(Mat<Real>&, Mat<Real>&, const Mat<Real>&, const Mat<Real>&,                \
                                            const std::vector<int>&, const Mat<Real>&, arma::uword);

POTTS_NN_INSTANTIATE(double)
POTTS_NN_INSTANTIATE(float)
#undef POTTS_NN_INSTANTIATE

}  // namespace nn
}  // namespace potts
