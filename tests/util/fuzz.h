// Seeded, deterministic mutation fuzzing for the readers of outside input
// (configs, command lines, HDF5, CSV and JSON files), shared by the fuzz
// tests. A case passes if the reader succeeds or throws the project's own
// StageError whose message names the input (file or flag); any other
// exception, a crash (sanitizers) or a hang (test timeout) is a finding.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/error.h"

namespace potts::fuzz {

// Cases per fuzzed reader. The committed budget is what `bazel test` (and CI)
// runs: the first kCiCases of each seeded sequence over the committed seed
// corpus. The exploration tier (docs/testing.md) raises it by setting
// POTTS_FUZZ_CASES; the cases are the same sequence, continued.
constexpr long kCiCases = 2000;

inline long case_budget() {
  const char* v = std::getenv("POTTS_FUZZ_CASES");
  if (!v || !*v) return kCiCases;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 1)
    throw std::invalid_argument(std::string("POTTS_FUZZ_CASES: expected a positive integer, got '") + v + "'");
  return n;
}

// Values that break careless readers: NaN/inf spellings, huge, negative,
// zero, wrong types.
inline std::vector<nlohmann::json> nasty_values() {
  return {nullptr,
          true,
          false,
          0,
          -1,
          1,
          2,
          -2147483649LL,
          2147483648LL,
          std::numeric_limits<std::int64_t>::max(),
          std::numeric_limits<std::int64_t>::min(),
          std::numeric_limits<std::uint64_t>::max(),
          0.5,
          -0.0,
          1e-320,
          1e308,
          -1e308,
          1e19,
          "",
          "x",
          "NaN",
          "inf",
          "-Infinity",
          "1e999",
          nlohmann::json::array(),
          nlohmann::json::array({1, 2, 3}),
          nlohmann::json::array({"a", nullptr}),
          nlohmann::json::object(),
          nlohmann::json::object({{"k", 1}})};
}

// Text fragments inserted by byte-level mutations.
inline std::vector<std::string> nasty_tokens() {
  return {"NaN",
          "nan",
          "-nan",
          "inf",
          "-inf",
          "Infinity",
          "1e999",
          "-1e999",
          "1e-999",
          "18446744073709551616",
          "-9223372036854775809",
          "0x10",
          "\"",
          ",",
          "{",
          "}",
          "[",
          "]",
          ":",
          "\n",
          "\r\n",
          std::string(1, '\0'),
          "\xff\xfe",
          ",,",
          "null",
          "true",
          "-",
          "."};
}

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t below(std::uint64_t n) { return n ? rng_() % n : 0; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  // One to four byte-level edits: flip, set, delete, duplicate, truncate,
  // insert a token.
  std::string bytes(std::string s) {
    const int edits = 1 + int(below(4));
    for (int e = 0; e < edits; ++e) {
      const std::size_t pos = s.empty() ? 0 : below(s.size());
      switch (below(6)) {
        case 0:
          if (!s.empty()) s[pos] = char(s[pos] ^ (1u << below(8)));
          break;
        case 1:
          if (!s.empty()) s[pos] = char(below(256));
          break;
        case 2:
          if (!s.empty()) s.erase(pos, 1 + below(std::min<std::size_t>(8, s.size() - pos)));
          break;
        case 3:
          if (!s.empty()) s.insert(pos, s.substr(pos, 1 + below(16)));
          break;
        case 4:
          s.resize(below(s.size() + 1));
          break;
        default: {
          const auto t = nasty_tokens();
          s.insert(pos, t[below(t.size())]);
        }
      }
    }
    return s;
  }

  // One to three structural edits of a JSON document: replace a value with a
  // nasty one, delete a key, add an unknown key, empty a list, nudge a number.
  nlohmann::json json(nlohmann::json j) {
    const int edits = 1 + int(below(3));
    for (int e = 0; e < edits; ++e) edit(j);
    return j;
  }

 private:
  // All nodes, as JSON pointers.
  static void nodes(const nlohmann::json& j, const nlohmann::json::json_pointer& at,
                    std::vector<nlohmann::json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object())
      for (auto it = j.begin(); it != j.end(); ++it) nodes(it.value(), at / it.key(), out);
    if (j.is_array())
      for (std::size_t i = 0; i < j.size(); ++i) nodes(j[i], at / i, out);
  }

  void edit(nlohmann::json& j) {
    std::vector<nlohmann::json::json_pointer> all;
    nodes(j, nlohmann::json::json_pointer(), all);
    const auto p = all[below(all.size())];
    nlohmann::json& v = j[p];
    const auto nasty = nasty_values();
    switch (below(6)) {
      case 0:
      case 1:
        if (p.empty()) break;  // keep the top-level object
        v = nasty[below(nasty.size())];
        break;
      case 2:
        if (!p.empty()) {
          nlohmann::json& parent = j[p.parent_pointer()];
          if (parent.is_object())
            parent.erase(p.back());
          else if (parent.is_array() && !parent.empty())
            parent.erase(parent.size() - 1);
        }
        break;
      case 3:
        if (v.is_object())
          v["unknown_key_" + std::to_string(below(3))] = 1;
        else if (v.is_array())
          v.push_back(nasty[below(nasty.size())]);
        break;
      case 4:
        if (v.is_array() || v.is_object()) v.clear();
        break;
      default:
        // Wraps around at the int64 limits (unsigned arithmetic: no overflow).
        if (v.is_number_integer())
          v = std::int64_t(std::uint64_t(v.get<std::int64_t>()) + below(5) - 2);
        else if (v.is_number())
          v = v.get<double>() * (chance(0.5) ? -1.0 : 1e6);
        else if (v.is_array() && !v.empty())
          v.push_back(v[0]);
    }
  }

  std::mt19937_64 rng_;
};

