// The families of the covariation benchmark (third_party/covariation): an
// aligned FASTA, the query written in the alignment's columns (one line
// `PFAM PDB_CHAIN ROW` per family), and a column map (one line per column
// with a structure residue: column from 0, amino acid, a design index, PDB
// residue number, chain, one more field). paper/spec.md, the panel.
//
// The query is added as the alignment's first row where the alignment has
// no row equal to it, as the observation's alignments begin with their
// query; its match columns are those where it has a residue (the others
// are dropped from every sequence, as A2M drops insert columns).
//
// Tested by //lib/proteins:covariation_test (constructed files, and all 40
// vendored families against their structures).
#pragma once
#include <string>
#include <vector>

#include "lib/proteins/msa.h"

namespace potts::proteins {

struct CovariationQuery {
  std::string pfam, chain, row;
};

// The line of `pfam` in a domain_sequences.txt; an error if it is missing,
// malformed or given twice.
CovariationQuery parse_covariation_query(const std::string& text, const std::string& origin, const std::string& pfam);

// The PDB residue number of each column where `query_row` has a residue,
// from an indices file: an error unless it lists exactly those columns, in
// order, each with the query's letter and chain `chain`.
std::vector<int> parse_covariation_indices(const std::string& text, const std::string& origin,
                                           const std::string& query_row, const std::string& chain);

// The family's alignment (msa.h's Alignment, the query first) from its three
// files.
Alignment read_covariation_family(const std::string& fasta_path, const std::string& sequences_path,
                                  const std::string& indices_path, const std::string& pfam);

}  // namespace potts::proteins
