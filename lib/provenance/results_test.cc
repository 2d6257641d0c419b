// Unit tests of results/ collection and audit (lib/provenance/results.h) on
// a synthetic three-stage DAG whose records are written by the real stage
// plumbing (potts::Stage::provenance), and of the literate paper's
// placeholders (lib/provenance/literate.h). Each failure mode of the audit
// is provoked and its message must name the file concerned.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lib/core/io.h"
#include "stages/runtime/stage.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/literate.h"
#include "lib/provenance/results.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

using testing_util::any_contains;
using testing_util::joined;
using testing_util::tmpdir;

// Runs one synthetic stage the way run_stage does: outputs under
// bazel-out/k8-opt/bin/<pkg>/<name>/ of `root`, then its provenance record.
std::string fake_stage(const std::string& root, const std::string& pkg, const std::string& name,
                       const std::map<std::string, std::string>& inputs,
                       const std::map<std::string, std::string>& outputs_text) {
  const std::string rel = "bazel-out/k8-opt/bin/" + pkg + "/" + name;
  fs::create_directories(root + "/" + rel);
  const std::string cfg = root + "/" + pkg.substr(pkg.rfind('/') + 1) + "_" + name + ".json";
  write_text_atomic(cfg, "{\"n\": 3}");
  std::map<std::string, std::string> outs;
  for (const auto& [k, text] : outputs_text) outs[k] = rel + "/" + k;
  Stage st(pkg.substr(pkg.rfind('/') + 1), Config::load(cfg), 7, inputs, outs);  // "stages/train" -> "train"
  st.config().integer("n");
  for (const auto& [k, text] : outputs_text) write_text_atomic(root + "/" + rel + "/" + k, text);
  // Provenance hashes paths relative to the execution root, like Bazel.
  const auto cwd = fs::current_path();
  fs::current_path(root);
  auto rec = st.provenance("//" + pkg + ":" + name, "test", 0.5, {"fake"});
  fs::current_path(cwd);
  write_text_atomic(root + "/" + rel + "/provenance.json", rec.dump(2) + "\n");
  return rel;
}

struct Dag {
  std::string root, results;
  std::vector<IndexEntry> index;
};

// sample -> train -> figure. The train stage reads data only; the figure,
// a presentation stage, also reads the train stage's record. `legacy`: the
// train stage is given the sample stage's record too, as every stage was
// before records left the action graph (results/ still holds such records).
Dag make_dag(const std::string& name, bool legacy = false) {
  Dag d;
  d.root = tmpdir() + "/" + name;
  fs::remove_all(d.root);
  fs::create_directories(d.root);
  d.results = d.root + "/results";
  auto s = fake_stage(d.root, "stages/sample", "paper", {}, {{"summary.json", "{\"beta\": 0.7}\n"}, {"model.h5", "M"}});
  std::map<std::string, std::string> train_inputs = {{"sample/model.h5", s + "/model.h5"},
                                                     {"sample/summary.json", s + "/summary.json"}};
  if (legacy) train_inputs["sample/provenance.json"] = s + "/provenance.json";
  auto t = fake_stage(d.root, "stages/train", "paper_factored", train_inputs,
                      {{"summary.json", "{\"final_test_loss\": 0.36}\n"}, {"curves.csv", "epoch,test_loss\n1,0.5\n"}});
  fs::create_directories(d.root + "/stages/figures/scripts");
  write_text_atomic(d.root + "/stages/figures/scripts/fig2a.gp", "plot x\n");
  auto f = fake_stage(d.root, "stages/figures", "fig2a",
                      {{"factored/curves.csv", t + "/curves.csv"},
                       {"factored/provenance.json", t + "/provenance.json"},
                       {"script/fig2a.gp", "stages/figures/scripts/fig2a.gp"}},
                      {{"fig2a.png", "PNG bytes"}, {"fig2a.pdf", "PDF bytes"}, {"summary.json", "{}\n"}});
  auto files = [&](const std::string& rel, std::vector<std::string> names) {
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(rel + "/" + n);
    return out;
  };
  // The index holds paths relative to the source root (short paths); here
  // the files sit under bazel-out/..., which is just as good for copying.
  d.index = {
      {"//stages/sample:paper", files(s, {"provenance.json"}), {}},
      {"//stages/train:paper_factored",
       files(t, {"summary.json", "curves.csv", "provenance.json"}),
       {"summary.json", "*.csv"}},
      {"//stages/figures:fig2a", files(f, {"fig2a.png", "fig2a.pdf", "summary.json", "provenance.json"}), {"*"}}};
  collect_results(d.index, d.root, d.results);
  return d;
}

