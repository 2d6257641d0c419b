#include "stages/gaussian_sim/gaussian_simulate_stage.h"

#include <cmath>
#include <fstream>

#include "lib/core/rng.h"
#include "lib/gaussian/gaussian.h"

namespace potts {

void run_gaussian_simulate(Stage& stage) {
  const std::string model_h5 = stage.input("model/model.h5");
  Config model = Config::load(stage.input("model/summary.json"));
  const std::int64_t chunks = model.integer("chunks", 1, 1000);
  Config& cfg = stage.config();
  const auto chunk = cfg.integer("chunk", 0, chunks - 1);

  const gaussian::ModelFile mf = gaussian::read_model_h5(model_h5);
  const arma::mat& P = mf.precision_P;
  const double lambda = mf.lambda;
  const arma::uword masked = mf.masked_index;
  const gaussian::MaskedTeacher t = gaussian::masked_teacher(P, masked);
  const arma::mat C = gaussian::sampling_factor(gaussian::covariance_matrix(P));
  const arma::uword L = P.n_rows, D = L - 1;
  arma::uvec rest(D);
  for (arma::uword k = 0, r = 0; k < L; ++k)
    if (k != masked) rest(r++) = k;

  std::vector<arma::uword> n_grid;
  for (std::int64_t n : model.integers("sample_counts", 1, std::int64_t(1) << 40)) n_grid.push_back(arma::uword(n));
  const auto R = std::uint64_t(model.integer("realisations", 1, 100000));
  std::uint64_t work = 0, done = 0;
  for (size_t k = chunk; k < n_grid.size(); k += chunks) work += n_grid[k] * R;
  Progress progress("gaussian_simulate chunk " + std::to_string(chunk), work, "samples");

  CsvTable table({"alpha", "n", "alpha_index", "realisation", "eps_g", "m", "q", "w_norm"});
  for (size_t k = chunk; k < n_grid.size(); k += chunks) {
    const arma::uword n = n_grid[k];
    for (std::uint64_t r = 0; r < R; ++r) {
      Rng rng(stage.seed(), streams::kGaussianData + (r << 16) + (static_cast<std::uint64_t>(k) << 32));
      const arma::mat X = gaussian::sample_gaussian(C, n, rng);  // L×n
      const arma::vec y = X.row(masked).t();
      const arma::mat features = X.rows(rest).t();  // n×D
      const arma::vec w_hat = gaussian::ridge(features, y, lambda);
      const gaussian::Overlaps o = gaussian::generalisation_loss(t, w_hat);
      if (!std::isfinite(o.eps_g))
        throw StageError("non-finite generalisation loss at n = " + std::to_string(n) + ", realisation " +
                         std::to_string(r));
      table.row({static_cast<double>(n) / D, static_cast<double>(n), static_cast<double>(k), static_cast<double>(r),
                 o.eps_g, o.m, o.q, arma::norm(w_hat)});
      done += n;
      progress.update(done);
    }
  }
  table.save(stage.output("realisations.csv"));
  nlohmann::json s = {{"chunk", chunk}, {"chunks", chunks}, {"lambda", lambda}, {"D", D}, {"samples_drawn", done}};
  stage.write_summary(s);
}

}  // namespace potts
