// The refresher (refresh.h).
#include "lib/provenance/refresh.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/io.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/names.h"
#include "lib/provenance/rebuilder.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

namespace fs = std::filesystem;

namespace {

// Where Bazel writes a generated file whose short path (the index's) is p.
const std::string kBin = "bazel-out/k8-opt/bin/";

class Refresher : public Rebuilder {
 public:
  Refresher(const VerifyOptions& o, std::string fingerprints)
      : Rebuilder(o, true), fingerprints_label_(std::move(fingerprints)) {}
  int run();

 private:
  bool inputs_changed(const std::string& target) const;
  int supply(const std::string& target, std::size_t index);
  void plan(const std::string& target, const std::string& why);
  double recorded_seconds(const std::string& target) const;
  std::vector<std::pair<std::string, nlohmann::json>> tree_inputs(const std::string& target) const;
  int run_changed(const std::vector<std::string>& order);
  std::string fingerprints_path() const;
  void collect();

  std::string fingerprints_label_;
  std::size_t ran_ = 0;
  std::set<std::string> supplied_;  // run only to supply inputs: not collected
  // --plan: the stages that would run and be supplied, and their records' wall times.
  std::size_t planned_ = 0, planned_supplies_ = 0;
  double planned_seconds_ = 0, planned_supply_seconds_ = 0;
};

// An input whose producer ran here and wrote other bytes than the record
// names: always the producer's record, sometimes its data (a figure);
// or an upstream record, rewritten here, that an older record lists.
bool Refresher::inputs_changed(const std::string& target) const {
  const auto& inputs = recs_.at(target).record["inputs"];
  for (const auto& [key, tree_path] : Argv{argv_.at(target)}.pairs("--in")) {
    if (!inputs.contains(key)) return true;  // an input the record does not have
    const auto& in = inputs[key];
    const std::string path = in.at("path");
    const auto p = producer_.find(path);
    if (p == producer_.end()) {  // a source input: a script, the paper's template
      const std::string c = o_.workspace + "/" + tree_path;
      if (fs::is_regular_file(c) && sha256_file(c) != in.value("sha256", "")) return true;
      continue;
    }
    const auto d = done_.find(p->second);
    if (d == done_.end() || !d->second.outputs.count(path)) continue;
    if (sha256_file(d->second.outputs.at(path)) != in.value("sha256", "")) return true;
  }
  // A record made before records left the action graph also lists its
  // upstream records, and the audit puts its written text back from them
  // (graph.h): one rewritten here changes that text, so the stage reruns,
  // and its new record lists only what its action reads.
  for (const auto& [key, in] : inputs.items()) {
    if (!is_record_key(key)) continue;
    const auto p = producer_.find(in.value("path", std::string()));
    if (p != producer_.end() && done_.count(p->second) && !supplied_.count(p->second)) return true;
  }
  return false;
}

// Upstream stages whose outputs `target` reads and results/ does not hold
// (a protein family's alignment) run first, as verify runs them: their
// recorded bytes must come out; they are not collected (their records stay).
// With --plan, each is listed with its record's wall time instead.
int Refresher::supply(const std::string& target, std::size_t index) {
  int bad = 0;
  for (const auto& [key, in] : tree_inputs(target)) {
    if (!input_source(target, key).empty()) continue;
    const auto p = producer_.find(in.at("path").get<std::string>());
    if (p == producer_.end() || done_.count(p->second)) continue;
    const std::string& up = p->second;
    bad += supply(up, index);
    // One whose own action changed is refreshed; any other only compared.
    const bool changed = !argv_.count(up) || !stale_reason(up, config_source(up)).empty();
    if (o_.plan_only) {
      std::printf("would supply %s (upstream, for %s's input %s; its record: %.1f s)\n", up.c_str(), target.c_str(),
                  key.c_str(), recorded_seconds(up));
      ++planned_supplies_;
      planned_supply_seconds_ += recorded_seconds(up);
      if (!changed) supplied_.insert(up);
      done_[up] = Outcome{};
      continue;
    }
    refresh_ = changed;
    Outcome o = run_stage(up, 100000 + index * 100 + supplied_.size());
    refresh_ = true;
    const bool ok = o.kind == Outcome::Equal || o.kind == Outcome::Replaced;
    const char* what = !ok ? "DIFFERS" : o.kind == Outcome::Replaced ? "NEW" : "equal";
    std::printf("%-8s %s (upstream, rerun to supply inputs): %.1f core-s%s%s\n", what, up.c_str(), o.core_seconds,
                o.detail.empty() ? "" : "; ", o.detail.c_str());
    if (!ok) ++bad;
    if (!changed) supplied_.insert(up);
    if (changed) ++ran_;
    done_[up] = std::move(o);
  }
  return bad;
}

// The record's inputs that the tree's action of `target` reads (its
// `--in` keys): a rerun links only those, so only those need supplying (a
// record of the former graph also lists upstream records and files its
// stage never read).
std::vector<std::pair<std::string, nlohmann::json>> Refresher::tree_inputs(const std::string& target) const {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  const auto& inputs = recs_.at(target).record["inputs"];
  const auto a = argv_.find(target);
  if (a == argv_.end()) return out;
  for (const auto& [key, path] : Argv{a->second}.pairs("--in"))
    if (inputs.contains(key)) out.emplace_back(key, inputs[key]);
  return out;
}

double Refresher::recorded_seconds(const std::string& target) const {
  return recs_.at(target).record.value("wall_seconds", 0.0);
}

// --plan: `target` would run. Assumed to reproduce its recorded bytes (what
// a refresh is for), so that only its record is new: the stages reading
// that record (the presentation steps, and records of the former graph,
// inputs_changed) are planned in turn.
void Refresher::plan(const std::string& target, const std::string& why) {
  supply(target, 0);
  std::printf("would run %s: %s (its record: %.1f s)\n", target.c_str(), why.empty() ? "an input changed" : why.c_str(),
              recorded_seconds(target));
  ++planned_;
  planned_seconds_ += recorded_seconds(target);
  done_[target] = Outcome{};
}

// Every stage, upstream first: run when its action or an input changed.
// Returns the number that differ or failed.
int Refresher::run_changed(const std::vector<std::string>& order) {
  int bad = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string& t = order[i];
    if (done_.count(t)) continue;  // run above, to supply an input
    const std::string why = argv_.count(t) ? stale_reason(t, config_source(t)) : "no Stage action in this tree";
    const bool upstream = why.empty() && inputs_changed(t);
    if (why.empty() && !upstream) continue;
    if (o_.plan_only) {
      plan(t, why);
      continue;
    }
    bad += supply(t, i);
    Outcome o = run_stage(t, i);
    ++ran_;
    const char* what = o.kind == Outcome::Equal      ? "same"
                       : o.kind == Outcome::Replaced ? (reads_records(t) ? "redrawn" : "NEW")
                       : o.kind == Outcome::Differs  ? "DIFFERS"
                       : o.kind == Outcome::Failed   ? "FAILED"
                                                     : "STALE";
    std::printf("%-8s %s (%s): %.1f core-s%s%s\n", what, t.c_str(), why.empty() ? "an input changed" : "its action",
                o.core_seconds, o.detail.empty() ? "" : "; ", o.detail.c_str());
    std::fflush(stdout);
    if (o.kind == Outcome::Differs || o.kind == Outcome::Failed || o.kind == Outcome::Stale) ++bad;
    done_[t] = std::move(o);
  }
  return bad;
}

