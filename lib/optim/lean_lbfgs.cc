#include "lib/optim/lean_lbfgs.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include "lib/core/error.h"
#include "lib/core/parallel.h"

namespace potts {

namespace {

constexpr int kLanes = 8;

double combine(const double* s) { return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])); }

// Elementwise passes: f(k) for every k, cut into contiguous ranges on
// parallel_ranges (lib/core/parallel.h). Each element is computed by the same
// operations whichever thread runs it: the same bits at any thread count.
constexpr std::size_t kMinPerRange = std::size_t(1) << 15;

template <class F>
void each(arma::uword n, F f) {
  parallel_ranges(
      n,
      [&f](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) f(k);
      },
      kMinPerRange);
}

bool finite(const arma::vec& v) {
  const double* p = v.memptr();
  std::atomic<bool> all{true};  // a conjunction: the same whichever range sets it
  parallel_ranges(
      v.n_elem,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          if (!std::isfinite(p[k])) {
            all.store(false, std::memory_order_relaxed);
            return;
          }
      },
      kMinPerRange);
  return all.load();
}

// The lane sums of term(k) over k < n, lane k mod 8 (the class comment), in
// eight named accumulators over whole blocks of eight: the same additions in
// the same order as lanes[k % 8] += term(k), kept in registers.
template <class Term>
void lane_sums(arma::uword n, Term term, double* lanes) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0, a5 = 0.0, a6 = 0.0, a7 = 0.0;
  arma::uword b = 0;
  for (; b + kLanes <= n; b += kLanes) {
    a0 += term(b);
    a1 += term(b + 1);
    a2 += term(b + 2);
    a3 += term(b + 3);
    a4 += term(b + 4);
    a5 += term(b + 5);
    a6 += term(b + 6);
    a7 += term(b + 7);
  }
  const double acc[kLanes] = {a0, a1, a2, a3, a4, a5, a6, a7};
  for (int l = 0; l < kLanes; ++l) lanes[l] = acc[l];
  for (arma::uword k = b; k < n; ++k) lanes[k - b] += term(k);
}

// s.y and y.y for s = xt - x, y = gt - g, in one pass (nothing stored).
std::pair<double, double> pair_products(const arma::vec& x, const arma::vec& xt, const arma::vec& g,
                                        const arma::vec& gt) {
  double sy[kLanes] = {}, yy[kLanes] = {};
  const double *a = x.memptr(), *at = xt.memptr(), *b = g.memptr(), *bt = gt.memptr();
  const arma::uword n = x.n_elem;
  auto add = [&](arma::uword k, int l) {
    const double s = at[k] - a[k], y = bt[k] - b[k];
    sy[l] += s * y;
    yy[l] += y * y;
  };
  arma::uword k = 0;
  for (; k + kLanes <= n; k += kLanes)  // lane l at a fixed place: vectorised across lanes, same sums
    for (int l = 0; l < kLanes; ++l) add(k + l, l);
  for (int l = 0; k < n; ++k, ++l) add(k, l);
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
    if (p == MAP_FAILED) throw StageError("L-BFGS: cannot map " + std::to_string(bytes_ >> 20) + " MB for its vectors");
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
  double s[kLanes];
  const double* x = a.memptr();
  const double* y = b.memptr();
  const auto term = [x, y](arma::uword k) { return x[k] * y[k]; };
  lane_sums(a.n_elem, term, s);
  return combine(s);
}

namespace {

// The minimiser's state: the correction pairs and the direction in one
// mapping (Slab), as views that are never reallocated; the point, the trial
// point and their gradients as vectors of their own, so that an accepted
// trial becomes the point by a swap and the result takes the point without
// a copy.
class LeanLbfgs {
 public:
  LeanLbfgs(const Objective& f, const arma::vec& x0, const LbfgsOptions& o)
      : f_(f),
        o_(o),
        n_(x0.n_elem),
        m_(std::size_t(o.memory)),
        slab_(1 + 2 * m_, n_),
        d_(slab_.at(0), n_, false, true),
        x_(x0),
        g_(n_),
        xt_(n_),
        gt_(n_),
        rho_(m_),
        alpha_(m_),
        newest_(m_ - 1) {
    S_.reserve(m_);
    Y_.reserve(m_);
    for (std::size_t k = 0; k < m_; ++k) {
      S_.emplace_back(slab_.at(1 + 2 * k), n_, false, true);
      Y_.emplace_back(slab_.at(2 + 2 * k), n_, false, true);
    }
  }

  LbfgsResult run();

 private:
  LbfgsResult finish(LbfgsStatus status);
  double direction();
  bool line_search(int it, double& ft);
  void remember();

