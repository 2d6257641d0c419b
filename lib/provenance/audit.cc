// The audit of a results/ directory (audit_results, results.h): the
// manifest's own form, every file against it, every stage output against
// its provenance record, every chain complete (linked by hash: graph.h).
#include <filesystem>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/crate.h"
#include "lib/provenance/entry.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/internal.h"
#include "lib/provenance/results.h"

namespace fs = std::filesystem;

namespace potts::provenance {

using namespace internal;

namespace {

using Problems = std::vector<std::string>;
using RecordMap = std::map<std::string, nlohmann::json>;  // rel path -> record

// The manifest itself: as the collector writes it, byte for byte (every
// field is checked below against the files and records it describes).
void check_manifest_form(const std::string& mpath, const nlohmann::json& manifest, Problems& problems) {
  if (read_text(mpath) != manifest.dump(2) + "\n")
    problems.push_back(std::string(kManifest) + ": not in the form the collector writes (edited by hand?)");
  if (manifest.value("about", std::string()) != kManifestAbout)
    problems.push_back(std::string(kManifest) + ": its \"about\" text differs from the collector's");
  for (const auto& [k, v] : manifest.items())
    if (k != "about" && k != "files" && k != "code")
      problems.push_back(std::string(kManifest) + ": unexpected key \"" + k + "\"");
}

// 1. Every listed file exists with its hash (those are returned: intact);
// 2. nothing unlisted lies beside them.
std::set<std::string> check_files(const std::string& dir, const nlohmann::json& files, Problems& problems) {
  std::set<std::string> intact;
  for (const auto& [rel, m] : files.items()) {
    const std::string path = dir + "/" + rel;
    if (!fs::exists(path)) {
      problems.push_back(rel + ": listed in MANIFEST.json but missing");
      continue;
    }
    const std::string got = sha256_file(path), want = m.value("sha256", std::string());
    if (got != want) {
      problems.push_back(rel + ": SHA-256 " + got + " differs from MANIFEST.json (" + want +
                         "): the file was changed after collection");
      continue;
    }
    intact.insert(rel);
  }
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(dir).generic_string();
    if (rel == kManifest || rel == kCrate || rel == "BUILD") continue;
    if (!files.contains(rel)) problems.push_back(rel + ": present in results/ but not listed in MANIFEST.json");
  }
  return intact;
}

// 3. The intact provenance records, parsed.
RecordMap load_records(const std::string& dir, const std::set<std::string>& intact, Problems& problems) {
  RecordMap records;
  for (const auto& rel : intact) {
    if (rel.rfind("provenance/", 0) != 0) continue;
    try {
      records[rel] = parse_file(dir + "/" + rel);
    } catch (const std::exception& e) {
      problems.push_back(rel + ": " + e.what());
    }
  }
  return records;
}

// 4. Each file's record exists, agrees with the manifest's target,
// configuration and seed, and a stage output has the hash the record gives.
void check_against_records(const nlohmann::json& files, const std::set<std::string>& intact, const RecordMap& records,
                           Problems& problems) {
  for (const auto& [rel, m] : files.items()) {
    if (!m.contains("provenance_record")) {
      if (rel.rfind("provenance/", 0) != 0) problems.push_back(rel + ": MANIFEST.json names no provenance record");
      continue;
    }
    const std::string rec = m["provenance_record"].get<std::string>();
    if (!files.contains(rec)) {
      problems.push_back(rel + ": its provenance record " + rec + " (as MANIFEST.json names it) is not in results/");
      continue;
    }
    auto r = records.find(rec);
    if (r == records.end() || !intact.count(rel)) continue;  // already reported
    if (r->second.value("target", std::string()) != m.value("target", std::string()))
      problems.push_back(rel + ": MANIFEST.json says target " + m.value("target", std::string()) + " but " + rec +
                         " is the record of " + r->second.value("target", std::string()));
    if (r->second.value("seed", nlohmann::json()) != m.value("seed", nlohmann::json()) ||
        r->second.value("config_file", std::string()) != m.value("config_file", std::string()))
      problems.push_back(rel + ": configuration file or seed in MANIFEST.json differ from " + rec);
    // The output collected as `rel`, found through destination(): a
    // figure's summary.json lies at figures/<name>.summary.json.
    const auto outs = r->second.value("outputs", nlohmann::json::object());
    for (const auto& [out, o] : outs.items()) {
      std::string dest;
      try {
        dest = destination(r->second.value("target", std::string()), r->second.value("stage", std::string()), out);
      } catch (const StageError& e) {
        problems.push_back(rec + ": " + e.what());
        break;
      }
      if (rel != rec && dest == rel && o.value("sha256", std::string()) != m["sha256"])
        problems.push_back(rel + ": differs from the output " + out + " recorded in " + rec);
    }
  }
}

// 4b. Every field of a file's entry is what its record and the file give.
void check_entries(const std::string& dir, const nlohmann::json& files, const std::set<std::string>& intact,
                   const RecordMap& records, const std::map<std::string, const nlohmann::json*>& by_target,
                   Problems& problems) {
  for (const auto& [rel, m] : files.items()) {
    if (!intact.count(rel)) continue;
    const std::string target = m.value("target", std::string());
    const std::string rec = m.value("provenance_record", std::string());
    if (!rec.empty() && !records.count(rec)) continue;  // reported above
    auto r = by_target.find(target);
    const nlohmann::json* record = r == by_target.end() ? nullptr : r->second;
    nlohmann::json want;
    try {
      want = file_entry(target, record, dir + "/" + rel, m.value("sha256", std::string()));  // intact: checked
    } catch (const std::exception& e) {
      problems.push_back(rel + ": MANIFEST.json entry: " + e.what());
      continue;
    }
    for (const auto& [k, v] : want.items())
      if (!m.contains(k) || m[k] != v)
        problems.push_back(rel + ": MANIFEST.json's \"" + k + "\" differs from what " +
                           (record ? "its provenance record and " : std::string()) + "the file give");
    for (const auto& [k, v] : m.items())
      if (!want.contains(k)) problems.push_back(rel + ": MANIFEST.json has an unexpected key \"" + k + "\"");
  }
}

// 4c. Code fingerprints (if recorded): one per stage of results/.
void check_code(const nlohmann::json& manifest, const std::map<std::string, const nlohmann::json*>& by_target,
                Problems& problems) {
  if (!manifest.contains("code")) return;
  if (!manifest["code"].is_object()) {
    problems.push_back(std::string(kManifest) + ": \"code\" is not an object");
    return;
  }
  for (const auto& [t, c] : manifest["code"].items()) {
    const std::string h = c.is_object() ? c.value("code_sha256", std::string()) : "";
    if (!by_target.count(t))
      problems.push_back(std::string(kManifest) + ": code fingerprint of " + t + ", which has no record here");
    if (!c.is_object() || h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos ||
        !c.value("tool", nlohmann::json()).is_string() || !c.value("code_files", nlohmann::json()).is_number())
      problems.push_back(std::string(kManifest) + ": code fingerprint of " + t + " is malformed");
  }
}

// 5. Chains: every input a stage took from another stage links, through its
// path and checked by its hash, to that stage's record in results/
// (graph.h); and no record embeds another (results/ stores them compact).
void check_chains(const nlohmann::json& files, const std::set<std::string>& intact, const RecordMap& records,
                  Problems& problems) {
  const RecordGraph graph(records);
  for (const auto& [rec, r] : records) {
    if (!r.contains("inputs") || !r["inputs"].is_object()) {
      problems.push_back(rec + " (" + r.value("target", std::string("?")) + "): record has no inputs object");
      continue;
    }
    if (r.contains("upstream"))
      problems.push_back(rec +
                         ": embeds upstream records; results/ holds each record once, linked by hash "
                         "(collect it with `tools/bazel run //paper:all`)");
    for (const auto& l : graph.links(rec)) {
      if (l.problem.empty()) continue;
      // An upstream record listed but changed is reported once, above.
      const std::string urel = l.target.empty() ? "" : "provenance/" + record_name(l.target);
      if (l.upstream.empty() && files.contains(urel) && !intact.count(urel)) continue;
      problems.push_back(l.problem);
    }
  }
}

// 6. ro-crate-metadata.json is the crate the manifest and records give.
void check_crate(const std::string& dir, const nlohmann::json& manifest, const RecordMap& records, Problems& problems) {
  const std::string path = dir + "/" + kCrate;
  if (!fs::exists(path)) {
    problems.push_back(std::string(kCrate) + ": missing (collect results/ with `tools/bazel run //paper:all`)");
  } else if (read_text(path) != crate_text(run_crate(manifest, records))) {
    problems.push_back(std::string(kCrate) +
                       ": differs from the crate MANIFEST.json and the records give "
                       "(edited after collection?)");
  }
}

}  // namespace

