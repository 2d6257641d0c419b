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

// First pair index of row i: pairs (i, j), j > i, are first_pair(i) + j - i - 1.
arma::uword first_pair(arma::uword i, arma::uword L) { return pair_index(i, i + 1, L); }

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

// to = from, element by element, into to's own memory (kept between steps).
template <class S, class T>
void convert(const arma::Mat<S>& from, arma::Mat<T>& to) {
  to.set_size(from.n_rows, from.n_cols);
  const S* f = from.memptr();
  T* t = to.memptr();
  parallel_ranges(from.n_elem, [&](std::size_t e0, std::size_t e1) {
    for (std::size_t e = e0; e < e1; ++e) t[e] = T(f[e]);
  }, 1 << 16);
}

}  // namespace

void attention_potts_couplings(const AttentionPottsSpec& s, const arma::vec& x, AttentionPottsWorkspace& ws) {
  s.check();
  if (x.n_elem != s.parameter_count())
    throw StageError("attention_potts: " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(s.parameter_count()));
  const arma::uword L = s.L, A = s.A, H = s.heads, A2 = A * A, P = s.pairs();
  attention_maps(s, x, ws);
  ws.vop.set_size(A2, 2 * H);
  const double* v = x.memptr() + s.v_offset();
  for (arma::uword h = 0; h < H; ++h)
    for (arma::uword b = 0; b < A; ++b)
      for (arma::uword a = 0; a < A; ++a) {
        ws.vop(a + A * b, h) = v[h * A2 + a + A * b];
        ws.vop(a + A * b, H + h) = v[h * A2 + b + A * a];
      }
  ws.bop_t.set_size(P, 2 * H);
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    for (arma::uword h = h0; h < h1; ++h) {
      double* ij = ws.bop_t.colptr(h);
      double* ji = ws.bop_t.colptr(H + h);
      for (arma::uword i = 0; i + 1 < L; ++i) {
        const arma::uword p0 = first_pair(i, L) - i - 1;
        const double* row = ws.att.colptr(i + L * h);  // A^h_ij over j
        for (arma::uword j = i + 1; j < L; ++j) ij[p0 + j] = 0.5 * row[j];
      }
      for (arma::uword j = 1; j < L; ++j) {
        const double* row = ws.att.colptr(j + L * h);  // A^h_ji over i
        for (arma::uword i = 0; i < j; ++i) ji[first_pair(i, L) + j - i - 1] = 0.5 * row[i];
      }
    }
  });
  ws.ws.set_size(A2, P);
  if (!s.float_products) {
    dense_product(false, true, A2, P, 2 * H, ws.vop.memptr(), A2, ws.bop_t.memptr(), P, ws.ws.memptr(), A2);
    return;
  }
  convert(ws.vop, ws.vop_f);
  convert(ws.bop_t, ws.bop_t_f);
  ws.ws_f.set_size(A2, P);
  dense_product(false, true, A2, P, 2 * H, ws.vop_f.memptr(), A2, ws.bop_t_f.memptr(), P, ws.ws_f.memptr(), A2);
  convert(ws.ws_f, ws.ws);
}

double attention_potts_loss(const AttentionPottsSpec& s, const arma::vec& x, const arma::imat& batch,
                            const AttentionPottsPenalty& penalty, arma::vec* grad, AttentionPottsWorkspace& ws) {
  const arma::uword L = s.L, A = s.A, H = s.heads, d = s.head_dim, A2 = A * A, P = s.pairs();
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
  // Penalty: ||W||_F^2 = 2 sum_p ||Ws_p||^2 (both ordered pairs).
  ws.col_sq.resize(P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      const double* w = ws.ws.colptr(p);
      double s2 = 0.0;
      for (arma::uword e = 0; e < A2; ++e) s2 += w[e] * w[e];
      ws.col_sq[p] = s2;
    }
  });
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
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      double* dw = ws.dws.colptr(p);
      const double* w = ws.ws.colptr(p);
      for (arma::uword e = 0; e < A2; ++e) dw[e] += gw * w[e];
    }
  });
  // Through Ws = Vop Bop.
  if (!s.float_products) {
    ws.dvop.set_size(A2, 2 * H);
    dense_product(false, false, A2, 2 * H, P, ws.dws.memptr(), A2, ws.bop_t.memptr(), P, ws.dvop.memptr(), A2);
    ws.dbop_t.set_size(P, 2 * H);
    dense_product(true, false, P, 2 * H, A2, ws.dws.memptr(), A2, ws.vop.memptr(), A2, ws.dbop_t.memptr(), P);
  } else {
    convert(ws.dws, ws.dws_f);
    ws.dvop_f.set_size(A2, 2 * H);
    dense_product(false, false, A2, 2 * H, P, ws.dws_f.memptr(), A2, ws.bop_t_f.memptr(), P, ws.dvop_f.memptr(), A2);
    ws.dbop_t_f.set_size(P, 2 * H);
    dense_product(true, false, P, 2 * H, A2, ws.dws_f.memptr(), A2, ws.vop_f.memptr(), A2, ws.dbop_t_f.memptr(), P);
    convert(ws.dvop_f, ws.dvop);
    convert(ws.dbop_t_f, ws.dbop_t);
  }
  double* gv = g + s.v_offset();
  for (arma::uword h = 0; h < H; ++h)
    for (arma::uword c = 0; c < A; ++c)
      for (arma::uword a = 0; a < A; ++a) gv[h * A2 + a + A * c] = ws.dvop(a + A * c, h) + ws.dvop(c + A * a, H + h);
  // Through the softmax of each query row, then St = K^T Q / sqrt(d).
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    thread_local arma::mat dst;
    dst.set_size(L, L);
    for (arma::uword h = h0; h < h1; ++h) {
      const double* dij = ws.dbop_t.colptr(h);
      const double* dji = ws.dbop_t.colptr(H + h);
      for (arma::uword i = 0; i + 1 < L; ++i) {
        const arma::uword p0 = first_pair(i, L) - i - 1;
        for (arma::uword j = i + 1; j < L; ++j) dst(j, i) = 0.5 * dij[p0 + j];
      }
      for (arma::uword j = 1; j < L; ++j)
        for (arma::uword i = 0; i < j; ++i) dst(i, j) = 0.5 * dji[first_pair(i, L) + j - i - 1];
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
  arma::mat F(s.L, s.L, arma::fill::zeros);
  for (arma::uword i = 0; i + 1 < s.L; ++i)
    for (arma::uword j = i + 1; j < s.L; ++j) {
      const double* w = ws.ws.colptr(first_pair(i, s.L) + j - i - 1);
      double s2 = 0.0;
      for (arma::uword e = 0; e < s.A * s.A; ++e) s2 += w[e] * w[e];
      // ||W_ij||_F of the symmetric W (both ordered blocks have this norm).
      F(i, j) = F(j, i) = std::sqrt(s2);
    }
  return F;
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
  // The loss without penalty of all sequences as one batch is CE / M; the
  // mean over targets needs T, counted here.
  AttentionPottsWorkspace ws;
  const AttentionPottsPenalty none;
  const double per_sequence = attention_potts_loss(spec, x, sequences, none, nullptr, ws);
  const arma::uword T = arma::accu(sequences < arma::sword(spec.A));
  return T == 0 ? 0.0 : per_sequence * double(sequences.n_rows) / double(T);
}

}  // namespace potts
