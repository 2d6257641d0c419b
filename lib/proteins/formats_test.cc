// lib/proteins/formats.h: A3M read as the A2M it stands for, on a toy
// alignment and on Ras (PF00071, Debian's freecontact example) written as
// A3M; the .mat and RR texts read back.
#include "lib/proteins/formats.h"

#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/proteins/msa.h"

namespace potts::proteins {
namespace {

// Five match columns; the query's 'd' and s2's "gk" are insertions after
// the second. As A3M, then as the A2M it stands for ('.' padding).
constexpr const char* kA3m = ">Q/3-8\nACdEFG\n>s1\nACEFG\n>s2\nAWgkEFG\n>s3\nCCE-G\n";
constexpr const char* kA2m = ">Q/3-8\nACd.EFG\n>s1\nAC..EFG\n>s2\nAWgkEFG\n>s3\nCC..E-G\n";

void expect_same_alignment(const Alignment& a, const Alignment& b) {
  ASSERT_EQ(a.sequences.n_rows, b.sequences.n_rows);
  ASSERT_EQ(a.sequences.n_cols, b.sequences.n_cols);
  EXPECT_TRUE(arma::all(arma::vectorise(a.sequences == b.sequences)));
  EXPECT_EQ(a.residue_numbers, b.residue_numbers);
  EXPECT_EQ(a.query, b.query);
  EXPECT_EQ(a.names, b.names);
}

TEST(A3m, PadsInsertionsIntoTheA2mItStandsFor) {
  EXPECT_TRUE(looks_like_a3m(kA3m));
  EXPECT_FALSE(looks_like_a3m(kA2m));
  const std::string a2m = a3m_to_a2m(kA3m, "toy.a3m", "Q/", 1);
  EXPECT_EQ(a2m, kA2m);
  const Alignment a = parse_a2m(a2m, "converted", "Q/");
  EXPECT_EQ(a.residue_numbers, (std::vector<int>{3, 4, 6, 7, 8}));
  EXPECT_EQ(a.query, "ACEFG");
  // ColabFold's '#' header and a query named without /start-end.
  const std::string named = a3m_to_a2m("#5\t1\n>101\nACdEFG\n>s1\nACEFG\n", "cf.a3m", "", 10);
  EXPECT_EQ(named.substr(0, named.find('\n')), ">101/10-15");
}

TEST(A3m, ErrorsNameTheLineAndWhatWasExpected) {
  auto message = [](const std::string& text, const std::string& query) {
    try {
      a3m_to_a2m(text, "f.a3m", query, 1);
    } catch (const StageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(">Q/1-3\nACD\n>s\nA*D\n", "Q").find("f.a3m: line 4: '*' at character 2"), std::string::npos);
  EXPECT_NE(message(">Q/1-3\nACD\n>s\nACDE\n", "Q").find("f.a3m: line 3: sequence 's' has 4 match columns"),
            std::string::npos);
  EXPECT_NE(message(">Q/1-3\nACD\n", "R").find("no sequence name starts with 'R'"), std::string::npos);
}

// Ras as A3M: every row's match columns upper case, its letters in the
// query's insert columns lower case, gaps there dropped; then three more
// inserted letters in every seventh row. Read back, it is the alignment
// the original A2M gives.
TEST(A3m, RasReadsBackAsItsA2m) {
  const std::string path = "/usr/share/doc/freecontact/examples/PF00071_v25_999.fa";
  const std::string text = read_text(path);
  std::istringstream in(text);
  std::string line, query_row, a3m;
  std::vector<std::pair<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '>')
      rows.emplace_back(line, "");
    else
      rows.back().second += line;
  }
  query_row = rows.at(0).second;  // RASH_HUMAN/5-165 comes first
  ASSERT_EQ(rows[0].first.rfind(">RASH_HUMAN/", 0), 0u);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string out;
    std::size_t matches = 0;
    for (std::size_t c = 0; c < rows[r].second.size(); ++c) {
      const char x = rows[r].second[c];
      const bool match = std::isupper(static_cast<unsigned char>(query_row[c]));
      const bool letter = std::isalpha(static_cast<unsigned char>(x));
      if (match)
        out += letter ? char(std::toupper(x)) : '-', ++matches;
      else if (letter)
        out += char(std::tolower(x));
      if (match && matches == 50 && r % 7 == 3) out += "gkq";
    }
    a3m += rows[r].first + '\n' + out + '\n';
  }
  ASSERT_TRUE(looks_like_a3m(a3m));
  const Alignment original = read_a2m(path, "RASH_HUMAN/");
  const Alignment converted = parse_a2m(a3m_to_a2m(a3m, "ras.a3m", "RASH_HUMAN/", 1), "ras.a2m", "RASH_HUMAN/");
  expect_same_alignment(original, converted);
  EXPECT_EQ(converted.skipped_ambiguous, original.skipped_ambiguous);
}

TEST(Mat, ReadsBackInResidueOrder) {
  const arma::mat S = {{0.0, 1.5, -2.25}, {1.5, 0.0, 3.0e-7}, {-2.25, 3.0e-7, 0.0}};
  const std::string text = score_matrix_text(S, {5, 6, 8});
  std::istringstream in(text);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "# residues 5 6 8");
  for (arma::uword i = 0; i < 3; ++i)
    for (arma::uword j = 0; j < 3; ++j) {
      double v = 0.0;
      ASSERT_TRUE(in >> v);
      EXPECT_NEAR(v, S(i, j), 1e-8 * std::abs(S(i, j)));
    }
  double extra;
  EXPECT_FALSE(in >> extra);
  EXPECT_THROW(score_matrix_text(S, {1, 2}), StageError);
}

TEST(Rr, ListsTheBestSeparatedPairsAsProbabilities) {
  // Residues 1..8; the best pairs by score, |i - j| >= 3 only.
  arma::mat S(8, 8, arma::fill::zeros);
  auto set = [&](int i, int j, double v) { S(i - 1, j - 1) = S(j - 1, i - 1) = v; };
  set(1, 8, 9.0);
  set(2, 3, 100.0);  // too close: never listed
  set(2, 6, 5.0);
  set(3, 7, 1.0);
  const std::string rr = rr_text(S, {1, 2, 3, 4, 5, 6, 7, 8}, "ACDEFGHI", "T0001", "cm_plm", 3, 3);
  std::istringstream in(rr);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_GE(lines.size(), 11u);
  EXPECT_EQ(lines[0], "PFRMAT RR");
  EXPECT_EQ(lines[1], "TARGET T0001");
  EXPECT_EQ(lines[3], "METHOD cm_plm");
  EXPECT_EQ(lines[5], "MODEL 1");
  EXPECT_EQ(lines[6], "ACDEFGHI");
  EXPECT_EQ(lines[7], "1 8 0 8 1.00000");
  EXPECT_EQ(lines[8], "2 6 0 8 0.50000");  // (5 - 1) / (9 - 1) over the listed pairs
  EXPECT_EQ(lines[9], "3 7 0 8 0.00000");
  EXPECT_EQ(lines[10], "END");
}

}  // namespace
}  // namespace potts::proteins
