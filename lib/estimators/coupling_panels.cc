#include "lib/estimators/coupling_panels.h"

#include <algorithm>
#include <cmath>

namespace potts {

namespace {

constexpr arma::uword kRows = kPanelRows;

// The two kernels of a panel, compiled for AVX-512, AVX2 and baseline
// x86-64 (the loader picks one for the CPU), as lib/nn/kernel.h compiles
// lib/nn's. Each lane is one element's own sum, so every clone runs the same
// IEEE additions in the same order: the same bits. BlockedDataTermIsThe-
// PlainLoopsBitForBit checks the clone the CPU picks (coupling_models_test),
// the AVX2 clone alone (coupling_models_avx2_test, POTTS_CM_AVX2_ONLY) and
// the baseline alone (coupling_models_baseline_test, POTTS_CM_BASELINE_ONLY).
// Written with vector types because GCC left the gradient's loop scalar.
#if defined(POTTS_CM_BASELINE_ONLY)
#define POTTS_CM_KERNEL __attribute__((noinline))
#elif defined(POTTS_CM_AVX2_ONLY)
#define POTTS_CM_KERNEL __attribute__((target("avx2"), noinline))
#else
#define POTTS_CM_KERNEL __attribute__((target_clones("avx512f", "avx2", "default"), noinline))
#endif
// Eight doubles at any 8-byte boundary, aliasing double (a zmm register, two
// ymm or four xmm, as the clone has them).
typedef double Lanes8 __attribute__((vector_size(64), aligned(8), may_alias));
static_assert(kRows == 16, "the kernels below add 16 rows, two lanes of eight");

// Two sequences at once (independent sums, so that the additions of one
// overlap the latency of the other's): z[t] = init[t] + sum_j P[c_j 16 + t]
// and y[t] = init[t] + sum_j P[d_j 16 + t] (j = 0..L-1 in order), t < 16.
POTTS_CM_KERNEL void add_panel_columns2(const double* P, const arma::uword* c, const arma::uword* d, arma::uword L,
                                        const double* init, double* z, double* y) {
  const Lanes8* in = reinterpret_cast<const Lanes8*>(init);
  Lanes8 a0 = in[0], a1 = in[1], b0 = in[0], b1 = in[1];
  for (arma::uword j = 0; j < L; ++j) {
    const Lanes8* wc = reinterpret_cast<const Lanes8*>(P + c[j] * kRows);
    const Lanes8* wd = reinterpret_cast<const Lanes8*>(P + d[j] * kRows);
    a0 += wc[0];
    a1 += wc[1];
    b0 += wd[0];
    b1 += wd[1];
  }
  Lanes8* oz = reinterpret_cast<Lanes8*>(z);
  Lanes8* oy = reinterpret_cast<Lanes8*>(y);
  oz[0] = a0;
  oz[1] = a1;
  oy[0] = b0;
  oy[1] = b1;
}

// One sequence: z[t] = init[t] + sum_j P[c_j 16 + t].
POTTS_CM_KERNEL void add_panel_columns(const double* P, const arma::uword* c, arma::uword L, const double* init,
                                       double* z) {
  const Lanes8* in = reinterpret_cast<const Lanes8*>(init);
  Lanes8 a0 = in[0], a1 = in[1];
  for (arma::uword j = 0; j < L; ++j) {
    const Lanes8* wc = reinterpret_cast<const Lanes8*>(P + c[j] * kRows);
    a0 += wc[0];
    a1 += wc[1];
  }
  Lanes8* out = reinterpret_cast<Lanes8*>(z);
  out[0] = a0;
  out[1] = a1;
}

// Two sequences: G[c_j 16 + t] += d[t], then G[e_j 16 + t] += f[t], for
// j = 0..L-1 (the c_j distinct, the e_j distinct). Where c_j = e_j (a state
// both sequences share) the two additions run in registers, (G + d) + f as
// in sequence, with one load and one store.
POTTS_CM_KERNEL void add_to_panel_columns2(double* G, const arma::uword* c, const arma::uword* e, arma::uword L,
                                           const double* d, const double* f) {
  const Lanes8* in = reinterpret_cast<const Lanes8*>(d);
  const Lanes8* jn = reinterpret_cast<const Lanes8*>(f);
  const Lanes8 d0 = in[0], d1 = in[1], f0 = jn[0], f1 = jn[1];
  for (arma::uword j = 0; j < L; ++j) {
    Lanes8* gc = reinterpret_cast<Lanes8*>(G + c[j] * kRows);
    if (c[j] == e[j]) {
      gc[0] = (gc[0] + d0) + f0;
      gc[1] = (gc[1] + d1) + f1;
      continue;
    }
    Lanes8* ge = reinterpret_cast<Lanes8*>(G + e[j] * kRows);
    gc[0] += d0;
    gc[1] += d1;
    ge[0] += f0;
    ge[1] += f1;
  }
}

// G[c_j 16 + t] += d[t] for j = 0..L-1, t < 16 (the c_j are distinct).
POTTS_CM_KERNEL void add_to_panel_columns(double* G, const arma::uword* c, arma::uword L, const double* d) {
  const Lanes8* in = reinterpret_cast<const Lanes8*>(d);
  const Lanes8 d0 = in[0], d1 = in[1];
  for (arma::uword j = 0; j < L; ++j) {
    Lanes8* gc = reinterpret_cast<Lanes8*>(G + c[j] * kRows);
    gc[0] += d0;
    gc[1] += d1;
  }
}

}  // namespace

MatrixPanels::MatrixPanels(const arma::mat& W, arma::mat* dW) : W_(W), dW_(dW) {
  if (dW_) dW_->set_size(W.n_rows, W.n_cols);
}

// Rows 16p.. of column c are contiguous in W.
void MatrixPanels::fill(arma::uword p, double* B) const {
  const arma::uword n = W_.n_rows, r0 = p * kRows, nb = std::min(n, r0 + kRows) - r0;
  for (arma::uword c = 0; c < n; ++c) {
    std::copy(W_.colptr(c) + r0, W_.colptr(c) + r0 + nb, B + c * kRows);
    std::fill(B + c * kRows + nb, B + (c + 1) * kRows, 0.0);
  }
}

void MatrixPanels::drain(arma::uword p, const double* G) {
  if (!dW_) return;
  const arma::uword n = W_.n_rows, r0 = p * kRows, nb = std::min(n, r0 + kRows) - r0;
  for (arma::uword c = 0; c < n; ++c) std::copy(G + c * kRows, G + c * kRows + nb, dW_->colptr(c) + r0);
}

FullPackedPanels::FullPackedPanels(const double* xc, arma::uword L, arma::uword C, double* g, double c)
    : xc_(xc), L_(L), C_(C), n_(L * C), g_(g), c_(c) {}

arma::uword FullPackedPanels::block(arma::uword i, arma::uword j) const {
  return (i * (L_ - 1) - i * (i - 1) / 2 + (j - i - 1)) * C_ * C_;
}

// The rows of panel p, in runs of one site each: rows r0 + t0.. r0 + t1 - 1
// are site i, states a0.. (a panel of 16 rows spans one to 16 / C + 2 sites).
template <class F>
static void for_site_runs(arma::uword p, arma::uword n, arma::uword C, F f) {
  const arma::uword r0 = p * kRows, r1 = std::min(n, r0 + kRows);
  for (arma::uword r = r0; r < r1;) {
    const arma::uword i = r / C, end = std::min(r1, (i + 1) * C);
    f(i, r % C, r - r0, end - r0);
    r = end;
  }
}

// Rows iC + a of W: W_ij(a, b) = x_ij(a, b) for j > i (contiguous in a),
// x_ji(b, a) for j < i (contiguous in b), zero for j = i.
void FullPackedPanels::fill(arma::uword p, double* B) const {
  const arma::uword C = C_;
  std::fill(B, B + kRows * n_, 0.0);
  for_site_runs(p, n_, C, [&](arma::uword i, arma::uword a0, arma::uword t0, arma::uword t1) {
    for (arma::uword j = 0; j < L_; ++j) {
      double* out = B + j * C * kRows;
      if (j > i) {
        const double* x = xc_ + block(i, j) + a0;
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword t = t0; t < t1; ++t) out[b * kRows + t] = x[b * C + t - t0];
      } else if (j < i) {
        const double* x = xc_ + block(j, i) + a0 * C;
        for (arma::uword t = t0; t < t1; ++t)
          for (arma::uword b = 0; b < C; ++b) out[b * kRows + t] = x[(t - t0) * C + b];
      }
    }
  });
}

