// The rebuilder's machinery (rebuilder.h).
#include "lib/provenance/rebuilder.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "lib/core/io.h"
#include "lib/core/process.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

namespace fs = std::filesystem;

static std::runtime_error error(const std::string& m) { return std::runtime_error(m); }

std::string join_quoted(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + shell_quoted(a);
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string Rebuilder::bazel(const std::string& command, const std::vector<std::string>& args) {
  // Never a remote cache, and a disk cache only for compiles when asked:
  // no Stage action runs through Bazel here.
  std::vector<std::string> a = {o_.workspace + "/tools/bazel", "--output_base=" + o_.output_base, command};
  if (command == "build" || command == "aquery")
    // No convenience symlinks: the workspace's bazel-out stays the user's.
    a.insert(a.end(), {"--remote_cache=", "--remote_executor=", "--symlink_prefix=/"});
  if ((command == "build" || command == "aquery") && !o_.compile_cache.empty())
    a.push_back("--disk_cache=" + o_.compile_cache);
  // A refresh writes records into results/: they name the commit, as
  // //paper:all's do (the workspace status); verify's runs are compared only.
  if ((command == "build" || command == "aquery") && !refresh_) a.push_back("--define=stage_code_version=off");
  a.push_back("--noshow_progress");
  a.insert(a.end(), args.begin(), args.end());
  return run_command(
      "cd " + shell_quoted(o_.workspace) + " && " + join_quoted(a) + " 2>" + shell_quoted(scratch_ + "/bazel.log"),
      "see " + scratch_ + "/bazel.log");
}

// Where the bytes of an input of `target` come from, checked against the
// SHA-256 its record holds: results/, the source tree, the user's build
// tree (bazel-out), or the upstream stage rebuilt here. "" when none has them.
std::string Rebuilder::input_source(const std::string& target, const std::string& key) {
  const auto& in = recs_.at(target).record["inputs"][key];
  const std::string path = in.at("path"), sha = in.at("sha256");
  auto p = producer_.find(path);
  if (p != producer_.end()) {
    auto d = done_.find(p->second);
    if (d != done_.end() && (d->second.kind == Outcome::Equal || d->second.kind == Outcome::Replaced) &&
        d->second.outputs.count(path))
      return d->second.outputs.at(path);
  }
  // A file of results/ with that hash: the audit at the start hashed it.
  if (auto r = results_by_sha_.find(sha); r != results_by_sha_.end()) return r->second;
  if (auto f = found_.find(path + " " + sha); f != found_.end()) return f->second;
  // An upstream record (given to the figures and the paper): its bytes as
  // its stage wrote them, from results/' compact records (graph.h).
  if (graph_ && fs::path(path).filename() == "provenance.json") {
    const std::string up = graph_->record_of(target_of_generated_path(path));
    const std::string text = up.empty() ? "" : graph_->written_text(up);
    if (!text.empty() && sha256_text(text) == sha) {
      const std::string copy = scratch_ + "/records/" + up.substr(up.find('/') + 1);
      fs::create_directories(fs::path(copy).parent_path());
      write_text_atomic(copy, text);
      return found_[path + " " + sha] = copy;
    }
  }
  // The source tree (a source input) or the user's bazel-out (an output).
  const std::string c = o_.workspace + "/" + path;
  if (fs::is_regular_file(c) && sha256_file(c) == sha) return found_[path + " " + sha] = c;
  // A file of an external repository (a packaged alignment), as fetched.
  const std::string x = o_.output_base + "/" + path;
  if (path.rfind("external/", 0) == 0 && fs::is_regular_file(x) && sha256_file(x) == sha)
    return found_[path + " " + sha] = x;
  return "";
}

// Upstream stages first: those whose outputs this one reads and nothing
// else supplies with the recorded bytes.
void Rebuilder::resolve(const std::string& target, std::vector<std::string>& order, std::set<std::string>& seen) {
  if (!seen.insert(target).second) return;
  for (const auto& [key, in] : recs_.at(target).record["inputs"].items()) {
    if (!o_.with_inputs && !input_source(target, key).empty()) continue;
    auto p = producer_.find(in.at("path").get<std::string>());
    if (p != producer_.end()) resolve(p->second, order, seen);
  }
  order.push_back(target);
}

// Runs `argv` in `dir` with exactly the Stage action's environment; returns
// the child's user + system CPU seconds and sets `status` (waitpid's).
static double spawn(const std::vector<std::string>& argv, const std::string& dir, const std::string& log, int& status) {
  const pid_t pid = fork();
  if (pid < 0) throw error("fork failed");
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    char e1[] = "OPENBLAS_NUM_THREADS=1", e2[] = "OMP_NUM_THREADS=1";
    char* env[] = {e1, e2, nullptr};
    execve(a[0], a.data(), env);
    _exit(127);
  }
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) < 0) throw error("wait4 failed");
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void link_file(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::remove(to);
  fs::create_symlink(fs::absolute(from), to);
}

