#include "lib/studies/sample_complexity.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts {

arma::uvec random_subset(arma::uword pool, arma::uword M, std::uint64_t seed, std::uint64_t stream) {
  if (M > pool)
    throw StageError("random subset: M = " + std::to_string(M) + " exceeds the training pool of " +
                     std::to_string(pool) + " sequences");
  std::vector<arma::uword> idx(pool);
  std::iota(idx.begin(), idx.end(), arma::uword(0));
  Rng rng(seed, stream);
  for (arma::uword k = 0; k < M; ++k) std::swap(idx[k], idx[k + rng.below(pool - k)]);
  arma::uvec out(M);
  for (arma::uword k = 0; k < M; ++k) out(k) = idx[k];
  return arma::sort(out);
}

std::uint64_t realisation_init_seed(std::uint64_t seed, std::uint64_t M, std::uint64_t r) {
  // Distinct for every (M, r) of a seed; restarts add 0..255.
  return seed * 0x9E3779B97F4A7C15ULL + (M << 24) + (r << 8);
}

RealisationResult run_realisation(const arma::imat& pool, const nn::SequenceSet& test, arma::uword C,
                                  const arma::mat& J, arma::uword M, arma::uword r, const FactoredFitOptions& o,
                                  std::uint64_t seed) {
  const arma::uvec rows =
      random_subset(pool.n_rows, M, seed, streams::kSubsets + (std::uint64_t(r) << 16) + (std::uint64_t(M) << 32));
  const arma::imat subset = pool.rows(rows);
  const nn::SequenceSet train = nn::to_sequence_set(subset, C, "training subset");
  FactoredFit fit;
  try {
    fit = fit_factored_attention(train, C, o, realisation_init_seed(seed, M, r));
  } catch (const StageError& e) {
    throw StageError("M = " + std::to_string(M) + ", realisation " + std::to_string(r) + ": " + e.what());
  }
  RealisationResult out;
  out.M = M;
  out.r = r;
  out.test_loss = factored_test_loss(fit.A, fit.V, test, C);
  out.train_loss = fit.train_loss;
  out.objective = fit.objective;
  out.reconstruction_error = reconstruction_error(J, fit.A);
  out.status = fit.optimiser.status;
  out.iterations = fit.optimiser.iterations;
  out.gradient_norm = fit.optimiser.gradient_norm;
  return out;
}

std::vector<arma::uword> realisations_per_M(Config& plan, std::size_t grid_size) {
  std::vector<arma::uword> out;
  if (plan.has("realisations_by_M")) {
    for (std::int64_t r : plan.integers("realisations_by_M", 2, 100000)) out.push_back(arma::uword(r));
    if (out.size() != grid_size)
      throw StageError(plan.origin() + ": key 'realisations_by_M': " + std::to_string(out.size()) +
                       " counts for a grid of " + std::to_string(grid_size) + " M");
  } else {
    out.assign(grid_size, arma::uword(plan.integer("realisations", 2, 100000)));
  }
  return out;
}

FactoredFitOptions read_factored_fit_options(Config& c, bool lambda_by_validation) {
  FactoredFitOptions o;
  o.lambda = lambda_by_validation ? std::numeric_limits<double>::quiet_NaN() : c.number("lambda", 0.0, 1e3);
  o.init = c.choice("init", {"random", "plm"});
  o.init_std_A = c.number("init_std_A", 0.0, 1e3);
  o.init_std_V = c.number("init_std_V", 0.0, 1e3);
  o.restarts = int(c.integer("restarts", 1, 1000));
  o.plm_lambda = c.number("plm_lambda", 0.0, 1e3);
  o.lbfgs.max_iterations = int(c.integer("max_iterations", 1, 1000000));
  o.lbfgs.gradient_tolerance = c.number("gradient_tolerance", 0.0, 1.0);
  o.lbfgs.relative_decrease = c.number("relative_decrease", 0.0, 1.0);
  o.lbfgs.memory = int(c.integer("memory", 1, 1000));
  return o;
}

nlohmann::json factored_fit_options_json(const FactoredFitOptions& o) {
  return {{"lambda", o.lambda},
          {"init", o.init},
          {"init_std_A", o.init_std_A},
          {"init_std_V", o.init_std_V},
          {"restarts", o.restarts},
          {"plm_lambda", o.plm_lambda},
          {"max_iterations", o.lbfgs.max_iterations},
          {"gradient_tolerance", o.lbfgs.gradient_tolerance},
          {"relative_decrease", o.lbfgs.relative_decrease},
          {"memory", o.lbfgs.memory}};
}

FactoredFitOptions factored_fit_options_from_json(const nlohmann::json& j) {
  Config c = Config::parse(j.dump(), "plan");
  FactoredFitOptions o = read_factored_fit_options(c);
  c.finish();
  return o;
}

}  // namespace potts
