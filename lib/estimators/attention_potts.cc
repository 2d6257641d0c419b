// Factored attention in the observation's protocol (attention_potts.h, eq. O1).
#include "lib/estimators/attention_potts.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/estimators/dense_product.h"
#include "lib/estimators/pad_data_term.h"
#include "lib/nn/layers.h"

namespace potts {

void AttentionPottsSpec::check() const {
  if (L < 2) throw StageError("attention_potts: L = " + std::to_string(L) + ": expected at least 2 sites");
  if (A < 2) throw StageError("attention_potts: A = " + std::to_string(A) + ": expected at least 2 states");
  if (heads < 1) throw StageError("attention_potts: heads: expected at least 1");
  if (head_dim < 1) throw StageError("attention_potts: head_dim: expected at least 1");
}

namespace {

// The attention maps of every head into ws.att: column i + L h holds
// A^h_ij over j (the transpose of head h's map; zero at j = i).
void attention_maps(const AttentionPottsSpec& s, const arma::vec& x, AttentionPottsWorkspace& ws) {
  const arma::uword L = s.L, d = s.head_dim;
  ws.att.set_size(L, L * s.heads);
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(s.heads, [&](std::size_t h0, std::size_t h1) {
    for (arma::uword h = h0; h < h1; ++h) {
      const double* q = x.memptr() + s.q_offset() + h * d * L;
      const double* k = x.memptr() + s.k_offset() + h * d * L;
      double* st = ws.att.colptr(h * L);  // St(j, i) = q_i . k_j / sqrt(d)
      dense_product(true, false, L, L, d, k, d, q, d, st, L);
      for (arma::uword e = 0; e < L * L; ++e) st[e] *= scale;
      for (arma::uword i = 0; i < L; ++i) {
        double* col = st + i * L;
        double mx = -HUGE_VAL;
        for (arma::uword j = 0; j < L; ++j)
          if (j != i) mx = std::max(mx, col[j]);
        for (arma::uword j = 0; j < L; ++j) col[j] = j == i ? 0.0 : col[j] - mx;
        nn::exp_nonpositive(col, L);
        col[i] = 0.0;
        double sum = 0.0;
        for (arma::uword j = 0; j < L; ++j) sum += col[j];
        const double inv = 1.0 / sum;
        for (arma::uword j = 0; j < L; ++j) col[j] *= inv;
      }
    }
  });
}

// The symmetric and antisymmetric parts of an A x A block, by index: the
// entries (a, b) with a <= b (u = 0 .. A(A+1)/2 - 1) and with a < b
// (k = 0 .. A(A-1)/2 - 1), each column b after column b - 1.
struct BlockParts {
  std::vector<arma::uword> sym_a, sym_b, anti_a, anti_b;
  std::vector<arma::uword> sym_of, anti_of;  // (a + A b) -> u of (min, max); k of (min, max) when a != b
  explicit BlockParts(arma::uword A) : sym_of(A * A), anti_of(A * A) {
    for (arma::uword b = 0; b < A; ++b)
      for (arma::uword a = 0; a <= b; ++a) {
        sym_of[a + A * b] = sym_of[b + A * a] = sym_a.size();
        sym_a.push_back(a);
        sym_b.push_back(b);
        if (a == b) continue;
        anti_of[a + A * b] = anti_of[b + A * a] = anti_a.size();
        anti_a.push_back(a);
        anti_b.push_back(b);
      }
  }
};

// The operands of eq. P1 (attention_potts.h) in T: Sop (S x H), Kop (K x H)
// from V, and Bplus^T, Bminus^T (P x H) from the maps; each entry computed
// in double, then rounded to T.
template <class T>
void fill_operands(const AttentionPottsSpec& s, const arma::vec& x, const BlockParts& parts,
                   const AttentionPottsWorkspace& ws, AttentionProducts<T>& pr) {
  const arma::uword L = s.L, A = s.A, H = s.heads, A2 = A * A, P = s.pairs();
  const arma::uword S = parts.sym_a.size(), K = parts.anti_a.size();
  const double* v = x.memptr() + s.v_offset();
  pr.sop.set_size(S, H);
  pr.kop.set_size(K, H);
  for (arma::uword h = 0; h < H; ++h) {
    const double* vh = v + h * A2;
    for (arma::uword u = 0; u < S; ++u) {
      const arma::uword a = parts.sym_a[u], b = parts.sym_b[u];
      pr.sop(u, h) = T(0.5 * (vh[a + A * b] + vh[b + A * a]));
    }
    for (arma::uword k = 0; k < K; ++k) {
      const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];
      pr.kop(k, h) = T(0.5 * (vh[a + A * b] - vh[b + A * a]));
    }
  }
  pr.bp_t.set_size(P, H);
  pr.bm_t.set_size(P, H);
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    std::vector<double> aij(P);  // A^h_ij by pair, read along the maps' columns
    for (arma::uword h = h0; h < h1; ++h) {
      T* plus = pr.bp_t.colptr(h);
      T* minus = pr.bm_t.colptr(h);
      for (arma::uword i = 0; i + 1 < L; ++i) {
        const double* row = ws.att.colptr(i + L * h);  // A^h_ij over j
        std::copy(row + i + 1, row + L, aij.begin() + pair_index(i, i + 1, L));
      }
      for (arma::uword j = 1; j < L; ++j) {
        const double* col = ws.att.colptr(j + L * h);  // A^h_ji over i
        for (arma::uword i = 0; i < j; ++i) {
          const arma::uword p = pair_index(i, j, L);
          plus[p] = T(0.5 * (aij[p] + col[i]));
          minus[p] = T(0.5 * (aij[p] - col[i]));
        }
      }
    }
  });
}

