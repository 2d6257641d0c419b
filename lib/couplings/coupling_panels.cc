#include "lib/couplings/coupling_panels.h"

#include <algorithm>
#include <cmath>

#include "lib/core/isa.h"
#include "lib/core/log_softmax.h"
#include "lib/core/parallel.h"

namespace potts {

namespace {

constexpr arma::uword kRows = kPanelRows;

// The kernels of a panel, written once per instruction-set level with a
// vector width that keeps every accumulator in a register: a row of 16
// doubles in 4 ymm on AVX2 and on AVX-512, in 8 xmm on baseline x86-64. (A
// 64-byte vector type compiled for AVX2 had been split through the stack on
// every addition; on AVX-512, whose zmm it fits, the PLM fit of Ras took
// 10.5 s with zmm against 8.8 s with ymm, these gathers being bound by
// loads.) The level is lib/core/isa.h's, chosen once from the CPU. Each
// lane is one element's own sum, so every level runs the same IEEE additions
// in the same order: the same bits. BlockedDataTermIsThePlainLoopsBitForBit
// checks every level (tools/isa.bzl).
static_assert(kRows == 16, "the kernels below add rows of 16 doubles");

template <unsigned VB>
struct Lanes {
  typedef double V __attribute__((vector_size(VB), aligned(8), may_alias));
  static constexpr unsigned N = 16 * sizeof(double) / VB;  // vectors per row
  static constexpr unsigned W = VB / sizeof(double);       // doubles per vector
  // Always inlined into the level's kernel: a vector returned or passed
  // between a function compiled for AVX and one compiled without it would
  // disagree on the ABI (-Wpsabi), as at -O0, where nothing is inlined.
  static inline __attribute__((always_inline)) V load(const double* p) { return *reinterpret_cast<const V*>(p); }
  static inline __attribute__((always_inline)) void store(double* p, V v) { *reinterpret_cast<V*>(p) = v; }
};

// z[t] = init[t] + sum_j P[c_j 16 + t] (j = 0..L-1 in order), t < 16; with
// d, also y[t] = init[t] + sum_j P[d_j 16 + t], the two sums interleaved so
// that the additions of one overlap the latency of the other's.
template <class Ln, bool kTwo>
inline __attribute__((always_inline)) void add_columns_body(const double* P, const arma::uword* c, const arma::uword* d,
                                                            arma::uword L, const double* init, double* z, double* y) {
  if (kTwo && Ln::N > 4) {  // 2 x 8 xmm accumulators would not fit in 16: one sum after the other
    add_columns_body<Ln, false>(P, c, nullptr, L, init, z, nullptr);
    add_columns_body<Ln, false>(P, d, nullptr, L, init, y, nullptr);
    return;
  }
  typename Ln::V a[Ln::N], b[Ln::N];
  for (unsigned n = 0; n < Ln::N; ++n) a[n] = b[n] = Ln::load(init + n * Ln::W);
  for (arma::uword j = 0; j < L; ++j) {
    const double* wc = P + c[j] * kRows;
    for (unsigned n = 0; n < Ln::N; ++n) a[n] += Ln::load(wc + n * Ln::W);
    if (!kTwo) continue;
    const double* wd = P + d[j] * kRows;
    for (unsigned n = 0; n < Ln::N; ++n) b[n] += Ln::load(wd + n * Ln::W);
  }
  for (unsigned n = 0; n < Ln::N; ++n) {
    Ln::store(z + n * Ln::W, a[n]);
    if (kTwo) Ln::store(y + n * Ln::W, b[n]);
  }
}

// G[c_j 16 + t] += d[t] for j = 0..L-1, t < 16 (the c_j distinct); with e,
// then G[e_j 16 + t] += f[t] (the e_j distinct). Where c_j = e_j (a state
// both sequences share) the two additions run in registers, (G + d) + f as
// in sequence, with one load and one store.
template <class Ln, bool kTwo>
inline __attribute__((always_inline)) void add_to_columns_body(double* G, const arma::uword* c, const arma::uword* e,
                                                               arma::uword L, const double* d, const double* f) {
  typename Ln::V dv[Ln::N], fv[Ln::N];
  for (unsigned n = 0; n < Ln::N; ++n) {
    dv[n] = Ln::load(d + n * Ln::W);
    if (kTwo) fv[n] = Ln::load(f + n * Ln::W);
  }
  for (arma::uword j = 0; j < L; ++j) {
    double* gc = G + c[j] * kRows;
    if (!kTwo) {
      for (unsigned n = 0; n < Ln::N; ++n) Ln::store(gc + n * Ln::W, Ln::load(gc + n * Ln::W) + dv[n]);
      continue;
    }
    if (c[j] == e[j]) {
      for (unsigned n = 0; n < Ln::N; ++n) Ln::store(gc + n * Ln::W, (Ln::load(gc + n * Ln::W) + dv[n]) + fv[n]);
      continue;
    }
    double* ge = G + e[j] * kRows;
    for (unsigned n = 0; n < Ln::N; ++n) Ln::store(gc + n * Ln::W, Ln::load(gc + n * Ln::W) + dv[n]);
    for (unsigned n = 0; n < Ln::N; ++n) Ln::store(ge + n * Ln::W, Ln::load(ge + n * Ln::W) + fv[n]);
  }
}

struct PanelKernels {
  void (*add2)(const double*, const arma::uword*, const arma::uword*, arma::uword, const double*, double*, double*);
  void (*add1)(const double*, const arma::uword*, arma::uword, const double*, double*);
  void (*add_to2)(double*, const arma::uword*, const arma::uword*, arma::uword, const double*, const double*);
  void (*add_to1)(double*, const arma::uword*, arma::uword, const double*);
};

// Each level's vector width: 4 ymm per row on AVX-512 and AVX2, 8 xmm on
// baseline x86-64.
template <IsaLevel L>
using LanesAt = Lanes<L == IsaLevel::kBaseline ? 16 : 32>;

// One level's four kernels (lib/core/isa.h), compiled for its instruction set.
#define POTTS_CM_CLONE(level, suffix, attrs)                                                                         \
  attrs void add2_##suffix(const double* P, const arma::uword* c, const arma::uword* d, arma::uword L,               \
                           const double* init, double* z, double* y) {                                               \
    add_columns_body<LanesAt<level>, true>(P, c, d, L, init, z, y);                                                  \
  }                                                                                                                  \
  attrs void add1_##suffix(const double* P, const arma::uword* c, arma::uword L, const double* init, double* z) {    \
    add_columns_body<LanesAt<level>, false>(P, c, nullptr, L, init, z, nullptr);                                     \
  }                                                                                                                  \
  attrs void add_to2_##suffix(double* G, const arma::uword* c, const arma::uword* e, arma::uword L, const double* d, \
                              const double* f) {                                                                     \
    add_to_columns_body<LanesAt<level>, true>(G, c, e, L, d, f);                                                     \
  }                                                                                                                  \
  attrs void add_to1_##suffix(double* G, const arma::uword* c, arma::uword L, const double* d) {                     \
    add_to_columns_body<LanesAt<level>, false>(G, c, nullptr, L, d, nullptr);                                        \
  }                                                                                                                  \
  constexpr PanelKernels kKernels_##suffix = {add2_##suffix, add1_##suffix, add_to2_##suffix, add_to1_##suffix};
