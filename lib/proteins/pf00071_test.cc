// The real family: Pfam PF00071 (Ras), 999 sequences, as shipped among the
// examples of Debian's freecontact package, read with the query
// RASH_HUMAN/5-165 and checked against PDB entry 121P.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "lib/proteins/msa.h"
#include "lib/proteins/structure.h"

namespace potts::proteins {
namespace {

constexpr const char* kAlignment = "/usr/share/doc/freecontact/examples/PF00071_v25_999.fa";

TEST(Pf00071, MatchColumnsNumberingWeightsAndStructure) {
  const Alignment a = read_a2m(kAlignment, "RASH_HUMAN/");
  // The query's two lower-case residues (106 and 165) are insert columns.
  EXPECT_EQ(a.sequences.n_rows + a.skipped_ambiguous, 999u);
  ASSERT_EQ(a.sequences.n_cols, 159u);
  EXPECT_EQ(a.residue_numbers.front(), 5);
  EXPECT_EQ(a.residue_numbers.back(), 164);
  EXPECT_EQ(a.names.front(), "RASH_HUMAN/5-165");
  const std::string pdb =
      std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") + "/third_party/pdb/121p.pdb";
  EXPECT_NO_THROW(check_query_matches(read_pdb_residues(pdb), a.residue_numbers, a.query, pdb));
  const arma::vec w = sequence_weights(a.sequences, 0.8);
  const double n_eff = arma::accu(w);
  std::printf("PF00071: %llu sequences (%zu skipped for ambiguity codes), %llu columns, N_eff(80%%) = %.1f\n",
              static_cast<unsigned long long>(a.sequences.n_rows), a.skipped_ambiguous,
              static_cast<unsigned long long>(a.sequences.n_cols), n_eff);
  EXPECT_LE(w.max(), 1.0);
  EXPECT_GT(w.min(), 0.0);
  // An independent computation (same alignment, 80 % identity) gave about 600.
  EXPECT_NEAR(n_eff, 600.0, 25.0);

  // A split by clusters: no test sequence 80 % identical to a training one.
  Rng rng(1, 0);
  const Split sp = cluster_split(a.sequences, 0.8, 0.2, rng);
  std::printf("PF00071 split: %zu clusters, %zu train, %zu test sequences\n", sp.clusters, sp.train.size(),
              sp.test.size());
  EXPECT_GE(double(sp.test.size()), 0.2 * double(a.sequences.n_rows));
  EXPECT_LT(double(sp.test.size()), 0.5 * double(a.sequences.n_rows));
  std::vector<bool> test(a.sequences.n_rows, false);
  for (arma::uword i : sp.test) test[i] = true;
  for (const auto& [i, j] : similar_pairs(a.sequences, 0.8)) EXPECT_EQ(test[i], test[j]) << i << ", " << j;
}

}  // namespace
}  // namespace potts::proteins
