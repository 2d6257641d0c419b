// The manifest of results/ and the index and fingerprints it is built from
// (results.h): record names and destinations, provenance chains, manifest
// entries, code fingerprints.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/internal.h"
#include "lib/provenance/names.h"

namespace fs = std::filesystem;

namespace potts::provenance {

namespace internal {

const char* const kManifest = "MANIFEST.json";

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

std::string short_package(const std::string& pkg) { return pkg.rfind("stages/", 0) == 0 ? pkg.substr(7) : pkg; }

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

// kAbout, embedded_records and the "chain" and "config" members of
// manifest_entry describe results/ as it was collected when every record
// embedded its upstream records; the manifest is now written through
// entry.h. They stay, unused, until the stage runtime next changes: this
// file is linked into the figure and paper stages, whose binaries (and so
// their results) keep their bytes only while it compiles to the same object.
const char* const kAbout =
    "Every file of results/ with its SHA-256, the Bazel target that made it, that stage's configuration "
    "and seed, and the chain of provenance records back to the first stage. Check with "
    "`tools/bazel test //paper:audit`.";

std::string errno_text() { return std::strerror(errno); }

void embedded_records(const nlohmann::json& record, std::map<std::string, nlohmann::json>& out) {
  if (!record.contains("upstream") || !record["upstream"].is_object()) return;
  for (const auto& [key, up] : record["upstream"].items()) {
    out.emplace(up.value("target", std::string("?")), up);
    embedded_records(up, out);
  }
}

}  // namespace internal

using namespace internal;

namespace {

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
  if (stage == "figures") return "figures/" + (basename.rfind(name + ".", 0) == 0 ? basename : name + "." + basename);
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

nlohmann::json internal::manifest_entry(const std::string& target, const nlohmann::json* record,
                                        const std::string& path, const std::string& sha256) {
  nlohmann::json m;
  m["sha256"] = sha256.empty() ? sha256_file(path) : sha256;
  m["bytes"] = static_cast<std::uint64_t>(fs::file_size(path));
  m["target"] = target;
  if (record) {
    m["provenance_record"] = "provenance/" + record_name(target);
    m["stage"] = record->value("stage", std::string());
    m["config_file"] = record->value("config_file", std::string());
    m["config"] = record->value("config", nlohmann::json());
    m["seed"] = record->value("seed", nlohmann::json());
    m["code_version"] = record->value("code_version", std::string());
    m["chain"] = provenance_chain(*record);
  }
  return m;
}

std::string code_fingerprint(const std::vector<std::string>& files, const std::string& root) {
  std::vector<std::string> sorted = files;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string lines;
  for (const auto& f : sorted) lines += sha256_file(root + "/" + f) + "  " + f + "\n";
  return sha256_text(lines);
}

nlohmann::json read_fingerprints(const std::string& path) {
  nlohmann::json j = parse_file(path);
  if (!j.contains("stages") || !j["stages"].is_object() || !j.contains("tools") || !j["tools"].is_object())
    throw StageError(path + ": expected the objects \"stages\" and \"tools\" (written by //paper:results.bzl)");
  nlohmann::json out = {{"stages", j["stages"]}, {"tools", j["tools"]}};
  if (j.contains("binaries")) {
    if (!j["binaries"].is_object()) throw StageError(path + ": \"binaries\" is not an object");
    out["binaries"] = j["binaries"];
  }
  return out;
}

}  // namespace potts::provenance
