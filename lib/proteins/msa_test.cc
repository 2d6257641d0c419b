// Alignment reading (msa.h): match columns and residue numbers from the
// query, ambiguity codes skipped, every malformed input an error naming the
// file and the line; sequence weights.
#include "lib/proteins/msa.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"
#include "tests/util/test_util.h"

namespace potts::proteins {
namespace {

using testing_util::error_of;

// Query Q/3-9: letters K L v A - G s D (v and s inserts; '-' a query gap),
// so match columns 0, 1, 3, 5, 7 with residues 3, 4, 6, 7, 9.
const char* kA2m =
    ">other/1-8\n"
    "KIVA-GTE\n"
    ">Q/3-9\n"
    "KLvA-\nGsD\n"
    ">X_has_ambiguity\n"
    "KXVAAGTD\n"
    ">gappy\n"
    "-.--A---\n";

TEST(A2m, QueryColumnsResidueNumbersAndStates) {
  const Alignment a = parse_a2m(kA2m, "fam.a2m", "Q/");
  ASSERT_EQ(a.sequences.n_rows, 3u);  // the query, other, gappy
  ASSERT_EQ(a.sequences.n_cols, 5u);
  EXPECT_EQ(a.names[0], "Q/3-9");
  EXPECT_EQ(a.names[1], "other/1-8");
  EXPECT_EQ(a.residue_numbers, (std::vector<int>{3, 4, 6, 7, 9}));
  EXPECT_EQ(a.query, "KLAGD");
  EXPECT_EQ(a.skipped_ambiguous, 1u);
  std::string other, gappy;
  for (arma::uword j = 0; j < 5; ++j) other += state_letter(int(a.sequences(1, j)));
  for (arma::uword j = 0; j < 5; ++j) gappy += state_letter(int(a.sequences(2, j)));
  EXPECT_EQ(other, "KIAGE");
  EXPECT_EQ(gappy, "-----");  // '.' and '-' are the gap; the A at column 4 is an insert
  EXPECT_EQ(letter_state('A'), 0);
  EXPECT_EQ(letter_state('Y'), 19);
  EXPECT_EQ(letter_state('-'), kGap);
  EXPECT_EQ(letter_state('X'), -1);
}

TEST(A2m, MalformedInputNamesTheFileLineAndWhat) {
  std::string e = error_of([] { parse_a2m(">Q/1-3\nKLA\n>b\nK1A\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("f.a2m: line 3: '1' at column 2 is not an amino-acid letter"), std::string::npos) << e;
  e = error_of([] { parse_a2m(">Q/1-3\nKLA\n>b\nKLAA\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("f.a2m: line 3: sequence 'b' has 4 aligned columns, the query 3"), std::string::npos) << e;
  e = error_of([] { parse_a2m(">P/1-3\nKLA\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("f.a2m: no sequence name starts with 'Q/'"), std::string::npos) << e;
  e = error_of([] { parse_a2m(">Q\nKLA\n", "f.a2m", "Q"); });
  EXPECT_NE(e.find("does not end in /start-end"), std::string::npos) << e;
  e = error_of([] { parse_a2m(">Q/1-5\nKLA\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("the query holds 3 residues, its name says 1-5"), std::string::npos) << e;
  e = error_of([] { parse_a2m("KLA\n>Q/1-3\nKLA\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("f.a2m: line 1: sequence before the first '>'"), std::string::npos) << e;
  e = error_of([] { parse_a2m(">Q/1-3\nkla\n", "f.a2m", "Q/"); });
  EXPECT_NE(e.find("no upper-case (match) column"), std::string::npos) << e;
  e = error_of([] { read_a2m("/nonexistent/f.a2m", "Q/"); });
  EXPECT_NE(e.find("/nonexistent/f.a2m: cannot open for reading"), std::string::npos) << e;
}

TEST(Aln, EveryColumnNumberedFromTheFirstResidue) {
  const Alignment a = parse_aln("KLAG\nKL-G\nKBAG\n\nALAG\n", "f.aln", 10);
  EXPECT_EQ(a.sequences.n_rows, 3u);
  EXPECT_EQ(a.skipped_ambiguous, 1u);
  EXPECT_EQ(a.residue_numbers, (std::vector<int>{10, 11, 12, 13}));
  EXPECT_EQ(a.query, "KLAG");
  const std::string e = error_of([] { parse_aln("KLAG\nKLA\n", "f.aln", 1); });
  EXPECT_NE(e.find("f.aln: line 2: sequence 'line 2' has 3 aligned columns, the query 4"), std::string::npos) << e;
}

TEST(Weights, NearCopiesShareOneWeight) {
  // Rows 0 and 1 agree at 4 of 5 columns (80 %), row 2 agrees with neither.
  arma::imat s = {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 5}, {6, 7, 8, 9, 10}};
  arma::vec w = sequence_weights(s, 0.8);
  EXPECT_DOUBLE_EQ(w(0), 0.5);
  EXPECT_DOUBLE_EQ(w(1), 0.5);
  EXPECT_DOUBLE_EQ(w(2), 1.0);
  EXPECT_DOUBLE_EQ(arma::accu(sequence_weights(s, 0.81)), 3.0);  // 4/5 < 0.81: all distinct
}

TEST(Split, ClustersStayTogetherAndTheSeedDecides) {
  // Rows 0-1 and 2-3 are near copies (4 of 5 columns); rows 4 and 5 stand alone.
  arma::imat s = {{0, 1, 2, 3, 4},  {0, 1, 2, 3, 5},      {6, 7, 8, 9, 10},
                  {6, 7, 8, 9, 11}, {12, 13, 14, 15, 16}, {17, 18, 19, 0, 1}};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Rng rng(seed, 0);
    const Split sp = cluster_split(s, 0.8, 0.3, rng);
    EXPECT_EQ(sp.clusters, 4u);
    EXPECT_EQ(sp.train.size() + sp.test.size(), 6u);
    EXPECT_GE(sp.test.size(), 2u);  // at least 30 % of 6
    auto in_test = [&](arma::uword i) { return std::count(sp.test.begin(), sp.test.end(), i) > 0; };
    EXPECT_EQ(in_test(0), in_test(1)) << "seed " << seed;
    EXPECT_EQ(in_test(2), in_test(3)) << "seed " << seed;
  }
  Rng a(3, 0), b(3, 0);
  EXPECT_EQ(cluster_split(s, 0.8, 0.3, a).test, cluster_split(s, 0.8, 0.3, b).test);
  Rng c(1, 0);
  EXPECT_THROW(cluster_split(s, 0.8, 1.0, c), StageError);
}

}  // namespace
}  // namespace potts::proteins
