#include "lib/optim/lbfgs.h"

#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

#include "lib/core/error.h"

namespace potts {

LbfgsOptions read_lbfgs_options(Config& cfg) {
  LbfgsOptions lo;
  lo.max_iterations = int(cfg.integer("max_iterations", 1, 1000000));
  lo.gradient_tolerance = cfg.number_open("gradient_tolerance", 0.0, 1.0);
  if (cfg.has("relative_decrease")) lo.relative_decrease = cfg.number("relative_decrease", 0.0, 1.0);
  if (cfg.has("lbfgs_memory")) lo.memory = int(cfg.integer("lbfgs_memory", 1, 100));
  return lo;
}

std::string to_string(LbfgsStatus s) {
  switch (s) {
    case LbfgsStatus::kGradientConverged:
      return "gradient_converged";
    case LbfgsStatus::kRelativeDecrease:
      return "relative_decrease";
    case LbfgsStatus::kMaxIterations:
      return "max_iterations";
    case LbfgsStatus::kLineSearchFailed:
      return "line_search_failed";
  }
  return "?";
}

// Reductions in index order, one accumulator: the same sum on every CPU and
// BLAS build (arma::dot and arma::norm call the BLAS, whose kernels sum in
// an order that depends on the CPU they select), so the iterates, and the
// number of evaluations, do not depend on the machine.
double ordered_dot(const arma::vec& a, const arma::vec& b) {
  if (a.n_elem != b.n_elem) throw std::logic_error("ordered_dot: vectors of different lengths");
  double s = 0.0;
  const double* x = a.memptr();
  const double* y = b.memptr();
  for (arma::uword i = 0; i < a.n_elem; ++i) s += x[i] * y[i];
  return s;
}

double ordered_norm(const arma::vec& a) { return std::sqrt(ordered_dot(a, a)); }

namespace {

// One evaluated point on the search line x + a p.
struct LinePoint {
  double a = 0.0, phi = 0.0, dphi = 0.0;
  arma::vec x, g;
};

// Minimiser of the cubic through (a, fa, da), (b, fb, db) (N&W eq. 3.59),
// kept inside [lo + 0.1 w, hi - 0.1 w] of the bracket; bisection otherwise.
double cubic_step(const LinePoint& p, const LinePoint& q) {
  double lo = std::min(p.a, q.a), hi = std::max(p.a, q.a), w = hi - lo;
  double d1 = p.dphi + q.dphi - 3.0 * (p.phi - q.phi) / (p.a - q.a);
  double disc = d1 * d1 - p.dphi * q.dphi;
  double t = 0.5 * (lo + hi);
  if (disc >= 0.0) {
    double d2 = std::copysign(std::sqrt(disc), q.a - p.a);
    double c = q.a - (q.a - p.a) * (q.dphi + d2 - d1) / (q.dphi - p.dphi + 2.0 * d2);
    if (std::isfinite(c)) t = c;
  }
  if (!(t >= lo + 0.1 * w && t <= hi - 0.1 * w)) t = 0.5 * (lo + hi);
  return t;
}

class LineSearch {
 public:
  LineSearch(const Objective& f, const LbfgsOptions& o, int& evaluations, int iteration)
      : f_(f), o_(o), evaluations_(evaluations), iteration_(iteration) {}

  // Strong-Wolfe search from `start` (a = 0) along p, first trial a_init.
  // Returns true and the accepted point, or false (no acceptable step).
  bool run(const LinePoint& start, const arma::vec& p, double a_init, LinePoint& out) {
    start_ = &start;
    p_ = &p;
    used_ = 0;
    noise_ = 1e-10 * std::max(1.0, std::abs(start.phi));
    LinePoint prev = start;
    double a = a_init;
    for (int k = 0; used_ < o_.max_line_search; ++k) {
      LinePoint cur;
      if (!eval(a, cur)) {  // non-finite: shorten towards the last finite point
        a = prev.a + 0.1 * (a - prev.a);
        if (a - prev.a <= 1e-20 * std::max(1.0, prev.a)) break;
        continue;
      }
      if (!sufficient_decrease(cur) || (k > 0 && higher(cur, prev))) return zoom(std::move(prev), std::move(cur), out);
      if (std::abs(cur.dphi) <= -o_.wolfe_c2 * start.dphi) {
        out = std::move(cur);
        return true;
      }
      if (cur.dphi >= 0.0) return zoom(std::move(cur), std::move(prev), out);
      prev = std::move(cur);
      a = 2.0 * prev.a;  // still descending steeply: extrapolate
    }
    if (!seen_finite_)
      throw StageError("L-BFGS: iteration " + std::to_string(iteration_) +
                       ": the objective is non-finite at every trial point of the line search");
    if (prev.a > 0.0) {  // Armijo holds at prev: accept a weak step
      out = std::move(prev);
      return true;
    }
    return false;
  }

