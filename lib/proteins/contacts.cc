#include "lib/proteins/contacts.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace potts::proteins {

arma::mat apc(const arma::mat& scores) {
  const arma::uword L = scores.n_rows;
  if (scores.n_cols != L || L < 3) throw std::invalid_argument("apc: needs a square matrix of size 3 or more");
  arma::mat S = scores;
  S.diag().zeros();
  const arma::vec row = arma::sum(S, 1) / double(L - 1);
  const double all = arma::accu(S) / double(L * (L - 1));
  arma::mat out = S - row * row.t() / all;
  out.diag().zeros();
  return out;
}

arma::mat frobenius_scores(const arma::mat& couplings_W, arma::uword q, bool exclude_gap) {
  if (q < 2 || couplings_W.n_rows != couplings_W.n_cols || couplings_W.n_rows % q != 0)
    throw std::invalid_argument("frobenius_scores: couplings must be square with a multiple of q rows");
  const arma::uword L = couplings_W.n_rows / q, kept = exclude_gap ? q - 1 : q;
  arma::mat F(L, L, arma::fill::zeros);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = 0; j < L; ++j) {
      if (i == j) continue;
      arma::mat B = couplings_W.submat(i * q, j * q, i * q + q - 1, j * q + q - 1);
      B.each_col() -= arma::mean(B, 1);
      B.each_row() -= arma::mean(B, 0);
      F(i, j) = arma::norm(B.submat(0, 0, kept - 1, kept - 1), "fro");
    }
  return (F + F.t()) / 2;
}

std::vector<std::pair<arma::uword, arma::uword>> ranked_pairs(const arma::mat& scores, const std::vector<int>& numbers,
                                                              int min_separation) {
  if (scores.n_rows != numbers.size() || scores.n_cols != numbers.size())
    throw std::invalid_argument("ranked_pairs: scores and residue numbers differ in size");
  std::vector<std::pair<arma::uword, arma::uword>> pairs;
  for (arma::uword a = 0; a < numbers.size(); ++a)
    for (arma::uword b = a + 1; b < numbers.size(); ++b)
      if (std::abs(numbers[a] - numbers[b]) >= min_separation) pairs.emplace_back(a, b);
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const auto& x, const auto& y) { return scores(x.first, x.second) > scores(y.first, y.second); });
  return pairs;
}

double precision_at(const arma::mat& scores, const std::vector<int>& numbers,
                    const std::set<std::pair<int, int>>& truth, std::size_t k, int min_separation) {
  if (k == 0) throw std::invalid_argument("precision_at: k must be positive");
  const auto pairs = ranked_pairs(scores, numbers, min_separation);
  if (pairs.size() < k) throw std::invalid_argument("precision_at: fewer pairs than k");
  std::size_t hits = 0;
  for (std::size_t t = 0; t < k; ++t) {
    const int i = numbers[pairs[t].first], j = numbers[pairs[t].second];
    hits += truth.count({std::min(i, j), std::max(i, j)});
  }
  return double(hits) / double(k);
}

}  // namespace potts::proteins
