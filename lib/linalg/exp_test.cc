// exp_nonpositive (lib/linalg/exp.h) at the level this build runs: in double
// the bits of simd::exp1 (within 2 ulp of std::exp: vexp_test) at every
// position of the array (vector body and tail alike); in float within 5e-7
// relative of std::exp over 10^5 points down to the clamp at -87, and one
// value whatever its position. Run at every level by tools/isa.bzl.
#include "lib/linalg/exp.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "lib/core/isa.h"
#include "lib/linalg/vexp.h"

namespace potts {
namespace {

// From below the clamp to 0, and the smallest magnitudes (for double the
// subnormal -5e-324).
template <class T>
std::vector<T> grid() {
  std::vector<T> x;
  for (double v = -750.0; v <= 0.0; v += 0.7071) x.push_back(T(v));
  x.push_back(T(0));
  x.push_back(T(-1e-30));
  x.push_back(T(-1e-300));
  x.push_back(T(-5e-324));
  return x;
}

TEST(ExpNonpositive, DoubleIsExp1AtEveryPosition) {
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level";
  const std::vector<double> x = grid<double>();
  for (std::size_t shift = 0; shift < 5; ++shift) {
    std::vector<double> y(x.begin() + shift, x.end());
    exp_nonpositive(y.data(), y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double want = simd::exp1(x[i + shift]);
      ASSERT_EQ(std::memcmp(&want, &y[i], sizeof want), 0) << "x = " << x[i + shift] << " at " << i;
    }
  }
}

TEST(ExpNonpositive, FloatWithinFiveTenMillionthsAtEveryPosition) {
  if (!isa_pin_runs_here()) GTEST_SKIP() << "this CPU lacks the pinned level";
  std::vector<float> x = grid<float>();
  for (int k = 0; k <= 100000; ++k) x.push_back(-87.0f * float(k) / 100000.0f);
  std::vector<float> first = x;
  exp_nonpositive(first.data(), first.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(double(std::max(x[i], -87.0f)));
    EXPECT_LE(std::abs(double(first[i]) - want), 5e-7 * want) << "x = " << x[i];
    float alone = x[i];
    exp_nonpositive(&alone, 1);
    EXPECT_EQ(std::memcmp(&alone, &first[i], sizeof alone), 0) << "x = " << x[i];
  }
}

}  // namespace
}  // namespace potts
