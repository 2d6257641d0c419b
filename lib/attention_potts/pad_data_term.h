// The pseudo-likelihood data term of a Potts model over C states whose
// couplings are given as symmetric pair blocks, with pads: a state >= C is a
// zero input and no target (the observation's convention for the gap).
//
//   CE = sum_{mu, i: s_i < C} -log softmax_a(b_i(a) + sum_{j != i, s_j < C} W_ij(a, s_j))[s_i]
//
// W_ij for i < j is the block Ws_p (C x C, column-major in (a, b): a the
// state at i, b at j) of pair p, in the order (0,1), (0,2), ..., (L-2, L-1);
// W_ji = W_ij^T. Sums run in a fixed order (the logits of site i over j
// ascending; each block's gradient over the batch in order, then its
// transposed share) and threads split outputs, never sums: the same bits at
// any thread count.
//
// Used by attention_potts.h (eq. O1) and coupling_pad.h (the full model).
// Tested through both, against direct evaluations and central differences,
// and by pad_data_term_test: bit for bit against a direct evaluation in the
// stated order, at every instruction-set level (tools/isa.bzl).
#pragma once
#include <vector>

#include <armadillo>

namespace potts {

struct PadDataWorkspace {
  arma::mat blocks_t;  // each block transposed (made by the first form below)
  arma::mat logits;    // C x (L B), column i + L n: logits, then residuals
  std::vector<double> seq_loss;
  std::vector<arma::uword> seq_targets;
};

// Pair index of (i, j), i < j.
inline arma::uword pair_index(arma::uword i, arma::uword j, arma::uword L) {
  return i * L - i * (i + 1) / 2 + j - i - 1;
}

// CE above for `batch` (B x L) with fields b (C x L, column-major); *targets
// gets the number of non-pad targets. If dblocks is not null: dblocks
// (C^2 x P) = scale dCE/dWs and db (C x L) = scale dCE/db.
double pad_data_term(arma::uword L, arma::uword C, const arma::mat& blocks, const double* b, const arma::imat& batch,
                     double scale, PadDataWorkspace& work, arma::uword* targets, arma::mat* dblocks, double* db);

// The same, with each block already transposed by the caller in blocks_t
// (C^2 x P: blocks_t(c + C a, p) = blocks(a + C c, p)), e.g. while forming
// the blocks.
double pad_data_term(arma::uword L, arma::uword C, const arma::mat& blocks, const arma::mat& blocks_t, const double* b,
                     const arma::imat& batch, double scale, PadDataWorkspace& work, arma::uword* targets,
                     arma::mat* dblocks, double* db);

// ||Ws_p||_F of each pair's block (L x L, symmetric, zero diagonal): the
// observation's contact score before APC (both ordered blocks of the
// symmetric W have this norm).
arma::mat pair_block_norms(arma::uword L, arma::uword C, const arma::mat& blocks);

}  // namespace potts
