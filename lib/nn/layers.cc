#include "lib/nn/layers.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <cblas.h>

namespace potts {
namespace nn {

// exp(x) for x <= 0, in place over an array (softmax weights after the
// maximum is subtracted). Written as plain IEEE arithmetic so that the same
// bits come out on every x86-64 machine (libm's exp dispatches on the CPU)
// and so that the loop vectorises: x = k ln2 + r with |r| <= ln2/2, exp(r) by
// its Taylor series to r^13 (truncation < 2e-16 relative), times 2^k built in
// the exponent bits. x < -708 is clamped to -708 (a weight of 1e-308 next to
// the maximum's 1, i.e. zero for every purpose here).
// Compiled twice (AVX2 and baseline SSE2; the loader picks one): the same
// IEEE operations element by element either way, so the same bits.
__attribute__((target_clones("avx2", "default"))) void exp_nonpositive(double* x, arma::uword n) {
  const double log2e = 1.4426950408889634, ln2_hi = 0.693147180369123816490, ln2_lo = 1.90821492927058770002e-10;
  const double shifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  for (arma::uword k = 0; k < n; ++k) {
    const double xc = x[k] < -708.0 ? -708.0 : x[k];
    const double t = xc * log2e + shifter;
    const double kf = t - shifter;  // round(x / ln2)
    const double r = (xc - kf * ln2_hi) - kf * ln2_lo;
    double p = 1.0 / 6227020800.0;  // 1/13!
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    std::uint64_t bits;
    std::memcpy(&bits, &t, sizeof bits);  // low bits of t hold k
    bits = (bits + 1023) << 52;           // 2^k
    double scale;
    std::memcpy(&scale, &bits, sizeof scale);
    x[k] = p * scale;
  }
}

// ---------------------------------------------------------------------------
void linear_forward(arma::mat& Y, const arma::mat& X, const arma::mat& W, const arma::mat& b) {
  // X: in x T, W: out x in, b: out x 1 -> Y: out x T (one BLAS product)
  Y.set_size(W.n_rows, X.n_cols);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, W.n_rows, X.n_cols, W.n_cols, 1.0, W.memptr(), W.n_rows,
              X.memptr(), X.n_rows, 0.0, Y.memptr(), Y.n_rows);  // Y = W X
  const arma::uword out = W.n_rows;
  const double* bp = b.memptr();
  for (arma::uword t = 0; t < X.n_cols; ++t) {
    double* y = Y.colptr(t);
    for (arma::uword o = 0; o < out; ++o) y[o] += bp[o];
  }
}

void linear_backward(arma::mat* dX, arma::mat& dW, arma::mat& db, const arma::mat& dY, const arma::mat& X,
                     const arma::mat& W) {
  // in the forward pass this was: Y = W X + b 1^T, so now we have:
  // dL/dW += dY X^T
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, dY.n_rows, X.n_rows, dY.n_cols, 1.0, dY.memptr(), dY.n_rows,
              X.memptr(), X.n_rows, 1.0, dW.memptr(), dW.n_rows);
  // dL/db += dY 1
  double* dbp = db.memptr();
  for (arma::uword t = 0; t < dY.n_cols; ++t) {
    const double* dy = dY.colptr(t);
    for (arma::uword o = 0; o < dY.n_rows; ++o) dbp[o] += dy[o];
  }
  // dL/dX += W^T dY
  if (dX)
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, W.n_cols, dY.n_cols, W.n_rows, 1.0, W.memptr(), W.n_rows,
                dY.memptr(), dY.n_rows, 1.0, dX->memptr(), dX->n_rows);
}

// ---------------------------------------------------------------------------
void relu_forward(arma::mat& Y, const arma::mat& X) {
  Y.set_size(X.n_rows, X.n_cols);
  const double* x = X.memptr();
  double* y = Y.memptr();
  for (arma::uword k = 0; k < X.n_elem; ++k) y[k] = x[k] > 0.0 ? x[k] : 0.0;
}

void relu_backward(arma::mat& dX, const arma::mat& dY, const arma::mat& Y) {
  // forward: y = max(0, x), so dx += dy [y > 0]
  const double* dy = dY.memptr();
  const double* y = Y.memptr();
  double* dx = dX.memptr();
  for (arma::uword k = 0; k < Y.n_elem; ++k)
    if (y[k] > 0.0) dx[k] += dy[k];
}

