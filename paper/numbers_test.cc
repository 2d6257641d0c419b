// Every decimal number of the rendered account (results/paper.html, the
// account and its specification appendix) is one of four kinds, and shows
// which (lib/provenance/linked.h):
//  * a result of the DAG: a link of class "num" to the summary or record it
//    was filled from; the number shown must be that file's value, to the
//    digits shown;
//  * a parameter: class "param", linking to the configuration file (or
//    .bzl) that sets it; the number shown must be the value of its key there
//    (for a list, an element of it);
//  * a convention or threshold: class "rule", linking to the file or
//    section that states it;
//  * a citation: class "cite", linking to the reference.
// Any other link (a section number pointing at its section) counts as
// linked. A decimal number is a run of digits and dots with a dot between
// two digits ("0.03", "2304.07235", "4.1"), or a number in exponent notation
// ("1e-3", "6.2893e-05"); it is unmarked when no element
// around it is a link. The test fails on any unmarked number, naming it with
// its text, and prints the count of each kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"
#include "lib/provenance/literate.h"

namespace fs = std::filesystem;

namespace potts {
namespace {

struct Element {
  std::string tag;
  std::map<std::string, std::string> attrs;
  std::string text;  // the text inside it (links only)
};

struct Number {
  std::string text;     // the number as shown
  std::string context;  // the text node it is in
  const Element* link;  // the innermost enclosing <a>, or null
  std::string kind;     // num, param, rule, cite, link or "" (unmarked)
};

std::string unescaped(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + 1)) s.replace(p, strlen(from), to);
  return s;
}

std::map<std::string, std::string> attributes(const std::string& tag_body) {
  std::map<std::string, std::string> out;
  static const std::regex attr("([a-zA-Z-]+)=\"([^\"]*)\"");
  for (std::sregex_iterator it(tag_body.begin(), tag_body.end(), attr), end; it != end; ++it)
    out[(*it)[1]] = unescaped((*it)[2]);
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The decimal numbers of a text: maximal runs of digits and dots, not
// preceded by a letter or digit, with a dot between two digits; and numbers
// in exponent notation ("1e-3", "6.2893e-05", "2e5": digits, an optional
// fraction, e or E, an optional sign, digits), not followed by a letter or
// digit (so that "3e4f" in a hash is not one).
std::vector<std::string> decimals(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < text.size();) {
    if (!is_digit(text[k]) || (k > 0 && std::isalnum(static_cast<unsigned char>(text[k - 1])))) {
      ++k;
      continue;
    }
    std::size_t e = k;
    while (e < text.size() && (is_digit(text[e]) || text[e] == '.')) ++e;
    std::string run = text.substr(k, e - k);
    while (!run.empty() && run.back() == '.') run.pop_back();
    bool decimal = false;
    for (std::size_t d = 1; d + 1 < run.size(); ++d)
      decimal = decimal || (run[d] == '.' && is_digit(run[d - 1]) && is_digit(run[d + 1]));
    // An exponent right after the run (the run without a trailing dot).
    if (e < text.size() && run.size() == e - k && (text[e] == 'e' || text[e] == 'E')) {
      std::size_t x = e + 1;
      if (x < text.size() && (text[x] == '-' || text[x] == '+')) ++x;
      std::size_t digits = x;
      while (digits < text.size() && is_digit(text[digits])) ++digits;
      const bool ends = digits == text.size() || !std::isalnum(static_cast<unsigned char>(text[digits]));
      if (digits > x && ends && is_digit(run.back())) {
        out.push_back(text.substr(k, digits - k));
        k = digits;
        continue;
      }
    }
    if (decimal) out.push_back(run);
    k = e;
  }
  return out;
}

