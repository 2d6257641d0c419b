// What the manifest, publishing and audit code of lib/provenance share
// (internal to the package; the interface is results.h).
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace potts::provenance::internal {

extern const char* const kManifest;  // "MANIFEST.json"
extern const char* const kAbout;     // its "about" text

std::string basename_of(const std::string& path);
// Records are written by run_stage as dump(2) + "\n"; an embedded record
// dumped the same way gives the same bytes (nlohmann keeps keys sorted and
// prints the shortest round-trip form of every number).
std::string record_text(const nlohmann::json& record);
// The file parsed as JSON; a StageError naming it if it is not.
nlohmann::json parse_file(const std::string& path);
// An input path Bazel generated (bazel-out/<config>/bin/...) rather than a
// source file: it must come from an upstream stage with its own record.
bool generated_path(const std::string& path);
std::string errno_text();
// Every record embedded in `record` (at any depth), by target.
void embedded_records(const nlohmann::json& record, std::map<std::string, nlohmann::json>& out);
// The manifest's entry for a file of `target` at `path`, from its record.
// `sha256`, if given, is the file's hash, already computed.
nlohmann::json manifest_entry(const std::string& target, const nlohmann::json* record, const std::string& path,
                              const std::string& sha256 = "");

}  // namespace potts::provenance::internal
