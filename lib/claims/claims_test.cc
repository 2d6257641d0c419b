#include "lib/claims/claims.h"

#include <gtest/gtest.h>

namespace potts {
namespace claims {
namespace {

TEST(Verdict, DifferenceNeedsTwoStandardErrors) {
  EXPECT_EQ(by_difference(0.21, 0.1), Verdict::kHolds);
  EXPECT_EQ(by_difference(0.19, 0.1), Verdict::kWeak);
  EXPECT_EQ(by_difference(-0.19, 0.1), Verdict::kWeak);
  EXPECT_EQ(by_difference(-0.21, 0.1), Verdict::kDoesNotHold);
  EXPECT_EQ(by_difference(std::nan(""), 0.1), Verdict::kWeak);
}

TEST(Verdict, LevelAgainstThresholds) {
  EXPECT_EQ(by_level(0.05, 0.02, 0.1, 0.5), Verdict::kHolds);     // 0.09 < 0.1
  EXPECT_EQ(by_level(0.07, 0.02, 0.1, 0.5), Verdict::kWeak);      // 0.11 > 0.1
  EXPECT_EQ(by_level(0.6, 0.04, 0.1, 0.5), Verdict::kDoesNotHold);  // 0.52 > 0.5
  EXPECT_EQ(by_level(0.55, 0.04, 0.1, 0.5), Verdict::kWeak);      // 0.47 < 0.5
}

nlohmann::json model(double gap, double gap_se, double erec, double erec_se) {
  return {{"gap", {{"mean", gap}, {"se", gap_se}}}, {"reconstruction_error", {{"mean", erec}, {"se", erec_se}}}};
}

struct Inputs {
  nlohmann::json train, perturb, potts;
  std::map<std::string, std::vector<double>> realisations;
};

// A data set on which every claim of the paper holds clearly.
Inputs paper_like() {
  Inputs in;
  in.train = {{"optimal_test_loss", 1.0},
              {"factored", model(0.002, 0.001, 0.03, 0.01)},
              {"vanilla1", model(0.30, 0.01, 0.9, 0.01)},
              {"vanilla3", model(0.20, 0.01, 0.8, 0.02)}};
  nlohmann::json pts = nlohmann::json::array();
  for (double a : {0.0, 0.1, 0.5, 1.0}) pts.push_back({{"a", a}, {"mean_test_loss", 1.0 + a}, {"stderr_test_loss", 0.01}});
  in.perturb = {{"points", pts}};
  // Test loss against M = 5, 10, 20, 40, 80 with L = 10 (alpha 0.5 ... 8):
  // a clear peak at M = 20 (alpha 2), 4 realisations each.
  const std::vector<double> Ms = {5, 10, 20, 40, 80}, mean = {3.0, 4.0, 6.0, 4.0, 1.5};
  nlohmann::json pp = nlohmann::json::array();
  for (std::size_t k = 0; k < Ms.size(); ++k) {
    pp.push_back({{"alpha", Ms[k] / 10.0}, {"test_loss_mean", mean[k]}, {"test_loss_se", 0.05}});
    for (double e : {-0.1, -0.05, 0.05, 0.1}) {
      in.realisations["M"].push_back(Ms[k]);
      in.realisations["test_loss"].push_back(mean[k] + e);
    }
  }
  in.potts = {{"L", 10}, {"points", pp}};
  return in;
}

std::map<std::string, Verdict> verdicts(const Inputs& in) {
  std::map<std::string, Verdict> v;
  for (const auto& c : potts_claims(in.train, in.perturb, in.potts, in.realisations, Thresholds{}, 1, 500))
    v[c.id] = c.verdict;
  return v;
}

TEST(PottsClaims, AllHoldOnPaperLikeResults) {
  const auto v = verdicts(paper_like());
  for (const char* id : {"1a", "1b", "1c", "2a", "2b", "3a", "3b", "5a", "5b"})
    EXPECT_EQ(v.at(id), Verdict::kHolds) << "claim " << id;
}

// Each verdict can fail: the same inputs with one number changed.
TEST(PottsClaims, EachClaimCanFail) {
  Inputs in = paper_like();
  in.train["factored"] = model(0.40, 0.01, 0.95, 0.01);  // worse than both vanilla models
  auto v = verdicts(in);
  EXPECT_EQ(v.at("1a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("1b"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("2a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("2b"), Verdict::kDoesNotHold);

  in = paper_like();
  in.train["vanilla3"] = model(0.35, 0.01, 0.8, 0.02);
  EXPECT_EQ(verdicts(in).at("1c"), Verdict::kDoesNotHold);

  in = paper_like();
  in.perturb["points"][1]["mean_test_loss"] = 0.95;  // a = 0.1 beats a = 0 by 5 s.e.
  in.perturb["points"][3]["mean_test_loss"] = 1.005;  // and a = 1 barely above a = 0
  v = verdicts(in);
  EXPECT_EQ(v.at("3a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("3b"), Verdict::kWeak);

  in = paper_like();
  in.potts["points"][0]["test_loss_mean"] = 7.0;  // the maximum at the smallest alpha
  EXPECT_EQ(verdicts(in).at("5a"), Verdict::kDoesNotHold);

  in = paper_like();
  in.potts["points"][3]["test_loss_mean"] = 5.98;  // neighbour within 2 s.e. of the peak
  EXPECT_EQ(verdicts(in).at("5b"), Verdict::kWeak);
}

TEST(BootstrapPeak, FindsAClearPeakAndIsSeeded) {
  const Inputs in = paper_like();
  const PeakPosition p = bootstrap_peak(in.realisations.at("M"), in.realisations.at("test_loss"), 10.0, 7, 400);
  EXPECT_EQ(p.alpha, 2.0);
  EXPECT_EQ(p.lo, 2.0);
  EXPECT_EQ(p.hi, 2.0);
  EXPECT_EQ(p.share_at_observed, 1.0);
  // Two nearly equal maxima: the bootstrap splits between them.
  std::vector<double> M = {1, 1, 1, 1, 2, 2, 2, 2}, y = {5.0, 5.2, 4.8, 5.1, 5.05, 4.9, 5.2, 4.95};
  const PeakPosition q = bootstrap_peak(M, y, 1.0, 7, 400);
  EXPECT_GT(q.share_at_observed, 0.2);
  EXPECT_LT(q.share_at_observed, 0.8);
  const PeakPosition r = bootstrap_peak(M, y, 1.0, 7, 400);
  EXPECT_EQ(q.share_at_observed, r.share_at_observed);
}

}  // namespace
}  // namespace claims
}  // namespace potts
