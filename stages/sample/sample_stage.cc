#include "stages/sample/sample_stage.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts {

SampleSettings read_sample_settings(Config& cfg) {
  SampleSettings s;
  s.L = cfg.integer("L", 2, 1000);
  s.C = cfg.integer("C", 2, 1000);
  s.colour_kind =
      parse_colour_kind(cfg.choice("colour_kind", {"identity", "gaussian", "gram", "identity_plus_gaussian"}));
  if (s.colour_kind == ColourKind::kIdentityPlusGaussian || cfg.has("u_scale"))
    s.u_scale = cfg.number("u_scale", 0.0, 100.0);
  s.M_train = cfg.integer("M_train", 2, 10000000);
  s.M_test = cfg.integer("M_test", 2, 10000000);
  s.test_every = cfg.integer("test_every", 2, 1000);
  s.protocol.burn_in_sweeps = cfg.integer("burn_in_sweeps", 1, std::int64_t(1) << 40);
  s.protocol.sweeps_between = cfg.integer("sweeps_between", 1, std::int64_t(1) << 40);
  s.protocol.n_saved = s.M_train + s.M_test;
  s.calibrate = cfg.choice("beta_mode", {"calibrate", "fixed"}) == "calibrate";
  if (s.calibrate) {
    Config c = cfg.section("calibration");
    s.calibration.target = c.number_open("target_hamming", 0.0, 1.0);
    s.calibration.tolerance = c.number_open("tolerance", 0.0, 1.0);
    s.calibration.beta_grid = c.numbers("beta_grid", 1e-12, 1e6);
    if (s.calibration.beta_grid.size() < 2)
      throw StageError(cfg.origin() + ": key 'calibration.beta_grid': expected at least 2 values");
    for (std::size_t k = 0; k + 1 < s.calibration.beta_grid.size(); ++k)
      if (!(s.calibration.beta_grid[k] < s.calibration.beta_grid[k + 1]))
        throw StageError(cfg.origin() + ": key 'calibration.beta_grid': values must increase strictly");
    s.calibration.grid_samples = c.integer("grid_samples", 2, 10000000);
    s.calibration.max_production_runs = c.integer("max_production_runs", 1, 100);
    c.finish();
  } else {
    s.beta = cfg.number_open("beta", 0.0, 1e6);
  }
  s.threads = cfg.integer("threads", 1, 64);
  s.diagnostics.spread_tolerance = s.calibrate ? s.calibration.tolerance : 0.03;
  if (cfg.has("diagnostics")) {
    Config d = cfg.section("diagnostics");
    s.diagnostics.chains = d.integer("chains", 2, 64);
    s.diagnostics.samples_per_chain = d.integer("samples_per_chain", 2, 10000000);
    s.diagnostics.autocorrelation_sweeps = d.integer("autocorrelation_sweeps", 200, std::int64_t(1) << 32);
    if (d.has("spread_tolerance")) s.diagnostics.spread_tolerance = d.number_open("spread_tolerance", 0.0, 1.0);
    d.finish();
  }
  cfg.finish();
  return s;
}

SampleResult generate_sample(const SampleSettings& s, std::uint64_t seed, bool progress) {
  SampleResult r;
  r.model = make_potts_model(s.L, s.C, s.colour_kind, 1.0, seed, s.u_scale);
  // The full protocol at beta; keeps its data in r (the last call is the data set).
  auto production = [&](double beta) {
    PottsModel m = r.model;
    m.beta = beta;
    std::ostringstream label;
    label << "sample: chain at beta=" << beta;
    Progress bar(label.str(), s.protocol.n_saved, "samples");
    ChainProgress report;
    if (progress) report = [&bar](std::uint64_t done, std::uint64_t) { bar.update(done); };
    arma::imat saved = run_chain(m, s.protocol, seed, report, &r.stats);
    split_interleaved(saved, s.M_train, s.M_test, s.test_every, &r.train, &r.test);
    r.model.beta = beta;
    return mean_hamming_distance(r.train);
  };
  if (s.calibrate) {
    ChainProtocol reduced = s.protocol;
    reduced.n_saved = s.calibration.grid_samples;
    const PottsModel base = r.model;
    auto grid_distance = [&](double beta) {
      PottsModel m = base;
      m.beta = beta;
      return mean_hamming_distance(run_chain(m, reduced, seed));
    };
    CalibrationResult c = calibrate_beta(s.calibration, grid_distance, production, s.threads);
    r.calibration = c.points;
    if (r.model.beta != c.beta) production(c.beta);  // (never: the accepted run is the last one)
  } else {
    production(s.beta);
  }
  r.hamming_train = mean_hamming_distance(r.train);
  r.hamming_test = mean_hamming_distance(r.test);
  r.optimal_test_loss = optimal_test_loss(r.model, r.test);
  r.diagnostics = diagnose_data(r.model, s.protocol, r.train, r.test, s.diagnostics, seed);
  // Verification on the final data set (the calibration already ensures
  // it; checked here again so that no path can skip it).
  if (s.calibrate && !(std::fabs(r.hamming_train - s.calibration.target) <= s.calibration.tolerance)) {
    std::ostringstream msg;
    msg << "the training set's mean Hamming distance " << r.hamming_train << " at beta=" << r.model.beta
        << " misses calibration.target_hamming=" << s.calibration.target
        << " by more than calibration.tolerance=" << s.calibration.tolerance;
    throw StageError(msg.str());
  }
  return r;
}

