#include "stages/perturb/perturb_merge_stage.h"

#include <cmath>

#include "lib/core/stats.h"
#include "stages/runtime/sweep.h"

namespace potts {

void run_perturb_merge(Stage& stage) {
  Config& cfg = stage.config();
  const std::vector<double> grid = cfg.numbers("a", 0.0, 100.0);
  const std::vector<std::int64_t> seeds = cfg.integers("seeds", 0, std::numeric_limits<std::int64_t>::max());
  cfg.finish();
  if (seeds.size() < 2) throw StageError(cfg.origin() + ": key 'seeds': need at least 2 seeds for a standard error");

  CsvTable table({"a", "seed", "test_loss", "optimal_test_loss", "train_loss"});
  CsvTable summary_csv({"a", "seeds", "mean_test_loss", "stderr_test_loss", "mean_gap", "optimal_test_loss",
                        "best_seed", "best_train_loss", "best_test_loss"});
  CsvTable curves({"a", "seed", "epoch", "train_loss", "test_loss", "optimal_test_loss", "reconstruction_error", "lr"});
  nlohmann::json points = nlohmann::json::array();
  SharedOptimum optimum;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    std::vector<double> losses, train_losses;
    for (std::int64_t seed : seeds) {
      const std::string key = "a" + std::to_string(k) + "_s" + std::to_string(seed);
      const std::string path = stage.input(key + "/summary.json");
      const nlohmann::json s = read_json(path);
      const double a = json_number(s, "a", path), test_loss = json_number(s, "test_loss", path);
      const double opt = json_number(s, "optimal_test_loss", path);
      if (a != grid[k] || json_number(s, "seed", path) != double(seed))
        throw StageError(path + ": point has a = " + std::to_string(a) + ", seed " + s["seed"].dump() +
                         "; the merge config expects a = " + std::to_string(grid[k]) + ", seed " +
                         std::to_string(seed));
      optimum.check(opt, path);
      if (!std::isfinite(test_loss)) throw StageError(path + ": test_loss is not finite");
      const double train_loss = json_number(s, "final_train_loss", path);
      table.row({a, double(seed), test_loss, opt, train_loss});
      losses.push_back(test_loss);
      train_losses.push_back(train_loss);
      const std::string cpath = stage.input(key + "/curves.csv");
      const auto c = read_csv(cpath);
      std::vector<const std::vector<double>*> col;
      for (const char* name : {"epoch", "train_loss", "test_loss", "optimal_test_loss", "reconstruction_error", "lr"})
        col.push_back(&csv_column(c, cpath, name));
      for (std::size_t r = 0; r < col[0]->size(); ++r)  // read_csv: every column has every row
        curves.row(
            {a, double(seed), (*col[0])[r], (*col[1])[r], (*col[2])[r], (*col[3])[r], (*col[4])[r], (*col[5])[r]});
    }
    // Mean and standard error of the mean over seeds (sample sd, n - 1).
    const MeanSe m = mean_se(losses);
    const double n = double(m.n), mean = m.mean, stderr_ = m.se;
    const std::size_t best = best_restart(train_losses);
    const double optimal_test_loss = optimum.value();
    summary_csv.row({grid[k], n, mean, stderr_, mean - optimal_test_loss, optimal_test_loss, double(seeds[best]),
                     train_losses[best], losses[best]});
    points.push_back({{"a", grid[k]},
                      {"seeds", losses.size()},
                      {"mean_test_loss", mean},
                      {"stderr_test_loss", stderr_},
                      {"mean_gap", mean - optimal_test_loss},
                      {"test_losses", losses},
                      {"train_losses", train_losses},
                      {"best_seed", seeds[best]},
                      {"best_test_loss", losses[best]}});
  }
  table.save(stage.output("perturb.csv"));
  summary_csv.save(stage.output("perturb_summary.csv"));
  curves.save(stage.output("curves.csv"));
  nlohmann::json s;
  s["optimal_test_loss"] = optimum.value();
  s["a"] = grid;
  s["seeds"] = seeds;
  s["points"] = points;
  stage.write_summary(s);
}

}  // namespace potts
