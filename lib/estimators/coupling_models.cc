#include "lib/estimators/coupling_models.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/rng.h"
#include "lib/nn/layers.h"

namespace potts {

namespace {

// C = op(A) op(B) through lib/nn's gemm (the same bits on every CPU).
arma::mat mm(const arma::mat& A, bool ta, const arma::mat& B, bool tb) {
  const arma::uword m = ta ? A.n_cols : A.n_rows, k = ta ? A.n_rows : A.n_cols;
  const arma::uword n = tb ? B.n_rows : B.n_cols;
  arma::mat C(m, n);
  if (m == 0 || n == 0) return C;
  if (k == 0) return C.zeros();
  nn::gemm(ta, tb, m, n, k, 1.0, A.memptr(), A.n_rows, B.memptr(), B.n_rows, 0.0, C.memptr(), m);
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
  for (arma::uword i = 0; i < L; ++i) {
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

void check_data(const arma::imat& s, const arma::vec& w, arma::uword L, arma::uword C) {
  if (s.n_rows == 0) throw StageError("coupling model: no sequences");
  if (s.n_cols != L)
    throw StageError("coupling model: sequences have " + std::to_string(s.n_cols) + " columns, expected L = " +
                     std::to_string(L));
  if (s.min() < 0 || s.max() >= arma::sword(C))
    throw StageError("coupling model: states must be in 0.." + std::to_string(C - 1));
  if (w.n_elem != s.n_rows)
    throw StageError("coupling model: " + std::to_string(w.n_elem) + " weights for " + std::to_string(s.n_rows) +
                     " sequences");
  if (!w.is_finite() || w.min() < 0.0 || !(arma::accu(w) > 0.0))
    throw StageError("coupling model: weights must be finite, non-negative and not all zero");
}

}  // namespace

std::string to_string(CouplingForm f) {
  switch (f) {
    case CouplingForm::kFull: return "full";
    case CouplingForm::kFactored: return "factored";
    case CouplingForm::kSoftmax: return "softmax";
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
  s.check();
  if (x.n_elem != s.parameter_count())
    throw StageError("coupling model (" + s.describe() + "): " + std::to_string(x.n_elem) + " parameters, expected " +
                     std::to_string(s.parameter_count()));
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

// Rows of W (and of dW) per block: while a block is hot in cache, every
// sequence adds its L columns of it (64 rows of LC = 3339 columns: 1.7 MB).
// Each element is still the same sequential sum (over j for a logit, over
// sequences for a gradient entry), so blocking changes no bit.
constexpr arma::uword kRowBlock = 64;

double weighted_pl_data_term(const arma::mat& W, const arma::mat& h, const arma::imat& s, const arma::vec& w,
                             arma::mat* dW, arma::mat* dh) {
  const arma::uword L = s.n_cols, M = s.n_rows;
  if (L == 0 || W.n_rows % L != 0 || W.n_rows != W.n_cols)
    throw StageError("coupling model: W must be LC x LC for L = " + std::to_string(L));
  const arma::uword C = W.n_rows / L, n = L * C;
  check_data(s, w, L, C);
  if (h.n_rows != C || h.n_cols != L) throw StageError("coupling model: fields must be C x L");
  double wsum = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) wsum += w(mu);
  const double norm = 1.0 / (wsum * double(L));
  const bool grad = dW || dh;
  // The columns of W sequence mu adds: j C + s_j.
  std::vector<arma::uword> cols(M * L);
  for (arma::uword mu = 0; mu < M; ++mu)
    for (arma::uword j = 0; j < L; ++j) cols[mu * L + j] = j * C + arma::uword(s(mu, j));

  // Logits (column mu of Z): z_i(a) = h_i(a) + sum_j W_ij(a, s_j), all i at
  // once (W_ii = 0), summed over j in order.
  arma::mat Z(n, M);
  const double* h0 = h.memptr();
  const double* Wp = W.memptr();
  for (arma::uword r0 = 0; r0 < n; r0 += kRowBlock) {
    const arma::uword nb = std::min(n, r0 + kRowBlock) - r0;
    for (arma::uword mu = 0; mu < M; ++mu) {
      if (w(mu) == 0.0) continue;
      double* z = Z.colptr(mu) + r0;
      for (arma::uword t = 0; t < nb; ++t) z[t] = h0[r0 + t];
      for (arma::uword j = 0; j < L; ++j) {
        const double* wc = Wp + cols[mu * L + j] * n + r0;
        for (arma::uword t = 0; t < nb; ++t) z[t] += wc[t];
      }
    }
  }

  // Losses; with a gradient, column mu of Z becomes dLoss/dz (in place, site
  // by site: d(-log p)/dz_i(a) = p(a) - [a == s_i], times w_mu norm).
  double loss = 0.0;
  for (arma::uword mu = 0; mu < M; ++mu) {
    if (w(mu) == 0.0) continue;
    double* z = Z.colptr(mu);
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
  if (dh) {
    dh->zeros(C, L);
    double* g = dh->memptr();
    for (arma::uword mu = 0; mu < M; ++mu) {
      if (w(mu) == 0.0) continue;
      const double* dz = Z.colptr(mu);
      for (arma::uword r = 0; r < n; ++r) g[r] += dz[r];
    }
  }
  if (dW) {
    // The forward pass adds column j C + s_j of W to z, so that column of dW
    // gets dz; summed over the sequences in order.
    dW->zeros(n, n);
    double* G = dW->memptr();
    for (arma::uword r0 = 0; r0 < n; r0 += kRowBlock) {
      const arma::uword nb = std::min(n, r0 + kRowBlock) - r0;
      for (arma::uword mu = 0; mu < M; ++mu) {
        if (w(mu) == 0.0) continue;
        const double* dz = Z.colptr(mu) + r0;
        for (arma::uword j = 0; j < L; ++j) {
          double* gc = G + cols[mu * L + j] * n + r0;
          for (arma::uword t = 0; t < nb; ++t) gc[t] += dz[t];
        }
      }
    }
  }
  return loss * norm;
}

double coupling_objective(const CouplingSpec& s, const arma::vec& x, const arma::imat& seqs, const arma::vec& w,
                          const CouplingPenalty& pen, arma::vec* grad) {
  arma::mat W, h;
  couplings_of(s, x, W, h);
  arma::mat dW, dh;
  double f = weighted_pl_data_term(W, h, seqs, w, grad ? &dW : nullptr, grad ? &dh : nullptr);
  const arma::uword L = s.L, C = s.C, nf = s.field_count();
  const double* xc = x.memptr() + nf;
  // Penalty (the full form over ordered pairs: each stored block twice; the
  // factored form's A without its diagonal, which is not a parameter).
  double pc = sum_squares(xc, s.coupling_parameter_count());
  if (s.form == CouplingForm::kFactored) {
    const arma::uword per_head = head_layout(s).size();
    for (arma::uword k = 0; k < s.heads; ++k)
      for (arma::uword i = 0; i < L; ++i) pc -= xc[k * per_head + i + i * L] * xc[k * per_head + i + i * L];
  }
  f += pen.lambda_h * sum_squares(x.memptr(), nf) + pen.lambda_c * (s.form == CouplingForm::kFull ? 2.0 * pc : pc);
  if (!grad) return f;

  grad->set_size(s.parameter_count());
  for (arma::uword k = 0; k < nf; ++k) (*grad)(k) = dh(k) + 2.0 * pen.lambda_h * x(k);
  double* g = grad->memptr() + nf;
  if (s.form == CouplingForm::kFull) {
    for (arma::uword i = 0; i < L; ++i)
      for (arma::uword j = i + 1; j < L; ++j)
        for (arma::uword b = 0; b < C; ++b)
          for (arma::uword a = 0; a < C; ++a, ++g, ++xc)
            *g = dW(i * C + a, j * C + b) + dW(j * C + b, i * C + a) + 4.0 * pen.lambda_c * *xc;
    return f;
  }
  if (s.symmetrise) dW = 0.5 * (dW + dW.t());
  const arma::mat Gr = gather_blocks(dW, L, C);  // (a + b C, i + j L)
  const HeadLayout lay = head_layout(s);
  for (arma::uword k = 0; k < s.heads; ++k) {
    const double* p = xc + k * lay.size();
    double* gk = g + k * lay.size();
    Head hd = read_head(s, p);
    const arma::mat A = s.form == CouplingForm::kSoftmax ? softmax_attention(hd.Q, hd.K) : hd.A;
    // dA_ij = <dW_ij, V>, dV = sum_ij A_ij dW_ij.
    arma::mat dA = arma::reshape(mm(Gr, true, arma::vectorise(hd.V), false), L, L);
    const arma::mat dV = arma::reshape(mm(Gr, false, arma::vectorise(A), false), C, C);
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
  return f;
}

arma::mat profile_fields(const arma::imat& s, const arma::vec& w, arma::uword C) {
  const arma::uword L = s.n_cols;
  check_data(s, w, L, C);
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

CouplingFit fit_couplings(const CouplingSpec& s, const arma::imat& train, const arma::vec& w,
                          const CouplingPenalty& pen, const CouplingInit& init, const LbfgsOptions& options,
                          std::uint64_t seed, int restarts, const std::function<void(int)>& on_restart) {
  s.check();
  check_data(train, w, s.L, s.C);
  if (restarts < 1) throw StageError("coupling model: restarts must be at least 1");
  Objective f = [&](const arma::vec& x, arma::vec& g) { return coupling_objective(s, x, train, w, pen, &g); };
  CouplingFit fit;
  for (int r = 0; r < restarts; ++r) {
    if (on_restart) on_restart(r);
    LbfgsResult res;
    try {
      res = lbfgs_minimize(f, coupling_initial_point(s, init, train, w, seed, r), options);
    } catch (const StageError& e) {
      throw StageError("coupling model (" + s.describe() + "), restart " + std::to_string(r) + ": " + e.what());
    }
    if (!std::isfinite(res.value))
      throw StageError("coupling model (" + s.describe() + "), restart " + std::to_string(r) +
                       ": the objective is not finite");
    CouplingRestart rr;
    rr.objective = res.value;
    arma::mat W, h;
    couplings_of(s, res.x, W, h);
    rr.train_loss = weighted_pl_data_term(W, h, train, w, nullptr, nullptr);
    rr.status = res.status;
    rr.iterations = res.iterations;
    rr.evaluations = res.evaluations;
    fit.restarts.push_back(rr);
    if (r == 0 || rr.objective < fit.objective) {
      fit.best_restart = r;
      fit.objective = rr.objective;
      fit.train_loss = rr.train_loss;
      fit.x = res.x;
      fit.W = W;
      fit.h = h;
    }
  }
  return fit;
}

}  // namespace potts
