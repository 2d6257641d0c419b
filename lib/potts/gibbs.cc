#include "lib/potts/gibbs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "lib/core/error.h"
#include "lib/core/isa.h"
#include "lib/linalg/vexp.h"

namespace potts {
namespace {

using namespace simd;

// Row states of the weight cache.
enum : unsigned char { kFresh = 0, kSumStale = 1, kStale = 2 };

// Raw view of the sampler's state for the kernel below.
struct KernelState {
  arma::uword L, C, Cp, Lp;
  bool diagonal_U;
  const double* betaJ;
  const double* Ucol;
  double *F, *W, *ref, *Z, *tmp;
  unsigned char* state;
  int* s;
  std::uint64_t updates, changes;
  // Dense U: change log (see gibbs.h).
  arma::uword R;
  double* log_dU;
  int* log_site;
  arma::uword* log_off;  // log_site * L: row of betaJ
  std::uint64_t* synced;
  std::uint64_t nlog;
  // Dense U (never set for a diagonal U), C a multiple of 4 (no padding),
  // and sum_j |beta J_ij| (max U - min U) < 600 for every row i, so
  // that |F(i, a) - F(i, b)| < 600 always (a bound, up to rounding drift far
  // below 1): no weight can exceed e^600 or fall below e^-708, and those
  // checks are skipped (the same values).
  bool bounded;
};

// Weights of row i from scratch: ref_i = max_a F(i, a), W(i, a) = exp(F(i, a) - ref_i).
// NV: the number of 4-vectors per row when known at compile time (0: from
// ks.Cp), so that the loops over a row unroll for the paper's C = 20.
template <int NV>
POTTS_INLINE void compute_row(KernelState& ks, arma::uword i) {
  const arma::uword nv = NV ? NV : ks.Cp / 4;
  const double* f = ks.F + i * ks.Cp;
  double* w = ks.W + i * ks.Cp;
  v4d m = load4(f);
  for (arma::uword k = 1; k < nv; ++k) {
    const v4d v = load4(f + 4 * k);
    m = select(v > m, v, m);
  }
  double mx = m[0];
  for (int q = 1; q < 4; ++q) mx = m[q] > mx ? m[q] : mx;
  ks.ref[i] = mx;
#pragma GCC unroll 8
  for (arma::uword k = 0; k < nv; ++k) store4(w + 4 * k, exp4(load4(f + 4 * k) - mx));
}

// Site j changed from b to c: F(i, .) += beta J_ij (U[:, c] - U[:, b]) for
// every i (term j of eq. 5's sum; J_jj = 0 leaves row j as it is).
//  * U diagonal (U = identity): only columns b and c change; their weights
//    are updated in place against the row's reference, 2L exponentials.
//  * otherwise every entry changes: the change is logged (site j and
//    U[:, c] - U[:, b]) and each row applies it when next drawn (dense_row):
//    one pass over the row per pending change, in registers, instead of a
//    pass over all L rows (loads and stores) per change.
template <int NV>
POTTS_INLINE void apply_change(KernelState& ks, arma::uword j, int b, int c) {
  const arma::uword L = ks.L, Cp = ks.Cp;
  const double* uc = ks.Ucol + c * Cp;
  const double* ub = ks.Ucol + b * Cp;
  const double* bj = ks.betaJ + j * L;
  if (ks.diagonal_U) {
    const double db = uc[b] - ub[b], dc = uc[c] - ub[c];
    double* xb = ks.tmp;
    double* xc = ks.tmp + ks.Lp;
    for (arma::uword i = 0; i < L; ++i) {
      double* f = ks.F + i * Cp;
      f[b] += bj[i] * db;
      f[c] += bj[i] * dc;
      xb[i] = f[b] - ks.ref[i];
      xc[i] = f[c] - ks.ref[i];
    }
    for (arma::uword k = 0; k < ks.Lp; k += 4) {
      store4(xb + k, exp4(load4(xb + k)));
      store4(xc + k, exp4(load4(xc + k)));
    }
    for (arma::uword i = 0; i < L; ++i) {
      double* w = ks.W + i * Cp;
      w[b] = xb[i];
      w[c] = xc[i];
      // Keep weights below e^600 so that Z cannot overflow.
      const double* f = ks.F + i * Cp;
      const bool big = f[b] - ks.ref[i] > 600.0 || f[c] - ks.ref[i] > 600.0;
      if (big)
        ks.state[i] = kStale;
      else if (ks.state[i] == kFresh)
        ks.state[i] = kSumStale;
    }
    return;
  }
  // Dense U: log the change; rows catch up when drawn (dense_row).
  const arma::uword nv = NV ? NV : Cp / 4;
  const std::uint64_t slot = ks.nlog & (ks.R - 1);
  double* d = ks.log_dU + slot * Cp;
  for (arma::uword k = 0; k < nv; ++k) store4(d + 4 * k, load4(uc + 4 * k) - load4(ub + 4 * k));
  ks.log_site[slot] = static_cast<int>(j);
  ks.log_off[slot] = j * L;
  ++ks.nlog;
}

// Dense U: brings row i of F up to date and computes its weights and Z.
// Pending changes (at most R) are applied in log order: F(i, .) += beta J_ij
// (U[:, c] - U[:, b]) (J_ii = 0: a change of site i itself adds zeros); more
// than R pending (only possible with update() out of the cyclic order)
// recomputes the row from scratch, j ascending, as refresh_fields does.
// The reference is the field of the current colour b, ref_i = F(i, b), so
// that W(i, b) = 1 exactly (and Z >= 1); should any F(i, a) - ref_i exceed
// 600 the row's max is used instead (no weight above 1).
// Row i's fields brought up to date (in f, and for NV > 0 also in the
// registers fr); returns ref_i = F(i, b).
template <int NV>
POTTS_INLINE double dense_fields(KernelState& ks, arma::uword i, double* f, v4d* fr) {
  constexpr int NR = NV ? NV : 1;
  const arma::uword L = ks.L, Cp = NV ? 4 * NV : ks.Cp, nv = NV ? NV : Cp / 4;
  const int b = ks.s[i];
  const std::uint64_t pending = ks.nlog - ks.synced[i];
  ks.synced[i] = ks.nlog;
  double ref;
  if (pending > ks.R) {
    const double inf = std::numeric_limits<double>::infinity();
    for (arma::uword a = 0; a < Cp; ++a) f[a] = a < ks.C ? 0.0 : -inf;
    for (arma::uword j = 0; j < L; ++j) {
      const double g = ks.betaJ[j * L + i];
      const double* u = ks.Ucol + ks.s[j] * Cp;
      for (arma::uword k = 0; k < nv; ++k) store4(f + 4 * k, load4(f + 4 * k) + g * load4(u + 4 * k));
    }
    ref = f[b];
    if (NV)
      for (int k = 0; k < NR; ++k) fr[k] = load4(f + 4 * k);
  } else if (NV) {
    // In registers; ref follows lane b with the same scalar operations.
    ref = f[b];
#pragma GCC unroll 8
    for (int k = 0; k < NR; ++k) fr[k] = load4(f + 4 * k);
    for (std::uint64_t e = ks.nlog - pending; e < ks.nlog; ++e) {
      const std::uint64_t slot = e & (ks.R - 1);
      const double g = ks.betaJ[ks.log_off[slot] + i];
      const double* d = ks.log_dU + slot * Cp;
      ref += g * d[b];
#pragma GCC unroll 8
      for (int k = 0; k < NR; ++k) fr[k] += g * load4(d + 4 * k);
    }
#pragma GCC unroll 8
    for (int k = 0; k < NR; ++k) store4(f + 4 * k, fr[k]);
  } else {
    for (std::uint64_t e = ks.nlog - pending; e < ks.nlog; ++e) {
      const std::uint64_t slot = e & (ks.R - 1);
      const double g = ks.betaJ[ks.log_site[slot] * L + i];
      const double* d = ks.log_dU + slot * Cp;
      for (arma::uword k = 0; k < nv; ++k) store4(f + 4 * k, load4(f + 4 * k) + g * load4(d + 4 * k));
    }
    ref = f[b];
  }
  return ref;
}

// The reference: ref, unless some F(i, a) - ref exceeds 600 (a weight above
// e^600), then the row's max.
template <int NV, bool kBounded>
POTTS_INLINE double dense_reference(const KernelState& ks, const double* f, const v4d* fr, double ref) {
  constexpr int NR = NV ? NV : 1;
  const arma::uword nv = NV ? NV : ks.Cp / 4;
  if (kBounded) return ref;  // |F(i, a) - F(i, b)| <= bound < 600 (see KernelState::bounded)
  const v4d big = {600.0, 600.0, 600.0, 600.0};
  const v4d refv = {ref, ref, ref, ref};
  v4i over = {0, 0, 0, 0};
  if (NV) {
#pragma GCC unroll 8
    for (int k = 0; k < NR; ++k) over |= (v4i)(fr[k] - refv > big);
  } else {
    for (arma::uword k = 0; k < nv; ++k) over |= (v4i)(load4(f + 4 * k) - refv > big);
  }
  if (!((over[0] | over[1]) | (over[2] | over[3]))) return ref;
  v4d m = load4(f);
  for (arma::uword k = 1; k < nv; ++k) {
    const v4d v = load4(f + 4 * k);
    m = select(v > m, v, m);
  }
  ref = m[0];
  for (int q = 1; q < 4; ++q) ref = m[q] > ref ? m[q] : ref;
  return ref;
}

// W(i, a) = exp(F(i, a) - ref) into w; Z = the sum of the 4-vectors in
// order, then (z0 + z1) + (z2 + z3).
template <int NV, bool kBounded>
POTTS_INLINE double dense_weights(const KernelState& ks, const double* f, const v4d* fr, double ref, double* w) {
  constexpr int NR = NV ? NV : 1;
  const arma::uword nv = NV ? NV : ks.Cp / 4;
  const v4d refv = {ref, ref, ref, ref};
  v4d acc;
  if (NV) {
    acc = exp4<!kBounded>(fr[0] - refv);
    store4(w, acc);
#pragma GCC unroll 8
    for (int k = 1; k < NR; ++k) {
      const v4d x = exp4<!kBounded>(fr[k] - refv);
      store4(w + 4 * k, x);
      acc += x;
    }
  } else {
    acc = exp4<!kBounded>(load4(f) - refv);
    store4(w, acc);
    for (arma::uword k = 1; k < nv; ++k) {
      const v4d x = exp4<!kBounded>(load4(f + 4 * k) - refv);
      store4(w + 4 * k, x);
      acc += x;
    }
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

template <int NV, bool kBounded>
POTTS_INLINE double dense_row(KernelState& ks, arma::uword i) {
  constexpr int NR = NV ? NV : 1;
  const arma::uword Cp = NV ? 4 * NV : ks.Cp;
  double* f = ks.F + i * Cp;
  v4d fr[NR];
  const double ref = dense_reference<NV, kBounded>(ks, f, fr, dense_fields<NV>(ks, i, f, fr));
  ks.ref[i] = ref;
  const double Z = dense_weights<NV, kBounded>(ks, f, fr, ref, ks.W + i * Cp);
  ks.Z[i] = Z;
  return Z;  // to the draw in a register, not through memory
}

// Inverse-CDF draw for site i with weights w (Z their sum, current colour b
// first, then the others ascending; see gibbs.h). Branch-free search: the
// cumulative weights of the other colours (w_b set to zero) by an in-lane
// prefix sum per 4-vector plus a running carry, and the new colour is the
// number of them <= u - w_b (monotone, so that count is the first index whose
// cumulative weight exceeds it). Rounding may leave every cumulative weight
// <= u - w_b: then the last colour other than b, as a sequential scan would.
template <int NV>
POTTS_INLINE int draw(const KernelState& ks, const double* w, double wb, double Z, int b, double uniform) {
  const double u = uniform * Z;
  if (u < wb) return b;
  const double up = u - wb;
  const arma::uword nv = NV ? NV : ks.Cp / 4;
  const v4d zero = {0.0, 0.0, 0.0, 0.0};
  const v4d upv = {up, up, up, up};
  const v4i s1 = {4, 0, 4, 2}, s2 = {4, 4, 1, 1}, s3 = {3, 3, 3, 3};
  v4i lane = {0, 1, 2, 3};
  const v4i four = {4, 4, 4, 4}, bv = {b, b, b, b};
  v4d carry = zero;
  v4i count = {0, 0, 0, 0};
  for (arma::uword k = 0; k < nv; ++k) {
    v4d x = select(lane == bv, zero, load4(w + 4 * k));
    x += __builtin_shuffle(x, zero, s1);  // x0, x0+x1, x2, x2+x3
    x += __builtin_shuffle(x, zero, s2);  // x0, x0+x1, (x0+x1)+x2, (x0+x1)+(x2+x3)
    const v4d cum = carry + x;
    count += (v4i)(cum <= upv);  // -1 per lane at or below
    carry = __builtin_shuffle(cum, s3);
    lane += four;
  }
  const int c = static_cast<int>(-((count[0] + count[1]) + (count[2] + count[3])));
  const int C = static_cast<int>(ks.C);
  if (c < C) return c;
  return b == C - 1 ? C - 2 : C - 1;
}

// `rounds` passes over sites first .. last-1, each a heat-bath update from
// eq. 5. Cloned per level below: the operations are the same element-wise
// IEEE operations in the same order, so every level gives the same chain
// (tested at every level).
template <int NV, bool kBounded>
POTTS_INLINE void gibbs_kernel_body(KernelState& ks, Rng& rng, arma::uword first, arma::uword last,
                                    std::uint64_t rounds) {
  const arma::uword Cp = ks.Cp, nv = NV ? NV : Cp / 4;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    for (arma::uword i = first; i < last; ++i) {
      double* w = ks.W + i * Cp;
      double Z;
      if (!ks.diagonal_U) {
        // Dense U: every change of another site alters the whole row.
        if (ks.synced[i] != ks.nlog || ks.state[i] != kFresh) {
          Z = dense_row<NV, kBounded>(ks, i);
          ks.state[i] = kFresh;
        } else {
          Z = ks.Z[i];
        }
      } else {
        if (ks.state[i] != kFresh) {
          if (ks.state[i] == kStale) compute_row<NV>(ks, i);
          // Z = sum_a W(i, a) in a fixed order; a vanishing Z (every weight
          // drifted far below the reference) forces a fresh reference.
          for (int pass = 0; pass < 2; ++pass) {
            v4d acc = load4(w);
            for (arma::uword k = 1; k < nv; ++k) acc += load4(w + 4 * k);
            ks.Z[i] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            if (ks.Z[i] > 1e-250 || pass == 1) break;
            compute_row<NV>(ks, i);
          }
          ks.state[i] = kFresh;
        }
        Z = ks.Z[i];
      }
      const int b = ks.s[i];
      ++ks.updates;
      // w_b = 1 exactly on the bounded dense path (ref_i = F(i, b), exp(0) = 1):
      // a constant keeps the load of the just stored weight off the chain.
      const double wb = kBounded ? 1.0 : w[b];
      const int c = draw<NV>(ks, w, wb, Z, b, rng.uniform());
      if (c == b) continue;
      ++ks.changes;
      ks.s[i] = c;
      apply_change<NV>(ks, i, b, c);
    }
  }
}

// The kernel, cloned per instruction-set level (lib/core/isa.h).
POTTS_ISA_CLONED_AVX2 void gibbs_kernel(KernelState& ks, Rng& rng, arma::uword first, arma::uword last,
                                        std::uint64_t rounds) {
  if (ks.Cp == 20 && ks.bounded)
    gibbs_kernel_body<5, true>(ks, rng, first, last, rounds);
  else if (ks.Cp == 20)
    gibbs_kernel_body<5, false>(ks, rng, first, last, rounds);
  else
    gibbs_kernel_body<0, false>(ks, rng, first, last, rounds);
}

}  // namespace

GibbsSampler::GibbsSampler(const PottsModel& model, std::uint64_t seed, std::uint64_t stream)
    : L_(model.L()), C_(model.C()), Cp_((model.C() + 3) / 4 * 4), Lp_((model.L() + 3) / 4 * 4), rng_(seed, stream) {
  if (L_ < 2 || C_ < 2) throw StageError("GibbsSampler: need L >= 2 and C >= 2");
  if (model.colour_similarity_U.n_cols != C_ || model.couplings_J.n_cols != L_)
    throw StageError("GibbsSampler: J must be L x L and U C x C");
  betaJ_.assign(L_ * L_, 0.0);
  for (arma::uword j = 0; j < L_; ++j)
    for (arma::uword i = 0; i < L_; ++i) betaJ_[j * L_ + i] = i == j ? 0.0 : model.beta * model.couplings_J(i, j);
  Ucol_.assign(C_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  for (arma::uword c = 0; c < C_; ++c)
    for (arma::uword a = 0; a < C_; ++a) ptr(Ucol_)[c * Cp_ + a] = model.colour_similarity_U(a, c);
  diagonal_U_ = model.colour_similarity_U.is_diagmat();
  const double u_range = model.colour_similarity_U.max() - model.colour_similarity_U.min();
  double bound = 0.0;
  for (arma::uword i = 0; i < L_; ++i) {
    double row = 0.0;
    for (arma::uword j = 0; j < L_; ++j) row += std::fabs(betaJ_[j * L_ + i]);
    bound = std::max(bound, row * u_range);
  }
  // No padding either: exp4 without the clamp must not see the -inf padding.
  bounded_ = !diagonal_U_ && C_ == Cp_ && bound < 600.0;  // NaN (a NaN beta or J): not bounded
  F_.assign(L_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  W_.assign(L_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  ref_.assign(L_, 0.0);
  Z_.assign(L_, 0.0);
  state_.assign(L_, kStale);
  tmp_.assign(2 * Lp_ / 4, Lane4{{0, 0, 0, 0}});
  R_ = 1;
  while (R_ <= L_) R_ *= 2;
  log_dU_.assign(R_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  log_site_.assign(R_, 0);
  log_off_.assign(R_, 0);
  synced_.assign(L_, 0);
  s_.resize(L_);
  for (arma::uword i = 0; i < L_; ++i) s_[i] = static_cast<int>(rng_.below(C_));
  refresh_fields();
}

void GibbsSampler::refresh_fields() {
  const double pad = -std::numeric_limits<double>::infinity();
  for (arma::uword i = 0; i < L_; ++i) {
    double* f = ptr(F_) + i * Cp_;
    for (arma::uword a = 0; a < Cp_; ++a) f[a] = a < C_ ? 0.0 : pad;
    for (arma::uword j = 0; j < L_; ++j) {
      const double bj = betaJ_[j * L_ + i];
      const double* u = ptr(Ucol_) + s_[j] * Cp_;
      for (arma::uword a = 0; a < C_; ++a) f[a] += bj * u[a];
    }
    state_[i] = kStale;
    synced_[i] = nlog_;
  }
}

void GibbsSampler::run(std::uint64_t rounds, arma::uword first, arma::uword last) {
  KernelState ks{L_,       C_,       Cp_,         Lp_,          diagonal_U_,      betaJ_.data(),   ptr(Ucol_),
                 ptr(F_),  ptr(W_),  ref_.data(), Z_.data(),    ptr(tmp_),        state_.data(),   s_.data(),
                 updates_, changes_, R_,          ptr(log_dU_), log_site_.data(), log_off_.data(), synced_.data(),
                 nlog_,    bounded_};
  gibbs_kernel(ks, rng_, first, last, rounds);
  updates_ = ks.updates;
  changes_ = ks.changes;
  nlog_ = ks.nlog;
}

void GibbsSampler::update(arma::uword i) {
  if (i >= L_) throw StageError("GibbsSampler::update: site out of range");
  run(1, i, i + 1);
}

void GibbsSampler::sweep() { sweeps(1); }

// Sweeps in chunks that end on the refresh schedule (every refresh_sweeps_
// sweeps counted from the start of the chain).
void GibbsSampler::sweeps(std::uint64_t n) {
  while (n > 0) {
    std::uint64_t chunk = n;
    if (refresh_sweeps_) chunk = std::min(n, refresh_sweeps_ - sweeps_done_ % refresh_sweeps_);
    run(chunk, 0, L_);
    sweeps_done_ += chunk;
    n -= chunk;
    if (refresh_sweeps_ && sweeps_done_ % refresh_sweeps_ == 0) refresh_fields();
  }
}

arma::irowvec GibbsSampler::sequence() const {
  arma::irowvec s(L_);
  for (arma::uword i = 0; i < L_; ++i) s(i) = s_[i];
  return s;
}

void GibbsSampler::set_sequence(const arma::irowvec& s) {
  if (s.n_elem != L_) throw StageError("GibbsSampler::set_sequence: expected a sequence of length L");
  for (arma::uword i = 0; i < L_; ++i) {
    if (s(i) < 0 || s(i) >= static_cast<arma::sword>(C_))
      throw StageError("GibbsSampler::set_sequence: colour out of range 0..C-1");
    s_[i] = static_cast<int>(s(i));
  }
  refresh_fields();
}

// Dense U: rows with pending changes are brought up to date in a copy, with
// the same operations in the same order as the kernel's dense_row (so the
// values are those the chain will use).
arma::mat GibbsSampler::fields() const {
  arma::mat F(L_, C_);
  std::vector<double> f(Cp_);
  for (arma::uword i = 0; i < L_; ++i) {
    std::copy(ptr(F_) + i * Cp_, ptr(F_) + (i + 1) * Cp_, f.begin());
    const std::uint64_t pending = diagonal_U_ ? 0 : nlog_ - synced_[i];
    if (pending > R_) {
      for (arma::uword a = 0; a < Cp_; ++a) f[a] = 0.0;
      for (arma::uword j = 0; j < L_; ++j)
        for (arma::uword a = 0; a < Cp_; ++a) f[a] += betaJ_[j * L_ + i] * ptr(Ucol_)[s_[j] * Cp_ + a];
    } else {
      for (std::uint64_t e = nlog_ - pending; e < nlog_; ++e) {
        const std::uint64_t slot = e & (R_ - 1);
        for (arma::uword a = 0; a < Cp_; ++a) f[a] += betaJ_[log_site_[slot] * L_ + i] * ptr(log_dU_)[slot * Cp_ + a];
      }
    }
    for (arma::uword a = 0; a < C_; ++a) F(i, a) = f[a];
  }
  return F;
}

}  // namespace potts
