#include "lib/linalg/exp.h"

#include <cstdint>
#include <cstring>

#include "lib/core/isa.h"
#include "lib/linalg/vexp.h"

namespace potts {

// exp(x) for x <= 0, in place over an array (softmax weights after the
// maximum is subtracted): simd::exp4 of lib/linalg/vexp.h, the same bits on
// every x86-64 machine (libm's exp dispatches on the CPU) and at every level.
// x < -708 is clamped to -708 (a weight of 1e-308 next to the maximum's 1,
// i.e. zero for every purpose here).
POTTS_ISA_CLONED void exp_nonpositive(double* x, arma::uword n) { simd::exp_in_place(x, n); }

// The float version: x = k ln2 + r with |r| <= ln2/2, exp(r) by its Taylor
// series to r^7 (truncation below 6e-9 relative, under half a float ulp),
// times 2^k built in the exponent bits; x clamped at -87 (2^-126, the
// smallest normal float).
POTTS_ISA_CLONED void exp_nonpositive(float* x, arma::uword n) {
  const float log2e = 1.44269504f, ln2_hi = 0.693145751953125f, ln2_lo = 1.42860676533018704e-6f;
  const float shifter = 12582912.0f;  // 1.5 * 2^23
  for (arma::uword k = 0; k < n; ++k) {
    const float xc = x[k] < -87.0f ? -87.0f : x[k];
    const float t = xc * log2e + shifter;
    const float kf = t - shifter;
    const float r = (xc - kf * ln2_hi) - kf * ln2_lo;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    bits = (bits + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    x[k] = p * scale;
  }
}

}  // namespace potts
