#include "stages/gaussian_sim/gaussian_model_stage.h"

#include <cmath>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"

namespace potts {

void run_gaussian_model(Stage& stage) {
  Config& cfg = stage.config();
  const int L = static_cast<int>(cfg.integer("L", 3, 5000));
  const double Delta = cfg.number("Delta");
  const auto masked = static_cast<arma::uword>(cfg.integer("masked_index", 0, L - 1));
  const double lambda = cfg.number("lambda", 0, 1e6);
  Config grid_cfg = cfg.section("alpha_grid");
  const gaussian::AlphaGrid grid = gaussian::alpha_grid_from(grid_cfg);
  const auto realisations = cfg.integer("realisations", 2, 100000);
  const auto chunks = cfg.integer("chunks", 1, 1000);

  Rng rng(stage.seed(), streams::kGaussianTeacher);
  const arma::mat J_tilde = gaussian::goe_couplings(L, rng);
  const arma::mat P = gaussian::precision_matrix(J_tilde, Delta, cfg.origin() + ": key 'Delta'");
  const arma::mat Sigma = gaussian::covariance_matrix(P);
  const gaussian::MaskedTeacher t = gaussian::masked_teacher(P, masked);
  const arma::uword D = L - 1;
  const auto n = gaussian::sample_counts(gaussian::alpha_values(grid, cfg.origin() + ": alpha_grid"), D,
                                         cfg.origin() + ": alpha_grid");
  const arma::vec spec_J = arma::eig_sym(J_tilde), spec_Omega = arma::eig_sym(t.feature_covariance_Omega);

  H5Writer h5;
  h5.matrix("couplings_J_tilde", J_tilde);
  h5.matrix("precision_P", P);
  h5.matrix("covariance_Sigma", Sigma);
  h5.matrix("feature_covariance_Omega", t.feature_covariance_Omega);
  h5.matrix("teacher_w", t.teacher_w);
  h5.scalar("noise_sigma2", t.noise_sigma2);
  h5.scalar("rho", t.rho);
  h5.scalar("Delta", Delta);
  h5.scalar("lambda", lambda);
  h5.scalar("masked_index", static_cast<double>(masked));
  h5.save(stage.output("model.h5"));

  nlohmann::json s = {{"L", L},
                      {"D", D},
                      {"Delta", Delta},
                      {"masked_index", masked},
                      {"lambda", lambda},
                      {"sigma2", t.noise_sigma2},
                      {"rho", t.rho},
                      {"J_tilde_eigenvalue_min", spec_J.min()},
                      {"J_tilde_eigenvalue_max", spec_J.max()},
                      {"Omega_eigenvalue_min", spec_Omega.min()},
                      {"Omega_eigenvalue_max", spec_Omega.max()},
                      {"alpha_grid",
                       {{"alpha_min", grid.alpha_min},
                        {"alpha_max", grid.alpha_max},
                        {"points_per_decade", grid.points_per_decade},
                        {"dense_min", grid.dense_min},
                        {"dense_max", grid.dense_max},
                        {"dense_points", grid.dense_points}}},
                      {"sample_counts", n}};
  std::vector<double> alphas;
  for (auto k : n) alphas.push_back(static_cast<double>(k) / D);
  s["alphas"] = alphas;
  s["realisations"] = realisations;
  s["chunks"] = chunks;
  s["seed"] = stage.seed();
  stage.write_summary(s);
  stage.facts()["alpha_points"] = n.size();
}

}  // namespace potts
