#include "lib/provenance/trace.h"

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"
#include "lib/core/io.h"
#include "lib/provenance/graph.h"
#include "lib/provenance/results.h"

namespace fs = std::filesystem;

namespace potts::provenance {

namespace {

std::string relative_to(const std::string& dir, std::string file) {
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (!file.empty() && file[0] == '/') {
    const fs::path f = fs::weakly_canonical(file, ec);
    const std::string rel = f.lexically_relative(d).generic_string();
    if (!rel.empty() && rel.rfind("..", 0) != 0) return rel;
    throw StageError(file + " is not inside " + dir);
  }
  const std::string base = fs::path(dir).filename().string() + "/";
  if (file.rfind(base, 0) == 0) file = file.substr(base.size());
  if (file.rfind("./", 0) == 0) file = file.substr(2);
  return file;
}

struct Tracer {
  std::string dir;
  nlohmann::json manifest;
  const RecordGraph* graph = nullptr;
  // Where each (target, basename) lies in results/.
  std::map<std::pair<std::string, std::string>, std::string> located;
  std::set<std::string> shown;  // targets already printed
  std::ostringstream out;
  std::vector<std::string> broken;  // results/ files that differ from what their consumer read

  void header(const nlohmann::json& r, const std::string& indent) {
    nlohmann::json config = r.value("config", nlohmann::json::object());
    if (config.is_object()) config.erase("_comment");
    out << indent << "  config " << r.value("config_file", "?") << " (sha256 " << r.value("config_sha256", "?")
        << "): " << config.dump() << "\n";
    out << indent << "  code version " << r.value("code_version", "(not recorded)") << ", binary sha256 "
        << r.value("tool_sha256", "(not recorded)") << "\n";
  }

  // One input read from an upstream stage: its hash, and where it lies now.
  void upstream_input(const InputLink& l, const nlohmann::json& inputs, const std::string& indent) {
    const std::string read = inputs[l.key].value("sha256", "?");
    const std::string base = l.key.substr(l.key.find('/') + 1);
    out << indent << "    " << l.key << ", sha256 " << read;
    const auto at = located.find({l.target, base});
    if (l.record) {
      out << " (its record, shown below)\n";
    } else if (at == located.end()) {
      out << " (not copied to results/)\n";
    } else {
      const std::string path = dir + "/" + at->second;
      const std::string now = fs::exists(path) ? sha256_file(path) : "(missing)";
      out << ", results/" << at->second
          << (now == read ? ": unchanged" : ": CHANGED, now " + now + " (this link is broken)") << "\n";
      if (now != read) broken.push_back("results/" + at->second);
    }
  }

  void record(const std::string& rel, const std::string& indent) {
    const nlohmann::json& r = graph->records().at(rel);
    const std::string target = r.value("target", "?");
    out << indent << "made by " << target << " (stage " << r.value("stage", "?") << "), seed "
        << r.value("seed", nlohmann::json()).dump() << "\n";
    if (shown.count(target)) {
      out << indent << "  (its chain is shown above)\n";
      return;
    }
    shown.insert(target);
    header(r, indent);
    const nlohmann::json& inputs = r.value("inputs", nlohmann::json::object());
    if (inputs.empty()) out << indent << "  inputs: none (the first stage of its chain)\n";
    // Source files first, then each upstream stage (found by the inputs'
    // hashes) with the files read from it.
    std::map<std::string, std::vector<InputLink>> by_upstream;  // target -> links, in key order
    std::vector<std::string> order;
    std::map<std::string, const InputLink*> generated;
    for (const auto& l : graph->links(rel)) generated[l.key] = &l;
    for (const auto& [key, in] : inputs.items()) {
      auto g = generated.find(key);
      if (g == generated.end()) {
        out << indent << "  input " << key << ", sha256 " << in.value("sha256", "?") << ": a source file, "
            << in.value("path", "?") << "\n";
      } else if (g->second->upstream.empty()) {
        out << indent << "  input " << key << ", sha256 " << in.value("sha256", "?") << ": made by "
            << g->second->target << ", whose record is not in results/ (the chain is broken here)\n";
      } else {
        if (!by_upstream.count(g->second->upstream)) order.push_back(g->second->upstream);
        by_upstream[g->second->upstream].push_back(*g->second);
      }
    }
    for (const auto& up : order) {
      out << indent << "  inputs from " << graph->records().at(up).value("target", "?") << ":\n";
      for (const auto& l : by_upstream[up]) upstream_input(l, inputs, indent);
      record(up, indent + "    ");
    }
  }
};

// The records results/ lists, by rel path.
std::map<std::string, nlohmann::json> listed_records(const std::string& dir, const nlohmann::json& files) {
  std::map<std::string, nlohmann::json> records;
  for (const auto& [rel, m] : files.items())
    if (rel.rfind("provenance/", 0) == 0 && fs::exists(dir + "/" + rel)) records[rel] = read_json(dir + "/" + rel);
  return records;
}

}  // namespace

std::string trace_result(const std::string& dir, const std::string& file, const std::vector<std::string>* problems) {
  Tracer t;
  t.dir = dir;
  const std::string manifest_path = dir + "/MANIFEST.json";
  t.manifest = read_json(manifest_path);
  const nlohmann::json& files = t.manifest.at("files");
  const std::string rel = relative_to(dir, file);
  if (!files.contains(rel))
    throw StageError(file + " is not a result: " + manifest_path + " does not list '" + rel + "' (it lists " +
                     std::to_string(files.size()) + " files: figures/, the stage directories, provenance/, paper.md)");
  for (const auto& [path, m] : files.items())
    if (m.contains("target")) t.located[{m["target"].get<std::string>(), fs::path(path).filename().string()}] = path;
  const nlohmann::json& m = files[rel];
  const std::string now = sha256_file(dir + "/" + rel);
  t.out << "results/" << rel << "\n";
  t.out << "  sha256 " << now
        << (now == m.value("sha256", "") ? " (as MANIFEST.json records)"
                                         : " — CHANGED: MANIFEST.json records " + m.value("sha256", "?"))
        << "\n";
  const std::string target = m.value("target", "");
  const std::string record_path = dir + "/provenance/" + record_name(target);
  const RecordGraph graph(listed_records(dir, files));
  t.graph = &graph;
  if (target.empty() || graph.record_of(target).empty()) {
    t.out << "  (no stage record: " << (target.empty() ? "not made by a stage" : record_path + " is missing") << ")\n";
  } else {
    t.record(graph.record_of(target), "  ");
  }
  std::vector<std::string> mine;
  if (problems)
    for (const auto& line : *problems)
      if (line.find(rel) != std::string::npos) mine.push_back(line);
  if (t.broken.empty() && mine.empty() && now == m.value("sha256", ""))
    t.out << (problems ? "status: current\n"
                       : "status: consistent with MANIFEST.json (staleness against the tree not checked)\n");
  if (!t.broken.empty() || !mine.empty() || now != m.value("sha256", "")) {
    t.out << "status: STALE\n";
    if (now != m.value("sha256", "")) t.out << "  the file itself changed since collection\n";
    for (const auto& b : t.broken) t.out << "  an input changed after it was read: " << b << "\n";
    for (const auto& line : mine) t.out << "  " << line << "\n";
  }
  return t.out.str();
}

}  // namespace potts::provenance