TEST(Names, RecordsAndDestinations) {
  EXPECT_EQ(record_name("//stages/train:paper_factored"), "train.paper_factored.json");
  EXPECT_EQ(record_name("//paper:paper_md"), "paper.paper_md.json");
  EXPECT_EQ(destination("//stages/figures:fig2a", "figures", "fig2a.png"), "figures/fig2a.png");
  EXPECT_EQ(destination("//stages/figures:fig2a", "figures", "summary.json"), "figures/fig2a.summary.json");
  EXPECT_EQ(destination("//stages/train:paper_factored", "train", "curves.csv"), "train/paper_factored/curves.csv");
  EXPECT_EQ(destination("//paper:paper_md", "paper", "paper.md"), "paper.md");
  EXPECT_TRUE(matches("*.csv", "curves.csv"));
  EXPECT_TRUE(matches("*", "x"));
  EXPECT_TRUE(matches("gauss*", "gaussian_3"));
  EXPECT_FALSE(matches("*.csv", "curves.csv.tmp"));
  EXPECT_FALSE(matches("summary.json", "provenance.json"));
}

TEST(Collect, ManifestListsHashesTargetsConfigsAndRecords) {
  Dag d = make_dag("collect");
  auto m = nlohmann::json::parse(read_text(d.results + "/MANIFEST.json"));
  const auto& files = m["files"];
  ASSERT_TRUE(files.contains("figures/fig2a.png"));
  ASSERT_TRUE(files.contains("train/paper_factored/curves.csv"));
  ASSERT_TRUE(files.contains("provenance/sample.paper.json")) << "the index lists every upstream record";
  EXPECT_FALSE(files.contains("sample/paper/model.h5")) << "only indexed targets' files are copied";
  const auto& fig = files["figures/fig2a.png"];
  EXPECT_EQ(fig["sha256"], sha256_file(d.results + "/figures/fig2a.png"));
  EXPECT_EQ(fig["target"], "//stages/figures:fig2a");
  EXPECT_EQ(fig["seed"], 7);
  EXPECT_FALSE(fig.contains("config")) << "the configuration is in the record, once";
  EXPECT_EQ(fig["config_file"], d.root + "/figures_fig2a.json");
  EXPECT_EQ(fig["provenance_record"], "provenance/figures.fig2a.json");
  EXPECT_FALSE(fig.contains("chain")) << "the records link by hash; the manifest holds no chain";
  // Records are stored compact and link by their inputs' hashes.
  std::map<std::string, nlohmann::json> records;
  for (const auto& [rel, e] : files.items())
    if (rel.rfind("provenance/", 0) == 0) records[rel] = nlohmann::json::parse(read_text(d.results + "/" + rel));
  for (const auto& [rel, r] : records) EXPECT_FALSE(r.contains("upstream")) << rel;
  const RecordGraph g(records);
  EXPECT_EQ(g.ancestors("provenance/figures.fig2a.json"),
            (std::vector<std::string>{"provenance/train.paper_factored.json", "provenance/sample.paper.json"}));
  // The figure read the train stage's record as its stage wrote it.
  const std::string consumed = d.root + "/bazel-out/k8-opt/bin/stages/train/paper_factored/provenance.json";
  EXPECT_EQ(g.written_text("provenance/train.paper_factored.json"), read_text(consumed));
  EXPECT_EQ(sha256_text(g.written_text("provenance/train.paper_factored.json")),
            records["provenance/figures.fig2a.json"]["inputs"]["factored/provenance.json"]["sha256"]);
  EXPECT_TRUE(audit_results(d.results).empty()) << joined(audit_results(d.results));
}

