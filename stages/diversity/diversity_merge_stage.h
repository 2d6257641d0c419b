// Stage diversity_merge: the points of the diversity study as tables for
// the figure and the literate paper, one per colour kind:
//   diversity.csv           U Gaussian (the kind where recovery depends most
//                           on the diversity, paper/spec.md §7)
//   diversity_identity.csv  U identity (the standard Potts model)
// columns hamming (achieved, training set), beta, optimal_test_loss, fa_gap_mean,
// fa_gap_se, fa_erec_mean, fa_erec_se, fa_stall_fraction, plm_gap, plm_erec,
// then target_hamming, fa_best_gap, fa_best_erec, plm_erec_zero_sum,
// fa_lambda_chosen, plm_lambda_chosen; rows by decreasing Hamming distance.
//   validation.csv          the validation curves of both penalties
//                           (lib/studies/recovery.h), U Gaussian: columns
//                           hamming, lambda, plm_validation_loss,
//                           fa_validation_loss (empty grid: -1), rows by
//                           decreasing Hamming distance, then lambda.
// summary.json holds every point.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_diversity_merge(Stage& stage);

}  // namespace potts
