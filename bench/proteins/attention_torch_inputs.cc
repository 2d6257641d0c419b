// The attention stage's fit as a problem for PyTorch (attention_torch.py):
// the family's fit sequences (train then test, "fit_on": "all"), the start
// of attention_potts_start and the batches of BatchStream with the stage's
// seed, so that both programs take the same steps from the same point; in
// the AdamW reference's format (tests/reference/adamw_reference_problem.h).
//   attention_torch_inputs TRAIN.h5 TEST.h5 CONFIG.json SEED STEPS OUT
// writes OUT.json (sizes, penalty, AdamW settings, sequences, batches) and
// OUT.x0 (the start, little-endian float64 in the packing of
// attention_potts.h: b, then q, k per head, then V).
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "tests/reference/adamw_reference_problem.h"

int main(int argc, char** argv) {
  using namespace potts;
  if (argc != 7) {
    std::cerr << "usage: attention_torch_inputs TRAIN.h5 TEST.h5 CONFIG.json SEED STEPS OUT\n";
    return 2;
  }
  try {
    const std::string out = argv[6];
    const nlohmann::json cfg = nlohmann::json::parse(read_text(argv[3]));
    // An attention stage configuration (heads, head_dim, lambda, ... below)
    // fitted on every sequence, train then test.
    if (cfg.value("fit_on", "") != "all")
      throw StageError(std::string(argv[3]) + ": expected a fit on all sequences (\"fit_on\": \"all\")");
    adamw_reference::AttentionProblem p;
    p.sequences = arma::join_cols(h5_read_imatrix(argv[1], "sequences"), h5_read_imatrix(argv[2], "sequences"));
    p.seed = std::stoull(argv[4]);
    p.spec.C = 20;
    p.spec.L = p.sequences.n_cols;
    p.spec.heads = cfg.at("heads").get<arma::uword>();
    p.spec.head_dim = cfg.at("head_dim").get<arma::uword>();
    p.spec.check();
    p.penalty.lambda = cfg.at("lambda").get<double>();
    p.penalty.family_size = p.sequences.n_rows;
    p.options.steps = std::stol(argv[5]);
    p.options.batch_size = cfg.at("batch_size").get<arma::uword>();
    p.options.adamw.lr = cfg.at("lr").get<double>();
    p.options.adamw.weight_decay = 0.0;
    // The pinned code's protocol, as the stage reads it (attention_stage.h).
    p.penalty.squared = cfg.value("penalty", "unsquared") == "squared";
    p.spec.fields = cfg.value("fields", true);
    p.options.full_batches = cfg.value("full_batches", false);
    p.x0 = attention_potts_start(p.spec, p.sequences, p.penalty.lambda, p.seed);
    BatchStream stream(p.sequences.n_rows, p.options.batch_size, p.seed);
    FullBatches full(p.sequences.n_rows, p.options.batch_size, p.seed);
    for (long t = 0; t < p.options.steps; ++t)
      p.batches.push_back(p.options.full_batches ? full.next() : stream.next());
    std::ofstream(out + ".json") << adamw_reference::to_json(p, false).dump() << "\n";
    std::ofstream x(out + ".x0", std::ios::binary);
    x.write(reinterpret_cast<const char*>(p.x0.memptr()), std::streamsize(p.x0.n_elem * sizeof(double)));
    if (!x) throw StageError(out + ".x0: cannot write");
  } catch (const std::exception& e) {
    std::cerr << "attention_torch_inputs: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
