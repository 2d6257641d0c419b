// The proteins_attention stage: factored attention fitted to the family as
// the observation's public implementation fits it
// (lib/attention_potts/attention_potts.h, eq. O1), on its data conventions
// (the gap a pad: no input, no target; no sequence weights; the 20 amino
// acids): positional softmax attention with H heads of dimension d and a
// full value matrix per head, the penalty on the couplings W and the
// fields, AdamW with a constant learning rate on seeded mini-batches.
// Configuration: "heads", "head_dim", "products" ("double" or "float"),
// "lambda", "steps", "batch_size", "lr", "fit_on" ("all": every sequence,
// the contact tools' convention; "train": the training sequences only, so
// that the test loss is held out), and optionally the pinned code's
// protocol: "penalty" ("unsquared", eq. O1, or "squared", eq. O1s),
// "fields" (true, or false as the observation's command runs),
// "full_batches" (every batch full, drawn across epochs). The PLM on the
// same conventions is the proteins_plm_pad stage's.
//
// Inputs: family/ (the proteins_prepare stage: train.h5, test.h5, columns.csv).
// Outputs: params.h5 ("x"), scores.h5 ("scores": the APC-corrected
// Frobenius norms of the coupling blocks over the 20 amino acids, the
// observation's score), curves.csv (the batch loss of every step),
// summary.json (the fit summary of stages/proteins/fit_summary.h: parameter
// count, final objective, training and test loss as the mean cross-entropy
// per non-gap target, whether attention left uniform, the optimiser's
// record).
//
// Threaded (--threads): the same bytes at any thread count.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_attention(Stage& stage);

}  // namespace potts
