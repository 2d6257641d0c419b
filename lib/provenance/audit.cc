// The audit of a results/ directory (audit_results, results.h): the
// manifest's own form, every file against it, every stage output against
// its provenance record, every chain complete (linked by hash: graph.h).
#include <filesystem>
#include <map>
#include <set>
#include <utility>

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

// One audit of a results/ tree: what every check reads (the tree, its
// manifest and records) and the problems they find, each check a member.
class Auditor {
 public:
  Auditor(std::string dir, nlohmann::json manifest)
      : dir_(std::move(dir)),
        mpath_(dir_ + "/" + kManifest),
        manifest_(std::move(manifest)),
        files_(manifest_["files"]) {}
  Problems run();

 private:
  void check_manifest_form();
  void check_files();
  void load_records();
  void check_against_records();
  void check_entries();
  void check_code();
  void check_chains();
  void check_crate();

  const std::string dir_, mpath_;
  const nlohmann::json manifest_;
  const nlohmann::json& files_;
  std::set<std::string> intact_;  // listed files present with their hash
  RecordMap records_;             // the intact records, parsed
  std::map<std::string, const nlohmann::json*> by_target_;
  Problems problems_;
};

// The manifest_ itself: as the collector writes it, byte for byte (every
// field is checked below against the files_ and records_ it describes).
void Auditor::check_manifest_form() {
  if (read_text(mpath_) != manifest_.dump(2) + "\n")
    problems_.push_back(std::string(kManifest) + ": not in the form the collector writes (edited by hand?)");
  if (manifest_.value("about", std::string()) != kManifestAbout)
    problems_.push_back(std::string(kManifest) + ": its \"about\" text differs from the collector's");
  for (const auto& [k, v] : manifest_.items())
    if (k != "about" && k != "files" && k != "code")
      problems_.push_back(std::string(kManifest) + ": unexpected key \"" + k + "\"");
}

// 1. Every listed file exists with its hash (those are intact_);
// 2. nothing unlisted lies beside them.
void Auditor::check_files() {
  for (const auto& [rel, m] : files_.items()) {
    const std::string path = dir_ + "/" + rel;
    if (!fs::exists(path)) {
      problems_.push_back(rel + ": listed in MANIFEST.json but missing");
      continue;
    }
    const std::string got = sha256_file(path), expected = m.value("sha256", std::string());
    if (got != expected) {
      problems_.push_back(rel + ": SHA-256 " + got + " differs from MANIFEST.json (" + expected +
                          "): the file was changed after collection");
      continue;
    }
    intact_.insert(rel);
  }
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(dir_).generic_string();
    if (rel == kManifest || rel == kCrate || rel == "BUILD") continue;
    if (!files_.contains(rel)) problems_.push_back(rel + ": present in results/ but not listed in MANIFEST.json");
  }
}

// 3. The intact_ provenance records_, parsed.
void Auditor::load_records() {
  for (const auto& rel : intact_) {
    if (rel.rfind("provenance/", 0) != 0) continue;
    try {
      records_[rel] = parse_file(dir_ + "/" + rel);
    } catch (const std::exception& e) {
      problems_.push_back(rel + ": " + e.what());
    }
  }
  for (const auto& [rec, r] : records_) by_target_[r.value("target", std::string())] = &r;
}

// 4. Each file's record exists, agrees with the manifest_'s target,
// configuration and seed, and a stage output has the hash the record gives.
void Auditor::check_against_records() {
  for (const auto& [rel, m] : files_.items()) {
    if (!m.contains("provenance_record")) {
      if (rel.rfind("provenance/", 0) != 0) problems_.push_back(rel + ": MANIFEST.json names no provenance record");
      continue;
    }
    const std::string rec = m["provenance_record"].get<std::string>();
    if (!files_.contains(rec)) {
      problems_.push_back(rel + ": its provenance record " + rec + " (as MANIFEST.json names it) is not in results/");
      continue;
    }
    auto r = records_.find(rec);
    if (r == records_.end() || !intact_.count(rel)) continue;  // already reported
    if (r->second.value("target", std::string()) != m.value("target", std::string()))
      problems_.push_back(rel + ": MANIFEST.json says target " + m.value("target", std::string()) + " but " + rec +
                          " is the record of " + r->second.value("target", std::string()));
    if (r->second.value("seed", nlohmann::json()) != m.value("seed", nlohmann::json()) ||
        r->second.value("config_file", std::string()) != m.value("config_file", std::string()))
      problems_.push_back(rel + ": configuration file or seed in MANIFEST.json differ from " + rec);
    // The output collected as `rel`, found through destination(): a
    // figure's summary.json lies at figures/<name>.summary.json.
    const auto outs = r->second.value("outputs", nlohmann::json::object());
    for (const auto& [out, o] : outs.items()) {
      std::string dest;
      try {
        dest = destination(r->second.value("target", std::string()), r->second.value("stage", std::string()), out);
      } catch (const StageError& e) {
        problems_.push_back(rec + ": " + e.what());
        break;
      }
      if (rel != rec && dest == rel && o.value("sha256", std::string()) != m["sha256"])
        problems_.push_back(rel + ": differs from the output " + out + " recorded in " + rec);
    }
  }
}