// Every number of the page's body, with the link around it.
std::vector<Number> numbers_of(const std::string& html, std::vector<std::unique_ptr<Element>>& keep) {
  std::vector<Number> out;
  std::vector<Element*> stack;
  static const std::set<std::string> empty_tags = {"br", "img", "meta", "link", "hr", "input", "col", "mspace"};
  std::size_t pos = 0;
  int hidden = 0;  // inside <head>, <style>, <script>
  while (pos < html.size()) {
    const auto lt = html.find('<', pos);
    const std::string text = unescaped(html.substr(pos, lt == std::string::npos ? std::string::npos : lt - pos));
    if (!hidden) {
      for (Element* e : stack)
        if (e->tag == "a") e->text += text;
      for (const auto& n : decimals(text)) {
        const Element* link = nullptr;
        std::string kind;
        for (auto it = stack.rbegin(); it != stack.rend() && !link; ++it) {
          if ((*it)->tag != "a") continue;
          link = *it;
          const std::string cls = (*it)->attrs.count("class") ? (*it)->attrs.at("class") : "";
          kind = cls == "num" || cls == "param" || cls == "rule" || cls == "cite" ? cls : "link";
        }
        std::string context = text;
        std::replace(context.begin(), context.end(), '\n', ' ');
        out.push_back({n, context.substr(0, 160), link, kind});
      }
    }
    if (lt == std::string::npos) break;
    if (html.compare(lt, 4, "<!--") == 0) {
      pos = html.find("-->", lt);
      pos = pos == std::string::npos ? html.size() : pos + 3;
      continue;
    }
    const auto gt = html.find('>', lt);
    if (gt == std::string::npos) break;
    std::string body = html.substr(lt + 1, gt - lt - 1);
    pos = gt + 1;
    if (body.empty() || body[0] == '!' || body[0] == '?') continue;
    const bool closing = body[0] == '/';
    std::string tag = body.substr(closing ? 1 : 0, body.find_first_of(" \t\n/", closing ? 1 : 0) - (closing ? 1 : 0));
    std::transform(tag.begin(), tag.end(), tag.begin(), ::tolower);
    const bool self_closing = !body.empty() && body.back() == '/';
    const bool hides = tag == "head" || tag == "style" || tag == "script";
    if (closing) {
      while (!stack.empty()) {
        const bool match = stack.back()->tag == tag;
        stack.pop_back();
        if (match) break;
      }
      if (hides) --hidden;
    } else if (!self_closing && !empty_tags.count(tag)) {
      keep.push_back(std::make_unique<Element>(Element{tag, attributes(body), ""}));
      stack.push_back(keep.back().get());
      if (hides) ++hidden;
    }
  }
  return out;
}

// Digits after the decimal point of a shown number ("0.0063" -> 4,
// "1.5e-05" -> 1 in the mantissa, scaled by the exponent below).
double half_unit(const std::string& shown) {
  const auto e = shown.find_first_of("eE");
  const std::string mantissa = shown.substr(0, e);
  const auto dot = mantissa.find('.');
  const int digits = dot == std::string::npos ? 0 : int(mantissa.size() - dot - 1);
  const int exponent = e == std::string::npos ? 0 : std::stoi(shown.substr(e + 1));
  return 0.5 * std::pow(10.0, exponent - digits);
}

// The number shown equals v to the digits shown (a printf rounding of v).
bool shows(const std::string& shown, double v) {
  std::string s = shown;
  for (std::size_t p = s.find("−"); p != std::string::npos; p = s.find("−")) s.replace(p, strlen("−"), "-");
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  return std::fabs(x - v) <= half_unit(s) * (1 + 1e-9) + 1e-12 * std::fabs(v);
}

// Runs of white space as one space (HTML wraps long values).
std::string collapsed(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

class Page : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    html_ = new std::string(read_text("results/paper.html"));
    elements_ = new std::vector<std::unique_ptr<Element>>;
    numbers_ = new std::vector<Number>(numbers_of(*html_, *elements_));
  }
  static std::string* html_;
  static std::vector<std::unique_ptr<Element>>* elements_;
  static std::vector<Number>* numbers_;
};
std::string* Page::html_ = nullptr;
std::vector<std::unique_ptr<Element>>* Page::elements_ = nullptr;
std::vector<Number>* Page::numbers_ = nullptr;

