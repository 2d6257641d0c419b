#include "lib/potts/sample_data.h"

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts {

SampleData read_sample_data(const std::string& model_h5, const std::string& train_h5, const std::string& test_h5) {
  SampleData d;
  d.truth.couplings_J = h5_read_matrix(model_h5, "couplings_J");
  d.truth.colour_similarity_U = h5_read_matrix(model_h5, "colour_similarity_U");
  d.truth.beta = h5_read_scalar(model_h5, "beta", 0.0, 1e6);
  h5_check_finite(model_h5, "couplings_J", d.truth.couplings_J);
  h5_check_finite(model_h5, "colour_similarity_U", d.truth.colour_similarity_U);
  const arma::uword L = d.truth.L(), C = d.truth.C();
  if (d.truth.couplings_J.n_cols != L || d.truth.colour_similarity_U.n_cols != C)
    throw StageError(model_h5 + ": couplings_J and colour_similarity_U must be square");
  if (L < 2 || C < 2)
    throw StageError(model_h5 + ": couplings_J is " + std::to_string(L) + " x " + std::to_string(L) +
                     " and colour_similarity_U " + std::to_string(C) + " x " + std::to_string(C) +
                     "; expected at least 2 positions and 2 colours");
  d.train = h5_read_imatrix(train_h5, "sequences");
  d.test = h5_read_imatrix(test_h5, "sequences");
  for (auto [x, p] : {std::make_pair(&d.train, &train_h5), std::make_pair(&d.test, &test_h5)}) {
    if (x->n_cols != L)
      throw StageError(*p + ": dataset 'sequences' has " + std::to_string(x->n_cols) +
                       " columns; expected L = " + std::to_string(L) + " (from " + model_h5 + ")");
    if (x->n_rows == 0) throw StageError(*p + ": dataset 'sequences' holds no sequence");
    if (x->min() < 0 || x->max() >= arma::sword(C))
      throw StageError(*p + ": dataset 'sequences': colours must lie in 0.." + std::to_string(C - 1) + " (C from " +
                       model_h5 + "), found " + std::to_string(x->min() < 0 ? x->min() : x->max()));
  }
  return d;
}

}  // namespace potts
