#include "lib/couplings/coupling_models.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/log_softmax.h"
#include "lib/core/rng.h"
#include "lib/linalg/gemm.h"

namespace potts {

namespace {

// C = op(A) op(B) through lib/nn's gemm (the same bits on every CPU).
arma::mat mm(const arma::mat& A, bool ta, const arma::mat& B, bool tb) {
  const arma::uword m = ta ? A.n_cols : A.n_rows, k = ta ? A.n_rows : A.n_cols;
  const arma::uword n = tb ? B.n_rows : B.n_cols;
  arma::mat C(m, n);
  if (m == 0 || n == 0) return C;
  if (k == 0) return C.zeros();
  gemm(ta, tb, m, n, k, 1.0, A.memptr(), A.n_rows, B.memptr(), B.n_rows, 0.0, C.memptr(), m);
  return C;
}

double sum_squares(const double* p, arma::uword n) {
  double s = 0.0;
  for (arma::uword k = 0; k < n; ++k) s += p[k] * p[k];
  return s;
}

// Per head, the sizes of its packed blocks.
struct HeadLayout {
  arma::uword attention = 0;  // A (L x L) or q and k (2 L d)
  arma::uword values = 0;     // V (C x C) or E and F (2 C r)
  arma::uword size() const { return attention + values; }
};

HeadLayout head_layout(const CouplingSpec& s) {
  HeadLayout h;
  h.attention = s.form == CouplingForm::kSoftmax ? 2 * s.L * s.head_dim : s.L * s.L;
  h.values = s.value_rank == 0 ? s.C * s.C : 2 * s.C * s.value_rank;
  return h;
}

// Views of one head's blocks in a packed vector (or its gradient).
struct Head {
  arma::mat A, Q, K, V, E, F;  // A: L x L; Q, K: L x d; V: C x C; E, F: C x r
};

Head read_head(const CouplingSpec& s, const double* p) {
  Head h;
  if (s.form == CouplingForm::kSoftmax) {
    h.Q = arma::mat(p, s.L, s.head_dim);
    h.K = arma::mat(p + s.L * s.head_dim, s.L, s.head_dim);
    p += 2 * s.L * s.head_dim;
  } else {
    h.A = arma::mat(p, s.L, s.L);
    h.A.diag().zeros();
    p += s.L * s.L;
  }
  if (s.value_rank == 0) {
    h.V = arma::mat(p, s.C, s.C);
  } else {
    h.E = arma::mat(p, s.C, s.value_rank);
    h.F = arma::mat(p + s.C * s.value_rank, s.C, s.value_rank);
    h.V = mm(h.E, false, h.F, true);
  }
  return h;
}

// Softmax attention of one head: row i is softmax over j != i of
// q_i . k_j / sqrt(d); the diagonal is zero.
arma::mat softmax_attention(const arma::mat& Q, const arma::mat& K) {
  const arma::uword L = Q.n_rows;
  arma::mat S = mm(Q, false, K, true) / std::sqrt(double(Q.n_cols));
  arma::mat A(L, L, arma::fill::zeros);
  for (arma::uword i = 0; i < L; ++i) {  // over j != i: not log_softmax.h's sum, on purpose
    double mx = -arma::datum::inf;
    for (arma::uword j = 0; j < L; ++j)
      if (j != i) mx = std::max(mx, S(i, j));
    double sum = 0.0;
    for (arma::uword j = 0; j < L; ++j)
      if (j != i) sum += (A(i, j) = std::exp(S(i, j) - mx));
    for (arma::uword j = 0; j < L; ++j) A(i, j) /= sum;
  }
  return A;
}

// W_ij(a, b) = sum_h A^h_ij V^h(a, b): (C^2 x H)(L^2 x H)^T, scattered into
// the LC x LC layout. `As`, `Vs`: the heads' A and V.
arma::mat factored_couplings(const std::vector<arma::mat>& As, const std::vector<arma::mat>& Vs, arma::uword L,
                             arma::uword C) {
  const arma::uword H = As.size();
  arma::mat Amat(L * L, H), Vmat(C * C, H);
  for (arma::uword h = 0; h < H; ++h) {
    Amat.col(h) = arma::vectorise(As[h]);
    Vmat.col(h) = arma::vectorise(Vs[h]);
  }
  const arma::mat Wr = mm(Vmat, false, Amat, true);  // (a + b C, i + j L)
  arma::mat W(L * C, L * C);
  for (arma::uword j = 0; j < L; ++j)
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword b = 0; b < C; ++b)
        for (arma::uword a = 0; a < C; ++a) W(i * C + a, j * C + b) = Wr(a + b * C, i + j * L);
  return W;
}

// dW in the (a + b C, i + j L) layout of factored_couplings.
arma::mat gather_blocks(const arma::mat& dW, arma::uword L, arma::uword C) {
  arma::mat Gr(C * C, L * L);
  for (arma::uword j = 0; j < L; ++j)
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword b = 0; b < C; ++b)
        for (arma::uword a = 0; a < C; ++a) Gr(a + b * C, i + j * L) = dW(i * C + a, j * C + b);
  return Gr;
}