std::vector<std::string> audit_results(const std::string& dir) {
  Problems problems;
  const std::string mpath = dir + "/" + kManifest;
  if (!fs::exists(mpath)) {
    problems.push_back(mpath + ": missing; results/ has not been collected: run `tools/bazel run //paper:all`");
    return problems;
  }
  nlohmann::json manifest;
  try {
    manifest = parse_file(mpath);
  } catch (const std::exception& e) {
    problems.push_back(e.what());
    return problems;
  }
  if (!manifest.contains("files") || !manifest["files"].is_object()) {
    problems.push_back(mpath + ": no \"files\" object");
    return problems;
  }
  const auto& files = manifest["files"];
  check_manifest_form(mpath, manifest, problems);
  const std::set<std::string> intact = check_files(dir, files, problems);
  const RecordMap records = load_records(dir, intact, problems);
  check_against_records(files, intact, records, problems);
  std::map<std::string, const nlohmann::json*> by_target;
  for (const auto& [rec, r] : records) by_target[r.value("target", std::string())] = &r;
  check_entries(dir, files, intact, records, by_target, problems);
  check_code(manifest, by_target, problems);
  check_chains(files, intact, records, problems);
  // 6. The crate, derived from the manifest and the records: checked when
  // they are sound (its differences would repeat theirs).
  if (problems.empty()) check_crate(dir, manifest, records, problems);
  return problems;
}

}  // namespace potts::provenance