// Eq. P1's two products, then each block Ws_p assembled in double from its
// parts: Ws_p(a, b) = Wsym(u) + Wanti(k) for a < b, Wsym(u) - Wanti(k) for
// a > b, Wsym(u) on the diagonal.
template <class T>
void form_couplings(const AttentionPottsSpec& s, const BlockParts& parts, AttentionProducts<T>& pr, arma::mat& wsb,
                    std::vector<double>& col_sq) {
  const arma::uword A = s.A, H = s.heads, A2 = A * A, P = s.pairs();
  const arma::uword S = parts.sym_a.size(), K = parts.anti_a.size();
  pr.wsym.set_size(S, P);
  pr.want.set_size(K, P);
  dense_product(false, true, S, P, H, pr.sop.memptr(), S, pr.bp_t.memptr(), P, pr.wsym.memptr(), S);
  dense_product(false, true, K, P, H, pr.kop.memptr(), K, pr.bm_t.memptr(), P, pr.want.memptr(), K);
  wsb.set_size(A2, P);
  col_sq.resize(P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      const T* ws_ = pr.wsym.colptr(p);
      const T* wa = pr.want.colptr(p);
      double* w = wsb.colptr(p);
      for (arma::uword b = 0; b < A; ++b)
        for (arma::uword a = 0; a < A; ++a) {
          const double sym = double(ws_[parts.sym_of[a + A * b]]);
          w[a + A * b] = a == b ? sym
                         : a < b ? sym + double(wa[parts.anti_of[a + A * b]])
                                 : sym - double(wa[parts.anti_of[a + A * b]]);
        }
      // ||Ws_p||^2, for the penalty, while the block is in cache.
      double s2 = 0.0;
      for (arma::uword e = 0; e < A2; ++e) s2 += w[e] * w[e];
      col_sq[p] = s2;
    }
  });
}