// The fingerprints' JSON in the rebuilder's execroot
// ("//paper:paper_fingerprints" -> bazel-out/k8-opt/bin/paper/paper_fingerprints.json).
std::string Refresher::fingerprints_path() const {
  const auto colon = fingerprints_label_.find(':');
  if (fingerprints_label_.rfind("//", 0) != 0 || colon == std::string::npos)
    throw std::runtime_error("--fingerprints " + fingerprints_label_ + ": expected a label //package:name");
  return execroot_ + "/" + kBin + fingerprints_label_.substr(2, colon - 2) + "/" +
         fingerprints_label_.substr(colon + 1) + ".json";
}

// results/ collected anew, as //paper:all collects it, from an index of what
// the manifest lists (each file under its target, by basename, so that it
// lands where it is) over a tree of the kept files, the new ones and the
// tools' sources (for the manifest's code fingerprints). The index itself
// is not built: its runfiles are every stage's outputs.
void Refresher::collect() {
  const auto fingerprints = read_fingerprints(fingerprints_path());
  const auto manifest_in = read_json(o_.results + "/MANIFEST.json");
  const std::string root = scratch_ + "/collect";
  auto place = [&](const std::string& from, const std::string& rel) {
    const std::string to = root + "/" + rel;
    if (fs::exists(fs::symlink_status(to))) return;
    fs::create_directories(fs::path(to).parent_path());
    fs::create_symlink(fs::absolute(from), to);
  };
  std::map<std::string, IndexEntry> entries;
  for (const auto& [rel, m] : manifest_in["files"].items()) {
    const std::string t = m.value("target", "");
    IndexEntry& e = entries[t];
    e.target = t;
    const std::string base = fs::path(rel).filename().string();
    const std::string short_path = "refresh/" + record_name(t) + "/" + base;
    const bool record = rel == "provenance/" + record_name(t);
    const auto d = supplied_.count(t) ? done_.end() : done_.find(t);
    std::string from = o_.results + "/" + rel;
    // A rerun output by where the collector puts it: a figure's summary.json
    // is figures/<name>.summary.json (names.h).
    const auto r = recs_.find(t);
    const std::string stage = r == recs_.end() ? "" : r->second.record.value("stage", std::string());
    if (d != done_.end())
      for (const auto& [exec, file] : d->second.outputs) {
        const std::string name = fs::path(exec).filename().string();
        if (record ? name == "provenance.json" : destination(t, stage, name) == rel) from = file;
      }
    place(from, record ? "refresh/" + record_name(t) + "/provenance.json" : short_path);
    e.files.push_back(record ? "refresh/" + record_name(t) + "/provenance.json" : short_path);
    if (!record) e.patterns.push_back(base);
  }
  std::vector<IndexEntry> index;
  for (auto& [t, e] : entries) index.push_back(std::move(e));
  const nlohmann::json tools = fingerprints.value("tools", nlohmann::json::object());
  for (const auto& [tool, files] : tools.items())
    for (const auto& f : files) place(o_.workspace + "/" + f.get<std::string>(), f.get<std::string>());
  const auto manifest = collect_results(index, root, o_.results, fingerprints);
  std::printf("refresh: %zu files and MANIFEST.json collected into %s\n", manifest["files"].size(), o_.results.c_str());
  const auto problems = audit_results(o_.results);
  for (const auto& p : problems) std::printf("AUDIT    %s\n", p.c_str());
  if (!problems.empty())
    throw std::runtime_error(std::to_string(problems.size()) + " audit problems after the refresh");
}

