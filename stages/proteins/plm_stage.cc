#include "stages/proteins/plm_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "lib/core/io.h"
#include "lib/plm/pseudo_likelihood.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

void run_proteins_plm(Stage& stage) {
  Config& cfg = stage.config();
  PlmPenalty pen;
  pen.lambda_h = cfg.number("lambda_h", 0.0, 1e6);
  pen.lambda_W = cfg.number("lambda_W", 0.0, 1e6);
  LbfgsOptions lo = read_lbfgs_options(cfg);
  cfg.finish();
  const FamilyData f = read_family(stage);
  const arma::imat train = nn::to_imat(f.train), test = nn::to_imat(f.test);
  CsvTable curves({"epoch", "train_loss", "test_loss", "lr"});
  lo.on_iteration = [&](int it, double fx, double gnorm) {
    if (it % 10 == 0)
      std::fprintf(stderr, "proteins_plm: iteration %d/%d  objective %.6f  |grad| %.3g\n", it, lo.max_iterations, fx,
                   gnorm);
    curves.row({double(it), fx, std::nan(""), 0.0});
  };
  const auto t0 = std::chrono::steady_clock::now();
  const PlmFit fit = fit_plm(train, kStates, pen, lo);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double test_loss = plm_test_loss(fit.model, test);
  if (!std::isfinite(test_loss) || !std::isfinite(fit.train_loss))
    throw StageError("the pseudo-likelihood fit diverged (non-finite loss); no result is written");
  const arma::mat scores = apc(frobenius_scores(fit.model.couplings_W, kStates));
  if (!scores.is_finite())
    throw StageError("the contact scores of the pseudo-likelihood model are not finite; no result is written");

  H5Writer params;
  params.matrix("fields_h", fit.model.fields_h);
  params.matrix("couplings_W", fit.model.couplings_W);
  params.save(stage.output("params.h5"));
  H5Writer h5;
  h5.matrix("scores", scores);
  h5.save(stage.output("scores.h5"));
  curves.save(stage.output("curves.csv"));
  nlohmann::json s;
  s["model"] = "plm";
  s["L"] = f.train.L;
  s["q"] = kStates;
  s["train_sequences"] = f.train.M;
  s["test_sequences"] = f.test.M;
  s["test_loss"] = test_loss;
  s["final_train_loss_all_positions"] = fit.train_loss;
  s["parameters"] = fit.model.parameter_count();
  s["lambda_h"] = pen.lambda_h;
  s["lambda_W"] = pen.lambda_W;
  s["optimiser"] = "lbfgs";
  s["iterations"] = fit.optimiser.iterations;
  s["optimiser_status"] = to_string(fit.optimiser.status);
  s["scores"] = "APC-corrected Frobenius norm of the zero-sum-gauge coupling blocks, gap excluded";
  stage.write_summary(s);
  stage.timings()["training_seconds"] = seconds;
}

}  // namespace potts
