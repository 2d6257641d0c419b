// Stage proteins_train (paper/spec.md §9): one model trained on a protein
// family by masked language modelling, and its contact scores.
//
// Input "family": the proteins_prepare stage's outputs.
// Config "model": "factored" or "vanilla", with the keys of the synthetic
// train stage (model shape, the paper's SGD protocol), trained by lib/train
// on the training sequences with q = 21. (The pseudo-likelihood baseline is
// the proteins_plm stage's.)
// Outputs:
//  * params.h5: the parameters (and "attention_map" of a vanilla model);
//  * scores.h5: "scores", the APC-corrected contact scores of the model
//    (L x L); for a vanilla model also "layer_<k>", each layer's map
//    symmetrised and corrected (the counted "scores" is fixed in advance:
//    the map evaluate() reports, as in figure 2b);
//  * curves.csv: epoch, train_loss, test_loss, lr;
//  * summary.json: MLM test loss (eq. 3 on the test sequences), final
//    training loss, sizes, settings.
#pragma once
#include "stages/runtime/stage.h"

namespace potts {

void run_proteins_train(Stage& stage);

}  // namespace potts
