// The lib/nn kernels' bits on every CPU: one SHA-256 over the output bits of
// every hand-written kernel (both precisions, the d = L = 20
// specialisations, d = 20 at L = 159 and the general case, at a small and at
// the training batch size, and lib/linalg's gemm and exp at the training
// shapes) on fixed inputs, with the numeric libraries pinned as every stage
// pins them (lib/core/numeric_env.h: glibc's libm without its FMA variants,
// so that the baseline level's fma() runs glibc's software path). Run
// against the library at the CPU's level and at each pinned level
// (tools/isa.bzl), it must print the fingerprint committed in its argument's
// file at every one. After a deliberate change of the kernels' numbers,
// write the new fingerprint there and say why in the commit.
#include <cstdio>
#include <fstream>
#include <cstring>
#include <string>

#include "lib/core/io.h"
#include "lib/core/isa.h"
#include "lib/core/numeric_env.h"
#include "lib/core/rng.h"
#include "lib/nn/layers.h"

using namespace potts;
using namespace potts::nn;

namespace {

std::string bytes;  // everything hashed, in order

template <class T>
void add(const Mat<T>& m) {
  bytes.append(reinterpret_cast<const char*>(m.memptr()), m.n_elem * sizeof(T));
}

template <class T>
Mat<T> random(arma::uword r, arma::uword c, Rng& rng, double scale = 1.0) {
  Mat<T> m(r, c);
  for (auto& x : m) x = T(scale * rng.normal());
  return m;
}

template <class T>
void kernels(arma::uword d, arma::uword L, arma::uword B, std::uint64_t seed) {
  Rng rng(seed, 0);
  const arma::uword n = B * L, C = d;
  std::vector<int> seqs(n), targets(n), tokens(n);
  for (arma::uword k = 0; k < n; ++k) {
    seqs[k] = int(rng.below(C));
    targets[k] = k % 7 == 3 ? -1 : int(rng.below(C));
    tokens[k] = int(rng.below(C + 1));
  }
  // linear, relu, LayerNorm
  Mat<T> X = random<T>(d, n, rng), W = random<T>(d, d, rng, 0.3), b = random<T>(d, 1, rng), Y, dX(d, n), dW(d, d),
         db(d, 1);
  dX.zeros();
  dW.zeros();
  db.zeros();
  linear_forward(Y, X, W, b);
  linear_backward(&dX, dW, db, Y, X, W);
  add(Y), add(dX), add(dW), add(db);
  Mat<T> R, dR;
  relu_forward(R, Y);
  relu_backward(dR, X, R, Grad::kOverwrite);
  add(R), add(dR);
  LayerNormCacheT<T> cache;
  Mat<T> g = random<T>(d, 1, rng), be = random<T>(d, 1, rng), Z, dZ, dg(d, 1), dbe(d, 1);
  dg.zeros();
  dbe.zeros();
  layernorm_forward(Z, cache, X, g, be, 1e-6);
  layernorm_backward(dZ, dg, dbe, Y, cache, g, Grad::kOverwrite);
  add(Z), add(dZ), add(dg), add(dbe);
  // attention, all queries and one query per sequence
  for (arma::uword Lq : {L, arma::uword(1)}) {
    Mat<T> Q = random<T>(d, B * Lq, rng), K = random<T>(d, n, rng), V = random<T>(d, n, rng), O, P, dQ, dK, dV;
    attention_forward(O, P, Q, K, V, L, Lq);
    attention_backward(dQ, dK, dV, O, P, Q, K, V, L, Lq, Grad::kOverwrite);
    add(O), add(P), add(dQ), add(dK), add(dV);
  }
  // embedding, cross-entropy (both layouts), factored attention
  Mat<T> We = random<T>(d, C + 1, rng), PE = random<T>(d, L, rng), E, dWe(d, C + 1), dbe2(d, 1);
  dWe.zeros();
  dbe2.zeros();
  embedding_forward(E, tokens, We, b, PE, L);
  embedding_backward(dWe, dbe2, X, tokens);
  add(E), add(dWe), add(dbe2);
  Mat<T> logits = random<T>(C, n, rng, 3.0), probs, dlogits(C, n), probs_t, dlogits_t(n, C);
  dlogits.zeros();
  dlogits_t.zeros();
  const double l1 = cross_entropy_forward(probs, logits, targets);
  cross_entropy_backward(dlogits, probs, targets, 0.5);
  const Mat<T> logits_t = logits.t();
  const double l2 = cross_entropy_rows_forward(probs_t, logits_t, targets);
  cross_entropy_rows_backward(dlogits_t, probs_t, targets, 0.5);
  add(probs), add(dlogits), add(probs_t), add(dlogits_t);
  bytes.append(reinterpret_cast<const char*>(&l1), sizeof l1);
  bytes.append(reinterpret_cast<const char*>(&l2), sizeof l2);
  Mat<T> A = random<T>(L, L, rng, 0.3), Vc = random<T>(C, C, rng, 0.3), Zt, Ht, dA(L, L), dVc(C, C);
  dA.zeros();
  dVc.zeros();
  factored_attention_forward(Zt, Ht, seqs, A, Vc, L);
  factored_attention_backward(dA, dVc, Zt, Ht, seqs, Vc, L);
  add(Zt), add(Ht), add(dA), add(dVc);
  // the fused kernel (FMA instruction in the default build on an AVX2+FMA
  // machine, glibc's fma() in the baseline build), some rows unused
  if (factored_attention_fused_supports(C)) {
    std::vector<int> fused_targets(seqs.size());
    for (std::size_t k = 0; k < seqs.size(); ++k) fused_targets[k] = k % 3 == 1 ? -1 : seqs[k];
    Mat<T> dAf(L, L, arma::fill::zeros), dVf(C, C, arma::fill::zeros);
    const double lf = factored_attention_fused(seqs, fused_targets, A, Vc, L, &dAf, &dVf);
    add(dAf), add(dVf);
    bytes.append(reinterpret_cast<const char*>(&lf), sizeof lf);
  }
  // exp over the whole range it serves
  Mat<T> e(1, 4000);
  for (arma::uword k = 0; k < e.n_elem; ++k) e(k) = T(-700.0 * double(k) / double(e.n_elem));
  exp_nonpositive(e.memptr(), e.n_elem);
  add(e);
}

// gemm in the four transpose combinations at the shapes of one training
// batch (d = 20, feed-forward width 40, 100 sequences x 20 tokens = 2000
// columns; k = 2000 for weight gradients, sliced), a few odd ones, and the
// three kinds of update (C = s, C += s, C = alpha s + beta C).
template <class T>
void gemms(std::uint64_t seed) {
  Rng rng(seed, 1);
  const arma::uword shapes[][3] = {{20, 2000, 20}, {40, 2000, 20}, {20, 2000, 40}, {20, 20, 2000}, {40, 20, 2000},
                                   {20, 40, 2000}, {2000, 20, 20}, {20, 100, 20},  {17, 33, 3},    {3, 17, 300}};
  const T alpha_beta[][2] = {{1, 0}, {1, 1}, {T(0.5), T(-1.5)}};
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const auto& s : shapes)
        for (const auto& ab : alpha_beta) {
          const arma::uword m = s[0], n = s[1], k = s[2];
          const Mat<T> A = random<T>(ta ? k : m, ta ? m : k, rng), B = random<T>(tb ? n : k, tb ? k : n, rng);
          Mat<T> C = random<T>(m, n, rng);
          gemm(ta, tb, m, n, k, ab[0], A.memptr(), A.n_rows, B.memptr(), B.n_rows, ab[1], C.memptr(), m);
          add(C);
        }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s GOLDEN_FILE\n", argv[0]);
    return 2;
  }
  pin_numeric_environment(argv);
  kernels<double>(20, 20, 7, 1);
  kernels<float>(20, 20, 7, 2);
  kernels<double>(6, 5, 3, 3);  // the general (not specialised) kernels
  kernels<float>(6, 5, 3, 4);
  kernels<double>(8, 5, 3, 9);  // the fused factored kernel at another vector count
  kernels<float>(8, 5, 3, 10);
  kernels<double>(20, 20, 100, 5);  // a training batch: 2000 tokens
  kernels<float>(20, 20, 100, 6);
  kernels<double>(20, 159, 2, 11);  // d = 20 at the protein family's length
  kernels<float>(20, 159, 2, 12);
  kernels<double>(6, 37, 3, 13);  // the general kernels past a key block
  kernels<float>(6, 37, 3, 14);
  gemms<double>(7);
  gemms<float>(8);
  const std::string got = sha256_text(bytes);
  std::string golden;
  std::ifstream(argv[1]) >> golden;
  std::printf("level %s: fingerprint %s, committed %s\n", isa_name(isa_level()), got.c_str(), golden.c_str());
  if (got != golden) {
    std::printf("FAIL: the kernels' bits differ from the committed fingerprint (%s)\n", argv[1]);
    return 1;
  }
  return 0;
}
