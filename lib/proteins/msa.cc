#include "lib/proteins/msa.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts::proteins {

namespace {

constexpr const char* kLetters = "ACDEFGHIKLMNPQRSTVWY-";

bool ambiguous(char c) {
  const char u = char(std::toupper(static_cast<unsigned char>(c)));
  return u == 'B' || u == 'J' || u == 'O' || u == 'U' || u == 'X' || u == 'Z';
}

struct Record {
  std::string name, text;
  int line = 0;  // line of the name (A2M) or of the sequence (aln)
};

std::string where(const std::string& origin, int line) { return origin + ": line " + std::to_string(line); }

// The non-empty lines of `text` with their numbers (from 1), a trailing CR dropped.
std::vector<std::pair<int, std::string>> lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.emplace_back(lineno, line);
  }
  return out;
}

// The state of a letter of either case, a gap ('-' or '.'), or -1.
int state_of(char c) { return letter_state(char(std::toupper(static_cast<unsigned char>(c)))); }

// The states of `row` in the match columns `cols`, or an empty vector if the
// row holds an ambiguity code. Errors name the line and the character.
std::vector<int> encode(const Record& r, const std::vector<std::size_t>& cols, const std::string& origin) {
  for (std::size_t i = 0; i < r.text.size(); ++i) {
    const char c = r.text[i];
    if (ambiguous(c)) return {};
    if (state_of(c) < 0)
      throw StageError(where(origin, r.line) + ": '" + std::string(1, c) + "' at column " + std::to_string(i + 1) +
                       " is not an amino-acid letter, '-' or '.'");
  }
  std::vector<int> out;
  for (std::size_t c : cols) out.push_back(state_of(r.text[c]));
  return out;
}

Alignment assemble(const std::vector<Record>& records, std::size_t query, const std::vector<std::size_t>& cols,
                   const std::string& origin) {
  Alignment a;
  std::vector<std::vector<int>> rows;
  const std::size_t width = records[query].text.size();
  auto add = [&](const Record& r) {
    if (r.text.size() != width)
      throw StageError(where(origin, r.line) + ": sequence '" + r.name + "' has " + std::to_string(r.text.size()) +
                       " aligned columns, the query " + std::to_string(width));
    std::vector<int> s = encode(r, cols, origin);
    if (s.empty()) {
      if (&r == &records[query]) throw StageError(where(origin, r.line) + ": the query holds an ambiguity code");
      ++a.skipped_ambiguous;
      return;
    }
    a.names.push_back(r.name);
    rows.push_back(std::move(s));
  };
  add(records[query]);
  for (std::size_t i = 0; i < records.size(); ++i)
    if (i != query) add(records[i]);
  a.sequences.set_size(rows.size(), cols.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < cols.size(); ++j) a.sequences(i, j) = rows[i][j];
  for (std::size_t j = 0; j < cols.size(); ++j) a.query += state_letter(int(a.sequences(0, j)));
  return a;
}

}  // namespace

char state_letter(int state) {
  if (state < 0 || state >= kStates) throw std::out_of_range("state_letter: " + std::to_string(state));
  return kLetters[state];
}

int letter_state(char c) {
  for (int s = 0; s < kStates; ++s)
    if (kLetters[s] == c) return s;
  return c == '.' ? kGap : -1;
}

// The '>' name lines and the sequence lines under each (FASTA and A2M).
static std::vector<Record> fasta_records(const std::string& text, const std::string& origin) {
  std::vector<Record> records;
  for (const auto& [lineno, line] : lines(text)) {
    if (line[0] == '>') {
      records.push_back({line.substr(1), "", lineno});
      continue;
    }
    if (records.empty()) throw StageError(where(origin, lineno) + ": sequence before the first '>' name line");
    records.back().text += line;
  }
  if (records.empty()) throw StageError(origin + ": no sequences (expected '>' name lines)");
  return records;
}

Alignment parse_a2m(const std::string& text, const std::string& origin, const std::string& query_prefix) {
  const std::vector<Record> records = fasta_records(text, origin);
  std::size_t query = records.size();
  for (std::size_t i = 0; i < records.size() && query == records.size(); ++i)
    if (records[i].name.compare(0, query_prefix.size(), query_prefix) == 0) query = i;
  if (query == records.size()) throw StageError(origin + ": no sequence name starts with '" + query_prefix + "'");
  const Record& q = records[query];
  // The query's residue numbers: "name/start-end".
  const std::size_t slash = q.name.rfind('/'), dash = q.name.find('-', slash == std::string::npos ? 0 : slash);
  int start = 0, end = 0;
  try {
    if (slash == std::string::npos || dash == std::string::npos) throw std::invalid_argument("");
    std::size_t used = 0;
    start = std::stoi(q.name.substr(slash + 1, dash - slash - 1), &used);
    end = std::stoi(q.name.substr(dash + 1));
  } catch (const std::exception&) {
    throw StageError(where(origin, q.line) + ": query name '" + q.name + "' does not end in /start-end");
  }
  std::vector<std::size_t> cols;
  std::vector<int> numbers;
  int residue = start;
  for (std::size_t i = 0; i < q.text.size(); ++i) {
    const char c = q.text[i];
    if (!std::isalpha(static_cast<unsigned char>(c))) continue;
    if (std::isupper(static_cast<unsigned char>(c))) cols.push_back(i), numbers.push_back(residue);
    ++residue;
  }
  if (residue - 1 != end)
    throw StageError(where(origin, q.line) + ": the query holds " + std::to_string(residue - start) +
                     " residues, its name says " + std::to_string(start) + "-" + std::to_string(end));
  if (cols.empty()) throw StageError(where(origin, q.line) + ": the query has no upper-case (match) column");
  Alignment a = assemble(records, query, cols, origin);
  a.residue_numbers = numbers;
  return a;
}

