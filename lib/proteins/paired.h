// A paired standard error for the difference in top-k precision of two
// contact predictors scored against the same contacts. Their top-k lists
// share most pairs and all of the truth, so the binomial errors of two
// independent precisions overstate the error of their difference. The
// delete-one-residue jackknife resamples what both rest on, the residues:
// drop every pair that involves column r, rank both predictors again over
// the rest (k_r = floor(fraction (L - 1))), and take the differences d_r;
//
//   s.e.²_jack = (L − 1)/L · Σ_r (d_r − mean_r d_r)²
//
// (Efron and Stein 1981). With several fits (seeds) of a predictor, each
// precision is the mean over its fits, so that d_r is the mean difference,
// and the fits' own spread adds: s.e.² = s.e.²_jack + var_A/n_A + var_B/n_B
// (the sample variances of the full-data precisions over each predictor's
// fits; zero for a single fit).
//
// Tested by //lib/proteins:paired_test (against a brute-force recount on
// reduced matrices; constructed cases with known answers).
#pragma once
#include <set>
#include <utility>
#include <vector>

#include <armadillo>

namespace potts::proteins {

struct PairedDifference {
  double difference = 0.0;            // mean precision of A minus that of B, all columns
  double jackknife_se = 0.0;          // over residues
  double seeds_se = 0.0;              // sqrt(var_A / n_A + var_B / n_B)
  double standard_error = 0.0;        // sqrt(jackknife_se² + seeds_se²)
  std::vector<double> leave_one_out;  // d_r, r = 0..L-1
};

// Scores: L x L matrices over alignment columns (upper triangle used),
// `numbers` the columns' residue numbers, `truth` pairs of residue numbers
// (i < j), k = floor(fraction L) (floor(fraction (L − 1)) without a residue)
// over pairs with |numbers[a] − numbers[b]| ≥ min_separation. Throws
// std::invalid_argument when a list is empty or a matrix has the wrong size.
PairedDifference paired_precision_difference(const std::vector<arma::mat>& a, const std::vector<arma::mat>& b,
                                             const std::vector<int>& numbers,
                                             const std::set<std::pair<int, int>>& truth, double fraction,
                                             int min_separation);

}  // namespace potts::proteins
