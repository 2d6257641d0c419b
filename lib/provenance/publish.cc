// Publishing results/ (collect_results, results.h): the indexed files copied
// into a new tree beside the destination with its MANIFEST.json, every file
// fsynced, then swapped in whole. Killed at any point, the destination is
// wholly old or wholly new.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  if (ec)
    throw StageError(shown + ": cannot create directory " + fs::path(path).parent_path().string() + ": " +
                     ec.message());
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

// The destination, its parent, and the two names beside it: the new tree
// being built and the old tree set aside during a fallback swap.
struct Paths {
  std::string dest, parent, fresh, aside;
};

Paths paths_of(const std::string& dest_in) {
  const fs::path dpath = fs::absolute(fs::path(dest_in)).lexically_normal();
  Paths p;
  p.dest = (dpath.has_filename() ? dpath : dpath.parent_path()).string();
  p.parent = fs::path(p.dest).parent_path().string();
  const std::string name = fs::path(p.dest).filename().string();
  p.fresh = p.parent + "/." + name + ".new";
  p.aside = p.parent + "/." + name + ".old";
  return p;
}

// One collector at a time per destination: an exclusive lock on its parent.
class DirLock {
 public:
  explicit DirLock(const Paths& p) {
    std::error_code ec;
    if (fs::exists(p.parent, ec) && !fs::is_directory(p.parent, ec))
      throw StageError(p.dest + ": cannot collect here: " + p.parent + " is not a directory");
    fs::create_directories(p.parent, ec);
    if (ec) throw StageError(p.dest + ": cannot collect here: cannot create " + p.parent + ": " + ec.message());
    fd_ = ::open(p.parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw StageError(p.parent + ": cannot open: " + errno_text());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw StageError(p.dest + ": another collection into it is running (lock on " + p.parent + ")");
    }
  }
  ~DirLock() { ::close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

// Recovery of an interrupted run: old tree set aside but the new one not
// yet in place -> put the old one back; any other leftover is garbage.
void recover(const Paths& p) {
  std::error_code ec;
  if (fs::exists(p.aside, ec) && !fs::exists(p.dest, ec)) {
    rename_or_throw(p.aside, p.dest);
    std::fprintf(stderr, "collect: restored %s from an interrupted collection\n", p.dest.c_str());
  }
  fs::remove_all(p.aside, ec);
  fs::remove_all(p.fresh, ec);
  if (ec) throw StageError("cannot remove the leftover " + p.fresh + ": " + ec.message());
}

// The provenance records to publish, by target: every indexed stage's own
// (the index lists every stage upstream of the paper), compact (graph.h).
struct Records {
  std::map<std::string, nlohmann::json> parsed;
  std::map<std::string, std::string> bytes;
};

Records gather_records(const std::vector<IndexEntry>& index, const std::string& src_root) {
  Records r;
  for (const auto& e : index) {
    for (const auto& f : e.files) {
      if (basename_of(f) != "provenance.json") continue;
      r.parsed[e.target] = compact_record(parse_file(src_root + "/" + f));
      r.bytes[e.target] = record_text(r.parsed[e.target]);
    }
  }
  // Every input a record names was made by a record gathered here, with the
  // bytes it read: otherwise the outputs come from different runs.
  std::map<std::string, nlohmann::json> by_rel;
  for (const auto& [t, rec] : r.parsed) by_rel["provenance/" + record_name(t)] = rec;
  const RecordGraph graph(by_rel);
  for (const auto& [rel, rec] : by_rel)
    for (const auto& l : graph.links(rel))
      if (!l.problem.empty())
        throw StageError(l.problem +
                         ": the outputs come from different runs, or the index misses a stage; "
                         "rebuild with `tools/bazel run //paper:all`");
  return r;
}

// On any error before the swap: drop the new tree, dest is untouched.
struct DropFresh {
  const std::string& dir;
  bool armed = true;
  ~DropFresh() {
    std::error_code e;
    if (armed) fs::remove_all(dir, e);
  }
};

// Writes every record and every wanted file of the index into the new tree;
// returns the manifest's "files".
nlohmann::json write_files(const std::vector<IndexEntry>& index, const std::string& src_root, const Paths& p,
                           const Records& records, Checkpoints& checkpoint) {
  nlohmann::json files = nlohmann::json::object();
  auto put = [&](const std::string& target, const std::string& rel, const std::string& bytes) {
    if (files.contains(rel)) throw StageError(p.dest + "/" + rel + ": two targets write this file");
    write_durable(p.fresh + "/" + rel, bytes, p.dest + "/" + rel);
    auto r = records.parsed.find(target);
    files[rel] = file_entry(target, r == records.parsed.end() ? nullptr : &r->second, p.fresh + "/" + rel);
    checkpoint("wrote " + rel);
  };
  for (const auto& [t, text] : records.bytes) put(t, "provenance/" + record_name(t), text);
  for (const auto& e : index) {
    for (const auto& f : e.files) {
      const std::string base = basename_of(f);
      if (base == "provenance.json") continue;
      bool wanted = false;
      for (const auto& pat : e.patterns) wanted = wanted || matches(pat, base);
      if (!wanted) continue;
      auto r = records.parsed.find(e.target);
      const std::string stage = r == records.parsed.end() ? "" : r->second.value("stage", std::string());
      put(e.target, destination(e.target, stage, base), read_text(src_root + "/" + f));
    }
  }
  return files;
}

// The code each stage ran, as a fingerprint of its tool's source files
// (byte-stable across toolchains), for the stale check.
nlohmann::json code_section(const Records& records, const nlohmann::json& fingerprints, const std::string& src_root) {
  nlohmann::json code = nlohmann::json::object();
  for (const auto& [t, r] : records.parsed) {
    if (!fingerprints["stages"].contains(t)) continue;
    const std::string tool = fingerprints["stages"][t].value("tool", std::string());
    const auto srcs = fingerprints["tools"].value(tool, std::vector<std::string>{});
    code[t] = {{"tool", tool}, {"code_sha256", code_fingerprint(srcs, src_root)}, {"code_files", srcs.size()}};
  }
  return code;
}

// Files in dest that no collection made (results/BUILD, notes) are kept;
// what the last collection made and this one does not list goes.
void keep_foreign_files(const Paths& p, const nlohmann::json& files, Checkpoints& checkpoint) {
  const std::set<std::string> made_before = collected_files(p.dest);
  std::error_code ec;
  if (!fs::is_directory(p.dest, ec)) return;
  for (const auto& entry : fs::recursive_directory_iterator(p.dest)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(p.dest).generic_string();
    if (rel == kManifest || rel == kCrate || made_before.count(rel) || files.contains(rel)) continue;
    write_durable(p.fresh + "/" + rel, read_text(entry.path().string()), p.dest + "/" + rel);
    checkpoint("kept " + rel);
  }
}

// The swap: one atomic exchange where the system has it; else the old tree
// aside, the new one in (recovered by the next run if interrupted in
// between). Returns where the old tree now is.
std::string swap_in(const Paths& p, Checkpoints& checkpoint) {
  std::error_code ec;
  if (!fs::exists(p.dest, ec)) {
    rename_or_throw(p.fresh, p.dest);
    return p.aside;
  }
  if (exchange_dirs(p.fresh, p.dest)) return p.fresh;  // the exchange left the old tree there
  rename_or_throw(p.dest, p.aside);
  checkpoint("old tree set aside");
  if (std::rename(p.fresh.c_str(), p.dest.c_str()) != 0) {
    const std::string why = errno_text();
    std::rename(p.aside.c_str(), p.dest.c_str());
    throw StageError("cannot rename " + p.fresh + " to " + p.dest + ": " + why + "; " + p.dest + " left as it was");
  }
  return p.aside;
}

}  // namespace

nlohmann::json collect_results(const std::vector<IndexEntry>& index, const std::string& src_root,
                               const std::string& dest_in, const nlohmann::json& fingerprints) {
  Checkpoints checkpoint;
  const Paths p = paths_of(dest_in);
  DirLock lock(p);
  recover(p);
  checkpoint("recovered");
  const Records records = gather_records(index, src_root);

  DropFresh drop_fresh{p.fresh};
  std::error_code ec;
  if (!fs::create_directory(p.fresh, ec) || ec)
    throw StageError(p.dest + ": cannot create the new tree " + p.fresh +
                     " beside it: " + (ec ? ec.message() : std::string("exists")) + " (is " + p.parent + " writable?)");
  checkpoint("new tree created");

  nlohmann::json manifest;
  manifest["about"] = kManifestAbout;
  manifest["files"] = write_files(index, src_root, p, records, checkpoint);
  if (fingerprints.is_object() && fingerprints.contains("stages"))
    manifest["code"] = code_section(records, fingerprints, src_root);
  keep_foreign_files(p, manifest["files"], checkpoint);
  write_durable(p.fresh + "/" + kManifest, manifest.dump(2) + "\n", p.dest + "/" + kManifest);
  std::map<std::string, nlohmann::json> by_rel;
  for (const auto& [t, rec] : records.parsed) by_rel["provenance/" + record_name(t)] = rec;
  write_durable(p.fresh + "/" + kCrate, crate_text(run_crate(manifest, by_rel)), p.dest + "/" + kCrate);
  for (const auto& entry : fs::recursive_directory_iterator(p.fresh))
    if (entry.is_directory()) fsync_dir(entry.path().string());
  fsync_dir(p.fresh);
  checkpoint("manifest written");

  const std::string old_tree = swap_in(p, checkpoint);
  drop_fresh.armed = false;
  fsync_dir(p.parent);
  checkpoint("new tree in place");
  fs::remove_all(old_tree, ec);
  if (ec)
    std::fprintf(stderr, "collect: warning: cannot remove the old tree %s: %s\n", old_tree.c_str(),
                 ec.message().c_str());
  checkpoint("old tree removed");
  return manifest;
}

}  // namespace potts::provenance
