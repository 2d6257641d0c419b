#include "lib/gaussian/gaussian.h"

#include "lib/core/io.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace potts::gaussian {

arma::mat goe_couplings(int L, Rng& rng) {
  if (L < 2) throw StageError("goe_couplings: L = " + std::to_string(L) + " must be at least 2");
  arma::mat J(L, L);
  const double off = std::sqrt(1.0 / L), diag = std::sqrt(2.0 / L);
  for (int i = 0; i < L; ++i)
    for (int j = i; j < L; ++j) {
      double g = rng.normal();
      J(i, j) = J(j, i) = (i == j ? diag : off) * g;
    }
  return J;
}

arma::mat precision_matrix(const arma::mat& couplings_J_tilde, double Delta, const std::string& field) {
  if (!(Delta > 2.0))
    throw StageError(field + " = " + format_number(Delta, 6) +
                     ": must exceed 2 so that the precision P = Delta*I - J_tilde is positive definite "
                     "(the GOE spectrum of J_tilde fills [-2, 2])");
  arma::mat P = Delta * arma::eye(couplings_J_tilde.n_rows, couplings_J_tilde.n_cols) - couplings_J_tilde;
  arma::vec ev = arma::eig_sym(P);
  if (!(ev.min() > 0.0))
    throw StageError(field + " = " + format_number(Delta, 6) +
                     ": precision P = Delta*I - J_tilde is not positive definite (smallest eigenvalue " +
                     format_number(ev.min(), 6) + "; the largest eigenvalue of J_tilde is " +
                     format_number(Delta - ev.min(), 6) + "); choose a larger Delta");
  return P;
}

ModelFile read_model_h5(const std::string& path) {
  ModelFile m;
  m.precision_P = h5_read_matrix(path, "precision_P");
  h5_check_finite(path, "precision_P", m.precision_P);
  const arma::uword L = m.precision_P.n_rows;
  if (m.precision_P.n_cols != L || L < 3)
    throw StageError(path + ": dataset 'precision_P' is " + std::to_string(L) + " x " +
                     std::to_string(m.precision_P.n_cols) + "; expected a square matrix with L >= 3");
  m.lambda = h5_read_scalar(path, "lambda", 0.0, 1e6);
  const double masked = h5_read_scalar(path, "masked_index", 0.0, double(L - 1));
  if (masked != std::floor(masked))
    throw StageError(path + ": dataset 'masked_index': " + std::to_string(masked) + " is not an integer");
  m.masked_index = arma::uword(masked);
  return m;
}

arma::mat covariance_matrix(const arma::mat& precision_P) {
  arma::mat S = arma::inv_sympd(precision_P);
  return 0.5 * (S + S.t());
}

MaskedTeacher masked_teacher(const arma::mat& precision_P, arma::uword i) {
  const arma::uword L = precision_P.n_rows;
  if (i >= L)
    throw StageError("masked_index = " + std::to_string(i) + " out of range; expected 0.." + std::to_string(L - 1));
  arma::uvec rest(L - 1);
  for (arma::uword k = 0, r = 0; k < L; ++k)
    if (k != i) rest(r++) = k;
  MaskedTeacher t;
  t.masked_index = i;
  const double Pii = precision_P(i, i);
  // Conditional Gaussian from the precision: E[y | x_\i] = -P_{i,\i} x_\i / P_ii, Var = 1/P_ii.
  t.teacher_w = -arma::vec(precision_P.submat(arma::uvec{i}, rest).t()) / Pii;
  t.noise_sigma2 = 1.0 / Pii;
  t.feature_covariance_Omega = covariance_matrix(precision_P).submat(rest, rest);
  t.rho = arma::dot(t.teacher_w, t.feature_covariance_Omega * t.teacher_w);
  return t;
}

arma::mat sampling_factor(const arma::mat& covariance_Sigma) {
  arma::mat C;
  if (!arma::chol(C, covariance_Sigma, "lower"))
    throw StageError("sampling_factor: covariance is not positive definite (Cholesky failed)");
  return C;
}

arma::mat sample_gaussian(const arma::mat& factor_C, arma::uword n, Rng& rng) {
  arma::mat Z(factor_C.n_cols, n);
  for (arma::uword s = 0; s < n; ++s)
    for (arma::uword k = 0; k < Z.n_rows; ++k) Z(k, s) = rng.normal();
  return factor_C * Z;  // x = C z has covariance C Cᵀ = Σ
}

arma::vec ridge(const arma::mat& X, const arma::vec& y, double lambda) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda))
    throw StageError("ridge: lambda = " + format_number(lambda, 6) + " must be a finite number >= 0");
  if (X.n_rows != y.n_elem)
    throw StageError("ridge: X has " + std::to_string(X.n_rows) + " rows but y has " + std::to_string(y.n_elem) +
                     " entries");
  const arma::uword n = X.n_rows, D = X.n_cols;
  arma::vec w;
  bool ok;
  if (n >= D) {
    // (XᵀX + λI) w = Xᵀy
    arma::mat G = X.t() * X;
    G.diag() += lambda;
    ok = arma::solve(w, G, X.t() * y, arma::solve_opts::likely_sympd + arma::solve_opts::no_approx);
  } else {
    // w = Xᵀ (XXᵀ + λI)⁻¹ y  (push-through identity; at λ = 0 the minimum-norm solution)
    arma::mat K = X * X.t();
    K.diag() += lambda;
    arma::vec a;
    ok = arma::solve(a, K, y, arma::solve_opts::likely_sympd + arma::solve_opts::no_approx);
    w = X.t() * a;
  }
  if (!ok || !w.is_finite())
    throw StageError("ridge: the " + std::string(n >= D ? "D x D" : "n x n") + " system (n = " + std::to_string(n) +
                     ", D = " + std::to_string(D) + ", lambda = " + format_number(lambda, 6) + ") is singular");
  return w;
}

