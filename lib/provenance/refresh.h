// The refresher (//paper:refresh): brings a results tree up to date after a
// change that keeps the science, without the whole DAG. Every stage whose
// tool, command or configuration in this tree is not its record's, and every
// stage that reads an input such a stage rewrote, runs as the tree defines
// its action (rebuilder.h), on inputs from results/ by hash:
//  * a science stage must write every data output with its recorded bytes;
//    its new record (tool, command, times) is kept;
//  * a presentation stage (one given upstream records: the figures, the
//    paper) keeps what it writes, and the stages reading it run in turn.
// If any science stage writes other bytes, or fails, nothing is written:
// the change is a regeneration (`tools/bazel run //paper:all`). Otherwise
// results/ is collected anew, as //paper:all collects it (results.h), from
// the kept files and the new ones, with its manifest and RO-Crate.
#pragma once
#include <string>

#include "lib/provenance/verify.h"

namespace potts::provenance {

// Runs the refresh (options as verify's; stages, sample and all unused;
// plan_only lists what would run, the upstream stages it would rerun to
// supply inputs, and their records' wall times) with the fingerprints of the tree's scale
// (//paper:paper_fingerprints for results/). Returns 0 when results/ is current or
// was refreshed, 1 when a stage differs or failed (nothing written).
int run_refresh(const VerifyOptions& options, const std::string& fingerprints);

}  // namespace potts::provenance