// A record of the former graph (its stage was given its upstream's record,
// and embedded it) is stored compact too: its copies are put back, byte for
// byte, from the records beside it.
TEST(Collect, RecordsThatEmbeddedTheirUpstreamAreStoredOnceAndRebuilt) {
  Dag d = make_dag("legacy", true);
  const std::string bin = d.root + "/bazel-out/k8-opt/bin/stages/";
  ASSERT_TRUE(
      nlohmann::json::parse(read_text(bin + "train/paper_factored/provenance.json"))["upstream"].contains("sample"));
  std::map<std::string, nlohmann::json> records;
  for (const auto* rel :
       {"provenance/sample.paper.json", "provenance/train.paper_factored.json", "provenance/figures.fig2a.json"})
    records[rel] = nlohmann::json::parse(read_text(d.results + "/" + rel));
  EXPECT_FALSE(records["provenance/train.paper_factored.json"].contains("upstream"));
  const RecordGraph g(records);
  EXPECT_EQ(g.written_text("provenance/train.paper_factored.json"),
            read_text(bin + "train/paper_factored/provenance.json"));
  EXPECT_EQ(g.written_text("provenance/figures.fig2a.json"), read_text(bin + "figures/fig2a/provenance.json"));
  EXPECT_TRUE(audit_results(d.results).empty()) << joined(audit_results(d.results));
  // The same record whole (not compact) is refused: results/ holds each record once.
  const std::string rec = d.results + "/provenance/train.paper_factored.json";
  write_text_atomic(rec, read_text(bin + "train/paper_factored/provenance.json"));
  auto m = nlohmann::json::parse(read_text(d.results + "/MANIFEST.json"));
  m["files"]["provenance/train.paper_factored.json"]["sha256"] = sha256_file(rec);
  m["files"]["provenance/train.paper_factored.json"]["bytes"] = fs::file_size(rec);
  write_text_atomic(d.results + "/MANIFEST.json", m.dump(2) + "\n");
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "provenance/train.paper_factored.json", "embeds upstream records")) << joined(p);
}

// A rerun gives the same manifest; what the last collection made and this
// one does not (a figure dropped from the index) goes; what no collection
// made (results/BUILD, a note) stays.
TEST(Collect, RerunIsIdenticalDropsWhatItNoLongerMakesKeepsTheRest) {
  Dag d = make_dag("rerun");
  const std::string before = read_text(d.results + "/MANIFEST.json");
  write_text_atomic(d.results + "/BUILD", "filegroup(name = \"files\")\n");
  write_text_atomic(d.results + "/figures/note.txt", "kept");
  collect_results(d.index, d.root, d.results);
  EXPECT_EQ(read_text(d.results + "/MANIFEST.json"), before);
  EXPECT_EQ(read_text(d.results + "/BUILD"), "filegroup(name = \"files\")\n");
  EXPECT_EQ(read_text(d.results + "/figures/note.txt"), "kept");
  ASSERT_TRUE(fs::exists(d.results + "/figures/fig2a.png"));
  auto index = d.index;
  index.pop_back();  // no figure
  collect_results(index, d.root, d.results);
  EXPECT_FALSE(fs::exists(d.results + "/figures/fig2a.png"));
  EXPECT_FALSE(fs::exists(d.results + "/provenance/figures.fig2a.json"));
  EXPECT_TRUE(fs::exists(d.results + "/train/paper_factored/curves.csv"));
  EXPECT_EQ(read_text(d.results + "/figures/note.txt"), "kept");
  EXPECT_TRUE(fs::exists(d.results + "/BUILD"));
  // No leftover beside it.
  EXPECT_FALSE(fs::exists(d.root + "/.results.new"));
  EXPECT_FALSE(fs::exists(d.root + "/.results.old"));
}

TEST(Audit, MissingManifestFailsWithInstructions) {
  const std::string dir = tmpdir() + "/empty_results";
  fs::create_directories(dir);
  auto p = audit_results(dir);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("MANIFEST.json: missing"), std::string::npos) << p[0];
  EXPECT_NE(p[0].find("//paper:all"), std::string::npos) << p[0];
}