nlohmann::json sample_summary(const SampleSettings& s, const SampleResult& r) {
  nlohmann::json j;
  j["beta"] = r.model.beta;
  j["beta_mode"] = s.calibrate ? "calibrate" : "fixed";
  j["hamming_distance"] = r.hamming_train;
  j["hamming_distance_test"] = r.hamming_test;
  j["optimal_test_loss"] = r.optimal_test_loss;
  j["L"] = s.L;
  j["C"] = s.C;
  j["M_train"] = s.M_train;
  j["M_test"] = s.M_test;
  j["test_every"] = s.test_every;
  j["colour_kind"] = to_string(s.colour_kind);
  if (s.colour_kind == ColourKind::kIdentityPlusGaussian) j["u_scale"] = s.u_scale;
  j["sweeps"] = {{"burn_in", s.protocol.burn_in_sweeps},
                 {"between_saved", s.protocol.sweeps_between},
                 {"total", s.protocol.burn_in_sweeps + s.protocol.n_saved * s.protocol.sweeps_between}};
  j["site_updates"] = r.stats.updates;
  j["change_rate"] = r.stats.change_rate;
  if (s.calibrate) {
    j["target_hamming"] = s.calibration.target;
    j["tolerance"] = s.calibration.tolerance;
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : r.calibration) {
      nlohmann::json q = {{"phase", p.phase}, {"beta", p.beta}, {"hamming_distance", p.hamming}};
      if (p.phase == "grid") q["monotone_fit"] = p.fit;
      pts.push_back(q);
    }
    j["calibration"] = pts;
  }
  j["diagnostics"] = r.diagnostics.json();
  j["diagnostics"]["settings"] = {{"chains", s.diagnostics.chains},
                                  {"samples_per_chain", s.diagnostics.samples_per_chain},
                                  {"autocorrelation_sweeps", s.diagnostics.autocorrelation_sweeps},
                                  {"max_overlap", s.diagnostics.max_overlap},
                                  {"spread_tolerance", s.diagnostics.spread_tolerance}};
  // Throughput varies run to run: it lives in the provenance record's
  // volatile timings, keeping this file byte-deterministic.
  j["throughput_in"] = "provenance.json timings.sampler_updates_per_second";
  return j;
}

void write_sample_outputs(const SampleSettings& s, const SampleResult& r, const std::string& model_h5,
                          const std::string& train_h5, const std::string& test_h5, const std::string& summary_json) {
  H5Writer m;
  m.matrix("couplings_J", r.model.couplings_J);
  m.matrix("colour_similarity_U", r.model.colour_similarity_U);
  m.scalar("beta", r.model.beta);
  m.save(model_h5);
  H5Writer tr;
  tr.imatrix("sequences", r.train);
  tr.save(train_h5);
  H5Writer te;
  te.imatrix("sequences", r.test);
  te.save(test_h5);
  write_text_atomic(summary_json, sample_summary(s, r).dump(2) + "\n");
}

void run_sample(Stage& stage) {
  const SampleSettings s = read_sample_settings(stage.config());
  stage.set_threads(s.calibrate ? s.threads : 1);
  const SampleResult r = generate_sample(s, stage.seed(), /*progress=*/true);
  write_sample_outputs(s, r, stage.output("model.h5"), stage.output("train.h5"), stage.output("test.h5"),
                       stage.output("summary.json"));
  stage.timings()["sampler_updates_per_second"] = r.stats.updates_per_second();
  stage.timings()["production_chain_seconds"] = r.stats.seconds;
  stage.timings()["production_chain_cpu_seconds"] = r.stats.cpu_seconds;
  stage.facts()["beta"] = r.model.beta;
  stage.facts()["hamming_distance"] = r.hamming_train;
  for (const auto& w : r.diagnostics.warnings)
    std::fprintf(stderr, "sample: WARNING: degenerate data: %s\n", w.c_str());
  std::fprintf(stderr, "sample: beta=%.6g, training-set distance %.4f, eps*=%.4f, %.3g site updates per CPU second\n",
               r.model.beta, r.hamming_train, r.optimal_test_loss, r.stats.updates_per_second());
}

}  // namespace potts