std::string Rebuilder::config_source(const std::string& target) const {
  const std::string config = Argv{argv_.at(target)}.value("--config");
  return (config.rfind("bazel-out/", 0) == 0 ? execroot_ : o_.workspace) + "/" + config;
}

bool Rebuilder::reads_records(const std::string& target) const {
  const auto it = argv_.find(target);
  return it != argv_.end() && without_record_inputs(nlohmann::json(it->second)).size() != it->second.size();
}

// Why the tree's action of `target` is not the one its record ran ("" when
// it is): its command, tool or configuration differ.
std::string Rebuilder::stale_reason(const std::string& target, const std::string& config_src) const {
  const auto& r = recs_.at(target).record;
  const Argv a{argv_.at(target)};
  // A record made while every stage was given its upstream records lists
  // them in its command; this tree gives them to the presentation stages
  // alone, and the data inputs decide.
  const nlohmann::json command = reads_records(target) ? r["command"] : without_record_inputs(r["command"]);
  // A record's command leaves out --status (the commit is code_version).
  std::vector<std::string> tree;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (a.args[i] == "--status" && i + 1 < a.args.size())
      ++i;
    else
      tree.push_back(a.args[i]);
  if (auto d = first_difference(tree, command); !d.empty())
    return "the record's command is not this tree's (" + d + "): stale, or a record no build of this tree made";
  if (sha256_file(execroot_ + "/" + a.args[0]) != r.value("tool_sha256", ""))
    return "the tool built from this tree (" + recs_.at(target).tool + ") differs from the record's tool_sha256";
  if (!fs::is_regular_file(config_src) || sha256_file(config_src) != r.value("config_sha256", ""))
    return "its configuration " + a.value("--config") + " in this tree differs from the record's config_sha256";
  return "";
}

// The stage's inputs, configuration, tool (and the status file of a
// refresh) linked into `dir`; false with out.detail when an input is
// missing.
bool Rebuilder::link_inputs(const std::string& target, const std::string& dir, const std::string& config_src,
                            Outcome& out) {
  const Argv a{argv_.at(target)};
  link_file(execroot_ + "/" + a.args[0], dir + "/" + a.args[0]);
  link_file(config_src, dir + "/" + a.value("--config"));
  if (const std::string status = a.value("--status"); !status.empty())
    link_file(execroot_ + "/" + status, dir + "/" + status);
  for (const auto& [key, path] : a.pairs("--in")) {
    std::string src = input_source(target, key);
    // A refresh reads a changed source input (a script) from the tree.
    if (src.empty() && refresh_ && !producer_.count(path) && fs::is_regular_file(o_.workspace + "/" + path))
      src = o_.workspace + "/" + path;
    if (src.empty()) {
      out.kind = Outcome::Failed;
      out.detail =
          "input " + key + " (" + path +
          "): no file with the recorded SHA-256 in the tree, results/ or bazel-out, and its stage did not reproduce it";
      return false;
    }
    link_file(src, dir + "/" + path);
  }
  for (const auto& [key, path] : a.pairs("--out")) fs::create_directories(fs::path(dir + "/" + path).parent_path());
  fs::create_directories(fs::path(dir + "/" + a.value("--provenance")).parent_path());
  return true;
}

Outcome Rebuilder::run_stage(const std::string& target, std::size_t index) {
  const auto& r = recs_.at(target).record;
  Outcome out;
  const auto it = argv_.find(target);
  if (it == argv_.end()) {
    out.kind = Outcome::Stale;
    out.detail = "this tree defines no Stage action for " + target;
    return out;
  }
  const Argv a{it->second};
  const std::string config_src = config_source(target);
  // A refresh runs it anyway: its outputs decide.
  if (const std::string why = stale_reason(target, config_src); !why.empty() && !refresh_) {
    out.kind = Outcome::Stale;
    out.detail = why;
    return out;
  }
  const std::string dir = scratch_ + "/" + std::to_string(index);
  fs::create_directories(dir);
  if (!link_inputs(target, dir, config_src, out)) return out;
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  out.core_seconds = spawn(a.args, dir, dir + "/stage.log", status);
  out.wall_seconds = seconds_since(t0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.kind = Outcome::Failed;
    out.detail = "the stage exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                 " (its log: " + dir + "/stage.log)";
    return out;
  }
  // Every data output against its record (the record itself is new: times).
  // A refreshed presentation stage keeps what it wrote; with --regenerate,
  // a science stage too.
  const bool replace = refresh_ && (reads_records(target) || o_.regenerate);
  for (const auto& [key, path] : a.pairs("--out")) {
    const std::string want = r["outputs"].contains(key) ? r["outputs"][key].value("sha256", "") : "(not in the record)";
    const std::string got = sha256_file(dir + "/" + path);
    if (got != want && !replace) {
      out.kind = Outcome::Differs;
      out.detail = key + ": recorded " + want + ", rebuilt " + got;
      return out;
    }
    if (got != want) out.kind = Outcome::Replaced;
    out.outputs[path] = dir + "/" + path;
  }
  if (refresh_) out.outputs[a.value("--provenance")] = dir + "/" + a.value("--provenance");
  return out;
}

