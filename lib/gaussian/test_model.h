// A small Gaussian model for tests (paper/spec.md §4): the Δ = 3 GOE
// precision of L sites drawn with `seed`, its teacher for `masked`, the
// sampling factor and the indices of the other D = L − 1 sites.
#pragma once
#include <cstdint>

#include <armadillo>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"

namespace potts::gaussian::test_support {

struct TestModel {
  MaskedTeacher teacher;
  arma::mat factor_C;
  arma::uvec rest;  // the features' sites, in order
};

inline TestModel test_model(arma::uword L, arma::uword masked, std::uint64_t seed) {
  Rng rng(seed, streams::kGaussianTeacher);
  const arma::mat P = precision_matrix(goe_couplings(int(L), rng), 3.0);
  TestModel m{masked_teacher(P, masked), sampling_factor(covariance_matrix(P)), arma::uvec(L - 1)};
  for (arma::uword k = 0, r = 0; k < L; ++k)
    if (k != masked) m.rest(r++) = k;
  return m;
}

}  // namespace potts::gaussian::test_support
