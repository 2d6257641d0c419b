// Mini-batch AdamW (Loshchilov and Hutter, "Decoupled weight decay
// regularization", ICLR 2019), step by step as PyTorch's torch.optim.AdamW
// computes it (amsgrad off, the single-tensor path), so that the same start,
// gradients and batches give the same iterates to rounding:
//
//   x <- x (1 - lr lambda)                        (decoupled weight decay)
//   m <- beta1 m + (1 - beta1) g
//   v <- beta2 v + (1 - beta2) g g
//   x <- x - (lr / (1 - beta1^t)) m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
//
// with t the step count from 1. Element by element in index order: the same
// bits on every CPU, at any thread count (no reductions).
//
// Batches: each epoch a Fisher-Yates shuffle of 0..N-1 drawn from
// Rng(seed, streams::kBatches) (the draws of fit_couplings_sgd), cut into
// batches of B in that order, the last one shorter when B does not divide N.
//
// Tested by //lib/optim:adamw_test and, against PyTorch on a coupling model,
// //tests/reference:adamw_reference_test.
#pragma once
#include <cstdint>
#include <vector>

#include <armadillo>

#include "lib/core/rng.h"

namespace potts {

struct AdamwOptions {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  // lambda (PyTorch's default is 1e-2; the observation's runs use 0)
};

class Adamw {
 public:
  Adamw(arma::uword n, const AdamwOptions& o);
  // One step of x along gradient g (both of length n). Throws
  // std::invalid_argument on a length mismatch.
  void step(arma::vec& x, const arma::vec& g);
  long steps() const { return t_; }

 private:
  AdamwOptions o_;
  arma::vec m_, v_;
  long t_ = 0;
};

class BatchStream {
 public:
  // N items (N >= 1), batches of B (B >= 1).
  BatchStream(arma::uword n, arma::uword batch, std::uint64_t seed);
  // The next batch's indices; a new epoch's shuffle when the last ran out.
  arma::uvec next();
  int epoch() const { return epoch_; }  // 1 during the first epoch

 private:
  arma::uword n_, batch_, pos_;
  int epoch_ = 0;
  Rng rng_;
  std::vector<arma::uword> order_;
};

}  // namespace potts
