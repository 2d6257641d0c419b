// Degeneracy diagnostics of a sampled data set (paper/paper.md, section 1).
//
// A data set drawn from one Gibbs chain can look fine by its mean Hamming
// distance and still be degenerate: a chain trapped in one basin repeats
// sequences, so the test set overlaps the training set and a second chain
// would give another distance. The sample stage therefore reports
//   * the number of distinct training sequences and the share of test
//     sequences that also occur in the training set;
//   * the integrated autocorrelation time of the energy, in sweeps, at the
//     production beta (Sokal's automatic window);
//   * the mean Hamming distance of several independent chains (own random
//     streams, random starts) at the production beta, and their spread.
// Tested in lib/potts/diagnostics_test.cc.
//
// Tested by //lib/potts:diagnostics_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>
#include <nlohmann/json.hpp>

#include "lib/potts/calibration.h"
#include "lib/potts/model.h"

namespace potts {

// Number of distinct rows of x.
arma::uword distinct_rows(const arma::imat& x);
// Share of the rows of a that occur (verbatim) among the rows of b.
double share_of_rows_in(const arma::imat& a, const arma::imat& b);

// Integrated autocorrelation time tau = 1/2 + sum_{t>=1} rho(t) of the series
// x (Sokal 1997: tau = (1 + phi) / (2 (1 - phi)) for an AR(1) process),
// summed up to the first window W with W >= c tau(W). When no such W <=
// max_window exists, returns tau(max_window) with *lower_bound = true.
double integrated_autocorrelation_time(const std::vector<double>& x, std::size_t max_window, double c,
                                       bool* lower_bound);

struct DiagnosticSettings {
  int chains = 4;                                 // independent chains
  std::uint64_t samples_per_chain = 200;          // saved configurations per chain
  std::uint64_t autocorrelation_sweeps = 100000;  // energy series length (sweeps, chain 0)
  double max_overlap = 0.05;                      // test/train overlap above this is flagged
  double spread_tolerance = 0.03;                 // largest acceptable spread of the chains' distances
};

struct DataDiagnostics {
  arma::uword distinct_train = 0, distinct_test = 0;
  double test_in_train = 0.0;
  double tau_energy_sweeps = 0.0;
  bool tau_lower_bound = false;
  std::vector<double> chain_hamming;  // per independent chain
  double chain_spread = 0.0;          // max - min of chain_hamming
  std::vector<std::string> warnings;  // non-empty: the data set is degenerate
  nlohmann::json json() const;
};

// Runs the diagnostic chains (streams::kDiagnostics + (k << 16)) at m.beta with
// the protocol's burn-in and spacing.
DataDiagnostics diagnose_data(const PottsModel& m, const ChainProtocol& protocol, const arma::imat& train,
                              const arma::imat& test, const DiagnosticSettings& s, std::uint64_t seed);

}  // namespace potts
