// Factored self-attention (paper/spec.md §2, eq. 4 of the paper): positions
// one-hot, masked token the zero vector, identity embedding, attention that
// depends on positions only:
//
//   logits_i(a) = sum_{j != i} A_ij V[a, s_j],   p(s_i = a | s_\i) = softmax_a(logits_i)
//
// With A = beta J and V = U this is the Potts conditional eq. 5 exactly, and
// the cross-entropy summed over all positions is the (negative log)
// pseudo-likelihood of the Potts model (Besag 1975).
//
// Tested by //lib/nn:models_test, //lib/nn:layers_test.
#pragma once
#include <cstdint>

#include "lib/nn/layers.h"
#include "lib/nn/mlm_model.h"

namespace potts {
namespace nn {

class FactoredAttention : public MlmModel {
 public:
  FactoredAttention(arma::uword L, arma::uword C, Precision precision = Precision::kDouble);

  arma::mat A;  // L x L attention (diagonal unused, kept at zero)
  arma::mat V;  // C x C value matrix
  arma::mat dA, dV;

  // Initial values: A_ij ~ N(0, std_A^2) off the diagonal, V_ab ~ N(0, std_V^2),
  // from Rng(seed, streams::kInit).
  void initialise(double std_A, double std_V, std::uint64_t seed);

  std::string kind() const override { return "factored"; }
  std::vector<Param> parameters() override { return {{"A", &A, &dA}, {"V", &V, &dV}}; }
  double forward_backward(const Batch& batch, bool want_grad) override;
  Evaluation evaluate(const SequenceSet& test) override;
  bool predicts_all_positions() const override { return true; }
  Precision precision() const { return precision_; }

  // Conditionals p(s_i = . | s_\i) for all i of one sequence (C x L), for tests.
  arma::mat conditionals(const int* sequence) const;

 private:
  // One pass at precision T on parameters A, V (copies in T for float);
  // gradients accumulate into dA, dV.
  template <class T>
  struct Pass {
    Mat<T> A, V, dA, dV, Zt, Ht, probs_t, dZt;
  };
  template <class T>
  double run(Pass<T>& pass, const Mat<T>& A, const Mat<T>& V, Mat<T>& dA, Mat<T>& dV, bool want_grad);

  arma::uword L_, C_;
  Precision precision_;
  std::vector<int> tokens_, targets_;
  Pass<double> double_pass_;
  Pass<float> float_pass_;
};

}  // namespace nn
}  // namespace potts
