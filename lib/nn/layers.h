// Layers of the two models of paper/spec.md §2, in double and float precision.
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
// two contributions. Callers zero the buffers (or, where offered, pass
// Grad::kOverwrite to have the input gradient written instead).
//
// Every layer is a template on the scalar Real, instantiated for double (the
// reference path, checked against finite differences) and float (the fast
// path, checked against the double one). Both run the same operations in the
// same order; only the rounding differs.
//
// Tested by //lib/nn:layers_test (finite differences), //lib/linalg:gemm_test (bit for bit),
//  //lib/nn:layer_bits_test (every level's clones against the committed bits).
#pragma once
#include <cmath>
#include <vector>

#include <armadillo>

#include "lib/linalg/exp.h"
#include "lib/linalg/gemm.h"

namespace potts {
namespace nn {

template <class Real>
using Mat = arma::Mat<Real>;

// How a backward function treats the gradient of its input: add to it (the
// default), or size and overwrite it (saves zeroing a buffer first).
enum class Grad { kAccumulate, kOverwrite };

// ---------------------------------------------------------------------------
// Linear (dense) layer: Y = W X + b 1^T.
// X: in x T, W: out x in, b: out x 1, Y: out x T.
template <class Real>
void linear_forward(Mat<Real>& Y, const Mat<Real>& X, const Mat<Real>& W, const Mat<Real>& b);
// dX may be null (input needs no gradient).
template <class Real>
void linear_backward(Mat<Real>* dX, Mat<Real>& dW, Mat<Real>& db, const Mat<Real>& dY, const Mat<Real>& X,
                     const Mat<Real>& W);

// ---------------------------------------------------------------------------
// ReLU: Y = max(0, X), any shape.
template <class Real>
void relu_forward(Mat<Real>& Y, const Mat<Real>& X);
// Uses the output Y (Y > 0 exactly where X > 0).
template <class Real>
void relu_backward(Mat<Real>& dX, const Mat<Real>& dY, const Mat<Real>& Y, Grad mode = Grad::kAccumulate);

// ---------------------------------------------------------------------------
// LayerNorm over the features of each column (Ba et al. 2016):
//   xhat = (x - mean) / sqrt(var + eps),  y = gamma * xhat + beta.
// X, Y: d x T; gamma, beta: d x 1. Cached: xhat (d x T) and rstd (T).
template <class Real>
struct LayerNormCacheT {
  Mat<Real> xhat;
  arma::Col<Real> rstd;
};
using LayerNormCache = LayerNormCacheT<double>;
template <class Real>
void layernorm_forward(Mat<Real>& Y, LayerNormCacheT<Real>& cache, const Mat<Real>& X, const Mat<Real>& gamma,
                       const Mat<Real>& beta, double eps);
template <class Real>
void layernorm_backward(Mat<Real>& dX, Mat<Real>& dgamma, Mat<Real>& dbeta, const Mat<Real>& dY,
                        const LayerNormCacheT<Real>& cache, const Mat<Real>& gamma, Grad mode = Grad::kAccumulate);

// ---------------------------------------------------------------------------
// Single-head scaled dot-product self-attention within each sequence
// (Vaswani et al. 2017, eq. 2 of the paper without the projections):
//   S_b = K_b^T Q_b / sqrt(d),  P_b = softmax over keys (columns of S_b),
//   O_b = V_b P_b.
// Q: d x (B Lq) queries, K, V: d x (B L), O: d x (B Lq).
// Cached: P (L x (B Lq)), column b Lq + q = attention of query q of
// sequence b over the L keys of that sequence.
template <class Real>
void attention_forward(Mat<Real>& O, Mat<Real>& P, const Mat<Real>& Q, const Mat<Real>& K, const Mat<Real>& V,
                       arma::uword L, arma::uword Lq);
// mode applies to dQ, dK and dV together.
template <class Real>
void attention_backward(Mat<Real>& dQ, Mat<Real>& dK, Mat<Real>& dV, const Mat<Real>& dO, const Mat<Real>& P,
                        const Mat<Real>& Q, const Mat<Real>& K, const Mat<Real>& V, arma::uword L, arma::uword Lq,
                        Grad mode = Grad::kAccumulate);

// ---------------------------------------------------------------------------
// Token embedding plus sinusoidal positional encoding (Vaswani et al. 2017):
// a dense layer with bias on the one-hot token (C colours + mask token C):
//   X[:, b L + j] = W_emb[:, token(b, j)] + b_emb + PE[:, j].
// tokens: B L values in 0..C (row-major, b L + j); W_emb: d x (C+1);
// b_emb: d x 1; PE: d x L.
template <class Real>
void embedding_forward(Mat<Real>& X, const std::vector<int>& tokens, const Mat<Real>& W_emb, const Mat<Real>& b_emb,
                       const Mat<Real>& PE, arma::uword L);
template <class Real>
void embedding_backward(Mat<Real>& dW_emb, Mat<Real>& db_emb, const Mat<Real>& dX, const std::vector<int>& tokens);

// Sinusoidal encoding: PE[2k, j] = sin(j / 10000^(2k/d)), PE[2k+1, j] = cos(same).
arma::mat sinusoidal_positions(arma::uword d, arma::uword L);

// ---------------------------------------------------------------------------
// Column selection (the query positions kept by the last block):
// Xq[:, k] = X[:, cols[k]].
template <class Real>
void gather_forward(Mat<Real>& Xq, const Mat<Real>& X, const std::vector<arma::uword>& cols);
template <class Real>
void gather_backward(Mat<Real>& dX, const Mat<Real>& dXq, const std::vector<arma::uword>& cols);

// ---------------------------------------------------------------------------
// Cross-entropy of a softmax over C classes, summed over the columns used:
//   loss = sum_k weight_k (logsumexp(Z[:, k]) - Z[target_k, k]).
// Z: C x n logits; targets: n colours; a column with target < 0 is skipped
// (weight 0). Cached: probabilities (C x n). Returns the summed loss.
template <class Real>
double cross_entropy_forward(Mat<Real>& probs, const Mat<Real>& Z, const std::vector<int>& targets);
// dZ += scale (probs - onehot(target)) for every used column.
template <class Real>
void cross_entropy_backward(Mat<Real>& dZ, const Mat<Real>& probs, const std::vector<int>& targets, double scale);

// The same with one ROW per prediction: Zt: n x C, probs_t: n x C (rows of
// unused predictions are zero). Column a holds colour a of every prediction
// contiguously, so the softmax runs across predictions in vector lanes with
// the same per-prediction operations, in the same order, as above.
template <class Real>
double cross_entropy_rows_forward(Mat<Real>& probs_t, const Mat<Real>& Zt, const std::vector<int>& targets);
template <class Real>
void cross_entropy_rows_backward(Mat<Real>& dZt, const Mat<Real>& probs_t, const std::vector<int>& targets,
                                 double scale);

// ---------------------------------------------------------------------------
// Factored self-attention (eq. 4): for every sequence b and every position i
// (masked; its own token is the zero vector and contributes nothing),
//   logits_{b,i}(a) = sum_{j != i} A_ij V[a, s_j^b].
// With the colour histogram weighted by attention, stored transposed,
//   Ht[b L + i, c] = sum_{j != i, s_j = c} A_ij,
// this is one product over the whole batch, computed transposed (one row per
// prediction, for cross_entropy_rows_*): Zt = Ht V^T. Column c of Ht is built
// from whole columns of A: Ht[bL + :, s_j] += A[:, j], with A_jj = 0.
// sequences: B L colours (row-major, b L + j); A: L x L (diagonal unused);
// V: C x C; Zt: (B L) x C. Cached: Ht ((B L) x C).
template <class Real>
void factored_attention_forward(Mat<Real>& Zt, Mat<Real>& Ht, const std::vector<int>& sequences, const Mat<Real>& A,
                                const Mat<Real>& V, arma::uword L);
// dA's diagonal stays untouched (A_ii never enters the model).
template <class Real>
void factored_attention_backward(Mat<Real>& dA, Mat<Real>& dV, const Mat<Real>& dZt, const Mat<Real>& Ht,
                                 const std::vector<int>& sequences, const Mat<Real>& V, arma::uword L);

// The same model and its cross-entropy fused, one sequence at a time, with
// every intermediate in L1 (the fast path of FactoredAttention): for each row
// (b, i) with target t >= 0 (rows with t < 0 are skipped),
//   z = sum_{j != i} A_ij V[:, s_j]                         (eq. 4; j ascending)
//   loss += max z + log sum_a exp(z_a - max z) - z_t
//   dz = softmax(z) - onehot(t)
//   dA_ij += (V^T dz)[s_j],   dV[:, s_j] += sum_{i != j} A_ij dz_i.
// Returns the loss summed over the used rows in (b, i) order; with dA and dV
// non-null, ADDS the gradients (dA's diagonal untouched). Equal to
// factored_attention_forward, cross_entropy_rows_forward/backward (scale 1)
// and factored_attention_backward within rounding (the sums run in another
// order); the AVX2 and baseline clones give the same bits. Needs C a multiple
// of 4 up to 32 (factored_attention_fused_supports).
bool factored_attention_fused_supports(arma::uword C);
template <class Real>
double factored_attention_fused(const std::vector<int>& sequences, const std::vector<int>& targets, const Mat<Real>& A,
                                const Mat<Real>& V, arma::uword L, Mat<Real>* dA, Mat<Real>* dV);

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
