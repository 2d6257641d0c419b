// The vanilla transformer of SPEC.md section 2 (eq. 2 of the paper; appendix
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
  arma::uword ffn_width = 40;        // F; SPEC choice: 2d
  bool output_projection = true;     // W_o, b_o after attention (tutorial); false: O used directly
  std::string head = "linear";       // "linear": Dense(C); "tutorial": Dense(d) -> LayerNorm -> ReLU -> Dense(C)
  double layernorm_eps = 1e-6;       // flax.linen.LayerNorm default
};

// Parameters of one encoder block (values or gradients).
struct EncoderBlock {
  arma::mat Wq, bq, Wk, bk, Wv, bv, Wo, bo;  // d x d, d x 1
  arma::mat ln1_gamma, ln1_beta;             // d x 1
  arma::mat W1, b1, W2, b2;                  // F x d, F x 1, d x F, d x 1
  arma::mat ln2_gamma, ln2_beta;             // d x 1
};

// What one block's forward pass keeps for its backward pass.
struct EncoderBlockCache {
  std::vector<arma::uword> query_cols;  // columns of the input used as queries
  arma::mat Xq, Q, K, V, P, O, Z, R1, Y1, Hpre, H, F, R2, Y;
  LayerNormCache ln1, ln2;
  // gradient buffers of the backward pass (kept to avoid reallocation)
  arma::mat dX, dR2, dY1, dH, dHpre, dR1, dXq, dO, dQ, dK, dV;
};

class VanillaTransformer : public MlmModel {
 public:
  explicit VanillaTransformer(const TransformerOptions& o);

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

  // Parameters and their gradients.
  arma::mat W_emb, b_emb;          // d x (C+1), d x 1
  std::vector<EncoderBlock> blocks, grad_blocks;
  arma::mat Wh1, bh1, lnh_gamma, lnh_beta;  // tutorial head only: d x d, d x 1, d x 1, d x 1
  arma::mat W_out, b_out;          // C x d, C x 1
  arma::mat dW_emb, db_emb, dWh1, dbh1, dlnh_gamma, dlnh_beta, dW_out, db_out;

 private:
  // Forward over examples (row, masked position) -> loss sum; caches filled.
  double forward(const SequenceSet& data, const std::vector<arma::uword>& rows, const std::vector<int>& masked);
  void backward();
  void block_forward(const EncoderBlock& p, EncoderBlockCache& c, const arma::mat& X, arma::uword Lq);
  void block_backward(const EncoderBlock& p, EncoderBlock& g, EncoderBlockCache& c, const arma::mat& X,
                      const arma::mat& dY, arma::mat& dX, arma::uword Lq);

  TransformerOptions o_;
  arma::mat PE_;
  // caches
  std::vector<int> tokens_, targets_;
  arma::mat X0_;
  std::vector<EncoderBlockCache> caches_;
  arma::mat Hh_pre_, Hh_ln_, Hh_, logits_, probs_;
  LayerNormCache lnh_;
};

}  // namespace nn
}  // namespace potts
