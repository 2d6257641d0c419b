// Stage potts_alpha_plan: validates the sample-complexity experiment of
// paper/spec.md §6 (figure 3 right) against the sample stage's data and
// writes it as summary.json for the chunks and the merge: grid of M,
// realisations (one count, or one per M), chunks, the estimator (factored attention, L2 penalty,
// L-BFGS, initialisation), and eps* of the true model on the test set.
#include <algorithm>

#include "lib/core/stage.h"
#include "lib/potts/sample_data.h"
#include "lib/studies/sample_complexity.h"
#include "lib/potts/model.h"

using namespace potts;

int main(int argc, char** argv) {
  return run_stage("potts_alpha_plan", "plan of the sample-complexity experiment on Potts data", argc, argv,
                   [](Stage& st) {
    Config& cfg = st.config();
    const auto grid = cfg.integers("M_grid", 1, 10000000);
    // One count for every M, or one per M (more where the curve must be
    // resolved, e.g. around the peak).
    std::vector<std::int64_t> realisations;
    if (cfg.has("realisations") && cfg.value("realisations").is_array()) {
      realisations = cfg.integers("realisations", 2, 100000);
      if (realisations.size() != grid.size())
        throw StageError(cfg.origin() + ": key 'realisations': " + std::to_string(realisations.size()) +
                         " counts for " + std::to_string(grid.size()) + " values of M_grid");
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
        read_sample_data(st.input("sample/model.h5"), st.input("sample/train.h5"), st.input("sample/test.h5"));
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
    st.write_summary(s);
  });
}
