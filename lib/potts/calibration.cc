#include "lib/potts/calibration.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <thread>
#include <time.h>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/potts/gibbs.h"

namespace potts {

static double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

arma::imat run_chain(const PottsModel& m, const ChainProtocol& p, std::uint64_t seed, const ChainProgress& progress,
                     ChainStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  GibbsSampler g(m, seed, streams::kGibbs);
  g.sweeps(p.burn_in_sweeps);
  arma::imat saved(p.n_saved, m.L());
  for (std::uint64_t k = 0; k < p.n_saved; ++k) {
    g.sweeps(p.sweeps_between);
    saved.row(k) = g.sequence();
    if (progress) progress(k + 1, p.n_saved);
  }
  if (stats) {
    stats->updates = g.updates();
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats->cpu_seconds = thread_cpu_seconds() - cpu_start;
    stats->change_rate = g.updates() ? double(g.changes()) / double(g.updates()) : 0.0;
  }
  return saved;
}

void split_interleaved(const arma::imat& saved, arma::uword M_train, arma::uword M_test, arma::uword test_every,
                       arma::imat* train, arma::imat* test) {
  if (saved.n_rows != M_train + M_test) throw StageError("split_interleaved: need M_train + M_test saved rows");
  if (test_every < 2) throw StageError("split_interleaved: test_every must be at least 2");
  train->set_size(M_train, saved.n_cols);
  test->set_size(M_test, saved.n_cols);
  arma::uword n_train = 0, n_test = 0;
  for (arma::uword k = 0; k < saved.n_rows; ++k) {
    const bool to_test = (k % test_every == test_every - 1 && n_test < M_test) || n_train == M_train;
    if (to_test)
      test->row(n_test++) = saved.row(k);
    else
      train->row(n_train++) = saved.row(k);
  }
}

std::vector<double> isotonic_decreasing(const std::vector<double>& y) {
  // Blocks of (sum, count); merge while a block's mean exceeds its predecessor's.
  std::vector<double> sum;
  std::vector<std::size_t> count;
  for (double v : y) {
    sum.push_back(v);
    count.push_back(1);
    while (sum.size() > 1 &&
           sum[sum.size() - 1] / count[count.size() - 1] > sum[sum.size() - 2] / count[count.size() - 2]) {
      sum[sum.size() - 2] += sum.back();
      count[count.size() - 2] += count.back();
      sum.pop_back();
      count.pop_back();
    }
  }
  std::vector<double> fit;
  for (std::size_t b = 0; b < sum.size(); ++b) fit.insert(fit.end(), count[b], sum[b] / count[b]);
  return fit;
}

double decreasing_crossing(const std::vector<double>& xs, const std::vector<double>& ys, double target) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (xs.empty() || xs.size() != ys.size()) return nan;
  if (target > ys.front() || target < ys.back()) return nan;
  for (std::size_t k = 0; k + 1 < xs.size(); ++k) {
    if (ys[k] >= target && ys[k + 1] <= target) {
      if (ys[k] == ys[k + 1]) return 0.5 * (xs[k] + xs[k + 1]);
      return xs[k] + (ys[k] - target) / (ys[k] - ys[k + 1]) * (xs[k + 1] - xs[k]);
    }
  }
  return xs.back();
}

