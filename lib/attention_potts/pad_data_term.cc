// The data term with pads from pair blocks (pad_data_term.h).
#include "lib/attention_potts/pad_data_term.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "lib/core/isa.h"
#include "lib/core/parallel.h"
#include "lib/linalg/exp.h"

namespace potts {
namespace {

// The two hot loops, cloned per instruction-set level (lib/core/isa.h; each
// lane the same additions in the same order: the same bits), with the
// alphabet's size a constant where it is the amino acids' 20.

// For sequences n0 .. n1 - 1 and pairs (i, j), j0 <= j < j1: the
// contributions of each pair to the logits of i and of j.
template <arma::uword kC>
inline __attribute__((always_inline)) void pair_logits_body(arma::uword C_arg, arma::uword L, arma::uword B,
                                                            const arma::imat& batch, const arma::mat& blocks,
                                                            const arma::mat& blocks_t, arma::uword i, arma::uword j0,
                                                            arma::uword j1, arma::uword n0, arma::uword n1,
                                                            double* logits) {
  const arma::uword C = kC ? kC : C_arg;
  // Site i's logits in a local copy (registers when C is a constant): the
  // compiler cannot tell that the stores to site j's never touch them.
  double acc[kC ? kC : 1];
  for (arma::uword n = n0; n < n1; ++n) {
    const arma::uword si = arma::uword(batch(n, i));
    double* zi = logits + C * (i + L * n);
    if (kC)
      for (arma::uword a = 0; a < kC; ++a) acc[a] = zi[a];
    double* z = kC ? acc : zi;
    for (arma::uword j = j0; j < j1; ++j) {
      const arma::uword p = pair_index(i, j, L), sj = arma::uword(batch(n, j));
      if (sj < C) {
        const double* col = blocks.colptr(p) + C * sj;  // W_ij(., s_j)
        for (arma::uword a = 0; a < C; ++a) z[a] += col[a];
      }
      if (si < C) {
        const double* row = blocks_t.colptr(p) + C * si;  // W_ji(., s_i) = W_ij(s_i, .)
        double* zj = logits + C * (j + L * n);
        for (arma::uword c = 0; c < C; ++c) zj[c] += row[c];
      }
    }
    if (kC)
      for (arma::uword a = 0; a < kC; ++a) zi[a] = acc[a];
  }
}

POTTS_ISA_CLONED void pair_logits(arma::uword C, arma::uword L, arma::uword B, const arma::imat& batch,
                                  const arma::mat& blocks, const arma::mat& blocks_t, arma::uword i, arma::uword j0,
                                  arma::uword j1, arma::uword n0, arma::uword n1, double* logits) {
  if (C == 20)
    pair_logits_body<20>(C, L, B, batch, blocks, blocks_t, i, j0, j1, n0, n1, logits);
  else
    pair_logits_body<0>(C, L, B, batch, blocks, blocks_t, i, j0, j1, n0, n1, logits);
}

// Pair (i, j)'s two gradient shares over the batch: d1 column s_j += r_i,
// d2 column s_i += r_j, sequences in order.
template <arma::uword kC>
inline __attribute__((always_inline)) void pair_gradient_body(arma::uword C_arg, arma::uword L, arma::uword B,
                                                              const arma::imat& batch, const double* residuals,
                                                              arma::uword i, arma::uword j, double* d1, double* d2) {
  const arma::uword C = kC ? kC : C_arg;
  for (arma::uword n = 0; n < B; ++n) {
    const arma::uword si = arma::uword(batch(n, i)), sj = arma::uword(batch(n, j));
    if (sj < C) {
      const double* ri = residuals + C * (i + L * n);
      double* col = d1 + C * sj;
      for (arma::uword a = 0; a < C; ++a) col[a] += ri[a];
    }
    if (si < C) {
      const double* rj = residuals + C * (j + L * n);
      double* col = d2 + C * si;
      for (arma::uword c = 0; c < C; ++c) col[c] += rj[c];
    }
  }
}

POTTS_ISA_CLONED void pair_gradient(arma::uword C, arma::uword L, arma::uword B, const arma::imat& batch,
                                    const double* residuals, arma::uword i, arma::uword j, double* d1, double* d2) {
  if (C == 20)
    pair_gradient_body<20>(C, L, B, batch, residuals, i, j, d1, d2);
  else
    pair_gradient_body<0>(C, L, B, batch, residuals, i, j, d1, d2);
}

}  // namespace

double pad_data_term(arma::uword L, arma::uword C, const arma::mat& blocks, const double* b, const arma::imat& batch,
                     double scale, PadDataWorkspace& work, arma::uword* targets, arma::mat* dblocks, double* db) {
  // Each block transposed, so that both of a pair's contributions read C
  // contiguous entries.
  const arma::uword P = L * (L - 1) / 2;
  work.blocks_t.set_size(C * C, P);
  parallel_ranges(P, [&](std::size_t p0, std::size_t p1) {
    for (arma::uword p = p0; p < p1; ++p) {
      const double* src = blocks.colptr(p);
      double* dst = work.blocks_t.colptr(p);
      for (arma::uword c = 0; c < C; ++c)
        for (arma::uword a = 0; a < C; ++a) dst[c + C * a] = src[a + C * c];
    }
  });
  return pad_data_term(L, C, blocks, work.blocks_t, b, batch, scale, work, targets, dblocks, db);
}

namespace {

// Logits z(a, n + B i) = b_i(a) + sum_{j != i, s_j < C} W_ij(a, s_j), the
// pairs in order (j ascending for every i); blocks of 64 pairs are read once
// per range of sequences.
void logits_forward(arma::uword L, arma::uword C, const arma::mat& blocks, const arma::mat& blocks_t, const double* b,
                    const arma::imat& batch, PadDataWorkspace& work) {
  const arma::uword B = batch.n_rows, block = 64;
  work.logits.set_size(C, B * L);
  parallel_ranges(B, [&](std::size_t n0, std::size_t n1) {
    for (arma::uword n = n0; n < n1; ++n) std::copy(b, b + C * L, work.logits.colptr(L * n));
    for (arma::uword i = 0; i + 1 < L; ++i)
      for (arma::uword j0 = i + 1; j0 < L; j0 += block)
        pair_logits(C, L, B, batch, blocks, blocks_t, i, j0, std::min(L, j0 + block), n0, n1, work.logits.memptr());
  });
}

// Cross-entropy of each non-pad target, per sequence; the logits become the
// residuals scale (softmax - one-hot), zero at pads. The sum over sequences
// in order; *targets gets their number.
double cross_entropy_forward(arma::uword L, arma::uword C, const arma::imat& batch, double scale,
                             PadDataWorkspace& work, arma::uword* targets) {
  const arma::uword B = batch.n_rows;
  work.seq_loss.assign(B, 0.0);
  work.seq_targets.assign(B, 0);
  parallel_ranges(B, [&](std::size_t n0, std::size_t n1) {
    std::vector<double> e(C);
    for (arma::uword n = n0; n < n1; ++n)
      for (arma::uword i = 0; i < L; ++i) {
        double* z = work.logits.colptr(i + L * n);
        const arma::uword t = arma::uword(batch(n, i));
        if (t >= C) {
          std::fill(z, z + C, 0.0);
          continue;
        }
        // Not log_softmax.h's site_cross_entropy, on purpose: one vector
        // exp (exp_nonpositive), and the gradient from e / sum, not exp(z - lse).
        double mx = z[0];
        for (arma::uword a = 1; a < C; ++a) mx = std::max(mx, z[a]);
        for (arma::uword a = 0; a < C; ++a) e[a] = z[a] - mx;
        exp_nonpositive(e.data(), C);
        double sum = 0.0;
        for (arma::uword a = 0; a < C; ++a) sum += e[a];
        work.seq_loss[n] += mx + std::log(sum) - z[t];
        work.seq_targets[n] += 1;
        const double inv = 1.0 / sum;
        for (arma::uword a = 0; a < C; ++a) z[a] = e[a] * inv * scale;
        z[t] -= scale;
      }
  });
  double ce = 0.0;
  arma::uword n_targets = 0;
  for (arma::uword n = 0; n < B; ++n) {
    ce += work.seq_loss[n];
    n_targets += work.seq_targets[n];
  }
  *targets = n_targets;
  return ce;
}

// From the residuals: db, the residuals summed over the batch in order; and
// dWs_p = sum_n r_i 1(s_j)^T + (sum_n r_j 1(s_i)^T)^T: the first share and
// the second, transposed, accumulate in two blocks of their own (each
// contiguous, in cache), then their sum is written to dblocks. Threads take
// ranges of pairs, not of sites (whose pairs number L - 1 - i).
void logits_backward(arma::uword L, arma::uword C, const arma::imat& batch, const PadDataWorkspace& work,
                     arma::mat& dblocks, double* db) {
  const arma::uword B = batch.n_rows, A2 = C * C, P = L * (L - 1) / 2;
  parallel_ranges(L, [&](std::size_t i0, std::size_t i1) {
    for (arma::uword i = i0; i < i1; ++i)
      for (arma::uword a = 0; a < C; ++a) {
        double acc = 0.0;
        for (arma::uword n = 0; n < B; ++n) acc += work.logits(a, i + L * n);
        db[a + C * i] = acc;
      }
  });
  dblocks.set_size(A2, P);
  parallel_ranges(
      P,
      [&](std::size_t p0, std::size_t p1) {
        std::vector<double> shares(2 * A2);
        double* d1 = shares.data();
        double* d2 = d1 + A2;
        arma::uword i = 0, first = 0;  // first: the pair (i, i + 1)
        while (first + (L - 1 - i) <= p0) first += L - 1 - i++;
        arma::uword j = i + 1 + (p0 - first);  // (i, j) is the pair p0
        for (arma::uword p = p0; p < p1; ++p) {
          std::fill(d1, d1 + 2 * A2, 0.0);
          pair_gradient(C, L, B, batch, work.logits.memptr(), i, j, d1, d2);
          double* out = dblocks.colptr(p);
          for (arma::uword c = 0; c < C; ++c)
            for (arma::uword a = 0; a < C; ++a) out[a + C * c] = d1[a + C * c] + d2[c + C * a];
          if (++j == L) j = ++i + 1;
        }
      },
      16);
}

}  // namespace

double pad_data_term(arma::uword L, arma::uword C, const arma::mat& blocks, const arma::mat& blocks_t, const double* b,
                     const arma::imat& batch, double scale, PadDataWorkspace& work, arma::uword* targets,
                     arma::mat* dblocks, double* db) {
  const arma::uword A2 = C * C, P = L * (L - 1) / 2;
  if (blocks.n_rows != A2 || blocks.n_cols != P || blocks_t.n_rows != A2 || blocks_t.n_cols != P)
    throw std::logic_error("pad_data_term: the blocks or their transposes do not match L and A");
  logits_forward(L, C, blocks, blocks_t, b, batch, work);
  const double ce = cross_entropy_forward(L, C, batch, scale, work, targets);
  if (dblocks != nullptr) logits_backward(L, C, batch, work, *dblocks, db);
  return ce;
}

arma::mat pair_block_norms(arma::uword L, arma::uword C, const arma::mat& blocks) {
  arma::mat F(L, L, arma::fill::zeros);
  for (arma::uword i = 0; i + 1 < L; ++i)
    for (arma::uword j = i + 1; j < L; ++j) {
      const double* w = blocks.colptr(pair_index(i, j, L));
      double s2 = 0.0;
      for (arma::uword e = 0; e < C * C; ++e) s2 += w[e] * w[e];
      F(i, j) = F(j, i) = std::sqrt(s2);
    }
  return F;
}

}  // namespace potts
