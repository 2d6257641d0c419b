// The vanilla transformer of paper/spec.md §2 (eq. 2 of the paper; appendix
// A; the post-LayerNorm encoder of Vaswani et al. 2017 as in Lippe's UvA
// tutorial 6):
//
//   x_j = W_emb onehot(token_j) + b_emb + PE_j      token_j in 0..C (C = mask)
//   N blocks of
//     x <- LayerNorm(x + W_o softmax(Q K^T / sqrt(d)) V + b_o),  Q = W_q x + b_q, ...
//     x <- LayerNorm(x + W_2 ReLU(W_1 x + b_1) + b_2)           (width F = 2d)
//   logits = head(x_i) at the masked position i, p = softmax(logits).
//
// The last block is evaluated only at the masked position (its other outputs
// never reach the loss), which is exact and saves most of its cost.
//
// Tested by //lib/nn:transformer_reference_test (against PyTorch), //lib/nn:models_test.
#pragma once
#include <cstdint>
#include <string>

#include "lib/nn/layers.h"
#include "lib/nn/mlm_model.h"

namespace potts {
namespace nn {

struct TransformerOptions {
  arma::uword L = 20, C = 20, d = 20;
  arma::uword layers = 1;
  arma::uword ffn_width = 40;     // F; a choice, paper/spec.md §2: 2d
  bool output_projection = true;  // W_o, b_o after attention (tutorial); false: O used directly
  std::string head = "linear";    // "linear": Dense(C); "tutorial": Dense(d) -> LayerNorm -> ReLU -> Dense(C)
  double layernorm_eps = 1e-6;    // flax.linen.LayerNorm default
};

// Parameters of one encoder block (values or gradients), at precision T.
template <class T>
struct EncoderBlockT {
  Mat<T> Wq, bq, Wk, bk, Wv, bv, Wo, bo;  // d x d, d x 1
  Mat<T> ln1_gamma, ln1_beta;             // d x 1
  Mat<T> W1, b1, W2, b2;                  // F x d, F x 1, d x F, d x 1
  Mat<T> ln2_gamma, ln2_beta;             // d x 1
};
using EncoderBlock = EncoderBlockT<double>;

// All parameters of the model (values or gradients), at precision T.
template <class T>
struct TransformerWeights {
  Mat<T> W_emb, b_emb;  // d x (C+1), d x 1
  std::vector<EncoderBlockT<T>> blocks;
  Mat<T> Wh1, bh1, lnh_gamma, lnh_beta;  // tutorial head only: d x d, d x 1, d x 1, d x 1
  Mat<T> W_out, b_out;                   // C x d, C x 1
};

// What one block's forward pass keeps for its backward pass.
template <class T>
struct EncoderBlockCache {
  std::vector<arma::uword> query_cols;  // columns of the input used as queries (empty: all)
  Mat<T> Xq, Q, K, V, P, O, Z, R1, Y1, Hpre, H, F, R2, Y;
  LayerNormCacheT<T> ln1, ln2;
  // gradient buffers of the backward pass (kept to avoid reallocation)
  Mat<T> dX, dR2, dY1, dH, dHpre, dR1, dXq, dO, dQ, dK, dV;
};

// The activations of one forward pass (and its backward pass), at precision T.
template <class T>
struct TransformerPass {
  std::vector<int> tokens, targets;
  Mat<T> PE, X0, Hh_pre, Hh_ln, Hh, logits, probs;
  LayerNormCacheT<T> lnh;
  std::vector<EncoderBlockCache<T>> caches;
};

class VanillaTransformer : public MlmModel {
 public:
  explicit VanillaTransformer(const TransformerOptions& o, Precision precision = Precision::kDouble);

  // Xavier-uniform weights, zero biases, LayerNorm gamma = 1, beta = 0,
  // from Rng(seed, streams::kInit).
  void initialise(std::uint64_t seed);

  std::string kind() const override { return "vanilla"; }
  std::vector<Param> parameters() override;
  double forward_backward(const Batch& batch, bool want_grad) override;
  // Attention map (fig. 2b): row i = attention of the masked position i over
  // the L positions, averaged over test sequences; for N >= 2 the average of
  // the last two layers. Test loss with every position masked in turn.
  Evaluation evaluate(const SequenceSet& test) override;

  const TransformerOptions& options() const { return o_; }
  Precision precision() const { return precision_; }

  TransformerWeights<double> w;  // parameters
  TransformerWeights<double> g;  // their gradients

 private:
  template <class T>
  double forward(const TransformerWeights<T>& weights, TransformerPass<T>& pass, const SequenceSet& data,
                 const std::vector<arma::uword>& rows, const std::vector<int>& masked) const;
  template <class T>
  void backward(const TransformerWeights<T>& weights, TransformerWeights<T>& grads, TransformerPass<T>& pass) const;
  template <class T>
  void block_forward(const EncoderBlockT<T>& p, EncoderBlockCache<T>& c, const Mat<T>& X, arma::uword Lq) const;
  template <class T>
  void block_backward(const EncoderBlockT<T>& p, EncoderBlockT<T>& block_grads, EncoderBlockCache<T>& c,
                      const Mat<T>& X, const Mat<T>& dY, Mat<T>& dX, arma::uword Lq) const;
  // Loss summed over the examples and, for N >= 2, the attention maps of the
  // last two layers summed into last / previous (evaluation).
  template <class T>
  double evaluate_chunk(const TransformerWeights<T>& weights, TransformerPass<T>& pass, const SequenceSet& test,
                        const std::vector<arma::uword>& rows, const std::vector<int>& masked, arma::mat& last,
                        arma::mat& previous) const;
  // The float copy of w (refreshed before every float pass).
  void refresh_float_weights();

  TransformerOptions o_;
  Precision precision_;
  TransformerPass<double> double_pass_;
  TransformerPass<float> float_pass_;
  TransformerWeights<float> wf_, gf_;
};

}  // namespace nn
}  // namespace potts