POTTS_ISA_CLONES(POTTS_CM_CLONE)
#undef POTTS_CM_CLONE

const PanelKernels& kernels() {
  static const PanelKernels* k = isa_pick(&kKernels_avx512, &kKernels_avx2, &kKernels_baseline);
  return *k;
}

void add_panel_columns2(const double* P, const arma::uword* c, const arma::uword* d, arma::uword L, const double* init,
                        double* z, double* y) {
  kernels().add2(P, c, d, L, init, z, y);
}
void add_panel_columns(const double* P, const arma::uword* c, arma::uword L, const double* init, double* z) {
  kernels().add1(P, c, L, init, z);
}
void add_to_panel_columns2(double* G, const arma::uword* c, const arma::uword* e, arma::uword L, const double* d,
                           const double* f) {
  kernels().add_to2(G, c, e, L, d, f);
}
void add_to_panel_columns(double* G, const arma::uword* c, arma::uword L, const double* d) {
  kernels().add_to1(G, c, L, d);
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

// Rows iC + a of dW, j > i: the first term of g_ij(a, .). Each entry of g
// has one first term (row iC + a, i < j) and one second (complete: row
// jC + b), and row iC + a is in the panel of row jC + b or an earlier one:
// every first term is set before its second is added.
void FullPackedPanels::drain(arma::uword p, const double* G) {
  const arma::uword C = C_;
  for_site_runs(p, n_, C, [&](arma::uword i, arma::uword a0, arma::uword t0, arma::uword t1) {
    for (arma::uword j = i + 1; j < L_; ++j) {
      const double* in = G + j * C * kRows;
      double* g = g_ + block(i, j) + a0;
      for (arma::uword b = 0; b < C; ++b)
        for (arma::uword t = t0; t < t1; ++t) g[b * C + t - t0] = in[b * kRows + t];
    }
  });
}

// Rows iC + a of dW, j < i: the second term of g_ji(., a) and the penalty's,
// which complete it.
void FullPackedPanels::complete(arma::uword p, const double* G) {
  const arma::uword C = C_;
  for_site_runs(p, n_, C, [&](arma::uword i, arma::uword a0, arma::uword t0, arma::uword t1) {
    for (arma::uword j = 0; j < i; ++j) {
      const double* in = G + j * C * kRows;
      const arma::uword o = block(j, i) + a0 * C;
      double* g = g_ + o;
      const double* x = xc_ + o;
      for (arma::uword t = t0; t < t1; ++t)
        for (arma::uword b = 0; b < C; ++b) {
          const arma::uword k = (t - t0) * C + b;
          g[k] = g[k] + in[b * kRows + t] + c_ * x[k];
        }
    }
  });
}

namespace {

// The sequences of nonzero weight and the columns of W each adds (j C + s_j).
struct PanelBatch {
  arma::uword L, C, n, panels, rows;
  std::vector<arma::uword> used;
  const arma::uword* cols;
};

// Panels a thread takes between two rounds of drains (when threaded).
constexpr arma::uword kPanelsPerThread = 8;

// body(p, B) for every panel p, each with a buffer B of its own (16 x n);
// with K > 1 threads, K * 8 panels side by side in a round, 8 consecutive
// ones per thread, then after(p0, count, B, size) for the round's panels
// p0.. p0 + count - 1 (buffer k at B + k size). A panel's arithmetic is the
// same whichever thread runs it, so the bits do not depend on K.
template <class Body, class After>
void for_panels(const PanelBatch& pb, PanelWorkspace& work, Body body, After after) {
  const auto K = arma::uword(parallel_threads());
  const arma::uword slots = std::min(pb.panels, K == 1 ? 1 : K * kPanelsPerThread), size = kRows * pb.n;
  work.B.resize(slots * size);
  double* B = work.B.data();
  for (arma::uword p0 = 0; p0 < pb.panels; p0 += slots) {
    const arma::uword count = std::min(slots, pb.panels - p0);
    parallel_ranges(count, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) body(p0 + k, B + k * size);
    });
    after(p0, count, B, size);
  }
}

