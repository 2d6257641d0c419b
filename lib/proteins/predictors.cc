#include "lib/proteins/predictors.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "lib/core/error.h"

namespace potts::proteins {

arma::mat factored_couplings(const arma::mat& A, const arma::mat& V) {
  const arma::uword L = A.n_rows, q = V.n_rows;
  if (A.n_cols != L || V.n_cols != q) throw StageError("factored couplings: A and V must be square");
  arma::mat W(L * q, L * q, arma::fill::zeros);
  for (arma::uword i = 0; i < L; ++i)
    for (arma::uword j = 0; j < L; ++j)
      if (i != j) W.submat(i * q, j * q, i * q + q - 1, j * q + q - 1) = A(i, j) * V;
  return W;
}

arma::mat symmetrised(const arma::mat& M) {
  if (M.n_rows != M.n_cols) throw StageError("symmetrised: the map must be square");
  arma::mat S = (M + M.t()) / 2;
  S.diag().zeros();
  return S;
}

std::vector<arma::mat> vanilla_layer_maps(const nn::VanillaTransformer& model, const nn::SequenceSet& test) {
  const nn::TransformerOptions& o = model.options();
  std::vector<arma::mat> maps;
  for (arma::uword k = 1; k <= o.layers; ++k) {
    nn::TransformerOptions ok = o;
    ok.layers = k;
    nn::VanillaTransformer truncated(ok, model.precision());
    truncated.w = model.w;
    truncated.w.blocks.resize(k);
    const arma::mat map = truncated.evaluate(test).attention_map;
    maps.push_back(k == 1 ? map : arma::mat(2.0 * map - maps.back()));
  }
  return maps;
}

arma::mat parse_freecontact(const std::string& text, const std::string& origin, arma::uword L,
                            const std::string& format) {
  if (format != "evfold" && format != "psicov")
    throw StageError(origin + ": freecontact output format must be \"evfold\" or \"psicov\", got \"" + format + "\"");
  const double unset = std::numeric_limits<double>::quiet_NaN();
  arma::mat S(L, L, arma::fill::value(unset));
  std::istringstream in(text);
  std::string line;
  double lowest = std::numeric_limits<double>::infinity();
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    long i = 0, j = 0;
    double score = 0.0;
    bool ok;
    if (format == "evfold") {
      std::string a, b;
      double mi = 0.0;
      ok = bool(fields >> i >> a >> j >> b >> mi >> score);
    } else {
      double lo = 0.0, hi = 0.0;
      ok = bool(fields >> i >> j >> lo >> hi >> score);
    }
    std::string rest;
    if (!ok || (fields >> rest))
      throw StageError(origin + ": line " + std::to_string(lineno) + ": expected " +
                       (format == "evfold" ? "'i a j b MI CN'" : "'i j 0 8 score'") + ", got '" + line + "'");
    if (i < 1 || j < 1 || i > long(L) || j > long(L) || i == j)
      throw StageError(origin + ": line " + std::to_string(lineno) + ": columns " + std::to_string(i) + ", " +
                       std::to_string(j) + " are not two distinct columns in 1.." + std::to_string(L));
    if (!std::isfinite(score))
      throw StageError(origin + ": line " + std::to_string(lineno) + ": the score is not a finite number");
    S(i - 1, j - 1) = S(j - 1, i - 1) = score;
    lowest = std::min(lowest, score);
  }
  if (!std::isfinite(lowest)) throw StageError(origin + ": freecontact listed no pair");
  S.replace(unset, lowest - 1.0);
  S.diag().zeros();
  return S;
}

}  // namespace potts::proteins
