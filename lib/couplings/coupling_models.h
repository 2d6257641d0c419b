// Coupling models of a sequence family fitted by weighted pseudo-likelihood,
// in the forms the protein-contact literature uses: the full model (plmDCA),
// factored attention with H heads (the paper's eq. 4 summed over heads), and
// factored attention with positional softmax queries and keys (Bhattacharya
// et al., "Single layers of attention suffice to predict protein contacts",
// 2020). Each form is a map from its parameters to couplings W and fields h;
// one data term serves them all.
//
// Conditionals (every form): for sequence s of length L over C states,
//
//   p(s_i = a | s_\i) = softmax_a( h_i(a) + sum_{j != i} W_ij(a, s_j) ).
//
// Forms (W_ij is the C x C block of the LC x LC matrix W at rows iC..,
// columns jC..; W_ii = 0):
//   full:     W_ij free with W_ji = W_ij^T (lib/plm/pseudo_likelihood.h);
//   factored: W_ij = sum_h A^h_ij V^h, A^h L x L (zero diagonal), V^h C x C;
//             H = 1 without fields is lib/nn's FactoredAttention (eq. 4);
//   softmax:  as factored with A^h_ij = softmax_{j != i}(q^h_i . k^h_j / sqrt(d)),
//             positional queries and keys q^h_i, k^h_j of dimension d.
// In both factored forms V^h may be of rank r, V^h = E^h F^h^T (E, F: C x r),
// and the couplings may be symmetrised, W <- (W + W^T) / 2 (as a matrix of
// (site, state) pairs), so that W_ji = W_ij^T as in the full model.
//
// Objective, with sequence weights w_mu (lib/proteins/msa.h
// sequence_weights; all ones: every sequence counts once):
//
//   loss = (1 / (L sum_mu w_mu)) sum_mu w_mu sum_i -log p(s_i^mu | s_\i^mu)
//          + lambda_h ||h||^2 + lambda_c ||theta_c||^2 + lambda_w ||W||^2
//
// theta_c: the coupling parameters as packed (A and V, or q, k and V, per
// head), except for the full form, whose penalty runs over ordered pairs
// (each block twice), as in plm_objective. With unit weights the data term is
// the test loss eq. 3.
//
// Every product runs through lib/nn's hand-written gemm (each element a
// sequential sum), so that the objective has the same bits on every x86-64
// CPU; the data term in panels runs on the threads of lib/core/parallel.h
// with the same bits at every thread count (coupling_panels.h).
//
// Tested by //lib/couplings:coupling_models_test (gradients against finite
// differences; the full form against plm_objective, factored H = 1 against
// factored_objective; weights against repeated sequences).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/couplings/coupling_panels.h"

namespace potts {

enum class CouplingForm { kFull, kFactored, kSoftmax };
std::string to_string(CouplingForm f);
CouplingForm coupling_form_from_string(const std::string& s);  // "full", "factored", "softmax"

struct CouplingSpec {
  CouplingForm form = CouplingForm::kFactored;
  arma::uword L = 0, C = 0;
  arma::uword heads = 1;       // H (factored and softmax forms)
  arma::uword head_dim = 0;    // d of the queries and keys (softmax form)
  arma::uword value_rank = 0;  // r of V^h = E F^T; 0: V^h a full C x C matrix
  bool fields = false;         // single-site fields h
  bool symmetrise = false;     // W <- (W + W^T) / 2 (factored and softmax forms)

