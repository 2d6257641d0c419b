// Train merge stage (figure 2a-c, paper/paper.md section 2): gathers the
// restarts (seeds) of each model trained on one data set and reports each
// model's final test-loss gap ε − ε* (eq. 3) and reconstruction error e_rec
// as mean ± standard error over ALL seeds, stalled runs included.
//
// Config:  {"models": [...], "seeds": [...], "stall_tolerance": t}. Model m
//          with seed s arrives as input key "<m>_s<s>" (its summary.json).
// Stall:   a restart whose training loss over every training position
//          (final_train_loss_all_positions) exceeds the lowest one among the
//          model's restarts by more than t nats: it stopped at a worse
//          stationary point. Counted and reported, never dropped. Ranking by
//          training loss uses no test data and no knowledge of J.
// Outputs: seeds.csv (model, seed, test_loss, gap, train_loss_all_positions,
//          reconstruction_error, stalled), summary.json (per model: n, the
//          means and standard errors, stall count and fraction, the restart
//          with the lowest training loss).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from st.config(), inputs from st.input(...),
// outputs to st.output(...) (stages/runtime/stage.h).
void run_train_merge(Stage& st);

}  // namespace potts
