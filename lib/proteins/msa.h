// Multiple sequence alignments of a protein family, read for masked language
// modelling and contact prediction (paper/spec.md §9).
//
// Two formats:
//  * aligned FASTA in Pfam's A2M convention (`>name` lines, the sequence on
//    one or more lines): the match columns are those where the query has an
//    upper-case letter; its lower-case letters and gaps mark insert columns,
//    which are dropped from every sequence. The query's name ends in
//    `/start-end`, its residue numbers: the query's letters (either case)
//    count from `start`, so each match column gets the residue number of the
//    query residue in it.
//  * flat aln: one aligned sequence per line, the query first, every column
//    a match column, residues numbered from `first_residue`.
//
// Letters are coded 0-19 in the order ACDEFGHIKLMNPQRSTVWY, the gap ('-' or
// '.') as 20: q = 21 states. Sequences holding an ambiguity code (B, J, O,
// U, X, Z) are skipped and counted; any other character, a row of another
// length than the query, or a query that is not found is an error naming
// the file, the line and what was expected.
//
// Tested by //lib/proteins:msa_test.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <armadillo>

#include "lib/core/rng.h"

namespace potts::proteins {

constexpr int kStates = 21;  // 20 amino acids and the gap
constexpr int kGap = 20;
// The one-letter code of state 0-20 ('-' for the gap).
char state_letter(int state);
// The state of an upper-case one-letter code or gap; -1 for anything else.
int letter_state(char c);

struct Alignment {
  std::vector<std::string> names;     // the query first
  arma::imat sequences;               // N x L states 0-20
  std::vector<int> residue_numbers;   // per column: the query's residue number
  std::string query;                  // the query's letters in the match columns
  std::size_t skipped_ambiguous = 0;  // sequences dropped for B, J, O, U, X, Z
};

// `query_prefix`: the query is the first sequence whose name starts with it
// (e.g. "RASH_HUMAN/").
Alignment read_a2m(const std::string& path, const std::string& query_prefix);
Alignment read_aln(const std::string& path, int first_residue);
// The same from text (`origin` names it in errors), for tests and fuzzing.
Alignment parse_a2m(const std::string& text, const std::string& origin, const std::string& query_prefix);
Alignment parse_aln(const std::string& text, const std::string& origin, int first_residue);

// Aligned FASTA whose query is given apart as `query_row`, a row of
// upper-case letters and '-' as wide as the alignment (the covariation
// benchmark's convention): the match columns are those where the query has
// a letter, numbered by `numbers` (one per match column). The query is the
// alignment's first row equal to it, moved first; an alignment without
// such a row gets the query added as its first row, named `query_name`.
Alignment parse_fasta_with_query(const std::string& text, const std::string& origin, const std::string& query_row,
                                 const std::string& query_name, const std::vector<int>& numbers);

// Sequences (rows of states 0-20) as a flat alignment: one line of letters
// per sequence, '-' for the gap (the input of freecontact).
std::string to_aln(const arma::imat& sequences);

// Pairs (i, j), i < j, of sequences whose identity over all L columns, gaps
// counted as a state, is at least `identity`.
std::vector<std::pair<arma::uword, arma::uword>> similar_pairs(const arma::imat& sequences, double identity);

// Sequence weights: 1 / the number of sequences (itself included) at least
// `identity` identical to it (0.8 as is usual for protein families). N_eff
// is their sum.
arma::vec sequence_weights(const arma::imat& sequences, double identity);

// A train/test split by clusters: the connected components of the graph
// linking sequences at least `identity` identical. Components are taken in
// an order drawn from `rng` and go to the test set until it holds at least
// `test_fraction` of the sequences, so no test sequence is `identity`
// identical to a training one. Both index lists are sorted.
// The random stream of the split (lib/core/rng.h lists the others).
constexpr std::uint64_t kSplitStream = 50;
struct Split {
  std::vector<arma::uword> train, test;
  std::size_t clusters = 0;
};
Split cluster_split(const arma::imat& sequences, double identity, double test_fraction, Rng& rng);

}  // namespace potts::proteins
