// The sample stage (paper/spec.md §1): configuration, data generation and
// outputs. stages/sample/main.cc is a thin wrapper around run_sample.
//
// Outputs (the fixed data interface of the pipeline):
//   model.h5    "couplings_J" (L x L), "colour_similarity_U" (C x C), "beta" (1 x 1)
//   train.h5    "sequences" (M_train x L, int64, colours 0..C-1)
//   test.h5     "sequences" (M_test x L)
//   summary.json  beta, hamming_distance (training set), optimal_test_loss
//                 (eps*, eq. 3 with eq. 5, on the test set), L, C, M_train,
//                 M_test, colour_kind, sweeps, throughput, calibration record,
//                 degeneracy diagnostics (lib/potts/diagnostics.h).
//
// Tested by //stages/sample:sample_stage_test.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <armadillo>
#include <nlohmann/json.hpp>

#include "lib/core/config.h"
#include "stages/runtime/stage.h"
#include "lib/potts/calibration.h"
#include "lib/potts/diagnostics.h"
#include "lib/potts/model.h"

namespace potts {

struct SampleSettings {
  arma::uword L = 20, C = 20;
  ColourKind colour_kind = ColourKind::kIdentity;
  double u_scale = 0.0;  // only for identity_plus_gaussian
  arma::uword M_train = 3000, M_test = 1000, test_every = 4;
  ChainProtocol protocol;  // n_saved = M_train + M_test
  bool calibrate = true;
  double beta = 0.0;  // when !calibrate
  CalibrationSettings calibration;
  int threads = 1;                 // for the calibration grid only; results do not depend on it
  DiagnosticSettings diagnostics;  // optional section "diagnostics"
};

// Reads and validates every key (errors name the file and the key), then
// rejects unknown keys.
SampleSettings read_sample_settings(Config& cfg);

struct SampleResult {
  PottsModel model;  // with the final beta
  arma::imat train, test;
  double hamming_train = 0.0, hamming_test = 0.0, optimal_test_loss = 0.0;
  ChainStats stats;  // of the production chain that made the data
  std::vector<CalibrationPoint> calibration;
  DataDiagnostics diagnostics;
};

// J and U from `seed` (streams kCouplings, kColourSimilarity), beta fixed or
// calibrated, data from one chain (stream kGibbs). Throws StageError when a
// calibrated data set misses the target by more than the tolerance.
SampleResult generate_sample(const SampleSettings& s, std::uint64_t seed, bool progress);

nlohmann::json sample_summary(const SampleSettings& s, const SampleResult& r);

// Writes model.h5, train.h5, test.h5 and summary.json to the given paths.
void write_sample_outputs(const SampleSettings& s, const SampleResult& r, const std::string& model_h5,
                          const std::string& train_h5, const std::string& test_h5, const std::string& summary_json);

// The stage body: settings from stage.config(), outputs to stage.output(...).
void run_sample(Stage& stage);

}  // namespace potts
