#include "lib/provenance/results.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/io.h"

namespace fs = std::filesystem;

namespace potts::provenance {

namespace {

const char* kManifest = "MANIFEST.json";

std::string basename_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "//stages/train:paper_factored" -> {"stages/train", "paper_factored"}.
std::pair<std::string, std::string> split_label(const std::string& target) {
  std::string t = target;
  if (t.rfind("@", 0) == 0) t = t.substr(t.find("//"));
  if (t.rfind("//", 0) != 0) throw StageError("target '" + target + "': expected a label //package:name");
  t = t.substr(2);
  auto colon = t.find(':');
  if (colon == std::string::npos) return {t, basename_of(t)};
  return {t.substr(0, colon), t.substr(colon + 1)};
}

std::string short_package(const std::string& pkg) {
  return pkg.rfind("stages/", 0) == 0 ? pkg.substr(7) : pkg;
}

// Records are written by run_stage as dump(2) + "\n"; an embedded record
// dumped the same way gives the same bytes (nlohmann keeps keys sorted and
// prints the shortest round-trip form of every number).
std::string record_text(const nlohmann::json& record) { return record.dump(2) + "\n"; }

nlohmann::json parse_file(const std::string& path) {
  try {
    return nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw StageError(path + ": not valid JSON: " + e.what());
  }
}

// An input path Bazel generated (bazel-out/<config>/bin/...) rather than a
// source file: it must come from an upstream stage with its own record.
bool generated_path(const std::string& path) {
  return path.rfind("bazel-out/", 0) == 0 || path.find("/bazel-out/") != std::string::npos;
}

void copy_atomic(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  write_text_atomic(to, read_text(from));
}

void collect_chain(const nlohmann::json& record, nlohmann::json& out, std::set<std::string>& seen) {
  if (!record.contains("upstream") || !record["upstream"].is_object()) return;
  for (const auto& [key, up] : record["upstream"].items()) {
    const std::string target = up.value("target", std::string("?"));
    if (!seen.insert(target).second) continue;
    out.push_back({{"key", key},
                   {"target", target},
                   {"stage", up.value("stage", std::string("?"))},
                   {"seed", up.value("seed", nlohmann::json())},
                   {"config_sha256", up.value("config_sha256", std::string())},
                   {"provenance_record", "provenance/" + record_name(target)}});
    collect_chain(up, out, seen);
  }
}

// Every record embedded in `record` (at any depth), by target.
void embedded_records(const nlohmann::json& record, std::map<std::string, nlohmann::json>& out) {
  if (!record.contains("upstream") || !record["upstream"].is_object()) return;
  for (const auto& [key, up] : record["upstream"].items()) {
    out.emplace(up.value("target", std::string("?")), up);
    embedded_records(up, out);
  }
}

}  // namespace

bool matches(const std::string& pattern, const std::string& name) {
  // Iterative '*' matching.
  std::size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string record_name(const std::string& target) {
  auto [pkg, name] = split_label(target);
  std::string s = short_package(pkg) + "." + name;
  std::replace(s.begin(), s.end(), '/', '.');
  return s + ".json";
}

std::string destination(const std::string& target, const std::string& stage, const std::string& basename) {
  auto [pkg, name] = split_label(target);
  if (stage == "figures")
    return "figures/" + (basename.rfind(name + ".", 0) == 0 ? basename : name + "." + basename);
  if (stage == "paper") return basename;
  return short_package(pkg) + "/" + name + "/" + basename;
}

std::vector<IndexEntry> read_index(const std::string& path) {
  nlohmann::json j = parse_file(path);
  if (!j.contains("entries") || !j["entries"].is_array()) throw StageError(path + ": expected {\"entries\": [...]}");
  std::vector<IndexEntry> out;
  for (const auto& e : j["entries"]) {
    IndexEntry ie;
    ie.target = e.at("target").get<std::string>();
    ie.files = e.at("files").get<std::vector<std::string>>();
    std::string copy = e.value("copy", std::string("*"));
    std::size_t start = 0;
    while (start <= copy.size()) {
      auto comma = copy.find(',', start);
      std::string pat = copy.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!pat.empty()) ie.patterns.push_back(pat);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    out.push_back(ie);
  }
  return out;
}

nlohmann::json provenance_chain(const nlohmann::json& record) {
  nlohmann::json out = nlohmann::json::array();
  std::set<std::string> seen;
  collect_chain(record, out, seen);
  return out;
}

nlohmann::json collect_results(const std::vector<IndexEntry>& index, const std::string& src_root,
                               const std::string& dest) {
  fs::create_directories(dest);
  // Records of the indexed stages, then every record embedded upstream.
  std::map<std::string, nlohmann::json> records;
  std::map<std::string, std::string> record_bytes;  // target -> record text as copied
  for (const auto& e : index) {
    for (const auto& f : e.files) {
      if (basename_of(f) != "provenance.json") continue;
      const std::string src = src_root + "/" + f;
      record_bytes[e.target] = read_text(src);
      records[e.target] = parse_file(src);
    }
  }
  std::map<std::string, nlohmann::json> upstream;
  for (const auto& [t, r] : records) embedded_records(r, upstream);
  for (const auto& [t, r] : upstream) {
    auto it = record_bytes.find(t);
    if (it == record_bytes.end()) {
      record_bytes[t] = record_text(r);
      records[t] = r;
    } else if (sha256_text(it->second) != sha256_text(record_text(r))) {
      throw StageError("provenance record of " + t +
                       " differs from the one embedded downstream: the outputs come from different runs; "
                       "rebuild with `tools/bazel run //paper:all`");
    }
  }

  nlohmann::json manifest;
  manifest["about"] =
      "Every file of results/ with its SHA-256, the Bazel target that made it, that stage's configuration "
      "and seed, and the chain of provenance records back to the first stage. Check with "
      "`tools/bazel test //paper:audit`.";
  nlohmann::json files = nlohmann::json::object();
  auto describe = [&](const std::string& target, const std::string& dest_rel) {
    const std::string path = dest + "/" + dest_rel;
    nlohmann::json m;
    m["sha256"] = sha256_file(path);
    m["bytes"] = static_cast<std::uint64_t>(fs::file_size(path));
    m["target"] = target;
    auto r = records.find(target);
    if (r != records.end()) {
      m["provenance_record"] = "provenance/" + record_name(target);
      m["stage"] = r->second.value("stage", std::string());
      m["config_file"] = r->second.value("config_file", std::string());
      m["config"] = r->second.value("config", nlohmann::json());
      m["seed"] = r->second.value("seed", nlohmann::json());
      m["code_version"] = r->second.value("code_version", std::string());
      m["chain"] = provenance_chain(r->second);
    }
    if (files.contains(dest_rel)) throw StageError("results/" + dest_rel + ": two targets write this file");
    files[dest_rel] = m;
  };

  for (const auto& [t, text] : record_bytes) {
    const std::string rel = "provenance/" + record_name(t);
    fs::create_directories(fs::path(dest + "/" + rel).parent_path());
    write_text_atomic(dest + "/" + rel, text);
    describe(t, rel);
  }
  for (const auto& e : index) {
    for (const auto& f : e.files) {
      const std::string base = basename_of(f);
      if (base == "provenance.json") continue;
      bool wanted = false;
      for (const auto& p : e.patterns) wanted = wanted || matches(p, base);
      if (!wanted) continue;
      auto r = records.find(e.target);
      const std::string stage = r == records.end() ? "" : r->second.value("stage", std::string());
      const std::string rel = destination(e.target, stage, base);
      copy_atomic(src_root + "/" + f, dest + "/" + rel);
      describe(e.target, rel);
    }
  }
  // Remove what an earlier run left and this one does not list.
  std::vector<fs::path> stale;
  for (const auto& entry : fs::recursive_directory_iterator(dest)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(dest).generic_string();
    if (rel == kManifest || rel == "BUILD" || files.contains(rel)) continue;
    stale.push_back(entry.path());
  }
  for (const auto& p : stale) fs::remove(p);
  manifest["files"] = files;
  write_text_atomic(dest + "/" + kManifest, manifest.dump(2) + "\n");
  return manifest;
}

std::vector<std::string> audit_results(const std::string& dir) {
  std::vector<std::string> problems;
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

  // 1. Every listed file exists with its hash.
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
  // 2. Nothing unlisted.
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(dir).generic_string();
    if (rel == kManifest || rel == "BUILD") continue;
    if (!files.contains(rel)) problems.push_back(rel + ": present in results/ but not listed in MANIFEST.json");
  }

  // 3. Records: load the intact ones.
  std::map<std::string, nlohmann::json> records;  // rel path -> record
  for (const auto& rel : intact) {
    if (rel.rfind("provenance/", 0) != 0) continue;
    try {
      records[rel] = parse_file(dir + "/" + rel);
    } catch (const std::exception& e) {
      problems.push_back(rel + ": " + e.what());
    }
  }

  // 4. Each file's record exists, and a stage output matches the hash the
  //    record gives for it.
  for (const auto& [rel, m] : files.items()) {
    if (!m.contains("provenance_record")) {
      if (rel.rfind("provenance/", 0) != 0) problems.push_back(rel + ": MANIFEST.json names no provenance record");
      continue;
    }
    const std::string rec = m["provenance_record"].get<std::string>();
    if (!files.contains(rec)) {
      problems.push_back(rel + ": its provenance record " + rec + " is not in results/");
      continue;
    }
    auto r = records.find(rec);
    if (r == records.end() || !intact.count(rel)) continue;  // already reported
    if (r->second.value("target", std::string()) != m.value("target", std::string()))
      problems.push_back(rel + ": MANIFEST.json says target " + m.value("target", std::string()) + " but " + rec +
                         " is the record of " + r->second.value("target", std::string()));
    if (r->second.value("seed", nlohmann::json()) != m.value("seed", nlohmann::json()) ||
        r->second.value("config", nlohmann::json()) != m.value("config", nlohmann::json()))
      problems.push_back(rel + ": configuration or seed in MANIFEST.json differ from " + rec);
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

  // 5. Chains: every input a stage took from another stage has that stage's
  //    record, and the hashes agree with what was consumed.
  for (const auto& [rec, r] : records) {
    const std::string who = rec + " (" + r.value("target", std::string("?")) + ")";
    if (!r.contains("inputs") || !r["inputs"].is_object()) {
      problems.push_back(who + ": record has no inputs object");
      continue;
    }
    const nlohmann::json up = r.value("upstream", nlohmann::json::object());
    for (const auto& [key, in] : r["inputs"].items()) {
      const std::string path = in.value("path", std::string());
      if (!generated_path(path)) continue;  // a source file: its hash is recorded, no stage made it
      auto slash = key.find('/');
      const std::string k = key.substr(0, slash), base = slash == std::string::npos ? key : key.substr(slash + 1);
      if (!up.contains(k)) {
        // A stage given the upstream's record must embed it. One given only
        // some files (the paper reads a figure's summary.json alone, so that
        // redrawing a figure does not rerun it) is linked by hash: the chain
        // holds if another record in results/ produced exactly these bytes.
        const std::string want = in.value("sha256", std::string());
        bool found = false;
        if (!r["inputs"].contains(k + "/provenance.json"))
          for (const auto& [orec, o] : records) {
            const auto outs = o.value("outputs", nlohmann::json::object());
            if (orec != rec && outs.contains(base) && outs[base].value("sha256", std::string()) == want) found = true;
          }
        if (!found)
          problems.push_back(who + ": input " + key + " was made by an upstream stage whose provenance record is " +
                             "missing (chain incomplete)");
        continue;
      }
      const auto& u = up[k];
      const std::string ut = u.value("target", std::string("?"));
      const std::string want = in.value("sha256", std::string());
      if (base == "provenance.json") {
        const std::string urel = "provenance/" + record_name(ut);
        if (!files.contains(urel)) {
          problems.push_back(who + ": the record of upstream " + ut + " (" + urel +
                             ") is not in results/ (chain incomplete)");
        } else if (intact.count(urel) && sha256_file(dir + "/" + urel) != want) {
          problems.push_back(urel + ": differs from the record " + r.value("target", std::string("?")) +
                             " consumed (SHA-256 mismatch in " + rec + ")");
        }
      } else {
        const auto& outs = u.value("outputs", nlohmann::json::object());
        if (!outs.contains(base)) {
          problems.push_back(who + ": input " + key + " is not an output of upstream " + ut);
        } else if (outs[base].value("sha256", std::string()) != want) {
          problems.push_back(who + ": input " + key + " has SHA-256 " + want + " but upstream " + ut +
                             " recorded " + outs[base].value("sha256", std::string()));
        }
      }
    }
  }
  return problems;
}

}  // namespace potts::provenance
