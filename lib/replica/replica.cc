#include "lib/replica/replica.h"
#include "lib/gaussian/gaussian.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <sstream>

#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>

namespace potts::replica {

Spectrum spectrum_of(const arma::mat& Omega, const arma::vec& teacher_w, double sigma2) {
  arma::vec omega;
  arma::mat U;
  if (!arma::eig_sym(omega, U, 0.5 * (Omega + Omega.t())))
    throw StageError("spectrum_of: eigen-decomposition of Omega failed");
  if (!(omega.min() > 0))
    throw StageError("spectrum_of: Omega is not positive definite (smallest eigenvalue " +
                     format_number(omega.min(), 8) + ")");
  Spectrum s;
  s.omega = omega;
  s.teacher_t = U.t() * teacher_w;
  s.sigma2 = sigma2;
  s.rho = arma::sum(omega % arma::square(s.teacher_t));
  return s;
}

static void check_inputs(const char* who, double alpha, double lambda) {
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw StageError(std::string(who) + ": alpha = " + format_number(alpha, 8) +
                     " is not allowed; alpha = n/D must be > 0");
  if (!(lambda >= 0) || !std::isfinite(lambda))
    throw StageError(std::string(who) + ": lambda = " + format_number(lambda, 8) + " must be a finite number >= 0");
}

SaddlePoint solve_saddle_point(const Spectrum& s, double alpha, double lambda, const FixedPointOptions& opt) {
  check_inputs("solve_saddle_point", alpha, lambda);
  if (!(opt.damping > 0 && opt.damping <= 1))
    throw StageError("solve_saddle_point: damping = " + format_number(opt.damping, 8) + " must lie in (0, 1]");
  const arma::vec& w = s.omega;
  const arma::vec w2t2 = arma::square(w) % arma::square(s.teacher_t);  // ω² t²
  const double n = alpha * s.D();

  double V = opt.V_start, m = 0, q = 0, eta = opt.damping;
  std::deque<double> history;  // recent residuals, for the contraction-rate estimate
  int good = 0;
  SaddlePoint r;
  r.alpha = alpha;
  r.n = n;
  r.lambda = lambda;
  auto rel = [](double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300}); };
  for (long it = 1; it <= opt.max_iterations; ++it) {
    // Conjugate (hat) variables from the current order parameters.
    const double V_hat = n / (1 + V), m_hat = V_hat;
    const double q_hat = n * gaussian::generalisation_error(s.sigma2, s.rho, m, q) / ((1 + V) * (1 + V));
    // Order parameters from the hats.
    const arma::vec den = lambda + V_hat * w;
    const double V_new = arma::sum(w / den);
    const double m_new = m_hat * arma::sum(w2t2 / den);
    const double q_new = arma::sum(w % (m_hat * m_hat * w2t2 + q_hat * w) / arma::square(den));
    if (!std::isfinite(V_new) || !std::isfinite(m_new) || !std::isfinite(q_new))
      throw StageError("replica saddle point did not converge at alpha = " + format_number(alpha, 8) +
                       ", lambda = " + format_number(lambda, 8) + ": order parameters diverged after " +
                       std::to_string(it) + " iterations (no fixed point: lambda = 0 needs alpha > 1)");
    const double d = std::max({rel(V_new, V), rel(m_new, m), rel(q_new, q)});
    // Damped update.
    V += eta * (V_new - V);
    m += eta * (m_new - m);
    q += eta * (q_new - q);
    r.V = V, r.m = m, r.q = q, r.V_hat = V_hat, r.m_hat = m_hat, r.q_hat = q_hat;
    r.iterations = it, r.residual = d, r.damping = eta;
    if (d == 0) break;
    // Adaptive damping: a residual that jumps up signals overshoot.
    if (!history.empty() && d > 1.5 * history.back()) {
      eta = std::max(eta / 2, 1e-4);
      history.clear();
      good = 0;
    }
    history.push_back(d);
    const size_t W = 10;
    if (history.size() > W + 1) history.pop_front();
    if (history.size() == W + 1) {
      // Damped contraction rate r_η per step; distance to the fixed point ≈ η d / (1 - r_η).
      double rate = std::pow(history.back() / history.front(), 1.0 / W);
      if (rate < 1 && eta * d / (1 - rate) < opt.tolerance) {
        if (++good >= 3) break;
      } else {
        good = 0;
      }
    }
    if (it == opt.max_iterations)
      throw StageError("replica saddle point did not converge at alpha = " + format_number(alpha, 8) + ", lambda = " +
                       format_number(lambda, 8) + " within max_iterations = " + std::to_string(opt.max_iterations) +
                       " (last relative residual " + format_number(d, 8) + ", damping " + format_number(eta, 8) + ")");
  }
  // Eq. 7 at the converged order parameters.
  r.eps_g = gaussian::generalisation_error(s.sigma2, s.rho, r.m, r.q);
  return r;
}

