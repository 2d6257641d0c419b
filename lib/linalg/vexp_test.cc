// simd::exp4 (lib/linalg/vexp.h): within 2 ulp of exp on [-708, 709], clamped
// below -708, and the same bits from an AVX2 and a baseline build, in a
// vector or alone, and as recorded here (any change to the arithmetic shows).
#include "lib/linalg/vexp.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace potts {
namespace simd {
namespace {

std::vector<double> grid() {
  std::vector<double> x;
  for (double v = -708.0; v <= 709.0; v += 0.001237) x.push_back(v);
  for (double v : {0.0, -0.0, -1e-300, -5e-324, 1e-300, 0x1.62e42fefa39efp-10, -0x1.62e42fefa39efp-10}) x.push_back(v);
  return x;
}

std::vector<double> exp_baseline(std::vector<double> x) {
  exp_in_place(x.data(), x.size());
  return x;
}

__attribute__((target("avx2"))) std::vector<double> exp_avx2(std::vector<double> x) {
  exp_in_place(x.data(), x.size());
  return x;
}

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(Vexp, WithinTwoUlpOfExp) {
  const std::vector<double> x = grid(), y = exp_baseline(x);
  double worst = 0, worst_ulp = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double e = std::exp(x[k]);
    worst = std::max(worst, std::fabs(y[k] - e) / e);
    worst_ulp = std::max(worst_ulp, std::fabs(y[k] - e) / (std::nextafter(e, INFINITY) - e));
  }
  EXPECT_LT(worst, 4.5e-16);  // 2 ulp = 4.4e-16
  EXPECT_LE(worst_ulp, 1.0);  // measured against glibc's exp: at most 1 ulp
  EXPECT_EQ(exp1(0.0), 1.0);
  EXPECT_EQ(exp1(-1000.0), exp1(-708.0));  // clamped: a negligible weight next to 1
  EXPECT_GT(exp1(-708.0), 0.0);
  EXPECT_LT(exp1(-745.0), 1e-307);
}

TEST(Vexp, SameBitsWhateverTheWidthAndPosition) {
  const std::vector<double> x = grid(), y = exp_baseline(x);
  if (__builtin_cpu_supports("avx2")) {
    const std::vector<double> z = exp_avx2(x);
    for (std::size_t k = 0; k < x.size(); ++k) ASSERT_EQ(bits_of(y[k]), bits_of(z[k])) << "x = " << x[k];
  }
  // alone (lane 0) and in the padded tail: the values of the full vectors
  for (std::size_t k = 0; k < x.size(); k += 97) ASSERT_EQ(bits_of(exp1(x[k])), bits_of(y[k])) << "x = " << x[k];
  std::vector<double> tail(x.end() - 7, x.end());
  exp_in_place(tail.data(), tail.size());
  for (std::size_t k = 0; k < 7; ++k) EXPECT_EQ(bits_of(tail[k]), bits_of(y[x.size() - 7 + k]));
}

// FNV-1a of the bits over the grid, recorded: the same on every x86-64 CPU.
TEST(Vexp, RecordedBits) {
  std::uint64_t h = 1469598103934665603ull;
  for (double v : exp_baseline(grid())) h = (h ^ bits_of(v)) * 1099511628211ull;
  EXPECT_EQ(h, 0x67b5ddeca0c5d753ull) << std::hex << h;
}

}  // namespace
}  // namespace simd
}  // namespace potts