// The data term of the factored forms head by head, without W (not
// symmetrised): z_i(a) = h_i(a) + sum_h (V^h N^h)(a, i) with
// N^h(b, i) = sum_{j : s_j = b} A^h_ij (A^h's diagonal is zero). Per sequence
// and head L^2 + L C^2 operations, and three times that with the gradient
// (dV^h += dZ N^h^T, dN^h = V^h^T dZ, dA^h_ij += dN^h(s_j, i)), against
// 2 L^2 C for adding and differentiating W's columns: the cheaper path for
// a few heads. Sums over sequences run in order (the same bits on every
// CPU). Writes dAs, dVs (per head) and dh when dh is not null.
double heads_data_term(const std::vector<arma::mat>& As, const std::vector<arma::mat>& Vs, const arma::mat& h,
                       const arma::imat& s, const arma::vec& w, std::vector<arma::mat>* dAs,
                       std::vector<arma::mat>* dVs, arma::mat* dh) {
  const arma::uword L = s.n_cols, M = s.n_rows, C = h.n_rows, H = As.size();
  double wsum = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) wsum += w(mu);
  const double norm = 1.0 / (wsum * double(L));
  const bool grad = dh != nullptr;
  if (grad) {
    dh->zeros(C, L);
    dAs->assign(H, arma::mat(L, L, arma::fill::zeros));
    dVs->assign(H, arma::mat(C, C, arma::fill::zeros));
  }
  std::vector<arma::mat> N(H, arma::mat(C, L));
  arma::mat Z(C, L), dN(C, L);
  double loss = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) {
    if (w(mu) == 0.0) continue;
    Z = h;
    for (arma::uword k = 0; k < H; ++k) {
      N[k].zeros();
      const double* A = As[k].memptr();
      double* n = N[k].memptr();
      for (arma::uword j = 0; j < L; ++j) {
        const arma::uword b = arma::uword(s(mu, j));
        for (arma::uword i = 0; i < L; ++i) n[b + i * C] += A[i + j * L];
      }
      gemm(false, false, C, L, C, 1.0, Vs[k].memptr(), C, n, C, 1.0, Z.memptr(), C);
    }
    double seq = 0.0;
    for (arma::uword i = 0; i < L; ++i)
      seq += site_cross_entropy(Z.colptr(i), C, arma::uword(s(mu, i)), norm * w(mu), grad);
    loss += w(mu) * seq;
    if (!grad) continue;
    *dh += Z;
    for (arma::uword k = 0; k < H; ++k) {
      gemm(false, true, C, C, L, 1.0, Z.memptr(), C, N[k].memptr(), C, 1.0, (*dVs)[k].memptr(), C);
      gemm(true, false, C, L, C, 1.0, Vs[k].memptr(), C, Z.memptr(), C, 0.0, dN.memptr(), C);
      double* dA = (*dAs)[k].memptr();
      const double* dn = dN.memptr();
      for (arma::uword j = 0; j < L; ++j) {
        const arma::uword b = arma::uword(s(mu, j));
        for (arma::uword i = 0; i < L; ++i) dA[i + j * L] += dn[b + i * C];
      }
    }
  }
  return loss * norm;
}