Overlaps generalisation_loss(const MaskedTeacher& t, const arma::vec& w_hat) {
  const arma::mat& Om = t.feature_covariance_Omega;
  Overlaps o;
  o.rho = t.rho;
  arma::vec Om_w = Om * w_hat;
  o.m = arma::dot(t.teacher_w, Om_w);
  o.q = arma::dot(w_hat, Om_w);
  o.eps_g = generalisation_error(t.noise_sigma2, o.rho, o.m, o.q);  // eq. 7
  return o;
}

static void log_points(std::vector<double>& out, double lo, double hi, int count) {
  if (count <= 0) return;
  if (count == 1) {
    out.push_back(lo);
    return;
  }
  const double a = std::log(lo), b = std::log(hi);
  for (int k = 0; k < count; ++k) out.push_back(std::exp(a + (b - a) * k / (count - 1)));
  out.back() = hi;
  out[out.size() - count] = lo;
}

std::vector<double> alpha_values(const AlphaGrid& g, const std::string& origin) {
  auto fail = [&](const std::string& what) { throw StageError(origin + ": " + what); };
  if (!(g.alpha_min > 0)) fail("alpha_min = " + format_number(g.alpha_min, 6) + ": alpha = n/D must be > 0");
  if (!(g.alpha_max >= g.alpha_min)) fail("alpha_max = " + format_number(g.alpha_max, 6) + " must be >= alpha_min");
  if (g.points_per_decade < 0 || g.dense_points < 0) fail("point counts must be >= 0");
  std::vector<double> a;
  if (g.points_per_decade > 0) {
    int count = 1 + static_cast<int>(std::ceil(std::log10(g.alpha_max / g.alpha_min) * g.points_per_decade - 1e-9));
    if (g.alpha_max == g.alpha_min) count = 1;
    log_points(a, g.alpha_min, g.alpha_max, count);
  }
  if (g.dense_points > 0) {
    if (!(g.dense_min > 0)) fail("dense_min = " + format_number(g.dense_min, 6) + ": alpha = n/D must be > 0");
    if (!(g.dense_max >= g.dense_min)) fail("dense_max = " + format_number(g.dense_max, 6) + " must be >= dense_min");
    log_points(a, g.dense_min, g.dense_max, g.dense_points);
  }
  if (a.empty()) fail("empty alpha grid (points_per_decade = 0 and dense_points = 0)");
  std::sort(a.begin(), a.end());
  std::vector<double> u;
  for (double x : a)
    if (u.empty() || x > u.back() * (1 + 1e-12)) u.push_back(x);
  return u;
}

AlphaGrid alpha_grid_from(Config& c) {
  AlphaGrid g;
  g.alpha_min = c.number_open("alpha_min", 0, 1e9);
  g.alpha_max = c.number_open("alpha_max", 0, 1e9);
  g.points_per_decade = static_cast<int>(c.integer("points_per_decade", 0, 10000));
  g.dense_min = c.number_open("dense_min", 0, 1e9);
  g.dense_max = c.number_open("dense_max", 0, 1e9);
  g.dense_points = static_cast<int>(c.integer("dense_points", 0, 100000));
  c.finish();
  alpha_values(g, c.origin() + ": alpha grid");  // validates
  return g;
}

std::vector<arma::uword> sample_counts(const std::vector<double>& alphas, arma::uword D, const std::string& origin) {
  if (alphas.empty()) throw StageError(origin + ": empty alpha grid");
  std::vector<arma::uword> n;
  for (double a : alphas) {
    if (!(a > 0) || !std::isfinite(a))
      throw StageError(origin + ": alpha = " + format_number(a, 6) + " is not allowed; alpha = n/D must be > 0");
    double r = std::round(a * D);
    n.push_back(static_cast<arma::uword>(std::max(1.0, r)));
  }
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

double loglog_slope(const std::vector<double>& alpha, const std::vector<double>& y, double offset, double lo,
                    double hi) {
  std::vector<double> u, v;
  for (size_t k = 0; k < alpha.size(); ++k) {
    if (alpha[k] < lo || alpha[k] > hi) continue;
    if (!(y[k] > offset))
      throw StageError("loglog_slope: y - offset = " + format_number(y[k] - offset, 6) +
                       " <= 0 at alpha = " + format_number(alpha[k], 6));
    u.push_back(std::log(alpha[k]));
    v.push_back(std::log(y[k] - offset));
  }
  if (u.size() < 3)
    throw StageError("loglog_slope: fewer than 3 points in [" + format_number(lo, 6) + ", " + format_number(hi, 6) +
                     "]");
  double mu = 0, mv = 0;
  for (size_t k = 0; k < u.size(); ++k) mu += u[k], mv += v[k];
  mu /= u.size(), mv /= u.size();
  double suv = 0, suu = 0;
  for (size_t k = 0; k < u.size(); ++k) suv += (u[k] - mu) * (v[k] - mv), suu += (u[k] - mu) * (u[k] - mu);
  return suv / suu;
}

}  // namespace potts::gaussian
