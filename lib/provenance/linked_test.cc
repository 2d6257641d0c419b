// The rendered paper's Markdown: numbers become links to their sources,
// escaped so that Markdown shows them as written; results/ paths and
// figures link to their files.
#include "lib/provenance/linked.h"

#include <gtest/gtest.h>

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
  const std::string md =
      linked_markdown("record `results/provenance/figures.fig2a_h70.json`.\n\n![Figure 2a](figures/fig2a_h70.png)\n",
                      docs(), "t.md");
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

}  // namespace
}  // namespace potts::provenance