// A consistent specification and a packed point of its size.
void check_point(const CouplingSpec& s, const arma::vec& x) {
  s.check();
  if (x.n_elem != s.parameter_count())
    throw StageError("coupling model (" + s.describe() + "): " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(s.parameter_count()));
}

}  // namespace

void check_coupling_data(const arma::imat& s, const arma::vec& w, arma::uword L, arma::uword C) {
  if (s.n_rows == 0) throw StageError("coupling model: no sequences");
  if (s.n_cols != L)
    throw StageError("coupling model: sequences have " + std::to_string(s.n_cols) +
                     " columns, expected L = " + std::to_string(L));
  if (s.min() < 0 || s.max() >= arma::sword(C))
    throw StageError("coupling model: states must be in 0.." + std::to_string(C - 1));
  if (w.n_elem != s.n_rows)
    throw StageError("coupling model: " + std::to_string(w.n_elem) + " weights for " + std::to_string(s.n_rows) +
                     " sequences");
  if (!w.is_finite() || w.min() < 0.0 || !(arma::accu(w) > 0.0))
    throw StageError("coupling model: weights must be finite, non-negative and not all zero");
}

std::string to_string(CouplingForm f) {
  switch (f) {
    case CouplingForm::kFull:
      return "full";
    case CouplingForm::kFactored:
      return "factored";
    case CouplingForm::kSoftmax:
      return "softmax";
  }
  return "?";
}

CouplingForm coupling_form_from_string(const std::string& s) {
  if (s == "full") return CouplingForm::kFull;
  if (s == "factored") return CouplingForm::kFactored;
  if (s == "softmax") return CouplingForm::kSoftmax;
  throw StageError("coupling model: form \"" + s + "\": expected full, factored or softmax");
}

void CouplingSpec::check() const {
  if (L < 2 || C < 2) throw StageError("coupling model: L and C must be at least 2");
  if (form == CouplingForm::kFull) {
    if (symmetrise) throw StageError("coupling model: the full form is symmetric already (symmetrise must be off)");
    return;
  }
  if (heads < 1) throw StageError("coupling model: heads must be at least 1");
  if (form == CouplingForm::kSoftmax && head_dim < 1)
    throw StageError("coupling model: the softmax form needs a head dimension d of at least 1");
  if (form == CouplingForm::kFactored && head_dim != 0)
    throw StageError("coupling model: the factored form has no head dimension (its A^h are free)");
}

arma::uword CouplingSpec::coupling_parameter_count() const {
  if (form == CouplingForm::kFull) return L * (L - 1) / 2 * C * C;
  return heads * head_layout(*this).size();
}

std::string CouplingSpec::describe() const {
  std::string d = to_string(form);
  if (form != CouplingForm::kFull) {
    d += ", H = " + std::to_string(heads);
    if (form == CouplingForm::kSoftmax) d += ", d = " + std::to_string(head_dim);
    d += value_rank == 0 ? ", V full" : ", V of rank " + std::to_string(value_rank);
  }
  d += fields ? ", fields" : ", no fields";
  if (symmetrise) d += ", symmetrised";
  return d;
}

