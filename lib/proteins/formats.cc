#include "lib/proteins/formats.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <sstream>

#include "lib/core/error.h"
#include "lib/proteins/contacts.h"

namespace potts::proteins {

namespace {

bool is_match(char c) { return std::isupper(static_cast<unsigned char>(c)) || c == '-'; }
bool is_insert(char c) { return std::islower(static_cast<unsigned char>(c)) || c == '.'; }

// One A3M row split at its match columns: inserts[k] precedes match k
// (inserts[M] follows the last), '.' dropped.
struct A3mRow {
  std::string name;
  int line = 0;
  std::string matches;
  std::vector<std::string> inserts{1};
};

std::string where(const std::string& origin, int line) { return origin + ": line " + std::to_string(line); }

std::vector<A3mRow> a3m_rows(const std::string& text, const std::string& origin) {
  std::vector<A3mRow> rows;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    line.erase(std::remove(line.begin(), line.end(), '\r'), line.end());
    line.erase(std::remove(line.begin(), line.end(), '\0'), line.end());
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '>') {
      rows.push_back(A3mRow{line.substr(1), n, {}, {std::string()}});
      continue;
    }
    if (rows.empty()) throw StageError(where(origin, n) + ": a sequence before the first '>' name line");
    A3mRow& r = rows.back();
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (is_match(c)) {
        r.matches += c;
        r.inserts.emplace_back();
      } else if (is_insert(c)) {
        if (c != '.') r.inserts.back() += c;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        throw StageError(where(origin, n) + ": '" + std::string(1, c) + "' at character " + std::to_string(i + 1) +
                         " is not a letter, '-' or '.' (A3M: upper case and '-' for match columns, lower case "
                         "for insertions)");
      }
    }
  }
  if (rows.empty()) throw StageError(origin + ": no '>' name line: not an A3M alignment");
  return rows;
}

}  // namespace

bool looks_like_a3m(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::size_t total = 0, matches = 0;
  std::vector<std::pair<std::size_t, std::size_t>> sizes;  // (all, match) per row
  bool open = false;
  auto close = [&] {
    if (open) sizes.emplace_back(total, matches);
    total = matches = 0;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '>') {
      close();
      open = true;
      continue;
    }
    total += line.size();
    matches += std::count_if(line.begin(), line.end(), is_match);
  }
  close();
  if (sizes.size() < 2) return false;
  bool lengths_differ = false, matches_agree = true;
  for (const auto& s : sizes) {
    lengths_differ |= s.first != sizes[0].first;
    matches_agree &= s.second == sizes[0].second;
  }
  return lengths_differ && matches_agree;
}

std::string a3m_to_a2m(const std::string& text, const std::string& origin, const std::string& query_prefix,
                       int first_residue) {
  std::vector<A3mRow> rows = a3m_rows(text, origin);
  std::size_t query = rows.size();
  for (std::size_t i = 0; i < rows.size() && query == rows.size(); ++i)
    if (rows[i].name.compare(0, query_prefix.size(), query_prefix) == 0) query = i;
  if (query == rows.size()) throw StageError(origin + ": no sequence name starts with '" + query_prefix + "'");
  const std::size_t M = rows[query].matches.size();
  if (M == 0) throw StageError(where(origin, rows[query].line) + ": the query has no match column (upper case)");
  std::vector<std::size_t> widest(M + 1, 0);
  for (const A3mRow& r : rows) {
    if (r.matches.size() != M)
      throw StageError(where(origin, r.line) + ": sequence '" + r.name + "' has " + std::to_string(r.matches.size()) +
                       " match columns (upper case and '-'), the query " + std::to_string(M));
    for (std::size_t k = 0; k <= M; ++k) widest[k] = std::max(widest[k], r.inserts[k].size());
  }
  // The query's residue numbers (lib/proteins/msa.h): "/start-end".
  A3mRow& q = rows[query];
  if (!std::regex_search(q.name, std::regex("/[0-9]+-[0-9]+$"))) {
    std::size_t residues = std::count_if(q.matches.begin(), q.matches.end(), [](char c) { return c != '-'; });
    for (const std::string& s : q.inserts) residues += s.size();
    const std::string bare = q.name.substr(0, q.name.find_first_of(" \t"));
    q.name = bare + "/" + std::to_string(first_residue) + "-" +
             std::to_string(first_residue + static_cast<int>(residues) - 1);
  }
  std::string out;
  for (const A3mRow& r : rows) {
    out += '>' + r.name + '\n';
    for (std::size_t k = 0; k <= M; ++k) {
      out += r.inserts[k];
      out.append(widest[k] - r.inserts[k].size(), '.');
      if (k < M) out += r.matches[k];
    }
    out += '\n';
  }
  return out;
}

std::string score_matrix_text(const arma::mat& S, const std::vector<int>& residues) {
  if (S.n_rows != residues.size() || S.n_cols != residues.size())
    throw StageError("score matrix: " + std::to_string(S.n_rows) + " x " + std::to_string(S.n_cols) + " for " +
                     std::to_string(residues.size()) + " residues");
  std::string out = "# residues";
  for (int r : residues) out += ' ' + std::to_string(r);
  out += '\n';
  char buf[32];
  for (arma::uword i = 0; i < S.n_rows; ++i) {
    for (arma::uword j = 0; j < S.n_cols; ++j) {
      std::snprintf(buf, sizeof buf, "%.8e", S(i, j));
      out += (j ? "\t" : "") + std::string(buf);
    }
    out += '\n';
  }
  return out;
}

std::string rr_text(const arma::mat& S, const std::vector<int>& residues, const std::string& sequence,
                    const std::string& target, const std::string& method, int min_separation, std::size_t max_pairs) {
  if (sequence.size() != residues.size())
    throw StageError("RR: " + std::to_string(sequence.size()) + " letters for " + std::to_string(residues.size()) +
                     " residues");
  auto pairs = ranked_pairs(S, residues, min_separation);
  pairs.resize(std::min(pairs.size(), max_pairs));
  std::string out = "PFRMAT RR\nTARGET " + target + "\nAUTHOR potts-attention\nMETHOD " + method +
                    "\nREMARK residues numbered as the query's (first " +
                    (residues.empty() ? std::string("none") : std::to_string(residues.front())) +
                    "); the last column maps the score linearly onto [0, 1]\nMODEL 1\n";
  for (std::size_t k = 0; k < sequence.size(); k += 50) out += sequence.substr(k, 50) + '\n';
  if (!pairs.empty()) {
    const double top = S(pairs.front().first, pairs.front().second);
    const double low = S(pairs.back().first, pairs.back().second);
    char buf[96];
    for (const auto& [a, b] : pairs) {
      const double p = top > low ? (S(a, b) - low) / (top - low) : 1.0;
      std::snprintf(buf, sizeof buf, "%d %d 0 8 %.5f\n", std::min(residues[a], residues[b]),
                    std::max(residues[a], residues[b]), p);
      out += buf;
    }
  }
  return out + "END\n";
}

}  // namespace potts::proteins
