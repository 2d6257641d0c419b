// The rebuilder (//paper:verify): re-executes stages of a results tree
// outside every cache and compares their outputs, byte for byte, with the
// SHA-256s that the tree's provenance records (locked by MANIFEST.json)
// hold. A stage runs as this source tree defines its action (bazel aquery),
// on inputs whose bytes equal the ones its record names, so a stored result
// that no run of the tree's code made shows up as a differing file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace potts::provenance {

// One stage of a results tree: its provenance record and the tool that the
// manifest names for it.
struct StageRecord {
  std::string target;      // //stages/train:quick_factored
  std::string record_rel;  // provenance/train.quick_factored.json
  std::string tool;        // //stages/train:train
  nlohmann::json record;
};

// Every stage of `results_dir` by target, from MANIFEST.json's "code" (the
// tools) and the provenance records it lists. Throws, naming the file and
// the field, on a record without target, command or outputs.
std::map<std::string, StageRecord> stage_records(const std::string& results_dir);

// The recorded cost of a stage in core-seconds: wall_seconds x threads.
double recorded_core_seconds(const nlohmann::json& record);

// A seeded choice of k of `targets` (k >= size: all): the targets sorted,
// then the first k places of a Fisher-Yates shuffle whose draws come from
// SplitMix64(seed) by rejection (no modulo bias); the order of the choice.
// Fully specified here, so that an auditor can redo it with other tools.
std::vector<std::string> sample_targets(std::vector<std::string> targets, std::size_t k, std::uint64_t seed);

// The first difference between the tree's command and a record's
// ("argument 7: tree '--seed' ... record '...'"), or "" when equal.
std::string first_difference(const std::vector<std::string>& tree, const nlohmann::json& recorded);
// A recorded command without its `--in <key>/provenance.json=...` pairs (the
// upstream records a stage was given before records left the action graph).
nlohmann::json without_record_inputs(const nlohmann::json& command);

// Options of a verify run (paper/verify.cc parses them).
struct VerifyOptions {
  std::string workspace;            // the source tree whose code and configs are used
  std::string results;              // the results tree to check
  std::vector<std::string> stages;  // --stage: targets or record names
  bool all = false;
  long sample = -1;         // --sample K
  std::uint64_t seed = 0;   // --seed S
  std::string output_base;  // the rebuilder's own Bazel output base
  // Its compiles' disk cache: <output_base>.compile_cache, written by the
  // rebuilder's builds only (never a remote cache), so no shared cache has
  // fronted it. An existing output base or cache without the rebuilder's
  // stamp (<output_base>.verify-stamp) is refused, never removed.
  std::string compile_cache;
  // False for a refresh, and for a verify given --compile-cache: the
  // compiles use `disk_cache` (empty: the workspace's .bazelrc default).
  bool own_compile_cache = true;
  std::string disk_cache;
  std::string scratch;       // where stages run ("": a new directory under TMPDIR)
  bool keep = false;         // keep the scratch directory
  bool plan_only = false;    // print the choice and its recorded cost, run nothing
  bool with_inputs = false;  // rebuild every upstream stage too, instead of taking its outputs by hash
  // A refresh that keeps a science stage's new bytes (a change that alters
  // results): the stages below it rerun on them, as presentation stages do.
  bool regenerate = false;
};

// Why `scratch` cannot be the rebuilder's scratch directory, or "": it must
// not exist or be an empty directory, and must neither lie inside nor
// contain the workspace or the results tree (paths compared after
// resolving symbolic links). The rebuilder removes only what it created.
std::string scratch_refusal(const std::string& scratch, const std::string& workspace, const std::string& results);

// Runs the verification and prints one line per stage and a cost summary.
// Returns 0 when every selected stage reproduced its recorded outputs, 1 when
// any differs or failed, 3 when a stage could not be verified (stale: the
// tree's tool, config or action differs from the record's).
int run_verify(const VerifyOptions& options);

}  // namespace potts::provenance
