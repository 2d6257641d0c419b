#include "stages/train/train_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "lib/train/model_config.h"
#include "lib/train/trainer.h"
#include "stages/train/mlm_stage.h"

namespace potts {

void run_train(Stage& stage) {
  // the configuration, validated before any work
  const train::ModelConfig model_config = train::read_model_config(stage.config());
  const std::string& kind = model_config.kind;
  const train::TrainOptions& train_options = model_config.train;

  // --- data ---
  const train::MlmData data = train::read_mlm_data(stage);
  const PottsModel& truth = data.sample.truth;
  const arma::uword L = truth.L(), C = truth.C();
  const nn::SequenceSet &train = data.train, &test = data.test;

  // --- model ---
  const std::unique_ptr<nn::MlmModel> model = train::make_model(model_config, L, C, stage.seed());

  // --- training ---
  const auto t0 = std::chrono::steady_clock::now();
  train::TrainResult res =
      train::train_mlm(*model, train, test, truth, train_options, stage.seed(), [&](const train::EpochRecord& r) {
        std::fprintf(stderr, "train %s: epoch %d/%d  train %.5f  test %.5f  eps* %.5f  e_rec %.4f  lr %.4g\n",
                     kind.c_str(), r.epoch, train_options.epochs, r.train_loss, r.test_loss, r.optimal_test_loss,
                     r.reconstruction_error, r.lr);
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The training loss of the final parameters over every position of every
  // training sequence (eq. 3 on the training set): deterministic, unlike the
  // running mean over an epoch's mini-batches, so restarts can be ranked
  // and stalls told apart from noise.
  const double train_loss_all = model->evaluate(train).test_loss;

  // --- outputs (only after training succeeded) ---
  H5Writer h5;
  for (auto& p : model->parameters()) h5.matrix(p.name, *p.value);
  h5.matrix("attention_map", res.final.attention_map);
  h5.matrix("couplings_J", truth.couplings_J);
  h5.save(stage.output("params.h5"));

  train::write_curves(stage.output("curves.csv"), res);

  const train::EpochRecord& last = res.curve.back();
  nlohmann::json s = train::run_summary(data, res, train_options);
  s["model"] = kind;
  s["final_train_loss_all_positions"] = train_loss_all;
  s["parameters"] = nn::parameter_count(*model);
  s["lr_schedule"] = train_options.optimiser == "sgd" ? "cosine to 0 over all steps" : "none (line search)";
  s["masking"] = train_options.masking;
  s["precision"] = nn::to_string(model_config.precision);
  if (kind == "factored") {
    s["init"] = {{"A", "N(0, init_std_A^2) off the diagonal"},
                 {"V", "N(0, init_std_V^2)"},
                 {"init_std_A", model_config.init_std_A},
                 {"init_std_V", model_config.init_std_V}};
  } else {
    const nn::TransformerOptions& transformer = model_config.transformer;
    s.update(train::architecture_summary(transformer));
    s["output_projection"] = transformer.output_projection;
    s["layernorm_eps"] = transformer.layernorm_eps;
    s["init"] = "Xavier-uniform weights, zero biases, LayerNorm gamma 1 beta 0";
    s["attention_map"] = transformer.layers >= 2 ? "mean of the last two layers' masked-position rows"
                                                 : "the layer's masked-position rows";
  }
  stage.write_summary(s);
  stage.timings()["training_seconds"] = seconds;
  stage.timings()["seconds_per_epoch"] = seconds / double(last.epoch);
}

}  // namespace potts
