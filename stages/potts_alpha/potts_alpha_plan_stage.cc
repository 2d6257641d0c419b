#include "stages/potts_alpha/potts_alpha_plan_stage.h"

#include <algorithm>

#include "lib/potts/model.h"
#include "lib/potts/sample_data.h"
#include "lib/studies/sample_complexity.h"

namespace potts {

void run_potts_alpha_plan(Stage& stage) {
  Config& cfg = stage.config();
  const auto grid = cfg.integers("M_grid", 1, 10000000);
  // One count for every M, or one per M (more where the curve must be
  // resolved, e.g. around the peak).
  std::vector<std::int64_t> realisations;
  if (cfg.has("realisations") && cfg.value("realisations").is_array()) {
    realisations = cfg.integers("realisations", 2, 100000);
    if (realisations.size() != grid.size())
      throw StageError(cfg.origin() + ": key 'realisations': " + std::to_string(realisations.size()) + " counts for " +
                       std::to_string(grid.size()) + " values of M_grid");
  } else {
    realisations.assign(grid.size(), cfg.integer("realisations", 2, 100000));
  }
  const auto chunks = cfg.integer("chunks", 1, 1000);
  Config est = cfg.section("estimator");
  const FactoredFitOptions fit = read_factored_fit_options(est);
  est.finish();
  cfg.finish();
  for (size_t k = 1; k < grid.size(); ++k)
    if (grid[k] <= grid[k - 1]) throw StageError(cfg.origin() + ": key 'M_grid': must be strictly increasing");

  const SampleData data =
      read_sample_data(stage.input("sample/model.h5"), stage.input("sample/train.h5"), stage.input("sample/test.h5"));
  const PottsModel& truth = data.truth;
  const arma::imat &train = data.train, &test = data.test;
  if (arma::uword(grid.back()) > train.n_rows)
    throw StageError(cfg.origin() + ": key 'M_grid': largest M = " + std::to_string(grid.back()) +
                     " exceeds the training pool of " + std::to_string(train.n_rows) + " sequences");
  nlohmann::json s;
  s["M_grid"] = grid;
  s["realisations"] = *std::max_element(realisations.begin(), realisations.end());
  s["realisations_by_M"] = realisations;
  s["chunks"] = chunks;
  s["estimator"] = factored_fit_options_json(fit);
  s["L"] = truth.L();
  s["C"] = truth.C();
  s["beta"] = truth.beta;
  s["train_pool"] = train.n_rows;
  s["test_sequences"] = test.n_rows;
  s["optimal_test_loss"] = optimal_test_loss(truth, test);
  s["hamming_distance_train"] = mean_hamming_distance(train);
  stage.write_summary(s);
}

}  // namespace potts
