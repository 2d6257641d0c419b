// Masked-language-model training (paper/spec.md §2, "Training"; appendix A
// of the paper): stochastic gradient descent on mini-batches with a
// cosine-annealed learning rate, or (a project option for factored
// attention) full-batch L-BFGS. Works with any nn::MlmModel.
//
// Per epoch it records the training loss, the test loss eps (eq. 3, every
// position of every test sequence), the optimal eps* of the true model, and
// the reconstruction error e_rec of the model's attention map against J.
//
// Tested by //lib/train:trainer_test, //stages/train:divergence_test.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/nn/mlm_model.h"
#include "lib/potts/model.h"

namespace potts {
namespace train {

struct TrainOptions {
  std::string optimiser = "sgd";  // "sgd" (appendix A) or "lbfgs" (full batch)
  int epochs = 100;               // SGD epochs, or L-BFGS rounds
  int batch_size = 100;           // appendix A
  double lr0 = 0.1;               // initial learning rate, annealed to 0 (cosine)
  // How a mini-batch's summed cross-entropy is normalised before the step:
  // "mean": divided by the number of predictions (sequences x positions);
  // "sum_positions": divided by the number of sequences only (summed over
  // the L positions of factored attention; same as "mean" for one mask).
  std::string loss_normalisation = "mean";
  // "all_positions" (every position of every sequence each epoch; requires a
  // model that predicts all positions in one pass) or "one_random" (one
  // uniformly random masked position per sequence per epoch, stream kMasks).
  std::string masking = "all_positions";
  double l2 = 0.0;                      // penalty l2 * sum ||theta||^2 added to the objective
  int eval_every = 1;                   // evaluate (test loss, e_rec) every k epochs and at the end
  int lbfgs_iterations_per_epoch = 20;  // L-BFGS: iterations per recorded round
};

// Reads the training keys of a stage config (optimiser, epochs, batch_size,
// lr0 (SGD only), loss_normalisation, masking (one of `maskings`), l2,
// eval_every, lbfgs_iterations_per_epoch (L-BFGS only)); errors name the
// file and key.
TrainOptions read_train_options(Config& cfg,
                                const std::vector<std::string>& maskings = {"all_positions", "one_random"});

// The optional key "precision" ("double", the default, or "float"; see
// nn::Precision).
nn::Precision read_precision(Config& cfg);

// Cosine annealing (Loshchilov & Hutter 2017, optax.cosine_decay_schedule):
// lr(t) = lr0 (1 + cos(pi t / T)) / 2 for step t of T.
double cosine_learning_rate(double lr0, std::uint64_t step, std::uint64_t total_steps);

struct EpochRecord {
  int epoch = 0;                      // 1-based
  double train_loss = 0.0;            // mean -log p over the epoch's predictions
  double test_loss = 0.0;             // eps, eq. 3
  double optimal_test_loss = 0.0;     // eps*, true model on the same test set
  double reconstruction_error = 0.0;  // e_rec of the attention map against J
  double lr = 0.0;                    // learning rate at the epoch's first step (0 for L-BFGS)
};

struct TrainResult {
  std::vector<EpochRecord> curve;
  nn::Evaluation final;  // test loss and attention map of the final parameters
};

// Trains `model` on `train`, evaluating on `test` against `truth` (the Potts
// model that generated the data). Random streams: Rng(seed, kBatches) for
// the order of sequences, Rng(seed, kMasks) for masked positions. A loss
// that becomes NaN or infinite throws StageError naming the epoch.
// `on_epoch` (may be empty) is called after every evaluated epoch.
TrainResult train_mlm(nn::MlmModel& model, const nn::SequenceSet& train, const nn::SequenceSet& test,
                      const PottsModel& truth, const TrainOptions& options, std::uint64_t seed,
                      const std::function<void(const EpochRecord&)>& on_epoch = {});

// eps* of eq. 3 on a SequenceSet.
double optimal_test_loss(const PottsModel& truth, const nn::SequenceSet& test);

}  // namespace train
}  // namespace potts
