// Stage proteins_freecontact (paper/spec.md §9): a contact baseline from
// Debian's freecontact (Kaján et al. 2014), an accelerated drop-in for
// EVfold-mfDCA (Marks et al. 2011) and PSICOV (Jones et al. 2012), run on
// the training sequences so that every predictor sees the same data.
//
// Input "family": the proteins_prepare stage's outputs (train.aln).
// Config: {"profile": "evfold" | "psicov"}; freecontact runs with that
// parameter profile on one thread (so its output does not depend on the
// machine's core count).
// Outputs: freecontact.txt (its output as written), scores.h5 ("scores": the
// L x L score matrix, its own APC-corrected score), summary.json (profile,
// freecontact's version, pairs listed).
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_freecontact(Stage& stage);

}  // namespace potts
