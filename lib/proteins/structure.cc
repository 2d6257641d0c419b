#include "lib/proteins/structure.h"

#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts::proteins {

namespace {

char one_letter(const std::string& name) {
  static const std::map<std::string, char> code = {
      {"ALA", 'A'}, {"CYS", 'C'}, {"ASP", 'D'}, {"GLU", 'E'}, {"PHE", 'F'}, {"GLY", 'G'}, {"HIS", 'H'},
      {"ILE", 'I'}, {"LYS", 'K'}, {"LEU", 'L'}, {"MET", 'M'}, {"ASN", 'N'}, {"PRO", 'P'}, {"GLN", 'Q'},
      {"ARG", 'R'}, {"SER", 'S'}, {"THR", 'T'}, {"VAL", 'V'}, {"TRP", 'W'}, {"TYR", 'Y'}};
  auto it = code.find(name);
  return it == code.end() ? 'X' : it->second;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

double coordinate(const std::string& line, std::size_t at, const std::string& where, const char* axis) {
  try {
    std::size_t used = 0;
    const std::string field = line.substr(at, 8);
    const double v = std::stod(field, &used);
    if (trim(field.substr(used)).empty()) return v;
  } catch (const std::exception&) {
  }
  throw StageError(where + ": " + axis + " (columns " + std::to_string(at + 1) + "-" + std::to_string(at + 8) +
                   ") is not a number");
}

}  // namespace

std::map<int, Residue> parse_pdb_residues(const std::string& text, const std::string& origin,
                                          const std::string& chain) {
  std::map<int, Residue> out;
  std::istringstream in(text);
  std::string line, use_chain = chain;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.compare(0, 6, "ATOM  ") != 0) continue;
    const std::string where = origin + ": line " + std::to_string(lineno);
    if (line.size() < 54) throw StageError(where + ": ATOM record shorter than 54 columns (no coordinates)");
    const std::string c(1, line[21]);
    if (use_chain.empty()) use_chain = c;
    if (c != use_chain) continue;
    const char alt = line[16];
    if (alt != ' ' && alt != 'A') continue;  // the first alternate location
    int number = 0;
    try {
      number = std::stoi(line.substr(22, 4));
    } catch (const std::exception&) {
      throw StageError(where + ": residue number (columns 23-26) is not a number");
    }
    const std::string atom = trim(line.substr(12, 4));
    if (atom != "CA" && atom != "CB") continue;
    const arma::vec3 x = {coordinate(line, 30, where, "x"), coordinate(line, 38, where, "y"),
                          coordinate(line, 46, where, "z")};
    const auto [it, fresh] = out.try_emplace(number);
    Residue& r = it->second;
    const char letter = one_letter(line.substr(17, 3));
    if (!fresh && r.letter != letter)
      throw StageError(where + ": residue " + std::to_string(number) + " is " + line.substr(17, 3) +
                       ", an earlier atom of it named another residue");
    r.letter = letter;
    if (atom == "CB")
      r.position = x, r.has_cb = true;
    else if (!r.has_cb)
      r.position = x;  // CA stands in until a CB is read
  }
  if (out.empty()) throw StageError(origin + ": no CA or CB atoms" + (chain.empty() ? "" : " in chain " + chain));
  return out;
}

std::map<int, Residue> read_pdb_residues(const std::string& path, const std::string& chain) {
  return parse_pdb_residues(read_text(path), path, chain);
}

void check_query_matches(const std::map<int, Residue>& residues, const std::vector<int>& numbers,
                         const std::string& query, const std::string& origin) {
  if (numbers.size() != query.size())
    throw StageError(origin + ": " + std::to_string(numbers.size()) + " residue numbers for a query of " +
                     std::to_string(query.size()) + " letters");
  for (std::size_t k = 0; k < numbers.size(); ++k) {
    auto it = residues.find(numbers[k]);
    if (it == residues.end())
      throw StageError(origin + ": the query's residue " + std::to_string(numbers[k]) + " is not in the structure");
    if (it->second.letter != query[k])
      throw StageError(origin + ": residue " + std::to_string(numbers[k]) + " is " + std::string(1, it->second.letter) +
                       " in the structure, " + std::string(1, query[k]) + " in the query");
  }
}

std::vector<std::pair<int, int>> contacts(const std::map<int, Residue>& residues, const std::vector<int>& numbers,
                                          double cutoff, int min_separation) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t a = 0; a < numbers.size(); ++a)
    for (std::size_t b = a + 1; b < numbers.size(); ++b) {
      const int i = std::min(numbers[a], numbers[b]), j = std::max(numbers[a], numbers[b]);
      if (j - i < min_separation) continue;
      const auto ri = residues.find(i), rj = residues.find(j);
      if (ri == residues.end() || rj == residues.end()) continue;
      if (arma::norm(ri->second.position - rj->second.position) < cutoff) out.emplace_back(i, j);
    }
  return out;
}

}  // namespace potts::proteins
