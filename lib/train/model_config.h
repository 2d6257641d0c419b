// A training stage's configuration, shared by the synthetic and the protein
// training stages: the model kind ("model"), the optimiser keys
// (read_train_options), the precision, and the keys of the model kind
// ("factored": init_std_A, init_std_V; "vanilla": layers, d, ffn_width,
// head, output_projection, layernorm_eps). Errors name the file and the key.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/config.h"
#include "lib/nn/mlm_model.h"
#include "lib/nn/transformer.h"
#include "lib/train/trainer.h"

namespace potts::train {

struct ModelConfig {
  std::string kind;  // "factored" or "vanilla"
  TrainOptions train;
  nn::Precision precision = nn::Precision::kDouble;
  double init_std_A = 0, init_std_V = 0;  // factored attention's initial weights
  nn::TransformerOptions transformer;     // vanilla; L and C are the data's
};

// The kind from the config's "model" key ("factored" or "vanilla"), then
// that kind's keys; any other key is an error (Config::finish).
ModelConfig read_model_config(Config& cfg);

// The model for sequences of length L over C states, initialised from seed.
std::unique_ptr<nn::MlmModel> make_model(const ModelConfig& m, arma::uword L, arma::uword C, std::uint64_t seed);

// The vanilla transformer's shape as the training stages' summaries record
// it: layers, d, ffn_width and head.
nlohmann::json architecture_summary(const nn::TransformerOptions& t);

}  // namespace potts::train
