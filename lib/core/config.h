// Validated JSON configuration of a stage, and typed reading of the JSON
// summaries stages pass on (Config::load on an upstream summary.json, without
// finish(): the summary may hold keys this reader does not need).
//
// Every read names its key; every failure names the file, the key and what
// was expected. After reading, `finish()` rejects keys that were never read
// (typos), so a misspelt key can never be silently ignored.
//
// Tested by //tests/core:core_test.
#pragma once
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"

namespace potts {

class Config {
 public:
  // Parses `path`; a syntax error names the file and the position.
  static Config load(const std::string& path);
  // From text (tests); `origin` stands for the file name in messages.
  static Config parse(const std::string& text, const std::string& origin);

  double number(const std::string& key, double lo = -std::numeric_limits<double>::infinity(),
                double hi = std::numeric_limits<double>::infinity());
  // Strictly inside (lo, hi) rather than [lo, hi].
  double number_open(const std::string& key, double lo, double hi);
  std::int64_t integer(const std::string& key, std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t hi = std::numeric_limits<std::int64_t>::max());
  bool boolean(const std::string& key);
  std::string string(const std::string& key);
  // One of a fixed set of words.
  std::string choice(const std::string& key, const std::vector<std::string>& allowed);
  std::vector<double> numbers(const std::string& key, double lo = -std::numeric_limits<double>::infinity(),
                              double hi = std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t lo, std::int64_t hi);
  // A non-empty list of non-empty strings.
  std::vector<std::string> strings(const std::string& key);
  bool has(const std::string& key) const;
  // Any JSON value, present (e.g. copied verbatim into a summary).
  const nlohmann::json& value(const std::string& key) { return at(key, "a value"); }
  // A nested object, validated like the top level ("outer.inner" in
  // messages); call finish() on it as well.
  Config section(const std::string& key);

  // Throws naming every key present in the file but never read.
  void finish() const;

  // The configuration as read (for the provenance record).
  const nlohmann::json& json() const { return j_; }
  const std::string& origin() const { return origin_; }

 private:
  Config(nlohmann::json j, std::string origin, std::string prefix);
  const nlohmann::json& at(const std::string& key, const char* expected);
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  nlohmann::json j_;
  std::string origin_;
  std::string prefix_;
  std::set<std::string> read_;
};

}  // namespace potts
