// The weighted pseudo-likelihood data term (lib/couplings/coupling_models.h)
// computed panel by panel: a panel is 16 rows of the couplings W (LC x LC,
// n = L C), stored column after column (element (t, c) at 16 c + t), the
// last one padded with zero rows. The kernels read one panel at a time while
// it is in cache: every sequence adds its L columns of it to its logits
// (forward), then every sequence adds its dLoss/dz to those columns
// (gradient). A PanelSource writes each panel of W where it is needed and
// takes each panel of dW as it is finished, so that W and dW never need to
// exist whole: the full model's source (FullPackedPanels) builds a panel from
// the packed blocks x_ij (i < j) and sends dW's panel straight into their
// gradient. 427 kB of panel (L = 159, q = 21) stands in for 89 MB of W and
// another 89 MB of dW.
//
// Arithmetic: a logit is h_i(a) plus its W entries summed over j in order, a
// gradient entry of W its dz summed over the sequences in order, whatever
// the panels; each element is the same sequential sum, so the result has the
// same bits as the plain loops (//lib/couplings:coupling_models_test).
//
// Threads (lib/core/parallel.h): panels run side by side, 8 consecutive
// ones per thread, and their dW panels are drained side by side, in two
// steps (PanelSource); the sequences' cross-entropies side by side, summed in
// order; dh by elements. No sum changes its order, so the bits do not depend
// on the thread count.
#pragma once
#include <vector>

#include <armadillo>

namespace potts {

constexpr arma::uword kPanelRows = 16;

class PanelSource {
 public:
  virtual ~PanelSource() = default;
  // Writes rows 16p..16p+15 of W into B (16 x n column-major; rows past n
  // zero).
  virtual void fill(arma::uword p, double* B) const = 0;
  // Takes rows 16p..16p+15 of dW from G (same layout) in two steps: drain
  // for every panel of a round of panels, side by side, then complete for
  // each of them, side by side. Rounds come in order; complete(p) may rely
  // on the drains of panels up to p, and on nothing else.
  virtual void drain(arma::uword p, const double* G) = 0;
  virtual void complete(arma::uword /*p*/, const double* /*G*/) {}
};

// W (and dW) as LC x LC matrices.
class MatrixPanels : public PanelSource {
 public:
  MatrixPanels(const arma::mat& W, arma::mat* dW);
  void fill(arma::uword p, double* B) const override;
  void drain(arma::uword p, const double* G) override;

 private:
  const arma::mat& W_;
  arma::mat* dW_;
};

// The full model's couplings as packed blocks xc (W_ij for i < j, i outer,
// each C x C column-major; W_ji = W_ij^T, W_ii = 0), and their gradient g
// (same packing): g_ij(a, b) = dW(iC + a, jC + b) + dW(jC + b, iC + a) +
// c xc_ij(a, b), in that order of addition; g is complete after the last
// drain.
class FullPackedPanels : public PanelSource {
 public:
  FullPackedPanels(const double* xc, arma::uword L, arma::uword C, double* g, double c);
  void fill(arma::uword p, double* B) const override;
  void drain(arma::uword p, const double* G) override;
  void complete(arma::uword p, const double* G) override;

 private:
  // Offset of block (i, j), i < j, in the packing.
  arma::uword block(arma::uword i, arma::uword j) const;
  const double* xc_;
  arma::uword L_, C_, n_;
  double* g_;
  double c_;
};

// Buffers of panel_data_term, kept between the calls of a fit.
struct PanelWorkspace {
  std::vector<double> B;             // the panels of a round: 16 x n each
  std::vector<double> Z;             // logits, then dLoss/dz: (16 panels) x M
  std::vector<arma::uword> columns;  // j C + s_j per sequence and site
};

// The weighted data term of coupling_models.h for couplings W (from
// `source`) and fields h (C x L) on sequences s (M x L, states 0..C-1,
// checked by the caller) with weights w. If grad, dLoss/dW goes to
// source.drain (the diagonal blocks included, unused) and dLoss/dh to dh
// (C x L).
double panel_data_term(PanelSource& source, arma::uword L, arma::uword C, const arma::mat& h, const arma::imat& s,
                       const arma::vec& w, bool grad, arma::mat* dh, PanelWorkspace& work);

}  // namespace potts
