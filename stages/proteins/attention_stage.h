// The proteins_attention stage: a model of the family on the observation's
// data conventions (the gap a pad: no input, no target; no sequence
// weights; the 20 amino acids), either
//  * "model": "attention": factored attention fitted as the observation's
//    public implementation fits it (lib/attention_potts/attention_potts.h, eq.
//    O1): positional softmax attention with H heads of dimension d and a
//    full value matrix per head, the penalty on the couplings W and the
//    fields, AdamW with a constant learning rate on seeded mini-batches;
//    keys "heads", "head_dim", "products" ("double" or "float"), "lambda",
//    "steps", "batch_size", "lr", and optionally the pinned code's protocol:
//    "penalty" ("unsquared", eq. O1, or "squared", eq. O1s), "fields"
//    (true, or false as the observation's command runs), "full_batches"
//    (every batch full, drawn across epochs);
//  * "model": "plm": the pseudo-likelihood model (coupling_pad.h, eq. O2)
//    by the lean L-BFGS; keys "lambda_h", "lambda_c", "max_iterations",
//    "gradient_tolerance", "relative_decrease", "lbfgs_memory".
// Both: "fit_on" ("all": every sequence, the contact tools' convention;
// "train": the training sequences only, so that the test loss is held out).
//
// Inputs: family/ (the proteins_prepare stage: train.h5, test.h5, columns.csv).
// Outputs: params.h5 ("x"), scores.h5 ("scores": the APC-corrected
// Frobenius norms of the coupling blocks over the 20 amino acids, the
// observation's score), curves.csv (the batch loss of every step, or the
// objective per L-BFGS iteration), summary.json (parameter count, final
// objective, training and test loss as the mean cross-entropy per non-gap
// target, whether attention left uniform, the optimiser's record, the fit
// time).
//
// Threaded (--threads): the same bytes at any thread count.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_attention(Stage& st);

}  // namespace potts
