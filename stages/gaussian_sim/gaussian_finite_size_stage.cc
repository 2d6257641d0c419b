#include "stages/gaussian_sim/gaussian_finite_size_stage.h"

#include <cmath>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"
#include "lib/gaussian/noise_average.h"
#include "lib/replica/replica.h"

namespace potts {

void run_gaussian_finite_size(Stage& stage) {
  Config& cfg = stage.config();
  const auto D = arma::uword(cfg.integer("D", 4, 100000));
  const double Delta = cfg.number_open("Delta", 2.0, 1e6);
  const double lambda = cfg.number("lambda", 0.0, 1e6);
  const std::vector<double> alphas = cfg.numbers("alphas", 1e-6, 1e6);
  const auto R = std::uint64_t(cfg.integer("realisations", 2, 1000000));
  const arma::uword L = D + 1, masked = D / 2;

  Rng teacher_rng(stage.seed(), streams::kGaussianTeacher);
  const arma::mat P =
      gaussian::precision_matrix(gaussian::goe_couplings(int(L), teacher_rng), Delta, cfg.origin() + ": key 'Delta'");
  const gaussian::MaskedTeacher t = gaussian::masked_teacher(P, masked);
  const arma::mat C = gaussian::sampling_factor(gaussian::covariance_matrix(P));
  const replica::Spectrum spectrum = replica::spectrum_of(t.feature_covariance_Omega, t.teacher_w, t.noise_sigma2);
  arma::uvec rest(D);
  for (arma::uword k = 0, r = 0; k < L; ++k)
    if (k != masked) rest(r++) = k;

  std::uint64_t work = 0, done = 0;
  std::vector<arma::uword> n_of;
  for (double a : alphas) {
    const double n = std::round(a * double(D));
    if (std::abs(n - a * double(D)) > 1e-9 || n < 1)
      throw StageError(cfg.origin() + ": key 'alphas': alpha = " + format_number(a, 6) +
                       " times D = " + std::to_string(D) + " is not a whole number of samples");
    n_of.push_back(arma::uword(n));
    work += arma::uword(n) * R;
  }
  Progress progress("gaussian_finite_size D = " + std::to_string(D), work, "samples");

  CsvTable table({"alpha", "n", "realisation", "eps_g", "m", "q"});
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t k = 0; k < alphas.size(); ++k) {
    const arma::uword n = n_of[k];
    const replica::SaddlePoint th = replica::solve_saddle_point(spectrum, alphas[k], lambda);
    nlohmann::json p = {
        {"alpha", alphas[k]}, {"n", n}, {"theory_eps_g", th.eps_g}, {"theory_m", th.m}, {"theory_q", th.q}};
    // Exact finite-D moments of least squares (λ → 0, n ≥ D + 2).
    if (n >= D + 2) {
      const double s = t.noise_sigma2 * double(D) / double(n - D - 1);
      p["exact_eps_g"] = t.noise_sigma2 + s;
      p["exact_m"] = t.rho;
      p["exact_q"] = t.rho + s;
    }
    points.push_back(p);
    for (std::uint64_t r = 0; r < R; ++r) {
      Rng rng(stage.seed(), streams::kGaussianData + (r << 16) + (static_cast<std::uint64_t>(k) << 32));
      const arma::mat X = gaussian::sample_gaussian(C, n, rng);  // L×n
      const arma::mat features = X.rows(rest).t();               // n×D
      const gaussian::Overlaps o = gaussian::noise_averaged_loss(t, features, lambda);
      if (!std::isfinite(o.eps_g))
        throw StageError("non-finite generalisation loss at D = " + std::to_string(D) + ", n = " + std::to_string(n) +
                         ", realisation " + std::to_string(r));
      table.row({alphas[k], double(n), double(r), o.eps_g, o.m, o.q});
      done += n;
      progress.update(done);
    }
  }
  table.save(stage.output("realisations.csv"));
  nlohmann::json s = {{"D", D},       {"lambda", lambda},  {"sigma2", t.noise_sigma2},
                      {"rho", t.rho}, {"realisations", R}, {"points", points}};
  stage.write_summary(s);
}

}  // namespace potts
