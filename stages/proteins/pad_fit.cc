#include "stages/proteins/pad_fit.h"

#include <cmath>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"

namespace potts::proteins {

PadFitData read_pad_fit_data(const Stage& stage, const std::string& fit_on) {
  const FamilyData f = read_family(stage);
  PadFitData d;
  d.L = f.train.L;
  d.fit_on = fit_on;
  d.train = nn::to_imat(f.train);
  d.test = nn::to_imat(f.test);
  d.fit = fit_on == "all" ? arma::imat(arma::join_cols(d.train, d.test)) : d.train;
  return d;
}

CouplingFitSummary pad_fit_summary(const PadFitData& d, double train_loss, double test_loss) {
  CouplingFitSummary s;
  s.L = d.L;
  s.q = kGap;  // the 20 amino acids; the gap (state 20) is the pad
  s.weights = "none";
  s.fit_on = d.fit_on;
  s.fit_sequences = d.fit.n_rows;
  s.train_loss = train_loss;
  s.test_loss = test_loss;
  s.scores = "APC-corrected Frobenius norm of the coupling blocks over the 20 amino acids (the gap a pad)";
  s.details["gap"] = "pad";
  s.details["loss"] = "mean cross-entropy per non-gap target, no penalty";
  return s;
}

void write_pad_fit(Stage& stage, const arma::vec& x, const arma::mat& block_norms, const CouplingFitSummary& summary) {
  if (!std::isfinite(summary.train_loss) || !std::isfinite(summary.test_loss) || !x.is_finite())
    throw StageError("the fit diverged (non-finite loss or parameters); no result is written");
  const arma::mat scores = apc(block_norms);
  if (!scores.is_finite()) throw StageError("the contact scores are not finite; no result is written");
  H5Writer params;
  params.matrix("x", arma::mat(x));
  params.save(stage.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(stage.output("scores.h5"));
  stage.write_summary(summary.to_json());
}

}  // namespace potts::proteins
