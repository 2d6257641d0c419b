// Helpers shared by the unit tests.
#pragma once
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <armadillo>

#include "lib/core/error.h"
#include "lib/core/rng.h"

namespace potts::testing_util {

// Bazel's per-test scratch directory (TEST_TMPDIR), or /tmp outside Bazel.
inline std::string tmpdir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// The message of the StageError that f throws, or "" if it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const StageError& e) {
    return e.what();
  }
  return "";
}

// The lines of v, one per line (for failure messages).
inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

// True if one of the messages contains both a and b.
inline bool any_contains(const std::vector<std::string>& messages, const std::string& a, const std::string& b = "") {
  for (const auto& m : messages)
    if (m.find(a) != std::string::npos && m.find(b) != std::string::npos) return true;
  return false;
}

// M x L states drawn uniformly from 0 .. C - 1 by Rng(seed, stream), row by row.
inline arma::imat random_states(arma::uword M, arma::uword L, arma::uword C, std::uint64_t seed, std::uint64_t stream) {
  Rng rng(seed, stream);
  arma::imat s(M, L);
  for (auto& v : s) v = arma::sword(rng.below(C));
  return s;
}

}  // namespace potts::testing_util