Alignment parse_fasta_with_query(const std::string& text, const std::string& origin, const std::string& query_row,
                                 const std::string& query_name, const std::vector<int>& numbers) {
  std::vector<Record> records = fasta_records(text, origin);
  if (query_row.size() != records[0].text.size())
    throw StageError(origin + ": the query row has " + std::to_string(query_row.size()) + " columns, the alignment " +
                     std::to_string(records[0].text.size()));
  std::vector<std::size_t> cols;
  for (std::size_t i = 0; i < query_row.size(); ++i) {
    const int s = letter_state(query_row[i]);
    if (s < 0)
      throw StageError(origin + ": the query row's '" + std::string(1, query_row[i]) + "' at column " +
                       std::to_string(i + 1) + " is not an upper-case amino-acid letter or '-'");
    if (s != kGap) cols.push_back(i);
  }
  if (cols.size() != numbers.size())
    throw StageError(origin + ": the query has " + std::to_string(cols.size()) + " residues, " +
                     std::to_string(numbers.size()) + " residue numbers were given");
  std::size_t query = records.size();
  for (std::size_t i = 0; i < records.size() && query == records.size(); ++i)
    if (records[i].text == query_row) query = i;
  if (query == records.size()) {
    records.insert(records.begin(), Record{query_name, query_row, 0});
    query = 0;
  }
  Alignment a = assemble(records, query, cols, origin);
  a.residue_numbers = numbers;
  return a;
}

Alignment parse_aln(const std::string& text, const std::string& origin, int first_residue) {
  std::vector<Record> records;
  for (const auto& [lineno, line] : lines(text)) records.push_back({"line " + std::to_string(lineno), line, lineno});
  if (records.empty()) throw StageError(origin + ": no sequences");
  std::vector<std::size_t> cols(records[0].text.size());
  for (std::size_t i = 0; i < cols.size(); ++i) cols[i] = i;
  Alignment a = assemble(records, 0, cols, origin);
  for (std::size_t i = 0; i < cols.size(); ++i) a.residue_numbers.push_back(first_residue + int(i));
  return a;
}

Alignment read_a2m(const std::string& path, const std::string& query_prefix) {
  return parse_a2m(read_text(path), path, query_prefix);
}

Alignment read_aln(const std::string& path, int first_residue) {
  return parse_aln(read_text(path), path, first_residue);
}

std::vector<std::pair<arma::uword, arma::uword>> similar_pairs(const arma::imat& sequences, double identity) {
  const arma::uword N = sequences.n_rows, L = sequences.n_cols;
  const arma::imat S = sequences.t();  // columns are sequences: contiguous
  const double need = identity * double(L);
  std::vector<std::pair<arma::uword, arma::uword>> out;
  for (arma::uword i = 0; i < N; ++i)
    for (arma::uword j = i + 1; j < N; ++j) {
      arma::uword same = 0;
      for (arma::uword k = 0; k < L; ++k) same += S(k, i) == S(k, j);
      if (double(same) >= need) out.emplace_back(i, j);
    }
  return out;
}

arma::vec sequence_weights(const arma::imat& sequences, double identity) {
  arma::vec neighbours(sequences.n_rows, arma::fill::ones);
  for (const auto& [i, j] : similar_pairs(sequences, identity)) neighbours(i) += 1, neighbours(j) += 1;
  return 1.0 / neighbours;
}

Split cluster_split(const arma::imat& sequences, double identity, double test_fraction, Rng& rng) {
  if (!(test_fraction > 0 && test_fraction < 1))
    throw StageError("cluster_split: test fraction " + format_number(test_fraction, 6) + " is not in (0, 1)");
  const arma::uword N = sequences.n_rows;
  std::vector<arma::uword> parent(N);
  for (arma::uword i = 0; i < N; ++i) parent[i] = i;
  auto root = [&](arma::uword i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const auto& [i, j] : similar_pairs(sequences, identity)) parent[root(i)] = root(j);
  // Components by their smallest member, in index order.
  std::map<arma::uword, std::vector<arma::uword>> by_root;
  for (arma::uword i = 0; i < N; ++i) by_root[root(i)].push_back(i);
  std::vector<std::vector<arma::uword>> clusters;
  for (auto& [r, members] : by_root) clusters.push_back(std::move(members));
  std::sort(clusters.begin(), clusters.end());
  for (std::size_t k = clusters.size(); k > 1; --k) std::swap(clusters[k - 1], clusters[rng.below(k)]);  // Fisher-Yates
  Split s;
  s.clusters = clusters.size();
  const double want = test_fraction * double(N);
  for (const auto& c : clusters) {
    auto& to = double(s.test.size()) < want ? s.test : s.train;
    to.insert(to.end(), c.begin(), c.end());
  }
  std::sort(s.train.begin(), s.train.end());
  std::sort(s.test.begin(), s.test.end());
  return s;
}

std::string to_aln(const arma::imat& sequences) {
  std::string out;
  out.reserve(sequences.n_rows * (sequences.n_cols + 1));
  for (arma::uword m = 0; m < sequences.n_rows; ++m) {
    for (arma::uword k = 0; k < sequences.n_cols; ++k) out += state_letter(int(sequences(m, k)));
    out += '\n';
  }
  return out;
}

}  // namespace potts::proteins
