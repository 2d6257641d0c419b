// The merge helpers of the paper's sweeps (sweep.h): chunk rows keyed by
// (grid point, realisation), refused when held twice or by no chunk; the
// best restart; the shared optimal test loss.
#include "stages/runtime/sweep.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace potts {
namespace {

namespace fs = std::filesystem;

class ChunkRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") / "sweep_test";
    fs::create_directories(dir_);
  }
  // A stage whose inputs are chunk<c>/realisations.csv holding `tables[c]`.
  Stage stage(const std::vector<std::string>& tables) {
    std::map<std::string, std::string> inputs;
    for (std::size_t c = 0; c < tables.size(); ++c) {
      const fs::path p = dir_ / ("chunk" + std::to_string(c) + ".csv");
      std::ofstream(p) << tables[c];
      inputs["chunk" + std::to_string(c) + "/realisations.csv"] = p.string();
    }
    return Stage("merge", Config::parse("{}", "merge.json"), 0, inputs, {});
  }
  fs::path dir_;
};

TEST_F(ChunkRowsTest, RowsOfEveryChunkAreFoundByPointAndRealisation) {
  Stage st = stage({"k,r,x\n0,0,1.5\n1,0,2.5\n", "k,r,x\n0,1,3.5\n1,1,4.5\n"});
  const ChunkRows rows(st, 2, {"x", "k", "r"}, {"k", 1}, {"r", 1});
  EXPECT_EQ(rows.at(0, 0), (std::vector<double>{1.5, 0, 0}));
  EXPECT_EQ(rows.at(1, 1), (std::vector<double>{4.5, 1, 1}));
  EXPECT_NO_THROW(rows.check_count(4));
  EXPECT_THROW(rows.check_count(3), StageError);
}

TEST_F(ChunkRowsTest, ARowHeldByTwoChunksIsAnErrorNamingTheFile) {
  Stage st = stage({"k,r,x\n0,0,1\n", "k,r,x\n0,0,2\n"});
  try {
    ChunkRows(st, 2, {"k", "r", "x"}, {"k", 5}, {"r", 5});
    FAIL() << "duplicate accepted";
  } catch (const StageError& e) {
    EXPECT_NE(std::string(e.what()).find("chunk1.csv: k 0, r 0 appears twice"), std::string::npos) << e.what();
  }
}

TEST_F(ChunkRowsTest, AMissingRowAMissingColumnAndAKeyOutOfRangeAreErrors) {
  Stage st = stage({"k,r,x\n0,0,1\n"});
  const ChunkRows rows(st, 1, {"k", "r", "x"}, {"k", 5}, {"r", 5});
  EXPECT_THROW(rows.at(0, 1), StageError);
  EXPECT_THROW(ChunkRows(st, 1, {"k", "r", "y"}, {"k", 5}, {"r", 5}), StageError);
  EXPECT_THROW(ChunkRows(st, 1, {"k", "r", "x"}, {"k", 5}, {"x", 0}), StageError);  // x = 1 > 0
  EXPECT_THROW(ChunkRows(st, 2, {"k", "r", "x"}, {"k", 5}, {"r", 5}), StageError);  // no chunk1 input
}

TEST(BestRestartTest, LowestTrainingLossFirstOnTies) {
  EXPECT_EQ(best_restart({0.7, 0.5, 0.9, 0.5}), 1u);
  EXPECT_EQ(best_restart({0.3}), 0u);
  EXPECT_THROW(best_restart({}), std::invalid_argument);
}

TEST(SharedOptimumTest, RunsOnDifferentTestSetsAreRefused) {
  SharedOptimum o;
  o.check(0.59, "a.json");
  o.check(0.59, "b.json");
  EXPECT_EQ(o.value(), 0.59);
  EXPECT_THROW(o.check(0.6, "c.json"), StageError);
}

}  // namespace
}  // namespace potts
