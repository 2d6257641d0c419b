// The file formats of the contact tools users already run, read and written
// by //proteins:contacts (paper/spec.md §9).
//
//  * A3M (HHblits, ColabFold): aligned FASTA whose match columns are
//    upper-case letters and '-', with insertions as lower-case letters
//    between them and no '.' padding, so rows differ in length. It becomes
//    A2M (lib/proteins/msa.h) by padding every insertion with '.' to the
//    longest insertion at its place. Lines starting with '#' (ColabFold's
//    header) are skipped. A query named without "/start-end" is renamed
//    "<name>/<first>-<last>" from the first residue number given.
//  * The L x L score matrix as plain text, as CCMpred's .mat: one row per
//    line, tab-separated, rows and columns in the query's residue order; a
//    first '#' line names the residue numbers (numpy.loadtxt skips it).
//  * CASP's RR contact format: PFRMAT RR, TARGET, METHOD, MODEL 1, the
//    aligned residues' one-letter codes in lines of 50, then "i j 0 8 p"
//    for the highest-scoring pairs with |i - j| >= min_separation, best
//    first (i < j, the query's residue numbers), p the score mapped
//    linearly onto [0, 1] over the listed pairs (RR asks for a probability;
//    the order is the score's), and END.
//
// Tested by //lib/proteins:formats_test.
#pragma once
#include <string>
#include <vector>

#include <armadillo>

namespace potts::proteins {

// True when `text` (aligned FASTA) has rows of different lengths that
// agree once their lower-case letters and '.' are dropped: A3M, not A2M.
bool looks_like_a3m(const std::string& text);

// A3M text as A2M text (every row as wide as the widest). The query is the
// first sequence whose name starts with `query_prefix`; errors name
// `origin`, the line and what was expected (a character that is no letter,
// '-' or '.', rows whose match columns differ in number, a query not found).
std::string a3m_to_a2m(const std::string& text, const std::string& origin, const std::string& query_prefix,
                       int first_residue);

// The .mat text of scores S (L x L) over residues (their numbers, L).
std::string score_matrix_text(const arma::mat& S, const std::vector<int>& residues);

// The RR text of scores S over residues with letters `sequence` (L each):
// at most max_pairs pairs with |i - j| >= min_separation.
std::string rr_text(const arma::mat& S, const std::vector<int>& residues, const std::string& sequence,
                    const std::string& target, const std::string& method, int min_separation, std::size_t max_pairs);

}  // namespace potts::proteins
