// Every pointer in the committed results is true:
//  * a summary's "<name>_in" value ("<file> <dotted.key>") names a file of
//    its stage and a key that file holds ("provenance.json" is the stage's
//    record, results/provenance/<package>.<target>.json);
//  * every `results/...` path that the rendered account names exists: a
//    file as a file, a directory as a directory, and a pattern (`*`,
//    `<name>`) matches at least one file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"

namespace fs = std::filesystem;

namespace potts {
namespace {

// The record of the stage whose outputs are in results/<package>/<name>/.
fs::path record_of(const fs::path& stage_dir) {
  const fs::path rel = fs::relative(stage_dir, "results");
  return fs::path("results/provenance") / (rel.begin()->string() + "." + stage_dir.filename().string() + ".json");
}

void pointers(const nlohmann::json& j, const std::string& at, std::vector<std::pair<std::string, std::string>>& out) {
  if (!j.is_object()) return;
  for (const auto& [k, v] : j.items()) {
    const std::string key = at.empty() ? k : at + "." + k;
    if (k.size() > 3 && k.compare(k.size() - 3, 3, "_in") == 0 && v.is_string())
      out.emplace_back(key, v.get<std::string>());
    pointers(v, key, out);
  }
}

TEST(Pointers, EverySummarysInPointerNamesAFileAndAKeyItHolds) {
  std::size_t checked = 0;
  for (const auto& e : fs::recursive_directory_iterator("results")) {
    if (e.path().filename() != "summary.json") continue;
    std::vector<std::pair<std::string, std::string>> found;
    pointers(nlohmann::json::parse(read_text(e.path().string())), "", found);
    for (const auto& [key, value] : found) {
      const auto space = value.find(' ');
      ASSERT_NE(space, std::string::npos) << e.path() << ": " << key << " = '" << value << "', expected '<file> <key>'";
      const std::string file = value.substr(0, space), path = value.substr(space + 1);
      const fs::path target =
          file == "provenance.json" ? record_of(e.path().parent_path()) : e.path().parent_path() / file;
      ASSERT_TRUE(fs::is_regular_file(target))
          << e.path() << ": " << key << " points at " << target << ", which is missing";
      nlohmann::json node = nlohmann::json::parse(read_text(target.string()));
      std::stringstream parts(path);
      for (std::string part; std::getline(parts, part, '.');) {
        ASSERT_TRUE(node.is_object() && node.contains(part)) << e.path() << ": " << key << " points at '" << path
                                                             << "' in " << target << ", which has no '" << part << "'";
        node = node.at(part);
      }
      ++checked;
    }
  }
  // The sample stages write one pointer each (four paper data sets).
  EXPECT_GE(checked, 4u);
}

TEST(Pointers, EveryResultsPathTheAccountNamesExists) {
  const std::string md = read_text("results/paper.md");
  std::set<std::string> paths;
  const std::regex named("`results/([^`\\s]+)`");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), named); it != std::sregex_iterator(); ++it)
    paths.insert((*it)[1].str());
  ASSERT_GT(paths.size(), 10u);
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator("results"))
    if (e.is_regular_file()) files.push_back(e.path().lexically_relative("results").string());
  for (const std::string& p : paths) {
    if (p.find('*') == std::string::npos && p.find('<') == std::string::npos) {
      if (p.back() == '/')
        EXPECT_TRUE(fs::is_directory("results/" + p)) << "the account names results/" << p << ", no such directory";
      else
        EXPECT_TRUE(fs::is_regular_file("results/" + p)) << "the account names results/" << p << ", no such file";
      continue;
    }
    // A pattern: `*` and `<name>` stand for any characters but '/'.
    std::string re;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const char c = p[k];
      if (c == '*') {
        re += "[^/]*";
      } else if (c == '<') {
        re += "[^/]*";
        k = p.find('>', k);
        ASSERT_NE(k, std::string::npos) << "results/" << p << ": an unclosed <";
      } else {
        if (std::string(".+?()[]{}|^$\\").find(c) != std::string::npos) re += '\\';
        re += c;
      }
    }
    const std::regex pattern(re + (p.back() == '/' ? ".*" : ""));
    const bool any =
        std::any_of(files.begin(), files.end(), [&](const std::string& f) { return std::regex_match(f, pattern); });
    EXPECT_TRUE(any) << "the account names results/" << p << ", which matches no file";
  }
}

}  // namespace
}  // namespace potts
