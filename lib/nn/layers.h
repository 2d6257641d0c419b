// Layers of the two models of SPEC.md section 2, in double precision.
//
// Every layer is a forward and a backward function side by side (llm.c
// style). Activations are column-major arma::mat with one column per token
// and one row per feature, so a token's features are contiguous and a
// linear layer over all tokens of a batch is one matrix product.
//
// Shape letters: B sequences in the batch, L positions, C colours, d model
// width, T tokens (= B L, or B Lq when only Lq query positions per sequence
// are kept), F feed-forward width.
//
// Backward functions ACCUMULATE (+=) into parameter gradients and into the
// gradient of their input, so a tensor used twice (residuals) simply receives
// two contributions. Callers zero the buffers.
#pragma once
#include <vector>

#include <armadillo>

namespace potts {
namespace nn {

// ---------------------------------------------------------------------------
// Linear (dense) layer: Y = W X + b 1^T.
// X: in x T, W: out x in, b: out x 1, Y: out x T.
void linear_forward(arma::mat& Y, const arma::mat& X, const arma::mat& W, const arma::mat& b);
// dX may be null (input needs no gradient).
void linear_backward(arma::mat* dX, arma::mat& dW, arma::mat& db, const arma::mat& dY, const arma::mat& X,
                     const arma::mat& W);

// ---------------------------------------------------------------------------
// ReLU: Y = max(0, X), any shape.
void relu_forward(arma::mat& Y, const arma::mat& X);
// Uses the output Y (Y > 0 exactly where X > 0).
void relu_backward(arma::mat& dX, const arma::mat& dY, const arma::mat& Y);

// ---------------------------------------------------------------------------
// LayerNorm over the features of each column (Ba et al. 2016):
//   xhat = (x - mean) / sqrt(var + eps),  y = gamma * xhat + beta.
// X, Y: d x T; gamma, beta: d x 1. Cached: xhat (d x T) and rstd (T).
struct LayerNormCache {
  arma::mat xhat;
  arma::vec rstd;
};
void layernorm_forward(arma::mat& Y, LayerNormCache& cache, const arma::mat& X, const arma::mat& gamma,
                       const arma::mat& beta, double eps);
void layernorm_backward(arma::mat& dX, arma::mat& dgamma, arma::mat& dbeta, const arma::mat& dY,
                        const LayerNormCache& cache, const arma::mat& gamma);

// ---------------------------------------------------------------------------
// Single-head scaled dot-product self-attention within each sequence
// (Vaswani et al. 2017, eq. 2 of the paper without the projections):
//   S_b = K_b^T Q_b / sqrt(d),  P_b = softmax over keys (columns of S_b),
//   O_b = V_b P_b.
// Q: d x (B Lq) queries, K, V: d x (B L), O: d x (B Lq).
// Cached: P (L x (B Lq)), column b Lq + q = attention of query q of
// sequence b over the L keys of that sequence.
void attention_forward(arma::mat& O, arma::mat& P, const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                       arma::uword L, arma::uword Lq);
void attention_backward(arma::mat& dQ, arma::mat& dK, arma::mat& dV, const arma::mat& dO, const arma::mat& P,
                        const arma::mat& Q, const arma::mat& K, const arma::mat& V, arma::uword L, arma::uword Lq);

// ---------------------------------------------------------------------------
// Token embedding plus sinusoidal positional encoding (Vaswani et al. 2017):
// a dense layer with bias on the one-hot token (C colours + mask token C):
//   X[:, b L + j] = W_emb[:, token(b, j)] + b_emb + PE[:, j].
// tokens: B L values in 0..C (row-major, b L + j); W_emb: d x (C+1);
// b_emb: d x 1; PE: d x L.
void embedding_forward(arma::mat& X, const std::vector<int>& tokens, const arma::mat& W_emb, const arma::mat& b_emb,
                       const arma::mat& PE, arma::uword L);
void embedding_backward(arma::mat& dW_emb, arma::mat& db_emb, const arma::mat& dX, const std::vector<int>& tokens);

// Sinusoidal encoding: PE[2k, j] = sin(j / 10000^(2k/d)), PE[2k+1, j] = cos(same).
arma::mat sinusoidal_positions(arma::uword d, arma::uword L);

// ---------------------------------------------------------------------------
// Column selection (the query positions kept by the last block):
// Xq[:, k] = X[:, cols[k]].
void gather_forward(arma::mat& Xq, const arma::mat& X, const std::vector<arma::uword>& cols);
void gather_backward(arma::mat& dX, const arma::mat& dXq, const std::vector<arma::uword>& cols);

// ---------------------------------------------------------------------------
// Cross-entropy of a softmax over C classes, summed over the columns used:
//   loss = sum_k weight_k (logsumexp(Z[:, k]) - Z[target_k, k]).
// Z: C x n logits; targets: n colours; a column with target < 0 is skipped
// (weight 0). Cached: probabilities (C x n). Returns the summed loss.
double cross_entropy_forward(arma::mat& probs, const arma::mat& Z, const std::vector<int>& targets);
// dZ += scale (probs - onehot(target)) for every used column.
void cross_entropy_backward(arma::mat& dZ, const arma::mat& probs, const std::vector<int>& targets, double scale);

// ---------------------------------------------------------------------------
// Factored self-attention (eq. 4): for every sequence b and every position i
// (masked; its own token is the zero vector and contributes nothing),
//   logits_{b,i}(a) = sum_{j != i} A_ij V[a, s_j^b].
// With the colour histogram weighted by attention,
//   H[c, b L + i] = sum_{j != i, s_j = c} A_ij,
// this is one product Z = V H over the whole batch.
// sequences: B L colours (row-major, b L + j); A: L x L (diagonal unused);
// V: C x C; Z: C x (B L). Cached: H (C x (B L)).
void factored_attention_forward(arma::mat& Z, arma::mat& H, const std::vector<int>& sequences, const arma::mat& A,
                                const arma::mat& V, arma::uword L);
// dA's diagonal stays untouched (A_ii never enters the model).
void factored_attention_backward(arma::mat& dA, arma::mat& dV, const arma::mat& dZ, const arma::mat& H,
                                 const std::vector<int>& sequences, const arma::mat& V, arma::uword L);

// exp(x) in place for x <= 0 (softmax weights), deterministic on every
// machine; relative error below 1e-15 against std::exp.
void exp_nonpositive(double* x, arma::uword n);

// Xavier-uniform (Glorot & Bengio 2010): U(-a, a), a = sqrt(6 / (fan_in + fan_out)),
// for a weight matrix W (fan_out x fan_in), drawn with `uniform` in [0, 1).
template <class Uniform>
void xavier_uniform(arma::mat& W, Uniform&& uniform) {
  const double a = std::sqrt(6.0 / double(W.n_rows + W.n_cols));
  for (arma::uword c = 0; c < W.n_cols; ++c)
    for (arma::uword r = 0; r < W.n_rows; ++r) W(r, c) = a * (2.0 * uniform() - 1.0);
}

}  // namespace nn
}  // namespace potts
