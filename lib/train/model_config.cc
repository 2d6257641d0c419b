#include "lib/train/model_config.h"

#include "lib/nn/factored_attention.h"

namespace potts::train {

ModelConfig read_model_config(Config& cfg) {
  ModelConfig m;
  m.kind = cfg.choice("model", {"factored", "vanilla"});
  const std::string& kind = m.kind;
  m.train = read_train_options(cfg);
  m.precision = read_precision(cfg);
  if (kind == "factored") {
    m.init_std_A = cfg.number("init_std_A", 0.0, 100.0);
    m.init_std_V = cfg.number("init_std_V", 0.0, 100.0);
  } else {
    nn::TransformerOptions& t = m.transformer;
    t.layers = cfg.integer("layers", 1, 100);
    t.d = cfg.integer("d", 1, 10000);
    t.ffn_width = cfg.integer("ffn_width", 1, 100000);
    t.head = cfg.choice("head", {"linear", "tutorial"});
    t.output_projection = cfg.boolean("output_projection");
    t.layernorm_eps = cfg.number_open("layernorm_eps", 0.0, 1.0);
  }
  cfg.finish();
  return m;
}

std::unique_ptr<nn::MlmModel> make_model(const ModelConfig& m, arma::uword L, arma::uword C, std::uint64_t seed) {
  if (m.kind == "factored") {
    auto fa = std::make_unique<nn::FactoredAttention>(L, C, m.precision);
    fa->initialise(m.init_std_A, m.init_std_V, seed);
    return fa;
  }
  nn::TransformerOptions t = m.transformer;
  t.L = L;
  t.C = C;
  auto tr = std::make_unique<nn::VanillaTransformer>(t, m.precision);
  tr->initialise(seed);
  return tr;
}

nlohmann::json architecture_summary(const nn::TransformerOptions& t) {
  return {{"layers", t.layers}, {"d", t.d}, {"ffn_width", t.ffn_width}, {"head", t.head}};
}

}  // namespace potts::train
