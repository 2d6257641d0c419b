// Claims stage (paper/paper.md, "Claims"): the verdict on each of the
// paper's claims for each regime of the data, with the number behind it, its
// standard error and its basis (lib/claims/claims.h states the rules).
//
// Inputs:  <set>_train/, <set>_perturb/ and <set>_excess/ summaries for every
//          data set of every regime (config "data_sets"); <reading>_potts/
//          or <reading>_peak/ (summary.json, realisations.csv) for claim 5;
//          initial_<variant>/summary.json (optional: the initial decay's
//          variants); replica/, sim/ and finite/ summaries for claim 4;
//          proteins/summary.json (optional: the proteins_score stage) for
//          claims P1-P3, and P4 when the heads sweep is configured;
//          panel/panel.csv (the proteins_panel stage) for claim P6 when
//          "protein_panel" is configured.
// Config:  {"readings": [...], "data_sets": {<reading>: [sets]},
//           "bootstrap_resamples": n, "thresholds": {"erec_good", "erec_bad"},
//           "protein_parity_margin": P3's (and P4's) margin in top-L precision,
//           "protein_heads" (optional): {"p3_factored": key, "plm": key,
//             "configurations": [keys], "heads": [H], "forms": ["factored" or
//             "softmax"]}: the score summary's predictors P3 and P4 compare,
//           "protein_observation" (optional, claim P5): {"id", "statement",
//             "attention", "plm", "weighted_plm", "observed_gap"},
//           "protein_panel" (optional, claim P6): {"id", "statement",
//             "observed_gap", "min_families"}; the panel's columns
//             attention_L, plm_L, weighted_plm_L, evfold_L}
// Outputs: summary.json: {<reading>: {<claim id>: cell}, "gaussian": {...},
//          "initial_decay": {...}, "proteins": {...}, "table": [rows]}; claims.csv with names:
//          reading, claim, statement, verdict, value, se, basis, number, rule.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

// The stage body: configuration from stage.config(), inputs from stage.input(...),
// outputs to stage.output(...) (stages/runtime/stage.h).
void run_claims(Stage& stage);

}  // namespace potts