void couplings_of(const CouplingSpec& s, const arma::vec& x, arma::mat& W, arma::mat& h) {
  check_point(s, x);
  const arma::uword L = s.L, C = s.C;
  h.zeros(C, L);
  if (s.fields) h = arma::mat(x.memptr(), C, L);
  const double* p = x.memptr() + s.field_count();
  if (s.form == CouplingForm::kFull) {
    W.zeros(L * C, L * C);
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword j = i + 1; j < L; ++j)
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword a = 0; a < C; ++a) {
            const double w = *p++;
            W(i * C + a, j * C + b) = w;
            W(j * C + b, i * C + a) = w;
          }
    return;
  }
  const HeadLayout lay = head_layout(s);
  std::vector<arma::mat> As(s.heads), Vs(s.heads);
  for (arma::uword k = 0; k < s.heads; ++k) {
    Head hd = read_head(s, p + k * lay.size());
    As[k] = s.form == CouplingForm::kSoftmax ? softmax_attention(hd.Q, hd.K) : hd.A;
    Vs[k] = hd.V;
  }
  W = factored_couplings(As, Vs, L, C);
  if (s.symmetrise) W = 0.5 * (W + W.t());
}

AttentionSummary attention_summary(const CouplingSpec& s, const arma::vec& x) {
  if (s.form != CouplingForm::kSoftmax)
    throw StageError("attention_summary: the softmax form only, got " + s.describe());
  check_point(s, x);
  const HeadLayout lay = head_layout(s);
  const double* p = x.memptr() + s.field_count();
  AttentionSummary a;
  a.uniform_weight = 1.0 / double(s.L - 1);
  double sq = 0.0;
  for (arma::uword k = 0; k < s.heads; ++k) {
    const Head hd = read_head(s, p + k * lay.size());
    sq += sum_squares(hd.Q.memptr(), hd.Q.n_elem) + sum_squares(hd.K.memptr(), hd.K.n_elem);
    a.largest_weight = std::max(a.largest_weight, softmax_attention(hd.Q, hd.K).max());
  }
  a.query_key_rms = std::sqrt(sq / double(s.heads * 2 * s.L * s.head_dim));
  return a;
}

double weighted_pl_data_term(const arma::mat& W, const arma::mat& h, const arma::imat& s, const arma::vec& w,
                             arma::mat* dW, arma::mat* dh) {
  const arma::uword L = s.n_cols;
  if (L == 0 || W.n_rows % L != 0 || W.n_rows != W.n_cols)
    throw StageError("coupling model: W must be LC x LC for L = " + std::to_string(L));
  const arma::uword C = W.n_rows / L;
  check_coupling_data(s, w, L, C);
  if (h.n_rows != C || h.n_cols != L) throw StageError("coupling model: fields must be C x L");
  PanelWorkspace work;
  MatrixPanels panels(W, dW);
  arma::mat dh_local;
  return panel_data_term(panels, L, C, h, s, w, dW || dh, dh ? dh : &dh_local, work);
}

// The full form without a penalty on W, in panels throughout (coupling_panels.h).
static double full_objective(const CouplingSpec& s, const arma::vec& x, const arma::imat& seqs, const arma::vec& w,
                             const CouplingPenalty& pen, arma::vec* grad, CouplingWorkspace& work) {
  const arma::uword L = s.L, C = s.C, nf = s.field_count();
  check_coupling_data(seqs, w, L, C);
  work.h.zeros(C, L);
  if (s.fields) work.h = arma::mat(x.memptr(), C, L);
  const double* xc = x.memptr() + nf;
  if (grad) grad->set_size(s.parameter_count());
  FullPackedPanels panels(xc, L, C, grad ? grad->memptr() + nf : nullptr, 4.0 * pen.lambda_c);
  double f = panel_data_term(panels, L, C, work.h, seqs, w, grad != nullptr, &work.dh, work.data);
  // The penalty over ordered pairs: each stored block twice.
  const double pc = sum_squares(xc, s.coupling_parameter_count());
  f += pen.lambda_h * sum_squares(x.memptr(), nf) + pen.lambda_c * 2.0 * pc;
  if (!grad) return f;
  for (arma::uword k = 0; k < nf; ++k) (*grad)(k) = work.dh(k) + 2.0 * pen.lambda_h * x(k);
  return f;
}

