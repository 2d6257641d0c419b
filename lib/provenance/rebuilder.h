// The rebuilder's machinery, shared by //paper:verify (verify.h) and
// //paper:refresh (refresh.h): a stage of a results tree run as this source
// tree defines its action (bazel aquery), outside every cache, in a scratch
// directory, on inputs whose bytes equal the ones its record names.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/provenance/graph.h"
#include "lib/provenance/verify.h"

namespace potts::provenance {

// Paths and files as a rebuild needs them (verify.h's options).
std::string join_quoted(const std::vector<std::string>& v);
double seconds_since(std::chrono::steady_clock::time_point t0);

// The value of "--flag" or of "KEY=VALUE" pairs in a stage's argv.
struct Argv {
  std::vector<std::string> args;
  std::string value(const std::string& flag) const {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag) return args[i + 1];
    return "";
  }
  std::vector<std::pair<std::string, std::string>> pairs(const std::string& flag) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag) {
        const auto eq = args[i + 1].find('=');
        out.emplace_back(args[i + 1].substr(0, eq), args[i + 1].substr(eq + 1));
      }
    return out;
  }
};

// The outcome of one stage.
struct Outcome {
  // Replaced: a presentation stage (it reads records) run anew, its outputs
  // taken as they are (refresh only).
  enum Kind { Equal, Differs, Failed, Stale, Replaced } kind = Equal;
  std::string detail;
  double core_seconds = 0, wall_seconds = 0;
  std::map<std::string, std::string> outputs;  // execroot path -> rebuilt file (Equal, Replaced), its record too
};

// Runs body with options whose paths are absolute, whose output base is
// prepared (made by the rebuilder, or new; anything else refused) and whose
// scratch directory exists; removes the scratch afterwards unless kept
// (or an error left its logs there). `who` names the tool in messages.
int run_rebuild(const VerifyOptions& options, const char* who, const std::function<int(const VerifyOptions&)>& body);

class Rebuilder {
 public:
  // refresh: a stage whose tool or command is not its record's still runs
  // (its outputs decide), and a presentation stage's new outputs are kept.
  Rebuilder(const VerifyOptions& o, bool refresh) : o_(o), refresh_(refresh), scratch_(o.scratch) {}
  virtual ~Rebuilder() = default;

 protected:
  std::string bazel(const std::string& command, const std::vector<std::string>& args);
  void resolve(const std::string& target, std::vector<std::string>& order, std::set<std::string>& seen);
  std::string input_source(const std::string& target, const std::string& key);
  Outcome run_stage(const std::string& target, std::size_t index);
  // Where the configuration of the tree's action of `target` is.
  std::string config_source(const std::string& target) const;
  std::string stale_reason(const std::string& target, const std::string& config_src) const;
  bool link_inputs(const std::string& target, const std::string& dir, const std::string& config_src, Outcome& out);
  // Whether the tree's command of `target` gives it upstream records.
  bool reads_records(const std::string& target) const;
  bool audited();
  void load_records();
  double build_tools(const std::vector<std::string>& order, const std::vector<std::string>& extra = {});

  VerifyOptions o_;
  bool refresh_;
  std::map<std::string, StageRecord> recs_;
  std::map<std::string, std::string> results_by_sha_;     // sha256 -> results/ file
  std::map<std::string, std::string> producer_;           // execroot output path -> target
  std::map<std::string, std::vector<std::string>> argv_;  // target -> the tree's Stage command
  std::map<std::string, Outcome> done_;
  std::map<std::string, std::string> found_;  // "path sha256" -> a file with those bytes
  std::unique_ptr<RecordGraph> graph_;        // results/' records, for the records a stage reads
  std::string execroot_, scratch_;
};

}  // namespace potts::provenance
