// The full pseudo-likelihood model of Potts statistics (plmDCA: Ekeberg,
// Lovkvist, Lan, Weigt, Aurell, Phys. Rev. E 87, 012707 (2013)), the baseline
// of the diversity study (paper/spec.md §7).
//
// Fields h_i(a) and couplings W_ij(a, b) for every ordered pair of sites
// i != j and colours a, b:
//
//   p(s_i = a | s_\i) = softmax_a( h_i(a) + sum_{j != i} W_ij(a, s_j) )
//
// Choice (symmetric model): W_ji(b, a) = W_ij(a, b), as in the Potts energy;
// the free parameters are h (C x L) and the blocks W_ij for i < j. With
// W_ij(a, b) = beta J_ij U[a, b] and h = 0 this is eq. 5 exactly.
//
// Objective (same normalisation as the test loss eq. 3), on M sequences:
//
//   loss = (1 / (M L)) sum_mu sum_i -log p(s_i^mu | s_\i^mu)
//          + lambda_W sum_{i != j} ||W_ij||_F^2 + lambda_h sum_i ||h_i||^2
//
// (the coupling penalty runs over ordered pairs, i.e. the Frobenius norm of
// the full LC x LC coupling matrix). It is convex; trained by full-batch
// L-BFGS from zero.
//
// e_rec of the full model (diversity study): each block is projected onto U,
// A_ij = <W_ij, U> / <U, U>, and A is scored by reconstruction_error.
//
// Tested by //lib/plm:pseudo_likelihood_test.
#pragma once
#include <armadillo>

#include "lib/optim/lbfgs.h"
#include "lib/potts/model.h"

namespace potts {

struct PlmModel {
  arma::uword L = 0, C = 0;
  arma::mat fields_h;     // C x L, column i = h_i
  arma::mat couplings_W;  // (L C) x (L C), W[i C + a, j C + b] = W_ij(a, b);
                          // symmetric, diagonal blocks zero

  // Free parameters: L C fields + L (L - 1) / 2 blocks of C x C.
  arma::uword parameter_count() const { return L * C + L * (L - 1) / 2 * C * C; }
};

PlmModel make_plm_model(arma::uword L, arma::uword C);  // all zero
// The model equal to eq. 5: W_ij(a, b) = beta J_ij U[a, b], h = 0.
PlmModel plm_from_potts(const PottsModel& m);

// Free parameters <-> flat vector: h column-major, then the blocks W_ij
// (i < j, i outer) each column-major in (a, b).
arma::vec pack_plm(const PlmModel& m);
PlmModel unpack_plm(const arma::vec& x, arma::uword L, arma::uword C);

struct PlmPenalty {
  double lambda_h = 0.0;
  double lambda_W = 0.0;
};

// Objective above on `sequences` (M x L, colours 0..C-1); if grad is not
// null, writes the gradient w.r.t. the packed parameters.
double plm_objective(const PlmModel& m, const arma::imat& sequences, const PlmPenalty& penalty, arma::vec* grad);

// Test loss eq. 3 of the model (no penalty).
double plm_test_loss(const PlmModel& m, const arma::imat& sequences);

// Conditionals p(s_i = . | s_\i) for all i of one sequence (C x L).
arma::mat plm_conditionals(const PlmModel& m, const arma::irowvec& s);

// A_ij = <W_ij, U> / <U, U> (L x L, zero diagonal).
arma::mat project_couplings_onto(const PlmModel& m, const arma::mat& colour_similarity_U);
// Gauge-invariant variant: both W_ij and U double-centred (zero-sum gauge,
// P X P with P = I - 11^T / C) before projecting; field-like gauge terms
// u(a) + v(b) of W_ij drop out.
arma::mat project_couplings_onto_zero_sum(const PlmModel& m, const arma::mat& colour_similarity_U);

struct PlmFit {
  PlmModel model;
  LbfgsResult optimiser;    // x = packed parameters, status, iterations
  double train_loss = 0.0;  // data term only (no penalty)
};

// Minimises the objective by L-BFGS from zero. Throws StageError on
// non-finite values or bad colours.
PlmFit fit_plm(const arma::imat& train, arma::uword C, const PlmPenalty& penalty, const LbfgsOptions& options);

}  // namespace potts
