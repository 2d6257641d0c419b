#include "lib/provenance/graph.h"

#include <functional>

#include "lib/core/io.h"
#include "lib/provenance/internal.h"
#include "lib/provenance/results.h"

namespace potts::provenance {

namespace {
constexpr const char* kRecordFile = "provenance.json";
}  // namespace

bool is_record_key(const std::string& key) {
  const std::string suffix = std::string("/") + kRecordFile;
  return key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
}

namespace {

// Stands in for an upstream copy while the record is dumped: a string no
// record holds (a control character and the key).
std::string placeholder(const std::string& key) { return std::string("\x01upstream-record\x01") + key; }

}  // namespace

nlohmann::json compact_record(nlohmann::json record) {
  if (record.is_object()) record.erase("upstream");
  return record;
}

std::string target_of_generated_path(const std::string& path) {
  if (!internal::generated_path(path)) return "";
  // bazel-out/<cfg>/bin/<package>/<name>/<file>
  auto bin = path.find("/bin/");
  if (bin == std::string::npos) return "";
  const std::string rest = path.substr(bin + 5);
  const auto file = rest.rfind('/');
  if (file == std::string::npos) return "";
  const std::string dir = rest.substr(0, file);
  const auto name = dir.rfind('/');
  if (name == std::string::npos) return "//:" + dir;
  return "//" + dir.substr(0, name) + ":" + dir.substr(name + 1);
}

RecordGraph::RecordGraph(std::map<std::string, nlohmann::json> records) : records_(std::move(records)) {
  for (const auto& [rel, r] : records_) {
    if (!r.is_object()) continue;
    by_target_[r.value("target", std::string())] = rel;
    const nlohmann::json outs = r.value("outputs", nlohmann::json::object());
    if (!outs.is_object()) continue;
    for (const auto& [base, o] : outs.items())
      if (o.is_object()) by_output_[base + " " + o.value("sha256", std::string())].push_back(rel);
  }
}

std::string RecordGraph::record_of(const std::string& target) const {
  auto it = by_target_.find(target);
  return it == by_target_.end() ? "" : it->second;
}

std::string RecordGraph::made(const std::string& rel, const std::string& base, const std::string& sha256,
                              const std::string& target) const {
  auto it = by_output_.find(base + " " + sha256);
  if (it == by_output_.end()) return "";
  std::string found;
  for (const auto& r : it->second) {
    if (r == rel) continue;  // a record never vouches for its own input
    if (records_.at(r).value("target", std::string()) == target) return r;
    if (found.empty()) found = r;
  }
  return found;
}

std::string RecordGraph::record_with_text(const std::string& target, const std::string& sha256) const {
  const std::string at = record_of(target);
  if (!at.empty() && !written_text(at).empty() && sha256_text(written_text(at)) == sha256) return at;
  for (const auto& [r, rec] : records_)
    if (r != at && !written_text(r).empty() && sha256_text(written_text(r)) == sha256) return r;
  return "";
}

// One generated input: found by its hash (a data file among the records'
// outputs, preferring the stage its path names; a record among the records'
// written texts); when none has it, the stage its path names says why.
InputLink RecordGraph::link(const std::string& rel, const std::string& key, const nlohmann::json& in) const {
  const nlohmann::json& r = records_.at(rel);
  const std::string who = rel + " (" + r.value("target", std::string("?")) + ")";
  InputLink l;
  l.key = key;
  l.sha256 = in.value("sha256", std::string());
  l.record = is_record_key(key);
  const std::string named = target_of_generated_path(in.value("path", std::string()));
  const std::string base = key.substr(key.find('/') + 1);
  l.upstream = l.record ? record_with_text(named, l.sha256) : made(rel, base, l.sha256, named);
  if (!l.upstream.empty()) {
    l.target = records_.at(l.upstream).value("target", std::string());
    return l;
  }
  l.target = named;
  const std::string at = record_of(named);
  if (l.record) {
    l.problem = at.empty() ? who + ": the record of upstream " + named + " (provenance/" +
                                 (named.empty() ? std::string("?") : record_name(named)) +
                                 ") is not in results/ (chain incomplete)"
                           : at + ": differs from the record " + r.value("target", std::string("?")) +
                                 " consumed (SHA-256 mismatch in " + rel + ")";
    return l;
  }
  const nlohmann::json outs =
      at.empty() ? nlohmann::json::object() : records_.at(at).value("outputs", nlohmann::json::object());
  if (at.empty()) {
    l.problem = who + ": input " + key + " was made by an upstream stage whose provenance record is missing " +
                "(chain incomplete)";
  } else if (!outs.contains(base)) {
    l.problem = who + ": input " + key + " is not an output of upstream " + named;
  } else {
    l.problem = who + ": input " + key + " has SHA-256 " + l.sha256 + " but upstream " + named + " recorded " +
                outs[base].value("sha256", std::string());
  }
  return l;
}

const std::vector<InputLink>& RecordGraph::links(const std::string& rel) const {
  if (auto it = links_.find(rel); it != links_.end()) return it->second;
  std::vector<InputLink> out;
  const nlohmann::json inputs = records_.at(rel).value("inputs", nlohmann::json::object());
  if (inputs.is_object())
    for (const auto& [key, in] : inputs.items())
      if (in.is_object() && internal::generated_path(in.value("path", std::string())))  // else a source file
        out.push_back(link(rel, key, in));
  return links_[rel] = out;
}

std::vector<std::string> RecordGraph::upstream(const std::string& rel) const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& l : links(rel))
    if (!l.upstream.empty() && seen.insert(l.upstream).second) out.push_back(l.upstream);
  return out;
}

