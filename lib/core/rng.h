// Seeded, reproducible random streams.
//
// Philox4x32-10 (Salmon et al., SC'11, via Random123) keyed by (seed, stream):
// stream s of seed k is the same sequence on every machine and library, and
// independent streams need no coordination, so results never depend on the
// number of threads. Normal deviates use Box-Muller written here, never
// std::normal_distribution (whose output differs between standard libraries).
//
// Tested by //tests/core:core_test.
#pragma once
#include <cmath>
#include <cstdint>

#include <Random123/philox.h>

namespace potts {

class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t stream) {
    key_ = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
    ctr_ = {{0, 0, static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)}};
  }

  // 32 random bits.
  std::uint32_t next_u32() {
    if (pos_ == 4) refill();
    return out_[pos_++];
  }
  // 64 random bits.
  std::uint64_t next_u64() {
    std::uint64_t hi = next_u32();
    return (hi << 32) | next_u32();
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe for log().
  double uniform_pos() { return 1.0 - uniform(); }
  // Uniform integer in [0, n), unbiased (Lemire's method with rejection).
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t x = next_u64();
    __uint128_t m = static_cast<__uint128_t>(x) * n;
    std::uint64_t l = static_cast<std::uint64_t>(m);
    if (l < n) {
      std::uint64_t t = (0 - n) % n;
      while (l < t) {
        x = next_u64();
        m = static_cast<__uint128_t>(x) * n;
        l = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  // Standard normal by Box-Muller (both deviates used).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double r = std::sqrt(-2.0 * std::log(uniform_pos()));
    double t = 6.283185307179586476925286766559 * uniform();
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

 private:
  void refill() {
    out_ = gen_(ctr_, key_);
    if (++ctr_.v[0] == 0) ++ctr_.v[1];
    pos_ = 0;
  }
  r123::Philox4x32 gen_;
  r123::Philox4x32::ctr_type ctr_;
  r123::Philox4x32::key_type key_;
  r123::Philox4x32::ctr_type out_{};
  int pos_ = 4;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// Named stream numbers, so stages never collide by accident.
namespace streams {
constexpr std::uint64_t kCouplings = 1;
constexpr std::uint64_t kColourSimilarity = 2;
constexpr std::uint64_t kGibbs = 3;
constexpr std::uint64_t kCalibration = 4;
constexpr std::uint64_t kDiagnostics = 5;  // + chain index << 16
constexpr std::uint64_t kInit = 10;
constexpr std::uint64_t kBatches = 11;
constexpr std::uint64_t kMasks = 12;
constexpr std::uint64_t kGaussianTeacher = 20;
constexpr std::uint64_t kGaussianData = 21;  // + realisation index << 16
constexpr std::uint64_t kSubsets = 30;       // + realisation index << 16
constexpr std::uint64_t kBootstrap = 40;     // resampling of realisations
}  // namespace streams

}  // namespace potts
