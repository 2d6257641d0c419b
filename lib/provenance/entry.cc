#include "lib/provenance/entry.h"

#include "lib/provenance/internal.h"

namespace potts::provenance::internal {

const char* const kManifestAbout =
    "Every file of results/ with its SHA-256, the Bazel target that made it, that stage's configuration file and "
    "seed, and its provenance record. Each record names its inputs by SHA-256, which links it to the records of "
    "the stages that made them, back to the first stage. Check with `tools/bazel test //paper:audit`; follow one "
    "file with `tools/bazel run //paper:trace -- FILE`.";

nlohmann::json file_entry(const std::string& target, const nlohmann::json* record, const std::string& path,
                          const std::string& sha256) {
  nlohmann::json m = manifest_entry(target, record, path, sha256);
  m.erase("chain");
  m.erase("config");
  return m;
}

}  // namespace potts::provenance::internal
