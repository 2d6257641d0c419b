#include "lib/plm/pseudo_likelihood.h"

#include <cmath>
#include <string>

#include "lib/core/error.h"
#include "lib/core/log_softmax.h"

namespace potts {

PlmModel make_plm_model(arma::uword L, arma::uword C) {
  if (L < 2 || C < 2) throw StageError("pseudo-likelihood model: L and C must be at least 2");
  PlmModel m;
  m.L = L;
  m.C = C;
  m.fields_h.zeros(C, L);
  m.couplings_W.zeros(L * C, L * C);
  return m;
}

PlmModel plm_from_potts(const PottsModel& p) {
  PlmModel m = make_plm_model(p.L(), p.C());
  const arma::uword C = m.C;
  for (arma::uword i = 0; i < m.L; ++i)
    for (arma::uword j = 0; j < m.L; ++j)
      if (i != j)
        m.couplings_W.submat(i * C, j * C, i * C + C - 1, j * C + C - 1) =
            p.beta * p.couplings_J(i, j) * p.colour_similarity_U;
  return m;
}

arma::vec pack_plm(const PlmModel& m) {
  const arma::uword L = m.L, C = m.C;
  arma::vec x(m.parameter_count());
  arma::uword k = 0;
  for (arma::uword n = 0; n < L * C; ++n) x(k++) = m.fields_h(n);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j)
      for (arma::uword b = 0; b < C; ++b)
        for (arma::uword a = 0; a < C; ++a) x(k++) = m.couplings_W(i * C + a, j * C + b);
  return x;
}

PlmModel unpack_plm(const arma::vec& x, arma::uword L, arma::uword C) {
  PlmModel m = make_plm_model(L, C);
  if (x.n_elem != m.parameter_count())
    throw StageError("pseudo-likelihood model: parameter vector has " + std::to_string(x.n_elem) +
                     " entries, expected " + std::to_string(m.parameter_count()));
  arma::uword k = 0;
  for (arma::uword n = 0; n < L * C; ++n) m.fields_h(n) = x(k++);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j)
      for (arma::uword b = 0; b < C; ++b)
        for (arma::uword a = 0; a < C; ++a) {
          double w = x(k++);
          m.couplings_W(i * C + a, j * C + b) = w;  // W_ij(a, b)
          m.couplings_W(j * C + b, i * C + a) = w;  // W_ji(b, a) = W_ij(a, b)
        }
  return m;
}

static void check_sequences(const arma::imat& s, arma::uword L, arma::uword C) {
  if (s.n_cols != L)
    throw StageError("pseudo-likelihood model: sequences have " + std::to_string(s.n_cols) +
                     " columns, expected L = " + std::to_string(L));
  if (s.n_rows == 0) throw StageError("pseudo-likelihood model: no sequences");
  if (s.min() < 0 || s.max() >= arma::sword(C))
    throw StageError("pseudo-likelihood model: colours must be in 0.." + std::to_string(C - 1));
}

// Logits of all L conditionals of sequence mu, as one LC vector (index i C + a):
//   z_i(a) = h_i(a) + sum_{j != i} W_ij(a, s_j)   (diagonal blocks are zero).
static void plm_logits(arma::vec& z, const PlmModel& m, const arma::imat& s, arma::uword mu) {
  z = arma::vectorise(m.fields_h);
  for (arma::uword j = 0; j < m.L; ++j) z += m.couplings_W.col(j * m.C + s(mu, j));
}

