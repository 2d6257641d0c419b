// Test loss eq. 3 of a model that predicts every position of a sequence in
// one pass, its input unmasked (factored and perturbed attention).
#pragma once
#include <armadillo>

#include "lib/nn/mlm_model.h"

namespace potts::nn {

// The loss over every position of every test sequence, in fixed chunks of
// 100 sequences (the sum's order never changes), divided by M L.
double all_positions_test_loss(MlmModel& model, const SequenceSet& test);

}  // namespace potts::nn
