// The panel's smallest family through prepare, EVfold and the score stage
// (//stages/proteins:quick_panel_pf00542_*): the covariation benchmark's
// query row, column map and structure read and mapped, and the scorer finds
// EVfold's contacts.
//
// Tolerances:
//  * L is the number of residues in the family's query row (counted here
//    from the vendored file), the residues are the structure's own numbers
//    (1CTF chain A, residues 53-120), and the map gives at least one contact
//    per four residues (a folded domain of 68 residues has far more).
//  * EVfold's top-L precision is at least the random rate plus five binomial
//    s.e. of L = 68 pairs at that rate: a shifted or transposed column map
//    gives about the random rate.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"

namespace potts {
namespace {

TEST(PanelQuick, TheQueryMapsOntoItsStructureAndEvfoldFindsContacts) {
  const nlohmann::json s = read_json("stages/proteins/quick_panel_pf00542_score/summary.json");
  std::istringstream lines(read_text("third_party/covariation/analysis/domain_sequences.txt"));
  std::string pfam, chain, row;
  int residues = -1;
  while (lines >> pfam >> chain >> row)
    if (pfam == "PF00542") residues = int(row.size()) - int(std::count(row.begin(), row.end(), '-'));
  ASSERT_GT(residues, 0);
  EXPECT_EQ(s.at("L").get<int>(), residues);
  EXPECT_EQ(s.at("first_residue").get<int>(), 53);
  EXPECT_EQ(s.at("last_residue").get<int>(), 120);
  EXPECT_GE(s.at("contacts").get<int>(), residues / 4);
  const double random = s.at("random_precision_6+").get<double>();
  const double L = double(residues);
  const double evfold = s.at("predictors").at("evfold").at("precision").at("6+").at("L").at("mean").get<double>();
  EXPECT_GT(evfold, random + 5.0 * std::sqrt(random * (1.0 - random) / L)) << "random rate " << random;
}

// The panel's table (proteins_panel) carries the score stage's numbers and
// the family's size: one row, the same top-L, N_eff / L from the prepare
// summary.
TEST(PanelQuick, TheTableCarriesTheScores) {
  const auto t = read_csv("stages/proteins/quick_panel/panel.csv");
  const nlohmann::json score = read_json("stages/proteins/quick_panel_pf00542_score/summary.json");
  const nlohmann::json table = read_json("stages/proteins/quick_panel/summary.json");
  ASSERT_EQ(t.at("pfam").size(), 1u);
  EXPECT_EQ(t.at("pfam")[0], 542.0);
  EXPECT_EQ(t.at("L")[0], score.at("L").get<double>());
  EXPECT_EQ(t.at("evfold_L")[0],
            score.at("predictors").at("evfold").at("precision").at("6+").at("L").at("mean").get<double>());
  EXPECT_NEAR(t.at("n_eff_per_column")[0] * t.at("L")[0], t.at("n_eff")[0], 1e-9 * t.at("n_eff")[0]);
  EXPECT_GT(t.at("n_eff")[0], 1.0);
  EXPECT_EQ(table.at("roles").at("evfold").at("median_top_L").get<double>(), t.at("evfold_L")[0]);
}

}  // namespace
}  // namespace potts
