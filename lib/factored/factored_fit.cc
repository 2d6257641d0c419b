#include "lib/factored/factored_fit.h"

#include <cmath>
#include <string>

#include "lib/core/error.h"
#include "lib/nn/factored_attention.h"

namespace potts {

namespace {

// (A with its diagonal zeroed, V) packed as lib/nn packs the model: A
// column-major, then V. The diagonal stays zero under L-BFGS (its gradient
// is zero), so |theta|^2 is the objective's penalty.
arma::vec pack(const arma::mat& A, const arma::mat& V) {
  arma::mat Ad = A;
  Ad.diag().zeros();
  return arma::join_cols(arma::vectorise(Ad), arma::vectorise(V));
}

// The objective (lib/nn's full-batch objective, norm M L) with its model,
// kept across evaluations so that L-BFGS does not reallocate the C x (M L)
// activations at every call.
class FactoredObjective {
 public:
  FactoredObjective(const nn::SequenceSet& data, arma::uword C, double lambda)
      : model_(data.L, C), f_(model_, data, double(data.M * data.L), lambda) {}
  double operator()(const arma::vec& theta, arma::vec* grad) { return f_(theta, grad); }

 private:
  nn::FactoredAttention model_;
  nn::FullBatchObjective f_;
};

}  // namespace

double factored_objective(const arma::mat& A, const arma::mat& V, const nn::SequenceSet& data, arma::uword C,
                          double lambda, arma::vec* grad) {
  FactoredObjective f(data, C, lambda);
  return f(pack(A, V), grad);
}

double factored_test_loss(const arma::mat& A, const arma::mat& V, const nn::SequenceSet& data, arma::uword C) {
  return factored_objective(A, V, data, C, 0.0, nullptr);
}

void split_plm_into_factored(const PlmModel& m, arma::mat& A, arma::mat& V) {
  const arma::uword L = m.L, C = m.C;
  // Row i + L j: block W_ij flattened column-major in (a, b).
  arma::mat T(L * L, C * C, arma::fill::zeros);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = 0; j < L; ++j)
      if (i != j)
        T.row(i + L * j) = arma::vectorise(m.couplings_W.submat(i * C, j * C, i * C + C - 1, j * C + C - 1)).t();
  arma::mat Uu, Vv;
  arma::vec s;
  if (!arma::svd(Uu, s, Vv, T)) throw StageError("factored fit: SVD of the full pseudo-likelihood couplings failed");
  const double r = std::sqrt(s(0));
  A = arma::reshape(r * Uu.col(0), L, L);
  V = arma::reshape(r * Vv.col(0), C, C);
  if (arma::trace(V) < 0) {  // (A, V) and (-A, -V) are the same model; fix the sign
    A = -A;
    V = -V;
  }
  A.diag().zeros();
}

void factored_initial_point(arma::mat& A, arma::mat& V, arma::uword L, arma::uword C, const FactoredFitOptions& o,
                            std::uint64_t seed, int restart, const PlmModel* plm_start) {
  if (o.init == "plm" && restart == 0) {
    if (!plm_start) throw StageError("factored fit: init \"plm\" needs the full pseudo-likelihood fit");
    split_plm_into_factored(*plm_start, A, V);
    return;
  }
  if (o.init != "random" && o.init != "plm")
    throw StageError("factored fit: unknown init \"" + o.init + "\"; expected random or plm");
  nn::FactoredAttention model(L, C);
  model.initialise(o.init_std_A, o.init_std_V, seed + std::uint64_t(restart));
  A = model.A;
  V = model.V;
}

FactoredFit fit_factored_attention(const nn::SequenceSet& train, arma::uword C, const FactoredFitOptions& o,
                                   std::uint64_t seed) {
  const arma::uword L = train.L;
  if (o.restarts < 1) throw StageError("factored fit: restarts must be at least 1");
  PlmModel plm;
  if (o.init == "plm") {
    plm = fit_plm(nn::to_imat(train), C, PlmPenalty{o.plm_lambda, o.plm_lambda}, o.lbfgs).model;
  }
  FactoredObjective objective(train, C, o.lambda);
  Objective f = [&](const arma::vec& x, arma::vec& g) { return objective(x, &g); };
  FactoredFit best;
  for (int r = 0; r < o.restarts; ++r) {
    arma::mat A0, V0;
    factored_initial_point(A0, V0, L, C, o, seed, r, o.init == "plm" ? &plm : nullptr);
    LbfgsResult res;
    try {
      res = lbfgs_minimize(f, pack(A0, V0), o.lbfgs);
    } catch (const StageError& e) {
      throw StageError("factored fit, restart " + std::to_string(r) + ": " + e.what());
    }
    FactoredRestart rec;
    rec.objective = res.value;
    rec.status = res.status;
    rec.iterations = res.iterations;
    rec.gradient_norm = res.gradient_norm;
    arma::mat A = arma::reshape(res.x.head(L * L), L, L);
    arma::mat V = arma::reshape(res.x.tail(C * C), C, C);
    rec.train_loss = factored_test_loss(A, V, train, C);
    best.restarts.push_back(rec);
    if (r == 0 || rec.objective < best.objective) {  // strict: ties keep the earlier restart
      best.A = A;
      best.V = V;
      best.objective = rec.objective;
      best.train_loss = rec.train_loss;
      best.optimiser = std::move(res);
      best.best_restart = r;
    }
  }
  return best;
}

FactoredFit fit_factored_attention_from(const nn::SequenceSet& train, arma::uword C, const arma::mat& A0,
                                        const arma::mat& V0, const FactoredFitOptions& o) {
  const arma::uword L = train.L;
  FactoredObjective objective(train, C, o.lambda);
  Objective f = [&](const arma::vec& x, arma::vec& g) { return objective(x, &g); };
  FactoredFit fit;
  try {
    fit.optimiser = lbfgs_minimize(f, pack(A0, V0), o.lbfgs);
  } catch (const StageError& e) {
    throw StageError(std::string("factored fit (from a given start): ") + e.what());
  }
  fit.A = arma::reshape(fit.optimiser.x.head(L * L), L, L);
  fit.V = arma::reshape(fit.optimiser.x.tail(C * C), C, C);
  fit.objective = fit.optimiser.value;
  fit.train_loss = factored_test_loss(fit.A, fit.V, train, C);
  FactoredRestart rec;
  rec.objective = fit.objective;
  rec.train_loss = fit.train_loss;
  rec.status = fit.optimiser.status;
  rec.iterations = fit.optimiser.iterations;
  rec.gradient_norm = fit.optimiser.gradient_norm;
  fit.restarts.push_back(rec);
  return fit;
}

}  // namespace potts
