// Claim P6's rule (panel_claim.h) on constructed panels.
#include "lib/claims/panel_claim.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts::claims {
namespace {

// n families whose d_f (against the unweighted PLM) are `d`; the other
// baselines are fixed offsets so that their medians are known.
std::vector<PanelFamily> panel(const std::vector<double>& d) {
  std::vector<PanelFamily> out;
  for (std::size_t k = 0; k < d.size(); ++k) {
    PanelFamily f;
    f.family = "PF" + std::to_string(10000 + k);
    f.plm = 0.5;
    f.attention = 0.5 + d[k];
    f.weighted_plm = 0.55;  // attention − weighted PLM = d − 0.05
    f.evfold = 0.4;         // attention − EVfold = d + 0.1
    out.push_back(f);
  }
  return out;
}

std::vector<double> spread(std::size_t n, double centre, double half_width) {
  std::vector<double> d;
  for (std::size_t k = 0; k < n; ++k) d.push_back(centre + half_width * (2.0 * double(k) / double(n - 1) - 1.0));
  return d;
}

PanelKeys keys() {
  PanelKeys k;
  k.statement = "over families, factored attention predicts contacts about as well as a Potts model";
  k.observed_gap = -0.034;
  k.seed = 7;
  return k;
}

TEST(PanelClaim, BootstrapIsSeededAndBracketsTheMedian) {
  const std::vector<double> d = spread(40, -0.05, 0.2);
  const MedianInterval a = bootstrap_median(d, 3, 2000, 0.95), b = bootstrap_median(d, 3, 2000, 0.95);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_NEAR(a.median, -0.05, 1e-12);
  EXPECT_LT(a.lo, a.median);
  EXPECT_GT(a.hi, a.median);
  const MedianInterval c = bootstrap_median(std::vector<double>(40, 0.25), 3, 100, 0.95);
  EXPECT_EQ(c.lo, 0.25);
  EXPECT_EQ(c.hi, 0.25);
  EXPECT_THROW(bootstrap_median(d, 3, 0, 0.95), StageError);
  EXPECT_THROW(bootstrap_median(d, 3, 10, 1.0), StageError);
}

// The percentile interval of a median over 40 families covers the true
// median at about its level: 300 panels of N(mu, 0.1) differences, 1000
// resamples each. Coverage c over 300 panels has binomial s.e.
// sqrt(0.95 * 0.05 / 300) = 0.013; the bound 0.88 is more than 5 s.e.
// below 0.95 (the percentile bootstrap of a median runs a little under
// its level at n = 40), 0.995 bounds an interval that is far too wide.
TEST(PanelClaim, IntervalCoversTheMedianAtItsLevel) {
  Rng rng(11, 0);
  const double mu = -0.03;
  int covered = 0;
  const int panels = 300;
  for (int r = 0; r < panels; ++r) {
    std::vector<double> d(40);
    for (auto& v : d) v = mu + 0.1 * rng.normal();
    const MedianInterval m = bootstrap_median(d, std::uint64_t(r + 1), 1000, 0.95);
    covered += m.lo <= mu && mu <= m.hi;
  }
  const double c = double(covered) / panels;
  EXPECT_GT(c, 0.88) << c;
  EXPECT_LT(c, 0.995) << c;
}

TEST(PanelClaim, NonInferiorityVerdicts) {
  // Centred on -0.02, narrow: the interval stays above -0.10.
  nlohmann::json detail;
  Cell c = panel_claim(panel(spread(40, -0.02, 0.05)), 0.10, keys(), &detail);
  EXPECT_EQ(c.id, "P6");
  EXPECT_EQ(c.verdict, Verdict::kHolds);
  EXPECT_NEAR(c.value, -0.02, 1e-12);
  EXPECT_GT(detail.at("against_plm").at("lo").get<double>(), -0.10);
  EXPECT_NEAR(detail.at("against_weighted_plm").at("median").get<double>(), -0.07, 1e-12);
  EXPECT_NEAR(detail.at("against_evfold").at("median").get<double>(), 0.08, 1e-12);
  EXPECT_TRUE(detail.at("interval_contains_observed_gap").get<bool>());
  EXPECT_EQ(detail.at("families").get<int>(), 40);
  EXPECT_NE(c.number.find("inside"), std::string::npos) << c.number;
  // Centred on -0.30: the whole interval below -0.10.
  c = panel_claim(panel(spread(40, -0.30, 0.05)), 0.10, keys(), &detail);
  EXPECT_EQ(c.verdict, Verdict::kDoesNotHold);
  EXPECT_FALSE(detail.at("interval_contains_observed_gap").get<bool>());
  EXPECT_EQ(detail.at("attention_ahead").get<int>(), 0);
  // Centred on -0.10 and wide: the interval straddles -0.10.
  EXPECT_EQ(panel_claim(panel(spread(40, -0.10, 0.3)), 0.10, keys()).verdict, Verdict::kUndecided);
}

TEST(PanelClaim, CountsFamiliesAheadAndTies) {
  std::vector<double> d(20, 0.01);
  d.resize(30, -0.01);
  d.resize(40, 0.0);
  nlohmann::json detail;
  panel_claim(panel(d), 0.10, keys(), &detail);
  EXPECT_EQ(detail.at("attention_ahead").get<int>(), 20);
  EXPECT_EQ(detail.at("ties").get<int>(), 10);
}

TEST(PanelClaim, RefusesAPanelItCannotJudge) {
  EXPECT_THROW(panel_claim(panel(spread(9, 0, 0.1)), 0.10, keys()), StageError);  // too few families
  auto twice = panel(spread(12, 0, 0.1));
  twice[3].family = twice[2].family;
  EXPECT_THROW(panel_claim(twice, 0.10, keys()), StageError);
  auto bad = panel(spread(12, 0, 0.1));
  bad[5].evfold = 1.5;
  EXPECT_THROW(panel_claim(bad, 0.10, keys()), StageError);
}

}  // namespace
}  // namespace potts::claims
