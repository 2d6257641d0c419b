#include "lib/nn/all_positions.h"

#include <algorithm>

namespace potts::nn {

double all_positions_test_loss(MlmModel& model, const SequenceSet& test) {
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
  return total / double(test.M * test.L);
}

}  // namespace potts::nn
