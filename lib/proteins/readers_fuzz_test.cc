// Seeded mutation fuzzing of the protein readers (tests/util/fuzz.h): A2M,
// flat aln and PDB text with byte edits. A case passes if the reader
// accepts it or throws a one-line StageError naming the input.
#include <gtest/gtest.h>

#include <iostream>

#include "lib/proteins/msa.h"
#include "lib/proteins/structure.h"
#include "tests/util/fuzz.h"

namespace potts::proteins {
namespace {

void fuzz_text(const char* reader, const std::string& base, std::uint64_t seed,
               const std::function<void(const std::string&)>& read) {
  fuzz::Mutator mut(seed);
  fuzz::Tally t{reader};
  const long cases = fuzz::case_budget();
  for (long i = 0; i < cases; ++i) {
    const std::string text = mut.bytes(base);
    t.run([&] { read(text); }, "fuzz.in", text);
  }
  std::cout << t.summary() << std::endl;
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.ok, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.front();
}

TEST(ProteinReadersFuzz, A2m) {
  fuzz_text("a2m", ">other/1-8\nKIVA-GTE\n>Q/3-9\nKLvA-\nGsD\n>X\nKXVAAGTD\n>g\n-.--A---\n", 31,
            [](const std::string& s) { parse_a2m(s, "fuzz.in", "Q/"); });
}

TEST(ProteinReadersFuzz, Aln) {
  fuzz_text("aln", "KLAG\nKL-G\nKBAG\n\nALAG\n", 37, [](const std::string& s) { parse_aln(s, "fuzz.in", 5); });
}

TEST(ProteinReadersFuzz, Pdb) {
  const std::string base =
      "HEADER    TEST\n"
      "ATOM      1  CA  GLY A   1       0.000   0.000   0.000  1.00 10.00\n"
      "ATOM      2  CA  ALA A   2       0.000   0.000  50.000  1.00 10.00\n"
      "ATOM      3  CB  ALA A   2       0.000   0.000 100.000  1.00 10.00\n"
      "ATOM      4  CB BSER A  10       0.000   0.000   1.000  1.00 10.00\n"
      "ATOM      5  CA  SER B  10       0.000   0.000   3.000  1.00 10.00\n";
  fuzz_text("pdb", base, 41, [](const std::string& s) {
    const auto r = parse_pdb_residues(s, "fuzz.in");
    std::vector<int> numbers;
    for (const auto& [n, res] : r) numbers.push_back(n);
    contacts(r, numbers);
  });
}

}  // namespace
}  // namespace potts::proteins
