#include "lib/couplings/coupling_fits.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/optim/lean_lbfgs.h"
#include "lib/train/trainer.h"

namespace potts {

CouplingFit fit_couplings(const CouplingSpec& s, const arma::imat& train, const arma::vec& w,
                          const CouplingPenalty& pen, const CouplingInit& init, const LbfgsOptions& options,
                          std::uint64_t seed, int restarts, const std::function<void(int)>& on_restart,
                          LbfgsVariant variant) {
  s.check();
  check_coupling_data(train, w, s.L, s.C);
  if (restarts < 1) throw StageError("coupling model: restarts must be at least 1");
  CouplingWorkspace work;
  Objective f = [&](const arma::vec& x, arma::vec& g) {
    return coupling_objective(s, x, train, w, pen, &g, CouplingPath::kAuto, &work);
  };
  CouplingFit fit;
  for (int r = 0; r < restarts; ++r) {
    if (on_restart) on_restart(r);
    LbfgsResult res;
    try {
      const arma::vec x0 = coupling_initial_point(s, init, train, w, seed, r);
      res = variant == LbfgsVariant::kLean ? lean_lbfgs_minimize(f, x0, options) : lbfgs_minimize(f, x0, options);
    } catch (const StageError& e) {
      throw StageError("coupling model (" + s.describe() + "), restart " + std::to_string(r) + ": " + e.what());
    }
    if (!std::isfinite(res.value))
      throw StageError("coupling model (" + s.describe() + "), restart " + std::to_string(r) +
                       ": the objective is not finite");
    CouplingRestart rr;
    rr.objective = res.value;
    arma::mat W, h;
    couplings_of(s, res.x, W, h);
    rr.train_loss = weighted_pl_data_term(W, h, train, w, nullptr, nullptr);
    rr.status = res.status;
    rr.iterations = res.iterations;
    rr.evaluations = res.evaluations;
    fit.restarts.push_back(rr);
    if (r == 0 || rr.objective < fit.objective) {
      fit.best_restart = r;
      fit.objective = rr.objective;
      fit.train_loss = rr.train_loss;
      fit.x = res.x;
      fit.W = W;
      fit.h = h;
    }
  }
  return fit;
}

CouplingFit fit_couplings_sgd(const CouplingSpec& s, const arma::imat& train, const arma::vec& w,
                              const CouplingPenalty& pen, const CouplingInit& init, const SgdOptions& o,
                              std::uint64_t seed) {
  s.check();
  check_coupling_data(train, w, s.L, s.C);
  if (o.epochs < 1 || o.batch_size < 1 || !(o.lr0 > 0.0) || o.report_every < 1)
    throw StageError("coupling model: SGD needs epochs, batch_size and report_every of at least 1 and lr0 > 0");
  const arma::uword M = train.n_rows;
  arma::vec x = coupling_initial_point(s, init, train, w, seed, 0);
  Rng order_rng(seed, streams::kBatches);
  std::vector<arma::uword> order(M);
  std::iota(order.begin(), order.end(), arma::uword(0));
  const std::uint64_t steps_per_epoch = (M + o.batch_size - 1) / o.batch_size;
  const std::uint64_t total_steps = steps_per_epoch * std::uint64_t(o.epochs);
  std::uint64_t step = 0;
  arma::vec g;
  double objective = 0.0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    for (arma::uword k = M; k > 1; --k) std::swap(order[k - 1], order[order_rng.below(k)]);
    for (arma::uword b0 = 0; b0 < M; b0 += o.batch_size, ++step) {
      const arma::uword b1 = std::min<arma::uword>(M, b0 + o.batch_size);
      arma::uvec rows(b1 - b0);
      for (arma::uword k = b0; k < b1; ++k) rows(k - b0) = order[k];
      const arma::vec wb = w.elem(rows);
      if (!(arma::accu(wb) > 0.0)) continue;  // a batch of zero weight has no objective
      const double f = coupling_objective(s, x, train.rows(rows), wb, pen, &g);
      if (!std::isfinite(f))
        throw StageError("coupling model (" + s.describe() + "), SGD: the objective is not finite at epoch " +
                         std::to_string(epoch) + "; no result is written (lower lr0?)");
      x -= (train::cosine_learning_rate(o.lr0, step, total_steps) * double(s.L)) * g;
    }
    if (epoch % o.report_every == 0 || epoch == o.epochs) {
      objective = coupling_objective(s, x, train, w, pen, nullptr);
      if (!std::isfinite(objective))
        throw StageError("coupling model (" + s.describe() + "), SGD: the objective is not finite at epoch " +
                         std::to_string(epoch) + "; no result is written (lower lr0?)");
      if (o.on_epoch) o.on_epoch(epoch, objective);
    }
  }
  CouplingFit fit;
  fit.x = x;
  couplings_of(s, x, fit.W, fit.h);
  fit.objective = objective;
  fit.train_loss = weighted_pl_data_term(fit.W, fit.h, train, w, nullptr, nullptr);
  CouplingRestart r;
  r.objective = objective;
  r.train_loss = fit.train_loss;
  r.status = LbfgsStatus::kMaxIterations;  // ran its epochs
  r.iterations = o.epochs;
  r.evaluations = int(step);
  fit.restarts.push_back(r);
  return fit;
}

}  // namespace potts
