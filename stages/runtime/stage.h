// The plumbing every stage binary shares.
//
// A stage is run by Bazel (tools/stage.bzl) as
//   stage --target //stages/<stage>:<name> --config c.json --seed N
//         --in key=path ... --out key=path ... --provenance p.json [--status f]
//         [--threads N]
// run_stage parses that (with --help), loads and validates the configuration,
// calls the stage body, checks every declared output was written, and then
// writes the provenance record: stage, configuration, seed, SHA-256 of every
// input and output, the upstream provenance records (the chain back to the
// sample stage), code version, toolchain, wall time and thread count.
// --threads sets the threads of lib/core/parallel.h (threaded stages' kernels,
// the same bits for any count).
// Errors reach the user as one line naming the file and the field.
//
// Tested by //tests/core:stage_test, //tests/core:stage_rule_test.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/core/config.h"
#include "lib/core/error.h"
#include "lib/core/io.h"

namespace potts {

class Stage {
 public:
  Stage(std::string name, Config config, std::uint64_t seed, std::map<std::string, std::string> inputs,
        std::map<std::string, std::string> outputs);

  const std::string& name() const { return name_; }
  Config& config() { return config_; }
  std::uint64_t seed() const { return seed_; }

  // Path of input `key` (e.g. "sample/train.h5"); error if not given.
  std::string input(const std::string& key) const;
  // Path where output `key` must be written (atomically); error if the
  // build did not declare it. The first call validates the configuration
  // (Config::finish), so read every key before asking for an output.
  std::string output(const std::string& key);
  bool wants(const std::string& key) const { return outputs_.count(key) > 0; }
  // Every input and output given (key -> path), for stages that take a
  // variable set of upstream files (figures aggregating a sweep).
  const std::map<std::string, std::string>& inputs() const { return inputs_; }
  const std::map<std::string, std::string>& outputs() const { return outputs_; }

  // Writes the summary JSON output "summary.json" (atomically).
  void write_summary(const nlohmann::json& summary);

  // Extra facts recorded in the provenance record: results of the run that
  // depend only on its inputs (e.g. the calibrated beta) ...
  nlohmann::json& facts() { return facts_; }
  // ... and measurements of the run itself (seconds, throughput), which
  // differ between two runs of the same action (a volatile field).
  nlohmann::json& timings() { return timings_; }
  // The thread count recorded (--threads, unless the body sets its own).
  void set_threads(int n) { threads_ = n; }
  int threads() const { return threads_; }

  // Called by run_stage after the body returns.
  nlohmann::json provenance(const std::string& target, const std::string& code_version, double wall_seconds,
                            const std::vector<std::string>& argv) const;
  void check_outputs_written() const;

 private:
  std::string name_;
  Config config_;
  std::uint64_t seed_;
  std::map<std::string, std::string> inputs_, outputs_;
  std::set<std::string> handed_out_;
  nlohmann::json facts_ = nlohmann::json::object();
  nlohmann::json timings_ = nlohmann::json::object();
  int threads_ = 1;
};

// The command line of a stage binary. Parse errors are StageErrors naming
// the flag; --help fills `help` instead.
struct StageArgs {
  std::string target, config_path, provenance_path, status_path, help;
  std::uint64_t seed = 0;
  int threads = 1;
  std::map<std::string, std::string> inputs, outputs;
};
StageArgs parse_stage_args(const std::string& name, const std::string& description, int argc, const char* const* argv);

// Main of every stage binary: returns the process exit code (0 success,
// 1 a StageError, 2 any other exception: a bug).
int run_stage(const std::string& name, const std::string& description, int argc, char** argv,
              const std::function<void(Stage&)>& body);

// Compiler and library versions, for provenance records.
nlohmann::json toolchain_versions();

// The fields of a provenance record that differ between two runs of the
// same action (when and where it ran, and the commit it was built from);
// every other field is a function of the action's inputs. Tests that compare
// records from two runs (local and remote, two CPUs) drop exactly these.
inline const char* const kVolatileProvenanceFields[] = {"finished_utc", "wall_seconds", "timings", "hardware_threads",
                                                        "code_version"};

// A path as recorded in provenance: from its "bazel-out/" component on, so
// that a record does not depend on where the action ran (an execution root,
// a sandbox, a remote worker's work directory). Other paths are unchanged.
std::string location_independent(const std::string& path);

// Progress on stderr for long stages: "name: done/total (p%), rate, ETA".
class Progress {
 public:
  Progress(std::string label, std::uint64_t total, std::string unit);
  void update(std::uint64_t done);  // prints at most every 2 s, and at the end
 private:
  std::string label_, unit_;
  std::uint64_t total_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace potts
