// compact_results (results.h): a results/ tree collected when records
// embedded their upstream records, stored as the collector now stores it.
#include <filesystem>

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

int compact_results(const std::string& dir) {
  const std::string mpath = dir + "/" + kManifest;
  nlohmann::json manifest = parse_file(mpath);
  if (!manifest.contains("files") || !manifest["files"].is_object()) throw StageError(mpath + ": no \"files\" object");
  auto& files = manifest["files"];
  std::map<std::string, nlohmann::json> records;  // rel -> compact record
  std::map<std::string, std::string> whole;       // rel -> the bytes results/ holds now
  for (const auto& [rel, m] : files.items()) {
    if (rel.rfind("provenance/", 0) != 0) continue;
    whole[rel] = read_text(dir + "/" + rel);
    if (sha256_text(whole[rel]) != m.value("sha256", std::string()))
      throw StageError(dir + "/" + rel + ": differs from " + mpath + "; audit the tree before compacting it");
    records[rel] = compact_record(parse_file(dir + "/" + rel));
  }
  // Nothing is written unless every record's copies come back byte for byte
  // and every link holds.
  const RecordGraph graph(records);
  for (const auto& [rel, text] : whole) {
    const nlohmann::json r = parse_file(dir + "/" + rel);
    if (r.contains("upstream") && graph.written_text(rel) != text)
      throw StageError(dir + "/" + rel + ": its upstream copies are not the records beside it; not compacted");
    for (const auto& l : graph.links(rel))
      if (!l.problem.empty()) throw StageError(l.problem + "; not compacted");
  }
  int changed = 0;
  for (const auto& [rel, r] : records) {
    const std::string text = record_text(r);
    if (text == whole[rel]) continue;
    write_text_atomic(dir + "/" + rel, text);
    ++changed;
  }
  std::map<std::string, const nlohmann::json*> by_target;
  for (const auto& [rel, r] : records) by_target[r.value("target", std::string())] = &r;
  for (auto& [rel, m] : files.items()) {
    const std::string target = m.value("target", std::string());
    auto r = by_target.find(target);
    m = file_entry(target, r == by_target.end() ? nullptr : r->second, dir + "/" + rel);
  }
  manifest["about"] = kManifestAbout;
  write_text_atomic(mpath, manifest.dump(2) + "\n");
  write_text_atomic(dir + "/" + kCrate, crate_text(run_crate(manifest, records)));
  return changed;
}

}  // namespace potts::provenance
