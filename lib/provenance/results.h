// The results/ directory of the paper: collecting it and auditing it.
//
// collect_results copies what the paper shows (figures, stage summaries,
// curves, and every provenance record of the DAG) from Bazel's outputs into
// a new tree beside results/ with its MANIFEST.json, then swaps it in whole
// (renameat2 RENAME_EXCHANGE; elsewhere old tree aside, new in, with
// recovery on the next run): killed at any point, results/ is wholly old or
// wholly new.
// For every file the manifest lists its SHA-256, the Bazel target that made
// it, that stage's configuration and seed, and its provenance record. The
// records are stored compact (graph.h: no copies of upstream records) and
// link to each other by their inputs' hashes.
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

#include "lib/provenance/names.h"

namespace potts::provenance {

// Copies the indexed files from `src_root` into `dest` with
// dest/MANIFEST.json, atomically as a whole. Files of dest that the last
// collection made and this one does not are dropped; files no collection
// made (results/BUILD) are kept. With `fingerprints` (read_fingerprints),
// MANIFEST.json's "code" records each stage's code fingerprint. Errors
// (unwritable or full destination) name the file and the reason, and leave
// dest as it was. Returns the manifest.
nlohmann::json collect_results(const std::vector<IndexEntry>& index, const std::string& src_root,
                               const std::string& dest, const nlohmann::json& fingerprints = nullptr);

// Stores the records of a results/ tree collected before records were
// linked by hash compact (graph.h) and rewrites its manifest (no chains),
// after checking that every record's upstream copies are the records beside
// it; nothing is written otherwise. Returns the number of records changed.
int compact_results(const std::string& dir);

// Every problem found, one line each, naming the file; empty when the
// directory is consistent with its manifest.
std::vector<std::string> audit_results(const std::string& dir);

}  // namespace potts::provenance
