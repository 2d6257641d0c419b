// How much of the weighted PLM fit's work a stopping rule from the objective
// would save, and what it would cost in precision: the fit of cm_plm.json
// (Ras, all 999 sequences, weights at 80 % identity, the PLM's penalty) by
// L-BFGS, once with the stage's rule (gradient norm below 2e-5) and once
// per relative-decrease threshold eps (stop when one iteration lowers the
// objective by at most eps · |f|), each timed on one thread and scored
// (top-L, L/2, L/5, |i - j| >= 6) by the project's code. Also prints the
// sampling standard error of the data term, the scale below which a lower
// objective means nothing statistically (the weighted per-sequence losses'
// spread over the square root of the effective number of sequences).
//   tools/bazel run //bench/proteins:plm_stopping -- FAMILY_DIR [RULE...]
// RULE: "grad" (the stage's gradient rule alone; the default), EPS, or
// EPS/M (L-BFGS keeping M correction pairs), each prefixed "lean:" for the
// lean L-BFGS (lib/optim/lean_lbfgs.h); peak_MB is the process's peak
// resident memory so far (one rule per run measures that rule's).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <malloc.h>
#include <sys/resource.h>

#include <limits>

#include <armadillo>

#include "lib/core/io.h"
#include "lib/couplings/coupling_fits.h"
#include "lib/couplings/coupling_models.h"
#include "lib/proteins/contacts.h"
#include "lib/proteins/msa.h"

using namespace potts;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: plm_stopping FAMILY_DIR [EPS...]\n");
    return 2;
  }
  // As the couplings stage: freed blocks stay in the heap (page faults were
  // a third of the fit's time without it).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  const std::string dir = argv[1];
  const arma::imat seqs =
      arma::join_cols(h5_read_imatrix(dir + "/train.h5", "sequences"), h5_read_imatrix(dir + "/test.h5", "sequences"));
  const arma::vec w = arma::join_cols(arma::vec(arma::vectorise(h5_read_matrix(dir + "/train.h5", "weights"))),
                                      arma::vec(arma::vectorise(h5_read_matrix(dir + "/test.h5", "weights"))));
  std::vector<int> numbers;
  const auto columns = read_csv(dir + "/columns.csv");
  for (double r : csv_column(columns, "columns.csv", "residue")) numbers.push_back(int(r));
  const auto contacts = read_csv(dir + "/contacts.csv");
  std::set<std::pair<int, int>> truth;
  const auto& ci = csv_column(contacts, "contacts.csv", "i");
  const auto& cj = csv_column(contacts, "contacts.csv", "j");
  for (std::size_t k = 0; k < ci.size(); ++k) truth.insert({int(ci[k]), int(cj[k])});

  CouplingSpec spec;
  spec.form = CouplingForm::kFull;
  spec.L = seqs.n_cols;
  spec.C = proteins::kStates;
  spec.fields = true;
  const CouplingPenalty pen{6.2893e-05, 6.2893e-05};
  CouplingInit init;
  init.fields_from_profile = false;
  // Rules: "grad" (the gradient rule alone), EPS, or EPS/M (L-BFGS memory M).
  std::vector<std::string> rules;
  for (int k = 2; k < argc; ++k) rules.push_back(argv[k]);
  if (rules.empty()) rules.push_back("grad");
  std::printf("%-12s %6s %6s %10s %12s %8s %8s %8s %10s\n", "rule", "iters", "evals", "cpu_s", "objective", "top_L",
              "top_L2", "top_L5", "peak_MB");
  std::fflush(stdout);
  arma::vec final_x;
  for (const std::string& rule : rules) {
    LbfgsOptions lo;
    lo.max_iterations = 300;
    lo.gradient_tolerance = 2e-5;
    const bool lean = rule.rfind("lean:", 0) == 0;
    const std::string r = lean ? rule.substr(5) : rule;
    if (r != "grad") {
      const std::size_t slash = r.find('/');
      lo.relative_decrease = std::stod(r.substr(0, slash));
      if (slash != std::string::npos) lo.memory = std::stoi(r.substr(slash + 1));
    }
    const std::clock_t c0 = std::clock();
    const CouplingFit fit =
        fit_couplings(spec, seqs, w, pen, init, lo, 0, 1, {}, lean ? LbfgsVariant::kLean : LbfgsVariant::kStrongWolfe);
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    const arma::mat scores = proteins::apc(proteins::frobenius_scores(fit.W, spec.C));
    const std::size_t L = numbers.size();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%-12s %6d %6d %10.1f %12.8f %8.3f %8.3f %8.3f %10.0f\n", rule.c_str(), fit.restarts[0].iterations,
                fit.restarts[0].evaluations, cpu, fit.objective, proteins::precision_at(scores, numbers, truth, L, 6),
                proteins::precision_at(scores, numbers, truth, L / 2, 6),
                proteins::precision_at(scores, numbers, truth, L / 5, 6), double(ru.ru_maxrss) / 1024.0);
    std::fflush(stdout);
    final_x = fit.x;
  }
  // The data term's sampling error at the stage's optimum: per-sequence
  // losses l_mu (mean over sites), weighted mean and its standard error
  // with n_eff = (sum w)^2 / sum w^2.
  arma::mat W, h;
  couplings_of(spec, final_x, W, h);
  const arma::uword L = spec.L, C = spec.C;
  arma::vec l(seqs.n_rows);
  for (arma::uword mu = 0; mu < seqs.n_rows; ++mu) {
    arma::vec z = arma::vectorise(h);
    for (arma::uword j = 0; j < L; ++j) z += W.col(j * C + arma::uword(seqs(mu, j)));
    double seq = 0.0;
    for (arma::uword i = 0; i < L; ++i) {
      const arma::vec zi = z.subvec(i * C, i * C + C - 1);
      seq += zi.max() + std::log(arma::accu(arma::exp(zi - zi.max()))) - zi(arma::uword(seqs(mu, i)));
    }
    l(mu) = seq / double(L);
  }
  const double sw = arma::accu(w), mean = arma::dot(w, l) / sw;
  const double var = arma::dot(w, arma::square(l - mean)) / sw, neff = sw * sw / arma::dot(w, w);
  std::printf("data term %.6f; per-sequence sd %.4f; n_eff %.1f; standard error %.5f\n", mean, std::sqrt(var), neff,
              std::sqrt(var / neff));
  return 0;
}
