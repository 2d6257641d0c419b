// The pseudo-likelihood model (plmDCA's form) on the observation's data
// conventions: 20 amino-acid states, the gap a pad (a zero input and no
// target; pad_data_term.h), every sequence counted once. Parameters x =
// (b: C x L fields, column-major; Ws: C^2 x P symmetric pair blocks, pair
// order of pad_data_term.h), objective
//
//   CE / (L M) + lambda_h ||b||^2 + lambda_c ||W||^2,   ||W||^2 = 2 sum_p ||Ws_p||^2    (eq. O2)
//
// over M sequences: the project's PLM objective (pseudo_likelihood.h) with
// unit weights and the gap as a pad. Fitted from zero by lib/optim's lean
// L-BFGS; the same bits at any thread count.
//
// Tested by //lib/plm:coupling_pad_test.
#pragma once
#include <armadillo>

#include "lib/attention_potts/pad_data_term.h"
#include "lib/optim/lbfgs.h"

namespace potts {

struct PadPlmPenalty {
  double lambda_h = 0.0, lambda_c = 0.0;
};

inline arma::uword pad_plm_parameter_count(arma::uword L, arma::uword C) { return C * L + C * C * (L * (L - 1) / 2); }

// Eq. O2 of `sequences` (M x L, states >= C are pads) and, if grad is not
// null, its gradient.
double pad_plm_objective(arma::uword L, arma::uword C, const arma::vec& x, const arma::imat& sequences,
                         const PadPlmPenalty& penalty, arma::vec* grad, PadDataWorkspace& work);

// The mean cross-entropy per non-pad target (no penalty).
double pad_plm_mean_loss(arma::uword L, arma::uword C, const arma::vec& x, const arma::imat& sequences);

// ||W_ij||_F of each pair's block (L x L, symmetric, zero diagonal): the
// observation's score before APC.
arma::mat pad_plm_block_norms(arma::uword L, arma::uword C, const arma::vec& x);

// The fit from x = 0. Throws StageError if an objective is not finite.
LbfgsResult fit_pad_plm(arma::uword L, arma::uword C, const arma::imat& sequences, const PadPlmPenalty& penalty,
                        const LbfgsOptions& options);

}  // namespace potts
