// Train merge stage (figure 2a-c, paper/paper.md section 2): gathers the
// restarts (seeds) of each model trained on one data set and reports each
// model's final test-loss gap ε − ε* (eq. 3) and reconstruction error e_rec
// as mean ± standard error over ALL seeds, stalled runs included.
//
// Config:  {"models": [...], "seeds": [...], "stall_tolerance": t}. Model m
//          with seed s arrives as input key "<m>_s<s>" (its summary.json,
//          curves.csv and params.h5).
// Behind:  a restart whose training loss over every training position
//          (final_train_loss_all_positions) exceeds the lowest one among the
//          model's restarts by more than t nats. It stalled when its training
//          curve was flat (fell by less than t nats from half-way to 90 % of
//          the run: a worse stationary point); otherwise it was still
//          learning when the learning-rate schedule ended (budget_limited).
//          Counted and reported, never dropped. Ranking by training loss
//          uses no test data and no knowledge of J.
// Maps:    strength_correlation of each run's attention map with |J|
//          (lib/potts/strength.h), defined for positive and signed maps.
// Outputs: seeds.csv (model, seed, test_loss, gap, train_loss_all_positions,
//          reconstruction_error, stalled, budget_limited, late_decrease,
//          strength_correlation), summary.json (per model: n, the means and
//          standard errors, stall and budget counts, the restart with the
//          lowest training loss and its numbers).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_train_merge(Stage& stage);

}  // namespace potts