double plm_objective(const PlmModel& m, const arma::imat& s, const PlmPenalty& pen, arma::vec* grad) {
  const arma::uword L = m.L, C = m.C, M = s.n_rows;
  check_sequences(s, L, C);
  const double norm = 1.0 / double(M * L);
  arma::vec z(L * C);
  arma::mat G;  // dLoss / dW for the full (LC x LC) matrix, before symmetrising
  arma::vec dh;
  if (grad) {
    G.zeros(L * C, L * C);
    dh.zeros(L * C);
  }
  double loss = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) {
    plm_logits(z, m, s, mu);
    // -log p(s_i | s_\i) per site; with grad, z_i becomes its gradient
    // times norm, p(a) - [a == s_i] (lib/core/log_softmax.h).
    for (arma::uword i = 0; i < L; ++i)
      loss += site_cross_entropy(z.memptr() + i * C, C, arma::uword(s(mu, i)), norm, grad);
    if (grad) {
      // forward: z += W.col(j C + s_j) for every j, so dW.col(j C + s_j) += dz
      dh += z;
      for (arma::uword j = 0; j < L; ++j) G.col(j * C + s(mu, j)) += z;
    }
  }
  loss *= norm;
  // Penalty: lambda_W ||W||_F^2 over ordered pairs + lambda_h ||h||^2.
  double pw = 0.0;
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j)
      pw += 2.0 * arma::accu(arma::square(m.couplings_W.submat(i * C, j * C, i * C + C - 1, j * C + C - 1)));
  loss += pen.lambda_W * pw + pen.lambda_h * arma::accu(arma::square(m.fields_h));
  if (grad) {
    grad->set_size(m.parameter_count());
    arma::uword k = 0;
    for (arma::uword n = 0; n < L * C; ++n) (*grad)(k++) = dh(n) + 2.0 * pen.lambda_h * m.fields_h(n);
    // The free parameter W_ij(a, b), i < j, appears at (iC+a, jC+b) and (jC+b, iC+a).
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword j = i + 1; j < L; ++j)
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword a = 0; a < C; ++a)
            (*grad)(k++) = G(i * C + a, j * C + b) + G(j * C + b, i * C + a) +
                           4.0 * pen.lambda_W * m.couplings_W(i * C + a, j * C + b);
  }
  return loss;
}

double plm_test_loss(const PlmModel& m, const arma::imat& s) { return plm_objective(m, s, PlmPenalty{}, nullptr); }

arma::mat plm_conditionals(const PlmModel& m, const arma::irowvec& s) {
  arma::imat one = s;
  check_sequences(one, m.L, m.C);
  arma::vec z;
  plm_logits(z, m, one, 0);
  arma::mat P = arma::reshape(z, m.C, m.L);
  for (arma::uword i = 0; i < m.L; ++i) {
    arma::vec e = arma::exp(P.col(i) - P.col(i).max());
    P.col(i) = e / arma::accu(e);
  }
  return P;
}

static arma::mat project(const PlmModel& m, const arma::mat& U, bool zero_sum) {
  const arma::uword C = m.C;
  if (U.n_rows != C || U.n_cols != C) throw StageError("projection onto U: U must be C x C");
  arma::mat P = arma::eye(C, C) - arma::ones(C, C) / double(C);
  arma::mat Ug = zero_sum ? arma::mat(P * U * P) : U;
  const double uu = arma::accu(Ug % Ug);
  if (!(uu > 0)) throw StageError("projection onto U: U is zero (in the chosen gauge)");
  arma::mat A(m.L, m.L, arma::fill::zeros);
  for (arma::uword i = 0; i < m.L; ++i)
    for (arma::uword j = 0; j < m.L; ++j) {
      if (i == j) continue;
      arma::mat W = m.couplings_W.submat(i * C, j * C, i * C + C - 1, j * C + C - 1);
      if (zero_sum) W = P * W * P;
      A(i, j) = arma::accu(W % Ug) / uu;
    }
  return A;
}

arma::mat project_couplings_onto(const PlmModel& m, const arma::mat& U) { return project(m, U, false); }
arma::mat project_couplings_onto_zero_sum(const PlmModel& m, const arma::mat& U) { return project(m, U, true); }

PlmFit fit_plm(const arma::imat& train, arma::uword C, const PlmPenalty& pen, const LbfgsOptions& options) {
  const arma::uword L = train.n_cols;
  check_sequences(train, L, C);
  Objective f = [&](const arma::vec& x, arma::vec& g) {
    PlmModel m = unpack_plm(x, L, C);
    return plm_objective(m, train, pen, &g);
  };
  PlmFit fit;
  fit.optimiser = lbfgs_minimize(f, pack_plm(make_plm_model(L, C)), options);
  fit.model = unpack_plm(fit.optimiser.x, L, C);
  fit.train_loss = plm_test_loss(fit.model, train);
  return fit;
}

}  // namespace potts