TEST(Decimals, FindsDecimalNumbersOnly) {
  EXPECT_EQ(decimals("β = 0.840, M = 3000, lr 3e-3, v1.2, 4.1 and (0.6-0.8)."),
            (std::vector<std::string>{"0.840", "3e-3", "4.1", "0.6", "0.8"}));
  EXPECT_EQ(decimals("arXiv:2304.07235; end 12."), (std::vector<std::string>{"2304.07235"}));
  EXPECT_EQ(decimals("λ = 6.2893e-05, 2E5 and 1e+2; not 3e4f, 12e, e5 or 7.e3."),
            (std::vector<std::string>{"6.2893e-05", "2E5", "1e+2"}));
}

TEST(Decimals, AShownNumberMatchesItsValueToTheDigitsShown) {
  EXPECT_TRUE(shows("0.840", 0.8401));
  EXPECT_FALSE(shows("0.840", 0.8406));
  EXPECT_TRUE(shows("−1.043", -1.0434));
  EXPECT_TRUE(shows("6.2893e-05", 6.2893e-05));
  EXPECT_FALSE(shows("0.03", 0.05));
}

TEST(Decimals, AnUnlinkedNumberIsFoundAndALinkedOneIsNot) {
  std::vector<std::unique_ptr<Element>> keep;
  const auto n = numbers_of(
      "<html><head><style>a{width:1.5em}</style></head><body><p>x <a class=\"num\" href=\"s.json\">0.5</a> "
      "and 0.25 <a class=\"param\" href=\"c.json\"><em>1.0</em></a></p></body></html>",
      keep);
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].kind, "num");
  EXPECT_EQ(n[1].text, "0.25");
  EXPECT_EQ(n[1].kind, "");
  EXPECT_EQ(n[2].kind, "param");
}

TEST_F(Page, EveryDecimalNumberIsMarkedByKind) {
  std::map<std::string, int> count;
  std::string unmarked;
  for (const auto& n : *numbers_) {
    ++count[n.kind.empty() ? "unmarked" : n.kind];
    if (n.kind.empty()) unmarked += "\n  " + n.text + " in: " + n.context;
  }
  std::string summary;
  for (const auto& [k, c] : count) summary += " " + k + " " + std::to_string(c);
  std::cout << "decimal numbers in results/paper.html:" << summary << "\n";
  EXPECT_GT(count["num"], 300) << "the account's filled numbers are missing";
  EXPECT_TRUE(unmarked.empty()) << "decimal numbers neither linked nor marked by kind (mark them as "
                                   "[x]{.param|.rule|.cite src=...} in paper/paper.md or paper/spec.md):"
                                << unmarked;
}

