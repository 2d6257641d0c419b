// Test loss eq. 3 of a model that predicts every position of a sequence in
// one pass, its input unmasked (factored and perturbed attention).
#pragma once
#include <armadillo>

#include "lib/nn/mlm_model.h"

namespace potts::nn {

// The loss over every position of every test sequence, in fixed chunks of
// 100 sequences (the sum's order never changes), divided by M L; with the
// model's attention map (L x L), its diagonal zeroed.
Evaluation all_positions_evaluation(MlmModel& model, const SequenceSet& test, const arma::mat& attention_map);

}  // namespace potts::nn
