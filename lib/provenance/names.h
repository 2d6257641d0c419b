// The names of results/: what the index lists, where each file of a stage
// goes, what each record is called, and the fingerprints of the DAG's code.
// Defined in manifest.cc (//lib/provenance:names), which the figure and
// paper stages link; collecting and auditing results/ is results.h.
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

// {"stages": {target: {"config", "seed", "tool", "sources"}}, "tools":
// {tool: [source files]}, "binaries": {tool: path of its executable}} from an
// index or fingerprints file written by //paper:results.bzl ("binaries" only
// where the file has it).
nlohmann::json read_fingerprints(const std::string& path);

// The code fingerprint of a tool: SHA-256 of the `sha256sum` listing
// ("<sha256>  <path>\n", paths sorted) of its source files under root.
std::string code_fingerprint(const std::vector<std::string>& files, const std::string& root);

}  // namespace potts::provenance
