// What the train and perturb stages share (paper/spec.md §2-3): reading the
// sample stage's data as sequence sets, the learning-curve table, and the
// summary keys every training run reports. The stages add their own keys.
//
// Tested through //stages/train:stage_bytes_test and
// //stages/perturb:perturb_science_test (the a = 0 point is the train
// stage's factored run, key for key).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "stages/runtime/stage.h"
#include "lib/nn/mlm_model.h"
#include "lib/potts/sample_data.h"
#include "lib/train/trainer.h"

namespace potts::train {

struct MlmData {
  std::string model_path, train_path, test_path;  // the inputs sample/{model,train,test}.h5
  SampleData sample;                              // the Potts model and the sequences
  nn::SequenceSet train, test;
};

// Reads the stage's inputs sample/model.h5, sample/train.h5, sample/test.h5;
// errors name the file and the dataset.
MlmData read_mlm_data(const Stage& stage);

// curves.csv: epoch, train_loss, test_loss, optimal_test_loss,
// reconstruction_error, lr (one row per evaluated epoch).
void write_curves(const std::string& path, const TrainResult& res);

// The keys of every run's summary.json: sizes, the final epoch's losses, gap
// ε − ε*, e_rec, and the optimiser's settings.
nlohmann::json run_summary(const MlmData& data, const TrainResult& res, const TrainOptions& to);

}  // namespace potts::train
