// Structures (structure.h): the representative atom of each residue, the
// contact map, the query check, and malformed records; on a hand-made file
// and on PDB entry 121P (H-Ras p21), the truth of the PF00071 alignment.
#include "lib/proteins/structure.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "lib/core/error.h"
#include "tests/util/test_util.h"

namespace potts::proteins {
namespace {

using testing_util::error_of;

std::string atom(int serial, const char* name, const char* res, int number, double x, double y, double z,
                 char alt = ' ') {
  char buf[100];
  std::snprintf(buf, sizeof buf, "ATOM  %5d %-4s%c%3s A%4d    %8.3f%8.3f%8.3f  1.00 10.00\n", serial, name, alt, res,
                number, x, y, z);
  return buf;
}

TEST(Pdb, CbOrCaPerResidueAndContactsBySeparationAndCutoff) {
  std::string t = "HEADER    TEST\n";
  t += atom(1, " CA ", "GLY", 1, 0, 0, 0);  // glycine: CA stands in
  t += atom(2, " CA ", "ALA", 2, 0, 0, 50);
  t += atom(3, " CB ", "ALA", 2, 0, 0, 100);        // CB preferred
  t += atom(4, " CA ", "LYS", 8, 0, 0, 7.9);        // 7.9 A from residue 1, 7 apart
  t += atom(5, " CA ", "LYS", 9, 0, 0, 8.1);        // 8.1 A: no contact
  t += atom(6, " CB ", "SER", 10, 0, 0, 1.0, 'B');  // second alternate location: ignored
  t += atom(7, " CA ", "SER", 10, 0, 0, 3.0);
  t += "HETATM    8  O   HOH   200       0.000   0.000   0.000\n";
  const auto r = parse_pdb_residues(t, "t.pdb");
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r.at(1).letter, 'G');
  EXPECT_FALSE(r.at(1).has_cb);
  EXPECT_TRUE(r.at(2).has_cb);
  EXPECT_EQ(r.at(2).position(2), 100.0);
  EXPECT_EQ(r.at(10).position(2), 3.0);
  const auto c = contacts(r, {1, 2, 8, 9, 10}, 8.0, 6);
  // 1-8: 7.9 A; 1-10: 3 A (its CA: the CB is another location); 1-9: 8.1 A.
  EXPECT_EQ(c, (std::vector<std::pair<int, int>>{{1, 8}, {1, 10}}));
}

TEST(Pdb, MalformedRecordsAndMismatchedQueriesAreNamed) {
  std::string bad = atom(1, " CA ", "GLY", 1, 0, 0, 0);
  bad.replace(30, 8, "   1.x.2");
  std::string e = error_of([&] { parse_pdb_residues(bad, "b.pdb"); });
  EXPECT_NE(e.find("b.pdb: line 1: x (columns 31-38) is not a number"), std::string::npos) << e;
  e = error_of([] { parse_pdb_residues("ATOM      1  CA  GLY A   1\n", "s.pdb"); });
  EXPECT_NE(e.find("s.pdb: line 1: ATOM record shorter than 54 columns"), std::string::npos) << e;
  e = error_of([] { parse_pdb_residues("HEADER\n", "e.pdb"); });
  EXPECT_NE(e.find("e.pdb: no CA or CB atoms"), std::string::npos) << e;
  const auto r = parse_pdb_residues(atom(1, " CA ", "GLY", 1, 0, 0, 0) + atom(2, " CA ", "LYS", 2, 0, 0, 4), "q.pdb");
  EXPECT_NO_THROW(check_query_matches(r, {1, 2}, "GK", "q.pdb"));
  e = error_of([&] { check_query_matches(r, {1, 2}, "GA", "q.pdb"); });
  EXPECT_NE(e.find("q.pdb: residue 2 is K in the structure, A in the query"), std::string::npos) << e;
  e = error_of([&] { check_query_matches(r, {1, 3}, "GK", "q.pdb"); });
  EXPECT_NE(e.find("q.pdb: the query's residue 3 is not in the structure"), std::string::npos) << e;
}

// The query of PF00071 (RASH_HUMAN/5-165, upper-cased) against 121P.
const char* kRasQuery =
    "KLVVVGAGGVGKSALTIQLIQNHFVDEYDPTIEDSYRKQVVIDGETCLLDILDTAGQEEYSAMRDQYMRTGEGFLCVFAINNTKSFEDIHQYREQIKRVKDSDDVPMVL"
    "VGNKCDLAARTVESRQAQDLARSYGIPYIETSAKTRQGVEDAFYTLVREIRQ";

TEST(Pdb121p, HRasResidues1To166MatchTheQueryAndGiveItsContacts) {
  const std::string path =
      std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") + "/third_party/pdb/121p.pdb";
  const auto r = read_pdb_residues(path);
  ASSERT_EQ(r.size(), 166u);
  EXPECT_EQ(r.begin()->first, 1);
  EXPECT_EQ(r.rbegin()->first, 166);
  int glycines = 0, without_cb = 0;
  for (const auto& [n, res] : r) glycines += res.letter == 'G', without_cb += !res.has_cb;
  EXPECT_FALSE(r.at(122).has_cb);  // not a glycine, but its CB is missing in the entry
  EXPECT_NE(r.at(122).letter, 'G');
  EXPECT_EQ(without_cb, glycines + 1);
  std::vector<int> numbers;
  for (int k = 5; k <= 165; ++k) numbers.push_back(k);
  ASSERT_EQ(std::string(kRasQuery).size(), numbers.size());
  EXPECT_NO_THROW(check_query_matches(r, numbers, kRasQuery, path));
  const auto c = contacts(r, numbers);
  std::printf("121P, residues 5-165: %zu contacts (CB < 8 A, |i - j| >= 6), %zu with |i - j| >= 24\n", c.size(),
              std::size_t(std::count_if(c.begin(), c.end(), [](auto p) { return p.second - p.first >= 24; })));
  // An independent count from the same entry and definition gave 351.
  EXPECT_EQ(c.size(), 351u);
}

}  // namespace
}  // namespace potts::proteins
