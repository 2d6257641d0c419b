#include "stages/perturb/perturb_stage.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "lib/nn/factored_attention.h"
#include "lib/nn/perturbed_attention.h"
#include "lib/train/trainer.h"
#include "stages/train/mlm_stage.h"

namespace potts {

void run_perturb(Stage& stage) {
  Config& cfg = stage.config();
  // --- configuration (validated before any work) ---
  const double a = cfg.number("a", 0.0, 100.0);
  const std::string lr_scaling = cfg.choice("lr_scaling", {"none", "curvature"});
  Config tc = cfg.section("training");
  tc.choice("model", {"factored"});                                           // the sweep perturbs factored attention
  train::TrainOptions to = train::read_train_options(tc, {"all_positions"});  // one pass predicts all L positions
  const nn::Precision precision = train::read_precision(tc);
  double std_W = tc.number("init_std_A", 0.0, 100.0);
  double std_V = tc.number("init_std_V", 0.0, 100.0);
  tc.finish();
  const double lr0_factored = to.lr0;
  if (lr_scaling == "curvature") to.lr0 /= (1.0 + a * a) * (1.0 + a * a);
  if (cfg.has("init_std_W")) std_W = cfg.number("init_std_W", 0.0, 100.0);
  if (cfg.has("init_std_V")) std_V = cfg.number("init_std_V", 0.0, 100.0);
  cfg.finish();

  // --- data ---
  const train::MlmData data = train::read_mlm_data(stage);
  const PottsModel& truth = data.sample.truth;
  const arma::uword L = truth.L(), C = truth.C();
  nn::require_perturbed_shapes(L, C, L, data.model_path + " (perturb stage, d = L)");
  const nn::SequenceSet &train = data.train, &test = data.test;

  // --- model and training (lib/train, as for factored attention) ---
  // At a = 0 the perturbed model is factored attention (eq. 4): it is built
  // as exactly that, so this point is the train stage's factored run by
  // construction (same code, same bits), whatever the CPU.
  std::unique_ptr<nn::MlmModel> model;
  arma::mat *W = nullptr, *V = nullptr;
  if (a == 0.0) {
    auto fa = std::make_unique<nn::FactoredAttention>(L, C, precision);
    fa->initialise(std_W, std_V, stage.seed());
    W = &fa->A, V = &fa->V;
    model = std::move(fa);
  } else {
    if (precision != nn::Precision::kDouble)
      throw StageError(tc.origin() +
                       ": 'precision' must be \"double\" for a != 0 (perturbed attention has no float path)");
    auto pa = std::make_unique<nn::PerturbedAttention>(L, C, a);
    pa->initialise(std_W, std_V, stage.seed());
    W = &pa->W, V = &pa->V;
    model = std::move(pa);
  }
  const auto t0 = std::chrono::steady_clock::now();
  train::TrainResult res =
      train::train_mlm(*model, train, test, truth, to, stage.seed(), [&](const train::EpochRecord& r) {
        if (r.epoch % 25 == 0 || r.epoch == to.epochs)
          std::fprintf(stderr, "perturb a=%g: epoch %d/%d  train %.5f  test %.5f  eps* %.5f  lr %.4g\n", a, r.epoch,
                       to.epochs, r.train_loss, r.test_loss, r.optimal_test_loss, r.lr);
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // --- outputs (only after training succeeded) ---
  train::write_curves(stage.output("curves.csv"), res);

  H5Writer h5;
  h5.matrix("W", *W);
  h5.matrix("V", *V);
  h5.matrix("couplings_J", truth.couplings_J);
  h5.save(stage.output("params.h5"));

  nlohmann::json s = train::run_summary(data, res, to);
  s["model"] = "perturbed";
  s["a"] = a;
  s["seed"] = stage.seed();
  s["lr0_factored"] = lr0_factored;
  s["lr_scaling"] = lr_scaling;
  s["init"] = {{"W", "N(0, init_std_W^2) off the diagonal, W_ii = 0"},
               {"V", "N(0, init_std_V^2)"},
               {"init_std_W", std_W},
               {"init_std_V", std_V}};
  stage.write_summary(s);
  stage.timings()["training_seconds"] = seconds;
}

}  // namespace potts
