// Same bytes on every x86-64 CPU (lib/core/numeric_env.h).
//
// 1. Every quick stage's outputs (built by Bazel on this machine) have the
//    SHA-256 committed in golden_sha256.json, which was made on another
//    machine: run on a new CPU, this checks bytes across machines.
// 2. One stage of every kind is rerun from its provenance record under
//    several OpenBLAS kernel families (those this CPU can run) and with libm's
//    FMA/AVX2 variants masked (a CPU without FMA); every output must keep the
//    Bazel-built bytes, and every rerun must report the pinned family.
// 3. The pin matters: with it switched off, two kernel families give
//    different bytes for the Gaussian model (BLAS products of width 50), so
//    the checks above can fail.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "lib/core/io.h"
#include "lib/core/numeric_env.h"
#include "tests/determinism/quick_hashes.h"
#include "tests/util/stage_rerun.h"
#include "tests/util/test_util.h"

namespace potts {
namespace {

using Env = std::map<std::string, std::string>;
const char* const kNoFma = kGlibcTunables;  // libm without its FMA variants

// Kernel families to try, with the CPU features each needs.
std::vector<std::pair<std::string, Env>> environments() {
  std::vector<std::pair<std::string, Env>> e;
  e.push_back({"default", {}});
  e.push_back({"Prescott, libm without FMA, 2 BLAS threads",
               {{"OPENBLAS_CORETYPE", "Prescott"}, {"GLIBC_TUNABLES", kNoFma}, {"OPENBLAS_NUM_THREADS", "2"}}});
  if (__builtin_cpu_supports("ssse3")) e.push_back({"Core2", {{"OPENBLAS_CORETYPE", "Core2"}}});
  if (__builtin_cpu_supports("sse4.2")) e.push_back({"Nehalem", {{"OPENBLAS_CORETYPE", "Nehalem"}}});
  if (__builtin_cpu_supports("avx"))
    e.push_back({"Sandybridge", {{"OPENBLAS_CORETYPE", "Sandybridge"}, {"GLIBC_TUNABLES", kNoFma}}});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    e.push_back({"Haswell", {{"OPENBLAS_CORETYPE", "Haswell"}}});
    e.push_back({"Zen", {{"OPENBLAS_CORETYPE", "Zen"}}});
  }
  if (__builtin_cpu_supports("avx512f")) e.push_back({"SkylakeX", {{"OPENBLAS_CORETYPE", "SkylakeX"}}});
  return e;
}

// Sets env for the lifetime of the object (the variables a rerun may see).
class ScopedEnv {
 public:
  explicit ScopedEnv(const Env& env) {
    for (const char* k : {"OPENBLAS_CORETYPE", "GLIBC_TUNABLES", "OPENBLAS_NUM_THREADS", kUnpinnedVariable})
      ::unsetenv(k);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const char* k : {"OPENBLAS_CORETYPE", "GLIBC_TUNABLES", "OPENBLAS_NUM_THREADS", kUnpinnedVariable})
      ::unsetenv(k);
  }
};

std::string binary_of(const nlohmann::json& record) {
  return testing_util::runfile(record["command"][0].get<std::string>());
}

// Reruns the stage built at `built` (runfiles path) into dir; returns the
// output hashes (as quick_stage_hashes would) and the rerun's record.
std::pair<nlohmann::json, nlohmann::json> rerun(const std::string& built, const std::string& dir) {
  const nlohmann::json rec = nlohmann::json::parse(read_text(built + "/provenance.json"));
  // The configuration as the record holds it (generated configs are not
  // among the runfiles).
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/config.json";
  std::ofstream(config) << rec["config"].dump(2) << "\n";
  const int rc = testing_util::rerun_stage(rec, binary_of(rec), dir, config);
  if (rc != 0) ADD_FAILURE() << built << " failed (" << rc << "): " << read_text(dir + "/stderr.txt");
  nlohmann::json h = nlohmann::json::object();
  for (const auto& [key, value] : rec["outputs"].items())
    if (testing_util::hashed_output(key)) h[key] = sha256_file(dir + "/" + key);
  return {h, nlohmann::json::parse(read_text(dir + "/provenance.json"))};
}

