// The literate paper as a stage: reads the Markdown template (input
// "template/<name>.md") and the summaries and provenance records of every
// upstream stage given, and writes paper.md with each {{stage.key}} replaced
// by its value (lib/provenance/literate.h). The record of this stage names
// every summary behind every number.
#include "lib/core/io.h"
#include "stages/runtime/stage.h"
#include "lib/provenance/literate.h"

int main(int argc, char** argv) {
  using namespace potts;
  return run_stage("paper", "Fills the literate paper's numbers from stage summaries.", argc, argv, [](Stage& st) {
    std::string template_key;
    std::map<std::string, provenance::StageDocs> docs;
    for (const auto& [key, path] : st.inputs()) {
      auto slash = key.find('/');
      const std::string k = key.substr(0, slash), f = key.substr(slash + 1);
      if (k == "template") {
        if (!template_key.empty()) throw StageError("paper: more than one template/ input");
        template_key = key;
      } else if (f == "summary.json") {
        docs[k].summary = nlohmann::json::parse(read_text(path));
      } else if (f == "provenance.json") {
        docs[k].provenance = nlohmann::json::parse(read_text(path));
      }
    }
    if (template_key.empty()) throw StageError("paper: no template/<name>.md input");
    const std::string path = st.input(template_key);
    // Name the template by its source path in messages.
    const std::string text = provenance::fill_placeholders(read_text(path), docs, path);
    write_text_atomic(st.output("paper.md"), text);
  });
}
