// End to end on the fixture DAG (tests/paper/BUILD): the figure actions ran
// under Bazel; here their outputs are collected into a results/ directory,
// audited, and each figure is redrawn outside Bazel from its provenance
// record's command line, which must give the same bytes (PNG, PDF with its
// creation date pinned, data file, summary).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <utility>
#include <vector>

#include "lib/core/io.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/results.h"
#include "tests/util/test_util.h"
#include "tests/util/stage_rerun.h"

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

using testing_util::joined;
using testing_util::tmpdir;

// Re-runs a figure stage from its record into dir; returns the exit code.
int rerun(const nlohmann::json& rec, const std::string& dir, const std::string& config_override = "") {
  return testing_util::rerun_stage(rec, "stages/figures/figures", dir, config_override);
}

// Re-runs fixture `fixture`'s figure stage in tmpdir()/name with its config
// changed by `edit`; expects it to fail and returns its stderr.
template <class Edit>
std::string failing_rerun(const std::string& fixture, const std::string& name, Edit edit) {
  auto rec = nlohmann::json::parse(read_text("tests/paper/" + fixture + "/provenance.json"));
  const std::string dir = tmpdir() + "/" + name;
  fs::create_directories(dir);
  auto cfg = rec["config"];
  edit(cfg);
  write_text_atomic(dir + "/bad.json", cfg.dump());
  EXPECT_NE(rerun(rec, dir, dir + "/bad.json"), 0) << name;
  return read_text(dir + "/stderr.txt");
}

TEST(Pipeline, CollectedFixtureResultsPassTheAudit) {
  const std::string dest = tmpdir() + "/results";
  auto m = collect_results(read_index("tests/paper/fx_index.json"), ".", dest);
  auto p = audit_results(dest);
  EXPECT_TRUE(p.empty()) << joined(p);
  const auto& fig = m["files"]["figures/fx_curves.png"];
  EXPECT_FALSE(fig.contains("chain")) << "records link by hash";
  // The figure's chain, followed through its record's inputs by hash.
  std::map<std::string, nlohmann::json> records;
  for (const auto& [rel, e] : m["files"].items())
    if (rel.rfind("provenance/", 0) == 0) records[rel] = nlohmann::json::parse(read_text(dest + "/" + rel));
  const RecordGraph graph(records);
  std::vector<std::string> chain;
  for (const auto& rel : graph.ancestors(fig["provenance_record"])) chain.push_back(records[rel]["target"]);
  EXPECT_NE(std::find(chain.begin(), chain.end(), "//tests/paper:fx_sample"), chain.end()) << fig.dump();
  EXPECT_TRUE(m["files"].contains("provenance/tests.paper.fx_sample.json"));
  // A changed byte is caught and named.
  std::string png = read_text(dest + "/figures/fx_maps.png");
  png[png.size() / 2] ^= 0x20;
  write_text_atomic(dest + "/figures/fx_maps.png", png);
  p = audit_results(dest);
  ASSERT_EQ(p.size(), 1u) << joined(p);
  EXPECT_NE(p[0].find("figures/fx_maps.png"), std::string::npos) << p[0];
}

TEST(Pipeline, FiguresAreByteReproducible) {
  for (const std::string name : {"fx_curves", "fx_maps", "fx_sweep"}) {
    const std::string bazel_dir = "tests/paper/" + name;
    auto rec = nlohmann::json::parse(read_text(bazel_dir + "/provenance.json"));
    const std::string dir = tmpdir() + "/redraw_" + name;
    ASSERT_EQ(rerun(rec, dir), 0) << read_text(dir + "/stderr.txt");
    for (const std::string& out : {name + ".png", name + ".pdf", name + ".dat", std::string("summary.json")})
      EXPECT_EQ(sha256_file(dir + "/" + out), sha256_file(bazel_dir + "/" + out)) << name << ": " << out;
  }
}

TEST(Pipeline, MissingColumnIsAClearError) {
  const std::string err =
      failing_rerun("fx_curves", "bad_column", [](nlohmann::json& cfg) { cfg["series"]["1"]["y"] = "test_los"; });
  EXPECT_NE(err.find("curves.csv: no column 'test_los'"), std::string::npos) << err;
}

// "y_minus" subtracts another column of the same rows: the fixture's good
// run has test_loss = 0.8 + 0.05 + 1/epoch and optimal_test_loss = 0.8.
TEST(Pipeline, YMinusSubtractsAColumnRowByRow) {
  const std::string dat = read_text("tests/paper/fx_curves/fx_curves.dat");
  std::istringstream in(dat.substr(0, dat.find("\n\n\n")));  // series 0 (good)
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    double x, y;
    std::istringstream(line) >> x >> y;
    EXPECT_NEAR(y, 0.05 + 1.0 / x, 1e-9) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 20);
}

TEST(Pipeline, YMinusMissingColumnIsAClearError) {
  const std::string err = failing_rerun(
      "fx_curves", "bad_y_minus", [](nlohmann::json& cfg) { cfg["series"]["1"]["y_minus"] = "optimal_test_los"; });
  EXPECT_NE(err.find("curves.csv: no column 'optimal_test_los'"), std::string::npos) << err;
}

// {{key.path:count}} and {{key.path:list}} show an array of an upstream
// summary (the fixture sweep's seeds [0, 1, 2]).
TEST(Pipeline, CaptionShowsArraysAsCountAndList) {
  auto s = nlohmann::json::parse(read_text("tests/paper/fx_sweep/summary.json"));
  EXPECT_EQ(s["caption"], "Fixture sweep, mean ± standard error over the 3 seeds 0, 1, 2");
}

// Series titles take the caption's placeholders (the key of figure 3 right
// quotes the number of realisations).
TEST(Pipeline, SeriesTitleFillsPlaceholders) {
  auto s = nlohmann::json::parse(read_text("tests/paper/fx_sweep/summary.json"));
  EXPECT_EQ(s["series"][0]["title"], "perturbed attention, 3 seeds");
}

TEST(Pipeline, SeriesTitlePlaceholderThatNamesNothingIsAnErrorNamingTheSeries) {
  const std::string err = failing_rerun(
      "fx_sweep", "bad_title", [](nlohmann::json& cfg) { cfg["series"]["1"]["title"] = "{{sweep0.no_such_field}}"; });
  EXPECT_NE(err.find("series '1' title"), std::string::npos) << err;
  EXPECT_NE(err.find("no_such_field"), std::string::npos) << err;
}

TEST(Pipeline, ArrayPlaceholderThatNamesNoArrayIsAnError) {
  int k = 0;
  for (const auto& [caption, message] :
       std::vector<std::pair<std::string, std::string>>{{"{{sweep0.points:list}}", "':list' needs an array, found 4"},
                                                        {"{{sweep0.seed:count}}", "sweep0/summary.json has no 'seed'"},
                                                        {"{{nostage.seeds:count}}", "no stage 'nostage'"}}) {
    const std::string err = failing_rerun("fx_sweep", "bad_array_" + std::to_string(k++),
                                          [&](nlohmann::json& cfg) { cfg["caption"] = caption; });
    EXPECT_NE(err.find(message), std::string::npos) << caption << ": " << err;
  }
}

}  // namespace
}  // namespace potts::provenance