// ---------------------------------------------------------------------------
void layernorm_forward(arma::mat& Y, LayerNormCache& cache, const arma::mat& X, const arma::mat& gamma,
                       const arma::mat& beta, double eps) {
  const arma::uword d = X.n_rows, T = X.n_cols;
  Y.set_size(d, T);
  cache.xhat.set_size(d, T);
  cache.rstd.set_size(T);
  const double* g = gamma.memptr();
  const double* be = beta.memptr();
  for (arma::uword t = 0; t < T; ++t) {
    const double* x = X.colptr(t);
    double mean = 0.0;
    for (arma::uword k = 0; k < d; ++k) mean += x[k];
    mean /= double(d);
    double var = 0.0;
    for (arma::uword k = 0; k < d; ++k) var += (x[k] - mean) * (x[k] - mean);
    var /= double(d);  // biased variance, as in LayerNorm
    const double rstd = 1.0 / std::sqrt(var + eps);
    double* xh = cache.xhat.colptr(t);
    double* y = Y.colptr(t);
    for (arma::uword k = 0; k < d; ++k) {
      xh[k] = (x[k] - mean) * rstd;
      y[k] = g[k] * xh[k] + be[k];
    }
    cache.rstd(t) = rstd;
  }
}

void layernorm_backward(arma::mat& dX, arma::mat& dgamma, arma::mat& dbeta, const arma::mat& dY,
                        const LayerNormCache& cache, const arma::mat& gamma) {
  // forward: y = gamma xhat + beta, xhat = (x - mean) rstd, so now we have
  //   dxhat = dy gamma,
  //   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
  const arma::uword d = dY.n_rows, T = dY.n_cols;
  const double* g = gamma.memptr();
  double* dg = dgamma.memptr();
  double* db = dbeta.memptr();
  for (arma::uword t = 0; t < T; ++t) {
    const double* dy = dY.colptr(t);
    const double* xh = cache.xhat.colptr(t);
    double mean_dxhat = 0.0, mean_dxhat_xhat = 0.0;
    for (arma::uword k = 0; k < d; ++k) {
      const double dxh = dy[k] * g[k];
      mean_dxhat += dxh;
      mean_dxhat_xhat += dxh * xh[k];
      dg[k] += dy[k] * xh[k];
      db[k] += dy[k];
    }
    mean_dxhat /= double(d);
    mean_dxhat_xhat /= double(d);
    const double rstd = cache.rstd(t);
    double* dx = dX.colptr(t);
    for (arma::uword k = 0; k < d; ++k) dx[k] += rstd * (dy[k] * g[k] - mean_dxhat - xh[k] * mean_dxhat_xhat);
  }
}

// ---------------------------------------------------------------------------
// The per-sequence products are L x L x d = 8000 multiply-adds at paper
// size: hand-written loops in "axpy" form (inner loops run over contiguous
// memory with independent elements, so the compiler vectorises them without
// reordering any sum) beat a BLAS call per sequence.
//
// Kt: the keys of sequence b transposed (L x d, column c = feature c of all
// keys), so that a score column is a sum of contiguous columns.
static void transpose_block(double* out, const double* in, arma::uword d, arma::uword L) {
  // in: d x L column-major -> out: L x d column-major
  for (arma::uword k = 0; k < L; ++k)
    for (arma::uword c = 0; c < d; ++c) out[c * L + k] = in[k * d + c];
}

