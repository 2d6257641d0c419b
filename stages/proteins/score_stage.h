// Stage proteins_score (paper/spec.md §9): every predictor's contacts
// scored against the structure, and the claims' numbers.
//
// Inputs: "family" (proteins_prepare), and one key per predictor run:
// "<predictor>_s<seed>" for trained models (factored, vanilla1, vanilla3)
// and "<predictor>" for deterministic ones (plm, evfold, psicov), each with
// scores.h5 ("scores", L x L; vanilla runs also "layer_<k>") and
// summary.json.
// Config: {"map_seed": the seed whose predictions the contact map shows,
// "curve_max_k": the largest k of the precision curves}.
// Outputs:
//  * top_pairs.csv: predictor, seed, rank, i, j (residue numbers), score,
//    contact (1 or 0; empty without a structure): every run's top L pairs
//    with |i − j| ≥ 6;
//  * precision.csv: predictor, seed (0: deterministic), scores ("counted" or
//    "layer_<k>"), separation ("6+" or "24+"), top ("L", "L/2", "L/5"), k,
//    precision;
//  * curves.csv: k and, per predictor, the precision of its top k pairs
//    (|i − j| ≥ 6) averaged over seeds;
//  * map_true.csv, map_<factored|plm>_<hits|misses>.csv: x, y of the true
//    contacts (both triangles) and of the top-L predictions of factored
//    attention (seed map_seed, upper triangle) and PLM (lower triangle);
//  * summary.json: per predictor and measure the mean over seeds, the seed
//    spread's standard error, the binomial error of a precision over k
//    pairs and their combined standard error; MLM test and training
//    losses, and the lowest test loss each learning curve passed through.
// Without a structure only top_pairs.csv and summary.json can be asked for.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_score(Stage& stage);

}  // namespace potts
