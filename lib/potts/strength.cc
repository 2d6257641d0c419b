#include "lib/potts/strength.h"

#include <cmath>

#include "lib/core/error.h"

namespace potts {

double strength_correlation(const arma::mat& J, const arma::mat& map) {
  if (J.n_rows != J.n_cols || map.n_rows != J.n_rows || map.n_cols != J.n_cols)
    throw StageError("strength_correlation: J and the map must be square and of the same size");
  const arma::uword L = J.n_rows;
  if (L < 3) throw StageError("strength_correlation: needs 3 or more sites");
  const arma::uword n = L * (L - 1) / 2;
  arma::vec x(n), y(n);
  for (arma::uword i = 0, k = 0; i < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j, ++k) {
      x(k) = std::abs(0.5 * (map(i, j) + map(j, i)));
      y(k) = std::abs(J(i, j));
    }
  // Centred sums in index order (no BLAS): the same bits on every CPU.
  double mx = 0, my = 0;
  for (arma::uword k = 0; k < n; ++k) mx += x(k), my += y(k);
  mx /= double(n);
  my /= double(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (arma::uword k = 0; k < n; ++k) {
    sxy += (x(k) - mx) * (y(k) - my);
    sxx += (x(k) - mx) * (x(k) - mx);
    syy += (y(k) - my) * (y(k) - my);
  }
  if (!(sxx > 0) || !(syy > 0)) throw StageError("strength_correlation: the map or |J| is constant over the pairs");
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace potts
