// Factored self-attention (SPEC.md section 2, eq. 4 of the paper): positions
// one-hot, masked token the zero vector, identity embedding, attention that
// depends on positions only:
//
//   logits_i(a) = sum_{j != i} A_ij V[a, s_j],   p(s_i = a | s_\i) = softmax_a(logits_i)
//
// With A = beta J and V = U this is the Potts conditional eq. 5 exactly, and
// the cross-entropy summed over all positions is the (negative log)
// pseudo-likelihood of the Potts model (Besag 1975).
#pragma once
#include <cstdint>

#include "lib/nn/layers.h"
#include "lib/nn/mlm_model.h"

namespace potts {
namespace nn {

class FactoredAttention : public MlmModel {
 public:
  FactoredAttention(arma::uword L, arma::uword C);

  arma::mat A;   // L x L attention (diagonal unused, kept at zero)
  arma::mat V;   // C x C value matrix
  arma::mat dA, dV;

  // Initial values: A_ij ~ N(0, std_A^2) off the diagonal, V_ab ~ N(0, std_V^2),
  // from Rng(seed, streams::kInit).
  void initialise(double std_A, double std_V, std::uint64_t seed);

  std::string kind() const override { return "factored"; }
  std::vector<Param> parameters() override { return {{"A", &A, &dA}, {"V", &V, &dV}}; }
  double forward_backward(const Batch& batch, bool want_grad) override;
  Evaluation evaluate(const SequenceSet& test) override;
  bool predicts_all_positions() const override { return true; }

  // Conditionals p(s_i = . | s_\i) for all i of one sequence (C x L), for tests.
  arma::mat conditionals(const int* sequence) const;

 private:
  arma::uword L_, C_;
  std::vector<int> tokens_, targets_;
  arma::mat Z_, H_, probs_, dZ_;
};

}  // namespace nn
}  // namespace potts
