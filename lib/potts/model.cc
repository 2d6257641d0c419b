#include "lib/potts/model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts {

ColourKind parse_colour_kind(const std::string& s) {
  if (s == "identity") return ColourKind::kIdentity;
  if (s == "gaussian") return ColourKind::kGaussian;
  if (s == "gram") return ColourKind::kGram;
  if (s == "identity_plus_gaussian") return ColourKind::kIdentityPlusGaussian;
  throw StageError("unknown colour-similarity kind \"" + s +
                   "\"; expected identity, gaussian, gram or identity_plus_gaussian");
}

std::string to_string(ColourKind k) {
  switch (k) {
    case ColourKind::kIdentity:
      return "identity";
    case ColourKind::kGaussian:
      return "gaussian";
    case ColourKind::kGram:
      return "gram";
    case ColourKind::kIdentityPlusGaussian:
      return "identity_plus_gaussian";
  }
  return "?";
}

static arma::mat symmetric_gaussian(arma::uword n, Rng& rng, bool zero_diagonal) {
  arma::mat a(n, n, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i)
    for (arma::uword j = zero_diagonal ? i + 1 : i; j < n; ++j) a(i, j) = a(j, i) = rng.normal();
  return a;
}

PottsModel make_potts_model(arma::uword L, arma::uword C, ColourKind kind, double beta, std::uint64_t seed,
                            double u_scale) {
  if (L < 2) throw StageError("Potts model: L must be at least 2");
  if (C < 2) throw StageError("Potts model: C must be at least 2");
  PottsModel m;
  m.beta = beta;
  Rng rj(seed, streams::kCouplings);
  m.couplings_J = symmetric_gaussian(L, rj, /*zero_diagonal=*/true);
  Rng ru(seed, streams::kColourSimilarity);
  switch (kind) {
    case ColourKind::kIdentity:
      m.colour_similarity_U = arma::eye(C, C);
      break;
    case ColourKind::kGaussian:
      m.colour_similarity_U = symmetric_gaussian(C, ru, false);
      break;
    case ColourKind::kGram: {
      arma::mat G(C, C);
      for (arma::uword i = 0; i < C; ++i)
        for (arma::uword j = 0; j < C; ++j) G(i, j) = ru.normal();
      m.colour_similarity_U = G * G.t() / double(C);
      m.colour_similarity_U = 0.5 * (m.colour_similarity_U + m.colour_similarity_U.t());
      break;
    }
    case ColourKind::kIdentityPlusGaussian:
      m.colour_similarity_U = arma::eye(C, C) + u_scale * symmetric_gaussian(C, ru, false);
      break;
  }
  return m;
}

double energy(const PottsModel& m, const arma::irowvec& s) {
  double h = 0.0;
  for (arma::uword i = 0; i < m.L(); ++i)
    for (arma::uword j = i + 1; j < m.L(); ++j) h -= m.couplings_J(i, j) * m.colour_similarity_U(s(i), s(j));
  return h;
}

arma::vec local_fields(const PottsModel& m, const arma::irowvec& s, arma::uword i) {
  arma::vec f(m.C(), arma::fill::zeros);
  for (arma::uword j = 0; j < m.L(); ++j)
    if (j != i) f += m.couplings_J(i, j) * m.colour_similarity_U.col(s(j));
  return m.beta * f;
}

arma::vec conditional(const PottsModel& m, const arma::irowvec& s, arma::uword i) {
  arma::vec f = local_fields(m, s, i);
  arma::vec p = arma::exp(f - f.max());
  return p / arma::accu(p);
}

double optimal_test_loss(const PottsModel& m, const arma::imat& sequences) {
  double total = 0.0;
  for (arma::uword mu = 0; mu < sequences.n_rows; ++mu) {
    arma::irowvec s = sequences.row(mu);
    for (arma::uword i = 0; i < m.L(); ++i) {
      arma::vec f = local_fields(m, s, i);
      double mx = f.max();
      total -= f(s(i)) - mx - std::log(arma::accu(arma::exp(f - mx)));
    }
  }
  return total / double(sequences.n_rows * m.L());
}

// Pairs that differ at site i: (M(M-1) - sum_a n_ia (n_ia - 1)) / 2, with
// n_ia the number of rows with colour a at site i. Exact integer counts, so
// O(M L) instead of O(M^2 L).
double mean_hamming_distance(const arma::imat& x) {
  const arma::uword M = x.n_rows, L = x.n_cols;
  if (M < 2 || L == 0) return 0.0;
  if (x.min() < 0) throw StageError("mean_hamming_distance: negative colour");
  std::vector<std::uint64_t> count(static_cast<std::size_t>(x.max()) + 1);
  std::uint64_t differing = 0;  // sum over sites of the pairs that differ there
  for (arma::uword i = 0; i < L; ++i) {
    std::fill(count.begin(), count.end(), 0);
    for (arma::uword mu = 0; mu < M; ++mu) ++count[x(mu, i)];
    std::uint64_t same = 0;
    for (std::uint64_t n : count) same += n * (n - (n > 0)) / 2;
    differing += std::uint64_t(M) * (M - 1) / 2 - same;
  }
  return double(differing) / (double(L) * double(M) * double(M - 1) / 2.0);
}

Reconstruction reconstruct(const arma::mat& J, const arma::mat& A) {
  double jj = 0, ja = 0, aa = 0;
  for (arma::uword i = 0; i < J.n_rows; ++i)
    for (arma::uword j = 0; j < J.n_cols; ++j) {
      if (i == j) continue;
      jj += J(i, j) * J(i, j);
      ja += J(i, j) * A(i, j);
      aa += A(i, j) * A(i, j);
    }
  Reconstruction r;
  r.scale = aa > 0 ? ja / aa : 0.0;
  r.error = jj == 0.0 ? 0.0 : (jj - r.scale * ja) / jj;
  return r;
}

double reconstruction_error(const arma::mat& J, const arma::mat& A) { return reconstruct(J, A).error; }

}  // namespace potts
