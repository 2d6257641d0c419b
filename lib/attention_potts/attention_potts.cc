// Factored attention in the observation's protocol (attention_potts.h, eq. O1).
#include "lib/attention_potts/attention_potts.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "lib/linalg/dense_product.h"
#include "lib/attention_potts/pad_data_term.h"
#include "lib/linalg/exp.h"

namespace potts {

void AttentionPottsSpec::check() const {
  if (L < 2) throw StageError("attention_potts: L = " + std::to_string(L) + ": expected at least 2 sites");
  if (C < 2) throw StageError("attention_potts: A = " + std::to_string(C) + ": expected at least 2 states");
  if (heads < 1) throw StageError("attention_potts: heads: expected at least 1");
  if (head_dim < 1) throw StageError("attention_potts: head_dim: expected at least 1");
}

namespace {

// Column reductions of an n x m block (leading dimension n): out[c] = the
// sum over r of term(r, c), each column's terms added in order from 0.0,
// eight columns side by side: the bits of one sequential sum per column,
// without waiting on each addition.
template <class Term>
inline void column_reduce(arma::uword n, arma::uword m, double* out, Term term) {
  constexpr arma::uword kLanes = 8;
  for (arma::uword c0 = 0; c0 < m; c0 += kLanes) {
    const arma::uword w = std::min(kLanes, m - c0);
    double acc[kLanes] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (w == kLanes) {
      for (arma::uword r = 0; r < n; ++r)
        for (arma::uword c = 0; c < kLanes; ++c) acc[c] += term(r, c0 + c);
    } else {
      for (arma::uword r = 0; r < n; ++r)
        for (arma::uword c = 0; c < w; ++c) acc[c] += term(r, c0 + c);
    }
    std::copy(acc, acc + w, out + c0);
  }
}

// Column sums of x, and column dot products of x and y (each product
// rounded, then added).
void column_sums(const double* x, arma::uword n, arma::uword m, double* sums) {
  column_reduce(n, m, sums, [&](arma::uword r, arma::uword c) { return x[r + c * n]; });
}

void column_dots(const double* x, const double* y, arma::uword n, arma::uword m, double* dots) {
  column_reduce(n, m, dots, [&](arma::uword r, arma::uword c) { return x[r + c * n] * y[r + c * n]; });
}

// The largest of x[0 .. n), four running maxima (a maximum is exact: the
// value of a sequential one); -HUGE_VAL when n = 0.
double range_max(const double* x, arma::uword n) {
  double m[4] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  arma::uword j = 0;
  for (; j + 4 <= n; j += 4)
    for (arma::uword l = 0; l < 4; ++l) m[l] = std::max(m[l], x[j + l]);
  for (; j < n; ++j) m[0] = std::max(m[0], x[j]);
  return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

// The symmetric and antisymmetric parts of an C x C block, by index: the
// entries (a, b) with a <= b (u = 0 .. C(C+1)/2 - 1) and with a < b
// (k = 0 .. C(C-1)/2 - 1), each column b after column b - 1.
struct BlockParts {
  std::vector<arma::uword> sym_a, sym_b, anti_a, anti_b;
  std::vector<arma::uword> anti_of;         // (a + A b) -> k of (min, max), a != b
  std::vector<arma::uword> diag_u, anti_u;  // u of (a, a); u of the entry (a, b) of each k
  explicit BlockParts(arma::uword C) : anti_of(C * C), diag_u(C) {
    for (arma::uword b = 0; b < C; ++b)
      for (arma::uword a = 0; a <= b; ++a) {
        if (a == b) diag_u[a] = sym_a.size();
        sym_a.push_back(a);
        sym_b.push_back(b);
        if (a == b) continue;
        anti_of[a + C * b] = anti_of[b + C * a] = anti_a.size();
        anti_u.push_back(sym_a.size() - 1);
        anti_a.push_back(a);
        anti_b.push_back(b);
      }
  }
};

// The attention maps of every head into work.maps: column i + L h holds
// A^h_ij over j (the transpose of head h's map; zero at j = i): the softmax
// over j != i of q_i . k_j / sqrt(d). With pr, each head's operands of eq.
// P1 (attention_potts.h) follow while its map is in cache: Bplus^T and
// Bminus^T (P x H) in T, each entry computed in double, then rounded.
template <class Real>
void maps_forward(const AttentionPottsSpec& s, const arma::vec& x, AttentionPottsWorkspace& work,
                  AttentionProducts<Real>* pr) {
  const arma::uword L = s.L, d = s.head_dim, P = s.pairs();
  work.maps.set_size(L, L * s.heads);
  if (pr != nullptr) {
    pr->bp_t.set_size(P, s.heads);
    pr->bm_t.set_size(P, s.heads);
  }
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(s.heads, [&](std::size_t h0, std::size_t h1) {
    std::vector<double> sums(L);
    for (arma::uword h = h0; h < h1; ++h) {
      const double* q = x.memptr() + s.q_offset() + h * d * L;
      const double* k = x.memptr() + s.k_offset() + h * d * L;
      double* scores = work.maps.colptr(h * L);  // St(j, i) = q_i . k_j / sqrt(d)
      dense_product(true, false, L, L, d, k, d, q, d, scores, L);
      for (arma::uword e = 0; e < L * L; ++e) scores[e] *= scale;
      // Softmax over j != i, one vector exp for the whole map: not
      // log_softmax.h's order, on purpose (probabilities, the diagonal out).
      for (arma::uword i = 0; i < L; ++i) {
        double* col = scores + i * L;
        const double mx = std::max(range_max(col, i), range_max(col + i + 1, L - i - 1));
        for (arma::uword j = 0; j < L; ++j) col[j] -= mx;
        col[i] = 0.0;
      }
      exp_nonpositive(scores, L * L);
      for (arma::uword i = 0; i < L; ++i) scores[i + i * L] = 0.0;
      column_sums(scores, L, L, sums.data());
      for (arma::uword i = 0; i < L; ++i) {
        double* col = scores + i * L;
        const double inv = 1.0 / sums[i];
        for (arma::uword j = 0; j < L; ++j) col[j] *= inv;
      }
      if (pr == nullptr) continue;
      // Pair p = (i < j): Bplus = (A_ij + A_ji) / 2, Bminus = (A_ij - A_ji) / 2,
      // A_ij = St(j, i) along column i, A_ji = St(i, j).
      Real* plus = pr->bp_t.colptr(h);
      Real* minus = pr->bm_t.colptr(h);
      arma::uword p = 0;
      for (arma::uword i = 0; i + 1 < L; ++i) {
        const double* col = scores + i * L;
        for (arma::uword j = i + 1; j < L; ++j, ++p) {
          const double aij = col[j], aji = scores[i + j * L];
          plus[p] = Real(0.5 * (aij + aji));
          minus[p] = Real(0.5 * (aij - aji));
        }
      }
    }
  });
}

// The value operands of eq. P1 in Real: sym_values (S x H) and anti_values (K x H) from V;
// each entry computed in double, then rounded.
template <class Real>
void fill_values(const AttentionPottsSpec& s, const arma::vec& x, const BlockParts& parts,
                 AttentionProducts<Real>& pr) {
  const arma::uword C = s.C, H = s.heads, C2 = C * C;
  const arma::uword n_sym = parts.sym_a.size(), n_anti = parts.anti_a.size();
  const double* v = x.memptr() + s.v_offset();
  pr.sym_values.set_size(n_sym, H);
  pr.anti_values.set_size(n_anti, H);
  for (arma::uword h = 0; h < H; ++h) {
    const double* vh = v + h * C2;
    for (arma::uword u = 0; u < n_sym; ++u) {
      const arma::uword a = parts.sym_a[u], b = parts.sym_b[u];
      pr.sym_values(u, h) = Real(0.5 * (vh[a + C * b] + vh[b + C * a]));
    }
    for (arma::uword k = 0; k < n_anti; ++k) {
      const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];
      pr.anti_values(k, h) = Real(0.5 * (vh[a + C * b] - vh[b + C * a]));
    }
  }
}

// Eq. P1's two products, then each block Ws_p assembled in double from its
// parts: Ws_p(a, b) = Wsym(u) + Wanti(k) for a < b, Wsym(u) - Wanti(k) for
// a > b, Wsym(u) on the diagonal.
template <class Real>
void couplings_forward(const AttentionPottsSpec& s, const BlockParts& parts, AttentionProducts<Real>& pr,
                       arma::mat& blocks, std::vector<double>& col_sq, arma::mat* blocks_t) {
  const arma::uword C = s.C, H = s.heads, C2 = C * C, P = s.pairs();
  const arma::uword n_sym = parts.sym_a.size(), n_anti = parts.anti_a.size();
  pr.wsym.set_size(n_sym, P);
  pr.w_anti.set_size(n_anti, P);
  dense_product(false, true, n_sym, P, H, pr.sym_values.memptr(), n_sym, pr.bp_t.memptr(), P, pr.wsym.memptr(), n_sym);
  dense_product(false, true, n_anti, P, H, pr.anti_values.memptr(), n_anti, pr.bm_t.memptr(), P, pr.w_anti.memptr(),
                n_anti);
  blocks.set_size(C2, P);
  if (blocks_t != nullptr) blocks_t->set_size(C2, P);
  col_sq.resize(P);
  // Eight blocks at a time: assembled, then their squares for the penalty
  // (||Ws_p||^2, each block's added in order, the eight side by side) while
  // they are in cache.
  constexpr arma::uword kLanes = 8;
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword c0 = p0; c0 < p1; c0 += kLanes) {
      const arma::uword nw = std::min<arma::uword>(kLanes, p1 - c0);
      for (arma::uword p = c0; p < c0 + nw; ++p) {
        const Real* sym_p = pr.wsym.colptr(p);
        const Real* wa = pr.w_anti.colptr(p);
        double* w = blocks.colptr(p);
        for (arma::uword a = 0; a < C; ++a) w[a + C * a] = double(sym_p[parts.diag_u[a]]);
        for (arma::uword k = 0; k < n_anti; ++k) {
          const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];  // a < b
          const double sym = double(sym_p[parts.anti_u[k]]), anti = double(wa[k]);
          w[a + C * b] = sym + anti;
          w[b + C * a] = sym - anti;
        }
        if (blocks_t == nullptr) continue;
        double* wt = blocks_t->colptr(p);  // the block transposed, for the data term
        for (arma::uword a = 0; a < C; ++a) wt[a + C * a] = w[a + C * a];
        for (arma::uword k = 0; k < n_anti; ++k) {
          const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];
          wt[a + C * b] = w[b + C * a];
          wt[b + C * a] = w[a + C * b];
        }
      }
      const double* base = blocks.colptr(c0);
      column_dots(base, base, C2, nw, col_sq.data() + c0);
    }
  });
}