// 4b. Every field of a file's entry is what its record and the file give.
void Auditor::check_entries() {
  for (const auto& [rel, m] : files_.items()) {
    if (!intact_.count(rel)) continue;
    const std::string target = m.value("target", std::string());
    const std::string rec = m.value("provenance_record", std::string());
    if (!rec.empty() && !records_.count(rec)) continue;  // reported above
    auto r = by_target_.find(target);
    const nlohmann::json* record = r == by_target_.end() ? nullptr : r->second;
    nlohmann::json expected;
    try {
      expected = file_entry(target, record, dir_ + "/" + rel, m.value("sha256", std::string()));  // intact: checked
    } catch (const std::exception& e) {
      problems_.push_back(rel + ": MANIFEST.json entry: " + e.what());
      continue;
    }
    for (const auto& [k, v] : expected.items())
      if (!m.contains(k) || m[k] != v)
        problems_.push_back(rel + ": MANIFEST.json's \"" + k + "\" differs from what " +
                            (record ? "its provenance record and " : std::string()) + "the file give");
    for (const auto& [k, v] : m.items())
      if (!expected.contains(k)) problems_.push_back(rel + ": MANIFEST.json has an unexpected key \"" + k + "\"");
  }
}

// 4c. Code fingerprints (if recorded): one per stage of results/.
void Auditor::check_code() {
  if (!manifest_.contains("code")) return;
  if (!manifest_["code"].is_object()) {
    problems_.push_back(std::string(kManifest) + ": \"code\" is not an object");
    return;
  }
  for (const auto& [t, c] : manifest_["code"].items()) {
    const std::string h = c.is_object() ? c.value("code_sha256", std::string()) : "";
    if (!by_target_.count(t))
      problems_.push_back(std::string(kManifest) + ": code fingerprint of " + t + ", which has no record here");
    if (!c.is_object() || h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos ||
        !c.value("tool", nlohmann::json()).is_string() || !c.value("code_files", nlohmann::json()).is_number())
      problems_.push_back(std::string(kManifest) + ": code fingerprint of " + t + " is malformed");
  }
}

// 5. Chains: every input a stage took from another stage links, through its
// path and checked by its hash, to that stage's record in results/
// (graph.h); and no record embeds another (results/ stores them compact).
void Auditor::check_chains() {
  const RecordGraph graph(records_);
  for (const auto& [rec, r] : records_) {
    if (!r.contains("inputs") || !r["inputs"].is_object()) {
      problems_.push_back(rec + " (" + r.value("target", std::string("?")) + "): record has no inputs object");
      continue;
    }
    if (r.contains("upstream"))
      problems_.push_back(rec +
                          ": embeds upstream records_; results/ holds each record once, linked by hash "
                          "(collect it with `tools/bazel run //paper:all`)");
    for (const auto& l : graph.links(rec)) {
      if (l.problem.empty()) continue;
      // An upstream record listed but changed is reported once, above.
      const std::string urel = l.target.empty() ? "" : "provenance/" + record_name(l.target);
      if (l.upstream.empty() && files_.contains(urel) && !intact_.count(urel)) continue;
      problems_.push_back(l.problem);
    }
  }
}

// 6. ro-crate-metadata.json is the crate the manifest_ and records_ give.
void Auditor::check_crate() {
  const std::string path = dir_ + "/" + kCrate;
  if (!fs::exists(path)) {
    problems_.push_back(std::string(kCrate) + ": missing (collect results/ with `tools/bazel run //paper:all`)");
  } else if (read_text(path) != crate_text(run_crate(manifest_, records_))) {
    problems_.push_back(std::string(kCrate) +
                        ": differs from the crate MANIFEST.json and the records_ give "
                        "(edited after collection?)");
  }
}

Problems Auditor::run() {
  check_manifest_form();
  check_files();
  load_records();
  check_against_records();
  check_entries();
  check_code();
  check_chains();
  // 6. The crate, derived from the manifest and the records: checked when
  // they are sound (its differences would repeat theirs).
  if (problems_.empty()) check_crate();
  return problems_;
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
  return Auditor(dir, std::move(manifest)).run();
}

}  // namespace potts::provenance
