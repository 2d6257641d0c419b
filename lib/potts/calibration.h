// The data-generating protocol of the sample stage (paper/spec.md §1) and the
// calibration of beta to a target mean normalised pairwise Hamming distance.
//
// Protocol (paper, appendix A): one chain from a uniformly random sequence,
// `burn_in_sweeps` sweeps, then one saved configuration every
// `sweeps_between` sweeps. Every run uses the same random stream
// (seed, streams::kGibbs) whatever beta is: common random numbers, so the
// distance is a deterministic function of beta, and a shorter run is exactly
// the prefix of a longer one.
//
// Calibration (a choice, paper/spec.md §1; the distance of one chain is
// noisy, not monotone in beta, and depends on the basins the whole chain
// visits):
//  1. grid: the protocol at reduced length (`grid_samples` saved
//     configurations, same burn-in and spacing) at each beta of a grid;
//     a monotone (decreasing) fit by isotonic regression (pool adjacent
//     violators); beta_0 where the fit crosses the target (linear
//     interpolation between grid points);
//  2. production: the full protocol at beta_n; the distance that counts is
//     the one of the final training set. Accept when it is within the
//     tolerance of the target. Otherwise the next beta is the secant inside
//     the tightest bracket of production runs (largest beta above the
//     target, smallest beta below it), replaced by the bracket's midpoint
//     when it falls within a tenth of the bracket of either end (the
//     distance of a glassy chain jumps with beta), else where the grid fit,
//     shifted by the observed offset, crosses the target. At most
//     `max_production_runs` runs; then fail, naming every beta tried.
//
// Tested by //stages/sample:sample_stage_test.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/potts/model.h"

namespace potts {

struct ChainProtocol {
  std::uint64_t burn_in_sweeps = 10000;
  std::uint64_t sweeps_between = 10000;
  std::uint64_t n_saved = 4000;
};

struct ChainStats {
  std::uint64_t updates = 0;
  double seconds = 0.0;      // wall time
  double cpu_seconds = 0.0;  // CPU time of the chain's thread (robust to a busy machine)
  double change_rate = 0.0;  // fraction of updates that changed the colour
  // Site updates per CPU second of one core.
  double updates_per_second() const { return cpu_seconds > 0 ? updates / cpu_seconds : 0.0; }
};

// Called after each saved configuration with (saved so far, n_saved).
using ChainProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// One chain at m.beta; returns the saved configurations (n_saved x L).
// `progress`, if set, is told how far the chain is.
arma::imat run_chain(const PottsModel& m, const ChainProtocol& p, std::uint64_t seed,
                     const ChainProgress& progress = {}, ChainStats* stats = nullptr);

// Interleaved split (a choice, paper/spec.md §1): saved configuration k goes
// to the test set when k % test_every == test_every - 1 and the test set is
// not full, otherwise to the training set while it is not full. Needs
// n_saved = M_train + M_test.
void split_interleaved(const arma::imat& saved, arma::uword M_train, arma::uword M_test, arma::uword test_every,
                       arma::imat* train, arma::imat* test);

// Isotonic regression, non-increasing, equal weights (pool adjacent violators).
std::vector<double> isotonic_decreasing(const std::vector<double>& y);

// x where the piecewise-linear curve through (xs, ys) (ys non-increasing)
// first reaches `target`; NaN when target is outside [ys.back(), ys.front()].
double decreasing_crossing(const std::vector<double>& xs, const std::vector<double>& ys, double target);

struct CalibrationSettings {
  double target = 0.3;      // mean normalised pairwise Hamming distance
  double tolerance = 0.03;  // accepted |achieved - target| on the final training set
  std::vector<double> beta_grid;
  std::uint64_t grid_samples = 400;
  int max_production_runs = 4;
};

struct CalibrationPoint {
  std::string phase;  // "grid" or "production"
  double beta = 0.0;
  double hamming = 0.0;  // grid: all saved configurations; production: training set
  double fit = 0.0;      // grid: isotonic fit
};

// A production run: the full protocol at beta, returning the training-set
// distance (and keeping its data, for the caller).
using ProductionRun = std::function<double(double beta)>;

struct CalibrationResult {
  double beta = 0.0;
  double hamming = 0.0;
  std::vector<CalibrationPoint> points;
};

// Steps 1 and 2 above. `grid_distance(beta)` runs the reduced protocol;
// grid points are evaluated on `threads` threads (fixed partition, results
// independent of the thread count). Throws StageError naming
// calibration.beta_grid when the grid does not bracket the target, and a
// message with every production beta tried when none is within tolerance.
CalibrationResult calibrate_beta(const CalibrationSettings& s, const std::function<double(double)>& grid_distance,
                                 const ProductionRun& production, int threads);

}  // namespace potts
