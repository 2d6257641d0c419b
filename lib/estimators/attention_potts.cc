// Factored attention in the observation's protocol (attention_potts.h, eq. O1).
#include "lib/estimators/attention_potts.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
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
arma::uword first_pair(arma::uword i, arma::uword L) { return i * L - i * (i + 1) / 2; }

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
      nn::gemm(true, false, L, L, d, scale, k, d, q, d, 0.0, st, L);
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
  ws.bop.set_size(2 * H, P);
  parallel_ranges(L - 1, [&](std::size_t i0, std::size_t i1) {
    for (arma::uword i = i0; i < i1; ++i)
      for (arma::uword j = i + 1; j < L; ++j) {
        double* col = ws.bop.colptr(first_pair(i, L) + j - i - 1);
        for (arma::uword h = 0; h < H; ++h) {
          col[h] = 0.5 * ws.att(j, i + L * h);
          col[H + h] = 0.5 * ws.att(i, j + L * h);
        }
      }
  });
  ws.ws.set_size(A2, P);
  nn::gemm(false, false, A2, P, 2 * H, 1.0, ws.vop.memptr(), A2, ws.bop.memptr(), 2 * H, 0.0, ws.ws.memptr(), A2);
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
  auto state = [&](arma::uword n, arma::uword i) { return arma::uword(batch(n, i)); };

  // Logits z(a, n + B i) = b_i(a) + sum_{j != i, s_j not a pad} W_ij(a, s_j),
  // the pairs in order (ascending j for every i), blocks of pairs so that a
  // block of Ws is read once per range of sequences.
  ws.logits.set_size(A, B * L);
  const arma::uword block = 64;
  parallel_ranges(B, [&](std::size_t n0, std::size_t n1) {
    for (arma::uword n = n0; n < n1; ++n)
      for (arma::uword i = 0; i < L; ++i)
        for (arma::uword a = 0; a < A; ++a) ws.logits(a, n + B * i) = b[a + A * i];
    for (arma::uword i = 0; i + 1 < L; ++i)
      for (arma::uword j0 = i + 1; j0 < L; j0 += block) {
        const arma::uword j1 = std::min(L, j0 + block);
        for (arma::uword n = n0; n < n1; ++n) {
          const arma::uword si = state(n, i);
          double* zi = ws.logits.colptr(n + B * i);
          for (arma::uword j = j0; j < j1; ++j) {
            const double* w = ws.ws.colptr(first_pair(i, L) + j - i - 1);
            const arma::uword sj = state(n, j);
            if (sj < A)
              for (arma::uword a = 0; a < A; ++a) zi[a] += w[a + A * sj];
            if (si < A) {
              double* zj = ws.logits.colptr(n + B * j);
              for (arma::uword c = 0; c < A; ++c) zj[c] += w[si + A * c];
            }
          }
        }
      }
  });
  // Cross-entropy of each non-pad target; the logits become the residuals
  // (softmax - one-hot) / B, zero at pads.
  std::vector<double> seq_loss(B, 0.0);
  std::vector<arma::uword> seq_targets(B, 0);
  parallel_ranges(B, [&](std::size_t n0, std::size_t n1) {
    std::vector<double> e(A);
    for (arma::uword n = n0; n < n1; ++n)
      for (arma::uword i = 0; i < L; ++i) {
        double* z = ws.logits.colptr(n + B * i);
        const arma::uword t = state(n, i);
        if (t >= A) {
          std::fill(z, z + A, 0.0);
          continue;
        }
        double mx = z[0];
        for (arma::uword a = 1; a < A; ++a) mx = std::max(mx, z[a]);
        for (arma::uword a = 0; a < A; ++a) e[a] = z[a] - mx;
        nn::exp_nonpositive(e.data(), A);
        double sum = 0.0;
        for (arma::uword a = 0; a < A; ++a) sum += e[a];
        seq_loss[n] += mx + std::log(sum) - z[t];
        seq_targets[n] += 1;
        const double inv = 1.0 / sum;
        for (arma::uword a = 0; a < A; ++a) z[a] = e[a] * inv / double(B);
        z[t] -= 1.0 / double(B);
      }
  });
  double ce = 0.0;
  arma::uword T = 0;
  for (arma::uword n = 0; n < B; ++n) {
    ce += seq_loss[n];
    T += seq_targets[n];
  }
  // Penalty: ||W||_F^2 = 2 sum_p ||Ws_p||^2 (both ordered pairs).
  std::vector<double> col_sq(P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      const double* w = ws.ws.colptr(p);
      double s2 = 0.0;
      for (arma::uword e = 0; e < A2; ++e) s2 += w[e] * w[e];
      col_sq[p] = s2;
    }
  });
  double ws2 = 0.0;
  for (double c : col_sq) ws2 += c;
  double b2 = 0.0;
  for (arma::uword e = 0; e < A * L; ++e) b2 += b[e] * b[e];
  const double norm_w = std::sqrt(2.0 * ws2), norm_b = std::sqrt(b2);
  const double c_w = penalty.lambda * double(L - 1) * double(A - 1) / double(penalty.family_size);
  const double c_b = penalty.lambda / double(penalty.family_size);
  const double tb = double(T) / double(B);
  const double loss = ce / double(B) + tb * (c_w * norm_w + c_b * norm_b);
  if (grad == nullptr) return loss;

  grad->zeros(s.parameter_count());
  double* g = grad->memptr();
  // Fields: the residuals summed over the batch, then the penalty's.
  const double gb = norm_b > 0.0 ? tb * c_b / norm_b : 0.0;
  parallel_ranges(L, [&](std::size_t i0, std::size_t i1) {
    for (arma::uword i = i0; i < i1; ++i)
      for (arma::uword a = 0; a < A; ++a) {
        double acc = 0.0;
        for (arma::uword n = 0; n < B; ++n) acc += ws.logits(a, n + B * i);
        g[a + A * i] = acc + gb * b[a + A * i];
      }
  });
  // dWs_p(a, b) = sum_n [r_i(a) 1(s_j = b) + r_j(b) 1(s_i = a)] + the penalty's
  // 2 c_W T / B Ws_p / ||W||, each pair's block summed over n in batch order.
  const double gw = norm_w > 0.0 ? 2.0 * tb * c_w / norm_w : 0.0;
  ws.dws.set_size(A2, P);
  parallel_ranges(L - 1, [&](std::size_t i0, std::size_t i1) {
    for (arma::uword i = i0; i < i1; ++i)
      for (arma::uword j = i + 1; j < L; ++j) {
        const arma::uword p = first_pair(i, L) + j - i - 1;
        double* dw = ws.dws.colptr(p);
        std::fill(dw, dw + A2, 0.0);
        for (arma::uword n = 0; n < B; ++n) {
          const arma::uword si = state(n, i), sj = state(n, j);
          if (sj < A) {
            const double* ri = ws.logits.colptr(n + B * i);
            for (arma::uword a = 0; a < A; ++a) dw[a + A * sj] += ri[a];
          }
          if (si < A) {
            const double* rj = ws.logits.colptr(n + B * j);
            for (arma::uword c = 0; c < A; ++c) dw[si + A * c] += rj[c];
          }
        }
        const double* w = ws.ws.colptr(p);
        for (arma::uword e = 0; e < A2; ++e) dw[e] += gw * w[e];
      }
  }, 1);
  // Through Ws = Vop Bop.
  ws.dvop.set_size(A2, 2 * H);
  nn::gemm(false, true, A2, 2 * H, P, 1.0, ws.dws.memptr(), A2, ws.bop.memptr(), 2 * H, 0.0, ws.dvop.memptr(), A2);
  ws.dbop.set_size(2 * H, P);
  nn::gemm(true, false, 2 * H, P, A2, 1.0, ws.vop.memptr(), A2, ws.dws.memptr(), A2, 0.0, ws.dbop.memptr(), 2 * H);
  double* gv = g + s.v_offset();
  for (arma::uword h = 0; h < H; ++h)
    for (arma::uword c = 0; c < A; ++c)
      for (arma::uword a = 0; a < A; ++a) gv[h * A2 + a + A * c] = ws.dvop(a + A * c, h) + ws.dvop(c + A * a, H + h);
  // Through the softmax of each query row, then St = K^T Q / sqrt(d).
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(H, [&](std::size_t h0, std::size_t h1) {
    arma::mat dst(L, L);
    for (arma::uword h = h0; h < h1; ++h) {
      for (arma::uword i = 0; i + 1 < L; ++i)
        for (arma::uword j = i + 1; j < L; ++j) {
          const arma::uword p = first_pair(i, L) + j - i - 1;
          dst(j, i) = 0.5 * ws.dbop(h, p);
          dst(i, j) = 0.5 * ws.dbop(H + h, p);
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
      nn::gemm(false, false, d, L, L, scale, k, d, dst.memptr(), L, 0.0, g + s.q_offset() + h * d * L, d);
      nn::gemm(false, true, d, L, L, scale, q, d, dst.memptr(), L, 0.0, g + s.k_offset() + h * d * L, d);
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

}  // namespace potts