TEST(Audit, OneChangedByteFailsNamingTheFile) {
  Dag d = make_dag("tamper");
  std::string png = read_text(d.results + "/figures/fig2a.png");
  png[0] ^= 1;
  write_text_atomic(d.results + "/figures/fig2a.png", png);
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "figures/fig2a.png", "differs from MANIFEST.json")) << joined(p);
  EXPECT_EQ(p.size(), 1u) << joined(p);
}

TEST(Audit, MissingAndUnlistedFilesFailNamingThem) {
  Dag d = make_dag("missing");
  fs::remove(d.results + "/train/paper_factored/curves.csv");
  write_text_atomic(d.results + "/figures/extra.png", "x");
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "train/paper_factored/curves.csv", "missing")) << joined(p);
  EXPECT_TRUE(any_contains(p, "figures/extra.png", "not listed")) << joined(p);
}

// An attacker (or a careless hand) who edits a file and its manifest hash
// together is still caught: the provenance record holds the output hash.
TEST(Audit, FileEditedWithManifestUpdatedFailsAgainstItsRecord) {
  Dag d = make_dag("consistent_edit");
  write_text_atomic(d.results + "/train/paper_factored/summary.json", "{\"final_test_loss\": 0.1}\n");
  auto m = nlohmann::json::parse(read_text(d.results + "/MANIFEST.json"));
  m["files"]["train/paper_factored/summary.json"]["sha256"] =
      sha256_file(d.results + "/train/paper_factored/summary.json");
  write_text_atomic(d.results + "/MANIFEST.json", m.dump(2));
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "train/paper_factored/summary.json", "train.paper_factored.json")) << joined(p);
}

TEST(Audit, BrokenChainFailsNamingTheRecord) {
  Dag d = make_dag("chain");
  // Drop the sample record from results/ and from the manifest.
  fs::remove(d.results + "/provenance/sample.paper.json");
  auto m = nlohmann::json::parse(read_text(d.results + "/MANIFEST.json"));
  m["files"].erase("provenance/sample.paper.json");
  // And a record whose input hash no upstream output has, rehashed so only
  // the link is wrong.
  const std::string rec = d.results + "/provenance/figures.fig2a.json";
  auto r = nlohmann::json::parse(read_text(rec));
  r["inputs"]["factored/curves.csv"]["sha256"] = std::string(64, '0');
  write_text_atomic(rec, r.dump(2) + "\n");
  for (const auto& f :
       {"provenance/figures.fig2a.json", "figures/fig2a.png", "figures/fig2a.pdf", "figures/fig2a.summary.json"})
    m["files"][f]["sha256"] = sha256_file(d.results + "/" + f);
  m["files"]["provenance/figures.fig2a.json"]["bytes"] = fs::file_size(rec);
  write_text_atomic(d.results + "/MANIFEST.json", m.dump(2));
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "provenance/train.paper_factored.json", "sample/model.h5")) << joined(p);
  EXPECT_TRUE(any_contains(p, "provenance/train.paper_factored.json", "chain incomplete")) << joined(p);
  EXPECT_TRUE(any_contains(p, "provenance/figures.fig2a.json", "factored/curves.csv")) << joined(p);
}

// A record edited after its consumer read it (same outputs, another run):
// the consumer's hash of it no longer matches.
TEST(Audit, UpstreamRecordFromAnotherRunFails) {
  Dag d = make_dag("other_run");
  const std::string rec = d.results + "/provenance/train.paper_factored.json";
  auto r = nlohmann::json::parse(read_text(rec));
  r["wall_seconds"] = 99.0;  // same outputs, another run
  write_text_atomic(rec, r.dump(2) + "\n");
  auto m = nlohmann::json::parse(read_text(d.results + "/MANIFEST.json"));
  m["files"]["provenance/train.paper_factored.json"]["sha256"] = sha256_file(rec);
  write_text_atomic(d.results + "/MANIFEST.json", m.dump(2));
  auto p = audit_results(d.results);
  EXPECT_TRUE(any_contains(p, "provenance/train.paper_factored.json", "differs from the record")) << joined(p);
}

