// A protein structure as the truth of contact prediction (paper/spec.md §9):
// one representative atom per residue from a PDB file, and the contact map.
//
// Contacts: residues i, j with |i − j| ≥ min_separation whose Cβ atoms lie
// closer than `cutoff` Å (Cα for glycine, and for a residue whose Cβ is
// missing). Alternate locations: the first one listed is kept.
//
// Tested by //lib/proteins:structure_test.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <armadillo>

namespace potts::proteins {

struct Residue {
  char letter = 'X';      // one-letter code of the residue name
  arma::vec3 position{};  // Cβ, or Cα where Cβ is absent
  bool has_cb = false;
};

// The residues of `chain` (' ' for a file without chain identifiers; the
// first chain of the file if empty) by residue number, from the ATOM
// records. Errors name the file, the line and the field.
std::map<int, Residue> read_pdb_residues(const std::string& path, const std::string& chain = "");
std::map<int, Residue> parse_pdb_residues(const std::string& text, const std::string& origin,
                                          const std::string& chain = "");

// An error unless every residue number of `numbers` is in the structure
// with the letter of `query` at the same index (the alignment's query).
void check_query_matches(const std::map<int, Residue>& residues, const std::vector<int>& numbers,
                         const std::string& query, const std::string& origin);

// The contacts among `numbers` (pairs of residue numbers, i < j).
std::vector<std::pair<int, int>> contacts(const std::map<int, Residue>& residues, const std::vector<int>& numbers,
                                          double cutoff = 8.0, int min_separation = 6);

}  // namespace potts::proteins