// The gradient through eq. P1: dWs + gw Ws (the data term's gradient and the
// penalty's, in double) split into its parts' shares (rounded to Real), the
// four products, then the share of V in double: dV(a, b) = d_sym_values(u) / 2 +
// dKop(k) / 2 and dV(b, a) = d_sym_values(u) / 2 - dKop(k) / 2 for a < b, dV(a, a) =
// d_sym_values(u). dBplus^T and dBminus^T stay in pr for maps_backward.
template <class Real>
void couplings_backward(const AttentionPottsSpec& s, const BlockParts& parts, const arma::mat& blocks, double gw,
                        arma::mat& dws, AttentionProducts<Real>& pr, double* gv) {
  const arma::uword C = s.C, H = s.heads, C2 = C * C, P = s.pairs();
  const arma::uword n_sym = parts.sym_a.size(), n_anti = parts.anti_a.size();
  pr.gsym.set_size(n_sym, P);
  pr.g_anti.set_size(n_anti, P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      double* g = dws.colptr(p);
      const double* w = blocks.colptr(p);
      for (arma::uword e = 0; e < C2; ++e) g[e] += gw * w[e];
      Real* gs = pr.gsym.colptr(p);
      Real* ga = pr.g_anti.colptr(p);
      for (arma::uword a = 0; a < C; ++a) gs[parts.diag_u[a]] = Real(g[a + C * a]);
      for (arma::uword k = 0; k < n_anti; ++k) {
        const arma::uword a = parts.anti_a[k], b = parts.anti_b[k];  // a < b
        gs[parts.anti_u[k]] = Real(g[a + C * b] + g[b + C * a]);
        ga[k] = Real(g[a + C * b] - g[b + C * a]);
      }
    }
  });
  pr.d_sym_values.set_size(n_sym, H);
  pr.d_anti_values.set_size(n_anti, H);
  pr.dbp_t.set_size(P, H);
  pr.dbm_t.set_size(P, H);
  dense_product(false, false, n_sym, H, P, pr.gsym.memptr(), n_sym, pr.bp_t.memptr(), P, pr.d_sym_values.memptr(),
                n_sym);
  dense_product(false, false, n_anti, H, P, pr.g_anti.memptr(), n_anti, pr.bm_t.memptr(), P, pr.d_anti_values.memptr(),
                n_anti);
  dense_product(true, false, P, H, n_sym, pr.gsym.memptr(), n_sym, pr.sym_values.memptr(), n_sym, pr.dbp_t.memptr(), P);
  dense_product(true, false, P, H, n_anti, pr.g_anti.memptr(), n_anti, pr.anti_values.memptr(), n_anti,
                pr.dbm_t.memptr(), P);
  for (arma::uword h = 0; h < H; ++h) {
    double* gvh = gv + h * C2;
    for (arma::uword u = 0; u < n_sym; ++u) {
      const arma::uword a = parts.sym_a[u], b = parts.sym_b[u];
      const double ds = double(pr.d_sym_values(u, h));
      if (a == b) {
        gvh[a + C * a] = ds;
        continue;
      }
      const double dk = double(pr.d_anti_values(parts.anti_of[a + C * b], h));
      gvh[a + C * b] = 0.5 * ds + 0.5 * dk;
      gvh[b + C * a] = 0.5 * ds - 0.5 * dk;
    }
  }
}