 private:
  bool eval(double a, LinePoint& pt) {
    ++used_;
    ++evaluations_;
    pt.a = a;
    pt.x = start_->x + a * (*p_);
    pt.phi = f_(pt.x, pt.g);
    if (!std::isfinite(pt.phi) || !pt.g.is_finite()) return false;
    seen_finite_ = true;
    pt.dphi = ordered_dot(pt.g, *p_);
    return true;
  }

  // Armijo condition; near the floating-point floor of f, where differences
  // of f are rounding noise, the approximate-Wolfe form of Hager & Zhang
  // (SIAM J. Optim. 16, 2005): f within noise of f(0) and the slope
  // decreased in magnitude, phi'(a) <= (2 c1 - 1) phi'(0).
  bool sufficient_decrease(const LinePoint& c) const {
    const LinePoint& s = *start_;
    if (c.phi <= s.phi + o_.wolfe_c1 * c.a * s.dphi) return true;
    return c.phi <= s.phi + noise_ && c.dphi <= (2.0 * o_.wolfe_c1 - 1.0) * s.dphi;
  }
  // f(c) above f(ref) by more than rounding noise.
  bool higher(const LinePoint& c, const LinePoint& ref) const { return c.phi > ref.phi + noise_; }

  // N&W algorithm 3.6: lo satisfies Armijo and has the lowest phi so far.
  bool zoom(LinePoint lo, LinePoint hi, LinePoint& out) {
    const LinePoint& s = *start_;
    const double p_norm = ordered_norm(*p_);
    while (used_ < o_.max_line_search) {
      if (std::abs(hi.a - lo.a) * p_norm <= std::numeric_limits<double>::epsilon() * std::max(1.0, ordered_norm(lo.x)))
        break;
      double a = cubic_step(lo, hi);
      LinePoint cur;
      if (!eval(a, cur)) {  // non-finite inside the bracket: treat as too long
        hi.a = a;
        hi.phi = std::numeric_limits<double>::max();
        hi.dphi = 0.0;
        continue;
      }
      if (!sufficient_decrease(cur) || higher(cur, lo)) {
        hi = std::move(cur);
      } else {
        if (std::abs(cur.dphi) <= -o_.wolfe_c2 * s.dphi) {
          out = std::move(cur);
          return true;
        }
        if (cur.dphi * (hi.a - lo.a) >= 0.0) hi = lo;
        lo = std::move(cur);
      }
    }
    if (lo.a > 0.0 && sufficient_decrease(lo)) {  // Armijo holds at lo: accept a weak step
      out = std::move(lo);
      return true;
    }
    return false;
  }

  const Objective& f_;
  const LbfgsOptions& o_;
  int& evaluations_;
  int iteration_;
  const LinePoint* start_ = nullptr;
  const arma::vec* p_ = nullptr;
  int used_ = 0;
  double noise_ = 0.0;
  bool seen_finite_ = false;
};

// The correction pairs (s, y) with rho = 1 / s.y, oldest first.
struct PairMemory {
  std::deque<arma::vec> s, y;
  std::deque<double> rho;
  double newest_sy = 0.0, newest_yy = 0.0;  // of the newest pair (the initial scaling)

  void clear() { s.clear(), y.clear(), rho.clear(); }

