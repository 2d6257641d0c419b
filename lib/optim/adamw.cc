#include "lib/optim/adamw.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "lib/core/isa.h"

namespace potts {

Adamw::Adamw(arma::uword n, const AdamwOptions& o) : o_(o), m_(n, arma::fill::zeros), v_(n, arma::fill::zeros) {
  if (!(o.lr > 0.0) || !(o.beta1 >= 0.0 && o.beta1 < 1.0) || !(o.beta2 >= 0.0 && o.beta2 < 1.0) || !(o.eps > 0.0) ||
      !(o.weight_decay >= 0.0))
    throw std::invalid_argument("AdamW: expected lr > 0, 0 <= beta1, beta2 < 1, eps > 0 and weight_decay >= 0");
}

namespace {

struct AdamwCoefficients {
  double decay, beta1, beta2, a1, a2, bc2_sqrt, eps, step_size;
};

// The update of every element, in PyTorch's order: param.mul_,
// exp_avg.mul_().add_(alpha), exp_avg_sq.mul_().addcmul_(value), denom,
// param.addcdiv_(value). Cloned per level (lib/core/isa.h):
// each lane the same correctly rounded operations (no contraction), so the
// same bits at any vector width.
POTTS_ISA_CLONED void adamw_update(arma::uword n, const AdamwCoefficients& c, double* __restrict xp,
                                   double* __restrict m, double* __restrict v, const double* __restrict gp) {
  const double decay = c.decay, beta1 = c.beta1, beta2 = c.beta2, a1 = c.a1, a2 = c.a2, bc2_sqrt = c.bc2_sqrt,
               eps = c.eps, step = -c.step_size;
  for (arma::uword k = 0; k < n; ++k) {
    const double x = xp[k] * decay;
    const double mk = m[k] * beta1 + gp[k] * a1;
    const double vk = v[k] * beta2 + a2 * gp[k] * gp[k];
    m[k] = mk;
    v[k] = vk;
    const double denom = std::sqrt(vk) / bc2_sqrt + eps;
    xp[k] = x + step * (mk / denom);
  }
}

}  // namespace

void Adamw::step(arma::vec& x, const arma::vec& g) {
  if (x.n_elem != m_.n_elem || g.n_elem != m_.n_elem)
    throw std::invalid_argument("AdamW: x and g must have the optimiser's length " + std::to_string(m_.n_elem));
  ++t_;
  const double bc1 = 1.0 - std::pow(o_.beta1, double(t_)), bc2 = 1.0 - std::pow(o_.beta2, double(t_));
  const AdamwCoefficients c{1.0 - o_.lr * o_.weight_decay,
                            o_.beta1,
                            o_.beta2,
                            1.0 - o_.beta1,
                            1.0 - o_.beta2,
                            std::sqrt(bc2),
                            o_.eps,
                            o_.lr / bc1};
  adamw_update(m_.n_elem, c, x.memptr(), m_.memptr(), v_.memptr(), g.memptr());
}

BatchStream::BatchStream(arma::uword n, arma::uword batch, std::uint64_t seed)
    : n_(n), batch_(batch), pos_(n), rng_(seed, streams::kBatches), order_(n) {
  if (n < 1 || batch < 1) throw std::invalid_argument("BatchStream: expected at least one item and a batch of one");
  std::iota(order_.begin(), order_.end(), arma::uword(0));
}

arma::uvec BatchStream::next() {
  if (pos_ >= n_) {
    // Fisher-Yates over the previous epoch's order, as fit_couplings_sgd draws it.
    for (arma::uword k = n_; k > 1; --k) std::swap(order_[k - 1], order_[rng_.below(k)]);
    pos_ = 0;
    ++epoch_;
  }
  const arma::uword end = std::min(n_, pos_ + batch_);
  arma::uvec rows(end - pos_);
  for (arma::uword k = pos_; k < end; ++k) rows(k - pos_) = order_[k];
  pos_ = end;
  return rows;
}

}  // namespace potts