int Refresher::run() {
  const auto t_start = std::chrono::steady_clock::now();
  if (!audited()) return 1;
  load_records();
  std::vector<std::string> all, order;
  for (const auto& [t, s] : recs_) all.push_back(t);
  // The whole DAG in order: every upstream stage before its readers.
  o_.with_inputs = true;
  std::set<std::string> seen;
  for (const auto& t : all) resolve(t, order, seen);
  const double build_seconds = build_tools(order, {fingerprints_label_});
  // Records are inputs of the presentation stages: their producers by path.
  for (const auto& [t, args] : argv_)
    if (const std::string prov = Argv{args}.value("--provenance"); !prov.empty()) producer_[prov] = t;
  const int bad = run_changed(order);
  if (o_.plan_only) {
    std::printf(
        "refresh --plan: %zu stages would run (their records: %.0f s), %zu more would rerun to supply inputs that "
        "neither results/ nor this workspace's bazel-out holds (their records: %.0f s); the records' wall times, "
        "assuming every stage reproduces its bytes\n",
        planned_, planned_seconds_, planned_supplies_, planned_supply_seconds_);
    return 0;
  }
  std::printf("refresh: %zu of %zu stages run, %d differ or failed; %.1f s building tools, %.1f s in all\n", ran_,
              order.size(), bad, build_seconds, seconds_since(t_start));
  if (bad) {
    std::printf(
        "refresh: nothing written: a stage does not reproduce its recorded outputs, so the change is a "
        "regeneration (--regenerate, or tools/bazel run //paper:all)\n");
    return 1;
  }
  if (ran_ == 0) {
    std::printf("refresh: %s is current\n", o_.results.c_str());
    return 0;
  }
  collect();
  return 0;
}

}  // namespace

int run_refresh(const VerifyOptions& options, const std::string& fingerprints) {
  return run_rebuild(options, "refresh", [&](const VerifyOptions& o) { return Refresher(o, fingerprints).run(); });
}

}  // namespace potts::provenance
