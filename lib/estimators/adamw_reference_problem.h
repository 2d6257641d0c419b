// The problem of the PyTorch AdamW reference (adamw_reference_test, and
// bench/estimators:adamw_reference_inputs, which writes it for
// bench/estimators/adamw_reference.py): a small family of random sequences,
// a factored coupling model with fields, its seeded start and the seeded
// batches of 20 AdamW steps. One definition for both, so that the test
// notices when the fixture no longer describes the code's problem.
#pragma once
#include <vector>

#include <armadillo>
#include <nlohmann/json.hpp>

#include "lib/core/rng.h"
#include "lib/estimators/coupling_models.h"
#include "lib/optim/adamw.h"

namespace potts::adamw_reference {

struct Problem {
  CouplingSpec spec;
  arma::imat sequences;
  arma::vec x0;
  std::vector<arma::uvec> batches;
  AdamwOptions options;
  int steps = 20;
};

inline Problem make_problem() {
  Problem p;
  p.spec.form = CouplingForm::kFactored;
  p.spec.L = 8;
  p.spec.C = 5;
  p.spec.heads = 2;
  p.spec.fields = true;
  const arma::uword M = 40, batch = 16;
  const std::uint64_t seed = 5;
  Rng rng(seed, streams::kCouplings);
  p.sequences.set_size(M, p.spec.L);
  for (arma::uword mu = 0; mu < M; ++mu)
    for (arma::uword i = 0; i < p.spec.L; ++i) p.sequences(mu, i) = arma::sword(rng.below(p.spec.C));
  CouplingInit init;
  init.std_couplings = 0.3;
  init.std_values = 0.3;
  p.x0 = coupling_initial_point(p.spec, init, p.sequences, arma::vec(M, arma::fill::ones), seed, 0);
  BatchStream stream(M, batch, seed);
  for (int t = 0; t < p.steps; ++t) p.batches.push_back(stream.next());
  p.options.lr = 5e-3;  // the observation's learning rate
  p.options.weight_decay = 1e-2;  // PyTorch's default, so that the decay is exercised
  return p;
}

inline nlohmann::json to_json(const Problem& p) {
  nlohmann::json j;
  j["L"] = p.spec.L;
  j["C"] = p.spec.C;
  j["heads"] = p.spec.heads;
  j["lr"] = p.options.lr;
  j["weight_decay"] = p.options.weight_decay;
  j["betas"] = {p.options.beta1, p.options.beta2};
  j["eps"] = p.options.eps;
  j["steps"] = p.steps;
  j["sequences"] = nlohmann::json::array();
  for (arma::uword mu = 0; mu < p.sequences.n_rows; ++mu) {
    std::vector<int> row;
    for (arma::uword i = 0; i < p.sequences.n_cols; ++i) row.push_back(int(p.sequences(mu, i)));
    j["sequences"].push_back(row);
  }
  j["x0"] = std::vector<double>(p.x0.begin(), p.x0.end());
  j["batches"] = nlohmann::json::array();
  for (const auto& b : p.batches) j["batches"].push_back(std::vector<arma::uword>(b.begin(), b.end()));
  return j;
}

}  // namespace potts::adamw_reference
