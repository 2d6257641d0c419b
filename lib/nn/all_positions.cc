#include "lib/nn/all_positions.h"

#include <algorithm>

#include "lib/core/rng.h"

namespace potts::nn {

Evaluation all_positions_evaluation(MlmModel& model, const SequenceSet& test, const arma::mat& attention_map) {
  double total = 0.0;
  const arma::uword chunk = 100;
  for (arma::uword m0 = 0; m0 < test.M; m0 += chunk) {
    Batch b;
    b.data = &test;
    for (arma::uword m = m0; m < std::min(test.M, m0 + chunk); ++m) {
      b.rows.push_back(m);
      b.masked.push_back(kAllPositions);
    }
    total += model.forward_backward(b, false);
  }
  Evaluation e;
  e.test_loss = total / double(test.M * test.L);
  e.attention_map = attention_map;
  e.attention_map.diag().zeros();
  return e;
}

void unmasked_pass(const Batch& batch, arma::uword L, std::vector<int>& tokens, std::vector<int>& targets) {
  const arma::uword B = batch.rows.size();
  tokens.resize(B * L);
  targets.resize(B * L);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = batch.data->row(batch.rows[b]);
    for (arma::uword i = 0; i < L; ++i) {
      tokens[b * L + i] = s[i];
      const bool used = batch.masked[b] == kAllPositions || batch.masked[b] == int(i);
      targets[b * L + i] = used ? s[i] : -1;
    }
  }
}

void initialise_position_value(arma::mat& P, double std_P, arma::mat& V, double std_V, std::uint64_t seed) {
  Rng rng(seed, streams::kInit);
  for (arma::uword j = 0; j < P.n_cols; ++j)
    for (arma::uword i = 0; i < P.n_rows; ++i) P(i, j) = (i == j) ? 0.0 : std_P * rng.normal();
  for (arma::uword j = 0; j < V.n_cols; ++j)
    for (arma::uword i = 0; i < V.n_rows; ++i) V(i, j) = std_V * rng.normal();
}

}  // namespace potts::nn
