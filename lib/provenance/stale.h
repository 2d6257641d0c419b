// Stale results: a committed result whose stage's configuration, seed,
// source inputs (gnuplot scripts, the paper's template) or code no longer
// match the tree, and every result downstream of one (through the
// provenance chains).
//
// What the tree holds comes from a fingerprints file (//paper:results.bzl,
// stage_fingerprints): per stage its config file, seed, tool and source
// inputs, per tool its source files. What results/ recorded: the
// provenance records (config_sha256, seed, input hashes) and MANIFEST.json's
// "code" (each stage's code fingerprint at collection, code_fingerprint()).
// Everything compared is a hash of bytes in the tree, stable across
// machines and toolchains: neither git commits nor binaries.
//
// Tested by //tests/paper:stale_test (on the pipeline fixture).
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