// Rows iC + a of dW: for j > i the first term of g_ij(a, .); for j < i the
// second of g_ji(., a), which completes it. Rows arrive in increasing order
// (panels in order, runs and rows within a panel in order), and row iC + a
// precedes row jC + b when i < j: each first term is set before its second
// is added.
void FullPackedPanels::drain(arma::uword p, const double* G) {
  const arma::uword C = C_;
  for_site_runs(p, n_, C, [&](arma::uword i, arma::uword a0, arma::uword t0, arma::uword t1) {
    for (arma::uword j = 0; j < L_; ++j) {
      const double* in = G + j * C * kRows;
      if (j > i) {
        double* g = g_ + block(i, j) + a0;
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword t = t0; t < t1; ++t) g[b * C + t - t0] = in[b * kRows + t];
      } else if (j < i) {
        const arma::uword o = block(j, i) + a0 * C;
        double* g = g_ + o;
        const double* x = xc_ + o;
        for (arma::uword t = t0; t < t1; ++t)
          for (arma::uword b = 0; b < C; ++b) {
            const arma::uword k = (t - t0) * C + b;
            g[k] = g[k] + in[b * kRows + t] + c_ * x[k];
          }
      }
    }
  });
}

double panel_data_term(PanelSource& source, arma::uword L, arma::uword C, const arma::mat& h, const arma::imat& s,
                       const arma::vec& w, bool grad, arma::mat* dh, PanelWorkspace& ws) {
  const arma::uword M = s.n_rows, n = L * C, panels = (n + kRows - 1) / kRows, rows = panels * kRows;
  double wsum = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) wsum += w(mu);
  const double norm = 1.0 / (wsum * double(L));
  // The columns of W sequence mu adds: j C + s_j.
  ws.columns.resize(M * L);
  for (arma::uword mu = 0; mu < M; ++mu)
    for (arma::uword j = 0; j < L; ++j) ws.columns[mu * L + j] = j * C + arma::uword(s(mu, j));
  // Fields padded to the panels' rows (zero beyond n, as the padding rows).
  std::vector<double> h0(rows, 0.0);
  std::copy(h.memptr(), h.memptr() + n, h0.begin());
  ws.B.resize(kRows * n);
  ws.Z.resize(rows * M);
  // The sequences of nonzero weight, taken two at a time.
  std::vector<arma::uword> used;
  for (arma::uword mu = 0; mu < M; ++mu)
    if (w(mu) != 0.0) used.push_back(mu);
  const arma::uword* cols = ws.columns.data();
  double* B = ws.B.data();

  // Logits (column mu of Z): z_i(a) = h_i(a) + sum_j W_ij(a, s_j), all i at
  // once (W_ii = 0), summed over j in order; the padding rows stay zero.
  for (arma::uword p = 0; p < panels; ++p) {
    source.fill(p, B);
    const double* init = h0.data() + p * kRows;
    double* z = ws.Z.data() + p * kRows;
    std::size_t k = 0;
    for (; k + 1 < used.size(); k += 2) {
      const arma::uword m0 = used[k], m1 = used[k + 1];
      add_panel_columns2(B, cols + m0 * L, cols + m1 * L, L, init, z + m0 * rows, z + m1 * rows);
    }
    if (k < used.size()) add_panel_columns(B, cols + used[k] * L, L, init, z + used[k] * rows);
  }

  // Losses; with a gradient, column mu of Z becomes dLoss/dz (in place, site
  // by site: d(-log p)/dz_i(a) = p(a) - [a == s_i], times w_mu norm).
  double loss = 0.0;
  for (arma::uword mu : used) {
    double* z = ws.Z.data() + mu * rows;
    double seq = 0.0;
    for (arma::uword i = 0; i < L; ++i) {
      double* zi = z + i * C;
      double mx = zi[0];
      for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, zi[a]);
      double sum = 0.0;
      for (arma::uword a = 0; a < C; ++a) sum += std::exp(zi[a] - mx);
      const double lse = mx + std::log(sum);
      seq += lse - zi[s(mu, i)];  // -log p(s_i | s_\i)
      if (grad) {
        const double c = norm * w(mu);
        for (arma::uword a = 0; a < C; ++a) zi[a] = c * std::exp(zi[a] - lse);
        zi[s(mu, i)] -= c;
      }
    }
    loss += w(mu) * seq;
  }
  if (!grad) return loss * norm;
  if (dh) {
    dh->zeros(C, L);
    double* g = dh->memptr();
    for (arma::uword mu : used) {
      const double* dz = ws.Z.data() + mu * rows;
      for (arma::uword r = 0; r < n; ++r) g[r] += dz[r];
    }
  }
  // The forward pass adds column j C + s_j of W to z, so that column of dW
  // gets dz; summed over the sequences in order, panel by panel.
  for (arma::uword p = 0; p < panels; ++p) {
    std::fill(B, B + kRows * n, 0.0);
    const double* dz = ws.Z.data() + p * kRows;
    std::size_t k = 0;
    for (; k + 1 < used.size(); k += 2) {
      const arma::uword m0 = used[k], m1 = used[k + 1];
      add_to_panel_columns2(B, cols + m0 * L, cols + m1 * L, L, dz + m0 * rows, dz + m1 * rows);
    }
    if (k < used.size()) add_to_panel_columns(B, cols + used[k] * L, L, dz + used[k] * rows);
    source.drain(p, B);
  }
  return loss * norm;
}

}  // namespace potts
