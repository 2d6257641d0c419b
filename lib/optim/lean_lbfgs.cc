#include "lib/optim/lean_lbfgs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "lib/core/error.h"

namespace potts {

namespace {

constexpr int kLanes = 8;

double combine(const double* s) { return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])); }

bool finite(const arma::vec& v) {
  const double* p = v.memptr();
  for (arma::uword k = 0; k < v.n_elem; ++k)
    if (!std::isfinite(p[k])) return false;
  return true;
}

// s.y and y.y for s = xt - x, y = gt - g, in one pass (nothing stored).
std::pair<double, double> pair_products(const arma::vec& x, const arma::vec& xt, const arma::vec& g,
                                        const arma::vec& gt) {
  double sy[kLanes] = {}, yy[kLanes] = {};
  const double *a = x.memptr(), *at = xt.memptr(), *b = g.memptr(), *bt = gt.memptr();
  for (arma::uword k = 0; k < x.n_elem; ++k) {
    const double s = at[k] - a[k], y = bt[k] - b[k];
    sy[k % kLanes] += s * y;
    yy[k % kLanes] += y * y;
  }
  return {combine(sy), combine(yy)};
}

// One mapping for the correction pairs and the direction, returned to the
// system when the minimisation ends (a heap that keeps freed blocks, as the
// couplings stage's does, would hold them for the rest of the process), in
// 2 MB pages where the kernel grants them (a hint; no value depends on it).
class Slab {
 public:
  Slab(arma::uword vectors, arma::uword n) : stride_((n + 7) / 8 * 8), bytes_(vectors * stride_ * sizeof(double)) {
    if (bytes_ == 0) return;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw StageError("L-BFGS: cannot map " + std::to_string(bytes_ >> 20) + " MB for its vectors");
    madvise(p, bytes_, MADV_HUGEPAGE);
    base_ = static_cast<double*>(p);
  }
  ~Slab() {
    if (base_) munmap(base_, bytes_);
  }
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;
  // The memory of vector k.
  double* at(arma::uword k) { return base_ + k * stride_; }

 private:
  arma::uword stride_;
  std::size_t bytes_;
  double* base_ = nullptr;
};

}  // namespace

double lane_dot(const arma::vec& a, const arma::vec& b) {
  if (a.n_elem != b.n_elem) throw std::logic_error("lane_dot: vectors of different lengths");
  double s[kLanes] = {};
  const double* x = a.memptr();
  const double* y = b.memptr();
  for (arma::uword k = 0; k < a.n_elem; ++k) s[k % kLanes] += x[k] * y[k];
  return combine(s);
}

