// The problems of the PyTorch AdamW reference (adamw_reference_test, and
// bench/estimators:adamw_reference_inputs, which writes them for
// tests/reference/adamw_reference.py): small families of random sequences,
// each with a model, its seeded start and the seeded batches of 20 AdamW
// steps. (1) A factored coupling model with fields (eq. 4), weight decay on;
// (2) the observation's factored attention (attention_potts.h, eq. O1) with
// pads and its penalty, fitted by fit_attention_potts as the stage fits it.
// One definition for both sides, so that the test notices when a fixture
// no longer describes the code's problem.
#pragma once
#include <vector>

#include <armadillo>
#include <nlohmann/json.hpp>

#include "lib/core/rng.h"
#include "lib/attention_potts/attention_potts.h"
#include "lib/couplings/coupling_models.h"
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
  p.options.lr = 5e-3;            // the observation's learning rate
  p.options.weight_decay = 1e-2;  // PyTorch's default, so that the decay is exercised
  return p;
}

// The parts both problems share: AdamW's settings, the steps, the family,
// the start (unless `with_start` is false: a large start is written apart,
// as bench/proteins:attention_torch_inputs does) and the batches.
inline void add_run(nlohmann::json& j, const AdamwOptions& o, long steps, const arma::imat& sequences,
                    const arma::vec& x0, const std::vector<arma::uvec>& batches, bool with_start = true) {
  j["lr"] = o.lr;
  j["weight_decay"] = o.weight_decay;
  j["betas"] = {o.beta1, o.beta2};
  j["eps"] = o.eps;
  j["steps"] = steps;
  j["sequences"] = nlohmann::json::array();
  for (arma::uword mu = 0; mu < sequences.n_rows; ++mu) {
    std::vector<int> row;
    for (arma::uword i = 0; i < sequences.n_cols; ++i) row.push_back(int(sequences(mu, i)));
    j["sequences"].push_back(row);
  }
  if (with_start) j["x0"] = std::vector<double>(x0.begin(), x0.end());
  j["batches"] = nlohmann::json::array();
  for (const auto& b : batches) j["batches"].push_back(std::vector<arma::uword>(b.begin(), b.end()));
}

inline nlohmann::json to_json(const Problem& p) {
  nlohmann::json j;
  j["L"] = p.spec.L;
  j["C"] = p.spec.C;
  j["heads"] = p.spec.heads;
  add_run(j, p.options, p.steps, p.sequences, p.x0, p.batches);
  return j;
}

// The observation's factored attention on a family with pads (state A),
// its start (attention_potts_start) and the batches fit_attention_potts
// draws with the same seed; AdamW as the observation runs it (weight decay 0).
struct AttentionProblem {
  AttentionPottsSpec spec;
  AttentionPottsPenalty penalty;
  arma::imat sequences;
  arma::vec x0;
  std::vector<arma::uvec> batches;
  AttentionPottsFitOptions options;
  std::uint64_t seed = 7;
};

inline AttentionProblem make_attention_problem() {
  AttentionProblem p;
  p.spec.L = 7;
  p.spec.C = 4;
  p.spec.heads = 2;
  p.spec.head_dim = 3;
  const arma::uword M = 40;
  // lambda large enough that the penalty moves the losses by more than the
  // tolerance (with the observation's 1e-3 it would hardly show at L = 7).
  p.penalty.lambda = 0.5;
  p.penalty.family_size = M;
  Rng rng(p.seed, streams::kCouplings);
  p.sequences.set_size(M, p.spec.L);
  for (arma::uword mu = 0; mu < M; ++mu)
    for (arma::uword i = 0; i < p.spec.L; ++i)  // about one state in six a pad
      p.sequences(mu, i) = arma::sword(rng.uniform() < 0.15 ? p.spec.C : rng.below(p.spec.C));
  p.x0 = attention_potts_start(p.spec, p.sequences, p.penalty.lambda, p.seed);
  p.options.steps = 20;
  p.options.batch_size = 16;
  p.options.adamw.lr = 5e-3;  // the observation's
  p.options.adamw.weight_decay = 0.0;
  BatchStream stream(M, p.options.batch_size, p.seed);
  for (long t = 0; t < p.options.steps; ++t) p.batches.push_back(stream.next());
  return p;
}

// The same problem under the pinned code's objective (eq. O1s), without
// fields and with full batches, as the panel runs it.
inline AttentionProblem make_pinned_attention_problem() {
  AttentionProblem p = make_attention_problem();
  p.penalty.squared = true;
  p.spec.fields = false;
  p.options.full_batches = true;
  p.x0 = attention_potts_start(p.spec, p.sequences, p.penalty.lambda, p.seed);
  FullBatches stream(p.sequences.n_rows, p.options.batch_size, p.seed);
  p.batches.clear();
  for (long t = 0; t < p.options.steps; ++t) p.batches.push_back(stream.next());
  return p;
}

inline nlohmann::json to_json(const AttentionProblem& p, bool with_start = true) {
  nlohmann::json j;
  j["model"] = "attention";
  j["L"] = p.spec.L;
  j["A"] = p.spec.C;
  j["heads"] = p.spec.heads;
  j["head_dim"] = p.spec.head_dim;
  j["lambda"] = p.penalty.lambda;
  j["family_size"] = p.penalty.family_size;
  if (p.penalty.squared || !p.spec.fields) {  // the pinned code's objective (eq. O1s)
    j["objective"] = p.penalty.squared ? "O1s" : "O1";
    j["fields"] = p.spec.fields;
  }
  add_run(j, p.options.adamw, p.options.steps, p.sequences, p.x0, p.batches, with_start);
  return j;
}

}  // namespace potts::adamw_reference
