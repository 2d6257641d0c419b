#include "lib/nn/layers.h"

#include <cmath>

namespace potts {
namespace nn {

// A read-only view of `n` columns of M starting at column `c0` (no copy).
static const arma::mat cols_view(const arma::mat& M, arma::uword c0, arma::uword n) {
  return arma::mat(const_cast<double*>(M.colptr(c0)), M.n_rows, n, /*copy_aux_mem=*/false, /*strict=*/true);
}
static arma::mat cols_view(arma::mat& M, arma::uword c0, arma::uword n) {
  return arma::mat(M.colptr(c0), M.n_rows, n, /*copy_aux_mem=*/false, /*strict=*/true);
}

// ---------------------------------------------------------------------------
void linear_forward(arma::mat& Y, const arma::mat& X, const arma::mat& W, const arma::mat& b) {
  // X: in x T, W: out x in, b: out x 1 -> Y: out x T (one BLAS product)
  Y.set_size(W.n_rows, X.n_cols);
  Y = W * X;
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
  dW += dY * X.t();                // dL/dW = dY X^T
  db += arma::sum(dY, 1);          // dL/db = dY 1
  if (dX) *dX += W.t() * dY;       // dL/dX = W^T dY
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
void attention_forward(arma::mat& O, arma::mat& P, const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                       arma::uword L, arma::uword Lq) {
  const arma::uword d = Q.n_rows, B = K.n_cols / L;
  const double scale = 1.0 / std::sqrt(double(d));
  O.set_size(V.n_rows, B * Lq);
  P.set_size(L, B * Lq);
  for (arma::uword b = 0; b < B; ++b) {
    const arma::mat Qb = cols_view(Q, b * Lq, Lq), Kb = cols_view(K, b * L, L), Vb = cols_view(V, b * L, L);
    arma::mat Pb = cols_view(P, b * Lq, Lq), Ob = cols_view(O, b * Lq, Lq);
    Pb = Kb.t() * Qb;  // S_b (L x Lq), scaled below
    for (arma::uword q = 0; q < Lq; ++q) {
      double* p = Pb.colptr(q);
      double mx = -INFINITY;
      for (arma::uword k = 0; k < L; ++k) mx = std::max(mx, p[k] * scale);
      double z = 0.0;
      for (arma::uword k = 0; k < L; ++k) z += (p[k] = std::exp(p[k] * scale - mx));
      for (arma::uword k = 0; k < L; ++k) p[k] /= z;
    }
    Ob = Vb * Pb;  // O_b = V_b P_b (d x Lq)
  }
}

void attention_backward(arma::mat& dQ, arma::mat& dK, arma::mat& dV, const arma::mat& dO, const arma::mat& P,
                        const arma::mat& Q, const arma::mat& K, const arma::mat& V, arma::uword L, arma::uword Lq) {
  const arma::uword d = Q.n_rows, B = K.n_cols / L;
  const double scale = 1.0 / std::sqrt(double(d));
  arma::mat dS(L, Lq);
  for (arma::uword b = 0; b < B; ++b) {
    const arma::mat Qb = cols_view(Q, b * Lq, Lq), Kb = cols_view(K, b * L, L), Vb = cols_view(V, b * L, L);
    const arma::mat Pb = cols_view(P, b * Lq, Lq), dOb = cols_view(dO, b * Lq, Lq);
    arma::mat dQb = cols_view(dQ, b * Lq, Lq), dKb = cols_view(dK, b * L, L), dVb = cols_view(dV, b * L, L);
    // forward: O_b = V_b P_b, so dV_b += dO_b P_b^T and dP_b = V_b^T dO_b
    dVb += dOb * Pb.t();
    dS = Vb.t() * dOb;
    // forward: P = softmax(S) per column, so dS = P (dP - <P, dP>)
    for (arma::uword q = 0; q < Lq; ++q) {
      const double* p = Pb.colptr(q);
      double* ds = dS.colptr(q);
      double dot = 0.0;
      for (arma::uword k = 0; k < L; ++k) dot += p[k] * ds[k];
      for (arma::uword k = 0; k < L; ++k) ds[k] = scale * p[k] * (ds[k] - dot);  // includes 1/sqrt(d)
    }
    // forward: S_b = K_b^T Q_b / sqrt(d), so dQ_b += K_b dS, dK_b += Q_b dS^T
    dQb += Kb * dS;
    dKb += Qb * dS.t();
  }
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
  double loss = 0.0;
  for (arma::uword k = 0; k < n; ++k) {
    if (targets[k] < 0) continue;
    const double* z = Z.colptr(k);
    double* p = probs.colptr(k);
    double mx = z[0];
    for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, z[a]);
    double sum = 0.0;
    for (arma::uword a = 0; a < C; ++a) sum += (p[a] = std::exp(z[a] - mx));
    for (arma::uword a = 0; a < C; ++a) p[a] /= sum;
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
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      double* h = H.colptr(b * L + i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) h[s[j]] += A(i, j);  // H[c, bL+i] = sum_{j != i, s_j = c} A_ij
    }
  }
  Z.set_size(C, B * L);
  Z = V * H;  // logits_i(a) = sum_{j != i} A_ij V[a, s_j]   (eq. 4)
}

void factored_attention_backward(arma::mat& dA, arma::mat& dV, const arma::mat& dZ, const arma::mat& H,
                                 const std::vector<int>& sequences, const arma::mat& V, arma::uword L) {
  const arma::uword B = sequences.size() / L;
  // forward: Z = V H, so dV += dZ H^T and dH = V^T dZ
  dV += dZ * H.t();
  const arma::mat dH = V.t() * dZ;
  // forward: H[s_j, bL+i] += A_ij, so dA_ij += dH[s_j, bL+i]
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      const double* dh = dH.colptr(b * L + i);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) dA(i, j) += dh[s[j]];
    }
  }
}

}  // namespace nn
}  // namespace potts
