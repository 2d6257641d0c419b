// Memory-lean L-BFGS for objectives of millions of parameters (the full
// coupling model of a protein family: 5.5 million). lbfgs_minimize (lbfgs.h)
// copies whole vectors at every trial point of its strong-Wolfe search; at
// 44 MB a vector those copies, and the heap fragments they leave, are most
// of the fit's memory. Here every vector is allocated once: the point, its
// gradient, the direction, one trial point and its gradient, and m
// correction pairs in a ring (5 + 2m vectors in all).
//
// Algorithm (Nocedal & Wright, Numerical Optimization, 2nd ed.): the
// direction by the two-loop recursion (algorithm 7.4) with the scaling
// s.y / y.y of the newest pair; a backtracking line search on the Armijo
// condition (algorithm 3.1) from a = 1 (steepest descent, the first step,
// from 1 / max(1, ||g||)), each shorter step the minimiser of the quadratic
// through phi(0), phi'(0) and phi(a) (eq. 3.58) kept within [0.1 a, 0.5 a];
// a pair is kept only if s.y > eps y.y, which keeps the inverse-Hessian
// estimate positive definite without the curvature condition. Near the
// objective's rounding floor a step is also accepted on the approximate-
// Wolfe condition of Hager & Zhang, as lbfgs_minimize does.
//
// Options (LbfgsOptions): memory, max_iterations, gradient_tolerance,
// relative_decrease, wolfe_c1, max_line_search and on_iteration mean what
// they mean for lbfgs_minimize, with its stopping rules and statuses;
// wolfe_c2 is not used. A trial point with a non-finite value is shortened
// tenfold. If no step is accepted, the search is retried once along steepest
// descent with the pairs dropped, then stops with kLineSearchFailed.
//
// Deterministic: reductions are summed in eight fixed lanes, element k in
// lane k mod 8, the lanes combined pairwise in a fixed order (lane_dot), so
// every CPU gives the same iterates whatever its vector width. The reductions
// run on the calling thread; the elementwise passes (the direction's updates,
// the trial point, the new pair) on parallel_ranges (lib/core/parallel.h),
// each element by the same operations: the same bits at any thread count.
//
// Tested by //lib/optim:lean_lbfgs_test.
#pragma once
#include <armadillo>

#include "lib/optim/lbfgs.h"

namespace potts {

// a.b in eight lanes (above): the same bits on every x86-64 CPU.
double lane_dot(const arma::vec& a, const arma::vec& b);

LbfgsResult lean_lbfgs_minimize(const Objective& f, const arma::vec& x0, const LbfgsOptions& options);

}  // namespace potts
