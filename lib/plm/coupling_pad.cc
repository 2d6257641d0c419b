// The pseudo-likelihood model with pads (coupling_pad.h, eq. O2).
#include "lib/plm/coupling_pad.h"

#include <cmath>
#include <string>

#include "lib/core/config.h"
#include "lib/core/parallel.h"
#include "lib/optim/lean_lbfgs.h"

namespace potts {
namespace {

// A view of x's blocks as a C^2 x P matrix (no copy).
const arma::mat blocks_of(arma::uword L, arma::uword C, const arma::vec& x) {
  return arma::mat(const_cast<double*>(x.memptr()) + C * L, C * C, L * (L - 1) / 2, false, true);
}

}  // namespace

double pad_plm_objective(arma::uword L, arma::uword C, const arma::vec& x, const arma::imat& sequences,
                         const PadPlmPenalty& penalty, arma::vec* grad, PadDataWorkspace& work) {
  if (x.n_elem != pad_plm_parameter_count(L, C))
    throw StageError("pad_plm: " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(pad_plm_parameter_count(L, C)));
  if (sequences.n_rows == 0 || sequences.n_cols != L || sequences.min() < 0)
    throw StageError("pad_plm: expected M >= 1 sequences of " + std::to_string(L) + " non-negative states");
  const arma::mat blocks = blocks_of(L, C, x);
  const double scale = 1.0 / (double(L) * double(sequences.n_rows));
  arma::uword n_targets = 0;
  arma::mat dblocks;
  if (grad != nullptr) grad->set_size(x.n_elem);
  const double ce = pad_data_term(L, C, blocks, x.memptr(), sequences, scale, work, &n_targets,
                                  grad != nullptr ? &dblocks : nullptr, grad != nullptr ? grad->memptr() : nullptr);
  double b2 = 0.0, w2 = 0.0;
  for (arma::uword e = 0; e < C * L; ++e) b2 += x(e) * x(e);
  for (arma::uword e = C * L; e < x.n_elem; ++e) w2 += x(e) * x(e);
  const double f = ce * scale + penalty.lambda_h * b2 + 2.0 * penalty.lambda_c * w2;
  if (grad == nullptr) return f;
  double* g = grad->memptr();
  for (arma::uword e = 0; e < C * L; ++e) g[e] += 2.0 * penalty.lambda_h * x(e);
  const double* d = dblocks.memptr();
  parallel_ranges(
      dblocks.n_elem,
      [&](std::size_t e0, std::size_t e1) {
        for (std::size_t e = e0; e < e1; ++e) g[C * L + e] = d[e] + 4.0 * penalty.lambda_c * x(C * L + e);
      },
      1 << 16);
  return f;
}

double pad_plm_mean_loss(arma::uword L, arma::uword C, const arma::vec& x, const arma::imat& sequences) {
  PadDataWorkspace work;
  arma::uword n_targets = 0;
  const double ce =
      pad_data_term(L, C, blocks_of(L, C, x), x.memptr(), sequences, 1.0, work, &n_targets, nullptr, nullptr);
  return n_targets == 0 ? 0.0 : ce / double(n_targets);
}

arma::mat pad_plm_block_norms(arma::uword L, arma::uword C, const arma::vec& x) {
  return pair_block_norms(L, C, blocks_of(L, C, x));
}

LbfgsResult fit_pad_plm(arma::uword L, arma::uword C, const arma::imat& sequences, const PadPlmPenalty& penalty,
                        const LbfgsOptions& options) {
  PadDataWorkspace work;
  const Objective f = [&](const arma::vec& x, arma::vec& g) {
    const double v = pad_plm_objective(L, C, x, sequences, penalty, &g, work);
    if (!std::isfinite(v)) throw StageError("pad_plm: the objective is not finite; the fit diverged");
    return v;
  };
  return lean_lbfgs_minimize(f, arma::vec(pad_plm_parameter_count(L, C), arma::fill::zeros), options);
}

}  // namespace potts
