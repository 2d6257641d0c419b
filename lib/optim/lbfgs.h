// Full-batch L-BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed.,
// algorithm 7.4 two-loop recursion, algorithms 3.5/3.6 strong-Wolfe line search).
//
// Minimises a smooth objective f(x) given as a function that returns f and
// writes its gradient. Deterministic: no randomness, no threads, the same
// start gives the same iterates bit for bit.
//
//   Objective f = [](const arma::vec& x, arma::vec& grad) { ...; return value; };
//   LbfgsResult r = lbfgs_minimize(f, x0, LbfgsOptions{});
//   if (!r.converged()) ...  // r.status says why it stopped
//
// Stopping rules, checked after every iteration (first match wins):
//   * gradient:  ||grad||_2 <= gradient_tolerance                  -> kGradientConverged
//   * decrease:  (f_prev - f) <= relative_decrease * max(|f|, |f_prev|, 1)
//                (relative_decrease = 0 disables it)                 -> kRelativeDecrease
//   * iterations reached max_iterations                            -> kMaxIterations
//   * the line search found no acceptable step (typically at the
//     floating-point floor of the objective)                          -> kLineSearchFailed
// converged() is true for the first two.
//
// Non-finite values: a non-finite f or gradient at the starting point throws
// potts::StageError. A trial step of the line search that gives a non-finite
// value is treated as "too long" and shortened; if no finite point is found
// along the search direction, StageError is thrown naming the iteration.
//
// Tested by //lib/optim:lbfgs_test.
#pragma once
#include <functional>
#include <string>

#include <armadillo>

#include "lib/core/config.h"

namespace potts {

using Objective = std::function<double(const arma::vec& x, arma::vec& grad)>;

struct LbfgsOptions {
  int memory = 10;                   // number of correction pairs kept
  int max_iterations = 1000;         // iterations (one line search each)
  double gradient_tolerance = 1e-6;  // on the Euclidean norm of the gradient
  double relative_decrease = 0.0;    // see above; 0 disables
  double wolfe_c1 = 1e-4;            // sufficient decrease (Armijo)
  double wolfe_c2 = 0.9;             // curvature (strong Wolfe)
  int max_line_search = 40;          // evaluations per line search
  // Called after every iteration with (iteration, f, ||grad||); may be empty.
  std::function<void(int, double, double)> on_iteration;
};

// The options a fit's configuration gives: max_iterations and
// gradient_tolerance, and optionally relative_decrease and lbfgs_memory (the
// correction pairs kept); the rest keep their defaults.
LbfgsOptions read_lbfgs_options(Config& cfg);

enum class LbfgsStatus { kGradientConverged, kRelativeDecrease, kMaxIterations, kLineSearchFailed };
std::string to_string(LbfgsStatus s);

// a·b and ||a||_2 summed in index order (the optimiser's only reductions):
// the same bits on every CPU, unlike the BLAS.
double ordered_dot(const arma::vec& a, const arma::vec& b);
double ordered_norm(const arma::vec& a);

struct LbfgsResult {
  arma::vec x;                 // final point
  double value = 0.0;          // f(x)
  arma::vec gradient;          // grad f(x)
  double gradient_norm = 0.0;  // ||grad f(x)||_2
  int iterations = 0;          // completed iterations
  int evaluations = 0;         // calls of the objective
  LbfgsStatus status = LbfgsStatus::kMaxIterations;
  bool converged() const {
    return status == LbfgsStatus::kGradientConverged || status == LbfgsStatus::kRelativeDecrease;
  }
};

LbfgsResult lbfgs_minimize(const Objective& f, const arma::vec& x0, const LbfgsOptions& options);

}  // namespace potts
