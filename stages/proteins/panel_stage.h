// Stage proteins_panel (paper/spec.md §9.3): the panel's families side by
// side, one row each, for claim P6 and the panel's figure.
//
// Inputs: per family, "family_<id>/summary.json" (its prepare stage) and
// "score_<id>/summary.json" (its score stage); <id> as pf00013.
// Config: {"roles": {role: predictor}}: the predictors to tabulate, under
// the names the table uses (e.g. "attention": "cm_attn_nofields_h256");
// every family must have every one; "difference": {"of": role, "minus":
// role, "by": "n_eff_per_column" | "n_eff" | "L"}, a descriptive comparison.
// Outputs:
//  * panel.csv: pfam (the number of PFxxxxx), L, sequences, n_eff,
//    n_eff_per_column (N_eff / L), contacts, random (the random rate of a
//    pair at |i - j| >= 6), and per role <role>_L, <role>_L2, <role>_L5
//    (top-L, L/2, L/5 precision at |i - j| >= 6, the mean over its runs);
//  * summary.json: the families in order, per role the median top-L, and
//    "difference": d_f = top-L(of) − top-L(minus): its median, smallest and
//    largest (with the family), the counts ahead (> 0) and behind (< 0), the
//    medians in the lower and upper halves of the families by `by` (split at
//    its median; an odd count's middle family in neither), and Spearman's
//    rho of d_f with `by` with its two-sided p (lib/core/rank.h); a value
//    that is undefined (fewer than 3 families, a constant series) is the
//    string "n/a: ...".
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_panel(Stage& stage);

}  // namespace potts