TEST(CrossCpu, QuickStagesMatchTheCommittedHashes) {
  const nlohmann::json now = testing_util::quick_stage_hashes();
  const nlohmann::json golden = nlohmann::json::parse(read_text("tests/determinism/golden_sha256.json"));
  if (const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    std::ofstream(std::string(out) + "/golden_sha256.json") << now.dump(2) << "\n";
  }
  ASSERT_GE(now.size(), 50u) << "quick stages missing from the runfiles";
  for (const auto& [target, outputs] : golden.items())
    EXPECT_TRUE(now.contains(target)) << target << " is in golden_sha256.json but was not built";
  for (const auto& [target, outputs] : now.items()) {
    if (!golden.contains(target)) {
      ADD_FAILURE() << target << " has no committed hashes (tools/bazel run //tests/determinism:golden_hashes)";
      continue;
    }
    for (const auto& [key, sha] : outputs.items())
      EXPECT_EQ(sha, golden[target].value(key, std::string("(none)")))
          << target << " " << key << " differs from the committed bytes. If the numbers changed on purpose, "
          << "regenerate tests/determinism/golden_sha256.json (see tests/determinism/BUILD); if not, this CPU "
          << "computes different bytes from the machine that made them.";
  }
}

// One stage of every kind (its binary), the cheap ones of each sweep.
const std::vector<std::string>& stage_kinds() {
  static const std::vector<std::string> stages = {"stages/sample/quick",
                                                  "stages/train/quick_factored",
                                                  "stages/train/quick_vanilla1",
                                                  "stages/train/quick_vanilla3",
                                                  "stages/perturb/quick_a0.2_s1",
                                                  "stages/perturb/quick",
                                                  "stages/gaussian_sim/quick_model",
                                                  "stages/gaussian_sim/quick_chunk_0",
                                                  "stages/gaussian_sim/quick",
                                                  "stages/replica/quick",
                                                  "stages/potts_alpha/quick_plan",
                                                  "stages/potts_alpha/quick_chunk_0",
                                                  "stages/potts_alpha/quick",
                                                  "stages/diversity/quick_fit_gaussian_60",
                                                  "stages/diversity/quick"};
  return stages;
}

TEST(CrossCpu, AtLeastThreeKernelFamiliesBesidesTheDefaultCanRun) {
  EXPECT_GE(environments().size(), 4u) << "fewer than three kernel families besides the default can run on this CPU";
}

// A family's label up to its first comma, letters and digits only: the
// test's name and its rerun directory.
std::string family_name(const std::string& label) {
  std::string name = label.substr(0, label.find(','));
  for (auto& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// One test per kernel family, so that Bazel's shards run them side by side.
class EveryStageKind : public testing::TestWithParam<std::pair<std::string, Env>> {};

TEST_P(EveryStageKind, GivesTheSameBytesUnderThisKernelFamily) {
  const auto& [label, env] = GetParam();
  ScopedEnv scoped(env);
  for (const auto& s : stage_kinds()) {
    SCOPED_TRACE(label + ": " + s);
    const std::string dir = testing_util::tmpdir() + "/" + family_name(label) + "/" + s;
    const auto [h, rec] = rerun(s, dir);
    ASSERT_FALSE(h.empty());
    for (const auto& [key, sha] : h.items()) EXPECT_EQ(sha, sha256_file(s + "/" + key)) << key;
    const auto& num = rec["toolchain"]["numerics"];
    EXPECT_TRUE(num["pinned"].get<bool>());
    EXPECT_EQ(num["openblas_core"].get<std::string>(), kOpenblasCoretype);
    EXPECT_EQ(num["GLIBC_TUNABLES"].get<std::string>(), kGlibcTunables);
    EXPECT_EQ(num["openblas_threads"].get<int>(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(CrossCpu, EveryStageKind, testing::ValuesIn(environments()),
                         [](const testing::TestParamInfo<std::pair<std::string, Env>>& param_info) {
                           return family_name(param_info.param.first);
                         });

TEST(CrossCpu, WithoutThePinKernelFamiliesDiffer) {
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
    GTEST_SKIP() << "needs a CPU that runs OpenBLAS's Haswell (FMA) kernels";
  const std::string s = "stages/gaussian_sim/quick_chunk_0";
  nlohmann::json h[2];
  int i = 0;
  for (const char* family : {"Prescott", "Haswell"}) {
    ScopedEnv scoped({{"OPENBLAS_CORETYPE", family}, {kUnpinnedVariable, "1"}});
    auto [hashes, rec] = rerun(s, testing_util::tmpdir() + "/unpinned_" + family);
    EXPECT_FALSE(rec["toolchain"]["numerics"]["pinned"].get<bool>());
    EXPECT_EQ(rec["toolchain"]["numerics"]["openblas_core"].get<std::string>(), family);
    h[i++] = hashes;
  }
  EXPECT_NE(h[0], h[1]) << "unpinned Prescott and Haswell kernels gave the same bytes: the cross-family test above "
                           "would not notice a missing pin";
}

}  // namespace
}  // namespace potts
