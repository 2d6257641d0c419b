#include "lib/provenance/stale.h"

#include <filesystem>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/results.h"

namespace fs = std::filesystem;

namespace potts::provenance {

namespace {

bool generated(const std::string& path) {
  return path.rfind("bazel-out/", 0) == 0 || path.find("/bazel-out/") != std::string::npos;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// Why the stage `target` (its record `rec`) no longer matches the tree.
std::vector<std::string> causes(const std::string& target, const nlohmann::json& rec, const nlohmann::json& fp,
                                const nlohmann::json& code, const std::string& root, bool require_code,
                                int& unchecked) {
  std::vector<std::string> out;
  if (!fp["stages"].contains(target)) {
    out.push_back("no longer a stage of the paper's DAG");
    return out;
  }
  const auto& s = fp["stages"][target];
  const std::string config = s.value("config", std::string());
  if (!fs::exists(root + "/" + config)) {
    out.push_back("config " + config + " is missing");
  } else if (sha256_file(root + "/" + config) != rec.value("config_sha256", std::string())) {
    out.push_back("config " + config + " changed");
  }
  if (s.value("seed", nlohmann::json()) != rec.value("seed", nlohmann::json()))
    out.push_back("seed changed (recorded " + rec.value("seed", nlohmann::json()).dump() + ", the BUILD file gives " +
                  s.value("seed", nlohmann::json()).dump() + ")");
  // Source inputs: the recorded ones against the tree, and none added.
  std::set<std::string> recorded;
  const nlohmann::json inputs = rec.value("inputs", nlohmann::json::object());
  for (const auto& [key, in] : inputs.items()) {
    const std::string path = in.value("path", std::string());
    if (generated(path)) continue;
    recorded.insert(path);
    if (!fs::exists(root + "/" + path)) {
      out.push_back("input " + path + " no longer exists");
    } else if (sha256_file(root + "/" + path) != in.value("sha256", std::string())) {
      out.push_back("input " + path + " changed");
    }
  }
  for (const auto& p : s.value("sources", std::vector<std::string>{}))
    if (!recorded.count(p)) out.push_back("new input " + p);
  // Code.
  const std::string tool = s.value("tool", std::string());
  if (!code.contains(target)) {
    ++unchecked;
    if (require_code) out.push_back("MANIFEST.json has no code fingerprint for it");
  } else if (code[target].value("tool", std::string()) != tool) {
    out.push_back("its tool is now " + tool + " (was " + code[target].value("tool", std::string()) + ")");
  } else {
    const auto files = fp["tools"].value(tool, std::vector<std::string>{});
    for (const auto& f : files)
      if (!fs::exists(root + "/" + f)) throw StageError(root + "/" + f + ": source file of " + tool + " not found");
    if (code_fingerprint(files, root) != code[target].value("code_sha256", std::string()))
      out.push_back("code of " + tool + " changed (" + std::to_string(files.size()) + " source files)");
  }
  return out;
}

}  // namespace

StaleReport stale_results(const std::string& dir, const nlohmann::json& fp, const std::string& root,
                          bool require_code) {
  StaleReport r;
  const std::string mpath = dir + "/MANIFEST.json";
  const nlohmann::json manifest = read_json(mpath);
  if (!manifest.contains("files") || !manifest["files"].is_object())
    throw StageError(mpath + ": no \"files\" object");
  const auto& files = manifest["files"];
  const nlohmann::json code = manifest.value("code", nlohmann::json::object());

  std::map<std::string, std::vector<std::string>> changed;  // target -> causes
  int unchecked = 0, stages = 0;
  for (const auto& [rel, m] : files.items()) {
    if (rel.rfind("provenance/", 0) != 0) continue;
    const nlohmann::json rec = read_json(dir + "/" + rel);
    const std::string target = rec.value("target", std::string());
    ++stages;
    auto c = causes(target, rec, fp, code, root, require_code, unchecked);
    if (!c.empty()) changed[target] = c;
  }
  for (const auto& [rel, m] : files.items()) {
    const std::string target = m.value("target", std::string());
    if (auto it = changed.find(target); it != changed.end()) {
      r.stale.push_back(rel + ": stale: " + target + ": " + joined(it->second));
      continue;
    }
    for (const auto& c : m.value("chain", nlohmann::json::array())) {
      const std::string up = c.value("target", std::string());
      if (auto it = changed.find(up); it != changed.end()) {
        r.stale.push_back(rel + ": stale: upstream " + up + ": " + it->second.front());
        break;
      }
    }
  }
  if (unchecked > 0 && !require_code)
    r.notes.push_back("code of " + std::to_string(unchecked) + " of " + std::to_string(stages) +
                      " stages not checked: " + mpath +
                      " has no code fingerprints (collected before they were recorded); "
                      "rerun `tools/bazel run //paper:all` to record them");
  return r;
}

}  // namespace potts::provenance
