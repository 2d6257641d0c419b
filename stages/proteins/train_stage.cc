#include "stages/proteins/train_stage.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "lib/core/io.h"
#include "lib/nn/factored_attention.h"
#include "lib/nn/transformer.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"
#include "lib/proteins/predictors.h"
#include "lib/train/model_config.h"
#include "lib/train/trainer.h"
#include "stages/proteins/family_stage.h"

namespace potts {

using namespace proteins;

namespace {

// scores.h5: factored attention's APC-corrected block norms, or a vanilla
// transformer's symmetrised attention map (averaged over the test
// sequences, as in figure 2b) and each layer's.
void write_scores(Stage& stage, const std::string& kind, const nn::MlmModel& model, const train::TrainResult& res,
                  const FamilyData& f) {
  H5Writer scores;
  if (kind == "factored") {
    const auto& fa = static_cast<const nn::FactoredAttention&>(model);
    scores.matrix("scores", apc(frobenius_scores(factored_couplings(fa.A, fa.V), kStates)));
  } else {
    scores.matrix("scores", apc(symmetrised(res.final.attention_map)));
    const std::vector<arma::mat> layers = vanilla_layer_maps(static_cast<const nn::VanillaTransformer&>(model), f.test);
    for (std::size_t k = 0; k < layers.size(); ++k)
      scores.matrix("layer_" + std::to_string(k + 1), apc(symmetrised(layers[k])));
  }
  scores.save(stage.output("scores.h5"));
}

nlohmann::json train_summary(const std::string& kind, const train::ModelConfig& mc, nn::MlmModel& model,
                             const train::TrainResult& res, const FamilyData& f) {
  const train::TrainOptions& to = mc.train;
  const train::EpochRecord& last = res.curve.back();
  nlohmann::json s;
  s["model"] = kind;
  s["L"] = f.train.L;
  s["q"] = kStates;
  s["train_sequences"] = f.train.M;
  s["test_sequences"] = f.test.M;
  s["test_loss"] = last.test_loss;
  s["final_train_loss"] = last.train_loss;
  s["parameters"] = nn::parameter_count(model);
  s["epochs"] = to.epochs;
  s["optimiser"] = to.optimiser;
  s["batch_size"] = to.batch_size;
  s["lr0"] = to.lr0;
  s["loss_normalisation"] = to.loss_normalisation;
  s["masking"] = to.masking;
  s["l2"] = to.l2;
  s["precision"] = nn::to_string(mc.precision);
  if (kind == "factored") {
    s["init_std_A"] = mc.init_std_A;
    s["init_std_V"] = mc.init_std_V;
    s["scores"] = "APC-corrected Frobenius norm of the zero-sum-gauge blocks A_ij V, gap excluded";
  } else {
    const nn::TransformerOptions& tro = mc.transformer;
    s.update(train::architecture_summary(tro));
    s["scores"] = tro.layers >= 2 ? "APC-corrected symmetrised attention map, mean of the last two layers"
                                  : "APC-corrected symmetrised attention map of the layer";
  }
  return s;
}

}  // namespace

void run_proteins_train(Stage& stage) {
  const train::ModelConfig mc = train::read_model_config(stage.config());
  const std::string& kind = mc.kind;
  const train::TrainOptions& to = mc.train;

  const FamilyData f = read_family(stage);
  const arma::uword L = f.train.L;
  const std::unique_ptr<nn::MlmModel> model = train::make_model(mc, L, kStates, stage.seed());

  // lib/train reports each epoch against the model that generated synthetic
  // data; a family has none. A beta = 0 stand-in (uniform conditionals,
  // J = 0) fills those columns, which are not written.
  PottsModel stand_in;
  stand_in.couplings_J.zeros(L, L);
  stand_in.colour_similarity_U.eye(kStates, kStates);
  stand_in.beta = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  train::TrainResult res =
      train::train_mlm(*model, f.train, f.test, stand_in, to, stage.seed(), [&](const train::EpochRecord& r) {
        std::fprintf(stderr, "proteins_train %s: epoch %d/%d  train %.5f  test %.5f  lr %.4g\n", kind.c_str(), r.epoch,
                     to.epochs, r.train_loss, r.test_loss, r.lr);
      });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  H5Writer h5;
  for (auto& p : model->parameters()) h5.matrix(p.name, *p.value);
  if (kind == "vanilla") h5.matrix("attention_map", res.final.attention_map);
  h5.save(stage.output("params.h5"));
  write_scores(stage, kind, *model, res, f);
  CsvTable curves({"epoch", "train_loss", "test_loss", "lr"});
  for (const auto& r : res.curve) curves.row({double(r.epoch), r.train_loss, r.test_loss, r.lr});
  curves.save(stage.output("curves.csv"));
  stage.write_summary(train_summary(kind, mc, *model, res, f));
  stage.timings()["training_seconds"] = seconds;
  stage.timings()["seconds_per_epoch"] = seconds / double(res.curve.back().epoch);
}

}  // namespace potts
