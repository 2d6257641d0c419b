// The audit's by-hash chain link (lib/provenance/audit.cc, step 5): a stage
// given only some files of an upstream stage (the paper reads a figure's
// summary.json alone) embeds no upstream record, and its input is linked to
// the record in results/ whose output has exactly those bytes. Records here
// are written by hand, so each test changes one thing against a known-good
// results/ directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "lib/core/io.h"
#include "lib/provenance/results.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace potts::provenance {
namespace {

using testing_util::any_contains;
using testing_util::joined;

const std::string kFigRec = "provenance/figures.fig2a.json", kMdRec = "provenance/paper.paper_md.json";

json outputs_of(const std::string& dir, const std::vector<std::string>& names) {
  json o = json::object();
  for (const auto& n : names) o[n] = {{"path", "bazel-out/k8-opt/bin/x/" + n}, {"sha256", sha256_file(dir + "/" + n)}};
  return o;
}

// A figure stage (fig2a: summary.json, fig2a.png) and the paper stage, which
// consumed only the figure's summary.json: no upstream record embedded.
// Returns the collected results/ directory, which must pass the audit.
std::string make_results(const std::string& name) {
  const std::string root = testing_util::tmpdir() + "/" + name, fig = root + "/fig", md = root + "/md";
  fs::remove_all(root);
  fs::create_directories(fig);
  fs::create_directories(md);
  write_text_atomic(fig + "/summary.json", "{\"caption\": \"test loss\"}\n");
  write_text_atomic(fig + "/fig2a.png", "PNG bytes");
  json f = {{"target", "//stages/figures:fig2a"},
            {"stage", "figures"},
            {"seed", 3},
            {"config", {{"n", 1}}},
            {"inputs", json::object()},
            {"outputs", outputs_of(fig, {"summary.json", "fig2a.png"})}};
  write_text_atomic(fig + "/provenance.json", f.dump(2) + "\n");
  write_text_atomic(md + "/paper.md", "caption: test loss\n");
  json p = {{"target", "//paper:paper_md"},
            {"stage", "paper"},
            {"seed", 0},
            {"config", json::object()},
            {"inputs",
             {{"fig2a/summary.json",
               {{"path", "bazel-out/k8-opt/bin/paper/paper_fig2a_summary/summary.json"},
                {"sha256", sha256_file(fig + "/summary.json")}}},
              {"template/paper.md", {{"path", "paper/paper.md"}, {"sha256", "source file, not checked"}}}}},
            {"outputs", outputs_of(md, {"paper.md"})}};
  write_text_atomic(md + "/provenance.json", p.dump(2) + "\n");
  collect_results({{"//stages/figures:fig2a", {"fig/summary.json", "fig/fig2a.png", "fig/provenance.json"}, {"*"}},
                   {"//paper:paper_md", {"md/paper.md", "md/provenance.json"}, {"paper.md"}}},
                  root, root + "/results");
  return root + "/results";
}

// Writes `text` to results/<rel> and, if `rehash`, gives MANIFEST.json its
// new hash and size (so only the provenance check can see the change).
void replace(const std::string& results, const std::string& rel, const std::string& text, bool rehash) {
  write_text_atomic(results + "/" + rel, text);
  if (!rehash) return;
  json m = json::parse(read_text(results + "/MANIFEST.json"));
  m["files"][rel]["sha256"] = sha256_file(results + "/" + rel);
  m["files"][rel]["bytes"] = text.size();
  write_text_atomic(results + "/MANIFEST.json", m.dump(2) + "\n");
}

void edit_record(const std::string& results, const std::string& rel, const std::function<void(json&)>& edit) {
  json r = json::parse(read_text(results + "/" + rel));
  edit(r);
  replace(results, rel, r.dump(2) + "\n", true);
}

// Removes files from results/ and from MANIFEST.json.
void drop(const std::string& results, const std::vector<std::string>& rels) {
  json m = json::parse(read_text(results + "/MANIFEST.json"));
  for (const auto& rel : rels) {
    fs::remove(results + "/" + rel);
    m["files"].erase(rel);
  }
  write_text_atomic(results + "/MANIFEST.json", m.dump(2) + "\n");
}

TEST(ByHash, InputMatchingAProducersOutputIsLinked) {
  const std::string r = make_results("linked");
  const json m = json::parse(read_text(r + "/MANIFEST.json"))["files"];
  ASSERT_TRUE(m.contains("figures/fig2a.summary.json") && m.contains("paper.md") && m.contains(kFigRec));
  EXPECT_FALSE(json::parse(read_text(r + "/" + kMdRec)).contains("upstream")) << "the link must be by hash";
  const auto p = audit_results(r);
  EXPECT_TRUE(p.empty()) << joined(p);
}

TEST(ByHash, InputHashMatchingNoProducerFailsNamingRecordAndInput) {
  const std::string r = make_results("no_match");
  edit_record(r, kMdRec, [](json& rec) { rec["inputs"]["fig2a/summary.json"]["sha256"] = std::string(64, '0'); });
  const auto p = audit_results(r);
  EXPECT_TRUE(any_contains(p, kMdRec + " (//paper:paper_md): input fig2a/summary.json", "chain incomplete"))
      << joined(p);
  EXPECT_EQ(p.size(), 1u) << joined(p);
}

TEST(ByHash, ProducerRecordMissingFailsNamingRecordAndInput) {
  const std::string r = make_results("no_producer");
  drop(r, {kFigRec, "figures/fig2a.summary.json", "figures/fig2a.png"});
  const auto p = audit_results(r);
  EXPECT_TRUE(any_contains(p, kMdRec, "input fig2a/summary.json")) << joined(p);
  EXPECT_EQ(p.size(), 1u) << joined(p);
}

// A record never vouches for its own input: were the paper's own output
// byte-identical to what it read, the chain would still lack the producer.
TEST(ByHash, RecordDoesNotLinkToItself) {
  const std::string r = make_results("self");
  drop(r, {kFigRec, "figures/fig2a.summary.json", "figures/fig2a.png"});
  edit_record(r, kMdRec, [](json& rec) { rec["outputs"]["summary.json"] = rec["inputs"]["fig2a/summary.json"]; });
  const auto p = audit_results(r);
  EXPECT_TRUE(any_contains(p, kMdRec, "input fig2a/summary.json")) << joined(p);
}

TEST(ByHash, ProducerOutputChangedFailsNamingTheFile) {
  const std::string r = make_results("changed");
  replace(r, "figures/fig2a.summary.json", "{\"caption\": \"edited\"}\n", false);
  auto p = audit_results(r);
  EXPECT_TRUE(any_contains(p, "figures/fig2a.summary.json", "differs from MANIFEST.json")) << joined(p);
  EXPECT_EQ(p.size(), 1u) << joined(p);
  // With MANIFEST.json updated too, the producer's record still holds the
  // hash: the output was renamed (summary.json -> figures/fig2a.summary.json)
  // on collection, and must be checked all the same.
  replace(r, "figures/fig2a.summary.json", "{\"caption\": \"edited\"}\n", true);
  p = audit_results(r);
  EXPECT_TRUE(any_contains(p, "figures/fig2a.summary.json", kFigRec)) << joined(p);
  EXPECT_EQ(p.size(), 1u) << joined(p);
}

}  // namespace
}  // namespace potts::provenance
