#include "lib/provenance/linked.h"

#include <regex>

#include "lib/core/error.h"
#include "lib/provenance/names.h"

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

// [text](href "title"){.cls}, text escaped as Markdown.
std::string classed_link(const std::string& text, const std::string& href, const std::string& title,
                         const std::string& cls) {
  return "[" + markdown_escaped(text) + "](" + href + " \"" + title_escaped(title) + "\"){." + cls + "}";
}

// One number linked to the summary (or, for provenance.* paths, the record)
// of the stage that made it; `what` names it in the link's title.
std::string number_link(const std::string& value, const std::string& what, const std::string& path,
                        const std::string& target, const std::string& stage) {
  const std::string record = "provenance/" + record_name(target);
  const bool from_record = path.rfind("provenance.", 0) == 0;
  const std::string href = from_record ? record : destination(target, stage, "summary.json");
  const std::string title =
      what + " in results/" + href + ", made by " + target + (from_record ? "" : "; record results/" + record);
  return classed_link(value, href, title, "num");
}

// A figure's caption from its segments (stages/figures): the text as it is,
// each filled number linked to the upstream stage it came from.
std::string linked_caption(const nlohmann::json& segments, const std::string& figure) {
  std::string out;
  for (const auto& s : segments) {
    if (s.contains("text")) {
      out += markdown_escaped(s["text"].get<std::string>());
      continue;
    }
    const std::string value = s.value("value", ""), from = s.value("from", ""), target = s.value("target", "");
    const auto dot = from.find('.');
    const std::string path = dot == std::string::npos ? "" : from.substr(dot + 1);
    out += target.empty() ? markdown_escaped(value)
                          : number_link(value, figure + "'s caption: " + from, path, target, s.value("stage", ""));
  }
  return out;
}

}  // namespace

std::string linked_spans(const std::string& text) {
  static const std::regex span("\\[([^\\]\n]+)\\]\\{\\.(param|rule|cite)((?: +[a-z]+=\"[^\"]*\")*) *\\}");
  static const std::regex attr("([a-z]+)=\"([^\"]*)\"");
  std::string out;
  auto pos = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), span), end; it != end; ++it) {
    const std::smatch& m = *it;
    out.append(pos, m[0].first);
    pos = m[0].second;
    std::map<std::string, std::string> a;
    const std::string attrs = m[3];
    for (std::sregex_iterator at(attrs.begin(), attrs.end(), attr); at != end; ++at) a[(*at)[1]] = (*at)[2];
    const std::string kind = m[2], src = a["src"];
    if (src.empty()) throw StageError("linked: the " + kind + " '" + std::string(m[1]) + "' names no src=\"...\"");
    if (kind == "param" && a["key"].empty())
      throw StageError("linked: the parameter '" + std::string(m[1]) + "' names no key=\"...\" in " + src);
    const bool as_written = src[0] == '#' || src.rfind("http", 0) == 0;
    const std::string title = kind == "param"  ? "a parameter: " + a["key"] + " in " + src
                              : kind == "rule" ? "a convention, stated in " + src
                                               : "a number quoted from " + src;
    out += "[" + std::string(m[1]) + "](" + (as_written ? src : "../" + src) + " \"" + title_escaped(title) + "\"){." +
           kind + "}";
  }
  out.append(pos, text.cend());
  return out;
}

std::string linked_markdown(const std::string& text, const std::map<std::string, StageDocs>& stages,
                            const std::string& origin) {
  auto decorate = [&](const std::string& key, const std::string& path, const std::string& value) {
    const nlohmann::json& summary = stages.at(key).summary;
    if (path == "caption" && summary.is_object() && summary.contains("caption_segments"))
      return linked_caption(summary["caption_segments"], key);
    const nlohmann::json& rec = stages.at(key).provenance;
    const std::string target = rec.is_object() ? rec.value("target", "") : "";
    const std::string stage = rec.is_object() ? rec.value("stage", "") : "";
    if (target.empty() && summary.is_object() && summary.value("figure", "") != "" &&
        path.rfind("provenance.", 0) != 0) {
      // A figure's summary comes without its record (which changes with
      // the script alone): the summary's own name in results/figures/.
      const std::string href = "figures/" + summary.value("figure", "") + ".summary.json";
      return classed_link(value, href, key + "." + path + " in results/" + href + ", the figure's summary", "num");
    }
    if (target.empty()) return markdown_escaped(value);
    return number_link(value, key + "." + path, path, target, stage);
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
  std::string md = linked_spans(fill_placeholders(safe, stages, origin, decorate));
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
