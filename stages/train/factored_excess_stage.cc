#include "stages/train/factored_excess_stage.h"

#include "lib/core/io.h"
#include "lib/factored/finite_sample_excess.h"
#include "lib/potts/sample_data.h"

namespace potts {

void run_factored_excess(Stage& stage) {
  Config& cfg = stage.config();
  const double step = cfg.number_open("step", 0.0, 1.0);
  const double tol = cfg.number_open("rank_tolerance", 0.0, 1.0);
  const SampleData data =
      read_sample_data(stage.input("sample/model.h5"), stage.input("sample/train.h5"), stage.input("sample/test.h5"));
  const arma::uword L = data.truth.L(), C = data.truth.C();
  const nn::SequenceSet train = nn::to_sequence_set(data.train, C, stage.input("sample/train.h5"));
  // The best restart, as the train merge chose it (lowest training loss).
  const std::string merge = stage.input("merge/summary.json");
  const auto best = read_json(merge).at("factored").at("best_seed").get<std::int64_t>();
  const std::string params = stage.input("factored_s" + std::to_string(best) + "/params.h5");
  nn::FactoredAttention fa(L, C);
  fa.A = h5_read_matrix(params, "A");
  fa.V = h5_read_matrix(params, "V");
  if (fa.A.n_rows != L || fa.A.n_cols != L || fa.V.n_rows != C || fa.V.n_cols != C)
    throw StageError(params + ": datasets 'A' and 'V' must be " + std::to_string(L) + " x " + std::to_string(L) +
                     " and " + std::to_string(C) + " x " + std::to_string(C) + " (the sample's L and C)");
  const FiniteSampleExcess e = finite_sample_excess(fa, train, step, tol);
  const double d_eff = factored_d_eff(double(L), double(C));
  nlohmann::json s = {{"seed", best},
                      {"excess_per_position", e.excess_per_position},
                      {"trace", e.trace},
                      {"rank", e.rank},
                      {"d_eff", d_eff},
                      {"count_excess_per_position", d_eff / (2.0 * double(train.M) * double(L))},
                      {"gradient_norm", e.gradient_norm},
                      {"train_sequences", train.M},
                      {"L", L},
                      {"C", C}};
  stage.write_summary(s);
}

}  // namespace potts
