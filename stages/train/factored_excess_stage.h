// Stage factored_excess (claim 1b): the finite-sample excess test loss of
// the best factored-attention restart of one data set (the train merge's
// best_seed, input "merge"; runs as inputs "factored_s<seed>") on its
// training data (input "sample"), lib/factored/finite_sample_excess.h.
// Config: {"step": finite-difference step, "rank_tolerance": ...}.
// Output: summary.json (excess per position, trace, rank of H, the count
// L(L − 1) + C² − C − 1 and its excess d_eff/(2ML), the gradient norm).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_factored_excess(Stage& stage);

}  // namespace potts
