// Writes one stage configuration (tools/sweep.bzl's json_config rule):
//   json_config --out F [--base B.json] [--json TEXT] [--embed KEY=FILE ...]
// Starts from B (or {}), sets every top-level key of TEXT (a JSON object,
// written by Starlark's json.encode), then sets KEY to the parsed contents of
// FILE, and writes the result to F, two-space indented. Errors name the file
// or flag and exit 1.
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"
#include "lib/core/io.h"

int main(int argc, char** argv) {
  try {
    std::string out, base, text;
    nlohmann::json embeds = nlohmann::json::array();
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc) throw potts::StageError("json_config: " + a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--out") {
        out = v;
      } else if (a == "--base") {
        base = v;
      } else if (a == "--json") {
        text = v;
      } else if (a == "--embed") {
        const auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0)
          throw potts::StageError("json_config: --embed " + v + ": want KEY=FILE");
        embeds.push_back({v.substr(0, eq), v.substr(eq + 1)});
      } else {
        throw potts::StageError("json_config: unknown flag " + a);
      }
    }
    if (out.empty()) throw potts::StageError("json_config: --out is required");
    nlohmann::json config = base.empty() ? nlohmann::json::object() : potts::read_json(base);
    if (!config.is_object()) throw potts::StageError(base + ": not a JSON object");
    if (!text.empty()) {
      const nlohmann::json set = nlohmann::json::parse(text, nullptr, false);
      if (set.is_discarded() || !set.is_object()) throw potts::StageError("json_config: --json is not a JSON object");
      for (const auto& [k, v] : set.items()) config[k] = v;
    }
    for (const auto& e : embeds) config[e[0].get<std::string>()] = potts::read_json(e[1].get<std::string>());
    potts::write_text_atomic(out, config.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