TEST(Literate, FillsNumbersStringsAndProvenance) {
  std::map<std::string, StageDocs> docs;
  docs["factored"].summary = {{"final_test_loss", 0.361234}, {"epochs", 300}, {"per_seed", {0.1, 0.2}}};
  docs["factored"].provenance = {{"target", "//stages/train:paper_factored"}, {"seed", 1}};
  const std::string out = fill_placeholders(
      "ε = {{factored.final_test_loss:.3f}} after {{factored.epochs}} epochs ({{factored.provenance.target}}, "
      "seed {{factored.provenance.seed}}), {{factored.final_test_loss}}, {{factored.per_seed.1:.1e}}",
      docs, "t.md");
  EXPECT_EQ(out, "ε = 0.361 after 300 epochs (//stages/train:paper_factored, seed 1), 0.3612, 2.0e-01");
}

TEST(Literate, ArrayElementsByNameAndByField) {
  std::map<std::string, StageDocs> docs;
  docs["fig"].summary = {
      {"series", {{{"name", "theory"}, {"last", {{"y", 0.5}}}}, {{"name", "simulation"}, {"last", {{"y", 0.25}}}}}}};
  docs["perturb"].summary = {{"points",
                              {{{"a", 0.0}, {"loss", 1.5}, {"kind", "base"}},
                               {{"a", 0.05}, {"loss", 2.5}, {"kind", "mid"}},
                               {{"a", 1.0}, {"loss", 3.5}, {"kind", "top"}}}}};
  EXPECT_EQ(fill_placeholders("{{fig.series.simulation.last.y}} {{fig.series.theory.last.y:.2f}}", docs, "t.md"),
            "0.25 0.50");
  EXPECT_EQ(fill_placeholders("{{perturb.points[a=0.05].loss}} {{perturb.points[a=1].loss}} "
                              "{{perturb.points[a=0].loss}} {{perturb.points[kind=top].a}}",
                              docs, "t.md"),
            "2.5 3.5 1.5 1");
  // A missing name or value, a malformed selector, two matching elements:
  // each an error naming the part (and, for names, the names there).
  auto error_of = [&](const std::string& text) {
    try {
      fill_placeholders(text, docs, "t.md");
    } catch (const StageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string no_name = error_of("{{fig.series.measured.last.y}}");
  EXPECT_NE(no_name.find("'measured'"), std::string::npos) << no_name;
  EXPECT_NE(no_name.find("theory, simulation"), std::string::npos) << no_name;
  EXPECT_NE(error_of("{{perturb.points[a=0.5].loss}}").find("no element with a = 0.5"), std::string::npos);
  EXPECT_NE(error_of("{{perturb.points[a].loss}}").find("[field=value]"), std::string::npos);
  EXPECT_NE(error_of("{{perturb.points[a=0.05x].loss}}").find("no element"), std::string::npos);
  docs["perturb"].summary["points"][2]["kind"] = "mid";
  EXPECT_NE(error_of("{{perturb.points[kind=mid].loss}}").find("more than one"), std::string::npos);
}

TEST(Literate, UnknownPlaceholderNamesLineAndKeys) {
  std::map<std::string, StageDocs> docs;
  docs["factored"].summary = {{"final_test_loss", 0.36}};
  try {
    fill_placeholders("a\nb {{factored.final_loss}}\n", docs, "paper.md");
    FAIL() << "no error";
  } catch (const StageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("paper.md:2"), std::string::npos) << m;
    EXPECT_NE(m.find("final_loss"), std::string::npos) << m;
    EXPECT_NE(m.find("final_test_loss"), std::string::npos) << m;
  }
  try {
    fill_placeholders("{{vanilla.x}}", docs, "paper.md");
    FAIL() << "no error";
  } catch (const StageError& e) {
    EXPECT_NE(std::string(e.what()).find("no stage 'vanilla'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fill_placeholders("{{factored.final_test_loss:d}}", docs, "p.md"), StageError);
  EXPECT_THROW(fill_placeholders("{{factored.final_test_loss", docs, "p.md"), StageError);
}

}  // namespace
}  // namespace potts::provenance
