#include "lib/nn/factored_attention.h"

#include "lib/nn/all_positions.h"

namespace potts {
namespace nn {

FactoredAttention::FactoredAttention(arma::uword L, arma::uword C, Precision precision)
    : A(L, L, arma::fill::zeros),
      V(C, C, arma::fill::zeros),
      dA(L, L, arma::fill::zeros),
      dV(C, C, arma::fill::zeros),
      L_(L),
      C_(C),
      precision_(precision) {}

void FactoredAttention::initialise(double std_A, double std_V, std::uint64_t seed) {
  initialise_position_value(A, std_A, V, std_V, seed);
}

double FactoredAttention::forward_backward(const Batch& batch, bool want_grad) {
  // every position is predicted in the pass; only the requested ones count
  unmasked_pass(batch, L_, tokens_, targets_);
  if (precision_ == Precision::kDouble) return run(double_pass_, A, V, dA, dV, want_grad);
  Pass<float>& f = float_pass_;
  f.A = arma::conv_to<arma::fmat>::from(A);
  f.V = arma::conv_to<arma::fmat>::from(V);
  f.dA.zeros(L_, L_);
  f.dV.zeros(C_, C_);
  const double loss = run(f, f.A, f.V, f.dA, f.dV, want_grad);
  if (want_grad) {
    dA += arma::conv_to<arma::mat>::from(f.dA);
    dV += arma::conv_to<arma::mat>::from(f.dV);
  }
  return loss;
}

template <class T>
double FactoredAttention::run(Pass<T>& p, const Mat<T>& A_, const Mat<T>& V_, Mat<T>& dA_, Mat<T>& dV_,
                              bool want_grad) {
  if (factored_attention_fused_supports(C_))
    return factored_attention_fused(tokens_, targets_, A_, V_, L_, want_grad ? &dA_ : nullptr,
                                    want_grad ? &dV_ : nullptr);
  factored_attention_forward(p.Zt, p.Ht, tokens_, A_, V_, L_);
  const double loss = cross_entropy_rows_forward(p.probs_t, p.Zt, targets_);
  if (want_grad) {
    p.dZt.zeros(arma::size(p.Zt));
    cross_entropy_rows_backward(p.dZt, p.probs_t, targets_, 1.0);
    factored_attention_backward(dA_, dV_, p.dZt, p.Ht, tokens_, V_, L_);
  }
  return loss;
}

Evaluation FactoredAttention::evaluate(const SequenceSet& test) { return all_positions_evaluation(*this, test, A); }

arma::mat FactoredAttention::conditionals(const int* sequence) const {
  std::vector<int> tok(sequence, sequence + L_), tgt(sequence, sequence + L_);
  arma::mat Zt, Ht, Pt;
  factored_attention_forward(Zt, Ht, tok, A, V, L_);
  cross_entropy_rows_forward(Pt, Zt, tgt);
  return Pt.t();
}

}  // namespace nn
}  // namespace potts
