// SHA-256 of every output of every quick stage among a test's runfiles:
// {"//stages/x:quick": {"summary.json": "<hex>", ...}, ...}, provenance
// records (wall times) and rasterised figures (PNG, PDF) left out.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/io.h"

namespace potts::testing_util {

inline bool hashed_output(const std::string& key) {
  auto ends = [&](const std::string& s) {
    return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
  };
  return key != "provenance.json" && !ends(".png") && !ends(".pdf") && !ends(".svg");
}

// root: the runfiles directory holding stages/<package>/<target>/ (and
// paper/<target>/, the filled and rendered paper).
inline nlohmann::json quick_stage_hashes(const std::string& root = ".") {
  namespace fs = std::filesystem;
  nlohmann::json all = nlohmann::json::object();
  // Stage directories: stages/<package>/<target>/ and paper/<target>/.
  std::vector<fs::path> packages;
  for (const auto& pkg : fs::directory_iterator(root + "/stages"))
    if (pkg.is_directory()) packages.push_back(pkg.path());
  if (fs::is_directory(root + "/paper")) packages.push_back(root + "/paper");
  for (const auto& pkg : packages) {
    for (const auto& dir : fs::directory_iterator(pkg)) {
      const fs::path rec = dir.path() / "provenance.json";
      if (!dir.is_directory() || !fs::exists(rec)) continue;
      const nlohmann::json p = nlohmann::json::parse(read_text(rec.string()));
      nlohmann::json h = nlohmann::json::object();
      for (const auto& [key, value] : p["outputs"].items())
        if (hashed_output(key)) h[key] = sha256_file((dir.path() / key).string());
      all[p["target"].get<std::string>()] = h;
    }
  }
  return all;
}

}  // namespace potts::testing_util
