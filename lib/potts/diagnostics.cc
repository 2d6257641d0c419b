#include "lib/potts/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/potts/gibbs.h"

namespace potts {

static std::vector<arma::sword> row_of(const arma::imat& x, arma::uword r) {
  std::vector<arma::sword> v(x.n_cols);
  for (arma::uword c = 0; c < x.n_cols; ++c) v[c] = x(r, c);
  return v;
}

arma::uword distinct_rows(const arma::imat& x) {
  std::set<std::vector<arma::sword>> seen;
  for (arma::uword r = 0; r < x.n_rows; ++r) seen.insert(row_of(x, r));
  return seen.size();
}

double share_of_rows_in(const arma::imat& a, const arma::imat& b) {
  if (a.n_rows == 0) return 0.0;
  std::set<std::vector<arma::sword>> in_b;
  for (arma::uword r = 0; r < b.n_rows; ++r) in_b.insert(row_of(b, r));
  arma::uword n = 0;
  for (arma::uword r = 0; r < a.n_rows; ++r) n += in_b.count(row_of(a, r));
  return double(n) / double(a.n_rows);
}

double integrated_autocorrelation_time(const std::vector<double>& x, std::size_t max_window, double c,
                                       bool* lower_bound) {
  const std::size_t N = x.size();
  if (N < 4) throw StageError("integrated_autocorrelation_time: need at least 4 values, got " + std::to_string(N));
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= double(N);
  auto cov = [&](std::size_t t) {
    double s = 0.0;
    for (std::size_t i = 0; i + t < N; ++i) s += (x[i] - mean) * (x[i + t] - mean);
    return s / double(N - t);
  };
  const double c0 = cov(0);
  if (lower_bound) *lower_bound = false;
  if (!(c0 > 0.0)) return 0.5;  // a constant series: no correlation to measure
  max_window = std::min(max_window, N - 1);
  double tau = 0.5;
  for (std::size_t W = 1; W <= max_window; ++W) {
    tau += cov(W) / c0;
    if (double(W) >= c * tau) return tau;
  }
  if (lower_bound) *lower_bound = true;
  return tau;
}

nlohmann::json DataDiagnostics::json() const {
  nlohmann::json j = {{"distinct_train_sequences", distinct_train},
                      {"distinct_test_sequences", distinct_test},
                      {"test_in_train_share", test_in_train},
                      {"energy_autocorrelation_sweeps", tau_energy_sweeps},
                      {"energy_autocorrelation_is_lower_bound", tau_lower_bound},
                      {"independent_chain_hamming", chain_hamming},
                      {"independent_chain_spread", chain_spread},
                      {"degenerate", !warnings.empty()},
                      {"warnings", warnings}};
  return j;
}

DataDiagnostics diagnose_data(const PottsModel& m, const ChainProtocol& protocol, const arma::imat& train,
                              const arma::imat& test, const DiagnosticSettings& s, std::uint64_t seed) {
  DataDiagnostics d;
  d.distinct_train = distinct_rows(train);
  d.distinct_test = distinct_rows(test);
  d.test_in_train = share_of_rows_in(test, train);
  std::vector<double> energies;
  for (int k = 0; k < s.chains; ++k) {
    GibbsSampler g(m, seed, streams::kDiagnostics + (std::uint64_t(k) << 16));
    g.sweeps(protocol.burn_in_sweeps);
    if (k == 0) {  // the energy after every sweep, at equilibrium
      energies.reserve(s.autocorrelation_sweeps);
      for (std::uint64_t t = 0; t < s.autocorrelation_sweeps; ++t) {
        g.sweep();
        energies.push_back(energy(m, g.sequence()));
      }
    }
    arma::imat saved(s.samples_per_chain, m.L());
    for (std::uint64_t n = 0; n < s.samples_per_chain; ++n) {
      g.sweeps(protocol.sweeps_between);
      saved.row(n) = g.sequence();
    }
    d.chain_hamming.push_back(mean_hamming_distance(saved));
  }
  const auto [lo, hi] = std::minmax_element(d.chain_hamming.begin(), d.chain_hamming.end());
  d.chain_spread = *hi - *lo;
  // Window up to 1/50 of the series (the estimate's bias and error are then
  // small; Sokal's c = 6).
  d.tau_energy_sweeps = integrated_autocorrelation_time(energies, energies.size() / 50, 6.0, &d.tau_lower_bound);

  std::ostringstream w;
  if (d.test_in_train > s.max_overlap) {
    w << "test/train overlap: " << d.test_in_train * 100 << " % of the test sequences occur in the training set "
      << "(limit " << s.max_overlap * 100 << " %)";
    d.warnings.push_back(w.str());
    w.str("");
  }
  if (d.chain_spread > s.spread_tolerance) {
    w << "independent chains disagree: their mean Hamming distances span " << d.chain_spread << " (tolerance "
      << s.spread_tolerance << "): the chain does not equilibrate across basins";
    d.warnings.push_back(w.str());
    w.str("");
  }
  if (d.tau_lower_bound) {
    w << "energy autocorrelation time exceeds the measurable window (" << energies.size() / 50 << " sweeps): at least "
      << d.tau_energy_sweeps << " sweeps";
    d.warnings.push_back(w.str());
  }
  return d;
}

}  // namespace potts
