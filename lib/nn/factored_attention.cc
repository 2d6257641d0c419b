#include "lib/nn/factored_attention.h"

#include "lib/core/rng.h"

namespace potts {
namespace nn {

FactoredAttention::FactoredAttention(arma::uword L, arma::uword C)
    : A(L, L, arma::fill::zeros), V(C, C, arma::fill::zeros), dA(L, L, arma::fill::zeros),
      dV(C, C, arma::fill::zeros), L_(L), C_(C) {}

void FactoredAttention::initialise(double std_A, double std_V, std::uint64_t seed) {
  Rng rng(seed, streams::kInit);
  for (arma::uword j = 0; j < L_; ++j)
    for (arma::uword i = 0; i < L_; ++i) A(i, j) = (i == j) ? 0.0 : std_A * rng.normal();
  for (arma::uword b = 0; b < C_; ++b)
    for (arma::uword a = 0; a < C_; ++a) V(a, b) = std_V * rng.normal();
}

double FactoredAttention::forward_backward(const Batch& batch, bool want_grad) {
  const arma::uword B = batch.rows.size();
  tokens_.resize(B * L_);
  targets_.resize(B * L_);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = batch.data->row(batch.rows[b]);
    for (arma::uword i = 0; i < L_; ++i) {
      tokens_[b * L_ + i] = s[i];
      // every position is predicted in the pass; only the requested ones count
      const bool used = batch.masked[b] == kAllPositions || batch.masked[b] == int(i);
      targets_[b * L_ + i] = used ? s[i] : -1;
    }
  }
  factored_attention_forward(Z_, H_, tokens_, A, V, L_);
  const double loss = cross_entropy_forward(probs_, Z_, targets_);
  if (want_grad) {
    dZ_.zeros(Z_.n_rows, Z_.n_cols);
    cross_entropy_backward(dZ_, probs_, targets_, 1.0);
    factored_attention_backward(dA, dV, dZ_, H_, tokens_, V, L_);
  }
  return loss;
}

Evaluation FactoredAttention::evaluate(const SequenceSet& test) {
  Evaluation e;
  double total = 0.0;
  const arma::uword chunk = 100;
  for (arma::uword m0 = 0; m0 < test.M; m0 += chunk) {
    Batch b;
    b.data = &test;
    for (arma::uword m = m0; m < std::min(test.M, m0 + chunk); ++m) {
      b.rows.push_back(m);
      b.masked.push_back(kAllPositions);
    }
    total += forward_backward(b, false);
  }
  e.test_loss = total / double(test.M * L_);
  e.attention_map = A;
  e.attention_map.diag().zeros();
  return e;
}

arma::mat FactoredAttention::conditionals(const int* sequence) const {
  std::vector<int> tok(sequence, sequence + L_), tgt(sequence, sequence + L_);
  arma::mat Z, H, P;
  factored_attention_forward(Z, H, tok, A, V, L_);
  cross_entropy_forward(P, Z, tgt);
  return P;
}

}  // namespace nn
}  // namespace potts
