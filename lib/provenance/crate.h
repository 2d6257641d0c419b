// results/ro-crate-metadata.json: the provenance graph of a results/ tree
// as a Workflow Run Crate (RO-Crate 1.2; the Process, Workflow and
// Provenance Run Crate profiles, 0.5), generated from MANIFEST.json and the
// records alone, so it says nothing they do not.
//
//  * Every file of results/ is a File data entity (its path, sha256 and
//    size); a file a stage read or wrote that results/ does not hold (a
//    source file of the repository, an intermediate output of Bazel) is a
//    File with a local identifier "#<path>@<sha256 prefix>".
//  * Every record is one stage run: a CreateAction whose instrument is the
//    stage binary (a SoftwareApplication named by its path, identified by
//    its SHA-256, with the code versions it was built at and its
//    toolchain), whose object is every input file, the configuration file
//    and the configuration's top-level keys and the seed as PropertyValues
//    (each the value of a FormalParameter of the binary), and whose result
//    is every output file and the record itself.
//  * The DAG is the main entity (a ComputationalWorkflow whose HowToSteps
//    are the stage targets, each based on its tool's source code with the
//    code fingerprint MANIFEST.json records); one ControlAction per run ties
//    its step to its CreateAction.
//
// Tested by //lib/provenance:results_test (on a synthetic DAG) and
// //tests/paper:ro_crate_test (the committed crate in the npm ro-crate
// library).
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace potts::provenance {

// The crate's file name in results/.
extern const char* const kCrate;

// manifest: MANIFEST.json; records: rel path -> record (compact).
nlohmann::json run_crate(const nlohmann::json& manifest, const std::map<std::string, nlohmann::json>& records);

// The crate as written: dump(2) and a newline.
std::string crate_text(const nlohmann::json& crate);

}  // namespace potts::provenance
