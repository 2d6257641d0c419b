// The attention stage's fit as a problem for PyTorch (attention_torch.py):
// the family's fit sequences (train then test, "fit_on": "all"), the start
// of attention_potts_start and the batches of BatchStream with the stage's
// seed, so that both programs take the same steps from the same point.
//   attention_torch_inputs TRAIN.h5 TEST.h5 CONFIG.json SEED STEPS OUT
// writes OUT.json (sizes, penalty, AdamW settings, sequences, batches) and
// OUT.x0 (the start, little-endian float64 in the packing of
// attention_potts.h: b, then q, k per head, then V).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/estimators/attention_potts.h"
#include "lib/optim/adamw.h"

int main(int argc, char** argv) {
  using namespace potts;
  if (argc != 7) {
    std::cerr << "usage: attention_torch_inputs TRAIN.h5 TEST.h5 CONFIG.json SEED STEPS OUT\n";
    return 2;
  }
  try {
    const std::string out = argv[6];
    const arma::imat seqs = arma::join_cols(h5_read_imatrix(argv[1], "sequences"), h5_read_imatrix(argv[2], "sequences"));
    const nlohmann::json cfg = nlohmann::json::parse(read_text(argv[3]));
    const std::uint64_t seed = std::stoull(argv[4]);
    const long steps = std::stol(argv[5]);
    if (cfg.value("fit_on", "") != "all" || cfg.value("model", "") != "attention")
      throw StageError(std::string(argv[3]) + ": expected an attention fit on all sequences");
    AttentionPottsSpec spec;
    spec.A = 20;
    spec.L = seqs.n_cols;
    spec.heads = cfg.at("heads").get<arma::uword>();
    spec.head_dim = cfg.at("head_dim").get<arma::uword>();
    spec.check();
    const double lambda = cfg.at("lambda").get<double>();
    const arma::uword batch = cfg.at("batch_size").get<arma::uword>();
    const arma::vec x0 = attention_potts_start(spec, seqs, lambda, seed);
    AdamwOptions adamw;
    nlohmann::json j;
    j["model"] = "attention";
    j["L"] = spec.L;
    j["A"] = spec.A;
    j["heads"] = spec.heads;
    j["head_dim"] = spec.head_dim;
    j["lambda"] = lambda;
    j["family_size"] = seqs.n_rows;
    j["lr"] = cfg.at("lr").get<double>();
    j["betas"] = {adamw.beta1, adamw.beta2};
    j["eps"] = adamw.eps;
    j["weight_decay"] = 0.0;
    j["steps"] = steps;
    j["sequences"] = nlohmann::json::array();
    for (arma::uword mu = 0; mu < seqs.n_rows; ++mu) {
      std::vector<int> row(seqs.n_cols);
      for (arma::uword i = 0; i < seqs.n_cols; ++i) row[i] = int(seqs(mu, i));
      j["sequences"].push_back(row);
    }
    BatchStream stream(seqs.n_rows, batch, seed);
    j["batches"] = nlohmann::json::array();
    for (long t = 0; t < steps; ++t) {
      const arma::uvec b = stream.next();
      j["batches"].push_back(std::vector<arma::uword>(b.begin(), b.end()));
    }
    std::ofstream(out + ".json") << j.dump() << "\n";
    std::ofstream x(out + ".x0", std::ios::binary);
    x.write(reinterpret_cast<const char*>(x0.memptr()), std::streamsize(x0.n_elem * sizeof(double)));
    if (!x) throw StageError(out + ".x0: cannot write");
  } catch (const std::exception& e) {
    std::cerr << "attention_torch_inputs: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
