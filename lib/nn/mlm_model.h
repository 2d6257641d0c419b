// The interface between a masked-language model and the training loop
// (lib/train). Any model that predicts a masked spin from the rest of the
// sequence plugs in by implementing MlmModel:
//
//   * parameters(): its trainable matrices, each with a gradient buffer of the
//     same shape (the optimiser updates `value` in place);
//   * forward_backward(batch, want_grad): the cross-entropy SUMMED over the
//     predictions of the batch; if want_grad, ACCUMULATES its gradient into
//     the gradient buffers (callers zero them with zero_gradients());
//   * evaluate(test): test loss eq. 3 (every position of every sequence) and
//     the L x L attention map whose reconstruction error is reported.
//
// A batch is a list of examples (sequence index, masked position); the
// position kAllPositions asks for all L conditionals of that sequence (the
// factored model does them in one pass).
//
// Tested by //lib/nn:models_test, //lib/train:trainer_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>

namespace potts {
namespace nn {

// Sequences in row-major order, for fast access: s[m L + i] in 0..C-1.
struct SequenceSet {
  arma::uword M = 0, L = 0;
  std::vector<int> s;
  const int* row(arma::uword m) const { return &s[m * L]; }
};
// From an M x L arma::imat (the sample stage's "sequences" dataset); checks
// colours are in 0..C-1 and names `what` in the error.
SequenceSet to_sequence_set(const arma::imat& x, arma::uword C, const std::string& what);
// Back to an M x L arma::imat (the Potts and pseudo-likelihood code's form).
arma::imat to_imat(const SequenceSet& s);

constexpr int kAllPositions = -1;

// Arithmetic of a model's forward and backward passes. Parameters, their
// gradients and the optimiser stay in double either way; kFloat runs the
// passes on float copies (about twice the throughput of double) and adds the
// gradients back in double.
enum class Precision { kDouble, kFloat };
// "double" or "float"; anything else is a StageError naming `what`.
Precision parse_precision(const std::string& name, const std::string& what);
std::string to_string(Precision p);

struct Batch {
  const SequenceSet* data = nullptr;
  std::vector<arma::uword> rows;  // sequence indices into *data
  std::vector<int> masked;        // masked position per row, or kAllPositions
  // Number of predictions (one per masked position).
  arma::uword predictions() const {
    arma::uword n = 0;
    for (int m : masked) n += (m == kAllPositions) ? data->L : 1;
    return n;
  }
};

struct Param {
  std::string name;
  arma::mat* value;
  arma::mat* grad;
};

struct Evaluation {
  double test_loss = 0.0;   // eq. 3: mean over sequences and positions of -log p
  arma::mat attention_map;  // L x L (diagonal irrelevant)
};

class MlmModel {
 public:
  virtual ~MlmModel() = default;
  virtual std::string kind() const = 0;
  virtual std::vector<Param> parameters() = 0;
  virtual double forward_backward(const Batch& batch, bool want_grad) = 0;
  virtual Evaluation evaluate(const SequenceSet& test) = 0;
  // True if one pass predicts all L positions at no extra cost (factored
  // attention): the trainer then uses every position every epoch.
  virtual bool predicts_all_positions() const { return false; }

  void zero_gradients() {
    for (auto& p : parameters()) p.grad->zeros();
  }
};

// Parameters as one flat vector (for full-batch optimisers such as L-BFGS),
// in the order of parameters(), each matrix column-major.
arma::uword parameter_count(MlmModel& m);
arma::vec pack_parameters(MlmModel& m);
arma::vec pack_gradients(MlmModel& m);
void unpack_parameters(MlmModel& m, const arma::vec& x);

// The full-batch objective that L-BFGS minimises: eq. 3's cross-entropy over
// every position of every sequence of `data`, plus an L2 penalty on the
// packed parameters theta,
//   f(theta) = (1 / norm) sum_mu sum_i -log p_theta(s_i^mu | s_\i^mu) + l2 |theta|^2,
//   grad f   = (1 / norm) grad(sum ...) + 2 l2 theta
// (norm = M L: the mean over positions). Keeps its batch across calls.
class FullBatchObjective {
 public:
  FullBatchObjective(MlmModel& model, const SequenceSet& data, double norm, double l2);
  // Sets the model's parameters to theta; returns f(theta), and its gradient
  // in *grad unless grad is null.
  double operator()(const arma::vec& theta, arma::vec* grad);
  // The data term of the last call as a mean over positions (eq. 3).
  double mean_loss() const { return mean_loss_; }

 private:
  MlmModel& model_;
  Batch batch_;
  double norm_, l2_, mean_loss_ = 0.0;
};

}  // namespace nn
}  // namespace potts
