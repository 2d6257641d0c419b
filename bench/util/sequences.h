// The benchmarks' data: M sequences of length L over C colours.
#pragma once
#include <armadillo>

#include "lib/core/rng.h"
#include "lib/nn/mlm_model.h"

namespace potts::bench {

// Every colour drawn uniformly by Rng(seed, 5), sequence after sequence.
inline nn::SequenceSet uniform_sequences(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed) {
  Rng rng(seed, 5);
  nn::SequenceSet s;
  s.M = M;
  s.L = L;
  s.s.resize(M * L);
  for (auto& x : s.s) x = int(rng.below(C));
  return s;
}

}  // namespace potts::bench
