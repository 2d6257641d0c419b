// The vector exp of softmax weights (exp.cc, from vexp.h's kernels).
#pragma once
#include <armadillo>

namespace potts {

// exp(x) in place for x <= 0 (softmax weights), deterministic on every
// machine: within 2 ulp of std::exp in double (lib/linalg/vexp.h), below 5e-7
// relative (a few units in the last place) in float.
void exp_nonpositive(double* x, arma::uword n);
void exp_nonpositive(float* x, arma::uword n);

}  // namespace potts