  // p = -H g by the two-loop recursion (N&W algorithm 7.4).
  arma::vec direction(const arma::vec& g) const {
    arma::vec q = g;
    const std::size_t m = s.size();
    std::vector<double> alpha(m);
    for (std::size_t k = m; k-- > 0;) {
      alpha[k] = rho[k] * ordered_dot(s[k], q);
      q -= alpha[k] * y[k];
    }
    if (m > 0) q *= newest_sy / newest_yy;
    for (std::size_t k = 0; k < m; ++k) {
      double b = rho[k] * ordered_dot(y[k], q);
      q += (alpha[k] - b) * s[k];
    }
    return -q;
  }

  // The step's pair, kept where s.y > 0 (H stays positive definite); the
  // oldest dropped beyond `memory` pairs.
  void remember(const LinePoint& from, const LinePoint& to, int memory) {
    arma::vec sk = to.x - from.x, yk = to.g - from.g;
    const double sy = ordered_dot(sk, yk), yy = ordered_dot(yk, yk);
    if (!(sy > std::numeric_limits<double>::epsilon() * yy)) return;
    if (static_cast<int>(s.size()) == memory) s.pop_front(), y.pop_front(), rho.pop_front();
    s.push_back(std::move(sk));
    y.push_back(std::move(yk));
    rho.push_back(1.0 / sy);
    newest_sy = sy, newest_yy = yy;
  }
};

// One iteration's line search from `start` along the memory's direction (or
// steepest descent on the first step or lost descent), retried once along
// steepest descent with fresh memory; the accepted point in `next`.
bool search(const Objective& f, const LbfgsOptions& o, int& evaluations, int it, PairMemory& mem, LinePoint& start,
            LinePoint& next) {
  const std::size_t m = mem.s.size();
  arma::vec p = mem.direction(start.g);
  start.a = 0.0;
  start.dphi = ordered_dot(start.g, p);
  double a_init = 1.0;
  if (m == 0 || !(start.dphi < 0.0)) {
    mem.clear();
    p = -start.g;
    start.dphi = -ordered_dot(start.g, start.g);
    a_init = 1.0 / std::max(1.0, ordered_norm(start.g));
  }
  LineSearch ls(f, o, evaluations, it);
  if (ls.run(start, p, a_init, next)) return true;
  if (m == 0) return false;
  mem.clear();
  p = -start.g;
  start.dphi = -ordered_dot(start.g, start.g);
  LineSearch ls2(f, o, evaluations, it);
  return ls2.run(start, p, 1.0 / std::max(1.0, ordered_norm(start.g)), next);
}

}  // namespace

LbfgsResult lbfgs_minimize(const Objective& f, const arma::vec& x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw StageError("L-BFGS: memory must be at least 1");
  LbfgsResult r;
  LinePoint cur;
  cur.x = x0;
  cur.phi = f(cur.x, cur.g);
  r.evaluations = 1;
  if (!std::isfinite(cur.phi) || !cur.g.is_finite())
    throw StageError("L-BFGS: the objective or its gradient is non-finite at the starting point");
  if (cur.g.n_elem != x0.n_elem) throw StageError("L-BFGS: the gradient has the wrong length");
  PairMemory mem;
  auto finish = [&](LbfgsStatus status) {
    r.x = std::move(cur.x);
    r.value = cur.phi;
    r.gradient = std::move(cur.g);
    r.gradient_norm = ordered_norm(r.gradient);
    r.status = status;
    return r;
  };
  if (ordered_norm(cur.g) <= o.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);

  for (int it = 1; it <= o.max_iterations; ++it) {
    LinePoint start = std::move(cur);  // cur again once the line search has ended
    LinePoint next;
    if (!search(f, o, r.evaluations, it, mem, start, next)) {
      cur = std::move(start);
      return finish(LbfgsStatus::kLineSearchFailed);
    }
    mem.remember(start, next, o.memory);
    double f_prev = start.phi;
    cur = std::move(next);
    r.iterations = it;
    double gnorm = ordered_norm(cur.g);
    if (o.on_iteration) o.on_iteration(it, cur.phi, gnorm);
    if (gnorm <= o.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);
    if (o.relative_decrease > 0.0 &&
        f_prev - cur.phi <= o.relative_decrease * std::max({std::abs(cur.phi), std::abs(f_prev), 1.0}))
      return finish(LbfgsStatus::kRelativeDecrease);
  }
  return finish(LbfgsStatus::kMaxIterations);
}

}  // namespace potts