// The gradient through eq. P1: dWs + gw Ws (the data term's gradient and the
// penalty's, in double) split into its parts' shares (rounded to T), the
// four products, then the shares of V and of the maps
// in double: dV(a, b) = dSop(u) / 2 + dKop(k) / 2 and dV(b, a) = dSop(u) / 2
// - dKop(k) / 2 for a < b, dV(a, a) = dSop(u); dA_ij = (dBplus + dBminus) / 2,
// dA_ji = (dBplus - dBminus) / 2. dmaps(p, h) and dmaps(p, H + h) receive
// dA^h_ij and dA^h_ji of pair p.
template <class T>
void product_gradient(const AttentionPottsSpec& s, const BlockParts& parts, const arma::mat& wsb, double gw,
                      arma::mat& dws, AttentionProducts<T>& pr, double* gv, arma::mat& dmaps) {
  const arma::uword A = s.A, H = s.heads, A2 = A * A, P = s.pairs();
  const arma::uword S = parts.sym_a.size(), K = parts.anti_a.size();
  pr.gsym.set_size(S, P);
  pr.gant.set_size(K, P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      double* g = dws.colptr(p);
      const double* w = wsb.colptr(p);
      for (arma::uword e = 0; e < A2; ++e) g[e] += gw * w[e];
      T* gs = pr.gsym.colptr(p);
      T* ga = pr.gant.colptr(p);
      for (arma::uword u = 0; u < S; ++u) {
        const arma::uword a = parts.sym_a[u], b = parts.sym_b[u];
        gs[u] = T(a == b ? g[a + A * a] : g[a + A * b] + g[b + A * a]);
      }
      for (arma::uword k = 0; k < K; ++k) {
        const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];
        ga[k] = T(g[a + A * b] - g[b + A * a]);
      }
    }
  });
  pr.dsop.set_size(S, H);
  pr.dkop.set_size(K, H);
  pr.dbp_t.set_size(P, H);
  pr.dbm_t.set_size(P, H);
  dense_product(false, false, S, H, P, pr.gsym.memptr(), S, pr.bp_t.memptr(), P, pr.dsop.memptr(), S);
  dense_product(false, false, K, H, P, pr.gant.memptr(), K, pr.bm_t.memptr(), P, pr.dkop.memptr(), K);
  dense_product(true, false, P, H, S, pr.gsym.memptr(), S, pr.sop.memptr(), S, pr.dbp_t.memptr(), P);
  dense_product(true, false, P, H, K, pr.gant.memptr(), K, pr.kop.memptr(), K, pr.dbm_t.memptr(), P);
  for (arma::uword h = 0; h < H; ++h) {
    double* gvh = gv + h * A2;
    for (arma::uword u = 0; u < S; ++u) {
      const arma::uword a = parts.sym_a[u], b = parts.sym_b[u];
      const double ds = double(pr.dsop(u, h));
      if (a == b) {
        gvh[a + A * a] = ds;
        continue;
      }
      const double dk = double(pr.dkop(parts.anti_of[a + A * b], h));
      gvh[a + A * b] = 0.5 * ds + 0.5 * dk;
      gvh[b + A * a] = 0.5 * ds - 0.5 * dk;
    }
  }
  dmaps.set_size(P, 2 * H);
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    for (arma::uword h = h0; h < h1; ++h)
      for (arma::uword p = 0; p < P; ++p) {
        const double dp = double(pr.dbp_t(p, h)), dm = double(pr.dbm_t(p, h));
        dmaps(p, h) = 0.5 * (dp + dm);
        dmaps(p, H + h) = 0.5 * (dp - dm);
      }
  });
}

}  // namespace

void attention_potts_couplings(const AttentionPottsSpec& s, const arma::vec& x, AttentionPottsWorkspace& ws) {
  s.check();
  if (x.n_elem != s.parameter_count())
    throw StageError("attention_potts: " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(s.parameter_count()));
  attention_maps(s, x, ws);
  const BlockParts parts(s.A);
  if (s.float_products) {
    fill_operands(s, x, parts, ws, ws.pf);
    form_couplings(s, parts, ws.pf, ws.ws, ws.col_sq);
  } else {
    fill_operands(s, x, parts, ws, ws.pd);
    form_couplings(s, parts, ws.pd, ws.ws, ws.col_sq);
  }
}

