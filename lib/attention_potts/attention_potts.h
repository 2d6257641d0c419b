// Factored attention as the observation's public implementation trains it
// (Bhattacharya et al., "Single layers of attention suffice to predict
// protein contacts", 2020; paper/spec.md §9.5): a Potts model over the 20
// amino acids whose couplings are
//
//   W_ij = sum_h A^h_ij V^h,   A^h_ij = softmax_{j != i}(q^h_i . k^h_j / sqrt(d)),
//   W    <- (W + W^T) / 2      (as a matrix of (site, state) pairs),
//
// positional queries and keys q^h_i, k^h_j (dimension d), one full C x C
// value matrix V^h per head, fields b_i. The gap is a pad: a zero input and
// no target. For a batch of B sequences with T non-pad targets, of M in the
// family, the loss of one step is
//
//   ( sum_{mu, i: s_i != pad} -log p(s_i | s_\i)
//     + T (c_W ||W||_F + c_b ||b||_F) ) / B,                      (eq. O1)
//   c_W = lambda (L - 1)(C - 1) / M,  c_b = lambda / M,
//
// the Frobenius norms unsquared, as the observation's code computes them;
// nothing on q, k or V. p(s_i = a | s_\i) = softmax_a(b_i(a) + sum_{j != i,
// s_j != pad} W_ij(a, s_j)).
//
// Computation: each unordered pair p = (i < j) carries the symmetrised block
// Ws_p = W_ij of the symmetrised W (C x C, column-major in (a, b)). With
// V^h = S^h + K^h (symmetric and antisymmetric parts),
//
//   Ws_p = sum_h Bplus^h_p S^h + Bminus^h_p K^h,                      (eq. P1)
//   Bplus^h_p = (A^h_ij + A^h_ji) / 2,   Bminus^h_p = (A^h_ij - A^h_ji) / 2,
//
// so the symmetric part of every block (its n_sym = C(C+1)/2 entries a <= b) is
// one product, Wsym = sym_values Bplus (n_sym x H times H x P), and the antisymmetric
// part (n_anti = C(C-1)/2 entries a < b) another, w_anti = anti_values Bminus: H C^2 P
// multiply-adds in all, half of forming Ws from V^h and V^hT directly. The
// gradient's four products are their transposes (d_sym_values = dWsym Bplus^T,
// dBplus = sym_values^T dWsym, the same for K), each of dense_product.h (Bplus and
// Bminus stored transposed). Every element is a sequential sum, the data
// term's sums run in a fixed order (pairs i < j, sequences in batch order),
// and threads split outputs, never sums: the same bits on every x86-64 CPU
// and at any thread count (lib/core/parallel.h).
//
// Packing of x: b (C x L, column-major), then per head q^h (d x L), then per
// head k^h (d x L), then V (C^2 x H, column h is V^h column-major).
//
// Tested by //lib/attention_potts:attention_potts_test (gradient against finite
// differences with pads and the penalty, against a direct evaluation of eq.
// O1, bits at 1 and 3 threads).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <armadillo>

#include "lib/attention_potts/pad_data_term.h"
#include "lib/optim/adamw.h"

