#include "lib/provenance/verify.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lib/core/io.h"
#include "lib/core/process.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

namespace fs = std::filesystem;

static std::runtime_error error(const std::string& m) { return std::runtime_error(m); }

std::map<std::string, StageRecord> stage_records(const std::string& results_dir) {
  const std::string mpath = results_dir + "/MANIFEST.json";
  const auto manifest = read_json(mpath);
  if (!manifest.contains("files") || !manifest["files"].is_object())
    throw error(mpath + ": field \"files\": expected an object of result files");
  const auto code = manifest.value("code", nlohmann::json::object());
  std::map<std::string, StageRecord> out;
  for (const auto& [rel, entry] : manifest["files"].items()) {
    (void)entry;
    if (rel.rfind("provenance/", 0) != 0) continue;
    const std::string path = results_dir + "/" + rel;
    StageRecord s;
    s.record_rel = rel;
    s.record = read_json(path);
    for (const char* f : {"target", "command", "outputs", "inputs"})
      if (!s.record.contains(f)) throw error(path + ": field \"" + std::string(f) + "\" missing");
    s.target = s.record["target"].get<std::string>();
    if (!code.contains(s.target) || !code[s.target].contains("tool"))
      throw error(mpath + ": field \"code\".\"" + s.target + "\".\"tool\": missing (collect with //paper:all)");
    s.tool = code[s.target]["tool"].get<std::string>();
    out[s.target] = std::move(s);
  }
  return out;
}

double recorded_core_seconds(const nlohmann::json& record) {
  return record.value("wall_seconds", 0.0) * std::max(1, record.value("threads", 1));
}

// SplitMix64 (Steele, Lea and Flood 2014): one 64-bit draw per call.
static std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<std::string> sample_targets(std::vector<std::string> targets, std::size_t k, std::uint64_t seed) {
  std::sort(targets.begin(), targets.end());
  k = std::min(k, targets.size());
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < k; ++i) {
    // A uniform draw from [0, n): reject the top partial block of 2^64.
    const std::uint64_t n = targets.size() - i;
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t r;
    do r = splitmix64(state);
    while (r >= limit);
    std::swap(targets[i], targets[i + r % n]);
  }
  targets.resize(k);
  return targets;
}