std::vector<std::string> RecordGraph::ancestors(const std::string& rel) const {
  std::vector<std::string> out;
  std::set<std::string> seen{rel};
  std::function<void(const std::string&)> visit = [&](const std::string& r) {
    for (const auto& u : upstream(r)) {
      if (!seen.insert(u).second) continue;
      out.push_back(u);
      visit(u);
    }
  };
  visit(rel);
  return out;
}

// The runtime embeds, under `upstream`, the record of each input
// `<k>/provenance.json` as read_json(path), keyed k, and dumps the whole with
// dump(2): each copy is its own dump(2) text, indented by the depth at which
// it sits (two levels: four spaces).
const std::string& RecordGraph::written_text(const std::string& rel) const {
  static const std::string none;
  if (auto it = written_.find(rel); it != written_.end()) return it->second;
  const nlohmann::json& r = records_.at(rel);
  if (r.contains("upstream") || !r.is_object()) return written_[rel] = internal::record_text(r);
  if (!writing_.insert(rel).second) return none;
  nlohmann::json whole = r;
  whole["upstream"] = nlohmann::json::object();
  std::map<std::string, std::string> copies;  // placeholder as dumped -> the copy's text
  const nlohmann::json inputs = r.value("inputs", nlohmann::json::object());
  for (const auto& [key, in] : inputs.items()) {
    if (!is_record_key(key) || !in.is_object()) continue;
    const std::string k = key.substr(0, key.size() - std::string(kRecordFile).size() - 1);
    const std::string up = record_of(target_of_generated_path(in.value("path", std::string())));
    const std::string text = up.empty() ? "" : written_text(up);
    if (text.empty()) {
      writing_.erase(rel);
      return none;
    }
    whole["upstream"][k] = placeholder(k);
    std::string indented;
    indented.reserve(text.size() + text.size() / 8);
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {  // without the final newline
      indented += text[i];
      if (text[i] == '\n') indented += "    ";
    }
    copies[nlohmann::json(placeholder(k)).dump()] = std::move(indented);
  }
  // The placeholders lie in the dump in key order, as the map holds them.
  const std::string dumped = internal::record_text(whole);
  std::string text;
  std::size_t pos = 0;
  for (const auto& [mark, copy] : copies) {
    const auto at = dumped.find(mark, pos);
    text.append(dumped, pos, at - pos);
    text += copy;
    pos = at + mark.size();
  }
  text.append(dumped, pos, std::string::npos);
  writing_.erase(rel);
  return written_[rel] = text;
}

}  // namespace potts::provenance