namespace potts {

struct AttentionPottsSpec {
  arma::uword L = 0;          // sites
  arma::uword C = 20;         // states that are targets; any state >= C is a pad
  arma::uword heads = 32;     // H
  arma::uword head_dim = 16;  // d
  // Eq. P1's products in float (each sum in float, from operands rounded to
  // float; the rest in double): twice as fast, the same bits on every CPU
  // and thread count as the double path.
  bool float_products = false;
  // Fields b_i in the model. Off (the observation's published command, which
  // passes no --use_bias): b stays 0 from the start (its gradient is zeroed)
  // and has no penalty; the packing of x is the same.
  bool fields = true;
  // Throws StageError naming the inconsistent setting.
  void check() const;
  arma::uword pairs() const { return L * (L - 1) / 2; }
  arma::uword parameter_count() const { return C * L + 2 * heads * head_dim * L + heads * C * C; }
  // Offsets into the packed x.
  arma::uword q_offset() const { return C * L; }
  arma::uword k_offset() const { return C * L + heads * head_dim * L; }
  arma::uword v_offset() const { return C * L + 2 * heads * head_dim * L; }
};

// lambda of eq. O1 and the family's size M (the penalty's 1 / M).
//
// squared: the objective of the observation's code at the commit its
// repository pins (mogwai a24d741, `loss` and `compute_regularization`)
// instead of eq. O1:
//
//   M/B sum CE + T ( lambda C / (2B) ||W||_F^2 + lambda / (B L) ||b||_F^2 ),   (eq. O1s)
//
// ||W||_F^2 over both ordered pairs, the fields' term only with fields.
struct AttentionPottsPenalty {
  double lambda = 0.0;
  arma::uword family_size = 1;
  bool squared = false;
};

// Eq. P1's operands, products and their gradients, in Real (double, or float
// for float_products).
template <class Real>
struct AttentionProducts {
  arma::Mat<Real> sym_values, anti_values;  // n_sym x H, n_anti x H
  arma::Mat<Real> bp_t, bm_t;               // Bplus^T, Bminus^T: P x H
  arma::Mat<Real> wsym, w_anti;             // n_sym x P, n_anti x P
  arma::Mat<Real> gsym, g_anti;             // the loss's gradient w.r.t. wsym, w_anti
  arma::Mat<Real> d_sym_values, d_anti_values, dbp_t, dbm_t;
};

// Buffers of one evaluation, kept between the steps of a fit.
struct AttentionPottsWorkspace {
  arma::mat maps;             // L x (L H): column i + L h holds A^h_ij over j
  arma::mat blocks, dblocks;  // the blocks Ws_p and the loss's gradient w.r.t. them: C^2 x P
  arma::mat blocks_t;         // each block transposed, for the data term
  AttentionProducts<double> pd;
  AttentionProducts<float> pf;
  PadDataWorkspace data;  // the data term's buffers
  std::vector<double> col_sq;
};

// Loss eq. O1 of `batch` (B x L, states 0 .. C - 1 or pads) and, if grad is
// not null, its gradient w.r.t. x (resized). T = 0 (a batch of pads only)
// gives a loss of 0 and a zero gradient.
double attention_potts_loss(const AttentionPottsSpec& spec, const arma::vec& x, const arma::imat& batch,
                            const AttentionPottsPenalty& penalty, arma::vec* grad, AttentionPottsWorkspace& work);

// The symmetrised couplings as the pair blocks Ws (C^2 x P, pair p = (i < j)
// in the order (0,1), (0,2), ..., (L-2, L-1)) and the attention maps.
void attention_potts_couplings(const AttentionPottsSpec& spec, const arma::vec& x, AttentionPottsWorkspace& work);

// The observation's contact score: ||W_ij||_F of each pair's block (L x L,
// symmetric, zero diagonal), before APC.
arma::mat attention_potts_block_norms(const AttentionPottsSpec& spec, const arma::vec& x);

// Whether attention left uniform: per head and query row, the largest
// weight; the median over all rows, against a uniform row's 1 / (L - 1).
double attention_potts_median_row_max(const AttentionPottsSpec& spec, const arma::vec& x);

// The observation's start: q, k (as L x H x d tensors) and V (as H x C x C)
// Xavier-uniform, U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) as PyTorch
// computes the fans of such tensors (q, k: fan_in H d, fan_out L d; V:
// fan_in C^2, fan_out H C), drawn from Rng(seed, streams::kInit) in the
// order q, k, V, each in the order of its packing; fields from the regularised
// profile, b_i(a) = log(n_i(a) + lambda log M) centred over a, n_i(a) the
// count of state a at site i in `sequences` (M x L, unweighted), or
// 0 without fields.
arma::vec attention_potts_start(const AttentionPottsSpec& spec, const arma::imat& sequences, double lambda,
                                std::uint64_t seed);

// The observation's optimiser: AdamW (weight decay 0, constant learning
// rate) on eq. O1, one step per batch of lib/optim's BatchStream (a seeded
// shuffle of the M sequences each epoch, cut into batches of B, the last
// shorter), from attention_potts_start(seed).
struct AttentionPottsFitOptions {
  long steps = 5000;
  arma::uword batch_size = 128;
  AdamwOptions adamw;  // lr 5e-3 in the observation's runs; weight_decay must be 0 there
  // Every batch of batch_size: the seeded shuffles of consecutive epochs
  // cut into batches across the epochs' ends, as the observation's code
  // draws from its data set repeated (a batch may straddle two epochs).
  bool full_batches = false;
  // Called after each step with its number (from 1) and the batch's loss.
  std::function<void(long, double)> on_step;
};

// Batches of exactly B: BatchStream's epochs (a seeded shuffle each) read
// one after another and cut every B indices, across the epochs' ends.
class FullBatches {
 public:
  FullBatches(arma::uword n, arma::uword batch, std::uint64_t seed) : stream_(n, batch, seed), batch_(batch) {}
  arma::uvec next();
  int epoch() const { return stream_.epoch(); }  // of the newest index drawn

 private:
  BatchStream stream_;
  arma::uword batch_;
  std::vector<arma::uword> pending_;  // drawn, not yet in a batch
};

struct AttentionPottsFit {
  arma::vec x;
  long steps = 0;
  int epochs = 0;
};

// Throws StageError when a batch's loss or gradient is not finite (a
// diverged fit: nothing is returned).
AttentionPottsFit fit_attention_potts(const AttentionPottsSpec& spec, const arma::imat& sequences,
                                      const AttentionPottsPenalty& penalty, const AttentionPottsFitOptions& options,
                                      std::uint64_t seed);

// Eq. O1's data term alone, the mean over every non-pad target of
// `sequences` (M x L): the training or held-out loss of a fit.
double attention_potts_mean_loss(const AttentionPottsSpec& spec, const arma::vec& x, const arma::imat& sequences);

}  // namespace potts
