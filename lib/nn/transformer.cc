#include "lib/nn/transformer.h"

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts {
namespace nn {

static EncoderBlock zero_block(arma::uword d, arma::uword F) {
  EncoderBlock b;
  for (arma::mat* m : {&b.Wq, &b.Wk, &b.Wv, &b.Wo}) m->zeros(d, d);
  for (arma::mat* m : {&b.bq, &b.bk, &b.bv, &b.bo, &b.ln1_gamma, &b.ln1_beta, &b.b2, &b.ln2_gamma, &b.ln2_beta})
    m->zeros(d, 1);
  b.W1.zeros(F, d);
  b.b1.zeros(F, 1);
  b.W2.zeros(d, F);
  return b;
}

VanillaTransformer::VanillaTransformer(const TransformerOptions& o) : o_(o) {
  if (o.layers < 1) throw StageError("vanilla transformer: layers must be at least 1");
  if (o.head != "linear" && o.head != "tutorial")
    throw StageError("vanilla transformer: head must be \"linear\" or \"tutorial\", got \"" + o.head + "\"");
  const arma::uword d = o.d, C = o.C;
  W_emb.zeros(d, C + 1);
  b_emb.zeros(d, 1);
  for (arma::uword n = 0; n < o.layers; ++n) {
    blocks.push_back(zero_block(d, o.ffn_width));
    grad_blocks.push_back(zero_block(d, o.ffn_width));
  }
  if (o.head == "tutorial") {
    Wh1.zeros(d, d);
    bh1.zeros(d, 1);
    lnh_gamma.ones(d, 1);
    lnh_beta.zeros(d, 1);
    dWh1.zeros(d, d);
    dbh1.zeros(d, 1);
    dlnh_gamma.zeros(d, 1);
    dlnh_beta.zeros(d, 1);
  }
  W_out.zeros(C, d);
  b_out.zeros(C, 1);
  dW_emb.zeros(d, C + 1);
  db_emb.zeros(d, 1);
  dW_out.zeros(C, d);
  db_out.zeros(C, 1);
  PE_ = sinusoidal_positions(d, o.L);
  caches_.resize(o.layers);
  for (auto& b : blocks) {
    b.ln1_gamma.ones();
    b.ln2_gamma.ones();
  }
}

void VanillaTransformer::initialise(std::uint64_t seed) {
  Rng rng(seed, streams::kInit);
  auto u = [&] { return rng.uniform(); };
  xavier_uniform(W_emb, u);
  b_emb.zeros();
  for (auto& b : blocks) {
    for (arma::mat* m : {&b.Wq, &b.Wk, &b.Wv, &b.Wo, &b.W1, &b.W2}) xavier_uniform(*m, u);
    for (arma::mat* m : {&b.bq, &b.bk, &b.bv, &b.bo, &b.b1, &b.b2, &b.ln1_beta, &b.ln2_beta}) m->zeros();
    b.ln1_gamma.ones();
    b.ln2_gamma.ones();
  }
  if (o_.head == "tutorial") {
    xavier_uniform(Wh1, u);
    bh1.zeros();
    lnh_gamma.ones();
    lnh_beta.zeros();
  }
  xavier_uniform(W_out, u);
  b_out.zeros();
}

std::vector<Param> VanillaTransformer::parameters() {
  std::vector<Param> ps = {{"W_emb", &W_emb, &dW_emb}, {"b_emb", &b_emb, &db_emb}};
  for (arma::uword n = 0; n < blocks.size(); ++n) {
    EncoderBlock& p = blocks[n];
    EncoderBlock& g = grad_blocks[n];
    const std::string pre = "block" + std::to_string(n) + ".";
    ps.push_back({pre + "Wq", &p.Wq, &g.Wq});
    ps.push_back({pre + "bq", &p.bq, &g.bq});
    ps.push_back({pre + "Wk", &p.Wk, &g.Wk});
    ps.push_back({pre + "bk", &p.bk, &g.bk});
    ps.push_back({pre + "Wv", &p.Wv, &g.Wv});
    ps.push_back({pre + "bv", &p.bv, &g.bv});
    if (o_.output_projection) {
      ps.push_back({pre + "Wo", &p.Wo, &g.Wo});
      ps.push_back({pre + "bo", &p.bo, &g.bo});
    }
    ps.push_back({pre + "ln1_gamma", &p.ln1_gamma, &g.ln1_gamma});
    ps.push_back({pre + "ln1_beta", &p.ln1_beta, &g.ln1_beta});
    ps.push_back({pre + "W1", &p.W1, &g.W1});
    ps.push_back({pre + "b1", &p.b1, &g.b1});
    ps.push_back({pre + "W2", &p.W2, &g.W2});
    ps.push_back({pre + "b2", &p.b2, &g.b2});
    ps.push_back({pre + "ln2_gamma", &p.ln2_gamma, &g.ln2_gamma});
    ps.push_back({pre + "ln2_beta", &p.ln2_beta, &g.ln2_beta});
  }
  if (o_.head == "tutorial") {
    ps.push_back({"head.W1", &Wh1, &dWh1});
    ps.push_back({"head.b1", &bh1, &dbh1});
    ps.push_back({"head.ln_gamma", &lnh_gamma, &dlnh_gamma});
    ps.push_back({"head.ln_beta", &lnh_beta, &dlnh_beta});
  }
  ps.push_back({"W_out", &W_out, &dW_out});
  ps.push_back({"b_out", &b_out, &db_out});
  return ps;
}

// ---------------------------------------------------------------------------
// One post-LayerNorm encoder block. X: d x (B L) -> Y: d x (B Lq); queries
// are the columns c.query_cols of X (all of them when Lq = L).
void VanillaTransformer::block_forward(const EncoderBlock& p, EncoderBlockCache& c, const arma::mat& X,
                                       arma::uword Lq) {
  gather_forward(c.Xq, X, c.query_cols);
  linear_forward(c.Q, c.Xq, p.Wq, p.bq);
  linear_forward(c.K, X, p.Wk, p.bk);
  linear_forward(c.V, X, p.Wv, p.bv);
  attention_forward(c.O, c.P, c.Q, c.K, c.V, o_.L, Lq);  // softmax(Q K^T / sqrt(d)) V
  if (o_.output_projection)
    linear_forward(c.Z, c.O, p.Wo, p.bo);
  else
    c.Z = c.O;
  c.R1 = c.Xq + c.Z;  // residual
  layernorm_forward(c.Y1, c.ln1, c.R1, p.ln1_gamma, p.ln1_beta, o_.layernorm_eps);
  linear_forward(c.Hpre, c.Y1, p.W1, p.b1);
  relu_forward(c.H, c.Hpre);
  linear_forward(c.F, c.H, p.W2, p.b2);
  c.R2 = c.Y1 + c.F;  // residual
  layernorm_forward(c.Y, c.ln2, c.R2, p.ln2_gamma, p.ln2_beta, o_.layernorm_eps);
}

// dY: d x (B Lq) -> accumulates dX (d x (B L)) and the block's gradients g.
void VanillaTransformer::block_backward(const EncoderBlock& p, EncoderBlock& g, EncoderBlockCache& c,
                                        const arma::mat& X, const arma::mat& dY, arma::mat& dX, arma::uword Lq) {
  c.dR2.zeros(arma::size(c.R2));
  layernorm_backward(c.dR2, g.ln2_gamma, g.ln2_beta, dY, c.ln2, p.ln2_gamma);
  // forward: R2 = Y1 + F, F = W_2 H + b_2
  c.dY1 = c.dR2;
  c.dH.zeros(arma::size(c.H));
  linear_backward(&c.dH, g.W2, g.b2, c.dR2, c.H, p.W2);
  c.dHpre.zeros(arma::size(c.Hpre));
  relu_backward(c.dHpre, c.dH, c.H);
  linear_backward(&c.dY1, g.W1, g.b1, c.dHpre, c.Y1, p.W1);
  c.dR1.zeros(arma::size(c.R1));
  layernorm_backward(c.dR1, g.ln1_gamma, g.ln1_beta, c.dY1, c.ln1, p.ln1_gamma);
  // forward: R1 = Xq + Z, Z = W_o O + b_o
  c.dXq = c.dR1;
  if (o_.output_projection) {
    c.dO.zeros(arma::size(c.O));
    linear_backward(&c.dO, g.Wo, g.bo, c.dR1, c.O, p.Wo);
  } else {
    c.dO = c.dR1;
  }
  c.dQ.zeros(arma::size(c.Q));
  c.dK.zeros(arma::size(c.K));
  c.dV.zeros(arma::size(c.V));
  attention_backward(c.dQ, c.dK, c.dV, c.dO, c.P, c.Q, c.K, c.V, o_.L, Lq);
  linear_backward(&c.dXq, g.Wq, g.bq, c.dQ, c.Xq, p.Wq);
  gather_backward(dX, c.dXq, c.query_cols);
  // forward: K = W_k X + b_k, V = W_v X + b_v
  linear_backward(&dX, g.Wk, g.bk, c.dK, X, p.Wk);
  linear_backward(&dX, g.Wv, g.bv, c.dV, X, p.Wv);
}

// ---------------------------------------------------------------------------
double VanillaTransformer::forward(const SequenceSet& data, const std::vector<arma::uword>& rows,
                                   const std::vector<int>& masked) {
  const arma::uword B = rows.size(), L = o_.L, N = blocks.size();
  tokens_.resize(B * L);
  targets_.resize(B);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = data.row(rows[b]);
    for (arma::uword j = 0; j < L; ++j) tokens_[b * L + j] = s[j];
    tokens_[b * L + masked[b]] = int(o_.C);  // the mask token
    targets_[b] = s[masked[b]];
  }
  embedding_forward(X0_, tokens_, W_emb, b_emb, PE_, L);
  for (arma::uword n = 0; n < N; ++n) {
    EncoderBlockCache& c = caches_[n];
    const bool last = n + 1 == N;
    c.query_cols.resize(last ? B : B * L);
    for (arma::uword b = 0; b < B; ++b)
      if (last)
        c.query_cols[b] = b * L + masked[b];  // only the masked position reaches the read-out
      else
        for (arma::uword j = 0; j < L; ++j) c.query_cols[b * L + j] = b * L + j;
    block_forward(blocks[n], c, n == 0 ? X0_ : caches_[n - 1].Y, last ? 1 : L);
  }
  const arma::mat& Y = caches_[N - 1].Y;  // d x B, the masked positions
  if (o_.head == "tutorial") {
    linear_forward(Hh_pre_, Y, Wh1, bh1);
    layernorm_forward(Hh_ln_, lnh_, Hh_pre_, lnh_gamma, lnh_beta, o_.layernorm_eps);
    relu_forward(Hh_, Hh_ln_);
    linear_forward(logits_, Hh_, W_out, b_out);
  } else {
    linear_forward(logits_, Y, W_out, b_out);
  }
  return cross_entropy_forward(probs_, logits_, targets_);
}

void VanillaTransformer::backward() {
  const arma::uword N = blocks.size();
  arma::mat dlogits(arma::size(logits_), arma::fill::zeros);
  cross_entropy_backward(dlogits, probs_, targets_, 1.0);
  arma::mat dY(arma::size(caches_[N - 1].Y), arma::fill::zeros);
  if (o_.head == "tutorial") {
    arma::mat dHh(arma::size(Hh_), arma::fill::zeros), dHln(arma::size(Hh_ln_), arma::fill::zeros),
        dHpre(arma::size(Hh_pre_), arma::fill::zeros);
    linear_backward(&dHh, dW_out, db_out, dlogits, Hh_, W_out);
    relu_backward(dHln, dHh, Hh_);
    layernorm_backward(dHpre, dlnh_gamma, dlnh_beta, dHln, lnh_, lnh_gamma);
    linear_backward(&dY, dWh1, dbh1, dHpre, caches_[N - 1].Y, Wh1);
  } else {
    linear_backward(&dY, dW_out, db_out, dlogits, caches_[N - 1].Y, W_out);
  }
  const arma::mat* dnext = &dY;  // gradient of the current block's output
  for (arma::uword n = N; n-- > 0;) {
    const arma::mat& X = n == 0 ? X0_ : caches_[n - 1].Y;
    EncoderBlockCache& c = caches_[n];
    c.dX.zeros(arma::size(X));
    block_backward(blocks[n], grad_blocks[n], c, X, *dnext, c.dX, n + 1 == N ? 1 : o_.L);
    dnext = &c.dX;
  }
  embedding_backward(dW_emb, db_emb, *dnext, tokens_);
}

double VanillaTransformer::forward_backward(const Batch& batch, bool want_grad) {
  std::vector<arma::uword> rows;
  std::vector<int> masked;
  for (arma::uword b = 0; b < batch.rows.size(); ++b) {
    if (batch.masked[b] == kAllPositions) {
      for (arma::uword i = 0; i < o_.L; ++i) {
        rows.push_back(batch.rows[b]);
        masked.push_back(int(i));
      }
    } else {
      rows.push_back(batch.rows[b]);
      masked.push_back(batch.masked[b]);
    }
  }
  const double loss = forward(*batch.data, rows, masked);
  if (want_grad) backward();
  return loss;
}

Evaluation VanillaTransformer::evaluate(const SequenceSet& test) {
  const arma::uword L = o_.L, N = blocks.size();
  arma::mat last(L, L, arma::fill::zeros), previous(L, L, arma::fill::zeros);
  double total = 0.0;
  const arma::uword chunk = 10;  // sequences per pass, each masked at all L positions
  for (arma::uword m0 = 0; m0 < test.M; m0 += chunk) {
    std::vector<arma::uword> rows;
    std::vector<int> masked;
    for (arma::uword m = m0; m < std::min(test.M, m0 + chunk); ++m)
      for (arma::uword i = 0; i < L; ++i) {
        rows.push_back(m);
        masked.push_back(int(i));
      }
    total += forward(test, rows, masked);
    for (arma::uword b = 0; b < rows.size(); ++b) {
      const arma::uword i = masked[b];
      last.row(i) += caches_[N - 1].P.col(b).t();  // the masked query's attention over the L keys
      if (N >= 2) previous.row(i) += caches_[N - 2].P.col(b * L + i).t();
    }
  }
  Evaluation e;
  e.test_loss = total / double(test.M * L);
  e.attention_map = (N >= 2 ? 0.5 * (last + previous) : last) / double(test.M);
  return e;
}

}  // namespace nn
}  // namespace potts
