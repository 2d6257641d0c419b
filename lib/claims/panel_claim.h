// Claim P6, the observation over a panel of families (paper/spec.md, claim
// P6), its rule fixed before any panel fit ran:
//
//   "Trained as the observation trains it, factored attention predicts
//    contacts about as well as a Potts model": over the panel's families f,
//    d_f = P_f(attention) − P_f(PLM, the gap a pad, no weights), P the top-L
//    precision at |i − j| >= 6, attention the pinned protocol (H = 256 heads
//    of dimension 32, fields off as the observation's command runs it, one
//    seed).
//
// Statistic: the median of d_f over the families (the mean of the two
// middle values for an even count). Interval: the seeded percentile
// bootstrap over families, 95 % two-sided (kPanelResamples resamples of the
// families with replacement, each resample's median; the order statistics
// at ceil(0.025 B) and ceil(0.975 B)). Verdict: non-inferiority within the
// margin delta: holds if lo > −delta, does not hold if hi < −delta,
// undecided otherwise. Beside it: whether the interval contains the
// observation's own median gap, the same median and interval against the
// weighted PLM and against EVfold, and the share of families where
// attention is ahead (d_f > 0; ties counted apart).
//
// Tested by //lib/claims:panel_claim_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lib/claims/claims.h"

namespace potts {
namespace claims {

constexpr int kPanelResamples = 10000;
constexpr double kPanelLevel = 0.95;  // two-sided

// One family's top-L precisions (|i - j| >= 6).
struct PanelFamily {
  std::string family;
  double attention = 0, plm = 0, weighted_plm = 0, evfold = 0;
};

// A median over families with its bootstrap interval.
struct MedianInterval {
  double median = 0, lo = 0, hi = 0;
};

// The median of x and its percentile-bootstrap interval at `level` (two-sided).
MedianInterval bootstrap_median(const std::vector<double>& x, std::uint64_t seed, int resamples, double level);

struct PanelKeys {
  std::string id = "P6";
  std::string statement;
  double observed_gap = 0.0;  // the observation's median P(attention) − P(Potts) over its families
  std::uint64_t seed = 1;     // of the bootstrap
  int min_families = 10;      // fewer: an error, not a verdict
};

// The cell of claim P6 and, in `detail`, the numbers beside it.
Cell panel_claim(const std::vector<PanelFamily>& families, double margin, const PanelKeys& keys,
                 nlohmann::json* detail = nullptr);

}  // namespace claims
}  // namespace potts
