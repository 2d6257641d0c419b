// What the two fit stages on the observation's data conventions share (the
// attention stage and the plm_pad stage: the gap a pad, no input and no
// target; no sequence weights; the 20 amino acids): the sequences a fit
// sees, and its outputs.
#pragma once
#include <string>

#include <armadillo>

#include "stages/proteins/fit_summary.h"
#include "stages/runtime/stage.h"

namespace potts::proteins {

// The family's training and test sequences and those the fit sees: every
// one ("all", the contact tools' convention) or the training ones ("train",
// so that the test loss is held out).
struct PadFitData {
  arma::uword L = 0;
  std::string fit_on;
  arma::imat train, test, fit;
};
PadFitData read_pad_fit_data(const Stage& stage, const std::string& fit_on);

// The summary's fields every such fit shares: the data conventions, the
// sequences and the losses (mean cross-entropy per non-gap target).
CouplingFitSummary pad_fit_summary(const PadFitData& d, double train_loss, double test_loss);

// params.h5 ("x"), scores.h5 ("scores": the APC-corrected block norms) and
// summary.json; StageError, and nothing written, if the losses, x or the
// scores are not finite.
void write_pad_fit(Stage& stage, const arma::vec& x, const arma::mat& block_norms, const CouplingFitSummary& summary);

}  // namespace potts::proteins