  // Throws StageError naming the inconsistent setting.
  void check() const;
  arma::uword field_count() const { return fields ? L * C : 0; }
  arma::uword coupling_parameter_count() const;
  arma::uword parameter_count() const { return field_count() + coupling_parameter_count(); }
  std::string describe() const;  // one line, e.g. "factored, H = 4, V full, fields, symmetrised"
};

struct CouplingPenalty {
  double lambda_h = 0.0;  // on the fields
  double lambda_c = 0.0;  // on the coupling parameters
  // On the couplings W themselves (every ordered pair's block, the
  // Frobenius norm squared): a penalty on what the model predicts with
  // rather than on its factors, as the observation's public implementation
  // regularises its attention model (there the norm, unsquared). Computed
  // through W (CouplingPath::kHeads is refused with it).
  double lambda_w = 0.0;
};

// Couplings W (LC x LC, zero diagonal blocks) and fields h (C x L; zero
// without fields) of the packed parameters x. Packing: h column-major (with
// fields), then per form: full: W_ij for i < j (i outer), each column-major
// in (a, b); factored: per head A^h (L x L column-major, diagonal included
// and held at zero), then V^h (C x C) or E^h, F^h (C x r); softmax: per head
// q^h, k^h (L x d column-major), then V^h or E^h, F^h.
void couplings_of(const CouplingSpec& spec, const arma::vec& x, arma::mat& W, arma::mat& h);

// The weighted data term above of couplings W and fields h on `sequences`
// (M x L, states 0..C-1) with `weights` (M, non-negative, positive sum). If
// dW (dh) is not null, writes dLoss/dW (LC x LC; diagonal blocks are
// written and unused) and dLoss/dh (C x L).
double weighted_pl_data_term(const arma::mat& W, const arma::mat& h, const arma::imat& sequences,
                             const arma::vec& weights, arma::mat* dW, arma::mat* dh);

// How the factored forms' data term is computed: through the couplings W
// (weighted_pl_data_term; 2 L^2 C operations per sequence for the term and
// its gradient, whatever H), or head by head without W (about 6 H (L^2 +
// L C^2)): kAuto takes the heads path for at most kHeadsPathMaxHeads heads
// and no symmetrisation. The two agree to rounding (different summation
// orders), each deterministic. The full form always uses W.
enum class CouplingPath { kAuto, kCouplings, kHeads };
constexpr arma::uword kHeadsPathMaxHeads = 4;

// Buffers of the full form's objective (coupling_panels.h), kept between
// the evaluations of a fit: one panel, the logits, h and dh.
struct CouplingWorkspace {
  PanelWorkspace data;
  arma::mat h, dh;
};

// The objective above and, if grad is not null, its gradient w.r.t. x. The
// full form (without lambda_w) computes in panels throughout, in `workspace`
// if given; the same bits either way.
double coupling_objective(const CouplingSpec& spec, const arma::vec& x, const arma::imat& sequences,
                          const arma::vec& weights, const CouplingPenalty& penalty, arma::vec* grad,
                          CouplingPath path = CouplingPath::kAuto, CouplingWorkspace* workspace = nullptr);

// What a softmax fit's attention became (the softmax form only): the root
// mean square of the query and key entries, and the largest weight A^h_ij
// of any head and pair against a uniform row's 1 / (L - 1). With q = k = 0
// every map is uniform and the gradient w.r.t. q and k vanishes: a
// stationary point where each pair's block is the same mean of the V^h.
struct AttentionSummary {
  double query_key_rms = 0.0, largest_weight = 0.0, uniform_weight = 0.0;
};
AttentionSummary attention_summary(const CouplingSpec& spec, const arma::vec& x);

// Fields from the weighted single-site frequencies f_i(a) with a pseudocount
// of one sequence spread evenly: h_i(a) = log f_i(a) - mean_b log f_i(b)
// (the profile model's fields).
arma::mat profile_fields(const arma::imat& sequences, const arma::vec& weights, arma::uword C);

struct CouplingInit {
  double std_couplings = 0.1;       // A or q, k entries (off the diagonal of A): N(0, std^2)
  double std_values = 0.1;          // V or E, F entries: N(0, std^2)
  bool fields_from_profile = true;  // else zero
};

// Initial point of restart r: fields from the profile (or zero), the full
// form's couplings zero, the factored forms' parameters Gaussian from
// Rng(seed + r, streams::kInit).
arma::vec coupling_initial_point(const CouplingSpec& spec, const CouplingInit& init, const arma::imat& sequences,
                                 const arma::vec& weights, std::uint64_t seed, int restart);

// Throws StageError unless `sequences` is M x L (M > 0) with states
// 0..C-1 and `weights` has M finite non-negative entries, not all zero.
void check_coupling_data(const arma::imat& sequences, const arma::vec& weights, arma::uword L, arma::uword C);

}  // namespace potts
