// The paper's claims on the committed paper-scale results/, for each regime
// of the data: recomputes every verdict from the committed summaries with
// lib/claims' stated rules (one-sided tests at 5 %; the headline's
// uncertainty from its independent data replicates) and requires the verdict
// that paper/paper.md states. A rerun that flips a verdict fails here,
// naming the claim and the regime; so does a results/ whose claims table
// disagrees with its own summaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/claims/claims.h"
#include "lib/claims/panel_claim.h"
#include "lib/core/io.h"
#include "lib/proteins/paired.h"

namespace potts {
namespace {

using claims::Verdict;
constexpr Verdict H = Verdict::kHolds, U = Verdict::kUndecided, N = Verdict::kDoesNotHold;

// The verdicts paper/paper.md states ("Claims").
const std::map<std::string, std::map<std::string, Verdict>> kStated = {
    {"h70",
     {{"1a", H}, {"1b", H}, {"1c", H}, {"2a", H}, {"2b", H}, {"3a", H}, {"3b", H}, {"5a", H}, {"5b", H}, {"5c", N}}},
    {"h30",
     {{"1a", H}, {"1b", H}, {"1c", H}, {"2a", U}, {"2b", H}, {"3a", U}, {"3b", H}, {"5a", N}, {"5b", N}, {"5c", N}}},
    {"gaussian", {{"4a", H}, {"4b", H}, {"4c", H}, {"4d", H}}},
    {"proteins", {{"P1", H}, {"P2", H}, {"P3", N}, {"P4", U}, {"P5", U}}},
    {"panel", {{"P6", H}}},
};

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

std::vector<claims::Cell> recompute(const std::string& r, const nlohmann::json& cfg) {
  const std::string d = "results/";
  claims::Thresholds t;
  t.erec_good = cfg["thresholds"]["erec_good"];
  t.erec_bad = cfg["thresholds"]["erec_bad"];
  std::vector<claims::DataSet> sets;
  for (const auto& name : cfg["data_sets"][r].get<std::vector<std::string>>())
    sets.push_back({name, load(d + "train/paper_" + name + "/summary.json"),
                    load(d + "perturb/paper_" + name + "/summary.json"),
                    load(d + "train/paper_" + name + "_excess/summary.json")});
  auto cells = claims::training_claims(sets, t);
  for (auto& c : claims::sample_complexity_claims(load(d + "potts_alpha/paper_" + r + "_peak/summary.json"),
                                                  read_csv(d + "potts_alpha/paper_" + r + "_peak/realisations.csv"), 1,
                                                  cfg["bootstrap_resamples"].get<int>()))
    cells.push_back(c);
  return cells;
}

TEST(PaperClaims, EachVerdictIsTheOnePaperMdStates) {
  const nlohmann::json committed = load("results/claims/paper/summary.json");
  for (const auto& [reading, stated] : kStated) {
    if (reading == "gaussian" || reading == "proteins" || reading == "panel") continue;
    const auto cells = recompute(reading, committed);
    ASSERT_EQ(cells.size(), stated.size()) << reading;
    for (const auto& c : cells) {
      std::printf("%s %s %-14s %s  [%s; %s]\n", reading.c_str(), c.id.c_str(), claims::to_string(c.verdict),
                  c.number.c_str(), c.statement.c_str(), c.basis.c_str());
      EXPECT_STREQ(claims::to_string(c.verdict), claims::to_string(stated.at(c.id)))
          << "claim " << c.id << " (" << c.statement << "), reading " << reading << ": " << c.number;
      // The committed claims table (what paper.md shows) agrees with it.
      EXPECT_EQ(committed[reading][c.id]["verdict"].get<std::string>(), claims::to_string(c.verdict))
          << "results/claims/paper/summary.json, claim " << c.id << ", reading " << reading;
    }
  }
}

// Claim 4 does not depend on the Potts data.
TEST(PaperClaims, GaussianModelClaimsAreTheStatedOnes) {
  const auto cells = claims::gaussian_claims(load("results/replica/paper/summary.json"),
                                             load("results/gaussian_sim/paper/summary.json"),
                                             load("results/gaussian_sim/paper_finite_size/summary.json"));
  for (const auto& c : cells) {
    std::printf("gaussian %s %-14s %s\n", c.id.c_str(), claims::to_string(c.verdict), c.number.c_str());
    EXPECT_EQ(c.verdict, kStated.at("gaussian").at(c.id)) << "claim " << c.id << ": " << c.number;
  }
}

// The paired s.e. of top-L(a) − top-L(b) on Ras from results/'s score
// matrices: a and b predictor keys, each fit a directory
// paper_pf00071_<key>[_s<seed>].
double p5_standard_error(const std::string& a, const std::string& b) {
  const std::string d = "results/proteins/";
  auto fits = [&](const std::string& key) {
    std::vector<arma::mat> out;
    for (const auto& e : std::filesystem::directory_iterator(d)) {
      const std::string name = e.path().filename().string(), stem = "paper_pf00071_" + key;
      if (name == stem || (name.rfind(stem + "_s", 0) == 0 &&
                           name.find_first_not_of("0123456789", stem.size() + 2) == std::string::npos))
        out.push_back(h5_read_matrix(e.path().string() + "/scores.h5", "scores"));
    }
    return out;
  };
  const auto columns = read_csv(d + "paper_pf00071/columns.csv");
  const auto contacts = read_csv(d + "paper_pf00071/contacts.csv");
  std::vector<int> numbers;
  for (double r : columns.at("residue")) numbers.push_back(int(r));
  std::set<std::pair<int, int>> truth;
  for (std::size_t k = 0; k < contacts.at("i").size(); ++k)
    truth.insert({int(contacts.at("i")[k]), int(contacts.at("j")[k])});
  const auto fa = fits(a), fb = fits(b);
  EXPECT_FALSE(fa.empty() || fb.empty()) << a << " or " << b << " has no committed score matrix";
  return proteins::paired_precision_difference(fa, fb, numbers, truth, 1.0, 6).standard_error;
}

// Claims P1-P5 on the real family, from the proteins score stage: P3 and P4
// compare the predictors the committed claims summary names (the heads
// sweep's single-head coupling model, its configurations, the weighted PLM);
// P5 the observation's protocol and the PLM on the same conventions.
TEST(PaperClaims, ProteinClaimsAreTheStatedOnes) {
  const nlohmann::json committed = load("results/claims/paper/summary.json");
  const nlohmann::json score = load("results/proteins/paper_pf00071_score/summary.json");
  const double margin = committed.at("protein_parity_margin").get<double>();
  ASSERT_TRUE(committed.contains("protein_heads")) << "the committed claims ran without the heads sweep";
  const nlohmann::json& ph = committed.at("protein_heads");
  claims::ProteinKeys keys;
  keys.p3_factored = ph.at("p3_factored").get<std::string>();
  keys.plm = ph.at("plm").get<std::string>();
  auto configurations = [](const nlohmann::json& list) {
    std::vector<claims::HeadsConfiguration> out;
    for (const auto& c : list)
      out.push_back({c.at("key").get<std::string>(), c.at("heads").get<int>(), c.at("paper_form").get<bool>()});
    return out;
  };
  auto cells = claims::protein_claims(score, margin, keys);
  std::vector<claims::HeadsClaim> heads = {
      claims::heads_claim(score, keys.plm, configurations(ph.at("configurations")), margin)};
  for (const auto& h : heads) cells.push_back(h.cell);
  // P5: the observation's protocol against the PLM on its conventions, by
  // the paired rule, from the keys the committed summary names.
  ASSERT_TRUE(committed.contains("protein_observation")) << "the committed claims ran without claim P5";
  const nlohmann::json& po = committed.at("protein_observation");
  claims::ObservationKeys ok;
  ok.statement = committed.at("proteins").at("P5").at("statement").get<std::string>();
  ok.attention = po.at("attention").get<std::string>();
  ok.plm = po.at("plm").get<std::string>();
  ok.weighted_plm = po.at("weighted_plm").get<std::string>();
  ok.observed_gap = po.at("observed_gap").get<double>();
  cells.push_back(claims::observation_claim(score, margin, ok));
  // Its s.e., recomputed from the committed score matrices (every seed of
  // the attention configuration, the PLM's one fit), the structure's
  // contacts and the columns' residue numbers by the paired jackknife
  // (lib/proteins/paired.h), not read back from the score summary.
  EXPECT_NEAR(cells.back().se, p5_standard_error(ok.attention, ok.plm), 1e-12);
  ASSERT_EQ(cells.size(), kStated.at("proteins").size());
  for (const auto& c : cells) {
    std::printf("proteins %s %-14s %s\n", c.id.c_str(), claims::to_string(c.verdict), c.number.c_str());
    ASSERT_TRUE(kStated.at("proteins").count(c.id)) << "claim " << c.id << " has no stated verdict";
    EXPECT_EQ(c.verdict, kStated.at("proteins").at(c.id)) << "claim " << c.id << ": " << c.number;
    EXPECT_EQ(committed["proteins"][c.id]["verdict"].get<std::string>(), claims::to_string(c.verdict)) << c.id;
  }
  for (const auto& h : heads)
    EXPECT_EQ(committed["proteins"][h.cell.id]["smallest_heads"].get<int>(), h.smallest_heads) << h.cell.id;
}

// Claim P6 over the panel of families, recomputed by its rule from the
// committed table (results/proteins/paper_panel/panel.csv, the panel stage's
// top-L precisions); the table itself is checked against the committed
// score matrices by //proteins:panel_rescore_test.
TEST(PaperClaims, PanelClaimIsTheStatedOne) {
  const nlohmann::json committed = load("results/claims/paper/summary.json");
  ASSERT_TRUE(committed.at("proteins").contains("P6")) << "the committed claims ran without claim P6";
  const nlohmann::json& p6 = committed.at("proteins").at("P6");
  const auto t = read_csv("results/proteins/paper_panel/panel.csv");
  std::vector<claims::PanelFamily> families;
  for (std::size_t i = 0; i < t.at("pfam").size(); ++i)
    families.push_back({std::to_string(int(t.at("pfam")[i])), t.at("attention_L")[i], t.at("plm_L")[i],
                        t.at("weighted_plm_L")[i], t.at("evfold_L")[i]});
  EXPECT_EQ(families.size(), 40u) << "the panel is the covariation benchmark's 40 families";
  claims::PanelKeys keys;
  keys.statement = p6.at("statement").get<std::string>();
  keys.observed_gap = p6.at("panel").at("observed_gap").get<double>();
  keys.seed = p6.at("panel").at("seed").get<std::uint64_t>();
  nlohmann::json detail;
  const claims::Cell c =
      claims::panel_claim(families, committed.at("protein_parity_margin").get<double>(), keys, &detail);
  std::printf("panel P6 %-14s %s\n", claims::to_string(c.verdict), c.number.c_str());
  EXPECT_EQ(c.verdict, kStated.at("panel").at("P6")) << c.number;
  EXPECT_EQ(p6.at("verdict").get<std::string>(), claims::to_string(c.verdict));
  EXPECT_EQ(p6.at("number").get<std::string>(), c.number) << "the committed P6 is not its table's";
  EXPECT_EQ(p6.at("panel"), detail);
}

// Figure 2d's a = 0 point is factored attention: for every seed, the
// perturb stage at a = 0 is the train stage's factored run, bit for bit.
TEST(PaperClaims, PerturbAtZeroIsTheTrainStagesFactoredRun) {
  for (const std::string reading : {"h70", "h30"}) {
    const auto p = read_csv("results/perturb/paper_" + reading + "/perturb.csv");
    const auto t = read_csv("results/train/paper_" + reading + "/seeds.csv");
    int matched = 0;
    for (std::size_t i = 0; i < p.at("a").size(); ++i) {
      if (p.at("a")[i] != 0.0) continue;
      for (std::size_t j = 0; j < t.at("seed").size(); ++j)
        if (t.at("model")[j] == 0.0 && t.at("seed")[j] == p.at("seed")[i]) {
          EXPECT_EQ(p.at("test_loss")[i], t.at("test_loss")[j]) << reading << " seed " << p.at("seed")[i];
          ++matched;
        }
    }
    EXPECT_EQ(matched, 5) << reading;
  }
}

// Stalled restarts are counted, never dropped: every seed is in the means.
TEST(PaperClaims, EverySeedIsInTheMeans) {
  for (const std::string reading : {"h70", "h30"}) {
    const auto s = load("results/train/paper_" + reading + "/summary.json");
    for (const char* m : {"factored", "vanilla1", "vanilla3"}) {
      EXPECT_EQ(s[m]["runs"].get<int>(), 5) << reading << " " << m;
      EXPECT_EQ(s[m]["gap"]["values"].size(), 5u) << reading << " " << m;
      std::printf("%s %s: of 5 restarts %d stalled, %d out of budget\n", reading.c_str(), m, s[m]["stalled"].get<int>(),
                  s[m]["budget_limited"].get<int>());
    }
  }
}

// The literate paper's Markdown tables keep their columns: every row has as
// many cell separators ('|') as its header, so no filled value splits a cell
// (the claims' texts write absolute values with U+2223 for this reason).
TEST(PaperClaims, EveryTableRowOfPaperMdHasTheHeadersColumns) {
  std::vector<std::string> lines;
  {
    std::istringstream in(read_text("results/paper.md"));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  auto bars = [](const std::string& l) { return std::count(l.begin(), l.end(), '|'); };
  auto is_rule = [](const std::string& l) {
    return l.size() > 2 && l[0] == '|' && l.find_first_not_of("|-: ") == std::string::npos;
  };
  int tables = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].empty() || lines[i][0] != '|' || !is_rule(lines[i + 1])) continue;
    ++tables;
    const auto n = bars(lines[i]);
    for (std::size_t j = i + 2; j < lines.size() && !lines[j].empty() && lines[j][0] == '|'; ++j)
      EXPECT_EQ(bars(lines[j]), n) << "results/paper.md line " << j + 1 << ": " << lines[j].substr(0, 80);
  }
  EXPECT_GE(tables, 4);
}

}  // namespace
}  // namespace potts
