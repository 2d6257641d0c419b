// The quick family's columns and contacts for the proteins branch's
// science tests (the prepare stage's columns.csv and contacts.csv).
#pragma once
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "lib/core/io.h"
#include "lib/proteins/contacts.h"

namespace potts::testing_quick {

const std::string kFamily = "stages/proteins/quick_pf00071/";

// The residue number of each column.
inline std::vector<int> residues() {
  std::vector<int> out;
  for (double r : csv_column(read_csv(kFamily + "columns.csv"), "columns.csv", "residue")) out.push_back(int(r));
  return out;
}

// The contacts, pairs of residue numbers (i < j).
inline std::set<std::pair<int, int>> contacts() {
  const auto c = read_csv(kFamily + "contacts.csv");
  const auto& ci = csv_column(c, "contacts.csv", "i");
  const auto& cj = csv_column(c, "contacts.csv", "j");
  std::set<std::pair<int, int>> truth;
  for (std::size_t k = 0; k < ci.size(); ++k) truth.insert({int(ci[k]), int(cj[k])});
  return truth;
}

// Top-L precision (|i - j| >= 6) of a run's scores.h5 against the contacts,
// L the number of columns.
inline double top_l(const std::string& scores_h5) {
  const std::vector<int> numbers = residues();
  const arma::mat S = h5_read_matrix(scores_h5, "scores");
  return proteins::precision_at(S, numbers, contacts(), numbers.size(), 6);
}

// A quick fit's output folder.
inline std::string run_dir(const std::string& run) { return "stages/proteins/quick_pf00071_" + run + "/"; }

// Top-L precision of a quick fit, printed with its description, after
// checking that the family is the one the thresholds were set on (351
// contacts over 159 columns).
inline double checked_top_l(const std::string& run, const std::string& what) {
  EXPECT_EQ(contacts().size(), 351u);
  EXPECT_EQ(residues().size(), 159u);
  const double p = top_l(run_dir(run) + "scores.h5");
  std::printf("%s: top-L precision %.3f\n", what.c_str(), p);
  return p;
}

// A quick fit's score matrix is L x L (L the columns), finite, symmetric and
// zero on the diagonal.
inline void expect_contact_scores(const std::string& run) {
  const arma::mat S = h5_read_matrix(run_dir(run) + "scores.h5", "scores");
  const arma::uword L = residues().size();
  ASSERT_EQ(S.n_rows, L) << run;
  ASSERT_EQ(S.n_cols, L) << run;
  EXPECT_TRUE(S.is_finite()) << run;
  EXPECT_LT(arma::abs(S - S.t()).max(), 1e-12) << run;
  EXPECT_EQ(arma::abs(S.diag()).max(), 0.0) << run;
}

// The L-BFGS objective of a quick fit's curves.csv never rises.
inline void expect_objective_never_rises(const std::string& run) {
  const auto table = read_csv(run_dir(run) + "curves.csv");
  const auto& obj = csv_column(table, run, "objective");
  ASSERT_GE(obj.size(), 2u) << run;
  for (std::size_t k = 1; k < obj.size(); ++k) EXPECT_LE(obj[k], obj[k - 1]) << run << " iteration " << k;
}

}  // namespace potts::testing_quick
