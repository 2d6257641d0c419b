// How well an attention map scores coupling strength (paper/spec.md §2.3):
// the Pearson correlation, over the pairs i < j, of the symmetrised map's
// magnitude |(M_ij + M_ji)/2| with |J_ij|. Contact prediction ranks pairs
// by such a score; unlike e_rec (a least-squares fit of the signed J), it is
// defined for the positive maps of softmax attention as well as for the
// signed A of factored attention, whose sign is a gauge (A V = (−A)(−V)).
//
// Tested by //lib/potts:strength_test.
#pragma once
#include <armadillo>

namespace potts {

// Throws StageError for maps of different shapes, fewer than 3 sites, or a
// constant score or |J| (no correlation defined).
double strength_correlation(const arma::mat& J, const arma::mat& map);

}  // namespace potts
