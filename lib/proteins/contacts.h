// Scoring predicted contacts against a structure (paper/spec.md §9).
//
// A predictor gives a symmetric L x L score matrix over alignment columns.
// The average product correction (APC) removes the part of each score that
// follows from its row and column averages: S_ij − S_i· S_·j / S_·· (means
// over off-diagonal entries). Precision at top k: the fraction of true
// contacts among the k highest-scoring pairs with |i − j| ≥ min_separation
// (residue numbers; ties broken by the pair's position, i then j).
//
// Tested by //lib/proteins:contacts_test.
#pragma once
#include <set>
#include <utility>
#include <vector>

#include <armadillo>

namespace potts::proteins {

arma::mat apc(const arma::mat& scores);

// Coupling strength of each pair of columns, for a model with pairwise
// couplings W (L q x L q, W[i q + a, j q + b] = W_ij(a, b), as the
// pseudo-likelihood fit stores them): the Frobenius norm of each block in
// the zero-sum gauge (row and column means removed, which the model's
// fields absorb), over the amino-acid states only when `exclude_gap` (the
// gap state is q − 1), symmetrised as (F_ij + F_ji)/2; zero diagonal.
arma::mat frobenius_scores(const arma::mat& couplings_W, arma::uword q, bool exclude_gap = true);

// Pairs (column a, column b), a < b, with |numbers[a] − numbers[b]| ≥
// min_separation, by decreasing score.
std::vector<std::pair<arma::uword, arma::uword>> ranked_pairs(const arma::mat& scores, const std::vector<int>& numbers,
                                                              int min_separation);

// Precision at top k of `scores` (columns numbered by `numbers`) against
// `truth`, pairs of residue numbers (i < j).
double precision_at(const arma::mat& scores, const std::vector<int>& numbers,
                    const std::set<std::pair<int, int>>& truth, std::size_t k, int min_separation);

}  // namespace potts::proteins
