#include "stages/train/train_merge_stage.h"

#include <limits>

#include <algorithm>
#include <cmath>

#include "lib/core/io.h"
#include "lib/core/stats.h"
#include "lib/potts/strength.h"
#include "stages/runtime/sweep.h"

namespace potts {

namespace {

nlohmann::json stat(const std::vector<double>& x) {
  const MeanSe m = mean_se(x);
  return {{"mean", m.mean}, {"se", m.se}, {"values", x}};
}

// The training loss a fraction f of the way through a run (the recorded
// epoch nearest to f times the last one).
double train_loss_at(const std::map<std::string, std::vector<double>>& curve, double f, const std::string& path) {
  for (const char* col : {"epoch", "train_loss"})
    if (!curve.count(col)) throw StageError(path + ": no column '" + col + "'");
  const auto& epoch = curve.at("epoch");
  const auto& loss = curve.at("train_loss");
  if (epoch.empty() || loss.size() != epoch.size()) throw StageError(path + ": no epochs recorded");
  const double target = f * epoch.back();
  std::size_t k = 0;
  for (std::size_t i = 1; i < epoch.size(); ++i)
    if (std::abs(epoch[i] - target) < std::abs(epoch[k] - target)) k = i;
  return loss[k];
}

}  // namespace

void run_train_merge(Stage& stage) {
  Config& cfg = stage.config();
  const std::vector<std::string> models = cfg.strings("models");
  const std::vector<std::int64_t> seeds = cfg.integers("seeds", 0, std::numeric_limits<std::int64_t>::max());
  const double tol = cfg.number("stall_tolerance", 0.0, 10.0);
  cfg.finish();

  // A restart above the best by more than the tolerance either stalled (its
  // training loss fell by less than the tolerance from half-way to 90 % of
  // the run: a plateau) or ran out of budget (it was still falling when the
  // learning rate ran out: "budget_limited").
  CsvTable table({"model", "seed", "test_loss", "gap", "train_loss_all_positions", "reconstruction_error", "stalled",
                  "budget_limited", "late_decrease", "strength_correlation"});
  nlohmann::json s;
  SharedOptimum optimum;
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const std::string& m = models[mi];
    std::vector<double> test, gap, train, erec, late, strength;
    std::string optimiser;
    for (std::int64_t seed : seeds) {
      const std::string run = m + "_s" + std::to_string(seed);
      const std::string path = stage.input(run + "/summary.json");
      const std::string curves = stage.input(run + "/curves.csv"), params = stage.input(run + "/params.h5");
      const auto curve = read_csv(curves);
      late.push_back(train_loss_at(curve, 0.5, curves) - train_loss_at(curve, 0.9, curves));
      strength.push_back(
          strength_correlation(h5_read_matrix(params, "couplings_J"), h5_read_matrix(params, "attention_map")));
      const nlohmann::json j = read_json(path);
      const double opt = json_number(j, "optimal_test_loss", path);
      optimum.check(opt, path);
      test.push_back(json_number(j, "test_loss", path));
      gap.push_back(test.back() - opt);
      train.push_back(json_number(j, "final_train_loss_all_positions", path));
      erec.push_back(json_number(j, "reconstruction_error", path));
      if (j.contains("optimiser") && j["optimiser"].is_string()) optimiser = j["optimiser"];
    }
    const std::size_t best = best_restart(train);
    std::size_t stalled = 0, limited = 0;
    for (std::size_t r = 0; r < train.size(); ++r) {
      const bool behind = train[r] - train[best] > tol;
      const bool st_r = behind && late[r] < tol, lim_r = behind && !st_r;
      stalled += st_r;
      limited += lim_r;
      table.row({double(mi), double(seeds[r]), test[r], gap[r], train[r], erec[r], st_r ? 1.0 : 0.0, lim_r ? 1.0 : 0.0,
                 late[r], strength[r]});
    }
    s[m] = {{"runs", seeds.size()},
            {"optimiser", optimiser},
            {"gap", stat(gap)},
            {"test_loss", stat(test)},
            {"reconstruction_error", stat(erec)},
            {"train_loss_all_positions", stat(train)},
            {"stalled", stalled},
            {"stall_fraction", double(stalled) / double(seeds.size())},
            {"budget_limited", limited},
            {"late_decrease", stat(late)},
            {"strength_correlation", stat(strength)},
            {"best_seed", seeds[best]},
            {"best_test_loss", test[best]},
            {"best_gap", gap[best]},
            {"best_reconstruction_error", erec[best]},
            {"best_strength_correlation", strength[best]}};
  }
  table.save(stage.output("seeds.csv"));
  s["models"] = models;
  s["model_column"] = "seeds.csv column 'model' is the index into 'models'";
  s["seeds"] = seeds;
  s["stall_tolerance"] = tol;
  s["stall_rule"] =
      "behind the best restart's training loss by more than stall_tolerance; stalled if its training loss fell by "
      "less than stall_tolerance from half-way to 90 % of the run, budget_limited otherwise";
  s["optimal_test_loss"] = optimum.value();
  stage.write_summary(s);
}

}  // namespace potts
