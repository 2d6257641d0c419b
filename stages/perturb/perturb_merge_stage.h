// Perturb merge stage (figure 2d, paper/spec.md §3): gathers the points of
// the sweep (one training per a and seed) into one table and a summary.
//
// Config: {"a": [grid], "seeds": [seeds]}, written by the BUILD file from
// the same lists that generate the point stages. Point k (a = a[k]) with
// seed s arrives as input key "a<k>_s<s>" (its summary.json and curves.csv);
// each point's summary must agree with (a[k], s).
//
// Outputs: perturb.csv (a, seed, test_loss, optimal_test_loss, train_loss),
//          perturb_summary.csv (a, seeds, mean_test_loss, stderr_test_loss,
//          mean_gap, optimal_test_loss, best_seed, best_train_loss,
//          best_test_loss), curves.csv (the per-epoch curves of every point,
//          with columns a and seed in front), summary.json.
// "best" is the restart with the lowest final TRAINING loss at that a
// (restarts ranked by training loss, paper/spec.md §7; no test data used to
// choose): SGD sometimes stalls at a poor stationary point for a > 0, and the
// mean over seeds then mixes converged and stalled runs.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_perturb_merge(Stage& stage);

}  // namespace potts
