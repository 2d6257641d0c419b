#include "lib/provenance/results.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

const char* kAbout =
    "Every file of results/ with its SHA-256, the Bazel target that made it, that stage's configuration "
    "and seed, and the chain of provenance records back to the first stage. Check with "
    "`tools/bazel test //paper:audit`.";

std::string errno_text() { return std::strerror(errno); }

// Fault injection for tests, compiled in always: POTTS_COLLECT_KILL_AT=N
// makes the collector SIGKILL itself at its N-th checkpoint;
// POTTS_COLLECT_TRACE=1 prints every checkpoint to stderr.
class Checkpoints {
 public:
  Checkpoints() {
    if (const char* k = std::getenv("POTTS_COLLECT_KILL_AT")) kill_at_ = std::atoi(k);
    trace_ = std::getenv("POTTS_COLLECT_TRACE") != nullptr;
  }
  void operator()(const std::string& what) {
    ++n_;
    if (trace_) std::fprintf(stderr, "collect: checkpoint %d: %s\n", n_, what.c_str());
    if (n_ == kill_at_) ::raise(SIGKILL);
  }

 private:
  int kill_at_ = 0, n_ = 0;
  bool trace_ = false;
};

// Writes bytes to path and fsyncs it; errors name `shown` (where the file is
// going) and the system's reason.
void write_durable(const std::string& path, const std::string& bytes, const std::string& shown) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) throw StageError(shown + ": cannot create directory " + fs::path(path).parent_path().string() + ": " + ec.message());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw StageError(shown + ": cannot create " + path + ": " + errno_text());
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const std::string why = w < 0 ? errno_text() : "no progress";
      ::close(fd);
      throw StageError(shown + ": write failed after " + std::to_string(done) + " of " + std::to_string(bytes.size()) +
                       " bytes (" + path + "): " + why);
    }
    done += std::size_t(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) throw StageError(shown + ": cannot flush " + path + ": " + errno_text());
}

void fsync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Atomically exchanges two directories (Linux renameat2 RENAME_EXCHANGE).
// False if the system or file system cannot, or POTTS_COLLECT_NO_EXCHANGE
// is set (to test the fallback).
bool exchange_dirs(const std::string& a, const std::string& b) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  if (std::getenv("POTTS_COLLECT_NO_EXCHANGE")) return false;
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return false;
  throw StageError("cannot swap " + a + " with " + b + ": " + errno_text());
#else
  (void)a, (void)b;
  return false;
#endif
}

void rename_or_throw(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw StageError("cannot rename " + from + " to " + to + ": " + errno_text());
}

// The files of the last collection, from dir/MANIFEST.json (empty if none).
std::set<std::string> collected_files(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::exists(dir + "/" + kManifest, ec)) return out;
  try {
    auto m = nlohmann::json::parse(read_text(dir + "/" + kManifest));
    for (const auto& [rel, e] : m.at("files").items()) out.insert(rel);
  } catch (const std::exception&) {
  }
  return out;
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

