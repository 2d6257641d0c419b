#include "lib/train/trainer.h"

#include <cmath>
#include <numeric>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/optim/lbfgs.h"

namespace potts {
namespace train {

double cosine_learning_rate(double lr0, std::uint64_t step, std::uint64_t total_steps) {
  if (total_steps == 0) return lr0;
  const double pi = 3.14159265358979323846;
  return 0.5 * lr0 * (1.0 + std::cos(pi * double(step) / double(total_steps)));
}

double optimal_test_loss(const PottsModel& truth, const nn::SequenceSet& test) {
  return potts::optimal_test_loss(truth, nn::to_imat(test));
}

TrainOptions read_train_options(Config& cfg, const std::vector<std::string>& maskings) {
  TrainOptions to;
  to.optimiser = cfg.choice("optimiser", {"sgd", "lbfgs"});
  to.epochs = int(cfg.integer("epochs", 1, 100000));
  to.batch_size = int(cfg.integer("batch_size", 1, 1000000));
  to.lr0 = to.optimiser == "sgd" ? cfg.number("lr0", 0.0, 100.0) : 0.0;
  to.loss_normalisation = cfg.choice("loss_normalisation", {"mean", "sum_positions"});
  to.masking = cfg.choice("masking", maskings);
  to.l2 = cfg.number("l2", 0.0, 1e6);
  to.eval_every = int(cfg.integer("eval_every", 1, 100000));
  if (to.optimiser == "lbfgs")
    to.lbfgs_iterations_per_epoch = int(cfg.integer("lbfgs_iterations_per_epoch", 1, 100000));
  return to;
}

nn::Precision read_precision(Config& cfg) {
  if (!cfg.has("precision")) return nn::Precision::kDouble;
  return nn::parse_precision(cfg.choice("precision", {"double", "float"}), "precision");
}

static void check_options(const nn::MlmModel& model, const TrainOptions& o) {
  if (o.optimiser != "sgd" && o.optimiser != "lbfgs")
    throw StageError("training: optimiser must be \"sgd\" or \"lbfgs\", got \"" + o.optimiser + "\"");
  if (o.masking != "all_positions" && o.masking != "one_random")
    throw StageError("training: masking must be \"all_positions\" or \"one_random\", got \"" + o.masking + "\"");
  if (o.loss_normalisation != "mean" && o.loss_normalisation != "sum_positions")
    throw StageError("training: loss_normalisation must be \"mean\" or \"sum_positions\"");
  if (o.masking == "all_positions" && !model.predicts_all_positions())
    throw StageError("training: masking \"all_positions\" needs a model that predicts every position in one pass (" +
                     model.kind() + " does not); use \"one_random\"");
  if (o.optimiser == "lbfgs" && o.masking != "all_positions")
    throw StageError("training: the full-batch L-BFGS optimiser needs masking \"all_positions\"");
  if (o.epochs < 1 || o.batch_size < 1 || o.eval_every < 1 || o.lbfgs_iterations_per_epoch < 1)
    throw StageError("training: epochs, batch_size, eval_every and lbfgs_iterations_per_epoch must be positive");
}

static void check_finite(double x, const char* what, int epoch) {
  if (!std::isfinite(x))
    throw StageError(std::string("training diverged: the ") + what + " is " + (std::isnan(x) ? "NaN" : "infinite") +
                     " at epoch " + std::to_string(epoch) + "; no result is written (lower lr0?)");
}

namespace {

using Record = std::function<void(int epoch, double train_loss, double lr)>;

// Full-batch L-BFGS, o.lbfgs_iterations_per_epoch iterations per epoch,
// until converged (or at the floating-point floor).
void train_lbfgs(nn::MlmModel& model, const nn::SequenceSet& train, const TrainOptions& o, const Record& record) {
  const double norm = o.loss_normalisation == "mean" ? double(train.M * train.L) : double(train.M);
  nn::FullBatchObjective objective(model, train, norm, o.l2);
  Objective f = [&](const arma::vec& x, arma::vec& grad) { return objective(x, &grad); };
  arma::vec x = nn::pack_parameters(model);
  LbfgsOptions lo;
  lo.max_iterations = o.lbfgs_iterations_per_epoch;
  lo.gradient_tolerance = 1e-9;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    LbfgsResult r;
    try {
      r = lbfgs_minimize(f, x, lo);
    } catch (const StageError& e) {
      throw StageError("training diverged in L-BFGS round (epoch) " + std::to_string(epoch) + ": " + e.what() +
                       "; no result is written");
    }
    x = r.x;
    nn::unpack_parameters(model, x);
    arma::vec g;
    f(x, g);  // training loss at the accepted point
    if (epoch % o.eval_every == 0 || epoch == o.epochs) record(epoch, objective.mean_loss(), 0.0);
    if (r.status == LbfgsStatus::kGradientConverged || r.status == LbfgsStatus::kLineSearchFailed) {
      if (epoch % o.eval_every != 0 && epoch != o.epochs) record(epoch, objective.mean_loss(), 0.0);
      break;  // further rounds change nothing
    }
  }
}

// Stochastic gradient descent with cosine-annealed learning rate: each
// epoch a seeded shuffle into batches, and (unless every position is
// predicted) one seeded masked position per sequence.
void train_sgd(nn::MlmModel& model, const nn::SequenceSet& train, const TrainOptions& o, std::uint64_t seed,
               const Record& record) {
  const arma::uword M = train.M, L = train.L;
  const bool all = o.masking == "all_positions";
  Rng order_rng(seed, streams::kBatches), mask_rng(seed, streams::kMasks);
  std::vector<arma::uword> order(M);
  std::iota(order.begin(), order.end(), arma::uword(0));
  std::vector<int> masked(M, nn::kAllPositions);
  const std::uint64_t steps_per_epoch = (M + o.batch_size - 1) / o.batch_size;
  const std::uint64_t total_steps = steps_per_epoch * std::uint64_t(o.epochs);
  std::uint64_t step = 0;
  std::vector<nn::Param> params = model.parameters();
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    for (arma::uword k = M; k > 1; --k) std::swap(order[k - 1], order[order_rng.below(k)]);
    if (!all)
      for (arma::uword m = 0; m < M; ++m) masked[m] = int(mask_rng.below(L));
    const double epoch_lr = cosine_learning_rate(o.lr0, step, total_steps);
    double loss_sum = 0.0, predictions = 0.0;
    for (arma::uword b0 = 0; b0 < M; b0 += o.batch_size, ++step) {
      nn::Batch batch;
      batch.data = &train;
      for (arma::uword k = b0; k < std::min<arma::uword>(M, b0 + o.batch_size); ++k) {
        batch.rows.push_back(order[k]);
        batch.masked.push_back(masked[order[k]]);
      }
      model.zero_gradients();
      const double loss = model.forward_backward(batch, true);
      const double n_pred = double(batch.predictions());
      loss_sum += loss;
      predictions += n_pred;
      const double scale = o.loss_normalisation == "mean" ? 1.0 / n_pred : 1.0 / double(batch.rows.size());
      const double lr = cosine_learning_rate(o.lr0, step, total_steps);
      for (auto& p : params) {
        if (o.l2 > 0.0) *p.value *= (1.0 - 2.0 * lr * o.l2);
        *p.value -= (lr * scale) * *p.grad;
      }
    }
    if (!std::isfinite(loss_sum)) check_finite(loss_sum, "training loss", epoch);
    if (epoch % o.eval_every == 0 || epoch == o.epochs) record(epoch, loss_sum / predictions, epoch_lr);
  }
}

}  // namespace