nlohmann::json without_record_inputs(const nlohmann::json& command) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < command.size(); ++i) {
    const std::string a = command[i].get<std::string>();
    if (a == "--in" && i + 1 < command.size()) {
      const std::string v = command[i + 1].get<std::string>();
      const std::string key = v.substr(0, v.find('='));
      const std::string suffix = "/provenance.json";
      if (key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
        ++i;
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

std::string first_difference(const std::vector<std::string>& tree, const nlohmann::json& recorded) {
  const std::size_t n = std::max(tree.size(), recorded.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string a = i < tree.size() ? tree[i] : "(none)";
    const std::string b = i < recorded.size() ? recorded[i].get<std::string>() : "(none)";
    if (a != b) return "argument " + std::to_string(i) + ": tree '" + a + "', record '" + b + "'";
  }
  return "";
}

namespace {

std::string join_quoted(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + shell_quoted(a);
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The value of "--flag" or of "KEY=VALUE" pairs in a stage's argv.
struct Argv {
  std::vector<std::string> args;
  std::string value(const std::string& flag) const {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag) return args[i + 1];
    return "";
  }
  std::vector<std::pair<std::string, std::string>> pairs(const std::string& flag) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag) {
        const auto eq = args[i + 1].find('=');
        out.emplace_back(args[i + 1].substr(0, eq), args[i + 1].substr(eq + 1));
      }
    return out;
  }
};

// The outcome of one stage.
struct Outcome {
  enum Kind { Equal, Differs, Failed, Stale } kind = Equal;
  std::string detail;
  double core_seconds = 0, wall_seconds = 0;
  std::map<std::string, std::string> outputs;  // execroot path -> rebuilt file (Equal only)
};

class Verifier {
 public:
  explicit Verifier(const VerifyOptions& o) : o_(o), scratch_(o.scratch) {}
  int run();

 private:
  std::string bazel(const std::string& command, const std::vector<std::string>& args);
  void resolve(const std::string& target, std::vector<std::string>& order, std::set<std::string>& seen);
  std::string input_source(const std::string& target, const std::string& key);
  Outcome run_stage(const std::string& target, std::size_t index);
  // run()'s steps, in order.
  bool audited();
  void load_records();
  std::vector<std::string> choose(std::string& rule);
  void report_choice(const std::vector<std::string>& chosen, const std::string& rule);
  double build_tools(const std::vector<std::string>& order);
  int run_in_order(const std::vector<std::string>& order, const std::vector<std::string>& chosen, double build_seconds,
                   std::chrono::steady_clock::time_point t_start);

  VerifyOptions o_;
  std::map<std::string, StageRecord> recs_;
  std::map<std::string, std::string> results_by_sha_;     // sha256 -> results/ file
  std::map<std::string, std::string> producer_;           // execroot output path -> target
  std::map<std::string, std::vector<std::string>> argv_;  // target -> the tree's Stage command
  std::map<std::string, Outcome> done_;
  std::map<std::string, std::string> found_;  // "path sha256" -> a file with those bytes
  std::unique_ptr<RecordGraph> graph_;        // results/' records, for the records a stage reads
  std::string execroot_, scratch_;
};

std::string Verifier::bazel(const std::string& command, const std::vector<std::string>& args) {
  // Never a remote cache, and a disk cache only for compiles when asked:
  // no Stage action runs through Bazel here.
  std::vector<std::string> a = {o_.workspace + "/tools/bazel", "--output_base=" + o_.output_base, command};
  if (command == "build" || command == "aquery")
    // No convenience symlinks: the workspace's bazel-out stays the user's.
    a.insert(a.end(), {"--remote_cache=", "--remote_executor=", "--disk_cache=" + o_.compile_cache,
                       "--define=stage_code_version=off", "--symlink_prefix=/"});
  a.push_back("--noshow_progress");
  a.insert(a.end(), args.begin(), args.end());
  return run_command(
      "cd " + shell_quoted(o_.workspace) + " && " + join_quoted(a) + " 2>" + shell_quoted(scratch_ + "/bazel.log"),
      "see " + scratch_ + "/bazel.log");
}

// Where the bytes of an input of `target` come from, checked against the
// SHA-256 its record holds: results/, the source tree, the user's build
// tree (bazel-out), or the upstream stage rebuilt here. "" when none has them.
std::string Verifier::input_source(const std::string& target, const std::string& key) {
  const auto& in = recs_.at(target).record["inputs"][key];
  const std::string path = in.at("path"), sha = in.at("sha256");
  auto p = producer_.find(path);
  if (p != producer_.end()) {
    auto d = done_.find(p->second);
    if (d != done_.end() && d->second.kind == Outcome::Equal) return d->second.outputs.at(path);
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
  return "";
}

// Upstream stages first: those whose outputs this one reads and nothing
// else supplies with the recorded bytes.
void Verifier::resolve(const std::string& target, std::vector<std::string>& order, std::set<std::string>& seen) {
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

Outcome Verifier::run_stage(const std::string& target, std::size_t index) {
  const auto& r = recs_.at(target).record;
  Outcome out;
  const auto it = argv_.find(target);
  if (it == argv_.end()) {
    out.kind = Outcome::Stale;
    out.detail = "this tree defines no Stage action for " + target;
    return out;
  }
  const Argv a{it->second};
  // A record made while every stage was given its upstream records lists
  // them in its command; this tree gives them to the presentation stages
  // alone, and the data inputs decide.
  const bool tree_reads_records = without_record_inputs(nlohmann::json(a.args)).size() != a.args.size();
  const nlohmann::json command = tree_reads_records ? r["command"] : without_record_inputs(r["command"]);
  if (auto d = first_difference(a.args, command); !d.empty()) {
    out.kind = Outcome::Stale;
    out.detail = "the record's command is not this tree's (" + d + "): stale, or a record no build of this tree made";
    return out;
  }
  const std::string tool = execroot_ + "/" + a.args[0];
  if (sha256_file(tool) != r.value("tool_sha256", "")) {
    out.kind = Outcome::Stale;
    out.detail = "the tool built from this tree (" + recs_.at(target).tool + ") differs from the record's tool_sha256";
    return out;
  }
  const std::string dir = scratch_ + "/" + std::to_string(index);
  fs::create_directories(dir);
  link_file(tool, dir + "/" + a.args[0]);
  const std::string config = a.value("--config");
  const std::string config_src = (config.rfind("bazel-out/", 0) == 0 ? execroot_ : o_.workspace) + "/" + config;
  if (!fs::is_regular_file(config_src) || sha256_file(config_src) != r.value("config_sha256", "")) {
    out.kind = Outcome::Stale;
    out.detail = "its configuration " + config + " in this tree differs from the record's config_sha256";
    return out;
  }
  link_file(config_src, dir + "/" + config);
  for (const auto& [key, path] : a.pairs("--in")) {
    const std::string src = input_source(target, key);
    if (src.empty()) {
      out.kind = Outcome::Failed;
      out.detail =
          "input " + key + " (" + path +
          "): no file with the recorded SHA-256 in the tree, results/ or bazel-out, and its stage did not reproduce it";
      return out;
    }
    link_file(src, dir + "/" + path);
  }
  for (const auto& [key, path] : a.pairs("--out")) fs::create_directories(fs::path(dir + "/" + path).parent_path());
  fs::create_directories(fs::path(dir + "/" + a.value("--provenance")).parent_path());
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
  for (const auto& [key, path] : a.pairs("--out")) {
    const std::string want = r["outputs"].contains(key) ? r["outputs"][key].value("sha256", "") : "(not in the record)";
    const std::string got = sha256_file(dir + "/" + path);
    if (got != want) {
      out.kind = Outcome::Differs;
      out.detail = key + ": recorded " + want + ", rebuilt " + got;
      return out;
    }
    out.outputs[path] = dir + "/" + path;
  }
  return out;
}

// A results tree whose files, manifest and records disagree is refused
// before anything runs, each disagreement named (the record's hashes, which
// the rebuilt outputs are compared with, are only as good as this check).
bool Verifier::audited() {
  const auto problems = audit_results(o_.results);
  if (problems.empty()) return true;
  std::printf("verify: %s fails its audit (%zu problems); nothing was rebuilt:\n", o_.results.c_str(), problems.size());
  for (std::size_t k = 0; k < problems.size() && k < 10; ++k) std::printf("DIFFERS  %s\n", problems[k].c_str());
  return false;
}

// The stage records, the results' files by SHA-256, and each recorded
// output path's producer.
void Verifier::load_records() {
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

// The stages to verify (--all, --sample with its seed, or --stage), and the
// rule that chose them.
std::vector<std::string> Verifier::choose(std::string& rule) {
  std::vector<std::string> chosen, all;
  for (const auto& [t, s] : recs_) all.push_back(t);
  if (o_.all) {
    rule = "--all";
    return all;
  }
  if (o_.sample >= 0) {
    rule = "--sample " + std::to_string(o_.sample) + " --seed " + std::to_string(o_.seed) +
           " (SplitMix64 Fisher-Yates over the sorted targets)";
    return sample_targets(all, static_cast<std::size_t>(o_.sample), o_.seed);
  }
  for (const auto& name : o_.stages) {
    std::string found;
    for (const auto& [t, s] : recs_)
      if (t == name || s.record_rel == "provenance/" + name + ".json" || s.record_rel == name) found = t;
    if (found.empty()) throw error("--stage " + name + ": no such stage in " + o_.results + "/MANIFEST.json");
    chosen.push_back(found);
  }
  rule = "--stage";
  return chosen;
}

void Verifier::report_choice(const std::vector<std::string>& chosen, const std::string& rule) {
  double chosen_cost = 0, total_cost = 0;
  for (const auto& t : chosen) chosen_cost += recorded_core_seconds(recs_[t].record);
  for (const auto& [t, s] : recs_) total_cost += recorded_core_seconds(s.record);
  std::string listed;
  for (const auto& t : chosen) listed += (listed.empty() ? "" : " ") + t;
  std::printf("verify: %zu of %zu stages of %s (%s): %s\n", chosen.size(), recs_.size(), o_.results.c_str(),
              rule.c_str(), chosen.size() <= 12 ? listed.c_str() : "(listed below)");
  std::printf("verify: their records took %.1f core-s of the whole DAG's %.1f\n", chosen_cost, total_cost);
}

// Builds the stages' tools and configurations in verify's own output base,
// and reads the tree's Stage command of each target; returns its seconds.
double Verifier::build_tools(const std::vector<std::string>& order) {
  std::string set;
  for (const auto& t : order) set += (set.empty() ? "" : " ") + t;
  std::set<std::string> labels;
  for (const auto& t : order) labels.insert(recs_[t].tool);
  {
    // The stages' configurations: source files, or rules that write them.
    std::istringstream q(bazel("query", {"labels(config, set(" + set + "))", "--output=label"}));
    for (std::string l; std::getline(q, l);)
      if (!l.empty()) labels.insert(l);
  }
  const auto t_build = std::chrono::steady_clock::now();
  std::printf("verify: building %zu tools and configurations in %s (no remote cache; its own compile cache %s)\n",
              labels.size(), o_.output_base.c_str(), o_.compile_cache.c_str());
  std::fflush(stdout);
  bazel("build", std::vector<std::string>(labels.begin(), labels.end()));
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

// Stages, upstream first, one line each; the exit code: 1 if any differs or
// failed, 3 if any is stale, else 0.
int Verifier::run_in_order(const std::vector<std::string>& order, const std::vector<std::string>& chosen,
                           double build_seconds, std::chrono::steady_clock::time_point t_start) {
  int differs = 0, stale = 0;
  double core = 0, wall = 0;
  const std::set<std::string> wanted(chosen.begin(), chosen.end());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& t = order[i];
    Outcome o = run_stage(t, i);
    core += o.core_seconds;
    wall += o.wall_seconds;
    const char* what = o.kind == Outcome::Equal     ? "equal"
                       : o.kind == Outcome::Differs ? "DIFFERS"
                       : o.kind == Outcome::Failed  ? "FAILED"
                                                    : "STALE";
    std::printf("%-8s %s%s: %zu files, %.1f core-s%s%s\n", what, t.c_str(),
                wanted.count(t) ? "" : " (upstream, rebuilt to supply inputs)", recs_[t].record["outputs"].size(),
                o.core_seconds, o.detail.empty() ? "" : "; ", o.detail.c_str());
    std::fflush(stdout);
    if (o.kind == Outcome::Differs || o.kind == Outcome::Failed) ++differs;
    if (o.kind == Outcome::Stale) ++stale;
    done_[t] = std::move(o);
  }
  std::printf(
      "verify: %zu stages run, %d differ or failed, %d stale; cost %.1f core-s in the stages (%.1f s wall), "
      "%.1f s building tools, %.1f s in all\n",
      order.size(), differs, stale, core, wall, build_seconds, seconds_since(t_start));
  return differs ? 1 : stale ? 3 : 0;
}

int Verifier::run() {
  const auto t_start = std::chrono::steady_clock::now();
  if (!audited()) return 1;
  load_records();
  std::string rule;
  const std::vector<std::string> chosen = choose(rule);
  report_choice(chosen, rule);
  if (o_.plan_only) {
    for (const auto& t : chosen)
      std::printf("chosen   %s: recorded %.1f core-s\n", t.c_str(), recorded_core_seconds(recs_[t].record));
    return 0;
  }
  // Upstream stages that must run first.
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& t : chosen) resolve(t, order, seen);
  if (o_.with_inputs)
    std::printf("verify: --with-inputs: every upstream stage is rebuilt too (%zu stages in all)\n", order.size());
  else
    std::printf(
        "verify: upstream inputs that results/ or the tree hold with their recorded SHA-256 are accepted by "
        "hash, not rebuilt (--with-inputs rebuilds them)\n");
  const double build_seconds = build_tools(order);
  return run_in_order(order, chosen, build_seconds, t_start);
}

}  // namespace

std::string scratch_refusal(const std::string& scratch, const std::string& workspace, const std::string& results) {
  std::error_code ec;
  const fs::path s = fs::weakly_canonical(fs::absolute(scratch), ec);
  if (ec) return "cannot resolve " + scratch + ": " + ec.message();
  auto within = [](const fs::path& inner, const fs::path& outer) {  // inner == outer or below it
    auto i = inner.begin(), o = outer.begin();
    for (; o != outer.end(); ++i, ++o)
      if (i == inner.end() || *i != *o) return false;
    return true;
  };
  for (const auto& [what, dir] :
       {std::pair<const char*, std::string>{"the workspace", workspace}, {"the results", results}}) {
    const fs::path d = fs::weakly_canonical(fs::absolute(dir), ec);
    if (ec) continue;
    if (within(s, d)) return scratch + " lies inside " + what + " (" + d.string() + ")";
    if (within(d, s)) return scratch + " contains " + what + " (" + d.string() + ")";
  }
  if (fs::exists(s)) {
    if (!fs::is_directory(s)) return scratch + " exists and is not a directory";
    if (!fs::is_empty(s)) return scratch + " exists and is not empty";
  }
  return "";
}

namespace {

// The rebuilder's output base and compile cache: used while its stamp says
// only its own builds used them. Anything else there is refused, never
// removed: verify deletes nothing it did not make (a --output-base naming
// results/ or a home directory once removed it).
void prepare_output_base(VerifyOptions& o) {
  o.output_base = fs::absolute(o.output_base).lexically_normal().string();
  o.compile_cache = o.output_base + ".compile_cache";
  const std::string stamp = o.output_base + ".verify-stamp";
  for (const std::string& d : {o.output_base, o.compile_cache}) {
    std::string why = scratch_refusal(d, o.workspace, o.results);
    if (why.find(" lies inside ") == std::string::npos && why.find(" contains ") == std::string::npos) why = "";
    const char* home = std::getenv("HOME");
    const fs::path h = home && *home ? fs::weakly_canonical(fs::absolute(home)) : fs::path();
    const fs::path c = fs::weakly_canonical(fs::absolute(d));
    if (why.empty() && (c == c.root_path() || (!h.empty() && (c == h || h.string().rfind(c.string() + "/", 0) == 0))))
      why = d + " is the root directory, or is or contains the home directory";
    if (why.empty() && fs::exists(d) && !fs::exists(stamp))
      why = d + " exists and was not made by //paper:verify (no " + stamp + ")";
    if (!why.empty())
      throw error("--output-base: " + why + "; give a new directory, outside the workspace and the results");
  }
  fs::create_directories(fs::path(o.output_base).parent_path());
  fs::create_directories(o.compile_cache);
  write_text_atomic(stamp, "made by //paper:verify: only its own builds (no remote cache, the compile cache " +
                               o.compile_cache + ") use " + o.output_base + "\n");
}

}  // namespace

int run_verify(const VerifyOptions& options) {
  VerifyOptions o = options;
  o.workspace = fs::absolute(o.workspace).lexically_normal().string();
  o.results = fs::absolute(o.results).lexically_normal().string();
  prepare_output_base(o);
  bool created = true;  // remove the scratch directory itself at the end, or only what it holds
  if (o.scratch.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/potts-verify-XXXXXX";
    if (!mkdtemp(templ.data())) throw error("cannot create a scratch directory under " + templ);
    o.scratch = templ;
  } else {
    const std::string why = scratch_refusal(o.scratch, o.workspace, o.results);
    if (!why.empty()) throw error("--scratch: " + why + "; give a new or empty directory outside both");
    created = !fs::exists(o.scratch);
    fs::create_directories(o.scratch);
  }
  Verifier v(o);
  int rc;
  try {
    rc = v.run();
  } catch (...) {
    // Kept: its bazel.log and stage logs explain the error.
    std::fprintf(stderr, "verify: scratch kept for its logs in %s\n", o.scratch.c_str());
    throw;
  }
  if (o.keep) {
    std::printf("verify: scratch kept in %s\n", o.scratch.c_str());
  } else if (created) {
    fs::remove_all(o.scratch);
  } else {  // an empty directory the user gave: empty again
    for (const auto& e : fs::directory_iterator(o.scratch)) fs::remove_all(e.path());
  }
  return rc;
}

}  // namespace potts::provenance
