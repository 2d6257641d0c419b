#include "stages/potts_alpha/potts_alpha_fit_stage.h"

#include <cmath>

#include "lib/potts/sample_data.h"
#include "lib/studies/sample_complexity.h"

namespace potts {

void run_potts_alpha_fit(Stage& stage) {
  Config plan = Config::load(stage.input("plan/summary.json"));  // ranges as in the plan stage's config
  const std::int64_t chunks = plan.integer("chunks", 1, 1000);
  Config& cfg = stage.config();
  const auto chunk = cfg.integer("chunk", 0, chunks - 1);
  cfg.finish();
  std::vector<arma::uword> grid;
  for (std::int64_t M : plan.integers("M_grid", 1, 10000000)) grid.push_back(arma::uword(M));
  const std::vector<arma::uword> R = realisations_per_M(plan, grid.size());
  const FactoredFitOptions fit = factored_fit_options_from_json(plan.value("estimator"));
  const arma::uword C = arma::uword(plan.integer("C", 2, 1000));

  const SampleData data =
      read_sample_data(stage.input("sample/model.h5"), stage.input("sample/train.h5"), stage.input("sample/test.h5"));
  if (data.truth.C() != C)
    throw StageError(stage.input("sample/model.h5") + ": " + std::to_string(data.truth.C()) +
                     " colours, but the plan says C = " + std::to_string(C));
  const arma::imat& pool = data.train;
  const nn::SequenceSet test = nn::to_sequence_set(data.test, C, "sample/test.h5");
  const arma::mat& J = data.truth.couplings_J;
  const double L = double(pool.n_cols);

  std::uint64_t work = 0, done = 0;
  for (std::size_t k = 0; k < grid.size(); ++k)
    for (arma::uword r = chunk; r < R[k]; r += chunks) work += grid[k];
  Progress progress("potts_alpha chunk " + std::to_string(chunk), work, "sequences");
  CsvTable table({"M", "alpha", "realisation", "test_loss", "train_loss", "objective", "reconstruction_error",
                  "converged", "status", "iterations", "gradient_norm"});
  int not_converged = 0, fits = 0;
  for (std::size_t k = 0; k < grid.size(); ++k)
    for (arma::uword r = chunk, M = grid[k]; r < R[k]; r += chunks) {
      const RealisationResult x = run_realisation(pool, test, C, J, M, r, fit, stage.seed());
      if (!std::isfinite(x.test_loss))
        throw StageError("M = " + std::to_string(M) + ", realisation " + std::to_string(r) + ": non-finite test loss");
      const bool conv = x.status == LbfgsStatus::kGradientConverged || x.status == LbfgsStatus::kRelativeDecrease;
      not_converged += !conv;
      ++fits;
      table.row({double(M), double(M) / L, double(r), x.test_loss, x.train_loss, x.objective, x.reconstruction_error,
                 conv ? 1.0 : 0.0, double(int(x.status)), double(x.iterations), x.gradient_norm});
      done += M;
      progress.update(done);
    }
  table.save(stage.output("realisations.csv"));
  nlohmann::json s = {{"chunk", chunk},
                      {"chunks", chunks},
                      {"fits", fits},
                      {"not_converged", not_converged},
                      {"status_codes",
                       {{"0", "gradient_converged"},
                        {"1", "relative_decrease"},
                        {"2", "max_iterations"},
                        {"3", "line_search_failed"}}}};
  stage.write_summary(s);
}

}  // namespace potts
