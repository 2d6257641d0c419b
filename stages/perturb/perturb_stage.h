// Perturb stage, one point of figure 2d (paper/spec.md §3): trains the
// perturbed attention model at one value of a, with the training settings of
// factored attention, on the sample stage's data.
//
// Config: {"a": <perturbation>, "lr_scaling": "none" | "curvature",
//          "init_std_W": .., "init_std_V": .. (both optional),
//          "training": {<the factored-attention training settings>}}
// lr_scaling "curvature" (a project choice; the paper is silent) divides lr0 by
// (1 + a^2)^2: the key and value inputs p_j + a e_j and e_j + a p_j have
// squared norm 1 + a^2 (for s_j != j), so the Gauss-Newton curvature of the
// logits in W and V grows as (1 + a^2)^2, and factored attention's lr0
// diverges for large a (measured: NaN by epoch 8-15 at a = 0.5 and 1 with
// lr0 = 0.1 on low-temperature L = C = 20 data). At a = 0 it changes nothing.
// "training" holds the keys of the train stage's factored configuration
// ("model": "factored", optimiser, epochs, batch_size, lr0,
// loss_normalisation, masking, l2, eval_every, init_std_A, init_std_V and,
// for L-BFGS, lbfgs_iterations_per_epoch); the BUILD file embeds the train
// stage's own file there, so the sweep always trains as factored attention
// does. Unless init_std_W/V are given at the top level, W and V start as
// factored attention's A and V (init_std_A, init_std_V, same draws).
//
// Inputs:  sample/train.h5, sample/test.h5, sample/model.h5.
// Outputs: curves.csv (epoch, train_loss, test_loss, optimal_test_loss,
//          reconstruction_error, lr), params.h5 (W, V, couplings_J),
//          summary.json (a, seed, test_loss, optimal_test_loss, gap, ...).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_perturb(Stage& stage);

}  // namespace potts
