// The stale check (lib/provenance/stale.h) on the fixture DAG: results
// collected with code fingerprints, then one thing of the tree changed at a
// time in a copy of the files the fingerprints name (a config, a gnuplot
// script, a tool's source and binary, a seed); exactly the results
// downstream of it must be named stale. Which stages lie downstream is read off
// tests/paper/BUILD: the two trained models feed fx_curves and fx_maps, the
// two sweeps feed fx_sweep, and the sample feeds everything.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "lib/core/io.h"
#include "lib/provenance/results.h"
#include "lib/provenance/stale.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

using testing_util::joined;
using testing_util::tmpdir;

const std::string kIndex = "tests/paper/fx_index.json";
const std::string P = "//tests/paper:";

struct Fixture {
  std::string results, tree;
  nlohmann::json fp, manifest;
};

// Collected results and a fresh copy of every file the fingerprints name.
Fixture make(const std::string& name, bool with_code = true) {
  Fixture f;
  const std::string base = tmpdir() + "/" + name;
  fs::remove_all(base);
  f.fp = read_fingerprints(kIndex);
  f.results = base + "/results";
  f.manifest = collect_results(read_index(kIndex), ".", f.results, with_code ? f.fp : nlohmann::json());
  f.tree = base + "/tree";
  std::set<std::string> files;
  for (const auto& [t, s] : f.fp["stages"].items()) {
    files.insert(s["config"].get<std::string>());
    for (const auto& x : s["sources"]) files.insert(x.get<std::string>());
  }
  for (const auto& [t, list] : f.fp["tools"].items())
    for (const auto& x : list) files.insert(x.get<std::string>());
  for (const auto& [t, bin] : f.fp["binaries"].items()) files.insert(bin.get<std::string>());
  for (const auto& rel : files) {
    fs::create_directories(fs::path(f.tree + "/" + rel).parent_path());
    write_text_atomic(f.tree + "/" + rel, read_text(rel));
  }
  return f;
}

void append(const std::string& path, const std::string& text) { write_text_atomic(path, read_text(path) + text); }

// The files of results/ made by these targets (their outputs and records).
std::set<std::string> files_of(const Fixture& f, const std::set<std::string>& targets) {
  std::set<std::string> out;
  for (const auto& [rel, m] : f.manifest["files"].items())
    if (targets.count(m["target"].get<std::string>())) out.insert(rel);
  return out;
}

std::set<std::string> stale_files(const StaleReport& r) {
  std::set<std::string> out;
  for (const auto& line : r.stale) out.insert(line.substr(0, line.find(": stale: ")));
  return out;
}

TEST(Stale, FreshResultsAreNotStale) {
  Fixture f = make("fresh");
  EXPECT_TRUE(f.manifest.contains("code"));
  EXPECT_EQ(f.manifest["code"].size(), 8u) << "every stage of the fixture DAG (sample, 2 train, 2 sweep, 3 figures)";
  auto a = audit_results(f.results);
  EXPECT_TRUE(a.empty()) << joined(a);
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_TRUE(r.stale.empty()) << joined(r.stale);
  EXPECT_TRUE(r.notes.empty()) << joined(r.notes);
}

TEST(Stale, EditedConfigNamesExactlyTheResultsDownstream) {
  Fixture f = make("config");
  append(f.tree + "/tests/paper/configs/train_good.json", " ");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_train_good", P + "fx_curves", P + "fx_maps"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "figures/fx_curves.png: stale: upstream " + P + "fx_train_good",
                                         "config tests/paper/configs/train_good.json changed"))
      << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale,
                                         "tests/paper/fx_train_good/curves.csv: stale: " + P + "fx_train_good: config"))
      << joined(r.stale);
}

TEST(Stale, EditedSampleConfigMakesEverythingStale) {
  Fixture f = make("sample");
  append(f.tree + "/tests/paper/configs/sample.json", "\n");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  std::set<std::string> all;
  for (const auto& [rel, m] : f.manifest["files"].items()) all.insert(rel);
  EXPECT_EQ(stale_files(r), all) << joined(r.stale);
}

TEST(Stale, EditedScriptNamesOnlyItsFigure) {
  Fixture f = make("script");
  append(f.tree + "/stages/figures/scripts/fig2b.gp", "# edited\n");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_maps"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "input stages/figures/scripts/fig2b.gp changed")) << joined(r.stale);
}

