// Perturbed attention (paper/spec.md §3); see the header for the equations.
//
// With x_j = p_j + a e_j the key input and u_j = e_j + a p_j the value input,
// the one-hot structure gives, per masked position i and key j != i,
//   score_ij = W[i, j] + a W[i, s_j]          (p_i^T W x_j)
//   H[s_j, i] += score_ij,  H[j, i] += a score_ij   (H_i = sum_j score_ij u_j)
// and Z = V H for the batch.
#include "lib/nn/perturbed_attention.h"

#include <algorithm>

#include "lib/core/error.h"
#include "lib/nn/all_positions.h"

namespace potts {
namespace nn {

void require_perturbed_shapes(arma::uword L, arma::uword C, arma::uword d, const std::string& what) {
  if (L != d || C != d) {
    throw StageError(what +
                     ": perturbed attention needs L == C == d (positions and colours share one space), got L = " +
                     std::to_string(L) + ", C = " + std::to_string(C) + ", d = " + std::to_string(d));
  }
}

static void check_layer_inputs(const std::vector<int>& sequences, const arma::mat& W, const arma::mat& V,
                               arma::uword L) {
  const arma::uword d = W.n_rows;
  if (W.n_cols != d || V.n_rows != d || V.n_cols != d)
    throw StageError("perturbed attention: W and V must be d x d, got W " + std::to_string(W.n_rows) + " x " +
                     std::to_string(W.n_cols) + ", V " + std::to_string(V.n_rows) + " x " + std::to_string(V.n_cols));
  require_perturbed_shapes(L, d, d, "perturbed attention: sequence length");
  if (sequences.size() % L != 0)
    throw StageError("perturbed attention: " + std::to_string(sequences.size()) +
                     " colours are not a whole number of sequences of length " + std::to_string(L));
  for (int c : sequences)
    if (c < 0 || c >= int(d))
      throw StageError("perturbed attention: colours must lie in 0.." + std::to_string(d - 1) + ", got " +
                       std::to_string(c));
}

void perturbed_attention_forward(arma::mat& Z, arma::mat& H, const std::vector<int>& sequences, const arma::mat& W,
                                 const arma::mat& V, double a, arma::uword L) {
  check_layer_inputs(sequences, W, V, L);
  const arma::uword B = sequences.size() / L;
  H.zeros(L, B * L);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      double* h = H.colptr(b * L + i);
      for (arma::uword j = 0; j < L; ++j) {
        if (j == i) continue;                           // the masked position does not attend to itself
        const double score = W(i, j) + a * W(i, s[j]);  // score_ij = p_i^T W (p_j + a e_j)
        h[s[j]] += score;                               // score_ij e_j
        h[j] += a * score;                              // score_ij a p_j
      }
    }
  }
  // logits_i = V sum_{j != i} score_ij (e_j + a p_j)   (paper/spec.md §3):
  // Z = V H, by the fixed-order gemm of layers.h (an Armadillo product would
  // call BLAS, whose last bits depend on the CPU)
  Z.set_size(V.n_rows, H.n_cols);
  gemm(false, false, V.n_rows, H.n_cols, V.n_cols, 1.0, V.memptr(), V.n_rows, H.memptr(), H.n_rows, 0.0, Z.memptr(),
       Z.n_rows);
}

void perturbed_attention_backward(arma::mat& dW, arma::mat& dV, const arma::mat& dZ, const arma::mat& H,
                                  const std::vector<int>& sequences, const arma::mat& V, double a, arma::uword L) {
  const arma::uword B = sequences.size() / L;
  if (dZ.n_rows != V.n_rows || dZ.n_cols != B * L || H.n_cols != B * L)
    throw StageError("perturbed_attention_backward: dZ must be " + std::to_string(V.n_rows) + " x " +
                     std::to_string(B * L) + " like the cached H");
  // forward: Z = V H, so dV += dZ H^T and dH = V^T dZ
  gemm(false, true, dZ.n_rows, H.n_rows, dZ.n_cols, 1.0, dZ.memptr(), dZ.n_rows, H.memptr(), H.n_rows, 1.0, dV.memptr(),
       dV.n_rows);  // dV += dZ H^T
  arma::mat dH(V.n_cols, dZ.n_cols);
  gemm(true, false, V.n_cols, dZ.n_cols, V.n_rows, 1.0, V.memptr(), V.n_rows, dZ.memptr(), dZ.n_rows, 0.0, dH.memptr(),
       dH.n_rows);  // dH = V^T dZ
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = &sequences[b * L];
    for (arma::uword i = 0; i < L; ++i) {
      const double* dh = dH.colptr(b * L + i);
      for (arma::uword j = 0; j < L; ++j) {
        if (j == i) continue;
        // forward: h[s_j] += score_ij; h[j] += a score_ij, so
        const double dscore = dh[s[j]] + a * dh[j];
        // forward: score_ij = W(i, j) + a W(i, s_j), so
        dW(i, j) += dscore;
        dW(i, s[j]) += a * dscore;
      }
    }
  }
}

// ---------------------------------------------------------------------------

PerturbedAttention::PerturbedAttention(arma::uword L, arma::uword C, double a)
    : W(L, L, arma::fill::zeros),
      V(L, L, arma::fill::zeros),
      dW(L, L, arma::fill::zeros),
      dV(L, L, arma::fill::zeros),
      L_(L),
      a_(a) {
  require_perturbed_shapes(L, C, L, "PerturbedAttention");
}

void PerturbedAttention::initialise(double std_W, double std_V, std::uint64_t seed) {
  initialise_position_value(W, std_W, V, std_V, seed);
}

double PerturbedAttention::forward_backward(const Batch& batch, bool want_grad) {
  if (batch.data->L != L_) require_perturbed_shapes(batch.data->L, L_, L_, "PerturbedAttention: sequences");
  // every position is predicted in the pass; only the requested ones count
  unmasked_pass(batch, L_, tokens_, targets_);
  perturbed_attention_forward(Z_, H_, tokens_, W, V, a_, L_);
  const double loss = cross_entropy_forward(probs_, Z_, targets_);
  if (want_grad) {
    dZ_.zeros(Z_.n_rows, Z_.n_cols);
    cross_entropy_backward(dZ_, probs_, targets_, 1.0);
    perturbed_attention_backward(dW, dV, dZ_, H_, tokens_, V, a_, L_);
  }
  return loss;
}

Evaluation PerturbedAttention::evaluate(const SequenceSet& test) { return all_positions_evaluation(*this, test, W); }

arma::mat PerturbedAttention::logits(const int* sequence) const {
  std::vector<int> tok(sequence, sequence + L_);
  arma::mat Z, H;
  perturbed_attention_forward(Z, H, tok, W, V, a_, L_);
  return Z;
}

}  // namespace nn
}  // namespace potts
