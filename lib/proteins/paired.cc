#include "lib/proteins/paired.h"

#include <cmath>
#include <stdexcept>

#include "lib/proteins/contacts.h"

namespace potts::proteins {

namespace {

// Precision of the first k pairs of `ranked` that avoid column `skip`
// (skip = L: none), for every skip at once: hits[r], counted over k_r pairs.
struct Ranking {
  std::vector<std::pair<arma::uword, arma::uword>> pairs;
  std::vector<char> contact;
};

Ranking rank(const arma::mat& s, const std::vector<int>& numbers, const std::set<std::pair<int, int>>& truth,
             int min_separation) {
  Ranking r;
  r.pairs = ranked_pairs(s, numbers, min_separation);
  for (const auto& [x, y] : r.pairs) {
    const int i = numbers[x], j = numbers[y];
    r.contact.push_back(truth.count({std::min(i, j), std::max(i, j)}) > 0);
  }
  return r;
}

double precision_without(const Ranking& r, arma::uword skip, std::size_t k) {
  std::size_t taken = 0, hits = 0;
  for (std::size_t t = 0; t < r.pairs.size() && taken < k; ++t) {
    if (r.pairs[t].first == skip || r.pairs[t].second == skip) continue;
    ++taken;
    hits += r.contact[t];
  }
  if (taken < k) throw std::invalid_argument("paired_precision_difference: fewer pairs than k");
  return double(hits) / double(k);
}

// Mean over fits of the precision without column `skip`, and (skip = L) the
// sample variance over fits of the full-data precision.
double mean_precision(const std::vector<Ranking>& fits, arma::uword skip, std::size_t k, double* variance) {
  double sum = 0.0, sum2 = 0.0;
  for (const auto& f : fits) {
    const double p = precision_without(f, skip, k);
    sum += p;
    sum2 += p * p;
  }
  const double n = double(fits.size()), mean = sum / n;
  if (variance) *variance = fits.size() > 1 ? std::max(0.0, (sum2 - n * mean * mean) / (n - 1.0)) : 0.0;
  return mean;
}

}  // namespace

PairedDifference paired_precision_difference(const std::vector<arma::mat>& a, const std::vector<arma::mat>& b,
                                             const std::vector<int>& numbers,
                                             const std::set<std::pair<int, int>>& truth, double fraction,
                                             int min_separation) {
  if (a.empty() || b.empty()) throw std::invalid_argument("paired_precision_difference: a predictor without fits");
  if (!(fraction > 0.0 && fraction <= 1.0))
    throw std::invalid_argument("paired_precision_difference: fraction in (0, 1]");
  const arma::uword L = numbers.size();
  if (L < 3) throw std::invalid_argument("paired_precision_difference: fewer than 3 columns");
  std::vector<Ranking> ra, rb;
  for (const auto& s : a) ra.push_back(rank(s, numbers, truth, min_separation));
  for (const auto& s : b) rb.push_back(rank(s, numbers, truth, min_separation));
  const auto k_all = std::size_t(std::floor(fraction * double(L)));
  const auto k_one = std::size_t(std::floor(fraction * double(L - 1)));
  if (k_all == 0 || k_one == 0) throw std::invalid_argument("paired_precision_difference: k = 0");

  PairedDifference out;
  double var_a = 0.0, var_b = 0.0;
  out.difference = mean_precision(ra, L, k_all, &var_a) - mean_precision(rb, L, k_all, &var_b);
  double mean = 0.0;
  for (arma::uword r = 0; r < L; ++r) {
    out.leave_one_out.push_back(mean_precision(ra, r, k_one, nullptr) - mean_precision(rb, r, k_one, nullptr));
    mean += out.leave_one_out.back();
  }
  mean /= double(L);
  double ss = 0.0;
  for (double d : out.leave_one_out) ss += (d - mean) * (d - mean);
  out.jackknife_se = std::sqrt(double(L - 1) / double(L) * ss);
  out.seeds_se = std::sqrt(var_a / double(a.size()) + var_b / double(b.size()));
  out.standard_error = std::hypot(out.jackknife_se, out.seeds_se);
  return out;
}

}  // namespace potts::proteins
