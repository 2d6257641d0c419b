// Factored self-attention (eq. 4, lib/nn) trained full batch by L-BFGS with
// an L2 penalty: the estimator of figure 3 right (paper/spec.md §6) and of
// the diversity study.
//
//   objective(A, V) = (1 / (M L)) sum_mu sum_i -log p_theta(s_i^mu | s_\i^mu)
//                     + lambda (sum_{i != j} A_ij^2 + sum_{a,b} V_ab^2)
//
// The data term is the test loss eq. 3 on the training set, i.e. the
// pseudo-likelihood (paper/spec.md §2). A·V is bilinear, so the objective is
// not convex: the fit is run from `restarts` initialisations and the one with
// the lowest final TRAINING objective is kept (J is never used to choose).
//
// Initialisation (choice, documented in the config):
//   "random": A_ij ~ N(0, init_std_A^2) off the diagonal, V_ab ~ N(0, init_std_V^2),
//             from Rng(seed + restart, streams::kInit) (lib/nn FactoredAttention::initialise).
//   "plm":    data-only start from the full pseudo-likelihood model: the convex
//             fit W_ij(a, b) (lib/plm/pseudo_likelihood.h) is reshaped into an (L L) x (C C) matrix
//             and split by its leading singular pair, A = sqrt(s) u, V = sqrt(s) v
//             (sign fixed so that the trace of V is non-negative); restarts
//             beyond the first use "random".
//
// Tested by //lib/factored:factored_fit_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/nn/mlm_model.h"
#include "lib/optim/lbfgs.h"
#include "lib/plm/pseudo_likelihood.h"

namespace potts {

struct FactoredFitOptions {
  double lambda = 1e-4;         // L2 penalty on A (off-diagonal) and V
  std::string init = "random";  // "random" or "plm"
  double init_std_A = 0.1;
  double init_std_V = 1.0;
  int restarts = 1;          // ranked by training objective
  double plm_lambda = 1e-4;  // penalty of the full model for init "plm" (lambda_h = lambda_W)
  LbfgsOptions lbfgs;
};

struct FactoredRestart {
  double objective = 0.0;   // final training objective (data term + penalty)
  double train_loss = 0.0;  // data term only
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  int iterations = 0;
  double gradient_norm = 0.0;
};

struct FactoredFit {
  arma::mat A;  // L x L, zero diagonal
  arma::mat V;  // C x C
  double objective = 0.0, train_loss = 0.0;
  LbfgsResult optimiser;  // of the kept restart
  int best_restart = 0;
  std::vector<FactoredRestart> restarts;
};

// Objective above and its gradient w.r.t. (A column-major, then V
// column-major), the packing of lib/nn (A's diagonal gets zero gradient).
double factored_objective(const arma::mat& A, const arma::mat& V, const nn::SequenceSet& data, arma::uword C,
                          double lambda, arma::vec* grad);

// Test loss eq. 3 of (A, V) on `data` (no penalty).
double factored_test_loss(const arma::mat& A, const arma::mat& V, const nn::SequenceSet& data, arma::uword C);

// Initial (A, V) of restart r (see above). `plm_start` is the full
// pseudo-likelihood fit, required for init "plm".
void factored_initial_point(arma::mat& A, arma::mat& V, arma::uword L, arma::uword C, const FactoredFitOptions& o,
                            std::uint64_t seed, int restart, const PlmModel* plm_start);

// Leading-singular-pair split of a full pseudo-likelihood model into (A, V).
void split_plm_into_factored(const PlmModel& m, arma::mat& A, arma::mat& V);

// One L-BFGS fit from a given start (A0, V0); restarts and init are ignored.
FactoredFit fit_factored_attention_from(const nn::SequenceSet& train, arma::uword C, const arma::mat& A0,
                                        const arma::mat& V0, const FactoredFitOptions& o);

// Fits from every restart and keeps the best training objective. Throws
// StageError (naming the restart) on non-finite values.
FactoredFit fit_factored_attention(const nn::SequenceSet& train, arma::uword C, const FactoredFitOptions& o,
                                   std::uint64_t seed);

}  // namespace potts
