// The chain of one file of results/, back to the first stage: what made it,
// from what, and whether each link still holds.
//
// trace_result prints, for a file listed in results/MANIFEST.json:
//  * its SHA-256, and whether it still has the hash the manifest records;
//  * the stage target that produced it, its configuration file (with the
//    configuration itself) and seed, the code version and the binary's hash;
//  * every input the stage read, with the hash it read; for an input made
//    by another stage, that stage's record in turn (recursively, each stage
//    once), and where the input lies in results/, whether it still has the
//    hash its consumer read ("CHANGED" names the broken link otherwise);
//  * whether it is current: the stale report's lines about it (a changed
//    binary, config, seed or source input upstream), if one is given.
// A path that is not a result (not in the manifest) is a StageError naming
// it and saying what is.
//
// Tested by //paper:trace_test (on a copy of the committed results/,
// including a changed file upstream of a figure).
#pragma once
#include <string>
#include <vector>

namespace potts::provenance {

// `dir`: a results/ directory; `file`: a path under it ("figures/x.png",
// also accepted with a leading "results/" or as an absolute path inside
// dir); `problems`: the audit's and the stale report's lines
// (audit_results, stale_results), or null if staleness was not checked.
std::string trace_result(const std::string& dir, const std::string& file,
                         const std::vector<std::string>* problems = nullptr);

}  // namespace potts::provenance
