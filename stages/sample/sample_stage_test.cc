// Tests of the sample stage: configuration errors, calibration logic,
// determinism (bytes, thread count), the interleaved split, and the outputs
// of //stages/sample:quick.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "lib/core/config.h"
#include "tests/util/test_util.h"
#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/potts/calibration.h"
#include "stages/sample/sample_stage.h"

namespace potts {
namespace {

using testing_util::error_of;
using testing_util::tmpdir;

// A tiny calibrated configuration (runs in well under a second).
nlohmann::json tiny_config() {
  return nlohmann::json::parse(R"({
    "L": 8, "C": 4, "colour_kind": "gaussian", "M_train": 60, "M_test": 20, "test_every": 4,
    "burn_in_sweeps": 50, "sweeps_between": 20, "beta_mode": "calibrate",
    "calibration": {"target_hamming": 0.5, "tolerance": 0.05, "beta_grid": [0.1, 0.3, 0.5, 0.8, 1.2, 2.0, 3.0, 5.0],
                    "grid_samples": 40, "max_production_runs": 6},
    "threads": 1})");
}

SampleSettings settings_of(const nlohmann::json& j) {
  Config c = Config::parse(j.dump(), "sample.json");
  return read_sample_settings(c);
}

// Each bad value fails with a message naming the key.
TEST(SampleConfig, BadValuesNameTheKey) {
  struct Bad {
    std::string path, key;
    nlohmann::json value;
  };
  const std::vector<Bad> bad = {
      {"/L", "'L'", 1},
      {"/C", "'C'", 1},
      {"/sweeps_between", "'sweeps_between'", 0},
      {"/sweeps_between", "'sweeps_between'", -10},
      {"/burn_in_sweeps", "'burn_in_sweeps'", 0},
      {"/burn_in_sweeps", "'burn_in_sweeps'", -1},
      {"/M_train", "'M_train'", 0},
      {"/colour_kind", "'colour_kind'", "gausian"},
      {"/calibration/target_hamming", "'calibration.target_hamming'", 0.0},
      {"/calibration/target_hamming", "'calibration.target_hamming'", 1.0},
      {"/calibration/target_hamming", "'calibration.target_hamming'", 1.3},
      {"/calibration/target_hamming", "'calibration.target_hamming'", -0.2},
      {"/calibration/tolerance", "'calibration.tolerance'", 0.0},
      {"/calibration/beta_grid", "'calibration.beta_grid'", nlohmann::json::array({0.5})},
      {"/calibration/beta_grid", "'calibration.beta_grid'", nlohmann::json::array({0.5, 0.4})},
      {"/calibration/beta_grid", "'calibration.beta_grid'", nlohmann::json::array({-0.5, 0.4})},
      {"/threads", "'threads'", 0},
  };
  EXPECT_NO_THROW(settings_of(tiny_config()));
  for (const auto& b : bad) {
    nlohmann::json j = tiny_config();
    j[nlohmann::json::json_pointer(b.path)] = b.value;
    std::string e = error_of([&] { settings_of(j); });
    EXPECT_NE(e.find("sample.json"), std::string::npos) << b.path << ": " << e;
    EXPECT_NE(e.find(b.key), std::string::npos) << b.path << " = " << b.value << ": " << e;
  }
  // Fixed beta: "beta" must be positive; a calibration block is then an unknown key.
  nlohmann::json f = tiny_config();
  f.erase("calibration");
  f["beta_mode"] = "fixed";
  f["beta"] = 0.4;
  EXPECT_NO_THROW(settings_of(f));
  f["beta"] = 0.0;
  EXPECT_NE(error_of([&] { settings_of(f); }).find("'beta'"), std::string::npos);
  f["beta"] = 0.4;
  f["calibration"] = tiny_config()["calibration"];
  EXPECT_NE(error_of([&] { settings_of(f); }).find("'calibration'"), std::string::npos);
  nlohmann::json typo = tiny_config();
  typo["sweeps_betwen"] = 3;
  EXPECT_NE(error_of([&] { settings_of(typo); }).find("'sweeps_betwen'"), std::string::npos);
}

TEST(Split, EveryFourthSavedConfigurationIsTest) {
  arma::imat saved(12, 1);
  for (int k = 0; k < 12; ++k) saved(k, 0) = k;
  arma::imat train, test;
  split_interleaved(saved, 9, 3, 4, &train, &test);
  EXPECT_TRUE(arma::all(arma::vectorise(test) == arma::ivec({3, 7, 11})));
  EXPECT_TRUE(arma::all(arma::vectorise(train) == arma::ivec({0, 1, 2, 4, 5, 6, 8, 9, 10})));
  // Other ratios still give the requested sizes.
  split_interleaved(saved, 10, 2, 4, &train, &test);
  EXPECT_TRUE(arma::all(arma::vectorise(test) == arma::ivec({3, 7})));
  split_interleaved(saved, 6, 6, 4, &train, &test);
  EXPECT_TRUE(arma::all(arma::vectorise(test) == arma::ivec({3, 7, 8, 9, 10, 11})));
}

TEST(Calibration, IsotonicFitAndCrossing) {
  std::vector<double> fit = isotonic_decreasing({0.9, 0.7, 0.8, 0.4, 0.5, 0.1});
  std::vector<double> expect = {0.9, 0.75, 0.75, 0.45, 0.45, 0.1};
  for (std::size_t k = 0; k < fit.size(); ++k) EXPECT_NEAR(fit[k], expect[k], 1e-15);
  EXPECT_NEAR(decreasing_crossing({1, 2, 3}, {0.9, 0.5, 0.1}, 0.3), 2.5, 1e-15);
  EXPECT_TRUE(std::isnan(decreasing_crossing({1, 2, 3}, {0.9, 0.5, 0.1}, 0.05)));
  EXPECT_TRUE(std::isnan(decreasing_crossing({1, 2, 3}, {0.9, 0.5, 0.1}, 0.95)));
}

// Calibration against synthetic distance curves: a production curve offset
// from the grid curve (as paper/spec.md reports for real chains) is still hit;
// an unreachable target fails with a message naming the tolerance key.
TEST(Calibration, FindsTargetOnProductionCurveOrFailsClearly) {
  CalibrationSettings s;
  s.target = 0.3;
  s.tolerance = 0.01;
  s.beta_grid = {0.2, 0.4, 0.6, 0.8, 1.0};
  s.max_production_runs = 5;
  auto grid = [](double b) { return 0.9 - 0.8 * b + 0.03 * std::sin(40 * b); };  // noisy, non-monotone
  auto prod = [](double b) { return 0.8 - 0.8 * b; };                            // offset by -0.1
  int runs = 0;
  CalibrationResult r = calibrate_beta(
      s, grid,
      [&](double b) {
        ++runs;
        return prod(b);
      },
      2);
  EXPECT_NEAR(r.hamming, 0.3, 0.01);
  EXPECT_NEAR(r.hamming, prod(r.beta), 1e-15);
  EXPECT_LE(runs, 3);
  std::string e = error_of([&] {
    calibrate_beta(
        s, grid, [](double) { return 0.6; }, 1);
  });
  EXPECT_NE(e.find("calibration.tolerance"), std::string::npos) << e;
  s.beta_grid = {0.9, 1.0};
  e = error_of([&] { calibrate_beta(s, grid, prod, 1); });
  EXPECT_NE(e.find("calibration.beta_grid"), std::string::npos) << e;
}

TEST(SampleStage, CalibratedTinyRunHitsTargetAndIsConsistent) {
  SampleSettings s = settings_of(tiny_config());
  SampleResult r = generate_sample(s, 3, false);
  EXPECT_LE(std::fabs(r.hamming_train - 0.5), 0.05);
  EXPECT_EQ(r.train.n_rows, 60u);
  EXPECT_EQ(r.test.n_rows, 20u);
  EXPECT_EQ(r.train.n_cols, 8u);
  EXPECT_GE(r.train.min(), 0);
  EXPECT_LT(r.train.max(), 4);
  EXPECT_NEAR(r.optimal_test_loss, optimal_test_loss(r.model, r.test), 1e-15);
  EXPECT_GT(r.calibration.size(), s.calibration.beta_grid.size());
}

// Same configuration and seed: identical bytes of every output; the
// calibration grid's thread count does not change anything.
TEST(SampleStage, DeterministicBytesAndIndependentOfThreads) {
  nlohmann::json j = tiny_config();
  auto run = [&](int threads, const std::string& dir) {
    j["threads"] = threads;
    SampleSettings s = settings_of(j);
    SampleResult r = generate_sample(s, 11, false);
    const std::string base = tmpdir() + "/" + dir;
    write_sample_outputs(s, r, base + "_model.h5", base + "_train.h5", base + "_test.h5", base + "_summary.json");
    std::vector<std::string> h;
    for (const char* f : {"_model.h5", "_train.h5", "_test.h5", "_summary.json"}) h.push_back(sha256_file(base + f));
    return h;
  };
  auto a = run(1, "a"), b = run(1, "b"), c = run(2, "c");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // Another seed gives other data.
  SampleSettings s = settings_of(j);
  EXPECT_FALSE(arma::all(arma::vectorise(generate_sample(s, 12, false).train == generate_sample(s, 11, false).train)));
}

TEST(SampleStage, FixedBetaSkipsCalibration) {
  nlohmann::json j = tiny_config();
  j.erase("calibration");
  j["beta_mode"] = "fixed";
  j["beta"] = 0.37;
  SampleResult r = generate_sample(settings_of(j), 3, false);
  EXPECT_EQ(r.model.beta, 0.37);
  EXPECT_TRUE(r.calibration.empty());
}

// The quick stage as built by Bazel: the data interface of the pipeline.
TEST(QuickStage, OutputsFollowTheDataInterface) {
  const std::string dir = "stages/sample/quick/";
  nlohmann::json sum = nlohmann::json::parse(read_text(dir + "summary.json"));
  for (const char* k : {"beta", "hamming_distance", "optimal_test_loss", "L", "C", "M_train", "M_test", "colour_kind"})
    EXPECT_TRUE(sum.contains(k)) << k;
  const arma::uword L = sum["L"], C = sum["C"];
  arma::mat J = h5_read_matrix(dir + "model.h5", "couplings_J");
  arma::mat U = h5_read_matrix(dir + "model.h5", "colour_similarity_U");
  arma::mat beta = h5_read_matrix(dir + "model.h5", "beta");
  arma::imat train = h5_read_imatrix(dir + "train.h5", "sequences");
  arma::imat test = h5_read_imatrix(dir + "test.h5", "sequences");
  ASSERT_EQ(J.n_rows, L);
  ASSERT_EQ(J.n_cols, L);
  ASSERT_EQ(U.n_rows, C);
  ASSERT_EQ(beta.n_elem, 1u);
  EXPECT_EQ(beta(0, 0), sum["beta"].get<double>());
  EXPECT_EQ(train.n_rows, sum["M_train"].get<arma::uword>());
  EXPECT_EQ(test.n_rows, sum["M_test"].get<arma::uword>());
  EXPECT_EQ(train.n_cols, L);
  EXPECT_GE(std::min(train.min(), test.min()), 0);
  EXPECT_LT(std::max(train.max(), test.max()), arma::sword(C));
  PottsModel m{J, U, beta(0, 0)};
  EXPECT_NEAR(sum["optimal_test_loss"].get<double>(), optimal_test_loss(m, test), 1e-12);
  EXPECT_NEAR(sum["hamming_distance"].get<double>(), mean_hamming_distance(train), 1e-15);
  if (sum["beta_mode"] == "calibrate") {
    EXPECT_LE(std::fabs(sum["hamming_distance"].get<double>() - sum["target_hamming"].get<double>()),
              sum["tolerance"].get<double>());
  }
  // eps* lies between 0 and log C (the uniform conditional).
  EXPECT_GT(sum["optimal_test_loss"].get<double>(), 0.0);
  EXPECT_LT(sum["optimal_test_loss"].get<double>(), std::log(double(C)));
  // Provenance names the seed and the hashes of the outputs.
  nlohmann::json prov = nlohmann::json::parse(read_text(dir + "provenance.json"));
  EXPECT_EQ(prov["outputs"]["train.h5"]["sha256"], sha256_file(dir + "train.h5"));
}

}  // namespace
}  // namespace potts
