// Stale results: a committed result whose stage's binary, configuration,
// seed or source inputs (gnuplot scripts, the paper's template) no longer
// match the tree, and every result downstream of one (through the records'
// inputs, linked by hash: graph.h). That is the key Bazel caches a stage on.
//
// What the tree holds comes from a fingerprints file (//paper:results.bzl,
// stage_fingerprints): per stage its config file, seed, tool and source
// inputs, per tool its source files and the binary that runs. What results/
// recorded: the provenance records (config_sha256, seed, input hashes,
// tool_sha256: the binary that made them) and MANIFEST.json's "code" (each
// stage's source fingerprint at collection, code_fingerprint()).
//
// Code: the binary built now against the record's tool_sha256. The same
// bytes: current, whatever the edit to its sources (a comment). Other
// bytes and other sources: stale. Other bytes from the recorded sources: a
// note (another toolchain, or a sanitizer build), not stale. Without a
// binary or a recorded tool_sha256, the source fingerprint decides.
//
// Tested by //tests/paper:stale_test (on the pipeline fixture) and
// //tests/paper:comment_edit_test (a comment in a copy of the workspace).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace potts::provenance {

struct StaleReport {
  std::vector<std::string> stale;  // one line per stale file of results/, naming it and the cause
  std::vector<std::string> notes;  // what could not be checked, and why
};

// dir: a results/ directory; fingerprints: read_fingerprints(); root: where
// the files the fingerprints name are (a runfiles root or the source tree).
// require_code: a stage without a code fingerprint in MANIFEST.json is
// stale (otherwise a note).
StaleReport stale_results(const std::string& dir, const nlohmann::json& fingerprints, const std::string& root,
                          bool require_code = false);

}  // namespace potts::provenance
