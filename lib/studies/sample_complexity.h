// Sample complexity of factored attention on Potts data (paper/spec.md §6,
// figure 3 right): for a training-set size M, draw M distinct sequences of
// the training pool at random, fit factored attention with an L2 penalty by
// L-BFGS (lib/factored/factored_fit.h) from a fresh initialisation, and record the
// test loss eq. 3 on the full test set. alpha = M / L (a choice,
// paper/spec.md §6).
//
// Random streams depend only on (seed, M, realisation r), never on how the
// grid is cut into Bazel actions:
//   subset:          Rng(seed, streams::kSubsets + (r << 16) + (M << 32))
//   initialisation:  realisation_init_seed(seed, M, r) (+ restart index)
//
// Tested by //lib/studies:sample_complexity_test; claim 5, //stages/potts_alpha:potts_alpha_science_test.
#pragma once
#include <cstdint>
#include <string>

#include <armadillo>
#include <nlohmann/json.hpp>

#include "lib/core/config.h"
#include "lib/nn/mlm_model.h"
#include "lib/factored/factored_fit.h"

namespace potts {

// M distinct indices of 0..pool-1 (partial Fisher-Yates with Rng::below), sorted.
arma::uvec random_subset(arma::uword pool, arma::uword M, std::uint64_t seed, std::uint64_t stream);

std::uint64_t realisation_init_seed(std::uint64_t seed, std::uint64_t M, std::uint64_t r);

struct RealisationResult {
  arma::uword M = 0, r = 0;
  double test_loss = 0.0, train_loss = 0.0, objective = 0.0, reconstruction_error = 0.0;
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0;
  double gradient_norm = 0.0;
};

// One realisation. `couplings_J` is used only to REPORT e_rec of the fit.
RealisationResult run_realisation(const arma::imat& train_pool, const nn::SequenceSet& test, arma::uword C,
                                  const arma::mat& couplings_J, arma::uword M, arma::uword r,
                                  const FactoredFitOptions& o, std::uint64_t seed);

// Realisations per M of a plan (its summary.json): the list
// "realisations_by_M" (one count per M of "M_grid") when present, else
// "realisations" for every M. Throws StageError naming the plan when the
// list's length differs from the grid's.
std::vector<arma::uword> realisations_per_M(Config& plan, std::size_t grid_size);

// Reads the estimator from a config section (keys: lambda, init, init_std_A,
// init_std_V, restarts, plm_lambda, max_iterations, gradient_tolerance,
// relative_decrease, memory) and back to JSON (for plans and summaries).
// With `lambda_by_validation` the key lambda is not read (and so rejected by
// Config::finish): lambda is NaN until a validation chooses it.
FactoredFitOptions read_factored_fit_options(Config& c, bool lambda_by_validation = false);
nlohmann::json factored_fit_options_json(const FactoredFitOptions& o);
FactoredFitOptions factored_fit_options_from_json(const nlohmann::json& j);

}  // namespace potts
