// A diverging training run writes nothing and says where it diverged, on
// every training path:
//  * SGD in double and in float precision: the train stage binary on small
//    synthetic data (make_synthetic_data) with lr0 = 100 (the config's
//    upper bound), run into an empty directory: the error names the epoch
//    and the directory stays empty (no output, no temporary, no record);
//  * L-BFGS (the trainer's full-batch optimiser, and the factored fits of
//    lib/factored): its line search shortens any step that gives a non-finite
//    value, so no configuration makes it diverge from a finite start; a NaN
//    start (a parameter set to NaN) must name the L-BFGS round, and the
//    starting point.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <limits>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/nn/factored_attention.h"
#include "lib/factored/factored_fit.h"
#include "lib/train/trainer.h"
#include "lib/train/synthetic.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace potts {
namespace {

using testing_util::error_of;
using testing_util::tmpdir;

// Synthetic data (L = 6, C = 4, Gaussian U), once.
std::string data_dir() {
  static const std::string dir = [] {
    const std::string d = tmpdir() + "/data";
    fs::create_directories(d);
    const std::string cmd = "lib/train/make_synthetic_data " + d + " 6 4 gaussian 0.7 200 60 2 1 > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return d;
  }();
  return dir;
}

// Runs the train stage with this precision and lr0 into an empty directory;
// returns {exit status, stderr}.
std::pair<int, std::string> train(const std::string& name, const std::string& precision, double lr0) {
  const std::string dir = tmpdir() + "/" + name, out = dir + "/out";
  fs::create_directories(out);
  nlohmann::json cfg = {{"model", "factored"},
                        {"optimiser", "sgd"},
                        {"epochs", 30},
                        {"batch_size", 20},
                        {"lr0", lr0},
                        {"loss_normalisation", "sum_positions"},
                        {"masking", "all_positions"},
                        {"l2", 0},
                        {"eval_every", 1},
                        {"init_std_A", 1.0},
                        {"init_std_V", 1.0},
                        {"precision", precision}};
  write_text_atomic(dir + "/config.json", cfg.dump());
  const std::string d = data_dir();
  const std::string cmd = "stages/train/train --config " + dir + "/config.json --seed 1" +
                          " --in sample/model.h5=" + d + "/model.h5 --in sample/train.h5=" + d + "/train.h5" +
                          " --in sample/test.h5=" + d + "/test.h5 --out params.h5=" + out + "/params.h5" +
                          " --out curves.csv=" + out + "/curves.csv --out summary.json=" + out + "/summary.json" +
                          " --provenance " + out + "/provenance.json 2> " + dir + "/stderr.txt";
  const int rc = std::system(cmd.c_str());
  return {rc, read_text(dir + "/stderr.txt")};
}

void expect_diverges_writing_nothing(const std::string& precision) {
  auto [rc, err] = train("sgd_" + precision, precision, 100.0);
  EXPECT_NE(rc, 0) << err;
  EXPECT_NE(err.find("train: error: training diverged: the training loss is "), std::string::npos) << err;
  EXPECT_NE(err.find(" at epoch "), std::string::npos) << err;
  EXPECT_NE(err.find("no result is written"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_empty(tmpdir() + "/sgd_" + precision + "/out")) << "an output was written";
}

TEST(Divergence, SgdDoubleNamesTheEpochAndWritesNothing) { expect_diverges_writing_nothing("double"); }
TEST(Divergence, SgdFloatNamesTheEpochAndWritesNothing) { expect_diverges_writing_nothing("float"); }

// The same stage and data with a sane lr0 succeed (the test can tell).
TEST(Divergence, SaneLearningRateWritesEveryOutput) {
  auto [rc, err] = train("sgd_sane", "double", 0.1);
  EXPECT_EQ(rc, 0) << err;
  for (const char* f : {"params.h5", "curves.csv", "summary.json", "provenance.json"})
    EXPECT_TRUE(fs::exists(tmpdir() + "/sgd_sane/out/" + f)) << f;
}

TEST(Divergence, LbfgsTrainingFromANanStartNamesTheRound) {
  PottsModel truth = make_potts_model(6, 4, ColourKind::kGaussian, 0.5, 3);
  nn::SequenceSet all = testing::gibbs_sequences(truth, 300, 2, 100, 4);
  nn::FactoredAttention m(6, 4);
  m.initialise(0.1, 0.1, 7);
  (*m.parameters()[0].value)(1, 0) = std::numeric_limits<double>::quiet_NaN();
  train::TrainOptions o;
  o.optimiser = "lbfgs";
  o.epochs = 3;
  const std::string e = error_of([&] { train::train_mlm(m, all, all, truth, o, 1); });
  EXPECT_NE(e.find("training diverged in L-BFGS round (epoch) 1: L-BFGS: the objective or its gradient is "
                   "non-finite at the starting point"),
            std::string::npos)
      << e;
}

TEST(Divergence, FactoredFitFromANanStartSaysSo) {
  PottsModel truth = make_potts_model(6, 4, ColourKind::kGaussian, 0.5, 3);
  nn::SequenceSet train = testing::gibbs_sequences(truth, 300, 2, 100, 4);
  arma::mat A(6, 6, arma::fill::zeros), V(4, 4, arma::fill::eye);
  A(2, 1) = std::numeric_limits<double>::infinity();
  const std::string e = error_of([&] { fit_factored_attention_from(train, 4, A, V, FactoredFitOptions{}); });
  EXPECT_NE(e.find("factored fit (from a given start): L-BFGS: the objective or its gradient is non-finite at the "
                   "starting point"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace potts