// The kernels are templates on (L, d): with the paper's sizes known at
// compile time the loops are unrolled and kept in registers; kL = 0 is the
// general case. Both give the same numbers (same operations, same order).
template <arma::uword kL, arma::uword kD>
static void attention_forward_impl(arma::mat& O, arma::mat& P, const arma::mat& Q, const arma::mat& K,
                                   const arma::mat& V, arma::uword L_rt, arma::uword Lq) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows, B = K.n_cols / L;
  const double scale = 1.0 / std::sqrt(double(d));
  O.set_size(dv, B * Lq);
  P.set_size(L, B * Lq);
  std::vector<double> Kt(L * d), heap_acc(kL ? 0 : L), heap_acc_o(kD ? 0 : dv);
  double local_acc[kL ? kL : 1], local_acc_o[kD ? kD : 1];
  double* acc = kL ? local_acc : heap_acc.data();
  double* acc_o = kD ? local_acc_o : heap_acc_o.data();
  for (arma::uword b = 0; b < B; ++b) {
    transpose_block(Kt.data(), K.colptr(b * L), d, L);
    const double* Vb = V.colptr(b * L);
    for (arma::uword q = 0; q < Lq; ++q) {
      const double* qv = Q.colptr(b * Lq + q);
      double* p = P.colptr(b * Lq + q);
      // S[:, q] = K_b^T q / sqrt(d), accumulated in a local buffer
      for (arma::uword k = 0; k < L; ++k) acc[k] = 0.0;
      for (arma::uword c = 0; c < d; ++c) {
        const double w = qv[c] * scale;
        const double* kt = &Kt[c * L];
        for (arma::uword k = 0; k < L; ++k) acc[k] += w * kt[k];
      }
      for (arma::uword k = 0; k < L; ++k) p[k] = acc[k];
      // P[:, q] = softmax(S[:, q])
      double mx = p[0];
      for (arma::uword k = 1; k < L; ++k) mx = std::max(mx, p[k]);
      for (arma::uword k = 0; k < L; ++k) p[k] -= mx;
      exp_nonpositive(p, L);
      double z = 0.0;
      for (arma::uword k = 0; k < L; ++k) z += p[k];
      const double inv = 1.0 / z;
      for (arma::uword k = 0; k < L; ++k) p[k] *= inv;
      // O[:, q] = V_b P[:, q]
      double* o = O.colptr(b * Lq + q);
      for (arma::uword c = 0; c < dv; ++c) acc_o[c] = 0.0;
      for (arma::uword k = 0; k < L; ++k) {
        const double w = p[k];
        const double* v = Vb + k * dv;
        for (arma::uword c = 0; c < dv; ++c) acc_o[c] += w * v[c];
      }
      for (arma::uword c = 0; c < dv; ++c) o[c] = acc_o[c];
    }
  }
}

template <arma::uword kL, arma::uword kD>
static void attention_backward_impl(arma::mat& dQ, arma::mat& dK, arma::mat& dV, const arma::mat& dO,
                                    const arma::mat& P, const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                                    arma::uword L_rt, arma::uword Lq) {
  const arma::uword L = kL ? kL : L_rt, d = kD ? kD : Q.n_rows, dv = kD ? kD : V.n_rows, B = K.n_cols / L;
  const double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> Vt(L * dv), heap_ds(kL ? 0 : L), heap_dq(kD ? 0 : d);
  double local_ds[kL ? kL : 1], local_dq[kD ? kD : 1];
  double* ds = kL ? local_ds : heap_ds.data();
  double* dq_acc = kD ? local_dq : heap_dq.data();
  for (arma::uword b = 0; b < B; ++b) {
    transpose_block(Vt.data(), V.colptr(b * L), dv, L);
    const double* Kb = K.colptr(b * L);
    double* dKb = dK.colptr(b * L);
    double* dVb = dV.colptr(b * L);
    for (arma::uword q = 0; q < Lq; ++q) {
      const double* p = P.colptr(b * Lq + q);
      const double* dout = dO.colptr(b * Lq + q);
      const double* qv = Q.colptr(b * Lq + q);
      double* dq = dQ.colptr(b * Lq + q);
      // forward: O[:, q] = V_b P[:, q], so dV_b[:, k] += P[k, q] dO[:, q] and dP[:, q] = V_b^T dO[:, q]
      for (arma::uword k = 0; k < L; ++k) {
        const double w = p[k];
        double* dv_k = dVb + k * dv;
        for (arma::uword c = 0; c < dv; ++c) dv_k[c] += w * dout[c];
      }
      for (arma::uword k = 0; k < L; ++k) ds[k] = 0.0;
      for (arma::uword c = 0; c < dv; ++c) {
        const double w = dout[c];
        const double* vt = &Vt[c * L];
        for (arma::uword k = 0; k < L; ++k) ds[k] += w * vt[k];
      }
      // forward: P = softmax(S), so dS = P (dP - <P, dP>); times 1/sqrt(d) from S = K^T Q / sqrt(d)
      double dot = 0.0;
      for (arma::uword k = 0; k < L; ++k) dot += p[k] * ds[k];
      for (arma::uword k = 0; k < L; ++k) ds[k] = scale * p[k] * (ds[k] - dot);
      // forward: S[k, q] = K_b[:, k] . Q[:, q], so dQ[:, q] += sum_k dS[k] K_b[:, k], dK_b[:, k] += dS[k] Q[:, q]
      for (arma::uword c = 0; c < d; ++c) dq_acc[c] = 0.0;
      for (arma::uword k = 0; k < L; ++k) {
        const double w = ds[k];
        const double* kv = Kb + k * d;
        double* dk = dKb + k * d;
        for (arma::uword c = 0; c < d; ++c) dq_acc[c] += w * kv[c];
        for (arma::uword c = 0; c < d; ++c) dk[c] += w * qv[c];
      }
      for (arma::uword c = 0; c < d; ++c) dq[c] += dq_acc[c];
    }
  }
}

