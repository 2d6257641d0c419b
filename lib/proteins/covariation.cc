#include "lib/proteins/covariation.h"

#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts::proteins {

CovariationQuery parse_covariation_query(const std::string& text, const std::string& origin, const std::string& pfam) {
  std::istringstream in(text);
  std::string line;
  CovariationQuery q;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    std::istringstream fields(line);
    std::string id, chain, row, extra;
    if (!(fields >> id) || id != pfam) continue;
    if (!(fields >> chain >> row) || (fields >> extra))
      throw StageError(origin + ": line " + std::to_string(lineno) + ": expected 'PFAM PDB_CHAIN ROW', got '" + line +
                       "'");
    if (!q.pfam.empty()) throw StageError(origin + ": family " + pfam + " is listed twice");
    q = {id, chain, row};
  }
  if (q.pfam.empty()) throw StageError(origin + ": no line for family " + pfam);
  return q;
}

std::vector<int> parse_covariation_indices(const std::string& text, const std::string& origin,
                                           const std::string& query_row, const std::string& chain) {
  std::vector<std::size_t> columns;
  for (std::size_t i = 0; i < query_row.size(); ++i)
    if (query_row[i] != '-') columns.push_back(i);
  std::istringstream in(text);
  std::string line;
  std::vector<int> numbers;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = origin + ": line " + std::to_string(lineno);
    std::istringstream fields(line);
    long column = -1;
    std::string letter, design, residue, ch;
    if (!(fields >> column >> letter >> design >> residue >> ch))
      throw StageError(at + ": expected 'column amino-acid index residue chain ...', got '" + line + "'");
    const std::size_t k = numbers.size();
    if (k >= columns.size() || column != long(columns[k]))
      throw StageError(at + ": column " + std::to_string(column) + ", expected " +
                       (k < columns.size() ? "column " + std::to_string(columns[k]) + " (the query's next residue)"
                                           : std::string("no more lines (the query has ") +
                                                 std::to_string(columns.size()) + " residues)"));
    if (letter.size() != 1 || letter[0] != query_row[columns[k]])
      throw StageError(at + ": amino acid '" + letter + "' at column " + std::to_string(column) + ", the query has '" +
                       std::string(1, query_row[columns[k]]) + "'");
    if (ch != chain) throw StageError(at + ": chain '" + ch + "', expected '" + chain + "'");
    try {
      std::size_t used = 0;
      numbers.push_back(std::stoi(residue, &used));
      if (used != residue.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw StageError(at + ": residue number '" + residue + "' is not an integer (an insertion code is not read)");
    }
  }
  if (numbers.size() != columns.size())
    throw StageError(origin + ": " + std::to_string(numbers.size()) + " columns listed, the query has " +
                     std::to_string(columns.size()) + " residues");
  for (std::size_t k = 1; k < numbers.size(); ++k)
    if (numbers[k] <= numbers[k - 1])
      throw StageError(origin + ": residue numbers do not increase along the query (" + std::to_string(numbers[k - 1]) +
                       " then " + std::to_string(numbers[k]) + ")");
  return numbers;
}

Alignment read_covariation_family(const std::string& fasta_path, const std::string& sequences_path,
                                  const std::string& indices_path, const std::string& pfam) {
  const CovariationQuery q = parse_covariation_query(read_text(sequences_path), sequences_path, pfam);
  const std::string::size_type us = q.chain.rfind('_');
  if (us == std::string::npos || us + 1 == q.chain.size())
    throw StageError(sequences_path + ": '" + q.chain + "' for " + pfam + " is not PDB_CHAIN");
  const std::vector<int> numbers =
      parse_covariation_indices(read_text(indices_path), indices_path, q.row, q.chain.substr(us + 1));
  return parse_fasta_with_query(read_text(fasta_path), fasta_path, q.row, q.chain + "/query", numbers);
}

}  // namespace potts::proteins
