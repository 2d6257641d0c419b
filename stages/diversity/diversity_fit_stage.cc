#include "stages/diversity/diversity_fit_stage.h"

#include <cmath>
#include <map>

#include "lib/potts/sample_data.h"
#include "lib/studies/recovery.h"
#include "lib/studies/sample_complexity.h"

namespace potts {

namespace {

// The fits' options (config: seeds, plm_start, stall_tolerance, the
// factored estimator and the PLM; a lambda_grid instead of a penalty: the
// penalty chosen by validation, lib/studies/recovery.h).
RecoveryOptions read_recovery_options(Config& cfg) {
  RecoveryOptions o;
  o.seeds = int(cfg.integer("seeds", 1, 1000));
  o.plm_start = cfg.boolean("plm_start");
  o.stall_tolerance = cfg.number("stall_tolerance", 0.0, 10.0);
  Config est = cfg.section("estimator");
  const bool validate_lambda = est.has("lambda_grid");
  if (validate_lambda) o.fa_lambda_grid = est.numbers("lambda_grid", 0.0, 1e3);
  o.factored = read_factored_fit_options(est, validate_lambda);
  est.finish();
  Config plm = cfg.section("plm");
  if (plm.has("lambda_grid")) {
    o.plm_lambda_grid = plm.numbers("lambda_grid", 0.0, 1e3);
  } else {
    o.plm_penalty.lambda_h = plm.number("lambda_h", 0.0, 1e3);
    o.plm_penalty.lambda_W = plm.number("lambda_W", 0.0, 1e3);
  }
  // Held-out share of both validations (lib/studies/recovery.h).
  if (!o.plm_lambda_grid.empty() || validate_lambda)
    o.holdout_every = arma::uword(plm.integer("holdout_every", 2, 1000));
  o.plm_lbfgs.max_iterations = int(plm.integer("max_iterations", 1, 1000000));
  o.plm_lbfgs.gradient_tolerance = plm.number("gradient_tolerance", 0.0, 1.0);
  plm.finish();
  cfg.finish();
  return o;
}

// fits.csv, one row per fit (kind code: 0 factored_random,
// 1 factored_plm_start, 2 plm); returns how many did not converge.
int write_fits(Stage& stage, const RecoveryResult& r) {
  const std::map<std::string, double> code = {{"factored_random", 0}, {"factored_plm_start", 1}, {"plm", 2}};
  CsvTable fits({"kind", "seed", "train_objective", "train_loss", "test_loss", "gap", "reconstruction_error",
                 "reconstruction_error_zero_sum", "converged", "iterations", "stalled"});
  int not_converged = 0;
  for (auto& f : r.fits) {
    const bool conv = f.status == LbfgsStatus::kGradientConverged || f.status == LbfgsStatus::kRelativeDecrease;
    not_converged += !conv;
    fits.row({code.at(f.kind), double(f.seed), f.train_objective, f.train_loss, f.test_loss, f.gap,
              f.reconstruction_error, f.reconstruction_error_zero_sum, conv ? 1.0 : 0.0, double(f.iterations),
              f.stalled ? 1.0 : 0.0});
  }
  fits.save(stage.output("fits.csv"));
  return not_converged;
}

// The recovery's numbers and the penalties used (chosen by validation where
// a grid was given).
void recovery_summary(const RecoveryResult& r, const RecoveryOptions& o, nlohmann::json& s) {
  s["optimal_test_loss"] = r.optimal_test_loss;
  s["fa_gap_mean"] = r.fa_gap_mean;
  s["fa_gap_se"] = r.fa_gap_se;
  s["fa_erec_mean"] = r.fa_erec_mean;
  s["fa_erec_se"] = r.fa_erec_se;
  s["fa_stall_fraction"] = r.fa_stall_fraction;
  s["fa_best_gap"] = r.fa_best_gap;
  s["fa_best_erec"] = r.fa_best_erec;
  s["plm_gap"] = r.plm_gap;
  s["plm_erec"] = r.plm_erec;
  s["plm_erec_zero_sum"] = r.plm_erec_zero_sum;
  s["seeds"] = o.seeds;
  s["fit_kind_codes"] = {{"0", "factored_random"}, {"1", "factored_plm_start"}, {"2", "plm"}};
  FactoredFitOptions used = o.factored;
  used.lambda = r.fa_lambda;
  s["estimator"] = factored_fit_options_json(used);
  s["fa_lambda_chosen"] = r.fa_lambda;
  if (!o.fa_lambda_grid.empty())
    s["fa_validation"] = {{"lambda_grid", o.fa_lambda_grid},
                          {"validation_loss", r.fa_validation_losses},
                          {"holdout_every", o.holdout_every}};
  s["plm_penalty"] = {{"lambda_h", r.plm_penalty.lambda_h}, {"lambda_W", r.plm_penalty.lambda_W}};
  s["plm_lambda_chosen"] = r.plm_penalty.lambda_W;
  if (!o.plm_lambda_grid.empty())
    s["plm_validation"] = {{"lambda_grid", o.plm_lambda_grid},
                           {"validation_loss", r.plm_validation_losses},
                           {"holdout_every", o.holdout_every}};
  s["stall_tolerance"] = o.stall_tolerance;
}

}  // namespace

void run_diversity_fit(Stage& stage) {
  const RecoveryOptions o = read_recovery_options(stage.config());
  const SampleData data =
      read_sample_data(stage.input("sample/model.h5"), stage.input("sample/train.h5"), stage.input("sample/test.h5"));
  const PottsModel& truth = data.truth;
  const arma::imat &train = data.train, &test = data.test;
  Config sample = Config::load(stage.input("sample/summary.json"));

  const RecoveryResult r = evaluate_recovery(train, test, truth, o, stage.seed());
  for (auto& f : r.fits)
    if (!std::isfinite(f.test_loss))
      throw StageError(f.kind + " fit, seed " + std::to_string(f.seed) + ": non-finite test loss");
  const int not_converged = write_fits(stage, r);
  nlohmann::json s;
  s["colour_kind"] = sample.value("colour_kind");
  s["hamming"] = mean_hamming_distance(train);
  s["target_hamming"] = sample.has("target_hamming") ? sample.value("target_hamming") : nlohmann::json();
  s["beta"] = truth.beta;
  s["L"] = truth.L();
  s["C"] = truth.C();
  s["M_train"] = train.n_rows;
  s["M_test"] = test.n_rows;
  recovery_summary(r, o, s);
  s["not_converged"] = not_converged;
  // The data set's degeneracy diagnostics (lib/potts/diagnostics.h), so
  // that the merge can say which points rest on degenerate data.
  if (sample.has("diagnostics")) s["data_diagnostics"] = sample.value("diagnostics");
  stage.write_summary(s);
}

}  // namespace potts