// The heads path never forms W: not for the full form, symmetrised
// couplings or a penalty on W (lambda_w), which it refuses if asked.
static bool uses_heads_path(const CouplingSpec& s, CouplingPath path, const CouplingPenalty& pen) {
  if (pen.lambda_w != 0.0 && path == CouplingPath::kHeads)
    throw StageError("coupling model: a penalty on the couplings W needs them, not the heads path");
  if (s.form == CouplingForm::kFull || s.symmetrise || pen.lambda_w != 0.0) return false;
  if (path == CouplingPath::kCouplings) return false;
  if (path == CouplingPath::kHeads) return true;
  return s.heads <= kHeadsPathMaxHeads;
}

namespace {

// The heads, their attention maps and value matrices; with the gradient,
// the loss's gradient w.r.t. each, and w.r.t. the fields.
struct HeadsState {
  std::vector<Head> heads;
  std::vector<arma::mat> As, Vs, dAs, dVs;
  arma::mat dh;
};

// Head k's attention map: A itself (factored) or softmax(Q K^T / sqrt(d)).
arma::mat attention_of(const CouplingSpec& s, const Head& hd) {
  return s.form == CouplingForm::kSoftmax ? softmax_attention(hd.Q, hd.K) : hd.A;
}

// The data term by heads, never forming W (heads_data_term).
double heads_forward(const CouplingSpec& s, const arma::vec& x, const arma::imat& seqs, const arma::vec& w, bool grad,
                     HeadsState& hs) {
  const arma::uword L = s.L, C = s.C, nf = s.field_count();
  check_coupling_data(seqs, w, L, C);
  arma::mat h(C, L, arma::fill::zeros);
  if (s.fields) h = arma::mat(x.memptr(), C, L);
  const HeadLayout lay = head_layout(s);
  for (arma::uword k = 0; k < s.heads; ++k) {
    hs.heads.push_back(read_head(s, x.memptr() + nf + k * lay.size()));
    hs.As.push_back(attention_of(s, hs.heads.back()));
    hs.Vs.push_back(hs.heads.back().V);
  }
  return heads_data_term(hs.As, hs.Vs, h, seqs, w, grad ? &hs.dAs : nullptr, grad ? &hs.dVs : nullptr,
                         grad ? &hs.dh : nullptr);
}

// dA^h_ij = <dW_ij, V^h>, dV^h = sum_ij A^h_ij dW_ij: every head at once,
// (L^2 x C^2)(C^2 x H) and (C^2 x L^2)(L^2 x H), so that the gathered dW is
// read once per product rather than twice per head.
void heads_backward_from_couplings(const CouplingSpec& s, const double* xc, arma::mat& dW, HeadsState& hs) {
  const arma::uword L = s.L, C = s.C;
  const HeadLayout lay = head_layout(s);
  if (s.symmetrise) dW = 0.5 * (dW + dW.t());
  const arma::mat Gr = gather_blocks(dW, L, C);  // (a + b C, i + j L)
  dW.reset();
  arma::mat Amat(L * L, s.heads), Vmat(C * C, s.heads);
  for (arma::uword k = 0; k < s.heads; ++k) {
    hs.heads.push_back(read_head(s, xc + k * lay.size()));
    hs.As.push_back(attention_of(s, hs.heads[k]));
    Amat.col(k) = arma::vectorise(hs.As[k]);
    Vmat.col(k) = arma::vectorise(hs.heads[k].V);
  }
  const arma::mat dAmat = mm(Gr, true, Vmat, false), dVmat = mm(Gr, false, Amat, false);
  for (arma::uword k = 0; k < s.heads; ++k) {
    hs.dAs.push_back(arma::reshape(dAmat.col(k), L, L));
    hs.dVs.push_back(arma::reshape(dVmat.col(k), C, C));
  }
}

// Head k's share of the gradient (its parameters p, into gk) from dA and
// dV, with the penalty's 2 lambda_c p.
void head_backward(const CouplingSpec& s, const CouplingPenalty& pen, const HeadsState& hs, arma::uword k,
                   const double* p, double* gk) {
  const arma::uword L = s.L, C = s.C;
  const HeadLayout lay = head_layout(s);
  const Head& hd = hs.heads[k];
  const arma::mat& A = hs.As[k];
  arma::mat dA = hs.dAs[k];
  const arma::mat& dV = hs.dVs[k];
  if (s.form == CouplingForm::kSoftmax) {
    // dS_ij = A_ij (dA_ij - sum_l A_il dA_il) for j != i; S = Q K^T / sqrt(d).
    arma::mat dS(L, L, arma::fill::zeros);
    for (arma::uword i = 0; i < L; ++i) {
      double dot = 0.0;
      for (arma::uword j = 0; j < L; ++j) dot += A(i, j) * dA(i, j);
      for (arma::uword j = 0; j < L; ++j)
        if (j != i) dS(i, j) = A(i, j) * (dA(i, j) - dot);
    }
    const double r = 1.0 / std::sqrt(double(s.head_dim));
    const arma::mat dQ = r * mm(dS, false, hd.K, false), dK = r * mm(dS, true, hd.Q, false);
    const arma::uword n = L * s.head_dim;
    for (arma::uword t = 0; t < n; ++t) gk[t] = dQ(t) + 2.0 * pen.lambda_c * p[t];
    for (arma::uword t = 0; t < n; ++t) gk[n + t] = dK(t) + 2.0 * pen.lambda_c * p[n + t];
  } else {
    dA.diag().zeros();
    for (arma::uword t = 0; t < L * L; ++t) gk[t] = dA(t) + 2.0 * pen.lambda_c * p[t];
    for (arma::uword i = 0; i < L; ++i) gk[i + i * L] = 0.0;  // the diagonal is not a parameter
  }
  const double* pv = p + lay.attention;
  double* gv = gk + lay.attention;
  if (s.value_rank == 0) {
    for (arma::uword t = 0; t < C * C; ++t) gv[t] = dV(t) + 2.0 * pen.lambda_c * pv[t];
  } else {
    // V = E F^T: dE = dV F, dF = dV^T E.
    const arma::mat dE = mm(dV, false, hd.F, false), dF = mm(dV, true, hd.E, false);
    const arma::uword n = C * s.value_rank;
    for (arma::uword t = 0; t < n; ++t) gv[t] = dE(t) + 2.0 * pen.lambda_c * pv[t];
    for (arma::uword t = 0; t < n; ++t) gv[n + t] = dF(t) + 2.0 * pen.lambda_c * pv[n + t];
  }
}

// The penalty (the full form over ordered pairs: each stored block twice;
// the factored form's A without its diagonal, which is not a parameter).
double coupling_penalty(const CouplingSpec& s, const arma::vec& x, const CouplingPenalty& pen) {
  const arma::uword L = s.L, nf = s.field_count();
  const double* xc = x.memptr() + nf;
  double pc = sum_squares(xc, s.coupling_parameter_count());
  if (s.form == CouplingForm::kFactored) {
    const arma::uword per_head = head_layout(s).size();
    for (arma::uword k = 0; k < s.heads; ++k)
      for (arma::uword i = 0; i < L; ++i) pc -= xc[k * per_head + i + i * L] * xc[k * per_head + i + i * L];
  }
  return pen.lambda_h * sum_squares(x.memptr(), nf) + pen.lambda_c * (s.form == CouplingForm::kFull ? 2.0 * pc : pc);
}

}  // namespace

