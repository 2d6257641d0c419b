#include "lib/nn/transformer.h"

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts {
namespace nn {

template <class T>
static TransformerWeights<T> zero_weights(const TransformerOptions& o) {
  const arma::uword d = o.d, C = o.C, F = o.ffn_width;
  TransformerWeights<T> w;
  w.W_emb.zeros(d, C + 1);
  w.b_emb.zeros(d, 1);
  w.blocks.resize(o.layers);
  for (EncoderBlockT<T>& b : w.blocks) {
    for (Mat<T>* m : {&b.Wq, &b.Wk, &b.Wv, &b.Wo}) m->zeros(d, d);
    for (Mat<T>* m : {&b.bq, &b.bk, &b.bv, &b.bo, &b.ln1_gamma, &b.ln1_beta, &b.b2, &b.ln2_gamma, &b.ln2_beta})
      m->zeros(d, 1);
    b.W1.zeros(F, d);
    b.b1.zeros(F, 1);
    b.W2.zeros(d, F);
  }
  if (o.head == "tutorial") {
    w.Wh1.zeros(d, d);
    w.bh1.zeros(d, 1);
    w.lnh_gamma.zeros(d, 1);
    w.lnh_beta.zeros(d, 1);
  }
  w.W_out.zeros(C, d);
  w.b_out.zeros(C, 1);
  return w;
}

// Calls f(name, matrix) for every trainable matrix of w, in the order of
// parameters() (W_o, b_o only with the output projection; the tutorial
// head's matrices only with that head).
template <class T, class F>
static void visit(TransformerWeights<T>& w, const TransformerOptions& o, F&& f) {
  f("W_emb", w.W_emb);
  f("b_emb", w.b_emb);
  for (arma::uword n = 0; n < w.blocks.size(); ++n) {
    EncoderBlockT<T>& p = w.blocks[n];
    const std::string pre = "block" + std::to_string(n) + ".";
    f(pre + "Wq", p.Wq);
    f(pre + "bq", p.bq);
    f(pre + "Wk", p.Wk);
    f(pre + "bk", p.bk);
    f(pre + "Wv", p.Wv);
    f(pre + "bv", p.bv);
    if (o.output_projection) {
      f(pre + "Wo", p.Wo);
      f(pre + "bo", p.bo);
    }
    f(pre + "ln1_gamma", p.ln1_gamma);
    f(pre + "ln1_beta", p.ln1_beta);
    f(pre + "W1", p.W1);
    f(pre + "b1", p.b1);
    f(pre + "W2", p.W2);
    f(pre + "b2", p.b2);
    f(pre + "ln2_gamma", p.ln2_gamma);
    f(pre + "ln2_beta", p.ln2_beta);
  }
  if (o.head == "tutorial") {
    f(std::string("head.W1"), w.Wh1);
    f(std::string("head.b1"), w.bh1);
    f(std::string("head.ln_gamma"), w.lnh_gamma);
    f(std::string("head.ln_beta"), w.lnh_beta);
  }
  f(std::string("W_out"), w.W_out);
  f(std::string("b_out"), w.b_out);
}

template <class T>
static std::vector<Mat<T>*> matrices(TransformerWeights<T>& w, const TransformerOptions& o) {
  std::vector<Mat<T>*> out;
  visit(w, o, [&](const std::string&, Mat<T>& m) { out.push_back(&m); });
  return out;
}

template <class T>
static void init_pass(TransformerPass<T>& pass, const TransformerOptions& o) {
  pass.PE = arma::conv_to<Mat<T>>::from(sinusoidal_positions(o.d, o.L));
  pass.caches.resize(o.layers);
}

VanillaTransformer::VanillaTransformer(const TransformerOptions& o, Precision precision)
    : o_(o), precision_(precision) {
  if (o.layers < 1) throw StageError("vanilla transformer: layers must be at least 1");
  if (o.head != "linear" && o.head != "tutorial")
    throw StageError("vanilla transformer: head must be \"linear\" or \"tutorial\", got \"" + o.head + "\"");
  w = zero_weights<double>(o);
  g = zero_weights<double>(o);
  for (auto& b : w.blocks) {
    b.ln1_gamma.ones();
    b.ln2_gamma.ones();
  }
  if (o.head == "tutorial") w.lnh_gamma.ones();
  init_pass(double_pass_, o);
  if (precision == Precision::kFloat) {
    init_pass(float_pass_, o);
    wf_ = zero_weights<float>(o);
    gf_ = zero_weights<float>(o);
  }
}

void VanillaTransformer::initialise(std::uint64_t seed) {
  Rng rng(seed, streams::kInit);
  auto u = [&] { return rng.uniform(); };
  xavier_uniform(w.W_emb, u);
  w.b_emb.zeros();
  for (auto& b : w.blocks) {
    for (arma::mat* m : {&b.Wq, &b.Wk, &b.Wv, &b.Wo, &b.W1, &b.W2}) xavier_uniform(*m, u);
    for (arma::mat* m : {&b.bq, &b.bk, &b.bv, &b.bo, &b.b1, &b.b2, &b.ln1_beta, &b.ln2_beta}) m->zeros();
    b.ln1_gamma.ones();
    b.ln2_gamma.ones();
  }
  if (o_.head == "tutorial") {
    xavier_uniform(w.Wh1, u);
    w.bh1.zeros();
    w.lnh_gamma.ones();
    w.lnh_beta.zeros();
  }
  xavier_uniform(w.W_out, u);
  w.b_out.zeros();
}

std::vector<Param> VanillaTransformer::parameters() {
  std::vector<Param> ps;
  visit(w, o_, [&](const std::string& name, arma::mat& m) { ps.push_back({name, &m, nullptr}); });
  std::vector<arma::mat*> grads = matrices(g, o_);
  for (arma::uword k = 0; k < ps.size(); ++k) ps[k].grad = grads[k];
  return ps;
}

void VanillaTransformer::refresh_float_weights() {
  std::vector<arma::mat*> src = matrices(w, o_);
  std::vector<arma::fmat*> dst = matrices(wf_, o_);
  for (arma::uword k = 0; k < src.size(); ++k) *dst[k] = arma::conv_to<arma::fmat>::from(*src[k]);
}

// ---------------------------------------------------------------------------
// One post-LayerNorm encoder block. X: d x (B L) -> Y: d x (B Lq); queries
// are the columns c.query_cols of X (all of them, without a copy, when
// query_cols is empty).
template <class T>
void VanillaTransformer::block_forward(const EncoderBlockT<T>& p, EncoderBlockCache<T>& c, const Mat<T>& X,
                                       arma::uword Lq) const {
  const bool all = c.query_cols.empty();
  if (!all) gather_forward(c.Xq, X, c.query_cols);
  const Mat<T>& Xq = all ? X : c.Xq;
  linear_forward(c.Q, Xq, p.Wq, p.bq);
  linear_forward(c.K, X, p.Wk, p.bk);
  linear_forward(c.V, X, p.Wv, p.bv);
  attention_forward(c.O, c.P, c.Q, c.K, c.V, o_.L, Lq);  // softmax(Q K^T / sqrt(d)) V
  if (o_.output_projection)
    linear_forward(c.Z, c.O, p.Wo, p.bo);
  else
    c.Z = c.O;
  c.R1 = Xq + c.Z;  // residual
  layernorm_forward(c.Y1, c.ln1, c.R1, p.ln1_gamma, p.ln1_beta, o_.layernorm_eps);
  linear_forward(c.Hpre, c.Y1, p.W1, p.b1);
  relu_forward(c.H, c.Hpre);
  linear_forward(c.F, c.H, p.W2, p.b2);
  c.R2 = c.Y1 + c.F;  // residual
  layernorm_forward(c.Y, c.ln2, c.R2, p.ln2_gamma, p.ln2_beta, o_.layernorm_eps);
}

// dY: d x (B Lq) -> writes dX (d x (B L)), accumulates the block's gradients g.
template <class T>
void VanillaTransformer::block_backward(const EncoderBlockT<T>& p, EncoderBlockT<T>& block_grads,
                                        EncoderBlockCache<T>& c, const Mat<T>& X, const Mat<T>& dY, Mat<T>& dX,
                                        arma::uword Lq) const {
  layernorm_backward(c.dR2, block_grads.ln2_gamma, block_grads.ln2_beta, dY, c.ln2, p.ln2_gamma, Grad::kOverwrite);
  // forward: R2 = Y1 + F, F = W_2 H + b_2
  c.dY1 = c.dR2;
  c.dH.zeros(arma::size(c.H));
  linear_backward(&c.dH, block_grads.W2, block_grads.b2, c.dR2, c.H, p.W2);
  relu_backward(c.dHpre, c.dH, c.H, Grad::kOverwrite);
  linear_backward(&c.dY1, block_grads.W1, block_grads.b1, c.dHpre, c.Y1, p.W1);
  layernorm_backward(c.dR1, block_grads.ln1_gamma, block_grads.ln1_beta, c.dY1, c.ln1, p.ln1_gamma, Grad::kOverwrite);
  // forward: R1 = Xq + Z, Z = W_o O + b_o
  if (o_.output_projection) {
    c.dO.zeros(arma::size(c.O));
    linear_backward(&c.dO, block_grads.Wo, block_grads.bo, c.dR1, c.O, p.Wo);
  } else {
    c.dO = c.dR1;
  }
  attention_backward(c.dQ, c.dK, c.dV, c.dO, c.P, c.Q, c.K, c.V, o_.L, Lq, Grad::kOverwrite);
  // forward: R1 = Xq + Z, Q = W_q Xq + b_q
  if (c.query_cols.empty()) {  // Xq = X
    dX = c.dR1;
    linear_backward(&dX, block_grads.Wq, block_grads.bq, c.dQ, X, p.Wq);
  } else {
    c.dXq = c.dR1;
    linear_backward(&c.dXq, block_grads.Wq, block_grads.bq, c.dQ, c.Xq, p.Wq);
    dX.zeros(arma::size(X));
    gather_backward(dX, c.dXq, c.query_cols);
  }
  // forward: K = W_k X + b_k, V = W_v X + b_v
  linear_backward(&dX, block_grads.Wk, block_grads.bk, c.dK, X, p.Wk);
  linear_backward(&dX, block_grads.Wv, block_grads.bv, c.dV, X, p.Wv);
}

// ---------------------------------------------------------------------------
template <class T>
double VanillaTransformer::forward(const TransformerWeights<T>& weights, TransformerPass<T>& pass,
                                   const SequenceSet& data, const std::vector<arma::uword>& rows,
                                   const std::vector<int>& masked) const {
  const arma::uword B = rows.size(), L = o_.L, N = weights.blocks.size();
  pass.tokens.resize(B * L);
  pass.targets.resize(B);
  for (arma::uword b = 0; b < B; ++b) {
    const int* s = data.row(rows[b]);
    for (arma::uword j = 0; j < L; ++j) pass.tokens[b * L + j] = s[j];
    pass.tokens[b * L + masked[b]] = int(o_.C);  // the mask token
    pass.targets[b] = s[masked[b]];
  }
  embedding_forward(pass.X0, pass.tokens, weights.W_emb, weights.b_emb, pass.PE, L);
  for (arma::uword n = 0; n < N; ++n) {
    EncoderBlockCache<T>& c = pass.caches[n];
    const bool last = n + 1 == N;
    c.query_cols.clear();  // empty: every position is a query
    if (last)
      for (arma::uword b = 0; b < B; ++b)
        c.query_cols.push_back(b * L + masked[b]);  // only the masked position reaches the read-out
    block_forward(weights.blocks[n], c, n == 0 ? pass.X0 : pass.caches[n - 1].Y, last ? 1 : L);
  }
  const Mat<T>& Y = pass.caches[N - 1].Y;  // d x B, the masked positions
  if (o_.head == "tutorial") {
    linear_forward(pass.Hh_pre, Y, weights.Wh1, weights.bh1);
    layernorm_forward(pass.Hh_ln, pass.lnh, pass.Hh_pre, weights.lnh_gamma, weights.lnh_beta, o_.layernorm_eps);
    relu_forward(pass.Hh, pass.Hh_ln);
    linear_forward(pass.logits, pass.Hh, weights.W_out, weights.b_out);
  } else {
    linear_forward(pass.logits, Y, weights.W_out, weights.b_out);
  }
  return cross_entropy_forward(pass.probs, pass.logits, pass.targets);
}

template <class T>
void VanillaTransformer::backward(const TransformerWeights<T>& weights, TransformerWeights<T>& grads,
                                  TransformerPass<T>& pass) const {
  const arma::uword N = weights.blocks.size();
  Mat<T> dlogits(arma::size(pass.logits), arma::fill::zeros);
  cross_entropy_backward(dlogits, pass.probs, pass.targets, 1.0);
  const Mat<T>& Y = pass.caches[N - 1].Y;
  Mat<T> dY(arma::size(Y), arma::fill::zeros);
  if (o_.head == "tutorial") {
    Mat<T> dHh(arma::size(pass.Hh), arma::fill::zeros), dHln(arma::size(pass.Hh_ln), arma::fill::zeros),
        dHpre(arma::size(pass.Hh_pre), arma::fill::zeros);
    linear_backward(&dHh, grads.W_out, grads.b_out, dlogits, pass.Hh, weights.W_out);
    relu_backward(dHln, dHh, pass.Hh);
    layernorm_backward(dHpre, grads.lnh_gamma, grads.lnh_beta, dHln, pass.lnh, weights.lnh_gamma);
    linear_backward(&dY, grads.Wh1, grads.bh1, dHpre, Y, weights.Wh1);
  } else {
    linear_backward(&dY, grads.W_out, grads.b_out, dlogits, Y, weights.W_out);
  }
  const Mat<T>* dnext = &dY;  // gradient of the current block's output
  for (arma::uword n = N; n-- > 0;) {
    const Mat<T>& X = n == 0 ? pass.X0 : pass.caches[n - 1].Y;
    EncoderBlockCache<T>& c = pass.caches[n];
    block_backward(weights.blocks[n], grads.blocks[n], c, X, *dnext, c.dX, n + 1 == N ? 1 : o_.L);
    dnext = &c.dX;
  }
  embedding_backward(grads.W_emb, grads.b_emb, *dnext, pass.tokens);
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
  if (precision_ == Precision::kDouble) {
    const double loss = forward(w, double_pass_, *batch.data, rows, masked);
    if (want_grad) backward(w, g, double_pass_);
    return loss;
  }
  refresh_float_weights();
  const double loss = forward(wf_, float_pass_, *batch.data, rows, masked);
  if (want_grad) {
    std::vector<arma::fmat*> gf = matrices(gf_, o_);
    for (arma::fmat* m : gf) m->zeros();
    backward(wf_, gf_, float_pass_);
    std::vector<arma::mat*> gd = matrices(g, o_);
    for (arma::uword k = 0; k < gd.size(); ++k) *gd[k] += arma::conv_to<arma::mat>::from(*gf[k]);
  }
  return loss;
}

template <class T>
double VanillaTransformer::evaluate_chunk(const TransformerWeights<T>& weights, TransformerPass<T>& pass,
                                          const SequenceSet& test, const std::vector<arma::uword>& rows,
                                          const std::vector<int>& masked, arma::mat& last, arma::mat& previous) const {
  const arma::uword L = o_.L, N = weights.blocks.size();
  const double loss = forward(weights, pass, test, rows, masked);
  for (arma::uword b = 0; b < rows.size(); ++b) {
    const arma::uword i = masked[b];
    for (arma::uword k = 0; k < L; ++k) {
      last(i, k) += double(pass.caches[N - 1].P(k, b));  // the masked query's attention over the L keys
      if (N >= 2) previous(i, k) += double(pass.caches[N - 2].P(k, b * L + i));
    }
  }
  return loss;
}

Evaluation VanillaTransformer::evaluate(const SequenceSet& test) {
  const arma::uword L = o_.L, N = w.blocks.size();
  arma::mat last(L, L, arma::fill::zeros), previous(L, L, arma::fill::zeros);
  double total = 0.0;
  if (precision_ == Precision::kFloat) refresh_float_weights();
  const arma::uword chunk = 10;  // sequences per pass, each masked at all L positions
  for (arma::uword m0 = 0; m0 < test.M; m0 += chunk) {
    std::vector<arma::uword> rows;
    std::vector<int> masked;
    for (arma::uword m = m0; m < std::min(test.M, m0 + chunk); ++m)
      for (arma::uword i = 0; i < L; ++i) {
        rows.push_back(m);
        masked.push_back(int(i));
      }
    total += precision_ == Precision::kDouble ? evaluate_chunk(w, double_pass_, test, rows, masked, last, previous)
                                              : evaluate_chunk(wf_, float_pass_, test, rows, masked, last, previous);
  }
  Evaluation e;
  e.test_loss = total / double(test.M * L);
  e.attention_map = (N >= 2 ? 0.5 * (last + previous) : last) / double(test.M);
  return e;
}

}  // namespace nn
}  // namespace potts