TrainResult train_mlm(nn::MlmModel& model, const nn::SequenceSet& train, const nn::SequenceSet& test,
                      const PottsModel& truth, const TrainOptions& o, std::uint64_t seed,
                      const std::function<void(const EpochRecord&)>& on_epoch) {
  check_options(model, o);
  if (train.L != truth.L() || test.L != truth.L())
    throw StageError("training: sequence length differs from the Potts model's L");
  TrainResult result;
  const double optimal_test_loss = potts::train::optimal_test_loss(truth, test);
  const Record record = [&](int epoch, double train_loss, double lr) {
    check_finite(train_loss, "training loss", epoch);
    nn::Evaluation e = model.evaluate(test);
    check_finite(e.test_loss, "test loss", epoch);
    EpochRecord r;
    r.epoch = epoch;
    r.train_loss = train_loss;
    r.test_loss = e.test_loss;
    r.optimal_test_loss = optimal_test_loss;
    r.reconstruction_error = reconstruction_error(truth.couplings_J, e.attention_map);
    r.lr = lr;
    result.curve.push_back(r);
    result.final = std::move(e);
    if (on_epoch) on_epoch(r);
  };
  if (o.optimiser == "lbfgs")
    train_lbfgs(model, train, o, record);
  else
    train_sgd(model, train, o, seed, record);
  return result;
}

}  // namespace train
}  // namespace potts
