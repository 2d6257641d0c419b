#include "stages/potts_alpha/potts_alpha_merge_stage.h"

#include <cmath>
#include <numeric>

#include "lib/core/stats.h"
#include "lib/studies/sample_complexity.h"
#include "stages/runtime/sweep.h"

namespace potts {

void run_potts_alpha_merge(Stage& stage) {
  stage.config().finish();
  Config plan = Config::load(stage.input("plan/summary.json"));  // ranges as in the plan stage's config
  const int chunks = int(plan.integer("chunks", 1, 1000));
  std::vector<int> grid;
  for (std::int64_t M : plan.integers("M_grid", 1, 10000000)) grid.push_back(int(M));
  const std::vector<arma::uword> R = realisations_per_M(plan, grid.size());
  const double L = plan.number_open("L", 0.0, 1e9), optimal_test_loss = plan.number("optimal_test_loss");

  const ChunkRows rows(stage, chunks,
                       {"M", "alpha", "realisation", "test_loss", "train_loss", "objective", "reconstruction_error",
                        "converged", "status", "iterations", "gradient_norm"},
                       {"M", 10000000}, {"realisation", 100000});
  CsvTable all(rows.columns());
  CsvTable curve({"alpha", "M", "test_loss_mean", "test_loss_se", "n", "train_loss_mean", "reconstruction_error_mean",
                  "converged_fraction", "optimal_test_loss"});
  nlohmann::json points = nlohmann::json::array();
  int not_converged = 0;
  std::vector<double> means, ses, alphas;
  std::size_t expected = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const int M = grid[k];
    expected += R[k];
    std::vector<double> x, tr, er, conv;
    for (int r = 0; r < int(R[k]); ++r) {
      const std::vector<double>& row = rows.at(std::uint64_t(M), std::uint64_t(r));
      all.row(row);
      x.push_back(row[3]);
      tr.push_back(row[4]);
      er.push_back(row[6]);
      conv.push_back(row[7]);
    }
    const MeanSe loss = mean_se(x), converged = mean_se(conv);
    const double n = double(loss.n), mean = loss.mean, se = loss.se;
    not_converged += int(n - std::accumulate(conv.begin(), conv.end(), 0.0));
    curve.row({M / L, double(M), mean, se, n, mean_se(tr).mean, mean_se(er).mean, converged.mean, optimal_test_loss});
    points.push_back({{"M", M}, {"alpha", M / L}, {"test_loss_mean", mean}, {"test_loss_se", se}});
    means.push_back(mean), ses.push_back(se), alphas.push_back(M / L);
  }
  rows.check_count(expected);
  curve.save(stage.output("potts_alpha.csv"));
  all.save(stage.output("realisations.csv"));
  nlohmann::json s;
  s["L"] = L;
  s["optimal_test_loss"] = optimal_test_loss;
  s["beta"] = plan.value("beta");
  s["hamming_distance_train"] = plan.value("hamming_distance_train");
  s["estimator"] = plan.value("estimator");
  s["realisations"] = plan.value("realisations");
  s["realisations_by_M"] = R;
  s["points"] = points;
  const std::size_t peak = argmax(means);
  s["peak"] = {{"alpha", alphas[peak]}, {"test_loss_mean", means[peak]}, {"test_loss_se", ses[peak]}};
  s["smallest_M"] = points.front();
  s["largest_M"] = points.back();
  s["largest_M_gap"] = points.back()["test_loss_mean"].get<double>() - optimal_test_loss;
  s["fits"] = expected;
  s["not_converged"] = not_converged;
  stage.write_summary(s);
}

}  // namespace potts
