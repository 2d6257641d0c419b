// Single-chain Gibbs sampler of the generalised Potts model (paper/spec.md §1).
//
// Sites are updated cyclically, i = 0 .. L-1 (one sweep = L updates), each
// from its exact conditional (eq. 5)
//
//   p(s_i = a | s_\i) = softmax_a( F(i, a) ),   F(i, a) = beta sum_{j != i} J_ij U[a, s_j].
//
// The local fields F (L x C) are kept up to date incrementally: when site j
// changes from colour b to colour c, every row i gains beta J_ij (U[:, c] -
// U[:, b]); J_jj = 0 leaves row j itself unchanged. A site whose colour does
// not change costs only the draw. Every `refresh_sweeps` sweeps the fields
// are recomputed from scratch (a fixed schedule, so rounding drift is bounded
// and the chain stays deterministic).
//
// A draw uses one uniform u from Rng(seed, stream) and the inverse CDF of
// the softmax weights w_a = exp(F(i, a) - ref_i), Z = sum_a w_a, with the
// colours in the order: current colour b first, then the others ascending.
// So the site keeps b iff u Z < w_b (one comparison), else the first colour
// whose cumulative weight exceeds u Z is taken (found without branches).
// Any fixed order is an exact inverse CDF. The weights of site i are cached
// and recomputed only when row i of F has changed since.
//  * Diagonal U (the standard Potts model): a change of s_j from b to c
//    touches only columns b and c of F, and just those weights are updated
//    (2L exponentials), relative to a per-row reference (the row's max when
//    last computed in full; computed afresh when a weight would exceed e^600
//    or the row's sum falls below 1e-250).
//  * Dense U: a change is only logged (site j, U[:, c] - U[:, b]); row i
//    applies the changes logged since its last draw, in log order, when it
//    is next drawn, then recomputes its C weights with ref_i = F(i, b) (so
//    w_b = 1), or the row's max should a weight exceed ~e^600 (the checks
//    are skipped when sum_j |beta J_ij| (max U - min U) < 600 for all i
//    rules that out). Applying a row's pending changes in one pass or several
//    gives the same bits, so when rows catch up does not change the chain.
// exp is simd::exp4 (lib/linalg/vexp.h: our own, table-driven, the same bits
// on every machine and library, within 2 ulp of exp; clamped at -708, and a
// weight below e^-708 against one of order 1 is never drawn), so the chain
// is exact up to double rounding and depends on (seed, stream) only, not on
// the instruction-set level (every level's kernel gives the same chain).
//
// Tested by //lib/potts:gibbs_test.
#pragma once
#include <cstdint>
#include <vector>

#include <armadillo>

#include "lib/core/rng.h"
#include "lib/potts/model.h"

namespace potts {

class GibbsSampler {
 public:
  // Initial sequence uniformly random (first L draws of the stream), as in
  // the paper (appendix A).
  GibbsSampler(const PottsModel& model, std::uint64_t seed, std::uint64_t stream);

  // One sweep: updates sites 0 .. L-1 in order.
  void sweep();
  void sweeps(std::uint64_t n);
  // One heat-bath update of site i from eq. 5 (public for tests).
  void update(arma::uword i);

  arma::irowvec sequence() const;
  // Replaces the state and recomputes the fields.
  void set_sequence(const arma::irowvec& s);
  // The incrementally maintained fields F (L x C).
  arma::mat fields() const;
  // Recomputes F from scratch: F(i, a) = sum_j betaJ(i, j) U[a, s_j], j ascending.
  void refresh_fields();
  // Recompute the fields every n sweeps (0: never; default 1000).
  void set_refresh_sweeps(std::uint64_t n) { refresh_sweeps_ = n; }

  std::uint64_t updates() const { return updates_; }
  std::uint64_t changes() const { return changes_; }  // updates that changed the colour
  arma::uword L() const { return L_; }
  arma::uword C() const { return C_; }

 private:
  void run(std::uint64_t rounds, arma::uword first, arma::uword last);

  arma::uword L_, C_, Cp_, Lp_;  // Cp_, Lp_: C, L padded to a multiple of 4 (vector width)
  bool diagonal_U_ = false;
  bool bounded_ = false;       // see KernelState::bounded in gibbs.cc
  std::vector<double> betaJ_;  // L x L: row j holds beta J_{., j} (symmetric), contiguous
  // Buffers of whole 32-byte-aligned groups of 4 doubles, so that no vector
  // access straddles a cache line.
  struct alignas(32) Lane4 {
    double v[4];
  };
  static double* ptr(std::vector<Lane4>& b) { return b.empty() ? nullptr : b[0].v; }
  static const double* ptr(const std::vector<Lane4>& b) { return b.empty() ? nullptr : b[0].v; }
  std::vector<Lane4> Ucol_;           // C x Cp: row c holds column c of U, zero padded
  std::vector<Lane4> F_;              // L x Cp: row i holds F(i, .); padding -inf (weight ~0)
  std::vector<Lane4> W_;              // L x Cp: cached weights exp(F(i, a) - ref_i)
  std::vector<double> ref_;           // L: reference of row i (see above)
  std::vector<double> Z_;             // L: cached sum of row i of W
  std::vector<unsigned char> state_;  // L: whether W, Z of row i are current
  // Dense U: log of the last R colour changes (R a power of 2 > L): entry k
  // (slot k mod R) holds the site j that changed and U[:, c] - U[:, b].
  // Row i of F has had the first synced_[i] changes applied; the rest are
  // applied, in order, when site i is next drawn (fields() applies them to a
  // copy). More than R pending (only with update() out of the cyclic order)
  // recomputes the row from scratch instead.
  arma::uword R_ = 0;
  std::vector<Lane4> log_dU_;          // R x Cp
  std::vector<int> log_site_;          // R
  std::vector<arma::uword> log_off_;   // R: log_site_ * L
  std::vector<std::uint64_t> synced_;  // L
  std::uint64_t nlog_ = 0;
  std::vector<Lane4> tmp_;  // scratch: 2 Lp
  std::vector<int> s_;
  Rng rng_;
  std::uint64_t refresh_sweeps_ = 1000, sweeps_done_ = 0, updates_ = 0, changes_ = 0;
};

}  // namespace potts