double attention_potts_loss(const AttentionPottsSpec& s, const arma::vec& x, const arma::imat& batch,
                            const AttentionPottsPenalty& penalty, arma::vec* grad, AttentionPottsWorkspace& ws) {
  const arma::uword L = s.L, A = s.A, H = s.heads, d = s.head_dim;
  const arma::uword B = batch.n_rows;
  if (B == 0 || batch.n_cols != L)
    throw StageError("attention_potts: a batch of " + std::to_string(B) + " x " + std::to_string(batch.n_cols) +
                     " states, expected at least one sequence of " + std::to_string(L));
  if (batch.min() < 0) throw StageError("attention_potts: a negative state in the batch");
  if (penalty.family_size < 1) throw StageError("attention_potts: family_size: expected at least 1");
  attention_potts_couplings(s, x, ws);
  const double* b = x.memptr();
  // The data term (pad_data_term.h), its residuals scaled by 1 / B.
  if (grad != nullptr) grad->set_size(s.parameter_count());  // every entry is written below
  arma::uword T = 0;
  const double ce = pad_data_term(L, A, ws.ws, b, batch, 1.0 / double(B), ws.data, &T,
                                  grad != nullptr ? &ws.dws : nullptr, grad != nullptr ? grad->memptr() : nullptr);
  // Penalty: ||W||_F^2 = 2 sum_p ||Ws_p||^2 (both ordered pairs; the
  // blocks' squares from attention_potts_couplings).
  double ws2 = 0.0;
  for (double c : ws.col_sq) ws2 += c;
  double b2 = 0.0;
  for (arma::uword e = 0; e < A * L; ++e) b2 += b[e] * b[e];
  const double norm_w = std::sqrt(2.0 * ws2), norm_b = std::sqrt(b2);
  const double c_w = penalty.lambda * double(L - 1) * double(A - 1) / double(penalty.family_size);
  const double c_b = penalty.lambda / double(penalty.family_size);
  const double tb = double(T) / double(B);
  const double loss = ce / double(B) + tb * (c_w * norm_w + c_b * norm_b);
  if (grad == nullptr) return loss;

  double* g = grad->memptr();
  // The penalty's shares: b / ||b|| on the fields, 2 Ws_p / ||W|| on each block.
  const double gb = norm_b > 0.0 ? tb * c_b / norm_b : 0.0;
  for (arma::uword e = 0; e < A * L; ++e) g[e] += gb * b[e];
  const double gw = norm_w > 0.0 ? 2.0 * tb * c_w / norm_w : 0.0;
  // Through eq. P1 to V and to the maps, the penalty's share of each block
  // joining the data term's on the way.
  const BlockParts parts(A);
  if (s.float_products)
    product_gradient(s, parts, ws.ws, gw, ws.dws, ws.pf, g + s.v_offset(), ws.dmaps);
  else
    product_gradient(s, parts, ws.ws, gw, ws.dws, ws.pd, g + s.v_offset(), ws.dmaps);
  // Through the softmax of each query row, then St = K^T Q / sqrt(d).
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    thread_local arma::mat dst;
    dst.set_size(L, L);
    for (arma::uword h = h0; h < h1; ++h) {
      const double* dij = ws.dmaps.colptr(h);
      const double* dji = ws.dmaps.colptr(H + h);
      for (arma::uword i = 0; i + 1 < L; ++i)
        for (arma::uword j = i + 1; j < L; ++j) {
          const arma::uword p = pair_index(i, j, L);
          dst(j, i) = dij[p];
          dst(i, j) = dji[p];
        }
      for (arma::uword i = 0; i < L; ++i) {
        const double* att = ws.att.colptr(i + L * h);
        double* col = dst.colptr(i);
        col[i] = 0.0;
        double dot = 0.0;
        for (arma::uword j = 0; j < L; ++j) dot += att[j] * col[j];
        for (arma::uword j = 0; j < L; ++j) col[j] = att[j] * (col[j] - dot);
      }
      const double* q = x.memptr() + s.q_offset() + h * d * L;
      const double* k = x.memptr() + s.k_offset() + h * d * L;
      double* gq = g + s.q_offset() + h * d * L;
      double* gk = g + s.k_offset() + h * d * L;
      dense_product(false, false, d, L, L, k, d, dst.memptr(), L, gq, d);
      dense_product(false, true, d, L, L, q, d, dst.memptr(), L, gk, d);
      for (arma::uword e = 0; e < d * L; ++e) {
        gq[e] *= scale;
        gk[e] *= scale;
      }
    }
  });
  return loss;
}

arma::mat attention_potts_block_norms(const AttentionPottsSpec& s, const arma::vec& x) {
  AttentionPottsWorkspace ws;
  attention_potts_couplings(s, x, ws);
  return pair_block_norms(s.L, s.A, ws.ws);
}