LbfgsResult lean_lbfgs_minimize(const Objective& f, const arma::vec& x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw StageError("L-BFGS: memory must be at least 1");
  const arma::uword n = x0.n_elem;
  const std::size_t m = std::size_t(o.memory);
  LbfgsResult r;
  // The correction pairs and the direction in one mapping (Slab), as views
  // that are never reallocated; the point, the trial point and their
  // gradients as vectors of their own, so that an accepted trial becomes the
  // point by a swap and the result takes the point without a copy.
  Slab slab(1 + 2 * m, n);
  arma::vec d(slab.at(0), n, false, true);
  std::vector<arma::vec> S, Y;
  S.reserve(m);
  Y.reserve(m);
  for (std::size_t k = 0; k < m; ++k) {
    S.emplace_back(slab.at(1 + 2 * k), n, false, true);
    Y.emplace_back(slab.at(2 + 2 * k), n, false, true);
  }
  arma::vec x = x0, g(n), xt(n), gt(n);
  std::vector<double> rho(m), alpha(m);
  std::size_t count = 0, newest = m - 1;  // pairs kept; ring slot of the newest
  double gamma = 1.0;                      // s.y / y.y of the newest pair

  double fx = f(x, g);
  r.evaluations = 1;
  if (!std::isfinite(fx) || !finite(g))
    throw StageError("L-BFGS: the objective or its gradient is non-finite at the starting point");
  if (g.n_elem != n) throw StageError("L-BFGS: the gradient has the wrong length");
  auto finish = [&](LbfgsStatus st) {
    r.value = fx;
    r.gradient_norm = std::sqrt(lane_dot(g, g));
    r.x = std::move(x);
    r.gradient = std::move(g);
    r.status = st;
    return r;
  };
  if (std::sqrt(lane_dot(g, g)) <= o.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);

  for (int it = 1; it <= o.max_iterations; ++it) {
    // d = -H g by the two-loop recursion, q in d.
    d = g;
    for (std::size_t k = 0; k < count; ++k) {  // newest to oldest
      const std::size_t s = (newest + m - k) % m;
      alpha[s] = rho[s] * lane_dot(S[s], d);
      d -= alpha[s] * Y[s];
    }
    if (count > 0) d *= gamma;
    for (std::size_t k = count; k-- > 0;) {  // oldest to newest
      const std::size_t s = (newest + m - k) % m;
      const double beta = rho[s] * lane_dot(Y[s], d);
      d += (alpha[s] - beta) * S[s];
    }
    d = -d;
    double dphi = lane_dot(g, d), a = 1.0;
    bool steepest = count == 0 || !(dphi < 0.0);
    const double noise = 1e-10 * std::max(1.0, std::abs(fx));
    bool accepted = false;
    double ft = 0.0;
    for (int attempt = 0; attempt < 2 && !accepted; ++attempt) {
      if (steepest) {  // the first step, lost descent, or the retry: fresh memory
        count = 0;
        d = -g;
        dphi = -lane_dot(g, g);
        a = 1.0 / std::max(1.0, std::sqrt(-dphi));
      }
      bool seen_finite = false;
      for (int ls = 0; ls < o.max_line_search; ++ls) {
        xt = x + a * d;
        ft = f(xt, gt);
        ++r.evaluations;
        if (!std::isfinite(ft) || !finite(gt)) {
          a *= 0.1;
          continue;
        }
        seen_finite = true;
        if (ft <= fx + o.wolfe_c1 * a * dphi ||
            (ft <= fx + noise && lane_dot(gt, d) <= (2.0 * o.wolfe_c1 - 1.0) * dphi)) {
          accepted = true;
          break;
        }
        // The quadratic's minimiser (N&W eq. 3.58), within [0.1 a, 0.5 a].
        const double q = -dphi * a * a / (2.0 * (ft - fx - dphi * a));
        a = std::isfinite(q) ? std::clamp(q, 0.1 * a, 0.5 * a) : 0.5 * a;
      }
      if (!seen_finite)
        throw StageError("L-BFGS: iteration " + std::to_string(it) +
                         ": the objective is non-finite at every trial point of the line search");
      if (!accepted && steepest) break;
      steepest = true;
    }
    if (!accepted) return finish(LbfgsStatus::kLineSearchFailed);

    const auto [sy, yy] = pair_products(x, xt, g, gt);
    if (sy > std::numeric_limits<double>::epsilon() * yy) {  // keep H positive definite
      newest = (newest + 1) % m;
      S[newest] = xt - x;
      Y[newest] = gt - g;
      rho[newest] = 1.0 / sy;
      gamma = sy / yy;
      count = std::min(count + 1, m);
    }
    const double f_prev = fx;
    x.swap(xt);
    g.swap(gt);
    fx = ft;
    r.iterations = it;
    const double gnorm = std::sqrt(lane_dot(g, g));
    if (o.on_iteration) o.on_iteration(it, fx, gnorm);
    if (gnorm <= o.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);
    if (o.relative_decrease > 0.0 &&
        f_prev - fx <= o.relative_decrease * std::max({std::abs(fx), std::abs(f_prev), 1.0}))
      return finish(LbfgsStatus::kRelativeDecrease);
  }
  return finish(LbfgsStatus::kMaxIterations);
}

}  // namespace potts
