#include "lib/nn/mlm_model.h"

#include "lib/core/error.h"

namespace potts {
namespace nn {

SequenceSet to_sequence_set(const arma::imat& x, arma::uword C, const std::string& what) {
  SequenceSet out;
  out.M = x.n_rows;
  out.L = x.n_cols;
  out.s.resize(out.M * out.L);
  for (arma::uword m = 0; m < out.M; ++m)
    for (arma::uword i = 0; i < out.L; ++i) {
      const arma::sword c = x(m, i);
      if (c < 0 || c >= arma::sword(C))
        throw StageError(what + ": colour " + std::to_string(c) + " at sequence " + std::to_string(m) + ", position " +
                         std::to_string(i) + " is outside 0.." + std::to_string(C - 1));
      out.s[m * out.L + i] = int(c);
    }
  return out;
}

arma::imat to_imat(const SequenceSet& s) {
  arma::imat x(s.M, s.L);
  for (arma::uword m = 0; m < s.M; ++m)
    for (arma::uword i = 0; i < s.L; ++i) x(m, i) = s.row(m)[i];
  return x;
}

Precision parse_precision(const std::string& name, const std::string& what) {
  if (name == "double") return Precision::kDouble;
  if (name == "float") return Precision::kFloat;
  throw StageError(what + ": precision must be \"double\" or \"float\", got \"" + name + "\"");
}

std::string to_string(Precision p) { return p == Precision::kFloat ? "float" : "double"; }

arma::uword parameter_count(MlmModel& m) {
  arma::uword n = 0;
  for (auto& p : m.parameters()) n += p.value->n_elem;
  return n;
}

arma::vec pack_parameters(MlmModel& m) {
  arma::vec x(parameter_count(m));
  arma::uword k = 0;
  for (auto& p : m.parameters())
    for (arma::uword e = 0; e < p.value->n_elem; ++e) x(k++) = (*p.value)(e);
  return x;
}

arma::vec pack_gradients(MlmModel& m) {
  arma::vec x(parameter_count(m));
  arma::uword k = 0;
  for (auto& p : m.parameters())
    for (arma::uword e = 0; e < p.grad->n_elem; ++e) x(k++) = (*p.grad)(e);
  return x;
}

void unpack_parameters(MlmModel& m, const arma::vec& x) {
  if (x.n_elem != parameter_count(m)) throw StageError("unpack_parameters: wrong length");
  arma::uword k = 0;
  for (auto& p : m.parameters())
    for (arma::uword e = 0; e < p.value->n_elem; ++e) (*p.value)(e) = x(k++);
}

FullBatchObjective::FullBatchObjective(MlmModel& model, const SequenceSet& data, double norm, double l2)
    : model_(model), norm_(norm), l2_(l2) {
  batch_.data = &data;
  batch_.rows.resize(data.M);
  for (arma::uword m = 0; m < data.M; ++m) batch_.rows[m] = m;
  batch_.masked.assign(data.M, kAllPositions);
}

double FullBatchObjective::operator()(const arma::vec& theta, arma::vec* grad) {
  unpack_parameters(model_, theta);
  model_.zero_gradients();
  const double loss = model_.forward_backward(batch_, grad != nullptr);
  mean_loss_ = loss / double(batch_.data->M * batch_.data->L);
  if (grad) *grad = pack_gradients(model_) / norm_ + 2.0 * l2_ * theta;
  return loss / norm_ + l2_ * arma::dot(theta, theta);
}

}  // namespace nn
}  // namespace potts