void attention_forward(arma::mat& O, arma::mat& P, const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                       arma::uword L, arma::uword Lq) {
  if (L == 20 && Q.n_rows == 20 && V.n_rows == 20)
    attention_forward_impl<20, 20>(O, P, Q, K, V, L, Lq);
  else
    attention_forward_impl<0, 0>(O, P, Q, K, V, L, Lq);
}

void attention_backward(arma::mat& dQ, arma::mat& dK, arma::mat& dV, const arma::mat& dO, const arma::mat& P,
                        const arma::mat& Q, const arma::mat& K, const arma::mat& V, arma::uword L, arma::uword Lq) {
  if (L == 20 && Q.n_rows == 20 && V.n_rows == 20)
    attention_backward_impl<20, 20>(dQ, dK, dV, dO, P, Q, K, V, L, Lq);
  else
    attention_backward_impl<0, 0>(dQ, dK, dV, dO, P, Q, K, V, L, Lq);
}

// ---------------------------------------------------------------------------
void embedding_forward(arma::mat& X, const std::vector<int>& tokens, const arma::mat& W_emb, const arma::mat& b_emb,
                       const arma::mat& PE, arma::uword L) {
  const arma::uword d = W_emb.n_rows, T = tokens.size();
  X.set_size(d, T);
  const double* be = b_emb.memptr();
  for (arma::uword t = 0; t < T; ++t) {
    const double* w = W_emb.colptr(tokens[t]);
    const double* pe = PE.colptr(t % L);
    double* x = X.colptr(t);
    for (arma::uword k = 0; k < d; ++k) x[k] = w[k] + be[k] + pe[k];
  }
}

