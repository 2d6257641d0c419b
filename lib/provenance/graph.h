// The provenance records of a results/ tree as a graph linked by hash.
//
// A record holds its own stage's facts and names its inputs by key, path and
// SHA-256; it embeds no other record. The record that made an input is found
// by the input's hash:
//  * a data file: the record that lists an output of that name and hash
//    (of the stage the path names, bazel-out/<cfg>/bin/<package>/<name>/ for
//    //<package>:<name>, if several have it);
//  * an upstream record itself (`<key>/provenance.json`, given to the
//    presentation stages, figures and the paper, and to every stage before
//    records were taken out of the action graph): the record whose bytes as
//    its stage wrote them have that hash.
// When none has it, the stage the path names tells what is wrong: its record
// is missing, or it recorded other bytes.
//
// The stage runtime writes a record with an `upstream` member: a copy of
// every record it was given. results/ stores records without it (compact);
// written_text() puts the copies back, from the records in the graph, so a
// record's hash is checked against the bytes its consumer read. Compacting
// loses nothing: the copies are the upstream records themselves.
//
// Tested by //lib/provenance:graph_test; on the pipeline fixture by
// //tests/paper:tamper_test and //tests/paper:fault_test.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace potts::provenance {

// The record without its copies of upstream records, as results/ stores it.
nlohmann::json compact_record(nlohmann::json record);

// An input key naming an upstream record ("<key>/provenance.json"), as
// records made before records left the action graph list them.
bool is_record_key(const std::string& key);

// "bazel-out/k8-opt/bin/stages/sample/quick/train.h5" -> "//stages/sample:quick"
// (the stage that declared it); "" for a path Bazel did not generate.
std::string target_of_generated_path(const std::string& path);

// One generated input of a record, and where it came from.
struct InputLink {
  std::string key;       // the input's key, "sample/train.h5"
  std::string sha256;    // what the consumer read
  std::string target;    // the stage that made it (from its path)
  std::string upstream;  // that stage's record (rel path in results/), "" when it is not in the graph
  bool record = false;   // the input is the upstream's record itself
  std::string problem;   // "" when the hashes agree; otherwise what is wrong (one line)
};

class RecordGraph {
 public:
  // rel path ("provenance/train.quick.json") -> record, compact or whole.
  explicit RecordGraph(std::map<std::string, nlohmann::json> records);

  const std::map<std::string, nlohmann::json>& records() const { return records_; }
  // The record (rel path) of `target`, "" if the graph has none.
  std::string record_of(const std::string& target) const;
  // Every generated input of `rel`, in key order, with its producer.
  const std::vector<InputLink>& links(const std::string& rel) const;
  // The upstream records of `rel` (rel paths), each once, in key order.
  std::vector<std::string> upstream(const std::string& rel) const;
  // Every record upstream of `rel`, depth first, each once.
  std::vector<std::string> ancestors(const std::string& rel) const;
  // The bytes the stage runtime wrote for `rel`: with its upstream copies
  // put back ("" when one of them is not in the graph).
  const std::string& written_text(const std::string& rel) const;

 private:
  InputLink link(const std::string& rel, const std::string& key, const nlohmann::json& in) const;
  // The record other than `rel` with output `base` of this hash (the one of
  // `target` if several), "" if none.
  std::string made(const std::string& rel, const std::string& base, const std::string& sha256,
                   const std::string& target) const;
  // The record whose written text has this hash (that of `target` first).
  std::string record_with_text(const std::string& target, const std::string& sha256) const;

  std::map<std::string, nlohmann::json> records_;
  std::map<std::string, std::string> by_target_;
  std::map<std::string, std::vector<std::string>> by_output_;  // "<basename> <sha256>" -> records
  mutable std::map<std::string, std::vector<InputLink>> links_;
  mutable std::map<std::string, std::string> written_;
  mutable std::set<std::string> writing_;  // guards against a cycle of malformed records
};

}  // namespace potts::provenance
