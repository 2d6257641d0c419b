// Train stage (paper/spec.md §2, figure 2a-c): trains factored
// self-attention or a vanilla transformer by masked language modelling on
// the sample stage's data, and records the learning curves, the final
// parameters and the attention map.
//
// Inputs:  sample/train.h5, sample/test.h5 ("sequences", M x L colours),
//          sample/model.h5 (couplings_J, colour_similarity_U, beta).
// Config:  see configs/*.json; the optional "precision" ("double" or "float")
//          selects the arithmetic of the passes (lib/nn/mlm_model.h).
// Outputs: params.h5 (every parameter by name, "attention_map", "couplings_J"),
//          curves.csv (epoch, train_loss, test_loss, optimal_test_loss,
//          reconstruction_error, lr), summary.json (final losses, including
//          final_train_loss_all_positions, the loss of the final parameters
//          over every training position), provenance.json.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_train(Stage& stage);

}  // namespace potts