double coupling_objective(const CouplingSpec& s, const arma::vec& x, const arma::imat& seqs, const arma::vec& w,
                          const CouplingPenalty& pen, arma::vec* grad, CouplingPath path, CouplingWorkspace* work) {
  check_point(s, x);
  if (s.form == CouplingForm::kFull && pen.lambda_w == 0.0) {
    CouplingWorkspace local;
    return full_objective(s, x, seqs, w, pen, grad, work ? *work : local);
  }
  const arma::uword L = s.L, C = s.C, nf = s.field_count();
  const bool heads_path = uses_heads_path(s, path, pen);
  arma::mat W, h, dW;
  HeadsState hs;
  double f = 0.0;
  if (heads_path) {
    f = heads_forward(s, x, seqs, w, grad != nullptr, hs);
  } else {
    couplings_of(s, x, W, h);
    f = weighted_pl_data_term(W, h, seqs, w, grad ? &dW : nullptr, grad ? &hs.dh : nullptr);
    if (pen.lambda_w != 0.0) {
      f += pen.lambda_w * sum_squares(W.memptr(), W.n_elem);
      if (grad) dW += (2.0 * pen.lambda_w) * W;
    }
  }
  f += coupling_penalty(s, x, pen);
  if (!grad) return f;

  grad->set_size(s.parameter_count());
  for (arma::uword k = 0; k < nf; ++k) (*grad)(k) = hs.dh(k) + 2.0 * pen.lambda_h * x(k);
  double* g = grad->memptr() + nf;
  const double* xc = x.memptr() + nf;
  if (s.form == CouplingForm::kFull) {
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword j = i + 1; j < L; ++j)
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword a = 0; a < C; ++a, ++g, ++xc)
            *g = dW(i * C + a, j * C + b) + dW(j * C + b, i * C + a) + 4.0 * pen.lambda_c * *xc;
    return f;
  }
  if (!heads_path) heads_backward_from_couplings(s, xc, dW, hs);
  const arma::uword per_head = head_layout(s).size();
  for (arma::uword k = 0; k < s.heads; ++k) head_backward(s, pen, hs, k, xc + k * per_head, g + k * per_head);
  return f;
}

