// Every stage's configuration schema, fuzzed through the stage's own main:
// the quick configuration (tests/fuzz/corpus/config_<stage>/) mutated
// structurally and byte by byte. Stages get only the inputs they read before
// their configuration, so a valid mutant stops at its first missing input;
// every case must end in success or the stage's one-line error. The sample
// stage computes before it asks for an input: its settings reader is fuzzed
// directly.
#include <gtest/gtest.h>

#include "lib/core/config.h"
#include "stages/sample/sample_stage.h"
#include "tests/fuzz/harness.h"

// clang-format does not settle on this list.
// clang-format off
#define STAGE_MAINS(X)                                                                                       \
  X(train) X(train_merge) X(perturb) X(perturb_merge) X(gaussian_model) X(gaussian_simulate) X(gaussian_merge) \
  X(replica) X(potts_alpha_plan) X(potts_alpha_fit) X(potts_alpha_merge) X(diversity_fit) X(diversity_merge)   \
  X(claims) X(figures)
// clang-format on
#define DECLARE(s) int fuzz_main_##s(int, char**);
STAGE_MAINS(DECLARE)

namespace potts::fuzz {
namespace {

void fuzz_stage(const std::string& stage, const std::string& corpus, MainFn main_fn, std::uint64_t seed) {
  unpinned_numerics();
  const std::string dir = corpus_dir("config_" + corpus);
  const std::string config = read_file(dir + "/config.json");
  ASSERT_FALSE(config.empty()) << dir;
  const std::string work = scratch_dir(corpus);
  std::vector<std::string> args = {stage, "--config",     work + "/config.json",    "--seed",
                                   "1",   "--provenance", work + "/provenance.json"};
  for (const auto& [key, text] : input_files(dir)) {
    write_file(work + "/inputs/" + key, text);
    args.push_back("--in");
    args.push_back(key + "=" + work + "/inputs/" + key);
  }
  // The base passes the configuration schema: unmutated, the stage may stop
  // at its first missing input, never at its configuration (whose errors
  // name config.json); a stale corpus would fuzz little past its first key.
  write_file(work + "/config.json", config);
  try {
    stage_case(main_fn, args);
  } catch (const StageError& e) {
    ASSERT_EQ(std::string(e.what()).find("config.json"), std::string::npos)
        << dir << "/config.json no longer fits the stage's configuration: " << e.what();
  }
  Mutator mut(seed);
  Tally t{"config_" + corpus};
  const long cases = case_budget();
  for (long i = 0; i < cases; ++i) {
    const std::string text = mutate_text(mut, "config.json", config);
    write_file(work + "/config.json", text);
    t.run([&] { stage_case(main_fn, args); }, "", text);
  }
  fs::remove_all(work);
  std::cout << t.summary() << std::endl;
  ::testing::Test::RecordProperty("cases_config_" + corpus, int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_GT(t.clear_errors, 0);
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings; first: " << t.findings.front();
}

#define CASE(s) \
  TEST(StageConfigFuzz, s) { fuzz_stage(#s, #s, fuzz_main_##s, std::hash<std::string>()(#s)); }
STAGE_MAINS(CASE)
TEST(StageConfigFuzz, train_vanilla) { fuzz_stage("train", "train_vanilla", fuzz_main_train, 31); }
TEST(StageConfigFuzz, figures_heatmaps) { fuzz_stage("figures", "figures_heatmaps", fuzz_main_figures, 37); }

TEST(StageConfigFuzz, sample) {
  const std::string origin = corpus_dir("config_sample") + "/config.json";
  const std::string config = read_file(origin);
  Config valid = Config::parse(config, origin);
  read_sample_settings(valid);  // the base is valid
  Mutator mut(41);
  Tally t{"config_sample"};
  const long cases = case_budget();
  for (long i = 0; i < cases; ++i) {
    const std::string text = mutate_text(mut, "config.json", config);
    t.run(
        [&] {
          Config c = Config::parse(text, origin);
          read_sample_settings(c);
        },
        origin, text);
  }
  std::cout << t.summary() << std::endl;
  RecordProperty("cases_config_sample", int(t.cases));
  EXPECT_GE(t.cases, cases);
  EXPECT_TRUE(t.findings.empty()) << t.findings.size() << " findings; first: " << t.findings.front();
}

}  // namespace
}  // namespace potts::fuzz
