#include "stages/proteins/a3m_stage.h"

#include <algorithm>
#include <cctype>

#include "lib/core/io.h"
#include "lib/proteins/formats.h"
#include "stages/proteins/family_stage.h"

namespace potts {

void run_proteins_a3m(Stage& stage) {
  Config& cfg = stage.config();
  const std::string query = cfg.has("query") ? cfg.string("query") : "";
  const int first = int(cfg.integer("first_residue", -100000, 100000));
  const std::string format = cfg.choice("format", {"auto", "a3m"});
  const std::string path = proteins::family_input(stage, "msa", true);
  const std::string text = read_text(path);
  // "auto": A3M by its content (rows of different lengths whose match
  // columns agree), else the A2M passes through as it is.
  const bool convert = format == "a3m" || proteins::looks_like_a3m(text);
  const std::string a2m = convert ? proteins::a3m_to_a2m(text, path, query, first) : text;
  write_text_atomic(stage.output("msa.a2m"), a2m);
  // The query's name as written (with /start-end) and its width.
  std::size_t rows = 0;
  std::string name, row;
  for (std::size_t at = 0; at < a2m.size();) {
    const std::size_t end = a2m.find('\n', at);
    const std::string line = a2m.substr(at, end - at);
    at = end + 1;
    if (line[0] != '>') {
      if (row.empty() && !name.empty()) row = line;
      continue;
    }
    ++rows;
    if (name.empty() && line.compare(1, query.size(), query) == 0) name = line.substr(1);
  }
  const auto matches = std::count_if(row.begin(), row.end(), [](char c) { return c == '-' || std::isupper(c); });
  stage.facts() = {{"converted_from_a3m", convert},
                   {"sequences", rows},
                   {"query", name},
                   {"match_columns", matches},
                   {"width", row.size()}};
}

}  // namespace potts