void embedding_backward(arma::mat& dW_emb, arma::mat& db_emb, const arma::mat& dX, const std::vector<int>& tokens) {
  // forward: x_t = W_emb onehot(token_t) + b_emb + pe, so dW_emb[:, token_t] += dx_t, db_emb += dx_t
  const arma::uword d = dX.n_rows;
  double* db = db_emb.memptr();
  for (arma::uword t = 0; t < tokens.size(); ++t) {
    const double* dx = dX.colptr(t);
    double* dw = dW_emb.colptr(tokens[t]);
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
void gather_forward(arma::mat& Xq, const arma::mat& X, const std::vector<arma::uword>& cols) {
  Xq.set_size(X.n_rows, cols.size());
  for (arma::uword k = 0; k < cols.size(); ++k)
    std::copy(X.colptr(cols[k]), X.colptr(cols[k]) + X.n_rows, Xq.colptr(k));
}

void gather_backward(arma::mat& dX, const arma::mat& dXq, const std::vector<arma::uword>& cols) {
  for (arma::uword k = 0; k < cols.size(); ++k) {
    const double* src = dXq.colptr(k);
    double* dst = dX.colptr(cols[k]);
    for (arma::uword r = 0; r < dX.n_rows; ++r) dst[r] += src[r];
  }
}

// ---------------------------------------------------------------------------
double cross_entropy_forward(arma::mat& probs, const arma::mat& Z, const std::vector<int>& targets) {
  const arma::uword C = Z.n_rows, n = Z.n_cols;
  probs.set_size(C, n);
  // shifted logits z - max(z) <= 0 for every column (unused columns: 0), then
  // one exp over the whole block, then normalisation
  for (arma::uword k = 0; k < n; ++k) {
    const double* z = Z.colptr(k);
    double* p = probs.colptr(k);
    if (targets[k] < 0) {
      for (arma::uword a = 0; a < C; ++a) p[a] = 0.0;
      continue;
    }
    double mx = z[0];
    for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, z[a]);
    for (arma::uword a = 0; a < C; ++a) p[a] = z[a] - mx;
  }
  exp_nonpositive(probs.memptr(), probs.n_elem);
  double loss = 0.0;
  for (arma::uword k = 0; k < n; ++k) {
    if (targets[k] < 0) continue;
    const double* z = Z.colptr(k);
    double* p = probs.colptr(k);
    double mx = z[0];
    for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, z[a]);
    double sum = 0.0;
    for (arma::uword a = 0; a < C; ++a) sum += p[a];
    const double inv = 1.0 / sum;
    for (arma::uword a = 0; a < C; ++a) p[a] *= inv;
    loss += mx + std::log(sum) - z[targets[k]];  // -log softmax(z)[target]
  }
  return loss;
}

void cross_entropy_backward(arma::mat& dZ, const arma::mat& probs, const std::vector<int>& targets, double scale) {
  // forward: loss = logsumexp(z) - z[y], so dz = p - onehot(y)
  const arma::uword C = probs.n_rows;
  for (arma::uword k = 0; k < probs.n_cols; ++k) {
    if (targets[k] < 0) continue;
    const double* p = probs.colptr(k);
    double* dz = dZ.colptr(k);
    for (arma::uword a = 0; a < C; ++a) dz[a] += scale * p[a];
    dz[targets[k]] -= scale;
  }
}

// ---------------------------------------------------------------------------
void factored_attention_forward(arma::mat& Z, arma::mat& H, const std::vector<int>& sequences, const arma::mat& A,
                                const arma::mat& V, arma::uword L) {
  const arma::uword C = V.n_rows, B = sequences.size() / L;
  H.zeros(V.n_cols, B * L);
  const arma::mat At = A.t();  // column i = row i of A, contiguous
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      double* h = H.colptr(b * L + i);
      const double* a = At.colptr(i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) h[s[j]] += a[j];  // H[c, bL+i] = sum_{j != i, s_j = c} A_ij
    }
  }
  Z.set_size(C, B * L);
  // logits_i(a) = sum_{j != i} A_ij V[a, s_j]   (eq. 4):  Z = V H
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, C, B * L, V.n_cols, 1.0, V.memptr(), V.n_rows, H.memptr(),
              H.n_rows, 0.0, Z.memptr(), Z.n_rows);
}

void factored_attention_backward(arma::mat& dA, arma::mat& dV, const arma::mat& dZ, const arma::mat& H,
                                 const std::vector<int>& sequences, const arma::mat& V, arma::uword L) {
  const arma::uword B = sequences.size() / L;
  // forward: Z = V H, so dV += dZ H^T and dH = V^T dZ
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, dZ.n_rows, H.n_rows, dZ.n_cols, 1.0, dZ.memptr(), dZ.n_rows,
              H.memptr(), H.n_rows, 1.0, dV.memptr(), dV.n_rows);
  arma::mat dH(V.n_cols, dZ.n_cols);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, V.n_cols, dZ.n_cols, V.n_rows, 1.0, V.memptr(), V.n_rows,
              dZ.memptr(), dZ.n_rows, 0.0, dH.memptr(), dH.n_rows);
  // forward: H[s_j, bL+i] += A_ij, so dA_ij += dH[s_j, bL+i]
  arma::mat dAt(L, L, arma::fill::zeros);  // transposed, as in the forward pass
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      const double* dh = dH.colptr(b * L + i);
      double* da = dAt.colptr(i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) da[j] += dh[s[j]];
    }
  }
  dA += dAt.t();
}

}  // namespace nn
}  // namespace potts
