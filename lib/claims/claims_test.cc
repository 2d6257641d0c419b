#include "lib/claims/claims.h"

#include <cmath>

#include <gtest/gtest.h>

#include "lib/core/error.h"

namespace potts {
namespace claims {
namespace {

TEST(Rules, CriticalValuesAreStudentsAndNormalQuantiles) {
  EXPECT_NEAR(t_critical(2, 0.05), 2.919986, 1e-5);  // t_{0.95, 2}
  EXPECT_NEAR(t_critical(4, 0.05), 2.131847, 1e-5);
  EXPECT_NEAR(t_critical(0, 0.05), 1.644854, 1e-5);  // normal
  EXPECT_NEAR(t_critical(0, 0.025), 1.959964, 1e-5);
}

TEST(Rules, ComparisonIsOneSidedAtTheCriticalValue) {
  EXPECT_EQ(comparison(0.21, 0.1, 2.0), Verdict::kHolds);
  EXPECT_EQ(comparison(0.19, 0.1, 2.0), Verdict::kUndecided);
  EXPECT_EQ(comparison(-0.21, 0.1, 2.0), Verdict::kDoesNotHold);
  EXPECT_EQ(comparison(std::nan(""), 0.1, 2.0), Verdict::kUndecided);
}

TEST(Rules, AnAbsenceHoldsUnlessRejected) {
  EXPECT_EQ(absence(0.19, 0.1, 2.0), Verdict::kHolds);
  EXPECT_EQ(absence(-1.0, 0.1, 2.0), Verdict::kHolds);
  EXPECT_EQ(absence(0.21, 0.1, 2.0), Verdict::kDoesNotHold);
}

TEST(Rules, LevelAgainstThresholds) {
  EXPECT_EQ(level(0.05, 0.02, 2.0, 0.1, 0.5), Verdict::kHolds);       // 0.09 < 0.1
  EXPECT_EQ(level(0.07, 0.02, 2.0, 0.1, 0.5), Verdict::kUndecided);   // 0.11 > 0.1
  EXPECT_EQ(level(0.6, 0.04, 2.0, 0.1, 0.5), Verdict::kDoesNotHold);  // 0.52 > 0.5
}

// A model's merged numbers on one data set: per-seed values, best restart first.
nlohmann::json model(std::vector<double> gap, std::vector<double> erec, std::vector<double> r) {
  return {{"gap", {{"values", gap}}},
          {"reconstruction_error", {{"values", erec}}},
          {"strength_correlation", {{"values", r}}},
          {"best_gap", gap[0]},
          {"best_reconstruction_error", erec[0]},
          {"best_strength_correlation", r[0]}};
}

// A data set on which every training claim holds clearly; `shift` moves
// every number a little, as another data draw would.
DataSet paper_like(double shift) {
  DataSet d;
  d.name = "set";
  const double e = 759.0 / (2 * 3000 * 20);  // the finite-sample excess
  d.train = {{"factored", model({e + shift, e + 2 * shift, e}, {0.03 + shift, 0.04, 0.03}, {0.9 - shift, 0.88, 0.9})},
             {"vanilla1", model({0.30 + shift, 0.32, 0.31}, {0.99, 0.99, 0.99}, {0.3 + shift, 0.28, 0.31})},
             {"vanilla3", model({0.20 + shift, 0.22, 0.21}, {0.98, 0.97, 0.99}, {0.4 + shift, 0.38, 0.41})}};
  nlohmann::json pts = nlohmann::json::array();
  for (double a : {0.0, 0.1, 0.5, 1.0})
    pts.push_back({{"a", a},
                   {"best_test_loss", 1.0 + a + shift},
                   {"test_losses", {1.0 + a + shift, 1.0 + a + 2 * shift, 1.0 + a}}});
  d.perturb = {{"points", pts}};
  d.excess = {{"excess_per_position", e}, {"count_excess_per_position", e}};
  return d;
}

std::map<std::string, Verdict> verdicts(const std::vector<DataSet>& sets) {
  std::map<std::string, Verdict> v;
  for (const auto& c : training_claims(sets, Thresholds{})) v[c.id] = c.verdict;
  return v;
}

TEST(TrainingClaims, AllHoldOnPaperLikeReplicates) {
  const auto v = verdicts({paper_like(0.0), paper_like(0.002), paper_like(-0.001)});
  for (const char* id : {"1a", "1b", "1c", "2a", "2b", "3a", "3b"}) EXPECT_EQ(v.at(id), Verdict::kHolds) << id;
}

TEST(TrainingClaims, OneDataSetUsesTheSeedSpreadAndSaysSo) {
  const auto cells = training_claims({paper_like(0.001)}, Thresholds{});
  EXPECT_EQ(cells.at(0).basis, "3 training seeds, one data set");
  // The value is the best restart's (the first seed here).
  EXPECT_NEAR(cells.at(0).value, (0.30 + 0.001) - (759.0 / 120000 + 0.001), 1e-12);
  const auto rep = training_claims({paper_like(0.0), paper_like(0.002)}, Thresholds{});
  EXPECT_EQ(rep.at(0).basis, "2 data replicates (best restart each)");
}

// Each verdict can fail: the same replicates with one model changed.
TEST(TrainingClaims, EachClaimCanFail) {
  auto sets = std::vector<DataSet>{paper_like(0.0), paper_like(0.002), paper_like(-0.001)};
  for (auto& d : sets) d.train["factored"] = model({0.40, 0.41, 0.4}, {0.95, 0.95, 0.95}, {0.1, 0.1, 0.1});
  auto v = verdicts(sets);
  EXPECT_EQ(v.at("1a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("1b"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("2a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("2b"), Verdict::kDoesNotHold);

  sets = {paper_like(0.0), paper_like(0.002), paper_like(-0.001)};
  for (auto& d : sets) d.train["vanilla3"] = model({0.35, 0.36, 0.37}, {0.9, 0.9, 0.9}, {0.3, 0.3, 0.3});
  EXPECT_EQ(verdicts(sets).at("1c"), Verdict::kDoesNotHold);

  // a = 0.1 below a = 0 on every replicate; a = 1 equal to a = 0 on average.
  sets = {paper_like(0.0), paper_like(0.002), paper_like(-0.001)};
  const double jitter[] = {0.01, -0.01, 0.0};
  for (int k = 0; k < 3; ++k) {
    sets[k].perturb["points"][1]["best_test_loss"] =
        sets[k].perturb["points"][0]["best_test_loss"].get<double>() - 0.05;
    sets[k].perturb["points"][3]["best_test_loss"] =
        sets[k].perturb["points"][0]["best_test_loss"].get<double>() + jitter[k];
  }
  v = verdicts(sets);
  EXPECT_EQ(v.at("3a"), Verdict::kDoesNotHold);
  EXPECT_EQ(v.at("3b"), Verdict::kUndecided);
}

// Figure 3 right: a clear peak at alpha 2 (M = 20, L = 10).
struct Curve {
  nlohmann::json potts;
  std::map<std::string, std::vector<double>> realisations;
};

Curve curve(std::vector<double> mean) {
  const std::vector<double> Ms = {5, 10, 20, 40, 80};
  Curve c;
  nlohmann::json pp = nlohmann::json::array();
  for (std::size_t k = 0; k < Ms.size(); ++k) {
    pp.push_back({{"alpha", Ms[k] / 10.0}, {"test_loss_mean", mean[k]}, {"test_loss_se", 0.05}});
    for (double e : {-0.1, -0.05, 0.05, 0.1}) {
      c.realisations["M"].push_back(Ms[k]);
      c.realisations["test_loss"].push_back(mean[k] + e);
    }
  }
  c.potts = {{"L", 10}, {"points", pp}};
  return c;
}

std::map<std::string, Verdict> verdicts(const Curve& c) {
  std::map<std::string, Verdict> v;
  for (const auto& cell : sample_complexity_claims(c.potts, c.realisations, 1, 500)) v[cell.id] = cell.verdict;
  return v;
}

TEST(SampleComplexityClaims, HoldOnAPeakBeyondOneAndFailEachWay) {
  auto v = verdicts(curve({3.0, 4.0, 6.0, 4.0, 1.5}));
  EXPECT_EQ(v.at("5a"), Verdict::kHolds);
  EXPECT_EQ(v.at("5b"), Verdict::kHolds);
  EXPECT_EQ(v.at("5c"), Verdict::kHolds);
  EXPECT_EQ(verdicts(curve({7.0, 4.0, 6.0, 4.0, 1.5})).at("5a"), Verdict::kDoesNotHold);  // max at an end
  v = verdicts(curve({3.0, 6.5, 6.0, 4.0, 1.5}));                                         // the peak at alpha = 1
  EXPECT_EQ(v.at("5b"), Verdict::kDoesNotHold);
  EXPECT_EQ(verdicts(curve({3.0, 5.98, 6.0, 4.0, 1.5})).at("5b"), Verdict::kUndecided);
  // An initial decay: alpha 0.5 above alpha 1 by 1 nat before the peak.
  EXPECT_EQ(verdicts(curve({4.0, 3.0, 6.0, 4.0, 1.5})).at("5c"), Verdict::kDoesNotHold);
  EXPECT_EQ(verdicts(curve({3.05, 3.0, 6.0, 4.0, 1.5})).at("5c"), Verdict::kHolds);  // within noise
  // A curve that only falls never rises from the smallest alpha.
  EXPECT_EQ(verdicts(curve({7.0, 6.0, 5.0, 4.0, 1.5})).at("5c"), Verdict::kDoesNotHold);
}

nlohmann::json finite_size(double c_eps, double c_se, double z_exact) {
  nlohmann::json fits = nlohmann::json::array();
  for (double a : {0.5, 2.0}) {
    fits.push_back({{"alpha", a}, {"statistic", "eps_g"}, {"c", c_eps}, {"c_se", c_se}});
    fits.push_back({{"alpha", a}, {"statistic", "m"}, {"c", a > 1 ? 1e3 : 0.0}, {"c_se", c_se}});  // m above 1 ignored
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (double D : {40.0, 80.0})
    sizes.push_back({{"D", D}, {"max_abs_z_eps_vs_exact", z_exact}, {"max_rel_m_vs_exact", 1e-5}});
  return {{"fits", fits}, {"sizes", sizes}};
}

TEST(GaussianClaims, FiniteSizeAgreementAndTheExactCheck) {
  const nlohmann::json rep = {{"peak_alpha", 1.0}, {"tail_slope_8_100_on_simulation_grid", -1.02}};
  const nlohmann::json sim = {
      {"peak_alpha", 1.0}, {"tail_slope_8_100", -1.01}, {"tail_slope_8_100_se", 0.01}, {"D", 200}};
  std::map<std::string, Verdict> v;
  for (const auto& c : gaussian_claims(rep, sim, finite_size(0.002, 0.004, 1.0))) v[c.id] = c.verdict;
  for (const char* id : {"4a", "4b", "4c", "4d"}) EXPECT_EQ(v.at(id), Verdict::kHolds) << id;
  // An offset of 5 s.e.; an imprecise extrapolation; a simulator off the exact moments.
  EXPECT_EQ(gaussian_claims(rep, sim, finite_size(0.02, 0.004, 1.0)).at(0).verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(gaussian_claims(rep, sim, finite_size(0.01, 0.03, 1.0)).at(0).verdict, Verdict::kUndecided);
  EXPECT_EQ(gaussian_claims(rep, sim, finite_size(0.002, 0.004, 4.0)).at(1).verdict, Verdict::kDoesNotHold);
  // A simulated tail 3 s.e. off the theory's slope.
  nlohmann::json off = sim;
  off["tail_slope_8_100"] = -1.05;
  EXPECT_EQ(gaussian_claims(rep, off, finite_size(0.002, 0.004, 1.0)).at(3).verdict, Verdict::kDoesNotHold);
}

TEST(BootstrapPeak, FindsAClearPeakAndIsSeeded) {
  const Curve c = curve({3.0, 4.0, 6.0, 4.0, 1.5});
  const PeakPosition p = bootstrap_peak(c.realisations.at("M"), c.realisations.at("test_loss"), 10.0, 7, 400);
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

namespace potts::claims {
namespace {

nlohmann::json protein_score(double f, double v1, double v3, double plm, double se) {
  nlohmann::json s;
  for (const auto& [p, x] :
       std::map<std::string, double>{{"factored", f}, {"vanilla1", v1}, {"vanilla3", v3}, {"plm", plm}})
    s["predictors"][p]["precision"]["6+"]["L"] = {{"mean", x}, {"se", se}};
  return s;
}

// P1 is an absence (vanilla3 not better), P2 a comparison, P3 parity within
// the margin; each verdict switches where its rule says (z = 1.645).
TEST(ProteinClaims, VerdictsSwitchWhereTheRulesSay) {
  const double se = 0.02 / std::sqrt(2.0);  // the difference's s.e. is 0.02
  auto verdicts = [&](double f, double v1, double v3, double plm) {
    std::vector<Verdict> v;
    for (const auto& c : protein_claims(protein_score(f, v1, v3, plm, se), 0.1)) v.push_back(c.verdict);
    return v;
  };
  // vanilla3 ahead by 0.03 < 1.645·0.02: not rejected; by 0.04: rejected.
  EXPECT_EQ(verdicts(0.40, 0.1, 0.43, 0.4)[0], Verdict::kHolds);
  EXPECT_EQ(verdicts(0.40, 0.1, 0.44, 0.4)[0], Verdict::kDoesNotHold);
  // factored ahead of one vanilla layer by 0.04 / 0.03 / behind by 0.04.
  EXPECT_EQ(verdicts(0.40, 0.36, 0.1, 0.4)[1], Verdict::kHolds);
  EXPECT_EQ(verdicts(0.40, 0.37, 0.1, 0.4)[1], Verdict::kUndecided);
  EXPECT_EQ(verdicts(0.40, 0.44, 0.1, 0.4)[1], Verdict::kDoesNotHold);
  // parity: |d| = 0.06 (0.06 + 0.033 < 0.1), 0.08 (neither), 0.14 (0.14 − 0.033 > 0.1), either sign.
  EXPECT_EQ(verdicts(0.40, 0.1, 0.1, 0.46)[2], Verdict::kHolds);
  EXPECT_EQ(verdicts(0.40, 0.1, 0.1, 0.32)[2], Verdict::kUndecided);
  EXPECT_EQ(verdicts(0.40, 0.1, 0.1, 0.26)[2], Verdict::kDoesNotHold);
  EXPECT_EQ(verdicts(0.40, 0.1, 0.1, 0.54)[2], Verdict::kDoesNotHold);
  const auto cells = protein_claims(protein_score(0.4, 0.1, 0.1, 0.46, se), 0.1);
  EXPECT_EQ(cells[2].id, "P3");
  EXPECT_NEAR(cells[2].value, -0.06, 1e-12);
  EXPECT_NEAR(cells[2].se, 0.02, 1e-12);
}

// P4: non-inferiority within the margin, Bonferroni over the configurations
// for "as good" (two here: z_k = 1.960), z = 1.645 for "worse"; the
// difference's s.e. is 0.02, so a configuration is as good when d > −0.0608
// and worse when d < −0.1329.
TEST(ProteinClaims, HeadsClaimSwitchesWhereTheRuleSays) {
  const double se = 0.02 / std::sqrt(2.0);
  auto score_of = [&](double h4, double h16, double plm) {
    nlohmann::json s;
    for (const auto& [p, x] : std::map<std::string, double>{{"h4", h4}, {"h16", h16}, {"plm", plm}})
      s["predictors"][p]["precision"]["6+"]["L"] = {{"mean", x}, {"se", se}};
    return s;
  };
  const std::vector<HeadsConfiguration> configs = {{"h4", 4, true}, {"h16", 16, true}};
  auto claim = [&](double h4, double h16) { return heads_claim(score_of(h4, h16, 0.40), "plm", configs, 0.1); };
  // H = 16 as good (d = −0.06), H = 4 not: holds, smallest H 16, the number is H = 16's.
  HeadsClaim c = claim(0.30, 0.34);
  EXPECT_EQ(c.cell.verdict, Verdict::kHolds);
  EXPECT_EQ(c.smallest_heads, 16);
  EXPECT_NEAR(c.cell.value, -0.06, 1e-12);
  EXPECT_NEAR(c.cell.se, 0.02, 1e-12);
  EXPECT_EQ(c.configurations[0]["status"], "undecided");
  EXPECT_EQ(c.configurations[1]["status"], "as good");
  // Both as good: the smallest H is 4.
  EXPECT_EQ(claim(0.345, 0.36).smallest_heads, 4);
  // d = −0.065: within z·s.e. of the margin uncorrected (1.645), not with
  // the correction (1.960): undecided.
  c = claim(0.30, 0.335);
  EXPECT_EQ(c.cell.verdict, Verdict::kUndecided);
  EXPECT_EQ(c.smallest_heads, 0);
  // Every configuration worse: does not hold; one not worse: undecided.
  EXPECT_EQ(claim(0.26, 0.265).cell.verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(claim(0.26, 0.27).cell.verdict, Verdict::kUndecided);
  // A configuration outside the paper's form counts for the verdict, not
  // for the smallest H.
  const std::vector<HeadsConfiguration> mixed = {{"h4", 4, true}, {"h16", 32, false}};
  c = heads_claim(score_of(0.30, 0.36, 0.40), "plm", mixed, 0.1);
  EXPECT_EQ(c.cell.verdict, Verdict::kHolds);
  EXPECT_EQ(c.smallest_heads, 0);
  // A missing predictor is a clear error.
  EXPECT_THROW(heads_claim(score_of(0.3, 0.3, 0.4), "plm", {{"h64", 64, true}}, 0.1), StageError);
  // P4 by default; a follow-up names its own id and statement, same verdict.
  EXPECT_EQ(c.cell.id, "P4");
  const HeadsClaim f = heads_claim(score_of(0.30, 0.36, 0.40), "plm", mixed, 0.1, {"P4b", "a follow-up"});
  EXPECT_EQ(f.cell.id, "P4b");
  EXPECT_EQ(f.cell.statement, "a follow-up");
  EXPECT_EQ(f.cell.verdict, c.cell.verdict);
  EXPECT_EQ(f.cell.number, c.cell.number);
}

// P3 compares the predictors its keys name (the heads sweep's single-head
// point and PLM), P1 and P2 still the MLM-trained models.
TEST(ProteinClaims, P3ComparesThePredictorsItsKeysName) {
  nlohmann::json s = protein_score(0.40, 0.1, 0.1, 0.26, 0.01);
  s["predictors"]["cm_h1"]["precision"]["6+"]["L"] = {{"mean", 0.35}, {"se", 0.01}};
  s["predictors"]["cm_plm"]["precision"]["6+"]["L"] = {{"mean", 0.38}, {"se", 0.01}};
  ProteinKeys keys;
  keys.p3_factored = "cm_h1";
  keys.plm = "cm_plm";
  const auto cells = protein_claims(s, 0.1, keys);
  EXPECT_NEAR(cells[2].value, -0.03, 1e-12);
  EXPECT_EQ(cells[2].verdict, Verdict::kHolds);
  EXPECT_EQ(protein_claims(s, 0.1)[2].verdict, Verdict::kDoesNotHold);  // 0.40 against 0.26
}

}  // namespace
}  // namespace potts::claims

namespace potts::claims {
namespace {

// A score summary with one paired difference A − B.
nlohmann::json paired_score(double d, double se) {
  nlohmann::json s;
  s["paired"]["attn"]["plm_pad"] = {{"difference", d}, {"standard_error", se}, {"jackknife_se", se}, {"seeds_se", 0.0}};
  s["paired"]["attn"]["plm"] = {
      {"difference", d - 0.05}, {"standard_error", se}, {"jackknife_se", se}, {"seeds_se", 0.0}};
  return s;
}

ObservationKeys observation_keys() {
  ObservationKeys k;
  k.statement = "as well as";
  k.attention = "attn";
  k.plm = "plm_pad";
  k.weighted_plm = "plm";
  k.observed_gap = -0.034;
  return k;
}

// P5's rule on constructed paired differences (margin 0.1, z = 1.645): the
// verdict turns where d + 0.1 crosses ±1.645 s.e., and the number carries
// the weighted PLM's difference and the observation's gap.
TEST(ObservationClaim, PairedNonInferiority) {
  const ObservationKeys k = observation_keys();
  // d + 0.1 = 0.05 > 1.645 × 0.02 = 0.0329: holds.
  Cell c = observation_claim(paired_score(-0.05, 0.02), 0.1, k);
  EXPECT_EQ(c.verdict, Verdict::kHolds);
  EXPECT_EQ(c.id, "P5");
  EXPECT_NEAR(c.value, -0.05, 1e-15);
  EXPECT_NEAR(c.se, 0.02, 1e-15);
  EXPECT_NE(c.number.find("-0.100 ± 0.020"), std::string::npos) << c.number;  // against the weighted PLM
  EXPECT_NE(c.number.find("-0.034"), std::string::npos) << c.number;
  // d + 0.1 = 0.02 < 0.0329 and > −0.0329: undecided.
  EXPECT_EQ(observation_claim(paired_score(-0.08, 0.02), 0.1, k).verdict, Verdict::kUndecided);
  // d + 0.1 = −0.04 < −0.0329: does not hold.
  EXPECT_EQ(observation_claim(paired_score(-0.14, 0.02), 0.1, k).verdict, Verdict::kDoesNotHold);
  // The same d with the unpaired (larger) error would be undecided: the pairing decides.
  EXPECT_EQ(observation_claim(paired_score(-0.05, 0.055), 0.1, k).verdict, Verdict::kUndecided);
  // Without the score stage's pairing: a clear error; a missing pair reads as null.
  EXPECT_THROW(observation_claim(nlohmann::json::object(), 0.1, k), StageError);
  EXPECT_TRUE(paired_difference(paired_score(0, 1), "attn", "nothing").is_null());
  EXPECT_FALSE(paired_difference(paired_score(0, 1), "attn", "plm").is_null());
}

}  // namespace
}  // namespace potts::claims
