// The literate paper as a stage: reads the Markdown template (input
// "template/<name>.md") and the summaries and provenance records of every
// upstream stage given, and writes paper.md with each {{stage.key}} replaced
// by its value (lib/provenance/literate.h). The record of this stage names
// every summary behind every number.
//
// With the output paper.html it also renders the account with Debian's
// pandoc: every number a link to its source (lib/provenance/linked.h), the
// figures inline, and the specification (input "spec/<name>.md") as an
// appendix, its mathematics as MathML (Markdown without raw TeX and
// without smart quotes, so that the text shows as written); a style sheet from input
// "html_header/<name>.html"; standalone, no network, the same bytes for the
// same inputs.
#include <cstdio>

#include "lib/core/io.h"
#include "lib/core/process.h"
#include "stages/runtime/stage.h"
#include "lib/provenance/linked.h"
#include "lib/provenance/literate.h"

int main(int argc, char** argv) {
  using namespace potts;
  return run_stage("paper", "Fills the literate paper's numbers from stage summaries.", argc, argv, [](Stage& stage) {
    std::string template_key, spec_key, header_key;
    std::map<std::string, provenance::StageDocs> docs;
    for (const auto& [key, path] : stage.inputs()) {
      auto slash = key.find('/');
      const std::string k = key.substr(0, slash), f = key.substr(slash + 1);
      if (k == "spec") {
        spec_key = key;
      } else if (k == "html_header") {
        header_key = key;
      } else if (k == "template") {
        if (!template_key.empty()) throw StageError("paper: more than one template/ input");
        template_key = key;
      } else if (f == "summary.json") {
        docs[k].summary = nlohmann::json::parse(read_text(path));
      } else if (f == "provenance.json") {
        docs[k].provenance = nlohmann::json::parse(read_text(path));
      }
    }
    if (template_key.empty()) throw StageError("paper: no template/<name>.md input");
    const std::string path = stage.input(template_key);
    // Name the template by its source path in messages.
    const std::string text = provenance::fill_placeholders(read_text(path), docs, path);
    write_text_atomic(stage.output("paper.md"), text);
    if (!stage.wants("paper.html")) return;
    // The rendered paper: the linked Markdown and the specification, through pandoc.
    const std::string html = stage.output("paper.html");
    const std::string linked_md = html + ".md.tmp";
    write_text_atomic(linked_md, provenance::linked_markdown(read_text(path), docs, path));
    // The appendix's marked numbers link to their sources as the account's do.
    const std::string linked_spec = html + ".spec.md.tmp";
    if (!spec_key.empty()) write_text_atomic(linked_spec, provenance::linked_spans(read_text(stage.input(spec_key))));
    const std::string hint = "is Debian's pandoc installed? (tools/bazel installs it)";
    std::string version = run_command("/usr/bin/pandoc --version", hint);
    version = version.substr(0, version.find('\n'));
    write_atomic(html, [&](const std::string& tmp) {
      run_command(
          "/usr/bin/pandoc --from=markdown-raw_tex-smart --to=html5 --standalone --mathml" +
              (header_key.empty() ? std::string() : " --include-in-header=" + shell_quoted(stage.input(header_key))) +
              " --metadata pagetitle='What does self-attention learn from masked language modelling? A reproduction'"
              " --output=" +
              shell_quoted(tmp) + " " + shell_quoted(linked_md) +
              (spec_key.empty() ? "" : " " + shell_quoted(linked_spec)),
          hint);
    });
    std::remove(linked_md.c_str());
    std::remove(linked_spec.c_str());
    stage.facts()["pandoc"] = version;
  });
}