arma::mat profile_fields(const arma::imat& s, const arma::vec& w, arma::uword C) {
  const arma::uword L = s.n_cols;
  check_coupling_data(s, w, L, C);
  double wsum = 0.0;
  for (arma::uword mu = 0; mu < s.n_rows; ++mu) wsum += w(mu);
  arma::mat f(C, L);
  f.fill(1.0 / double(C));  // one pseudo-sequence spread evenly over the states
  for (arma::uword mu = 0; mu < s.n_rows; ++mu)
    for (arma::uword i = 0; i < L; ++i) f(s(mu, i), i) += w(mu);
  f /= (wsum + 1.0);
  arma::mat h = arma::log(f);
  for (arma::uword i = 0; i < L; ++i) {
    double mean = 0.0;
    for (arma::uword a = 0; a < C; ++a) mean += h(a, i);
    mean /= double(C);
    for (arma::uword a = 0; a < C; ++a) h(a, i) -= mean;
  }
  return h;
}

arma::vec coupling_initial_point(const CouplingSpec& s, const CouplingInit& init, const arma::imat& seqs,
                                 const arma::vec& w, std::uint64_t seed, int restart) {
  s.check();
  arma::vec x(s.parameter_count(), arma::fill::zeros);
  if (s.fields && init.fields_from_profile) {
    const arma::mat h = profile_fields(seqs, w, s.C);
    for (arma::uword k = 0; k < h.n_elem; ++k) x(k) = h(k);
  }
  if (s.form == CouplingForm::kFull) return x;
  Rng rng(seed + std::uint64_t(restart), streams::kInit);
  const HeadLayout lay = head_layout(s);
  double* p = x.memptr() + s.field_count();
  for (arma::uword k = 0; k < s.heads; ++k) {
    for (arma::uword t = 0; t < lay.attention; ++t) {
      const double v = init.std_couplings * rng.normal();
      const bool diagonal = s.form == CouplingForm::kFactored && t % s.L == t / s.L;
      p[t] = diagonal ? 0.0 : v;
    }
    for (arma::uword t = 0; t < lay.values; ++t) p[lay.attention + t] = init.std_values * rng.normal();
    p += lay.size();
  }
  return x;
}

}  // namespace potts
