// run_stage end to end: two runs with one seed give identical output bytes,
// the provenance record is complete, a config typo fails naming the key,
// and a failing stage leaves earlier results untouched.
#include <gtest/gtest.h>

#include <fstream>

#include "lib/core/io.h"
#include "lib/core/parallel.h"
#include "lib/core/rng.h"
#include "stages/runtime/stage.h"

namespace potts {
namespace {

std::string dir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// A small but real stage body: seeded random data into HDF5 and a summary.
void body(Stage& st) {
  auto& c = st.config();
  auto n = c.integer("n", 1, 1000);
  double scale = c.number("scale", 0, 10);
  Rng rng(st.seed(), 5);
  arma::mat x(n, 3);
  for (auto& v : x) v = scale * rng.normal();
  H5Writer w;
  w.matrix("x", x);
  w.save(st.output("data.h5"));
  st.write_summary({{"mean", arma::mean(arma::vectorise(x))}});
}

int run(const std::string& cfg, const std::string& tag, std::uint64_t seed = 7, std::vector<std::string> extra = {}) {
  std::string s = std::to_string(seed);
  std::vector<std::string> args = {"toy",
                                   "--config",
                                   cfg,
                                   "--seed",
                                   s,
                                   "--out",
                                   "data.h5=" + dir() + "/" + tag + ".h5",
                                   "--out",
                                   "summary.json=" + dir() + "/" + tag + ".json",
                                   "--provenance",
                                   dir() + "/" + tag + ".prov.json",
                                   "--in",
                                   "up/provenance.json=" + dir() + "/up.json",
                                   "--target",
                                   "//tests:toy"};
  args.insert(args.end(), extra.begin(), extra.end());
  // argv as main receives it: argc entries and a terminating null pointer
  // (run_stage may execv it to pin the numeric libraries; without the null
  // execv reads past the end, which UndefinedBehaviorSanitizer builds turn
  // into EFAULT).
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return run_stage("toy", "toy stage", int(args.size()), argv.data(), body);
}

class StageRun : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_atomic(dir() + "/up.json", R"({"stage": "upstream", "seed": 1})");
    write_text_atomic(dir() + "/good.json", R"({"n": 50, "scale": 2.0})");
  }
};

TEST_F(StageRun, SameSeedSameBytesAndCompleteProvenance) {
  ASSERT_EQ(run(dir() + "/good.json", "a"), 0);
  ASSERT_EQ(run(dir() + "/good.json", "b"), 0);
  ASSERT_EQ(run(dir() + "/good.json", "c", 8), 0);
  EXPECT_EQ(sha256_file(dir() + "/a.h5"), sha256_file(dir() + "/b.h5"));
  EXPECT_EQ(read_text(dir() + "/a.json"), read_text(dir() + "/b.json"));
  EXPECT_NE(sha256_file(dir() + "/a.h5"), sha256_file(dir() + "/c.h5"));

  auto p = nlohmann::json::parse(read_text(dir() + "/a.prov.json"));
  EXPECT_EQ(p["stage"], "toy");
  EXPECT_EQ(p["target"], "//tests:toy");
  EXPECT_EQ(p["seed"], 7);
  EXPECT_EQ(p["config"]["n"], 50);
  EXPECT_EQ(p["outputs"]["data.h5"]["sha256"], sha256_file(dir() + "/a.h5"));
  EXPECT_EQ(p["inputs"]["up/provenance.json"]["sha256"], sha256_file(dir() + "/up.json"));
  EXPECT_EQ(p["upstream"]["up"]["stage"], "upstream");
  for (const char* k : {"code_version", "toolchain", "wall_seconds", "threads", "config_sha256"})
    EXPECT_TRUE(p.contains(k)) << k;
  EXPECT_TRUE(p["toolchain"].contains("compiler"));
  EXPECT_TRUE(p["toolchain"].contains("armadillo"));
  // which OpenBLAS kernels ran (they decide the last bits of BLAS products)
  EXPECT_FALSE(p["toolchain"].value("openblas_core", std::string()).empty());
}

// --threads reaches the kernels' pool while the body runs and the record.
TEST_F(StageRun, ThreadsArgumentSetsThePoolAndIsRecorded) {
  int seen = 0;
  auto probe = [&](Stage& st) {
    seen = parallel_threads();
    body(st);
  };
  std::vector<std::string> args = {"toy",
                                   "--config",
                                   dir() + "/good.json",
                                   "--seed",
                                   "7",
                                   "--out",
                                   "data.h5=" + dir() + "/t.h5",
                                   "--out",
                                   "summary.json=" + dir() + "/t.json",
                                   "--provenance",
                                   dir() + "/t.prov.json",
                                   "--threads",
                                   "3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ASSERT_EQ(0, run_stage("toy", "toy stage", int(args.size()), argv.data(), probe));
  set_parallel_threads(1);
  EXPECT_EQ(3, seen);
  EXPECT_EQ(3, nlohmann::json::parse(read_text(dir() + "/t.prov.json"))["threads"]);
  testing::internal::CaptureStderr();
  EXPECT_EQ(1, run(dir() + "/good.json", "t0", 7, {"--threads", "0"}));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("--threads"), std::string::npos);
}

TEST_F(StageRun, TypoInConfigFailsAndKeepsEarlierResult) {
  ASSERT_EQ(run(dir() + "/good.json", "keep"), 0);
  std::string before = sha256_file(dir() + "/keep.h5");
  write_text_atomic(dir() + "/typo.json", R"({"n": 50, "scale": 3.0, "sclae": 3})");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(dir() + "/typo.json", "keep"), 1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown key 'sclae'"), std::string::npos) << err;
  EXPECT_NE(err.find("typo.json"), std::string::npos) << err;
  // The config is validated before the first output is handed out, so the
  // earlier result (scale 2) was not overwritten by the typo run (scale 3).
  EXPECT_EQ(before, sha256_file(dir() + "/keep.h5"));
}

TEST_F(StageRun, OutOfRangeValueNamesKeyAndExpectation) {
  write_text_atomic(dir() + "/bad.json", R"({"n": 0, "scale": 2.0})");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run(dir() + "/bad.json", "bad"), 1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("key 'n': value 0 out of range"), std::string::npos) << err;
  std::ifstream prov(dir() + "/bad.prov.json");
  EXPECT_FALSE(prov.good()) << "a failed stage must not write a provenance record";
}

}  // namespace
}  // namespace potts