namespace {
// n - df₁(κ) and n - df₂(κ), written without the cancellation n - D + ...
struct Dof {
  double df1, df2, n_minus_df1, n_minus_df2;
};
Dof dof(const arma::vec& w, double n, double kappa) {
  const double D = static_cast<double>(w.n_elem);
  Dof r;
  r.df1 = arma::sum(w / (w + kappa));
  r.df2 = arma::sum(arma::square(w / (w + kappa)));
  r.n_minus_df1 = (n - D) + arma::sum(kappa / (w + kappa));
  r.n_minus_df2 = (n - D) + arma::sum(kappa * (2 * w + kappa) / arma::square(w + kappa));
  return r;
}
}  // namespace

ClosedForm deterministic_equivalent(const Spectrum& s, double alpha, double lambda) {
  check_inputs("deterministic_equivalent", alpha, lambda);
  const arma::vec& w = s.omega;
  const double D = static_cast<double>(s.D());
  const double n = alpha * D;
  const boost::math::tools::eps_tolerance<double> tol(std::numeric_limits<double>::digits - 3);
  std::uintmax_t max_iter = 300;
  double kappa;
  auto solve_bracketed = [&](auto f, double a, double b) {
    std::uintmax_t it = max_iter;
    auto ab = boost::math::tools::toms748_solve(f, a, b, tol, it);
    if (it >= max_iter)
      throw StageError("deterministic_equivalent: root finder for kappa did not converge at alpha = " +
                       format_number(alpha, 8) + ", lambda = " + format_number(lambda, 8));
    return 0.5 * (ab.first + ab.second);
  };
  if (lambda > 0) {
    // h(κ) = κ (n - df₁(κ)) is convex with h(0) = 0 and h(κ) ≤ κ n, so the
    // unique positive root of h = λ lies above λ/n.
    auto g = [&](double k) { return k * dof(w, n, k).n_minus_df1 - lambda; };
    double a = lambda / n;
    double ga = g(a);
    if (ga >= 0) {
      kappa = a;  // only if df₁ vanishes numerically
    } else {
      double b = (n > D) ? lambda / (n - D) : 2 * a;  // h(κ) ≥ κ(n - D)
      int guard = 0;
      while (g(b) < 0) {
        b *= 2;
        if (++guard > 2000) throw StageError("deterministic_equivalent: cannot bracket kappa");
      }
      kappa = (g(b) == 0) ? b : solve_bracketed(g, a, b);
    }
  } else if (n > D) {
    kappa = 0;  // λ → 0⁺ with more samples than features
  } else if (n < D) {
    // λ → 0⁺, n < D: κ solves df₁(κ) = n.
    auto g = [&](double k) { return dof(w, n, k).n_minus_df1; };
    double a = w.max(), b = w.max();
    while (g(a) > 0) a /= 2;
    while (g(b) < 0) b *= 2;
    kappa = (a == b) ? a : solve_bracketed(g, a, b);
  } else {
    throw StageError("deterministic_equivalent: lambda = 0 at alpha = 1 (n = D): the generalisation loss is infinite");
  }
  ClosedForm c;
  c.alpha = alpha;
  c.n = n;
  c.lambda = lambda;
  c.kappa = kappa;
  const Dof d = dof(w, n, kappa);
  c.df1 = d.df1;
  c.df2 = d.df2;
  const arma::vec t2 = arma::square(s.teacher_t);
  const double bias = kappa * kappa * arma::sum(w % t2 / arma::square(w + kappa));
  const double one_minus = d.n_minus_df2 / n;  // 1 - df₂/n
  c.eps_g = s.sigma2 + (bias + s.sigma2 * d.df2 / n) / one_minus;
  c.m = arma::sum(arma::square(w) % t2 / (w + kappa));
  c.q = c.eps_g - s.sigma2 - s.rho + 2 * c.m;
  c.V = d.n_minus_df1 > 0 ? d.df1 / d.n_minus_df1 : std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace potts::replica