// A results tree whose files, manifest and records disagree is refused
// before anything runs, each disagreement named (the record's hashes, which
// the rebuilt outputs are compared with, are only as good as this check).
bool Rebuilder::audited() {
  const auto problems = audit_results(o_.results);
  if (problems.empty()) return true;
  std::printf("verify: %s fails its audit (%zu problems); nothing was rebuilt:\n", o_.results.c_str(), problems.size());
  for (std::size_t k = 0; k < problems.size() && k < 10; ++k) std::printf("DIFFERS  %s\n", problems[k].c_str());
  return false;
}

// The stage records, the results' files by SHA-256, and each recorded
// output path's producer.
void Rebuilder::load_records() {
  recs_ = stage_records(o_.results);
  const auto manifest = read_json(o_.results + "/MANIFEST.json");
  for (const auto& [rel, m] : manifest["files"].items())
    if (m.contains("sha256")) results_by_sha_[m["sha256"].get<std::string>()] = o_.results + "/" + rel;
  std::map<std::string, nlohmann::json> records;
  for (const auto& [t, s] : recs_) {
    for (const auto& [k, v] : s.record["outputs"].items()) producer_[v.at("path").get<std::string>()] = t;
    records["provenance/" + record_name(t)] = s.record;
  }
  graph_ = std::make_unique<RecordGraph>(records);
}

// Builds the stages' tools and configurations in verify's own output base,
// and reads the tree's Stage command of each target; returns its seconds.
double Rebuilder::build_tools(const std::vector<std::string>& order, const std::vector<std::string>& extra) {
  std::string set;
  for (const auto& t : order) set += (set.empty() ? "" : " ") + t;
  std::set<std::string> labels;
  for (const auto& t : order) labels.insert(recs_[t].tool);
  labels.insert(extra.begin(), extra.end());
  {
    // The stages' configurations: source files, or rules that write them.
    std::istringstream q(bazel("query", {"labels(config, set(" + set + "))", "--output=label"}));
    for (std::string l; std::getline(q, l);)
      if (!l.empty()) labels.insert(l);
  }
  const auto t_build = std::chrono::steady_clock::now();
  if (refresh_)
    std::printf("refresh: building %zu tools and configurations in %s (no remote cache; compiles cached in %s)\n",
                labels.size(), o_.output_base.c_str(),
                o_.compile_cache.empty() ? "the workspace's disk cache" : o_.compile_cache.c_str());
  else
    std::printf("verify: building %zu tools and configurations in %s (no remote cache; %s compile cache %s)\n",
                labels.size(), o_.output_base.c_str(), o_.own_compile_cache ? "its own" : "the given",
                o_.compile_cache.c_str());
  std::fflush(stdout);
  bazel("build", std::vector<std::string>(labels.begin(), labels.end()));
  // The external repositories stages read from (input_source finds their
  // files in the output base).
  std::set<std::string> repos;
  for (const auto& t : order)
    for (const auto& [key, in] : recs_[t].record["inputs"].items()) {
      const std::string path = in.value("path", "");
      if (path.rfind("external/", 0) == 0) repos.insert(path.substr(9, path.find('/', 9) - 9));
    }
  for (const auto& r : repos) bazel("fetch", {"@" + r + "//..."});
  execroot_ = bazel("info", {"execution_root"});
  while (!execroot_.empty() && (execroot_.back() == '\n' || execroot_.back() == ' ')) execroot_.pop_back();
  const auto q =
      nlohmann::json::parse(bazel("aquery", {"mnemonic(\"Stage\", set(" + set + "))", "--output=jsonproto"}));
  std::map<long, std::string> label_of;
  for (const auto& t : q.value("targets", nlohmann::json::array())) label_of[t.value("id", 0L)] = t.value("label", "");
  for (const auto& act : q.value("actions", nlohmann::json::array()))
    argv_[label_of[act.value("targetId", 0L)]] = act.value("arguments", std::vector<std::string>{});
  return seconds_since(t_build);
}

}  // namespace potts::provenance