// Counts outcomes; findings keep the first few inputs that produced them.
struct Tally {
  std::string reader;
  long cases = 0, ok = 0, clear_errors = 0;
  std::vector<std::string> findings;
  double slowest = 0;
  std::string slowest_input;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // Runs one case. `must_name` is what a clear error must mention (the file
  // or the flag); empty: any StageError message will do.
  void run(const std::function<void()>& reader_case, const std::string& must_name, const std::string& input) {
    ++cases;
    const auto t0 = std::chrono::steady_clock::now();
    struct Timer {  // records the slowest case, however it ends
      Tally& t;
      std::chrono::steady_clock::time_point t0;
      const std::string& input;
      ~Timer() {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > t.slowest) t.slowest = s, t.slowest_input = input.substr(0, 200);
      }
    } timer{*this, t0, input};
    try {
      reader_case();
      ++ok;
    } catch (const StageError& e) {
      const std::string m = e.what();
      if (!must_name.empty() && m.find(must_name) == std::string::npos)
        finding("StageError not naming '" + must_name + "': " + m, input);
      else if (m.find('\n') != std::string::npos)
        finding("StageError spanning several lines: " + m, input);
      else
        ++clear_errors;
    } catch (const std::exception& e) {
      finding(std::string("foreign exception: ") + e.what(), input);
    } catch (...) {
      finding("non-std exception", input);
    }
  }

  void finding(const std::string& what, const std::string& input) {
    if (findings.size() < 5)
      findings.push_back(what + "\n  input: " + input.substr(0, 400));
    else
      findings.emplace_back();
  }

  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }

  // One line on stdout for the test log.
  std::string summary() const {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "fuzz %s: %ld cases (%ld accepted, %ld clear errors, %zu findings) in %.1f s; slowest case %.3f s",
                  reader.c_str(), cases, ok, clear_errors, findings.size(), seconds(), slowest);
    return std::string(buf) + (slowest > 0.5 ? " (" + slowest_input + ")" : "");
  }
};

}  // namespace potts::fuzz
