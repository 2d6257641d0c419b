// Synthetic Potts data for the training tests (independent of the sample
// stage): a plain single-chain Gibbs sampler, cyclic sweeps from eq. 5.
#pragma once
#include <cmath>

#include "lib/core/rng.h"
#include "lib/nn/mlm_model.h"
#include "lib/potts/model.h"

namespace potts {
namespace testing {

// M sequences from one chain: `burn_in` sweeps, then one saved every
// `spacing` sweeps. Uses Rng(seed, 77).
inline nn::SequenceSet gibbs_sequences(const PottsModel& m, arma::uword M, int spacing, int burn_in,
                                       std::uint64_t seed) {
  Rng rng(seed, 77);
  const arma::uword L = m.L(), C = m.C();
  arma::irowvec s(L);
  for (arma::uword i = 0; i < L; ++i) s(i) = arma::sword(rng.below(C));
  auto sweep = [&] {
    for (arma::uword i = 0; i < L; ++i) {
      arma::vec p = conditional(m, s, i);
      double u = rng.uniform(), c = 0.0;
      arma::uword a = 0;
      for (; a + 1 < C; ++a) {
        c += p(a);
        if (u < c) break;
      }
      s(i) = arma::sword(a);
    }
  };
  for (int t = 0; t < burn_in; ++t) sweep();
  nn::SequenceSet out;
  out.M = M;
  out.L = L;
  out.s.resize(M * L);
  for (arma::uword mu = 0; mu < M; ++mu) {
    for (int t = 0; t < spacing; ++t) sweep();
    for (arma::uword i = 0; i < L; ++i) out.s[mu * L + i] = int(s(i));
  }
  return out;
}

}  // namespace testing
}  // namespace potts
