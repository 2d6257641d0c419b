// results/paper.html in a real browser (Debian's chromium, headless): every
// image loads, every internal link resolves (anchors in the page, relative
// links to files of results/), the claims table shows the verdicts of
// results/claims/paper/summary.json, and the claims' numbers (ε*, products,
// ∣x∣) appear in the rendered text as written. A screenshot of the first
// screen is saved among the test's outputs (paper_first_screen.png).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "lib/core/process.h"

namespace fs = std::filesystem;

namespace potts {
namespace {

std::string tmp() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string chromium(const std::string& flags, const std::string& url) {
  return run_command("HOME=" + tmp() +
                         " /usr/bin/chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
                         "--no-first-run --user-data-dir=" +
                         tmp() + "/chrome " + flags + " '" + url + "' 2>/dev/null",
                     "is Debian's chromium installed? (tools/bazel installs it)");
}

std::string unescaped(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&nbsp;", "\u00a0"}, {"&amp;", "&"}}) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
  }
  return s;
}

struct Page {
  std::string dir;
  nlohmann::json check;
};

const Page& page() {
  static const Page p = [] {
    Page pg;
    pg.dir = tmp() + "/results";
    fs::remove_all(pg.dir);
    fs::copy("results", pg.dir, fs::copy_options::recursive);
    std::string html = read_text(pg.dir + "/paper.html");
    const auto body = html.rfind("</body>");
    if (body == std::string::npos) throw std::runtime_error("results/paper.html has no </body>");
    html.insert(body, "<script>\n" + read_text("tests/browser/check.js") + "</script>\n");
    write_text_atomic(pg.dir + "/paper_check.html", html);
    const std::string dom =
        chromium("--virtual-time-budget=30000 --dump-dom", "file://" + pg.dir + "/paper_check.html");
    const std::string open = "<pre id=\"browser-check\">";
    const auto a = dom.rfind(open), b = dom.find("</pre>", a);  // (the script names the tag too)
    if (a == std::string::npos || b == std::string::npos)
      throw std::runtime_error("the page's check did not run (no <pre id=\"browser-check\"> in the DOM)");
    pg.check = nlohmann::json::parse(unescaped(dom.substr(a + open.size(), b - a - open.size())));
    const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    chromium("--window-size=1200,1500 --screenshot=" + std::string(outputs ? outputs : tmp().c_str()) +
                 "/paper_first_screen.png",
             "file://" + pg.dir + "/paper.html");
    return pg;
  }();
  return p;
}

TEST(PaperHtml, EveryImageLoadsAndEveryInternalLinkResolves) {
  const nlohmann::json& c = page().check;
  const std::string html = read_text("results/paper.html");
  std::size_t imgs = 0;
  for (std::size_t p = html.find("<img"); p != std::string::npos; p = html.find("<img", p + 1)) ++imgs;
  EXPECT_GE(imgs, 10u);
  EXPECT_EQ(c.at("images").get<std::size_t>(), imgs);
  EXPECT_TRUE(c.at("broken_images").empty()) << c.at("broken_images").dump();
  EXPECT_TRUE(c.at("missing_anchors").empty()) << c.at("missing_anchors").dump();
  std::size_t files = 0;
  for (const auto& l : c.at("links")) {
    const std::string href = l.get<std::string>().substr(0, l.get<std::string>().find('#'));
    // A parameter's or a convention's link names a file of the repository
    // beside results/ (a configuration, lib/claims/claims.h):
    // //paper:numbers_test checks those against the tree.
    if (href.rfind("../", 0) == 0) continue;
    // A file, not a directory: a static web server lists no directory.
    EXPECT_TRUE(fs::is_regular_file(page().dir + "/" + href)) << "a link to a missing file or a directory: " << href;
    ++files;
  }
  EXPECT_GT(files, 100u);
  // Every number links to its source.
  EXPECT_GT(c.at("numbers").get<int>(), 300);
}

TEST(PaperHtml, TheClaimsTableShowsTheCommittedVerdicts) {
  const nlohmann::json claims = nlohmann::json::parse(read_text("results/claims/paper/summary.json"));
  const nlohmann::json& rows = page().check.at("claims_table");
  ASSERT_GT(rows.size(), 10u);
  int checked = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::string first = rows[r][0].get<std::string>();
    const std::string id = first.substr(0, first.find('.'));
    // Columns: the two readings for claims 1-3 and 5; claim 4 and P1-P3 in the first.
    const bool single = id[0] == '4' || id[0] == 'P';
    const std::vector<std::string> readings = single ? std::vector<std::string>{id[0] == '4' ? "gaussian" : "proteins"}
                                                     : std::vector<std::string>{"h70", "h30"};
    for (std::size_t k = 0; k < readings.size(); ++k) {
      const nlohmann::json& cell = claims.at(readings[k]).at(id);
      const std::string shown = rows[r][k + 1].get<std::string>();
      EXPECT_EQ(shown.rfind(cell.at("verdict").get<std::string>() + ":", 0), 0u)
          << "claim " << id << ", " << readings[k] << ": the page shows '" << shown << "'";
      EXPECT_NE(shown.find(cell.at("number").get<std::string>()), std::string::npos)
          << "claim " << id << ", " << readings[k] << ": the number as written, '" << cell.at("number") << "', in '"
          << shown << "'";
      ++checked;
    }
  }
  EXPECT_GE(checked, 27);
}

// Markdown would pair two asterisks into emphasis and drop them: the count
// of ε* in the rendered text is that of the filled account and the spec.
TEST(PaperHtml, SymbolsSurviveRendering) {
  auto count = [](const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  };
  const std::string text = page().check.at("text").get<std::string>();
  // (the spec escapes its own: ε\*)
  const std::string spec = read_text("paper/spec.md");
  const std::size_t expected = count(read_text("results/paper.md"), "ε*") + count(spec, "ε*") + count(spec, "ε\\*");
  EXPECT_EQ(count(text, "ε*"), expected);
  EXPECT_GT(expected, 20u);
}

}  // namespace
}  // namespace potts
