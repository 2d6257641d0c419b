// Faults during collection and in the stage framework: the collector
// (//paper:collect on the fixture index) killed at every checkpoint leaves
// results/ wholly old or wholly new, and the audit passes; an unwritable or
// full destination is one clear error naming the file and the reason, and
// changes nothing. A stage whose output cannot be written says which, and
// leaves no output.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "lib/core/io.h"
#include "lib/provenance/results.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;

namespace potts::provenance {
namespace {

using testing_util::joined;
using testing_util::tmpdir;

const std::string kCollect = "paper/collect", kIndex = "tests/paper/fx_index.json";

struct Outcome {
  int status = 0;
  std::string err;
  bool killed() const { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }
  int code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

// Runs argv in a child with extra environment and, if fsize >= 0, a limit
// on the size of any file it writes (RLIMIT_FSIZE: a "full disk" that works
// as root too); stderr is captured through a pipe (not subject to the limit).
Outcome run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {}, long fsize = -1) {
  int fds[2];
  if (::pipe(fds) != 0) throw StageError("pipe failed");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], 2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    if (fsize >= 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      rlimit rl{rlim_t(fsize), rlim_t(fsize)};
      ::setrlimit(RLIMIT_FSIZE, &rl);
    }
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  Outcome r;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.err.append(buf, std::size_t(n));
  ::close(fds[0]);
  ::waitpid(pid, &r.status, 0);
  return r;
}

// rel -> SHA-256 of every regular file under dir ({} if there is no dir).
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().lexically_relative(dir).generic_string()] = sha256_file(e.path().string());
  return out;
}

void copy_tree(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::create_directories(fs::path(to).parent_path());
  fs::copy(from, to, fs::copy_options::recursive);
}

// An older collection (fewer figures, from a smaller index) with a BUILD
// file no collection made, and the tree a full collection turns it into.
struct Trees {
  std::string old_dir, new_dir;
  std::map<std::string, std::string> old_files, new_files;
};

const Trees& trees() {
  static Trees t = [] {
    Trees made;
    auto j = nlohmann::json::parse(read_text(kIndex));
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : j["entries"])
      if (e["target"] != "//tests/paper:fx_sweep" && e["target"] != "//tests/paper:fx_maps") entries.push_back(e);
    j["entries"] = entries;
    const std::string old_index = tmpdir() + "/old_index.json";
    write_text_atomic(old_index, j.dump());
    made.old_dir = tmpdir() + "/pristine_old/results";
    fs::create_directories(made.old_dir);
    write_text_atomic(made.old_dir + "/BUILD", "# not made by the collector\n");
    Outcome r = run({kCollect, old_index, "--dest", made.old_dir});
    EXPECT_EQ(r.code(), 0) << r.err;
    made.new_dir = tmpdir() + "/pristine_new/results";
    copy_tree(made.old_dir, made.new_dir);
    r = run({kCollect, kIndex, "--dest", made.new_dir});
    EXPECT_EQ(r.code(), 0) << r.err;
    made.old_files = snapshot(made.old_dir);
    made.new_files = snapshot(made.new_dir);
    return made;
  }();
  return t;
}

TEST(CollectFaults, OldAndNewTreesDifferAndPassTheAudit) {
  const Trees& t = trees();
  EXPECT_NE(t.old_files, t.new_files);
  EXPECT_TRUE(t.new_files.count("BUILD")) << "a file no collection made is kept";
  EXPECT_TRUE(t.new_files.count("figures/fx_maps.png"));
  EXPECT_FALSE(t.old_files.count("figures/fx_maps.png"));
  EXPECT_TRUE(audit_results(t.old_dir).empty()) << joined(audit_results(t.old_dir));
  EXPECT_TRUE(audit_results(t.new_dir).empty()) << joined(audit_results(t.new_dir));
}

