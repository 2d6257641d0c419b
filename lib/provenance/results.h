// The results/ directory of the paper: collecting it and auditing it.
//
// collect_results copies what the paper shows (figures, stage summaries,
// curves, and every provenance record of the DAG) from Bazel's outputs into
// a new tree beside results/ with its MANIFEST.json, then swaps it in whole
// (renameat2 RENAME_EXCHANGE; elsewhere old tree aside, new in, with
// recovery on the next run): killed at any point, results/ is wholly old or
// wholly new.
// For every file the manifest lists its SHA-256, the Bazel target that made
// it, that stage's configuration and seed, and the chain of provenance
// records back to the first stage (the sample stage for the Potts figures).
//
// audit_results checks a results/ directory against its manifest: every
// listed file exists and has its hash, nothing unlisted lies beside them,
// every stage output matches the hash its provenance record gives, and every
// chain is complete: each input a stage read from another stage has that
// stage's record, and the record's hashes agree with what was consumed.
//
// Tested by //lib/provenance:results_test, //lib/provenance:by_hash_test; on the pipeline
// fixture by //tests/paper:fault_test, //tests/paper:tamper_test.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace potts::provenance {

// One Bazel target whose files go to results/.
struct IndexEntry {
  std::string target;                 // "//stages/train:paper_factored"
  std::vector<std::string> files;     // paths relative to the source root
  std::vector<std::string> patterns;  // basenames to copy ("*.csv", "summary.json"); provenance.json always
};

// Reads the index written by //paper:results.bzl: {"entries": [{"target",
// "files", "copy"}]} with "copy" a comma-separated list of patterns.
std::vector<IndexEntry> read_index(const std::string& path);

// "//stages/train:paper_factored" -> "train.paper_factored.json" (the
// record's name under results/provenance/).
std::string record_name(const std::string& target);
// Where a file of `target` (whose record names `stage`) with this basename
// goes inside results/: a figure's own files -> "figures/<base>" and its
// other files -> "figures/<name>.<base>" (fig2a.summary.json); the paper
// stage -> "<base>"; any other stage -> "<package>/<name>/<base>" with a
// leading "stages/" dropped (train/paper_factored/curves.csv).
std::string destination(const std::string& target, const std::string& stage, const std::string& basename);
// Shell-style match with '*' only.
bool matches(const std::string& pattern, const std::string& name);

// Copies the indexed files from `src_root` into `dest` with
// dest/MANIFEST.json, atomically as a whole. Files of dest that the last
// collection made and this one does not are dropped; files no collection
// made (results/BUILD) are kept. With `fingerprints` (read_fingerprints),
// MANIFEST.json's "code" records each stage's code fingerprint. Errors
// (unwritable or full destination) name the file and the reason, and leave
// dest as it was. Returns the manifest.
nlohmann::json collect_results(const std::vector<IndexEntry>& index, const std::string& src_root,
                               const std::string& dest, const nlohmann::json& fingerprints = nullptr);

// {"stages": {target: {"config", "seed", "tool", "sources"}}, "tools":
// {tool: [source files]}, "binaries": {tool: path of its executable}} from an
// index or fingerprints file written by //paper:results.bzl ("binaries" only
// where the file has it).
nlohmann::json read_fingerprints(const std::string& path);

// The code fingerprint of a tool: SHA-256 of the `sha256sum` listing
// ("<sha256>  <path>\n", paths sorted) of its source files under root.
std::string code_fingerprint(const std::vector<std::string>& files, const std::string& root);

// Every problem found, one line each, naming the file; empty when the
// directory is consistent with its manifest.
std::vector<std::string> audit_results(const std::string& dir);

// The chain of upstream records embedded in a provenance record, depth
// first, each upstream stage once: [{"key", "target", "stage", "seed",
// "config_sha256", "provenance_record"}].
nlohmann::json provenance_chain(const nlohmann::json& record);

}  // namespace potts::provenance