// A code edit that changes the binary (stood for by a byte appended to the
// tree's copy of it) makes the results of its tool stale.
TEST(Stale, CodeEditThatChangesTheBinaryNamesTheResultsOfItsTool) {
  Fixture f = make("code");
  append(f.tree + "/stages/figures/main.cc", "int unused_edit;\n");
  append(f.tree + "/" + f.fp["binaries"]["//stages/figures:figures"].get<std::string>(), "x");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_curves", P + "fx_maps", P + "fx_sweep"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "binary of //stages/figures:figures changed")) << joined(r.stale);
  // A library every stage links, and so every binary: everything.
  Fixture g = make("code_lib");
  append(g.tree + "/stages/runtime/stage.cc", "int unused_edit;\n");
  for (const auto& [t, bin] : g.fp["binaries"].items()) append(g.tree + "/" + bin.get<std::string>(), "x");
  r = stale_results(g.results, g.fp, g.tree, true);
  EXPECT_EQ(stale_files(r).size(), g.manifest["files"].size()) << joined(r.stale);
}

// A comment changes the sources but not the binaries: nothing is stale.
TEST(Stale, CommentOnlyEditLeavesResultsCurrent) {
  Fixture f = make("comment");
  append(f.tree + "/stages/figures/main.cc", "// a comment\n");
  append(f.tree + "/stages/runtime/stage.cc", "// a comment\n");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_TRUE(r.stale.empty()) << joined(r.stale);
  EXPECT_TRUE(r.notes.empty()) << joined(r.notes);
}

// Another binary from the recorded sources (another compiler, a sanitizer
// build): a note naming the tool, not a stale result.
TEST(Stale, OtherBinaryFromTheSameSourcesIsANote) {
  Fixture f = make("toolchain");
  append(f.tree + "/" + f.fp["binaries"]["//stages/figures:figures"].get<std::string>(), "x");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_TRUE(r.stale.empty()) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.notes, "//stages/figures:figures built here")) << joined(r.notes);
}

// Fingerprints without binaries (written before they were recorded): the
// source fingerprint decides, so any source edit is stale.
TEST(Stale, WithoutBinariesSourceEditsAreStale) {
  Fixture f = make("no_binaries");
  f.fp.erase("binaries");
  append(f.tree + "/stages/figures/main.cc", "// a comment\n");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_curves", P + "fx_maps", P + "fx_sweep"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "code of //stages/figures:figures changed")) << joined(r.stale);
}

TEST(Stale, ChangedSeedNamesTheStageAndItsFigure) {
  Fixture f = make("seed");
  f.fp["stages"][P + "fx_sweep_0"]["seed"] = 99;
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_sweep_0", P + "fx_sweep"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "seed changed (recorded 10, the BUILD file gives 99)"))
      << joined(r.stale);
}

TEST(Stale, StageNoLongerInTheDagIsStale) {
  Fixture f = make("removed");
  f.fp["stages"].erase(P + "fx_train_bad");
  auto r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_train_bad", P + "fx_curves", P + "fx_maps"})) << joined(r.stale);
  EXPECT_TRUE(testing_util::any_contains(r.stale, "no longer a stage of the paper's DAG")) << joined(r.stale);
}

// Results collected without code fingerprints, and fingerprints without
// binaries: everything but code is checked and a note says so; with
// require_code every result is stale.
TEST(Stale, WithoutCodeFingerprintsCodeIsUncheckedAndSaysSo) {
  Fixture f = make("no_code", false);
  f.fp.erase("binaries");
  EXPECT_FALSE(f.manifest.contains("code"));
  auto r = stale_results(f.results, f.fp, f.tree, false);
  EXPECT_TRUE(r.stale.empty()) << joined(r.stale);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("code of 8 of 8 stages not checked"), std::string::npos) << r.notes[0];
  append(f.tree + "/tests/paper/configs/train_bad.json", " ");
  r = stale_results(f.results, f.fp, f.tree, false);
  EXPECT_EQ(stale_files(r), files_of(f, {P + "fx_train_bad", P + "fx_curves", P + "fx_maps"})) << joined(r.stale);
  r = stale_results(f.results, f.fp, f.tree, true);
  EXPECT_EQ(stale_files(r).size(), f.manifest["files"].size()) << joined(r.stale);
}

}  // namespace
}  // namespace potts::provenance
