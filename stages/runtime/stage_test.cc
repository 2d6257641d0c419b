// The provenance record does not depend on where the action ran.
#include "stages/runtime/stage.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "lib/core/io.h"

namespace potts {
namespace {

TEST(LocationIndependent, CutsEverythingBeforeBazelOut) {
  EXPECT_EQ(location_independent("/w/build-1a2b/bazel-out/k8-opt/bin/stages/sample/sample"),
            "bazel-out/k8-opt/bin/stages/sample/sample");
  EXPECT_EQ(location_independent("bazel-out/k8-opt/bin/x/model.h5"), "bazel-out/k8-opt/bin/x/model.h5");
}

TEST(LocationIndependent, KeepsTheKeyOfAKeyPathArgument) {
  EXPECT_EQ(location_independent("sample/model.h5=/tmp/exec/bazel-out/k8-opt/bin/s/model.h5"),
            "sample/model.h5=bazel-out/k8-opt/bin/s/model.h5");
}

TEST(LocationIndependent, LeavesOtherArgumentsAlone) {
  for (const std::string a : {"--seed", "3", "stages/train/configs/paper_factored.json", "/abs/no/output/tree",
                              "//stages/train:paper_h70_factored_s1", "my-bazel-out/x"})
    EXPECT_EQ(location_independent(a), a);
}

TEST(VolatileFields, AreTheOnlyRunDependentFieldsOfARecord) {
  // Two records of the same stage, written by two "runs", are equal once the
  // volatile fields are dropped, and the list names fields a record has.
  const std::string cfg = std::string(std::getenv("TEST_TMPDIR")) + "/t.json";
  write_text_atomic(cfg, "{}");
  Stage s("t", Config::load(cfg), 7, {}, {});
  s.facts()["beta"] = 0.5;
  s.timings()["training_seconds"] = 1.25;
  auto a = s.provenance("//t:a", "commit-a", 1.0, {"/w1/bazel-out/k8-opt/bin/t", "--status", "bazel-out/s.txt"});
  auto b_stage = s;
  b_stage.timings()["training_seconds"] = 2.5;
  auto b = b_stage.provenance("//t:a", "commit-b", 2.0, {"/w2/build-9/bazel-out/k8-opt/bin/t"});
  for (const char* f : kVolatileProvenanceFields) {
    EXPECT_TRUE(a.contains(f)) << f;
    a.erase(f);
    b.erase(f);
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["facts"]["beta"], 0.5);
}

}  // namespace
}  // namespace potts