namespace {

// grid_distance at every point of the grid, point k on thread k % threads.
std::vector<double> grid_distances(const std::vector<double>& grid, const std::function<double(double)>& grid_distance,
                                   int threads) {
  std::vector<double> h(grid.size());
  const int n_threads = std::max(1, std::min<int>(threads, int(grid.size())));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(n_threads);
  for (int t = 0; t < n_threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t k = t; k < grid.size(); k += n_threads) h[k] = grid_distance(grid[k]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return h;
}

// The next production beta after a run at `beta` gave distance d: the
// secant inside the tightest bracket of the runs so far, or the grid's fit
// shifted by the offset seen at beta and crossed again.
double next_beta(const CalibrationSettings& s, const std::vector<double>& fit,
                 const std::vector<CalibrationPoint>& prod, double beta, double d) {
  const std::vector<double>& grid = s.beta_grid;
  // The tightest bracket in beta (distance decreases with beta: "above"
  // means beta too small): the largest beta above the target and the
  // smallest beta below it.
  const CalibrationPoint* above = nullptr;
  const CalibrationPoint* below = nullptr;
  for (const auto& p : prod) {
    if (p.hamming > s.target && (!above || p.beta > above->beta)) above = &p;
    if (p.hamming < s.target && (!below || p.beta < below->beta)) below = &p;
  }
  if (above && below && above->beta < below->beta) {
    // Secant inside the bracket, safeguarded: where the distance jumps
    // (glassy chains) the secant can creep along one end, so a point
    // within a tenth of the bracket of either end is replaced by the
    // midpoint (bisection).
    const double w = below->beta - above->beta;
    double next = above->beta + (above->hamming - s.target) / (above->hamming - below->hamming) * w;
    if (next - above->beta < 0.1 * w || below->beta - next < 0.1 * w) next = above->beta + 0.5 * w;
    return next;
  }
  std::vector<double> shifted = fit;
  double fit_here = fit.front();
  for (std::size_t k = 0; k + 1 < grid.size(); ++k)
    if (beta >= grid[k] && beta <= grid[k + 1])
      fit_here = fit[k] + (beta - grid[k]) / (grid[k + 1] - grid[k]) * (fit[k + 1] - fit[k]);
  const double offset = d - fit_here;
  for (double& v : shifted) v += offset;
  const double next = decreasing_crossing(grid, shifted, s.target);
  return std::isnan(next) ? (d > s.target ? grid.back() : grid.front()) : next;
}

[[noreturn]] void calibration_failed(const CalibrationSettings& s, const std::vector<CalibrationPoint>& prod) {
  std::ostringstream msg;
  msg << "beta calibration failed: no production run reached the target distance " << s.target << " within "
      << s.tolerance << " (calibration.tolerance); runs (beta: training-set distance):";
  for (const auto& p : prod) msg << " " << p.beta << ": " << p.hamming << ";";
  msg << " widen calibration.max_production_runs or refine calibration.beta_grid";
  throw StageError(msg.str());
}

}  // namespace

CalibrationResult calibrate_beta(const CalibrationSettings& s, const std::function<double(double)>& grid_distance,
                                 const ProductionRun& production, int threads) {
  const std::vector<double>& grid = s.beta_grid;
  if (grid.size() < 2) throw StageError("calibration.beta_grid: need at least 2 values");
  for (std::size_t k = 0; k + 1 < grid.size(); ++k)
    if (!(grid[k] < grid[k + 1])) throw StageError("calibration.beta_grid: values must increase strictly");

  // 1. Grid at reduced length, and its monotone fit crossed at the target.
  const std::vector<double> h = grid_distances(grid, grid_distance, threads);
  const std::vector<double> fit = isotonic_decreasing(h);
  CalibrationResult result;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    result.points.push_back({"grid", grid[k], h[k], fit[k]});
    std::fprintf(stderr, "sample: calibration grid beta=%.6g distance=%.4f (monotone fit %.4f)\n", grid[k], h[k],
                 fit[k]);
  }
  double beta = decreasing_crossing(grid, fit, s.target);
  if (std::isnan(beta)) {
    std::ostringstream msg;
    msg << "calibration.beta_grid: the grid does not bracket the target distance " << s.target << " (monotone fit from "
        << fit.front() << " at beta=" << grid.front() << " to " << fit.back() << " at beta=" << grid.back()
        << "); widen the grid";
    throw StageError(msg.str());
  }

  // 2. Production runs until one is within the tolerance.
  std::vector<CalibrationPoint> prod;
  for (int run = 0; run < s.max_production_runs; ++run) {
    const double d = production(beta);
    prod.push_back({"production", beta, d, 0.0});
    result.points.push_back(prod.back());
    std::fprintf(stderr, "sample: calibration production run %d beta=%.6g distance=%.4f (target %.4f +- %.4f)\n",
                 run + 1, beta, d, s.target, s.tolerance);
    if (std::fabs(d - s.target) <= s.tolerance) {
      result.beta = beta;
      result.hamming = d;
      return result;
    }
    const double next = next_beta(s, fit, prod, beta, d);
    bool tried = false;
    for (const auto& p : prod) tried = tried || std::fabs(p.beta - next) <= 1e-12 * std::fabs(next);
    if (tried) break;
    beta = next;
  }
  calibration_failed(s, prod);
}

}  // namespace potts