  const Objective& f_;
  const LbfgsOptions& o_;
  arma::uword n_;
  std::size_t m_;
  Slab slab_;
  arma::vec d_;
  std::vector<arma::vec> S_, Y_;
  arma::vec x_, g_, xt_, gt_;
  std::vector<double> rho_, alpha_;
  std::size_t count_ = 0, newest_;  // pairs kept; ring slot of the newest
  double gamma_ = 1.0;              // s.y / y.y of the newest pair
  double fx_ = 0.0;
  LbfgsResult r_;
};

LbfgsResult LeanLbfgs::finish(LbfgsStatus status) {
  r_.value = fx_;
  r_.gradient_norm = std::sqrt(lane_dot(g_, g_));
  r_.x = std::move(x_);
  r_.gradient = std::move(g_);
  r_.status = status;
  return r_;
}

// d = -H g by the two-loop recursion (q in d); returns g.d.
double LeanLbfgs::direction() {
  double* d = d_.memptr();
  const double* g = g_.memptr();
  each(n_, [d, g](arma::uword i) { d[i] = g[i]; });
  for (std::size_t k = 0; k < count_; ++k) {  // newest to oldest
    const std::size_t s = (newest_ + m_ - k) % m_;
    const double a = alpha_[s] = rho_[s] * lane_dot(S_[s], d_);
    const double* y = Y_[s].memptr();
    each(n_, [d, y, a](arma::uword i) { d[i] -= a * y[i]; });
  }
  if (count_ > 0) each(n_, [d, c = gamma_](arma::uword i) { d[i] *= c; });
  for (std::size_t k = count_; k-- > 0;) {  // oldest to newest
    const std::size_t s = (newest_ + m_ - k) % m_;
    const double beta = rho_[s] * lane_dot(Y_[s], d_);
    const double* v = S_[s].memptr();
    each(n_, [d, v, c = alpha_[s] - beta](arma::uword i) { d[i] += c * v[i]; });
  }
  each(n_, [d](arma::uword i) { d[i] = -d[i]; });
  return lane_dot(g_, d_);
}

// Backtracking from a = 1 along d (or, on the first step, lost descent or
// the retry, along -g with fresh memory) until sufficient decrease; the
// accepted trial in xt, gt and ft.
bool LeanLbfgs::line_search(int it, double& ft) {
  double dphi = direction(), a = 1.0;
  bool steepest = count_ == 0 || !(dphi < 0.0);
  const double noise = 1e-10 * std::max(1.0, std::abs(fx_));
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (steepest) {
      count_ = 0;
      each(n_, [d = d_.memptr(), g = g_.memptr()](arma::uword i) { d[i] = -g[i]; });
      dphi = -lane_dot(g_, g_);
      a = 1.0 / std::max(1.0, std::sqrt(-dphi));
    }
    bool seen_finite = false;
    for (int ls = 0; ls < o_.max_line_search; ++ls) {
      each(n_, [xt = xt_.memptr(), x = x_.memptr(), d = d_.memptr(), a](arma::uword i) { xt[i] = x[i] + a * d[i]; });
      ft = f_(xt_, gt_);
      ++r_.evaluations;
      if (!std::isfinite(ft) || !finite(gt_)) {
        a *= 0.1;
        continue;
      }
      seen_finite = true;
      if (ft <= fx_ + o_.wolfe_c1 * a * dphi ||
          (ft <= fx_ + noise && lane_dot(gt_, d_) <= (2.0 * o_.wolfe_c1 - 1.0) * dphi))
        return true;
      // The quadratic's minimiser (N&W eq. 3.58), within [0.1 a, 0.5 a].
      const double q = -dphi * a * a / (2.0 * (ft - fx_ - dphi * a));
      a = std::isfinite(q) ? std::clamp(q, 0.1 * a, 0.5 * a) : 0.5 * a;
    }
    if (!seen_finite)
      throw StageError("L-BFGS: iteration " + std::to_string(it) +
                       ": the objective is non-finite at every trial point of the line search");
    if (steepest) return false;
    steepest = true;
  }
  return false;
}

// The pair (s, y) = (xt - x, gt - g) into the ring where s.y > 0 (H stays
// positive definite).
void LeanLbfgs::remember() {
  const auto [sy, yy] = pair_products(x_, xt_, g_, gt_);
  if (sy > std::numeric_limits<double>::epsilon() * yy) {
    newest_ = (newest_ + 1) % m_;
    double *sv = S_[newest_].memptr(), *yv = Y_[newest_].memptr();
    const double *xt = xt_.memptr(), *x = x_.memptr(), *gt = gt_.memptr(), *g = g_.memptr();
    each(n_, [=](arma::uword i) {
      sv[i] = xt[i] - x[i];
      yv[i] = gt[i] - g[i];
    });
    rho_[newest_] = 1.0 / sy;
    gamma_ = sy / yy;
    count_ = std::min(count_ + 1, m_);
  }
}

LbfgsResult LeanLbfgs::run() {
  fx_ = f_(x_, g_);
  r_.evaluations = 1;
  if (!std::isfinite(fx_) || !finite(g_))
    throw StageError("L-BFGS: the objective or its gradient is non-finite at the starting point");
  if (g_.n_elem != n_) throw StageError("L-BFGS: the gradient has the wrong length");
  if (std::sqrt(lane_dot(g_, g_)) <= o_.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);
  for (int it = 1; it <= o_.max_iterations; ++it) {
    double ft = 0.0;
    if (!line_search(it, ft)) return finish(LbfgsStatus::kLineSearchFailed);
    remember();
    const double f_prev = fx_;
    x_.swap(xt_);
    g_.swap(gt_);
    fx_ = ft;
    r_.iterations = it;
    const double gnorm = std::sqrt(lane_dot(g_, g_));
    if (o_.on_iteration) o_.on_iteration(it, fx_, gnorm);
    if (gnorm <= o_.gradient_tolerance) return finish(LbfgsStatus::kGradientConverged);
    if (o_.relative_decrease > 0.0 &&
        f_prev - fx_ <= o_.relative_decrease * std::max({std::abs(fx_), std::abs(f_prev), 1.0}))
      return finish(LbfgsStatus::kRelativeDecrease);
  }
  return finish(LbfgsStatus::kMaxIterations);
}

}  // namespace

LbfgsResult lean_lbfgs_minimize(const Objective& f, const arma::vec& x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw StageError("L-BFGS: memory must be at least 1");
  return LeanLbfgs(f, x0, o).run();
}

}  // namespace potts