// Each result link shows the value of the key its title names, in the
// file it links to.
TEST_F(Page, EveryLinkedResultIsItsFilesValue) {
  std::map<std::string, nlohmann::json> files;
  std::set<const Element*> seen;
  int checked = 0;
  static const std::regex form("(?:[^ ]+'s caption: )?([A-Za-z0-9_]+)\\.(\\S+) in results/(\\S+?),");
  for (const auto& n : *numbers_) {
    if (n.kind != "num" || !seen.insert(n.link).second) continue;
    const std::string href = n.link->attrs.at("href"), title = n.link->attrs.at("title"), shown = n.link->text;
    // Titles: "<key>.<path> in results/<file>, ..." or "<fig>'s caption: <key>.<path> in ...".
    std::smatch m;
    ASSERT_TRUE(std::regex_search(title, m, form)) << "a result link with an unexpected title: " << title;
    const std::string key = m[1], path = m[2], file = m[3];
    ASSERT_EQ(file, href) << title;
    if (!files.count(file)) files[file] = nlohmann::json::parse(read_text("results/" + file));
    std::map<std::string, provenance::StageDocs> docs;
    (path.rfind("provenance.", 0) == 0 ? docs[key].provenance : docs[key].summary) = files[file];
    const nlohmann::json& v = provenance::resolve(docs, key + "." + path, "results/paper.html");
    if (v.is_string()) {  // a verdict's number ("d = 0.12 ± 0.03") shows as written
      EXPECT_EQ(collapsed(v.get<std::string>()), collapsed(shown)) << title;
    } else {
      ASSERT_TRUE(v.is_number()) << title << ": " << v;
      EXPECT_TRUE(shows(shown, v.get<double>())) << title << ": shows " << shown << ", the file has " << v;
    }
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

// A figure's caption, linked number by number in the page, is the same
// text as its caption: the segments spell it.
TEST(Captions, EveryFiguresSegmentsSpellItsCaption) {
  int checked = 0;
  for (const auto& e : fs::directory_iterator("results/figures")) {
    const std::string name = e.path().filename().string();
    if (name.size() < 13 || name.substr(name.size() - 13) != ".summary.json") continue;
    const nlohmann::json s = nlohmann::json::parse(read_text(e.path().string()));
    ASSERT_TRUE(s.contains("caption_segments")) << e.path() << " has no caption_segments";
    std::string joined;
    int values = 0;
    for (const auto& seg : s["caption_segments"]) {
      joined += seg.contains("text") ? seg["text"].get<std::string>() : seg["value"].get<std::string>();
      values += seg.contains("value");
    }
    EXPECT_EQ(joined, s["caption"].get<std::string>()) << e.path();
    EXPECT_GT(values, 0) << e.path() << ": a caption without a filled value";
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

// A parameter's link names its file; the number is its key's value there.
TEST_F(Page, EveryParameterIsItsConfigurationsValue) {
  int checked = 0;
  for (const auto& n : *numbers_) {
    if (n.kind != "param") continue;
    const std::string href = n.link->attrs.at("href"), title = n.link->attrs.at("title");
    ASSERT_EQ(href.rfind("../", 0), 0u) << title;
    const std::string src = href.substr(3);
    const std::string key =
        title.substr(std::string("a parameter: ").size(), title.find(" in ") - std::string("a parameter: ").size());
    ASSERT_TRUE(fs::is_regular_file(src))
        << src << " (named by the parameter " << n.text << ") is not in the data of //paper:numbers_test";
    const std::string text = read_text(src);
    std::vector<double> values;
    if (src.size() > 5 && src.substr(src.size() - 5) == ".json") {
      nlohmann::json node = nlohmann::json::parse(text);
      std::stringstream parts(key);
      for (std::string part; std::getline(parts, part, '.');) {
        ASSERT_TRUE(node.is_object() && node.contains(part)) << src << " has no key " << key;
        node = node.at(part);
      }
      if (node.is_array())
        for (const auto& x : node) values.push_back(x.get<double>());
      else
        values.push_back(node.get<double>());
    } else {
      // A .bzl constant: KEY = [numbers] on one line.
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex("\\n" + key + " = \\[([^\\]]*)\\]")))
          << src << " has no " << key;
      std::stringstream list(m[1].str());
      for (std::string x; std::getline(list, x, ',');) values.push_back(std::stod(x));
    }
    // The link's whole text when it is one number (6.2893e-5), else each
    // decimal number in it (a list: "0.25, 0.5 and 4").
    const std::string whole = collapsed(n.link->text);
    char* end = nullptr;
    std::strtod(whole.c_str(), &end);
    const std::string shown = !whole.empty() && *end == '\0' ? whole : n.text;
    bool found = false;
    for (double v : values) found = found || shows(shown, v);
    EXPECT_TRUE(found) << "the parameter " << shown << " is not " << key << " in " << src;
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

// A convention's link names a file of the project (or a section of the page).
TEST_F(Page, EveryConventionNamesWhereItIsStated) {
  int checked = 0;
  for (const auto& n : *numbers_) {
    if (n.kind != "rule") continue;
    const std::string href = n.link->attrs.at("href");
    if (href[0] == '#') {
      EXPECT_NE(html_->find("id=\"" + href.substr(1) + "\""), std::string::npos) << href;
    } else {
      ASSERT_EQ(href.rfind("../", 0), 0u) << href;
      EXPECT_TRUE(fs::is_regular_file(href.substr(3)))
          << href.substr(3) << " (named by the convention " << n.text << ") is not in the data of //paper:numbers_test";
    }
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

}  // namespace
}  // namespace potts
