#include "lib/potts/gibbs.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "lib/core/error.h"

namespace potts {
namespace {

// Four doubles (GCC/Clang vector extension): element-wise IEEE operations,
// identical in value to the scalar ones (no contraction: -ffp-contract=off),
// so the vector width changes speed, never results.
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));
// Helpers are always inlined: a 32-byte vector passed between functions
// compiled for different targets (the AVX2 and baseline clones below) would
// not agree on the calling convention.
#define POTTS_INLINE inline __attribute__((always_inline))

POTTS_INLINE v4d load4(const double* p) {
  v4d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
POTTS_INLINE void store4(double* p, v4d v) { std::memcpy(p, &v, sizeof v); }
POTTS_INLINE v4i bits(v4d v) {
  v4i b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
POTTS_INLINE v4d from_bits(v4i b) {
  v4d v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
// mask ? a : b, lane by lane (mask lanes all ones or all zeros).
POTTS_INLINE v4d select(v4i mask, v4d a, v4d b) { return from_bits((bits(a) & mask) | (bits(b) & ~mask)); }

// exp(max(x, -708)), four at a time. x = n ln2 + r with n = round(x / ln2),
// |r| <= ln2/2 (Cody-Waite: ln2 split in a high part with 11 trailing zero
// bits, so n * kLn2Hi is exact); e^r by its Taylor polynomial of degree 13
// (remainder < 0.35^14/14! < 5e-18; within 2 ulp of exp overall), scaled by
// 2^n built in the exponent bits. Clamping at -708 keeps 2^n normal; such a
// weight (< 4e-308) is never drawn against one of order 1.
POTTS_INLINE v4d exp4(v4d x) {
  const double kShifter = 0x1.8p52;  // adding it rounds to an integer in the low bits
  const double kLog2e = 1.4426950408889634;
  const double kLn2Hi = 0x1.62e42fee00000p-1;
  const double kLn2Lo = 0x1.a39ef35793c76p-33;
  const v4d lo = {-708.0, -708.0, -708.0, -708.0};
  x = select(x < lo, lo, x);
  const v4d t = x * kLog2e + kShifter;
  const v4d n = t - kShifter;
  const v4d r = (x - n * kLn2Hi) - n * kLn2Lo;
  // Estrin's scheme (short dependency chains): sum_{k<=13} r^k / k!.
  const v4d r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const v4d p01 = 1.0 + r * 1.0, p23 = 0.5 + r * (1.0 / 6), p45 = 1.0 / 24 + r * (1.0 / 120);
  const v4d p67 = 1.0 / 720 + r * (1.0 / 5040), p89 = 1.0 / 40320 + r * (1.0 / 362880);
  const v4d pab = 1.0 / 3628800 + r * (1.0 / 39916800), pcd = 1.0 / 479001600 + r * (1.0 / 6227020800.0);
  const v4d p = ((p01 + r2 * p23) + r4 * (p45 + r2 * p67)) + r8 * ((p89 + r2 * pab) + r4 * pcd);
  // n sits in the low bits of t: bits(t) - bits(kShifter) = n.
  const v4d shifter = {kShifter, kShifter, kShifter, kShifter};
  return p * from_bits((bits(t) - bits(shifter) + 1023) << 52);
}

// Row states of the weight cache.
enum : unsigned char { kFresh = 0, kSumStale = 1, kStale = 2 };

// Raw view of the sampler's state for the kernel below.
struct KernelState {
  arma::uword L, C, Cp, Lp;
  bool diagonal_U;
  const double* betaJ;
  const double* Ucol;
  double *F, *W, *ref, *Z, *dU, *tmp;
  unsigned char* state;
  int* s;
  std::uint64_t updates, changes;
};

// Weights of row i from scratch: ref_i = max_a F(i, a), W(i, a) = exp(F(i, a) - ref_i).
// NV: the number of 4-vectors per row when known at compile time (0: from
// st.Cp), so that the loops over a row unroll for the paper's C = 20.
template <int NV>
POTTS_INLINE void compute_row(KernelState& st, arma::uword i) {
  const arma::uword nv = NV ? NV : st.Cp / 4;
  const double* f = st.F + i * st.Cp;
  double* w = st.W + i * st.Cp;
  v4d m = load4(f);
  for (arma::uword k = 1; k < nv; ++k) {
    const v4d v = load4(f + 4 * k);
    m = select(v > m, v, m);
  }
  double mx = m[0];
  for (int q = 1; q < 4; ++q) mx = m[q] > mx ? m[q] : mx;
  st.ref[i] = mx;
  for (arma::uword k = 0; k < nv; ++k) store4(w + 4 * k, exp4(load4(f + 4 * k) - mx));
}

// Site j changed from b to c: F(i, .) += beta J_ij (U[:, c] - U[:, b]) for
// every i (term j of eq. 5's sum; J_jj = 0 leaves row j as it is).
//  * U diagonal (U = identity): only columns b and c change; their weights
//    are updated in place against the row's reference, 2L exponentials.
//  * otherwise every entry changes and rows are recomputed when visited.
template <int NV>
POTTS_INLINE void apply_change(KernelState& st, arma::uword j, int b, int c) {
  const arma::uword L = st.L, Cp = st.Cp;
  const double* uc = st.Ucol + c * Cp;
  const double* ub = st.Ucol + b * Cp;
  const double* bj = st.betaJ + j * L;
  if (st.diagonal_U) {
    const double db = uc[b] - ub[b], dc = uc[c] - ub[c];
    double* xb = st.tmp;
    double* xc = st.tmp + st.Lp;
    for (arma::uword i = 0; i < L; ++i) {
      double* f = st.F + i * Cp;
      f[b] += bj[i] * db;
      f[c] += bj[i] * dc;
      xb[i] = f[b] - st.ref[i];
      xc[i] = f[c] - st.ref[i];
    }
    for (arma::uword k = 0; k < st.Lp; k += 4) {
      store4(xb + k, exp4(load4(xb + k)));
      store4(xc + k, exp4(load4(xc + k)));
    }
    for (arma::uword i = 0; i < L; ++i) {
      double* w = st.W + i * Cp;
      w[b] = xb[i];
      w[c] = xc[i];
      // Keep weights below e^600 so that Z cannot overflow.
      const double* f = st.F + i * Cp;
      const bool big = f[b] - st.ref[i] > 600.0 || f[c] - st.ref[i] > 600.0;
      if (big) st.state[i] = kStale;
      else if (st.state[i] == kFresh) st.state[i] = kSumStale;
    }
    return;
  }
  const arma::uword nv = NV ? NV : Cp / 4;
  for (arma::uword a = 0; a < Cp; ++a) st.dU[a] = uc[a] - ub[a];
  for (arma::uword i = 0; i < L; ++i) {
    double* f = st.F + i * Cp;
    const double g = bj[i];
    for (arma::uword k = 0; k < nv; ++k) store4(f + 4 * k, load4(f + 4 * k) + g * load4(st.dU + 4 * k));
    if (i != j) st.state[i] = kStale;
  }
}

// `rounds` passes over sites first .. last-1, each a heat-bath update from
// eq. 5. Compiled twice below (AVX2 and baseline x86-64, chosen at run
// time): the operations are the same element-wise IEEE operations in the
// same order, so both versions give identical chains (tested).
template <int NV>
POTTS_INLINE void gibbs_kernel_body(KernelState& st, Rng& rng, arma::uword first, arma::uword last,
                                    std::uint64_t rounds) {
  const arma::uword C = st.C, Cp = st.Cp, nv = NV ? NV : Cp / 4;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    for (arma::uword i = first; i < last; ++i) {
      double* w = st.W + i * Cp;
      if (st.state[i] != kFresh) {
        if (st.state[i] == kStale) compute_row<NV>(st, i);
        // Z = sum_a W(i, a) in a fixed order; a vanishing Z (every weight
        // drifted far below the reference) forces a fresh reference.
        for (int pass = 0; pass < 2; ++pass) {
          v4d acc = load4(w);
          for (arma::uword k = 1; k < nv; ++k) acc += load4(w + 4 * k);
          st.Z[i] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
          if (st.Z[i] > 1e-250 || pass == 1) break;
          compute_row<NV>(st, i);
        }
        st.state[i] = kFresh;
      }
      // Inverse CDF of w / Z, current colour first.
      const double u = rng.uniform() * st.Z[i];
      const int b = st.s[i];
      ++st.updates;
      double cum = w[b];
      if (u < cum) continue;
      int c = b;
      for (arma::uword a = 0; a < C; ++a) {
        if (static_cast<int>(a) == b) continue;
        c = static_cast<int>(a);  // the last colour if rounding leaves cum <= u
        cum += w[a];
        if (cum > u) break;
      }
      ++st.changes;
      st.s[i] = c;
      apply_change<NV>(st, i, b, c);
    }
  }
}

__attribute__((target("avx2"))) void gibbs_kernel_avx2(KernelState& st, Rng& rng, arma::uword first,
                                                       arma::uword last, std::uint64_t rounds) {
  if (st.Cp == 20) gibbs_kernel_body<5>(st, rng, first, last, rounds);
  else gibbs_kernel_body<0>(st, rng, first, last, rounds);
}

void gibbs_kernel_baseline(KernelState& st, Rng& rng, arma::uword first, arma::uword last, std::uint64_t rounds) {
  if (st.Cp == 20) gibbs_kernel_body<5>(st, rng, first, last, rounds);
  else gibbs_kernel_body<0>(st, rng, first, last, rounds);
}

}  // namespace

double fast_exp(double x) {
  v4d v = {x, x, x, x};
  return exp4(v)[0];
}

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
  F_.assign(L_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  W_.assign(L_ * Cp_ / 4, Lane4{{0, 0, 0, 0}});
  ref_.assign(L_, 0.0);
  Z_.assign(L_, 0.0);
  state_.assign(L_, kStale);
  dU_.assign(Cp_ / 4, Lane4{{0, 0, 0, 0}});
  tmp_.assign(2 * Lp_ / 4, Lane4{{0, 0, 0, 0}});
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
  }
}

void GibbsSampler::run(std::uint64_t rounds, arma::uword first, arma::uword last) {
  KernelState st{L_,        C_,        Cp_,         Lp_,       diagonal_U_, betaJ_.data(), ptr(Ucol_),
                 ptr(F_),   ptr(W_),   ref_.data(), Z_.data(), ptr(dU_),    ptr(tmp_),     state_.data(),
                 s_.data(),   updates_,    changes_};
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2 && !baseline_kernel_) gibbs_kernel_avx2(st, rng_, first, last, rounds);
  else gibbs_kernel_baseline(st, rng_, first, last, rounds);
  updates_ = st.updates;
  changes_ = st.changes;
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

arma::mat GibbsSampler::fields() const {
  arma::mat F(L_, C_);
  for (arma::uword i = 0; i < L_; ++i)
    for (arma::uword a = 0; a < C_; ++a) F(i, a) = ptr(F_)[i * Cp_ + a];
  return F;
}

}  // namespace potts
