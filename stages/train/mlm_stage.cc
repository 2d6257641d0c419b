#include "stages/train/mlm_stage.h"

namespace potts::train {

MlmData read_mlm_data(const Stage& stage) {
  MlmData d;
  d.model_path = stage.input("sample/model.h5");
  d.train_path = stage.input("sample/train.h5");
  d.test_path = stage.input("sample/test.h5");
  d.sample = read_sample_data(d.model_path, d.train_path, d.test_path);
  const arma::uword C = d.sample.truth.C();
  d.train = nn::to_sequence_set(d.sample.train, C, d.train_path + " 'sequences'");
  d.test = nn::to_sequence_set(d.sample.test, C, d.test_path + " 'sequences'");
  return d;
}

void write_curves(const std::string& path, const TrainResult& res) {
  CsvTable csv({"epoch", "train_loss", "test_loss", "optimal_test_loss", "reconstruction_error", "lr"});
  for (const auto& r : res.curve)
    csv.row({double(r.epoch), r.train_loss, r.test_loss, r.optimal_test_loss, r.reconstruction_error, r.lr});
  csv.save(path);
}

nlohmann::json run_summary(const MlmData& data, const TrainResult& res, const TrainOptions& to) {
  const EpochRecord& last = res.curve.back();
  nlohmann::json s;
  s["L"] = data.sample.truth.L();
  s["C"] = data.sample.truth.C();
  s["train_sequences"] = data.train.M;
  s["test_sequences"] = data.test.M;
  s["beta"] = data.sample.truth.beta;
  s["final_train_loss"] = last.train_loss;
  s["test_loss"] = last.test_loss;
  s["optimal_test_loss"] = last.optimal_test_loss;
  s["gap"] = last.test_loss - last.optimal_test_loss;
  s["reconstruction_error"] = last.reconstruction_error;
  s["epochs_run"] = last.epoch;
  s["optimiser"] = to.optimiser;
  s["epochs"] = to.epochs;
  s["batch_size"] = to.batch_size;
  s["lr0"] = to.lr0;
  s["loss_normalisation"] = to.loss_normalisation;
  s["l2"] = to.l2;
  return s;
}

}  // namespace potts::train
