#include "lib/provenance/verify.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

namespace potts::provenance {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back("//stages/s:t" + std::to_string(100 + i));
  return v;
}

TEST(SampleTargets, SameSeedSameChoiceInAnyInputOrder) {
  auto a = names(30);
  auto b = a;
  std::reverse(b.begin(), b.end());
  EXPECT_EQ(sample_targets(a, 7, 42), sample_targets(b, 7, 42));
  EXPECT_NE(sample_targets(a, 7, 42), sample_targets(a, 7, 43));
}

TEST(SampleTargets, DistinctMembersAndAllWhenKIsLarge) {
  auto v = names(12);
  auto s = sample_targets(v, 5, 1);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(std::set<std::string>(s.begin(), s.end()).size(), 5u);
  for (const auto& t : s) EXPECT_NE(std::find(v.begin(), v.end(), t), v.end());
  auto all = sample_targets(v, 99, 1);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), std::set<std::string>(v.begin(), v.end()));
  EXPECT_TRUE(sample_targets(v, 0, 1).empty());
}

// Each of n targets is in a choice of k with probability k/n. Over 20000
// seeds the frequency has standard error sqrt(p(1-p)/20000) = 0.0032 for
// p = 0.3; 4.5 standard errors (0.0146) bound all 10 at once with
// probability above 0.9999. A modulo-biased or fixed choice fails.
TEST(SampleTargets, EveryTargetEquallyLikely) {
  const auto v = names(10);
  std::map<std::string, int> hits;
  const int seeds = 20000;
  for (int s = 0; s < seeds; ++s)
    for (const auto& t : sample_targets(v, 3, static_cast<std::uint64_t>(s))) ++hits[t];
  ASSERT_EQ(hits.size(), 10u);
  for (const auto& [t, h] : hits) EXPECT_NEAR(h / double(seeds), 0.3, 0.0146) << t;
}

TEST(FirstDifference, NamesTheArgument) {
  const std::vector<std::string> tree = {"tool", "--seed", "1"};
  EXPECT_EQ(first_difference(tree, nlohmann::json::array({"tool", "--seed", "1"})), "");
  EXPECT_EQ(first_difference(tree, nlohmann::json::array({"tool", "--seed", "2"})), "argument 2: tree '1', record '2'");
  EXPECT_EQ(first_difference(tree, nlohmann::json::array({"tool", "--seed"})), "argument 2: tree '1', record '(none)'");
}

// A record made when every stage was given its upstream records: its
// command, without those pairs, is the tree's; data inputs stay.
TEST(FirstDifference, RecordInputsOfTheFormerGraphAreDropped) {
  const nlohmann::json recorded =
      nlohmann::json::array({"tool", "--in", "sample/train.h5=bazel-out/k8-opt/bin/s/q/train.h5", "--in",
                             "sample/provenance.json=bazel-out/k8-opt/bin/s/q/provenance.json", "--seed", "1"});
  const std::vector<std::string> tree = {"tool", "--in", "sample/train.h5=bazel-out/k8-opt/bin/s/q/train.h5", "--seed",
                                         "1"};
  EXPECT_EQ(without_record_inputs(recorded), nlohmann::json(tree));
  EXPECT_NE(first_difference(tree, recorded), "");
  EXPECT_EQ(first_difference(tree, without_record_inputs(recorded)), "");
  // A data input named like a record but under another key is kept.
  const nlohmann::json other = nlohmann::json::array({"tool", "--in", "provenance.json=x"});
  EXPECT_EQ(without_record_inputs(other), other);
}

TEST(StageRecords, ReadsRecordsAndToolsAndNamesAMissingField) {
  const fs::path r = fs::path(::testing::TempDir()) / "results_records";
  fs::create_directories(r / "provenance");
  nlohmann::json rec = {{"target", "//stages/a:x"},
                        {"command", {"t"}},
                        {"inputs", nlohmann::json::object()},
                        {"outputs", nlohmann::json::object()},
                        {"wall_seconds", 2.5},
                        {"threads", 4}};
  std::ofstream(r / "provenance/a.x.json") << rec.dump();
  nlohmann::json m = {{"files", {{"provenance/a.x.json", {{"sha256", "0"}}}, {"a/x/summary.json", {{"sha256", "1"}}}}},
                      {"code", {{"//stages/a:x", {{"tool", "//stages/a:a"}}}}}};
  std::ofstream(r / "MANIFEST.json") << m.dump();
  auto s = stage_records(r.string());
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.at("//stages/a:x").tool, "//stages/a:a");
  EXPECT_EQ(s.at("//stages/a:x").record_rel, "provenance/a.x.json");
  EXPECT_DOUBLE_EQ(recorded_core_seconds(s.at("//stages/a:x").record), 10.0);

  rec.erase("outputs");
  std::ofstream(r / "provenance/a.x.json") << rec.dump();
  try {
    stage_records(r.string());
    FAIL() << "a record without outputs was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("a.x.json: field \"outputs\" missing"), std::string::npos) << e.what();
  }
}

}  // namespace

// --scratch: refused inside or around the workspace and the results tree,
// and when it exists with something in it; a new or empty directory is
// accepted.
TEST(ScratchRefusal, RefusesTheTreesAndNonEmptyDirectories) {
  const fs::path root = fs::path(testing::TempDir()) / "scratch_refusal";
  fs::remove_all(root);
  const fs::path ws = root / "ws", results = ws / "results";
  fs::create_directories(results / "provenance");
  std::ofstream(results / "MANIFEST.json") << "{}";
  const std::string w = ws.string(), r = results.string();
  EXPECT_NE(scratch_refusal(r, w, r).find("lies inside"), std::string::npos);
  EXPECT_NE(scratch_refusal((results / "provenance").string(), w, r).find("lies inside"), std::string::npos);
  EXPECT_NE(scratch_refusal(w, w, r).find("lies inside"), std::string::npos);
  EXPECT_NE(scratch_refusal((ws / "tmp").string(), w, r).find("lies inside the workspace"), std::string::npos);
  EXPECT_NE(scratch_refusal(root.string(), w, r).find("contains"), std::string::npos);
  EXPECT_NE(scratch_refusal("/", w, r).find("contains"), std::string::npos);
  // Through a symbolic link to results/.
  fs::create_symlink(results, root / "link");
  EXPECT_NE(scratch_refusal((root / "link").string(), w, r).find("lies inside"), std::string::npos);
  fs::create_directories(root / "full");
  std::ofstream(root / "full" / "f") << "x";
  EXPECT_NE(scratch_refusal((root / "full").string(), w, r).find("not empty"), std::string::npos);
  fs::create_directories(root / "empty");
  EXPECT_EQ(scratch_refusal((root / "empty").string(), w, r), "");
  EXPECT_EQ(scratch_refusal((root / "new").string(), w, r), "");
  // Nothing was created or removed by the checks.
  EXPECT_FALSE(fs::exists(root / "new"));
  EXPECT_TRUE(fs::exists(results / "MANIFEST.json"));
}

}  // namespace potts::provenance
