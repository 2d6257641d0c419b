#include "stages/train/train_merge_stage.h"

#include <limits>

#include "lib/core/stats.h"
#include "stages/runtime/sweep.h"

namespace potts {

namespace {

nlohmann::json stat(const std::vector<double>& x) {
  const MeanSe m = mean_se(x);
  return {{"mean", m.mean}, {"se", m.se}, {"values", x}};
}

}  // namespace

void run_train_merge(Stage& st) {
  Config& cfg = st.config();
  const std::vector<std::string> models = cfg.strings("models");
  const std::vector<std::int64_t> seeds = cfg.integers("seeds", 0, std::numeric_limits<std::int64_t>::max());
  const double tol = cfg.number("stall_tolerance", 0.0, 10.0);
  cfg.finish();

  CsvTable table({"model", "seed", "test_loss", "gap", "train_loss_all_positions", "reconstruction_error", "stalled"});
  nlohmann::json s;
  SharedOptimum optimum;
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const std::string& m = models[mi];
    std::vector<double> test, gap, train, erec;
    std::string optimiser;
    for (std::int64_t seed : seeds) {
      const std::string path = st.input(m + "_s" + std::to_string(seed) + "/summary.json");
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
    std::size_t stalled = 0;
    for (std::size_t r = 0; r < train.size(); ++r) {
      const bool st_r = train[r] - train[best] > tol;
      stalled += st_r;
      table.row({double(mi), double(seeds[r]), test[r], gap[r], train[r], erec[r], st_r ? 1.0 : 0.0});
    }
    s[m] = {{"runs", seeds.size()},
            {"optimiser", optimiser},
            {"gap", stat(gap)},
            {"test_loss", stat(test)},
            {"reconstruction_error", stat(erec)},
            {"train_loss_all_positions", stat(train)},
            {"stalled", stalled},
            {"stall_fraction", double(stalled) / double(seeds.size())},
            {"best_seed", seeds[best]},
            {"best_gap", gap[best]},
            {"best_reconstruction_error", erec[best]}};
  }
  table.save(st.output("seeds.csv"));
  s["models"] = models;
  s["model_column"] = "seeds.csv column 'model' is the index into 'models'";
  s["seeds"] = seeds;
  s["stall_tolerance"] = tol;
  s["optimal_test_loss"] = optimum.value();
  st.write_summary(s);
}

}  // namespace potts