// Kills the collector at checkpoint k = 1, 2, ... until it completes; after
// every kill results/ must be wholly old or wholly new and pass the audit,
// and a plain rerun must give the new tree with no leftover beside it.
// "fallback" forces the rename-aside path used where RENAME_EXCHANGE is
// missing: there one checkpoint (old aside, new not yet in) leaves no
// results/, which the next run restores before anything else.
void kill_at_every_step(bool fallback) {
  const Trees& t = trees();
  const std::string base = tmpdir() + (fallback ? "/kill_fallback" : "/kill_exchange");
  const std::string dest = base + "/results";
  std::map<std::string, std::string> env;
  if (fallback) env["POTTS_COLLECT_NO_EXCHANGE"] = "1";
  int saw_old = 0, saw_new = 0, saw_aside = 0, steps = 0;
  for (int k = 1; k < 1000; ++k) {
    fs::remove_all(base);
    copy_tree(t.old_dir, dest);
    env["POTTS_COLLECT_KILL_AT"] = std::to_string(k);
    Outcome r = run({kCollect, kIndex, "--dest", dest}, env);
    if (!r.killed()) {
      ASSERT_EQ(r.code(), 0) << r.err;
      EXPECT_EQ(snapshot(dest), t.new_files);
      steps = k - 1;
      break;
    }
    const auto now = snapshot(dest);
    if (fs::exists(dest)) {
      EXPECT_TRUE(now == t.old_files || now == t.new_files) << "killed at checkpoint " << k;
      auto p = audit_results(dest);
      EXPECT_TRUE(p.empty()) << "killed at checkpoint " << k << ":\n" << joined(p);
      (now == t.new_files ? saw_new : saw_old) += 1;
    } else {
      EXPECT_TRUE(fallback) << "killed at checkpoint " << k << ": no results/ at all";
      EXPECT_EQ(snapshot(base + "/.results.old"), t.old_files) << k;
      ++saw_aside;
    }
    env.erase("POTTS_COLLECT_KILL_AT");
    Outcome again = run({kCollect, kIndex, "--dest", dest}, env);
    EXPECT_EQ(again.code(), 0) << again.err;
    EXPECT_EQ(snapshot(dest), t.new_files) << "rerun after a kill at checkpoint " << k;
    EXPECT_FALSE(fs::exists(base + "/.results.new")) << k;
    EXPECT_FALSE(fs::exists(base + "/.results.old")) << k;
  }
  // A checkpoint after every file written (the new tree has more than 30).
  EXPECT_GT(steps, int(t.new_files.size())) << "checkpoints";
  EXPECT_GT(saw_old, 0);
  EXPECT_GT(saw_new, 0);
  EXPECT_EQ(saw_aside, fallback ? 1 : 0);
}

TEST(CollectFaults, KilledAtEveryStepLeavesOldOrNew) { kill_at_every_step(false); }
TEST(CollectFaults, KilledAtEveryStepLeavesOldOrNewWithoutExchange) { kill_at_every_step(true); }

TEST(CollectFaults, UnwritableDestinationIsAClearError) {
  // Root writes through permission bits, so these hold for any user: the
  // destination's directory is a regular file, or lies in /proc.
  const std::string file = tmpdir() + "/a_file";
  write_text_atomic(file, "x");
  Outcome r = run({kCollect, kIndex, "--dest", file + "/results"});
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("collect: error: " + file + "/results: cannot collect here: " + file + " is not a directory"),
            std::string::npos)
      << r.err;
  r = run({kCollect, kIndex, "--dest", "/proc/results"});
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("/proc/results: cannot create the new tree /proc/.results.new"), std::string::npos) << r.err;
  // A read-only directory holding an older tree: only without root.
  if (::geteuid() == 0) {
    std::printf("running as root: chmod cannot make a directory read-only; skipped that case\n");
    return;
  }
  const std::string ro = tmpdir() + "/read_only";
  copy_tree(trees().old_dir, ro + "/results");
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  r = run({kCollect, kIndex, "--dest", ro + "/results"});
  fs::permissions(ro, fs::perms::owner_all);
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(ro + "/results"), trees().old_files);
}

TEST(CollectFaults, FullDestinationIsAClearErrorAndChangesNothing) {
  const std::string base = tmpdir() + "/full", dest = base + "/results";
  copy_tree(trees().old_dir, dest);
  // Files above 8 kB cannot be written (the figures' PNG and PDF are larger).
  Outcome r = run({kCollect, kIndex, "--dest", dest}, {}, 8192);
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("collect: error: " + dest + "/"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": write failed after 8192 of "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(dest), trees().old_files);
  EXPECT_FALSE(fs::exists(base + "/.results.new"));
}

// The stage framework: outputs are written to a temporary name and renamed;
// a failed write names the output and leaves neither it nor a record.
const std::string kStage = "tests/paper/fixture_stage";

TEST(StageFaults, UnwritableOutputNamesIt) {
  const std::string file = tmpdir() + "/stage_file", dir = tmpdir() + "/stage_unwritable";
  write_text_atomic(file, "x");
  fs::create_directories(dir);
  Outcome r = run({kStage, "--config", "tests/paper/configs/sweep.json", "--seed", "1", "--out",
                   "sweep.csv=" + file + "/sweep.csv", "--out", "summary.json=" + dir + "/summary.json", "--provenance",
                   dir + "/provenance.json"});
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("fixture: error: " + file + "/sweep.csv: cannot open for writing"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "no output, no record";
}

TEST(StageFaults, FullDiskNamesTheOutputAndLeavesNothing) {
  const std::string dir = tmpdir() + "/stage_full";
  fs::create_directories(dir);
  // sweep.csv has 13 lines, well above 64 bytes.
  Outcome r = run(
      {kStage, "--config", "tests/paper/configs/sweep.json", "--seed", "1", "--out", "sweep.csv=" + dir + "/sweep.csv",
       "--out", "summary.json=" + dir + "/summary.json", "--provenance", dir + "/provenance.json"},
      {}, 64);
  EXPECT_EQ(r.code(), 1) << r.err;
  EXPECT_NE(r.err.find("fixture: error: " + dir + "/sweep.csv: write failed"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "no output, no temporary, no record";
}

}  // namespace
}  // namespace potts::provenance
