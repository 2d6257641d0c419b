// Perturbed attention: from factored to coupled attention (paper/spec.md §3,
// figure 2d of Rende, Gerace, Laio, Goldt 2024).
//
// Positions p_j (one-hot in R^L) and colours e_j (one-hot in R^C) share one
// space R^d, so the model needs L == C == d. For a sequence s and masked
// position i (its colour replaced by the zero vector, e_i = 0):
//
//   score_ij = (p_i + a e_i)^T W (p_j + a e_j) = W[i, j] + a W[i, s_j]   (paper/spec.md §3)
//   value_j  = V (e_j + a p_j)                                          (paper/spec.md §3)
//   logits_i = sum_{j != i} score_ij value_j                            (paper/spec.md §3)
//
// W (d x d) and V (d x d) are trained; a is a fixed hyper-parameter. At
// a = 0 this is factored attention (eq. 4) with A = W. For a != 0 the
// diagonal W_ii is used too (score_ij picks W[i, s_j] with s_j = i).
//
// As for factored attention, one pass computes all L masked conditionals of
// a sequence. Shape letters: B sequences, L positions, C colours, d = L = C.
//
// Tested by //lib/nn:perturbed_attention_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lib/nn/layers.h"
#include "lib/nn/mlm_model.h"

namespace potts {
namespace nn {

// Throws potts::StageError unless L == C == d (positions and colours must
// live in the same space); `what` names the caller in the message.
void require_perturbed_shapes(arma::uword L, arma::uword C, arma::uword d, const std::string& what);

// ---------------------------------------------------------------------------
// The layer, forward and backward side by side (layers.h conventions).
// With u_j = e_j + a p_j the value input, the hidden vector
//   H[:, b L + i] = sum_{j != i} score_ij u_j   (d x (B L))
// makes the logits one product Z = V H (C x (B L)) over the whole batch.
// sequences: B L colours (row-major, b L + j), each in 0..d-1; W, V: d x d.
// Cached: H. Every per-sequence step is O(L^2) thanks to the one-hot inputs.
void perturbed_attention_forward(arma::mat& Z, arma::mat& H, const std::vector<int>& sequences, const arma::mat& W,
                                 const arma::mat& V, double a, arma::uword L);
// ACCUMULATES dLoss/dW into dW and dLoss/dV into dV, given dZ = dLoss/dZ.
void perturbed_attention_backward(arma::mat& dW, arma::mat& dV, const arma::mat& dZ, const arma::mat& H,
                                  const std::vector<int>& sequences, const arma::mat& V, double a, arma::uword L);

// ---------------------------------------------------------------------------
// The model, for the training loop (lib/train) through MlmModel.
class PerturbedAttention : public MlmModel {
 public:
  // Checks L == C (== d).
  PerturbedAttention(arma::uword L, arma::uword C, double a);

  arma::mat W;  // d x d attention weights
  arma::mat V;  // d x d value matrix
  arma::mat dW, dV;
  double a() const { return a_; }

  // Same draws as FactoredAttention::initialise (W_ij ~ N(0, std_W^2) off
  // the diagonal, W_ii = 0, then V ~ N(0, std_V^2), Rng(seed, kInit)), so at
  // a = 0 training starts from, and follows, factored attention exactly.
  void initialise(double std_W, double std_V, std::uint64_t seed);

  std::string kind() const override { return "perturbed"; }
  std::vector<Param> parameters() override { return {{"W", &W, &dW}, {"V", &V, &dV}}; }
  double forward_backward(const Batch& batch, bool want_grad) override;
  // Test loss (eq. 3) and, as attention map, W with its diagonal zeroed
  // (the positional part of the scores; A at a = 0).
  Evaluation evaluate(const SequenceSet& test) override;
  bool predicts_all_positions() const override { return true; }

  // Logits of all L masked positions of one sequence (C x L), for tests.
  arma::mat logits(const int* sequence) const;

 private:
  arma::uword L_;
  double a_;
  std::vector<int> tokens_, targets_;
  arma::mat Z_, H_, probs_, dZ_;
};

}  // namespace nn
}  // namespace potts
