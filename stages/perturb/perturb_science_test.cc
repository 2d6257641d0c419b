// Scientific regression test of figure 2d (paper/spec.md §3, claim 3 of
// §8) on the quick sweep (//stages/perturb:quick: L = C = d = 10, 600
// training sequences, 8 values of a, 3 seeds each, factored attention's
// quick SGD settings).
//
// What is tested, and why it is sound:
//  * eps(a) is the test loss of the restart with the lowest TRAINING loss at
//    that a ("best", chosen without test data; paper/spec.md §7 allows restarts
//    ranked by training loss). The mean over seeds is not used for the claim:
//    with the factored settings SGD stalls at a poor stationary point for
//    some seeds at a > 0 (measured: seed 1 at a = 0.2-0.5 and seeds 1, 2 at
//    a = 1 end at training loss 0.78-0.85 against 0.56-0.72, e_rec ~ 1,
//    whatever lr0 in 0.02-0.1 or the initial scale), and such stalls would
//    only inflate eps(a > 0), i.e. help the claim; the best restart removes
//    that help.
//  * The seed-to-seed spread sigma0 is the sample standard deviation of the
//    test loss over the seeds at a = 0 (unperturbed, no stall).
//  * Claim "a = 0 is best": no a > 0 has eps(a) < eps(0) - 2 sigma0.
//  * Claim "the loss grows with a, beyond the spread": for every step of the
//    grid from a = 0.1 on, eps(a_next) - eps(a) > 3 sigma0, and
//    eps(a) - eps(0) > 3 sigma0 for a >= 0.2. Below a = 0.2 the growth is
//    not resolvable at this scale: measured eps(a) - eps(0) ~ 0.22 a^2, i.e.
//    5e-4 at a = 0.05 and 2e-3 at 0.1, against sigma0 ~ 2.5e-3, so there the
//    test asserts only the first claim (stated in the report).
//  * The a = 0 point is factored attention: its seed-1 run equals the train
//    stage's quick_factored run (same settings, seed and draws) exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"

namespace potts {
namespace {

// The paper-scale sweeps are judged by //paper:claims_test (means over all
// seeds, lib/claims); here the quick sweep, on the best restart per a.
const std::string kScale = "quick";
const std::string kDir = "stages/perturb/quick/";

struct Sweep {
  std::vector<double> a, best_test, mean_test;
  std::map<double, std::vector<double>> test_by_a;
  double optimal_test_loss = 0.0;
};

Sweep load() {
  Sweep s;
  const auto summary = read_csv(kDir + "perturb_summary.csv");
  s.a = summary.at("a");
  s.best_test = summary.at("best_test_loss");
  s.mean_test = summary.at("mean_test_loss");
  s.optimal_test_loss = summary.at("optimal_test_loss").at(0);
  const auto table = read_csv(kDir + "perturb.csv");
  for (std::size_t r = 0; r < table.at("a").size(); ++r)
    s.test_by_a[table.at("a")[r]].push_back(table.at("test_loss")[r]);
  return s;
}

double sample_sd(const std::vector<double>& x) {
  double m = 0.0, ss = 0.0;
  for (double v : x) m += v;
  m /= double(x.size());
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / double(x.size() - 1));
}

TEST(PerturbScience, SweepIsComplete) {
  const Sweep s = load();
  ASSERT_EQ(s.a.size(), 8u);
  EXPECT_EQ(s.a.front(), 0.0);
  EXPECT_EQ(s.a.back(), 1.0);
  for (double a : s.a) {
    ASSERT_GE(s.test_by_a.at(a).size(), 3u) << "a = " << a;
    for (double x : s.test_by_a.at(a)) EXPECT_TRUE(std::isfinite(x) && x > s.optimal_test_loss - 0.05) << "a = " << a;
  }
}

// The verdict on each claim, as the literate paper states it (paper/paper.md,
// section on figure 2d). A rerun that flips a verdict fails here, naming the
// claim, so the text and the committed numbers cannot drift apart.
enum class Verdict { kHolds, kWeak, kDoesNotHold };
const char* name(Verdict v) { return v == Verdict::kHolds ? "holds" : v == Verdict::kWeak ? "weak" : "does not hold"; }

// "a = 0 is best": no a > 0 has eps(a) < eps(0) - 2 sigma0 (holds); else
// does not hold.
Verdict zero_is_best(const Sweep& s, double sigma0) {
  for (std::size_t k = 1; k < s.a.size(); ++k)
    if (s.best_test[k] <= s.best_test[0] - 2.0 * sigma0) return Verdict::kDoesNotHold;
  return Verdict::kHolds;
}

// "The loss grows with a, beyond the spread": holds when every step of the
// grid from a = 0.1 on rises by more than 3 sigma0 and every a >= 0.2 lies
// more than 3 sigma0 above a = 0; weak when only the largest a lies more than
// 3 sigma0 above a = 0; else does not hold.
Verdict loss_grows(const Sweep& s, double sigma0) {
  bool all = true;
  for (std::size_t k = 0; k + 1 < s.a.size(); ++k)
    if (s.a[k] >= 0.1 && !(s.best_test[k + 1] - s.best_test[k] > 3.0 * sigma0)) all = false;
  for (std::size_t k = 0; k < s.a.size(); ++k)
    if (s.a[k] >= 0.2 && !(s.best_test[k] - s.best_test[0] > 3.0 * sigma0)) all = false;
  if (all) return Verdict::kHolds;
  return s.best_test.back() - s.best_test[0] > 3.0 * sigma0 ? Verdict::kWeak : Verdict::kDoesNotHold;
}

// Stated verdicts: at quick scale (diverse data, Hamming 0.55) both hold.
const Verdict kZeroIsBest = Verdict::kHolds;
const Verdict kLossGrows = Verdict::kHolds;

TEST(PerturbScience, FactoredAttentionIsBestAndLossGrowsWithA) {
  const Sweep s = load();
  const double sigma0 = sample_sd(s.test_by_a.at(0.0));
  std::printf("sigma0 = %.5f, eps* = %.5f\n", sigma0, s.optimal_test_loss);
  for (std::size_t k = 0; k < s.a.size(); ++k)
    std::printf("a = %-5g best %.5f  mean %.5f  best - eps(0) = %+.5f\n", s.a[k], s.best_test[k], s.mean_test[k],
                s.best_test[k] - s.best_test[0]);
  ASSERT_GT(sigma0, 0.0);
  EXPECT_STREQ(name(zero_is_best(s, sigma0)), name(kZeroIsBest)) << "claim 'a = 0 is best' (" << kScale << ")";
  EXPECT_STREQ(name(loss_grows(s, sigma0)), name(kLossGrows)) << "claim 'the loss grows with a' (" << kScale << ")";
}

TEST(PerturbScience, PointAtZeroIsTheTrainStagesFactoredRun) {
  // The a = 0, seed 1 run (the train stage's seed) against the train stage.
  const auto p = nlohmann::json::parse(read_text("stages/perturb/" + kScale + "_a0_s1/summary.json"));
  const double p_test = p["test_loss"].get<double>(), p_train = p["final_train_loss"].get<double>();
  const std::string train = "stages/train/" + kScale + "_factored/summary.json";
  const auto t = nlohmann::json::parse(read_text(train));
  EXPECT_EQ(p_test, t["test_loss"].get<double>());
  EXPECT_EQ(p_train, t["final_train_loss"].get<double>());
}

}  // namespace
}  // namespace potts
