// The rendered paper's Markdown: numbers become links to their sources,
// escaped so that Markdown shows them as written; results/ paths and
// figures link to their files.
#include "lib/provenance/linked.h"

#include <gtest/gtest.h>

#include "lib/core/error.h"

namespace potts::provenance {
namespace {

std::map<std::string, StageDocs> docs() {
  std::map<std::string, StageDocs> d;
  d["claims"].summary = {{"h70", {{"5c", {{"rule", "(ε − ε*)/ε* > z·s.e., ∣d∣ [a_1]"}}}}}, {"n", 3}};
  d["claims"].provenance = {{"target", "//stages/claims:paper"}, {"stage", "claims"}};
  d["fig2a"].summary = {{"caption", "A caption"}};
  d["fig2a"].provenance = {{"target", "//stages/figures:fig2a_h70"}, {"stage", "figures"}};
  return d;
}

TEST(Linked, ANumberLinksToItsSummaryWithItsSourceInTheTitle) {
  const std::string md = linked_markdown("n = {{claims.n}}.", docs(), "t.md");
  EXPECT_EQ(md,
            "n = [3](claims/paper/summary.json \"claims.n in results/claims/paper/summary.json, made by "
            "//stages/claims:paper; record results/provenance/claims.paper.json\"){.num}.");
  // A provenance path links to the record.
  const std::string t = linked_markdown("{{fig2a.provenance.target}}", docs(), "t.md");
  EXPECT_NE(t.find("](provenance/figures.fig2a_h70.json \"fig2a.provenance.target in"), std::string::npos) << t;
}

TEST(Linked, MarkupInAValueIsEscaped) {
  const std::string md = linked_markdown("{{claims.h70.5c.rule}}", docs(), "t.md");
  EXPECT_NE(md.find("[(ε − ε\\*)/ε\\* \\> z·s.e., ∣d∣ \\[a\\_1\\]]("), std::string::npos) << md;
  EXPECT_EQ(markdown_escaped("a|b*c_d`e"), "a\\|b\\*c\\_d\\`e");
  // ε* in the template's text too.
  EXPECT_EQ(linked_markdown("(ε − ε*)/ε* and w*·x, *italic*, **bold**", docs(), "t.md"),
            "(ε − ε\\*)/ε\\* and w\\*·x, *italic*, **bold**");
  EXPECT_EQ(linked_markdown("    code w* ε*\nw*", docs(), "t.md"), "    code w* ε*\nw\\*");
}

TEST(Linked, ResultsPathsAndFiguresLinkToTheirFiles) {
  const std::string md = linked_markdown(
      "record `results/provenance/figures.fig2a_h70.json`.\n\n![Figure 2a](figures/fig2a_h70.png)\n", docs(), "t.md");
  EXPECT_NE(md.find("[`results/provenance/figures.fig2a_h70.json`](provenance/figures.fig2a_h70.json)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("[![Figure 2a](figures/fig2a_h70.png)](figures/fig2a_h70.pdf)"), std::string::npos) << md;
  EXPECT_NE(md.find("[data drawn](figures/fig2a_h70.dat)"), std::string::npos) << md;
  EXPECT_NE(md.find("[provenance record](provenance/figures.fig2a_h70.json)"), std::string::npos) << md;
}

TEST(Linked, DirectoriesAndPatternsAreNotLinked) {
  const std::string text =
      "in `results/figures/`, `results/proteins/run_*/summary.json` and `results/figures/<fig>_h70.png`";
  EXPECT_EQ(linked_markdown(text, docs(), "t.md"), text);
}

TEST(Linked, ACaptionLinksEachNumberToTheStageItCameFrom) {
  auto d = docs();
  d["fig2a"].summary["caption_segments"] = {
      {{"text", "β = "}},
      {{"value", "0.840"}, {"from", "sample.beta"}, {"target", "//stages/sample:paper_h70"}, {"stage", "sample"}},
      {{"text", ", ε* = "}},
      {{"value", "//stages/train:x"},
       {"from", "train.provenance.target"},
       {"target", "//stages/train:x"},
       {"stage", "train"}},
      {{"text", "."}}};
  const std::string md = linked_markdown("*Fig.* {{fig2a.caption}}", d, "t.md");
  EXPECT_NE(md.find("*Fig.* β = [0.840](sample/paper_h70/summary.json \"fig2a's caption: sample.beta in "
                    "results/sample/paper_h70/summary.json, made by //stages/sample:paper_h70"),
            std::string::npos)
      << md;
  // The text between the numbers is escaped; a provenance path links to the record.
  EXPECT_NE(md.find("){.num}, ε\\* = [//stages/train:x](provenance/train.x.json "), std::string::npos) << md;
  EXPECT_EQ(md.substr(md.size() - 7), "{.num}.");
  // A figure's summary without its record: the number links to the summary by the figure's name.
  d["fig4"].summary = {{"figure", "diversity"}, {"x", 0.5}};
  EXPECT_EQ(linked_markdown("{{fig4.x}}", d, "t.md"),
            "[0.5](figures/diversity.summary.json \"fig4.x in results/figures/diversity.summary.json, the figure's "
            "summary\"){.num}");
  // Without segments the caption is one linked value, as any other.
  EXPECT_NE(linked_markdown("{{fig2a.caption}}", docs(), "t.md").find("[A caption](figures/"), std::string::npos);
}

TEST(Linked, AGivenNumberLinksToWhereItIsSetByKind) {
  EXPECT_EQ(linked_spans("tolerance [0.03]{.param src=\"s/c.json\" key=\"calibration.tolerance\"}."),
            "tolerance [0.03](../s/c.json \"a parameter: calibration.tolerance in s/c.json\"){.param}.");
  EXPECT_EQ(linked_spans("[0.1]{.rule src=\"lib/claims/claims.h\"}"),
            "[0.1](../lib/claims/claims.h \"a convention, stated in lib/claims/claims.h\"){.rule}");
  EXPECT_EQ(linked_spans("[0.3]{.cite src=\"https://arxiv.org/abs/1\"} [§2]{.rule src=\"#models\"}"),
            "[0.3](https://arxiv.org/abs/1 \"a number quoted from https://arxiv.org/abs/1\"){.cite} "
            "[§2](#models \"a convention, stated in #models\"){.rule}");
  // Other spans and links stay as they are; a mark without its source is an error.
  EXPECT_EQ(linked_spans("[x]{.other} [y](z)"), "[x]{.other} [y](z)");
  EXPECT_THROW(linked_spans("[0.1]{.rule}"), StageError);
  EXPECT_THROW(linked_spans("[0.1]{.param src=\"a.json\"}"), StageError);
  // The account's numbers get the same treatment.
  EXPECT_NE(linked_markdown("[2]{.param src=\"a.json\" key=\"k\"}", docs(), "t.md").find("{.param}"),
            std::string::npos);
}

}  // namespace
}  // namespace potts::provenance