// Logits (column mu of Z): z_i(a) = h_i(a) + sum_j W_ij(a, s_j), all i at
// once (W_ii = 0), summed over j in order, the sequences two at a time; the
// padding rows stay zero. Each panel writes its own rows of Z.
void panel_logits_forward(PanelSource& source, const PanelBatch& pb, const std::vector<double>& h0,
                          PanelWorkspace& work) {
  auto body = [&](arma::uword p, double* B) {
    source.fill(p, B);
    const double* init = h0.data() + p * kRows;
    double* z = work.Z.data() + p * kRows;
    std::size_t k = 0;
    for (; k + 1 < pb.used.size(); k += 2) {
      const arma::uword m0 = pb.used[k], m1 = pb.used[k + 1];
      add_panel_columns2(B, pb.cols + m0 * pb.L, pb.cols + m1 * pb.L, pb.L, init, z + m0 * pb.rows, z + m1 * pb.rows);
    }
    if (k < pb.used.size()) add_panel_columns(B, pb.cols + pb.used[k] * pb.L, pb.L, init, z + pb.used[k] * pb.rows);
  };
  for_panels(pb, work, body, [](arma::uword, arma::uword, const double*, arma::uword) {});
}

// -log p(s_i | s_\i) summed over the sites of sequence mu (column z of Z);
// with a gradient, z becomes dLoss/dz in place, site by site:
// d(-log p)/dz_i(a) = p(a) - [a == s_i], times c = w_mu norm.
double sequence_cross_entropy(const PanelBatch& pb, const arma::imat& s, arma::uword mu, double c, bool grad,
                              double* z) {
  const arma::uword L = pb.L, C = pb.C;
  double seq = 0.0;
  for (arma::uword i = 0; i < L; ++i) seq += site_cross_entropy(z + i * C, C, arma::uword(s(mu, i)), c, grad);
  return seq;
}

