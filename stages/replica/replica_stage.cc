#include "stages/replica/replica_stage.h"

#include <algorithm>
#include <cmath>

#include "lib/core/stats.h"
#include "lib/gaussian/gaussian.h"
#include "lib/replica/replica.h"

namespace potts {

namespace {

// The theory at every point (α, on the simulation's grid): the saddle
// point against the closed form, theory.csv's rows, the worst relative
// difference (above max_rel_diff: an error) and ε_g on both grids.
struct Theory {
  CsvTable table{{"alpha", "n", "eps_g", "eps_g_closed_form", "relative_difference", "m", "q", "V", "V_hat", "m_hat",
                  "q_hat", "kappa", "df1", "df2", "iterations", "on_simulation_grid"}};
  double worst = 0, worst_alpha = 0;
  long total_iterations = 0, max_iterations_used = 0;
  std::vector<double> alphas, eps, sim_alphas, sim_eps;  // fine grid; the simulation's
};

Theory solve_points(const replica::Spectrum& spec, const std::vector<std::pair<double, bool>>& points, double lambda,
                    const replica::FixedPointOptions& opt, double max_rel_diff) {
  Theory th;
  const double D = static_cast<double>(spec.D());
  for (auto [alpha, on_sim] : points) {
    const replica::SaddlePoint fp = replica::solve_saddle_point(spec, alpha, lambda, opt);
    const replica::ClosedForm cf = replica::deterministic_equivalent(spec, alpha, lambda);
    const double rel = std::abs(fp.eps_g - cf.eps_g) / cf.eps_g;
    if (rel > th.worst) th.worst = rel, th.worst_alpha = alpha;
    th.total_iterations += fp.iterations;
    th.max_iterations_used = std::max(th.max_iterations_used, fp.iterations);
    th.table.row({alpha, alpha * D, fp.eps_g, cf.eps_g, rel, fp.m, fp.q, fp.V, fp.V_hat, fp.m_hat, fp.q_hat, cf.kappa,
                  cf.df1, cf.df2, static_cast<double>(fp.iterations), on_sim ? 1.0 : 0.0});
    if (!on_sim) th.alphas.push_back(alpha), th.eps.push_back(fp.eps_g);
    if (on_sim) th.sim_alphas.push_back(alpha), th.sim_eps.push_back(fp.eps_g);
  }
  if (th.worst > max_rel_diff)
    throw StageError("replica: fixed point and closed form differ by " + std::to_string(th.worst) +
                     " (relative) at alpha = " + std::to_string(th.worst_alpha) +
                     ", above max_relative_difference = " + std::to_string(max_rel_diff));
  return th;
}

}  // namespace

void run_replica(Stage& stage) {
  Config& cfg = stage.config();
  Config grid_cfg = cfg.section("alpha_grid");
  const gaussian::AlphaGrid grid = gaussian::alpha_grid_from(grid_cfg);
  replica::FixedPointOptions opt;
  opt.damping = cfg.number("damping", 1e-4, 1);
  opt.tolerance = cfg.number_open("tolerance", 0, 1e-3);
  opt.max_iterations = cfg.integer("max_iterations", 1, 1000000000);
  const double max_rel_diff = cfg.number_open("max_relative_difference", 0, 1);

  const std::string model_h5 = stage.input("model/model.h5");
  Config model = Config::load(stage.input("model/summary.json"));
  const gaussian::ModelFile mf = gaussian::read_model_h5(model_h5);
  const double lambda = mf.lambda;
  const gaussian::MaskedTeacher t = gaussian::masked_teacher(mf.precision_P, mf.masked_index);
  const replica::Spectrum spec = replica::spectrum_of(t.feature_covariance_Omega, t.teacher_w, t.noise_sigma2);

  // Fine grid ∪ simulation grid.
  std::vector<std::pair<double, bool>> points;
  for (double a : gaussian::alpha_values(grid, cfg.origin() + ": alpha_grid")) points.push_back({a, false});
  for (double a : model.numbers("alphas", 0.0, 1e9)) points.push_back({a, true});
  std::sort(points.begin(), points.end());

  const Theory th = solve_points(spec, points, lambda, opt, max_rel_diff);
  th.table.save(stage.output("theory.csv"));

  nlohmann::json s;
  s["D"] = spec.D();
  s["L"] = model.value("L");
  s["Delta"] = model.value("Delta");
  s["masked_index"] = mf.masked_index;
  s["lambda"] = lambda;
  s["sigma2"] = spec.sigma2;
  s["rho"] = spec.rho;
  s["points"] = points.size();
  s["max_relative_difference_fixed_point_vs_closed_form"] = th.worst;
  s["worst_alpha"] = th.worst_alpha;
  s["damping"] = opt.damping;
  s["tolerance"] = opt.tolerance;
  s["iterations_total"] = th.total_iterations;
  s["iterations_max"] = th.max_iterations_used;
  const size_t peak = argmax(th.eps);
  s["peak_alpha"] = th.alphas[peak];
  s["peak_eps_g"] = th.eps[peak];
  try {
    s["tail_slope_8_100"] = gaussian::loglog_slope(th.alphas, th.eps, spec.sigma2, 8, 100);
  } catch (const StageError&) {
    s["tail_slope_8_100"] = nullptr;
  }
  // The same slope on the simulation's α points: ε_g − σ² is curved in log-log
  // (σ²/(α − 1)), so a least-squares slope depends on where the points sit,
  // and a comparison with the simulation's slope needs the same points.
  try {
    s["tail_slope_8_100_on_simulation_grid"] = gaussian::loglog_slope(th.sim_alphas, th.sim_eps, spec.sigma2, 8, 100);
  } catch (const StageError&) {
    s["tail_slope_8_100_on_simulation_grid"] = nullptr;
  }
  stage.write_summary(s);
  stage.facts()["iterations_total"] = th.total_iterations;
}

}  // namespace potts
