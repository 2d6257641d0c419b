// Determinism of the train and perturbation stages (same inputs and seed give
// the same bytes): each quick stage is re-run outside Bazel from its
// provenance record, with a single BLAS thread requested by the stage itself
// and OPENBLAS_NUM_THREADS=2 in the environment, and every output must equal
// the Bazel-built one byte for byte. Fails on any time stamp, wall time,
// thread count or uninitialised memory that reaches an output. The threaded
// stages also re-run with --threads 3 instead of the build's count: their
// kernels split a batch over threads without changing a bit.
#include <gtest/gtest.h>

#include <cstdlib>

#include "lib/core/io.h"
#include "tests/util/stage_rerun.h"
#include "tests/util/test_util.h"

namespace potts {
namespace {

void expect_same_bytes(const std::string& binary, const std::string& built, const std::string& name,
                       const std::string& threads = "") {
  const nlohmann::json rec = nlohmann::json::parse(read_text(built + "/provenance.json"));
  const std::string dir = testing_util::tmpdir() + "/" + name;
  ::setenv("OPENBLAS_NUM_THREADS", "2", 1);
  ASSERT_EQ(testing_util::rerun_stage(rec, binary, dir, "", threads), 0) << read_text(dir + "/stderr.txt");
  if (!threads.empty())
    EXPECT_EQ(std::stoi(threads), nlohmann::json::parse(read_text(dir + "/provenance.json"))["threads"].get<int>());
  ASSERT_FALSE(rec["outputs"].empty());
  for (const auto& [key, value] : rec["outputs"].items()) {
    SCOPED_TRACE(name + ": " + key);
    EXPECT_EQ(sha256_file(dir + "/" + key), sha256_file(built + "/" + key));
  }
}

TEST(StageBytes, TrainFactoredRerunGivesSameBytes) {
  expect_same_bytes("stages/train/train", "stages/train/quick_factored", "factored");
}

TEST(StageBytes, TrainVanillaRerunGivesSameBytes) {
  expect_same_bytes("stages/train/train", "stages/train/quick_vanilla1", "vanilla1");
}

TEST(StageBytes, PerturbRerunGivesSameBytes) {
  expect_same_bytes("stages/perturb/perturb", "stages/perturb/quick_a0.2_s1", "perturb");
}

TEST(StageBytes, ThreadedRerunsGiveSameBytes) {
  expect_same_bytes("stages/train/train", "stages/train/quick_vanilla3", "vanilla3_threads3", "3");
  expect_same_bytes("stages/perturb/perturb", "stages/perturb/quick_a0.2_s1", "perturb_threads3", "3");
}

}  // namespace
}  // namespace potts
