// Stage proteins_export (paper/spec.md §9): every predictor run's contact
// scores in the formats of the contact tools users run
// (lib/proteins/formats.h): <run>.mat, the L x L scores as plain text like
// CCMpred's, and <run>.rr, CASP's RR contact list, both numbered by the
// query's residues.
//
// Inputs: "family" (proteins_prepare) and "<run>/scores.h5" ("scores",
// L x L) per run, e.g. "cm_plm/scores.h5", "factored_s1/scores.h5".
// Config: {"target": the RR file's TARGET, "min_separation": the least
// |i - j| listed (6), "pairs_per_residue": RR lists at most this times L
// pairs (5)}.
// Outputs: <run>.mat and <run>.rr, as declared, for runs given as inputs;
// summary.json: per run, L and the pairs listed.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_export(Stage& stage);

}  // namespace potts
