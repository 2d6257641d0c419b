// Test loss eq. 3 of a model that predicts every position of a sequence in
// one pass, its input unmasked (factored and perturbed attention), the
// pass's tokens and targets, and the two models' initial weights.
#pragma once
#include <cstdint>
#include <vector>

#include <armadillo>

#include "lib/nn/mlm_model.h"

namespace potts::nn {

// The loss over every position of every test sequence, in fixed chunks of
// 100 sequences (the sum's order never changes), divided by M L; with the
// model's attention map (L x L), its diagonal zeroed.
Evaluation all_positions_evaluation(MlmModel& model, const SequenceSet& test, const arma::mat& attention_map);

// The batch's sequences as one unmasked pass over L positions: tokens (B L,
// row-major) and targets, the token where the position counts (every one
// for kAllPositions, else the masked one) and -1 elsewhere.
void unmasked_pass(const Batch& batch, arma::uword L, std::vector<int>& tokens, std::vector<int>& targets);

// The initial weights: P (square) with N(0, std_P^2) entries off the
// diagonal and zeros on it, then V with N(0, std_V^2) entries, both drawn
// column by column from the stream streams::kInit of seed.
void initialise_position_value(arma::mat& P, double std_P, arma::mat& V, double std_V, std::uint64_t seed);

}  // namespace potts::nn
