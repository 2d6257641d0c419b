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
#include "lib/provenance/rebuilder.h"
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

// --stage, --sample or --all, each stage compared with its record.
class Verifier : public Rebuilder {
 public:
  explicit Verifier(const VerifyOptions& o) : Rebuilder(o, false) {}
  int run();

 private:
  std::vector<std::string> choose(std::string& rule);
  void report_choice(const std::vector<std::string>& chosen, const std::string& rule);
  int run_in_order(const std::vector<std::string>& order, const std::vector<std::string>& chosen, double build_seconds,
                   std::chrono::steady_clock::time_point t_start);
};

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
  o.compile_cache = o.own_compile_cache ? o.output_base + ".compile_cache" : o.disk_cache;
  const std::string stamp = o.output_base + ".verify-stamp";
  std::vector<std::string> dirs = {o.output_base};
  if (o.own_compile_cache) dirs.push_back(o.compile_cache);
  for (const std::string& d : dirs) {
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
  if (o.own_compile_cache) fs::create_directories(o.compile_cache);
  write_text_atomic(stamp, "made by //paper:verify: only its own builds (no remote cache, the compile cache " +
                               o.compile_cache + ") use " + o.output_base + "\n");
}

}  // namespace

int run_rebuild(const VerifyOptions& options, const char* who, const std::function<int(const VerifyOptions&)>& body) {
  VerifyOptions o = options;
  o.workspace = fs::absolute(o.workspace).lexically_normal().string();
  o.results = fs::absolute(o.results).lexically_normal().string();
  prepare_output_base(o);
  bool created = true;  // remove the scratch directory itself at the end, or only what it holds
  if (o.scratch.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/potts-" + who + "-XXXXXX";
    if (!mkdtemp(templ.data())) throw error("cannot create a scratch directory under " + templ);
    o.scratch = templ;
  } else {
    const std::string why = scratch_refusal(o.scratch, o.workspace, o.results);
    if (!why.empty()) throw error("--scratch: " + why + "; give a new or empty directory outside both");
    created = !fs::exists(o.scratch);
    fs::create_directories(o.scratch);
  }
  int rc;
  try {
    rc = body(o);
  } catch (...) {
    // Kept: its bazel.log and stage logs explain the error.
    std::fprintf(stderr, "%s: scratch kept for its logs in %s\n", who, o.scratch.c_str());
    throw;
  }
  if (o.keep) {
    std::printf("%s: scratch kept in %s\n", who, o.scratch.c_str());
  } else if (created) {
    fs::remove_all(o.scratch);
  } else {  // an empty directory the user gave: empty again
    for (const auto& e : fs::directory_iterator(o.scratch)) fs::remove_all(e.path());
  }
  return rc;
}

int run_verify(const VerifyOptions& options) {
  return run_rebuild(options, "verify", [](const VerifyOptions& o) { return Verifier(o).run(); });
}

}  // namespace potts::provenance
