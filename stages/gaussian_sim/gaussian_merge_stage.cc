#include "stages/gaussian_sim/gaussian_merge_stage.h"

#include <cmath>

#include "lib/core/rng.h"
#include "lib/core/stats.h"
#include "lib/gaussian/gaussian.h"
#include "stages/runtime/sweep.h"

namespace potts {

void run_gaussian_merge(Stage& stage) {
  stage.config();  // no keys
  Config model = Config::load(stage.input("model/summary.json"));
  const std::int64_t chunks = model.integer("chunks", 1, 1000);
  std::vector<std::uint64_t> n_grid;
  for (std::int64_t n : model.integers("sample_counts", 1, std::int64_t(1) << 40)) n_grid.push_back(std::uint64_t(n));
  const auto R = std::uint64_t(model.integer("realisations", 1, 100000));
  const double D = model.number_open("D", 0.0, 1e9), sigma2 = model.number("sigma2", 0.0, 1e300);

  const ChunkRows rows(stage, chunks, {"alpha", "n", "alpha_index", "realisation", "eps_g", "m", "q", "w_norm"},
                       {"alpha_index", n_grid.size()}, {"realisation", R});
  CsvTable all(rows.columns());
  CsvTable per_alpha({"alpha", "n", "eps_g_mean", "eps_g_stderr", "eps_g_median", "eps_g_min", "eps_g_max", "m_mean",
                      "q_mean", "realisations"});
  std::vector<double> alphas, means;
  std::vector<arma::vec> eps_by_alpha;
  for (size_t k = 0; k < n_grid.size(); ++k) {
    arma::vec eps(R), m(R), q(R);
    for (std::uint64_t r = 0; r < R; ++r) {
      const std::vector<double>& row = rows.at(k, r);
      if (row[1] != static_cast<double>(n_grid[k]))
        throw StageError("merge: chunk rows were made with a different alpha grid than the model's");
      all.row(row);
      eps(r) = row[4], m(r) = row[5], q(r) = row[6];
    }
    const double alpha = n_grid[k] / D;
    per_alpha.row({alpha, static_cast<double>(n_grid[k]), arma::mean(eps), arma::stddev(eps) / std::sqrt(double(R)),
                   arma::median(eps), eps.min(), eps.max(), arma::mean(m), arma::mean(q), static_cast<double>(R)});
    alphas.push_back(alpha);
    means.push_back(arma::mean(eps));
    eps_by_alpha.push_back(eps);
  }
  rows.check_count(n_grid.size() * R);
  all.save(stage.output("realisations.csv"));
  per_alpha.save(stage.output("simulation.csv"));

  nlohmann::json s = model.json();  // D, Delta, lambda, sigma2, masked index, grid, ...
  s["model_seed"] = model.value("seed");
  s.erase("seed");
  const size_t peak = argmax(means);
  s["peak_alpha"] = alphas[peak];
  s["peak_eps_g_mean"] = means[peak];
  try {
    s["tail_slope_8_100"] = gaussian::loglog_slope(alphas, means, sigma2, 8, 100);
    // Its standard error from resampling the realisations at every α
    // (1000 bootstrap resamples, seeded): the slope's spread over them.
    Rng rng(stage.seed(), streams::kBootstrap);
    std::vector<double> slopes, resampled(means.size());
    for (int b = 0; b < 1000; ++b) {
      for (size_t k = 0; k < eps_by_alpha.size(); ++k) {
        double sum = 0;
        for (std::uint64_t r = 0; r < R; ++r) sum += eps_by_alpha[k](rng.below(R));
        resampled[k] = sum / double(R);
      }
      slopes.push_back(gaussian::loglog_slope(alphas, resampled, sigma2, 8, 100));
    }
    s["tail_slope_8_100_se"] = mean_se(slopes).se * std::sqrt(double(slopes.size()));
  } catch (const StageError&) {
    s["tail_slope_8_100"] = nullptr;  // the grid does not reach the tail
    s["tail_slope_8_100_se"] = nullptr;
  }
  stage.write_summary(s);
}

}  // namespace potts
