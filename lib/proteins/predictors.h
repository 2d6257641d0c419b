// Contact predictors on a protein family (paper/spec.md §9): how each model
// turns into a symmetric L x L score matrix over alignment columns, before
// the average product correction (contacts.h).
//
//  * Factored attention (eq. 4) has the pairwise couplings
//    W_ij(a, b) = A_ij V(a, b); its score is that of any coupling model,
//    frobenius_scores (contacts.h).
//  * A vanilla transformer's score is its attention map symmetrised,
//    (M + Mᵀ)/2; every layer's map is available (vanilla_layer_maps).
//  * freecontact's EVfold and PSICOV outputs are read as they are
//    (already corrected by their own APC).
//
// Tested by //lib/proteins:predictors_test.
#pragma once
#include <string>
#include <vector>

#include <armadillo>

#include "lib/nn/mlm_model.h"
#include "lib/nn/transformer.h"

namespace potts::proteins {

// W (L q x L q), W[i q + a, j q + b] = A_ij V(a, b); zero diagonal blocks.
arma::mat factored_couplings(const arma::mat& A, const arma::mat& V);

// (M + Mᵀ)/2 with a zero diagonal.
arma::mat symmetrised(const arma::mat& M);

// The attention map of every layer of `model` on `test`, layer 1 first:
// row i is the attention of masked position i over the L positions,
// averaged over the test sequences. evaluate() reports one layer's map (one
// layer) or the mean of the last two (paper/spec.md §2); layer k's map is
// found exactly from the model truncated after layer k, whose last layer
// sees the same inputs: P_1 = map(1), P_k = 2 map(k) − P_(k−1).
std::vector<arma::mat> vanilla_layer_maps(const nn::VanillaTransformer& model, const nn::SequenceSet& test);

// freecontact's output (format "evfold": `i a j b MI CN`, scored by CN;
// "psicov": `i j 0 8 score`), columns numbered 1..L as in the flat
// alignment it read, as a symmetric L x L matrix. Pairs it does not list
// score below every listed one. Errors name `origin` and the line.
arma::mat parse_freecontact(const std::string& text, const std::string& origin, arma::uword L,
                            const std::string& format);

}  // namespace potts::proteins
