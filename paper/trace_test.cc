// //paper:trace on a copy of the committed results/: the chain of a figure
// reaches the sample stage; a changed input upstream is named as the broken
// link; a changed file is stale itself; a path that is not a result is an
// error saying so.
#include "lib/provenance/trace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include <cstdlib>

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

std::string copy_of_results() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string d = std::string(tmp ? tmp : "/tmp") + "/results";
  fs::remove_all(d);
  fs::copy("results", d, fs::copy_options::recursive);
  return d;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Trace, AFiguresChainReachesTheSampleStage) {
  const std::string t = trace_result("results", "results/figures/fig2d_h70.png");
  EXPECT_TRUE(has(t, "made by //stages/figures:fig2d_h70")) << t.substr(0, 2000);
  EXPECT_TRUE(has(t, "made by //stages/perturb:paper_h70 (stage perturb_merge)"));
  EXPECT_TRUE(has(t, "made by //stages/sample:paper_h70 (stage sample), seed 1"));
  EXPECT_TRUE(has(t, "inputs: none (the first stage of its chain)"));
  EXPECT_TRUE(has(t, "script/fig2d.gp, sha256 "));
  EXPECT_TRUE(has(t, "results/perturb/paper_h70/perturb.csv: unchanged"));
  EXPECT_TRUE(has(t, "status: consistent with MANIFEST.json"));
  const std::vector<std::string> none;
  EXPECT_TRUE(has(trace_result("results", "figures/fig2d_h70.png", &none), "status: current"));
}

TEST(Trace, AChangedInputIsNamedAsTheBrokenLink) {
  const std::string dir = copy_of_results();
  const std::string input = dir + "/perturb/paper_h70/perturb.csv";
  write_text_atomic(input, read_text(input) + "0,0,0\n");
  const std::string t = trace_result(dir, "figures/fig2d_h70.png");
  EXPECT_TRUE(has(t, "results/perturb/paper_h70/perturb.csv: CHANGED")) << t.substr(0, 3000);
  EXPECT_TRUE(has(t, "status: STALE"));
  EXPECT_TRUE(has(t, "an input changed after it was read: results/perturb/paper_h70/perturb.csv"));
  // The figure itself changed.
  const std::string fig = dir + "/figures/fig2d_h70.dat";
  write_text_atomic(fig, read_text(fig) + "\n");
  EXPECT_TRUE(has(trace_result(dir, fig), "the file itself changed since collection"));
}

TEST(Trace, APathThatIsNotAResultIsAnError) {
  try {
    trace_result("results", "results/figures/no_such_figure.png");
    FAIL() << "no error";
  } catch (const StageError& e) {
    EXPECT_TRUE(has(e.what(), "is not a result")) << e.what();
    EXPECT_TRUE(has(e.what(), "figures/no_such_figure.png")) << e.what();
  }
}

}  // namespace
}  // namespace potts::provenance
