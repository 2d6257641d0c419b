// The generalised Potts model of paper/spec.md §1.
//
//   H(s) = - sum_{i<j} J_ij U[s_i, s_j]                         (eq. 1)
//   p(s_i = a | s_\i) = softmax_a( beta sum_{j!=i} J_ij U[a, s_j] )   (eq. 5)
//
// Sequences are rows of an arma::imat (M x L) with colours 0..C-1.
//
// Tested by //lib/potts:model_test.
#pragma once
#include <cstdint>
#include <string>

#include <armadillo>

namespace potts {

// Kinds of colour-similarity matrix U (paper/spec.md §1, a config value).
enum class ColourKind { kIdentity, kGaussian, kGram, kIdentityPlusGaussian };
ColourKind parse_colour_kind(const std::string& s);  // "identity", "gaussian", "gram", "identity_plus_gaussian"
std::string to_string(ColourKind k);

struct PottsModel {
  arma::mat couplings_J;          // L x L, symmetric, zero diagonal
  arma::mat colour_similarity_U;  // C x C, symmetric
  double beta = 1.0;              // inverse temperature

  arma::uword L() const { return couplings_J.n_rows; }
  arma::uword C() const { return colour_similarity_U.n_rows; }
};

// J with i.i.d. N(0, 1) off-diagonal entries (stream streams::kCouplings),
// U of the given kind (stream streams::kColourSimilarity). `u_scale` is the
// scale of the Gaussian part for kIdentityPlusGaussian (ignored otherwise).
PottsModel make_potts_model(arma::uword L, arma::uword C, ColourKind kind, double beta, std::uint64_t seed,
                            double u_scale = 0.0);

// Energy H(s) of eq. 1 for one sequence (a row vector of colours).
double energy(const PottsModel& m, const arma::irowvec& s);

// Local fields of eq. 5: fields(a) = beta sum_{j != i} J_ij U[a, s_j].
arma::vec local_fields(const PottsModel& m, const arma::irowvec& s, arma::uword i);

// Conditional p(s_i = . | s_\i) of eq. 5 (numerically stable softmax).
arma::vec conditional(const PottsModel& m, const arma::irowvec& s, arma::uword i);

// Optimal test loss eps* (eq. 3 with the true conditional): the mean over
// sequences (rows) and positions of -log p(s_i | s_\i).
double optimal_test_loss(const PottsModel& m, const arma::imat& sequences);

// Mean normalised pairwise Hamming distance between rows (paper/spec.md §1).
double mean_hamming_distance(const arma::imat& sequences);

// Reconstruction error of an attention map A against J (paper/spec.md §2):
//   e_rec = min_c sum_{i!=j} (J_ij - c A_ij)^2 / sum_{i!=j} J_ij^2  in [0, 1],
// reached at the least-squares scale c = <J, A> / <A, A> (sums over i != j;
// sign included; c = 0 and e_rec = 1 for A = 0, e_rec = 0 for J = 0).
struct Reconstruction {
  double scale = 0.0;  // c
  double error = 0.0;  // e_rec
};
Reconstruction reconstruct(const arma::mat& J, const arma::mat& A);
double reconstruction_error(const arma::mat& J, const arma::mat& A);

}  // namespace potts