// The gradient w.r.t. q and k: dA^h_ij = (dBplus + dBminus) / 2 and dA^h_ji =
// (dBplus - dBminus) / 2 of each pair (in double), through the softmax of
// each query row, then St = K^T Q / sqrt(d); written to g's q and k parts.
template <class Real>
void maps_backward(const AttentionPottsSpec& s, const arma::vec& x, const AttentionPottsWorkspace& work,
                   const AttentionProducts<Real>& pr, double* g) {
  const arma::uword L = s.L, d = s.head_dim;
  const double scale = 1.0 / std::sqrt(double(d));
  parallel_ranges(s.heads, [&](std::size_t h0, std::size_t h1) {
    thread_local arma::mat dst;
    thread_local std::vector<double> dots;
    dst.set_size(L, L);
    dots.resize(L);
    for (arma::uword h = h0; h < h1; ++h) {
      const Real* dp = pr.dbp_t.colptr(h);
      const Real* dm = pr.dbm_t.colptr(h);
      const double* att = work.maps.colptr(L * h);
      // Column i: dA^h_ij over j (query i), the pair (j, i) for j < i.
      for (arma::uword i = 0; i < L; ++i) {
        double* col = dst.colptr(i);
        for (arma::uword j = 0; j < i; ++j) {
          const arma::uword p = pair_index(j, i, L);
          col[j] = 0.5 * (double(dp[p]) - double(dm[p]));
        }
        col[i] = 0.0;
        const arma::uword p0 = i + 1 < L ? pair_index(i, i + 1, L) : 0;
        for (arma::uword j = i + 1; j < L; ++j)
          col[j] = 0.5 * (double(dp[p0 + j - i - 1]) + double(dm[p0 + j - i - 1]));
      }
      // dSt = A o (dA - sum_j A dA), the sums of each column in order.
      column_dots(att, dst.memptr(), L, L, dots.data());
      for (arma::uword i = 0; i < L; ++i) {
        const double* a = att + L * i;
        double* col = dst.colptr(i);
        for (arma::uword j = 0; j < L; ++j) col[j] = a[j] * (col[j] - dots[i]);
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
}

// f(products) with the workspace's products in the precision the spec
// chooses (the one place float_products is read).
template <class F>
void with_products(const AttentionPottsSpec& s, AttentionPottsWorkspace& work, F&& f) {
  if (s.float_products)
    f(work.pf);
  else
    f(work.pd);
}

// The couplings into work.blocks (and, for the data term, their transposed
// blocks into work.blocks_t when `transposed`).
void couplings(const AttentionPottsSpec& s, const arma::vec& x, const BlockParts& parts, AttentionPottsWorkspace& work,
               bool transposed) {
  s.check();
  if (x.n_elem != s.parameter_count())
    throw StageError("attention_potts: " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(s.parameter_count()));
  arma::mat* blocks_t = transposed ? &work.blocks_t : nullptr;
  with_products(s, work, [&](auto& pr) {
    maps_forward(s, x, work, &pr);
    fill_values(s, x, parts, pr);
    couplings_forward(s, parts, pr, work.blocks, work.col_sq, blocks_t);
  });
}

}  // namespace

void attention_potts_couplings(const AttentionPottsSpec& s, const arma::vec& x, AttentionPottsWorkspace& work) {
  couplings(s, x, BlockParts(s.C), work, false);
}

double attention_potts_loss(const AttentionPottsSpec& s, const arma::vec& x, const arma::imat& batch,
                            const AttentionPottsPenalty& penalty, arma::vec* grad, AttentionPottsWorkspace& work) {
  const arma::uword L = s.L, C = s.C;
  const arma::uword B = batch.n_rows;
  if (B == 0 || batch.n_cols != L)
    throw StageError("attention_potts: a batch of " + std::to_string(B) + " x " + std::to_string(batch.n_cols) +
                     " states, expected at least one sequence of " + std::to_string(L));
  if (batch.min() < 0) throw StageError("attention_potts: a negative state in the batch");
  if (penalty.family_size < 1) throw StageError("attention_potts: family_size: expected at least 1");
  const BlockParts parts(C);
  couplings(s, x, parts, work, true);
  const double* b = x.memptr();
  // The data term (pad_data_term.h), its residuals scaled by 1 / B.
  if (grad != nullptr) grad->set_size(s.parameter_count());  // every entry is written below
  arma::uword n_targets = 0;
  const double data_scale = penalty.squared ? double(penalty.family_size) / double(B) : 1.0 / double(B);
  const double ce =
      pad_data_term(L, C, work.blocks, work.blocks_t, b, batch, data_scale, work.data, &n_targets,
                    grad != nullptr ? &work.dblocks : nullptr, grad != nullptr ? grad->memptr() : nullptr);
  // Penalty: ||W||_F^2 = 2 sum_p ||Ws_p||^2 (both ordered pairs; the
  // blocks' squares from attention_potts_couplings).
  double blocks_sq = 0.0;
  for (double c : work.col_sq) blocks_sq += c;
  double b2 = 0.0;
  for (arma::uword e = 0; e < C * L; ++e) b2 += b[e] * b[e];
  double loss = 0.0, gb = 0.0, gw = 0.0;  // the penalty's gradient: gb b on the fields, gw Ws_p on each block
  if (penalty.squared) {                  // eq. O1s
    const double k_w = double(n_targets) * penalty.lambda * double(C) / (2.0 * double(B));
    const double k_b = s.fields ? double(n_targets) * penalty.lambda / (double(B) * double(L)) : 0.0;
    loss = ce * data_scale + (k_w * (2.0 * blocks_sq) + k_b * b2);
    gb = 2.0 * k_b;
    gw = 4.0 * k_w;
  } else {  // eq. O1: b / ||b|| on the fields, 2 Ws_p / ||W|| on each block
    const double norm_w = std::sqrt(2.0 * blocks_sq), norm_b = std::sqrt(b2);
    const double c_w = penalty.lambda * double(L - 1) * double(C - 1) / double(penalty.family_size);
    const double c_b = penalty.lambda / double(penalty.family_size);
    const double tb = double(n_targets) / double(B);
    loss = ce / double(B) + tb * (c_w * norm_w + c_b * norm_b);
    gb = norm_b > 0.0 ? tb * c_b / norm_b : 0.0;
    gw = norm_w > 0.0 ? 2.0 * tb * c_w / norm_w : 0.0;
  }
  if (grad == nullptr) return loss;

  double* g = grad->memptr();
  for (arma::uword e = 0; e < C * L; ++e) g[e] = s.fields ? g[e] + gb * b[e] : 0.0;
  // Through eq. P1 to V and to the maps, the penalty's share of each block
  // joining the data term's on the way.
  with_products(s, work, [&](auto& pr) {
    couplings_backward(s, parts, work.blocks, gw, work.dblocks, pr, g + s.v_offset());
    maps_backward(s, x, work, pr, g);
  });
  return loss;
}

arma::mat attention_potts_block_norms(const AttentionPottsSpec& s, const arma::vec& x) {
  AttentionPottsWorkspace work;
  attention_potts_couplings(s, x, work);
  return pair_block_norms(s.L, s.C, work.blocks);
}

double attention_potts_median_row_max(const AttentionPottsSpec& s, const arma::vec& x) {
  AttentionPottsWorkspace work;
  s.check();
  maps_forward<double>(s, x, work, nullptr);
  std::vector<double> row_max(work.maps.n_cols);
  for (arma::uword c = 0; c < work.maps.n_cols; ++c) row_max[c] = work.maps.col(c).max();
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
  // Fields: log(n_i(a) + lambda log M), centred over a.
  const double pseudo = lambda * std::log(double(sequences.n_rows));
  for (arma::uword i = 0; i < s.L; ++i) {
    std::vector<double> n(s.C, 0.0);
    for (arma::uword m = 0; m < sequences.n_rows; ++m) {
      const arma::sword t = sequences(m, i);
      if (t >= 0 && arma::uword(t) < s.C) n[arma::uword(t)] += 1.0;
    }
    double mean = 0.0;
    for (arma::uword a = 0; a < s.C; ++a) {
      n[a] = std::log(n[a] + pseudo);
      mean += n[a];
    }
    mean /= double(s.C);
    for (arma::uword a = 0; a < s.C; ++a) x(a + s.C * i) = s.fields ? n[a] - mean : 0.0;
  }
  Rng rng(seed, streams::kInit);
  const double dd = double(s.head_dim), HH = double(s.heads), LL = double(s.L), CC = double(s.C);
  const double a_qk = std::sqrt(6.0 / (HH * dd + LL * dd));
  const double a_v = std::sqrt(6.0 / (CC * CC + HH * CC));
  for (arma::uword e = s.q_offset(); e < s.v_offset(); ++e) x(e) = a_qk * (2.0 * rng.uniform() - 1.0);
  for (arma::uword e = s.v_offset(); e < x.n_elem; ++e) x(e) = a_v * (2.0 * rng.uniform() - 1.0);
  return x;
}

arma::uvec FullBatches::next() {
  while (pending_.size() < batch_) {
    const arma::uvec more = stream_.next();
    pending_.insert(pending_.end(), more.begin(), more.end());
  }
  arma::uvec rows(batch_);
  std::copy(pending_.begin(), pending_.begin() + std::ptrdiff_t(batch_), rows.begin());
  pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(batch_));
  return rows;
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
  FullBatches full(sequences.n_rows, options.batch_size, seed);
  auto next_batch = [&]() { return options.full_batches ? full.next() : batches.next(); };
  AttentionPottsWorkspace work;
  arma::vec g;
  for (long t = 1; t <= options.steps; ++t) {
    const arma::uvec rows = next_batch();
    const double f = attention_potts_loss(spec, fit.x, sequences.rows(rows), penalty, &g, work);
    if (!std::isfinite(f) || !g.is_finite())
      throw StageError("attention_potts: the fit diverged at step " + std::to_string(t) + " (loss " +
                       std::to_string(f) + "); no result is written");
    opt.step(fit.x, g);
    if (options.on_step) options.on_step(t, f);
  }
  fit.steps = options.steps;
  fit.epochs = options.full_batches ? full.epoch() : batches.epoch();
  return fit;
}

double attention_potts_mean_loss(const AttentionPottsSpec& spec, const arma::vec& x, const arma::imat& sequences) {
  AttentionPottsWorkspace work;
  couplings(spec, x, BlockParts(spec.C), work, true);
  arma::uword n_targets = 0;
  const double ce = pad_data_term(spec.L, spec.C, work.blocks, work.blocks_t, x.memptr(), sequences, 1.0, work.data,
                                  &n_targets, nullptr, nullptr);
  return n_targets == 0 ? 0.0 : ce / double(n_targets);
}

}  // namespace potts