// The weighted loss (times norm), the sequences side by side and their
// terms then summed in order; with a gradient, Z becomes dLoss/dz.
double panel_cross_entropy(const PanelBatch& pb, const arma::imat& s, const arma::vec& w, double norm, bool grad,
                           PanelWorkspace& work) {
  std::vector<double> seq(pb.used.size());
  parallel_ranges(
      pb.used.size(),
      [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) {
          const arma::uword mu = pb.used[k];
          seq[k] = sequence_cross_entropy(pb, s, mu, norm * w(mu), grad, work.Z.data() + mu * pb.rows);
        }
      },
      4);
  double loss = 0.0;
  for (std::size_t k = 0; k < seq.size(); ++k) loss += w(pb.used[k]) * seq[k];
  return loss * norm;
}

// dLoss/dh (C x L): each element its dz summed over the sequences in order,
// the elements side by side.
void panel_field_gradient(const PanelBatch& pb, const PanelWorkspace& work, arma::mat& dh) {
  dh.zeros(pb.C, pb.L);
  double* g = dh.memptr();
  parallel_ranges(
      pb.n,
      [&](std::size_t b, std::size_t e) {
        for (arma::uword mu : pb.used) {
          const double* dz = work.Z.data() + mu * pb.rows;
          for (std::size_t r = b; r < e; ++r) g[r] += dz[r];
        }
      },
      64);
}

// The forward pass adds column j C + s_j of W to z, so that column of dW
// gets dz; summed over the sequences in order, panel by panel, each panel
// drained in order (FullPackedPanels needs it).
void panel_logits_backward(PanelSource& source, const PanelBatch& pb, PanelWorkspace& work) {
  auto body = [&](arma::uword p, double* B) {
    std::fill(B, B + kRows * pb.n, 0.0);
    const double* dz = work.Z.data() + p * kRows;
    std::size_t k = 0;
    for (; k + 1 < pb.used.size(); k += 2) {
      const arma::uword m0 = pb.used[k], m1 = pb.used[k + 1];
      add_to_panel_columns2(B, pb.cols + m0 * pb.L, pb.cols + m1 * pb.L, pb.L, dz + m0 * pb.rows, dz + m1 * pb.rows);
    }
    if (k < pb.used.size()) add_to_panel_columns(B, pb.cols + pb.used[k] * pb.L, pb.L, dz + pb.used[k] * pb.rows);
  };
  // The round's drains side by side, then its completions (PanelSource).
  auto drain = [&](arma::uword p0, arma::uword count, const double* B, arma::uword size) {
    parallel_ranges(count, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) source.drain(p0 + k, B + k * size);
    });
    parallel_ranges(count, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) source.complete(p0 + k, B + k * size);
    });
  };
  for_panels(pb, work, body, drain);
}

}  // namespace

double panel_data_term(PanelSource& source, arma::uword L, arma::uword C, const arma::mat& h, const arma::imat& s,
                       const arma::vec& w, bool grad, arma::mat* dh, PanelWorkspace& work) {
  const arma::uword M = s.n_rows, n = L * C, panels = (n + kRows - 1) / kRows;
  double wsum = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) wsum += w(mu);
  const double norm = 1.0 / (wsum * double(L));
  work.columns.resize(M * L);
  for (arma::uword mu = 0; mu < M; ++mu)
    for (arma::uword j = 0; j < L; ++j) work.columns[mu * L + j] = j * C + arma::uword(s(mu, j));
  PanelBatch pb{L, C, n, panels, panels * kRows, {}, work.columns.data()};
  for (arma::uword mu = 0; mu < M; ++mu)
    if (w(mu) != 0.0) pb.used.push_back(mu);
  // Fields padded to the panels' rows (zero beyond n, as the padding rows).
  std::vector<double> h0(pb.rows, 0.0);
  std::copy(h.memptr(), h.memptr() + n, h0.begin());
  work.Z.resize(pb.rows * M);

  panel_logits_forward(source, pb, h0, work);
  const double loss = panel_cross_entropy(pb, s, w, norm, grad, work);
  if (!grad) return loss;
  if (dh) panel_field_gradient(pb, work, *dh);
  panel_logits_backward(source, pb, work);
  return loss;
}

}  // namespace potts