// The manifest's entry for a file of `target` at `path`, from its record.
// `sha256`, if given, is the file's hash, already computed.
static nlohmann::json manifest_entry(const std::string& target, const nlohmann::json* record, const std::string& path,
                                     const std::string& sha256 = "") {
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

nlohmann::json collect_results(const std::vector<IndexEntry>& index, const std::string& src_root,
                               const std::string& dest_in, const nlohmann::json& fingerprints) {
  Checkpoints checkpoint;
  // The new tree is built beside dest and swapped in whole: an interrupted
  // collection leaves dest as it was, or wholly new.
  const fs::path dpath = fs::absolute(fs::path(dest_in)).lexically_normal();
  const std::string dest = (dpath.has_filename() ? dpath : dpath.parent_path()).string();
  const std::string parent = fs::path(dest).parent_path().string(), name = fs::path(dest).filename().string();
  const std::string fresh = parent + "/." + name + ".new", aside = parent + "/." + name + ".old";
  std::error_code ec;
  if (fs::exists(parent, ec) && !fs::is_directory(parent, ec))
    throw StageError(dest + ": cannot collect here: " + parent + " is not a directory");
  fs::create_directories(parent, ec);
  if (ec) throw StageError(dest + ": cannot collect here: cannot create " + parent + ": " + ec.message());
  // One collector at a time per destination.
  const int lock = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0) throw StageError(parent + ": cannot open: " + errno_text());
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0)
    throw StageError(dest + ": another collection into it is running (lock on " + parent + ")");

  // Recovery of an interrupted run: old tree set aside but the new one not
  // yet in place -> put the old one back; any other leftover is garbage.
  if (fs::exists(aside, ec) && !fs::exists(dest, ec)) {
    rename_or_throw(aside, dest);
    std::fprintf(stderr, "collect: restored %s from an interrupted collection\n", dest.c_str());
  }
  fs::remove_all(aside, ec);
  fs::remove_all(fresh, ec);
  if (ec) throw StageError("cannot remove the leftover " + fresh + ": " + ec.message());
  checkpoint("recovered");

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

  // On any error before the swap: drop the new tree, dest is untouched.
  struct DropFresh {
    const std::string& dir;
    bool armed = true;
    ~DropFresh() {
      std::error_code e;
      if (armed) fs::remove_all(dir, e);
    }
  } drop_fresh{fresh};
  if (!fs::create_directory(fresh, ec) || ec)
    throw StageError(dest + ": cannot create the new tree " + fresh + " beside it: " +
                     (ec ? ec.message() : std::string("exists")) + " (is " + parent + " writable?)");
  checkpoint("new tree created");

  nlohmann::json manifest;
  manifest["about"] = kAbout;
  nlohmann::json files = nlohmann::json::object();
  auto put = [&](const std::string& target, const std::string& rel, const std::string& bytes) {
    if (files.contains(rel)) throw StageError(dest + "/" + rel + ": two targets write this file");
    write_durable(fresh + "/" + rel, bytes, dest + "/" + rel);
    auto r = records.find(target);
    files[rel] = manifest_entry(target, r == records.end() ? nullptr : &r->second, fresh + "/" + rel);
    checkpoint("wrote " + rel);
  };
  for (const auto& [t, text] : record_bytes) put(t, "provenance/" + record_name(t), text);
  for (const auto& e : index) {
    for (const auto& f : e.files) {
      const std::string base = basename_of(f);
      if (base == "provenance.json") continue;
      bool wanted = false;
      for (const auto& p : e.patterns) wanted = wanted || matches(p, base);
      if (!wanted) continue;
      auto r = records.find(e.target);
      const std::string stage = r == records.end() ? "" : r->second.value("stage", std::string());
      put(e.target, destination(e.target, stage, base), read_text(src_root + "/" + f));
    }
  }
  manifest["files"] = files;

  // The code each stage ran, as a fingerprint of its tool's source files
  // (byte-stable across toolchains), for the stale check.
  if (fingerprints.is_object() && fingerprints.contains("stages")) {
    nlohmann::json code = nlohmann::json::object();
    for (const auto& [t, r] : records) {
      if (!fingerprints["stages"].contains(t)) continue;
      const std::string tool = fingerprints["stages"][t].value("tool", std::string());
      const auto srcs = fingerprints["tools"].value(tool, std::vector<std::string>{});
      code[t] = {{"tool", tool}, {"code_sha256", code_fingerprint(srcs, src_root)}, {"code_files", srcs.size()}};
    }
    manifest["code"] = code;
  }

  // Files in dest that no collection made (results/BUILD, notes) are kept;
  // what the last collection made and this one does not list goes.
  const std::set<std::string> made_before = collected_files(dest);
  if (fs::is_directory(dest, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(dest)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = entry.path().lexically_relative(dest).generic_string();
      if (rel == kManifest || made_before.count(rel) || files.contains(rel)) continue;
      write_durable(fresh + "/" + rel, read_text(entry.path().string()), dest + "/" + rel);
      checkpoint("kept " + rel);
    }
  }
  write_durable(fresh + "/" + kManifest, manifest.dump(2) + "\n", dest + "/" + kManifest);
  for (const auto& entry : fs::recursive_directory_iterator(fresh))
    if (entry.is_directory()) fsync_dir(entry.path().string());
  fsync_dir(fresh);
  checkpoint("manifest written");

  // The swap: one atomic exchange where the system has it; else the old tree
  // aside, the new one in (recovered above if interrupted in between).
  std::string old_tree = aside;
  if (!fs::exists(dest, ec)) {
    rename_or_throw(fresh, dest);
  } else if (exchange_dirs(fresh, dest)) {
    old_tree = fresh;  // the exchange left the old tree there
  } else {
    rename_or_throw(dest, aside);
    checkpoint("old tree set aside");
    if (std::rename(fresh.c_str(), dest.c_str()) != 0) {
      const std::string why = errno_text();
      std::rename(aside.c_str(), dest.c_str());
      throw StageError("cannot rename " + fresh + " to " + dest + ": " + why + "; " + dest + " left as it was");
    }
  }
  drop_fresh.armed = false;
  fsync_dir(parent);
  checkpoint("new tree in place");
  fs::remove_all(old_tree, ec);
  if (ec)
    std::fprintf(stderr, "collect: warning: cannot remove the old tree %s: %s\n", old_tree.c_str(), ec.message().c_str());
  checkpoint("old tree removed");
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
  // The manifest itself: as the collector writes it, byte for byte (every
  // field is checked below against the files and records it describes).
  if (read_text(mpath) != manifest.dump(2) + "\n")
    problems.push_back(std::string(kManifest) + ": not in the form the collector writes (edited by hand?)");
  if (manifest.value("about", std::string()) != kAbout)
    problems.push_back(std::string(kManifest) + ": its \"about\" text differs from the collector's");
  for (const auto& [k, v] : manifest.items())
    if (k != "about" && k != "files" && k != "code")
      problems.push_back(std::string(kManifest) + ": unexpected key \"" + k + "\"");

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
      problems.push_back(rel + ": its provenance record " + rec + " (as MANIFEST.json names it) is not in results/");
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

  // 4b. Every field of a file's entry is what its record and the file give.
  std::map<std::string, const nlohmann::json*> by_target;
  for (const auto& [rec, r] : records) by_target[r.value("target", std::string())] = &r;
  for (const auto& [rel, m] : files.items()) {
    if (!intact.count(rel)) continue;
    const std::string target = m.value("target", std::string());
    const std::string rec = m.value("provenance_record", std::string());
    if (!rec.empty() && !records.count(rec)) continue;  // reported above
    auto r = by_target.find(target);
    const nlohmann::json* record = r == by_target.end() ? nullptr : r->second;
    nlohmann::json want;
    try {
      want = manifest_entry(target, record, dir + "/" + rel, m.value("sha256", std::string()));  // intact: checked
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
  // 4c. Code fingerprints (if recorded): one per stage of results/.
  if (manifest.contains("code")) {
    if (!manifest["code"].is_object()) problems.push_back(std::string(kManifest) + ": \"code\" is not an object");
    else
      for (const auto& [t, c] : manifest["code"].items()) {
        const std::string h = c.is_object() ? c.value("code_sha256", std::string()) : "";
        if (!by_target.count(t))
          problems.push_back(std::string(kManifest) + ": code fingerprint of " + t + ", which has no record here");
        if (!c.is_object() || h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos ||
            !c.value("tool", nlohmann::json()).is_string() || !c.value("code_files", nlohmann::json()).is_number())
          problems.push_back(std::string(kManifest) + ": code fingerprint of " + t + " is malformed");
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
