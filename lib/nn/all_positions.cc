#include "lib/nn/all_positions.h"

#include <algorithm>

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

}  // namespace potts::nn