double attention_potts_median_row_max(const AttentionPottsSpec& s, const arma::vec& x) {
  AttentionPottsWorkspace ws;
  s.check();
  attention_maps(s, x, ws);
  std::vector<double> row_max(ws.att.n_cols);
  for (arma::uword c = 0; c < ws.att.n_cols; ++c) row_max[c] = ws.att.col(c).max();
  std::sort(row_max.begin(), row_max.end());
  const std::size_t m = row_max.size();
  return m % 2 ? row_max[m / 2] : 0.5 * (row_max[m / 2 - 1] + row_max[m / 2]);
}

arma::vec attention_potts_start(const AttentionPottsSpec& s, const arma::imat& sequences, double lambda,
                                std::uint64_t seed) {
  s.check();
  if (sequences.n_rows == 0 || sequences.n_cols != s.L)
    throw StageError("attention_potts: start from " + std::to_string(sequences.n_rows) + " x " +
                     std::to_string(sequences.n_cols) + " sequences, expected M >= 1 rows of " + std::to_string(s.L));
  if (!(lambda >= 0.0)) throw StageError("attention_potts: lambda: expected a non-negative number");
  arma::vec x(s.parameter_count());
  // Fields: log(n_i(a) + lambda log N), centred over a.
  const double pseudo = lambda * std::log(double(sequences.n_rows));
  for (arma::uword i = 0; i < s.L; ++i) {
    std::vector<double> n(s.A, 0.0);
    for (arma::uword m = 0; m < sequences.n_rows; ++m) {
      const arma::sword t = sequences(m, i);
      if (t >= 0 && arma::uword(t) < s.A) n[arma::uword(t)] += 1.0;
    }
    double mean = 0.0;
    for (arma::uword a = 0; a < s.A; ++a) {
      n[a] = std::log(n[a] + pseudo);
      mean += n[a];
    }
    mean /= double(s.A);
    for (arma::uword a = 0; a < s.A; ++a) x(a + s.A * i) = n[a] - mean;
  }
  Rng rng(seed, streams::kInit);
  const double dd = double(s.head_dim), HH = double(s.heads), LL = double(s.L), AA = double(s.A);
  const double a_qk = std::sqrt(6.0 / (HH * dd + LL * dd));
  const double a_v = std::sqrt(6.0 / (AA * AA + HH * AA));
  for (arma::uword e = s.q_offset(); e < s.v_offset(); ++e) x(e) = a_qk * (2.0 * rng.uniform() - 1.0);
  for (arma::uword e = s.v_offset(); e < x.n_elem; ++e) x(e) = a_v * (2.0 * rng.uniform() - 1.0);
  return x;
}

AttentionPottsFit fit_attention_potts(const AttentionPottsSpec& spec, const arma::imat& sequences,
                                      const AttentionPottsPenalty& penalty, const AttentionPottsFitOptions& options,
                                      std::uint64_t seed) {
  spec.check();
  if (options.steps < 1) throw StageError("attention_potts: steps: expected at least 1");
  AttentionPottsFit fit;
  fit.x = attention_potts_start(spec, sequences, penalty.lambda, seed);
  Adamw opt(fit.x.n_elem, options.adamw);
  BatchStream batches(sequences.n_rows, options.batch_size, seed);
  AttentionPottsWorkspace ws;
  arma::vec g;
  for (long t = 1; t <= options.steps; ++t) {
    const arma::uvec rows = batches.next();
    const double f = attention_potts_loss(spec, fit.x, sequences.rows(rows), penalty, &g, ws);
    if (!std::isfinite(f) || !g.is_finite())
      throw StageError("attention_potts: the fit diverged at step " + std::to_string(t) + " (loss " +
                       std::to_string(f) + "); no result is written");
    opt.step(fit.x, g);
    if (options.on_step) options.on_step(t, f);
  }
  fit.steps = options.steps;
  fit.epochs = batches.epoch();
  return fit;
}

double attention_potts_mean_loss(const AttentionPottsSpec& spec, const arma::vec& x, const arma::imat& sequences) {
  AttentionPottsWorkspace ws;
  attention_potts_couplings(spec, x, ws);
  arma::uword T = 0;
  const double ce = pad_data_term(spec.L, spec.A, ws.ws, x.memptr(), sequences, 1.0, ws.data, &T, nullptr, nullptr);
  return T == 0 ? 0.0 : ce / double(T);
}

}  // namespace potts
