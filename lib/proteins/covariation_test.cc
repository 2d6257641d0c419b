// The covariation benchmark's reader (covariation.h): constructed files, and
// every vendored family mapped onto its structure.
#include "lib/proteins/covariation.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/proteins/structure.h"
#include "tests/util/test_util.h"

namespace potts::proteins {
namespace {

using testing_util::error_of;

// Query row K-LA-G over 6 columns: residues in columns 0, 2, 3, 5.
const char* kFasta =
    ">a/1-5\n"
    "KILAEG\n"
    ">b/2-6\n"
    "R-LXEG\n"  // an ambiguity code: skipped
    ">c/1-4\n"
    "K-\nLA-G\n";  // the query's own row, on two lines
const char* kIndices = "0 K 1 10 A 3\n2 L 2 12 A 1\n3 A 3 13 A 2\n5 G 4 15 A 9\n";

TEST(Covariation, QueryRowFoundColumnsAndNumbers) {
  const Alignment a = parse_fasta_with_query(kFasta, "f.fa", "K-LA-G", "1ABC_A/query", {10, 12, 13, 15});
  ASSERT_EQ(a.sequences.n_rows, 2u);  // c (the query, moved first), a
  ASSERT_EQ(a.sequences.n_cols, 4u);
  EXPECT_EQ(a.names[0], "c/1-4");
  EXPECT_EQ(a.names[1], "a/1-5");
  EXPECT_EQ(a.query, "KLAG");
  EXPECT_EQ(a.residue_numbers, (std::vector<int>{10, 12, 13, 15}));
  EXPECT_EQ(a.skipped_ambiguous, 1u);
  std::string first;
  for (arma::uword j = 0; j < 4; ++j) first += state_letter(int(a.sequences(1, j)));
  EXPECT_EQ(first, "KLAG");  // a's letters in the query's columns
}

TEST(Covariation, QueryAddedWhenNoRowEqualsIt) {
  const Alignment a = parse_fasta_with_query(kFasta, "f.fa", "R-LA-G", "1ABC_A/query", {10, 12, 13, 15});
  ASSERT_EQ(a.sequences.n_rows, 3u);
  EXPECT_EQ(a.names[0], "1ABC_A/query");
  EXPECT_EQ(a.query, "RLAG");
}

TEST(Covariation, MalformedInputsNameTheirFault) {
  EXPECT_NE(error_of([] {
              parse_fasta_with_query(kFasta, "f.fa", "K-LA-", "q", {1, 2, 3});
            }).find("5 columns"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_fasta_with_query(kFasta, "f.fa", "K-LA-G", "q", {1, 2, 3});
            }).find("3 residue numbers"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_fasta_with_query(kFasta, "f.fa", "K-la-G", "q", {1, 2, 3, 4});
            }).find("column 3"),
            std::string::npos);
  const std::vector<int> n = parse_covariation_indices(kIndices, "x.indices", "K-LA-G", "A");
  EXPECT_EQ(n, (std::vector<int>{10, 12, 13, 15}));
  EXPECT_NE(error_of([] {
              parse_covariation_indices("0 K 1 10 A 3\n3 A 3 13 A 2\n", "x.indices", "K-LA-G", "A");
            }).find("x.indices: line 2: column 3, expected column 2"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { parse_covariation_indices("0 W 1 10 A 3\n", "x.indices", "K-LA-G", "A"); }).find("amino acid 'W'"),
      std::string::npos);
  EXPECT_NE(error_of([] { parse_covariation_indices(kIndices, "x.indices", "K-LA-G", "B"); }).find("chain 'A'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_covariation_indices("0 K 1 10 A 3\n2 L 2 9 A 1\n3 A 3 13 A 2\n5 G 4 15 A 9\n", "x.indices",
                                        "K-LA-G", "A");
            }).find("do not increase"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_covariation_indices("0 K 1 10 A 3\n", "x.indices", "K-LA-G", "A");
            }).find("1 columns listed, the query has 4"),
            std::string::npos);
  const std::string seqs = "PF1 1ABC_A K-LA-G\nPF2 2XYZ_A KL\n";
  EXPECT_EQ(parse_covariation_query(seqs, "d.txt", "PF2").chain, "2XYZ_A");
  EXPECT_NE(error_of([&] { parse_covariation_query(seqs, "d.txt", "PF3"); }).find("no line for family PF3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_covariation_query(seqs + "PF1 1ABC_A K\n", "d.txt", "PF1"); }).find("twice"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_covariation_query("PF1 1ABC_A\n", "d.txt", "PF1"); }).find("line 1"),
            std::string::npos);
}

// Every vendored family: the alignment reads, its query maps onto chain A
// of its structure letter for letter (check_query_matches), and the
// structure has contacts among the query's residues. The reader adds the
// query exactly where no line of the alignment's file is the query row (a
// plain text search: these files hold each sequence on one line).
TEST(Covariation, EveryVendoredFamilyMapsOntoItsStructure) {
  const std::string root = "third_party/covariation/";
  const std::string seqs = root + "analysis/domain_sequences.txt";
  std::istringstream lines(read_text(seqs));
  std::string pfam, chain, row;
  int families = 0, added = 0;
  while (lines >> pfam >> chain >> row) {
    SCOPED_TRACE(pfam);
    const Alignment a = read_covariation_family(root + "analysis/natural_alignments/" + pfam + ".align.80", seqs,
                                                root + "analysis/indices/" + chain + ".indices", pfam);
    const auto residues = read_pdb_residues(root + "input/domains/" + pfam + "/" + chain + ".pdb", "A");
    EXPECT_NO_THROW(check_query_matches(residues, a.residue_numbers, a.query, pfam));
    const auto c = contacts(residues, a.residue_numbers, 8.0, 6);
    EXPECT_GE(c.size(), a.residue_numbers.size() / 4) << a.residue_numbers.size() << " residues";
    EXPECT_GE(a.sequences.n_rows, 300u);
    const std::string text = read_text(root + "analysis/natural_alignments/" + pfam + ".align.80");
    const bool listed = text.find("\n" + row + "\n") != std::string::npos;
    EXPECT_EQ(a.names[0] == chain + "/query", !listed);
    added += !listed;
    ++families;
  }
  EXPECT_EQ(families, 40);
  EXPECT_EQ(added, 23);  // third_party/covariation/README.md
}

}  // namespace
}  // namespace potts::proteins
