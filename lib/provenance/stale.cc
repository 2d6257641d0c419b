#include "lib/provenance/stale.h"

#include <filesystem>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/graph.h"
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

// Whether the stage's code still makes its results. The key is the stage
// binary's bytes (what Bazel caches on): the tool_sha256 its record holds
// against the binary built from the tree now. A source edit that leaves the
// binary's bytes alone (a comment) leaves the results current. A binary
// that differs while its sources are the ones recorded was built by another
// toolchain or with other flags (a sanitizer build): a note, not stale.
// Without a binary to compare, the source fingerprint alone decides.
struct CodeCheck {
  const nlohmann::json &fp, &code;
  const std::string& root;
  bool require_code;
  int unchecked = 0;
  std::vector<std::string> notes;

  // MANIFEST.json's source fingerprint of `tool` for `target`: 1 same as the
  // tree's, 0 different, -1 not recorded.
  int sources_same(const std::string& target, const std::string& tool) const {
    if (!code.contains(target) || code[target].value("tool", std::string()) != tool) return -1;
    const auto files = fp["tools"].value(tool, std::vector<std::string>{});
    for (const auto& f : files)
      if (!fs::exists(root + "/" + f)) throw StageError(root + "/" + f + ": source file of " + tool + " not found");
    return code_fingerprint(files, root) == code[target].value("code_sha256", std::string()) ? 1 : 0;
  }

  void check(const std::string& target, const nlohmann::json& rec, const std::string& tool,
             std::vector<std::string>& out) {
    if (code.contains(target) && code[target].value("tool", std::string()) != tool) {
      out.push_back("its tool is now " + tool + " (was " + code[target].value("tool", std::string()) + ")");
      return;
    }
    const std::string binary = fp.value("binaries", nlohmann::json::object()).value(tool, std::string());
    const std::string recorded = rec.value("tool_sha256", std::string());
    const int same_sources = sources_same(target, tool);
    if (binary.empty() || recorded.empty()) {
      if (same_sources == 0) out.push_back("code of " + tool + " changed");
      if (same_sources < 0) {
        ++unchecked;
        if (require_code) out.push_back("MANIFEST.json has no code fingerprint for it");
      }
      return;
    }
    if (!fs::exists(root + "/" + binary)) throw StageError(root + "/" + binary + ": binary of " + tool + " not found");
    const std::string now = sha256_file(root + "/" + binary);
    if (now == recorded) return;
    if (same_sources == 1) {
      notes.push_back(target + ": " + tool + " built here (" + now.substr(0, 12) + ") differs from the binary that " +
                      "made the results (" + recorded.substr(0, 12) +
                      ") though its sources are unchanged: " + "another toolchain or other build flags");
      return;
    }
    out.push_back("binary of " + tool + " changed (" + recorded.substr(0, 12) + " -> " + now.substr(0, 12) + ")");
  }
};

// Why the stage `target` (its record `rec`) no longer matches the tree.
std::vector<std::string> causes(const std::string& target, const nlohmann::json& rec, const nlohmann::json& fp,
                                const std::string& root, CodeCheck& code) {
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
  // (A file of an external repository is ../<repo>/<file> in the
  // fingerprints, Bazel's short path, and external/<repo>/<file> in a
  // record, its path in the execution root.)
  for (const auto& p : s.value("sources", std::vector<std::string>{}))
    if (!recorded.count(p.rfind("../", 0) == 0 ? "external/" + p.substr(3) : p)) out.push_back("new input " + p);
  code.check(target, rec, s.value("tool", std::string()), out);
  return out;
}

}  // namespace

StaleReport stale_results(const std::string& dir, const nlohmann::json& fp, const std::string& root,
                          bool require_code) {
  StaleReport r;
  const std::string mpath = dir + "/MANIFEST.json";
  const nlohmann::json manifest = read_json(mpath);
  if (!manifest.contains("files") || !manifest["files"].is_object()) throw StageError(mpath + ": no \"files\" object");
  const auto& files = manifest["files"];
  const nlohmann::json code = manifest.value("code", nlohmann::json::object());
  CodeCheck check{fp, code, root, require_code};

  std::map<std::string, std::vector<std::string>> changed;  // target -> causes
  std::map<std::string, nlohmann::json> records;
  for (const auto& [rel, m] : files.items())
    if (rel.rfind("provenance/", 0) == 0) records[rel] = read_json(dir + "/" + rel);
  for (const auto& [rel, rec] : records) {
    const std::string target = rec.value("target", std::string());
    auto c = causes(target, rec, fp, root, check);
    if (!c.empty()) changed[target] = c;
  }
  const int stages = int(records.size());
  // Downstream of a changed stage: through the records' inputs, by hash.
  const RecordGraph graph(records);
  for (const auto& [rel, m] : files.items()) {
    const std::string target = m.value("target", std::string());
    if (auto it = changed.find(target); it != changed.end()) {
      r.stale.push_back(rel + ": stale: " + target + ": " + joined(it->second));
      continue;
    }
    const std::string own = graph.record_of(target);
    if (own.empty()) continue;
    for (const auto& up : graph.ancestors(own)) {
      const std::string t = graph.records().at(up).value("target", std::string());
      if (auto it = changed.find(t); it != changed.end()) {
        r.stale.push_back(rel + ": stale: upstream " + t + ": " + it->second.front());
        break;
      }
    }
  }
  r.notes = check.notes;
  if (check.unchecked > 0 && !require_code)
    r.notes.push_back("code of " + std::to_string(check.unchecked) + " of " + std::to_string(stages) +
                      " stages not checked: " + mpath +
                      " has no code fingerprints (collected before they were recorded); "
                      "rerun `tools/bazel run //paper:all` to record them");
  return r;
}

}  // namespace potts::provenance
