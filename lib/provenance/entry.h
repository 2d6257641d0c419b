// The manifest's entry for one file, as results/ lists it now (internal to
// the package): its hash, size, target, stage, configuration file, seed,
// code version and provenance record. The configuration itself and the
// record's inputs are in the record, once; the chain is the records' links
// by hash (graph.h), so no entry repeats it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace potts::provenance::internal {

extern const char* const kManifestAbout;  // MANIFEST.json's "about" text

// `sha256`, if given, is the file's hash, already computed.
nlohmann::json file_entry(const std::string& target, const nlohmann::json* record, const std::string& path,
                          const std::string& sha256 = "");

}  // namespace potts::provenance::internal
