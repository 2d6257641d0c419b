// The proteins_attention stage: factored attention fitted as the
// observation's public implementation fits it (lib/estimators/attention_potts.h,
// eq. O1): positional softmax attention with H heads of dimension d and a
// full value matrix per head, the gap a pad, no sequence weights, the
// penalty on the couplings W and the fields, AdamW with a constant learning
// rate on seeded mini-batches.
//
// Inputs: family/ (the proteins_prepare stage: train.h5, test.h5, columns.csv).
// Configuration: "heads", "head_dim", "lambda", "steps", "batch_size", "lr";
// "fit_on" ("all": every sequence, the contact tools' convention; "train":
// the training sequences only, so that the test loss is held out).
// Outputs: params.h5 ("x", packed as attention_potts.h says), scores.h5
// ("scores": the APC-corrected Frobenius norms of the symmetrised coupling
// blocks over the 20 amino acids, the observation's score), curves.csv (the
// batch loss of every step), summary.json (parameter count, training and
// test loss as the mean cross-entropy per non-gap target, whether attention
// left uniform, steps, epochs, the fit time).
//
// Threaded (--threads): the same bytes at any thread count.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_attention(Stage& st);

}  // namespace potts
