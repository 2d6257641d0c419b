#include "lib/provenance/linked.h"

#include <regex>

#include "lib/core/error.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

std::string markdown_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\`*_{}[]<>|~^$#").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

namespace {

std::string title_escaped(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out;
}

}  // namespace

std::string linked_markdown(const std::string& text, const std::map<std::string, StageDocs>& stages,
                            const std::string& origin) {
  auto decorate = [&](const std::string& key, const std::string& path, const std::string& value) {
    const nlohmann::json& rec = stages.at(key).provenance;
    const std::string target = rec.is_object() ? rec.value("target", "") : "";
    const std::string stage = rec.is_object() ? rec.value("stage", "") : "";
    if (target.empty()) return markdown_escaped(value);
    const std::string record = "provenance/" + record_name(target);
    const bool from_record = path.rfind("provenance.", 0) == 0;
    const std::string href = from_record ? record : destination(target, stage, "summary.json");
    const std::string title = key + "." + path + " in results/" + href + ", made by " + target +
                              (from_record ? "" : "; record results/" + record);
    return "[" + markdown_escaped(value) + "](" + href + " \"" + title_escaped(title) + "\"){.num}";
  };
  // ε* and w* in the template's own text: an asterisk Markdown could pair
  // with another into emphasis (outside indented code blocks).
  std::string safe;
  bool code = false, line_start = true;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (line_start) code = text.compare(k, 4, "    ") == 0;
    line_start = text[k] == '\n';
    const bool after_symbol = (k >= 2 && text.compare(k - 2, 2, "ε") == 0) || (k >= 1 && text[k - 1] == 'w');
    if (text[k] == '*' && !code && after_symbol && (k + 1 == text.size() || text[k + 1] != '*')) safe += '\\';
    safe += text[k];
  }
  std::string md = fill_placeholders(safe, stages, origin, decorate);
  // `results/<file>` -> a link to it; a directory (trailing "/") or a
  // pattern (`*`, `<name>`) stays code: a link must name one file.
  md = std::regex_replace(md, std::regex("`results/([^`\\s*<>]*[^`\\s*<>/])`"), "[`results/$1`]($1)");
  // Figures: the image links to its PDF, then its data, numbers and record.
  md = std::regex_replace(
      md, std::regex("!\\[([^\\]]*)\\]\\(figures/([A-Za-z0-9_]+)\\.png\\)"),
      "[![$1](figures/$2.png)](figures/$2.pdf)\n\nFiles: [PDF](figures/$2.pdf), [data drawn](figures/$2.dat), "
      "[caption and numbers](figures/$2.summary.json), [provenance record](provenance/figures.$2.json).");
  return md;
}

}  // namespace potts::provenance
